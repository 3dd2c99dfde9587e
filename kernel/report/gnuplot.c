/* kernel/report/gnuplot.c — running gnuplot on a script (gnuplot.h). */
#include "report/gnuplot.h"

#include <gio/gio.h>
#include <string.h>

#include "report/results.h"

gboolean insee_gnuplot_check(GError **err)
{
    char *found = g_find_program_in_path("gnuplot");
    if (!found) {
        g_set_error(err, INSEE_REPORT_ERROR, INSEE_REPORT_ERROR_TOOL,
                    "gnuplot draws the figures and was not found in PATH; install gnuplot "
                    "(Debian: gnuplot-nox)");
        return FALSE;
    }
    g_free(found);
    return TRUE;
}

char *insee_gnuplot_svg(const char *script, GError **err)
{
    if (!insee_gnuplot_check(err))
        return NULL;
    GError *e = NULL;
    /* The script goes to stdin and the SVG comes back on stdout:
       communicate() feeds one while draining the other, so neither pipe
       fills up and stalls the other side. */
    GSubprocess *p = g_subprocess_new(G_SUBPROCESS_FLAGS_STDIN_PIPE |
                                          G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                          G_SUBPROCESS_FLAGS_STDERR_PIPE,
                                      &e, "gnuplot", NULL);
    char *out = NULL, *errs = NULL;
    if (p && g_subprocess_communicate_utf8(p, script, NULL, &out, &errs, &e) &&
        g_subprocess_get_if_exited(p) && g_subprocess_get_exit_status(p) == 0 && out &&
        strstr(out, "<svg")) {
        g_free(errs);
        g_object_unref(p);
        return out;
    }
    if (e) {
        g_set_error(err, INSEE_REPORT_ERROR, INSEE_REPORT_ERROR_RUNTIME,
                    "could not run gnuplot: %s", e->message);
        g_error_free(e);
    } else {
        g_set_error(err, INSEE_REPORT_ERROR, INSEE_REPORT_ERROR_RUNTIME,
                    "gnuplot failed to draw a figure: %s", errs && *errs ? g_strstrip(errs) : "no SVG");
    }
    g_free(out);
    g_free(errs);
    if (p)
        g_object_unref(p);
    return NULL;
}

void insee_gnuplot_text(GString *out, const char *s)
{
    /* gnuplot substitutes backquoted commands, macros and escapes inside
       double quotes only; inside single quotes nothing but '' (one quote)
       is special. A line break or another control character would end or
       corrupt the command line, so it is shown as an escape instead. */
    char *valid = g_utf8_make_valid(s, -1);
    g_string_append_c(out, '\'');
    for (const char *p = valid; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '\'')
            g_string_append(out, "''");
        else if (c == '\n')
            g_string_append(out, "\\n");
        else if (c == '\t')
            g_string_append(out, "\\t");
        else if (c < 0x20 || c == 0x7f)
            g_string_append_printf(out, "\\x%02x", c);
        else
            g_string_append_c(out, (char)c);
    }
    /* Enhanced-text markup (^ _ @ & { } ~) prints as it is. */
    g_string_append(out, "' noenhanced");
    g_free(valid);
}
