/* Causal workloads run to completion, and several applications share one
 * network: each with its own tasks, placement, figures and completion time.
 * The causal workload is tests/engine/fixtures/pingpong.c: R round trips of
 * P-packet messages over one hop take 2 R (P L + 1) cycles. */
#include <criterion/criterion.h>
#include <string.h>

#include "run_helpers.h"

#define L 16

static char *pingpong_run(const char *simulation, const char *rest)
{
    return g_strdup_printf("[simulation]\npacket_phits = %d\n%s\n"
                           "[topology]\nplugin = \"mesh\"\ndims = [4]\n"
                           "[router]\nplugin = \"dally\"\nvcs = 1\n%s",
                           L, simulation, rest);
}

static char *pingpong_app(const char *name, int tasks, int per_node, int packets, int rounds)
{
    return g_strdup_printf("[[application]]\nname = \"%s\"\ntasks = %d\ntasks_per_node = %d\n"
                           "[application.traffic]\nplugin = \"test-pingpong\"\npackets = %d\n"
                           "rounds = %d\n", name, tasks, per_node, packets, rounds);
}

static uint64_t pingpong_closed(int packets, int rounds)
{
    return 2ull * rounds * ((uint64_t)packets * L + 1);
}

/* warmup + cycles ends long before the workload: it runs on regardless. */
Test(apps, causal_workload_is_not_cut_at_the_window)
{
    char *toml = pingpong_run("warmup = 0\ncycles = 5",
                              "[traffic]\nplugin = \"test-pingpong\"\npackets = 2\nrounds = 3\n");
    insee_report r = run_toml(toml);
    cr_assert(r.causal && r.completed);
    cr_assert_eq(r.completion, pingpong_closed(2, 3));
    cr_assert_eq(r.cycles, pingpong_closed(2, 3));
    cr_assert_eq(r.measure_cycles, r.completion, "a causal run is measured to completion");
    cr_assert_eq(r.delivered, 2u * 2u * 3u, "every packet counts, none cut by the window");
    assert_all_delivered(&r);
    insee_report_clear(&r);
    g_free(toml);
}

/* A plugin's own figures (host->report_figure) reach the report under its
   section, in the order first reported, the last value of each kept; the
   malformed ones the fixture tries are refused and not reported. */
Test(apps, plugin_figures_reach_the_report)
{
    char *toml = pingpong_run("", "[traffic]\nplugin = \"test-pingpong\"\npackets = 2\nrounds = 3\n");
    insee_report r = run_toml(toml);
    cr_assert_eq(r.n_figures, 3);
    static const char *const names[] = {"refused_figures", "rounds_done", "last_round_cycle"};
    for (uint32_t i = 0; i < 3; i++) {
        cr_assert_str_eq(r.figures[i].section, "traffic");
        cr_assert_str_eq(r.figures[i].name, names[i]);
    }
    cr_assert_float_eq(r.figures[0].value, 6, 0, "all six malformed figures refused");
    cr_assert_str_eq(r.figures[0].unit, "");
    cr_assert_float_eq(r.figures[1].value, 3, 0);
    cr_assert_str_eq(r.figures[1].unit, "rounds");
    cr_assert_float_eq(r.figures[2].value, (double)(r.completion - 1), 0,
                       "the last answer is consumed in the run's last cycle");
    insee_report_clear(&r);
    g_free(toml);
}

Test(apps, stuck_workload_ends_with_its_own_words)
{
    char *toml = pingpong_run("", "[traffic]\nplugin = \"test-pingpong\"\nmode = \"stuck\"\n");
    char *msg = run_toml_error(toml);
    cr_assert(strstr(msg, "stuck"), "%s", msg);
    cr_assert(strstr(msg, "task 0 waits for an answer from task 1"), "%s", msg);
    g_free(msg);
    g_free(toml);
}

/* Background traffic keeps the network busy, yet the stuck application is
   found at once, not after max_cycles of background. */
Test(apps, stuck_application_is_found_under_background_traffic)
{
    char *toml = pingpong_run("max_cycles = 1000000000",
                              "[[application]]\ntasks = 2\n[application.traffic]\n"
                              "plugin = \"test-pingpong\"\nmode = \"stuck\"\n"
                              "[background]\nplugin = \"uniform\"\nload = 0.3\n");
    char *msg = run_toml_error(toml);
    cr_assert(strstr(msg, "stuck") && strstr(msg, "task 0 waits for an answer from task 1"),
              "%s", msg);
    uint64_t cycle = g_ascii_strtoull(msg + strlen("cycle "), NULL, 10);
    cr_assert_lt(cycle, 100u, "found at cycle %" G_GUINT64_FORMAT, cycle);
    g_free(msg);
    g_free(toml);
}

Test(apps, endless_workload_stops_at_max_cycles)
{
    char *toml = pingpong_run("max_cycles = 20000",
                              "[traffic]\nplugin = \"test-pingpong\"\nmode = \"endless\"\n");
    char *msg = run_toml_error(toml);
    cr_assert(strstr(msg, "max_cycles = 20000"), "%s", msg);
    cr_assert(strstr(msg, "has not finished"), "%s", msg);
    g_free(msg);
    g_free(toml);
}

/* Two ping-pongs on one line of 4 nodes: nodes 0-1 and 2-3, links of their
   own, so each finishes at its own closed form, unaffected by the other. */
Test(apps, two_applications_each_report_their_completion)
{
    char *a = pingpong_app("short", 2, 1, 1, 2), *b = pingpong_app("long", 2, 1, 3, 4);
    char *rest = g_strconcat(a, b, NULL);
    char *toml = pingpong_run("", rest);
    insee_report r = run_toml(toml);
    cr_assert_eq(r.n_apps, 2);
    cr_assert_str_eq(r.apps[0].name, "short");
    cr_assert_str_eq(r.apps[1].name, "long");
    cr_assert(r.apps[0].completed && r.apps[1].completed);
    cr_assert_eq(r.apps[0].completion, pingpong_closed(1, 2));
    cr_assert_eq(r.apps[1].completion, pingpong_closed(3, 4));
    cr_assert_eq(r.completion, pingpong_closed(3, 4), "the run ends with the last application");
    cr_assert_eq(r.apps[0].messages, 4u);
    cr_assert_eq(r.apps[1].messages, 8u);
    cr_assert_eq(r.apps[0].delivered + r.apps[1].delivered, r.delivered);
    cr_assert_eq(r.apps[1].delivered, 3u * 8u);
    assert_all_delivered(&r);
    insee_report_clear(&r);
    g_free(toml);
    g_free(rest);
    g_free(a);
    g_free(b);
}

/* Two tasks on one node: the messages never enter the network and take
   P L cycles each, as one hop would, so the closed form is the same. */
Test(apps, tasks_sharing_a_node_exchange_locally)
{
    char *app = pingpong_app("local", 2, 2, 3, 2);
    char *toml = pingpong_run("", app);
    insee_report r = run_toml(toml);
    cr_assert_eq(r.apps[0].nodes, 1u);
    cr_assert_eq(r.apps[0].completion, pingpong_closed(3, 2));
    cr_assert_eq(r.apps[0].local_messages, 4u);
    cr_assert_eq(r.apps[0].messages, 4u);
    cr_assert_eq(r.total_generated, 0u, "no packet entered the network");
    insee_report_clear(&r);
    g_free(toml);
    g_free(app);
}

/* NSIM's MPI overhead ([network] send/recv_overhead_cycles): every message
   of the ping-pong costs its sender S cycles before it leaves and its
   receiver V after it arrived, over the network or within a node, so each
   round trip takes 2 (S + V) more: 2 R (P L + 1 + S + V). */
Test(apps, message_overheads_add_to_every_message)
{
    const int S = 7, V = 5;
    for (int per_node = 1; per_node <= 2; per_node++) {
        char *app = pingpong_app("pp", 2, per_node, 2, 3);
        char *rest = g_strdup_printf("%s[network]\nsend_overhead_cycles = %d\n"
                                     "recv_overhead_cycles = %d\n", app, S, V);
        char *toml = pingpong_run("", rest);
        insee_report r = run_toml(toml);
        cr_assert_eq(r.apps[0].completion, pingpong_closed(2, 3) + 2u * 3u * (S + V),
                     "%d task(s) a node: %" G_GUINT64_FORMAT, per_node, r.apps[0].completion);
        cr_assert_eq(r.units.send_overhead, (uint32_t)S);
        assert_all_delivered(&r);
        insee_report_clear(&r);
        g_free(toml);
        g_free(rest);
        g_free(app);
    }
}

/* A causal application with open-ended background traffic on the nodes
   left: the run ends when the application is done, and the background's
   packets drain. */
Test(apps, background_runs_until_the_application_is_done)
{
    char *app = pingpong_app("pp", 2, 1, 2, 50);
    char *rest = g_strconcat(app, "[background]\nplugin = \"uniform\"\nload = 0.3\n", NULL);
    char *toml = pingpong_run("seed = 5", rest);
    insee_report r = run_toml(toml);
    cr_assert_eq(r.n_apps, 2);
    cr_assert_eq(r.apps[1].tasks, 2u, "the background takes the 2 nodes left");
    cr_assert(!r.apps[1].causal);
    cr_assert(r.apps[0].completed);
    cr_assert_geq(r.apps[0].completion, pingpong_closed(2, 50));
    cr_assert_gt(r.apps[1].delivered, 0u);
    cr_assert_geq(r.cycles, r.completion, "the background drains after completion");
    assert_all_delivered(&r);
    insee_report_clear(&r);
    g_free(toml);
    g_free(rest);
    g_free(app);
}

/* [background] class = "io" marks every message of its traffic I/O, which
   its plugin sees in delivered(); the class moves nothing in the packet
   engine. The pingpong fixture counts the I/O messages it is handed. */
Test(apps, background_class_io_marks_every_message)
{
    const char *io[] = {"", "class = \"app\"\n", "class = \"io\"\n"};
    insee_report r[3];
    for (int i = 0; i < 3; i++) {
        char *rest = g_strdup_printf("[[application]]\ntasks = 2\n[application.traffic]\n"
                                     "plugin = \"uniform\"\nload = 0.2\n"
                                     "[background]\nplugin = \"test-pingpong\"\npackets = 2\n"
                                     "rounds = 5\n%s", io[i]);
        char *toml = pingpong_run("seed = 3\nwarmup = 0\ncycles = 2000", rest);
        r[i] = run_toml(toml);
        g_free(toml);
        g_free(rest);
    }
    for (int i = 0; i < 2; i++)
        for (uint32_t k = 0; k < r[i].n_figures; k++)
            cr_assert_str_neq(r[i].figures[k].name, "io_messages", "case %d", i);
    double seen = -1;
    for (uint32_t k = 0; k < r[2].n_figures; k++)
        if (strcmp(r[2].figures[k].name, "io_messages") == 0)
            seen = r[2].figures[k].value;
    cr_assert_float_eq(seen, 2 * 5, 0, "every ping and every pong is I/O");
    cr_assert(strstr(r[2].echo, "class = \"io\""), "the echo repeats the key");
    for (int i = 1; i < 3; i++) {
        cr_assert_eq(r[i].total_generated, r[0].total_generated);
        cr_assert_eq(r[i].apps[1].completion, r[0].apps[1].completion);
        cr_assert_eq(insee_stat_mean(&r[i].latency_gen), insee_stat_mean(&r[0].latency_gen));
    }
    for (int i = 0; i < 3; i++)
        insee_report_clear(&r[i]);
}

static const char multi[] =
    "[simulation]\nseed = 9\nwarmup = 500\ncycles = 3000\n"
    "[topology]\nplugin = \"torus\"\ndims = [8, 8]\n"
    "[[application]]\nname = \"perm\"\ntasks = 16\n"
    "[application.traffic]\nplugin = \"permutation\"\npattern = \"bit-complement\"\nload = 0.4\n"
    "[application.placement]\nplugin = \"random\"\n"
    "[[application]]\ntasks = 40\ntasks_per_node = 2\n"
    "[application.traffic]\nplugin = \"uniform\"\nload = 0.2\n"
    "[application.placement]\nplugin = \"quadrant\"\n"
    "[background]\nplugin = \"uniform\"\nload = 0.1\n";

/* Same seed, same figures; and the report's echo is a config file that
   repeats the run, [[application]] tables included. */
Test(apps, several_applications_are_reproducible_from_the_echo)
{
    insee_report a = run_toml(multi), b = run_toml(multi);
    cr_assert_eq(a.n_apps, 3);
    cr_assert_str_eq(a.apps[1].name, "app2");
    cr_assert_eq(a.apps[1].nodes, 20u);
    cr_assert_eq(a.apps[2].tasks, 64u - 16u - 20u);
    insee_report c = run_toml(a.echo);
    for (int i = 0; i < 2; i++) {
        const insee_report *o = i ? &c : &b;
        cr_assert_eq(o->total_generated, a.total_generated);
        cr_assert_eq(o->sum_generated_ids, a.sum_generated_ids);
        cr_assert_eq(insee_stat_mean(&o->latency_gen), insee_stat_mean(&a.latency_gen));
        for (uint32_t k = 0; k < a.n_apps; k++) {
            cr_assert_eq(o->apps[k].delivered, a.apps[k].delivered);
            cr_assert_eq(insee_stat_mean(&o->apps[k].latency_gen),
                         insee_stat_mean(&a.apps[k].latency_gen));
        }
    }
    cr_assert_eq(a.apps[0].delivered + a.apps[1].delivered + a.apps[2].delivered, a.delivered);
    assert_all_delivered(&a);
    insee_report_clear(&a);
    insee_report_clear(&b);
    insee_report_clear(&c);
}

Test(apps, bad_combinations_name_what_to_change)
{
    static const struct { const char *toml, *words; } cases[] = {
        {"[[application]]\ntasks = 65\n", "needs 65 nodes"},
        {"[[application]]\ntasks = 40\n[[application]]\ntasks = 40\n", "24 of the network's 64"},
        {"[[application]]\n[background]\nplugin = \"uniform\"\n", "no node left"},
        {"[[application]]\ntasks = 3\n[background]\nclass = \"storage\"\n",
         "background.class (the kernel) is \"storage\", not one of \"app\", \"io\""},
        {"[[application]]\ntasks = 3\n[application.traffic]\nclass = \"io\"\n",
         "unknown key 'application[0].traffic.class'"},
        {"[simulation]\nengine = \"static\"\n[[application]]\ntasks = 3\n[background]\n"
         "class = \"io\"\n",
         "[background] class means nothing to engine = \"static\""},
        {"[traffic]\nload = 0.1\n[[application]]\ntasks = 3\n", "[application.traffic]"},
        {"[application]\ntasks = 3\n", "[[application]]"},
        {"[[application]]\ntasks = 3\n[application.trafic]\nplugin = \"uniform\"\n",
         "unknown table 'trafic'"},
        {"[[application]]\ntasks = 3\n[application.traffic]\nplugin = \"uniform\"\nlaod = 1\n",
         "did you mean 'load'"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        char *toml = g_strconcat("[topology]\nplugin = \"torus\"\ndims = [8, 8]\n", cases[i].toml,
                                 NULL);
        char *msg = run_toml_error(toml);
        cr_assert(strstr(msg, cases[i].words), "case %zu: '%s' lacks '%s'", i, msg,
                  cases[i].words);
        g_free(msg);
        g_free(toml);
    }
}

/* Two stencils share a torus loaded by background traffic: the one whose
   placement keeps neighbours adjacent (quadrant: one hop each) finishes
   well before the one scattered at random (about 4 hops through the
   background's queues), and each reports its own completion. */
/* A placement that claims success but leaves tasks without a node: named,
   where the kernel once read the slots it never wrote (scan-build). */
Test(apps, a_placement_that_leaves_tasks_unplaced_is_named)
{
    char *msg = run_toml_error("[topology]\nplugin = \"torus\"\ndims = [4, 4]\n"
                               "[traffic]\nplugin = \"uniform\"\nload = 0.1\n"
                               "[placement]\nplugin = \"test-half\"\n");
    cr_assert(strstr(msg, "[placement] plugin 'test-half' said it placed 16 tasks but left "
                          "task 8 without a node"), "%s", msg);
    g_free(msg);
}

Test(apps, quadrant_placement_beats_random_on_a_stencil)
{
    static const char stencil[] =
        "[application.traffic]\nplugin = \"stencil\"\nbytes = 64\niterations = 50\n";
    char *toml = g_strdup_printf(
        "[simulation]\nseed = 2\n[topology]\nplugin = \"torus\"\ndims = [8, 8]\n"
        "[[application]]\nname = \"quadrant\"\ntasks = 16\n%s"
        "[application.placement]\nplugin = \"quadrant\"\n"
        "[[application]]\nname = \"random\"\ntasks = 16\n%s"
        "[application.placement]\nplugin = \"random\"\n"
        "[background]\nplugin = \"uniform\"\nload = 0.4\n", stencil, stencil);
    insee_report r = run_toml(toml);
    const insee_app_report *q = &r.apps[0], *rnd = &r.apps[1];
    cr_assert(q->completed && rnd->completed);
    cr_assert_eq(q->hops, q->delivered, "quadrant: every neighbour one hop away");
    cr_assert_gt(rnd->hops, 2 * rnd->delivered);
    cr_assert_lt(q->completion * 10, rnd->completion * 9,
                 "quadrant %" G_GUINT64_FORMAT " cycles, random %" G_GUINT64_FORMAT,
                 q->completion, rnd->completion);
    cr_assert_eq(r.completion, rnd->completion);
    assert_all_delivered(&r);
    insee_report_clear(&r);
    g_free(toml);
}

/* A plugin that is finite or open-ended by its parameters (INRFlow's
   bisection) tells the kernel per instance: at a load it runs the window and
   drains like any open-ended source, finite it runs to completion. */
Test(apps, an_instance_says_whether_it_runs_to_completion)
{
    static const char base[] = "[simulation]\nwarmup = 1000\ncycles = 4000\n"
                               "[topology]\nplugin = \"torus\"\ndims = [4, 4]\n"
                               "[traffic]\nplugin = \"bisection\"\n";
    char *open = g_strconcat(base, "mode = \"load\"\nload = 0.2\n", NULL);
    char *finite = g_strconcat(base, "mode = \"finite\"\n", NULL);
    insee_report o = run_toml(open), f = run_toml(finite);
    cr_assert(!o.causal, "at a load the instance is open-ended");
    cr_assert_eq(o.measure_cycles, 4000u);
    cr_assert_gt(o.delivered, 0u);
    assert_all_delivered(&o);
    cr_assert(f.causal && f.completed, "finite flows run to completion");
    cr_assert_eq(f.measure_cycles, f.completion);
    assert_all_delivered(&f);
    insee_report_clear(&o);
    insee_report_clear(&f);
    g_free(open);
    g_free(finite);
}
