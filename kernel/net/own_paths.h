/* kernel/net/own_paths.h — a topology's own routing (topology.h paths(),
 * ABI 1.9) as the kernel hands it on: to plugins through the host
 * (topology_paths) and to `insee topology`'s summary.
 *
 * Contract
 * --------
 * insee_net_own_paths() asks the topology for its paths between two
 * routers of the built network and passes on, through add(), only those
 * that are a chain of plugged links from src to dst no longer than the
 * topology's path_hops(): one that leaves by an unplugged port — a failed
 * cable ([faults]) among them — or ends elsewhere is dropped, and the
 * shares of those kept are scaled back to sum to 1, so a pair keeps its
 * whole traffic while one of its paths survives. It returns how many paths
 * it passed on: 0 for a topology without paths(), src = dst, a router out
 * of range, or a pair all of whose paths were dropped. The port array given
 * to add() is the topology's, valid during the call. No allocation; the
 * topology is asked twice (its paths() is pure).
 */
#ifndef INSEE_KERNEL_NET_OWN_PATHS_H
#define INSEE_KERNEL_NET_OWN_PATHS_H

#include <insee/topology.h>

#include "net/network.h"

G_BEGIN_DECLS

typedef void (*insee_own_path_fn)(void *ctx, const uint32_t *ports, uint32_t hops, double share);

/* The topology's longest route (path_hops()); 0 when it has no routing of its own. */
uint32_t insee_net_own_path_hops(const insee_topology_vtable *topo, void *self);

uint32_t insee_net_own_paths(const insee_net *net, const insee_topology_vtable *topo, void *self,
                             uint32_t src, uint32_t dst, uint32_t salt, insee_own_path_fn add,
                             void *ctx);

G_END_DECLS
#endif
