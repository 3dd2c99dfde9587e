/* shortest.h — the network graph and its shortest-path tables, shared by
 * the path routings (compiled into each .so, hidden like everything but the
 * entry).
 *
 * The graph is read once, from the host (ports() and peer()) or from a
 * topology's own link(): topology plugins compile this file too. The distances
 * to a destination router are one breadth-first search over the links
 * backwards from it, a table of `routers` entries built when first asked
 * and cached: the cache holds as many tables as fit in its memory cap
 * (direct-mapped by destination), so memory never grows with routers^2;
 * a table pushed out is computed again when asked again, with the same
 * result. */
#ifndef INSEE_ROUTING_SHORTEST_H
#define INSEE_ROUTING_SHORTEST_H

#include <insee/insee.h>

#define ROUTING_UNREACHABLE UINT32_MAX

/* The table_mb parameter every routing built on this takes. */
#define ROUTING_TABLE_MB_PARAM                                                          \
    {"table_mb", INSEE_PARAM_DOUBLE, "64", 0.001, 1e6, NULL, "MiB",                    \
     "memory for cached per-destination distance tables (at least one is kept)"}

/* Open to the routings so that the two queries below, asked at every hop
   of every search, compile inline. */
typedef struct routing_graph {
    uint32_t routers;
    uint32_t *port_base; /* routers + 1: router r's ports are port_base[r] .. [r+1] */
    uint32_t *peer;      /* per port: the router it leads to, or ROUTING_UNREACHABLE */
    uint32_t *in_base;   /* routers + 1: the routers with a link into r, CSR */
    uint32_t *in_from;
    uint32_t slots;      /* cached tables */
    uint32_t *slot_dst;  /* the destination each slot holds, or ROUTING_UNREACHABLE */
    uint32_t *tables;    /* slots x routers */
    uint32_t *queue;     /* BFS scratch */
} routing_graph;

/* Where a graph is read from: the host's view of the network (path
   routings), or a topology plugin's own link table (topologies that answer
   minimal_hops() from these tables, in plugins/topology). */
typedef struct routing_graph_source {
    uint32_t routers;
    uint32_t (*ports)(void *ctx, uint32_t router);
    bool (*peer)(void *ctx, uint32_t router, uint32_t port, insee_port_peer *out);
    void *ctx;
} routing_graph_source;

/* NULL with err filled (the message starts with `who`) when out of memory. */
routing_graph *routing_graph_read(const char *who, const routing_graph_source *src,
                                  double table_mb, insee_error *err);
/* The graph as the host shows it (host->ports and host->peer). */
routing_graph *routing_graph_new(const char *who, const insee_host *host, double table_mb,
                                 insee_error *err);
void routing_graph_free(routing_graph *g);

static inline uint32_t routing_graph_ports(const routing_graph *g, uint32_t router)
{
    return g->port_base[router + 1] - g->port_base[router];
}

/* The router output `port` of `router` leads to, or ROUTING_UNREACHABLE. */
static inline uint32_t routing_graph_peer(const routing_graph *g, uint32_t router,
                                          uint32_t port)
{
    return g->peer[g->port_base[router] + port];
}

/* The routers with a link into `router`, one entry per link (*count of them). */
static inline const uint32_t *routing_graph_feeders(const routing_graph *g, uint32_t router,
                                                    uint32_t *count)
{
    *count = g->in_base[router + 1] - g->in_base[router];
    return g->in_from + g->in_base[router];
}

/* Hops from every router to `dst` (ROUTING_UNREACHABLE: no path); valid
   until the next call. */
const uint32_t *routing_graph_distances(routing_graph *g, uint32_t dst);
/* The minimal output ports at `router` toward the table's destination, in
   port order, into out (room for routing_graph_ports(router)); how many. */
uint32_t routing_graph_next(const routing_graph *g, const uint32_t *dist, uint32_t router,
                            uint32_t *out);

/* One shortest path from src to dst (dist: dst's table, src reaching it),
   into path (room for dist[src] ports); at the i-th router the minimal port
   numbered pick(i, count, salt) among its `count` in port order. `next`
   has room for one router's ports. Returns the hops. */
uint32_t routing_graph_path(const routing_graph *g, const uint32_t *dist, uint32_t src,
                            uint32_t dst, uint32_t (*pick)(uint32_t hop, uint32_t count,
                                                           uint32_t salt),
                            uint32_t salt, uint32_t *next, uint32_t *path);

/* A 32-bit mix (a finaliser of MurmurHash3's kind): neighbouring salts
   spread over every choice when a routing hashes a flow onto one. */
uint32_t routing_mix(uint32_t x);

#endif
