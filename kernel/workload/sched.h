/* kernel/workload/sched.h — job scheduling (INRFlow §3.4, docs/scheduling.md):
 * applications with an arrival wait in a queue; a selection plugin says
 * which start, an allocation plugin which free nodes each gets; a job holds
 * its nodes until it completes. Internal to the kernel.
 *
 * Contract: the engine that runs the jobs (the packet engine in cycles, the
 * dynamic flow engine in seconds: `unit` names it) creates the scheduler
 * with its jobs, calls insee_sched_step() at every instant the scheduler asks
 * for (insee_sched_next()), which starts jobs through `start`, and
 * insee_sched_done() when a running job completes. insee_sched_report() then
 * fills the report's per-job and system figures. Times are doubles in the
 * engine's unit; the scheduler owns its arrays, borrows the plugins.
 */
#ifndef INSEE_KERNEL_SCHED_H
#define INSEE_KERNEL_SCHED_H

#include <glib.h>
#include <insee/insee.h>

#include "stats/report.h"

G_BEGIN_DECLS

typedef enum { INSEE_JOB_FUTURE, INSEE_JOB_QUEUED, INSEE_JOB_RUNNING, INSEE_JOB_DONE } insee_job_state;

typedef struct insee_job_rec {
    uint32_t app;        /* the engine's application */
    uint32_t nodes;      /* nodes it needs */
    double arrival;
    double estimate;     /* the user's estimate, or INFINITY */
    double start, end;   /* once started, once done */
    insee_job_state state;
    uint32_t *node;      /* its nodes while it runs, in allocation order */
} insee_job_rec;

/* Start job `job` on `nodes` (its allocation, job->nodes of them) now:
   place its tasks, start its traffic. FALSE with err set when that fails. */
typedef gboolean (*insee_sched_start_fn)(void *ctx, uint32_t job, const uint32_t *nodes,
                                         GError **err);

typedef struct insee_sched_plugins {
    const insee_selection_vtable *sel;
    void *sel_self;
    const char *sel_name;
    const insee_allocation_vtable *alloc;
    void *alloc_self;
    const char *alloc_name;
} insee_sched_plugins;

typedef struct insee_sched insee_sched;

/* `jobs` (n of them, app/nodes/arrival/estimate set) are copied. */
insee_sched *insee_sched_new(const insee_sched_plugins *plugins, const insee_job_rec *jobs,
                             uint32_t n, uint32_t nodes, uint64_t seed,
                             insee_sched_start_fn start, void *ctx);
void insee_sched_free(insee_sched *s);
/* The next instant the scheduler must run at: an arrival, or `now` again
   after a completion (INFINITY when none). */
double insee_sched_next(const insee_sched *s);
/* Queue the arrivals up to `now` and, after an arrival or a completion,
   start what selection and allocation give. */
gboolean insee_sched_step(insee_sched *s, double now, GError **err);
/* Job `job` completed at `end`: its nodes are free. */
void insee_sched_done(insee_sched *s, uint32_t job, double end);
const insee_job_rec *insee_sched_job(const insee_sched *s, uint32_t job);
uint32_t insee_sched_jobs(const insee_sched *s);
gboolean insee_sched_all_done(const insee_sched *s);
/* Per job (into rep->apps[job->app]) and for the system (rep->sched):
   `unit` "cycles" or "s"; `bsld_min` the bounded slowdown's floor. The
   report's applications must exist. */
void insee_sched_report(const insee_sched *s, insee_report *rep, const char *unit,
                        double bsld_min);

G_END_DECLS
#endif
