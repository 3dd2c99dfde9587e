/* kernel/sweep/summary.c — a sweep's figures per point (summary.h). */
#include "sweep/summary.h"

#include <math.h>
#include <string.h>

/* The kernel's figures of a run's [stats] csv row, in its order. */
static const char *const figures[] = {
    "offered_load", "generated_load", "accepted_load", "generated",    "injected",
    "delivered",    "dropped",        "avg_hops",      "lat_gen_mean", "lat_gen_std",
    "lat_gen_max",  "lat_gen_p99",    "lat_inj_mean",  "lat_inj_std",  "lat_inj_max",
    "cycles",
};

insee_estimate insee_sweep_estimate(const insee_sweep_results *r, const guint *rows, guint n,
                                    const char *column)
{
    double *v = g_new(double, n ? n : 1);
    for (guint i = 0; i < n; i++)
        v[i] = insee_sweep_results_number(r, rows[i], column);
    insee_estimate e = insee_estimate_values(v, n);
    g_free(v);
    return e;
}

/* The rows of a point's runs, in seed order. */
static guint point_rows(guint point, guint seeds, const gint *row_of_run, guint *rows)
{
    guint n = 0;
    for (guint s = 0; s < seeds; s++)
        if (row_of_run[point * seeds + s] >= 0)
            rows[n++] = (guint)row_of_run[point * seeds + s];
    return n;
}

/* A plugin figure of a row ("section.name=value;..."), NAN when absent. */
static double plugin_figure(const insee_sweep_results *r, guint row, const char *name)
{
    char **items = g_strsplit(insee_sweep_results_field(r, row, "plugin_figures"), ";", -1);
    double v = NAN;
    size_t len = strlen(name);
    for (char **i = items; *i; i++)
        if (strncmp(*i, name, len) == 0 && (*i)[len] == '=')
            v = g_ascii_strtod(*i + len + 1, NULL);
    g_strfreev(items);
    return v;
}

/* Every plugin figure's name, in order of first appearance. */
static GPtrArray *plugin_figure_names(const insee_sweep_results *r)
{
    GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
    for (guint row = 0; row < insee_sweep_results_rows(r); row++) {
        char **items = g_strsplit(insee_sweep_results_field(r, row, "plugin_figures"), ";", -1);
        for (char **i = items; *i; i++) {
            char *eq = strchr(*i, '=');
            if (!eq)
                continue;
            *eq = 0;
            if (!g_ptr_array_find_with_equal_func(names, *i, g_str_equal, NULL))
                g_ptr_array_add(names, g_strdup(*i));
        }
        g_strfreev(items);
    }
    return names;
}

static void number(GString *s, double v)
{
    if (isnan(v))
        g_string_append_c(s, ',');
    else
        g_string_append_printf(s, ",%.6f", v);
}

static void estimate_fields(GString *s, insee_estimate e)
{
    number(s, e.n ? e.mean : NAN);
    number(s, e.n > 1 ? e.std : NAN);
    number(s, e.n > 1 ? (e.ci_hi - e.ci_lo) / 2 : NAN);
}

/* A run's params less its seed: what the point's runs share. */
static char *params_without_seed(const char *params)
{
    char **items = g_strsplit(params, ";", -1);
    GString *out = g_string_new(NULL);
    for (char **i = items; *i; i++) {
        if (g_str_has_prefix(*i, "simulation.seed="))
            continue;
        if (out->len)
            g_string_append_c(out, ';');
        g_string_append(out, *i);
    }
    g_strfreev(items);
    return g_string_free(out, FALSE);
}

static void header(GString *s, const GPtrArray *extra)
{
    g_string_append(s, "vary,plugins,params,runs");
    for (guint f = 0; f < G_N_ELEMENTS(figures) + extra->len; f++) {
        const char *name = f < G_N_ELEMENTS(figures)
                               ? figures[f]
                               : g_ptr_array_index(extra, f - G_N_ELEMENTS(figures));
        g_string_append_printf(s, ",%s_mean,%s_std,%s_ci95", name, name, name);
    }
    g_string_append_c(s, '\n');
}

char *insee_sweep_summary(const insee_sweep_results *r, const insee_sweep_grid *g, guint seeds,
                          const gint *row_of_run)
{
    GPtrArray *extra = plugin_figure_names(r);
    GString *s = g_string_new(NULL);
    header(s, extra);
    guint *rows = g_new(guint, seeds);
    double *v = g_new(double, seeds);
    for (guint p = 0; p < insee_sweep_grid_points(g); p++) {
        guint n = point_rows(p, seeds, row_of_run, rows);
        insee_csv_field(s, insee_sweep_grid_key(g, p));
        g_string_append_c(s, ',');
        insee_csv_field(s, n ? insee_sweep_results_field(r, rows[0], "plugins") : "");
        g_string_append_c(s, ',');
        char *params = params_without_seed(n ? insee_sweep_results_field(r, rows[0], "params") : "");
        insee_csv_field(s, params);
        g_free(params);
        g_string_append_printf(s, ",%u", n);
        for (guint f = 0; f < G_N_ELEMENTS(figures); f++)
            estimate_fields(s, insee_sweep_estimate(r, rows, n, figures[f]));
        for (guint f = 0; f < extra->len; f++) {
            for (guint i = 0; i < n; i++)
                v[i] = plugin_figure(r, rows[i], g_ptr_array_index(extra, f));
            estimate_fields(s, insee_estimate_values(v, n));
        }
        g_string_append_c(s, '\n');
    }
    g_free(v);
    g_free(rows);
    g_ptr_array_free(extra, TRUE);
    return g_string_free(s, FALSE);
}

static void print_estimate(FILE *out, insee_estimate e)
{
    if (!e.n)
        fprintf(out, " %24s", "-");
    else if (e.n == 1)
        fprintf(out, " %24.4f", e.mean);
    else
        fprintf(out, " %13.4f ± %-8.4f", e.mean, (e.ci_hi - e.ci_lo) / 2);
}

void insee_sweep_summary_print(const insee_sweep_results *r, const insee_sweep_grid *g,
                               guint seeds, const gint *row_of_run, FILE *out)
{
    int width = 20;
    for (guint p = 0; p < insee_sweep_grid_points(g); p++)
        width = MAX(width, (int)strlen(insee_sweep_grid_key(g, p)));
    guint *rows = g_new(guint, seeds);
    fprintf(out, "# sweep summary: mean ± 95 %% CI over seeds\n%-*s %4s %24s %24s\n", width,
            "point", "runs", "accepted load", "latency (generation)");
    for (guint p = 0; p < insee_sweep_grid_points(g); p++) {
        guint n = point_rows(p, seeds, row_of_run, rows);
        const char *key = insee_sweep_grid_key(g, p);
        fprintf(out, "%-*s %4u", width, *key ? key : "(the configuration)", n);
        print_estimate(out, insee_sweep_estimate(r, rows, n, "accepted_load"));
        print_estimate(out, insee_sweep_estimate(r, rows, n, "lat_gen_mean"));
        fputc('\n', out);
    }
    g_free(rows);
}
