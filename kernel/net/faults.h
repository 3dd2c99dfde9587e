/* kernel/net/faults.h — link failures ([faults], docs/flow.md "Link
 * failures"), and the surviving graph's reachability.
 *
 * Contract
 * --------
 * A cable is a router-to-router link: a plugged output port and, when the
 * input port it feeds belongs to an output that leads back (the reverse of
 * topology.h), that output too. A cable fails in both directions. The links
 * that attach nodes to their routers are not ports of the network and never
 * fail; where a tree models network interfaces as routers (nic = true), the
 * NIC-switch cables are router-to-router and can fail.
 *
 * insee_net_fail_cables() runs once, right after insee_net_build() and
 * before any router or path routing is created: it unplugs both directions
 * of every failed cable (peer_queue = INSEE_NONE), so every reader of the
 * graph (host peer(), path routings, table-driven routers, the static
 * engine's walk, `insee topology`) sees the surviving graph, and marks them
 * in net->failed so that the engines can tell a failed port (the packet or
 * flow is dropped as unroutable) from one that was never plugged (a router
 * plugin's error). It owns net->failed (freed by insee_net_clear()).
 *
 * The cables of `file` fail first, then `links` more drawn uniformly among
 * the rest without replacement, from `seed` on a stream of its own (no
 * other draw of the run moves). Errors are INSEE_CONFIG_ERROR_INVALID and
 * name the key, the file and its line.
 */
#ifndef INSEE_KERNEL_FAULTS_H
#define INSEE_KERNEL_FAULTS_H

#include <glib.h>

#include "net/network.h"

G_BEGIN_DECLS

typedef struct insee_faults_spec {
    double links;     /* 0: none drawn; in (0, 1): that fraction of the cables, rounded to
                         the nearest; a whole number >= 1: that many cables */
    uint64_t seed;
    const char *file; /* a list of cables, one per line ("ROUTER PORT", either end), '#'
                         comments; NULL or "": none */
} insee_faults_spec;

gboolean insee_net_fail_cables(insee_net *net, const insee_faults_spec *spec, GError **err);

/* The cables of the network as built, failed ones included. */
uint64_t insee_net_cables(const insee_net *net);

/* Hops from `src` to every router over the plugged links (INSEE_NONE:
   unreachable), into dist; `queue` has room for `routers` entries. */
void insee_net_bfs(const insee_net *net, uint32_t src, uint32_t *dist, uint32_t *queue);

/* Ordered pairs of distinct nodes whose destination the source reaches:
   connected components when every link has its reverse, O(links); a
   breadth-first search from every router that hosts nodes otherwise. */
uint64_t insee_net_connected_pairs(const insee_net *net);

G_END_DECLS
#endif
