/* kernel/flow/walk.h — a deterministic router's path, found by walking it.
 *
 * Contract
 * --------
 * A flow follows the path a packet alone in the network would take: from
 * its source node's router, route() is asked at every router (as the packet
 * engine asks it: the injection queue first, then the input port and VC the
 * packet arrived by, its hop count, a salt fixed for the flow, its packet
 * state carried along and forwarded() told of each hop) until the router
 * that hosts the destination, each hop by route()'s first candidate, the one
 * a packet alone in the network takes. Only a deterministic router can be
 * walked: one that declares INSEE_ROUTE_PURE, whose choice depends on the
 * packet and where it waits alone (not on the time, a draw or the network's
 * state), so that one flow has one path. Any other is refused as adaptive,
 * naming it; a multicast router too. A path that
 * comes back to a router it has passed is refused as a loop, naming the
 * router; one that leaves by an unplugged port, as a dead end. One that
 * leaves by a failed cable (net/faults.h) is not an error: the flow is
 * unroutable, as a packet there is dropped.
 * Router state blocks are zero at every hop (an empty network).
 * Flows are walked in batches (insee_flow_walk), several side by side; each
 * has its own packet state, and route() and forwarded() are called for one
 * flow at a time, with that flow's context, hop after hop in order.
 * Walkers made beside a first one (insee_flow_walker_new_beside) share its
 * table of where each port leads and may walk on other threads at once,
 * one thread per walker, when the router and the topology allow it
 * (insee_flow_setup.concurrent); the first is freed last.
 */
#ifndef INSEE_KERNEL_FLOW_WALK_H
#define INSEE_KERNEL_FLOW_WALK_H

#include "flow/flow.h"

G_BEGIN_DECLS

typedef struct insee_flow_walker insee_flow_walker;

/* Flows walked by one call, and how many of them walk side by side (each
   waits for a cache miss per hop; walking several overlaps the misses). */
#define INSEE_FLOW_BATCH 64u
#define INSEE_FLOW_LANES 16u

insee_flow_walker *insee_flow_walker_new(const insee_flow_setup *setup, GError **err);
/* A count per global port for the caller (the static engine's flows per
   link), kept beside where the port leads so that counting a walked hop
   reads no other line: port gp's is loads[gp * *stride], zero at first,
   shared by the walkers beside this one. */
uint32_t *insee_flow_walker_loads(insee_flow_walker *w, size_t *stride);

insee_flow_walker *insee_flow_walker_new_beside(const insee_flow_walker *first, GError **err);
void insee_flow_walker_free(insee_flow_walker *w);

/* Walk flows i = 0 .. n - 1 (n <= INSEE_FLOW_BATCH) from src[i] to dst[i]
   (different nodes) with salt[i]. FALSE with `err` set for the first flow,
   in batch order, that failed; the flows before it have their paths. */
gboolean insee_flow_walk(insee_flow_walker *w, uint32_t n, const uint32_t *src,
                         const uint32_t *dst, const uint32_t *salt, GError **err);

/* Flow i's path of the last insee_flow_walk(): its global ports in order
   (*hops of them), valid until the next walk. *routable is false when the
   router dropped the flow (INSEE_PORT_DROP) or sent it out by a failed cable. */
const uint32_t *insee_flow_walk_path(const insee_flow_walker *w, uint32_t i, uint32_t *hops,
                                     gboolean *routable);

G_END_DECLS
#endif
