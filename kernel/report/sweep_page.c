/* kernel/report/sweep_page.c — the page of a sweep (sweep_page.h). */
#include "report/sweep_page.h"

#include <math.h>
#include <string.h>

#include "report/csv.h"
#include "report/curves.h"
#include "report/gnuplot.h"
#include "report/page.h"
#include "report/results.h"
#include "stats/report.h"

/* The figures of the table: column, heading. */
static const char *const figures[][2] = {
    {"offered_load", "offered load"},
    {"accepted_load", "accepted load"},
    {"lat_gen_mean", "latency from generation (mean)"},
    {"lat_gen_p99", "latency from generation (p99)"},
};

gboolean insee_report_is_sweep(const char *text)
{
    return g_str_has_prefix(text, "sweep,vary,");
}

static void esc(GString *out, const char *s)
{
    char *e = g_markup_escape_text(s, -1);
    g_string_append(out, e);
    g_free(e);
}

static int column(char *const *head, const char *name)
{
    for (int c = 0; head[c]; c++)
        if (strcmp(head[c], name) == 0)
            return c;
    return -1;
}

/* A point: its key, first row (for its plugins) and rows. */
typedef struct {
    const char *vary;
    char **first;
    GArray *rows; /* of guint */
} point;

static void point_free(gpointer p)
{
    g_array_free(((point *)p)->rows, TRUE);
    g_free(p);
}

static GPtrArray *points(GPtrArray *rows)
{
    GPtrArray *list = g_ptr_array_new_with_free_func(point_free);
    GHashTable *by_key = g_hash_table_new(g_str_hash, g_str_equal);
    for (guint i = 1; i < rows->len; i++) {
        char **f = g_ptr_array_index(rows, i);
        point *p = g_hash_table_lookup(by_key, f[1]);
        if (!p) {
            p = g_new0(point, 1);
            p->vary = f[1];
            p->first = f;
            p->rows = g_array_new(FALSE, FALSE, sizeof(guint));
            g_ptr_array_add(list, p);
            g_hash_table_insert(by_key, (gpointer)p->vary, p);
        }
        g_array_append_val(p->rows, i);
    }
    g_hash_table_destroy(by_key);
    return list;
}

static void estimate_cell(GString *out, GPtrArray *rows, const point *p, int col)
{
    double *v = g_new(double, p->rows->len);
    for (guint i = 0; i < p->rows->len; i++) {
        char **f = g_ptr_array_index(rows, g_array_index(p->rows, guint, i));
        char *end;
        v[i] = g_ascii_strtod(f[col], &end);
        if (!*f[col] || *end)
            v[i] = NAN;
    }
    insee_estimate e = insee_estimate_values(v, p->rows->len);
    g_free(v);
    if (!e.n)
        g_string_append(out, "<td class=\"n\">—</td>");
    else if (e.n == 1)
        g_string_append_printf(out, "<td class=\"n\">%.4f</td>", e.mean);
    else
        g_string_append_printf(out, "<td class=\"n\">%.4f ± %.4f</td>", e.mean,
                               (e.ci_hi - e.ci_lo) / 2);
}

static void table(GString *out, GPtrArray *rows, GPtrArray *pts, const int *cols, int plugins)
{
    g_string_append(out, "<h2>Points</h2>\n<p>Mean ± the half-width of the 95 % confidence "
                         "interval over the point's seeds (Student's t).</p>\n<div class=\"wide\">"
                         "<table>\n<tr><th>point</th><th>plugins</th><th>runs</th>");
    for (guint k = 0; k < G_N_ELEMENTS(figures); k++)
        g_string_append_printf(out, "<th>%s</th>", figures[k][1]);
    g_string_append(out, "</tr>\n");
    for (guint i = 0; i < pts->len; i++) {
        const point *p = g_ptr_array_index(pts, i);
        g_string_append(out, "<tr><td>");
        esc(out, *p->vary ? p->vary : "(the configuration)");
        g_string_append(out, "</td><td>");
        esc(out, p->first[plugins]);
        g_string_append_printf(out, "</td><td class=\"n\">%u</td>", p->rows->len);
        for (guint k = 0; k < G_N_ELEMENTS(figures); k++)
            estimate_cell(out, rows, p, cols[k]);
        g_string_append(out, "</tr>\n");
    }
    g_string_append(out, "</table></div>\n");
}

/* The curves of `insee plot`, inline; NULL with *err. */
static char *curves(const char *path, const char *text, gsize len, GError **err)
{
    insee_plot_options o = {.latency = "mean"};
    char *script = insee_plot_script(&path, &text, &len, 1, &o, err);
    char *svg = script ? insee_gnuplot_svg(script, err) : NULL;
    g_free(script);
    return svg;
}

/* The columns the page reads, or FALSE with *err naming the first missing. */
static gboolean columns(const char *path, char *const *head, int *cols, int *plugins,
                        GError **err)
{
    *plugins = column(head, "plugins");
    for (guint k = 0; k < G_N_ELEMENTS(figures); k++)
        if ((cols[k] = column(head, figures[k][0])) < 0 || *plugins < 0) {
            g_set_error(err, INSEE_REPORT_ERROR, INSEE_REPORT_ERROR_INPUT,
                        "%s:1: a sweep's results without the column '%s'", path,
                        *plugins < 0 ? "plugins" : figures[k][0]);
            return FALSE;
        }
    return TRUE;
}

static gboolean same_width(const char *path, GPtrArray *rows, GArray *lines, GError **err)
{
    guint width = g_strv_length(g_ptr_array_index(rows, 0));
    for (guint i = 1; i < rows->len; i++)
        if (g_strv_length(g_ptr_array_index(rows, i)) != width) {
            g_set_error(err, INSEE_REPORT_ERROR, INSEE_REPORT_ERROR_INPUT,
                        "%s:%u: %u fields where the header has %u", path,
                        g_array_index(lines, guint, i),
                        g_strv_length(g_ptr_array_index(rows, i)), width);
            return FALSE;
        }
    return TRUE;
}

char *insee_report_sweep_page(const char *path, const char *text, gsize len, GError **err)
{
    GArray *lines = NULL;
    GPtrArray *rows = insee_csv_read(text, path, &lines, err);
    if (!rows)
        return NULL;
    int cols[G_N_ELEMENTS(figures)], plugins;
    char *svg = NULL;
    if (columns(path, g_ptr_array_index(rows, 0), cols, &plugins, err) &&
        same_width(path, rows, lines, err))
        svg = curves(path, text, len, err);
    GString *out = NULL;
    if (svg) {
        GPtrArray *pts = points(rows);
        out = g_string_new("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                           "<title>insee sweep: ");
        char *base = g_path_get_basename(path);
        esc(out, base);
        g_string_append_printf(out, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>insee sweep: ",
                               insee_report_style);
        esc(out, base);
        g_free(base);
        g_string_append_printf(out, "</h1>\n<p class=\"ids\">%u runs · %u points</p>\n"
                                    "<h2>Load curves</h2>\n<figure>",
                               rows->len - 1, pts->len);
        g_string_append(out, svg);
        g_string_append(out, "<figcaption><b>Latency and accepted load against offered load</b>"
                             "one curve per configuration; error bars: 95 % confidence interval "
                             "over seeds</figcaption></figure>\n");
        table(out, rows, pts, cols, plugins);
        g_string_append(out, "</body>\n</html>\n");
        g_ptr_array_free(pts, TRUE);
    }
    g_free(svg);
    g_ptr_array_free(rows, TRUE);
    g_array_free(lines, TRUE);
    return out ? g_string_free(out, FALSE) : NULL;
}
