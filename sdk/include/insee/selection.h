/* insee/selection.h — the job selection contract (ABI 1.9, plugins/sched/):
 * which queued jobs the scheduler starts now (INRFlow §3.4, docs/scheduling.md).
 *
 * Who calls what: the kernel calls select() once at every instant a job
 * arrives or completes, after every completion and arrival of that instant
 * is counted (when the queue is not empty). It
 * hands the plugin the queue in arrival order (ties: configuration order)
 * and the running jobs with their estimated ends, all in the kernel's
 * memory and valid during the call only. select() writes into `start` the
 * queue indices of the jobs to start now, in the order they start, and
 * returns how many; their nodes together must fit `free_nodes`, and each
 * index appears once (the kernel checks both and ends the run, naming the
 * plugin, when they do not hold). The plugin chooses how many nodes, not
 * which: an allocation plugin (insee/allocation.h) picks them afterwards.
 * On an idle machine (nothing running) every queued job fits, and select()
 * must start at least one: the kernel ends the run otherwise, since nothing
 * would call it again before the next arrival. insee-conform also asks it
 * with an empty queue (queue NULL, queued 0), where it must start nothing.
 *
 * Times are in the engine's unit: cycles for the packet engine, seconds for
 * the dynamic flow engine. An estimate the user did not give is INFINITY,
 * so a running job without one never ends by its estimate. A running job
 * past its estimate reports `end` = now (it may end at any moment). The
 * same arguments must give the same answer (no hidden randomness).
 */
#ifndef INSEE_SELECTION_H
#define INSEE_SELECTION_H

#include <insee/host.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A queued job. */
typedef struct insee_job {
    uint32_t nodes;  /* nodes it needs */
    double arrival;  /* when it joined the queue */
    double estimate; /* its user's estimated run time, or INFINITY */
} insee_job;

/* A running job: its nodes and when it ends by its estimate. */
typedef struct insee_running_job {
    uint32_t nodes;
    double end; /* start + estimate, at least now; INFINITY without an estimate */
} insee_running_job;

typedef struct insee_selection_vtable {
    uint32_t size; /* sizeof(insee_selection_vtable) as built */

    /* minor 9 — required */
    void *(*create)(const insee_host *host, const insee_value *params, insee_error *err);
    void (*destroy)(void *self);
    uint32_t (*select)(void *self, double now, uint32_t free_nodes, uint32_t nodes,
                       const insee_job *queue, uint32_t queued,
                       const insee_running_job *running, uint32_t n_running, uint32_t *start);
} insee_selection_vtable;

#ifdef __cplusplus
}
#endif
#endif
