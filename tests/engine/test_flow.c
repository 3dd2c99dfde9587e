/* The static flow engine (kernel/flow/, docs/flow.md) against closed forms:
 * every link's flow count under all-to-all on a k-ary n-tree and on an odd
 * torus, a contention-free permutation on a fat tree, all-to-one, and the
 * throughputs INRFlow §4 defines; determinism; and the refusals of what a
 * flow engine cannot run. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "engine/engine.h"
#include "flow/flow.h"
#include "flow/paths.h"
#include "run_helpers.h"

static double sum_hist(const insee_flow_report *r)
{
    double links = 0;
    for (uint32_t k = 0; k <= r->load_max; k++)
        links += (double)r->load_hist[k];
    return links;
}

/* k-ary n-tree, all-to-all, multistage static (up port chosen by the
   source's digits): at every level each up link carries one source's flows
   out of its subtree, and by the same digit argument each down link one
   destination's flows into it. A level-l subtree holds k^(l+1) nodes, so
   each of the 2N directed links between levels l and l+1 carries
   N - k^(l+1) flows; the 2N node links carry N - 1 each. */
Test(flow, all_to_all_on_a_kary_ntree_loads_every_link_as_its_level_says)
{
    const uint32_t k = 2, n = 3, N = 8;
    insee_flow_report r = run_static_toml(
        "[simulation]\nengine = \"static\"\n"
        "[topology]\nplugin = \"kary-ntree\"\nk = 2\nn = 3\nnic = false\n"
        "[router]\nplugin = \"multistage\"\nmode = \"static\"\n"
        "[traffic]\nplugin = \"all-to-all\"\n", NULL);
    cr_assert_eq(r.flows, (uint64_t)N * (N - 1));
    cr_assert_eq(r.self_flows, 0);
    cr_assert_eq(r.load_max, N - 1);
    cr_assert_eq(r.load_hist[N - 1], 2 * N, "node links: %" G_GUINT64_FORMAT, r.load_hist[N - 1]);
    uint32_t span = k;
    for (uint32_t l = 0; l + 1 < n; l++, span *= k)
        cr_assert_eq(r.load_hist[N - span], 2 * N, "level %u: %" G_GUINT64_FORMAT " links of %u",
                     l, r.load_hist[N - span], N - span);
    cr_assert_eq(sum_hist(&r), 2 * N * n, "no other link");
    cr_assert_eq(r.links, 2 * N * n);
    cr_assert_eq(r.ports, N * (2 * n - 1), "every switch port but the top's up ports");
    /* F / B: every flow at the node link's share. */
    cr_assert_float_eq(r.restricted, N * (N - 1) / (double)(N - 1), 1e-9);
    cr_assert_float_eq(r.non_restricted, N, 1e-9, "each flow's bottleneck is a node link");
    insee_flow_report_clear(&r);
}

/* An odd k-ary n-cube under all-to-all with dimension-order routing: in a
   ring of k = 2m + 1 a directed link is crossed by the flows of distance d
   > j from the node j before it, m(m + 1)/2 of them, once for each of the
   k^(n-1) choices of the other coordinates; node links carry N - 1. */
Test(flow, all_to_all_on_an_odd_torus_loads_every_network_link_equally)
{
    const uint32_t k = 5, m = 2, N = 25;
    insee_flow_report r = run_static_toml(
        "[simulation]\nengine = \"static\"\n"
        "[topology]\nplugin = \"torus\"\ndims = [5, 5]\n"
        "[router]\nplugin = \"dally\"\nmode = \"trc\"\n"
        "[traffic]\nplugin = \"all-to-all\"\n", NULL);
    uint32_t per_link = k * m * (m + 1) / 2;
    cr_assert_eq(r.flows, (uint64_t)N * (N - 1));
    cr_assert_eq(r.load_hist[per_link], 4 * N, "every network link carries %u", per_link);
    cr_assert_eq(r.load_hist[N - 1], 2 * N);
    cr_assert_eq(sum_hist(&r), 6 * N);
    cr_assert_eq(r.load_min, per_link);
    /* Mean distance of an odd ring, (k^2 - 1)/(4k) per dimension, over
       distinct pairs. */
    int dims[] = {5, 5};
    cr_assert_float_eq(r.hops_mean, torus_avg_distance(dims, 2), 1e-9);
    cr_assert_eq(r.hops_max, 2 * m);
    insee_flow_report_clear(&r);
}

/* Bit-complement on a k-ary n-tree with source-digit up ports: a down link
   into a level-l switch is fixed by the destination's digits from l up and
   the source's below l + 1, which for d = ~s name one flow; every flow has
   its links to itself: F / B = F and each flow at full rate. */
Test(flow, bit_complement_on_a_fat_tree_runs_every_flow_at_full_rate)
{
    insee_flow_report r = run_static_toml(
        "[simulation]\nengine = \"static\"\n"
        "[topology]\nplugin = \"kary-ntree\"\nk = 2\nn = 4\nnic = false\n"
        "[router]\nplugin = \"multistage\"\nmode = \"static\"\n"
        "[traffic]\nplugin = \"permutation\"\npattern = \"bit-complement\"\n", NULL);
    cr_assert_eq(r.flows, 16);
    cr_assert_eq(r.load_max, 1);
    cr_assert_float_eq(r.restricted, 16.0, 1e-12);
    cr_assert_float_eq(r.non_restricted, 16.0, 1e-12);
    cr_assert_eq(r.hops_max, 6, "to the top and back: 2(n - 1)");
    cr_assert_float_eq(r.hops_mean, 6.0, 1e-12);
    insee_flow_report_clear(&r);
}

/* All-to-one: the root's node link carries all N - 1 flows, so F / B = 1,
   and every flow has that link as its bottleneck. */
Test(flow, all_to_one_loads_the_root_link_with_every_flow)
{
    insee_flow_report r = run_static_toml(
        "[simulation]\nengine = \"static\"\n"
        "[topology]\nplugin = \"torus\"\ndims = [4, 4]\n"
        "[router]\nplugin = \"dally\"\nmode = \"trc\"\n"
        "[traffic]\nplugin = \"all-to-one\"\nroot = 5\n", NULL);
    cr_assert_eq(r.flows, 15);
    cr_assert_eq(r.load_max, 15);
    cr_assert_eq(r.load_hist[15], 1, "only the root's link");
    cr_assert_float_eq(r.restricted, 1.0, 1e-12);
    cr_assert_float_eq(r.non_restricted, 1.0, 1e-12);
    insee_flow_report_clear(&r);
}

/* Two tasks per node: the flows between a node's own tasks use no link and
   are counted apart; F counts the others only (not N^2). */
Test(flow, self_flows_are_counted_apart)
{
    insee_flow_report r = run_static_toml(
        "[simulation]\nengine = \"static\"\n"
        "[topology]\nplugin = \"torus\"\ndims = [3]\n"
        "[router]\nplugin = \"dally\"\nmode = \"trc\"\n"
        "[[application]]\ntasks = 6\ntasks_per_node = 2\n"
        "[application.traffic]\nplugin = \"all-to-all\"\n", NULL);
    cr_assert_eq(r.self_flows, 6, "each task to its node's other task");
    cr_assert_eq(r.flows, 6 * 5 - 6);
    /* Each node sends 8 flows and receives 8. */
    cr_assert_eq(r.load_max, 8);
    insee_flow_report_clear(&r);
}

/* Rounds multiply a round's flows; the same seed gives the same bytes. */
Test(flow, uniform_rounds_are_deterministic)
{
    static const char toml[] =
        "[simulation]\nengine = \"static\"\nseed = 7\n"
        "[topology]\nplugin = \"torus\"\ndims = [4, 4, 4]\n"
        "[router]\nplugin = \"dally\"\nmode = \"trc\"\n"
        "[flow]\nrounds = 3\n"
        "[traffic]\nplugin = \"uniform\"\n";
    char *a, *b;
    insee_flow_report r = run_static_toml(toml, &a);
    insee_flow_report s = run_static_toml(toml, &b);
    cr_assert_str_eq(a, b);
    cr_assert_eq(r.flows, 3 * 64, "one flow per task and round");
    /* Every flow crosses two node links: their loads add up to 2F. */
    uint64_t node_sum = 0;
    for (uint32_t k = 0; k <= r.load_max; k++)
        node_sum += k * r.load_hist[k];
    cr_assert_float_eq((double)node_sum, 2.0 * r.flows + r.hops_mean * r.flows, 1e-6,
                       "links crossed = flows x (hops + 2)");
    g_free(a);
    g_free(b);
    insee_flow_report_clear(&r);
    insee_flow_report_clear(&s);
}

/* A flow engine builds the graph alone: the same ports and links as the
   packet engine's network, none of its queues or packet state. */
Test(flow, the_network_is_the_graph_without_queues)
{
    static const char body[] = "[topology]\nplugin = \"torus\"\ndims = [4, 4]\n"
                               "[router]\nplugin = \"dally\"\nmode = \"trc\"\n"
                               "[traffic]\nplugin = \"uniform\"\n";
    insee_config *cf, *cp;
    insee_registry *rf, *rp;
    char *flow = g_strconcat("[simulation]\nengine = \"static\"\n", body, NULL);
    insee_experiment *ef = build_toml(flow, &cf, &rf);
    insee_experiment *ep = build_toml(body, &cp, &rp);
    const insee_net *f = insee_experiment_network(ef), *p = insee_experiment_network(ep);
    cr_assert_eq(f->routers, p->routers);
    cr_assert_eq(f->ports_total, p->ports_total);
    for (uint32_t gp = 0; gp < p->ports_total; gp++)
        cr_assert_eq(f->peer_queue[gp], p->peer_queue[gp], "port %u", gp);
    cr_assert_eq(f->vcs, p->vcs);
    cr_assert_gt(p->queues, 0);
    cr_assert_eq(f->queues, 0);
    cr_assert_null(f->q);
    cr_assert_null(f->link);
    cr_assert_null(f->ovc);
    insee_experiment_free(ef);
    insee_experiment_free(ep);
    insee_registry_free(rf);
    insee_registry_free(rp);
    insee_config_free(cf);
    insee_config_free(cp);
    g_free(flow);
}

/* The static engine run directly on what `exp` built, its paths kept for
   the second pass within `keep_bytes` (0: the default), on `threads`
   threads (the router and topology must allow more than one). */
static insee_flow_report run_kept(insee_experiment *exp, uint64_t keep_bytes, uint32_t threads)
{
    insee_engine *eng = insee_experiment_engine(exp);
    insee_flow_app apps[1] = {{.plugin = "uniform", .traffic = eng->wl.apps[0].traffic,
                               .self = eng->wl.apps[0].self,
                               .first_task = eng->wl.apps[0].first_task,
                               .tasks = eng->wl.apps[0].tasks}};
    insee_flow_setup setup = {
        .net = &eng->net, .router_name = "dally", .router = eng->router,
        .router_self = eng->router_self, .pstate_size = eng->net.pstate_size,
        .rstate_size = eng->rstate_size, .apps = apps, .n_apps = 1,
        .task_node = eng->wl.task_node, .seed = eng->seed, .rounds = 5, .keep_bytes = keep_bytes,
        .threads = threads, .concurrent = threads > 1};
    insee_flow_report r;
    GError *err = NULL;
    cr_assert(insee_flow_static_run(&setup, &r, &err), "%s", err ? err->message : "?");
    return r;
}

/* The second pass reads back the paths the first kept, and routes again
   the flows past what it may keep: nothing kept, some kept (the first
   flows, cut in a batch), all kept give the same figures to the bit. */
Test(flow, kept_paths_give_the_figures_of_paths_routed_again)
{
    insee_config *cfg;
    insee_registry *reg;
    insee_experiment *exp = build_toml("[simulation]\nengine = \"static\"\nseed = 3\n"
                                       "[topology]\nplugin = \"torus\"\ndims = [6, 5]\n"
                                       "[router]\nplugin = \"dally\"\nmode = \"trc\"\n"
                                       "[traffic]\nplugin = \"uniform\"\n", &cfg, &reg);
    insee_flow_report all = run_kept(exp, 0, 1);
    cr_assert_eq(all.flows, 150);
    for (uint64_t keep = 4; keep <= 1004; keep += 100) {
        insee_flow_report some = run_kept(exp, keep, 1);
        cr_assert_eq(some.flows, all.flows);
        cr_assert_eq(some.load_max, all.load_max);
        cr_assert_eq(some.load_std, all.load_std);
        cr_assert_eq(some.hops_mean, all.hops_mean);
        cr_assert_eq(memcmp(&some.non_restricted, &all.non_restricted, sizeof(double)), 0,
                     "keeping %" G_GUINT64_FORMAT " bytes: %.17g against %.17g", keep,
                     some.non_restricted, all.non_restricted);
        insee_flow_report_clear(&some);
    }
    insee_flow_report_clear(&all);
    insee_experiment_free(exp);
    insee_registry_free(reg);
    insee_config_free(cfg);
}

/* The figures of two runs, to the bit. */
static void assert_same_figures(const insee_flow_report *a, const insee_flow_report *b,
                                const char *what)
{
    cr_assert_eq(a->flows, b->flows, "%s", what);
    cr_assert_eq(a->self_flows, b->self_flows, "%s", what);
    cr_assert_eq(a->unroutable, b->unroutable, "%s", what);
    cr_assert_eq(a->hops_max, b->hops_max, "%s", what);
    cr_assert_eq(a->load_max, b->load_max, "%s", what);
    const double *x = &a->load_min, *y = &b->load_min; /* min, max, mean, std, median */
    cr_assert_eq(memcmp(x, y, 5 * sizeof(double)), 0, "%s: link loads", what);
    cr_assert_eq(memcmp(&a->hops_mean, &b->hops_mean, sizeof(double)), 0, "%s", what);
    cr_assert_eq(memcmp(a->load_hist, b->load_hist, sizeof(uint64_t) * ((size_t)a->load_max + 1)),
                 0, "%s: the loads' histogram", what);
    cr_assert_eq(memcmp(a->hops_hist, b->hops_hist, sizeof(double) * (a->hops_max + 1)), 0,
                 "%s: the hops' histogram", what);
    cr_assert_eq(memcmp(&a->non_restricted, &b->non_restricted, sizeof(double)), 0,
                 "%s: %.17g against %.17g", what, a->non_restricted, b->non_restricted);
}

/* Flows walked on 1, 2 or 3 threads (chunks of source tasks taken by
   whichever thread is free) give the same figures to the bit, on a fat
   tree and a torus of several chunks each, and so do paths kept for the
   second pass within a small bound. The sums are whole counts, or made
   chunk by chunk in order. */
Test(flow, any_number_of_threads_gives_the_same_figures)
{
    static const char *const nets[] = {
        "[topology]\nplugin = \"kary-ntree\"\nk = 8\nn = 4\nnic = false\n"
        "[router]\nplugin = \"multistage\"\nmode = \"static\"\n",
        "[topology]\nplugin = \"torus\"\ndims = [48, 48]\n"
        "[router]\nplugin = \"dally\"\nmode = \"basic\"\n",
    };
    for (guint i = 0; i < G_N_ELEMENTS(nets); i++) {
        insee_flow_report one = {0};
        for (uint32_t threads = 1; threads <= 3; threads++) {
            char *toml = g_strdup_printf("[simulation]\nengine = \"static\"\nseed = 5\n"
                                         "threads = %u\n[flow]\nrounds = 3\n%s"
                                         "[traffic]\nplugin = \"uniform\"\n",
                                         threads, nets[i]);
            char *text;
            insee_flow_report r = run_static_toml(toml, &text);
            cr_assert_gt(r.flows, 3 * 2048, "several chunks of 1024 tasks");
            cr_assert_eq(r.threads, threads, "the router and topology allow threads");
            if (threads == 1)
                one = r;
            else
                assert_same_figures(&one, &r, toml);
            if (threads > 1)
                insee_flow_report_clear(&r);
            g_free(text);
            g_free(toml);
        }
        insee_flow_report_clear(&one);
    }
    insee_config *cfg;
    insee_registry *reg;
    insee_experiment *exp = build_toml("[simulation]\nengine = \"static\"\nseed = 3\n"
                                       "[topology]\nplugin = \"torus\"\ndims = [64, 40]\n"
                                       "[router]\nplugin = \"dally\"\nmode = \"basic\"\n"
                                       "[traffic]\nplugin = \"uniform\"\n", &cfg, &reg);
    insee_flow_report all = run_kept(exp, 0, 1);
    for (uint32_t threads = 2; threads <= 3; threads++) {
        insee_flow_report some = run_kept(exp, 4096, threads);
        assert_same_figures(&all, &some, "threads, some paths kept");
        insee_flow_report_clear(&some);
    }
    insee_flow_report_clear(&all);
    insee_experiment_free(exp);
    insee_registry_free(reg);
    insee_config_free(cfg);
}

/* Threads only where every plugin asked allows them: dally's trc keeps a
   scratch in its instance and a path routing has tables of its own, so
   both run on one thread whatever [simulation] threads says. */
Test(flow, routers_and_routings_that_do_not_allow_threads_run_on_one)
{
    static const char *const nets[] = {
        "[router]\nplugin = \"dally\"\nmode = \"trc\"\n",
        "[routing]\nplugin = \"bfs\"\n",
    };
    for (guint i = 0; i < G_N_ELEMENTS(nets); i++) {
        char *toml = g_strdup_printf("[simulation]\nengine = \"static\"\nthreads = 2\n"
                                     "[topology]\nplugin = \"torus\"\ndims = [48, 48]\n%s"
                                     "[traffic]\nplugin = \"uniform\"\n", nets[i]);
        insee_flow_report r = run_static_toml(toml, NULL);
        cr_assert_eq(r.threads, 1, "%s", toml);
        cr_assert_eq(r.flows, 48 * 48);
        insee_flow_report_clear(&r);
        g_free(toml);
    }
}

/* A round that sends tasks 1500 and 3000 (of 4096) to a task the
   application lacks, every other task to its neighbour. */
static void bad_round(void *self, uint32_t task, insee_rng *rng,
                      void (*add)(void *ctx, const insee_message *msg), void *ctx)
{
    (void)self;
    (void)rng;
    insee_message m = {.dst = task == 1500 || task == 3000 ? 4096 : (task + 1) % 4096,
                       .packets = 1};
    add(ctx, &m);
}

/* The first failure in flow order is the run's on any number of threads:
   task 1500's (in the second chunk), not task 3000's (in the third), even
   when another thread reaches the third first. */
Test(flow, the_first_bad_flow_in_order_fails_the_run_on_any_threads)
{
    insee_config *cfg;
    insee_registry *reg;
    insee_experiment *exp = build_toml("[simulation]\nengine = \"static\"\n"
                                       "[topology]\nplugin = \"kary-ntree\"\nk = 8\nn = 4\n"
                                       "nic = false\n[router]\nplugin = \"multistage\"\n"
                                       "mode = \"static\"\n[traffic]\nplugin = \"uniform\"\n",
                                       &cfg, &reg);
    insee_engine *eng = insee_experiment_engine(exp);
    static const insee_traffic_vtable bad = {.size = sizeof bad, .round = bad_round};
    insee_flow_app apps[1] = {{.plugin = "bad", .traffic = &bad, .first_task = 0,
                               .tasks = eng->wl.apps[0].tasks}};
    cr_assert_eq(apps[0].tasks, 4096);
    for (uint32_t threads = 1; threads <= 3; threads++) {
        insee_flow_setup setup = {
            .net = &eng->net, .router_name = "multistage", .router = eng->router,
            .router_self = eng->router_self, .pstate_size = eng->net.pstate_size,
            .rstate_size = eng->rstate_size, .apps = apps, .n_apps = 1,
            .task_node = eng->wl.task_node, .seed = 1, .rounds = 1, .threads = threads,
            .concurrent = TRUE};
        insee_flow_report r;
        GError *err = NULL;
        cr_assert_not(insee_flow_static_run(&setup, &r, &err));
        cr_assert_str_eq(err->message, "traffic plugin 'bad' gave task 1500 a flow to task "
                                       "4096, but the application has 4096 tasks");
        g_error_free(err);
        insee_flow_report_clear(&r);
    }
    insee_experiment_free(exp);
    insee_registry_free(reg);
    insee_config_free(cfg);
}

static void dyn_wake(void *ctx, uint32_t app, uint32_t task, uint64_t at)
{
    insee_flow_dynamic_wake(ctx, app, task, at);
}

/* The dynamic engine run directly on a fresh experiment of `toml`, its
   paths walked on `threads` threads (the router and topology must allow
   more than one), the crew woken for as few as 2 walks. FALSE with `err`
   set when the run fails. */
static gboolean run_dynamic_on(const char *toml, uint32_t threads, uint32_t max_outstanding,
                               insee_flow_dyn_report *r, GError **err)
{
    insee_config *cfg;
    insee_registry *reg;
    insee_experiment *exp = build_toml(toml, &cfg, &reg);
    insee_engine *eng = insee_experiment_engine(exp);
    insee_workload *wl = &eng->wl;
    insee_flow_app *apps = g_new(insee_flow_app, wl->n_apps);
    for (uint32_t a = 0; a < wl->n_apps; a++)
        apps[a] = (insee_flow_app){.plugin = "traffic", .traffic = wl->apps[a].traffic,
                                   .self = wl->apps[a].self,
                                   .first_task = wl->apps[a].first_task,
                                   .tasks = wl->apps[a].tasks, .causal = wl->apps[a].causal,
                                   .abi_minor = INSEE_ABI_MINOR, .job = INSEE_NONE};
    insee_flow_setup setup = {
        .net = &eng->net, .router_name = "router", .router = eng->router,
        .router_self = eng->router_self, .pstate_size = eng->net.pstate_size,
        .rstate_size = eng->rstate_size, .apps = apps, .n_apps = wl->n_apps,
        .task_node = wl->task_node, .seed = eng->seed, .rounds = 3, .threads = threads,
        .concurrent = threads > 1};
    double *capacity = g_new(double, insee_flow_links(&eng->net));
    for (uint32_t l = 0; l < insee_flow_links(&eng->net); l++)
        capacity[l] = l % 3 ? 4e9 : 6.4e9; /* unequal: times alone read the links */
    insee_flow_dyn_options opt = {.capacity = capacity, .cycle_s = 1e-9,
                                  .max_outstanding = max_outstanding, .series = 17,
                                  .busiest = 40, .link_series = 9, .packet_bytes = 64,
                                  .min_walks = 2};
    insee_flow_dynamic *d = insee_flow_dynamic_new(&setup, &opt, err);
    cr_assert(d, "%s", *err ? (*err)->message : "?");
    wl->flow_wake = dyn_wake;
    wl->flow_ctx = d;
    gboolean ok = insee_flow_dynamic_run(d, r, err);
    wl->flow_wake = NULL;
    insee_flow_dynamic_free(d);
    g_free(capacity);
    g_free(apps);
    insee_experiment_free(exp);
    insee_registry_free(reg);
    insee_config_free(cfg);
    return ok;
}

/* n doubles, to the bit. */
static void assert_same_doubles(const double *a, const double *b, size_t n, const char *what)
{
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(memcmp(&a[i], &b[i], sizeof *a), 0, "%s [%zu]: %.17g against %.17g", what,
                     i, a[i], b[i]);
}

/* Every figure of two dynamic runs, to the bit. */
static void assert_same_dyn_figures(const insee_flow_dyn_report *a,
                                    const insee_flow_dyn_report *b, const char *what)
{
    cr_assert_eq(a->messages, b->messages, "%s", what);
    cr_assert_eq(a->self_messages, b->self_messages, "%s", what);
    cr_assert_eq(a->unroutable, b->unroutable, "%s", what);
    cr_assert_eq(a->subflows, b->subflows, "%s", what);
    cr_assert_eq(a->bytes_sent, b->bytes_sent, "%s", what);
    cr_assert_eq(a->bytes_delivered, b->bytes_delivered, "%s", what);
    cr_assert_eq(a->instants, b->instants, "%s", what);
    cr_assert_eq(a->rate_changes, b->rate_changes, "%s", what);
    assert_same_doubles(&a->makespan, &b->makespan, 1, what);
    assert_same_doubles(&a->fct_mean, &b->fct_mean, 4, what);            /* mean .. max */
    assert_same_doubles(&a->slowdown_mean, &b->slowdown_mean, 4, what);
    assert_same_doubles(&a->utilisation, &b->utilisation, 1, what);
    cr_assert_eq(a->n_apps, b->n_apps, "%s", what);
    assert_same_doubles(a->app_completion, b->app_completion, a->n_apps, what);
    cr_assert_eq(memcmp(a->app_messages, b->app_messages, sizeof(uint64_t) * a->n_apps), 0,
                 "%s", what);
    cr_assert_eq(a->n_busiest, b->n_busiest, "%s", what);
    cr_assert_eq(memcmp(a->busiest_link, b->busiest_link, sizeof(uint32_t) * a->n_busiest), 0,
                 "%s: the busiest links", what);
    assert_same_doubles(a->busiest_util, b->busiest_util, a->n_busiest, what);
    cr_assert_eq(a->n_series, b->n_series, "%s", what);
    assert_same_doubles(a->series, b->series, a->n_series, what);
    cr_assert_eq(a->n_link_series, b->n_link_series, "%s", what);
    assert_same_doubles(&a->link_series_span, &b->link_series_span, 1, what);
    assert_same_doubles(a->link_series, b->link_series, (size_t)a->n_busiest * a->n_link_series,
                        what);
}

/* The dynamic engine's paths walked on 1, 2 or 3 threads (a crew woken for
   every two walks at once) give every figure to the bit: a fat tree's
   all-to-all whose starts and ends interleave a cycle apart, uniform
   rounds all started at once, and with one message in flight at most and
   failed cables, where a task at its limit must learn whether its queued
   start found no path (and start its next one then, as every message
   starts). The share sees the starts in the order they were
   made whatever thread walked them. */
Test(flow, dynamic_walks_on_any_number_of_threads_give_the_same_figures)
{
    static const struct {
        const char *toml;
        uint32_t max_outstanding;
        uint64_t messages; /* all of them start: routed, self or unroutable */
    } cases[] = {
        {"[topology]\nplugin = \"kary-ntree\"\nk = 4\nn = 3\nnic = false\n"
         "[router]\nplugin = \"multistage\"\nmode = \"static\"\n"
         "[traffic]\nplugin = \"all-to-all\"\nmessage_bytes = 2048\n", 0, 64 * 63},
        {"[topology]\nplugin = \"torus\"\ndims = [8, 6]\n"
         "[router]\nplugin = \"dally\"\nmode = \"basic\"\n"
         "[traffic]\nplugin = \"uniform\"\nmessage_bytes = 4096\n", 0, 3 * 48},
        {"[topology]\nplugin = \"torus\"\ndims = [8, 8]\n"
         "[router]\nplugin = \"dally\"\nmode = \"basic\"\n[faults]\nlinks = 0.1\n"
         "[traffic]\nplugin = \"uniform\"\nmessage_bytes = 4096\n", 1, 3 * 64},
    };
    for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
        char *toml = g_strdup_printf("[simulation]\nengine = \"dynamic\"\nseed = 3\n%s",
                                     cases[i].toml);
        insee_flow_dyn_report one = {0};
        for (uint32_t threads = 1; threads <= 3; threads++) {
            insee_flow_dyn_report r;
            GError *err = NULL;
            cr_assert(run_dynamic_on(toml, threads, cases[i].max_outstanding, &r, &err), "%s",
                      err ? err->message : "?");
            cr_assert_eq(r.threads, threads, "the router and topology allow threads");
            if (threads == 1) {
                one = r;
                cr_assert_eq(r.messages + r.self_messages + r.unroutable, cases[i].messages,
                             "%s", toml);
                cr_assert_eq(r.unroutable > 0, cases[i].max_outstanding > 0,
                             "failed cables: some messages unroutable");
                continue;
            }
            cr_assert_gt(r.shared_walks, 0, "the crew walked: %s", toml);
            assert_same_dyn_figures(&one, &r, toml);
            insee_flow_dyn_report_clear(&r);
        }
        insee_flow_dyn_report_clear(&one);
        g_free(toml);
    }
}

/* A start whose walk fails fails the run with its own error, the first
   in start order, on any number of threads: test-xring sends the flows to
   another row round their row for ever. */
Test(flow, the_first_failed_walk_in_start_order_fails_a_dynamic_run_on_any_threads)
{
    char *first = NULL;
    for (uint32_t threads = 1; threads <= 3; threads++) {
        insee_flow_dyn_report r;
        GError *err = NULL;
        cr_assert_not(run_dynamic_on("[simulation]\nengine = \"dynamic\"\n"
                                     "[topology]\nplugin = \"torus\"\ndims = [4, 4]\n"
                                     "[router]\nplugin = \"test-xring\"\nvcs = 1\n"
                                     "[traffic]\nplugin = \"uniform\"\n",
                                     threads, 0, &r, &err));
        cr_assert(strstr(err->message, "its path loops"), "%s", err->message);
        if (!first)
            first = g_strdup(err->message);
        cr_assert_str_eq(err->message, first, "on %u threads", threads);
        g_error_free(err);
        insee_flow_dyn_report_clear(&r);
    }
    g_free(first);
}

/* [simulation] threads reaches the dynamic engine, and its rule is the
   static engine's: dally's trc (a scratch in its instance) and a path
   routing walk on one thread whatever it says. */
Test(flow, the_dynamic_engine_reads_threads_where_the_router_allows_them)
{
    static const struct {
        const char *net;
        uint32_t threads;
    } cases[] = {
        {"[router]\nplugin = \"dally\"\nmode = \"basic\"\n", 2},
        {"[router]\nplugin = \"dally\"\nmode = \"trc\"\n", 1},
        {"[routing]\nplugin = \"bfs\"\n", 1},
    };
    for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
        char *toml = g_strdup_printf("[simulation]\nengine = \"dynamic\"\nthreads = 2\n"
                                     "[topology]\nplugin = \"torus\"\ndims = [6, 6]\n%s"
                                     "[traffic]\nplugin = \"uniform\"\n", cases[i].net);
        insee_config *cfg;
        insee_registry *reg;
        insee_experiment *exp = run_experiment(toml, NULL, &cfg, &reg);
        const insee_flow_dyn_report *r = insee_experiment_dyn_report(exp);
        cr_assert_eq(r->threads, cases[i].threads, "%s", toml);
        cr_assert_eq(r->messages, 36);
        free_experiment(exp, cfg, reg);
        g_free(toml);
    }
}

/* A ring of 301 routers: paths of up to 150 hops pass the walk's loop
   checks (after 64 and 128 hops) as what they are, loop free, and the
   all-to-all loads each direction of every ring link with the flows of
   distances 1 .. m from as many sources, m (m + 1) / 2, m = 150. */
Test(flow, paths_longer_than_the_loop_checks_are_walked_whole)
{
    const uint32_t k = 301, m = 150;
    insee_flow_report r = run_static_toml(
        "[simulation]\nengine = \"static\"\n"
        "[topology]\nplugin = \"torus\"\ndims = [301]\n"
        "[router]\nplugin = \"dally\"\nmode = \"basic\"\n"
        "[traffic]\nplugin = \"all-to-all\"\n", NULL);
    cr_assert_eq(r.flows, (uint64_t)k * (k - 1));
    cr_assert_eq(r.unroutable, 0);
    cr_assert_eq(r.hops_max, m);
    cr_assert_eq(r.load_max, (double)(m * (m + 1) / 2), "every ring link");
    cr_assert_eq(r.load_hist[m * (m + 1) / 2], 2 * k, "both directions of each of k links");
    cr_assert_eq(r.load_hist[k - 1], 2 * k, "the node links");
    insee_flow_report_clear(&r);
}

/* Flows walked side by side still each have their own loop check: on a
   4 x 4 torus test-xring sends a flow from node 0 to node 4, the next row,
   out of port 0 to router 1, whence the minimal hop (in dimension 0) leads
   back to router 0: the first such flow in order is the one refused, while
   the flows within the row, walked beside it through the same routers,
   arrive. */
Test(flow, a_looping_path_is_refused_naming_the_first_flow)
{
    char *msg = run_toml_error("[simulation]\nengine = \"static\"\n"
                               "[topology]\nplugin = \"torus\"\ndims = [4, 4]\n"
                               "[router]\nplugin = \"test-xring\"\nvcs = 1\n"
                               "[traffic]\nplugin = \"all-to-all\"\n");
    cr_assert(strstr(msg, "'test-xring' brought a flow from node 0 to node 4 back to router 0 "
                          "after 2 hops: its path loops"), "%s", msg);
    g_free(msg);
}

/* Counts print whole however large: 1 200 000 flows of 0 router hops
   (two nodes on one switch), not 1.2e+06. */
Test(flow, large_counts_print_every_digit)
{
    char *text;
    insee_flow_report r = run_static_toml("[simulation]\nengine = \"static\"\n"
                                     "[topology]\nplugin = \"kary-ntree\"\nk = 2\nn = 1\n"
                                     "nic = false\n"
                                     "[router]\nplugin = \"multistage\"\nmode = \"static\"\n"
                                     "[flow]\nrounds = 600000\n"
                                     "[traffic]\nplugin = \"uniform\"\n", &text);
    cr_assert_eq(r.flows, 1200000);
    cr_assert(strstr(text, "max 600000 "), "%s", text);
    cr_assert(strstr(text, "flows by router hops         0:1200000\n"), "%s", text);
    g_free(text);
    insee_flow_report_clear(&r);
}

static void assert_refused(const char *toml, const char *const *words)
{
    char *msg = run_toml_error(toml);
    for (const char *const *w = words; *w; w++)
        cr_assert(strstr(msg, *w), "'%s' not in: %s", *w, msg);
    g_free(msg);
}

Test(flow, an_adaptive_router_is_refused_by_name)
{
    assert_refused("[simulation]\nengine = \"static\"\n"
                   "[topology]\nplugin = \"kary-ntree\"\nk = 2\nn = 2\nnic = false\n"
                   "[router]\nplugin = \"multistage\"\nmode = \"adaptive\"\n"
                   "[traffic]\nplugin = \"all-to-all\"\n",
                   (const char *const[]){"'multistage'", "adaptive", "INSEE_ROUTE_PURE", NULL});
}

Test(flow, keys_the_engine_does_not_read_are_refused_naming_it)
{
    assert_refused("[simulation]\nengine = \"static\"\n[router]\nqueue_packets = 8\n",
                   (const char *const[]){"[router] queue_packets", "\"static\"", NULL});
    assert_refused("[simulation]\nengine = \"static\"\ncycles = 100\n",
                   (const char *const[]){"[simulation] cycles", "\"static\"", NULL});
    assert_refused("[simulation]\nengine = \"static\"\n[arbiter]\nplugin = \"round-robin\"\n",
                   (const char *const[]){"[arbiter]", "\"static\"", NULL});
    assert_refused("[flow]\nrounds = 2\n",
                   (const char *const[]){"[flow] rounds", "\"packet\"", NULL});
    assert_refused("[simulation]\nengine = \"static\"\n[flow]\nlink_gbps = 10\n",
                   (const char *const[]){"[flow] link_gbps", "\"static\"", NULL});
    assert_refused("[simulation]\nengine = \"dynamic\"\ncycles = 100\n",
                   (const char *const[]){"[simulation] cycles", "\"dynamic\"", NULL});
    assert_refused("[simulation]\nengine = \"dynamic\"\n[router]\nplugin = \"dally\"\n"
                   "mode = \"basic\"\n[bridge]\nsocket = \"x\"\n",
                   (const char *const[]){"[bridge]", "\"dynamic\"", NULL});
}

Test(flow, a_traffic_without_rounds_is_refused_by_name)
{
    assert_refused("[simulation]\nengine = \"static\"\n"
                   "[topology]\nplugin = \"torus\"\ndims = [4, 4]\n"
                   "[router]\nplugin = \"dally\"\nmode = \"trc\"\n"
                   "[traffic]\nplugin = \"hotspot\"\n",
                   (const char *const[]){"'hotspot'", "round()", NULL});
}

/* Path routings ([routing], docs/flow.md §3). On an n-cube of N nodes the
   distances from one node sum to n N / 2, so all-to-all makes n N^2 / 2
   network hops over n N directed links; the cube's symmetry spreads them
   evenly, N / 2 a link, whether one path per pair (bfs's lowest port
   first, e-cube order) or every shortest path with an even split (ecmp). */
static void assert_hypercube_all_to_all(const char *routing)
{
    const uint32_t n = 4, N = 16;
    char *toml = g_strdup_printf("[simulation]\nengine = \"static\"\n"
                                 "[topology]\nplugin = \"hypercube\"\nn = 4\n"
                                 "[routing]\n%s\n"
                                 "[traffic]\nplugin = \"all-to-all\"\n", routing);
    insee_flow_report r = run_static_toml(toml, NULL);
    cr_assert_eq(r.flows, N * (N - 1));
    cr_assert_eq(r.load_hist[N / 2], n * N, "%s: every network link carries N/2", routing);
    cr_assert_eq(r.load_hist[N - 1], 2 * N);
    cr_assert_eq(r.load_min, N / 2.0);
    cr_assert_float_eq(r.hops_mean, n / 2.0 * N / (N - 1), 1e-9);
    insee_flow_report_clear(&r);
    g_free(toml);
}

Test(flow, bfs_even_ecmp_and_minimal_allpath_load_a_hypercube_evenly)
{
    assert_hypercube_all_to_all("plugin = \"bfs\"");
    assert_hypercube_all_to_all("plugin = \"ecmp\"\nsplit = \"even\"");
    assert_hypercube_all_to_all("plugin = \"allpath\"\nextra_hops = 0");
}

/* ksp with k = 2 on a ring of n routers splits each flow in halves, one
   each way round: a flow over d hops one way puts 1/2 on d links and 1/2
   on the n - d the other way, n/2 hops on average whatever d. Summed over
   the n(n - 1) flows, n^2(n - 1)/4 crossings each way, shared by the n
   links of that way by symmetry: n(n - 1)/4 a network link, against the
   N - 1 = n - 1 of a node link. */
Test(flow, two_shortest_paths_split_a_ring_all_to_all_both_ways)
{
    const uint32_t n = 6;
    insee_flow_report r = run_static_toml(
        "[simulation]\nengine = \"static\"\n"
        "[topology]\nplugin = \"torus\"\ndims = [6]\n"
        "[routing]\nplugin = \"ksp\"\nk = 2\nsplit = \"even\"\n"
        "[traffic]\nplugin = \"all-to-all\"\n", NULL);
    double per_link = n * (n - 1) / 4.0;
    cr_assert_eq(r.flows, n * (n - 1));
    cr_assert_float_eq(r.load_max, per_link, 1e-9);
    cr_assert_float_eq(r.load_min, n - 1.0, 1e-9, "node links");
    cr_assert_float_eq(r.load_mean * r.links, r.flows * (n / 2.0 + 2), 1e-6);
    cr_assert_eq(r.links, 4 * n, "2n network links and 2n node links");
    cr_assert_float_eq(r.hops_mean, n / 2.0, 1e-9);
    cr_assert_eq(r.hops_max, n - 1);
    /* Every path crosses a network link at the maximum. */
    cr_assert_float_eq(r.restricted, r.flows / per_link, 1e-9);
    cr_assert_float_eq(r.non_restricted, r.flows / per_link, 1e-9);
    insee_flow_report_clear(&r);
}

/* ECMP's even split on a k-ary n-tree spreads each subtree's outgoing flows
   over all its up links: the per-level loads of the source-digit routing
   above, N - k^(l+1), now from every shortest path in shares. */
Test(flow, even_ecmp_on_a_kary_ntree_loads_each_level_evenly)
{
    const uint32_t N = 8;
    insee_flow_report r = run_static_toml(
        "[simulation]\nengine = \"static\"\n"
        "[topology]\nplugin = \"kary-ntree\"\nk = 2\nn = 3\nnic = false\n"
        "[routing]\nplugin = \"ecmp\"\n"
        "[traffic]\nplugin = \"all-to-all\"\n", NULL);
    cr_assert_eq(r.load_hist[N - 1], 2 * N);
    cr_assert_eq(r.load_hist[N - 2], 2 * N);
    cr_assert_eq(r.load_hist[N - 4], 2 * N);
    cr_assert_eq(r.load_max, N - 1);
    cr_assert_float_eq(r.load_min, N - 4.0, 1e-9, "shares add up to whole flows");
    insee_flow_report_clear(&r);
}

/* Hashed ECMP puts each flow whole on one shortest path: every link carries
   whole flows, and the links crossed add up to F (hops + 2). */
Test(flow, hashed_ecmp_keeps_flows_whole_on_shortest_paths)
{
    insee_flow_report r = run_static_toml(
        "[simulation]\nengine = \"static\"\n"
        "[topology]\nplugin = \"jellyfish\"\n"
        "[routing]\nplugin = \"ecmp\"\nsplit = \"hash\"\n"
        "[traffic]\nplugin = \"uniform\"\n"
        "[flow]\nrounds = 4\n", NULL);
    insee_flow_report e = run_static_toml(
        "[simulation]\nengine = \"static\"\n"
        "[topology]\nplugin = \"jellyfish\"\n"
        "[routing]\nplugin = \"bfs\"\n"
        "[traffic]\nplugin = \"uniform\"\n"
        "[flow]\nrounds = 4\n", NULL);
    cr_assert_eq(r.load_max, (double)(uint64_t)r.load_max);
    cr_assert_float_eq(r.hops_mean, e.hops_mean, 1e-12, "both take shortest paths");
    cr_assert_float_eq(r.load_mean * r.links, r.flows * (r.hops_mean + 2), 1e-6);
    insee_flow_report_clear(&r);
    insee_flow_report_clear(&e);
}

Test(flow, a_routing_table_is_refused_by_the_packet_engine)
{
    assert_refused("[routing]\nplugin = \"bfs\"\n",
                   (const char *const[]){"[routing]", "\"packet\"", NULL});
}
