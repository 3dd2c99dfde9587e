/* The topology's own routing (topology.h paths(), ABI 1.9) in all three
 * engines, on the test-clockwise ring of n routers whose routing goes
 * clockwise only (fixtures/topology_clockwise.c), where every figure has a
 * closed form:
 *  - static, path routing `native`: an all-to-all's n(n - 1) flows, flow
 *    i -> j crossing (j - i) mod n links, n/2 on average, each clockwise
 *    link carrying n(n - 1)/2; split over both directions half each: the
 *    same mean, every ring link carrying n(n - 1)/4;
 *  - a failed cable: the flows whose one clockwise path crosses it are
 *    unroutable (sum_{d=1}^{n-1} d = n(n - 1)/2 of them), while split pairs
 *    keep their other path, its share scaled back to the whole flow;
 *  - packets, router `source`: at zero load, latency = hops + L - 1 with
 *    hops averaging n/2, and nothing lost; it refuses fewer VCs than the
 *    longest path and a topology with no routing of its own, as `native`
 *    does. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "run_helpers.h"

#define N 6u

static char *clockwise(const char *split, const char *rest)
{
    return g_strdup_printf("[simulation]\nengine = \"static\"\n"
                           "[topology]\nplugin = \"test-clockwise\"\nn = %u\nsplit = %s\n"
                           "[routing]\nplugin = \"native\"\n"
                           "[traffic]\nplugin = \"all-to-all\"\n%s",
                           N, split, rest);
}

Test(native, all_to_all_follows_the_topology_s_clockwise_routes)
{
    char *toml = clockwise("false", "");
    insee_flow_report r = run_static_toml(toml, NULL);
    cr_assert_eq(r.flows, N * (N - 1));
    cr_assert_eq(r.unroutable, 0);
    cr_assert_float_eq(r.hops_mean, N / 2.0, 1e-12, "mean hops %g", r.hops_mean);
    cr_assert_eq(r.hops_max, N - 1);
    cr_assert_float_eq(r.load_max, N * (N - 1) / 2.0, 1e-12, "busiest link %g", r.load_max);
    cr_assert_float_eq(r.load_min, 0.0, 1e-12, "counterclockwise links carry nothing");
    insee_flow_report_clear(&r);
    g_free(toml);
}

Test(native, shares_split_the_flows_over_both_directions)
{
    char *toml = clockwise("true", "");
    insee_flow_report r = run_static_toml(toml, NULL);
    cr_assert_eq(r.flows, N * (N - 1));
    cr_assert_float_eq(r.hops_mean, N / 2.0, 1e-12, "mean hops %g", r.hops_mean);
    /* Every ring link, both ways, carries half of n(n - 1)/2; the node
       links carry n - 1 each, fewer. */
    cr_assert_float_eq(r.load_max, N * (N - 1) / 4.0, 1e-12, "busiest link %g", r.load_max);
    cr_assert_float_eq(r.load_min, N - 1.0, 1e-12, "least loaded link %g", r.load_min);
    insee_flow_report_clear(&r);
    g_free(toml);
}

Test(native, a_failed_cable_cuts_the_routes_across_it_and_no_other)
{
    char *file = cable_file_new("0 0\n"); /* the cable between routers 0 and 1 */
    char *faults = g_strdup_printf("[faults]\nfile = \"%s\"\n", file);
    char *toml = clockwise("false", faults);
    insee_flow_report r = run_static_toml(toml, NULL);
    cr_assert_eq(r.failed_cables, 1);
    cr_assert_eq(r.unroutable, N * (N - 1) / 2, "unroutable %" G_GUINT64_FORMAT, r.unroutable);
    cr_assert_eq(r.flows, N * (N - 1) / 2);
    insee_flow_report_clear(&r);
    g_free(toml);
    /* Split: the cable lies on exactly one of a pair's two paths (the
       clockwise arc or the rest of the ring), so every pair keeps the
       other, carrying the whole flow: n - d hops when the clockwise path
       crosses, d when the counterclockwise one does. */
    toml = clockwise("true", faults);
    r = run_static_toml(toml, NULL);
    cr_assert_eq(r.unroutable, 0);
    cr_assert_eq(r.flows, N * (N - 1));
    double hops = 0;
    for (uint32_t i = 0; i < N; i++)
        for (uint32_t d = 1; d < N; d++) {
            /* It leaves routers i .. i + d - 1 (mod n): router 0 among them? */
            bool crosses = i == 0 || i + d - 1 >= N;
            hops += crosses ? N - d : d;
        }
    cr_assert_float_eq(r.hops_mean, hops / (N * (N - 1)), 1e-12, "mean hops %g, expected %g",
                       r.hops_mean, hops / (N * (N - 1)));
    insee_flow_report_clear(&r);
    g_free(toml);
    g_free(faults);
    cable_file_remove(file);
}

Test(native, a_topology_without_its_own_routing_is_refused)
{
    char *msg = run_toml_error("[simulation]\nengine = \"static\"\n"
                               "[topology]\nplugin = \"torus\"\ndims = [4, 4]\n"
                               "[routing]\nplugin = \"native\"\n"
                               "[traffic]\nplugin = \"all-to-all\"\n");
    cr_assert(strstr(msg, "has no routing of its own"), "%s", msg);
    g_free(msg);
}

static char *packets(uint32_t vcs, const char *topology)
{
    return g_strdup_printf("[simulation]\nseed = 5\nwarmup = 1000\ncycles = 1000000\n"
                           "packet_phits = 8\n[topology]\n%s\n"
                           "[router]\nplugin = \"source\"\nvcs = %u\n"
                           "[traffic]\nplugin = \"uniform\"\nload = 0.002\n",
                           topology, vcs);
}

Test(source, packets_take_the_clockwise_routes_at_zero_load_latency)
{
    char *topology = g_strdup_printf("plugin = \"test-clockwise\"\nn = %u", N);
    char *toml = packets(N - 1, topology);
    insee_report r = run_toml(toml);
    const int L = 8;
    cr_assert_gt(r.delivered, 300u);
    double hops = (double)r.hops / (double)r.delivered;
    /* Uniform destinations: clockwise distances 1 .. n - 1 alike, n/2 on
       average (about 1500 packets: a standard error of 0.04 hops). */
    cr_assert(fabs(hops - N / 2.0) < 0.15, "mean hops %g, clockwise mean %g", hops, N / 2.0);
    cr_assert(fabs(insee_stat_mean(&r.latency_inj) - (hops + L - 1)) / (hops + L - 1) < 0.003,
              "latency %g vs hops %g + %d - 1", insee_stat_mean(&r.latency_inj), hops, L);
    assert_all_delivered(&r);
    insee_report_clear(&r);
    g_free(toml);
    g_free(topology);
}

Test(source, fewer_vcs_than_the_longest_route_are_refused)
{
    char *topology = g_strdup_printf("plugin = \"test-clockwise\"\nn = %u", N);
    char *toml = packets(N - 2, topology);
    char *msg = run_toml_error(toml);
    cr_assert(strstr(msg, "longest route takes 5 hops") && strstr(msg, "set vcs = 5"), "%s",
              msg);
    g_free(msg);
    g_free(toml);
    g_free(topology);
}

Test(source, a_topology_without_its_own_routing_is_refused)
{
    char *toml = packets(2, "plugin = \"torus\"\ndims = [4, 4]");
    char *msg = run_toml_error(toml);
    cr_assert(strstr(msg, "has no routing of its own") && strstr(msg, "updown or ecmp"), "%s",
              msg);
    g_free(msg);
    g_free(toml);
}

/* BCube(4, 1) with BuildPathSet's parallel paths split evenly: a pair of
   servers one digit apart gets a 2-hop path and a 6-hop detour, a pair two
   digits apart two 4-hop paths (Guo et al.), so an all-to-all's 240 flows
   average 4 hops, as 48 : 144 : 48 shares of 2, 4 and 6 hops; packets
   through `source` (vcs = path_hops = 6) cross 4 links on average too. */
Test(native, bcube_parallel_paths_in_both_engines)
{
    const char *bcube = "[topology]\nplugin = \"bcube\"\nn = 4\nk = 1\nrouting = \"parallel\"\n";
    char *toml = g_strdup_printf("[simulation]\nengine = \"static\"\n%s"
                                 "[routing]\nplugin = \"native\"\n"
                                 "[traffic]\nplugin = \"all-to-all\"\n", bcube);
    insee_flow_report f = run_static_toml(toml, NULL);
    cr_assert_eq(f.flows, 240);
    cr_assert_float_eq(f.hops_mean, 4.0, 1e-12, "mean hops %g", f.hops_mean);
    cr_assert_eq(f.hops_max, 6);
    cr_assert_float_eq(f.hops_hist[2], 48.0, 1e-9);
    cr_assert_float_eq(f.hops_hist[4], 144.0, 1e-9);
    cr_assert_float_eq(f.hops_hist[6], 48.0, 1e-9);
    insee_flow_report_clear(&f);
    g_free(toml);
    toml = g_strdup_printf("[simulation]\nseed = 2\nwarmup = 1000\ncycles = 20000\n%s"
                           "[router]\nplugin = \"source\"\nvcs = 6\n"
                           "[traffic]\nplugin = \"uniform\"\nload = 0.3\n", bcube);
    insee_report r = run_toml(toml);
    double hops = (double)r.hops / (double)r.delivered;
    cr_assert(fabs(hops - 4.0) < 0.1, "mean hops %g over %" G_GUINT64_FORMAT " packets", hops,
              r.delivered);
    assert_all_delivered(&r);
    insee_report_clear(&r);
    g_free(toml);
}
