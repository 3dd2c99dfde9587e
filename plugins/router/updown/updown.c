/* updown.c — a generic up*-down* router (Schroeder et al., Autonet, 1991)
 * that works on any topology whose links go both ways: a route is zero or
 * more "up" hops followed by zero or more "down" hops, never up after down,
 * which breaks every cycle of channel dependencies, so it is deadlock free
 * with virtual cut-through and a single VC.
 *
 * Which way is up: the topology's own word when its ports say so (trees flag
 * hops INSEE_HOP_UP / INSEE_HOP_DOWN), else a BFS spanning tree from `root`:
 * a hop is up when it leads to a router nearer the root, or as near with a
 * lower index (a total order, so the up relation is acyclic).
 *
 * Routes: among the legal routes, the shortest ones (INSEE's multistage
 * router §2.2.3 uses shortest up/down paths too). At create the router reads
 * the graph through host->peer() and computes, for every router hosting a
 * node, two hop counts from every router: down[] (down hops only) and
 * legal[] (up* then down*). route() lists every port on a shortest legal
 * route; a packet remembers in its state whether it has gone down.
 */
#include <insee/insee.h>

#include <stdlib.h>
#include <string.h>

enum { P_ROOT, P_SELECT };
enum { SELECT_FIRST, SELECT_ROOM };

static const insee_param_def updown_params[] = {
    [P_ROOT] = {"root", INSEE_PARAM_INT, "0", 0, 4294967295.0, NULL, NULL,
                "root of the BFS spanning tree that orders the links, when the topology "
                "does not say which way is up"},
    [P_SELECT] = {"select", INSEE_PARAM_ENUM, "\"room\"", 1, 0, "first|room", NULL,
                  "among the shortest legal hops: the lowest port first (deterministic), or "
                  "the one with most free room downstream first (adaptive)"},
    {0},
};

#define FAR UINT16_MAX
/* Two tables of routers x destination routers, 2 bytes each: 2^26 entries
   is 256 MiB, the most this router allows itself. */
#define MAX_TABLE_ENTRIES (1ull << 26)

typedef struct updown {
    const insee_host *host;
    int select;
    uint32_t routers, vcs;
    uint32_t *port_base;       /* routers + 1 */
    uint32_t *peer;            /* per global port: router it leads to, or UINT32_MAX */
    uint8_t *up;               /* per global port: the hop is up */
    uint32_t *dst_index;       /* per router: its row in the tables, or UINT32_MAX */
    uint32_t dsts;
    uint16_t *down;            /* [dst * routers + r] */
    uint16_t *legal;           /* [dst * routers + r] */
} updown;

static void updown_destroy(void *vself)
{
    updown *self = vself;
    if (!self)
        return;
    free(self->port_base);
    free(self->peer);
    free(self->up);
    free(self->dst_index);
    free(self->down);
    free(self->legal);
    free(self);
}

static void *fail(updown *self, insee_error *err, int code, const char *msg)
{
    insee_error_set(err, code, "updown: %s", msg);
    updown_destroy(self);
    return NULL;
}

static bool out_of_memory(insee_error *err)
{
    insee_error_set(err, INSEE_ERR_NOMEM, "updown: out of memory for its route tables");
    return false;
}

/* The graph through the host; every link must have a reverse. */
static bool read_graph(updown *self, insee_error *err)
{
    const insee_host *h = self->host;
    uint32_t R = self->routers;
    self->port_base = malloc(sizeof(uint32_t) * (R + 1));
    if (!self->port_base)
        return out_of_memory(err);
    uint64_t total = 0;
    for (uint32_t r = 0; r < R; r++) {
        self->port_base[r] = (uint32_t)total;
        total += h->ports(h->kernel, r);
    }
    self->port_base[R] = (uint32_t)total;
    self->peer = malloc(sizeof(uint32_t) * (total + 1));
    self->up = calloc(total + 1, 1);
    if (!self->peer || !self->up)
        return out_of_memory(err);
    for (uint32_t r = 0; r < R; r++) {
        for (uint32_t p = 0; p < self->port_base[r + 1] - self->port_base[r]; p++) {
            insee_port_peer q;
            uint32_t gp = self->port_base[r] + p;
            self->peer[gp] = h->peer(h->kernel, r, p, &q) ? q.router : UINT32_MAX;
            if (self->peer[gp] == UINT32_MAX)
                continue;
            insee_port_peer back;
            if (!h->peer(h->kernel, q.router, q.port, &back) || back.router != r) {
                insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                                "updown: the link from router %u port %u to router %u has no "
                                "link back on the same port; up*-down* routing needs links in "
                                "both directions (use a bidirectional topology)",
                                r, p, q.router);
                return false;
            }
        }
    }
    return true;
}

/* BFS hop counts from `root` over all links. */
static uint32_t *bfs_levels(const updown *self, uint32_t root)
{
    uint32_t R = self->routers;
    uint32_t *level = malloc(sizeof(uint32_t) * R), *queue = malloc(sizeof(uint32_t) * R);
    if (!level || !queue) {
        free(level);
        free(queue);
        return NULL;
    }
    for (uint32_t r = 0; r < R; r++)
        level[r] = UINT32_MAX;
    uint32_t head = 0, tail = 0;
    level[root] = 0;
    queue[tail++] = root;
    while (head < tail) {
        uint32_t r = queue[head++];
        for (uint32_t gp = self->port_base[r]; gp < self->port_base[r + 1]; gp++) {
            uint32_t n = self->peer[gp];
            if (n != UINT32_MAX && level[n] == UINT32_MAX) {
                level[n] = level[r] + 1;
                queue[tail++] = n;
            }
        }
    }
    free(queue);
    return level;
}

/* A topology that labels its ports must label every link exactly one way,
   and its reverse the other way: otherwise "up" is not an order and the
   deadlock-freedom argument fails. */
static bool labelled_consistently(const updown *self, uint32_t r, uint32_t p, insee_error *err)
{
    const insee_host *h = self->host;
    insee_hop here, there;
    insee_port_peer q;
    h->port_info(h->kernel, r, p, &here);
    h->peer(h->kernel, r, p, &q);
    h->port_info(h->kernel, q.router, q.port, &there);
    uint8_t a = here.flags & (INSEE_HOP_UP | INSEE_HOP_DOWN);
    uint8_t b = there.flags & (INSEE_HOP_UP | INSEE_HOP_DOWN);
    if ((a == INSEE_HOP_UP && b == INSEE_HOP_DOWN) || (a == INSEE_HOP_DOWN && b == INSEE_HOP_UP))
        return true;
    insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                    "updown: the topology labels some ports up or down, but router %u port %u "
                    "and its reverse (router %u port %u) are not labelled one up and the other "
                    "down; a topology that labels must label every link",
                    r, p, q.router, q.port);
    return false;
}

/* Orient every link. Returns false (with err) if the graph is disconnected. */
static bool orient_links(updown *self, uint32_t root, insee_error *err)
{
    const insee_host *h = self->host;
    bool topology_says = false;
    for (uint32_t r = 0; r < self->routers && !topology_says; r++) {
        for (uint32_t p = 0; p < self->port_base[r + 1] - self->port_base[r]; p++) {
            insee_hop info;
            h->port_info(h->kernel, r, p, &info);
            if (info.flags & (INSEE_HOP_UP | INSEE_HOP_DOWN)) {
                topology_says = true;
                break;
            }
        }
    }
    uint32_t *level = bfs_levels(self, root);
    if (!level)
        return out_of_memory(err);
    for (uint32_t r = 0; r < self->routers; r++) {
        if (level[r] == UINT32_MAX) {
            insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                            "updown: router %u cannot be reached from router %u; the network "
                            "is not connected", r, root);
            free(level);
            return false;
        }
    }
    for (uint32_t r = 0; r < self->routers; r++) {
        for (uint32_t p = 0; p < self->port_base[r + 1] - self->port_base[r]; p++) {
            uint32_t gp = self->port_base[r] + p, n = self->peer[gp];
            if (n == UINT32_MAX)
                continue;
            if (topology_says) {
                if (!labelled_consistently(self, r, p, err)) {
                    free(level);
                    return false;
                }
                insee_hop info;
                h->port_info(h->kernel, r, p, &info);
                self->up[gp] = (info.flags & INSEE_HOP_UP) != 0;
            } else {
                self->up[gp] = level[n] < level[r] || (level[n] == level[r] && n < r);
            }
        }
    }
    free(level);
    return true;
}

/* Routers in an order where every up hop leads to an earlier router (Kahn's
   algorithm on the up relation). Fails if the topology's own up labels
   contain a cycle. */
static uint32_t *up_order(const updown *self, insee_error *err)
{
    uint32_t R = self->routers;
    uint32_t *pending = calloc(R, sizeof(uint32_t)), *order = malloc(sizeof(uint32_t) * R);
    if (!pending || !order) {
        free(pending);
        free(order);
        out_of_memory(err);
        return NULL;
    }
    for (uint32_t r = 0; r < R; r++)
        for (uint32_t gp = self->port_base[r]; gp < self->port_base[r + 1]; gp++)
            pending[r] += self->peer[gp] != UINT32_MAX && self->up[gp];
    uint32_t head = 0, tail = 0;
    for (uint32_t r = 0; r < R; r++)
        if (pending[r] == 0)
            order[tail++] = r;
    /* A router is placed once every router its up hops lead to is placed:
       walk the down hops of placed routers back to the routers above them. */
    while (head < tail) {
        uint32_t r = order[head++];
        for (uint32_t gp = self->port_base[r]; gp < self->port_base[r + 1]; gp++) {
            uint32_t n = self->peer[gp];
            if (n != UINT32_MAX && !self->up[gp] && --pending[n] == 0)
                order[tail++] = n;
        }
    }
    free(pending);
    if (tail < R) {
        insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                        "updown: the topology's up/down port labels form a cycle; they must "
                        "order the routers");
        free(order);
        return NULL;
    }
    return order;
}

/* down[] and legal[] toward destination router d. */
static void fill_tables(const updown *self, uint32_t d, const uint32_t *order, uint32_t *queue,
                        uint16_t *down, uint16_t *legal)
{
    uint32_t R = self->routers;
    for (uint32_t r = 0; r < R; r++)
        down[r] = legal[r] = FAR;
    /* down: BFS from d backwards over down hops, i.e. from x to the routers
       x reaches by an up hop. */
    uint32_t head = 0, tail = 0;
    down[d] = 0;
    queue[tail++] = d;
    while (head < tail) {
        uint32_t x = queue[head++];
        for (uint32_t gp = self->port_base[x]; gp < self->port_base[x + 1]; gp++) {
            uint32_t r = self->peer[gp];
            if (r != UINT32_MAX && self->up[gp] && down[r] == FAR) {
                down[r] = (uint16_t)(down[x] + 1);
                queue[tail++] = r;
            }
        }
    }
    /* legal: go down from here, or up first; up hops lead to routers that
       come earlier in `order`, whose legal[] is final already. */
    for (uint32_t i = 0; i < R; i++) {
        uint32_t r = order[i];
        uint16_t best = down[r];
        for (uint32_t gp = self->port_base[r]; gp < self->port_base[r + 1]; gp++) {
            uint32_t n = self->peer[gp];
            if (n != UINT32_MAX && self->up[gp] && legal[n] != FAR && legal[n] + 1 < best)
                best = (uint16_t)(legal[n] + 1);
        }
        legal[r] = best;
    }
}

/* Every router hosting a node has a legal route to every other: with the
   topology's own labels this can fail (two roots with no common way down),
   and a packet would then wait forever. */
static bool every_pair_routable(const updown *self, insee_error *err)
{
    uint32_t R = self->routers;
    for (uint32_t d = 0; d < R; d++) {
        uint32_t j = self->dst_index[d];
        if (j == UINT32_MAX)
            continue;
        for (uint32_t s = 0; s < R; s++) {
            if (self->dst_index[s] != UINT32_MAX && self->legal[(size_t)j * R + s] == FAR) {
                insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                                "updown: no up*-down* route leads from router %u to router %u "
                                "with the topology's up/down labels; the topology must give "
                                "every pair a common router above both",
                                s, d);
                return false;
            }
        }
    }
    return true;
}

static bool build_tables(updown *self, const uint32_t *order, insee_error *err)
{
    const insee_host *h = self->host;
    insee_shape shape;
    h->shape(h->kernel, &shape);
    uint32_t R = self->routers;
    self->dst_index = malloc(sizeof(uint32_t) * R);
    if (!self->dst_index)
        return out_of_memory(err);
    for (uint32_t r = 0; r < R; r++)
        self->dst_index[r] = UINT32_MAX;
    for (uint32_t node = 0; node < shape.nodes; node++) {
        uint32_t r = h->node_router(h->kernel, node);
        if (self->dst_index[r] == UINT32_MAX)
            self->dst_index[r] = self->dsts++;
    }
    if ((uint64_t)self->dsts * R > MAX_TABLE_ENTRIES) {
        insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                        "updown: %u routers x %u destination routers exceed the %llu entries "
                        "its route tables may take; use a topology-specific router for "
                        "networks this large", R, self->dsts, MAX_TABLE_ENTRIES);
        return false;
    }
    size_t entries = (size_t)self->dsts * R;
    self->down = malloc(sizeof(uint16_t) * (entries ? entries : 1));
    self->legal = malloc(sizeof(uint16_t) * (entries ? entries : 1));
    uint32_t *queue = malloc(sizeof(uint32_t) * R);
    if (!self->down || !self->legal || !queue) {
        free(queue);
        return out_of_memory(err);
    }
    for (uint32_t r = 0; r < R; r++) {
        uint32_t j = self->dst_index[r];
        if (j != UINT32_MAX)
            fill_tables(self, r, order, queue, &self->down[(size_t)j * R],
                        &self->legal[(size_t)j * R]);
    }
    free(queue);
    return every_pair_routable(self, err);
}

static void *updown_create(const insee_host *host, const insee_value *params, insee_error *err)
{
    insee_shape shape;
    host->shape(host->kernel, &shape);
    updown *self = calloc(1, sizeof *self);
    if (!self)
        return fail(NULL, err, INSEE_ERR_NOMEM, "out of memory");
    *self = (updown){.host = host, .select = (int)params[P_SELECT].i,
                     .routers = shape.routers, .vcs = shape.vcs};
    if (shape.routers > FAR) {
        insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                        "updown: %u routers; its 16-bit hop counts allow at most %u",
                        shape.routers, FAR);
        updown_destroy(self);
        return NULL;
    }
    if ((uint64_t)params[P_ROOT].i >= shape.routers) {
        insee_error_set(err, INSEE_ERR_PARAM,
                        "updown: root = %lld, but the network has routers 0..%u; choose one "
                        "of them", (long long)params[P_ROOT].i, shape.routers - 1);
        updown_destroy(self);
        return NULL;
    }
    uint32_t *order = NULL;
    bool ok = read_graph(self, err) && orient_links(self, (uint32_t)params[P_ROOT].i, err) &&
              (order = up_order(self, err)) != NULL && build_tables(self, order, err);
    free(order);
    if (!ok) {
        updown_destroy(self);
        return NULL;
    }
    return self;
}

typedef struct updown_state {
    uint8_t gone_down; /* no up hop may follow */
} updown_state;

static uint32_t updown_route(void *vself, const insee_route_ctx *ctx, insee_candidate *out,
                             uint32_t max)
{
    const updown *self = vself;
    const insee_host *h = self->host;
    const updown_state *st = ctx->packet_state;
    uint32_t R = self->routers, r = ctx->router;
    uint32_t j = self->dst_index[h->node_router(h->kernel, ctx->dst_node)];
    const uint16_t *down = &self->down[(size_t)j * R], *legal = &self->legal[(size_t)j * R];
    uint16_t here = st->gone_down ? down[r] : legal[r];
    if (here == FAR || here == 0)
        return 0; /* cannot happen on a connected graph: the kernel consumes at 0 */
    if (max > INSEE_MAX_CANDIDATES)
        max = INSEE_MAX_CANDIDATES; /* the room[] scratch below */
    /* VC by VC, so that when ports x VCs exceed `max` every port still
       appears on its first VCs. */
    uint32_t n = 0;
    for (uint32_t vc = 0; vc < self->vcs && n < max; vc++) {
        for (uint32_t gp = self->port_base[r]; gp < self->port_base[r + 1] && n < max; gp++) {
            uint32_t next = self->peer[gp];
            if (next == UINT32_MAX)
                continue;
            bool up = self->up[gp];
            if (up ? st->gone_down || legal[next] != here - 1 : down[next] != here - 1)
                continue;
            out[n++] = (insee_candidate){.port = gp - self->port_base[r], .vc = (uint16_t)vc,
                                         .room = 1, .tag = !up};
        }
    }
    if (self->select == SELECT_ROOM) {
        /* Most free room first; a stable insertion sort keeps port order on
           ties, so runs stay reproducible. */
        uint32_t room[INSEE_MAX_CANDIDATES];
        for (uint32_t i = 0; i < n; i++)
            room[i] = h->output_room(h->kernel, r, out[i].port, out[i].vc);
        for (uint32_t i = 1; i < n; i++) {
            insee_candidate c = out[i];
            uint32_t rm = room[i], k = i;
            for (; k > 0 && room[k - 1] < rm; k--) {
                out[k] = out[k - 1];
                room[k] = room[k - 1];
            }
            out[k] = c;
            room[k] = rm;
        }
    }
    return n;
}

static void updown_forwarded(void *vself, const insee_route_ctx *ctx,
                             const insee_candidate *granted)
{
    (void)vself;
    updown_state *st = ctx->packet_state;
    if (granted->tag)
        st->gone_down = 1;
}

static size_t updown_packet_state_size(void *vself)
{
    (void)vself;
    return sizeof(updown_state);
}

static uint32_t updown_properties(void *vself)
{
    const updown *self = vself;
    return self->select == SELECT_FIRST ? INSEE_ROUTE_PURE : 0u;
}

static const insee_router_vtable updown_vtable = {
    .size = sizeof(insee_router_vtable),
    .create = updown_create,
    .destroy = updown_destroy,
    .route = updown_route,
    .packet_state_size = updown_packet_state_size,
    .forwarded = updown_forwarded,
    .properties = updown_properties,
};

static const insee_plugin_desc updown_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_ROUTER,
    .name = "updown",
    .version = "1.0.0",
    .summary = "generic up*-down* routing on any bidirectional topology, shortest legal paths",
    .reference = "INSEE §2.2.3 (multistage: shortest up/down paths); Schroeder et al. 1991",
    .params = updown_params,
    .vtable = &updown_vtable,
};

INSEE_PLUGIN_DEFINE(updown_desc)
