/* test_twisted_torus.c — the twisted-torus plugin against BFS and the
 * closed forms of Cámara et al. (TPDS 2010): the 2a x a rectangular twisted
 * torus (diameter a, average distance (4a^2-1)/(6a)) and the 2a x a x a
 * doubly twisted one (diameter floor(3a/2)), both better than the plain
 * torus of the same size; twist 0 is the plain torus; the wiring of Fig. 2d;
 * impossible parameters; the deadlock freedom of the Dally router on it. */
#include "direct.h"

#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

enum { ALL, ONLY_Y, ONLY_Z };

/* A twisted torus: sizes (n of them), twist, which wraps are twisted. */
typedef struct twisted_case {
    int64_t k[3];
    size_t n;
    int64_t twist;
    int which;
} twisted_case;

static void open_case(net *t, const twisted_case *c)
{
    twisted_open(t, c->k, c->n, c->twist, c->which);
}

/* Closed forms of the plain torus (as in tests/plugins/test_topology.c):
   sum over all ordered pairs, and diameter. */
static uint64_t torus_sum(const int64_t *k, size_t n)
{
    uint64_t nodes = 1;
    for (size_t d = 0; d < n; d++)
        nodes *= (uint64_t)k[d];
    /* A ring of k: k * k^2/4 over its ordered pairs when k is even, k (k^2-1)/4 odd. */
    uint64_t sum = 0;
    for (size_t d = 0; d < n; d++) {
        uint64_t kd = (uint64_t)k[d];
        uint64_t ring = kd % 2 ? kd * (kd * kd - 1) / 4 : kd * kd * kd / 4;
        sum += ring * (nodes / kd) * (nodes / kd); /* any other coordinates, both ends */
    }
    return sum;
}

static uint32_t torus_diameter(const int64_t *k, size_t n)
{
    uint32_t d = 0;
    for (size_t i = 0; i < n; i++)
        d += (uint32_t)k[i] / 2;
    return d;
}

static void check_counts(const net *t, const int64_t *k, size_t n)
{
    uint32_t nodes = 1;
    for (size_t d = 0; d < n; d++)
        nodes *= (uint32_t)k[d];
    cr_assert_eq(t->info.routers, nodes);
    cr_assert_eq(t->info.nodes, nodes);
    cr_assert_eq(t->info.max_ports, 2 * n); /* 2n ports, all plugged: n * nodes links */
    cr_assert_eq(t->info.dims, n);
}

/* 2a x a, twist a (the default twist): diameter a, average distance
   (4a^2-1)/(6a) over all ordered pairs, i.e. a sum of 2a^3(4a^2-1)/3;
   the plain 2a x a torus is worse on both for a >= 2. */
Test(twisted_torus, rectangular_2a_by_a)
{
    for (int64_t a = 2; a <= 7; a++) {
        net t;
        int64_t k[2] = {2 * a, a};
        twisted_open(&t, k, 2, -1, ALL);
        check_counts(&t, k, 2);
        cr_assert_eq(t.warnings, 0u);
        uint32_t diameter;
        uint64_t sum = check_net(&t, true, &diameter);
        cr_assert_eq(diameter, (uint32_t)a, "a = %lld", (long long)a);
        cr_assert_eq(sum, (uint64_t)(2 * a * a * a * (4 * a * a - 1) / 3), "a = %lld", (long long)a);
        cr_assert_lt(diameter, torus_diameter(k, 2));
        cr_assert_lt(sum, torus_sum(k, 2));
        net_close(&t);
    }
}

/* 2a x a x a with the wraps of y and z twisted by a: diameter floor(3a/2)
   and a sum over all ordered pairs of (7a^7 - 2a^5 - (a odd) a^3) / 2,
   i.e. an average distance of 7a/8 - (2a^2 + (a odd)) / (8a^3). */
Test(twisted_torus, prismatic_2a_by_a_by_a)
{
    for (int64_t a = 2; a <= 4; a++) {
        net t;
        int64_t k[3] = {2 * a, a, a};
        twisted_open(&t, k, 3, a, ALL);
        check_counts(&t, k, 3);
        uint32_t diameter;
        uint64_t sum = check_net(&t, true, &diameter);
        int64_t a3 = a * a * a, odd = a % 2;
        cr_assert_eq(diameter, (uint32_t)(3 * a / 2), "a = %lld", (long long)a);
        cr_assert_eq(sum, (uint64_t)((7 * a3 * a3 * a - 2 * a3 * a * a - odd * a3) / 2),
                     "a = %lld", (long long)a);
        cr_assert_lt(diameter, torus_diameter(k, 3));
        cr_assert_lt(sum, torus_sum(k, 3));
        net_close(&t);
    }
}

/* Twist 0 is the plain torus, whatever the twisted dimensions. */
Test(twisted_torus, twist_zero_is_the_torus)
{
    static const int64_t shapes[][3] = {{5, 3, 0}, {4, 4, 0}, {3, 4, 2}, {2, 3, 3}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        size_t n = shapes[i][2] ? 3 : 2;
        net t;
        twisted_open(&t, shapes[i], n, 0, ALL);
        uint32_t diameter;
        uint64_t sum = check_net(&t, true, &diameter);
        cr_assert_eq(diameter, torus_diameter(shapes[i], n));
        cr_assert_eq(sum, torus_sum(shapes[i], n));
        net_close(&t);
    }
}

/* Odd, non-square, small and one-dimension-twisted networks against BFS. */
Test(twisted_torus, against_bfs)
{
    static const twisted_case cases[] = {
        {{5, 3}, 2, 2, ALL},    {{5, 4}, 2, 1, ALL},    {{3, 3}, 2, 1, ALL},
        {{7, 5}, 2, 3, ALL},    {{2, 2}, 2, 1, ALL},    {{4, 4}, 2, 3, ALL},
        {{9, 3}, 2, -1, ALL},   {{3, 3, 3}, 3, 1, ALL}, {{4, 3, 2}, 3, 1, ONLY_Z},
        {{4, 3, 2}, 3, 3, ONLY_Y}, {{5, 3, 3}, 3, 2, ALL}, {{6, 4, 3}, 3, -1, ONLY_Y},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        net t;
        open_case(&t, &cases[i]);
        check_counts(&t, cases[i].k, cases[i].n);
        cr_assert_eq(t.warnings, 0u, "case %zu", i);
        uint32_t diameter;
        check_net(&t, true, &diameter);
        net_close(&t);
    }
}

/* Fig. 2d: the 4x4 twisted torus with a twist of 2 from y over x. Node
   x + 4y; port 2 = +y, 3 = -y, 0 = +x. */
Test(twisted_torus, figure_2d_wiring)
{
    net t;
    twisted_open(&t, DIMS(4, 4), 2, ALL);
    insee_port_peer to;
    for (uint32_t x = 0; x < 4; x++) {
        cr_assert(t.vt->link(t.self, x + 4 * 3, 2, &to)); /* (x, 3) +y -> (x+2, 0) */
        cr_assert_eq(to.router, (x + 2) % 4);
        cr_assert_eq(to.port, 3u);
        cr_assert(t.vt->link(t.self, x, 3, &to)); /* (x, 0) -y -> (x-2, 3) */
        cr_assert_eq(to.router, (x + 2) % 4 + 4 * 3);
        cr_assert(t.vt->link(t.self, x + 4, 2, &to)); /* inside: (x, 1) -> (x, 2) */
        cr_assert_eq(to.router, x + 8);
    }
    cr_assert(t.vt->link(t.self, 3 + 4, 0, &to)); /* x wraps untwisted: (3,1) -> (0,1) */
    cr_assert_eq(to.router, 4u);
    insee_hop h;
    t.vt->port_info(t.self, 1 + 4 * 3, 2, &h);
    cr_assert_eq(h.flags, INSEE_HOP_WRAP);
    t.vt->port_info(t.self, 1 + 4 * 2, 2, &h);
    cr_assert_eq(h.flags, 0);
    int32_t c[3];
    cr_assert_eq(t.vt->coords(t.self, 2 + 4 * 3, c, 3), 2u);
    cr_assert(c[0] == 2 && c[1] == 3);
    cr_assert_eq(t.info.diameter, 3u); /* the 4x4 torus has 4 */
    net_close(&t);
}

/* The symmetric 2a x a: from (0,0) to (a,0) the four directions tie, and
   with order = "farther" the salt's bit 0 picks + or - along x first. */
Test(twisted_torus, ties_follow_the_salt)
{
    net t;
    insee_value p[4];
    twisted_params(DIMS(8, 4), -1, ALL, p)[3] = value_enum(1, "farther");
    net_open(&t, "twisted-torus", p);
    insee_hop out[4];
    cr_assert_eq(t.vt->minimal_hops(t.self, 0, 4, 0, out, 4), 4u);
    cr_assert(out[0].port == 0 && out[0].dim_hops == 4 && (out[0].flags & INSEE_HOP_TIE));
    cr_assert_eq(t.vt->minimal_hops(t.self, 0, 4, 1, out, 4), 4u);
    cr_assert(out[0].port == 1 && out[0].dim_hops == 4);
    cr_assert(out[0].flags & INSEE_HOP_WRAP); /* (0,0) -x is the x wrap link */
    cr_assert_eq(t.vt->minimal_hops(t.self, 0, 4, 1, out, 2), 2u);
    net_close(&t);
}

/* order = "draw" (the default, INSEE's): from (0,0) to (a,0) the packet
   goes +x, -x or straight along y (either way) as its salt prefers, a third
   each, as INSEE draws its routing record among the equally short ones.
   Whatever the salt, following the first hop router by router is a
   shortest dimension-ordered path: check_net's walks (every source,
   destination and salt 0..63 here) say so. */
Test(twisted_torus, draw_spreads_over_every_shortest_way)
{
    net t;
    twisted_open(&t, DIMS(8, 4), -1, ALL);
    insee_hop out[4];
    uint32_t seen[4] = {0};
    const uint32_t salts = 6000;
    for (uint32_t salt = 0; salt < salts; salt++) {
        cr_assert_eq(t.vt->minimal_hops(t.self, 0, 4, salt, out, 4), 4u);
        seen[out[0].port]++;
    }
    for (uint32_t port = 0; port < 4; port++) {
        double want = port < 2 ? 1.0 / 3 : 1.0 / 6;
        cr_assert(fabs((double)seen[port] / salts - want) < 0.02, "port %u taken %u times of %u",
                  port, seen[port], salts);
    }
    net_close(&t);
}

static void expect_refused(const int64_t *dims, size_t n, int64_t twist, int which,
                           const char *says)
{
    net t;
    insee_value p[4];
    insee_error err = {0};
    cr_assert_not(net_try(&t, "twisted-torus", twisted_params(dims, n, twist, which, p), &err));
    cr_assert_eq(err.code, INSEE_ERR_PARAM);
    cr_assert_not_null(strstr(err.message, says), "%s", err.message);
}

Test(twisted_torus, impossible_parameters)
{
    expect_refused(DIMS(8), -1, ALL, "give 2 or 3");
    expect_refused(DIMS(4, 4, 4, 4), -1, ALL, "give 2 or 3");
    expect_refused(DIMS(8, 4), 8, ALL, "use 0 <= twist < 8");
    expect_refused(DIMS(8, 4), -1, ONLY_Z, "twisted = \"y\"");
    expect_refused(DIMS(65535, 65535, 3), 0, ALL, "the kernel numbers fewer than 1073741824 queues");
    /* 2^30 / 5 routers in 2D (4 ports and a node each) is the kernel's limit. */
    expect_refused(DIMS(14654, 14655), 0, ALL, "214754370 nodes");
}

/* Dally's dimension order with its two dateline VCs has no channel
   dependency cycle, trc and basic, on 2D and 3D twisted tori. */
Test(twisted_torus, dally_deadlock_free)
{
    static const twisted_case cases[] = {
        {{4, 2}, 2, -1, ALL},     {{6, 3}, 2, -1, ALL},   {{8, 4}, 2, -1, ALL},
        {{5, 3}, 2, 2, ALL},      {{4, 4}, 2, 2, ALL},    {{7, 5}, 2, 3, ALL},
        {{4, 2, 2}, 3, -1, ALL},  {{6, 3, 3}, 3, -1, ALL}, {{4, 3, 2}, 3, 1, ONLY_Z},
        {{5, 3, 3}, 3, 2, ONLY_Y},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        net t;
        open_case(&t, &cases[i]);
        cr_assert_not(dally_cdg_cyclic(&t, "trc"), "case %zu trc", i);
        cr_assert_not(dally_cdg_cyclic(&t, "basic"), "case %zu basic", i);
        net_close(&t);
    }
}

/* When y is shorter than half of x, some shortest paths wrap y twice: the
   plugin warns, and indeed Dally's channel dependencies then have a cycle
   (which also shows the cycle check can fail). */
Test(twisted_torus, long_x_short_y_warns)
{
    net t;
    twisted_open(&t, DIMS(16, 2), 4, ALL);
    cr_assert_eq(t.warnings, 1u);
    uint32_t diameter;
    check_net(&t, false, &diameter);
    cr_assert(dally_cdg_cyclic(&t, "basic"));
    net_close(&t);
}
