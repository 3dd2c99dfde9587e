/* kernel/config/config.c — the configuration room: the document tree,
 * `--set` overrides, validation of a section against parameter tables,
 * suggestions for typos, parameter-table checks and the echo.
 *
 * Contract (the public half is in config.h)
 * --------
 * - The document is parsed once by the toml++ adapter (config_toml.cc) into
 *   the C tree of config_tree.h; every later question is answered from that
 *   tree, so every error can quote the position a value came from: "file:l:c",
 *   or "--set section.key=value" for an override.
 * - One function, convert_value(), decides whether a tree value satisfies a
 *   parameter definition; file keys, overrides and defaults (at bind time and
 *   when a plugin's table is checked) all go through it, so the rules cannot
 *   drift apart. Defaults and override values are TOML text parsed as the
 *   document "x = <text>" by the same adapter.
 * - insee_config_bind() renders the section's echo text when it succeeds; a
 *   later bind of the same section replaces it in place. insee_config_echo()
 *   concatenates those texts, so the echo reports exactly what was used.
 *
 * Memory: the config owns the tree, the origin strings positions point at,
 * and every bound value array, string and list (kept in `owned` until
 * insee_config_free(), so nothing handed out ever dangles, even after an
 * override replaced the node it came from). insee_config_echo() returns a new
 * string the caller releases with g_free().
 */
#define _POSIX_C_SOURCE 200809L /* insee/input.h */
#include "config.h"

#include "config_tree.h"

#include <insee/input.h>

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

G_DEFINE_QUARK(insee-config-error-quark, insee_config_error)

typedef struct echo_section {
    char *section;
    char *text;    /* "[section]\nkey = value\n..." */
    char *differs; /* "section.key=value\n" per key whose value is not its default */
} echo_section;

struct insee_config {
    insee_cfg_node *root;
    GPtrArray *origins;   /* char *: the document's name, then one "--set ..." per override */
    GPtrArray *owned;     /* memory behind bound values: arrays, strings, lists */
    GPtrArray *echo;      /* echo_section *, in first-bind order */
    GHashTable *plugins;  /* section -> plugin name resolved by insee_config_plugin_name() (in owned) */
    char *dir;            /* the document file's directory, when not the working one: what its
                             relative paths are relative to (NULL for a string) */
    gboolean defaults;    /* the document is an embedded default (insee_config_load_default) */
};

/* ---- the tree ----------------------------------------------------------- */

static void node_free_notify(gpointer node)
{
    insee_cfg_node_free(node);
}

static void entry_free(gpointer p)
{
    insee_cfg_entry *e = p;
    g_free(e->key);
    insee_cfg_node_free(e->value);
    g_free(e);
}

insee_cfg_node *insee_cfg_node_new(insee_cfg_kind kind, insee_cfg_pos pos)
{
    insee_cfg_node *n = g_new0(insee_cfg_node, 1);
    n->kind = kind;
    n->pos = pos;
    if (kind == INSEE_CFG_TABLE)
        n->items = g_ptr_array_new_with_free_func(entry_free);
    else if (kind == INSEE_CFG_ARRAY)
        n->items = g_ptr_array_new_with_free_func(node_free_notify);
    return n;
}

void insee_cfg_node_free(insee_cfg_node *node)
{
    if (!node)
        return;
    if (node->items)
        g_ptr_array_unref(node->items);
    g_free(node->s);
    g_free(node);
}

void insee_cfg_table_append(insee_cfg_node *table, const char *key, size_t key_len, insee_cfg_pos key_pos,
                            insee_cfg_node *value)
{
    insee_cfg_entry *e = g_new(insee_cfg_entry, 1);
    e->key = g_strndup(key, key_len);
    e->pos = key_pos;
    e->value = value;
    g_ptr_array_add(table->items, e);
}

static insee_cfg_entry *table_find(const insee_cfg_node *table, const char *key)
{
    for (guint i = 0; i < table->items->len; i++) {
        insee_cfg_entry *e = g_ptr_array_index(table->items, i);
        if (strcmp(e->key, key) == 0)
            return e;
    }
    return NULL;
}

/* ---- words for messages ------------------------------------------------- */

/* Every message starts with where the problem was written. */
G_GNUC_PRINTF(4, 5)
static void fail_at(GError **err, InseeConfigError code, insee_cfg_pos pos, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *what = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    if (pos.line)
        g_set_error(err, INSEE_CONFIG_ERROR, code, "%s:%u:%u: %s", pos.origin, pos.line, pos.col, what);
    else
        g_set_error(err, INSEE_CONFIG_ERROR, code, "%s: %s", pos.origin, what);
    g_free(what);
}

/* The shortest text that reads back as exactly `d`, so messages show what was
   written and the echo round-trips byte for byte. */
static void append_number(GString *out, double d)
{
    static const char *const formats[] = {"%.15g", "%.16g", "%.17g"};
    char buf[G_ASCII_DTOSTR_BUF_SIZE];
    for (size_t k = 0; k < G_N_ELEMENTS(formats); k++) {
        g_ascii_formatd(buf, sizeof buf, formats[k], d);
        if (g_ascii_strtod(buf, NULL) == d)
            break;
    }
    g_string_append(out, buf);
}

/* A TOML float: inf/nan spelled TOML's way, and a ".0" when the digits alone
   would read back as an integer. */
static void append_toml_float(GString *out, double d)
{
    if (isnan(d)) {
        g_string_append(out, "nan");
        return;
    }
    if (isinf(d)) {
        g_string_append(out, d > 0 ? "inf" : "-inf");
        return;
    }
    gsize start = out->len;
    append_number(out, d);
    if (!strpbrk(out->str + start, ".e"))
        g_string_append(out, ".0");
}

/* A TOML basic string. */
static void append_toml_string(GString *out, const char *s)
{
    g_string_append_c(out, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': g_string_append(out, "\\\""); break;
        case '\\': g_string_append(out, "\\\\"); break;
        case '\n': g_string_append(out, "\\n"); break;
        case '\t': g_string_append(out, "\\t"); break;
        case '\r': g_string_append(out, "\\r"); break;
        default:
            if (*p < 0x20 || *p == 0x7f)
                g_string_append_printf(out, "\\u%04X", *p);
            else
                g_string_append_c(out, (char)*p);
        }
    }
    g_string_append_c(out, '"');
}

/* "a string \"abc\"", "an integer", ...: what the user wrote, for "not X". */
static void append_kind(GString *out, const insee_cfg_node *n)
{
    switch (n->kind) {
    case INSEE_CFG_TABLE: g_string_append(out, "a table"); break;
    case INSEE_CFG_ARRAY: g_string_append(out, "an array"); break;
    case INSEE_CFG_STRING:
        g_string_append(out, "the string ");
        append_toml_string(out, n->s);
        break;
    case INSEE_CFG_INT: g_string_append(out, "an integer"); break;
    case INSEE_CFG_FLOAT: g_string_append(out, "a floating-point number"); break;
    case INSEE_CFG_BOOL: g_string_append(out, "a boolean"); break;
    case INSEE_CFG_DATETIME: g_string_append(out, "a date/time"); break;
    }
}

static const char *type_words(insee_param_type t)
{
    switch (t) {
    case INSEE_PARAM_BOOL: return "a boolean (true or false)";
    case INSEE_PARAM_INT: return "an integer";
    case INSEE_PARAM_DOUBLE: return "a number";
    case INSEE_PARAM_STRING: return "a string";
    case INSEE_PARAM_ENUM: return "a string naming one of its choices";
    case INSEE_PARAM_INT_LIST: return "an array of integers";
    case INSEE_PARAM_PATH: return "a string (the path of a file)";
    }
    return "a value of an unknown type";
}

/* Inclusive; the range is off when min > max. NaN is never in a range. */
static gboolean in_range(const insee_param_def *def, double x)
{
    return def->min > def->max || (x >= def->min && x <= def->max);
}

/* A value of the right type to show in "write e.g. ...": the parameter's
   own default when it has one, else something inside its range. */
static void append_example(GString *out, const insee_param_def *def)
{
    if (def->default_value) {
        g_string_append(out, def->default_value);
        return;
    }
    const double integer = in_range(def, 1) ? 1 : ceil(def->min);
    const char *choices = def->choices ? def->choices : "";
    switch (def->type) {
    case INSEE_PARAM_BOOL: g_string_append(out, "true"); break;
    case INSEE_PARAM_INT: append_number(out, integer); break;
    case INSEE_PARAM_DOUBLE: append_toml_float(out, in_range(def, 0.5) ? 0.5 : def->min); break;
    case INSEE_PARAM_STRING: g_string_append(out, "\"text\""); break;
    case INSEE_PARAM_PATH: g_string_append(out, "\"file.txt\""); break;
    case INSEE_PARAM_ENUM: g_string_append_printf(out, "\"%.*s\"", (int)strcspn(choices, "|"), choices); break;
    case INSEE_PARAM_INT_LIST:
        g_string_append_c(out, '[');
        append_number(out, integer);
        g_string_append_c(out, ']');
        break;
    }
}

static void append_quoted_list(GString *out, const char *const *words, size_t n, const char *quote)
{
    for (size_t k = 0; k < n; k++)
        g_string_append_printf(out, "%s%s%s%s", k ? ", " : "", quote, words[k], quote);
}

/* ---- suggestions -------------------------------------------------------- */

static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    size_t *row = g_new(size_t, lb + 1);
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t best = diag + (a[i - 1] != b[j - 1]);
            best = MIN(best, up + 1);
            best = MIN(best, row[j - 1] + 1);
            row[j] = best;
            diag = up;
        }
    }
    size_t d = row[lb];
    g_free(row);
    return d;
}

const char *insee_suggest(const char *word, const char *const *candidates, size_t n)
{
    const char *best = NULL;
    size_t best_d = SIZE_MAX;
    for (size_t k = 0; k < n; k++) {
        size_t d = edit_distance(word, candidates[k]);
        if (d < best_d) {
            best = candidates[k];
            best_d = d;
        }
    }
    return best_d <= MAX(2, strlen(word) / 3) ? best : NULL;
}

/* ---- values ------------------------------------------------------------- */

static gpointer own(GPtrArray *owned, gpointer p)
{
    g_ptr_array_add(owned, p);
    return p;
}

/* "<label>is 0, outside [1, 16]; use a value from 1 to 16". `text`, when
   not NULL, is the value as written, with what else is wrong with it
   ("99999999999999999999, too large for a 64-bit integer"), in place of x. */
static char *out_of_range(const insee_param_def *def, const char *label, double x, const char *text)
{
    GString *s = g_string_new(label);
    g_string_append(s, "is ");
    if (text)
        g_string_append(s, text);
    else
        append_number(s, x);
    GString *lo = g_string_new(NULL), *hi = g_string_new(NULL);
    append_number(lo, def->min);
    append_number(hi, def->max);
    g_string_append_printf(s, ", outside [%s, %s]; use a value from %s to %s", lo->str, hi->str, lo->str, hi->str);
    g_string_free(lo, TRUE);
    g_string_free(hi, TRUE);
    return g_string_free(s, FALSE);
}

static char *wrong_type(const insee_param_def *def, const char *label, const char *words,
                        const insee_cfg_node *n)
{
    GString *s = g_string_new(label);
    g_string_append_printf(s, "must be %s, not ", words);
    append_kind(s, n);
    g_string_append_printf(s, "; write e.g. %s = ", def->name);
    append_example(s, def);
    return g_string_free(s, FALSE);
}

static gboolean convert_enum(const insee_cfg_node *n, const insee_param_def *def, GPtrArray *owned,
                             insee_value *out, char **why)
{
    char **choices = g_strsplit(def->choices ? def->choices : "", "|", -1);
    guint count = g_strv_length(choices);
    for (guint k = 0; k < count; k++) {
        if (strcmp(choices[k], n->s) == 0) {
            out->i = k;
            out->s = own(owned, g_strdup(choices[k]));
            g_strfreev(choices);
            return TRUE;
        }
    }
    GString *s = g_string_new("is ");
    append_toml_string(s, n->s);
    g_string_append(s, ", not one of ");
    append_quoted_list(s, (const char *const *)choices, count, "\"");
    const char *near = insee_suggest(n->s, (const char *const *)choices, count);
    if (near)
        g_string_append_printf(s, "; did you mean \"%s\"?", near);
    else
        g_string_append(s, "; use one of them");
    g_strfreev(choices);
    *why = g_string_free(s, FALSE);
    return FALSE;
}

/* Digits (a sign, underscores) that no 64-bit integer holds: what TOML
   refuses to read as a number. A quoted "5" is not one: it is a string. */
static gboolean overflowing_literal(const char *s)
{
    const char *digits = s + (*s == '+' || *s == '-');
    if (!g_ascii_isdigit(*digits) || digits[strspn(digits, "0123456789_")])
        return FALSE;
    GString *plain = g_string_new(NULL);
    for (const char *c = s; *c; c++)
        if (*c != '_')
            g_string_append_c(plain, *c);
    GError *e = NULL;
    gint64 v;
    gboolean fits = g_ascii_string_to_signed(plain->str, 10, G_MININT64, G_MAXINT64, &v, &e);
    gboolean overflow = !fits && g_error_matches(e, G_NUMBER_PARSER_ERROR,
                                                 G_NUMBER_PARSER_ERROR_OUT_OF_BOUNDS);
    g_clear_error(&e);
    g_string_free(plain, TRUE);
    return overflow;
}

/* The message for such digits: too large or small, and the range. */
static char *too_long(const insee_param_def *def, const char *label, const char *digits)
{
    char *text = g_strdup_printf("%s, too %s for a 64-bit integer", digits,
                                 digits[0] == '-' ? "small" : "large");
    char *why = out_of_range(def, label, 0, text);
    g_free(text);
    return why;
}

static gboolean convert_list(const insee_cfg_node *n, const insee_param_def *def, GPtrArray *owned,
                             insee_value *out, char **why, const insee_cfg_node **where)
{
    guint len = n->items->len;
    int64_t *list = len ? own(owned, g_new(int64_t, len)) : NULL;
    for (guint k = 0; k < len; k++) {
        const insee_cfg_node *item = g_ptr_array_index(n->items, k);
        char label[48];
        g_snprintf(label, sizeof label, "item %u ", k + 1);
        *where = item;
        if (item->kind != INSEE_CFG_INT) {
            *why = item->kind == INSEE_CFG_STRING && overflowing_literal(item->s)
                       ? too_long(def, label, item->s)
                       : wrong_type(def, label, "an integer", item);
            return FALSE;
        }
        if (!in_range(def, (double)item->i)) {
            *why = out_of_range(def, label, (double)item->i, NULL);
            return FALSE;
        }
        list[k] = item->i;
    }
    out->list = list;
    out->list_len = len;
    return TRUE;
}


/* Whether `n` satisfies `def`; fills `out` (strings and lists go to `owned`).
   On failure *why says what is wrong and what to do, and *where is the node
   at fault (the value, or one item of a list). */
static gboolean convert_value(const insee_cfg_node *n, const insee_param_def *def, GPtrArray *owned,
                              insee_value *out, char **why, const insee_cfg_node **where)
{
    *out = (insee_value){.type = def->type};
    *where = n;
    switch (def->type) {
    case INSEE_PARAM_BOOL:
        if (n->kind != INSEE_CFG_BOOL)
            break;
        out->b = n->b;
        return TRUE;
    case INSEE_PARAM_INT:
        if (n->kind != INSEE_CFG_INT)
            break;
        if (!in_range(def, (double)n->i)) {
            *why = out_of_range(def, "", (double)n->i, NULL);
            return FALSE;
        }
        out->i = n->i;
        out->d = (double)n->i;
        return TRUE;
    case INSEE_PARAM_DOUBLE:
        if (n->kind != INSEE_CFG_INT && n->kind != INSEE_CFG_FLOAT)
            break;
        out->d = n->kind == INSEE_CFG_INT ? (double)n->i : n->d;
        if (!in_range(def, out->d)) {
            *why = out_of_range(def, "", out->d, NULL);
            return FALSE;
        }
        return TRUE;
    case INSEE_PARAM_STRING:
    case INSEE_PARAM_PATH:
        if (n->kind != INSEE_CFG_STRING)
            break;
        out->s = own(owned, g_strdup(n->s));
        return TRUE;
    case INSEE_PARAM_ENUM:
        if (n->kind != INSEE_CFG_STRING)
            break;
        return convert_enum(n, def, owned, out, why);
    case INSEE_PARAM_INT_LIST:
        if (n->kind != INSEE_CFG_ARRAY)
            break;
        return convert_list(n, def, owned, out, why, where);
    default:
        *why = g_strdup_printf("has an unknown parameter type %d; fix the parameter table", (int)def->type);
        return FALSE;
    }
    if (n->kind == INSEE_CFG_STRING && (def->type == INSEE_PARAM_INT || def->type == INSEE_PARAM_DOUBLE) &&
        overflowing_literal(n->s)) {
        /* Digits TOML could not read (an override, or a file's literal that
           load_text() quoted): too long for any integer. */
        *why = too_long(def, "", n->s);
        return FALSE;
    }
    *why = wrong_type(def, "", type_words(def->type), n);
    return FALSE;
}

/* TOML value text (a default, an override) as a node: the text is parsed as
   the document "x = <text>". NULL, with *why, when it is not exactly one
   TOML value. */
static insee_cfg_node *parse_value(const char *text, const char *origin, char **why)
{
    char *doc = g_strconcat("x = ", text, NULL);
    insee_cfg_parse_error perr = {0};
    insee_cfg_node *root = insee_cfg_parse_toml(doc, strlen(doc), origin, FALSE, &perr);
    g_free(doc);
    if (!root) {
        *why = perr.description;
        return NULL;
    }
    insee_cfg_node *value = NULL;
    if (root->items->len == 1) {
        insee_cfg_entry *e = g_ptr_array_index(root->items, 0);
        value = e->value;
        e->value = NULL;
    } else {
        *why = g_strdup("the text holds more than one TOML value");
    }
    insee_cfg_node_free(root);
    return value;
}

static gboolean convert_default(const insee_param_def *def, const char *owner, GPtrArray *owned,
                                insee_value *out, GError **err)
{
    char *why = NULL;
    const insee_cfg_node *where;
    insee_cfg_node *n = parse_value(def->default_value, "default", &why);
    gboolean ok = n && convert_value(n, def, owned, out, &why, &where);
    if (!ok)
        g_set_error(err, INSEE_CONFIG_ERROR, INSEE_CONFIG_ERROR_INVALID,
                    "%s: the default `%s` of parameter '%s' is invalid: %s; fix the parameter table",
                    owner, def->default_value, def->name, why);
    g_free(why);
    insee_cfg_node_free(n);
    return ok;
}

/* ---- parameter tables --------------------------------------------------- */

static gboolean check_def(const insee_param_def *defs, size_t k, const char *owner, GPtrArray *scratch,
                          GError **err)
{
    const insee_param_def *def = &defs[k];
#define BAD(...) (g_set_error(err, INSEE_CONFIG_ERROR, INSEE_CONFIG_ERROR_INVALID, __VA_ARGS__), FALSE)
    if (!def->name[0])
        return BAD("%s: parameter %zu has an empty name; name it with a-z, 0-9 and '_'", owner, k + 1);
    if (def->name[strspn(def->name, "abcdefghijklmnopqrstuvwxyz0123456789_")])
        return BAD("%s: parameter '%s' has a name with characters other than a-z, 0-9 and '_'; rename it",
                   owner, def->name);
    if (strcmp(def->name, "plugin") == 0)
        return BAD("%s: parameter 'plugin' is reserved (the key that names a section's plugin); rename it",
                   owner);
    for (size_t j = 0; j < k; j++)
        if (strcmp(defs[j].name, def->name) == 0)
            return BAD("%s: parameter '%s' is declared twice (entries %zu and %zu); remove one", owner,
                       def->name, j + 1, k + 1);
    if (def->type < INSEE_PARAM_BOOL || def->type > INSEE_PARAM_PATH)
        return BAD("%s: parameter '%s' has unknown type %d; use one of the INSEE_PARAM_* types", owner,
                   def->name, (int)def->type);
    if (def->type == INSEE_PARAM_ENUM) {
        const char *c = def->choices;
        if (!c || !c[0] || c[0] == '|' || c[strlen(c) - 1] == '|' || strstr(c, "||"))
            return BAD("%s: ENUM parameter '%s' has choices \"%s\" with an empty choice; list them as "
                       "\"a|b|c\"",
                       owner, def->name, c ? c : "(null)");
    }
#undef BAD
    insee_value ignored;
    return !def->default_value || convert_default(def, owner, scratch, &ignored, err);
}

gboolean insee_params_check_table(const insee_param_def *defs, const char *owner, GError **err)
{
    if (!defs)
        return TRUE;
    GPtrArray *scratch = g_ptr_array_new_with_free_func(g_free);
    gboolean ok = TRUE;
    for (size_t k = 0; ok && defs[k].name; k++)
        ok = check_def(defs, k, owner, scratch, err);
    g_ptr_array_unref(scratch);
    return ok;
}

/* ---- documents and overrides -------------------------------------------- */

static void echo_section_free(gpointer p)
{
    echo_section *e = p;
    g_free(e->section);
    g_free(e->text);
    g_free(e->differs);
    g_free(e);
}

static const char *add_origin(insee_config *cfg, char *origin)
{
    g_ptr_array_add(cfg->origins, origin);
    return origin;
}

/* `text` with the integer literal that ends just before line:col quoted,
   or NULL when there is none there. toml++ refuses a document holding an
   integer beyond 64 bits; as a string the literal reaches the parameter
   check, which names the key, says it is too large and gives its range. */
static char *quote_literal_before(const char *text, size_t len, unsigned line, unsigned col,
                                  size_t *out_len)
{
    size_t at = 0;
    for (unsigned l = 1; l < line && at < len; at++)
        l += text[at] == '\n';
    at += col ? col - 1 : 0;
    if (at > len)
        return NULL;
    size_t start = at;
    while (start > 0 && strchr("0123456789_", text[start - 1]))
        start--;
    if (start > 0 && strchr("+-", text[start - 1]))
        start--;
    if (start == at)
        return NULL;
    GString *out = g_string_new_len(text, (gssize)start);
    g_string_append_c(out, '"');
    g_string_append_len(out, text + start, (gssize)(at - start));
    g_string_append_c(out, '"');
    g_string_append_len(out, text + at, (gssize)(len - at));
    *out_len = out->len;
    return g_string_free(out, FALSE);
}

/* An empty configuration: no document, nothing bound. */
static insee_config *config_new(void)
{
    insee_config *cfg = g_new0(insee_config, 1);
    cfg->origins = g_ptr_array_new_with_free_func(g_free);
    cfg->owned = g_ptr_array_new_with_free_func(g_free);
    cfg->echo = g_ptr_array_new_with_free_func(echo_section_free);
    cfg->plugins = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    return cfg;
}

static insee_config *load_text(const char *text, size_t len, const char *origin, GError **err)
{
    insee_config *cfg = config_new();
    const char *name = add_origin(cfg, g_strdup(origin));
    insee_cfg_parse_error perr = {0};
    cfg->root = insee_cfg_parse_toml(text, len, name, TRUE, &perr);
    char *quoted = NULL;
    /* Each integer too long for 64 bits is quoted in turn (the positions of
       everything else are unchanged, but for the quotes on that line). */
    for (int tries = 0; !cfg->root && tries < 64 && strstr(perr.description, "not representable"); tries++) {
        size_t qlen;
        char *again = quote_literal_before(quoted ? quoted : text, quoted ? strlen(quoted) : len, perr.line,
                                           perr.col, &qlen);
        if (!again)
            break;
        g_free(quoted);
        quoted = again;
        g_free(perr.description);
        perr = (insee_cfg_parse_error){0};
        cfg->root = insee_cfg_parse_toml(quoted, qlen, name, TRUE, &perr);
    }
    g_free(quoted);
    if (!cfg->root) {
        fail_at(err, INSEE_CONFIG_ERROR_PARSE, (insee_cfg_pos){name, perr.line, perr.col},
                "invalid TOML: %s; fix the syntax at that position", perr.description);
        g_free(perr.description);
        insee_config_free(cfg);
        return NULL;
    }
    return cfg;
}

/* The configuration's text, at most INSEE_CONFIG_MAX_BYTES of it: a regular
   file's size is checked before reading, anything else (a pipe, a device)
   is read up to the cap and no further. NULL with err set. */
static char *read_config(const char *path, size_t *len, GError **err)
{
    const char *why = NULL;
    FILE *f = insee_input_open(path, &why);
    struct stat st;
    gboolean large = FALSE;
    char *buf = NULL;
    size_t n = 0;
    if (f && fstat(fileno(f), &st) != 0) {
        why = g_strerror(errno);
    } else if (f && S_ISREG(st.st_mode) && st.st_size > INSEE_CONFIG_MAX_BYTES) {
        large = TRUE;
    } else if (f) {
        size_t cap = 1u << 16;
        buf = g_malloc(cap);
        while ((n += fread(buf + n, 1, cap - n, f)) == cap && cap <= INSEE_CONFIG_MAX_BYTES)
            buf = g_realloc(buf, cap = MIN(2 * cap, INSEE_CONFIG_MAX_BYTES + 1));
        large = n > INSEE_CONFIG_MAX_BYTES;
        why = ferror(f) ? g_strerror(errno) : NULL;
    }
    if (f)
        fclose(f);
    if (large)
        g_set_error(err, INSEE_CONFIG_ERROR, INSEE_CONFIG_ERROR_IO,
                    "cannot read the configuration %s: it is larger than %u MiB, the most a "
                    "configuration may hold (a device such as /dev/zero never ends); check the "
                    "path", path, INSEE_CONFIG_MAX_BYTES >> 20);
    else if (why)
        g_set_error(err, INSEE_CONFIG_ERROR, INSEE_CONFIG_ERROR_IO,
                    "cannot read the configuration %s: %s; check the path and its permissions", path,
                    why);
    if (large || why) {
        g_free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}

insee_config *insee_config_load_file(const char *path, GError **err)
{
    size_t len = 0;
    char *text = read_config(path, &len, err);
    if (!text)
        return NULL;
    insee_config *cfg = load_text(text, len, path, err);
    g_free(text);
    char *dir = g_path_get_dirname(path);
    if (cfg && strcmp(dir, ".") != 0)
        cfg->dir = g_steal_pointer(&dir);
    g_free(dir);
    return cfg;
}

insee_config *insee_config_load_string(const char *text, const char *origin, GError **err)
{
    return load_text(text, strlen(text), origin ? origin : "<string>", err);
}

insee_config *insee_config_load_default(const char *text, const char *origin, GError **err)
{
    insee_config *cfg = insee_config_load_string(text, origin, err);
    if (cfg)
        cfg->defaults = TRUE;
    return cfg;
}

/* `pos` in the copy `to` of `from`'s origins. */
static insee_cfg_pos pos_in_copy(insee_cfg_pos pos, const insee_config *from,
                                 const insee_config *to)
{
    for (guint i = 0; i < from->origins->len; i++)
        if (pos.origin == g_ptr_array_index(from->origins, i))
            pos.origin = g_ptr_array_index(to->origins, i);
    return pos;
}

static insee_cfg_node *node_copy(const insee_cfg_node *n, const insee_config *from,
                                 const insee_config *to)
{
    insee_cfg_node *c = insee_cfg_node_new(n->kind, pos_in_copy(n->pos, from, to));
    c->b = n->b;
    c->i = n->i;
    c->d = n->d;
    c->s = g_strdup(n->s);
    for (guint k = 0; n->items && k < n->items->len; k++) {
        if (n->kind == INSEE_CFG_ARRAY) {
            g_ptr_array_add(c->items, node_copy(g_ptr_array_index(n->items, k), from, to));
            continue;
        }
        const insee_cfg_entry *e = g_ptr_array_index(n->items, k);
        insee_cfg_table_append(c, e->key, strlen(e->key), pos_in_copy(e->pos, from, to),
                               node_copy(e->value, from, to));
    }
    return c;
}

insee_config *insee_config_copy(const insee_config *cfg)
{
    insee_config *c = config_new();
    for (guint i = 0; i < cfg->origins->len; i++)
        add_origin(c, g_strdup(g_ptr_array_index(cfg->origins, i)));
    c->root = node_copy(cfg->root, cfg, c);
    c->dir = g_strdup(cfg->dir);
    c->defaults = cfg->defaults;
    return c;
}

void insee_config_free(insee_config *cfg)
{
    if (!cfg)
        return;
    insee_cfg_node_free(cfg->root);
    g_ptr_array_unref(cfg->echo);
    g_hash_table_unref(cfg->plugins);
    g_ptr_array_unref(cfg->owned);
    g_ptr_array_unref(cfg->origins);
    g_free(cfg->dir);
    g_free(cfg);
}

/* An element of an array of tables, "name[i]" (`[[name]]` in TOML), or a
   table inside one, "name[i].sub" (`[name.sub]` after the i-th `[[name]]`).
   Returns FALSE when `section` is a plain name; then *base is unset. */
static gboolean split_element(const char *section, char **base, guint *index, const char **sub)
{
    const char *open = strchr(section, '[');
    if (!open)
        return FALSE;
    char *end = NULL;
    *index = (guint)g_ascii_strtoull(open + 1, &end, 10);
    *base = g_strndup(section, (gsize)(open - section));
    *sub = end && end[0] == ']' && end[1] == '.' ? end + 2 : NULL;
    return TRUE;
}

/* The table `section` names in the document: *table is NULL when absent;
   FALSE when the name is taken by something that is not a table. */
static gboolean section_table(insee_config *cfg, const char *section, insee_cfg_node **table, GError **err)
{
    char *base;
    guint index;
    const char *sub;
    const insee_cfg_node *parent = cfg->root;
    const char *key = section;
    const char *dot = strchr(section, '.');
    if (!strchr(section, '[') && dot) {
        /* "name.sub": a table inside a top-level table (nested_sections) */
        char *top = g_strndup(section, (gsize)(dot - section));
        insee_cfg_entry *t = table_find(cfg->root, top);
        g_free(top);
        *table = NULL;
        if (!t || t->value->kind != INSEE_CFG_TABLE)
            return TRUE;
        parent = t->value;
        key = dot + 1;
    } else if (split_element(section, &base, &index, &sub)) {
        insee_cfg_entry *a = table_find(cfg->root, base);
        g_free(base);
        g_return_val_if_fail(a && a->value->kind == INSEE_CFG_ARRAY && index < a->value->items->len, FALSE);
        parent = g_ptr_array_index(a->value->items, index);
        if (!sub) {
            *table = (insee_cfg_node *)parent;
            return TRUE;
        }
        key = sub;
    }
    insee_cfg_entry *e = table_find(parent, key);
    *table = e ? e->value : NULL;
    if (e && e->value->kind != INSEE_CFG_TABLE) {
        GString *k = g_string_new(NULL);
        append_kind(k, e->value);
        fail_at(err, INSEE_CONFIG_ERROR_INVALID, e->pos,
                "'%s' must be a table ([%s]), not %s; move its keys under a [%s] header", section, section,
                k->str, section);
        g_string_free(k, TRUE);
        return FALSE;
    }
    return TRUE;
}

gboolean insee_config_array_len(insee_config *cfg, const char *name, guint *len, GError **err)
{
    insee_cfg_entry *e = table_find(cfg->root, name);
    *len = 0;
    if (!e)
        return TRUE;
    gboolean tables = e->value->kind == INSEE_CFG_ARRAY;
    for (guint i = 0; tables && i < e->value->items->len; i++)
        tables = ((insee_cfg_node *)g_ptr_array_index(e->value->items, i))->kind == INSEE_CFG_TABLE;
    if (!tables) {
        fail_at(err, INSEE_CONFIG_ERROR_INVALID, e->pos,
                "'%s' must be an array of tables: start each one with a [[%s]] header (double "
                "brackets), and write its own tables as [%s.traffic]", name, name, name);
        return FALSE;
    }
    *len = e->value->items->len;
    return TRUE;
}

gboolean insee_config_check_subtables(insee_config *cfg, const char *section, const char *const *known,
                                      GError **err)
{
    insee_cfg_node *table;
    if (!section_table(cfg, section, &table, err))
        return FALSE;
    for (guint k = 0; table && k < table->items->len; k++) {
        const insee_cfg_entry *e = g_ptr_array_index(table->items, k);
        if (e->value->kind != INSEE_CFG_TABLE || g_strv_contains(known, e->key))
            continue;
        GString *s = g_string_new(NULL);
        append_quoted_list(s, known, g_strv_length((char **)known), "");
        fail_at(err, INSEE_CONFIG_ERROR_INVALID, e->pos, "unknown table '%s' in %s; the tables it may hold: %s",
                e->key, section, s->str);
        g_string_free(s, TRUE);
        return FALSE;
    }
    return TRUE;
}

static gboolean bare_key(const char *s)
{
    return s[0] && !s[strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")];
}

/* Set section.key to `value` (taken), replacing what was there. */
static gboolean put_value(insee_config *cfg, const char *section, const char *key,
                          insee_cfg_node *value, insee_cfg_pos at, GError **err)
{
    insee_cfg_node *table;
    if (!section_table(cfg, section, &table, err)) {
        insee_cfg_node_free(value);
        return FALSE;
    }
    if (!table) {
        table = insee_cfg_node_new(INSEE_CFG_TABLE, at);
        insee_cfg_table_append(cfg->root, section, strlen(section), at, table);
    }
    insee_cfg_entry *e = table_find(table, key);
    if (e) {
        insee_cfg_node_free(e->value);
        e->value = value;
        e->pos = at;
    } else {
        insee_cfg_table_append(table, key, strlen(key), at, value);
    }
    return TRUE;
}

/* Before `section.plugin` becomes `plugin`: when that changes the plugin,
   the keys the embedded default wrote in that table were for the old one
   and go (the other plugin may not have them); keys an override wrote
   stay. */
static void drop_defaults_of_other_plugin(insee_config *cfg, const char *section,
                                          const insee_cfg_node *plugin)
{
    insee_cfg_node *table;
    if (!section_table(cfg, section, &table, NULL) || !table)
        return;
    const insee_cfg_entry *old = table_find(table, "plugin");
    if (old && old->value->kind == INSEE_CFG_STRING && plugin->kind == INSEE_CFG_STRING &&
        strcmp(old->value->s, plugin->s) == 0)
        return;
    const char *document = g_ptr_array_index(cfg->origins, 0);
    for (guint k = table->items->len; k-- > 0;) {
        const insee_cfg_entry *e = g_ptr_array_index(table->items, k);
        if (strcmp(e->key, "plugin") != 0 && e->pos.origin == document)
            g_ptr_array_remove_index(table->items, k);
    }
}

gboolean insee_config_set(insee_config *cfg, const char *assignment, GError **err)
{
    const char *origin = add_origin(cfg, g_strdup_printf("--set %s", assignment));
    const insee_cfg_pos at = {origin, 0, 0};
    const char *eq = strchr(assignment, '=');
    char *lhs = g_strstrip(g_strndup(assignment, eq ? (gsize)(eq - assignment) : strlen(assignment)));
    char *dot = strchr(lhs, '.');
    if (dot)
        *dot = '\0';
    gboolean ok = FALSE;
    if (!eq || !dot || !bare_key(lhs) || !bare_key(dot + 1)) {
        fail_at(err, INSEE_CONFIG_ERROR_PARSE, at,
                "expected section.key=value with one dot in the name, e.g. --set traffic.load=0.3");
        g_free(lhs);
        return FALSE;
    }
    const char *section = lhs, *key = dot + 1;
    char *text = g_strstrip(g_strdup(eq + 1));
    if (!text[0]) {
        fail_at(err, INSEE_CONFIG_ERROR_PARSE, at,
                "no value after '='; write e.g. --set %s.%s=0.3 (an empty string is --set %s.%s='\"\"')",
                section, key, section, key);
    } else {
        char *why = NULL;
        insee_cfg_node *value = parse_value(text, origin, &why);
        g_free(why);
        if (!value) { /* not TOML: the raw text is a string, so --set router.plugin=dally works */
            value = insee_cfg_node_new(INSEE_CFG_STRING, at);
            value->s = g_strdup(text);
        }
        if (cfg->defaults && strcmp(key, "plugin") == 0)
            drop_defaults_of_other_plugin(cfg, section, value);
        ok = put_value(cfg, section, key, value, at, err);
    }
    g_free(text);
    g_free(lhs);
    return ok;
}

gboolean insee_config_set_string(insee_config *cfg, const char *section, const char *key,
                                 const char *value, const char *origin, GError **err)
{
    const insee_cfg_pos at = {add_origin(cfg, g_strdup(origin)), 0, 0};
    insee_cfg_node *node = insee_cfg_node_new(INSEE_CFG_STRING, at);
    node->s = g_strdup(value);
    return put_value(cfg, section, key, node, at, err);
}

/* ---- sections ----------------------------------------------------------- */

gboolean insee_config_has_section(insee_config *cfg, const char *section)
{
    insee_cfg_node *table = NULL;
    if (!strchr(section, '.'))
        return table_find(cfg->root, section) != NULL;
    return section_table(cfg, section, &table, NULL) && table;
}

gboolean insee_config_check_sections(insee_config *cfg, const char *const *known, GError **err)
{
    size_t n_known = g_strv_length((char **)known);
    for (guint k = 0; k < cfg->root->items->len; k++) {
        const insee_cfg_entry *e = g_ptr_array_index(cfg->root->items, k);
        if (g_strv_contains(known, e->key))
            continue;
        GString *s = g_string_new(NULL);
        const char *near = insee_suggest(e->key, known, n_known);
        if (near)
            g_string_append_printf(s, "did you mean [%s]? (known sections: ", near);
        else
            g_string_append(s, "remove or rename it (known sections: ");
        append_quoted_list(s, known, n_known, "");
        fail_at(err, INSEE_CONFIG_ERROR_INVALID, e->pos, "unknown section [%s]; %s)", e->key, s->str);
        g_string_free(s, TRUE);
        return FALSE;
    }
    return TRUE;
}

/* The `plugin` string of a table (NULL when absent); FALSE when it is not a
   string. */
static gboolean table_string(const char *section, const insee_cfg_node *table, const char *key,
                             const char **name, GError **err)
{
    const insee_cfg_entry *e = table ? table_find(table, key) : NULL;
    *name = NULL;
    if (!e)
        return TRUE;
    if (e->value->kind != INSEE_CFG_STRING) {
        GString *k = g_string_new(NULL);
        append_kind(k, e->value);
        fail_at(err, INSEE_CONFIG_ERROR_INVALID, e->value->pos,
                "%s.%s must be a string naming a plugin, not %s; write e.g. %s = \"name\"", section,
                key, k->str, key);
        g_string_free(k, TRUE);
        return FALSE;
    }
    *name = e->value->s;
    return TRUE;
}

gboolean insee_config_plugin_name(insee_config *cfg, const char *section, const char *fallback,
                                  const char **out, GError **err)
{
    insee_cfg_node *table;
    const char *name;
    if (!section_table(cfg, section, &table, err) || !table_string(section, table, "plugin", &name, err))
        return FALSE;
    if (!name)
        name = fallback;
    /* A copy in `owned`: stays valid even if an override replaces the node. */
    *out = name ? own(cfg->owned, g_strdup(name)) : NULL;
    if (name)
        g_hash_table_replace(cfg->plugins, g_strdup(section), (gpointer)*out);
    return TRUE;
}

gboolean insee_config_plugin_key(insee_config *cfg, const char *section, const char *key,
                                 const char *fallback, const char **out, GError **err)
{
    insee_cfg_node *table;
    const char *name;
    if (!section_table(cfg, section, &table, err) || !table_string(section, table, key, &name, err))
        return FALSE;
    *out = name ? own(cfg->owned, g_strdup(name)) : fallback;
    return TRUE;
}

/* ---- paths -------------------------------------------------------------- */

/* `path` as written at `pos`: a relative path written in the document's
   file is relative to that file's directory, so an experiment and the
   files it names can move together. One from --set or a default stays
   relative to the working directory. */
static const char *resolve_at(insee_config *cfg, insee_cfg_pos pos, const char *path)
{
    if (!cfg->dir || pos.origin != g_ptr_array_index(cfg->origins, 0) || !path[0] ||
        g_path_is_absolute(path))
        return path;
    return own(cfg->owned, g_build_filename(cfg->dir, path, NULL));
}

const char *insee_config_path(insee_config *cfg, const char *section, const char *key,
                              const char *path)
{
    insee_cfg_node *table;
    const insee_cfg_entry *e =
        section_table(cfg, section, &table, NULL) && table ? table_find(table, key) : NULL;
    return e ? resolve_at(cfg, e->value->pos, path) : path;
}

/* ---- binding ------------------------------------------------------------ */

/* "the kernel and router plugin 'dally'" */
static char *owners_words(const insee_binding *bindings, size_t n)
{
    GString *s = g_string_new(NULL);
    for (size_t b = 0; b < n; b++)
        g_string_append_printf(s, "%s%s", b == 0 ? "" : b + 1 == n ? " and " : ", ", bindings[b].owner);
    if (!n)
        g_string_append(s, "nobody (this section takes only 'plugin')");
    return g_string_free(s, FALSE);
}

/* The top-level tables that hold tables of their own ("[scheduler.workload]"):
   their sub-tables are not keys, insee_config_check_subtables() checks them. */
static const char *const nested_sections[] = {"scheduler", NULL};

static gboolean check_keys(const char *section, const insee_cfg_node *table, const insee_binding *bindings,
                           size_t n_bindings, GError **err)
{
    GPtrArray *valid = g_ptr_array_new();
    g_ptr_array_add(valid, (gpointer) "plugin");
    for (size_t b = 0; b < n_bindings; b++)
        for (const insee_param_def *d = bindings[b].defs; d && d->name; d++)
            g_ptr_array_add(valid, (gpointer)d->name);
    gboolean ok = TRUE;
    for (guint k = 0; ok && k < table->items->len; k++) {
        const insee_cfg_entry *e = g_ptr_array_index(table->items, k);
        const char *const *names = (const char *const *)valid->pdata;
        gboolean known = e->value->kind == INSEE_CFG_TABLE &&
                         (strchr(section, '[') || g_strv_contains(nested_sections, section));
        for (guint j = 0; j < valid->len && !known; j++)
            known = strcmp(names[j], e->key) == 0;
        if (known)
            continue;
        const char *near = insee_suggest(e->key, names, valid->len);
        GString *hint = g_string_new(NULL);
        if (near)
            g_string_append_printf(hint, "did you mean '%s'? (valid keys: ", near);
        else
            g_string_append(hint, "remove or rename it (valid keys: ");
        append_quoted_list(hint, names, valid->len, "");
        char *owners = owners_words(bindings, n_bindings);
        fail_at(err, INSEE_CONFIG_ERROR_INVALID, e->pos, "unknown key '%s.%s' for %s; %s)", section, e->key,
                owners, hint->str);
        g_free(owners);
        g_string_free(hint, TRUE);
        ok = FALSE;
    }
    g_ptr_array_unref(valid);
    return ok;
}

static gboolean bind_one(insee_config *cfg, const char *section, const insee_cfg_node *table,
                         insee_binding *binding, GError **err)
{
    size_t n = 0;
    while (binding->defs && binding->defs[n].name)
        n++;
    insee_value *values = n ? own(cfg->owned, g_new0(insee_value, n)) : NULL;
    for (size_t k = 0; k < n; k++) {
        const insee_param_def *def = &binding->defs[k];
        const insee_cfg_entry *e = table ? table_find(table, def->name) : NULL;
        if (e) {
            char *why = NULL;
            const insee_cfg_node *where;
            if (!convert_value(e->value, def, cfg->owned, &values[k], &why, &where)) {
                fail_at(err, INSEE_CONFIG_ERROR_INVALID, where->pos, "%s.%s (%s) %s", section, def->name,
                        binding->owner, why);
                g_free(why);
                return FALSE;
            }
            if (def->type == INSEE_PARAM_PATH)
                values[k].s = resolve_at(cfg, e->value->pos, values[k].s);
        } else if (def->default_value) {
            if (!convert_default(def, binding->owner, cfg->owned, &values[k], err))
                return FALSE;
        } else {
            const char *document = g_ptr_array_index(cfg->origins, 0);
            insee_cfg_pos at = table ? table->pos : (insee_cfg_pos){document, 0, 0};
            GString *hint = g_string_new(NULL);
            append_example(hint, def);
            fail_at(err, INSEE_CONFIG_ERROR_INVALID, at,
                    "missing required key '%s.%s' of %s (%s); add it under [%s], e.g. %s = %s", section,
                    def->name, binding->owner, def->doc ? def->doc : "no description", section, def->name,
                    hint->str);
            g_string_free(hint, TRUE);
            return FALSE;
        }
    }
    binding->values = values;
    return TRUE;
}

static void append_value(GString *out, const insee_value *v)
{
    switch (v->type) {
    case INSEE_PARAM_BOOL: g_string_append(out, v->b ? "true" : "false"); break;
    case INSEE_PARAM_INT: g_string_append_printf(out, "%" PRId64, v->i); break;
    case INSEE_PARAM_DOUBLE: append_toml_float(out, v->d); break;
    case INSEE_PARAM_STRING:
    case INSEE_PARAM_PATH:
    case INSEE_PARAM_ENUM: append_toml_string(out, v->s); break;
    case INSEE_PARAM_INT_LIST:
        g_string_append_c(out, '[');
        for (size_t k = 0; k < v->list_len; k++)
            g_string_append_printf(out, "%s%" PRId64, k ? ", " : "", v->list[k]);
        g_string_append_c(out, ']');
        break;
    }
}

/* Whether a bound value is its parameter's default: compared as the echo
   writes both, so 0.30 and 0.3 agree. */
static gboolean is_default(insee_config *cfg, const insee_param_def *def, const char *owner,
                           const insee_value *v)
{
    insee_value d;
    if (!def->default_value || !convert_default(def, owner, cfg->owned, &d, NULL))
        return FALSE;
    GString *a = g_string_new(NULL), *b = g_string_new(NULL);
    append_value(a, v);
    append_value(b, &d);
    gboolean same = g_string_equal(a, b);
    g_string_free(a, TRUE);
    g_string_free(b, TRUE);
    return same;
}

/* The echo of one bound section; a key two tables share is written once.
   `differs` gets a "section.key=value" line per key not at its default. */
static char *render_section(insee_config *cfg, const char *section, const char *plugin,
                            const insee_binding *bindings, size_t n, char **differs)
{
    GString *diff = g_string_new(NULL);
    GString *s = g_string_new(NULL);
    char *base;
    guint index;
    const char *sub;
    if (!split_element(section, &base, &index, &sub)) {
        g_string_append_printf(s, "[%s]\n", section);
    } else {
        if (sub)
            g_string_append_printf(s, "[%s.%s]\n", base, sub);
        else
            g_string_append_printf(s, "[[%s]]\n", base);
        g_free(base);
    }
    if (plugin) {
        g_string_append(s, "plugin = ");
        append_toml_string(s, plugin);
        g_string_append_c(s, '\n');
    }
    GHashTable *written = g_hash_table_new(g_str_hash, g_str_equal);
    for (size_t b = 0; b < n; b++) {
        for (size_t k = 0; bindings[b].defs && bindings[b].defs[k].name; k++) {
            const char *name = bindings[b].defs[k].name;
            if (!g_hash_table_add(written, (gpointer)name))
                continue;
            g_string_append_printf(s, "%s = ", name);
            append_value(s, &bindings[b].values[k]);
            g_string_append_c(s, '\n');
            if (!is_default(cfg, &bindings[b].defs[k], bindings[b].owner, &bindings[b].values[k])) {
                g_string_append_printf(diff, "%s.%s=", section, name);
                append_value(diff, &bindings[b].values[k]);
                g_string_append_c(diff, '\n');
            }
        }
    }
    g_hash_table_unref(written);
    *differs = g_string_free(diff, FALSE);
    return g_string_free(s, FALSE);
}

static void record_echo(insee_config *cfg, const char *section, char *text, char *differs)
{
    echo_section *e = NULL;
    for (guint k = 0; k < cfg->echo->len && !e; k++)
        if (strcmp(((echo_section *)g_ptr_array_index(cfg->echo, k))->section, section) == 0)
            e = g_ptr_array_index(cfg->echo, k);
    if (!e) {
        e = g_new0(echo_section, 1);
        e->section = g_strdup(section);
        g_ptr_array_add(cfg->echo, e);
    }
    g_free(e->text);
    g_free(e->differs);
    e->text = text;
    e->differs = differs;
}

gboolean insee_config_bind(insee_config *cfg, const char *section, insee_binding *bindings, size_t n_bindings,
                           GError **err)
{
    for (size_t b = 0; b < n_bindings; b++)
        bindings[b].values = NULL;
    insee_cfg_node *table;
    const char *plugin;
    if (!section_table(cfg, section, &table, err) || !table_string(section, table, "plugin", &plugin, err) ||
        (table && !check_keys(section, table, bindings, n_bindings, err)))
        return FALSE;
    for (size_t b = 0; b < n_bindings; b++) {
        if (!bind_one(cfg, section, table, &bindings[b], err)) {
            for (size_t j = 0; j < n_bindings; j++)
                bindings[j].values = NULL;
            return FALSE;
        }
    }
    if (!plugin)
        plugin = g_hash_table_lookup(cfg->plugins, section);
    char *differs;
    char *text = render_section(cfg, section, plugin, bindings, n_bindings, &differs);
    record_echo(cfg, section, text, differs);
    return TRUE;
}

char *insee_config_echo(insee_config *cfg)
{
    GString *s = g_string_new(NULL);
    for (guint k = 0; k < cfg->echo->len; k++) {
        const echo_section *e = g_ptr_array_index(cfg->echo, k);
        if (k)
            g_string_append_c(s, '\n');
        g_string_append(s, e->text);
    }
    return g_string_free(s, FALSE);
}

static int compare_lines(gconstpointer a, gconstpointer b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

char *insee_config_differs(insee_config *cfg, const char *const *skip)
{
    GPtrArray *lines = g_ptr_array_new_with_free_func(g_free);
    for (guint k = 0; k < cfg->echo->len; k++) {
        const echo_section *e = g_ptr_array_index(cfg->echo, k);
        if (skip && g_strv_contains(skip, e->section))
            continue;
        char **l = g_strsplit(e->differs, "\n", -1);
        for (char **x = l; *x; x++)
            if (**x)
                g_ptr_array_add(lines, g_strdup(*x));
        g_strfreev(l);
    }
    g_ptr_array_sort(lines, compare_lines);
    g_ptr_array_add(lines, NULL);
    char *joined = g_strjoinv(";", (char **)lines->pdata);
    g_ptr_array_unref(lines);
    return joined;
}

gboolean insee_config_has_key(insee_config *cfg, const char *section, const char *key)
{
    insee_cfg_node *table;
    return section_table(cfg, section, &table, NULL) && table && table_find(table, key);
}
