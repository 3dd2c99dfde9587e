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

static const char png_signature[] = "\x89PNG\r\n\x1a\n";

/* Whether gnuplot wrote what was asked: its stdout is the file. */
static gboolean drawn(GBytes *out, gboolean png)
{
    gsize len;
    const char *data = out ? g_bytes_get_data(out, &len) : NULL;
    if (!data)
        return FALSE;
    if (png)
        return len > 8 && memcmp(data, png_signature, 8) == 0;
    return g_strstr_len(data, (gssize)len, "<svg") != NULL && !memchr(data, '\0', len);
}

GBytes *insee_gnuplot_run(const char *script, gboolean png, GError **err)
{
    if (!insee_gnuplot_check(err))
        return NULL;
    GError *e = NULL;
    /* The script goes to stdin and the figure comes back on stdout:
       communicate() feeds one while draining the other, so neither pipe
       fills up and stalls the other side. */
    GSubprocess *p = g_subprocess_new(G_SUBPROCESS_FLAGS_STDIN_PIPE |
                                          G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                          G_SUBPROCESS_FLAGS_STDERR_PIPE,
                                      &e, "gnuplot", NULL);
    GBytes *in = g_bytes_new_static(script, strlen(script));
    GBytes *out = NULL, *errs = NULL;
    gboolean ok = p && g_subprocess_communicate(p, in, NULL, &out, &errs, &e) &&
                  g_subprocess_get_if_exited(p) && g_subprocess_get_exit_status(p) == 0 &&
                  drawn(out, png);
    g_bytes_unref(in);
    if (!ok) {
        gsize len = 0;
        const char *msg = errs ? g_bytes_get_data(errs, &len) : NULL;
        char *why = e ? g_strdup(e->message)
                      : len ? g_strstrip(g_strndup(msg, len)) : g_strdup(png ? "no PNG" : "no SVG");
        g_set_error(err, INSEE_REPORT_ERROR, INSEE_REPORT_ERROR_RUNTIME,
                    e ? "could not run gnuplot: %s%s"
                      : "gnuplot failed to draw a figure: %s%s",
                    why, png ? " (a PNG needs gnuplot's pngcairo terminal, which Debian's "
                               "gnuplot-nox has; or write SVG: -o FILE.svg)"
                             : "");
        g_free(why);
        g_clear_error(&e);
        g_clear_pointer(&out, g_bytes_unref);
    }
    if (errs)
        g_bytes_unref(errs);
    if (p)
        g_object_unref(p);
    return out;
}

char *insee_gnuplot_svg(const char *script, GError **err)
{
    GBytes *out = insee_gnuplot_run(script, FALSE, err);
    if (!out)
        return NULL;
    gsize len;
    const char *data = g_bytes_get_data(out, &len);
    char *svg = g_strndup(data, len);
    g_bytes_unref(out);
    return svg;
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
