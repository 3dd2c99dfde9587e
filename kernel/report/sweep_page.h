/* kernel/report/sweep_page.h — `insee report` of a sweep: one HTML page of
 * the results file `insee sweep` writes (kernel/sweep/results.h).
 *
 * The page holds the load curves of `insee plot` (error bars: the 95 %
 * confidence interval over seeds) as an inline SVG, then a table of the
 * points in the file's order: the point's key, its plugins, its runs, and
 * the mean ± 95 % CI (Student's t over its seeds) of the offered, accepted
 * load and the latency from generation. Like the run page it needs nothing
 * from the network, and every string of the file is escaped.
 */
#ifndef INSEE_REPORT_SWEEP_PAGE_H
#define INSEE_REPORT_SWEEP_PAGE_H

#include <glib.h>

G_BEGIN_DECLS

/* Whether `text` is a sweep's results file (its header's first columns). */
gboolean insee_report_is_sweep(const char *text);

/* The page of the sweep results `text` (read from `path`, named in
   errors); NULL with *err set (INSEE_REPORT_ERROR) on bad input or when
   gnuplot fails. */
char *insee_report_sweep_page(const char *path, const char *text, gsize len, GError **err);

G_END_DECLS
#endif
