/* kernel/report/figures.h — the figures of `insee report`, drawn by gnuplot
 * from a run's JSON results.
 *
 * Each figure has a title (the page's figcaption) and either an SVG or, when
 * the run did not record its data (null in the JSON), a sentence saying so.
 * The list and its order are fixed (docs/report.md), so every page has the
 * same captions whatever the run.
 */
#ifndef INSEE_REPORT_FIGURES_H
#define INSEE_REPORT_FIGURES_H

#include <glib.h>

#include "report/results.h"

G_BEGIN_DECLS

typedef struct insee_figure {
    char *title;
    char *note;   /* how to read it; NULL when the title says enough */
    char *svg;    /* gnuplot's SVG, prologue removed; NULL when absent */
    char *absent; /* why the figure is left out, when svg is NULL */
} insee_figure;

/* Every figure, in page order (a GPtrArray of insee_figure that frees them);
   NULL with *err set on bad input or when gnuplot fails. */
GPtrArray *insee_report_figures(insee_results *r, GError **err);

G_END_DECLS
#endif
