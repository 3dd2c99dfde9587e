/* direct.c — the shared checks of the direct-topology tests (direct.h):
 * plugins opened on the mock host, whole-network checks against BFS, and
 * the Dally router's channel dependency graph. */
#include "direct.h"
#include "topo_check.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

/* The most ports a direct topology here has: Tofu's 6 dimensions, two each. */
#define MAX_PORTS 12u

/* The mock kernel is the first member of a net: count the warnings. */
static void count_log(insee_kernel *k, insee_log_level level, const char *message)
{
    net *t = (net *)k;
    if (level == INSEE_LOG_WARNING)
        t->warnings++;
    fprintf(stderr, "[plugin log %d] %s\n", (int)level, message);
}

bool net_try(net *t, const char *plugin, const insee_value *params, insee_error *err)
{
    memset(t, 0, sizeof *t);
    const insee_plugin_desc *d = load_plugin("topology", plugin);
    cr_assert_eq(d->kind, INSEE_KIND_TOPOLOGY);
    t->vt = d->vtable;
    t->host = mock_host(&t->k);
    t->host.log = count_log;
    t->self = t->vt->create(&t->host, params, err);
    if (!t->self)
        return false;
    t->k.topo = t->vt;
    t->k.topo_self = t->self;
    t->vt->info(t->self, &t->info);
    t->k.shape.routers = t->info.routers;
    t->k.shape.nodes = t->info.nodes;
    t->k.shape.max_ports = t->info.max_ports;
    t->k.shape.dims = t->info.dims;
    return true;
}

void net_open(net *t, const char *plugin, const insee_value *params)
{
    insee_error err = {0};
    cr_assert(net_try(t, plugin, params, &err), "%s create: %s", plugin, err.message);
}

void net_close(net *t)
{
    t->vt->destroy(t->self);
}

insee_value *twisted_params(const int64_t *dims, size_t n, int64_t twist, int which,
                            insee_value out[4])
{
    static const char *const choices[] = {"all", "y", "z"};
    out[0] = value_int_list(dims, n);
    out[1] = value_int(twist);
    out[2] = value_enum(which, choices[which]);
    out[3] = value_enum(0, "draw");
    return out;
}

void twisted_open(net *t, const int64_t *dims, size_t n, int64_t twist, int which)
{
    insee_value p[4];
    net_open(t, "twisted-torus", twisted_params(dims, n, twist, which, p));
}

void midimew_open_first(net *t, int64_t nodes, bool b_first)
{
    insee_value p[2] = {value_int(nodes), value_enum(b_first, b_first ? "b" : "b-1")};
    net_open(t, "midimew", p);
}

void midimew_open(net *t, int64_t nodes)
{
    midimew_open_first(t, nodes, false);
}

void spinnaker_open(net *t, int64_t w, int64_t h)
{
    int64_t dims[2] = {w, h};
    insee_value p[1] = {value_int_list(dims, 2)};
    net_open(t, "spinnaker", p); /* create() keeps no pointer to the list */
}

static bool port_wraps(const net *t, uint32_t r, uint32_t p)
{
    insee_hop h;
    t->vt->port_info(t->self, r, p, &h);
    return h.flags & INSEE_HOP_WRAP;
}

/* Wiring, port_info and coordinates; `xy` gets every node's coordinates. */
static void check_wiring(const net *t, const topo_table *links, int32_t *xy)
{
    uint32_t n = t->info.routers, P = t->info.max_ports, dims = t->info.dims;
    cr_assert_eq(t->info.nodes, n);
    /* Direct and bidirectional; CONCURRENT (the kcube's) is a promise, not a shape. */
    cr_assert_eq(t->info.flags & ~(uint32_t)INSEE_TOPO_CONCURRENT, 0u);
    for (uint32_t r = 0; r < n; r++) {
        cr_assert_eq(t->vt->node_router(t->self, r), r);
        cr_assert_eq(t->vt->coords(t->self, r, &xy[(size_t)r * dims], dims), dims);
    }
    for (uint32_t a = 0; a < n; a++)
        for (uint32_t b = 0; b < a; b++)
            cr_assert(memcmp(&xy[(size_t)a * dims], &xy[(size_t)b * dims],
                             sizeof *xy * dims) != 0,
                      "nodes %u and %u have the same coordinates", a, b);
    /* The largest coordinate of each dimension: a mesh dimension's (Tofu's
       a and c) border ports are the only ones unplugged. */
    int32_t *top = calloc(dims ? dims : 1, sizeof *top);
    for (uint32_t r = 0; r < n; r++)
        for (uint32_t d = 0; d < dims; d++)
            top[d] = xy[(size_t)r * dims + d] > top[d] ? xy[(size_t)r * dims + d] : top[d];
    /* In range, symmetric, no input fed twice; as every plugged output
       feeds one and the unplugged inputs are the unplugged outputs' own
       ports, each plugged input is fed exactly once. */
    uint32_t plugged = 0;
    for (uint32_t r = 0; r < n; r++) {
        cr_assert_eq(t->vt->ports(t->self, r), P);
        for (uint32_t p = 0; p < P; p++) {
            const insee_port_peer *to = topo_peer(links, r, p);
            insee_hop h;
            t->vt->port_info(t->self, r, p, &h);
            uint32_t d = p / 2;
            int dir = p & 1 ? -1 : +1;
            cr_assert(h.port == p && h.dim == (int16_t)d && h.dir == dir);
            if (!to) {
                cr_assert_eq(xy[(size_t)r * dims + d], dir > 0 ? top[d] : 0,
                             "router %u port %u unplugged inside its row", r, p);
                continue;
            }
            plugged++;
            /* What the Dally router's trc mode relies on: coordinate d is 0
               exactly past a + dateline of d, and a - dateline leaves it. */
            bool wraps = h.flags & INSEE_HOP_WRAP;
            int32_t at = dir > 0 ? xy[(size_t)to->router * dims + d] : xy[(size_t)r * dims + d];
            cr_assert_eq(wraps, at == 0, "router %u port %u: WRAP %d, coordinate %d", r, p,
                         wraps, at);
        }
    }
    cr_assert_eq(topo_check_links(links), plugged, "every plugged input fed once");
    free(top);
}

/* The first hops from src to dst with `salt`: one dimension-ordered path. */
static void check_first_hops(const net *t, const topo_table *links, const uint32_t *all,
                             uint32_t src, uint32_t dst, uint32_t salt, bool dateline_safe)
{
    uint32_t n = t->info.routers, P = t->info.max_ports;
    uint32_t len = all[(size_t)src * n + dst];
    insee_hop *path = calloc(len + 1, sizeof *path);
    uint32_t r = src;
    for (uint32_t i = 0; i < len; i++) {
        insee_hop one, every[MAX_PORTS];
        cr_assert_eq(t->vt->minimal_hops(t->self, r, dst, salt, &one, 1), 1u);
        cr_assert_geq(t->vt->minimal_hops(t->self, r, dst, salt, every, P), 1u);
        cr_assert(memcmp(&one, &every[0], sizeof one) == 0, "max = 1 changes the first hop");
        path[i] = one;
        cr_assert_eq((bool)(one.flags & INSEE_HOP_WRAP), port_wraps(t, r, one.port));
        r = topo_peer(links, r, one.port)->router;
    }
    cr_assert_eq(r, dst, "%u -> %u: the first hops do not arrive in %u hops", src, dst, len);
    /* Segments of one dimension: increasing dimensions, one direction,
       dim_hops counting down to 1, WRAP_AHEAD while a WRAP hop is ahead. */
    for (uint32_t i = 0; i < len;) {
        uint32_t end = i;
        while (end < len && path[end].dim == path[i].dim)
            end++;
        if (i > 0)
            cr_assert_gt(path[i].dim, path[i - 1].dim, "%u -> %u: back to a lower dimension",
                         src, dst);
        uint32_t wraps = 0;
        for (uint32_t j = i; j < end; j++) {
            cr_assert_eq(path[j].dir, path[i].dir);
            cr_assert_eq(path[j].dim_hops, end - j, "%u -> %u hop %u: dim_hops %u, want %u", src,
                         dst, j, path[j].dim_hops, end - j);
            bool ahead = false;
            for (uint32_t l = j; l < end; l++)
                ahead |= (path[l].flags & INSEE_HOP_WRAP) != 0;
            cr_assert_eq((bool)(path[j].flags & INSEE_HOP_WRAP_AHEAD), ahead,
                         "%u -> %u hop %u: WRAP_AHEAD wrong", src, dst, j);
            wraps += (path[j].flags & INSEE_HOP_WRAP) != 0;
        }
        if (dateline_safe)
            cr_assert_leq(wraps, 1u, "%u -> %u crosses the dateline of dimension %d twice", src,
                          dst, path[i].dim);
        i = end;
    }
    free(path);
}

uint64_t check_net(const net *t, bool dateline_safe, uint32_t *diameter)
{
    uint32_t n = t->info.routers, P = t->info.max_ports;
    cr_assert_leq(P, MAX_PORTS);
    topo_table links;
    topo_read(&links, t->vt, t->self);
    int32_t *xy = malloc(sizeof *xy * n * (t->info.dims ? t->info.dims : 1));
    check_wiring(t, &links, xy);
    free(xy);
    uint32_t *all = topo_bfs_all(&links);
    uint64_t sum = topo_check_distances(&links, all, diameter);
    /* Every tie bit in two dimensions, and for a twisted torus's draw the
       orders of preference its hash gives salts 0 to 15. */
    static const uint32_t salts[] = {0u, 1u, 2u, 3u, 4u, 5u, 6u, 7u, 8u,
                                     9u, 10u, 11u, 12u, 13u, 14u, 15u, ~0u};
    for (uint32_t s = 0; s < n; s++)
        for (uint32_t x = 0; x < n; x++) {
            insee_hop out[MAX_PORTS]; /* exactly the ports one hop closer, each once */
            topo_check_hops(&links, all, s, x, 0, out, MAX_PORTS);
            for (size_t i = 0; i < sizeof salts / sizeof salts[0]; i++)
                check_first_hops(t, &links, all, s, x, salts[i], dateline_safe);
        }
    cr_assert_eq(t->info.diameter, *diameter, "info.diameter %u, BFS %u", t->info.diameter,
                 *diameter);
    free(all);
    topo_table_free(&links);
    return sum;
}

/* ---- the Dally router's channel dependency graph ------------------------ */

typedef struct edges {
    uint64_t *e; /* from << 32 | to */
    size_t n, cap;
} edges;

static void edge_add(edges *g, uint32_t from, uint32_t to)
{
    if (g->n == g->cap) {
        g->cap = g->cap ? 2 * g->cap : 1024;
        g->e = realloc(g->e, sizeof *g->e * g->cap);
    }
    g->e[g->n++] = (uint64_t)from << 32 | to;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Kahn's algorithm: the graph has a cycle iff some vertex is never freed. */
static bool cyclic(edges *g, uint32_t vertices)
{
    if (g->n) /* one-hop paths only: no edge, no array */
        qsort(g->e, g->n, sizeof *g->e, cmp_u64);
    uint32_t *first = calloc((size_t)vertices + 1, sizeof *first);
    uint32_t *indeg = calloc(vertices, sizeof *indeg);
    for (size_t i = 0; i < g->n; i++) {
        first[(g->e[i] >> 32) + 1]++;
        indeg[(uint32_t)g->e[i]]++;
    }
    for (uint32_t v = 0; v < vertices; v++)
        first[v + 1] += first[v];
    uint32_t *queue = malloc(sizeof *queue * vertices);
    uint32_t head = 0, tail = 0;
    for (uint32_t v = 0; v < vertices; v++)
        if (indeg[v] == 0)
            queue[tail++] = v;
    while (head < tail) {
        uint32_t v = queue[head++];
        for (uint32_t i = first[v]; i < first[v + 1]; i++)
            if (--indeg[(uint32_t)g->e[i]] == 0)
                queue[tail++] = (uint32_t)g->e[i];
    }
    free(first);
    free(indeg);
    free(queue);
    return tail != vertices;
}

/* Carry a packet src -> dst as the kernel does (route_walk, harness.c) and
   add each consecutive pair of its channels. */
static void dally_walk(net *t, const insee_router_vtable *vt, void *router, uint32_t src,
                       uint32_t dst, uint32_t salt, edges *g)
{
    uint32_t P = t->info.max_ports, len = t->vt->distance(t->self, src, dst);
    route_step *path = malloc(sizeof *path * ((size_t)len + 1)); /* + 1: never malloc(0) */
    uint32_t hops = route_walk(&t->k, vt, router, src, dst, salt, path, len);
    uint32_t prev = UINT32_MAX;
    for (uint32_t i = 0; i < hops; i++) {
        uint32_t channel = (path[i].router * P + path[i].port) * 2 + path[i].vc;
        if (prev != UINT32_MAX)
            edge_add(g, prev, channel);
        prev = channel;
    }
    free(path);
}

bool dally_cdg_cyclic(net *t, const char *mode)
{
    const insee_plugin_desc *d = load_plugin("router", "dally");
    const insee_router_vtable *vt = d->vtable;
    int64_t index = strcmp(mode, "trc") == 0 ? 0 : 1; /* "trc|basic|..." */
    /* mode, vc_choice, allow_deadlock: every entry of dally's table */
    insee_value params[3] = {value_enum(index, mode), value_enum(0, "coin"), value_bool(false)};
    t->k.shape.vcs = 2;
    t->k.shape.queue_packets = 4;
    t->k.shape.packet_phits = 16;
    insee_error err = {0};
    void *router = vt->create(&t->host, params, &err);
    cr_assert_not_null(router, "dally create: %s", err.message);
    uint32_t n = t->info.routers;
    /* Salts 0..31 and ~0: every tie bit, and every order of preference a
       twisted torus's draw hashes them to (6 per dimension). */
    edges g = {0};
    for (uint32_t s = 0; s < n; s++)
        for (uint32_t x = 0; x < n; x++)
            for (uint32_t salt = 0; salt <= 32; salt++)
                dally_walk(t, vt, router, s, x, salt < 32 ? salt : ~0u, &g);
    bool found = cyclic(&g, n * t->info.max_ports * 2);
    free(g.e);
    vt->destroy(router);
    return found;
}
