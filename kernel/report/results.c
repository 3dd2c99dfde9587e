/* kernel/report/results.c — the run JSON reader (results.h). */
#include "report/results.h"

#include <glib/gstdio.h>
#include <stdarg.h>

G_DEFINE_QUARK(insee-report-error-quark, insee_report_error)

struct insee_results {
    char *path;
    JsonParser *parser;
    GError *error;
};

/* Where a value sits, formatted only when it is wrong: path, path[i] or path[i].key. */
typedef struct {
    const char *path;
    gint64 index;
    const char *key;
} where;

static char *where_name(where w)
{
    if (w.index < 0)
        return g_strdup(w.path);
    if (!w.key)
        return g_strdup_printf("%s[%" G_GINT64_FORMAT "]", w.path, w.index);
    return g_strdup_printf("%s[%" G_GINT64_FORMAT "].%s", w.path, w.index, w.key);
}

static void fail(insee_results *r, where w, const char *what)
{
    if (r->error)
        return;
    char *name = where_name(w);
    r->error = g_error_new(INSEE_REPORT_ERROR, INSEE_REPORT_ERROR_INPUT,
                           "%s: key '%s' %s (is it the output of `insee run --json`?)", r->path,
                           name, what);
    g_free(name);
}

/* The node at a dotted path below `base`, or NULL after recording a missing key. */
static JsonNode *descend(insee_results *r, JsonNode *base, const char *path, where w)
{
    char **parts = g_strsplit(path, ".", -1);
    JsonNode *n = base;
    for (char **p = parts; n && *p; p++) {
        if (!JSON_NODE_HOLDS_OBJECT(n)) {
            n = NULL;
            break;
        }
        n = json_object_get_member(json_node_get_object(n), *p);
    }
    g_strfreev(parts);
    if (!n)
        fail(r, w, "is missing");
    return n;
}

static JsonNode *at_path(insee_results *r, const char *path)
{
    if (r->error)
        return NULL;
    return descend(r, json_parser_get_root(r->parser), path, (where){path, -1, NULL});
}

static JsonNode *at_elem(insee_results *r, JsonArray *a, guint i, const char *path,
                         const char *key)
{
    if (r->error || !a)
        return NULL;
    where w = {path, i, key};
    if (i >= json_array_get_length(a)) {
        fail(r, w, "is missing (the array is too short)");
        return NULL;
    }
    JsonNode *n = json_array_get_element(a, i);
    return key ? descend(r, n, key, w) : n;
}

static gboolean is_number(JsonNode *n)
{
    if (!JSON_NODE_HOLDS_VALUE(n))
        return FALSE;
    GType t = json_node_get_value_type(n);
    return t == G_TYPE_INT64 || t == G_TYPE_DOUBLE;
}

/* NULL-safe typed reads; `nullable` accepts null (returns FALSE). */
static gboolean read_num(insee_results *r, JsonNode *n, where w, gboolean nullable, double *out)
{
    if (!n)
        return FALSE;
    if (nullable && JSON_NODE_HOLDS_NULL(n))
        return FALSE;
    if (!is_number(n)) {
        fail(r, w, nullable ? "should be a number or null" : "should be a number");
        return FALSE;
    }
    *out = json_node_get_double(n);
    return TRUE;
}

static const char *read_str(insee_results *r, JsonNode *n, where w)
{
    if (!n)
        return "";
    if (!JSON_NODE_HOLDS_VALUE(n) || json_node_get_value_type(n) != G_TYPE_STRING) {
        fail(r, w, "should be a string");
        return "";
    }
    return json_node_get_string(n);
}

static gboolean read_bool(insee_results *r, JsonNode *n, where w)
{
    if (!n)
        return FALSE;
    if (!JSON_NODE_HOLDS_VALUE(n) || json_node_get_value_type(n) != G_TYPE_BOOLEAN) {
        fail(r, w, "should be true or false");
        return FALSE;
    }
    return json_node_get_boolean(n);
}

static JsonArray *read_array(insee_results *r, JsonNode *n, where w)
{
    if (!n || JSON_NODE_HOLDS_NULL(n))
        return NULL;
    if (!JSON_NODE_HOLDS_ARRAY(n)) {
        fail(r, w, "should be an array or null");
        return NULL;
    }
    return json_node_get_array(n);
}

/* The deepest nesting of arrays and objects in `text`, strings skipped,
   counted only up to `limit` + 1: json-glib recurses once per level. */
static gboolean depth_over(const char *text, gsize len, guint limit, gsize *at)
{
    guint depth = 0;
    gboolean in_string = FALSE;
    for (gsize i = 0; i < len; i++) {
        char c = text[i];
        if (in_string) {
            if (c == '\\')
                i++;
            else if (c == '"')
                in_string = FALSE;
        } else if (c == '"') {
            in_string = TRUE;
        } else if (c == '[' || c == '{') {
            if (++depth > limit) {
                *at = i;
                return TRUE;
            }
        } else if ((c == ']' || c == '}') && depth > 0) {
            depth--;
        }
    }
    return FALSE;
}

gboolean insee_report_read(const char *path, char **text, gsize *len, GError **err)
{
    GStatBuf st;
    if (g_stat(path, &st) == 0 && (guint64)st.st_size > INSEE_REPORT_MAX_BYTES) {
        g_set_error(err, INSEE_REPORT_ERROR, INSEE_REPORT_ERROR_INPUT,
                    "%s: %" G_GUINT64_FORMAT " bytes, over the limit of %u MiB for an input "
                    "file (a results file is far smaller; is it the right file?)",
                    path, (guint64)st.st_size, INSEE_REPORT_MAX_BYTES >> 20);
        return FALSE;
    }
    GError *e = NULL;
    if (!g_file_get_contents(path, text, len, &e)) {
        g_set_error(err, INSEE_REPORT_ERROR, INSEE_REPORT_ERROR_INPUT, "%s", e->message);
        g_error_free(e);
        return FALSE;
    }
    return TRUE;
}

insee_results *insee_results_load(const char *path, GError **err)
{
    char *text;
    gsize len;
    if (!insee_report_read(path, &text, &len, err))
        return NULL;
    insee_results *r = insee_results_parse(path, text, len, err);
    g_free(text);
    return r;
}

insee_results *insee_results_parse(const char *path, const char *text, gsize len, GError **err)
{
    gsize at = 0;
    if (len > INSEE_REPORT_MAX_BYTES) {
        g_set_error(err, INSEE_REPORT_ERROR, INSEE_REPORT_ERROR_INPUT,
                    "%s: over the limit of %u MiB for an input file", path,
                    INSEE_REPORT_MAX_BYTES >> 20);
        return NULL;
    }
    if (depth_over(text, len, INSEE_RESULTS_MAX_DEPTH, &at)) {
        g_set_error(err, INSEE_REPORT_ERROR, INSEE_REPORT_ERROR_INPUT,
                    "%s: arrays and objects nested deeper than %u levels (at byte %" G_GSIZE_FORMAT
                    "); a results file has fewer than 10: is it the right file?",
                    path, INSEE_RESULTS_MAX_DEPTH, at);
        return NULL;
    }
    insee_results *r = g_new0(insee_results, 1);
    r->path = g_strdup(path);
    r->parser = json_parser_new_immutable();
    GError *e = NULL;
    if (!json_parser_load_from_data(r->parser, text, (gssize)len, &e)) {
        g_set_error(err, INSEE_REPORT_ERROR, INSEE_REPORT_ERROR_INPUT,
                    "%s: not a JSON results file: %s", path, e->message);
        g_error_free(e);
        insee_results_free(r);
        return NULL;
    }
    JsonNode *root = json_parser_get_root(r->parser);
    if (!root || !JSON_NODE_HOLDS_OBJECT(root)) {
        g_set_error(err, INSEE_REPORT_ERROR, INSEE_REPORT_ERROR_INPUT,
                    "%s: not a results file: the JSON is not an object with key 'format' = "
                    "\"insee-results\" (write one with `insee run --json FILE`)",
                    path);
        insee_results_free(r);
        return NULL;
    }
    const char *format = insee_results_str(r, "format");
    double version = insee_results_num(r, "format_version");
    if (!r->error && g_strcmp0(format, "insee-results") != 0)
        g_set_error(&r->error, INSEE_REPORT_ERROR, INSEE_REPORT_ERROR_INPUT,
                    "%s: key 'format' is \"%s\", not \"insee-results\": not a results file "
                    "(write one with `insee run --json FILE`)",
                    path, format);
    else if (!r->error && version != 1)
        g_set_error(&r->error, INSEE_REPORT_ERROR, INSEE_REPORT_ERROR_INPUT,
                    "%s: key 'format_version' is %g; this insee reads version 1 (use the "
                    "insee that wrote the file)",
                    path, version);
    if (!insee_results_ok(r, err)) {
        insee_results_free(r);
        return NULL;
    }
    return r;
}

void insee_results_free(insee_results *r)
{
    if (!r)
        return;
    g_free(r->path);
    g_object_unref(r->parser);
    g_clear_error(&r->error);
    g_free(r);
}

const char *insee_results_path(const insee_results *r)
{
    return r->path;
}

gboolean insee_results_ok(insee_results *r, GError **err)
{
    if (!r->error)
        return TRUE;
    g_propagate_error(err, r->error);
    r->error = NULL;
    /* Later reads must still see a failed reader. */
    r->error = g_error_new_literal(INSEE_REPORT_ERROR, INSEE_REPORT_ERROR_INPUT, "reported");
    return FALSE;
}

gboolean insee_results_has(const insee_results *r, const char *member)
{
    return json_object_has_member(json_node_get_object(json_parser_get_root(r->parser)), member);
}

gboolean insee_results_is_null(insee_results *r, const char *path)
{
    JsonNode *n = at_path(r, path);
    return n && JSON_NODE_HOLDS_NULL(n);
}

double insee_results_num(insee_results *r, const char *path)
{
    double v = 0;
    read_num(r, at_path(r, path), (where){path, -1, NULL}, FALSE, &v);
    return v;
}

gboolean insee_results_num_or_null(insee_results *r, const char *path, double *out)
{
    return read_num(r, at_path(r, path), (where){path, -1, NULL}, TRUE, out);
}

const char *insee_results_str(insee_results *r, const char *path)
{
    return read_str(r, at_path(r, path), (where){path, -1, NULL});
}

gboolean insee_results_bool(insee_results *r, const char *path)
{
    return read_bool(r, at_path(r, path), (where){path, -1, NULL});
}

JsonArray *insee_results_array(insee_results *r, const char *path)
{
    return read_array(r, at_path(r, path), (where){path, -1, NULL});
}

double insee_results_elem_num(insee_results *r, JsonArray *a, guint i, const char *path)
{
    double v = 0;
    read_num(r, at_elem(r, a, i, path, NULL), (where){path, i, NULL}, FALSE, &v);
    return v;
}

gboolean insee_results_elem_num_or_null(insee_results *r, JsonArray *a, guint i,
                                        const char *path, double *out)
{
    return read_num(r, at_elem(r, a, i, path, NULL), (where){path, i, NULL}, TRUE, out);
}

JsonArray *insee_results_elem_array(insee_results *r, JsonArray *a, guint i, const char *path)
{
    return read_array(r, at_elem(r, a, i, path, NULL), (where){path, i, NULL});
}

double insee_results_member_num(insee_results *r, JsonArray *a, guint i, const char *path,
                                const char *key)
{
    double v = 0;
    read_num(r, at_elem(r, a, i, path, key), (where){path, i, key}, FALSE, &v);
    return v;
}

gboolean insee_results_member_num_or_null(insee_results *r, JsonArray *a, guint i,
                                          const char *path, const char *key, double *out)
{
    return read_num(r, at_elem(r, a, i, path, key), (where){path, i, key}, TRUE, out);
}

const char *insee_results_member_str(insee_results *r, JsonArray *a, guint i,
                                     const char *path, const char *key)
{
    return read_str(r, at_elem(r, a, i, path, key), (where){path, i, key});
}

JsonArray *insee_results_member_array(insee_results *r, JsonArray *a, guint i, const char *path,
                                      const char *key)
{
    return read_array(r, at_elem(r, a, i, path, key), (where){path, i, key});
}

gboolean insee_results_member_has(insee_results *r, JsonArray *a, guint i, const char *key)
{
    if (r->error || !a || i >= json_array_get_length(a))
        return FALSE;
    JsonNode *n = json_array_get_element(a, i);
    if (!JSON_NODE_HOLDS_OBJECT(n))
        return FALSE;
    JsonNode *m = json_object_get_member(json_node_get_object(n), key);
    return m && !JSON_NODE_HOLDS_NULL(m);
}

gboolean insee_results_member_bool(insee_results *r, JsonArray *a, guint i, const char *path,
                                   const char *key)
{
    return read_bool(r, at_elem(r, a, i, path, key), (where){path, i, key});
}
