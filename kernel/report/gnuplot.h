/* kernel/report/gnuplot.h — drawing with gnuplot.
 *
 * insee does not draw: it writes a gnuplot script (data inline in
 * `$name << EOD` blocks) and reads back the SVG gnuplot prints. gnuplot is
 * looked up in PATH when a drawing is needed; without it the error says how
 * to install it (INSEE_REPORT_ERROR_TOOL). A script gnuplot rejects is
 * INSEE_REPORT_ERROR_RUNTIME with gnuplot's own message.
 */
#ifndef INSEE_REPORT_GNUPLOT_H
#define INSEE_REPORT_GNUPLOT_H

#include <glib.h>

G_BEGIN_DECLS

/* Whether gnuplot can be run, to refuse early rather than after the work. */
gboolean insee_gnuplot_check(GError **err);

/* Runs `script`, which sets the svg terminal, or the pngcairo terminal
   when `png`, and returns what gnuplot wrote, checked to be an SVG or a
   PNG. */
GBytes *insee_gnuplot_run(const char *script, gboolean png, GError **err);
/* The same for an SVG, as text. */
char *insee_gnuplot_svg(const char *script, GError **err);

/* Appends `s`, text from an input file, as a string gnuplot cannot
   evaluate and prints as it is, followed by the keyword noenhanced: for the
   end of a `title`, `set label` or multiplot title. Control characters show
   as escapes (\n, \t, \xHH); invalid UTF-8 becomes U+FFFD. */
void insee_gnuplot_text(GString *out, const char *s);

G_END_DECLS
#endif
