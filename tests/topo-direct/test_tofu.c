/* test_tofu.c — the tofu plugin (Tofu's 6-D mesh/torus) against BFS over its
 * own links and against closed forms: 10 links per router (the X, Y, Z and
 * b rings two each, the a and c meshes of 2 one each), the sum of the
 * distances over all pairs, the diameter; Dally's routes free of deadlock;
 * a wrong number of sizes refused. */
#include "direct.h"

#include <criterion/criterion.h>
#include <string.h>

static void tofu_open(net *t, const int64_t *xyz, size_t n)
{
    insee_value dims = {.type = INSEE_PARAM_INT_LIST, .list = xyz, .list_len = n};
    net_open(t, "tofu", &dims);
}

/* A ring of k, both ways (torus) or along a row (mesh): the sum of the
   distances over its k^2 ordered pairs. */
static uint64_t ring_sum(uint64_t k, bool mesh)
{
    if (mesh)
        return (k - 1) * k * (k + 1) / 3;
    return k % 2 ? k * (k * k - 1) / 4 : k * k * k / 4;
}

Test(tofu, six_dimensions_match_bfs_and_the_closed_forms)
{
    static const int64_t sizes[][3] = {{2, 2, 2}, {3, 2, 4}, {4, 4, 3}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        net t;
        tofu_open(&t, sizes[i], 3);
        const uint64_t k[6] = {(uint64_t)sizes[i][0], (uint64_t)sizes[i][1],
                               (uint64_t)sizes[i][2], 2, 3, 2};
        const bool mesh[6] = {false, false, false, true, false, true};
        uint64_t nodes = 1, sum = 0;
        uint32_t diameter = 0;
        for (int d = 0; d < 6; d++)
            nodes *= k[d];
        for (int d = 0; d < 6; d++) {
            sum += ring_sum(k[d], mesh[d]) * (nodes / k[d]) * (nodes / k[d]);
            diameter += (uint32_t)(mesh[d] ? k[d] - 1 : k[d] / 2);
        }
        cr_assert_eq(t.info.routers, nodes);
        cr_assert_eq(t.info.dims, 6);
        cr_assert_eq(t.info.diameter, diameter);
        for (uint32_t r = 0; r < t.info.routers; r++) {
            uint32_t plugged = 0;
            for (uint32_t p = 0; p < t.vt->ports(t.self, r); p++) {
                insee_port_peer peer;
                plugged += t.vt->link(t.self, r, p, &peer);
            }
            cr_assert_eq(plugged, 10, "router %u has %u links", r, plugged);
        }
        uint32_t bfs_diameter = 0;
        cr_assert_eq(check_net(&t, true, &bfs_diameter), sum, "distance sum, %zu", i);
        cr_assert_eq(bfs_diameter, diameter);
        net_close(&t);
    }
}

Test(tofu, dally_routes_are_deadlock_free)
{
    net t;
    tofu_open(&t, DIMS(3, 2, 4));
    cr_assert(!dally_cdg_cyclic(&t, "trc"));
    cr_assert(!dally_cdg_cyclic(&t, "basic"));
    net_close(&t);
}

Test(tofu, three_sizes_or_a_clear_error)
{
    net t;
    insee_error err = {0};
    insee_value dims = {.type = INSEE_PARAM_INT_LIST, .list = (const int64_t[]){4, 4},
                        .list_len = 2};
    cr_assert(!net_try(&t, "tofu", &dims, &err));
    cr_assert(strstr(err.message, "X, Y and Z"), "%s", err.message);
}
