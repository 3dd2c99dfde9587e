/* kernel/report/curves.c — grouping runs into load curves (curves.h). */
#include "report/curves.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/csv.h"
#include "report/gnuplot.h"
#include "report/results.h"

/* One run's figures, read from a CSV row or a JSON file. */
typedef struct {
    double offered, accepted, latency;
} run;

/* All runs at one offered load of one configuration. */
typedef struct {
    double offered;
    guint n;
    double sum[2], min[2], max[2]; /* [0] latency, [1] accepted load */
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
} collection;

static void curve_free(gpointer p)
{
    curve *c = p;
    g_free(c->plugins);
    g_free(c->config);
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
        point fresh = {.offered = r.offered, .min = {INFINITY, INFINITY}, .max = {-INFINITY, -INFINITY}};
        g_array_append_val(c->points, fresh);
        pt = &g_array_index(c->points, point, c->points->len - 1);
    }
    pt->n++;
    for (int k = 0; k < 2; k++) {
        pt->sum[k] += v[k];
        pt->min[k] = MIN(pt->min[k], v[k]);
        pt->max[k] = MAX(pt->max[k], v[k]);
    }
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
    x.latency = insee_results_num(r, "summary.latency.mean");
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

static const char *const csv_needed[] = {"plugins", "params", "offered_load", "accepted_load",
                                         "lat_gen_mean"};

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
    int at[G_N_ELEMENTS(csv_needed)];
    for (guint k = 0; k < G_N_ELEMENTS(csv_needed) && ok; k++) {
        at[k] = -1;
        for (guint c = 0; c < width; c++)
            if (strcmp(head[c], csv_needed[k]) == 0)
                at[k] = (int)c;
        if (at[k] < 0) {
            char *found = head ? g_strjoinv(",", head) : g_strdup("");
            g_set_error(err, INSEE_REPORT_ERROR, INSEE_REPORT_ERROR_INPUT,
                        "%s:1: the header has no column '%s' (it reads '%.200s'); insee plot "
                        "reads CSV files written by [stats] csv and run JSON files",
                        path, csv_needed[k], found);
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
        run x = {0};
        GError *e = NULL;
        gboolean open = csv_number(f[at[2]], path, line, "offered_load", &x.offered, &e);
        x.latency = NAN;
        if (!e && !csv_number(f[at[3]], path, line, "accepted_load", &x.accepted, &e) && !e)
            g_set_error(&e, INSEE_REPORT_ERROR, INSEE_REPORT_ERROR_INPUT,
                        "%s:%u: column 'accepted_load' is empty", path, line);
        if (!e)
            csv_number(f[at[4]], path, line, "lat_gen_mean", &x.latency, &e);
        if (e) {
            g_propagate_error(err, e);
            ok = FALSE;
        } else if (open && x.offered >= 0) {
            add_run(col, f[at[0]], f[at[1]], x);
        } else {
            g_printerr("insee: notice: %s:%u: a run without an offered load (a causal "
                       "workload); left out\n", path, line);
            col->skipped++;
        }
    }
    g_ptr_array_free(rows, TRUE);
    g_array_free(lines, TRUE);
    return ok;
}

static gboolean read_file(collection *col, const char *path, GError **err)
{
    char *text;
    gsize len;
    if (!insee_report_read(path, &text, &len, err))
        return FALSE;
    const char *first = text;
    while (g_ascii_isspace(*first))
        first++;
    /* A run JSON file is an object; a CSV file starts with its header. */
    gboolean ok = *first == '{' ? read_json(col, path, text, len, err)
                                : read_csv(col, path, text, err);
    g_free(text);
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

char **insee_plot_legends(const char *const *plugins, const char *const *configs, guint n)
{
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
    return out;
}

static int by_offered(const void *a, const void *b)
{
    double x = ((const point *)a)->offered, y = ((const point *)b)->offered;
    return (x > y) - (x < y);
}

static void panel(GString *s, const collection *col, char **legends, int k, const char *ylabel,
                  const char *title, const char *key)
{
    g_string_append_printf(s, "set title \"%s\"\nset ylabel \"%s\"\nset key %s\nplot ", title,
                           ylabel, key);
    for (guint i = 0; i < col->curves->len; i++) {
        g_string_append_printf(s, "%s$c%u using 1:%d:%d:%d with yerrorlines lw 2 pt 7 ps 0.6 "
                                  "lc %u title ",
                               i ? ", " : "", i, 2 + 3 * k, 3 + 3 * k, 4 + 3 * k, i + 1);
        insee_gnuplot_text(s, legends[i]);
    }
    if (k == 1) /* accepted = offered: what an unsaturated network does */
        g_string_append(s, ", x with lines dt 2 lc rgb \"gray60\" notitle");
    g_string_append_c(s, '\n');
}

static char *draw(collection *col, GError **err)
{
    guint n = col->curves->len;
    const char **plugins = g_new0(const char *, n);
    const char **configs = g_new0(const char *, n);
    for (guint i = 0; i < n; i++) {
        curve *c = g_ptr_array_index(col->curves, i);
        plugins[i] = c->plugins;
        configs[i] = c->config;
    }
    char **legends = insee_plot_legends(plugins, configs, n);
    g_free(plugins);
    g_free(configs);
    GString *s = g_string_new("set terminal svg size 1200,500 fixed enhanced font \"sans,11\" "
                              "background rgb \"white\"\nset encoding utf8\n"
                              "set datafile missing \"NaN\"\nset grid lc rgb \"#dddddd\"\n");
    for (guint i = 0; i < n; i++) {
        curve *c = g_ptr_array_index(col->curves, i);
        g_array_sort(c->points, by_offered);
        g_string_append_printf(s, "$c%u << EOD\n", i);
        for (guint j = 0; j < c->points->len; j++) {
            const point *p = &g_array_index(c->points, point, j);
            g_string_append_printf(s, "%.9g", p->offered);
            for (int k = 0; k < 2; k++) {
                if (isfinite(p->sum[k]))
                    g_string_append_printf(s, " %.9g %.9g %.9g", p->sum[k] / p->n, p->min[k],
                                           p->max[k]);
                else
                    g_string_append(s, " NaN NaN NaN");
            }
            g_string_append_c(s, '\n');
        }
        g_string_append(s, "EOD\n");
    }
    g_string_append(s, "set multiplot layout 1,2\nset xlabel \"offered load (phits/node/cycle)\"\n"
                       "set xrange [0:*]\nset yrange [0:*]\n");
    panel(s, col, legends, 0, "average latency from generation (cycles)",
          "Latency against offered load", "top left");
    panel(s, col, legends, 1, "accepted load (phits/node/cycle)",
          "Accepted against offered load", "top left");
    g_string_append(s, "unset multiplot\n");
    g_strfreev(legends);
    char *svg = insee_gnuplot_svg(s->str, err);
    g_string_free(s, TRUE);
    return svg;
}

char *insee_plot_curves(const char *const *files, guint n, GError **err)
{
    collection col = {g_ptr_array_new_with_free_func(curve_free),
                      g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL), 0};
    gboolean ok = TRUE;
    for (guint i = 0; i < n && ok; i++)
        ok = read_file(&col, files[i], err);
    if (ok && !col.curves->len) {
        g_set_error(err, INSEE_REPORT_ERROR, INSEE_REPORT_ERROR_INPUT,
                    "%s%s: no run with an offered load to plot%s", files[0],
                    n > 1 ? " and the other files" : "",
                    col.skipped ? " (only causal workloads)" : " (the files hold no runs)");
        ok = FALSE;
    }
    char *svg = ok ? draw(&col, err) : NULL;
    g_hash_table_destroy(col.by_key);
    g_ptr_array_free(col.curves, TRUE);
    return svg;
}
