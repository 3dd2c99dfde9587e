/* The dynamic flow engine (kernel/flow/dynamic.c, docs/flow.md §5) against
 * closed forms: a ping-pong completes at the sum of its sizes over the
 * bandwidth, one task's messages to many share its node link, a permutation
 * without contention runs every flow alone, all-to-one fills the root's
 * link; the limit on messages in flight; the traffic cycle in seconds; the
 * packet engine against the flow engine on long messages; bytes delivered
 * equal bytes sent; determinism; a workload that waits forever; INRFlow's
 * all-to-all matrix (self flows, a skipped destination) under its rule. */
/* open_memstream() is POSIX.1-2008. */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "flow/flow.h"
#include "run_helpers.h"

/* Link bandwidth of these tests: 51.2 Gb/s is 6.4 bytes per ns, so
   messages of 64-byte multiples take whole nanoseconds. */
#define BW "51.2"
static const double bytes_per_s = 6.4e9;

/* Run `toml` and copy out its dynamic figures (arrays dropped) and, when
   `text` is not NULL, its printed report. */
static insee_flow_dyn_report run_dynamic(const char *toml, char **text)
{
    insee_config *cfg;
    insee_registry *reg;
    insee_experiment *exp = run_experiment(toml, text, &cfg, &reg);
    const insee_flow_dyn_report *r = insee_experiment_dyn_report(exp);
    cr_assert(r);
    insee_flow_dyn_report copy = *r;
    copy.app_completion = NULL;
    copy.app_messages = NULL;
    copy.busiest_link = NULL;
    copy.busiest_util = NULL;
    copy.series = NULL;
    copy.link_series = NULL;
    free_experiment(exp, cfg, reg);
    return copy;
}

/* A file holding `body`; its path, g_free() it after g_unlink(). */
static char *write_temp(const char *body)
{
    GError *err = NULL;
    char *path;
    int fd = g_file_open_tmp("insee-dyn-XXXXXX.trc", &path, &err);
    cr_assert(fd >= 0, "%s", err ? err->message : "?");
    close(fd);
    cr_assert(g_file_set_contents(path, body, -1, &err));
    return path;
}

static insee_flow_dyn_report run_trace(const char *trace, const char *extra)
{
    char *path = write_temp(trace);
    char *toml = g_strdup_printf("[simulation]\nengine = \"dynamic\"\n"
                                 "[topology]\nplugin = \"torus\"\ndims = [4, 4]\n"
                                 "[router]\nplugin = \"dally\"\nmode = \"basic\"\n"
                                 "[flow]\nlink_gbps = " BW "\n%s\n%s\n"
                                 "[traffic]\nplugin = \"trace\"\nfile = \"%s\"\n",
                                 strstr(extra, "cycle_ns") ? "" : "cycle_ns = 0.001", extra, path);
    insee_flow_dyn_report r = run_dynamic(toml, NULL);
    g_unlink(path);
    g_free(path);
    g_free(toml);
    return r;
}

/* A causal workload acts on a delivery at the next traffic cycle, as in the
   packet engine: a chain of k deliveries ends up to k cycles after the
   fluid model's time. The trace tests use cycles of 1 ps. */
#define CYCLE_S 1e-12
static void assert_time(double actual, double fluid, int steps, const char *what)
{
    cr_assert(actual >= fluid - 1e-15 && actual <= fluid + steps * CYCLE_S + 1e-15,
              "%s: %.15g s, the fluid model's %.15g s (+ up to %d cycles)", what, actual, fluid,
              steps);
}

static void assert_all_bytes_delivered(const insee_flow_dyn_report *r)
{
    cr_assert_eq(r->unroutable, 0);
    cr_assert_eq(r->bytes_delivered, r->bytes_sent);
    cr_assert_gt(r->bytes_sent, 0);
}

/* Task 0 sends a bytes, task 1 answers with b once it has them: the
   workload completes at (a + b) / bandwidth. */
Test(dynamic, ping_pong_completes_at_the_sum_of_its_sizes_over_the_bandwidth)
{
    const double a = 6400, b = 19200;
    insee_flow_dyn_report r = run_trace("s 0 1 0 6400\nr 0 1 0 6400\n"
                                        "s 1 0 1 19200\nr 1 0 1 19200\n",
                                        "");
    assert_time(r.makespan, (a + b) / bytes_per_s, 2, "ping-pong");
    cr_assert_eq(r.messages, 2);
    cr_assert_float_eq(r.slowdown_max, 1.0, 1e-9, "each message alone in the network");
    assert_all_bytes_delivered(&r);
}

/* Task 0 sends n messages of s bytes to n tasks: they share its node link,
   so all end together at n s / bandwidth; one at a time
   (max_outstanding = 1) they end at the same time, each after s /
   bandwidth in the network. */
Test(dynamic, one_to_many_shares_the_source_link_or_takes_turns)
{
    const int n = 5;
    const double s = 64000;
    GString *trace = g_string_new(NULL);
    for (int d = 1; d <= n; d++)
        g_string_append_printf(trace, "s 0 %d 0 64000\nr 0 %d 0 64000\n", d, d);
    insee_flow_dyn_report all = run_trace(trace->str, "");
    insee_flow_dyn_report one = run_trace(trace->str, "max_outstanding = 1");
    g_string_free(trace, TRUE);
    assert_time(all.makespan, n * s / bytes_per_s, 1, "all at once");
    cr_assert_float_eq(all.fct_mean, n * s / bytes_per_s, n * CYCLE_S, "sent a cycle apart");
    assert_time(one.makespan, n * s / bytes_per_s, 1, "one at a time");
    cr_assert_float_eq(one.fct_max, s / bytes_per_s, 1e-15);
    assert_all_bytes_delivered(&all);
    assert_all_bytes_delivered(&one);
}

/* A compute of c cycles before a send: c cycles + s / bw, with cycles of
   1 ps or of 4 ns. */
Test(dynamic, compute_phases_last_their_cycles_in_cycle_ns)
{
    const char *trace = "c 0 250000\ns 0 1 0 6400\nr 0 1 0 6400\n";
    insee_flow_dyn_report ps = run_trace(trace, "");
    assert_time(ps.makespan, 250000 * CYCLE_S + 6400 / bytes_per_s, 1, "1 ps cycles");
    insee_flow_dyn_report ns = run_trace(trace, "cycle_ns = 4");
    cr_assert_float_eq(ns.makespan, 250000 * 4e-9 + 6400 / bytes_per_s + 4e-9, 1e-15,
                       "the receive completes at the cycle after the delivery");
}

/* Bit-complement on a 2-ary 4-tree with source-digit up ports: every flow
   has its links to itself (the static engine's test shows it), so every
   message ends at bytes / bandwidth, each at slowdown 1. */
Test(dynamic, a_permutation_without_contention_runs_every_flow_alone)
{
    insee_flow_dyn_report r =
        run_dynamic("[simulation]\nengine = \"dynamic\"\n"
                    "[topology]\nplugin = \"kary-ntree\"\nk = 2\nn = 4\nnic = false\n"
                    "[router]\nplugin = \"multistage\"\nmode = \"static\"\n"
                    "[flow]\nlink_gbps = " BW "\n"
                    "[traffic]\nplugin = \"permutation\"\npattern = \"bit-complement\"\n"
                    "message_bytes = 64000\n",
                    NULL);
    cr_assert_eq(r.messages, 16);
    cr_assert_float_eq(r.makespan, 64000 / bytes_per_s, 1e-15);
    cr_assert_float_eq(r.slowdown_max, 1.0, 1e-9);
    assert_all_bytes_delivered(&r);
}

/* All-to-one: the root's node link carries the N - 1 messages, so they end
   together at (N - 1) bytes / bandwidth, whatever the sharing rule. */
Test(dynamic, all_to_one_fills_the_root_link)
{
    for (int equal = 0; equal < 2; equal++) {
        char *toml =
            g_strdup_printf("[simulation]\nengine = \"dynamic\"\n"
                            "[topology]\nplugin = \"torus\"\ndims = [4, 4]\n"
                            "[router]\nplugin = \"dally\"\nmode = \"trc\"\n"
                            "[flow]\nlink_gbps = " BW "\nsharing = \"%s\"\n"
                            "[traffic]\nplugin = \"all-to-one\"\nroot = 5\nmessage_bytes = 6400\n",
                            equal ? "equal" : "maxmin");
        insee_flow_dyn_report r = run_dynamic(toml, NULL);
        g_free(toml);
        cr_assert_eq(r.messages, 15);
        cr_assert_float_eq(r.makespan, 15 * 6400 / bytes_per_s, 1e-15, "equal = %d", equal);
        assert_all_bytes_delivered(&r);
    }
}

/* A shift by one along x on a 4 x 4 torus: every flow alone on its x link,
   so a message ends at bytes over the slowest of its node links and x links:
   node_gbps and dim_gbps (dimension 0 is x) each slow it alone, a slower y
   dimension does not; every message's slowdown is 1. */
Test(dynamic, node_and_dimension_bandwidths_apply_to_their_links)
{
    GString *trace = g_string_new(NULL);
    for (int t = 0; t < 16; t++)
        g_string_append_printf(trace, "s %d %d 0 6400\n", t, (t / 4) * 4 + (t % 4 + 1) % 4);
    for (int t = 0; t < 16; t++)
        g_string_append_printf(trace, "r %d %d 0 6400\n", t, (t / 4) * 4 + (t % 4 + 1) % 4);
    static const struct {
        const char *flow;
        double bytes_per_ns;
    } cases[] = {
        {"", 6.4}, {"node_gbps = 25.6", 3.2}, {"dim_gbps = [16]", 2}, {"dim_gbps = [0, 16]", 6.4}};
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        insee_flow_dyn_report r = run_trace(trace->str, cases[i].flow);
        assert_time(r.makespan, 6400 / (cases[i].bytes_per_ns * 1e9), 1, cases[i].flow);
        /* Alone on its links, each message takes its time alone, whether
           every link has one capacity or they differ. */
        cr_assert_float_eq(r.slowdown_max, 1.0, 1e-9, "%s", cases[i].flow);
        cr_assert_eq(r.messages, 16);
        assert_all_bytes_delivered(&r);
    }
    g_string_free(trace, TRUE);
}

/* Packet against flow: long messages in the packet engine (phits of 4
   bytes, one per cycle) and in the dynamic engine (links of 4 bytes per
   ns, cycles of 1 ns) complete within 5 %: a periodic stencil (four
   messages from every node, its node link the bottleneck) and a shift by 3
   along x on an 8 x 8 torus (three flows on every x link) as a trace. Both
   follow dimension order: bubble's oblivious mode in the packet engine,
   dally's basic mode walked in the flow engine. (With dally in the packet
   engine too, the shift takes 445 249 cycles, not 196 625: its dateline
   virtual channels leave the x links idle more than half the time, a
   packet-level effect no flow model sees; docs/flow.md.) */
static void assert_packet_matches_flow(const char *traffic, const char *what)
{
    const char *topology = "[topology]\nplugin = \"torus\"\ndims = [8, 8]\n";
    char *packet = g_strdup_printf("%s[router]\nplugin = \"bubble\"\nmode = \"oblivious\"\n%s",
                                   topology, traffic);
    insee_report p = run_toml(packet);
    cr_assert(p.completed, "%s: the packet run completed", what);
    char *flow = g_strdup_printf("[simulation]\nengine = \"dynamic\"\n"
                                 "[flow]\nlink_gbps = 32\ncycle_ns = 1\n%s"
                                 "[router]\nplugin = \"dally\"\nmode = \"basic\"\n%s",
                                 topology, traffic);
    insee_flow_dyn_report f = run_dynamic(flow, NULL);
    double cycles = (double)p.completion, ns = f.makespan * 1e9;
    cr_assert(fabs(ns - cycles) <= 0.05 * cycles, "%s: packet engine %.0f cycles, flow %.0f ns",
              what, cycles, ns);
    insee_report_clear(&p);
    g_free(packet);
    g_free(flow);
}

Test(dynamic, long_messages_complete_as_in_the_packet_engine, .timeout = 600)
{
    assert_packet_matches_flow("[traffic]\nplugin = \"stencil\"\nbytes = 262144\n"
                               "periodic = true\n",
                               "stencil");
    GString *trace = g_string_new(NULL);
    for (int t = 0; t < 64; t++)
        g_string_append_printf(trace, "s %d %d 0 262144\n", t, (t / 8) * 8 + (t % 8 + 3) % 8);
    for (int t = 0; t < 64; t++)
        g_string_append_printf(trace, "r %d %d 0 262144\n", t, (t / 8) * 8 + (t % 8 + 3) % 8);
    char *path = write_temp(trace->str);
    char *traffic = g_strdup_printf("[traffic]\nplugin = \"trace\"\nfile = \"%s\"\n", path);
    assert_packet_matches_flow(traffic, "shift by 3");
    g_unlink(path);
    g_free(path);
    g_free(traffic);
    g_string_free(trace, TRUE);
}

/* Same configuration and seed, the same report, byte for byte; another
   seed moves the uniform destinations. */
Test(dynamic, same_seed_same_report)
{
    const char *toml = "[simulation]\nengine = \"dynamic\"\nseed = %d\n"
                       "[topology]\nplugin = \"torus\"\ndims = [4, 4]\n"
                       "[router]\nplugin = \"dally\"\nmode = \"basic\"\n"
                       "[flow]\nrounds = 3\n"
                       "[traffic]\nplugin = \"uniform\"\nmessage_bytes = 4096\n";
    char *text[3];
    for (int i = 0; i < 3; i++) {
        char *t = g_strdup_printf(toml, i < 2 ? 7 : 8);
        insee_flow_dyn_report r = run_dynamic(t, &text[i]);
        cr_assert_eq(r.messages + r.self_messages, 48, "16 tasks, 3 rounds");
        assert_all_bytes_delivered(&r);
        g_free(t);
    }
    cr_assert_str_eq(text[0], text[1]);
    cr_assert_str_neq(text[0], text[2]);
    for (int i = 0; i < 3; i++)
        free(text[i]);
}

/* A receive nothing answers: an error naming the wait, not a hang. */
Test(dynamic, a_workload_that_waits_forever_is_an_error_naming_the_wait)
{
    char *path = write_temp("s 0 1 0 64\nr 0 1 0 64\nr 2 0 5 64\n");
    char *toml = g_strdup_printf("[simulation]\nengine = \"dynamic\"\n"
                                 "[topology]\nplugin = \"torus\"\ndims = [4, 4]\n"
                                 "[router]\nplugin = \"dally\"\nmode = \"basic\"\n"
                                 "[traffic]\nplugin = \"trace\"\nfile = \"%s\"\n",
                                 path);
    char *msg = run_toml_error(toml);
    cr_assert(strstr(msg, "'trace'") && strstr(msg, "has not finished") && strstr(msg, "task 0"),
              "%s", msg);
    g_free(msg);
    g_free(toml);
    g_unlink(path);
    g_free(path);
}

/* Failed cables: with bfs on an 8 x 8 torus that stays connected, every
   message is routed on the surviving graph and delivered; a line cut in two
   leaves all-to-all waiting for what cannot come, an error that says how
   many messages were unroutable. */
Test(dynamic, failed_cables_are_routed_around_or_reported)
{
    insee_flow_dyn_report r = run_dynamic(
        "[simulation]\nengine = \"dynamic\"\nseed = 3\n"
        "[topology]\nplugin = \"torus\"\ndims = [8, 8]\n"
        "[routing]\nplugin = \"bfs\"\n[faults]\nlinks = 0.1\n"
        "[flow]\nrounds = 4\n"
        "[traffic]\nplugin = \"uniform\"\nmessage_bytes = 4096\n", NULL);
    cr_assert_eq(r.failed_cables, 13);
    cr_assert_eq(r.connected_pairs, 64 * 63, "seed 3 leaves the torus connected");
    cr_assert_eq(r.messages + r.self_messages, 256);
    assert_all_bytes_delivered(&r);

    char *path = write_temp("2 0\n");
    char *toml = g_strdup_printf("[simulation]\nengine = \"dynamic\"\n"
                                 "[topology]\nplugin = \"mesh\"\ndims = [9]\n"
                                 "[router]\nplugin = \"dally\"\nmode = \"basic\"\n"
                                 "[faults]\nfile = \"%s\"\n"
                                 "[traffic]\nplugin = \"all-to-all\"\n", path);
    char *msg = run_toml_error(toml);
    /* Routers 0-2 against 3-8: 2 x 3 x 6 ordered pairs cut. */
    cr_assert(strstr(msg, "has not finished") && strstr(msg, "36 messages were unroutable"),
              "%s", msg);
    g_free(msg);
    g_free(toml);
    g_unlink(path);
    g_free(path);
}

/* cycle_ns = 0 (INRFlow's model: sends take no time): all-to-all on a
   4-ary 3-tree starts every message at time 0; each node link carries
   N - 1 of them and every upper link fewer (N - k^(l+1)), so all end
   together at (N - 1) bytes / bandwidth: one instant to start, one to end. */
Test(dynamic, sends_take_no_time_with_cycles_of_zero)
{
    insee_flow_dyn_report r = run_dynamic(
        "[simulation]\nengine = \"dynamic\"\n"
        "[topology]\nplugin = \"kary-ntree\"\nk = 4\nn = 3\nnic = false\n"
        "[router]\nplugin = \"multistage\"\nmode = \"static\"\n"
        "[flow]\nlink_gbps = " BW "\ncycle_ns = 0\n"
        "[traffic]\nplugin = \"all-to-all\"\nmessage_bytes = 6400\n", NULL);
    cr_assert_eq(r.messages, 64 * 63);
    cr_assert_float_eq(r.makespan, 63 * 6400 / bytes_per_s, 1e-15);
    cr_assert_float_eq(r.fct_p50, r.makespan, 1e-15);
    cr_assert_eq(r.instants, 2);
    assert_all_bytes_delivered(&r);
}

/* INRFlow v0.4.1's all-to-all kernel skips destination j = i where it
   means j = 0: task i > 0 sends to itself and not to 2i mod N. On a 4-ary
   3-tree under the equal rule (cycles of 0, its model) the matrix ends in
   two waves: the 1922 messages into an even node from a task other than 0
   have a node link of 62 messages as their tightest and end at 62 s / bw,
   the 2047 others (from task 0, whose link carries 63, or into an odd
   node, whose link carries 63) at 63 s / bw; the 63 messages to self cross
   no link and are counted apart. */
Test(dynamic, inrflow_all_to_all_matrix_ends_in_two_waves_under_the_equal_rule)
{
    const int n = 64;
    GString *trace = g_string_new(NULL);
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0, tag = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                if (i != j)
                    g_string_append_printf(trace, "%c %d %d %d 6400\n", pass ? 'r' : 's', i,
                                           (i + j) % n, tag++);
    char *path = write_temp(trace->str);
    g_string_free(trace, TRUE);
    char *toml = g_strdup_printf(
        "[simulation]\nengine = \"dynamic\"\n"
        "[topology]\nplugin = \"kary-ntree\"\nk = 4\nn = 3\nnic = false\n"
        "[router]\nplugin = \"multistage\"\nmode = \"static\"\n"
        "[flow]\nlink_gbps = " BW "\ncycle_ns = 0\nsharing = \"equal\"\n"
        "[traffic]\nplugin = \"trace\"\nfile = \"%s\"\n", path);
    insee_flow_dyn_report r = run_dynamic(toml, NULL);
    g_unlink(path);
    g_free(path);
    g_free(toml);
    const double alone = 6400 / bytes_per_s;
    cr_assert_eq(r.messages, 3969);
    cr_assert_eq(r.self_messages, 63);
    cr_assert_float_eq(r.makespan, 63 * alone, 1e-15);
    cr_assert_float_eq(r.fct_max, 63 * alone, 1e-15);
    cr_assert_float_eq(r.fct_mean, (1922 * 62 + 2047 * 63) * alone / 3969, 1e-15);
    cr_assert_eq(r.instants, 3, "start, the first wave, the second");
    assert_all_bytes_delivered(&r);
}

/* When the first application of `toml` completes. */
static double first_app_completion(const char *toml)
{
    insee_config *cfg;
    insee_registry *reg;
    insee_experiment *exp = run_experiment(toml, NULL, &cfg, &reg);
    double t = insee_experiment_dyn_report(exp)->app_completion[0];
    free_experiment(exp, cfg, reg);
    return t;
}

/* Priorities on a line of 4 routers: the application's message from node 1
   to node 2 shares the link 1 -> 2 with an I/O message from node 0 to node
   3 ([background] class = "io"), both of s bytes sent at time 0. No
   priority: each gets half the link, the application ends at 2 s / bw;
   application first: it ends at s / bw; bandwidth apportionment with
   app_share = 0.75: at s / (0.75 bw). */
Test(dynamic, priorities_share_a_link_between_application_and_io)
{
    char *path = write_temp("s 0 1 0 64000\nr 0 1 0 64000\n");
    static const struct {
        const char *flow;
        double times;
    } cases[] = {{"priority = \"np\"", 2}, {"priority = \"fp\"", 1},
                 {"priority = \"ba\"\napp_share = 0.75", 1 / 0.75}};
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        char *toml = g_strdup_printf(
            "[simulation]\nengine = \"dynamic\"\n"
            "[topology]\nplugin = \"mesh\"\ndims = [4]\n"
            "[router]\nplugin = \"dally\"\nmode = \"basic\"\n"
            "[flow]\nlink_gbps = " BW "\ncycle_ns = 0\n%s\n"
            "[[application]]\nname = \"app\"\ntasks = 2\n"
            "[application.traffic]\nplugin = \"trace\"\nfile = \"%s\"\n"
            "[application.placement]\nplugin = \"shift\"\nshift = 1\n"
            "[background]\nplugin = \"permutation\"\npattern = \"bit-complement\"\n"
            "message_bytes = 64000\nclass = \"io\"\n",
            cases[i].flow, path);
        cr_assert_float_eq(first_app_completion(toml), cases[i].times * 64000 / bytes_per_s,
                           1e-15, "%s", cases[i].flow);
        g_free(toml);
    }
    g_unlink(path);
    g_free(path);
}

/* Completion-time figures: ten messages of 1..10 x 6400 bytes, in a
   shuffled order and one at a time, each alone at 1..10 us: mean 5.5 us,
   median (nearest rank) 5 us, 99th percentile and maximum 10 us. */
Test(dynamic, completion_time_percentiles_are_nearest_ranks)
{
    static const int order[] = {7, 2, 10, 5, 1, 9, 3, 8, 6, 4};
    GString *trace = g_string_new(NULL);
    for (int i = 0; i < 10; i++)
        g_string_append_printf(trace, "s 0 %d 0 %d\n", i + 1, order[i] * 6400);
    for (int i = 0; i < 10; i++)
        g_string_append_printf(trace, "r 0 %d 0 %d\n", i + 1, order[i] * 6400);
    insee_flow_dyn_report r = run_trace(trace->str, "max_outstanding = 1\ncycle_ns = 0");
    g_string_free(trace, TRUE);
    cr_assert_float_eq(r.fct_mean, 5.5e-6, 1e-15);
    cr_assert_float_eq(r.fct_p50, 5e-6, 1e-15);
    cr_assert_float_eq(r.fct_p99, 10e-6, 1e-15);
    cr_assert_float_eq(r.fct_max, 10e-6, 1e-15);
    cr_assert_float_eq(r.slowdown_max, 1.0, 1e-9);
}

/* [flow] link_series: task 0's five messages of 64 000 bytes keep its node
   link full for 5 x 10 us. Spans start at 1 ns and double until 8 of them
   hold the 50 us: 8.192 us each, 7 of them used; the first six full, the
   seventh 0.848 / 8.192. */
Test(dynamic, a_busy_link_series_follows_its_spans)
{
    GString *trace = g_string_new(NULL);
    for (int d = 1; d <= 5; d++)
        g_string_append_printf(trace, "s 0 %d 0 64000\nr 0 %d 0 64000\n", d, d);
    char *path = write_temp(trace->str);
    g_string_free(trace, TRUE);
    char *toml = g_strdup_printf("[simulation]\nengine = \"dynamic\"\n"
                                 "[topology]\nplugin = \"torus\"\ndims = [4, 4]\n"
                                 "[router]\nplugin = \"dally\"\nmode = \"basic\"\n"
                                 "[flow]\nlink_gbps = " BW "\ncycle_ns = 0\nbusiest = 1\n"
                                 "link_series = 8\n"
                                 "[traffic]\nplugin = \"trace\"\nfile = \"%s\"\n", path);
    insee_config *cfg;
    insee_registry *reg;
    insee_experiment *exp = run_experiment(toml, NULL, &cfg, &reg);
    const insee_flow_dyn_report *r = insee_experiment_dyn_report(exp);
    double span = 8192e-9;
    cr_assert_float_eq(r->makespan, 50e-6, 1e-15);
    cr_assert_eq(r->n_link_series, 7);
    cr_assert_float_eq(r->link_series_span, span, 1e-18);
    for (uint32_t b = 0; b < 6; b++)
        cr_assert_float_eq(r->link_series[b], 1.0, 1e-9, "span %u", b);
    cr_assert_float_eq(r->link_series[6], (50e-6 - 6 * span) / span, 1e-9);
    free_experiment(exp, cfg, reg);
    g_free(toml);
    g_unlink(path);
    g_free(path);
}

/* The busiest links listed from the few as busy as the k-th busiest are
   those of a sort of every link: a ping-pong busies 6 links, so the 10
   busiest end with idle links, in link order, as the full sort (busiest
   past the links' count) lists them; uniform traffic ties many links. */
Test(dynamic, the_busiest_links_are_those_of_a_full_sort_ties_in_link_order)
{
    char *path = write_temp("s 0 1 0 64000\nr 0 1 0 64000\ns 1 0 0 64000\nr 1 0 0 64000\n");
    const char *const traffic[] = {"[traffic]\nplugin = \"trace\"\nfile = \"%s\"\n",
                                   "[traffic]\nplugin = \"uniform\"\nmessage_bytes = 4096\n"};
    for (guint t = 0; t < G_N_ELEMENTS(traffic); t++) {
        const insee_flow_dyn_report *r[2];
        insee_experiment *exp[2];
        insee_config *cfg[2];
        insee_registry *reg[2];
        for (int i = 0; i < 2; i++) {
            char *head = g_strdup_printf("[simulation]\nengine = \"dynamic\"\n"
                                         "[topology]\nplugin = \"torus\"\ndims = [4, 4]\n"
                                         "[router]\nplugin = \"dally\"\nmode = \"basic\"\n"
                                         "[flow]\nrounds = 2\nbusiest = %d\n%s",
                                         i ? 100000 : 10, traffic[t]);
            char *toml = g_strdup_printf(head, path);
            exp[i] = run_experiment(toml, NULL, &cfg[i], &reg[i]);
            r[i] = insee_experiment_dyn_report(exp[i]);
            g_free(toml);
            g_free(head);
        }
        cr_assert_eq(r[0]->n_busiest, 10);
        cr_assert_gt(r[1]->n_busiest, 10, "every link");
        if (t == 0)
            cr_assert(r[0]->busiest_util[5] > 0 && r[0]->busiest_util[6] == 0);
        for (uint32_t k = 0; k < 10; k++) {
            cr_assert_eq(r[0]->busiest_link[k], r[1]->busiest_link[k], "%u", k);
            cr_assert_eq(r[0]->busiest_util[k], r[1]->busiest_util[k], "%u", k);
        }
        for (int i = 0; i < 2; i++)
            free_experiment(exp[i], cfg[i], reg[i]);
    }
    g_unlink(path);
    g_free(path);
}

/* [stats] csv and json: the row and the document of the run, with their
   figures; a CSV file of the static engine is refused rather than mixed. */
Test(dynamic, csv_and_json_hold_the_run_and_refuse_another_engines_file)
{
    char *dir = g_dir_make_tmp("insee-dyn-XXXXXX", NULL);
    char *csv = g_build_filename(dir, "runs.csv", NULL);
    char *json = g_build_filename(dir, "run.json", NULL);
    const char *common = "[topology]\nplugin = \"torus\"\ndims = [4, 4]\n"
                         "[router]\nplugin = \"dally\"\nmode = \"basic\"\n"
                         "[traffic]\nplugin = \"all-to-one\"\nroot = 5\nmessage_bytes = 6400\n";
    char *toml = g_strdup_printf("[simulation]\nengine = \"dynamic\"\n"
                                 "[flow]\nlink_gbps = " BW "\n[stats]\ncsv = \"%s\"\n"
                                 "json = \"%s\"\n%s", csv, json, common);
    run_writing_outputs(toml);
    char *text;
    cr_assert(g_file_get_contents(csv, &text, NULL, NULL));
    char **lines = g_strsplit(text, "\n", -1);
    cr_assert(g_str_has_prefix(lines[0], "engine,plugins,seed,nodes,routers,messages,"));
    char **row = g_strsplit(lines[1], ",", -1);
    cr_assert_str_eq(row[0], "dynamic");
    cr_assert_str_eq(row[5], "15", "messages: the 15 tasks other than the root");
    cr_assert_str_eq(row[9], row[10], "bytes sent = bytes delivered");
    cr_assert_float_eq(g_ascii_strtod(row[11], NULL), 15 * 6400 / bytes_per_s, 1e-15);
    g_strfreev(row);
    g_strfreev(lines);
    g_free(text);
    cr_assert(g_file_get_contents(json, &text, NULL, NULL));
    cr_assert(strstr(text, "\"dynamic\"") && strstr(text, "\"makespan_s\"") &&
                  strstr(text, "\"busiest_links\""), "%s", text);
    g_free(text);

    /* The static engine's row cannot go into this file. */
    char *other = g_strdup_printf("[simulation]\nengine = \"static\"\n[stats]\ncsv = \"%s\"\n%s",
                                  csv, common);
    char *msg = run_toml_error(other);
    cr_assert(strstr(msg, "runs.csv"), "%s", msg);
    g_free(msg);
    g_free(other);
    g_unlink(csv);
    g_unlink(json);
    g_rmdir(dir);
    g_free(toml);
    g_free(csv);
    g_free(json);
    g_free(dir);
}
