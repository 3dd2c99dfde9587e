/* test_dpillar.c — the dpillar plugin against the closed forms of Liao et
 * al. (INFOCOM 2010) and a BFS: k (n/2)^k dual-port servers, k (n/2)^(k-1)
 * switches with n ports, 2 k (n/2)^k cables; the diameter between servers
 * 2 max(k, floor(3k/2) - 2); the helix-and-ring paths of 2t hops, t the
 * first count of column steps that covers every differing digit and ends
 * in the destination's column, in each direction; both directions split
 * evenly or picked by the salt; path_hops 2 (2k - 1) reached; bad sizes
 * refused. */
#include "families.h"

#include <criterion/criterion.h>
#include <string.h>

static const char *routings[] = {"single", "both"}, *splits[] = {"even", "hash"};

/* The parameters in table order: n, k, routing, split, table_mb. */
#define DPILLAR_PARAMS(n, k, routing, split)                                               \
    (insee_value[5])                                                                       \
    {                                                                                      \
        value_int(n), value_int(k), value_enum(routing, routings[routing]),                \
            value_enum(split, splits[split]), value_double(64)                             \
    }

static void *try_dpillar(int64_t n, int64_t k, insee_error *err)
{
    return fam_try("dpillar", DPILLAR_PARAMS(n, k, 0, 0), 1, err);
}

static void make_dpillar(fam *t, int64_t n, int64_t k, int routing, int split)
{
    fam_make(t, "dpillar", DPILLAR_PARAMS(n, k, routing, split), 1);
}

static uint32_t ipow(uint32_t b, uint32_t e)
{
    uint32_t p = 1;
    while (e--)
        p *= b;
    return p;
}

static void check_counts(uint32_t n, uint32_t k)
{
    fam t;
    make_dpillar(&t, n, k, 0, 0);
    uint32_t h = n / 2, S = k * ipow(h, k), W = k * ipow(h, k - 1);
    cr_assert_eq(t.info.nodes, S);
    cr_assert_eq(t.info.routers, S + W);
    cr_assert_eq(t.info.flags, INSEE_TOPO_INDIRECT);
    cr_assert_eq(t.info.max_ports, n);
    for (uint32_t r = 0; r < t.info.routers; r++)
        cr_assert_eq(t.vt->ports(t.self, r), r < S ? 2u : n, "router %u", r);
    /* 2 k (n/2)^k cables, as many as the switches' ports: n W = 2 S. */
    cr_assert_eq(fam_channels(&t), 4ull * S);
    /* The BFS from every router agrees with distance() and minimal_hops();
       the diameter between servers, in router hops: */
    uint32_t hops = k > 3 * k / 2 - 2 ? k : 3 * k / 2 - 2;
    cr_assert_eq(t.info.diameter, 2 * hops, "n %u k %u", n, k);
    fam_check_all(&t);
    fam_free(&t);
}

Test(dpillar, counts_and_distances)
{
    check_counts(4, 2);
    check_counts(4, 3);
    check_counts(6, 2);
    check_counts(6, 3);
    check_counts(8, 2);
    check_counts(4, 4);
    check_counts(4, 6);
}

/* Column steps of the helix-and-ring path from server a to server b (the
   README's numbering: column a / h^k, row digits base h), going clockwise
   (dir +1: the step from column c fixes digit c) or counter-clockwise
   (dir -1: it fixes digit c - 1): the digits reached in order until every
   differing one is fixed, then on to b's column. */
static uint32_t steps(uint32_t h, uint32_t k, uint32_t a, uint32_t b, int dir)
{
    uint32_t rows = ipow(h, k), ca = a / rows, cb = b / rows, need = 0;
    for (uint32_t i = 0; i < k; i++) {
        if (a % rows / ipow(h, i) % h == b % rows / ipow(h, i) % h)
            continue;
        uint32_t pos = dir > 0 ? (i + k - ca) % k : (ca + 2 * k - 1 - i) % k;
        need = pos + 1 > need ? pos + 1 : need;
    }
    uint32_t turn = dir > 0 ? (cb + k - ca) % k : (ca + k - cb) % k;
    return need + (turn + k - need % k) % k;
}

static void check_routing(uint32_t n, uint32_t k)
{
    fam single, even, hash;
    make_dpillar(&single, n, k, 0, 0);
    make_dpillar(&even, n, k, 1, 0);
    make_dpillar(&hash, n, k, 1, 1);
    uint32_t h = n / 2, S = k * ipow(h, k), longest = 0;
    cr_assert_eq(single.vt->path_hops(single.self), 2 * (2 * k - 1));
    cr_assert_eq(even.vt->path_hops(even.self), 2 * (2 * k - 1));
    fam_check_paths(&single, true);
    fam_check_paths(&even, true);
    fam_check_paths(&hash, true);
    for (uint32_t a = 0; a < S; a++)
        for (uint32_t b = 0; b < S; b++) {
            if (a == b)
                continue;
            fam_paths one = {0}, two = {0};
            cr_assert_eq(single.vt->paths(single.self, a, b, 7, fam_keep_path, &one), 1u);
            cr_assert_eq(even.vt->paths(even.self, a, b, 7, fam_keep_path, &two), 2u);
            /* Clockwise then counter-clockwise: at every server the port
               of the direction, 2t hops. */
            for (uint32_t p = 0; p < 2; p++) {
                int dir = p == 0 ? 1 : -1;
                cr_assert_eq(two.hops[p], 2 * steps(h, k, a, b, dir), "%u -> %u dir %d", a, b,
                             dir);
                cr_assert_float_eq(two.share[p], 0.5, 1e-12);
                for (uint32_t i = 0; i < two.hops[p]; i += 2)
                    cr_assert_eq(two.ports[p][i], p, "%u -> %u dir %d hop %u", a, b, dir, i);
                longest = two.hops[p] > longest ? two.hops[p] : longest;
            }
            cr_assert_eq(one.hops[0], two.hops[0]);
            cr_assert_eq(memcmp(one.ports[0], two.ports[0], one.hops[0] * sizeof(uint32_t)), 0);
            /* split = hash: salt bit 0 picks the direction, whole. */
            for (uint32_t salt = 0; salt < 2; salt++) {
                fam_paths picked = {0};
                cr_assert_eq(hash.vt->paths(hash.self, a, b, salt, fam_keep_path, &picked), 1u);
                cr_assert_float_eq(picked.share[0], 1.0, 1e-12);
                cr_assert_eq(picked.hops[0], two.hops[salt]);
                cr_assert_eq(memcmp(picked.ports[0], two.ports[salt],
                                    picked.hops[0] * sizeof(uint32_t)),
                             0);
            }
        }
    /* path_hops is reached: a digit fixed by the last helix step, and the
       destination one column short of the start. */
    cr_assert_eq(longest, 2 * (2 * k - 1), "n %u k %u", n, k);
    fam_free(&single);
    fam_free(&even);
    fam_free(&hash);
}

Test(dpillar, helix_and_ring)
{
    check_routing(4, 2);
    check_routing(4, 3);
    check_routing(6, 2);
    check_routing(6, 3);
    check_routing(4, 4);
}

Test(dpillar, refuses_bad_sizes)
{
    insee_error err;
    cr_assert_null(try_dpillar(5, 3, &err));
    cr_assert(strstr(err.message, "n = 5 is odd") && strstr(err.message, "even n"), "%s",
              err.message);
    cr_assert_null(try_dpillar(64, 8, &err));
    cr_assert(strstr(err.message, "dpillar") && strstr(err.message, "smaller n or k"), "%s",
              err.message);
    /* 13 x 4^13 servers and 13 x 4^12 switches fit 32 bits, but their
       4 x 13 x 4^13 ports are over the kernel's queue limit. */
    cr_assert_null(try_dpillar(8, 13, &err));
    cr_assert(strstr(err.message, "ports + nodes") && strstr(err.message, "smaller n or k"),
              "%s", err.message);
}
