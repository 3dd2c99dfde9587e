/* kernel/stats/topology_summary.c — counts, distances and DOT wiring of a
 * built network (topology_summary.h). */
#include "stats/topology_summary.h"

#include <insee/rng.h>

#include "net/faults.h"
#include "net/own_paths.h"
#include "stats/output.h"

/* The topology's own routes (topology.h paths()) over pairs of distinct
   nodes on different routers, salt 0, each weighted by its share. */
typedef struct own_routes {
    double hops_sum;     /* share-weighted hops, summed over node pairs */
    uint64_t pairs, unroutable;
    uint32_t longest;
    uint32_t sources;    /* source routers asked: fewer than BFS ran from when sampled */
    uint64_t weight;     /* node pairs of the router pair being asked */
} own_routes;

/* Routes asked at most: a topology's routing can cost far more per pair
   than a BFS step. */
#define OWN_ROUTE_BUDGET (1ull << 22)

static void take_route(void *ctx, const uint32_t *ports, uint32_t hops, double share)
{
    (void)ports;
    own_routes *o = ctx;
    o->hops_sum += share * (double)hops * (double)o->weight;
    o->longest = MAX(o->longest, hops);
}

typedef struct distances {
    uint64_t sum;       /* over ordered pairs of distinct nodes */
    uint64_t pairs;
    uint32_t diameter;
    uint32_t sources;   /* routers BFS ran from */
    gboolean sampled;
    uint32_t cut_from, cut_to; /* an unreachable pair, or INSEE_NONE */
} distances;

/* BFS sources: every router hosting nodes when the work stays under about
   2^30 link visits, else a seeded random sample of them (the same sample on
   every run; strided samples line up with mesh rows and bias the mean). */
static uint32_t pick_sources(const insee_net *net, const uint32_t *hosted, uint64_t channels,
                             uint32_t *sources, gboolean *sampled)
{
    uint32_t hosts = 0;
    for (uint32_t r = 0; r < net->routers; r++)
        if (hosted[r])
            sources[hosts++] = r;
    uint64_t per_bfs = channels + net->routers;
    uint64_t budget = MAX(64, (1ull << 30) / per_bfs);
    *sampled = hosts > budget;
    if (!*sampled)
        return hosts;
    insee_rng rng;
    insee_rng_init(&rng, 1, 0);
    for (uint32_t i = 0; i < budget; i++) {
        uint32_t j = i + insee_rng_below(&rng, hosts - i);
        uint32_t t = sources[i];
        sources[i] = sources[j];
        sources[j] = t;
    }
    return (uint32_t)budget;
}

/* The own routes from router s to every router hosting nodes. */
static void ask_routes(const insee_net *net, const insee_topology_vtable *topo, void *self,
                       const uint32_t *hosted, uint32_t s, own_routes *o)
{
    for (uint32_t t = 0; t < net->routers; t++) {
        if (!hosted[t] || t == s)
            continue;
        o->weight = (uint64_t)hosted[s] * hosted[t];
        o->pairs += o->weight;
        if (!insee_net_own_paths(net, topo, self, s, t, 0, take_route, o))
            o->unroutable += o->weight;
    }
    o->sources++;
}

static distances measure(const insee_net *net, const insee_topology_vtable *topo, void *self,
                         uint64_t channels, own_routes *own)
{
    distances d = {.cut_from = INSEE_NONE, .cut_to = INSEE_NONE};
    uint32_t *hosted = g_new0(uint32_t, net->routers);
    uint32_t hosts = 0;
    for (uint32_t n = 0; n < net->nodes; n++)
        hosts += !hosted[net->node_router[n]]++;
    uint32_t *sources = g_new(uint32_t, net->routers);
    d.sources = pick_sources(net, hosted, channels, sources, &d.sampled);
    uint64_t own_sources = insee_net_own_path_hops(topo, self) ? MAX(1, OWN_ROUTE_BUDGET / hosts)
                                                               : 0;
    for (uint32_t i = 0; i < d.sources && i < own_sources; i++)
        ask_routes(net, topo, self, hosted, sources[i], own);
    uint32_t *dist = g_new(uint32_t, net->routers), *queue = g_new(uint32_t, net->routers);
    for (uint32_t i = 0; i < d.sources; i++) {
        uint32_t s = sources[i];
        insee_net_bfs(net, s, dist, queue);
        for (uint32_t t = 0; t < net->routers; t++) {
            if (!hosted[t])
                continue;
            if (dist[t] == INSEE_NONE) {
                if (d.cut_from == INSEE_NONE) {
                    d.cut_from = s;
                    d.cut_to = t;
                }
                continue;
            }
            /* Nodes sharing a router are distinct pairs at distance 0. */
            uint64_t pairs = (uint64_t)hosted[s] * (hosted[t] - (s == t));
            d.pairs += pairs;
            d.sum += pairs * dist[t];
            if (dist[t] > d.diameter)
                d.diameter = dist[t];
        }
    }
    g_free(dist);
    g_free(queue);
    g_free(sources);
    g_free(hosted);
    return d;
}

/* What `insee topology` says of the own routes: their mean length beside
   the average distance, their longest beside the diameter. */
static void print_own_routes(const own_routes *o, uint32_t hosts_asked, gboolean sampled,
                             GString *out)
{
    double mean = o->pairs > o->unroutable ? o->hops_sum / (double)(o->pairs - o->unroutable) : 0;
    g_string_append_printf(out, "%-22s %.6f hops between nodes of different routers, longest %u",
                           "own routes", mean, o->longest);
    if (o->unroutable)
        g_string_append_printf(out, ", %" G_GUINT64_FORMAT " pairs unroutable", o->unroutable);
    if (sampled || o->sources < hosts_asked)
        g_string_append_printf(out, " (from %u routers, sampled)", o->sources);
    g_string_append_c(out, '\n');
}

void insee_topology_summary(const insee_net *net, const insee_topology_vtable *topo, void *self,
                            GString *out)
{
    insee_topology_info info = {0};
    topo->info(self, &info);
    uint32_t claimed_diameter = info.diameter;
    uint64_t channels = 0, paired = 0;
    uint32_t pmin = UINT32_MAX, pmax = 0;
    for (uint32_t r = 0; r < net->routers; r++) {
        uint32_t ports = net->port_base[r + 1] - net->port_base[r];
        pmin = MIN(pmin, ports);
        pmax = MAX(pmax, ports);
        for (uint32_t gp = net->port_base[r]; gp < net->port_base[r + 1]; gp++) {
            if (net->peer_queue[gp] == INSEE_NONE)
                continue;
            channels++;
            paired += insee_net_reverse(net, gp) != INSEE_NONE;
        }
    }
    own_routes own = {0};
    distances d = measure(net, topo, self, channels, &own);
    uint8_t *hosts = g_new0(uint8_t, net->routers);
    for (uint32_t n = 0; n < net->nodes; n++)
        hosts[net->node_router[n]] = 1;
    uint32_t switches = net->routers;
    for (uint32_t r = 0; r < net->routers; r++)
        switches -= hosts[r];
    g_free(hosts);
    g_string_append_printf(out, "%-22s %u\n", "routers", net->routers);
    if (switches)
        g_string_append_printf(out, "%-22s %u (routers hosting no node)\n", "switches", switches);
    g_string_append_printf(out, "%-22s %u\n", "nodes", net->nodes);
    g_string_append_printf(out, "%-22s %" G_GUINT64_FORMAT " (%" G_GUINT64_FORMAT
                           " one-way channels, %" G_GUINT64_FORMAT " without a reverse)\n",
                           "links", paired / 2 + (channels - paired), channels, channels - paired);
    g_string_append_printf(out, "%-22s %u..%u\n", "ports per router", pmin, pmax);
    gboolean cut = d.cut_from != INSEE_NONE;
    if (net->failed)
        g_string_append_printf(out, "%-22s %u of %" G_GUINT64_FORMAT " ([faults])\n",
                               "failed cables", net->failed_cables, insee_net_cables(net));
    if (net->failed || cut)
        g_string_append_printf(out, "%-22s %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
                               " ordered pairs of distinct nodes\n", "connected pairs",
                               insee_net_connected_pairs(net),
                               (uint64_t)net->nodes * (net->nodes - 1));
    if (cut)
        g_string_append_printf(out, "%-22s NOT connected: router %u cannot reach router %u\n",
                               "distances", d.cut_from, d.cut_to);
    const char *over = cut ? " (over connected pairs)" : "";
    g_string_append_printf(out, "%-22s %s%u%s", "diameter", d.sampled ? ">= " : "", d.diameter,
                           over);
    if (claimed_diameter && !d.sampled && !net->failed && !cut &&
        claimed_diameter != d.diameter)
        g_string_append_printf(out, " (the plugin claims %u)", claimed_diameter);
    g_string_append_c(out, '\n');
    g_string_append_printf(out, "%-22s %.6f hops between distinct nodes%s%s\n",
                           "average distance", d.pairs ? (double)d.sum / (double)d.pairs : 0.0,
                           over, d.sampled ? " (sampled)" : "");
    if (d.sampled)
        g_string_append_printf(out, "%-22s BFS from %u routers hosting nodes, drawn at random\n",
                               "sample", d.sources);
    if (own.sources)
        print_own_routes(&own, d.sources, d.sampled, out);
}

gboolean insee_topology_write_dot(const insee_net *net, const char *path, GError **err)
{
    GString *s = g_string_new("digraph insee {\n  node [shape=circle];\n");
    for (uint32_t r = 0; r < net->routers; r++) {
        for (uint32_t gp = net->port_base[r]; gp < net->port_base[r + 1]; gp++) {
            uint32_t n = insee_net_next_router(net, gp);
            if (n == INSEE_NONE)
                continue;
            /* A link and its reverse are drawn once, without arrows, from
               the lower-numbered port. */
            if (insee_net_reverse(net, gp) == INSEE_NONE)
                g_string_append_printf(s, "  r%u -> r%u;\n", r, n);
            else if (gp <= net->peer_queue[gp] / net->vcs)
                g_string_append_printf(s, "  r%u -> r%u [dir=none];\n", r, n);
        }
    }
    for (uint32_t node = 0; node < net->nodes; node++)
        g_string_append_printf(s, "  n%u [shape=box, label=\"%u\"];\n  n%u -> r%u [dir=none];\n",
                               node, node, node, net->node_router[node]);
    g_string_append(s, "}\n");
    gboolean ok = insee_output_replace(path, "--dot", s->str, err);
    g_string_free(s, TRUE);
    return ok;
}
