/* sdk/conformance/check_topology.c — the topology suite: the wiring, the
 * node attachment and minimal_hops() checked against breadth-first search on
 * the graph the plugin describes, at its defaults and at a few small
 * alternative sizes (conform_settings with shapes).
 *
 * topo.create reads every setting's whole graph once (ports, links, node
 * routers) and tables BFS distances to a set of destination nodes; the
 * checks after it only read those tables and call the pure entries
 * (minimal_hops, distance, port_info, coords) again. Work is bounded for big
 * defaults: at most TABLE_MAX (router, destination) distances are tabled, the
 * destinations evenly spaced over the nodes when they do not all fit.
 */
#include <string.h>

#include "conform.h"

#define NONE UINT32_MAX
#define TABLE_MAX (1u << 22) /* tabled distances: 16 MiB and a few seconds at most */
#define PORTS_MAX (1u << 26) /* larger graphs are not read at all */
#define SAMPLE_ROUTERS 64u   /* routers the costlier per-call checks visit */

typedef struct topo_net {
    const conform_instance *inst;
    const insee_topology_vtable *vt;
    insee_topology_info info;
    uint32_t *ports;           /* ports(r); NULL when the graph was not read */
    uint32_t *first;           /* index of router r's port 0 in peer[] */
    insee_port_peer *peer;     /* link(r, p); router NONE when unplugged */
    uint32_t *node_router;     /* node_router(n) */
    uint32_t *fwd_first, *fwd; /* the valid links as adjacency lists */
    uint32_t *rev_first, *rev; /* and reversed */
    uint32_t n_dst;            /* destination nodes with tabled distances */
    uint32_t *dst;
    uint32_t *dist;            /* dist[i * routers + r]: hops from r to dst[i]'s router */
} topo_net;

/* What a check does with one network, noting what is wrong in `f`. */
typedef void (*net_fn)(const topo_net *net, conform_findings *f, void *data);

/* One question the routing checks put to a network: the way from a router
   to a tabled destination node. */
typedef struct topo_query {
    const topo_net *net;
    uint32_t router;
    uint32_t node;
    const uint32_t *dist;   /* hops from each router to the node's router (NONE: unreached) */
    uint32_t max;           /* the room minimal_hops() is given: MAX(info.max_ports, 1) */
    insee_hop *out, *again; /* max hops each: an answer, and another to compare it with */
} topo_query;

/* What a check does with one question, noting what is wrong in `f`. */
typedef void (*query_fn)(const topo_query *q, conform_findings *f);

/* The questions a check puts to every network, and what it does with each. */
typedef struct query_plan {
    gboolean sample; /* the first SAMPLE_ROUTERS routers only */
    query_fn visit;
} query_plan;

static const char *label(const topo_net *net)
{
    return net->inst->setting->label;
}

static gboolean valid_link(const topo_net *net, insee_port_peer p)
{
    return p.router < net->info.routers && p.port < net->ports[p.router];
}

/* Adjacency lists of the valid links, forward or reversed. */
static void build_adjacency(topo_net *net, gboolean reverse, uint32_t **first_out, uint32_t **adj_out)
{
    uint32_t routers = net->info.routers;
    uint32_t *first = g_new0(uint32_t, routers + 1);
    for (uint32_t r = 0; r < routers; r++)
        for (uint32_t p = 0; p < net->ports[r]; p++) {
            insee_port_peer q = net->peer[net->first[r] + p];
            if (valid_link(net, q))
                first[(reverse ? q.router : r) + 1]++;
        }
    for (uint32_t r = 0; r < routers; r++)
        first[r + 1] += first[r];
    uint32_t *adj = g_new(uint32_t, first[routers] + 1);
    uint32_t *fill = g_memdup2(first, sizeof(uint32_t) * routers);
    for (uint32_t r = 0; r < routers; r++)
        for (uint32_t p = 0; p < net->ports[r]; p++) {
            insee_port_peer q = net->peer[net->first[r] + p];
            if (valid_link(net, q))
                adj[fill[reverse ? q.router : r]++] = reverse ? r : q.router;
        }
    g_free(fill);
    *first_out = first;
    *adj_out = adj;
}

/* Hops from `source` to every router along the adjacency (NONE: unreached). */
static void bfs(uint32_t routers, const uint32_t *first, const uint32_t *adj, uint32_t source,
                uint32_t *dist, uint32_t *queue)
{
    for (uint32_t r = 0; r < routers; r++)
        dist[r] = NONE;
    uint32_t head = 0, tail = 0;
    dist[source] = 0;
    queue[tail++] = source;
    while (head < tail) {
        uint32_t r = queue[head++];
        for (uint32_t e = first[r]; e < first[r + 1]; e++)
            if (dist[adj[e]] == NONE) {
                dist[adj[e]] = dist[r] + 1;
                queue[tail++] = adj[e];
            }
    }
}

/* Read one instance's graph; FALSE (with why) when it is too large to read. */
static gboolean read_net(topo_net *net, GString *why)
{
    const insee_topology_vtable *vt = net->vt;
    void *self = net->inst->self;
    vt->info(self, &net->info);
    uint32_t routers = net->info.routers, nodes = net->info.nodes;
    if (routers == 0 || nodes == 0)
        return FALSE; /* topo.info reports it */
    if (routers > PORTS_MAX || nodes > PORTS_MAX) {
        g_string_append_printf(why, "%s%s: %u routers and %u nodes, not checked",
                               why->len ? "; " : "", label(net), routers, nodes);
        return FALSE;
    }
    net->ports = g_new(uint32_t, routers);
    net->first = g_new(uint32_t, routers + 1);
    uint64_t total = 0;
    for (uint32_t r = 0; r < routers; r++) {
        net->ports[r] = vt->ports(self, r);
        net->first[r] = (uint32_t)total;
        total += net->ports[r];
        if (total > PORTS_MAX) {
            g_string_append_printf(why, "%s%s: more than %u ports, not checked", why->len ? "; " : "",
                                   label(net), PORTS_MAX);
            g_clear_pointer(&net->ports, g_free);
            g_clear_pointer(&net->first, g_free);
            return FALSE;
        }
    }
    net->first[routers] = (uint32_t)total;
    net->peer = g_new(insee_port_peer, total + 1);
    for (uint32_t r = 0; r < routers; r++)
        for (uint32_t p = 0; p < net->ports[r]; p++) {
            insee_port_peer *q = &net->peer[net->first[r] + p];
            if (!vt->link(self, r, p, q))
                *q = (insee_port_peer){NONE, NONE};
        }
    net->node_router = g_new(uint32_t, nodes);
    for (uint32_t n = 0; n < nodes; n++)
        net->node_router[n] = vt->node_router(self, n);
    build_adjacency(net, FALSE, &net->fwd_first, &net->fwd);
    build_adjacency(net, TRUE, &net->rev_first, &net->rev);

    /* Distances *to* a destination: BFS over the reversed links. */
    net->n_dst = MAX(1u, MIN(nodes, TABLE_MAX / routers));
    net->dst = g_new(uint32_t, net->n_dst);
    net->dist = g_new(uint32_t, (size_t)net->n_dst * routers);
    uint32_t *queue = g_new(uint32_t, routers);
    for (uint32_t i = 0; i < net->n_dst; i++) {
        net->dst[i] = (uint32_t)((uint64_t)i * nodes / net->n_dst);
        uint32_t t = net->node_router[net->dst[i]];
        uint32_t *row = &net->dist[(size_t)i * routers];
        if (t >= routers)
            memset(row, 0xff, sizeof(uint32_t) * routers); /* NONE everywhere */
        else if (i > 0 && net->node_router[net->dst[i - 1]] == t)
            memcpy(row, row - routers, sizeof(uint32_t) * routers);
        else
            bfs(routers, net->rev_first, net->rev, t, row, queue);
    }
    g_free(queue);
    return TRUE;
}

static void clear_net(void *p)
{
    topo_net *net = p;
    g_free(net->ports);
    g_free(net->first);
    g_free(net->peer);
    g_free(net->node_router);
    g_free(net->fwd_first);
    g_free(net->fwd);
    g_free(net->rev_first);
    g_free(net->rev);
    g_free(net->dst);
    g_free(net->dist);
}

static void free_nets(void *nets)
{
    g_array_unref(nets);
}

/* The common setup, then every instance's graph read once: the networks
   (element: topo_net, one per instance) are the instances' derived data. */
static conform_status check_create(conform_ctx *ctx, GString *detail)
{
    const insee_topology_vtable *vt = ctx->plugin->vtable;
    conform_status s = conform_instances_setup(ctx, FALSE, TRUE, vt->create, vt->destroy, detail);
    conform_instances *set = ctx->state;
    GArray *nets = g_array_sized_new(FALSE, TRUE, sizeof(topo_net), set->created->len);
    g_array_set_clear_func(nets, clear_net);
    g_array_set_size(nets, set->created->len);
    set->derived = nets;
    set->derived_free = free_nets;
    GString *too_big = g_string_new(NULL);
    for (guint i = 0; i < nets->len; i++) {
        topo_net *net = &g_array_index(nets, topo_net, i);
        net->inst = set->created->pdata[i];
        net->vt = vt;
        read_net(net, too_big);
    }
    if (too_big->len)
        g_string_append_printf(detail, "; %s", too_big->str);
    g_string_free(too_big, TRUE);
    return s;
}

static gboolean readable(const topo_net *net)
{
    return net->ports != NULL;
}

/* Run `visit` on every network, read or not (see readable()), in settings
   order: SKIP when topo.create created none, else the verdict. */
static conform_status each_net(const conform_ctx *ctx, GString *detail, net_fn visit, void *data)
{
    conform_instances *set = conform_instances_get(ctx, detail);
    if (!set)
        return CONFORM_SKIP;
    const GArray *nets = set->derived;
    conform_findings f = {detail, 0};
    for (guint i = 0; i < nets->len; i++)
        visit(&g_array_index(nets, topo_net, i), &f, data);
    return conform_verdict(&f);
}

/* Put the questions of a network that was read to `visit`, destinations
   outer, routers inner. */
static void each_query(const topo_net *net, gboolean sample, query_fn visit, conform_findings *f)
{
    if (!readable(net))
        return;
    uint32_t routers = sample ? MIN(net->info.routers, SAMPLE_ROUTERS) : net->info.routers;
    topo_query q = {.net = net, .max = MAX(net->info.max_ports, 1u)};
    q.out = g_new(insee_hop, 2 * (size_t)q.max);
    q.again = q.out + q.max;
    for (uint32_t k = 0; k < net->n_dst; k++) {
        q.node = net->dst[k];
        q.dist = &net->dist[(size_t)k * net->info.routers];
        for (q.router = 0; q.router < routers; q.router++)
            visit(&q, f);
    }
    g_free(q.out);
}

static void queries_of(const topo_net *net, conform_findings *f, void *data)
{
    const query_plan *plan = data;
    each_query(net, plan->sample, plan->visit, f);
}

/* Put every network's questions to `visit`. */
static conform_status check_queries(const conform_ctx *ctx, GString *detail, gboolean sample,
                                    query_fn visit)
{
    query_plan plan = {sample, visit};
    return each_net(ctx, detail, queries_of, &plan);
}

static void info_of(const topo_net *net, conform_findings *f, void *data)
{
    (void)data;
    if (net->info.routers == 0 || net->info.nodes == 0) {
        conform_note(f, label(net), "info() reports %u routers and %u nodes", net->info.routers,
                     net->info.nodes);
        return;
    }
    if (!readable(net))
        return;
    uint32_t max = 0;
    for (uint32_t r = 0; r < net->info.routers; r++) {
        max = MAX(max, net->ports[r]);
        if (net->ports[r] > UINT16_MAX)
            conform_note(f, label(net), "router %u has %u ports (at most %u)", r, net->ports[r],
                         UINT16_MAX);
    }
    if (max != net->info.max_ports)
        conform_note(f, label(net), "info.max_ports is %u but the largest router has %u ports",
                     net->info.max_ports, max);
}

static conform_status check_info(conform_ctx *ctx, GString *detail)
{
    return each_net(ctx, detail, info_of, NULL);
}

static void node_router_of(const topo_net *net, conform_findings *f, void *data)
{
    (void)data;
    if (!readable(net))
        return;
    gboolean *hosts = g_new0(gboolean, net->info.routers);
    for (uint32_t n = 0; n < net->info.nodes; n++) {
        if (net->node_router[n] >= net->info.routers)
            conform_note(f, label(net), "node_router(%u) = %u, but there are %u routers", n,
                         net->node_router[n], net->info.routers);
        else
            hosts[net->node_router[n]] = TRUE;
    }
    if (!(net->info.flags & INSEE_TOPO_INDIRECT))
        for (uint32_t r = 0; r < net->info.routers; r++)
            if (!hosts[r])
                conform_note(f, label(net),
                             "router %u hosts no node, but info.flags lacks INSEE_TOPO_INDIRECT", r);
    g_free(hosts);
}

static conform_status check_node_router(conform_ctx *ctx, GString *detail)
{
    return each_net(ctx, detail, node_router_of, NULL);
}

static void links_in_range_of(const topo_net *net, conform_findings *f, void *data)
{
    (void)data;
    for (uint32_t r = 0; readable(net) && r < net->info.routers; r++)
        for (uint32_t p = 0; p < net->ports[r]; p++) {
            insee_port_peer q = net->peer[net->first[r] + p];
            if (q.router == NONE && q.port == NONE)
                continue; /* unplugged */
            if (q.router >= net->info.routers)
                conform_note(f, label(net), "link(%u, %u) names router %u of %u", r, p, q.router,
                             net->info.routers);
            else if (q.port >= net->ports[q.router])
                conform_note(f, label(net), "link(%u, %u) names port %u of router %u, which has %u",
                             r, p, q.port, q.router, net->ports[q.router]);
        }
}

static conform_status check_links_in_range(conform_ctx *ctx, GString *detail)
{
    return each_net(ctx, detail, links_in_range_of, NULL);
}

static void inputs_unique_of(const topo_net *net, conform_findings *f, void *data)
{
    (void)data;
    if (!readable(net))
        return;
    uint32_t total = net->first[net->info.routers];
    uint32_t *feeder = g_new(uint32_t, total + 1); /* input slot -> feeding output slot */
    memset(feeder, 0xff, sizeof(uint32_t) * (total + 1));
    for (uint32_t r = 0; r < net->info.routers; r++)
        for (uint32_t p = 0; p < net->ports[r]; p++) {
            insee_port_peer q = net->peer[net->first[r] + p];
            if (!valid_link(net, q))
                continue;
            uint32_t in = net->first[q.router] + q.port;
            if (feeder[in] != NONE) {
                uint32_t other = feeder[in], o_r = 0;
                while (net->first[o_r + 1] <= other)
                    o_r++;
                conform_note(f, label(net),
                             "input %u of router %u is fed by output %u of router %u and by "
                             "output %u of router %u",
                             q.port, q.router, other - net->first[o_r], o_r, p, r);
            }
            feeder[in] = net->first[r] + p;
        }
    g_free(feeder);
}

static conform_status check_inputs_unique(conform_ctx *ctx, GString *detail)
{
    return each_net(ctx, detail, inputs_unique_of, NULL);
}

/* data: the networks checked so far (guint). */
static void links_symmetric_of(const topo_net *net, conform_findings *f, void *data)
{
    guint *checked = data;
    if (!readable(net) || (net->info.flags & INSEE_TOPO_DIRECTED))
        return;
    (*checked)++;
    for (uint32_t r = 0; r < net->info.routers; r++)
        for (uint32_t p = 0; p < net->ports[r]; p++) {
            insee_port_peer q = net->peer[net->first[r] + p];
            if (!valid_link(net, q))
                continue;
            insee_port_peer back = net->peer[net->first[q.router] + q.port];
            if (back.router != r || back.port != p)
                conform_note(f, label(net),
                             "output %u of router %u feeds input %u of router %u, but output %u "
                             "of router %u feeds %s",
                             p, r, q.port, q.router, q.port, q.router,
                             back.router == NONE ? "nothing (unplugged)" : "another input");
        }
}

static conform_status check_links_symmetric(conform_ctx *ctx, GString *detail)
{
    guint checked = 0;
    conform_status s = each_net(ctx, detail, links_symmetric_of, &checked);
    return conform_skip_if_none(s, checked, detail, "info.flags has INSEE_TOPO_DIRECTED");
}

static void connected_of(const topo_net *net, conform_findings *f, void *data)
{
    (void)data;
    if (!readable(net))
        return;
    uint32_t routers = net->info.routers;
    uint32_t *dist = g_new(uint32_t, routers), *queue = g_new(uint32_t, routers);
    /* Strongly connected iff router 0 reaches all and all reach router 0. */
    for (int reverse = 0; reverse < 2; reverse++) {
        bfs(routers, reverse ? net->rev_first : net->fwd_first, reverse ? net->rev : net->fwd, 0, dist,
            queue);
        for (uint32_t r = 0; r < routers; r++)
            if (dist[r] == NONE) {
                conform_note(f, label(net), reverse ? "router %u cannot reach router 0"
                                                    : "router 0 cannot reach router %u", r);
                break;
            }
    }
    g_free(dist);
    g_free(queue);
}

static conform_status check_connected(conform_ctx *ctx, GString *detail)
{
    return each_net(ctx, detail, connected_of, NULL);
}

static const uint32_t salts[] = {0u, 0xffffffffu, 0x9e3779b9u};

/* Call minimal_hops into `out` (q->max entries, zeroed first) and return
   the count as returned: callers clamp it after the call, never inside
   MIN(), which would call the plugin twice. */
static uint32_t hops_of(const topo_query *q, uint32_t salt, insee_hop *out)
{
    memset(out, 0, sizeof(insee_hop) * q->max);
    return q->net->vt->minimal_hops(q->net->inst->self, q->router, q->node, salt, out, q->max);
}

static void minimal_hops_for(const topo_query *q, conform_findings *f)
{
    const topo_net *net = q->net;
    uint32_t r = q->router, node = q->node, t = net->node_router[node];
    const uint32_t *dist = q->dist;
    if (dist[r] == NONE)
        return; /* topo.connected reports it */
    for (size_t s = 0; s < G_N_ELEMENTS(salts); s++) {
        uint32_t n = hops_of(q, salts[s], q->out);
        if (n > q->max) {
            conform_note(f, label(net), "minimal_hops(%u, node %u) returned %u > max %u", r, node, n,
                         q->max);
            continue;
        }
        if (r == t && n != 0)
            conform_note(f, label(net),
                         "minimal_hops(%u, node %u) returned %u hops at the node's own router", r,
                         node, n);
        if (r != t && n == 0)
            conform_note(f, label(net), "minimal_hops(%u, node %u) returned no hop, %u hops away", r,
                         node, dist[r]);
        for (uint32_t h = 0; h < n; h++) {
            uint32_t p = q->out[h].port;
            insee_port_peer to =
                p < net->ports[r] ? net->peer[net->first[r] + p] : (insee_port_peer){NONE, NONE};
            gboolean repeated = FALSE;
            for (uint32_t e = 0; e < h; e++)
                repeated |= q->out[e].port == p;
            if (!valid_link(net, to))
                conform_note(f, label(net),
                             "minimal_hops(%u, node %u) lists port %u, which is not a plugged port "
                             "of router %u",
                             r, node, p, r);
            else if (dist[to.router] + 1 != dist[r])
                conform_note(f, label(net),
                             "minimal_hops(%u, node %u, salt %#x) lists port %u to router %u, %u "
                             "hops from the node; router %u is %u",
                             r, node, salts[s], p, to.router, dist[to.router], r, dist[r]);
            else if (repeated)
                conform_note(f, label(net), "minimal_hops(%u, node %u) lists port %u twice", r, node,
                             p);
        }
    }
}

static conform_status check_minimal_hops(conform_ctx *ctx, GString *detail)
{
    return check_queries(ctx, detail, FALSE, minimal_hops_for);
}

static void minimal_complete_for(const topo_query *q, conform_findings *f)
{
    const topo_net *net = q->net;
    uint32_t r = q->router;
    if (q->dist[r] == NONE || q->dist[r] == 0)
        return;
    uint32_t n = hops_of(q, 0, q->out);
    n = MIN(n, q->max);
    for (uint32_t p = 0; p < net->ports[r]; p++) {
        insee_port_peer to = net->peer[net->first[r] + p];
        if (!valid_link(net, to) || q->dist[to.router] + 1 != q->dist[r])
            continue;
        gboolean listed = FALSE;
        for (uint32_t h = 0; h < n; h++)
            listed |= q->out[h].port == p;
        if (!listed)
            conform_note(f, label(net),
                         "port %u of router %u leads one hop closer to node %u but minimal_hops "
                         "does not list it",
                         p, r, q->node);
    }
}

static conform_status check_minimal_complete(conform_ctx *ctx, GString *detail)
{
    return check_queries(ctx, detail, FALSE, minimal_complete_for);
}

static void minimal_pure_for(const topo_query *q, conform_findings *f)
{
    uint32_t na = hops_of(q, 1, q->out);
    uint32_t nb = hops_of(q, 1, q->again);
    na = MIN(na, q->max);
    nb = MIN(nb, q->max);
    if (na != nb || memcmp(q->out, q->again, sizeof(insee_hop) * na) != 0)
        conform_note(f, label(q->net),
                     "two calls minimal_hops(%u, node %u, salt 1) gave different answers", q->router,
                     q->node);
}

static conform_status check_minimal_pure(conform_ctx *ctx, GString *detail)
{
    return check_queries(ctx, detail, TRUE, minimal_pure_for);
}

static void distance_for(const topo_query *q, conform_findings *f)
{
    uint32_t d = q->net->vt->distance(q->net->inst->self, q->router, q->node);
    if (q->dist[q->router] != NONE && d != q->dist[q->router])
        conform_note(f, label(q->net), "distance(%u, node %u) = %u, BFS says %u", q->router, q->node,
                     d, q->dist[q->router]);
}

static conform_status check_distance(conform_ctx *ctx, GString *detail)
{
    const insee_topology_vtable *vt = ctx->plugin->vtable;
    if (!conform_instances_if(ctx, vt->distance != NULL,
                              "distance() not provided (the kernel follows minimal_hops)", detail))
        return CONFORM_SKIP;
    return check_queries(ctx, detail, FALSE, distance_for);
}

/* data: the networks checked so far (guint). */
static void diameter_of(const topo_net *net, conform_findings *f, void *data)
{
    guint *checked = data;
    if (!readable(net) || net->info.diameter == 0 || net->n_dst != net->info.nodes)
        return;
    (*checked)++;
    /* Between routers that host nodes: the hops a packet can take. */
    uint32_t diameter = 0;
    for (uint32_t k = 0; k < net->n_dst; k++)
        for (uint32_t n = 0; n < net->info.nodes; n++) {
            uint32_t r = net->node_router[n];
            uint32_t d = r < net->info.routers ? net->dist[(size_t)k * net->info.routers + r] : NONE;
            if (d != NONE)
                diameter = MAX(diameter, d);
        }
    if (diameter != net->info.diameter)
        conform_note(f, label(net), "info.diameter is %u, BFS between nodes says %u",
                     net->info.diameter, diameter);
}

static conform_status check_diameter(conform_ctx *ctx, GString *detail)
{
    guint checked = 0;
    conform_status s = each_net(ctx, detail, diameter_of, &checked);
    return conform_skip_if_none(s, checked, detail,
                                "info.diameter is 0 (unknown), or the network is too large to tabulate");
}

/* A router model may read either; they must agree on dim and dir. */
static void port_dims_for(const topo_query *q, conform_findings *f)
{
    const topo_net *net = q->net;
    uint32_t r = q->router;
    uint32_t n = hops_of(q, 0, q->out);
    n = MIN(n, q->max);
    for (uint32_t h = 0; h < n; h++) {
        const insee_hop *hop = &q->out[h];
        insee_hop s = {0};
        if (hop->port >= net->ports[r])
            continue; /* topo.minimal-hops reports it */
        net->vt->port_info(net->inst->self, r, hop->port, &s);
        if (s.dim != hop->dim || s.dir != hop->dir)
            conform_note(f, label(net),
                         "port %u of router %u: minimal_hops says dim %d dir %d, port_info says dim "
                         "%d dir %d",
                         hop->port, r, hop->dim, hop->dir, s.dim, s.dir);
    }
}

static void port_info_of(const topo_net *net, conform_findings *f, void *data)
{
    (void)data;
    if (!readable(net))
        return;
    for (uint32_t r = 0; r < net->info.routers; r++)
        for (uint32_t p = 0; p < net->ports[r]; p++) {
            insee_hop h = {0};
            net->vt->port_info(net->inst->self, r, p, &h);
            if (h.port != p || h.dir < -1 || h.dir > 1 || h.dim < -1)
                conform_note(f, label(net), "port_info(%u, %u) = {port %u, dir %d, dim %d}", r, p,
                             h.port, h.dir, h.dim);
        }
    each_query(net, TRUE, port_dims_for, f);
}

static conform_status check_port_info(conform_ctx *ctx, GString *detail)
{
    const insee_topology_vtable *vt = ctx->plugin->vtable;
    if (!conform_instances_if(ctx, vt->port_info != NULL, "port_info() not provided", detail))
        return CONFORM_SKIP;
    return each_net(ctx, detail, port_info_of, NULL);
}

/* data: the networks checked so far (guint). */
static void coords_of(const topo_net *net, conform_findings *f, void *data)
{
    guint *checked = data;
    uint32_t dims = net->info.dims;
    if (!readable(net) || dims == 0)
        return;
    (*checked)++;
    if (!net->vt->coords) {
        conform_note(f, label(net), "info.dims is %u but coords() is not provided", dims);
        return;
    }
    GHashTable *seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    int32_t *c = g_new0(int32_t, dims);
    for (uint32_t n = 0; n < net->info.nodes; n++) {
        uint32_t got = net->vt->coords(net->inst->self, n, c, dims);
        if (got != dims) {
            conform_note(f, label(net), "coords(%u) wrote %u coordinates, info.dims is %u", n, got,
                         dims);
            continue;
        }
        GString *key = g_string_new(NULL);
        for (uint32_t d = 0; d < dims; d++)
            g_string_append_printf(key, "%d,", c[d]);
        if (g_hash_table_contains(seen, key->str))
            conform_note(f, label(net), "node %u has the coordinates (%s) of an earlier node", n,
                         key->str);
        g_hash_table_add(seen, g_string_free(key, FALSE));
    }
    g_free(c);
    g_hash_table_destroy(seen);
}

static conform_status check_coords(conform_ctx *ctx, GString *detail)
{
    guint checked = 0;
    conform_status s = each_net(ctx, detail, coords_of, &checked);
    return conform_skip_if_none(s, checked, detail, "info.dims is 0 (no coordinates)");
}

/* Every instance is still alive: one that reads another's state (a global)
   now answers with the last-created setting's graph. */
static void no_globals_of(const topo_net *net, conform_findings *f, void *data)
{
    (void)data;
    insee_topology_info now = {0};
    net->vt->info(net->inst->self, &now);
    if (memcmp(&now, &net->info, sizeof now) != 0) {
        conform_note(f, label(net),
                     "info() changed after other instances were created (%u routers, then %u)",
                     net->info.routers, now.routers);
        return;
    }
    for (uint32_t r = 0; readable(net) && r < MIN(net->info.routers, SAMPLE_ROUTERS); r++)
        for (uint32_t p = 0; p < net->ports[r]; p++) {
            insee_port_peer q = {NONE, NONE};
            if (!net->vt->link(net->inst->self, r, p, &q))
                q = (insee_port_peer){NONE, NONE};
            insee_port_peer was = net->peer[net->first[r] + p];
            if (q.router != was.router || q.port != was.port)
                conform_note(f, label(net), "link(%u, %u) changed after other instances were created",
                             r, p);
        }
}

static conform_status check_no_globals(conform_ctx *ctx, GString *detail)
{
    const conform_instances *set = conform_instances_get(ctx, detail);
    if (!set)
        return CONFORM_SKIP;
    if (set->created->len < 2) {
        g_string_assign(detail, "only one setting could be created");
        return CONFORM_SKIP;
    }
    return each_net(ctx, detail, no_globals_of, NULL);
}

/* One paths() call under check: the path being walked and what the calls
   so far gave, folded into a word to compare two calls. */
typedef struct own_check {
    const topo_net *net;
    uint32_t src, dst, max_hops;
    uint32_t added;
    double shares;
    uint64_t fingerprint;
    uint8_t *seen;          /* routers on the path being walked */
    conform_findings *f;
    gboolean noted;         /* one finding per pair */
} own_check;

static void own_note(own_check *c, const char *what, uint32_t a, uint32_t b)
{
    if (c->noted)
        return;
    c->noted = TRUE;
    conform_note(c->f, label(c->net), "paths(%u, %u): %s (%u, %u)", c->src, c->dst, what, a, b);
}

static void take_own_path(void *ctx, const uint32_t *ports, uint32_t hops, double share)
{
    own_check *c = ctx;
    const topo_net *net = c->net;
    c->added++;
    c->shares += share;
    if (!(share > 0) || share > 1 + 1e-9)
        own_note(c, "a share outside (0, 1] (path, hops)", c->added, hops);
    if (hops == 0 || hops > c->max_hops) {
        own_note(c, "a path longer than path_hops() or empty (hops, path_hops)", hops, c->max_hops);
        return;
    }
    memset(c->seen, 0, net->info.routers);
    uint32_t at = c->src;
    c->seen[at] = 1;
    for (uint32_t i = 0; i < hops; i++) {
        insee_port_peer p = ports[i] < net->ports[at] ? net->peer[net->first[at] + ports[i]]
                                                      : (insee_port_peer){NONE, NONE};
        if (!valid_link(net, p)) {
            own_note(c, "leaves by a port that is not plugged (router, port)", at, ports[i]);
            return;
        }
        at = p.router;
        if (c->seen[at]) {
            own_note(c, "comes back to a router (router, hop)", at, i);
            return;
        }
        c->seen[at] = 1;
        c->fingerprint = c->fingerprint * 1000003u + ports[i] + 1;
    }
    if (at != c->dst)
        own_note(c, "ends at another router (router, hops)", at, hops);
    c->fingerprint = c->fingerprint * 31u + (uint64_t)(share * 1e9);
}

/* Every pair of the first SAMPLE_ROUTERS routers, both ways, under each
   salt, asked twice. */
static void own_paths_of(const topo_net *net, conform_findings *f, void *data)
{
    guint *checked = data;
    if (!readable(net) || !net->vt->paths)
        return;
    if (!net->vt->path_hops) {
        conform_note(f, label(net), "paths() is given without path_hops()");
        return;
    }
    (*checked)++;
    uint32_t n = MIN(net->info.routers, SAMPLE_ROUTERS);
    uint8_t *seen = g_new(uint8_t, net->info.routers);
    uint32_t max_hops = net->vt->path_hops(net->inst->self);
    for (uint32_t a = 0; a < n; a++)
        for (uint32_t b = 0; b < n; b++)
            for (size_t s = 0; a != b && s < G_N_ELEMENTS(salts); s++) {
                own_check c = {.net = net, .src = a, .dst = b, .max_hops = max_hops,
                               .seen = seen, .f = f};
                own_check again = c;
                uint32_t said = net->vt->paths(net->inst->self, a, b, salts[s], take_own_path, &c);
                net->vt->paths(net->inst->self, a, b, salts[s], take_own_path, &again);
                if (said != c.added)
                    own_note(&c, "returned a count other than the paths added (returned, added)",
                             said, c.added);
                else if (c.added == 0)
                    own_note(&c, "no path in a connected network (salt index, 0)", (uint32_t)s, 0);
                else if (fabs(c.shares - 1) > 1e-9)
                    own_note(&c, "shares that do not sum to 1 (paths, 0)", c.added, 0);
                else if (again.fingerprint != c.fingerprint || again.added != c.added)
                    own_note(&c, "other paths when asked again (first count, second count)",
                             c.added, again.added);
            }
    g_free(seen);
}

static conform_status check_own_paths(conform_ctx *ctx, GString *detail)
{
    guint checked = 0;
    conform_status s = each_net(ctx, detail, own_paths_of, &checked);
    return conform_skip_if_none(s, checked, detail, "no routing of its own (paths() not given)");
}

static const conform_check topology_checks[] = {
    {"topo.create", CONFORM_ERROR,
     "create() succeeds at the defaults (and at the small alternative sizes it accepts)",
     "fill err with a message saying which parameter is impossible and why; defaults must work",
     check_create},
    {"topo.info", CONFORM_ERROR,
     "info() reports routers and nodes, and max_ports is the largest ports(r) (at most 65535)",
     "compute max_ports from the same formula as ports()", check_info},
    {"topo.node-router", CONFORM_ERROR,
     "node_router() is in range; without INSEE_TOPO_INDIRECT every router hosts a node",
     "set INSEE_TOPO_INDIRECT in info.flags when some routers have no node (trees)",
     check_node_router},
    {"topo.links-in-range", CONFORM_ERROR,
     "every link names an existing router and one of its ports",
     "check the port numbering at the borders of every dimension", check_links_in_range},
    {"topo.inputs-unique", CONFORM_ERROR, "each input port is fed by at most one output port",
     "two outputs land on the same input: the port a link arrives on must be unique",
     check_inputs_unique},
    {"topo.links-symmetric", CONFORM_ERROR,
     "if output p of A feeds input q of B, output q of B feeds input p of A",
     "make the reverse link come back into the same port number, or set INSEE_TOPO_DIRECTED",
     check_links_symmetric},
    {"topo.connected", CONFORM_ERROR, "every router can reach every other (strongly connected)",
     "a wiring formula misses some routers; print link() for a small size to see which",
     check_connected},
    {"topo.minimal-hops", CONFORM_ERROR,
     "minimal_hops() lists nothing at the destination's router, elsewhere only plugged ports one "
     "BFS hop closer, none twice",
     "compare the listed port with link(): the neighbour it reaches must be one hop closer",
     check_minimal_hops},
    {"topo.minimal-complete", CONFORM_WARNING,
     "minimal_hops() lists every port that is one hop closer (adaptive routers need them all)",
     "list both directions where a ring ties, and every equivalent up-port in trees",
     check_minimal_complete},
    {"topo.minimal-pure", CONFORM_ERROR, "minimal_hops() gives the same answer to the same question",
     "keep no state between calls; draw nothing random: use the salt argument", check_minimal_pure},
    {"topo.distance", CONFORM_ERROR, "distance(), when provided, equals the BFS distance",
     "remember the shorter way around a ring, and unequal sides", check_distance},
    {"topo.diameter", CONFORM_WARNING,
     "info.diameter, when non-zero, equals the largest BFS distance between routers hosting nodes",
     "report 0 when unsure: the kernel then measures it", check_diameter},
    {"topo.port-info", CONFORM_WARNING,
     "port_info(), when provided, describes port p as port p and agrees with minimal_hops() on dim "
     "and dir",
     "derive both from the same port numbering", check_port_info},
    {"topo.coords", CONFORM_ERROR,
     "with info.dims > 0, coords() exists, writes dims values and gives each node its own",
     "set info.dims to 0 when the topology has no coordinates", check_coords},
    {"topo.own-paths", CONFORM_ERROR,
     "paths() (the topology's own routing, ABI 1.9), when provided with path_hops(), gives every "
     "pair of routers (the first 64 of each size) at least one path, each a chain of plugged links "
     "from source to destination that never comes back to a router, at most path_hops() long, "
     "shares in (0, 1] summing to 1, the same paths when asked again",
     "ports[i] is the output port at the i-th router of the path; path_hops() must bound the "
     "longest path the routing gives",
     check_own_paths},
    {"topo.no-globals", CONFORM_ERROR,
     "instances at different settings do not interfere (no global state)",
     "keep everything in the instance create() returns (docs/architecture.md §7 rule 1)",
     check_no_globals},
};

const conform_suite conform_topology_suite =
    CONFORM_SUITE(INSEE_KIND_TOPOLOGY, topology_checks, conform_validate_own, conform_instances_cleanup);
