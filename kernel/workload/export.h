/* kernel/workload/export.h — a causal application's program written as an
 * FSIN trace (`insee trace export`, docs/workloads.md).
 *
 * Two kinds of trace, task by task, task ids the application's own
 * (0 .. tasks-1):
 *  - its program, when its traffic gives one through the traffic entry
 *    program() (ABI 1.11: traces, application kernels): each event one line,
 *    `s task dst tag bytes [nic=K] [copy=zero|two]` (a send's interface and
 *    copy mode when it names them, ABI 1.13), `r src task tag bytes`,
 *    `c task cycles`, in program order. Replayed by the `trace` plugin on the same network with
 *    cpu_scale 1 it gives the completion time and the messages the
 *    application gave; on another network its receives keep the causality.
 *  - otherwise (a Markov walk, whose phases end on deliveries an FSIN
 *    receive cannot express), a recording of one packet-engine run: each
 *    task's sends at the cycles it made them, the time between them as
 *    computes. Replayed on the same network the same packets leave at the
 *    same cycles; elsewhere the sends keep their times (a timed trace).
 *
 * The experiment is one made by insee_experiment_new() and not yet run; a
 * recording runs it (its report is not printed, no output file written).
 * The trace is written whole to a temporary beside `path` and renamed over
 * it (stats/output.h): a failure leaves no partial trace behind.
 */
#ifndef INSEE_KERNEL_EXPORT_H
#define INSEE_KERNEL_EXPORT_H

#include "engine/experiment.h"

#include <glib.h>

G_BEGIN_DECLS

/* Write application `name` (NULL: the experiment's one causal application)
   to `path`; `config` names the experiment in the header. FALSE with an
   error naming the application and what to do: no causal application,
   several and no name, an unknown name, a recording with a flow engine, a
   run that fails, a file that cannot be written. */
gboolean insee_workload_export(insee_experiment *exp, const char *name, const char *config,
                               const char *path, GError **err);

G_END_DECLS
#endif
