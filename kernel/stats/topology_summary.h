/* kernel/stats/topology_summary.h — what `insee topology` prints about a
 * network: routers, nodes, links, ports per router, diameter and average
 * distance (BFS over the built network, so it checks the topology plugin's
 * own claims), and optionally the wiring as Graphviz DOT.
 *
 * Distances are exact while BFS from every router hosting nodes stays under
 * about 2^30 link visits; beyond, BFS runs from a seeded random sample of
 * them and the summary says so (the diameter is then a lower bound). Links
 * are paired with their reverse by port, as topology.h defines it. After
 * [faults] (net/faults.h) everything is of the surviving graph, plus the
 * failed cables and the connected pairs; in a graph that is not connected
 * the diameter and average distance are over the connected pairs. A
 * topology with a routing of its own (topology.h paths()) gets the mean and
 * longest length of its routes too, over the same pairs of routers as the
 * distances (net/own_paths.h: routes cut by failures count as unroutable).
 * The DOT file is written whole or not at all.
 */
#ifndef INSEE_KERNEL_TOPOLOGY_SUMMARY_H
#define INSEE_KERNEL_TOPOLOGY_SUMMARY_H

#include <glib.h>

#include <insee/topology.h>

#include "net/network.h"

G_BEGIN_DECLS

/* `topo` and `self`: the plugin that built `net`, asked for its info()
   (the diameter it claims, compared with the BFS) and its own routes. */
void insee_topology_summary(const insee_net *net, const insee_topology_vtable *topo, void *self,
                            GString *out);
gboolean insee_topology_write_dot(const insee_net *net, const char *path, GError **err);

G_END_DECLS
#endif
