/* test_swcube.c — the swcube plugin against the closed forms of SWCube and
 * a BFS: n^k switches of k (n - 1) ports, one dual-port server per switch
 * cable of the generalised hypercube, n^k k (n - 1) / 2 of them, cabled
 * as the README numbers them; twice as many cables as servers; diameter
 * 2k + 2 (2k when n = 2, 2 for k = 1, n = 3); INRFlow's routing between
 * two servers 2 + 2 D hops, D the dimensions in which they touch no common
 * coordinate, which is also their BFS distance, and summing over server
 * pairs to what INRFlow's binary measures; the longest path of all,
 * switches included, path_hops(); bad sizes refused. */
#include "families.h"

#include <criterion/criterion.h>
#include <string.h>

static void make(fam *t, int64_t k, int64_t n)
{
    insee_value p[3] = {value_int(k), value_int(n), value_double(64)};
    fam_make(t, "swcube", p, 1);
}

static void note(void *ctx, const uint32_t *ports, uint32_t hops, double share)
{
    (void)ports;
    (void)share;
    *(uint32_t *)ctx = hops;
}

/* A server's place from the README's numbering: the coordinates of its
   port-0 switch, its dimension, the two coordinates it joins there. */
typedef struct where {
    uint32_t u[8], dim, a, b;
} where;

static where locate(uint32_t s, uint32_t k, uint32_t n)
{
    where w;
    uint32_t pairs = n * (n - 1) / 2, q = s % pairs, rest = s / pairs;
    w.dim = rest % k;
    rest /= k;
    for (uint32_t a = 0, r = 0; a < n; a++)
        for (uint32_t b = a + 1; b < n; b++, r++)
            if (r == q) {
                w.a = a;
                w.b = b;
            }
    for (uint32_t d = 0; d < k; d++)
        if (d != w.dim) {
            w.u[d] = rest % n;
            rest /= n;
        }
    w.u[w.dim] = w.a;
    return w;
}

static bool touch(where w, uint32_t d, uint32_t x)
{
    return d == w.dim ? x == w.a || x == w.b : x == w.u[d];
}

/* The dimensions in which two servers touch no common coordinate. */
static uint32_t apart(where p, where q, uint32_t k, uint32_t n)
{
    uint32_t D = 0;
    for (uint32_t d = 0; d < k; d++) {
        bool common = false;
        for (uint32_t x = 0; x < n; x++)
            common = common || (touch(p, d, x) && touch(q, d, x));
        D += !common;
    }
    return D;
}

static uint32_t switch_of(const uint32_t *u, uint32_t k, uint32_t n)
{
    uint32_t r = 0;
    for (uint32_t d = k; d-- > 0;)
        r = r * n + u[d];
    return r;
}

/* `inrflow`: the sum of the server-pair path lengths that INRFlow's binary
   reports for this size (mean.link.path.length x servers^2 of an
   all-to-all run), 0 where not measured. */
static void check(uint32_t k, uint32_t n, uint64_t inrflow)
{
    fam t;
    make(&t, k, n);
    uint64_t sw = 1;
    for (uint32_t d = 0; d < k; d++)
        sw *= n;
    uint64_t radix = (uint64_t)k * (n - 1), servers = sw * radix / 2;
    cr_assert_eq(t.info.nodes, servers);
    cr_assert_eq(t.info.routers, servers + sw);
    cr_assert_eq(t.info.max_ports, radix > 2 ? radix : 2);
    cr_assert_eq(t.info.flags, (uint32_t)INSEE_TOPO_INDIRECT);
    cr_assert_eq(fam_channels(&t), 2 * (2 * servers)); /* two cables a server */
    for (uint32_t s = 0; s < servers; s++) {
        cr_assert_eq(t.vt->ports(t.self, s), 2u);
        where w = locate(s, k, n);
        uint32_t hi[8];
        memcpy(hi, w.u, sizeof hi);
        hi[w.dim] = w.b;
        insee_port_peer p0, p1;
        cr_assert(t.vt->link(t.self, s, 0, &p0) && t.vt->link(t.self, s, 1, &p1));
        cr_assert_eq(p0.router, servers + switch_of(w.u, k, n), "server %u port 0", s);
        cr_assert_eq(p1.router, servers + switch_of(hi, k, n), "server %u port 1", s);
    }
    for (uint64_t u = servers; u < servers + sw; u++)
        cr_assert_eq(t.vt->ports(t.self, (uint32_t)u), radix);
    uint32_t diameter = n == 2 ? 2 * k : k == 1 && n == 3 ? 2 : 2 * k + 2;
    cr_assert_eq(t.info.diameter, diameter);
    fam_check_all(&t);
    fam_check_paths(&t, true);
    uint32_t path_hops = n == 2 || (k == 1 && n == 3) ? 2 * k + 2 : 2 * k + 3;
    cr_assert_eq(t.vt->path_hops(t.self), path_hops);
    uint32_t longest = 0;
    uint64_t sum = 0;
    for (uint32_t s = 0; s < t.info.routers; s++)
        for (uint32_t x = 0; x < t.info.routers; x++) {
            if (s == x)
                continue;
            uint32_t hops = 0;
            cr_assert_eq(t.vt->paths(t.self, s, x, 0, note, &hops), 1u);
            longest = hops > longest ? hops : longest;
            if (s >= servers || x >= servers)
                continue;
            sum += hops;
            uint32_t want = 2 + 2 * apart(locate(s, k, n), locate(x, k, n), k, n);
            cr_assert_eq(hops, want, "k %u n %u: %u -> %u: %u hops, want %u", k, n, s, x, hops,
                         want);
            cr_assert_eq(t.vt->distance(t.self, s, x), want);
        }
    cr_assert_eq(longest, path_hops, "k %u n %u: longest path %u", k, n, longest);
    if (inrflow)
        cr_assert_eq(sum, inrflow, "k %u n %u: server paths sum to %llu hops", k, n,
                     (unsigned long long)sum);
    fam_free(&t);
}

Test(swcube, closed_forms)
{
    check(1, 3, 0);
    check(1, 4, 72);
    check(1, 6, 0);
    check(2, 2, 0);
    check(2, 3, 0);
    check(2, 4, 8928);
    check(3, 2, 0);
    check(3, 3, 30456);
    check(4, 2, 4288);
    check(5, 2, 0);
}

/* The README's worked example, by hand: 16 switches of 6 ports, 48
   servers, 96 cables. */
Test(swcube, worked_example)
{
    fam t;
    make(&t, 2, 4);
    cr_assert_eq(t.info.nodes, 48u);
    cr_assert_eq(t.info.routers, 64u);
    cr_assert_eq(fam_channels(&t), 192u);
    cr_assert_eq(t.info.diameter, 6u);
    cr_assert_eq(t.vt->path_hops(t.self), 7u);
    fam_free(&t);
}

Test(swcube, bad_sizes)
{
    insee_error err = {0};
    insee_value p[3] = {value_int(1), value_int(2), value_double(64)};
    cr_assert_null(fam_try("swcube", p, 1, &err));
    cr_assert(strstr(err.message, "k = 1, n = 2"), "%s", err.message);
    insee_error big = {0};
    insee_value q[3] = {value_int(8), value_int(64), value_double(64)};
    cr_assert_null(fam_try("swcube", q, 1, &big));
    cr_assert(strstr(big.message, "swcube:"), "%s", big.message);
}
