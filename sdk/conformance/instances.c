/* sdk/conformance/instances.c — the instances a kind suite checks: created
 * once by the suite's setup check, one per parameter setting, kept alive
 * (and so checked side by side, which is how a global shows) until the
 * suite's cleanup, and visited in settings order by the later checks.
 */
#include "conform.h"

/* Create one instance per setting into set->created; the verdict and
   detail of conform_instances_setup. */
static conform_status create_all(const conform_ctx *ctx, conform_instances *set,
                                 conform_create_fn create, GString *detail)
{
    for (guint i = 0; i < set->settings->len; i++) {
        const conform_setting *s = set->settings->pdata[i];
        GError *bind_err = NULL;
        insee_error create_err = {0};
        conform_instance *inst =
            conform_instance_new(ctx, s, &set->mock.host, create, &bind_err, &create_err);
        if (inst) {
            g_ptr_array_add(set->created, inst);
            continue;
        }
        const char *why = bind_err ? bind_err->message : create_err.message;
        if (i == 0) {
            g_string_printf(detail, "%s at its defaults: %s", bind_err ? "cannot bind" : "create() failed",
                            why);
            gboolean bound = bind_err == NULL;
            g_clear_error(&bind_err);
            /* Defaults that do not bind mean a required parameter: the
               author passes it with --set, nothing is wrong with the plugin. */
            return bound ? CONFORM_FAIL : CONFORM_SKIP;
        }
        g_string_append_printf(detail, "%snot exercised: %s (%s)", detail->len ? "; " : "", s->label,
                               why);
        g_clear_error(&bind_err);
    }
    GString *names = g_string_new(NULL);
    for (guint i = 0; i < set->created->len; i++) {
        const conform_instance *inst = set->created->pdata[i];
        g_string_append_printf(names, "%s%s", i ? "; " : "", inst->setting->label);
    }
    g_string_prepend(detail, detail->len ? "; " : "");
    g_string_prepend(detail, names->str);
    g_string_prepend(detail, "settings: ");
    g_string_free(names, TRUE);
    return CONFORM_PASS;
}

conform_status conform_instances_setup(conform_ctx *ctx, gboolean network, gboolean shapes,
                                       conform_create_fn create, void (*destroy)(void *self),
                                       GString *detail)
{
    conform_instances *set = g_new0(conform_instances, 1);
    ctx->state = set;
    set->settings = conform_settings(ctx, shapes);
    set->created = g_ptr_array_new();
    set->destroy = destroy;
    GError *err = NULL;
    /* A path routing may need a topology of some kind (`native`: one with a
       routing of its own): --set topology.* chooses its network. */
    gboolean own = ctx->plugin->desc->kind == INSEE_KIND_ROUTING &&
                   conform_overridden(ctx, "topology", NULL);
    if (network && !(set->topo = conform_topo_new(ctx, own ? "the --set topology network"
                                                               : "4x4 torus",
                                                  own ? "" : CONFORM_MOCK_NETWORK, own,
                                                  &err))) {
        g_string_printf(detail, "cannot build the mock network: %s", err->message);
        g_error_free(err);
        return CONFORM_SKIP;
    }
    conform_mock_init(&set->mock, set->topo);
    return create_all(ctx, set, create, detail);
}

void conform_instances_cleanup(conform_ctx *ctx)
{
    conform_instances *set = ctx->state;
    if (!set)
        return;
    if (set->derived_free)
        set->derived_free(set->derived);
    for (guint i = 0; i < set->created->len; i++)
        conform_instance_free(set->created->pdata[i], set->destroy);
    g_ptr_array_free(set->created, TRUE);
    g_ptr_array_free(set->settings, TRUE);
    conform_topo_free(set->topo);
    conform_mock_clear(&set->mock);
    g_free(set);
    ctx->state = NULL;
}

conform_instances *conform_instances_get(const conform_ctx *ctx, GString *detail)
{
    conform_instances *set = ctx->state;
    if (set && set->created->len > 0)
        return set;
    g_string_printf(detail, "no instance to check (see %s)", ctx->suite->checks[0].id);
    return NULL;
}

conform_instances *conform_instances_if(const conform_ctx *ctx, gboolean applies, const char *why_not,
                                        GString *detail)
{
    conform_instances *set = conform_instances_get(ctx, detail);
    if (!set || applies)
        return set;
    g_string_assign(detail, why_not);
    return NULL;
}

conform_status conform_each_instance(const conform_ctx *ctx, GString *detail,
                                     conform_instance_fn visit, void *data)
{
    conform_instances *set = conform_instances_get(ctx, detail);
    if (!set)
        return CONFORM_SKIP;
    conform_findings f = {detail, 0};
    for (guint i = 0; i < set->created->len; i++)
        visit(ctx, set->created->pdata[i], &f, data);
    return conform_verdict(&f);
}
