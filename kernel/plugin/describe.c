/* kernel/plugin/describe.c — human and JSON descriptions of plugins; contract
 * in describe.h. */
#include "describe.h"

#include <math.h>
#include <string.h>

static const char *const param_type_names[] = {
    [INSEE_PARAM_BOOL] = "bool",     [INSEE_PARAM_INT] = "int",
    [INSEE_PARAM_DOUBLE] = "double", [INSEE_PARAM_STRING] = "string",
    [INSEE_PARAM_ENUM] = "enum",     [INSEE_PARAM_INT_LIST] = "int_list",
    [INSEE_PARAM_PATH] = "path",
};

static const char *param_type_name(insee_param_type type)
{
    if ((unsigned)type >= G_N_ELEMENTS(param_type_names) || !param_type_names[type])
        return "unknown";
    return param_type_names[type];
}

/* The header says min/max only mean something for these types; other types
   often carry a zero-initialised [0, 0] that is not a range. */
static gboolean param_has_range(const insee_param_def *d)
{
    return (d->type == INSEE_PARAM_INT || d->type == INSEE_PARAM_DOUBLE ||
            d->type == INSEE_PARAM_INT_LIST) &&
           d->min <= d->max;
}

/* Shortest of %.15g / %.17g that reads back exactly: "0.1", not
   "0.10000000000000001". Locale-independent, so JSON stays valid. */
static void append_number(GString *out, double v)
{
    char buf[G_ASCII_DTOSTR_BUF_SIZE];
    g_ascii_formatd(buf, sizeof buf, "%.15g", v);
    if (g_ascii_strtod(buf, NULL) != v)
        g_ascii_formatd(buf, sizeof buf, "%.17g", v);
    g_string_append(out, buf);
}

/* Display width of a UTF-8 string in columns, counting lead bytes only; it
   never reads past the terminator even on invalid UTF-8. */
static size_t text_width(const char *s)
{
    size_t w = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if ((*p & 0xC0) != 0x80)
            w++;
    return w;
}

static void append_padded(GString *out, const char *s, size_t width)
{
    g_string_append(out, s);
    for (size_t w = text_width(s); w < width; w++)
        g_string_append_c(out, ' ');
}

/* ---- list ---------------------------------------------------------------- */

static int compare_kind_name(gconstpointer a, gconstpointer b)
{
    const insee_plugin *pa = *(const insee_plugin *const *)a;
    const insee_plugin *pb = *(const insee_plugin *const *)b;
    if (pa->kind != pb->kind)
        return pa->kind < pb->kind ? -1 : 1;
    return strcmp(pa->name, pb->name);
}

static const char *or_dash(const char *s)
{
    return s ? s : "-";
}

enum { COL_KIND, COL_NAME, COL_VERSION, COL_SUMMARY, COL_PATH, COLUMNS };

static void list_row(const insee_plugin *p, const char *cell[COLUMNS])
{
    cell[COL_KIND] = insee_kind_name(p->kind);
    cell[COL_NAME] = p->name;
    cell[COL_VERSION] = or_dash(p->version);
    cell[COL_SUMMARY] = or_dash(p->summary);
    cell[COL_PATH] = p->path;
}

static void append_row(GString *out, const char *const cell[COLUMNS], const size_t width[COLUMNS])
{
    /* The last column is not padded: no trailing blanks. */
    for (int c = 0; c < COLUMNS; c++)
        append_padded(out, cell[c], c == COL_PATH ? 0 : width[c] + 2);
    g_string_append_c(out, '\n');
}

void insee_registry_describe_list(const insee_registry *reg, GString *out)
{
    const GPtrArray *all = insee_registry_plugins(reg);
    GPtrArray *usable = g_ptr_array_new();
    guint refused = 0;
    for (guint i = 0; i < all->len; i++) {
        insee_plugin *p = g_ptr_array_index(all, i);
        if (p->refused)
            refused++;
        else
            g_ptr_array_add(usable, p);
    }
    g_ptr_array_sort(usable, compare_kind_name);

    static const char *const titles[COLUMNS] = {"KIND", "NAME", "VERSION", "SUMMARY", "PATH"};
    const char *cell[COLUMNS];
    size_t width[COLUMNS];
    for (int c = 0; c < COLUMNS; c++)
        width[c] = text_width(titles[c]);
    for (guint i = 0; i < usable->len; i++) {
        list_row(g_ptr_array_index(usable, i), cell);
        for (int c = 0; c < COLUMNS; c++)
            width[c] = MAX(width[c], text_width(cell[c]));
    }

    if (usable->len == 0) {
        g_string_append(out, "no usable plugins\n");
    } else {
        append_row(out, titles, width);
        for (guint i = 0; i < usable->len; i++) {
            list_row(g_ptr_array_index(usable, i), cell);
            append_row(out, cell, width);
        }
    }
    g_ptr_array_free(usable, TRUE);

    if (refused == 0)
        return;
    g_string_append_printf(out, "\nrefused (%u):\n", refused);
    for (guint i = 0; i < all->len; i++) {
        const insee_plugin *p = g_ptr_array_index(all, i);
        if (p->refused)
            g_string_append_printf(out, "  %s\n      %s\n", p->path, p->reason);
    }
}

/* ---- one plugin, text ---------------------------------------------------- */

static void append_field(GString *out, const char *label, const char *value)
{
    g_string_append_printf(out, "%-11s%s\n", label, or_dash(value));
}

static void describe_param_text(const insee_param_def *d, GString *out)
{
    g_string_append_printf(out, "  %s (%s, ", d->name, param_type_name(d->type));
    if (d->default_value)
        g_string_append_printf(out, "default %s", d->default_value);
    else
        g_string_append(out, "required");
    if (param_has_range(d)) {
        g_string_append(out, ", range [");
        append_number(out, d->min);
        g_string_append(out, ", ");
        append_number(out, d->max);
        g_string_append_c(out, ']');
    }
    if (d->choices)
        g_string_append_printf(out, ", choices %s", d->choices);
    if (d->unit)
        g_string_append_printf(out, ", unit %s", d->unit);
    g_string_append(out, ")\n");
    if (d->doc)
        g_string_append_printf(out, "      %s\n", d->doc);
}

static void describe_text(const insee_plugin *p, GString *out)
{
    const insee_plugin_desc *desc = p->desc;
    append_field(out, "name:", p->name);
    append_field(out, "kind:", p->kind ? insee_kind_name(p->kind) : NULL);
    if (desc) {
        append_field(out, "version:", desc->version);
        g_string_append_printf(out, "%-11s%u.%u\n", "ABI:", desc->abi_major, desc->abi_minor);
        append_field(out, "summary:", desc->summary);
        append_field(out, "reference:", desc->reference);
    }
    append_field(out, "path:", p->path);
    if (p->refused) {
        append_field(out, "refused:", p->reason);
        return;
    }
    if (!desc->params || !desc->params[0].name) {
        g_string_append(out, "parameters: none\n");
        return;
    }
    g_string_append(out, "parameters:\n");
    for (const insee_param_def *d = desc->params; d->name; d++)
        describe_param_text(d, out);
}

/* ---- one plugin, JSON ---------------------------------------------------- */

/* A JSON string, or null for NULL. Plugin strings are not trusted to be
   UTF-8; invalid bytes become U+FFFD so the document stays valid. */
void insee_json_string(GString *out, const char *s)
{
    if (!s) {
        g_string_append(out, "null");
        return;
    }
    char *valid = g_utf8_make_valid(s, -1);
    g_string_append_c(out, '"');
    for (const unsigned char *c = (const unsigned char *)valid; *c; c++) {
        switch (*c) {
        case '"': g_string_append(out, "\\\""); break;
        case '\\': g_string_append(out, "\\\\"); break;
        case '\b': g_string_append(out, "\\b"); break;
        case '\f': g_string_append(out, "\\f"); break;
        case '\n': g_string_append(out, "\\n"); break;
        case '\r': g_string_append(out, "\\r"); break;
        case '\t': g_string_append(out, "\\t"); break;
        default:
            if (*c < 0x20)
                g_string_append_printf(out, "\\u%04x", *c);
            else
                g_string_append_c(out, (char)*c);
        }
    }
    g_string_append_c(out, '"');
    g_free(valid);
}

/* JSON has no infinity: an unbounded side is null. */
static void append_json_bound(GString *out, const insee_param_def *d, double v)
{
    if (param_has_range(d) && isfinite(v))
        append_number(out, v);
    else
        g_string_append(out, "null");
}

static void append_json_choices(GString *out, const char *choices)
{
    if (!choices) {
        g_string_append(out, "null");
        return;
    }
    char **items = g_strsplit(choices, "|", -1);
    g_string_append_c(out, '[');
    for (char **item = items; *item; item++) {
        if (item != items)
            g_string_append(out, ", ");
        insee_json_string(out, *item);
    }
    g_string_append_c(out, ']');
    g_strfreev(items);
}

static void describe_param_json(const insee_param_def *d, GString *out)
{
    g_string_append(out, "    {\"name\": ");
    insee_json_string(out, d->name);
    g_string_append(out, ", \"type\": ");
    insee_json_string(out, param_type_name(d->type));
    g_string_append(out, ", \"default\": ");
    insee_json_string(out, d->default_value);
    g_string_append_printf(out, ", \"required\": %s", d->default_value ? "false" : "true");
    g_string_append(out, ", \"min\": ");
    append_json_bound(out, d, d->min);
    g_string_append(out, ", \"max\": ");
    append_json_bound(out, d, d->max);
    g_string_append(out, ", \"choices\": ");
    append_json_choices(out, d->choices);
    g_string_append(out, ", \"unit\": ");
    insee_json_string(out, d->unit);
    g_string_append(out, ", \"doc\": ");
    insee_json_string(out, d->doc);
    g_string_append_c(out, '}');
}

static void append_json_key(GString *out, const char *key, const char *value)
{
    g_string_append_printf(out, "  \"%s\": ", key);
    insee_json_string(out, value);
    g_string_append(out, ",\n");
}

static void describe_json(const insee_plugin *p, GString *out)
{
    const insee_plugin_desc *desc = p->desc;
    char *abi = desc ? g_strdup_printf("%u.%u", desc->abi_major, desc->abi_minor) : NULL;
    g_string_append(out, "{\n");
    append_json_key(out, "name", p->name);
    append_json_key(out, "kind", p->kind ? insee_kind_name(p->kind) : NULL);
    append_json_key(out, "version", desc ? desc->version : NULL);
    append_json_key(out, "abi", abi);
    append_json_key(out, "summary", desc ? desc->summary : NULL);
    append_json_key(out, "reference", desc ? desc->reference : NULL);
    append_json_key(out, "path", p->path);
    g_string_append_printf(out, "  \"refused\": %s,\n", p->refused ? "true" : "false");
    append_json_key(out, "reason", p->reason);
    g_string_append(out, "  \"parameters\": [");
    const insee_param_def *params = desc ? desc->params : NULL;
    for (const insee_param_def *d = params; d && d->name; d++) {
        g_string_append(out, d == params ? "\n" : ",\n");
        describe_param_json(d, out);
    }
    g_string_append(out, params && params->name ? "\n  ]\n}\n" : "]\n}\n");
    g_free(abi);
}

void insee_plugin_describe(const insee_plugin *p, gboolean json, GString *out)
{
    if (json)
        describe_json(p, out);
    else
        describe_text(p, out);
}
