/* kernel/report/curves.h — `insee plot`: load curves from many runs.
 *
 * Runs come from CSV files written by [stats] csv and from run JSON files
 * (`insee run --json`), mixed. Runs are grouped into configurations: the
 * plugins and the parameters that differ from their defaults, less every
 * `*.load` and `simulation.seed` entry. Each configuration is one curve,
 * with a point per offered load: the mean over the runs (seeds) at that
 * load, and error bars from the smallest to the largest of them; for the
 * rows of an `insee sweep` results file, the 95 % confidence interval of
 * the mean over its seeds (Student's t) instead. The legend
 * names only what tells the configurations apart, a caption what they share.
 * Runs without an offered
 * load (causal workloads) are left out with a notice on stderr.
 */
#ifndef INSEE_REPORT_CURVES_H
#define INSEE_REPORT_CURVES_H

#include <glib.h>

G_BEGIN_DECLS

typedef struct insee_plot_options {
    const char *latency; /* the statistic drawn: mean, p50, p90, p99, p999 or max */
    gboolean log;        /* the latency axis in log scale */
    const char *png;     /* the PNG terminal, or NULL for SVG */
} insee_plot_options;

/* Whether `statistic` names one of the latency statistics (--latency). */
gboolean insee_plot_statistic_check(const char *statistic, GError **err);

/* The gnuplot script drawing `n` files already read (`texts`, named
   `names` in errors): two panels (latency from generation against offered
   load, accepted against offered load), a red ring on each point with a run
   whose steady state did not converge, a caption naming what all curves
   share. NULL with *err set (INSEE_REPORT_ERROR). */
char *insee_plot_script(const char *const *names, const char *const *texts, const gsize *lens,
                        guint n, const insee_plot_options *o, GError **err);

/* Reads the files and draws them: the SVG or PNG file's bytes. */
GBytes *insee_plot_curves(const char *const *files, guint n, const insee_plot_options *o,
                          GError **err);

/* The configuration of a run: `params` ("k=v;k=v") without its *.load and
   simulation.seed entries. */
char *insee_plot_configuration(const char *params);

/* For each of `n` configurations ("plugins|params" as from
   insee_plot_configuration), the words that tell it from the others: the
   plugins that differ, then every parameter whose value differs
   ("key=value", or "key default" where it is not set). A GStrv. *common
   gets what they all share: the plugins alike at each position ("a/b"),
   then every parameter set to one value in all ("key=value"). */
char **insee_plot_legends(const char *const *plugins, const char *const *configs, guint n,
                          char **common);

G_END_DECLS
#endif
