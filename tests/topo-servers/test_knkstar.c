/* test_knkstar.c — the knkstar plugin (GQ*) against the closed forms of the
 * stellar transformation and a BFS: n^k switches of k (n - 1) ports, as
 * many servers as switch ports, n^k k (n - 1) switch cables plus half as
 * many twin cables; diameter 3k + 2 (3k when n = 2, 4 for k = 1, n = 3);
 * dimension-order paths of 3 D + 2 hops, D the differing switch
 * coordinates, two less when the source's twin cable leads along the lowest
 * of them, two less when the last twin reached is the destination; every
 * routed path valid and at most 3k + 2 hops; bad sizes refused. */
#include "families.h"

#include <criterion/criterion.h>
#include <string.h>

static void make(fam *t, int64_t k, int64_t n)
{
    insee_value p[3] = {value_int(k), value_int(n), value_double(64)};
    fam_make(t, "knkstar", p, 1);
}

static void note(void *ctx, const uint32_t *ports, uint32_t hops, double share)
{
    (void)ports;
    (void)share;
    *(uint32_t *)ctx = hops;
}

/* A server's switch coordinates, dimension and far coordinate, from the
   README's numbering. */
typedef struct where {
    uint32_t u[8], dim, far;
} where;

static where locate(uint32_t s, uint32_t k, uint32_t n)
{
    where w;
    uint32_t sw = s / (k * (n - 1)), q = s % (k * (n - 1));
    for (uint32_t d = 0; d < k; d++, sw /= n)
        w.u[d] = sw % n;
    w.dim = q / (n - 1);
    w.far = q % (n - 1);
    w.far += w.far >= w.u[w.dim];
    return w;
}

static void check(uint32_t k, uint32_t n)
{
    fam t;
    make(&t, k, n);
    uint64_t sw = 1;
    for (uint32_t d = 0; d < k; d++)
        sw *= n;
    uint64_t radix = (uint64_t)k * (n - 1), servers = sw * radix;
    cr_assert_eq(t.info.nodes, servers);
    cr_assert_eq(t.info.routers, servers + sw);
    cr_assert_eq(t.info.max_ports, radix > 2 ? radix : 2);
    cr_assert_eq(t.info.flags, (uint32_t)INSEE_TOPO_INDIRECT);
    cr_assert_eq(fam_channels(&t), 2 * (servers + servers / 2));
    uint32_t diameter = n == 2 ? 3 * k : k == 1 && n == 3 ? 4 : 3 * k + 2;
    cr_assert_eq(t.info.diameter, diameter);
    fam_check_all(&t);
    fam_check_paths(&t, true);
    cr_assert_eq(t.vt->path_hops(t.self), 3 * k + 2);
    for (uint32_t s = 0; s < servers; s++)
        for (uint32_t x = 0; x < servers; x++) {
            if (s == x)
                continue;
            where a = locate(s, k, n), b = locate(x, k, n);
            uint32_t D = 0, low = k, last = k;
            for (uint32_t d = 0; d < k; d++)
                if (a.u[d] != b.u[d]) {
                    D++;
                    low = low < k ? low : d;
                    last = d;
                }
            uint32_t want = D ? 3 * D + 2 : 2;
            if (D && a.dim == low && a.far == b.u[low])
                want -= 2; /* src - twin instead of src - switch - server - twin */
            /* the last twin reached: on dimension `last`, toward the
               coordinate the walk left there, which is the source's
               (lower dimensions already corrected) */
            if (D && b.dim == last && b.far == a.u[last])
                want -= 2; /* ends there, not twin - switch - destination */
            uint32_t hops = 0;
            cr_assert_eq(t.vt->paths(t.self, s, x, 0, note, &hops), 1u);
            cr_assert_eq(hops, want, "k %u n %u: %u -> %u: %u hops, want %u", k, n, s, x, hops,
                         want);
        }
    fam_free(&t);
}

Test(knkstar, closed_forms)
{
    check(1, 3);
    check(1, 5);
    check(2, 2);
    check(2, 3);
    check(2, 4);
    check(3, 2);
    check(3, 3);
    check(4, 2);
}

Test(knkstar, bad_sizes)
{
    insee_error err = {0};
    insee_value p[3] = {value_int(1), value_int(2), value_double(64)};
    cr_assert_null(fam_try("knkstar", p, 1, &err));
    cr_assert(strstr(err.message, "k = 1, n = 2"), "%s", err.message);
    insee_error big = {0};
    insee_value q[3] = {value_int(8), value_int(64), value_double(64)};
    cr_assert_null(fam_try("knkstar", q, 1, &big));
    cr_assert(strstr(big.message, "knkstar:"), "%s", big.message);
}
