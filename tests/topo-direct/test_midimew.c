/* test_midimew.c — the midimew plugin: C_N(b-1, b) with b = ceil(sqrt(N/2))
 * has the least diameter possible with four ports, the smallest k with
 * 2k^2 + 2k + 1 >= N, for every N (checked 5..200 by BFS), and the least
 * diameter and average distance of all circulants C_N(a, c) (checked by
 * brute force up to 64); the dense sizes N = 2k^2 + 2k + 1 have 4d nodes
 * at distance d; wiring, coordinates, and Dally's deadlock freedom. */
#include "direct.h"
#include "topo_check.h"

#include <criterion/criterion.h>
#include <stdlib.h>

static uint32_t optimal_diameter(uint32_t nodes)
{
    uint32_t k = 0;
    while (2 * k * k + 2 * k + 1 < nodes)
        k++;
    return k;
}

/* Diameter and sum of the distances from node 0 of C_N(a, c), by BFS (a
   circulant looks the same from every node); diameter UINT32_MAX when it
   is not connected. */
static uint32_t circulant(uint32_t nodes, uint32_t a, uint32_t c, uint64_t *sum)
{
    uint32_t *dist = malloc(sizeof *dist * nodes), *queue = malloc(sizeof *queue * nodes);
    for (uint32_t i = 0; i < nodes; i++)
        dist[i] = UINT32_MAX;
    uint32_t head = 0, tail = 0, jumps[4] = {a, nodes - a, c, nodes - c};
    dist[0] = 0;
    queue[tail++] = 0;
    *sum = 0;
    while (head < tail) {
        uint32_t i = queue[head++];
        *sum += dist[i];
        for (int j = 0; j < 4; j++) {
            uint32_t w = (i + jumps[j]) % nodes;
            if (dist[w] == UINT32_MAX) {
                dist[w] = dist[i] + 1;
                queue[tail++] = w;
            }
        }
    }
    uint32_t diameter = tail == nodes ? dist[queue[tail - 1]] : UINT32_MAX;
    free(dist);
    free(queue);
    return diameter;
}

Test(midimew, optimal_diameter_5_to_200)
{
    for (uint32_t nodes = 5; nodes <= 200; nodes++) {
        net t;
        midimew_open(&t, nodes);
        cr_assert_eq(t.info.routers, nodes);
        cr_assert_eq(t.info.nodes, nodes);
        cr_assert_eq(t.info.max_ports, 4u);
        cr_assert_eq(t.info.dims, 3u);
        cr_assert_eq(t.warnings, 0u);
        topo_table links;
        topo_read(&links, t.vt, t.self);
        uint32_t *dist = malloc(sizeof *dist * nodes);
        for (uint32_t src = 0; src < nodes; src += nodes / 3) {
            uint32_t reached = topo_bfs(&links, src, dist);
            cr_assert_eq(reached, nodes, "only %u of %u routers reachable from %u", reached, nodes,
                         src);
            uint32_t far = 0;
            for (uint32_t x = 0; x < nodes; x++) {
                cr_assert_eq(t.vt->distance(t.self, src, x), dist[x], "N %u: %u -> %u", nodes,
                             src, x);
                far = dist[x] > far ? dist[x] : far;
            }
            cr_assert_eq(far, optimal_diameter(nodes), "N = %u", nodes);
        }
        cr_assert_eq(t.info.diameter, optimal_diameter(nodes), "N = %u", nodes);
        free(dist);
        topo_table_free(&links);
        net_close(&t);
    }
}

/* No circulant of four ports does better, on diameter or on total distance. */
Test(midimew, best_of_all_circulants)
{
    for (uint32_t nodes = 5; nodes <= 64; nodes++) {
        net t;
        midimew_open(&t, nodes);
        /* The plugin's own distances from node 0 (a circulant looks the
           same from every node), checked against a BFS over its links. */
        topo_table links;
        topo_read(&links, t.vt, t.self);
        uint32_t *dist = malloc(sizeof *dist * nodes);
        cr_assert_eq(topo_bfs(&links, 0, dist), nodes);
        uint64_t mine = 0;
        uint32_t diameter = 0;
        for (uint32_t x = 0; x < nodes; x++) {
            uint32_t d = t.vt->distance(t.self, 0, x);
            cr_assert_eq(d, dist[x], "N %u: 0 -> %u", nodes, x);
            mine += d;
            diameter = d > diameter ? d : diameter;
        }
        free(dist);
        topo_table_free(&links);
        cr_assert_eq(diameter, t.info.diameter);
        for (uint32_t a = 1; a <= nodes / 2; a++)
            for (uint32_t c = a + 1; c <= nodes / 2; c++) {
                uint64_t sum;
                uint32_t d = circulant(nodes, a, c, &sum);
                cr_assert_geq(d, diameter, "N %u: C(%u, %u) has diameter %u < %u", nodes, a, c,
                              d, diameter);
                cr_assert(d == UINT32_MAX || sum >= mine, "N %u: C(%u, %u) sums %llu < %llu",
                          nodes, a, c, (unsigned long long)sum, (unsigned long long)mine);
            }
        net_close(&t);
    }
}

/* Every pair checked against BFS (wiring, coordinates, minimal hops, the
   dimension-ordered first hops and their flags), and the dense sizes
   2k^2 + 2k + 1: 4d nodes at distance d = 1..k from each node. */
Test(midimew, against_bfs)
{
    static const uint32_t more[] = {41, 50, 61, 64, 85, 90};
    uint32_t dense = 0;
    for (uint32_t i = 0; i < 26 + sizeof more / sizeof more[0]; i++) {
        uint32_t nodes = i < 26 ? 5 + i : more[i - 26]; /* 5 .. 30, then more */
        net t;
        midimew_open(&t, nodes);
        uint32_t diameter;
        uint64_t sum = check_net(&t, true, &diameter);
        uint64_t k = optimal_diameter(nodes);
        if (2 * k * k + 2 * k + 1 == nodes) {
            cr_assert_eq(sum, nodes * (2 * k * (k + 1) * (2 * k + 1) / 3), "N = %u", nodes);
            dense++;
        }
        net_close(&t);
    }
    cr_assert_eq(dense, 6u); /* 5, 13, 25, 41, 61, 85 */
}

/* The 13-node midimew of Fig. 2c: b = 3, node i links to i +- 2 and i +- 3;
   coordinates (i / 2, i / 3, i mod 3): jumps since each dateline, column. */
Test(midimew, wiring_of_13)
{
    net t;
    midimew_open(&t, 13);
    static const uint32_t jump[4] = {2, 13 - 2, 3, 13 - 3};
    for (uint32_t i = 0; i < 13; i++)
        for (uint32_t p = 0; p < 4; p++) {
            insee_port_peer to;
            cr_assert(t.vt->link(t.self, i, p, &to));
            cr_assert_eq(to.router, (i + jump[p]) % 13);
            cr_assert_eq(to.port, p ^ 1u);
            int32_t c[3];
            cr_assert_eq(t.vt->coords(t.self, i, c, 3), 3u);
            cr_assert(c[0] == (int32_t)(i / 2) && c[1] == (int32_t)(i / 3) &&
                      c[2] == (int32_t)(i % 3));
        }
    insee_hop h;
    t.vt->port_info(t.self, 12, 2, &h); /* 12 + 3 passes 13 */
    cr_assert_eq(h.flags, INSEE_HOP_WRAP);
    t.vt->port_info(t.self, 9, 2, &h);
    cr_assert_eq(h.flags, 0);
    t.vt->port_info(t.self, 11, 0, &h); /* 11 + 2 passes 13 */
    cr_assert_eq(h.flags, INSEE_HOP_WRAP);
    t.vt->port_info(t.self, 1, 1, &h); /* 1 - 2 goes below 0 */
    cr_assert_eq(h.flags, INSEE_HOP_WRAP);
    t.vt->port_info(t.self, 2, 1, &h);
    cr_assert_eq(h.flags, 0);
    cr_assert_eq(t.info.diameter, 2u);
    net_close(&t);
}

Test(midimew, parameter_table)
{
    const insee_plugin_desc *d = load_plugin("topology", "midimew");
    cr_assert_str_eq(d->params[0].name, "nodes");
    cr_assert_eq(d->params[0].type, INSEE_PARAM_INT);
    cr_assert_eq(d->params[0].min, 5); /* below, jumps coincide (N = 4: b = N - b) */
    cr_assert_str_eq(d->params[1].name, "first");
    cr_assert_str_eq(d->params[1].default_value, "\"b-1\"");
    cr_assert_null(d->params[2].name);
}

/* first = "b" (INSEE's numbering): ports 0 and 1 jump by +-b, 2 and 3 by
   +-(b-1), so dimension order takes the b jumps first: from 0 to 5 in the
   13-node midimew (b = 3), 5 = 3 + 2, the first hop is +3 where the
   default's is +2. Distances, hops and Dally's deadlock freedom hold as
   with the default numbering. */
Test(midimew, b_jumps_first)
{
    net t;
    midimew_open_first(&t, 13, true);
    static const uint32_t jump[4] = {3, 13 - 3, 2, 13 - 2};
    for (uint32_t p = 0; p < 4; p++) {
        insee_port_peer to;
        cr_assert(t.vt->link(t.self, 0, p, &to));
        cr_assert_eq(to.router, jump[p]);
    }
    insee_hop h[4];
    cr_assert_geq(t.vt->minimal_hops(t.self, 0, 5, 0, h, 4), 1u);
    cr_assert_eq(h[0].port, 0, "+b first");
    net_close(&t);
    midimew_open(&t, 13);
    cr_assert_geq(t.vt->minimal_hops(t.self, 0, 5, 0, h, 4), 1u);
    cr_assert_eq(h[0].port, 0, "+(b-1) first");
    net_close(&t);
    static const uint32_t sizes[] = {5, 13, 20, 41, 64};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        midimew_open_first(&t, sizes[i], true);
        uint32_t diameter;
        check_net(&t, true, &diameter);
        cr_assert_not(dally_cdg_cyclic(&t, "basic"), "N %u basic", sizes[i]);
        net_close(&t);
    }
}

/* Dally's two jumps as dimensions, each with its dateline VCs: no channel
   dependency cycle, trc and basic. */
Test(midimew, dally_deadlock_free)
{
    static const uint32_t sizes[] = {5, 6, 8, 12, 13, 17, 20, 24, 25, 31, 40, 41, 64};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        net t;
        midimew_open(&t, sizes[i]);
        cr_assert_not(dally_cdg_cyclic(&t, "trc"), "N %u trc", sizes[i]);
        cr_assert_not(dally_cdg_cyclic(&t, "basic"), "N %u basic", sizes[i]);
        net_close(&t);
    }
}
