/* [network] flow_control = "wormhole": the zero-load closed form of its
 * pipeline, nothing lost with buffers smaller than a packet, the keys it
 * refuses. BookSim2's figures against ours are in test_booksim2.c. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "run_helpers.h"

/* A uniform run on an 8 x 8 torus with wormhole flow control; `router`
   and `network` add keys to their tables (NULL: none). */
static char *wormhole(double load, int cycles, int phits, int buffer_bytes, const char *router,
                      const char *network)
{
    return g_strdup_printf("[simulation]\nseed = 7\nwarmup = 2000\ncycles = %d\n"
                           "packet_phits = %d\n[topology]\nplugin = \"torus\"\ndims = [8, 8]\n"
                           "[router]\nplugin = \"dally\"\n%s[traffic]\nplugin = \"uniform\"\n"
                           "load = %.6f\n[network]\nflow_control = \"wormhole\"\n"
                           "vc_buffer_bytes = %d\n%s",
                           cycles, phits, router ? router : "", load, buffer_bytes,
                           network ? network : "");
}

/* Zero load: a head is routed (rc), allocates its VC (va), wins the switch
   (sa), crosses it (st) and the link (1 + C) at each of its h hops, and at
   its destination is routed and allocated the ejection port; the tail
   follows L - 1 cycles behind and reaches the node N cycles after it
   left. From the head's leaving its source queue: h (rc + va + sa + st + 1
   + C) + sa + st + L - 1 + N; before it, N + rc + va. */
Test(wormhole, zero_load_latency_is_the_pipeline)
{
    const int L = 16, rc = 2, va = 1, sa = 2, st = 1, C = 1, N = 1;
    char *toml = wormhole(0.002, 300000, L, 256, NULL,
                          "routing_cycles = 2\nswitch_alloc_cycles = 2\ncable_cycles = 1\n"
                          "node_cable_cycles = 1\n");
    insee_report r = run_toml(toml);
    cr_assert_gt(r.delivered, 1000);
    double hops = (double)r.hops / (double)r.delivered;
    double closed = hops * (rc + va + sa + st + 1 + C) + sa + st + L - 1 + N;
    cr_assert(fabs(insee_stat_mean(&r.latency_inj) - closed) / closed < 0.003,
              "latency %.4f, closed form %.4f", insee_stat_mean(&r.latency_inj), closed);
    double wait = insee_stat_mean(&r.latency_gen) - insee_stat_mean(&r.latency_inj);
    cr_assert(wait >= N + rc + va && wait < N + rc + va + 0.5, "waited %.4f cycles", wait);
    cr_assert(r.units.wormhole);
    assert_all_delivered(&r);
    insee_report_clear(&r);
    g_free(toml);
}

/* Buffers of 4 flits, packets of 16: a packet always spans several
   routers. Saturated with both dateline schemes, the network delivers every
   packet it took and drains; the same seed gives the same figures. */
Test(wormhole, buffers_smaller_than_a_packet_lose_nothing)
{
    static const char *const modes[] = {"mode = \"basic\"\n", "mode = \"partition\"\n"};
    for (size_t m = 0; m < G_N_ELEMENTS(modes); m++) {
        char *toml = wormhole(1.0, 4000, 16, 16, modes[m], NULL);
        insee_report a = run_toml(toml), b = run_toml(toml);
        cr_assert_gt(a.delivered, 2000u, "%s: %" G_GUINT64_FORMAT " delivered", modes[m],
                     a.delivered);
        assert_all_delivered(&a);
        cr_assert_eq(a.total_delivered, b.total_delivered);
        cr_assert_float_eq(insee_stat_mean(&a.latency_gen), insee_stat_mean(&b.latency_gen), 0.0);
        cr_assert_eq(a.total_packet_hops, b.total_packet_hops);
        insee_report_clear(&a);
        insee_report_clear(&b);
        g_free(toml);
    }
}

/* Credits cross the cable back: a VC of B flits carries at most B flits
   per round trip, sa + st + 1 + C to the next buffer and credit + C back.
   One flow of 64-flit packets over one hop of a 20-cycle cable with 8-flit
   buffers: 8 flits per 1 + 1 + 1 + 20 + 1 + 20 = 44 cycles. */
Test(wormhole, a_buffer_carries_its_flits_per_round_trip)
{
    enum { N = 40, L = 64, B = 8, RT = 44 };
    char *path = sends_file_new(N, (const uint32_t[]){1}, 1, L * 4);
    char *toml = g_strdup_printf(
        "[simulation]\npacket_phits = %d\n[topology]\nplugin = \"torus\"\ndims = [8]\n"
        "[router]\nplugin = \"dally\"\n[traffic]\nplugin = \"trace\"\nfile = \"%s\"\n"
        "mode = \"at-will\"\n[network]\nflow_control = \"wormhole\"\nvc_buffer_bytes = %d\n"
        "cable_cycles = 20\n",
        L, path, B * 4);
    insee_report r = run_toml(toml);
    cr_assert(r.completed);
    assert_all_delivered(&r);
    double expected = (double)N * L * RT / B;
    cr_assert(fabs((double)r.completion - expected) / expected < 0.05,
              "completed at %" G_GUINT64_FORMAT ", B flits per round trip gives %.0f",
              r.completion, expected);
    insee_report_clear(&r);
    g_free(toml);
    cable_file_remove(path);
}

/* Global congestion control holds the sources' heads under wormhole too:
   saturated with a threshold of 5 % of the buffers' flits, the network
   holds far fewer packets than without it, and still delivers all. A held
   head waits before it takes an output VC: with two injection queues per
   node and 8-flit packets, heads held on the VCs they had taken kept the
   transit packets that needed them from ever moving (a deadlock some 260
   cycles in). */
Test(wormhole, congestion_control_holds_the_sources)
{
    char *two = wormhole(1.0, 4000, 8, 128, "injectors = 2\ngcc = 0.05\ngcc_period = 10\n", NULL);
    insee_report held_two = run_toml(two);
    assert_all_delivered(&held_two);
    cr_assert_gt(held_two.delivered, 1000u);
    insee_report_clear(&held_two);
    g_free(two);
    double held[2];
    for (int gcc = 0; gcc < 2; gcc++) {
        char *toml = wormhole(1.0, 4000, 16, 256, gcc ? "gcc = 0.05\ngcc_period = 10\n" : NULL,
                              NULL);
        insee_report r = run_toml(toml);
        assert_all_delivered(&r);
        cr_assert_gt(r.delivered, 1000u);
        held[gcc] = r.occupancy;
        insee_report_clear(&r);
        g_free(toml);
    }
    cr_assert_lt(held[1], held[0] * 0.75, "packets in the network: %.1f with, %.1f without",
                 held[1], held[0]);
}

Test(wormhole, refusals_name_the_keys)
{
    static const struct {
        const char *network, *expect;
    } cases[] = {
        {"router_cycles = 3\n", "router_cycles is virtual cut-through's pipeline"},
        {"flow_control = \"vct\"\nrouting_cycles = 3\n", "routing_cycles is a stage"},
        {"flow_control = \"vct\"\nvc_buffer_bytes = 16\n", "flow_control = \"wormhole\""},
        {"node_phit_cycles = 2\n", "slower than the router"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        char *toml = g_strdup_printf("[topology]\nplugin = \"torus\"\ndims = [4, 4]\n[router]\n"
                                     "plugin = \"dally\"\n[traffic]\nplugin = \"uniform\"\n"
                                     "[network]\n%s%s",
                                     strstr(cases[i].network, "flow_control")
                                         ? ""
                                         : "flow_control = \"wormhole\"\n",
                                     cases[i].network);
        char *msg = run_toml_error(toml);
        cr_assert(strstr(msg, "[network]") && strstr(msg, cases[i].expect),
                  "case %zu: '%s' does not name '%s'", i, msg, cases[i].expect);
        g_free(msg);
        g_free(toml);
    }
    char *msg = run_toml_error("[topology]\nplugin = \"spinnaker\"\ndims = [4, 4]\n[router]\n"
                               "plugin = \"spinnaker\"\n[traffic]\nplugin = \"uniform\"\n"
                               "[network]\nflow_control = \"wormhole\"\n");
    cr_assert(strstr(msg, "[network]") && strstr(msg, "multicast"), "%s", msg);
    g_free(msg);
    msg = run_toml_error("[topology]\nplugin = \"torus\"\ndims = [4, 4]\n[router]\n"
                         "plugin = \"dally\"\n[arbiter]\nplugin = \"age\"\n[traffic]\n"
                         "plugin = \"uniform\"\n[network]\nflow_control = \"wormhole\"\n");
    cr_assert(strstr(msg, "wormhole") && strstr(msg, "[arbiter]"), "%s", msg);
    g_free(msg);
}
