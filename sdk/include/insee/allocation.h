/* insee/allocation.h — the node allocation contract (ABI 1.9, plugins/sched/):
 * which free nodes a job the scheduler starts receives (INRFlow §3.4,
 * docs/scheduling.md).
 *
 * Who calls what: the kernel calls allocate() once for every job a selection
 * plugin (insee/selection.h) starts, with `free[n]` true for each of the
 * `nodes` nodes no running job holds (kernel memory, valid during the call).
 * allocate() writes into `out` exactly `count` distinct nodes that are free
 * and returns true, or fills err and returns false when fewer than `count`
 * are free (the kernel checks both: a node not free, or given twice, ends the
 * run naming the plugin). `rng` is a stream of the experiment's seed, the
 * same for the same job in every run. The job's own [placement] then maps its
 * tasks onto those nodes only: its place() sees them as its available nodes.
 * Coordinates, when allocation needs them, come from host->coords().
 */
#ifndef INSEE_ALLOCATION_H
#define INSEE_ALLOCATION_H

#include <insee/host.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct insee_allocation_vtable {
    uint32_t size; /* sizeof(insee_allocation_vtable) as built */

    /* minor 9 — required */
    void *(*create)(const insee_host *host, const insee_value *params, insee_error *err);
    void (*destroy)(void *self);
    bool (*allocate)(void *self, uint32_t count, const bool *free, uint32_t nodes,
                     uint32_t *out, insee_rng *rng, insee_error *err);
} insee_allocation_vtable;

#ifdef __cplusplus
}
#endif
#endif
