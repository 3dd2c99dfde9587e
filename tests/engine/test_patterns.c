/* test_patterns.c — the independent-source patterns end to end, through
 * the kernel:
 *  - a hot spot saturates an 8x8 torus far below uniform traffic, under a
 *    bound computed here from the hot node's links;
 *  - a finite pattern (INRFlow's all-to-all) runs to completion: every
 *    message delivered, each cut into ceil(bytes / (L x phit_bytes))
 *    packets, and no sooner than a node's link can send its share;
 *  - bursty sources with drawn lengths give the same results for the same
 *    seed.
 */
#include <criterion/criterion.h>
#include <glib.h>
#include <math.h>

#include "run_helpers.h"

/* An 8x8 torus (bubble router, INSEE's defaults) under `traffic` lines. */
static insee_report run_torus(const char *dims, uint64_t warmup, uint64_t cycles,
                              const char *traffic)
{
    char *toml = g_strdup_printf("[simulation]\nwarmup = %" G_GUINT64_FORMAT
                                 "\ncycles = %" G_GUINT64_FORMAT "\n"
                                 "[topology]\nplugin = \"torus\"\ndims = %s\n"
                                 "[traffic]\n%s\n",
                                 warmup, cycles, dims, traffic);
    insee_report r = run_toml(toml);
    g_free(toml);
    return r;
}

/* At offered load 0.9 the hot node takes a fraction f of every other node's
   packets plus its uniform share: a part s = f + (1 - f) / (N - 1) of what
   each of the N - 1 others generates. It receives through its 4 incoming
   links, at most 4 phits a cycle, so the others generate at most 4 / s
   phits a cycle between them; the hot node itself at most its offered
   0.9. The accepted load per node is then at most (4 / s + 0.9) / N, give
   or take what the network holds at the window's ends: at most every queue
   full (router inputs, injection buffer and port), spread over N x cycles. */
Test(patterns, hot_spot_saturates_below_uniform)
{
    const double N = 64, f = 0.2, load = 0.9, L = 16;
    const uint64_t warmup = 10000, cycles = 20000;
    insee_report uni = run_torus("[8, 8]", warmup, cycles, "plugin = \"uniform\"\nload = 0.9");
    insee_report hot = run_torus("[8, 8]", warmup, cycles,
                                 "plugin = \"hotspot\"\nload = 0.9\nfraction = 0.2");
    double s = f + (1 - f) / (N - 1);
    double queues = N * (5 * 2 * 4 + 4) * L; /* 5 inputs x 2 VCs x 4 packets, + 4 injection */
    double bound = (4 / s + load) / N + queues / (N * (double)cycles);
    cr_assert_lt(hot.accepted_load, bound, "hot spot accepted %.4f, bound %.4f",
                 hot.accepted_load, bound);
    cr_assert_gt(uni.accepted_load, 2 * bound, "uniform accepted %.4f, not above 2 x %.4f",
                 uni.accepted_load, bound);
    insee_report_clear(&uni);
    insee_report_clear(&hot);
}

/* 16 tasks, `messages` messages of `bytes` bytes from every task to every
   other: run to completion. */
static void all_to_all(int messages, int bytes, uint64_t packets_each)
{
    char *traffic = g_strdup_printf("plugin = \"all-to-all\"\nmessages = %d\nmessage_bytes = %d",
                                    messages, bytes);
    insee_report r = run_torus("[4, 4]", 5000, 20000, traffic);
    uint64_t msgs = 16 * 15 * (uint64_t)messages;
    cr_assert(r.completed, "all-to-all did not complete");
    cr_assert_eq(r.n_apps, 1u);
    cr_assert_eq(r.apps[0].messages, msgs);
    cr_assert_eq(r.total_delivered, msgs * packets_each, "%" G_GUINT64_FORMAT " packets",
                 r.total_delivered);
    cr_assert_eq(r.total_generated, r.total_delivered);
    /* A node sends 15 x messages x packets_each packets of 16 phits over
       one link, a phit a cycle; the last one still has a hop to go. */
    uint64_t floor = 15 * (uint64_t)messages * packets_each * 16 + 1;
    cr_assert_geq(r.completion, floor, "completed at %" G_GUINT64_FORMAT ", below %" G_GUINT64_FORMAT,
                  r.completion, floor);
    insee_report_clear(&r);
    g_free(traffic);
}

Test(patterns, finite_all_to_all_runs_to_completion)
{
    all_to_all(2, 0, 1);   /* one packet a message */
    all_to_all(1, 200, 4); /* 200 bytes in packets of 16 phits x 4 bytes */
}

Test(patterns, bursty_lengths_same_seed_same_results)
{
    const char *traffic = "plugin = \"hot-region\"\nload = 0.3\nprocess = \"bursty\"\n"
                          "burst_on = 40\nburst_off = 80\nlength_dist = \"exponential\"\n"
                          "message_bytes = 300";
    insee_report a = run_torus("[8, 8]", 2000, 10000, traffic);
    insee_report b = run_torus("[8, 8]", 2000, 10000, traffic);
    cr_assert_gt(a.delivered, 1000u);
    cr_assert_eq(a.generated, b.generated);
    cr_assert_eq(a.delivered, b.delivered);
    cr_assert_eq(a.total_packet_hops, b.total_packet_hops);
    cr_assert_eq(insee_stat_mean(&a.latency_gen), insee_stat_mean(&b.latency_gen));
    cr_assert_eq(a.cycles, b.cycles);
    insee_report_clear(&a);
    insee_report_clear(&b);
}
