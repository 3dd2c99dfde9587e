/* kernel/report/commands.h — the `insee report` and `insee plot` commands.
 *
 * Each takes its positional arguments and the -o file, writes the output
 * whole or not at all (stats/output.h), prints any error as
 * "insee: error: ..." and returns insee's exit status: 0 done, 1 gnuplot
 * failed or the output could not be written, 2 bad arguments or input
 * (naming the file and key or column), or gnuplot missing.
 */
#ifndef INSEE_REPORT_COMMANDS_H
#define INSEE_REPORT_COMMANDS_H

#include <glib.h>

G_BEGIN_DECLS

int insee_report_command(int argc, char **argv, const char *output);
int insee_plot_command(int argc, char **argv, const char *output);

/* The options of `insee plot` (--latency STAT, --log), for the command
   line's main group; and whether any was given (they apply to plot only). */
extern const GOptionEntry insee_plot_entries[];
gboolean insee_plot_options_given(void);

G_END_DECLS
#endif
