/* Causal and reactive traffic plugins through the kernel: bursts (INSEE
 * §3.2.3) complete with every packet delivered, and on an idle network a
 * burst of one packet per task to a permutation whose paths share no link
 * takes exactly the zero-load latency of its longest path, h + L - 1
 * cycles, plus the cycle it ends in; a barrier that loses packets ends the
 * run with the plugin's own words. Reactive traffic (INSEE §3.2.2) accepts
 * more than its independent part alone. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "run_helpers.h"

#define L 16

/* A k x k torus with dimension-order routing, and [traffic] `traffic`. */
static char *torus_run(int k, const char *simulation, const char *traffic)
{
    return g_strdup_printf("[simulation]\npacket_phits = %d\n%s\n"
                           "[topology]\nplugin = \"torus\"\ndims = [%d, %d]\n"
                           "[router]\nplugin = \"dally\"\nmode = \"basic\"\nvcs = 2\n"
                           "[traffic]\n%s\n",
                           L, simulation, k, k, traffic);
}

Test(causal, bursts_complete_on_a_torus)
{
    char *toml = torus_run(4, "warmup = 0\ncycles = 10",
                           "plugin = \"bursts\"\npackets = 6\nbursts = 4");
    insee_report r = run_toml(toml);
    cr_assert(r.causal && r.completed);
    cr_assert_eq(r.total_delivered, 4u * 16u * 6u, "bursts x tasks x b packets");
    cr_assert_eq(r.cycles, r.completion, "the run ends when the last burst is delivered");
    /* A lower bound: a node injects a packet per L cycles, so a burst
       lasts at least b L cycles. */
    cr_assert_geq(r.completion, 4u * 6u * L);
    assert_all_delivered(&r);
    insee_report_clear(&r);
    g_free(toml);
}

/* Ring distance between coordinates a and b on a ring of k. */
static int ring(int a, int b, int k)
{
    int d = (a - b + k) % k;
    return d < k - d ? d : k - d;
}

/* On a 4 x 4 torus, node x + 4 y, these permutations send every packet
   over links no other packet uses (dimension order: X, then Y):
   - bit complement maps (x, y) to (3 - x, 3 - y): one hop in each ring,
     each direction of each link taken once;
   - tornado to (x + 1, y + 1): one hop +X, then one hop +Y;
   - shift by 1 to (x + 1, y), and (3, y) to (0, y + 1).
   So each packet is consumed h + L - 1 cycles after cycle 0, and the burst
   ends after max h + L - 1, plus the cycle it ends in; n bursts each start
   the cycle after the previous one ends. */
Test(causal, one_packet_bursts_take_the_zero_load_latency)
{
    static const struct { const char *pattern; int dst[16]; } cases[] = {
        {"bit-complement", {15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0}},
        {"tornado", {5, 6, 7, 4, 9, 10, 11, 8, 13, 14, 15, 12, 1, 2, 3, 0}},
        {"shift", {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0}},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        int hmax = 0, hsum = 0;
        for (int s = 0; s < 16; s++) {
            int d = cases[i].dst[s];
            int h = ring(s % 4, d % 4, 4) + ring(s / 4, d / 4, 4);
            hmax = h > hmax ? h : hmax;
            hsum += h;
        }
        for (int n = 1; n <= 3; n++) {
            char *traffic = g_strdup_printf(
                "plugin = \"bursts\"\npackets = 1\nbursts = %d\npattern = \"%s\"", n,
                cases[i].pattern);
            char *toml = torus_run(4, "", traffic);
            insee_report r = run_toml(toml);
            uint64_t closed = (uint64_t)n * (uint64_t)(hmax + L - 1 + 1);
            cr_assert(r.completed);
            cr_assert_eq(r.completion, closed,
                         "%s, %d burst(s): completed at %" G_GUINT64_FORMAT
                         ", closed form n (max h + L) = %d (%d + %d) = %" G_GUINT64_FORMAT,
                         cases[i].pattern, n, r.completion, n, hmax, L, closed);
            cr_assert_eq(r.total_delivered, 16u * n);
            cr_assert_eq(r.hops, (uint64_t)n * (uint64_t)hsum, "minimal paths");
            assert_all_delivered(&r);
            insee_report_clear(&r);
            g_free(toml);
            g_free(traffic);
        }
    }
}

/* Dropped packets never arrive: the barrier waits forever, and the run
   ends with an error that says which burst waits and why. */
Test(causal, bursts_that_lose_packets_end_with_their_words)
{
    char *toml = torus_run(4, "",
                           "plugin = \"bursts\"\npackets = 40\nbursts = 2\non_full = \"drop\"");
    char *msg = run_toml_error(toml);
    cr_assert(strstr(msg, "stuck"), "%s", msg);
    cr_assert(strstr(msg, "burst 1 of 2 waits at its barrier"), "%s", msg);
    cr_assert(strstr(msg, "on_full"), "%s", msg);
    g_free(msg);
    g_free(toml);
}

Test(causal, bursts_stop_at_max_cycles)
{
    char *toml = torus_run(4, "max_cycles = 100", "plugin = \"bursts\"\npackets = 40");
    char *msg = run_toml_error(toml);
    cr_assert(strstr(msg, "max_cycles = 100"), "%s", msg);
    cr_assert(strstr(msg, "burst 1 of 1 waits at its barrier"), "%s", msg);
    g_free(msg);
    g_free(toml);
}

/* Reactive traffic on top of uniform traffic at the same load: each
   one-packet message is answered with probability q by a reply of m packets
   on average, so the network accepts load (1 + q m), more than the
   independent part alone. */
Test(causal, reactive_accepts_its_replies_too)
{
    const char *sim = "warmup = 2000\ncycles = 20000";
    char *alone = torus_run(8, sim, "plugin = \"uniform\"\nload = 0.1");
    char *reactive = torus_run(8, sim,
                               "plugin = \"reactive\"\nload = 0.1\nprobability = 0.5\n"
                               "reply_min = 1\nreply_max = 3");
    insee_report u = run_toml(alone), r = run_toml(reactive);
    cr_assert(!r.causal, "reactive traffic is open-ended");
    cr_assert_float_eq(r.offered_load, 0.2, 1e-12);
    cr_assert_gt(r.accepted_load, u.accepted_load * 1.5, "reactive %.4f, uniform alone %.4f",
                 r.accepted_load, u.accepted_load);
    cr_assert(fabs(r.accepted_load - 0.2) < 0.2 * 0.03, "accepted %.4f, closed form 0.2",
              r.accepted_load);
    assert_all_delivered(&r);
    insee_report_clear(&u);
    insee_report_clear(&r);
    g_free(alone);
    g_free(reactive);
}

/* The Markov application model (INRFlow §3.3.4) through the kernel: a walk
   fixed by its matrix sends an exact number of messages (a read is a
   request and its answer), and the default walk completes. */
Test(causal, markov_walks_complete)
{
    static const struct { const char *matrix; int storage; uint64_t per_step; } cases[] = {
        {"0 1 0 0  0 1 0 0  1 0 0 0  1 0 0 0", 0, 1},   /* communicate, again and again */
        {"0 0 1 0  1 0 0 0  0 0 1 0  1 0 0 0", 2, 2},   /* read, again and again */
        {"0 0 0 1  1 0 0 0  1 0 0 0  0 0 0 1", 3, 1},   /* write, again and again */
    };
    const int steps = 30;
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        char *traffic = g_strdup_printf("plugin = \"markov\"\nmatrix = \"%s\"\nsteps = %d\n"
                                        "compute_mean = 20\nstorage = %d",
                                        cases[i].matrix, steps, cases[i].storage);
        char *toml = torus_run(4, "", traffic);
        insee_report r = run_toml(toml);
        cr_assert(r.completed);
        uint64_t workers = 16u - (uint64_t)cases[i].storage;
        cr_assert_eq(r.apps[0].messages, workers * (steps - 1) * cases[i].per_step,
                     "case %zu: %" G_GUINT64_FORMAT " messages", i, r.apps[0].messages);
        assert_all_delivered(&r);
        insee_report_clear(&r);
        g_free(toml);
        g_free(traffic);
    }
    char *toml = torus_run(4, "", "plugin = \"markov\"\nsteps = 50");
    insee_report r = run_toml(toml);
    cr_assert(r.completed);
    assert_all_delivered(&r);
    insee_report_clear(&r);
    g_free(toml);
}

/* dcntraffic (INRFlow §3.3.3) through the kernel: every task's flows are
   delivered, 80 % of them short. */
Test(causal, dcntraffic_delivers_every_flow)
{
    char *toml = torus_run(4, "warmup = 0\ncycles = 10",
                           "plugin = \"dcntraffic\"\nload = 0.3\nflows = 40\n"
                           "short_bytes = 64\nlong_bytes = 640");
    insee_report r = run_toml(toml);
    cr_assert(r.completed);
    cr_assert_eq(r.apps[0].messages, 16u * 40u, "every flow of every task");
    /* Flows of 1 and 10 packets: the packets count the long ones. */
    uint64_t longs = (r.total_delivered - 640u) / 9u;
    cr_assert_eq(r.total_delivered, 640u + 9u * longs);
    double mean = 640 * 0.2, sd = sqrt(640 * 0.2 * 0.8);
    cr_assert(fabs((double)longs - mean) <= 5 * sd, "%" G_GUINT64_FORMAT " long flows of 640",
              longs);
    assert_all_delivered(&r);
    insee_report_clear(&r);
    g_free(toml);
}
