/* srvnet.c — a server-centric network's link table; see srvnet.h. */
#include "srvnet.h"

#include <stdlib.h>

static size_t port_base(const srvnet *n, uint32_t r)
{
    if (r < n->servers)
        return (size_t)r * n->server_ports;
    return (size_t)n->servers * n->server_ports + (size_t)(r - n->servers) * n->switch_ports;
}

bool srvnet_init(srvnet *n, const char *who, uint32_t servers, uint32_t server_ports,
                 uint32_t switches, uint32_t switch_ports, insee_error *err)
{
    *n = (srvnet){.servers = servers, .switches = switches, .routers = servers + switches,
                  .server_ports = server_ports, .switch_ports = switch_ports};
    size_t all = port_base(n, n->routers);
    n->peer = malloc(sizeof *n->peer * (all ? all : 1));
    if (!n->peer) {
        insee_error_set(err, INSEE_ERR_NOMEM, "%s: out of memory for %zu ports", who, all);
        return false;
    }
    for (size_t p = 0; p < all; p++)
        n->peer[p] = (insee_port_peer){.router = ROUTING_UNREACHABLE, .port = 0};
    return true;
}

void srvnet_wire(srvnet *n, uint32_t a, uint32_t pa, uint32_t b, uint32_t pb)
{
    n->peer[port_base(n, a) + pa] = (insee_port_peer){.router = b, .port = pb};
    n->peer[port_base(n, b) + pb] = (insee_port_peer){.router = a, .port = pa};
}

static uint32_t source_ports(void *ctx, uint32_t router)
{
    return srvnet_ports(ctx, router);
}

static bool source_peer(void *ctx, uint32_t router, uint32_t port, insee_port_peer *out)
{
    return srvnet_link(ctx, router, port, out);
}

bool srvnet_finish(srvnet *n, const char *who, double table_mb, insee_error *err)
{
    routing_graph_source src = {.routers = n->routers, .ports = source_ports,
                                .peer = source_peer, .ctx = n};
    n->graph = routing_graph_read(who, &src, table_mb, err);
    return n->graph != NULL;
}

void srvnet_free(srvnet *n)
{
    routing_graph_free(n->graph);
    free(n->peer);
}

uint32_t srvnet_bfs_diameter(srvnet *n, uint64_t budget)
{
    if ((uint64_t)n->servers * n->routers > budget)
        return 0;
    uint32_t diameter = 0;
    for (uint32_t d = 0; d < n->servers; d++) {
        const uint32_t *dist = routing_graph_distances(n->graph, d);
        for (uint32_t s = 0; s < n->servers; s++)
            if (dist[s] != ROUTING_UNREACHABLE && dist[s] > diameter)
                diameter = dist[s];
    }
    return diameter;
}

uint64_t srvnet_cables(const srvnet *n)
{
    size_t all = port_base(n, n->routers);
    uint64_t plugged = 0;
    for (size_t p = 0; p < all; p++)
        plugged += n->peer[p].router != ROUTING_UNREACHABLE;
    return plugged / 2;
}

uint32_t srvnet_port_to(const srvnet *n, uint32_t router, uint32_t next)
{
    const insee_port_peer *peer = n->peer + port_base(n, router);
    uint32_t ports = srvnet_ports((void *)n, router);
    for (uint32_t p = 0; p < ports; p++)
        if (peer[p].router == next)
            return p;
    return ROUTING_UNREACHABLE;
}

uint32_t srvnet_emit(const srvnet *n, const uint32_t *walk, uint32_t len, uint32_t *ports,
                     double share,
                     void (*add)(void *ctx, const uint32_t *ports, uint32_t hops, double share),
                     void *ctx)
{
    /* kept[0..k): the loop-free path so far. */
    uint32_t *kept = malloc(sizeof *kept * len);
    if (!kept)
        return 0;
    uint32_t k = 0;
    for (uint32_t i = 0; i < len; i++) {
        uint32_t j = 0;
        while (j < k && kept[j] != walk[i])
            j++;
        k = j; /* cut the loop back to the first visit, or append */
        kept[k++] = walk[i];
    }
    for (uint32_t i = 0; i + 1 < k; i++)
        ports[i] = srvnet_port_to(n, kept[i], kept[i + 1]);
    free(kept);
    add(ctx, ports, k - 1, share);
    return k - 1;
}

uint32_t srvnet_paths(const srvnet *n, srvnet_route_fn route, const void *self, uint32_t src,
                      uint32_t dst,
                      void (*add)(void *ctx, const uint32_t *ports, uint32_t hops, double share),
                      void *ctx)
{
    uint32_t room = n->path_hops + 3;
    uint32_t *walk = malloc(sizeof *walk * room * 2);
    if (!walk)
        return 0;
    uint32_t from = src < n->servers ? src : n->peer[port_base(n, src)].router;
    uint32_t to = dst < n->servers ? dst : n->peer[port_base(n, dst)].router;
    uint32_t len = 0;
    if (src >= n->servers)
        walk[len++] = src;
    len += route(self, from, to, walk + len);
    if (dst >= n->servers)
        walk[len++] = dst;
    srvnet_emit(n, walk, len, walk + room, 1.0, add, ctx);
    free(walk);
    return 1;
}

void srvnet_info(void *self, insee_topology_info *out)
{
    const srvnet *n = self;
    *out = (insee_topology_info){
        .routers = n->routers,
        .nodes = n->servers,
        .max_ports = n->switches && n->switch_ports > n->server_ports ? n->switch_ports
                                                                     : n->server_ports,
        .dims = 0,
        .flags = n->switches ? INSEE_TOPO_INDIRECT : 0,
        .diameter = n->diameter,
    };
}

uint32_t srvnet_ports(void *self, uint32_t router)
{
    const srvnet *n = self;
    return router < n->servers ? n->server_ports : n->switch_ports;
}

bool srvnet_link(void *self, uint32_t router, uint32_t port, insee_port_peer *out)
{
    const srvnet *n = self;
    insee_port_peer to = n->peer[port_base(n, router) + port];
    if (to.router == ROUTING_UNREACHABLE)
        return false;
    *out = to;
    return true;
}

uint32_t srvnet_node_router(void *self, uint32_t node)
{
    (void)self; /* servers come first: router r hosts node r */
    return node;
}

uint32_t srvnet_minimal_hops(void *self, uint32_t router, uint32_t dst_node, uint32_t salt,
                             insee_hop *out, uint32_t max)
{
    (void)salt; /* every minimal port listed, in port order */
    srvnet *n = self;
    if (router == dst_node)
        return 0;
    const uint32_t *dist = routing_graph_distances(n->graph, dst_node);
    uint32_t ports = srvnet_ports(n, router), w = 0;
    const insee_port_peer *peer = n->peer + port_base(n, router);
    for (uint32_t p = 0; p < ports && w < max; p++)
        if (peer[p].router != ROUTING_UNREACHABLE && dist[peer[p].router] + 1 == dist[router])
            out[w++] = (insee_hop){.port = (uint16_t)p, .dir = 0, .flags = 0, .dim = -1,
                                   .dim_hops = 0};
    return w;
}

uint32_t srvnet_distance(void *self, uint32_t router, uint32_t dst_node)
{
    srvnet *n = self;
    return routing_graph_distances(n->graph, dst_node)[router];
}

uint32_t srvnet_path_hops(void *self)
{
    const srvnet *n = self;
    return n->path_hops;
}
