/* kernel/report/curves.c — grouping runs into load curves (curves.h). */
#include "report/curves.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/csv.h"
#include "report/gnuplot.h"
#include "report/results.h"
#include "stats/report.h"

/* One run's figures, read from a CSV row or a JSON file. */
typedef struct {
    double offered, accepted, latency;
    gboolean unconverged; /* the steady state was sought and not found */
    gboolean swept;       /* a row of an `insee sweep` results file */
} run;

/* All runs at one offered load of one configuration. */
typedef struct {
    double offered;
    GArray *values[2];    /* of double: [0] latency, [1] accepted load, per run */
    gboolean unconverged; /* one of the runs did not converge */
    gboolean swept;       /* error bars: the 95 % CI over the runs, not min to max */
} point;

typedef struct {
    char *plugins;
    char *config;
    GArray *points; /* of point */
} curve;

typedef struct {
    GPtrArray *curves; /* of curve, in order of first appearance */
    GHashTable *by_key; /* "plugins|config" -> curve */
    guint skipped;
    const insee_plot_options *options;
} collection;

static void curve_free(gpointer p)
{
    curve *c = p;
    g_free(c->plugins);
    g_free(c->config);
    for (guint i = 0; i < c->points->len; i++)
        for (int k = 0; k < 2; k++)
            g_array_free(g_array_index(c->points, point, i).values[k], TRUE);
    g_array_free(c->points, TRUE);
    g_free(c);
}

char *insee_plot_configuration(const char *params)
{
    char **items = g_strsplit(params, ";", -1);
    GString *out = g_string_new(NULL);
    for (char **p = items; *p; p++) {
        const char *eq = strchr(*p, '=');
        size_t klen = eq ? (size_t)(eq - *p) : strlen(*p);
        gboolean load = klen >= 5 && strncmp(*p + klen - 5, ".load", 5) == 0;
        gboolean seed = klen == 15 && strncmp(*p, "simulation.seed", 15) == 0;
        if (!**p || load || seed)
            continue;
        if (out->len)
            g_string_append_c(out, ';');
        g_string_append(out, *p);
    }
    g_strfreev(items);
    return g_string_free(out, FALSE);
}

static void add_run(collection *col, const char *plugins, const char *params, run r)
{
    char *config = insee_plot_configuration(params);
    char *key = g_strconcat(plugins, "|", config, NULL);
    curve *c = g_hash_table_lookup(col->by_key, key);
    if (!c) {
        c = g_new0(curve, 1);
        c->plugins = g_strdup(plugins);
        c->config = config;
        config = NULL;
        c->points = g_array_new(FALSE, FALSE, sizeof(point));
        g_ptr_array_add(col->curves, c);
        g_hash_table_insert(col->by_key, key, c);
        key = NULL;
    }
    g_free(key);
    g_free(config);
    double v[2] = {r.latency, r.accepted};
    point *pt = NULL;
    /* Loads are written with 6 decimals in CSV files: equal there, one point. */
    for (guint i = 0; i < c->points->len && !pt; i++)
        if (fabs(g_array_index(c->points, point, i).offered - r.offered) < 5e-7)
            pt = &g_array_index(c->points, point, i);
    if (!pt) {
        point fresh = {.offered = r.offered};
        for (int k = 0; k < 2; k++)
            fresh.values[k] = g_array_new(FALSE, FALSE, sizeof(double));
        g_array_append_val(c->points, fresh);
        pt = &g_array_index(c->points, point, c->points->len - 1);
    }
    pt->unconverged = pt->unconverged || r.unconverged;
    pt->swept = pt->swept || r.swept;
    for (int k = 0; k < 2; k++)
        g_array_append_val(pt->values[k], v[k]);
}

static gboolean read_json(collection *col, const char *path, const char *text, gsize len,
                          GError **err)
{
    insee_results *r = insee_results_parse(path, text, len, err);
    if (!r)
        return FALSE;
    run x = {0};
    gboolean open = insee_results_num_or_null(r, "summary.offered_load", &x.offered);
    x.accepted = insee_results_num(r, "summary.accepted_load");
    char *latency = g_strconcat("summary.latency.", col->options->latency, NULL);
    x.latency = insee_results_num(r, latency);
    g_free(latency);
    /* null: a run without batches, which seeks no steady state. */
    x.unconverged = !insee_results_is_null(r, "run.converged") &&
                    !insee_results_bool(r, "run.converged");
    const char *plugins = insee_results_str(r, "plugins");
    const char *params = insee_results_str(r, "params");
    gboolean ok = insee_results_ok(r, err);
    if (ok && open && x.offered >= 0)
        add_run(col, plugins, params, x);
    else if (ok) {
        g_printerr("insee: notice: %s: a run without an offered load (a causal workload); "
                   "left out\n", path);
        col->skipped++;
    }
    insee_results_free(r);
    return ok;
}

/* The columns read; the last, the latency statistic, is lat_gen_<statistic>
   and `converged` is optional (1, 0, or empty for a run without batches). */
enum { COL_PLUGINS, COL_PARAMS, COL_OFFERED, COL_ACCEPTED, COL_CONVERGED, COL_LATENCY, COLS };
static const char *const csv_columns[COLS] = {"plugins", "params", "offered_load",
                                              "accepted_load", "converged", NULL};

/* A number field: TRUE and *out set, or FALSE for an empty field; a field
   that is not a number is an error. */
static gboolean csv_number(const char *field, const char *path, guint line, const char *column,
                           double *out, GError **err)
{
    if (!*field)
        return FALSE;
    char *end;
    *out = g_ascii_strtod(field, &end);
    if (*end || end == field) {
        g_set_error(err, INSEE_REPORT_ERROR, INSEE_REPORT_ERROR_INPUT,
                    "%s:%u: column '%s' holds '%s', not a number", path, line, column, field);
        return FALSE;
    }
    return TRUE;
}

static gboolean read_csv(collection *col, const char *path, const char *text, GError **err)
{
    GArray *lines = NULL;
    GPtrArray *rows = insee_csv_read(text, path, &lines, err);
    if (!rows)
        return FALSE;
    gboolean ok = TRUE;
    char **head = rows->len ? g_ptr_array_index(rows, 0) : NULL;
    guint width = head ? g_strv_length(head) : 0;
    /* A sweep's results (kernel/sweep/results.h) begin with these. */
    gboolean swept = width > 2 && strcmp(head[0], "sweep") == 0 && strcmp(head[1], "vary") == 0;
    char *latency = g_strconcat("lat_gen_", col->options->latency, NULL);
    int at[COLS];
    for (guint k = 0; k < COLS && ok; k++) {
        const char *name = k == COL_LATENCY ? latency : csv_columns[k];
        at[k] = -1;
        for (guint c = 0; c < width; c++)
            if (strcmp(head[c], name) == 0)
                at[k] = (int)c;
        if (at[k] < 0 && k != COL_CONVERGED) {
            char *found = head ? g_strjoinv(",", head) : g_strdup("");
            g_set_error(err, INSEE_REPORT_ERROR, INSEE_REPORT_ERROR_INPUT,
                        "%s:1: the header has no column '%s' (it reads '%.200s'); insee plot "
                        "reads CSV files written by [stats] csv and run JSON files%s",
                        path, name, found,
                        k == COL_LATENCY ? " (a CSV file has lat_gen_mean, lat_gen_p99 and "
                                           "lat_gen_max; the other percentiles are in run "
                                           "JSON files)"
                                         : "");
            g_free(found);
            ok = FALSE;
        }
    }
    for (guint i = 1; ok && i < rows->len; i++) {
        char **f = g_ptr_array_index(rows, i);
        guint line = g_array_index(lines, guint, i);
        if (g_strv_length(f) != width) {
            g_set_error(err, INSEE_REPORT_ERROR, INSEE_REPORT_ERROR_INPUT,
                        "%s:%u: %u fields where the header has %u", path, line,
                        g_strv_length(f), width);
            ok = FALSE;
            break;
        }
        run x = {.swept = swept};
        GError *e = NULL;
        gboolean open = csv_number(f[at[COL_OFFERED]], path, line, "offered_load", &x.offered, &e);
        x.latency = NAN;
        if (!e && !csv_number(f[at[COL_ACCEPTED]], path, line, "accepted_load", &x.accepted, &e) &&
            !e)
            g_set_error(&e, INSEE_REPORT_ERROR, INSEE_REPORT_ERROR_INPUT,
                        "%s:%u: column 'accepted_load' is empty", path, line);
        if (!e)
            csv_number(f[at[COL_LATENCY]], path, line, latency, &x.latency, &e);
        x.unconverged = at[COL_CONVERGED] >= 0 && strcmp(f[at[COL_CONVERGED]], "0") == 0;
        if (e) {
            g_propagate_error(err, e);
            ok = FALSE;
        } else if (open && x.offered >= 0) {
            add_run(col, f[at[COL_PLUGINS]], f[at[COL_PARAMS]], x);
        } else {
            g_printerr("insee: notice: %s:%u: a run without an offered load (a causal "
                       "workload); left out\n", path, line);
            col->skipped++;
        }
    }
    g_free(latency);
    g_ptr_array_free(rows, TRUE);
    g_array_free(lines, TRUE);
    return ok;
}

static gboolean read_text(collection *col, const char *path, const char *text, gsize len,
                          GError **err)
{
    const char *first = text;
    while (g_ascii_isspace(*first))
        first++;
    /* A run JSON file is an object; a CSV file starts with its header. */
    gboolean ok = *first == '{' ? read_json(col, path, text, len, err)
                                : read_csv(col, path, text, err);
    return ok;
}

/* The "key=value" items of a configuration, as a key -> value table. */
static GHashTable *items(const char *config)
{
    GHashTable *t = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    char **parts = g_strsplit(config, ";", -1);
    for (char **p = parts; *p; p++) {
        if (!**p)
            continue;
        char *eq = strchr(*p, '=');
        g_hash_table_insert(t, g_strndup(*p, eq ? (gsize)(eq - *p) : strlen(*p)),
                            g_strdup(eq ? eq + 1 : ""));
    }
    g_strfreev(parts);
    return t;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

char **insee_plot_legends(const char *const *plugins, const char *const *configs, guint n,
                          char **common)
{
    GString *shared = g_string_new(NULL);
    GString **legend = g_new0(GString *, n);
    char ***parts = g_new0(char **, n);
    GHashTable **tables = g_new0(GHashTable *, n);
    GPtrArray *keys = g_ptr_array_new();
    GHashTable *seen = g_hash_table_new(g_str_hash, g_str_equal);
    gboolean same_shape = TRUE;
    for (guint i = 0; i < n; i++) {
        legend[i] = g_string_new(NULL);
        parts[i] = g_strsplit(plugins[i], "/", -1);
        same_shape = same_shape && g_strv_length(parts[i]) == g_strv_length(parts[0]);
        tables[i] = items(configs[i]);
        GHashTableIter it;
        gpointer k;
        g_hash_table_iter_init(&it, tables[i]);
        while (g_hash_table_iter_next(&it, &k, NULL))
            if (g_hash_table_add(seen, k))
                g_ptr_array_add(keys, k);
    }
    g_ptr_array_sort(keys, by_name);
    /* Plugins first, position by position (topology/router/...). */
    guint positions = same_shape && n ? g_strv_length(parts[0]) : 0;
    for (guint pos = 0; pos < positions; pos++) {
        gboolean differs = FALSE;
        for (guint i = 1; i < n; i++)
            differs = differs || strcmp(parts[i][pos], parts[0][pos]) != 0;
        for (guint i = 0; differs && i < n; i++)
            g_string_append_printf(legend[i], "%s%s", legend[i]->len ? ", " : "", parts[i][pos]);
        if (!differs)
            g_string_append_printf(shared, "%s%s", shared->len ? "/" : "", parts[0][pos]);
    }
    for (guint i = 0; !same_shape && i < n; i++)
        g_string_append(legend[i], plugins[i]);
    for (guint k = 0; k < keys->len; k++) {
        const char *key = g_ptr_array_index(keys, k);
        const char *first = g_hash_table_lookup(tables[0], key);
        gboolean differs = FALSE;
        for (guint i = 1; i < n; i++)
            differs = differs || g_strcmp0(g_hash_table_lookup(tables[i], key), first) != 0;
        for (guint i = 0; differs && i < n; i++) {
            const char *v = g_hash_table_lookup(tables[i], key);
            g_string_append_printf(legend[i], "%s%s%s%s", legend[i]->len ? ", " : "", key,
                                   v ? "=" : " default", v ? v : "");
        }
        if (!differs)
            g_string_append_printf(shared, "%s%s=%s", shared->len ? ", " : "", key, first);
    }
    char **out = g_new0(char *, n + 1);
    for (guint i = 0; i < n; i++) {
        /* A single configuration is told by its plugins. */
        out[i] = legend[i]->len ? g_string_free(legend[i], FALSE)
                                : (g_string_free(legend[i], TRUE), g_strdup(plugins[i]));
        g_strfreev(parts[i]);
    }
    /* The keys belong to the tables: free them last. */
    g_ptr_array_free(keys, TRUE);
    g_hash_table_destroy(seen);
    for (guint i = 0; i < n; i++)
        g_hash_table_destroy(tables[i]);
    g_free(tables);
    g_free(parts);
    g_free(legend);
    *common = g_string_free(shared, FALSE);
    return out;
}

static int by_offered(const void *a, const void *b)
{
    double x = ((const point *)a)->offered, y = ((const point *)b)->offered;
    return (x > y) - (x < y);
}

/* The mean of a point's figure and its error bar: the 95 % CI over the
   runs of a sweep (none for one run), else the smallest to the largest. A
   run without the figure (NaN) leaves the point without it. */
static void bar(GString *s, const point *p, int k)
{
    const double *v = (const double *)(const void *)p->values[k]->data;
    guint n = p->values[k]->len;
    double lo = INFINITY, hi = -INFINITY;
    for (guint i = 0; i < n; i++) {
        lo = MIN(lo, v[i]);
        hi = MAX(hi, v[i]);
        if (!isfinite(v[i])) {
            g_string_append(s, " NaN NaN NaN");
            return;
        }
    }
    insee_estimate e = insee_estimate_values(v, n);
    if (p->swept) {
        lo = e.n > 1 ? e.ci_lo : e.mean;
        hi = e.n > 1 ? e.ci_hi : e.mean;
    }
    g_string_append_printf(s, " %.9g %.9g %.9g", e.mean, lo, hi);
}

/* One curve's points: offered, then mean and error bar of the latency and
   of the accepted load, then 1 where a run did not converge. */
static void data_block(GString *s, guint i, curve *c)
{
    g_array_sort(c->points, by_offered);
    g_string_append_printf(s, "$c%u << EOD\n", i);
    for (guint j = 0; j < c->points->len; j++) {
        const point *p = &g_array_index(c->points, point, j);
        g_string_append_printf(s, "%.9g", p->offered);
        for (int k = 0; k < 2; k++)
            bar(s, p, k);
        g_string_append_printf(s, " %d\n", p->unconverged);
    }
    g_string_append(s, "EOD\n");
}

static gboolean any_unconverged(const collection *col)
{
    for (guint i = 0; i < col->curves->len; i++) {
        const curve *c = g_ptr_array_index(col->curves, i);
        for (guint j = 0; j < c->points->len; j++)
            if (g_array_index(c->points, point, j).unconverged)
                return TRUE;
    }
    return FALSE;
}

static void panel(GString *s, const collection *col, char **legends, int k, const char *ylabel,
                  const char *title)
{
    g_string_append_printf(s, "set title \"%s\"\nset ylabel \"%s\"\nplot ", title, ylabel);
    for (guint i = 0; i < col->curves->len; i++) {
        g_string_append_printf(s, "%s$c%u using 1:%d:%d:%d with yerrorlines lw 2 pt 7 ps 0.6 "
                                  "lc %u title ",
                               i ? ", " : "", i, 2 + 3 * k, 3 + 3 * k, 4 + 3 * k, i + 1);
        insee_gnuplot_text(s, legends[i]);
    }
    /* A ring around each point whose steady state was not found: its
       figures hold the transient too. */
    for (guint i = 0; any_unconverged(col) && i < col->curves->len; i++)
        g_string_append_printf(s, ", $c%u using 1:($8 > 0 ? $%d : NaN) with points pt 6 ps 1.8 lw 2 "
                                  "lc rgb \"red\" %s",
                               i, 2 + 3 * k, i ? "notitle" : "title \"not converged\"");
    if (k == 1) /* accepted = offered: what an unsaturated network does */
        g_string_append(s, ", x with lines dt 2 lc rgb \"gray60\" notitle");
    g_string_append_c(s, '\n');
}

static const char *const statistic_names[][2] = {
    {"mean", "average"}, {"p50", "median (p50)"}, {"p90", "p90"},
    {"p99", "p99"},      {"p999", "p99.9"},       {"max", "maximum"},
};

gboolean insee_plot_statistic_check(const char *statistic, GError **err)
{
    for (guint i = 0; i < G_N_ELEMENTS(statistic_names); i++)
        if (strcmp(statistic, statistic_names[i][0]) == 0)
            return TRUE;
    g_set_error(err, INSEE_REPORT_ERROR, INSEE_REPORT_ERROR_INPUT,
                "--latency %s: not a latency statistic; use mean, p50, p90, p99, p999 or max",
                statistic);
    return FALSE;
}

static const char *statistic_name(const char *statistic)
{
    for (guint i = 0; i < G_N_ELEMENTS(statistic_names); i++)
        if (strcmp(statistic, statistic_names[i][0]) == 0)
            return statistic_names[i][1];
    return statistic;
}

static char *script(collection *col)
{
    const insee_plot_options *o = col->options;
    guint n = col->curves->len;
    const char **plugins = g_new0(const char *, n);
    const char **configs = g_new0(const char *, n);
    for (guint i = 0; i < n; i++) {
        curve *c = g_ptr_array_index(col->curves, i);
        plugins[i] = c->plugins;
        configs[i] = c->config;
    }
    char *common = NULL;
    char **legends = insee_plot_legends(plugins, configs, n, &common);
    g_free(plugins);
    g_free(configs);
    GString *s = g_string_new(NULL);
    g_string_append_printf(s, "set terminal %s size 1200,540 enhanced font \"sans,11\" "
                              "background rgb \"white\"\nset encoding utf8\n"
                              "set datafile missing \"NaN\"\nset grid lc rgb \"#dddddd\"\n",
                           o->png ? o->png : "svg fixed");
    for (guint i = 0; i < n; i++)
        data_block(s, i, g_ptr_array_index(col->curves, i));
    /* The legends name what tells the curves apart; the caption what they share. */
    GString *caption = g_string_new(NULL);
    g_string_append_printf(caption, "all curves: %s", *common ? common : "(nothing in common)");
    g_string_append(s, "set multiplot layout 1,2 title ");
    insee_gnuplot_text(s, caption->str);
    g_string_free(caption, TRUE);
    g_free(common);
    g_string_append(s, "\nset xlabel \"offered load (phits/node/cycle)\"\nset key top left\n"
                       "set xrange [0:*]\n");
    char *title = g_strdup_printf("Latency (%s) against offered load", statistic_name(o->latency));
    char *ylabel = g_strdup_printf("%s latency from generation (cycles%s)",
                                   statistic_name(o->latency), o->log ? ", log scale" : "");
    g_string_append(s, o->log ? "set logscale y\nset yrange [*:*]\n" : "set yrange [0:*]\n");
    panel(s, col, legends, 0, ylabel, title);
    g_free(title);
    g_free(ylabel);
    g_string_append(s, "unset logscale y\nset yrange [0:*]\n");
    panel(s, col, legends, 1, "accepted load (phits/node/cycle)", "Accepted against offered load");
    g_string_append(s, "unset multiplot\n");
    g_strfreev(legends);
    return g_string_free(s, FALSE);
}

char *insee_plot_script(const char *const *names, const char *const *texts, const gsize *lens,
                        guint n, const insee_plot_options *o, GError **err)
{
    collection col = {g_ptr_array_new_with_free_func(curve_free),
                      g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL), 0, o};
    gboolean ok = TRUE;
    for (guint i = 0; i < n && ok; i++)
        ok = read_text(&col, names[i], texts[i], lens[i], err);
    if (ok && !col.curves->len) {
        g_set_error(err, INSEE_REPORT_ERROR, INSEE_REPORT_ERROR_INPUT,
                    "%s%s: no run with an offered load to plot%s", names[0],
                    n > 1 ? " and the other files" : "",
                    col.skipped ? " (only causal workloads)" : " (the files hold no runs)");
        ok = FALSE;
    }
    char *text = ok ? script(&col) : NULL;
    g_hash_table_destroy(col.by_key);
    g_ptr_array_free(col.curves, TRUE);
    return text;
}

GBytes *insee_plot_curves(const char *const *files, guint n, const insee_plot_options *o,
                          GError **err)
{
    char **texts = g_new0(char *, n + 1);
    gsize *lens = g_new0(gsize, n);
    gboolean ok = TRUE;
    for (guint i = 0; i < n && ok; i++)
        ok = insee_report_read(files[i], &texts[i], &lens[i], err);
    char *s = ok ? insee_plot_script(files, (const char *const *)texts, lens, n, o, err) : NULL;
    g_strfreev(texts);
    g_free(lens);
    GBytes *out = s ? insee_gnuplot_run(s, o->png != NULL, err) : NULL;
    g_free(s);
    return out;
}
