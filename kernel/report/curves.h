/* kernel/report/curves.h — `insee plot`: load curves from many runs.
 *
 * Runs come from CSV files written by [stats] csv and from run JSON files
 * (`insee run --json`), mixed. Runs are grouped into configurations: the
 * plugins and the parameters that differ from their defaults, less every
 * `*.load` and `simulation.seed` entry. Each configuration is one curve,
 * with a point per offered load: the mean over the runs (seeds) at that
 * load, and error bars from the smallest to the largest of them. The legend
 * names only what tells the configurations apart. Runs without an offered
 * load (causal workloads) are left out with a notice on stderr.
 */
#ifndef INSEE_REPORT_CURVES_H
#define INSEE_REPORT_CURVES_H

#include <glib.h>

G_BEGIN_DECLS

/* The SVG (two panels: mean latency from generation against offered load,
   accepted against offered load); NULL with *err set (INSEE_REPORT_ERROR). */
char *insee_plot_curves(const char *const *files, guint n, GError **err);

/* The configuration of a run: `params` ("k=v;k=v") without its *.load and
   simulation.seed entries. */
char *insee_plot_configuration(const char *params);

/* For each of `n` configurations ("plugins|params" as from
   insee_plot_configuration), the words that tell it from the others: the
   plugins that differ, then every parameter whose value differs
   ("key=value", or "key default" where it is not set). A GStrv. */
char **insee_plot_legends(const char *const *plugins, const char *const *configs, guint n);

G_END_DECLS
#endif
