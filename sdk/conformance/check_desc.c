/* sdk/conformance/check_desc.c — checks of the descriptor and the export
 * list, for every kind (docs/architecture.md §5 rules 1 and 2, §7 rule 4).
 * The loader has already refused anything unusable; these checks hold the
 * plugin to the rules the loader tolerates but the ecosystem relies on (one
 * export, readable names, documented parameters). */
#include <string.h>

#include "conform.h"

static const insee_plugin_desc *desc_of(const conform_ctx *ctx)
{
    return ctx->plugin->desc;
}

static conform_status check_exports(conform_ctx *ctx, GString *detail)
{
    GError *err = NULL;
    GPtrArray *names = conform_elf_exports(ctx->path, &err);
    if (!names) {
        g_string_assign(detail, err->message);
        g_error_free(err);
        return CONFORM_FAIL;
    }
    gboolean entry = FALSE;
    GString *others = g_string_new(NULL);
    for (guint i = 0; i < names->len; i++) {
        const char *name = names->pdata[i];
        if (strcmp(name, INSEE_ENTRY_SYMBOL) == 0)
            entry = TRUE;
        else
            g_string_append_printf(others, "%s%s", others->len ? ", " : "", name);
    }
    if (!entry)
        g_string_append(detail, INSEE_ENTRY_SYMBOL " is not in the dynamic symbol table");
    if (others->len)
        g_string_append_printf(detail, "%sother exported symbols (%u): %s", entry ? "" : "; ",
                               names->len - (entry ? 1u : 0u), others->str);
    g_string_free(others, TRUE);
    g_ptr_array_free(names, TRUE);
    return detail->len ? CONFORM_FAIL : CONFORM_PASS;
}

static conform_status check_abi(conform_ctx *ctx, GString *detail)
{
    const insee_plugin_desc *d = desc_of(ctx);
    uint32_t vtable_size = *(const uint32_t *)d->vtable; /* every vtable starts with its size */
    size_t kernel_vtable = insee_kind_vtable_size(d->kind);
    g_string_printf(detail, "built for ABI %u.%u, this kernel is %u.%u", d->abi_major, d->abi_minor,
                    INSEE_ABI_MAJOR, INSEE_ABI_MINOR);
    if (d->abi_major != INSEE_ABI_MAJOR || d->abi_minor > INSEE_ABI_MINOR)
        return CONFORM_FAIL;
    /* A plugin that claims this very minor must have this minor's layouts:
       a different size means it was built with edited headers. */
    if (d->abi_minor == INSEE_ABI_MINOR &&
        (d->size != sizeof(insee_plugin_desc) || vtable_size != kernel_vtable)) {
        g_string_append_printf(detail,
                               "; but its descriptor is %u bytes (expected %zu) and its %s vtable "
                               "%u bytes (expected %zu)",
                               d->size, sizeof(insee_plugin_desc), insee_kind_name(d->kind),
                               vtable_size, kernel_vtable);
        return CONFORM_FAIL;
    }
    return CONFORM_PASS;
}

static conform_status check_name(conform_ctx *ctx, GString *detail)
{
    const char *name = desc_of(ctx)->name;
    gboolean ok = insee_plugin_name_valid(name);
    if (!ok) {
        char *shown = name ? g_strescape(name, NULL) : g_strdup("(null)");
        g_string_printf(detail, "name is \"%s\"", shown);
        g_free(shown);
    }
    return ok ? CONFORM_PASS : CONFORM_FAIL;
}

/* PASS when `text`, the descriptor's `field`, is set, else FAIL saying so. */
static conform_status not_empty(const char *text, const char *field, GString *detail)
{
    if (text && *text)
        return CONFORM_PASS;
    g_string_printf(detail, "%s is empty", field);
    return CONFORM_FAIL;
}

static conform_status check_version(conform_ctx *ctx, GString *detail)
{
    return not_empty(desc_of(ctx)->version, "version", detail);
}

static conform_status check_summary(conform_ctx *ctx, GString *detail)
{
    const char *s = desc_of(ctx)->summary;
    if (!s || !*s)
        g_string_assign(detail, "summary is empty");
    else if (strchr(s, '\n'))
        g_string_assign(detail, "summary spans several lines");
    return detail->len ? CONFORM_FAIL : CONFORM_PASS;
}

static conform_status check_reference(conform_ctx *ctx, GString *detail)
{
    return not_empty(desc_of(ctx)->reference, "reference", detail);
}

static conform_status check_params(conform_ctx *ctx, GString *detail)
{
    const insee_plugin_desc *d = desc_of(ctx);
    char *owner = g_strdup_printf("%s plugin '%s'", insee_kind_name(d->kind), d->name);
    GError *err = NULL;
    gboolean ok = insee_params_check_table(d->params, owner, &err);
    g_free(owner);
    if (!ok) {
        g_string_assign(detail, err->message);
        g_error_free(err);
    }
    return ok ? CONFORM_PASS : CONFORM_FAIL;
}

static conform_status check_param_docs(conform_ctx *ctx, GString *detail)
{
    const insee_param_def *p = desc_of(ctx)->params;
    if (!p || !p->name) {
        g_string_assign(detail, "no parameters");
        return CONFORM_SKIP;
    }
    for (; p->name; p++)
        if (!p->doc || !*p->doc)
            g_string_append_printf(detail, "%s%s", detail->len ? ", " : "undocumented: ", p->name);
    return detail->len ? CONFORM_FAIL : CONFORM_PASS;
}

static const conform_check desc_checks[] = {
    {"desc.exports", CONFORM_ERROR,
     "the entry " INSEE_ENTRY_SYMBOL " is exported and is the only symbol the plugin exports",
     "build with -fvisibility=hidden (insee_add_plugin does) and define the entry with "
     "INSEE_PLUGIN_DEFINE; make every other function and object static",
     check_exports},
    {"desc.abi", CONFORM_ERROR,
     "the ABI version is accepted and the descriptor and vtable sizes match it",
     "rebuild against the SDK headers of the kernel you target, unmodified", check_abi},
    {"desc.name", CONFORM_ERROR, "the name is 1 to 63 characters of [a-z0-9-], not starting or ending with '-'",
     "rename the plugin: the name is what configs write after plugin =", check_name},
    {"desc.version", CONFORM_ERROR, "the version string is not empty",
     "set .version, e.g. \"1.0.0\"", check_version},
    {"desc.summary", CONFORM_ERROR, "the summary is one non-empty line",
     "set .summary: one line saying what the plugin models", check_summary},
    {"desc.reference", CONFORM_WARNING, "the reference (paper, section) is not empty",
     "set .reference to the paper and section the model implements", check_reference},
    {"desc.params", CONFORM_ERROR,
     "the parameter table is well formed (names, types, defaults within range and choices)",
     "fix the entry the message names; the kernel refuses tables that fail this", check_params},
    {"desc.param-docs", CONFORM_WARNING, "every parameter has a doc line",
     "fill .doc: `insee plugins info` prints it as the plugin's manual", check_param_docs},
};

const conform_suite conform_desc_suite = CONFORM_SUITE(0, desc_checks, NULL, NULL);
