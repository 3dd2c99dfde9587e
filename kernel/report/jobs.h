/* kernel/report/jobs.h — the schedule of a run with jobs on the page of
 * `insee report` (docs/scheduling.md): a Gantt chart of the jobs over the
 * nodes and the utilisation over time, drawn as SVG here (not by gnuplot:
 * each bar carries its job's data, for the reader and for tests).
 */
#ifndef INSEE_REPORT_JOBS_H
#define INSEE_REPORT_JOBS_H

#include <glib.h>

#include "report/results.h"

G_BEGIN_DECLS

/* Append the section (a heading and two figures) to `out` when the results
   have a scheduler; nothing otherwise. Bad input is left in `r`'s error. */
void insee_report_jobs(insee_results *r, GString *out);

G_END_DECLS
#endif
