/* kernel/sweep/summary.h — a sweep's figures per point: over the seeds of
 * each point, the mean, the sample standard deviation and the half-width of
 * the 95 % confidence interval (Student's t, stats/report.h's
 * insee_estimate_values) of every figure of a run's row: the kernel's
 * columns and each plugin figure.
 *
 * The summary file has one row per point of the grid in grid order:
 * vary, plugins, params (the first run's, less its seed), runs, then
 * FIGURE_mean, FIGURE_std, FIGURE_ci95 for each figure (empty where fewer
 * than two runs make it). It is rewritten whole each time.
 */
#ifndef INSEE_SWEEP_SUMMARY_H
#define INSEE_SWEEP_SUMMARY_H

#include <stdio.h>

#include "stats/report.h"
#include "sweep/grid.h"
#include "sweep/results.h"

G_BEGIN_DECLS

/* The estimate of `column` over `n` rows of r. */
insee_estimate insee_sweep_estimate(const insee_sweep_results *r, const guint *rows, guint n,
                                    const char *column);

/* The summary of every point; `row_of_run[point * seeds + seed index]`
   is a row of r or -1 for a run without one. The text of the file. */
char *insee_sweep_summary(const insee_sweep_results *r, const insee_sweep_grid *g, guint seeds,
                          const gint *row_of_run);

/* The table on a terminal: per point, its runs, accepted load and latency
   from generation, each mean ± CI. */
void insee_sweep_summary_print(const insee_sweep_results *r, const insee_sweep_grid *g,
                               guint seeds, const gint *row_of_run, FILE *out);

G_END_DECLS
#endif
