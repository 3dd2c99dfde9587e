/* srvnet.h — a server-centric network held as a table of links: servers
 * (routers 0..servers-1, router r hosting node r) each with server_ports
 * ports, then switches (routers servers..routers-1, hosting no node) each
 * with switch_ports ports. A topology plugin fills the table in create()
 * with srvnet_wire(), then srvnet_finish() reads it into the cached BFS
 * tables of ../../routing/common/shortest.c, from which minimal_hops() and
 * distance() answer; the plugin adds its own paths() (its paper's routing)
 * and hands the rest of its vtable to SRVNET_VTABLE.
 *
 * The plugin's instance struct starts with a srvnet member, so that the
 * vtable entries below take the instance as `self`. srvnet_free() releases
 * what srvnet_init() and srvnet_finish() allocated, not the instance. */
#ifndef INSEE_PLUGIN_TOPOLOGY_SRVNET_H
#define INSEE_PLUGIN_TOPOLOGY_SRVNET_H

#include "shortest.h"

typedef struct srvnet {
    uint32_t servers, switches, routers;
    uint32_t server_ports, switch_ports;
    uint32_t diameter;  /* set by the plugin: its closed form */
    uint32_t path_hops; /* set by the plugin: the longest path of its paths() */
    insee_port_peer *peer; /* per port; .router ROUTING_UNREACHABLE when unplugged */
    routing_graph *graph;
} srvnet;

/* The table with every port unplugged. False with err set (naming `who`)
   when out of memory. */
bool srvnet_init(srvnet *n, const char *who, uint32_t servers, uint32_t server_ports,
                 uint32_t switches, uint32_t switch_ports, insee_error *err);
/* A cable between port pa of router a and port pb of router b. */
void srvnet_wire(srvnet *n, uint32_t a, uint32_t pa, uint32_t b, uint32_t pb);
/* The BFS tables (table_mb of them cached). False with err set. */
bool srvnet_finish(srvnet *n, const char *who, double table_mb, insee_error *err);
void srvnet_free(srvnet *n);

/* The longest of the shortest paths between servers, by one BFS from
   each server (after srvnet_finish), for networks whose papers give no
   closed form; 0 (unknown) when servers x routers exceeds `budget`. */
uint32_t srvnet_bfs_diameter(srvnet *n, uint64_t budget);

/* Cables plugged (each counted once). */
uint64_t srvnet_cables(const srvnet *n);

/* The output port of `router` whose cable leads to `next`
   (ROUTING_UNREACHABLE when none does). */
uint32_t srvnet_port_to(const srvnet *n, uint32_t router, uint32_t next);

static inline uint32_t srvnet_pow(uint32_t x, uint32_t e)
{
    uint32_t p = 1;
    while (e--)
        p *= x;
    return p;
}

/* A routing between servers: writes the routers of its path from server
   src to server dst (walk[0] = src, the last = dst) into walk, at most
   path_hops + 1 of them; returns how many. */
typedef uint32_t (*srvnet_route_fn)(const void *self, uint32_t src, uint32_t dst, uint32_t *walk);

/* paths() for any pair of routers from `route`, one path of share 1: a
   switch stands for the server on its port 0, and the loops that makes are
   cut (srvnet_emit). */
uint32_t srvnet_paths(const srvnet *n, srvnet_route_fn route, const void *self, uint32_t src,
                      uint32_t dst,
                      void (*add)(void *ctx, const uint32_t *ports, uint32_t hops, double share),
                      void *ctx);

/* Hands a path given as its routers (walk[0] the source, walk[len - 1]
   the destination, consecutive ones cabled) to paths()' add() with share
   `share`, after cutting every loop out of it (a router met again resumes
   the walk from its first visit), so that no router appears twice. `ports`
   has room for len - 1 entries. Returns the hops handed. */
uint32_t srvnet_emit(const srvnet *n, const uint32_t *walk, uint32_t len, uint32_t *ports,
                     double share,
                     void (*add)(void *ctx, const uint32_t *ports, uint32_t hops, double share),
                     void *ctx);

void srvnet_info(void *self, insee_topology_info *out);
uint32_t srvnet_ports(void *self, uint32_t router);
bool srvnet_link(void *self, uint32_t router, uint32_t port, insee_port_peer *out);
uint32_t srvnet_node_router(void *self, uint32_t node);
uint32_t srvnet_minimal_hops(void *self, uint32_t router, uint32_t dst_node, uint32_t salt,
                             insee_hop *out, uint32_t max);
uint32_t srvnet_distance(void *self, uint32_t router, uint32_t dst_node);
uint32_t srvnet_path_hops(void *self);

#define SRVNET_VTABLE(create_fn, destroy_fn, paths_fn)                                       \
    {                                                                                        \
        .size = sizeof(insee_topology_vtable), .create = (create_fn),                        \
        .destroy = (destroy_fn), .info = srvnet_info, .ports = srvnet_ports,                 \
        .link = srvnet_link, .node_router = srvnet_node_router,                              \
        .minimal_hops = srvnet_minimal_hops, .distance = srvnet_distance,                    \
        .paths = (paths_fn), .path_hops = srvnet_path_hops,                                  \
    }

#endif
