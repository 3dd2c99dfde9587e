/* The server-centric topologies' own routings in the static flow engine
 * (path routing `native`), all-to-all, against figures worked out by hand
 * from the papers' routings or measured by INRFlow's binary:
 *  - DCell(n, 1), DCellRouting: n + 1 cells of n servers on a switch; two
 *    servers of one cell are 2 hops apart (through the switch), and between
 *    cells a and b the route crosses their one bridge, 1 hop, plus 2 at
 *    each end whose server is not the bridge's: over the n^2 pairs of two
 *    cells, n^2 + 4 n (n - 1) hops. Failing the bridge of cells 0 and 1
 *    cuts exactly the 2 n^2 flows between them.
 *  - SWCube(k = 1, n = 4), INRFlow's routing on the K4 of switches: the 6
 *    servers (one per switch pair) are 2 hops apart when their pairs share
 *    a switch, 4 when disjoint (3 disjoint pairs, 6 flows). The cable of
 *    server (0,1) to switch 0 carries 7 flows by the README's rule: to and
 *    from (0,2) and (0,3) through switch 0, (0,1) -> (2,3) (it leaves low),
 *    and (0,2) -> (1,3), (0,3) -> (1,2) passing through (0,1).
 *  - GQ* (knkstar) k = 1, n = 3: two servers at each of 3 switches; 2 hops
 *    within a switch (6 flows); between two switches, of the 4 pairs the
 *    twins are 1 hop apart, 5 when neither twin cable leads the right way,
 *    3 otherwise: 12 hops per ordered switch pair, 84 over the 30 flows.
 *  - SWCube(2, 4): INRFlow's binary reports 8928 hops over the 48 x 48
 *    pairs (mean.link.path.length 3.875 with the self pairs), 23 to 75
 *    flows per link. */
#include <criterion/criterion.h>

#include "run_helpers.h"

static insee_flow_report all_to_all(const char *topology, const char *faults)
{
    char *toml = g_strdup_printf("[simulation]\nengine = \"static\"\n"
                                 "[topology]\n%s\n"
                                 "[routing]\nplugin = \"native\"\n"
                                 "[traffic]\nplugin = \"all-to-all\"\n%s",
                                 topology, faults ? faults : "");
    insee_flow_report r = run_static_toml(toml, NULL);
    g_free(toml);
    return r;
}

/* The report with the cable at `router` `port` failed. */
static insee_flow_report all_to_all_failed(const char *topology, const char *cable)
{
    char *file = cable_file_new(cable);
    char *faults = g_strdup_printf("[faults]\nfile = \"%s\"\n", file);
    insee_flow_report r = all_to_all(topology, faults);
    cr_assert_eq(r.failed_cables, 1);
    g_free(faults);
    cable_file_remove(file);
    return r;
}

Test(servers_flow, dcell_k1_follows_dcellrouting)
{
    const uint64_t n = 4, S = n * (n + 1), flows = S * (S - 1);
    const uint64_t across = n * n + 4 * n * (n - 1);                  /* one ordered cell pair */
    const uint64_t hops = (n + 1) * n * across + (n + 1) * n * (n - 1) * 2; /* + inside cells */
    insee_flow_report r = all_to_all("plugin = \"dcell\"\nn = 4\nk = 1", NULL);
    cr_assert_eq(r.flows, flows);
    cr_assert_eq(r.unroutable, 0);
    cr_assert_float_eq(r.hops_mean, (double)hops / flows, 1e-12, "mean hops %g", r.hops_mean);
    cr_assert_eq(r.hops_max, 5u);
    insee_flow_report_clear(&r);
    /* The bridge of cells 0 and 1: server 0 (index b - 1 = 0 of cell 0),
       its port 1. */
    r = all_to_all_failed("plugin = \"dcell\"\nn = 4\nk = 1", "0 1\n");
    cr_assert_eq(r.unroutable, 2 * n * n);
    cr_assert_eq(r.flows, flows - 2 * n * n);
    cr_assert_float_eq(r.hops_mean, (double)(hops - 2 * across) / (flows - 2 * n * n), 1e-12,
                       "mean hops %g", r.hops_mean);
    insee_flow_report_clear(&r);
}

Test(servers_flow, swcube_k1_by_hand)
{
    insee_flow_report r = all_to_all("plugin = \"swcube\"\nk = 1\nn = 4", NULL);
    cr_assert_eq(r.flows, 30u);
    cr_assert_float_eq(r.hops_mean, (24 * 2 + 6 * 4) / 30.0, 1e-12, "mean hops %g", r.hops_mean);
    insee_flow_report_clear(&r);
    /* server 0 is (0,1): its port 0 leads to switch 0 */
    r = all_to_all_failed("plugin = \"swcube\"\nk = 1\nn = 4", "0 0\n");
    cr_assert_eq(r.unroutable, 7u);
    cr_assert_eq(r.flows, 23u);
    /* lost: 4 flows of 2 hops, 3 of 4 */
    cr_assert_float_eq(r.hops_mean, (72 - 4 * 2 - 3 * 4) / 23.0, 1e-12, "mean hops %g",
                       r.hops_mean);
    insee_flow_report_clear(&r);
}

Test(servers_flow, swcube_as_inrflow_measures_it)
{
    insee_flow_report r = all_to_all("plugin = \"swcube\"\nk = 2\nn = 4", NULL);
    cr_assert_eq(r.flows, 48u * 47u);
    cr_assert_float_eq(r.hops_mean, 8928.0 / (48 * 47), 1e-12, "mean hops %g", r.hops_mean);
    cr_assert_eq(r.hops_max, 6u);
    cr_assert_float_eq(r.load_max, 75.0, 1e-12, "busiest link %g", r.load_max);
    cr_assert_float_eq(r.load_min, 23.0, 1e-12, "least loaded link %g", r.load_min);
    insee_flow_report_clear(&r);
}

Test(servers_flow, knkstar_k1_by_hand)
{
    insee_flow_report r = all_to_all("plugin = \"knkstar\"\nk = 1\nn = 3", NULL);
    cr_assert_eq(r.flows, 30u);
    cr_assert_float_eq(r.hops_mean, (6 * 2 + 6 * 12) / 30.0, 1e-12, "mean hops %g", r.hops_mean);
    cr_assert_eq(r.hops_max, 5u);
    insee_flow_report_clear(&r);
}
