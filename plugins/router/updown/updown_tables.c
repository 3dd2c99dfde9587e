/* updown_tables.c — the up*-down* route tables (see updown_tables.h).
 *
 * For every router that hosts a node the tables hold two hop counts from
 * every router: down[] (down hops only) and legal[] (up* then down*). Up
 * hops lead to routers earlier in a topological order of the up relation, so
 * one pass in that order settles legal[].
 */
#include "updown_tables.h"

#include <stdlib.h>
#include <string.h>

#define FAR UINT16_MAX
/* Two tables of routers x destination routers, 2 bytes each: 2^26 entries
   is 256 MiB, the most the tables may take. */
#define MAX_TABLE_ENTRIES (1ull << 26)

void updown_tables_free(updown_tables *t)
{
    free(t->port_base);
    free(t->peer);
    free(t->up);
    free(t->by_way);
    free(t->down_from);
    free(t->plugged_end);
    free(t->dst_index);
    free(t->down);
    free(t->legal);
    memset(t, 0, sizeof *t);
}

static bool out_of_memory(const updown_tables *t, insee_error *err)
{
    insee_error_set(err, INSEE_ERR_NOMEM, "%s: out of memory for its route tables", t->who);
    return false;
}

/* The graph through the host; every link must have a reverse. */
static bool read_graph(updown_tables *t, insee_error *err)
{
    const insee_host *h = t->host;
    uint32_t R = t->routers;
    t->port_base = malloc(sizeof(uint32_t) * (R + 1));
    if (!t->port_base)
        return out_of_memory(t, err);
    uint64_t total = 0;
    for (uint32_t r = 0; r < R; r++) {
        t->port_base[r] = (uint32_t)total;
        total += h->ports(h->kernel, r);
    }
    t->port_base[R] = (uint32_t)total;
    t->peer = malloc(sizeof(uint32_t) * (total + 1));
    t->up = calloc(total + 1, 1);
    if (!t->peer || !t->up)
        return out_of_memory(t, err);
    for (uint32_t r = 0; r < R; r++) {
        for (uint32_t p = 0; p < t->port_base[r + 1] - t->port_base[r]; p++) {
            insee_port_peer q;
            uint32_t gp = t->port_base[r] + p;
            t->peer[gp] = h->peer(h->kernel, r, p, &q) ? q.router : UINT32_MAX;
            if (t->peer[gp] == UINT32_MAX)
                continue;
            insee_port_peer back;
            if (!h->peer(h->kernel, q.router, q.port, &back) || back.router != r) {
                insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                                "%s: the link from router %u port %u to router %u has no "
                                "link back on the same port; up*-down* routing needs links in "
                                "both directions (use a bidirectional topology)",
                                t->who, r, p, q.router);
                return false;
            }
        }
    }
    return true;
}

/* BFS hop counts from `root` over all links. */
static uint32_t *bfs_levels(const updown_tables *t, uint32_t root)
{
    uint32_t R = t->routers;
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
        for (uint32_t gp = t->port_base[r]; gp < t->port_base[r + 1]; gp++) {
            uint32_t n = t->peer[gp];
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
static bool labelled_consistently(const updown_tables *t, uint32_t r, uint32_t p,
                                  insee_error *err)
{
    const insee_host *h = t->host;
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
                    "%s: the topology labels some ports up or down, but router %u port %u "
                    "and its reverse (router %u port %u) are not labelled one up and the other "
                    "down; a topology that labels must label every link",
                    t->who, r, p, q.router, q.port);
    return false;
}

/* by_way[]: a router's plugged ports, up ones first, so that a route
   that may only go up, or only down, walks those alone. */
static bool sort_by_way(updown_tables *t, insee_error *err)
{
    uint32_t R = t->routers;
    t->by_way = malloc(sizeof(uint32_t) * (t->port_base[R] + 1));
    t->down_from = malloc(sizeof(uint32_t) * R);
    t->plugged_end = malloc(sizeof(uint32_t) * R);
    if (!t->by_way || !t->down_from || !t->plugged_end)
        return out_of_memory(t, err);
    for (uint32_t r = 0; r < R; r++) {
        uint32_t k = t->port_base[r];
        for (int way = 1; way >= 0; way--) {
            if (way == 0)
                t->down_from[r] = k;
            for (uint32_t gp = t->port_base[r]; gp < t->port_base[r + 1]; gp++)
                if (t->peer[gp] != UINT32_MAX && t->up[gp] == way)
                    t->by_way[k++] = gp;
        }
        t->plugged_end[r] = k;
    }
    return true;
}

/* Orient every link. Returns false (with err) if the graph is disconnected. */
static bool orient_links(updown_tables *t, uint32_t root, insee_error *err)
{
    const insee_host *h = t->host;
    bool topology_says = false;
    for (uint32_t r = 0; r < t->routers && !topology_says; r++) {
        for (uint32_t p = 0; p < t->port_base[r + 1] - t->port_base[r]; p++) {
            insee_hop info;
            h->port_info(h->kernel, r, p, &info);
            if (info.flags & (INSEE_HOP_UP | INSEE_HOP_DOWN)) {
                topology_says = true;
                break;
            }
        }
    }
    uint32_t *level = bfs_levels(t, root);
    if (!level)
        return out_of_memory(t, err);
    for (uint32_t r = 0; r < t->routers; r++) {
        if (level[r] == UINT32_MAX) {
            insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                            "%s: router %u cannot be reached from router %u; the network "
                            "is not connected", t->who, r, root);
            free(level);
            return false;
        }
    }
    for (uint32_t r = 0; r < t->routers; r++) {
        for (uint32_t p = 0; p < t->port_base[r + 1] - t->port_base[r]; p++) {
            uint32_t gp = t->port_base[r] + p, n = t->peer[gp];
            if (n == UINT32_MAX)
                continue;
            if (topology_says) {
                if (!labelled_consistently(t, r, p, err)) {
                    free(level);
                    return false;
                }
                insee_hop info;
                h->port_info(h->kernel, r, p, &info);
                t->up[gp] = (info.flags & INSEE_HOP_UP) != 0;
            } else {
                t->up[gp] = level[n] < level[r] || (level[n] == level[r] && n < r);
            }
        }
    }
    free(level);
    return sort_by_way(t, err);
}

/* Routers in an order where every up hop leads to an earlier router (Kahn's
   algorithm on the up relation). Fails if the topology's own up labels
   contain a cycle. */
static uint32_t *up_order(const updown_tables *t, insee_error *err)
{
    uint32_t R = t->routers;
    uint32_t *pending = calloc(R, sizeof(uint32_t)), *order = malloc(sizeof(uint32_t) * R);
    if (!pending || !order) {
        free(pending);
        free(order);
        out_of_memory(t, err);
        return NULL;
    }
    for (uint32_t r = 0; r < R; r++)
        for (uint32_t gp = t->port_base[r]; gp < t->port_base[r + 1]; gp++)
            pending[r] += t->peer[gp] != UINT32_MAX && t->up[gp];
    uint32_t head = 0, tail = 0;
    for (uint32_t r = 0; r < R; r++)
        if (pending[r] == 0)
            order[tail++] = r;
    /* A router is placed once every router its up hops lead to is placed:
       walk the down hops of placed routers back to the routers above them. */
    while (head < tail) {
        uint32_t r = order[head++];
        for (uint32_t gp = t->port_base[r]; gp < t->port_base[r + 1]; gp++) {
            uint32_t n = t->peer[gp];
            if (n != UINT32_MAX && !t->up[gp] && --pending[n] == 0)
                order[tail++] = n;
        }
    }
    free(pending);
    if (tail < R) {
        insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                        "%s: the topology's up/down port labels form a cycle; they must "
                        "order the routers", t->who);
        free(order);
        return NULL;
    }
    return order;
}

/* down[] and legal[] toward destination router d. */
static void fill_tables(const updown_tables *t, uint32_t d, const uint32_t *order,
                        uint32_t *queue, uint16_t *down, uint16_t *legal)
{
    uint32_t R = t->routers;
    for (uint32_t r = 0; r < R; r++)
        down[r] = legal[r] = FAR;
    /* down: BFS from d backwards over down hops, i.e. from x to the routers
       x reaches by an up hop. */
    uint32_t head = 0, tail = 0;
    down[d] = 0;
    queue[tail++] = d;
    while (head < tail) {
        uint32_t x = queue[head++];
        for (uint32_t gp = t->port_base[x]; gp < t->port_base[x + 1]; gp++) {
            uint32_t r = t->peer[gp];
            if (r != UINT32_MAX && t->up[gp] && down[r] == FAR) {
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
        for (uint32_t gp = t->port_base[r]; gp < t->port_base[r + 1]; gp++) {
            uint32_t n = t->peer[gp];
            if (n != UINT32_MAX && t->up[gp] && legal[n] != FAR && legal[n] + 1 < best)
                best = (uint16_t)(legal[n] + 1);
        }
        legal[r] = best;
    }
}

/* Every source has a legal route to every router hosting a node: with the
   topology's own labels this can fail (two roots with no common way down),
   and a packet would then wait forever. */
static bool every_pair_routable(const updown_tables *t, bool from_every_router,
                                insee_error *err)
{
    uint32_t R = t->routers;
    for (uint32_t d = 0; d < R; d++) {
        uint32_t j = t->dst_index[d];
        if (j == UINT32_MAX)
            continue;
        for (uint32_t s = 0; s < R; s++) {
            bool source = from_every_router || t->dst_index[s] != UINT32_MAX;
            if (source && t->legal[(size_t)j * R + s] == FAR) {
                insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                                "%s: no up*-down* route leads from router %u to router %u "
                                "with the topology's up/down labels; the topology must give "
                                "every pair a common router above both",
                                t->who, s, d);
                return false;
            }
        }
    }
    return true;
}

static bool build_tables(updown_tables *t, const uint32_t *order, bool from_every_router,
                         insee_error *err)
{
    const insee_host *h = t->host;
    insee_shape shape;
    h->shape(h->kernel, &shape);
    uint32_t R = t->routers;
    t->dst_index = malloc(sizeof(uint32_t) * R);
    if (!t->dst_index)
        return out_of_memory(t, err);
    for (uint32_t r = 0; r < R; r++)
        t->dst_index[r] = UINT32_MAX;
    for (uint32_t node = 0; node < shape.nodes; node++) {
        uint32_t r = h->node_router(h->kernel, node);
        if (t->dst_index[r] == UINT32_MAX)
            t->dst_index[r] = t->dsts++;
    }
    if ((uint64_t)t->dsts * R > MAX_TABLE_ENTRIES) {
        insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                        "%s: %u routers x %u destination routers exceed the %llu entries "
                        "its route tables may take; use a topology-specific router for "
                        "networks this large", t->who, R, t->dsts, MAX_TABLE_ENTRIES);
        return false;
    }
    size_t entries = (size_t)t->dsts * R;
    t->down = malloc(sizeof(uint16_t) * (entries ? entries : 1));
    t->legal = malloc(sizeof(uint16_t) * (entries ? entries : 1));
    uint32_t *queue = malloc(sizeof(uint32_t) * R);
    if (!t->down || !t->legal || !queue) {
        free(queue);
        return out_of_memory(t, err);
    }
    for (uint32_t r = 0; r < R; r++) {
        uint32_t j = t->dst_index[r];
        if (j != UINT32_MAX)
            fill_tables(t, r, order, queue, &t->down[(size_t)j * R], &t->legal[(size_t)j * R]);
    }
    free(queue);
    return every_pair_routable(t, from_every_router, err);
}

bool updown_tables_build(updown_tables *t, const insee_host *host, const char *who,
                         int64_t root, bool from_every_router, insee_error *err)
{
    insee_shape shape;
    host->shape(host->kernel, &shape);
    *t = (updown_tables){.host = host, .who = who, .routers = shape.routers};
    if (shape.routers > FAR) {
        insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                        "%s: %u routers; its 16-bit hop counts allow at most %u", who,
                        shape.routers, FAR);
        return false;
    }
    if ((uint64_t)root >= shape.routers) { /* a negative root wraps above too */
        insee_error_set(err, INSEE_ERR_PARAM,
                        "%s: root = %lld, but the network has routers 0..%u; choose one "
                        "of them", who, (long long)root, shape.routers - 1);
        return false;
    }
    uint32_t *order = NULL;
    bool ok = read_graph(t, err) && orient_links(t, (uint32_t)root, err) &&
              (order = up_order(t, err)) != NULL && build_tables(t, order, from_every_router, err);
    free(order);
    return ok;
}

uint32_t updown_tables_hops(const updown_tables *t, uint32_t router, uint32_t dst_router,
                            bool gone_down, updown_hop *out, uint32_t max)
{
    uint32_t R = t->routers, j = t->dst_index[dst_router];
    const uint16_t *down = &t->down[(size_t)j * R], *legal = &t->legal[(size_t)j * R];
    uint16_t here = gone_down ? down[router] : legal[router];
    if (here == FAR || here == 0)
        return 0; /* cannot happen on a connected graph: the kernel consumes at 0 */
    /* A down hop on a shortest route means going down from here is as
       short as any legal route: else only up hops are walked, and once the
       packet has gone down only down hops. Walked in port order either way. */
    const uint32_t *way = NULL; /* both ways: every port */
    uint32_t from = t->port_base[router], to = t->port_base[router + 1];
    if (gone_down) {
        way = t->by_way;
        from = t->down_from[router];
        to = t->plugged_end[router];
    } else if (down[router] != here) {
        way = t->by_way;
        to = t->down_from[router];
    }
    uint32_t n = 0;
    for (uint32_t k = from; k < to && n < max; k++) {
        uint32_t gp = way ? way[k] : k, next = t->peer[gp];
        if (next == UINT32_MAX)
            continue;
        bool up = t->up[gp];
        if (up ? gone_down || legal[next] != here - 1 : down[next] != here - 1)
            continue;
        out[n++] = (updown_hop){.port = (uint16_t)(gp - t->port_base[router]), .down = !up};
    }
    return n;
}
