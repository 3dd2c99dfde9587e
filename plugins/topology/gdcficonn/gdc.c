/* gdc.c — DCell, FiConn and their generalisation; see gdc.h. */
#include "gdc.h"

#include "limits.h"
#include "shortest.h"

#include <inttypes.h>
#include <stdlib.h>

/* The diameter is a BFS from every server: servers x (routers + ports)
   steps. Past this bound (DCell n = 8, k = 2 is below it) info.diameter
   is 0, unknown. */
#define GDC_DIAMETER_WORK (1ull << 28)
/* Memory for the cached distance tables of minimal_hops() and distance(). */
#define GDC_TABLE_MB 64.0

typedef struct gdc {
    gdc_rule rule;
    uint32_t n, k;
    uint32_t t[GDC_MAX_LEVELS + 1]; /* servers in a level-m cell */
    uint32_t g[GDC_MAX_LEVELS + 1]; /* level-(m-1) cells in a level-m cell (g[0] unused) */
    uint32_t servers, routers, server_ports, diameter, path_hops;
    bool proxy_at[GDC_MAX_LEVELS + 1];
    uint32_t tightness;
    routing_graph *graph;
} gdc;

/* What a route is computed with: the proxy levels (none for the routes of
   switches, README.md) and the salt that breaks ties. */
typedef struct plan {
    const gdc *g;
    const bool *proxy_at;
    uint32_t salt;
} plan;

/* A route being written: the i-th hop leaves router[i] by port[i]. NULL
   arrays: only count. */
typedef struct walk {
    uint32_t *router, *port, len;
} walk;

static void step(walk *w, uint32_t router, uint32_t port)
{
    if (w) {
        w->router[w->len] = router;
        w->port[w->len] = port;
        w->len++;
    }
}

static uint32_t switch_of(const gdc *g, uint32_t server)
{
    return g->servers + server / g->n;
}

/* The port of a level-m bridge at its servers. */
static uint32_t bridge_port(const gdc *g, uint32_t m)
{
    return g->rule == GDC_FICONN ? 1 : m;
}

/* The level-m bridge between sub-cells a != b of one level-m cell: its end
   in a (*x) and in b (*y), as indices inside those level-(m-1) cells. */
static void bridge(const gdc *g, uint32_t a, uint32_t b, uint32_t m, uint32_t *x, uint32_t *y)
{
    if (a > b) {
        bridge(g, b, a, m, y, x);
        return;
    }
    uint32_t t = g->t[m - 1];
    switch (g->rule) {
    case GDC_ALPHA: /* [a, b - 1] <-> [b, a] */
        *x = b - 1;
        *y = a;
        break;
    case GDC_BETA: /* [a, b - a - 1] <-> [b, t - b + a] */
        *x = b - a - 1;
        *y = t - b + a;
        break;
    case GDC_FICONN: /* DCell's rule on the servers j 2^m + 2^(m-1) - 1 */
        *x = ((b - 1) << m) + (1u << (m - 1)) - 1;
        *y = (a << m) + (1u << (m - 1)) - 1;
        break;
    }
}

/* The level whose bridge server u's port `port` carries, or 0 when the
   port goes to the switch or is unplugged. */
static uint32_t port_level(const gdc *g, uint32_t u, uint32_t port)
{
    if (port == 0)
        return 0;
    if (g->rule != GDC_FICONN)
        return port;
    /* FiConn's level l uses the servers whose index ends in l - 1 one bits
       then a zero (t_(l-1) being a multiple of 2^l, the index inside any
       cell ends so too). */
    uint32_t l = 1;
    while (u & 1) {
        u >>= 1;
        l++;
    }
    return l <= g->k ? l : 0;
}

/* Server u's peer over its level-l bridge. */
static uint32_t bridge_peer(const gdc *g, uint32_t u, uint32_t l)
{
    uint32_t sub = g->t[l - 1], x = u % sub, a = (u % g->t[l]) / sub, base = u - u % g->t[l];
    uint32_t b = 0, y = 0;
    switch (g->rule) {
    case GDC_ALPHA:
        b = x >= a ? x + 1 : x;
        y = x >= a ? a : a - 1;
        break;
    case GDC_BETA:
        b = x < sub - a ? a + x + 1 : x + a - sub;
        y = sub - 1 - x;
        break;
    case GDC_FICONN: {
        uint32_t j = x >> l, half = (1u << (l - 1)) - 1;
        b = j >= a ? j + 1 : j;
        y = ((j >= a ? a : a - 1) << l) + half;
        break;
    }
    }
    return base + b * sub + y;
}

/* The lowest level whose cell holds both servers. */
static uint32_t common_level(const gdc *g, uint32_t u, uint32_t v)
{
    uint32_t m = 0;
    while (u / g->t[m] != v / g->t[m])
        m++;
    return m;
}

static uint32_t route(const plan *p, uint32_t src, uint32_t dst, walk *w);

/* src .. x, the level-m bridge x -> y, y .. dst. */
static uint32_t via(const plan *p, uint32_t src, uint32_t x, uint32_t y, uint32_t dst,
                    uint32_t m, walk *w)
{
    uint32_t hops = route(p, src, x, w);
    step(w, x, bridge_port(p->g, m));
    return hops + 1 + route(p, y, dst, w);
}

/* The proxy route through sub-cell c of the level-m cell at `base`
   (src in sub-cell a, dst in b); UINT32_MAX when neither bridge end is in
   the level-`tightness` cell of its server. */
static uint32_t through(const plan *p, uint32_t src, uint32_t dst, uint32_t base, uint32_t a,
                        uint32_t b, uint32_t c, uint32_t m, walk *w)
{
    const gdc *g = p->g;
    uint32_t sub = g->t[m - 1], x1, y1, x2, y2;
    bridge(g, a, c, m, &x1, &y1);
    bridge(g, c, b, m, &x2, &y2);
    x1 += base + a * sub;
    y1 += base + c * sub;
    x2 += base + c * sub;
    y2 += base + b * sub;
    uint32_t near = g->t[g->tightness < m - 1 ? g->tightness : m - 1];
    if (src / near != x1 / near && y2 / near != dst / near)
        return UINT32_MAX;
    uint32_t hops = route(p, src, x1, w);
    step(w, x1, bridge_port(g, m));
    return hops + 1 + via(p, y1, x2, y2, dst, m, w);
}

/* The route between servers src and dst (0 hops when equal). Proxies are
   weighed by counting (w NULL) before the chosen route is written. */
static uint32_t route(const plan *p, uint32_t src, uint32_t dst, walk *w)
{
    const gdc *g = p->g;
    if (src == dst)
        return 0;
    uint32_t m = common_level(g, src, dst);
    if (m == 0) {
        step(w, src, 0);
        step(w, switch_of(g, src), dst % g->n);
        return 2;
    }
    uint32_t sub = g->t[m - 1], base = src - src % g->t[m];
    uint32_t a = (src - base) / sub, b = (dst - base) / sub, x, y;
    bridge(g, a, b, m, &x, &y);
    x += base + a * sub;
    y += base + b * sub;
    if (!p->proxy_at[m])
        return via(p, src, x, y, dst, m, w);
    /* The dimensional route is candidate a (never a proxy); among equally
       short ones the salt picks, each tie replacing the pick with chance
       1 / ties, so that every one is as likely. */
    uint32_t best = via(p, src, x, y, dst, m, NULL), pick = a, ties = 1;
    uint32_t key = routing_mix(p->salt ^ routing_mix(src * 0x9e3779b9u + dst));
    for (uint32_t c = 0; c < g->g[m]; c++) {
        if (c == a || c == b)
            continue;
        uint32_t hops = through(p, src, dst, base, a, b, c, m, NULL);
        if (hops < best) {
            best = hops;
            pick = c;
            ties = 1;
        } else if (hops == best) {
            ties++;
            if (routing_mix(key + ties) % ties == 0)
                pick = c;
        }
    }
    if (!w)
        return best;
    return pick == a ? via(p, src, x, y, dst, m, w)
                     : through(p, src, dst, base, a, b, pick, m, w);
}

uint32_t gdc_paths(void *self, uint32_t src_router, uint32_t dst_router, uint32_t salt,
                   void (*add)(void *ctx, const uint32_t *ports, uint32_t hops, double share),
                   void *ctx)
{
    const gdc *g = self;
    bool from_switch = src_router >= g->servers, to_switch = dst_router >= g->servers;
    /* A switch routes as its first server, a switch is reached as its first
       server is, both dimensionally (a proxy route could enter that server
       by a bridge, one hop past path_hops); the detour through that server
       is cut when the route leaves or enters by the switch itself. */
    static const bool none[GDC_MAX_LEVELS + 1];
    plan p = {g, from_switch || to_switch ? none : g->proxy_at, salt};
    uint32_t src = from_switch ? (src_router - g->servers) * g->n : src_router;
    uint32_t dst = to_switch ? (dst_router - g->servers) * g->n : dst_router;
    uint32_t room = g->path_hops + 2;
    uint32_t *buf = malloc(sizeof *buf * 2 * room);
    if (!buf)
        return 0;
    walk w = {.router = buf, .port = buf + room};
    if (from_switch)
        step(&w, src_router, 0);
    route(&p, src, dst, &w);
    if (to_switch)
        step(&w, dst, 0);
    uint32_t first = 0;
    if (from_switch && w.len >= 3 && w.router[2] == src_router)
        first = 2;
    if (to_switch && w.len >= first + 3 && w.router[w.len - 2] == dst_router)
        w.len -= 2;
    add(ctx, w.port + first, w.len - first, 1.0);
    free(buf);
    return 1;
}

uint32_t gdc_path_hops(void *self)
{
    const gdc *g = self;
    return g->path_hops;
}

void gdc_destroy(void *self)
{
    gdc *g = self;
    if (g)
        routing_graph_free(g->graph);
    free(g);
}

void gdc_info(void *self, insee_topology_info *out)
{
    const gdc *g = self;
    *out = (insee_topology_info){
        .routers = g->routers,
        .nodes = g->servers,
        .max_ports = g->server_ports > g->n ? g->server_ports : g->n,
        .flags = INSEE_TOPO_INDIRECT,
        .diameter = g->diameter,
    };
}

uint32_t gdc_ports(void *self, uint32_t router)
{
    const gdc *g = self;
    return router < g->servers ? g->server_ports : g->n;
}

bool gdc_link(void *self, uint32_t router, uint32_t port, insee_port_peer *out)
{
    const gdc *g = self;
    if (router >= g->servers) {
        if (port >= g->n)
            return false;
        *out = (insee_port_peer){(router - g->servers) * g->n + port, 0};
        return true;
    }
    if (port >= g->server_ports)
        return false;
    if (port == 0) {
        *out = (insee_port_peer){switch_of(g, router), router % g->n};
        return true;
    }
    uint32_t l = port_level(g, router, port);
    if (l == 0)
        return false;
    *out = (insee_port_peer){bridge_peer(g, router, l), port};
    return true;
}

uint32_t gdc_node_router(void *self, uint32_t node)
{
    (void)self; /* server r hosts node r */
    return node;
}

uint32_t gdc_minimal_hops(void *self, uint32_t router, uint32_t dst_node, uint32_t salt,
                          insee_hop *out, uint32_t max)
{
    (void)salt; /* every minimal port, in port order */
    gdc *g = self;
    const uint32_t *dist = routing_graph_distances(g->graph, dst_node);
    uint32_t w = 0;
    for (uint32_t p = 0; p < routing_graph_ports(g->graph, router) && w < max; p++) {
        uint32_t q = routing_graph_peer(g->graph, router, p);
        if (q != ROUTING_UNREACHABLE && dist[q] + 1 == dist[router])
            out[w++] = (insee_hop){.port = (uint16_t)p, .dim = -1};
    }
    return w;
}

uint32_t gdc_distance(void *self, uint32_t router, uint32_t dst_node)
{
    gdc *g = self;
    return routing_graph_distances(g->graph, dst_node)[router];
}

static uint32_t source_ports(void *ctx, uint32_t router)
{
    return gdc_ports(ctx, router);
}

static bool source_peer(void *ctx, uint32_t router, uint32_t port, insee_port_peer *out)
{
    return gdc_link(ctx, router, port, out);
}

/* The longest shortest route between two servers. */
static uint32_t server_diameter(gdc *g)
{
    uint32_t most = 0;
    for (uint32_t d = 0; d < g->servers; d++) {
        const uint32_t *dist = routing_graph_distances(g->graph, d);
        for (uint32_t s = 0; s < g->servers; s++)
            most = dist[s] > most ? dist[s] : most;
    }
    return most;
}

/* Server counts per level from the rule, in 64 bits; false past 2^32
   routers in all. */
static bool count_servers(gdc *g, const char *name, insee_error *err)
{
    uint64_t t = g->n;
    g->t[0] = g->n;
    for (uint32_t m = 1; m <= g->k; m++) {
        /* FiConn: t_(m-1) = 2^m q (true of t_0 = n, n even, and kept since
           q (q + 1) is even), so every level has whole cells. */
        uint64_t cells = g->rule == GDC_FICONN ? (t >> m) + 1 : t + 1;
        t *= cells;
        if (t + t / g->n > UINT32_MAX) {
            insee_error_set(err, INSEE_ERR_PARAM,
                            "%s: n = %u, k = %u makes more than 2^32 servers and switches "
                            "(level %u alone has %" PRIu64 " servers); use a smaller n or k",
                            name, g->n, g->k, m, t);
            return false;
        }
        g->g[m] = (uint32_t)cells;
        g->t[m] = (uint32_t)t;
    }
    g->servers = g->t[g->k];
    g->routers = g->servers + g->servers / g->n;
    return true;
}

static bool set_routing(gdc *g, const char *name, const gdc_params *p, insee_error *err)
{
    if (!p->proxy)
        return true;
    if (p->tightness > 0 && p->tightness >= p->k) {
        insee_error_set(err, INSEE_ERR_PARAM,
                        "%s: tightness = %" PRId64 " must be below k = %" PRId64
                        " (a proxy's bridge lies within the level-tightness cell of the "
                        "source or destination); use tightness <= %" PRId64,
                        name, p->tightness, p->k, p->k > 0 ? p->k - 1 : 0);
        return false;
    }
    g->tightness = (uint32_t)p->tightness;
    for (uint32_t m = 1; m <= g->k; m++)
        g->proxy_at[m] = p->proxy_levels_len == 0;
    for (size_t i = 0; i < p->proxy_levels_len; i++) {
        int64_t m = p->proxy_levels[i];
        if (m > p->k) {
            insee_error_set(err, INSEE_ERR_PARAM,
                            "%s: proxy_levels holds %" PRId64 ", but the network has levels "
                            "1 .. k = %" PRId64 "; list levels within them",
                            name, m, p->k);
            return false;
        }
        g->proxy_at[m] = true;
    }
    return true;
}

void *gdc_create(const char *name, const gdc_params *p, insee_error *err)
{
    if (p->rule == GDC_FICONN && p->n % 2 != 0) {
        insee_error_set(err, INSEE_ERR_PARAM,
                        "%s: n = %" PRId64 " is odd, but FiConn links half of each level's "
                        "free backup ports, which needs an even n; use n = %" PRId64 " or %" PRId64,
                        name, p->n, p->n - 1, p->n + 1);
        return NULL;
    }
    gdc *g = calloc(1, sizeof *g);
    if (!g) {
        insee_error_set(err, INSEE_ERR_NOMEM, "%s: out of memory", name);
        return NULL;
    }
    g->rule = p->rule;
    g->n = (uint32_t)p->n;
    g->k = (uint32_t)p->k;
    g->server_ports = p->rule == GDC_FICONN ? 2 : g->k + 1;
    if (!count_servers(g, name, err) || !set_routing(g, name, p, err))
        goto fail;
    uint64_t all_ports = (uint64_t)g->servers * g->server_ports + (uint64_t)g->servers;
    uint32_t most = g->server_ports > g->n ? g->server_ports : g->n;
    if (!topology_within_limits(name, g->routers, g->servers, most, all_ports,
                                "use a smaller n or k", err))
        goto fail;
    /* 3 2^m - 1 hops: a level-0 route is 2 (server, switch, server), a
       level-m route two level-(m-1) ones and a bridge. Proxies are only
       taken when no longer than the dimensional route. */
    g->path_hops = 3 * (1u << g->k) - 1;
    routing_graph_source src = {g->routers, source_ports, source_peer, g};
    g->graph = routing_graph_read(name, &src, GDC_TABLE_MB, err);
    if (!g->graph)
        goto fail;
    if ((uint64_t)g->servers * (g->routers + all_ports) <= GDC_DIAMETER_WORK)
        g->diameter = server_diameter(g);
    return g;
fail:
    gdc_destroy(g);
    return NULL;
}
