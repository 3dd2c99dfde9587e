/* sdk/conformance/settings.c — which parameter settings a suite exercises,
 * and binding them exactly as the kernel does (TOML text through
 * insee_config_load_string + insee_config_bind), so a plugin under test sees
 * the same values it would in an experiment. */
#include <string.h>

#include "conform.h"

static void setting_free(gpointer p)
{
    conform_setting *s = p;
    g_free(s->label);
    g_free(s->line);
    g_free(s);
}

static void add_setting(GPtrArray *out, const char *line)
{
    conform_setting *s = g_new0(conform_setting, 1);
    s->label = g_strdup(*line ? line : "defaults");
    s->line = g_strdup(line);
    g_ptr_array_add(out, s);
}

static gboolean in_range(const insee_param_def *d, double v)
{
    return d->min > d->max || (v >= d->min && v <= d->max);
}

/* Items in a default list's TOML text ("[8, 8]" -> 2); 0 when empty. */
static size_t list_length(const char *text)
{
    size_t n = 0;
    gboolean item = FALSE;
    for (const char *c = text; *c; c++) {
        if (g_ascii_isdigit(*c) && !item) {
            n++;
            item = TRUE;
        } else if (*c == ',') {
            item = FALSE;
        }
    }
    return n;
}

/* "[a, b, a, ...]" of `len` items alternating a and b, or NULL when an item
   is out of the parameter's range. */
static char *alternating_list(const insee_param_def *d, size_t len, long a, long b)
{
    if (!in_range(d, (double)a) || (len > 1 && !in_range(d, (double)b)))
        return NULL;
    GString *s = g_string_new("[");
    for (size_t i = 0; i < len; i++)
        g_string_append_printf(s, "%s%ld", i ? ", " : "", i % 2 ? b : a);
    g_string_append_c(s, ']');
    return g_string_free(s, FALSE);
}

static void add_list_variants(GPtrArray *out, const insee_param_def *d)
{
    size_t len = list_length(d->default_value);
    if (len == 0)
        return;
    /* Small networks that differ in what bugs hide behind: odd and unequal
       sides (5x3), a side of 2 (double links between the same pair), one
       more dimension, a single dimension. */
    char *variants[] = {
        alternating_list(d, len, 5, 3),
        alternating_list(d, len, 4, 2),
        len < 4 ? alternating_list(d, len + 1, 3, 3) : NULL,
        len > 1 ? alternating_list(d, 1, 7, 7) : NULL,
    };
    for (size_t i = 0; i < G_N_ELEMENTS(variants); i++) {
        if (variants[i] && strcmp(variants[i], d->default_value) != 0) {
            char *line = g_strdup_printf("%s = %s", d->name, variants[i]);
            add_setting(out, line);
            g_free(line);
        }
        g_free(variants[i]);
    }
}

/* One --set override split into the section it is addressed to (a key
   written without one belongs to the plugin's own section) and its key;
   both point into `buf`. */
typedef struct override {
    char buf[256];
    const char *section;
    char *key;
    gboolean qualified; /* the text names the section */
} override;

static void parse_override(const conform_ctx *ctx, const char *text, override *o)
{
    g_strlcpy(o->buf, text, sizeof o->buf);
    o->buf[strcspn(o->buf, "=")] = '\0';
    char *dot = strchr(o->buf, '.');
    o->qualified = dot != NULL;
    o->section = insee_kind_name(ctx->plugin->desc->kind);
    o->key = o->buf;
    if (dot) {
        *dot = '\0';
        o->section = o->buf;
        o->key = dot + 1;
    }
    o->key = g_strstrip(o->key);
}

gboolean conform_overridden(const conform_ctx *ctx, const char *section, const char *key)
{
    for (const char *const *text = ctx->overrides; text && *text; text++) {
        override o;
        parse_override(ctx, *text, &o);
        if (strcmp(o.section, section) == 0 && (!key || strcmp(o.key, key) == 0))
            return TRUE;
    }
    return FALSE;
}

static gboolean in_table(const insee_param_def *defs, const char *key)
{
    for (const insee_param_def *d = defs; d && d->name; d++)
        if (strcmp(d->name, key) == 0)
            return TRUE;
    return FALSE;
}

GPtrArray *conform_settings(const conform_ctx *ctx, gboolean shapes)
{
    const char *section = insee_kind_name(ctx->plugin->desc->kind);
    GPtrArray *out = g_ptr_array_new_with_free_func(setting_free);
    add_setting(out, "");
    for (const insee_param_def *d = ctx->plugin->desc->params; d && d->name; d++) {
        if (!d->default_value || conform_overridden(ctx, section, d->name))
            continue; /* required, or fixed by --set: only --set gives it a value */
        if (d->type == INSEE_PARAM_ENUM && d->choices) {
            char **choices = g_strsplit(d->choices, "|", -1);
            for (char **c = choices; *c; c++) {
                char *quoted = g_strdup_printf("\"%s\"", *c);
                if (strcmp(quoted, d->default_value) != 0) {
                    char *line = g_strdup_printf("%s = %s", d->name, quoted);
                    add_setting(out, line);
                    g_free(line);
                }
                g_free(quoted);
            }
            g_strfreev(choices);
        } else if (d->type == INSEE_PARAM_BOOL) {
            char *line = g_strdup_printf("%s = %s", d->name,
                                         strcmp(d->default_value, "true") == 0 ? "false" : "true");
            add_setting(out, line);
            g_free(line);
        } else if (shapes && d->type == INSEE_PARAM_INT_LIST) {
            add_list_variants(out, d);
        } else if (shapes && d->type == INSEE_PARAM_INT) {
            gint64 v = g_ascii_strtoll(d->default_value, NULL, 10);
            gint64 other = in_range(d, (double)(v + 1)) ? v + 1 : v - 1;
            if (in_range(d, (double)other)) {
                char *line = g_strdup_printf("%s = %" G_GINT64_FORMAT, d->name, other);
                add_setting(out, line);
                g_free(line);
            }
        }
    }
    return out;
}

gboolean conform_apply_overrides(const conform_ctx *ctx, insee_config *cfg, const char *section,
                                 const insee_param_def *only, GError **err)
{
    for (const char *const *text = ctx->overrides; text && *text; text++) {
        override o;
        parse_override(ctx, *text, &o);
        if ((section && strcmp(o.section, section) != 0) || (only && !in_table(only, o.key)))
            continue;
        char *assignment =
            o.qualified ? g_strdup(*text) : g_strdup_printf("%s.%s", o.section, *text);
        gboolean ok = insee_config_set(cfg, assignment, err);
        g_free(assignment);
        if (!ok)
            return FALSE;
    }
    return TRUE;
}

/* The plugin's own section at setting `s`, with the overrides addressed to
   it (with `only`, just those of the keys in that table), bound against the
   plugin's table as the kernel binds it. The config owns *values. */
static insee_config *bind_setting(const conform_ctx *ctx, const conform_setting *s,
                                  const insee_param_def *only, insee_value **values, GError **err)
{
    const insee_plugin_desc *desc = ctx->plugin->desc;
    const char *section = insee_kind_name(desc->kind);
    char *text = g_strdup_printf("[%s]\n%s\n", section, s->line);
    char *origin = g_strdup_printf("<insee-conform setting: %s>", s->label);
    insee_config *cfg = insee_config_load_string(text, origin, err);
    g_free(text);
    g_free(origin);
    if (!cfg)
        return NULL;
    char *owner = g_strdup_printf("%s plugin '%s'", section, desc->name);
    insee_binding b = {.defs = desc->params, .owner = owner, .values = NULL};
    gboolean bound = conform_apply_overrides(ctx, cfg, section, only, err) &&
                     insee_config_bind(cfg, section, &b, 1, err);
    g_free(owner);
    if (!bound) {
        insee_config_free(cfg);
        return NULL;
    }
    *values = b.values;
    return cfg;
}

gboolean conform_validate_own(const conform_ctx *ctx, GError **err)
{
    const char *section = insee_kind_name(ctx->plugin->desc->kind);
    for (const char *const *text = ctx->overrides; text && *text; text++) {
        override o;
        parse_override(ctx, *text, &o);
        /* A path routing's mock network is the one [topology] describes. */
        gboolean network = ctx->plugin->desc->kind == INSEE_KIND_ROUTING &&
                           strcmp(o.section, "topology") == 0;
        if (strcmp(o.section, section) != 0 && !network) {
            g_set_error(err, INSEE_CONFIG_ERROR, INSEE_CONFIG_ERROR_INVALID,
                        "--set %s: the %s checks create the plugin on a mock host, so only "
                        "[%s] keys apply (other sections are for the experiments of a router's "
                        "checks; a path routing's also take [topology] keys, its network)",
                        *text, section, section);
            return FALSE;
        }
    }
    char label[] = "defaults", line[] = "";
    conform_setting defaults = {.label = label, .line = line};
    insee_value *values = NULL;
    insee_config *cfg = bind_setting(ctx, &defaults, NULL, &values, err);
    gboolean bound = cfg != NULL;
    insee_config_free(cfg);
    return bound;
}

conform_instance *conform_instance_new(const conform_ctx *ctx, const conform_setting *s,
                                       const insee_host *host, conform_create_fn create,
                                       GError **bind_err, insee_error *create_err)
{
    /* Only the plugin's own parameters: the kernel's keys of its section
       (router vcs, ...) shape the experiments and the mock host instead. A
       plugin without parameters has an empty table, not none, or every
       override of its section would reach it. */
    static const insee_param_def no_params[] = {{0}};
    const insee_param_def *own = ctx->plugin->desc->params;
    insee_value *values = NULL;
    insee_config *cfg = bind_setting(ctx, s, own ? own : no_params, &values, bind_err);
    if (!cfg)
        return NULL;
    *create_err = (insee_error){0};
    void *self = create(host, values, create_err);
    if (!self) {
        if (!create_err->message[0])
            insee_error_set(create_err, INSEE_ERR_PARAM,
                            "create() returned NULL without an error message");
        insee_config_free(cfg);
        return NULL;
    }
    conform_instance *inst = g_new0(conform_instance, 1);
    inst->setting = s;
    inst->cfg = cfg;
    inst->self = self;
    return inst;
}

void conform_instance_free(conform_instance *inst, void (*destroy)(void *self))
{
    if (!inst)
        return;
    destroy(inst->self);
    insee_config_free(inst->cfg);
    g_free(inst);
}
