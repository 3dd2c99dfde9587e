/* sdk/conformance/check_router.c — the router suite: the router under test
 * runs real experiments through the kernel's engine (kernel/engine/
 * experiment.h) on small networks at saturation, then a drain; the report's
 * whole-run counters say whether every packet was delivered exactly once
 * and nothing was left stuck (deadlock freedom).
 *
 * The other kinds come from the usual places: the registry holds the plugin
 * under test first, then every --plugin-dir, then the default plugin
 * directory, which must provide the torus and mesh topologies, the
 * round-robin arbiter, uniform traffic and consecutive placement. A network
 * the router refuses (its create() fails there even with more virtual
 * channels) is skipped, not failed: not every router model fits every
 * topology.
 *
 * A router that declares route() pure (INSEE_ROUTE_PURE) is also called
 * directly on the mock host, idle and early then busy and late, since the
 * kernel reuses a pure router's candidates instead of asking again.
 */
#include <string.h>

#include "conform.h"
#include "engine/experiment.h"

typedef struct network {
    const char *name;
    const char *toml;
} network;

/* Rings of 4 are too short to deadlock in practice; the 8x8 torus is where
   a missing escape channel shows. */
static const network networks[] = {
    {"8x8 torus", "[topology]\nplugin = \"torus\"\ndims = [8, 8]\n"},
    {"4x4 torus", "[topology]\nplugin = \"torus\"\ndims = [4, 4]\n"},
    {"5x3 torus", "[topology]\nplugin = \"torus\"\ndims = [5, 3]\n"},
    {"4x4 mesh", "[topology]\nplugin = \"mesh\"\ndims = [4, 4]\n"},
};

/* The kernel's default VCs first, then what models commonly need more of. */
static const char *const vcs_lines[] = {"", "vcs = 3\n", "vcs = 4\n", "vcs = 1\n"};

/* The counters a run leaves, copied out of the experiment's report. */
typedef struct outcome {
    gboolean drained;
    uint64_t cycles, generated, delivered, dropped, in_flight, packet_hops;
    uint64_t sum_generated_ids, sum_delivered_ids;
} outcome;

/* One (setting, network) pair that ran. */
typedef struct run {
    char *where; /* "mode = \"trc\", 4x4 torus, vcs = 3" */
    char *text;  /* the experiment, to run it again */
    outcome out;
} run;

typedef struct router_state {
    GPtrArray *settings;
    GArray *runs; /* run, every (setting, network) that ran */
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
    }
    g_array_free(st->runs, TRUE);
    g_ptr_array_free(st->settings, TRUE);
    g_free(st);
    ctx->state = NULL;
}

static char *experiment_text(const conform_ctx *ctx, const network *net, const char *vcs,
                             const conform_setting *s)
{
    return g_strdup_printf("[simulation]\nseed = %u\nwarmup = 1000\ncycles = 10000\ndrain = 20000\n"
                           "%s"
                           "[router]\nplugin = \"%s\"\n%s%s\n"
                           "[arbiter]\nplugin = \"round-robin\"\n"
                           "[traffic]\nplugin = \"uniform\"\nload = 1.0\n"
                           "[placement]\nplugin = \"consecutive\"\n",
                           CONFORM_SEED, net->toml, ctx->plugin->desc->name, vcs, s->line);
}

/* Build and run one experiment; FALSE with err when either step fails. */
static gboolean run_text(const conform_ctx *ctx, const char *text, outcome *out, GError **err)
{
    insee_config *cfg = insee_config_load_string(text, "<insee-conform experiment>", err);
    if (!cfg)
        return FALSE;
    insee_experiment *exp = NULL;
    gboolean ok = conform_apply_overrides(ctx, cfg, "router", err) &&
                  (exp = insee_experiment_new(cfg, ctx->reg, err)) != NULL &&
                  insee_experiment_run(exp, err);
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

/* The supporting plugins, found after the plugin under test. */
static void scan_support_dirs(conform_ctx *ctx)
{
    for (const char *const *d = ctx->plugin_dirs; d && *d; d++)
        insee_registry_add_dir(ctx->reg, *d);
    char *def = insee_registry_default_dir();
    insee_registry_add_dir(ctx->reg, def);
    g_free(def);
    insee_registry_scan(ctx->reg);
}

typedef enum try_result {
    TRY_RAN,      /* ran to the end of the drain */
    TRY_REFUSED,  /* a create() refused this network at every VC count */
    TRY_FAILED,   /* the run stopped with a simulation error: the router misbehaved */
    TRY_UNUSABLE, /* missing support plugins, a bad --set: no run can work */
} try_result;

/* Run `set` on `net`, with more virtual channels while a create() refuses;
   *err says why when it did not run (the first refusal for TRY_REFUSED). */
static try_result try_network(const conform_ctx *ctx, const conform_setting *set, const network *net,
                              run *out, GError **err)
{
    for (size_t v = 0; v < G_N_ELEMENTS(vcs_lines); v++) {
        char *text = experiment_text(ctx, net, vcs_lines[v], set);
        GError *e = NULL;
        outcome o = {0};
        if (run_text(ctx, text, &o, &e)) {
            int vcs_len = (int)strcspn(vcs_lines[v], "\n");
            *out = (run){g_strdup_printf("%s, %s%s%.*s", set->label, net->name, vcs_len ? ", " : "",
                                         vcs_len, vcs_lines[v]),
                         text, o};
            g_clear_error(err);
            return TRY_RAN;
        }
        g_free(text);
        if (e->domain == INSEE_EXPERIMENT_ERROR && e->code == INSEE_EXPERIMENT_ERROR_SETUP) {
            if (*err)
                g_error_free(e);
            else
                *err = e;
            continue;
        }
        g_clear_error(err);
        *err = e;
        return e->domain == INSEE_EXPERIMENT_ERROR && e->code == INSEE_EXPERIMENT_ERROR_SIMULATION
                   ? TRY_FAILED
                   : TRY_UNUSABLE;
    }
    return TRY_REFUSED;
}

static conform_status check_runs(conform_ctx *ctx, GString *detail)
{
    router_state *st = g_new0(router_state, 1);
    ctx->state = st;
    st->settings = conform_settings(ctx, FALSE);
    st->runs = g_array_new(FALSE, TRUE, sizeof(run));
    scan_support_dirs(ctx);

    conform_findings f = {detail, 0};
    GString *refused = g_string_new(NULL);
    conform_status status = CONFORM_PASS;
    for (guint s = 0; s < st->settings->len && status != CONFORM_SKIP; s++) {
        const conform_setting *set = st->settings->pdata[s];
        for (size_t n = 0; n < G_N_ELEMENTS(networks) && status != CONFORM_SKIP; n++) {
            run r;
            GError *err = NULL;
            switch (try_network(ctx, set, &networks[n], &r, &err)) {
            case TRY_RAN:
                g_array_append_val(st->runs, r);
                break;
            case TRY_FAILED:
                conform_note(&f, set->label, "%s: the run stopped: %s", networks[n].name, err->message);
                break;
            case TRY_REFUSED:
                g_string_append_printf(refused, "%s%s, %s: %s", refused->len ? "; " : "", set->label,
                                       networks[n].name, err->message);
                break;
            case TRY_UNUSABLE:
                if (s == 0) {
                    g_string_printf(detail, "cannot set up the experiments: %s", err->message);
                    status = CONFORM_SKIP;
                } else {
                    g_string_append_printf(refused, "%s%s: %s", refused->len ? "; " : "", set->label,
                                           err->message);
                }
                break;
            }
            g_clear_error(&err);
        }
        if (s == 0 && status != CONFORM_SKIP && st->runs->len == 0 && f.count == 0) {
            g_string_printf(detail,
                            "the router accepts none of the test networks (%s); give it one with "
                            "--set topology.plugin=NAME --set topology.dims=[...]",
                            refused->str);
            status = CONFORM_SKIP;
        }
    }
    if (status != CONFORM_SKIP) {
        status = conform_verdict(&f);
        if (status == CONFORM_PASS) {
            GString *names = g_string_new(NULL);
            for (guint i = 0; i < st->runs->len; i++)
                g_string_append_printf(names, "%s%s", i ? "; " : "",
                                       g_array_index(st->runs, run, i).where);
            g_string_printf(detail, "ran: %s%s%s", names->str, refused->len ? "; refused: " : "",
                            refused->str);
            g_string_free(names, TRUE);
        }
    }
    g_string_free(refused, TRUE);
    return status;
}

/* What a check does with one run, noting what is wrong in `f`. */
typedef void (*run_fn)(const conform_ctx *ctx, const run *r, conform_findings *f, void *data);

/* Run `visit` on every run router.runs kept: SKIP when none ran, else the
   verdict. */
static conform_status each_run(const conform_ctx *ctx, GString *detail, run_fn visit, void *data)
{
    const router_state *st = ctx->state;
    if (!st || st->runs->len == 0) {
        g_string_assign(detail, "no experiment ran (see router.runs)");
        return CONFORM_SKIP;
    }
    conform_findings f = {detail, 0};
    for (guint i = 0; i < st->runs->len; i++)
        visit(ctx, &g_array_index(st->runs, run, i), &f, data);
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
    return each_run(ctx, detail, delivers_in, NULL);
}

static void drains_in(const conform_ctx *ctx, const run *r, conform_findings *f, void *data)
{
    (void)ctx;
    (void)data;
    if (!r->out.drained || r->out.in_flight != 0)
        conform_note(f, r->where,
                     "%" G_GUINT64_FORMAT " packets still in the network after the drain "
                     "(cycle %" G_GUINT64_FORMAT "): a deadlock or livelock",
                     r->out.in_flight, r->out.cycles);
}

static conform_status check_drains(conform_ctx *ctx, GString *detail)
{
    return each_run(ctx, detail, drains_in, NULL);
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
    return each_run(ctx, detail, conservation_in, NULL);
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
    conform_status s = each_run(ctx, detail, exactly_once_in, &checked);
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
    return each_run(ctx, detail, deterministic_in, NULL);
}

/* One route() call in a fresh packet and router state, as the kernel would
   make it for a head at `router` that came in on (in_port, in_vc). */
static uint32_t route_once(const insee_router_vtable *vt, void *self, insee_route_ctx rc,
                           uint64_t now, uint64_t seed, insee_candidate *out)
{
    size_t ps = vt->packet_state_size ? vt->packet_state_size(self) : 0;
    size_t rs = vt->router_state_size ? vt->router_state_size(self) : 0;
    void *packet = g_malloc0(MAX(ps, 1u)), *router = g_malloc0(MAX(rs, 1u));
    insee_rng rng;
    insee_rng_init(&rng, seed, rc.router);
    rc.now = now;
    rc.born = now / 2;
    rc.packet_state = packet;
    rc.router_state = router;
    rc.rng = &rng;
    memset(out, 0, sizeof(insee_candidate) * INSEE_MAX_CANDIDATES);
    uint32_t n = vt->route(self, &rc, out, INSEE_MAX_CANDIDATES);
    g_free(packet);
    g_free(router);
    return MIN(n, INSEE_MAX_CANDIDATES);
}

/* Every routing question the mock 4x4 torus can raise: each router, input
   (ports, then injection), VC and destination other than the router itself
   (consumed by the kernel, never routed). */
typedef void (*question_fn)(const insee_route_ctx *rc, void *data);

static void each_question(question_fn fn, void *data)
{
    const uint32_t ports = 4, vcs = 2; /* the mock's 4x4 torus (conform_mock_init) */
    for (uint32_t r = 0; r < CONFORM_MOCK_NODES; r++)
        for (uint32_t in = 0; in <= ports; in++)
            for (uint32_t vc = 0; vc < (in == ports ? 1 : vcs); vc++)
                for (uint32_t dst = 0; dst < CONFORM_MOCK_NODES; dst++) {
                    if (dst == r)
                        continue;
                    insee_route_ctx rc = {
                        .size = sizeof rc,
                        .router = r,
                        .in_port = in == ports ? INSEE_PORT_INJECTION : in,
                        .in_vc = vc,
                        .src_node = (dst + 5) % CONFORM_MOCK_NODES,
                        .dst_node = dst,
                        .salt = r * 2654435761u ^ dst,
                        .hops = in == ports ? 0 : 1,
                    };
                    fn(&rc, data);
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

typedef struct pure_probe {
    const insee_router_vtable *vt;
    void *quiet, *busy;
    const char *where;
    conform_findings *f;
} pure_probe;

/* The same question to two instances, one on an idle mock network at an
   early cycle, the other on a busy one later with another rng seed: a pure
   route() answers both alike. */
static void compare_route(const insee_route_ctx *rc, void *data)
{
    pure_probe *p = data;
    insee_candidate a[INSEE_MAX_CANDIDATES], b[INSEE_MAX_CANDIDATES];
    uint32_t na = route_once(p->vt, p->quiet, *rc, 10, 1, a);
    uint32_t nb = route_once(p->vt, p->busy, *rc, 5000, 2, b);
    gboolean same = na == nb;
    for (uint32_t i = 0; same && i < na; i++)
        same = a[i].port == b[i].port && a[i].vc == b[i].vc && a[i].room == b[i].room &&
               a[i].tag == b[i].tag;
    char q[96];
    if (!same)
        conform_note(p->f, p->where,
                     "route() at %s answers differently with other cycles, rng or queue states",
                     question_text(rc, q, sizeof q));
}

typedef struct idle_probe {
    const insee_router_vtable *vt;
    void *self;
    const char *where;
    conform_findings *f;
} idle_probe;

/* With INSEE_ROUTE_NO_FORWARDED the kernel skips forwarded(): calling it on
   every candidate must leave the packet's and the router's state as they
   were. */
static void forward_each_candidate(const insee_route_ctx *question, void *data)
{
    idle_probe *p = data;
    size_t ps = MAX(p->vt->packet_state_size ? p->vt->packet_state_size(p->self) : 0, 1u);
    size_t rs = MAX(p->vt->router_state_size ? p->vt->router_state_size(p->self) : 0, 1u);
    guint8 *packet = g_malloc0(ps), *router = g_malloc0(rs);
    insee_rng rng;
    insee_rng_init(&rng, 3, question->router);
    insee_route_ctx rc = *question;
    rc.now = 10;
    rc.packet_state = packet;
    rc.router_state = router;
    rc.rng = &rng;
    insee_candidate out[INSEE_MAX_CANDIDATES];
    uint32_t n = MIN(p->vt->route(p->self, &rc, out, INSEE_MAX_CANDIDATES), INSEE_MAX_CANDIDATES);
    guint8 *packet_before = g_memdup2(packet, ps), *router_before = g_memdup2(router, rs);
    char q[96];
    for (uint32_t i = 0; i < n; i++) {
        p->vt->forwarded(p->self, &rc, &out[i]);
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

static conform_status check_pure_claim(conform_ctx *ctx, GString *detail)
{
    router_state *st = ctx->state;
    const insee_router_vtable *vt = ctx->plugin->vtable;
    if (!st || !vt->properties) {
        g_string_assign(detail, "properties() not provided: route() is asked every cycle");
        return CONFORM_SKIP;
    }
    conform_findings f = {detail, 0};
    guint claimed = 0;
    for (guint s = 0; s < st->settings->len; s++) {
        const conform_setting *set = st->settings->pdata[s];
        conform_mock quiet_host, busy_host;
        conform_mock_init(&quiet_host, TRUE);
        conform_mock_init(&busy_host, TRUE);
        busy_host.noise = 0x2545f491u;
        GError *bind_err = NULL;
        insee_error create_err;
        conform_instance *quiet =
            conform_instance_new(ctx, set, &quiet_host.host, vt->create, &bind_err, &create_err);
        g_clear_error(&bind_err);
        conform_instance *busy =
            conform_instance_new(ctx, set, &busy_host.host, vt->create, &bind_err, &create_err);
        g_clear_error(&bind_err);
        if (quiet && busy && (vt->properties(quiet->self) & INSEE_ROUTE_PURE)) {
            claimed++;
            pure_probe probe = {vt, quiet->self, busy->self, set->label, &f};
            each_question(compare_route, &probe);
        }
        conform_instance_free(quiet, vt->destroy);
        conform_instance_free(busy, vt->destroy);
    }
    return conform_skip_if_none(conform_verdict(&f), claimed, detail,
                                "route() is not declared INSEE_ROUTE_PURE (at the settings that "
                                "create on the mock 4x4 torus)");
}

static conform_status check_no_forwarded_claim(conform_ctx *ctx, GString *detail)
{
    router_state *st = ctx->state;
    const insee_router_vtable *vt = ctx->plugin->vtable;
    if (!st || !vt->properties || !vt->forwarded) {
        g_string_assign(detail, "properties() or forwarded() not provided: nothing to skip");
        return CONFORM_SKIP;
    }
    conform_findings f = {detail, 0};
    guint claimed = 0;
    for (guint s = 0; s < st->settings->len; s++) {
        const conform_setting *set = st->settings->pdata[s];
        conform_mock host;
        conform_mock_init(&host, TRUE);
        GError *bind_err = NULL;
        insee_error create_err;
        conform_instance *inst =
            conform_instance_new(ctx, set, &host.host, vt->create, &bind_err, &create_err);
        g_clear_error(&bind_err);
        if (inst && (vt->properties(inst->self) & INSEE_ROUTE_NO_FORWARDED)) {
            claimed++;
            idle_probe probe = {vt, inst->self, set->label, &f};
            each_question(forward_each_candidate, &probe);
        }
        conform_instance_free(inst, vt->destroy);
    }
    return conform_skip_if_none(conform_verdict(&f), claimed, detail,
                                "no setting declares INSEE_ROUTE_NO_FORWARDED");
}

static const conform_check router_checks[] = {
    {"router.runs", CONFORM_ERROR,
     "experiments at saturation on 8x8, 4x4 and 5x3 tori and a 4x4 mesh set up and run without a "
     "simulation error (at the defaults and every choice of its enums)",
     "the message names the run and what the kernel rejected (a candidate port or VC out of range, "
     "...)",
     check_runs},
    {"router.delivers", CONFORM_ERROR, "packets get delivered",
     "route() returning 0 candidates forever means no packet ever moves", check_delivers},
    {"router.drains", CONFORM_ERROR,
     "after the load stops, the network empties within the drain limit (no deadlock)",
     "break cyclic channel dependencies: dateline VCs (Dally) or bubble admission on rings",
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
     "rng draws and the queue and link states",
     "the kernel reuses a pure router's candidates: drop the flag, or stop reading "
     "now/born/rng/output_room/link_free in route()",
     check_pure_claim},
    {"router.no-forwarded-claim", CONFORM_ERROR,
     "when properties() declares INSEE_ROUTE_NO_FORWARDED, forwarded() leaves the packet and "
     "router state as they were (the kernel skips the call)",
     "drop the flag for the modes whose forwarded() updates packet state", check_no_forwarded_claim},
};

const conform_suite conform_router_suite =
    CONFORM_SUITE(INSEE_KIND_ROUTER, router_checks, router_cleanup);
