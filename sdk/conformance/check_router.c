/* sdk/conformance/check_router.c — the router suite: the router under test
 * runs real experiments through the kernel's engine (kernel/engine/
 * experiment.h) at saturation, then a drain; the report's whole-run counters
 * say whether every packet was delivered exactly once and nothing was left
 * stuck (deadlock freedom).
 *
 * Deadlocks hide: a fully adaptive router with no escape channel drains an
 * 8x8 torus with 2 VCs and locks it up with a single one. So the
 * experiments run on networks of about 64 nodes and on odd sizes, on every
 * test network the router accepts (torus, mesh, fat tree, HyperX, dragonfly; a
 * network whose create() refuses it does not apply), with the fewest VCs
 * its create() accepts as well as the kernel's default. The router's
 * create() is asked on the mock host (conform.h), which forwards topology
 * queries to the very topology the experiment will build, so that probing
 * costs no experiment.
 *
 * The other kinds come from the usual places: the registry holds the plugin
 * under test first, then every --plugin-dir, then the default plugin
 * directory, which must provide the test networks' topologies, the
 * round-robin arbiter, uniform traffic and consecutive placement.
 *
 * A router that declares route() pure (INSEE_ROUTE_PURE) is also called
 * directly on the mock host, idle and early then busy and late, since the
 * kernel reuses a pure router's candidates instead of asking again; like
 * the INSEE_ROUTE_NO_FORWARDED claim, on the first test network create()
 * accepts. A router that declares INSEE_ROUTE_CONCURRENT is asked batches of
 * questions there from two threads at once, each answer held against the
 * one it gives alone.
 */
#include <string.h>

#include "conform.h"
#include "engine/experiment.h"
#include "flow/flow.h"

/* The most VCs tried when looking for the fewest a router accepts: a
   router with hop-indexed VCs needs as many as the longest route (11 on a
   DCell of two levels), and a network it cannot fit is skipped. */
#define VCS_MAX 32u

typedef struct network {
    const char *name;
    const char *toml; /* the lines of its [topology] table */
} network;

/* Two of each family: one of about 64 nodes, where a missing escape channel
   shows within the run, and an odd one (odd rings, unequal sides, an odd
   arity). The claim checks use the first one create() accepts, in this
   order. */
static const network networks[] = {
    {"8x8 torus", "plugin = \"torus\"\ndims = [8, 8]\n"},
    {"5x7 torus", "plugin = \"torus\"\ndims = [5, 7]\n"},
    {"8x8 mesh", "plugin = \"mesh\"\ndims = [8, 8]\n"},
    {"5x7 mesh", "plugin = \"mesh\"\ndims = [5, 7]\n"},
    {"4-ary 3-tree", "plugin = \"kary-ntree\"\nk = 4\nn = 3\n"},
    {"3-ary 3-tree", "plugin = \"kary-ntree\"\nk = 3\nn = 3\n"},
    {"4x4 HyperX", "plugin = \"hyperx\"\ndims = [4, 4]\n"},
    {"3x5 HyperX, trunks of 2", "plugin = \"hyperx\"\ndims = [3, 5]\ntrunking = 2\n"},
    {"dragonfly a=4 h=2 p=2", "plugin = \"dragonfly\"\na = 4\nh = 2\np = 2\n"},
    {"palmtree dragonfly a=3 h=2", "plugin = \"dragonfly\"\na = 3\nh = 2\np = 1\n"
                                   "arrangement = \"palmtree\"\n"},
};

/* --set topology.KEY=VALUE replaces them all with the network it describes. */
static const network set_network = {"the --set topology network", ""};

/* The counters a run leaves, copied out of the experiment's report. */
typedef struct outcome {
    gboolean drained;
    uint64_t cycles, generated, delivered, dropped, in_flight, packet_hops;
    uint64_t sum_generated_ids, sum_delivered_ids;
} outcome;

/* One experiment that started: (setting, network, VCs). */
typedef struct run {
    char *where; /* "mode = \"trc\", 8x8 torus, vcs = 1 (the fewest it accepts)" */
    char *text;  /* the experiment, to run it again */
    char *error; /* why the kernel stopped it (a deadlock diagnosis, a bad
                    candidate, ...); NULL when it ran to the end */
    outcome out;
} run;

/* How one setting fits one network, asked of its create() once. */
typedef struct fit {
    gboolean probed;
    uint32_t fewest;   /* the fewest VCs accepted; 0: none up to VCS_MAX */
    gboolean standard; /* the experiments' own VC count is accepted */
    char *refusal;     /* create()'s message at that count, when refused */
} fit;

typedef struct router_state {
    GPtrArray *settings;
    const network *nets;
    guint n_nets;
    conform_topo **topos;  /* per network; NULL when it could not be built */
    GString *not_built;    /* which could not, and why */
    /* vcs, queue_packets, inject_packets and injectors of the experiments,
       as the kernel binds them (the defaults or --set router.*); when they
       cannot be bound, the mock host's own defaults */
    insee_shape kernel;
    gboolean vcs_fixed;    /* --set router.vcs: no other count is tried */
    fit *fits;             /* [setting * n_nets + network] */
    GArray *runs;          /* run */
} router_state;

static void router_cleanup(conform_ctx *ctx)
{
    router_state *st = ctx->state;
    if (!st)
        return;
    for (guint i = 0; i < st->runs->len; i++) {
        run *r = &g_array_index(st->runs, run, i);
        g_free(r->where);
        g_free(r->text);
        g_free(r->error);
    }
    for (guint i = 0; i < st->settings->len * st->n_nets; i++)
        g_free(st->fits[i].refusal);
    for (guint n = 0; n < st->n_nets; n++)
        conform_topo_free(st->topos[n]);
    g_free(st->topos);
    g_free(st->fits);
    g_string_free(st->not_built, TRUE);
    g_array_free(st->runs, TRUE);
    g_ptr_array_free(st->settings, TRUE);
    g_free(st);
    ctx->state = NULL;
}

/* The test networks: the built-in ones, or the one --set topology.* gives. */
static const network *test_networks(const conform_ctx *ctx, guint *n)
{
    if (conform_overridden(ctx, "topology", NULL)) {
        *n = 1;
        return &set_network;
    }
    *n = G_N_ELEMENTS(networks);
    return networks;
}

/* The experiment of the setting `line` on `net` with `vcs` VCs (0: the
   kernel's default); the overrides are applied to it after loading. */
static char *experiment_text(const conform_ctx *ctx, const network *net, uint32_t vcs,
                             const char *line)
{
    char vcs_line[32] = "";
    if (vcs)
        snprintf(vcs_line, sizeof vcs_line, "vcs = %u\n", vcs);
    return g_strdup_printf("[simulation]\nseed = %u\nwarmup = 1000\ncycles = 10000\ndrain = 20000\n"
                           "[topology]\n%s"
                           "[router]\nplugin = \"%s\"\n%s%s\n"
                           "[arbiter]\nplugin = \"round-robin\"\n"
                           "[traffic]\nplugin = \"uniform\"\nload = 1.0\n"
                           "[placement]\nplugin = \"consecutive\"\n",
                           CONFORM_SEED, net->toml, ctx->plugin->desc->name, vcs_line, line);
}

static insee_config *load_experiment(const conform_ctx *ctx, const char *text, GError **err)
{
    insee_config *cfg = insee_config_load_string(text, "<insee-conform experiment>", err);
    if (cfg && !conform_apply_overrides(ctx, cfg, NULL, NULL, err))
        g_clear_pointer(&cfg, insee_config_free);
    return cfg;
}

/* Bind the first experiment (the first test network, the defaults, the
   overrides) and build its network, without creating the router: the
   kernel's own validation of every --set, and the queues the experiments
   will have. */
static gboolean kernel_shape(const conform_ctx *ctx, insee_shape *out, GError **err)
{
    guint n;
    char *text = experiment_text(ctx, test_networks(ctx, &n), 0, "");
    insee_config *cfg = load_experiment(ctx, text, err);
    g_free(text);
    insee_experiment *exp = cfg ? insee_experiment_new_topology(cfg, ctx->reg, err) : NULL;
    if (exp) {
        const insee_net *net = insee_experiment_network(exp);
        out->vcs = net->vcs;
        out->queue_packets = net->queue_packets;
        out->inject_packets = net->inject_packets;
        out->injectors = net->injectors;
    }
    insee_experiment_free(exp);
    insee_config_free(cfg);
    return exp != NULL;
}

static gboolean router_validate(const conform_ctx *ctx, GError **err)
{
    insee_shape shape;
    return kernel_shape(ctx, &shape, err);
}

/* Build and run one experiment; FALSE with err when either step fails. */
static gboolean run_text(const conform_ctx *ctx, const char *text, outcome *out, GError **err)
{
    insee_config *cfg = load_experiment(ctx, text, err);
    if (!cfg)
        return FALSE;
    insee_experiment *exp = insee_experiment_new(cfg, ctx->reg, err);
    gboolean ok = exp && insee_experiment_run(exp, err);
    if (ok) {
        const insee_report *rep = insee_experiment_report(exp);
        *out = (outcome){
            .drained = rep->drained,
            .cycles = rep->cycles,
            .generated = rep->total_generated,
            .delivered = rep->total_delivered,
            .dropped = rep->total_dropped,
            .in_flight = rep->total_in_flight,
            .packet_hops = rep->total_packet_hops,
            .sum_generated_ids = rep->sum_generated_ids,
            .sum_delivered_ids = rep->sum_delivered_ids,
        };
    }
    insee_experiment_free(exp);
    insee_config_free(cfg);
    return ok;
}

/* A mock host over `topo` with `vcs` VCs and the experiments' queues. */
static void router_mock(const router_state *st, const conform_topo *topo, uint32_t vcs,
                        conform_mock *m)
{
    conform_mock_init(m, topo);
    m->shape.vcs = vcs;
    m->shape.queue_packets = st->kernel.queue_packets;
    m->shape.inject_packets = st->kernel.inject_packets;
    m->shape.injectors = st->kernel.injectors;
}

/* Whether the router's create() at `set` accepts network n with `vcs` VCs;
   its message in *why (when given) if not. */
static gboolean accepts(const conform_ctx *ctx, const router_state *st, const conform_setting *set,
                        guint n, uint32_t vcs, char **why)
{
    const insee_router_vtable *vt = ctx->plugin->vtable;
    conform_mock m;
    router_mock(st, st->topos[n], vcs, &m);
    GError *bind_err = NULL;
    insee_error create_err;
    conform_instance *inst = conform_instance_new(ctx, set, &m.host, vt->create, &bind_err, &create_err);
    if (!inst && why)
        *why = g_strdup(bind_err ? bind_err->message : create_err.message);
    g_clear_error(&bind_err);
    conform_instance_free(inst, vt->destroy);
    return inst != NULL;
}

/* How setting s fits network n: probed on first use. */
static const fit *fit_of(const conform_ctx *ctx, router_state *st, guint s, guint n)
{
    fit *f = &st->fits[s * st->n_nets + n];
    if (f->probed || !st->topos[n])
        return f;
    f->probed = TRUE;
    const conform_setting *set = st->settings->pdata[s];
    uint32_t standard = st->kernel.vcs;
    f->standard = accepts(ctx, st, set, n, standard, &f->refusal);
    if (st->vcs_fixed) {
        f->fewest = f->standard ? standard : 0;
        return f;
    }
    for (uint32_t v = 1; v <= VCS_MAX && !f->fewest; v++)
        if (v == standard ? f->standard : accepts(ctx, st, set, n, v, NULL))
            f->fewest = v;
    return f;
}

/* Whether create() at setting s refused network n with `message`. */
static gboolean refused_with(const router_state *st, guint s, guint n, const char *message)
{
    const fit *f = &st->fits[s * st->n_nets + n];
    return f->probed && !f->fewest && strcmp(f->refusal, message) == 0;
}

/* Where create() refused the settings [from, to), one entry per message:
   "4-ary 3-tree, 3-ary 3-tree: <message>", naming the settings when only
   some of several gave it. */
static void refusals(const router_state *st, guint from, guint to, GString *out)
{
    GPtrArray *messages = g_ptr_array_new();
    for (guint s = from; s < to; s++)
        for (guint n = 0; n < st->n_nets; n++) {
            const fit *f = &st->fits[s * st->n_nets + n];
            if (f->probed && !f->fewest &&
                !g_ptr_array_find_with_equal_func(messages, f->refusal, g_str_equal, NULL))
                g_ptr_array_add(messages, f->refusal);
        }
    for (guint i = 0; i < messages->len; i++) {
        const char *message = messages->pdata[i];
        g_string_append(out, i ? "; " : "");
        for (guint n = 0, named = 0; n < st->n_nets; n++)
            for (guint s = from; s < to; s++)
                if (refused_with(st, s, n, message)) {
                    g_string_append_printf(out, "%s%s", named++ ? ", " : "", st->nets[n].name);
                    break;
                }
        GString *settings = g_string_new(NULL);
        guint gave = 0;
        for (guint s = from; s < to; s++)
            for (guint n = 0; n < st->n_nets; n++)
                if (refused_with(st, s, n, message)) {
                    const conform_setting *set = st->settings->pdata[s];
                    g_string_append_printf(settings, "%s%s", gave++ ? "; " : "", set->label);
                    break;
                }
        if (gave < to - from)
            g_string_append_printf(out, " [%s]", settings->str);
        g_string_free(settings, TRUE);
        g_string_append_printf(out, ": %s", message);
    }
    g_ptr_array_free(messages, TRUE);
}

/* What refused the settings [from, to): their create() (see refusals()),
   then the kernel's (`by_kernel`: the runs it would not set up). */
static char *refused_text(const router_state *st, guint from, guint to, const GString *by_kernel)
{
    GString *out = g_string_new(NULL);
    refusals(st, from, to, out);
    if (by_kernel->len)
        g_string_append_printf(out, "%s%s", out->len ? "; " : "", by_kernel->str);
    return g_string_free(out, FALSE);
}

/* The VC counts fit_of() tries, for messages: "1 to 32 VCs". */
static char *counts_tried(const router_state *st)
{
    return st->vcs_fixed ? g_strdup_printf("vcs = %u (--set)", st->kernel.vcs)
                         : g_strdup_printf("1 to %u VCs", VCS_MAX);
}

/* "vcs = 1 (the fewest it accepts)": which VC count a run has, and why. */
static char *vcs_label(const router_state *st, const fit *f, uint32_t vcs)
{
    if (st->vcs_fixed)
        return counts_tried(st); /* the one count there is */
    return g_strdup_printf("vcs = %u (%s%s%s)", vcs, vcs == f->fewest ? "the fewest it accepts" : "",
                           vcs == f->fewest && vcs == st->kernel.vcs ? ", " : "",
                           vcs == st->kernel.vcs ? "the default" : "");
}

typedef enum try_result {
    TRY_RAN,      /* ran to the end, or the kernel stopped it: a run to check */
    TRY_REFUSED,  /* the kernel's create() refused what the mock's accepted */
    TRY_UNUSABLE, /* missing support plugins, ...: no run can work */
} try_result;

/* Run setting `set` on network n with `vcs` VCs into *out; *err says why
   when it did not start. */
static try_result try_run(const conform_ctx *ctx, const router_state *st, const conform_setting *set,
                          guint n, const fit *f, uint32_t vcs, run *out, GError **err)
{
    char *label = vcs_label(st, f, vcs);
    char *where = g_strdup_printf("%s, %s, %s", set->label, st->nets[n].name, label);
    g_free(label);
    char *text = experiment_text(ctx, &st->nets[n], vcs, set->line);
    outcome o = {0};
    GError *e = NULL;
    if (run_text(ctx, text, &o, &e) ||
        (e->domain == INSEE_EXPERIMENT_ERROR && e->code == INSEE_EXPERIMENT_ERROR_SIMULATION)) {
        *out = (run){where, text, e ? g_strdup(e->message) : NULL, o};
        g_clear_error(&e);
        return TRY_RAN;
    }
    try_result result = e->domain == INSEE_EXPERIMENT_ERROR && e->code == INSEE_EXPERIMENT_ERROR_SETUP
                            ? TRY_REFUSED
                            : TRY_UNUSABLE;
    g_prefix_error(&e, "%s: ", where);
    g_propagate_error(err, e);
    g_free(where);
    g_free(text);
    return result;
}

/* The test networks, built once; FALSE when none could be. */
static gboolean build_networks(const conform_ctx *ctx, router_state *st)
{
    gboolean any = FALSE;
    st->topos = g_new0(conform_topo *, st->n_nets);
    for (guint n = 0; n < st->n_nets; n++) {
        GError *err = NULL;
        st->topos[n] = conform_topo_new(ctx, st->nets[n].name, st->nets[n].toml, TRUE, &err);
        if (st->topos[n]) {
            any = TRUE;
            continue;
        }
        g_string_append_printf(st->not_built, "%s%s", st->not_built->len ? "; " : "", err->message);
        g_error_free(err);
    }
    return any;
}

/* Run every (setting, network, VCs) that applies. SKIP (with `detail`)
   when no experiment can be set up, or the defaults fit no network. */
static conform_status run_all(const conform_ctx *ctx, router_state *st, conform_findings *f,
                              GString *refused)
{
    for (guint s = 0; s < st->settings->len; s++) {
        const conform_setting *set = st->settings->pdata[s];
        guint started = st->runs->len;
        for (guint n = 0; n < st->n_nets; n++) {
            const fit *fit = fit_of(ctx, st, s, n);
            uint32_t counts[2] = {fit->fewest, st->kernel.vcs};
            guint n_counts = !fit->fewest ? 0 : fit->standard && st->kernel.vcs != fit->fewest ? 2 : 1;
            for (guint c = 0; c < n_counts; c++) {
                run r;
                GError *err = NULL;
                switch (try_run(ctx, st, set, n, fit, counts[c], &r, &err)) {
                case TRY_RAN:
                    if (r.error)
                        conform_note(f, r.where, "the kernel stopped the run: %s", r.error);
                    g_array_append_val(st->runs, r);
                    break;
                case TRY_REFUSED:
                    g_string_append_printf(refused, "%s%s", refused->len ? "; " : "", err->message);
                    break;
                case TRY_UNUSABLE:
                    g_string_printf(f->detail, "cannot set up the experiments: %s", err->message);
                    g_error_free(err);
                    return CONFORM_SKIP;
                }
                g_clear_error(&err);
            }
        }
        if (s == 0 && st->runs->len == started) {
            char *counts = counts_tried(st), *why = refused_text(st, 0, 1, refused);
            g_string_printf(f->detail,
                            "the router accepts none of the test networks at %s (%s); give it one "
                            "with --set topology.plugin=NAME --set topology.KEY=VALUE",
                            counts, why);
            g_free(counts);
            g_free(why);
            return CONFORM_SKIP;
        }
    }
    return conform_verdict(f);
}

static conform_status check_runs(conform_ctx *ctx, GString *detail)
{
    router_state *st = g_new0(router_state, 1);
    ctx->state = st;
    st->settings = conform_settings(ctx, FALSE);
    st->nets = test_networks(ctx, &st->n_nets);
    st->fits = g_new0(fit, st->settings->len * st->n_nets);
    st->runs = g_array_new(FALSE, TRUE, sizeof(run));
    st->not_built = g_string_new(NULL);
    st->vcs_fixed = conform_overridden(ctx, "router", "vcs");
    if (!build_networks(ctx, st)) {
        g_string_printf(detail, "cannot build any test network: %s", st->not_built->str);
        return CONFORM_SKIP;
    }
    /* The mock host's queues until the kernel's are known, and if they
       cannot be: the claim checks need no experiment. */
    conform_mock defaults;
    guint built = 0;
    while (!st->topos[built])
        built++;
    conform_mock_init(&defaults, st->topos[built]);
    st->kernel = defaults.shape;
    GError *err = NULL;
    if (!kernel_shape(ctx, &st->kernel, &err)) {
        g_string_printf(detail, "cannot set up the experiments: %s", err->message);
        g_error_free(err);
        return CONFORM_SKIP;
    }

    conform_findings f = {detail, 0};
    GString *refused = g_string_new(NULL);
    conform_status status = run_all(ctx, st, &f, refused);
    if (status == CONFORM_PASS) {
        GString *names = g_string_new(NULL);
        for (guint i = 0; i < st->runs->len; i++)
            g_string_append_printf(names, "%s%s", i ? "; " : "", g_array_index(st->runs, run, i).where);
        g_string_printf(detail, "ran: %s", names->str);
        char *why = refused_text(st, 0, st->settings->len, refused);
        if (*why)
            g_string_append_printf(detail, "; refused: %s", why);
        g_free(why);
        if (st->not_built->len)
            g_string_append_printf(detail, "; not built: %s", st->not_built->str);
        g_string_free(names, TRUE);
    }
    g_string_free(refused, TRUE);
    return status;
}

/* What a check does with one run, noting what is wrong in `f`. */
typedef void (*run_fn)(const conform_ctx *ctx, const run *r, conform_findings *f, void *data);

/* Run `visit` on every run router.runs kept (with `stopped`, also those the
   kernel stopped): SKIP when there is none, else the verdict. */
static conform_status each_run(const conform_ctx *ctx, GString *detail, gboolean stopped, run_fn visit,
                               void *data)
{
    const router_state *st = ctx->state;
    conform_findings f = {detail, 0};
    guint visited = 0;
    for (guint i = 0; st && i < st->runs->len; i++) {
        const run *r = &g_array_index(st->runs, run, i);
        if (stopped || !r->error) {
            visited++;
            visit(ctx, r, &f, data);
        }
    }
    if (visited == 0) {
        g_string_assign(detail, st && st->runs->len ? "no experiment ran to its end (see router.runs)"
                                                    : "no experiment ran (see router.runs)");
        return CONFORM_SKIP;
    }
    return conform_verdict(&f);
}

static void delivers_in(const conform_ctx *ctx, const run *r, conform_findings *f, void *data)
{
    (void)ctx;
    (void)data;
    if (r->out.delivered == 0)
        conform_note(f, r->where, "%" G_GUINT64_FORMAT " packets generated, none delivered",
                     r->out.generated);
}

static conform_status check_delivers(conform_ctx *ctx, GString *detail)
{
    return each_run(ctx, detail, FALSE, delivers_in, NULL);
}

static void drains_in(const conform_ctx *ctx, const run *r, conform_findings *f, void *data)
{
    (void)ctx;
    (void)data;
    if (r->error)
        conform_note(f, r->where, "did not drain: the kernel stopped the run: %s", r->error);
    else if (!r->out.drained || r->out.in_flight != 0)
        conform_note(f, r->where,
                     "did not drain: %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
                     " packets still in the network when the drain limit ended the run (cycle "
                     "%" G_GUINT64_FORMAT "): a deadlock or livelock",
                     r->out.in_flight, r->out.generated, r->out.cycles);
}

static conform_status check_drains(conform_ctx *ctx, GString *detail)
{
    return each_run(ctx, detail, TRUE, drains_in, NULL);
}

static void conservation_in(const conform_ctx *ctx, const run *r, conform_findings *f, void *data)
{
    (void)ctx;
    (void)data;
    const outcome *o = &r->out;
    if (o->generated != o->delivered + o->dropped + o->in_flight)
        conform_note(f, r->where,
                     "generated %" G_GUINT64_FORMAT " != delivered %" G_GUINT64_FORMAT
                     " + dropped %" G_GUINT64_FORMAT " + in flight %" G_GUINT64_FORMAT,
                     o->generated, o->delivered, o->dropped, o->in_flight);
}

static conform_status check_conservation(conform_ctx *ctx, GString *detail)
{
    return each_run(ctx, detail, FALSE, conservation_in, NULL);
}

/* data: the runs checked so far (guint). */
static void exactly_once_in(const conform_ctx *ctx, const run *r, conform_findings *f, void *data)
{
    (void)ctx;
    guint *checked = data;
    if (r->out.in_flight != 0)
        return; /* router.drains reports it; the sums only match when empty */
    (*checked)++;
    if (r->out.sum_generated_ids != r->out.sum_delivered_ids)
        conform_note(f, r->where,
                     "the ids of the packets delivered or dropped do not add up to those "
                     "generated (%" G_GUINT64_FORMAT " vs %" G_GUINT64_FORMAT ")",
                     r->out.sum_delivered_ids, r->out.sum_generated_ids);
}

static conform_status check_exactly_once(conform_ctx *ctx, GString *detail)
{
    guint checked = 0;
    conform_status s = each_run(ctx, detail, FALSE, exactly_once_in, &checked);
    return conform_skip_if_none(s, checked, detail, "no run drained (see router.drains)");
}

static gboolean same_outcome(const outcome *a, const outcome *b)
{
    return a->drained == b->drained && a->cycles == b->cycles && a->generated == b->generated &&
           a->delivered == b->delivered && a->dropped == b->dropped && a->in_flight == b->in_flight &&
           a->packet_hops == b->packet_hops && a->sum_generated_ids == b->sum_generated_ids &&
           a->sum_delivered_ids == b->sum_delivered_ids;
}

static void deterministic_in(const conform_ctx *ctx, const run *r, conform_findings *f, void *data)
{
    (void)data;
    outcome again = {0};
    GError *err = NULL;
    if (!run_text(ctx, r->text, &again, &err)) {
        conform_note(f, r->where, "the same experiment failed the second time: %s", err->message);
        g_error_free(err);
    } else if (!same_outcome(&again, &r->out)) {
        conform_note(f, r->where,
                     "the same experiment and seed gave different results (%" G_GUINT64_FORMAT
                     " then %" G_GUINT64_FORMAT " packets delivered, %" G_GUINT64_FORMAT
                     " then %" G_GUINT64_FORMAT " cycles)",
                     r->out.delivered, again.delivered, r->out.cycles, again.cycles);
    }
}

static conform_status check_deterministic(conform_ctx *ctx, GString *detail)
{
    return each_run(ctx, detail, FALSE, deterministic_in, NULL);
}

/* What route_once() saw route() change. */
enum { TOUCHED_RNG = 1, TOUCHED_PACKET = 2, TOUCHED_ROUTER = 4 };

/* route() or route_bound(): what a check asks of a router. */
typedef uint32_t (*route_fn)(void *self, const insee_route_ctx *ctx, insee_candidate *out,
                             uint32_t max);

/* `ask` (vt's route() or route_bound()) asked once at `now` with an rng of
   `seed`, from zeroed packet and router states; *touched (when not NULL)
   gains the TOUCHED_* bits of what it drew from or changed. */
static uint32_t ask_once(route_fn ask, const insee_router_vtable *vt, void *self,
                         insee_route_ctx rc, uint64_t now, uint64_t seed, insee_candidate *out,
                         uint32_t *touched)
{
    size_t ps = MAX(vt->packet_state_size ? vt->packet_state_size(self) : 0, 1u);
    size_t rs = MAX(vt->router_state_size ? vt->router_state_size(self) : 0, 1u);
    guint8 *packet = g_malloc0(ps), *router = g_malloc0(rs), *zero = g_malloc0(MAX(ps, rs));
    insee_rng rng, before;
    insee_rng_init(&rng, seed, rc.router);
    before = rng;
    rc.now = now;
    rc.born = now / 2;
    rc.packet_state = packet;
    rc.router_state = router;
    rc.rng = &rng;
    memset(out, 0, sizeof(insee_candidate) * INSEE_MAX_CANDIDATES);
    uint32_t n = ask(self, &rc, out, INSEE_MAX_CANDIDATES);
    if (touched)
        *touched |= (memcmp(&rng, &before, sizeof rng) != 0 ? TOUCHED_RNG : 0u) |
                    (memcmp(packet, zero, ps) != 0 ? TOUCHED_PACKET : 0u) |
                    (memcmp(router, zero, rs) != 0 ? TOUCHED_ROUTER : 0u);
    g_free(packet);
    g_free(router);
    g_free(zero);
    return MIN(n, INSEE_MAX_CANDIDATES);
}

static uint32_t route_once(const insee_router_vtable *vt, void *self, insee_route_ctx rc,
                           uint64_t now, uint64_t seed, insee_candidate *out, uint32_t *touched)
{
    return ask_once(vt->route, vt, self, rc, now, seed, out, touched);
}

/* Every routing question the mock network of `h` can raise: each router,
   input (ports, then injection), VC and destination node not attached to
   the router itself (consumed by the kernel, never routed). */
typedef void (*question_fn)(const insee_route_ctx *rc, void *data);

static void each_question(const insee_host *h, question_fn fn, void *data)
{
    insee_shape shape;
    h->shape(h->kernel, &shape);
    for (uint32_t r = 0; r < shape.routers; r++) {
        uint32_t ports = h->ports(h->kernel, r);
        for (uint32_t in = 0; in <= ports; in++)
            for (uint32_t vc = 0; vc < (in == ports ? 1 : shape.vcs); vc++)
                for (uint32_t dst = 0; dst < shape.nodes; dst++) {
                    if (h->node_router(h->kernel, dst) == r)
                        continue;
                    insee_route_ctx rc = {
                        .size = sizeof rc,
                        .router = r,
                        .in_port = in == ports ? INSEE_PORT_INJECTION : in,
                        .in_vc = vc,
                        .src_node = (dst + 5) % shape.nodes,
                        .dst_node = dst,
                        .salt = r * 2654435761u ^ dst,
                        .hops = in == ports ? 0 : 1,
                    };
                    fn(&rc, data);
                }
    }
}

static const char *question_text(const insee_route_ctx *rc, char *buf, size_t len)
{
    if (rc->in_port == INSEE_PORT_INJECTION)
        snprintf(buf, len, "router %u, injection input, to node %u", rc->router, rc->dst_node);
    else
        snprintf(buf, len, "router %u, input port %u vc %u, to node %u", rc->router, rc->in_port,
                 rc->in_vc, rc->dst_node);
    return buf;
}

/* Two instances of one setting for the claim checks: `quiet` created on an
   idle mock network, `busy` on a busy one. */
typedef struct claim_probe {
    const insee_router_vtable *vt;
    void *quiet, *busy;
    conform_mock *busy_host; /* the host `busy` was created on */
    const char *where;
    conform_findings *f;
    GArray *questions; /* insee_route_ctx: the concurrent claim's, asked in batches */
} claim_probe;

/* Whether two answers name the same candidates in the same order. */
static gboolean same_answer(const insee_candidate *a, uint32_t na, const insee_candidate *b,
                            uint32_t nb)
{
    gboolean same = na == nb;
    for (uint32_t i = 0; same && i < na; i++)
        same = a[i].port == b[i].port && a[i].vc == b[i].vc && a[i].room == b[i].room &&
               a[i].tag == b[i].tag;
    return same;
}

/* The same question to both instances, the quiet one at an early cycle, the
   busy one later with another rng seed: a pure route() answers both alike. */
static void compare_route(const insee_route_ctx *rc, void *data)
{
    claim_probe *p = data;
    insee_candidate a[INSEE_MAX_CANDIDATES], b[INSEE_MAX_CANDIDATES];
    uint32_t na = route_once(p->vt, p->quiet, *rc, 10, 1, a, NULL);
    uint32_t nb = route_once(p->vt, p->busy, *rc, 5000, 2, b, NULL);
    char q[96];
    if (!same_answer(a, na, b, nb))
        conform_note(p->f, p->where,
                     "route() at %s answers differently with other cycles, rng or queue states",
                     question_text(rc, q, sizeof q));
}

static int by_candidate(const void *a, const void *b)
{
    const insee_candidate *x = a, *y = b;
    if (x->port != y->port)
        return x->port < y->port ? -1 : 1;
    if (x->vc != y->vc)
        return x->vc < y->vc ? -1 : 1;
    if (x->room != y->room)
        return x->room < y->room ? -1 : 1;
    return x->tag < y->tag ? -1 : x->tag > y->tag;
}

/* What `what` (route() or route_bound()) should not have done at rc: give
   the sorted sets a and b, asked of the quiet and the busy instance,
   unlike, or draw or change state (`touched`). */
static void note_unsteady(const claim_probe *p, const insee_route_ctx *rc, const char *what,
                          const insee_candidate *a, uint32_t na, const insee_candidate *b,
                          uint32_t nb, uint32_t touched)
{
    char q[96];
    if (na != nb || memcmp(a, b, sizeof *a * na) != 0)
        conform_note(p->f, p->where,
                     "%s at %s gives other candidates with other cycles, rng or queue states "
                     "(not only another order)",
                     what, question_text(rc, q, sizeof q));
    if (touched)
        conform_note(p->f, p->where,
                     "%s at %s draws from ctx->rng or changes the packet's or the router's state",
                     what, question_text(rc, q, sizeof q));
}

/* A steady route() gives both instances the same candidates, in any order,
   drawing nothing and changing no state. */
static void compare_steady(const insee_route_ctx *rc, void *data)
{
    claim_probe *p = data;
    insee_candidate a[INSEE_MAX_CANDIDATES], b[INSEE_MAX_CANDIDATES];
    uint32_t touched = 0;
    uint32_t na = route_once(p->vt, p->quiet, *rc, 10, 1, a, &touched);
    uint32_t nb = route_once(p->vt, p->busy, *rc, 5000, 2, b, &touched);
    qsort(a, na, sizeof *a, by_candidate);
    qsort(b, nb, sizeof *b, by_candidate);
    note_unsteady(p, rc, "route()", a, na, b, nb, touched);
}

/* A local route(), asked on the busy network, queries the state of its own
   router only and leaves the router's state as it was (it may draw, and
   write the packet's state). */
static void compare_local(const insee_route_ctx *rc, void *data)
{
    claim_probe *p = data;
    insee_candidate out[INSEE_MAX_CANDIDATES];
    uint32_t touched = 0;
    p->busy_host->home = rc->router;
    p->busy_host->away = 0;
    route_once(p->vt, p->busy, *rc, 5000, 2, out, &touched);
    uint32_t away = p->busy_host->away;
    p->busy_host->home = UINT32_MAX;
    char q[96];
    if (away)
        conform_note(p->f, p->where,
                     "route() at %s queries another router's queues, outputs or links, or the "
                     "whole network's occupancy (%u queries)",
                     question_text(rc, q, sizeof q), away);
    if (touched & TOUCHED_ROUTER)
        conform_note(p->f, p->where, "route() at %s changes the router's state",
                     question_text(rc, q, sizeof q));
}

/* A room-ordered route(), asked on the busy network, gives its candidates
   in the kernel's room order: most room downstream first, as the host's
   output_room() reports it, ties by VC, then port. */
static void compare_room_order(const insee_route_ctx *rc, void *data)
{
    claim_probe *p = data;
    const insee_host *h = &p->busy_host->host;
    insee_candidate out[INSEE_MAX_CANDIDATES];
    uint32_t touched = 0;
    uint32_t n = route_once(p->vt, p->busy, *rc, 5000, 2, out, &touched);
    for (uint32_t c = 1; c < n; c++) {
        const insee_candidate *a = &out[c - 1], *b = &out[c];
        if (a->port >= INSEE_PORT_DROP || b->port >= INSEE_PORT_DROP)
            continue; /* a pseudo-port: the kernel asks route() for such a set */
        uint32_t ra = h->output_room(h->kernel, rc->router, a->port, a->vc),
                 rb = h->output_room(h->kernel, rc->router, b->port, b->vc);
        if (rb < ra || (rb == ra && (b->vc > a->vc || (b->vc == a->vc && b->port > a->port))))
            continue;
        char q[96];
        conform_note(p->f, p->where,
                     "route() at %s gives port %u VC %u (room %u) before port %u VC %u "
                     "(room %u), against the room order",
                     question_text(rc, q, sizeof q), a->port, a->vc, ra, b->port, b->vc, rb);
        return;
    }
}

/* A route() that declares it draws nothing leaves ctx->rng as it was, on
   the quiet and the busy network, from a zeroed packet state and from the
   state its first answer left. */
static void compare_no_draws(const insee_route_ctx *rc, void *data)
{
    claim_probe *p = data;
    size_t ps = MAX(p->vt->packet_state_size ? p->vt->packet_state_size(p->busy) : 0, 1u);
    guint8 *packet = g_malloc0(ps);
    insee_candidate out[INSEE_MAX_CANDIDATES];
    uint32_t touched = 0;
    route_once(p->vt, p->quiet, *rc, 10, 1, out, &touched);
    insee_route_ctx ask = *rc;
    ask.packet_state = packet;
    for (uint32_t k = 0; k < 2; k++) {
        insee_rng rng, before;
        insee_rng_init(&rng, 30 + k, rc->router);
        before = rng;
        ask.rng = &rng;
        ask.now = 5000 + k;
        p->vt->route(p->busy, &ask, out, INSEE_MAX_CANDIDATES);
        touched |= memcmp(&rng, &before, sizeof rng) != 0 ? TOUCHED_RNG : 0u;
    }
    char q[96];
    if (touched & TOUCHED_RNG)
        conform_note(p->f, p->where, "route() at %s draws from ctx->rng",
                     question_text(rc, q, sizeof q));
    g_free(packet);
}

/* A route() that declares it never drops answers no INSEE_PORT_DROP, on
   the quiet and the busy network, from a zeroed packet state and at
   several cycles with several rngs. */
static void compare_no_drops(const insee_route_ctx *rc, void *data)
{
    claim_probe *p = data;
    size_t ps = MAX(p->vt->packet_state_size ? p->vt->packet_state_size(p->busy) : 0, 1u);
    guint8 *packet = g_malloc0(ps);
    insee_candidate out[INSEE_MAX_CANDIDATES];
    insee_route_ctx ask = *rc;
    ask.packet_state = packet;
    for (uint32_t k = 0; k < 4; k++) {
        insee_rng rng;
        insee_rng_init(&rng, 40 + k, rc->router);
        ask.rng = &rng;
        ask.now = 7000 + 13 * k;
        memset(packet, 0, ps);
        uint32_t n = MIN(p->vt->route(k % 2 ? p->busy : p->quiet, &ask, out,
                                      INSEE_MAX_CANDIDATES),
                         INSEE_MAX_CANDIDATES);
        for (uint32_t c = 0; c < n; c++)
            if (out[c].port == INSEE_PORT_DROP) {
                char q[96];
                conform_note(p->f, p->where, "route() at %s answers INSEE_PORT_DROP",
                             question_text(rc, q, sizeof q));
                g_free(packet);
                return;
            }
    }
    g_free(packet);
}

/* A settled route() answers a second time, on the busy instance, at a
   later cycle, with another rng, from the states its first answer left,
   exactly as the first time, drawing nothing and changing no state. */
static void compare_settled(const insee_route_ctx *rc, void *data)
{
    claim_probe *p = data;
    size_t ps = MAX(p->vt->packet_state_size ? p->vt->packet_state_size(p->quiet) : 0, 1u);
    size_t rs = MAX(p->vt->router_state_size ? p->vt->router_state_size(p->quiet) : 0, 1u);
    guint8 *packet = g_malloc0(ps), *router = g_malloc0(rs);
    insee_rng rng, before;
    insee_route_ctx q = *rc;
    q.packet_state = packet;
    q.router_state = router;
    q.rng = &rng;
    q.now = 10;
    q.born = 5;
    insee_candidate a[INSEE_MAX_CANDIDATES] = {0}, b[INSEE_MAX_CANDIDATES] = {0};
    insee_rng_init(&rng, 1, rc->router);
    uint32_t na = MIN(p->vt->route(p->quiet, &q, a, INSEE_MAX_CANDIDATES), INSEE_MAX_CANDIDATES);
    guint8 *packet_first = g_memdup2(packet, ps), *router_first = g_memdup2(router, rs);
    insee_rng_init(&rng, 2, rc->router);
    before = rng;
    q.now = 5000;
    q.born = 2500;
    uint32_t nb = MIN(p->vt->route(p->busy, &q, b, INSEE_MAX_CANDIDATES), INSEE_MAX_CANDIDATES);
    char text[96];
    if (!same_answer(a, na, b, nb))
        conform_note(p->f, p->where,
                     "route() at %s answers otherwise when asked again (another cycle, rng and "
                     "queue states, the packet's state as the first answer left it)",
                     question_text(rc, text, sizeof text));
    if (memcmp(&rng, &before, sizeof rng) != 0 || memcmp(packet, packet_first, ps) != 0 ||
        memcmp(router, router_first, rs) != 0)
        conform_note(p->f, p->where,
                     "route() at %s draws from ctx->rng or changes the packet's or the router's "
                     "state when asked again",
                     question_text(rc, text, sizeof text));
    g_free(packet);
    g_free(router);
    g_free(packet_first);
    g_free(router_first);
}

/* route_bound() asked once as ask_once() asks, sorted. */
static uint32_t bound_once(const insee_router_vtable *vt, void *self, insee_route_ctx rc,
                           uint64_t now, uint64_t seed, insee_candidate *out, uint32_t *touched)
{
    uint32_t n = ask_once(vt->route_bound, vt, self, rc, now, seed, out, touched);
    qsort(out, n, sizeof *out, by_candidate);
    return n;
}

/* Whether candidate c, answered at rc on host h, is inside the bound: the
   same port and VC, asking at least the bound's room (0 and 1 both mean
   one packet), given only while the input queue a need names shows the
   free phits it needs (INSEE_BOUND_NEEDS). */
static gboolean in_bound(const insee_host *h, const insee_route_ctx *rc,
                         const insee_candidate *c, const insee_candidate *bound, uint32_t n)
{
    insee_shape shape;
    h->shape(h->kernel, &shape);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t need = INSEE_BOUND_NEEDS_PACKETS(bound[i].tag);
        if (bound[i].port == c->port && bound[i].vc == c->vc &&
            MAX(bound[i].room, 1u) <= MAX(c->room, 1u) &&
            (need == 0 || h->input_free_phits(h->kernel, rc->router,
                                              INSEE_BOUND_NEEDS_PORT(bound[i].tag),
                                              INSEE_BOUND_NEEDS_VC(bound[i].tag)) >=
                              need * shape.packet_phits))
            return TRUE;
    }
    return FALSE;
}

enum { BOUND_ASKS = 8 };

/* route_bound() gives the same set on the quiet and the busy network, at
   other cycles and with other rngs, drawing nothing and changing no
   state; route() on the busy network, asked at several cycles with
   several rngs, from a zeroed packet state and from the state its earlier
   answers left (a bet that moves), answers only inside it. */
static void compare_bound(const insee_route_ctx *rc, void *data)
{
    claim_probe *p = data;
    insee_candidate a[INSEE_MAX_CANDIDATES], b[INSEE_MAX_CANDIDATES], out[INSEE_MAX_CANDIDATES];
    uint32_t touched = 0;
    uint32_t na = bound_once(p->vt, p->quiet, *rc, 10, 1, a, &touched);
    uint32_t nb = bound_once(p->vt, p->busy, *rc, 5000, 2, b, &touched);
    char q[96];
    note_unsteady(p, rc, "route_bound()", a, na, b, nb, touched);
    if (na == 0)
        return;
    size_t ps = MAX(p->vt->packet_state_size ? p->vt->packet_state_size(p->busy) : 0, 1u);
    size_t rs = MAX(p->vt->router_state_size ? p->vt->router_state_size(p->busy) : 0, 1u);
    guint8 *packet = g_malloc0(ps), *router = g_malloc0(rs);
    insee_rng rng;
    insee_route_ctx ask = *rc;
    ask.packet_state = packet;
    ask.router_state = router;
    ask.rng = &rng;
    for (uint32_t k = 0; k < BOUND_ASKS; k++) {
        insee_rng_init(&rng, 10 + k, rc->router);
        ask.now = 5000 + 7 * k;
        ask.born = 2500;
        uint32_t n = MIN(p->vt->route(p->busy, &ask, out, INSEE_MAX_CANDIDATES),
                         INSEE_MAX_CANDIDATES);
        for (uint32_t c = 0; c < n; c++) {
            if (!in_bound(&p->busy_host->host, rc, &out[c], a, na)) {
                conform_note(p->f, p->where,
                             "route() at %s answers port %u VC %u room %u, outside its "
                             "route_bound() (%u candidates, with the room each needs in this "
                             "router's input queues)",
                             question_text(rc, q, sizeof q), out[c].port, out[c].vc, out[c].room,
                             na);
                k = BOUND_ASKS;
                break;
            }
        }
    }
    /* asked again from the packet state route() left: the same set */
    insee_rng_init(&rng, 20, rc->router);
    uint32_t again = MIN(p->vt->route_bound(p->busy, &ask, b, INSEE_MAX_CANDIDATES),
                         INSEE_MAX_CANDIDATES);
    qsort(b, again, sizeof *b, by_candidate);
    if (again != na || memcmp(a, b, sizeof *a * na) != 0)
        conform_note(p->f, p->where,
                     "route_bound() at %s gives another set from the packet state route() "
                     "left",
                     question_text(rc, q, sizeof q));
    g_free(packet);
    g_free(router);
}

enum { CONCURRENT_BATCH = 256, CONCURRENT_ROUNDS = 3 };

/* One thread's share of a concurrent batch: every question asked again,
   from one end or the other, each answer held against the one it got alone. */
typedef struct concurrent_share {
    const claim_probe *p;
    const insee_candidate *alone; /* CONCURRENT_BATCH x INSEE_MAX_CANDIDATES */
    const uint32_t *n_alone;
    gboolean backwards;
    int wrong;                    /* the first question answered otherwise, or -1 */
    volatile gint *started, *done; /* both threads': how many began, finished their rounds */
} concurrent_share;

/* One thread's rounds: it starts once both threads are ready, and goes on
   past its own rounds until the other has done its own (at most 64 times
   as many), so that the two always ask at the same time, however late a
   thread is scheduled. */
static gpointer ask_share(gpointer data)
{
    concurrent_share *s = data;
    const claim_probe *p = s->p;
    guint n = p->questions->len;
    gboolean counted = FALSE;
    g_atomic_int_inc(s->started);
    while (g_atomic_int_get(s->started) < 2)
        g_thread_yield();
    for (guint round = 0; s->wrong < 0 && round < 64 * CONCURRENT_ROUNDS &&
                          (round < CONCURRENT_ROUNDS || g_atomic_int_get(s->done) < 2);
         round++) {
        if (round == CONCURRENT_ROUNDS) {
            g_atomic_int_inc(s->done);
            counted = TRUE;
        }
        for (guint k = 0; k < n && s->wrong < 0; k++) {
            guint i = s->backwards ? n - 1 - k : k;
            insee_candidate out[INSEE_MAX_CANDIDATES];
            uint32_t got = route_once(p->vt, p->quiet,
                                      g_array_index(p->questions, insee_route_ctx, i), 10, 1, out,
                                      NULL);
            if (got != s->n_alone[i] ||
                memcmp(out, s->alone + (size_t)i * INSEE_MAX_CANDIDATES, sizeof *out * got) != 0)
                s->wrong = (int)i;
        }
    }
    if (!counted)
        g_atomic_int_inc(s->done); /* stopped early: the other need not wait */
    return NULL;
}

/* The batch of questions, answered alone, then by two threads at once on
   the same instance, each running through the batch from another end, so
   that different questions overlap: a route() that works through its
   instance (a scratch buffer, a cache) mixes their answers. */
static void ask_concurrent_batch(claim_probe *p)
{
    guint n = p->questions->len;
    if (n == 0)
        return;
    insee_candidate *alone = g_new0(insee_candidate, (size_t)n * INSEE_MAX_CANDIDATES);
    uint32_t *n_alone = g_new(uint32_t, n);
    for (guint i = 0; i < n; i++)
        n_alone[i] = route_once(p->vt, p->quiet, g_array_index(p->questions, insee_route_ctx, i),
                                10, 1, alone + (size_t)i * INSEE_MAX_CANDIDATES, NULL);
    volatile gint started = 0, done = 0;
    concurrent_share a = {p, alone, n_alone, FALSE, -1, &started, &done},
                     b = {p, alone, n_alone, TRUE, -1, &started, &done};
    GThread *other = g_thread_new("conform-concurrent", ask_share, &b);
    ask_share(&a);
    g_thread_join(other);
    int wrong = a.wrong >= 0 ? a.wrong : b.wrong;
    if (wrong >= 0) {
        char q[96];
        conform_note(p->f, p->where,
                     "route() at %s answers otherwise while another thread asks other questions "
                     "of the same instance",
                     question_text(&g_array_index(p->questions, insee_route_ctx, wrong), q,
                                   sizeof q));
    }
    g_array_set_size(p->questions, 0);
    g_free(alone);
    g_free(n_alone);
}

/* Questions gathered into batches, each asked when full. */
static void compare_concurrent(const insee_route_ctx *rc, void *data)
{
    claim_probe *p = data;
    g_array_append_val(p->questions, *rc);
    if (p->questions->len == CONCURRENT_BATCH)
        ask_concurrent_batch(p);
}

/* With INSEE_ROUTE_NO_FORWARDED the kernel skips forwarded(): calling it on
   every candidate must leave the packet's and the router's state as they
   were. */
static void forward_each_candidate(const insee_route_ctx *question, void *data)
{
    claim_probe *p = data;
    size_t ps = MAX(p->vt->packet_state_size ? p->vt->packet_state_size(p->quiet) : 0, 1u);
    size_t rs = MAX(p->vt->router_state_size ? p->vt->router_state_size(p->quiet) : 0, 1u);
    guint8 *packet = g_malloc0(ps), *router = g_malloc0(rs);
    insee_rng rng;
    insee_rng_init(&rng, 3, question->router);
    insee_route_ctx rc = *question;
    rc.now = 10;
    rc.packet_state = packet;
    rc.router_state = router;
    rc.rng = &rng;
    insee_candidate out[INSEE_MAX_CANDIDATES];
    uint32_t n = MIN(p->vt->route(p->quiet, &rc, out, INSEE_MAX_CANDIDATES), INSEE_MAX_CANDIDATES);
    guint8 *packet_before = g_memdup2(packet, ps), *router_before = g_memdup2(router, rs);
    char q[96];
    for (uint32_t i = 0; i < n; i++) {
        p->vt->forwarded(p->quiet, &rc, &out[i]);
        if (memcmp(packet_before, packet, ps) != 0 || memcmp(router_before, router, rs) != 0) {
            conform_note(p->f, p->where,
                         "forwarded() changed the packet or router state at %s (candidate %u)",
                         question_text(&rc, q, sizeof q), i);
            break;
        }
    }
    g_free(packet);
    g_free(router);
    g_free(packet_before);
    g_free(router_before);
}

/* The network and VC count the claim checks ask setting s on: the first
   test network its create() accepts, with the experiments' VCs if accepted
   there, else the fewest. FALSE when it accepts none. */
static gboolean claim_network(const conform_ctx *ctx, router_state *st, guint s, guint *net,
                              uint32_t *vcs)
{
    for (guint n = 0; n < st->n_nets; n++) {
        const fit *f = fit_of(ctx, st, s, n);
        if (f->fewest) {
            *net = n;
            *vcs = f->standard ? st->kernel.vcs : f->fewest;
            return TRUE;
        }
    }
    return FALSE;
}

/* A claim check: at every setting whose instance declares `flag` (0:
   every setting), `ask`
   every question of its claim network, then `finish` (NULL: nothing) once
   they are over. SKIP saying why when no setting was asked: create()
   refused every network (its own message), or no setting declares the flag
   (`not_declared`). */
static conform_status each_claim(conform_ctx *ctx, GString *detail, uint32_t flag, question_fn ask,
                                 void (*finish)(claim_probe *), const char *not_declared)
{
    router_state *st = ctx->state;
    const insee_router_vtable *vt = ctx->plugin->vtable;
    conform_findings f = {detail, 0};
    guint claimed = 0, placed = 0;
    for (guint s = 0; s < st->settings->len; s++) {
        const conform_setting *set = st->settings->pdata[s];
        guint n;
        uint32_t vcs;
        if (!claim_network(ctx, st, s, &n, &vcs))
            continue;
        placed++;
        conform_mock quiet_host, busy_host;
        router_mock(st, st->topos[n], vcs, &quiet_host);
        router_mock(st, st->topos[n], vcs, &busy_host);
        busy_host.noise = 0x2545f491u;
        GError *bind_err = NULL;
        insee_error create_err;
        conform_instance *quiet =
            conform_instance_new(ctx, set, &quiet_host.host, vt->create, &bind_err, &create_err);
        g_clear_error(&bind_err);
        conform_instance *busy =
            conform_instance_new(ctx, set, &busy_host.host, vt->create, &bind_err, &create_err);
        g_clear_error(&bind_err);
        if (quiet && busy && (flag == 0 || (vt->properties(quiet->self) & flag))) {
            claimed++;
            char *where = g_strdup_printf("%s, %s, vcs = %u", set->label, st->nets[n].name, vcs);
            claim_probe probe = {vt, quiet->self, busy->self, &busy_host, where, &f,
                                 g_array_new(FALSE, FALSE, sizeof(insee_route_ctx))};
            each_question(&quiet_host.host, ask, &probe);
            if (finish)
                finish(&probe);
            g_array_unref(probe.questions);
            g_free(where);
        }
        conform_instance_free(quiet, vt->destroy);
        conform_instance_free(busy, vt->destroy);
    }
    if (placed == 0) {
        GString *why = g_string_new(NULL);
        refusals(st, 0, 1, why);
        char *counts = counts_tried(st);
        if (why->len)
            g_string_printf(detail,
                            "the router's create() refused every test network at %s, so route() "
                            "was never asked (%s)",
                            counts, why->str);
        else
            g_string_printf(detail, "no test network could be built: %s", st->not_built->str);
        g_free(counts);
        g_string_free(why, TRUE);
        return CONFORM_SKIP;
    }
    return conform_skip_if_none(conform_verdict(&f), claimed, detail, not_declared);
}

static conform_status check_pure_claim(conform_ctx *ctx, GString *detail)
{
    const insee_router_vtable *vt = ctx->plugin->vtable;
    if (!vt->properties) {
        g_string_assign(detail, "properties() not provided: route() is asked every cycle");
        return CONFORM_SKIP;
    }
    return each_claim(ctx, detail, INSEE_ROUTE_PURE, compare_route, NULL,
                      "route() is not declared INSEE_ROUTE_PURE at any setting (asked on the first "
                      "test network each setting's create() accepts)");
}

static conform_status check_steady_claim(conform_ctx *ctx, GString *detail)
{
    const insee_router_vtable *vt = ctx->plugin->vtable;
    if (!vt->properties || ctx->plugin->desc->abi_minor < 10) {
        g_string_assign(detail, "properties() not provided, or built before ABI 1.10: a blocked "
                                "head is asked every cycle");
        return CONFORM_SKIP;
    }
    return each_claim(ctx, detail, INSEE_ROUTE_STEADY, compare_steady, NULL,
                      "route() is not declared INSEE_ROUTE_STEADY at any setting (asked on the "
                      "first test network each setting's create() accepts)");
}

static conform_status check_settled_claim(conform_ctx *ctx, GString *detail)
{
    const insee_router_vtable *vt = ctx->plugin->vtable;
    if (!vt->properties || ctx->plugin->desc->abi_minor < 14) {
        g_string_assign(detail, "properties() not provided, or built before ABI 1.14: a head is "
                                "asked again every cycle it waits");
        return CONFORM_SKIP;
    }
    return each_claim(ctx, detail, INSEE_ROUTE_SETTLED, compare_settled, NULL,
                      "route() is not declared INSEE_ROUTE_SETTLED at any setting (asked on the "
                      "first test network each setting's create() accepts)");
}

static conform_status check_local_claim(conform_ctx *ctx, GString *detail)
{
    const insee_router_vtable *vt = ctx->plugin->vtable;
    if (!vt->properties || ctx->plugin->desc->abi_minor < 15) {
        g_string_assign(detail, "properties() not provided, or built before ABI 1.15: a run "
                                "with this router is not split over threads or ranks");
        return CONFORM_SKIP;
    }
    return each_claim(ctx, detail, INSEE_ROUTE_LOCAL, compare_local, NULL,
                      "route() is not declared INSEE_ROUTE_LOCAL at any setting (asked on the "
                      "first test network each setting's create() accepts)");
}

static conform_status check_no_draws_claim(conform_ctx *ctx, GString *detail)
{
    const insee_router_vtable *vt = ctx->plugin->vtable;
    if (!vt->properties || ctx->plugin->desc->abi_minor < 16) {
        g_string_assign(detail, "properties() not provided, or built before ABI 1.16: each "
                                "question of a router that may draw gets a stream of its own");
        return CONFORM_SKIP;
    }
    return each_claim(ctx, detail, INSEE_ROUTE_NO_DRAWS, compare_no_draws, NULL,
                      "route() is not declared INSEE_ROUTE_NO_DRAWS at any setting (asked on "
                      "the first test network each setting's create() accepts)");
}

static conform_status check_no_drops_claim(conform_ctx *ctx, GString *detail)
{
    const insee_router_vtable *vt = ctx->plugin->vtable;
    if (!vt->properties || ctx->plugin->desc->abi_minor < 18) {
        g_string_assign(detail, "properties() not provided, or built before ABI 1.18: the parts "
                                "of a split run meet every cycle");
        return CONFORM_SKIP;
    }
    return each_claim(ctx, detail, INSEE_ROUTE_NO_DROPS, compare_no_drops, NULL,
                      "route() is not declared INSEE_ROUTE_NO_DROPS at any setting (asked on "
                      "the first test network each setting's create() accepts)");
}

static conform_status check_room_order_claim(conform_ctx *ctx, GString *detail)
{
    const insee_router_vtable *vt = ctx->plugin->vtable;
    if (!vt->properties || ctx->plugin->desc->abi_minor < 19) {
        g_string_assign(detail, "properties() not provided, or built before ABI 1.19: a "
                                "waiting head is asked again for its order");
        return CONFORM_SKIP;
    }
    return each_claim(ctx, detail, INSEE_ROUTE_ROOM_ORDER, compare_room_order, NULL,
                      "route() is not declared INSEE_ROUTE_ROOM_ORDER at any setting (asked on "
                      "the first test network each setting's create() accepts)");
}

static conform_status check_bound(conform_ctx *ctx, GString *detail)
{
    const insee_router_vtable *vt = ctx->plugin->vtable;
    if (!vt->route_bound || ctx->plugin->desc->abi_minor < 16) {
        g_string_assign(detail, "route_bound() not provided, or built before ABI 1.16: a "
                                "blocked head is asked every cycle");
        return CONFORM_SKIP;
    }
    return each_claim(ctx, detail, 0, compare_bound, NULL, "no setting was asked");
}

static conform_status check_concurrent_claim(conform_ctx *ctx, GString *detail)
{
    const insee_router_vtable *vt = ctx->plugin->vtable;
    if (!vt->properties || ctx->plugin->desc->abi_minor < 12) {
        g_string_assign(detail, "properties() not provided, or built before ABI 1.12: flows are "
                                "walked on one thread");
        return CONFORM_SKIP;
    }
    return each_claim(ctx, detail, INSEE_ROUTE_CONCURRENT, compare_concurrent,
                      ask_concurrent_batch,
                      "route() is not declared INSEE_ROUTE_CONCURRENT at any setting (asked on "
                      "the first test network each setting's create() accepts)");
}

static conform_status check_no_forwarded_claim(conform_ctx *ctx, GString *detail)
{
    const insee_router_vtable *vt = ctx->plugin->vtable;
    if (!vt->properties || !vt->forwarded) {
        g_string_assign(detail, "properties() or forwarded() not provided: nothing to skip");
        return CONFORM_SKIP;
    }
    return each_claim(ctx, detail, INSEE_ROUTE_NO_FORWARDED, forward_each_candidate, NULL,
                      "no setting declares INSEE_ROUTE_NO_FORWARDED (asked on the first test "
                      "network each setting's create() accepts)");
}

/* The static flow engine on network n with all-to-all traffic: every pair
   of nodes walked through the router; the walk's refusals (a loop, a dead
   end, two ports at a hop, no candidate) are findings, the runs it cannot
   set up (an override a flow engine refuses) are not. */
static void paths_on(const conform_ctx *ctx, const router_state *st, const conform_setting *set,
                     guint n, uint32_t vcs, conform_findings *f, guint *walked)
{
    char vcs_line[32] = "";
    if (vcs)
        snprintf(vcs_line, sizeof vcs_line, "vcs = %u\n", vcs);
    char *text = g_strdup_printf("[simulation]\nseed = %u\nengine = \"static\"\n[topology]\n%s"
                                 "[router]\nplugin = \"%s\"\n%s%s\n"
                                 "[traffic]\nplugin = \"all-to-all\"\n",
                                 CONFORM_SEED, st->nets[n].toml, ctx->plugin->desc->name,
                                 vcs_line, set->line);
    GError *err = NULL;
    insee_config *cfg = load_experiment(ctx, text, &err);
    insee_experiment *exp = cfg ? insee_experiment_new(cfg, ctx->reg, &err) : NULL;
    gboolean ran = exp && insee_experiment_run(exp, &err);
    if (!ran && err && err->domain == INSEE_FLOW_ERROR)
        conform_note(f, st->nets[n].name, "%s: %s", set->label, err->message);
    *walked += ran || (err && err->domain == INSEE_FLOW_ERROR);
    g_clear_error(&err);
    insee_experiment_free(exp);
    if (cfg)
        insee_config_free(cfg);
    g_free(text);
}

/* Whether setting s, created on its claim network, declares `flag`. */
static gboolean setting_declares(const conform_ctx *ctx, router_state *st, guint s, uint32_t flag)
{
    const insee_router_vtable *vt = ctx->plugin->vtable;
    guint n;
    uint32_t vcs;
    if (!vt->properties || !claim_network(ctx, st, s, &n, &vcs))
        return FALSE;
    conform_mock mock;
    router_mock(st, st->topos[n], vcs, &mock);
    GError *bind_err = NULL;
    insee_error create_err;
    conform_instance *inst = conform_instance_new(ctx, st->settings->pdata[s], &mock.host,
                                                  vt->create, &bind_err, &create_err);
    g_clear_error(&bind_err);
    gboolean declares = inst && (vt->properties(inst->self) & flag);
    conform_instance_free(inst, vt->destroy);
    return declares;
}

static conform_status check_paths(conform_ctx *ctx, GString *detail)
{
    router_state *st = ctx->state;
    conform_findings f = {detail, 0};
    guint walked = 0;
    for (guint s = 0; s < st->settings->len; s++) {
        if (!setting_declares(ctx, st, s, INSEE_ROUTE_PURE))
            continue;
        for (guint m = 0; m < st->n_nets; m++) {
            const fit *ft = fit_of(ctx, st, s, m);
            if (ft->fewest)
                paths_on(ctx, st, st->settings->pdata[s], m,
                         ft->standard ? st->kernel.vcs : ft->fewest, &f, &walked);
        }
    }
    return conform_skip_if_none(conform_verdict(&f), walked, detail,
                                "no setting declares INSEE_ROUTE_PURE, so the flow engines "
                                "refuse the router as adaptive and walk no path");
}

static const conform_check router_checks[] = {
    {"router.runs", CONFORM_ERROR,
     "experiments at saturation (uniform traffic, load 1.0) on every test network the router accepts "
     "(8x8 and 5x7 tori and meshes, 4- and 3-ary 3-trees, 4x4 and 3x5 HyperX, two "
     "dragonflies), with the fewest VCs "
     "its create() accepts and with the default, set up and run without a simulation error (at "
     "the defaults and every choice of its enums and bools)",
     "the message names the run (setting, network, VCs) and what the kernel rejected (a candidate "
     "port or VC out of range, a deadlock, ...)",
     check_runs},
    {"router.delivers", CONFORM_ERROR, "packets get delivered",
     "route() returning 0 candidates forever means no packet ever moves", check_delivers},
    {"router.drains", CONFORM_ERROR,
     "every run of router.runs empties once the load stops, within the drain limit: no deadlock "
     "(a run the kernel stops, e.g. with a deadlock diagnosis, did not drain)",
     "the detail names the network, the VCs and what the kernel saw (the cycle of full queues): "
     "break cyclic channel dependencies with dateline VCs (Dally), bubble admission on rings, or "
     "an escape channel, deadlock free on its own, that an adaptive router can always fall back on",
     check_drains},
    {"router.conservation", CONFORM_ERROR,
     "every generated packet is delivered, dropped or still in flight",
     "a packet vanished or was counted twice: check candidates with INSEE_PORT_DROP", check_conservation},
    {"router.exactly-once", CONFORM_ERROR,
     "once drained, the packets delivered or dropped are exactly the packets generated",
     "a packet was delivered twice or another lost: report it with the config echo",
     check_exactly_once},
    {"router.deterministic", CONFORM_ERROR, "the same experiment and seed give the same counters",
     "draw randomness only from ctx->rng, keep state in the instance, packet or router state",
     check_deterministic},
    {"router.pure-claim", CONFORM_ERROR,
     "when properties() declares INSEE_ROUTE_PURE, route() answers alike whatever the cycle, the "
     "rng draws and the queue and link states (on the first test network create() accepts)",
     "the kernel reuses a pure router's candidates: drop the flag, or stop reading "
     "now/born/rng/output_room/link_free in route()",
     check_pure_claim},
    {"router.steady-claim", CONFORM_ERROR,
     "when properties() declares INSEE_ROUTE_STEADY, route() gives the same candidates (in any "
     "order) whatever the cycle, the rng and the queue and link states, draws nothing from the "
     "rng and leaves the packet's and the router's state as they were",
     "a blocked head of a steady router is not asked again until a candidate frees: drop the "
     "flag, or keep the candidate set to what the packet and its place decide",
     check_steady_claim},
    {"router.settled-claim", CONFORM_ERROR,
     "when properties() declares INSEE_ROUTE_SETTLED, route() asked again from the state its "
     "first answer left gives the same candidates in the same order whatever the cycle, the rng "
     "and the queue and link states, draws nothing and leaves the packet's and the router's "
     "state as they were",
     "the kernel keeps a settled router's first answer while the head waits: drop the flag, or "
     "decide what reads the network once and keep it in the packet's state",
     check_settled_claim},
    {"router.local-claim", CONFORM_ERROR,
     "when properties() declares INSEE_ROUTE_LOCAL, route() on a busy network queries the "
     "queues, outputs and links of its own router only, never the whole network's occupancy, "
     "and leaves the router's state as it was",
     "a run is split over threads or ranks, each holding its own routers exactly: drop the "
     "flag, or read only ctx->router's state and keep what route() learns in the packet's state",
     check_local_claim},
    {"router.no-draws-claim", CONFORM_ERROR,
     "when properties() declares INSEE_ROUTE_NO_DRAWS (ABI 1.16), route() leaves ctx->rng as it "
     "was on a quiet and a busy network, from a zeroed packet state and from the state its "
     "first answer left",
     "the kernel seeds no stream per question for such a router: drop the flag for the "
     "settings that draw",
     check_no_draws_claim},
    {"router.no-drops-claim", CONFORM_ERROR,
     "when properties() declares INSEE_ROUTE_NO_DROPS (ABI 1.18), route() answers no "
     "INSEE_PORT_DROP on a quiet and a busy network, at several cycles with several rngs",
     "the parts of a split run whose links have latencies meet only every few cycles, and a "
     "drop frees its slot at the next: drop the flag for the settings that drop",
     check_no_drops_claim},
    {"router.room-order-claim", CONFORM_ERROR,
     "when properties() declares INSEE_ROUTE_ROOM_ORDER (ABI 1.19), route() on a busy network "
     "gives its candidates most room downstream first, as host->output_room() reports it, ties "
     "by VC, then by port, the lowest first",
     "the kernel picks a waiting head's candidate from its kept set in that order without "
     "asking route(): drop the flag, or order the candidates so",
     check_room_order_claim},
    {"router.bound", CONFORM_ERROR,
     "when the router gives route_bound() (ABI 1.16), the bound is the same whatever the "
     "cycle, the rng and the queue and link states, draws nothing and changes no state, and "
     "route() on a busy network, asked at several cycles with several rngs and from the "
     "packet state its earlier answers left, answers only candidates inside it (the same port "
     "and VC, at least the bound's room, and only while the input queue a candidate's need "
     "names shows that room)",
     "the kernel lets a head sleep while nothing in its bound can be requested, and does not "
     "ask route() meanwhile: add every candidate route() may give to the bound, or give none",
     check_bound},
    {"router.concurrent-claim", CONFORM_ERROR,
     "when properties() declares INSEE_ROUTE_CONCURRENT, route() gives every question the answer "
     "it gives alone while another thread asks other questions of the same instance (batches of "
     "256 questions, each asked 3 times by two threads from either end)",
     "the static flow engine walks flows on several threads at once: drop the flag, or keep "
     "route()'s scratch on its stack or in the ctx's packet and router state",
     check_concurrent_claim},
    {"router.no-forwarded-claim", CONFORM_ERROR,
     "when properties() declares INSEE_ROUTE_NO_FORWARDED, forwarded() leaves the packet and "
     "router state as they were (the kernel skips the call)",
     "drop the flag for the modes whose forwarded() updates packet state", check_no_forwarded_claim},
    {"router.paths", CONFORM_ERROR,
     "when route() is declared INSEE_ROUTE_PURE, the static flow engine walks every pair of nodes "
     "of every test network the router accepts (all-to-all), each hop by route()'s first "
     "candidate, from the source's router to the destination's, through plugged links and "
     "never twice through a router",
     "the detail names the network, the nodes and the router where the walk failed: a packet "
     "alone in the network must reach its destination by the first candidates",
     check_paths},
};

const conform_suite conform_router_suite =
    CONFORM_SUITE(INSEE_KIND_ROUTER, router_checks, router_validate, router_cleanup);
