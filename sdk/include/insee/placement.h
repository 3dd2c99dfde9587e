/* insee/placement.h — the placement contract (plugins/sched/): which node
 * runs which task.
 *
 * Who calls what: the kernel calls place() once per application before the
 * run, with `available[n]` true for every node it may use. place() writes
 * task_node[t] for t < tasks, a bijection onto available nodes (the
 * conformance suite checks it), or fills err and returns false when the tasks
 * do not fit. Coordinates, when placement needs them, come from host->coords().
 * Job scheduling (FCFS, backfilling) appends entries in a later ABI minor.
 */
#ifndef INSEE_PLACEMENT_H
#define INSEE_PLACEMENT_H

#include <insee/host.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct insee_placement_vtable {
    uint32_t size; /* sizeof(insee_placement_vtable) as built */

    /* minor 0 — required */
    void *(*create)(const insee_host *host, const insee_value *params, insee_error *err);
    void (*destroy)(void *self);
    bool (*place)(void *self, uint32_t tasks, const bool *available, uint32_t nodes,
                  uint32_t *task_node, insee_rng *rng, insee_error *err);
} insee_placement_vtable;

#ifdef __cplusplus
}
#endif
#endif
