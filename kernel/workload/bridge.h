/* kernel/workload/bridge.h — a [bridge] run: the bridge plugin drives one
 * application whose tasks are the nodes it serves (docs/architecture.md §8).
 *
 * The application's traffic table is the kernel's own (insee_bridge_traffic):
 * messages the bridge queues with host->bridge_inject() wait in a per-node
 * heap and are emitted by their node's task at their cycle; deliveries go back
 * to the bridge's deliver(). Each node has INSEE_BRIDGE_TASKS_PER_NODE tasks:
 * task 2n sends node n's messages, task 1 (on node 0) is the slice clock and
 * the other odd tasks idle. The clock never sends, so a full injection queue
 * (which makes the kernel stop asking its task) never delays a boundary.
 * Boundaries are its due events one cycle ahead (sync(b) runs in cycle
 * b - 1, after that cycle's deliveries), so messages injected for cycle b
 * are queued in cycle b and the time loop stops at every boundary; an
 * application that still has a boundary ahead is never taken for stuck.
 */
#ifndef INSEE_KERNEL_WORKLOAD_BRIDGE_H
#define INSEE_KERNEL_WORKLOAD_BRIDGE_H

#include "workload/workload.h"

G_BEGIN_DECLS

typedef struct insee_bridge_app insee_bridge_app;

#define INSEE_BRIDGE_TASKS_PER_NODE 2u

extern const insee_traffic_vtable insee_bridge_traffic;

/* The application `app` (wl->apps[app], 2 x `nodes` tasks on nodes 0..nodes-1)
   driven by bridge instance `self` of plugin `name`; the workload keeps it in
   wl->bridge. A failed sync() is the workload's error. */
insee_bridge_app *insee_bridge_app_new(insee_workload *wl, uint32_t app, uint32_t nodes,
                                       const insee_bridge_vtable *vt, void *self,
                                       const char *name);
void insee_bridge_app_free(insee_bridge_app *b);

/* host->bridge_inject_with() (bridge_inject() with nic 0 and
   INSEE_COPY_DEFAULT), the message already cut into `packets`. */
bool insee_bridge_inject(insee_workload *wl, uint32_t src, uint32_t dst, uint64_t bytes,
                         uint32_t packets, uint64_t handle, uint64_t at, uint16_t nic,
                         uint8_t copy, insee_error *err);

G_END_DECLS
#endif
