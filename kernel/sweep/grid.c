/* kernel/sweep/grid.c — the points of a sweep (grid.h). */
#include "sweep/grid.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* More values than this on one axis is a typo in STEP, not a study. */
#define MAX_AXIS_VALUES 100000

typedef struct {
    char *key;
    GPtrArray *values; /* of char * */
} axis;

struct insee_sweep_grid {
    GArray *axes; /* of axis */
    guint points;
    gint load_axis; /* -1: none */
    char **keys;    /* per point */
    char ***sets;   /* per point: its KEY=VALUE strings */
    GHashTable *by_key;
};

static gboolean bad(GError **err, const char *spec, const char *why)
{
    g_set_error(err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--vary %s: %s", spec, why);
    return FALSE;
}

/* V1,V2,...: split at the commas outside brackets and quotes. */
static gboolean split_list(const char *spec, const char *list, GPtrArray *values, GError **err)
{
    int depth = 0;
    char quote = 0;
    const char *start = list;
    for (const char *c = list;; c++) {
        if (quote && *c == quote)
            quote = 0;
        else if (!quote && (*c == '"' || *c == '\''))
            quote = *c;
        else if (!quote && (*c == '[' || *c == '{'))
            depth++;
        else if (!quote && (*c == ']' || *c == '}'))
            depth--;
        if (*c && (*c != ',' || depth > 0 || quote))
            continue;
        if (c == start)
            return bad(err, spec, "an empty value; write KEY=V1,V2,... or KEY=FROM:TO:STEP");
        g_ptr_array_add(values, g_strndup(start, (gsize)(c - start)));
        if (!*c)
            break;
        start = c + 1;
    }
    if (quote || depth != 0)
        return bad(err, spec, "an unclosed quote or bracket");
    return TRUE;
}

static gboolean number(const char *s, double *out)
{
    char *end;
    *out = g_ascii_strtod(s, &end);
    return *s && !*end && isfinite(*out);
}

/* FROM:TO:STEP, the last value within a millionth of a step of TO counted
   in (0.1 + 0.1 + 0.1 is not 0.3). */
static gboolean expand_range(const char *spec, const char *range, GPtrArray *values,
                             GError **err)
{
    char **part = g_strsplit(range, ":", -1);
    double from, to, step;
    gboolean ok = g_strv_length(part) == 3 && number(part[0], &from) && number(part[1], &to) &&
                  number(part[2], &step);
    g_strfreev(part);
    if (!ok)
        return bad(err, spec, "FROM:TO:STEP takes three numbers");
    if (step <= 0 || from > to)
        return bad(err, spec, "FROM:TO:STEP needs STEP > 0 and FROM <= TO");
    double count = floor((to - from) / step + 1e-6) + 1;
    if (count > MAX_AXIS_VALUES)
        return bad(err, spec, "more than 100000 values; is STEP right?");
    for (guint i = 0; i < (guint)count; i++) {
        char buf[G_ASCII_DTOSTR_BUF_SIZE];
        g_ascii_formatd(buf, sizeof buf, "%.10g", from + i * step);
        g_ptr_array_add(values, g_strdup(buf));
    }
    return TRUE;
}

static gboolean parse_axis(const char *spec, axis *a, GError **err)
{
    const char *eq = strchr(spec, '=');
    if (!eq || eq == spec || !eq[1])
        return bad(err, spec, "write KEY=V1,V2,... or KEY=FROM:TO:STEP (KEY as for --set)");
    a->key = g_strndup(spec, (gsize)(eq - spec));
    if (!strchr(a->key, '.') || strcmp(a->key, "simulation.seed") == 0)
        return bad(err, spec, strchr(a->key, '.') ? "seeds are set by --seeds N"
                                                  : "KEY is TABLE.NAME, as for --set");
    a->values = g_ptr_array_new_with_free_func(g_free);
    const char *v = eq + 1;
    gboolean range = strchr(v, ':') && !strpbrk(v, ",[{\"'");
    if (!(range ? expand_range(spec, v, a->values, err) : split_list(spec, v, a->values, err)))
        return FALSE;
    /* A point's key must name it alone: no value twice, no ';' (the
       separator of keys). */
    for (guint i = 0; i < a->values->len; i++) {
        const char *x = g_ptr_array_index(a->values, i);
        if (strchr(x, ';'))
            return bad(err, spec, "a value holds ';', which separates a point's keys");
        for (guint j = 0; j < i; j++)
            if (strcmp(x, g_ptr_array_index(a->values, j)) == 0)
                return bad(err, spec, "a value given twice");
    }
    return TRUE;
}

static void build_points(insee_sweep_grid *g)
{
    g->keys = g_new0(char *, g->points);
    g->sets = g_new0(char **, g->points);
    g->by_key = g_hash_table_new(g_str_hash, g_str_equal);
    for (guint p = 0; p < g->points; p++) {
        g->sets[p] = g_new0(char *, g->axes->len + 1);
        guint rest = p;
        for (guint k = g->axes->len; k-- > 0;) {
            const axis *a = &g_array_index(g->axes, axis, k);
            g->sets[p][k] = g_strconcat(a->key, "=", g_ptr_array_index(a->values, rest % a->values->len),
                                        NULL);
            rest /= a->values->len;
        }
        g->keys[p] = g_strjoinv(";", g->sets[p]);
        g_hash_table_insert(g->by_key, g->keys[p], GUINT_TO_POINTER(p + 1));
    }
}

insee_sweep_grid *insee_sweep_grid_new(char *const *specs, GError **err)
{
    insee_sweep_grid *g = g_new0(insee_sweep_grid, 1);
    g->axes = g_array_new(FALSE, TRUE, sizeof(axis));
    g->load_axis = -1;
    double points = 1;
    for (; specs && *specs; specs++) {
        axis a = {0};
        gboolean ok = parse_axis(*specs, &a, err);
        g_array_append_val(g->axes, a);
        if (!ok) {
            insee_sweep_grid_free(g);
            return NULL;
        }
        for (guint k = 0; k + 1 < g->axes->len; k++)
            if (strcmp(g_array_index(g->axes, axis, k).key, a.key) == 0) {
                bad(err, *specs, "this key is already varied by another --vary");
                insee_sweep_grid_free(g);
                return NULL;
            }
        if (g->load_axis < 0 && g_str_has_suffix(a.key, ".load"))
            g->load_axis = (gint)g->axes->len - 1;
        points *= a.values->len;
    }
    if (points > 1e6) {
        g_set_error(err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "--vary: the grid has %.0f points, more than 10^6; vary fewer keys or values",
                    points);
        insee_sweep_grid_free(g);
        return NULL;
    }
    g->points = (guint)points;
    build_points(g);
    return g;
}

void insee_sweep_grid_free(insee_sweep_grid *g)
{
    if (!g)
        return;
    for (guint k = 0; k < g->axes->len; k++) {
        axis *a = &g_array_index(g->axes, axis, k);
        g_free(a->key);
        if (a->values)
            g_ptr_array_free(a->values, TRUE);
    }
    g_array_free(g->axes, TRUE);
    for (guint p = 0; g->keys && p < g->points; p++) {
        g_free(g->keys[p]);
        g_strfreev(g->sets[p]);
    }
    g_free(g->keys);
    g_free(g->sets);
    if (g->by_key)
        g_hash_table_destroy(g->by_key);
    g_free(g);
}

guint insee_sweep_grid_points(const insee_sweep_grid *g)
{
    return g->points;
}

const char *insee_sweep_grid_key(const insee_sweep_grid *g, guint point)
{
    return g->keys[point];
}

gint insee_sweep_grid_find(const insee_sweep_grid *g, const char *key)
{
    return (gint)GPOINTER_TO_UINT(g_hash_table_lookup(g->by_key, key)) - 1;
}

const char *const *insee_sweep_grid_assignments(const insee_sweep_grid *g, guint point)
{
    return (const char *const *)g->sets[point];
}

gboolean insee_sweep_grid_has_load(const insee_sweep_grid *g)
{
    return g->load_axis >= 0;
}

/* The load axis's stride and length: points p and p + stride differ by one
   step of load. */
static void load_layout(const insee_sweep_grid *g, guint *stride, guint *len)
{
    *stride = 1;
    for (guint k = g->axes->len; k-- > (guint)g->load_axis + 1;)
        *stride *= g_array_index(g->axes, axis, k).values->len;
    *len = g_array_index(g->axes, axis, g->load_axis).values->len;
}

guint insee_sweep_grid_configuration(const insee_sweep_grid *g, guint point)
{
    if (g->load_axis < 0)
        return point;
    guint stride, len;
    load_layout(g, &stride, &len);
    return point / (stride * len) * stride + point % stride;
}

guint insee_sweep_grid_load_rank(const insee_sweep_grid *g, guint point)
{
    if (g->load_axis < 0)
        return 0;
    guint stride, len;
    load_layout(g, &stride, &len);
    return point / stride % len;
}
