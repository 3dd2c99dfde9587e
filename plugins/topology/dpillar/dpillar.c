/* dpillar.c — DPillar(n, k) of Liao, Yin, Yin and Gao (INFOCOM 2010; Comp.
 * Networks 2012): k columns of (n/2)^k dual-port servers and k columns of
 * (n/2)^(k-1) n-port switches around a cylinder; the switches of column c
 * join server columns c and c + 1, each switch the n/2 + n/2 servers whose
 * k-digit rows (base n/2) differ only in digit c. Its own routing is the
 * paper's single path (helix, then ring) in one direction or in both. The
 * distances have no simple closed form: minimal_hops() and distance() read
 * the cached BFS tables of ../../routing/common/shortest.c over link().
 * See README.md for the numbering. */
#include "../common/limits.h"
#include "shortest.h"

#include <stdlib.h>

enum { P_N, P_K, P_ROUTING, P_SPLIT, P_TABLE_MB };
enum { ROUTE_SINGLE, ROUTE_BOTH };
enum { SPLIT_EVEN, SPLIT_HASH };

static const insee_param_def dpillar_params[] = {
    [P_N] = {"n", INSEE_PARAM_INT, "4", 4, 65534, NULL, "ports",
             "switch ports (even): n/2 toward each of the two server columns it joins"},
    [P_K] = {"k", INSEE_PARAM_INT, "3", 2, 32, NULL, "columns",
             "server columns (and switch columns); a row has k digits"},
    [P_ROUTING] = {"routing", INSEE_PARAM_ENUM, "\"single\"", 1, 0, "single|both", NULL,
                   "paths(): the helix-and-ring path clockwise, or clockwise and "
                   "counter-clockwise"},
    [P_SPLIT] = {"split", INSEE_PARAM_ENUM, "\"even\"", 1, 0, "even|hash", NULL,
                 "routing = both: each direction with share 1/2, or one picked by the "
                 "flow's salt"},
    [P_TABLE_MB] = ROUTING_TABLE_MB_PARAM,
    {0},
};

#define MAX_COLUMNS 32

typedef struct dpillar {
    uint32_t n, h, k;  /* h = n/2: the base of the row digits */
    uint32_t rows;     /* h^k servers per column */
    uint32_t servers;  /* k h^k, routers 0 .. servers - 1 */
    uint32_t per_col;  /* h^(k-1) switches per column */
    uint32_t routers;
    uint32_t diameter; /* between servers */
    int routing, split;
    uint32_t pow[MAX_COLUMNS + 1]; /* h^i for i <= k */
    routing_graph *g;
    uint32_t *next; /* n entries: minimal_hops()'s scratch, like g's tables */
} dpillar;

static uint32_t digit(const dpillar *d, uint32_t row, uint32_t i)
{
    return row / d->pow[i] % d->h;
}

static uint32_t with_digit(const dpillar *d, uint32_t row, uint32_t i, uint32_t v)
{
    return row - digit(d, row, i) * d->pow[i] + v * d->pow[i];
}

static uint32_t server(const dpillar *d, uint32_t col, uint32_t row)
{
    return col * d->rows + row;
}

/* The switch of column c over `row`: the row with digit c removed. */
static uint32_t switch_of(const dpillar *d, uint32_t c, uint32_t row)
{
    return d->servers + c * d->per_col + row / d->pow[c + 1] * d->pow[c] + row % d->pow[c];
}

/* Column and row (digit c set to v) of the servers switch `sw` joins. */
static uint32_t switch_col(const dpillar *d, uint32_t sw)
{
    return (sw - d->servers) / d->per_col;
}

static uint32_t switch_row(const dpillar *d, uint32_t sw, uint32_t v)
{
    uint32_t c = switch_col(d, sw), u = (sw - d->servers) % d->per_col;
    return u / d->pow[c] * d->pow[c + 1] + v * d->pow[c] + u % d->pow[c];
}

static uint32_t dpillar_ports(void *self, uint32_t router)
{
    const dpillar *d = self;
    return router < d->servers ? 2 : d->n;
}

/* Port 0 of a server leads clockwise, to the switch of its own column
   (into port digit c); port 1 counter-clockwise, to the switch of column
   c - 1 (into port h + digit c - 1). Ports 0 .. h - 1 of a switch of column
   c lead to column c, ports h .. n - 1 to column c + 1. */
static bool dpillar_link(void *self, uint32_t router, uint32_t port, insee_port_peer *out)
{
    const dpillar *d = self;
    if (port >= dpillar_ports(self, router))
        return false;
    if (router < d->servers) {
        uint32_t col = router / d->rows, row = router % d->rows;
        uint32_t c = port == 0 ? col : (col + d->k - 1) % d->k;
        *out = (insee_port_peer){switch_of(d, c, row), (port == 0 ? 0 : d->h) + digit(d, row, c)};
        return true;
    }
    uint32_t c = switch_col(d, router), side = port / d->h;
    *out = (insee_port_peer){server(d, (c + side) % d->k, switch_row(d, router, port % d->h)),
                             side};
    return true;
}

static uint32_t graph_ports(void *ctx, uint32_t router)
{
    return dpillar_ports(ctx, router);
}

static bool graph_peer(void *ctx, uint32_t router, uint32_t port, insee_port_peer *out)
{
    return dpillar_link(ctx, router, port, out);
}

static void dpillar_destroy(void *self)
{
    dpillar *d = self;
    if (d) {
        routing_graph_free(d->g);
        free(d->next);
    }
    free(d);
}

static void *dpillar_create(const insee_host *host, const insee_value *params, insee_error *err)
{
    (void)host; /* the wiring is a pure function of the parameters */
    uint32_t n = (uint32_t)params[P_N].i, k = (uint32_t)params[P_K].i, h = n / 2;
    if (n % 2) {
        insee_error_set(err, INSEE_ERR_PARAM,
                        "dpillar: n = %u is odd; a switch gives half its ports to each of "
                        "two server columns: use an even n",
                        n);
        return NULL;
    }
    uint64_t rows = 1;
    for (uint32_t i = 0; i < k && rows <= UINT32_MAX; i++)
        rows *= h;
    uint64_t servers = k * rows, switches = servers / h;
    if (rows > UINT32_MAX || servers + switches > UINT32_MAX) {
        insee_error_set(err, INSEE_ERR_PARAM,
                        "dpillar: n = %u, k = %u give more than %u servers and switches "
                        "(k (n/2)^k + k (n/2)^(k-1)); use a smaller n or k",
                        n, k, UINT32_MAX);
        return NULL;
    }
    /* Two ports per server, n per switch: 4 k (n/2)^k in all. */
    if (!topology_within_limits("dpillar", servers + switches, servers, n, 4 * servers,
                                "use a smaller n or k", err))
        return NULL;
    dpillar *d = calloc(1, sizeof *d);
    if (!d) {
        insee_error_set(err, INSEE_ERR_NOMEM, "dpillar: out of memory");
        return NULL;
    }
    *d = (dpillar){
        .n = n,
        .h = h,
        .k = k,
        .rows = (uint32_t)rows,
        .servers = (uint32_t)servers,
        .per_col = (uint32_t)(rows / h),
        .routers = (uint32_t)(servers + switches),
        .routing = (int)params[P_ROUTING].i,
        .split = (int)params[P_SPLIT].i,
    };
    d->pow[0] = 1;
    for (uint32_t i = 1; i <= k; i++)
        d->pow[i] = d->pow[i - 1] * h;
    d->next = malloc(sizeof *d->next * n);
    if (!d->next) {
        insee_error_set(err, INSEE_ERR_NOMEM, "dpillar: out of memory");
        dpillar_destroy(d);
        return NULL;
    }
    routing_graph_source src = {
        .routers = d->routers, .ports = graph_ports, .peer = graph_peer, .ctx = d};
    d->g = routing_graph_read("dpillar", &src, params[P_TABLE_MB].d, err);
    if (!d->g) {
        dpillar_destroy(d);
        return NULL;
    }
    /* Rotating the columns and renaming the digit values map any server
       onto server 0, so its farthest server gives the diameter. */
    const uint32_t *dist = routing_graph_distances(d->g, 0);
    for (uint32_t r = 0; r < d->servers; r++)
        d->diameter = dist[r] > d->diameter ? dist[r] : d->diameter;
    return d;
}

static void dpillar_info(void *self, insee_topology_info *out)
{
    const dpillar *d = self;
    *out = (insee_topology_info){
        .routers = d->routers,
        .nodes = d->servers,
        .max_ports = d->n,
        .dims = 0,
        .flags = INSEE_TOPO_INDIRECT,
        .diameter = d->diameter,
    };
}

static uint32_t dpillar_node_router(void *self, uint32_t node)
{
    (void)self; /* router r hosts node r */
    return node;
}

static uint32_t dpillar_minimal_hops(void *self, uint32_t router, uint32_t dst_node,
                                     uint32_t salt, insee_hop *out, uint32_t max)
{
    (void)salt; /* every minimal port is listed, in port order */
    dpillar *d = self;
    const uint32_t *dist = routing_graph_distances(d->g, dst_node);
    uint32_t count = routing_graph_next(d->g, dist, router, d->next), w = 0;
    for (uint32_t i = 0; i < count && w < max; i++)
        out[w++] = (insee_hop){.port = (uint16_t)d->next[i], .dim = -1};
    return w;
}

static uint32_t dpillar_distance(void *self, uint32_t router, uint32_t dst_node)
{
    dpillar *d = self;
    return routing_graph_distances(d->g, dst_node)[router];
}

/* A path being built: the output ports, and the server it has reached. */
typedef struct route {
    uint32_t ports[4 * MAX_COLUMNS];
    uint32_t hops, at;
} route;

/* DPillarSP in direction dir (+1 clockwise, -1 counter-clockwise): each
   hop crosses to the next column through the switch between, setting the
   row digit of that switch's column to the destination's. After at most k
   hops the row is the destination's (helix phase); the path then goes on
   the same way round to the destination's column (ring phase). */
static void single_path(const dpillar *d, route *r, uint32_t dst, int dir)
{
    uint32_t row_dst = dst % d->rows;
    while (r->at != dst) {
        uint32_t col = r->at / d->rows, row = r->at % d->rows;
        uint32_t next = dir > 0 ? (col + 1) % d->k : (col + d->k - 1) % d->k;
        uint32_t c = dir > 0 ? col : next; /* the switch column crossed */
        uint32_t v = digit(d, row_dst, c);
        r->ports[r->hops++] = dir > 0 ? 0 : 1;
        r->ports[r->hops++] = (dir > 0 ? d->h : 0) + v;
        r->at = server(d, next, with_digit(d, row, c, v));
    }
}

/* The server a path from `src` starts its single path at: src itself, or
   for a switch the attached server on the side the direction leaves by,
   with the digit of the switch's column the far end has. */
static uint32_t entry_server(const dpillar *d, uint32_t src, uint32_t far_row, int dir)
{
    if (src < d->servers)
        return src;
    uint32_t c = switch_col(d, src);
    return server(d, dir > 0 ? (c + 1) % d->k : c, switch_row(d, src, digit(d, far_row, c)));
}

/* The row a path toward `dst` must keep in the digit of dst's column,
   when dst is a switch: a server's row, or a switch's row with that digit
   taken from the entry server. */
static uint32_t far_row(const dpillar *d, uint32_t dst, uint32_t entry_row)
{
    if (dst < d->servers)
        return dst % d->rows;
    uint32_t c = switch_col(d, dst);
    return switch_row(d, dst, digit(d, entry_row, c));
}

/* The whole path between two routers in direction dir. A switch at the
   start is left toward the side dir goes, through the server whose digit
   of the switch's column is already the far end's; a switch at the end is
   entered from the side dir arrives at, from the server whose digit of
   that column is the entry server's: so that the single path between
   never crosses either switch (README). */
static void whole_path(const dpillar *d, route *r, uint32_t src, uint32_t dst, int dir)
{
    /* With both ends switches, the digit of src's column comes from dst's
       row (its own digit there when both are of one column: any value). */
    uint32_t hint = dst < d->servers ? dst % d->rows : switch_row(d, dst, 0);
    uint32_t a = entry_server(d, src, hint, dir);
    uint32_t row = far_row(d, dst, a % d->rows), t = dst;
    if (dst >= d->servers) {
        uint32_t c = switch_col(d, dst);
        t = server(d, dir > 0 ? c : (c + 1) % d->k, row);
    }
    r->at = a;
    if (src >= d->servers)
        r->ports[r->hops++] = (dir > 0 ? d->h : 0) + digit(d, a % d->rows, switch_col(d, src));
    single_path(d, r, t, dir);
    if (dst >= d->servers)
        r->ports[r->hops++] = dir > 0 ? 0 : 1;
}

typedef void (*path_fn)(void *ctx, const uint32_t *ports, uint32_t hops, double share);

static uint32_t dpillar_paths(void *self, uint32_t src, uint32_t dst, uint32_t salt,
                              path_fn add, void *ctx)
{
    const dpillar *d = self;
    static const int dirs[2] = {1, -1};
    uint32_t first = 0, last = 1;
    if (d->routing == ROUTE_BOTH) {
        last = 2;
        if (d->split == SPLIT_HASH) {
            first = salt & 1;
            last = first + 1;
        }
    }
    for (uint32_t i = first; i < last; i++) {
        route r = {0};
        whole_path(d, &r, src, dst, dirs[i]);
        add(ctx, r.ports, r.hops, 1.0 / (last - first));
    }
    return last - first;
}

static uint32_t dpillar_path_hops(void *self)
{
    const dpillar *d = self;
    /* Between servers: k hops of helix when the last digit corrected is
       the one crossed last, then k - 1 of ring, two links each. Paths
       from or to a switch keep one digit and are shorter (README). */
    return 2 * (2 * d->k - 1);
}

static const insee_topology_vtable dpillar_vtable = {
    .size = sizeof(insee_topology_vtable),
    .create = dpillar_create,
    .destroy = dpillar_destroy,
    .info = dpillar_info,
    .ports = dpillar_ports,
    .link = dpillar_link,
    .node_router = dpillar_node_router,
    .minimal_hops = dpillar_minimal_hops,
    /* port_info NULL: no dimension, no direction; coords NULL: info.dims 0 */
    .distance = dpillar_distance,
    .paths = dpillar_paths,
    .path_hops = dpillar_path_hops,
};

static const insee_plugin_desc dpillar_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_TOPOLOGY,
    .name = "dpillar",
    .version = "1.0.0",
    .summary = "DPillar(n, k): server-centric, k columns of dual-port servers and of n-port "
               "switches around a cylinder; helix-and-ring routing one or both ways",
    .reference = "Liao et al., DPillar, INFOCOM 2010 §3-4; INRFlow §3.2",
    .params = dpillar_params,
    .vtable = &dpillar_vtable,
};

INSEE_PLUGIN_DEFINE(dpillar_desc)
