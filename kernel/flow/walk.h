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
 */
#ifndef INSEE_KERNEL_FLOW_WALK_H
#define INSEE_KERNEL_FLOW_WALK_H

#include "flow/flow.h"

G_BEGIN_DECLS

typedef struct insee_flow_walker insee_flow_walker;

insee_flow_walker *insee_flow_walker_new(const insee_flow_setup *setup, GError **err);
void insee_flow_walker_free(insee_flow_walker *w);

/* The global ports of src_node's path to dst_node (different nodes), in
   order, into `path` (a GArray of uint32_t, emptied first). *routable is
   false when the router drops the flow (INSEE_PORT_DROP) or sends it out
   by a failed cable. */
gboolean insee_flow_walk(insee_flow_walker *w, uint32_t src_node, uint32_t dst_node,
                         uint32_t salt, GArray *path, gboolean *routable, GError **err);

G_END_DECLS
#endif
