/* graph.c — the graph topology: any network read from a file (INRFlow §3.2,
 * "graph from file"). graph_file.c reads the file; this numbers the ports,
 * refuses networks that cannot run (a router without links, pieces that
 * cannot reach each other, too many ports, a distance table too large) and
 * tables the hop distances to every router hosting nodes, so that
 * minimal_hops() costs one table read per port of the router.
 */
#include "graph.h"

#include <stdlib.h>
#include <string.h>

#define FAR UINT16_MAX /* unreached; real distances are at most routers - 1 <= 65534 */
/* Distance entries (2 bytes each): 128 MiB, e.g. 8192 routers that all host
   nodes; the set-up is one BFS per row. The README explains the choice. */
#define MAX_TABLE_ENTRIES (1ull << 26)

enum { P_FILE, P_FORMAT };

static const insee_param_def graph_params[] = {
    [P_FILE] = {"file", INSEE_PARAM_PATH, NULL, 1, 0, NULL, NULL,
                "path of the network file; a relative path in an experiment file is read from "
                "that file's directory"},
    [P_FORMAT] = {"format", INSEE_PARAM_ENUM, "\"insee\"", 1, 0, "insee|edges", NULL,
                  "insee: routers/nodes/node/link/arc lines; edges: one 'u v' link per line"},
    {0},
};

typedef struct graph {
    uint32_t routers, nodes;
    uint32_t per_router; /* nodes per router when they are spread evenly */
    uint32_t max_ports, flags, diameter;
    uint32_t *node_router; /* from `node` lines; NULL: node n is on router n / per_router */
    uint32_t *port_base;   /* routers + 1: router r owns ports port_base[r] .. [r + 1] - 1 */
    uint32_t *peer_router; /* per port: the router its output feeds, GRAPH_NONE if unplugged */
    uint16_t *peer_port;   /* per port: the input port there */
    uint32_t *host_row;    /* per router: its row in dist, GRAPH_NONE when it hosts no node */
    uint16_t *dist;        /* dist[host_row[t] * routers + r]: hops from r to t */
} graph;

/* What building needs besides the instance, freed once it is built. */
typedef struct scratch {
    uint32_t *first_line; /* per router: the line of its first link (for messages) */
    uint32_t *rev_base;   /* the links reversed, as adjacency lists */
    uint32_t *rev;
    uint32_t *queue;
    uint16_t *reach;      /* one BFS row for the connectivity checks */
} scratch;

static void graph_destroy(void *self)
{
    graph *g = self;
    free(g->node_router);
    free(g->port_base);
    free(g->peer_router);
    free(g->peer_port);
    free(g->host_row);
    free(g->dist);
    free(g);
}

static uint32_t router_of(const graph *g, uint32_t node)
{
    return g->node_router ? g->node_router[node] : node / g->per_router;
}

static bool out_of_memory(insee_error *err, const graph_spec *spec)
{
    return graph_fail(err, INSEE_ERR_NOMEM, spec->path, 0, "out of memory for %u routers and "
                      "%zu links", spec->routers, spec->n_links);
}

/* A port at router r for a link ending there: an arc takes the next free
   output (tail) or input (head); a link takes one index for both, past
   every port used so far. Fails past GRAPH_MAX_PORTS. */
static bool take_port(const graph_spec *spec, const graph_link *l, uint32_t r, bool output,
                      bool input, uint32_t *out_used, uint32_t *in_used, uint16_t *port,
                      insee_error *err)
{
    uint32_t p = output ? out_used[r] : in_used[r];
    if (output && input && in_used[r] > p)
        p = in_used[r];
    if (p >= GRAPH_MAX_PORTS)
        return graph_fail(err, INSEE_ERR_IO, spec->path, l->line,
                          "router %u gets more than %u ports with this %s: a router has at "
                          "most %u network ports; spread its links over more routers",
                          r, GRAPH_MAX_PORTS, l->arc ? "arc" : "link", GRAPH_MAX_PORTS);
    if (output)
        out_used[r] = p + 1;
    if (input)
        in_used[r] = p + 1;
    *port = (uint16_t)p;
    return true;
}

/* Number the ports in file order (take_port says how) and wire them. */
static bool wire(graph *g, const graph_spec *spec, scratch *s, insee_error *err)
{
    uint32_t n = spec->routers;
    uint32_t *out_used = calloc(n, sizeof *out_used), *in_used = calloc(n, sizeof *in_used);
    g->port_base = malloc(sizeof *g->port_base * (n + 1));
    bool ok = out_used && in_used && g->port_base ? true : out_of_memory(err, spec);
    for (size_t i = 0; ok && i < spec->n_links; i++) {
        graph_link *l = &spec->links[i];
        ok = take_port(spec, l, l->a, true, !l->arc, out_used, in_used, &l->port_a, err) &&
             take_port(spec, l, l->b, !l->arc, true, out_used, in_used, &l->port_b, err);
        if (l->arc)
            g->flags |= INSEE_TOPO_DIRECTED;
        s->first_line[l->a] = s->first_line[l->a] ? s->first_line[l->a] : l->line;
        s->first_line[l->b] = s->first_line[l->b] ? s->first_line[l->b] : l->line;
    }
    uint32_t total = 0; /* < 65535 * 65534: fits */
    for (uint32_t r = 0; ok && r < n; r++) {
        uint32_t ports = out_used[r] > in_used[r] ? out_used[r] : in_used[r];
        g->port_base[r] = total;
        total += ports;
        g->max_ports = ports > g->max_ports ? ports : g->max_ports;
    }
    free(out_used);
    free(in_used);
    if (!ok)
        return false;
    g->port_base[n] = total;
    g->peer_router = malloc(sizeof *g->peer_router * (total + 1));
    g->peer_port = malloc(sizeof *g->peer_port * (total + 1));
    if (!g->peer_router || !g->peer_port)
        return out_of_memory(err, spec);
    for (uint32_t p = 0; p < total; p++)
        g->peer_router[p] = GRAPH_NONE;
    for (size_t i = 0; i < spec->n_links; i++) {
        const graph_link *l = &spec->links[i];
        uint32_t pa = g->port_base[l->a] + l->port_a, pb = g->port_base[l->b] + l->port_b;
        g->peer_router[pa] = l->b;
        g->peer_port[pa] = l->port_b;
        if (!l->arc) {
            g->peer_router[pb] = l->a;
            g->peer_port[pb] = l->port_a;
        }
    }
    return true;
}

static bool no_isolated_router(const graph *g, const graph_spec *spec, insee_error *err)
{
    if (g->routers == 1)
        return true; /* a single router needs no link: its nodes talk through it */
    for (uint32_t r = 0; r < g->routers; r++) {
        if (g->port_base[r + 1] > g->port_base[r])
            continue;
        if (spec->format == GRAPH_FORMAT_EDGES)
            return graph_fail(err, INSEE_ERR_IO, spec->path, spec->routers_line,
                              "router %u is on no line, yet an edge list numbers its routers "
                              "0..%u (the largest id, on this line): number them without gaps",
                              r, g->routers - 1);
        return graph_fail(err, INSEE_ERR_IO, spec->path, spec->routers_line,
                          "router %u has no link: every router declared here needs one; add "
                          "'link %u <router>' or lower the count",
                          r, r);
    }
    return true;
}

/* Hops from `source` to every router along the adjacency lists base/adj
   (GRAPH_NONE entries are unplugged ports); FAR where unreached. */
static void bfs(uint32_t routers, const uint32_t *base, const uint32_t *adj, uint32_t source,
                uint16_t *dist, uint32_t *queue)
{
    for (uint32_t r = 0; r < routers; r++)
        dist[r] = FAR;
    uint32_t head = 0, tail = 0;
    dist[source] = 0;
    queue[tail++] = source;
    while (head < tail) {
        uint32_t r = queue[head++];
        for (uint32_t e = base[r]; e < base[r + 1]; e++) {
            uint32_t next = adj[e];
            if (next != GRAPH_NONE && dist[next] == FAR) {
                dist[next] = (uint16_t)(dist[r] + 1);
                queue[tail++] = next;
            }
        }
    }
}

/* The links reversed: rev[rev_base[s] ..] lists the routers with an output
   into s, so a BFS from t over them gives the hops from every router to t. */
static bool reverse_links(const graph *g, const graph_spec *spec, scratch *s, insee_error *err)
{
    uint32_t n = g->routers, total = g->port_base[n];
    s->rev_base = calloc(n + 1, sizeof *s->rev_base);
    s->rev = malloc(sizeof *s->rev * (total + 1));
    uint32_t *fill = malloc(sizeof *fill * n);
    if (!s->rev_base || !s->rev || !fill) {
        free(fill);
        return out_of_memory(err, spec);
    }
    for (uint32_t p = 0; p < total; p++)
        if (g->peer_router[p] != GRAPH_NONE)
            s->rev_base[g->peer_router[p] + 1]++;
    for (uint32_t r = 0; r < n; r++) {
        s->rev_base[r + 1] += s->rev_base[r];
        fill[r] = s->rev_base[r];
    }
    for (uint32_t r = 0; r < n; r++)
        for (uint32_t p = g->port_base[r]; p < g->port_base[r + 1]; p++)
            if (g->peer_router[p] != GRAPH_NONE)
                s->rev[fill[g->peer_router[p]]++] = r;
    free(fill);
    return true;
}

/* The first router a BFS from router 0 along base/adj misses, or GRAPH_NONE. */
static uint32_t missed_from_0(const graph *g, scratch *s, const uint32_t *base,
                              const uint32_t *adj)
{
    bfs(g->routers, base, adj, 0, s->reach, s->queue);
    for (uint32_t r = 0; r < g->routers; r++)
        if (s->reach[r] == FAR)
            return r;
    return GRAPH_NONE;
}

/* Every router is reached from router 0 and reaches it (so any pair is
   connected); names one that is not. */
static bool connected(const graph *g, const graph_spec *spec, scratch *s, insee_error *err)
{
    uint32_t r = missed_from_0(g, s, g->port_base, g->peer_router);
    if (r != GRAPH_NONE)
        return graph_fail(err, INSEE_ERR_IO, spec->path, s->first_line[r],
                          "router %u (first linked on this line) cannot be reached from router "
                          "0: the network is in pieces that no path joins; link them",
                          r);
    r = missed_from_0(g, s, s->rev_base, s->rev);
    if (r != GRAPH_NONE)
        return graph_fail(err, INSEE_ERR_IO, spec->path, s->first_line[r],
                          "router 0 cannot be reached from router %u (first linked on this "
                          "line): following the arcs from it never leads back; add the "
                          "missing arc, or make it a link",
                          r);
    return true;
}

/* One table row per router hosting nodes, within MAX_TABLE_ENTRIES. */
static bool host_rows(graph *g, const graph_spec *spec, insee_error *err)
{
    g->host_row = malloc(sizeof *g->host_row * g->routers);
    if (!g->host_row)
        return out_of_memory(err, spec);
    for (uint32_t r = 0; r < g->routers; r++)
        g->host_row[r] = GRAPH_NONE;
    for (uint32_t n = 0; n < g->nodes; n++)
        g->host_row[router_of(g, n)] = 0;
    uint32_t rows = 0;
    for (uint32_t r = 0; r < g->routers; r++)
        if (g->host_row[r] != GRAPH_NONE)
            g->host_row[r] = rows++;
    if (rows < g->routers)
        g->flags |= INSEE_TOPO_INDIRECT;
    uint64_t entries = (uint64_t)rows * g->routers;
    if (entries > MAX_TABLE_ENTRIES)
        return graph_fail(err, INSEE_ERR_PARAM, spec->path, 0,
                          "%u routers, %u of them hosting nodes, need %u x %u hop distances "
                          "(%llu MiB); this plugin tables at most %llu (%llu MiB, e.g. 8192 "
                          "routers that all host nodes): use a topology plugin that computes "
                          "its routes for a network this large",
                          g->routers, rows, rows, g->routers,
                          (unsigned long long)(entries * sizeof *g->dist >> 20),
                          (unsigned long long)MAX_TABLE_ENTRIES,
                          (unsigned long long)(MAX_TABLE_ENTRIES * sizeof *g->dist >> 20));
    g->dist = malloc(sizeof *g->dist * (entries ? entries : 1));
    return g->dist ? true : out_of_memory(err, spec);
}

/* The distance rows, and the diameter between routers hosting nodes. */
static void fill_distances(graph *g, const scratch *s)
{
    for (uint32_t t = 0; t < g->routers; t++) {
        if (g->host_row[t] == GRAPH_NONE)
            continue;
        uint16_t *to_t = g->dist + (size_t)g->host_row[t] * g->routers;
        bfs(g->routers, s->rev_base, s->rev, t, to_t, s->queue);
        for (uint32_t r = 0; r < g->routers; r++)
            if (g->host_row[r] != GRAPH_NONE && to_t[r] > g->diameter)
                g->diameter = to_t[r];
    }
}

static bool build(graph *g, graph_spec *spec, insee_error *err)
{
    g->routers = spec->routers;
    g->nodes = spec->nodes;
    g->per_router = spec->nodes / spec->routers;
    g->node_router = spec->node_router; /* the instance owns it from now on */
    spec->node_router = NULL;
    uint32_t n = spec->routers;
    scratch s = {
        .first_line = calloc(n, sizeof *s.first_line),
        .queue = malloc(sizeof *s.queue * n),
        .reach = malloc(sizeof *s.reach * n),
    };
    bool ok = s.first_line && s.queue && s.reach ? true : out_of_memory(err, spec);
    ok = ok && wire(g, spec, &s, err) && no_isolated_router(g, spec, err) &&
         reverse_links(g, spec, &s, err) && connected(g, spec, &s, err) &&
         host_rows(g, spec, err);
    if (ok)
        fill_distances(g, &s);
    free(s.first_line);
    free(s.rev_base);
    free(s.rev);
    free(s.queue);
    free(s.reach);
    return ok;
}

static void *graph_create(const insee_host *host, const insee_value *params, insee_error *err)
{
    (void)host; /* the network is a pure function of the file */
    graph_spec spec;
    if (!graph_spec_read(&spec, params[P_FILE].s, (int)params[P_FORMAT].i, err))
        return NULL;
    graph *g = calloc(1, sizeof *g);
    bool ok = g ? build(g, &spec, err) : out_of_memory(err, &spec);
    graph_spec_free(&spec);
    if (!ok && g) {
        graph_destroy(g);
        g = NULL;
    }
    return g;
}

static void graph_info(void *self, insee_topology_info *out)
{
    const graph *g = self;
    *out = (insee_topology_info){
        .routers = g->routers,
        .nodes = g->nodes,
        .max_ports = g->max_ports,
        .dims = 0,
        .flags = g->flags,
        .diameter = g->diameter,
    };
}

static uint32_t graph_ports(void *self, uint32_t router)
{
    const graph *g = self;
    return g->port_base[router + 1] - g->port_base[router];
}

static bool graph_peer(void *self, uint32_t router, uint32_t port, insee_port_peer *out)
{
    const graph *g = self;
    uint32_t p = g->port_base[router] + port;
    if (g->peer_router[p] == GRAPH_NONE)
        return false;
    *out = (insee_port_peer){g->peer_router[p], g->peer_port[p]};
    return true;
}

static uint32_t graph_node_router(void *self, uint32_t node)
{
    return router_of(self, node);
}

/* Every port one hop closer to dst_node's router. All are equally short, so
   the list starts at the (salt mod count)-th of them in port order and wraps
   around: a router that takes the first hop spreads packets over all the
   shortest paths (like ECMP hashing) while each packet's path stays fixed. */
static uint32_t graph_minimal_hops(void *self, uint32_t router, uint32_t dst_node,
                                   uint32_t salt, insee_hop *out, uint32_t max)
{
    const graph *g = self;
    uint32_t t = router_of(g, dst_node);
    if (router == t)
        return 0;
    const uint16_t *to_t = g->dist + (size_t)g->host_row[t] * g->routers;
    uint32_t closer = to_t[router] - 1u;
    uint32_t base = g->port_base[router], ports = g->port_base[router + 1] - base;
    const uint32_t *peer = g->peer_router + base;
    uint32_t count = 0;
    for (uint32_t p = 0; p < ports; p++)
        count += peer[p] != GRAPH_NONE && to_t[peer[p]] == closer;
    uint32_t start = salt % count, w = 0; /* count >= 1: the graph is connected */
    for (int pass = 0; pass < 2; pass++) {
        /* pass 0: the start-th minimal port and those after it; pass 1: the rest */
        uint32_t k = 0;
        for (uint32_t p = 0; p < ports && w < max; p++) {
            if (peer[p] == GRAPH_NONE || to_t[peer[p]] != closer)
                continue;
            if ((k++ >= start) == (pass == 0))
                out[w++] = (insee_hop){.port = (uint16_t)p, .dir = 0, .flags = 0, .dim = -1,
                                       .dim_hops = 0};
        }
    }
    return w;
}

static uint32_t graph_distance(void *self, uint32_t router, uint32_t dst_node)
{
    const graph *g = self;
    return g->dist[(size_t)g->host_row[router_of(g, dst_node)] * g->routers + router];
}

static const insee_topology_vtable graph_vtable = {
    .size = sizeof(insee_topology_vtable),
    .create = graph_create,
    .destroy = graph_destroy,
    .info = graph_info,
    .ports = graph_ports,
    .link = graph_peer,
    .node_router = graph_node_router,
    .minimal_hops = graph_minimal_hops,
    .distance = graph_distance,
};

static const insee_plugin_desc graph_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_TOPOLOGY,
    .name = "graph",
    .version = "1.0.0",
    .summary = "any network read from a file: routers, nodes and links, or a plain edge list",
    .reference = "INRFlow §3.2 (graph from file)",
    .params = graph_params,
    .vtable = &graph_vtable,
};

INSEE_PLUGIN_DEFINE(graph_desc)
