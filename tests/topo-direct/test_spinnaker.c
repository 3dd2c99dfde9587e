/* test_spinnaker.c — the spinnaker plugin: the n x n triangular torus has
 * diameter floor(2n/3) and (7n^3 - 3n + e)/18 as the sum of the distances
 * from a node (e = 0, -4, 4 for n = 0, 1, 2 mod 3); odd and non-square
 * sizes against BFS; the six ports; impossible dims; Dally's deadlock
 * freedom with three dimensions (x, y, diagonal). */
#include "direct.h"

#include <criterion/criterion.h>
#include <string.h>

Test(spinnaker, square_closed_forms)
{
    for (int64_t n = 2; n <= 12; n++) {
        net t;
        spinnaker_open(&t, n, n);
        cr_assert_eq(t.info.routers, (uint32_t)(n * n));
        cr_assert_eq(t.info.max_ports, 6u); /* 6 ports, all plugged: 3 n^2 links */
        cr_assert_eq(t.info.dims, 3u);
        uint32_t diameter;
        uint64_t sum = check_net(&t, true, &diameter);
        static const int64_t e[3] = {0, -4, 4};
        cr_assert_eq(diameter, (uint32_t)(2 * n / 3), "n = %lld", (long long)n);
        cr_assert_eq(sum, (uint64_t)(n * n * (7 * n * n * n - 3 * n + e[n % 3]) / 18),
                     "n = %lld", (long long)n);
        net_close(&t);
    }
}

Test(spinnaker, against_bfs)
{
    static const int64_t sizes[][2] = {{5, 3}, {3, 5}, {2, 5}, {7, 4}, {8, 3}, {4, 9}, {2, 2}, {6, 5}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        net t;
        spinnaker_open(&t, sizes[i][0], sizes[i][1]);
        cr_assert_eq(t.warnings, 0u);
        uint32_t diameter;
        check_net(&t, true, &diameter);
        net_close(&t);
    }
}

/* Ports 0..5: +x, -x, +y, -y, +diagonal (x+1, y+1), -diagonal; coordinates
   x, y and the diagonal's position (x when w >= h, else y). */
Test(spinnaker, six_ports)
{
    net t;
    spinnaker_open(&t, 5, 3);
    static const int dx[6] = {1, -1, 0, 0, 1, -1}, dy[6] = {0, 0, 1, -1, 1, -1};
    for (uint32_t r = 0; r < 15; r++)
        for (uint32_t p = 0; p < 6; p++) {
            insee_port_peer to;
            cr_assert(t.vt->link(t.self, r, p, &to));
            uint32_t x = (r % 5 + 5 + dx[p]) % 5, y = (r / 5 + 3 + dy[p]) % 3;
            cr_assert_eq(to.router, x + 5 * y);
            int32_t c[3];
            cr_assert_eq(t.vt->coords(t.self, r, c, 3), 3u);
            cr_assert(c[0] == (int32_t)(r % 5) && c[1] == (int32_t)(r / 5) && c[2] == c[0]);
        }
    insee_hop h;
    t.vt->port_info(t.self, 4 + 5 * 1, 4, &h); /* (4,1) +diagonal crosses x = 4 -> 0 */
    cr_assert(h.flags == INSEE_HOP_WRAP && h.dim == 2 && h.dir == 1);
    t.vt->port_info(t.self, 1 + 5 * 2, 4, &h); /* (1,2) -> (2,0): y wraps, not the dateline */
    cr_assert_eq(h.flags, 0);
    net_close(&t);
    spinnaker_open(&t, 3, 5); /* taller than wide: the diagonal's position is y */
    int32_t c[3];
    t.vt->coords(t.self, 2 + 3 * 4, c, 3);
    cr_assert(c[0] == 2 && c[1] == 4 && c[2] == 4);
    net_close(&t);
}

Test(spinnaker, impossible_dims)
{
    static const int64_t one[1] = {8}, three[3] = {4, 4, 4};
    const int64_t *lists[2] = {one, three};
    size_t lens[2] = {1, 3};
    for (int i = 0; i < 2; i++) {
        net t;
        insee_value p[1] = {value_int_list(lists[i], lens[i])};
        insee_error err = {0};
        cr_assert_not(net_try(&t, "spinnaker", p, &err));
        cr_assert_eq(err.code, INSEE_ERR_PARAM);
        cr_assert_not_null(strstr(err.message, "give dims = [w, h]"), "%s", err.message);
    }
}

Test(spinnaker, dally_deadlock_free)
{
    static const int64_t sizes[][2] = {{4, 4}, {5, 3}, {3, 5}, {6, 6}, {2, 5}, {7, 4}, {8, 3}, {2, 2}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        net t;
        spinnaker_open(&t, sizes[i][0], sizes[i][1]);
        cr_assert_not(dally_cdg_cyclic(&t, "trc"), "%lldx%lld trc", (long long)sizes[i][0],
                      (long long)sizes[i][1]);
        cr_assert_not(dally_cdg_cyclic(&t, "basic"), "%lldx%lld basic", (long long)sizes[i][0],
                      (long long)sizes[i][1]);
        net_close(&t);
    }
}
