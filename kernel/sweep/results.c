/* kernel/sweep/results.c — a sweep's results file (results.h). */
#include "sweep/results.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/csv.h"
#include "stats/output.h"
#include "stats/report.h"

/* The columns the sweep puts before the run's own. */
enum { COL_SWEEP, COL_VARY, COL_RUN };

struct insee_sweep_results {
    char *path;
    char *fingerprint;
    char *header;           /* "sweep,vary," + the run's header */
    GHashTable *columns;    /* run column name -> index + 1 in a record */
    GPtrArray *records;     /* of GStrv, the header left out */
    guint saved;            /* records[0 .. saved - 1] are in the file */
};

static void index_columns(insee_sweep_results *r)
{
    r->columns = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    char *line = g_strchomp(g_strdup(r->header));
    char **names = g_strsplit(line, ",", -1);
    for (guint i = 0; names[i]; i++)
        g_hash_table_insert(r->columns, g_strdup(names[i]), GUINT_TO_POINTER(i + 1));
    g_strfreev(names);
    g_free(line);
}

static gboolean refuse(GError **err, const char *path, guint line, const char *why)
{
    g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_INVAL, "-o %s:%u: %s", path, line, why);
    return FALSE;
}

/* The existing rows, each checked to be of this sweep. */
static gboolean read_rows(insee_sweep_results *r, GError **err)
{
    char *text = NULL;
    gsize len = 0;
    if (!g_file_test(r->path, G_FILE_TEST_EXISTS))
        return TRUE;
    if (!g_file_get_contents(r->path, &text, &len, err))
        return FALSE;
    gboolean ok = TRUE;
    if (len && (!g_str_has_prefix(text, r->header) || strlen(text) != len)) {
        ok = refuse(err, r->path, 1,
                    "not the results of an insee sweep of this version (its first line is not "
                    "the header a sweep writes); name another -o file");
    }
    GArray *lines = NULL;
    GPtrArray *records = ok && len ? insee_csv_read(text + strlen(r->header), r->path, &lines, err)
                                   : NULL;
    ok = ok && (!len || records);
    for (guint i = 0; ok && records && i < records->len; i++) {
        char **f = g_ptr_array_index(records, i);
        guint line = g_array_index(lines, guint, i) + 1;
        if (g_strv_length(f) != g_hash_table_size(r->columns))
            ok = refuse(err, r->path, line, "a row with the wrong number of fields; the file was "
                                            "changed by hand or by another program");
        else if (strcmp(f[COL_SWEEP], r->fingerprint) != 0)
            ok = refuse(err, r->path, line,
                        "a run of another sweep: the configuration file, the --set options or "
                        "the plugin directories changed since it was written. Name another -o "
                        "file, or remove this one to start again");
        else
            g_ptr_array_add(r->records, g_strdupv(f));
    }
    if (records) {
        g_ptr_array_free(records, TRUE);
        g_array_free(lines, TRUE);
    }
    g_free(text);
    return ok;
}

char *insee_sweep_results_sibling(const char *output, const char *suffix)
{
    gsize len = strlen(output) - (g_str_has_suffix(output, ".csv") ? 4 : 0);
    char *base = g_strndup(output, len);
    char *path = g_strconcat(base, suffix, NULL);
    g_free(base);
    return path;
}

insee_sweep_results *insee_sweep_results_open(const char *path, const char *fingerprint,
                                              GError **err)
{
    insee_sweep_results *r = g_new0(insee_sweep_results, 1);
    r->path = g_strdup(path);
    r->fingerprint = g_strdup(fingerprint);
    r->header = g_strconcat("sweep,vary,", insee_report_csv_header(), NULL);
    r->records = g_ptr_array_new_with_free_func((GDestroyNotify)g_strfreev);
    index_columns(r);
    if (!insee_output_check_append(path, "-o", r->header, err) || !read_rows(r, err)) {
        insee_sweep_results_free(r);
        return NULL;
    }
    r->saved = r->records->len;
    return r;
}

void insee_sweep_results_free(insee_sweep_results *r)
{
    if (!r)
        return;
    g_free(r->path);
    g_free(r->fingerprint);
    g_free(r->header);
    g_hash_table_destroy(r->columns);
    g_ptr_array_free(r->records, TRUE);
    g_free(r);
}

guint insee_sweep_results_rows(const insee_sweep_results *r)
{
    return r->records->len;
}

static const char *const *record(const insee_sweep_results *r, guint row)
{
    return g_ptr_array_index(r->records, row);
}

const char *insee_sweep_results_vary(const insee_sweep_results *r, guint row)
{
    return record(r, row)[COL_VARY];
}

const char *insee_sweep_results_field(const insee_sweep_results *r, guint row, const char *column)
{
    guint i = GPOINTER_TO_UINT(g_hash_table_lookup(r->columns, column));
    return i ? record(r, row)[i - 1] : NULL;
}

guint64 insee_sweep_results_seed(const insee_sweep_results *r, guint row)
{
    return g_ascii_strtoull(insee_sweep_results_field(r, row, "seed"), NULL, 10);
}

double insee_sweep_results_number(const insee_sweep_results *r, guint row, const char *column)
{
    const char *v = insee_sweep_results_field(r, row, column);
    char *end;
    double x = v && *v ? g_ascii_strtod(v, &end) : NAN;
    return v && *v && !*end ? x : NAN;
}

static void append_record(GString *s, const char *const *f)
{
    for (guint i = 0; f[i]; i++) {
        if (i)
            g_string_append_c(s, ',');
        insee_csv_field(s, f[i]);
    }
    g_string_append_c(s, '\n');
}

gboolean insee_sweep_results_add(insee_sweep_results *r, const char *vary, const char *run_csv,
                                 GError **err)
{
    GArray *lines = NULL;
    GPtrArray *rows = insee_csv_read(run_csv, "a run's [stats] csv", &lines, err);
    if (!rows)
        return FALSE;
    gboolean ok = rows->len == 2 &&
                  g_strv_length(g_ptr_array_index(rows, 1)) + COL_RUN ==
                      g_hash_table_size(r->columns);
    if (!ok)
        g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                    "the run wrote %u rows to its [stats] csv instead of a header and one row",
                    rows->len);
    if (ok) {
        GPtrArray *f = g_ptr_array_new();
        g_ptr_array_add(f, g_strdup(r->fingerprint));
        g_ptr_array_add(f, g_strdup(vary));
        for (char **v = g_ptr_array_index(rows, 1); *v; v++)
            g_ptr_array_add(f, g_strdup(*v));
        g_ptr_array_add(f, NULL);
        g_ptr_array_add(r->records, g_ptr_array_free(f, FALSE));
    }
    g_ptr_array_free(rows, TRUE);
    g_array_free(lines, TRUE);
    return ok;
}

void insee_sweep_results_take(insee_sweep_results *r, const insee_sweep_results *from, guint row)
{
    g_ptr_array_add(r->records, g_strdupv((char **)record(from, row)));
}

gboolean insee_sweep_results_save(insee_sweep_results *r, GError **err)
{
    if (r->saved == r->records->len)
        return TRUE;
    GString *text = g_string_new(NULL);
    for (guint i = r->saved; i < r->records->len; i++)
        append_record(text, (const char *const *)g_ptr_array_index(r->records, i));
    gboolean ok = insee_output_append(r->path, "-o", r->header, text->str, err);
    g_string_free(text, TRUE);
    if (ok)
        r->saved = r->records->len;
    return ok;
}

typedef struct {
    guint rank, row;
} ranked;

static int by_rank(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return x->row < y->row ? -1 : x->row > y->row;
}

gboolean insee_sweep_results_rewrite(insee_sweep_results *r,
                                     guint (*rank)(const insee_sweep_results *r, guint row,
                                                   gpointer data),
                                     gpointer data, GError **err)
{
    guint n = r->records->len;
    ranked *order = g_new(ranked, n ? n : 1);
    for (guint i = 0; i < n; i++)
        order[i] = (ranked){rank(r, i, data), i};
    qsort(order, n, sizeof *order, by_rank);
    GString *text = g_string_new(r->header);
    GPtrArray *sorted = g_ptr_array_new_with_free_func((GDestroyNotify)g_strfreev);
    for (guint i = 0; i < n; i++) {
        char **f = g_ptr_array_index(r->records, order[i].row);
        append_record(text, (const char *const *)f);
        g_ptr_array_add(sorted, f);
        r->records->pdata[order[i].row] = NULL;
    }
    g_ptr_array_free(r->records, TRUE);
    r->records = sorted;
    g_free(order);
    gboolean ok = insee_output_replace(r->path, "-o", text->str, err);
    g_string_free(text, TRUE);
    if (ok)
        r->saved = n;
    return ok;
}
