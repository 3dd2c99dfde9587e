/* kernel/workload/export.h — a causal application's program written as an
 * FSIN trace (`insee trace export`, docs/traces.md).
 *
 * The application's traffic gives its tasks' programs through the traffic
 * entry program() (ABI 1.11); each event becomes one line: `s task dst tag
 * bytes`, `r src task tag bytes`, `c task cycles`, task by task in program
 * order, task ids the application's own (0 .. tasks-1). Replayed by the
 * `trace` plugin on the same network with cpu_scale 1, the trace gives the
 * completion time and the messages the application gave.
 *
 * The engine is one set up by insee_experiment_new() and not yet run (its
 * applications created, nothing played). The file is written whole to a
 * temporary beside `path` and renamed over it (stats/output.h): a failure
 * leaves no partial trace behind.
 */
#ifndef INSEE_KERNEL_EXPORT_H
#define INSEE_KERNEL_EXPORT_H

#include "engine/engine.h"

#include <glib.h>

G_BEGIN_DECLS

/* Write application `name` (NULL: the experiment's one causal application)
   to `path`; `config` names the experiment in the header. FALSE with an
   error naming the application and what to do: no causal application,
   several and no name, an unknown name, a traffic without a fixed program,
   a file that cannot be written. */
gboolean insee_workload_export(const insee_engine *eng, const char *name, const char *config,
                               const char *path, GError **err);

G_END_DECLS
#endif
