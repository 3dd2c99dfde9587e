/* insee/topology.h — the topology contract.
 *
 * A topology says which routers exist, how their ports are wired, where the
 * nodes attach, and which output ports are minimal toward a destination.
 *
 * Who calls what: the kernel calls create() once, then info(), ports(),
 * link() and node_router() while it builds the network (not in the time
 * loop), then minimal_hops() from the time loop whenever a router model asks
 * for routes (through insee_host.minimal_hops). All entries but create and
 * destroy must be pure functions of their arguments: no hidden state changes.
 *
 * Conventions
 *  - Routers are 0..routers-1, nodes 0..nodes-1; a node attaches to exactly
 *    one router (node_router). In direct topologies router r hosts node r.
 *  - A router has ports(r) network ports; port p is both output p and input p.
 *    link(r, p) names the router and input port that output p feeds. Each
 *    input is fed by at most one output. Bidirectional topologies make the
 *    reverse link come back into input p (the conformance suite checks it
 *    unless info.flags has INSEE_TOPO_DIRECTED).
 *  - minimal_hops() lists every output port at `router` that lies on a
 *    shortest path to dst_node, in dimension order (lowest dimension first;
 *    a topology may put its own pick first, host.h says which do);
 *    0 entries means router hosts dst_node. It returns how many it wrote
 *    (at most `max`; the first `max` in that order when there are more). `salt` is a per-packet random
 *    word fixed at generation: where two directions tie (a torus ring of even
 *    size at distance k/2) bit `dim` of salt decides which is listed first, so
 *    a dimension-order router that takes the first hop of a dimension keeps a
 *    consistent direction.
 *  - paths() (minor 9, optional) is the topology's own routing, for the
 *    families whose papers define one that is not "any shortest path"
 *    (BCube's digit correction, DCell's recursion, DPillar's helix): the
 *    whole paths between two routers, as insee/routing.h's paths() gives
 *    them, so that the flow engines (path routing `native`) and the packet
 *    engine (router `source`, hop-indexed VCs) follow the same routes. It
 *    must be pure and deterministic like every other entry; paths need not
 *    be shortest; path_hops() bounds their length.
 *  - ports, nodes and routers fit in uint32_t; ports per router in uint16_t.
 *  - The kernel refuses a network with more than INSEE_MAX_PORTS ports at a
 *    router, or with INSEE_MAX_QUEUES queues or more (a queue per port and
 *    VC, one per node and injector: so ports + nodes must stay below it even
 *    with one VC), or that needs more memory than the process may take. A
 *    topology that checks the first two in create(), before building any
 *    table, refuses at once and can name its own parameter.
 */
#ifndef INSEE_TOPOLOGY_H
#define INSEE_TOPOLOGY_H

#include <insee/host.h>

#ifdef __cplusplus
extern "C" {
#endif

#define INSEE_MAX_PORTS INSEE_PORT_LOCAL /* port numbers stop below the pseudo-ports */
#define INSEE_MAX_QUEUES (1u << 30)      /* queue ids travel in events beside a 2-bit kind */

enum {
    INSEE_TOPO_DIRECTED = 1u << 0, /* some links have no reverse (unidirectional torus) */
    INSEE_TOPO_INDIRECT = 1u << 1, /* some routers host no node (trees) */
    /* minor 12. Every query (minimal_hops, distance, coords, link, paths,
       ...) may be called from several threads at once: none fills a cache
       or a scratch buffer of the instance. The static flow engine walks
       flows on several threads only when the topology and the router
       (INSEE_ROUTE_CONCURRENT) both declare it. */
    INSEE_TOPO_CONCURRENT = 1u << 2,
};

typedef struct insee_topology_info {
    uint32_t routers;
    uint32_t nodes;
    uint32_t max_ports; /* max over routers of ports(r) */
    uint32_t dims;      /* coordinates per node (0: coords() unsupported) */
    uint32_t flags;     /* INSEE_TOPO_* */
    uint32_t diameter;  /* 0 when unknown */
} insee_topology_info;

typedef struct insee_topology_vtable {
    uint32_t size; /* sizeof(insee_topology_vtable) as built */

    /* minor 0 — required */
    void *(*create)(const insee_host *host, const insee_value *params, insee_error *err);
    void (*destroy)(void *self);
    void (*info)(void *self, insee_topology_info *out);
    uint32_t (*ports)(void *self, uint32_t router);
    /* false when output `port` of `router` is unplugged (mesh border). */
    bool (*link)(void *self, uint32_t router, uint32_t port, insee_port_peer *out);
    uint32_t (*node_router)(void *self, uint32_t node);
    uint32_t (*minimal_hops)(void *self, uint32_t router, uint32_t dst_node, uint32_t salt,
                             insee_hop *out, uint32_t max);

    /* minor 0 — optional (NULL: kernel default) */
    /* Static description of a port (dim, dir, WRAP/UP/DOWN); default: dim -1. */
    void (*port_info)(void *self, uint32_t router, uint32_t port, insee_hop *out);
    /* Hops from router to dst_node; default: follow minimal_hops. */
    uint32_t (*distance)(void *self, uint32_t router, uint32_t dst_node);
    /* Coordinates of a node; returns how many were written (info.dims). */
    uint32_t (*coords)(void *self, uint32_t node, int32_t *out, uint32_t max);

    /* minor 9 — optional (both or neither) */
    /* The topology's own routing from src_router to dst_router (different
       routers): call add(ctx, ports, hops, share) once per path, ports[i]
       the output port taken at the i-th router of the path (following
       link() from src_router ends at dst_router, no router twice), share > 0
       the fraction of the traffic it carries (a pair's shares sum to 1).
       `salt` is a word fixed per flow or packet, for a routing that picks
       one of several paths by it. Returns how many paths it added; 0 when
       the routing has no path (routers it does not connect). */
    uint32_t (*paths)(void *self, uint32_t src_router, uint32_t dst_router, uint32_t salt,
                      void (*add)(void *ctx, const uint32_t *ports, uint32_t hops, double share),
                      void *ctx);
    /* The most hops any path of paths() takes (a hop-indexed router needs
       as many VCs). */
    uint32_t (*path_hops)(void *self);
} insee_topology_vtable;

#ifdef __cplusplus
}
#endif
#endif
