/* test_hcnbcn.c — the hcn and bcn plugins against Guo et al.'s closed forms
 * and a BFS: a^h (a + b) servers and a^h switches per copy, a^c b + 1
 * copies in a BCN; cables a^h (a + b) + (a^(h+1) - a) / 2 per copy plus
 * a^(h-c) U (U - 1) / 2 follower cables; the leader cable rule; diameter
 * 3 x 2^h - 1 (HCN) and 3 x 2^h + 3 x 2^c - 1 (BCN, DCell's rule), which is
 * also the longest FdimRouting / BdimRouting path; every routed path valid;
 * bad sizes refused with the parameter named. */
#include "families.h"
#include "topo_check.h"

#include <criterion/criterion.h>
#include <string.h>

static uint64_t ipow(uint64_t x, unsigned e)
{
    uint64_t p = 1;
    while (e--)
        p *= x;
    return p;
}

static void make(fam *t, const char *name, int64_t a, int64_t b, int64_t h, int64_t c, int64_t r)
{
    if (!strcmp(name, "hcn")) {
        insee_value p[4] = {value_int(a), value_int(b), value_int(h), value_double(64)};
        fam_make(t, name, p, 1);
    } else {
        insee_value p[6] = {value_int(a), value_int(b), value_int(h),
                            value_int(c), value_int(r), value_double(64)};
        fam_make(t, name, p, 1);
    }
}

typedef struct longest {
    uint32_t hops, paths;
} longest;

static void note(void *ctx, const uint32_t *ports, uint32_t hops, double share)
{
    (void)ports;
    (void)share;
    longest *l = ctx;
    l->paths++;
    l->hops = hops > l->hops ? hops : l->hops;
}

static uint32_t route_hops(const fam *t, uint32_t s, uint32_t d)
{
    longest l = {0, 0};
    cr_assert_eq(t->vt->paths(t->self, s, d, 0, note, &l), 1u);
    cr_assert_eq(l.paths, 1u);
    return l.hops;
}

/* Counts, cables, the BFS checks and the routing's longest path. */
static void check(const char *name, unsigned a, unsigned b, unsigned h, unsigned c, unsigned r)
{
    fam t;
    make(&t, name, a, b, h, c, r);
    bool bcn = c <= h;
    uint64_t copies = bcn ? ipow(a, c) * b + 1 : 1, sw = ipow(a, h) * copies;
    uint64_t servers = sw * (a + b);
    cr_assert_eq(t.info.nodes, servers);
    cr_assert_eq(t.info.routers, servers + sw);
    cr_assert_eq(t.info.max_ports, a + b > 2 ? a + b : 2);
    cr_assert_eq(t.info.flags, (uint32_t)INSEE_TOPO_INDIRECT);
    for (uint32_t x = 0; x < t.info.routers; x++)
        cr_assert_eq(t.vt->ports(t.self, x), x < servers ? 2u : a + b);
    /* One cable per server to its switch, one per leader pair (a leaders
       of each copy, x_0 = .. = x_h, have none), and in a BCN one per pair
       of copies in each of the a^(h-c) HCN(n, c) positions. */
    uint64_t cables = copies * (ipow(a, h) * (a + b) + (ipow(a, h + 1) - a) / 2);
    if (bcn)
        cables += ipow(a, h - c) * copies * (copies - 1) / 2;
    cr_assert_eq(fam_channels(&t), 2 * cables);
    uint32_t diameter = 3 * (1u << h) - 1 + (bcn ? 3 * (1u << c) : 0);
    if (r == 0)
        cr_assert_eq(t.info.diameter, diameter);
    fam_check_all(&t);
    fam_check_paths(&t, true);
    cr_assert_eq(t.vt->path_hops(t.self), diameter);
    uint32_t most = 0;
    for (uint32_t s = 0; s < t.info.routers; s++)
        for (uint32_t d = 0; d < t.info.routers; d++)
            if (s != d) {
                uint32_t hops = route_hops(&t, s, d);
                most = hops > most ? hops : most;
            }
    cr_assert_eq(most, diameter, "longest routed path %u, closed form %u", most, diameter);
    fam_free(&t);
}

Test(hcnbcn, hcn_closed_forms)
{
    check("hcn", 2, 0, 0, 1, 0);
    check("hcn", 2, 1, 3, 4, 0);
    check("hcn", 3, 2, 2, 3, 0);
    check("hcn", 4, 1, 2, 3, 0);
    check("hcn", 3, 0, 3, 4, 0);
}

Test(hcnbcn, bcn_closed_forms)
{
    check("bcn", 2, 1, 0, 0, 0);
    check("bcn", 2, 1, 2, 1, 0);
    check("bcn", 2, 2, 2, 2, 0);
    check("bcn", 3, 2, 2, 1, 0);
    check("bcn", 2, 1, 3, 1, 0);
    check("bcn", 3, 1, 1, 1, 1);
    check("bcn", 2, 3, 2, 1, 1); /* beta rule: BFS diameter 12 < 17 */
}

/* The level-(j + 1) leader cable of HCN: [.., y, x^(j+1)] <-> [.., x, y^(j+1)]
   on port 1, leader x_0 + a (x_1 + a x_2 + ..) of copy 0; within a switch
   leaders and followers take ports 0 .. a - 1 and a .. a + b - 1. */
Test(hcnbcn, leader_cables)
{
    fam t;
    make(&t, "hcn", 3, 1, 2, 3, 0);
    insee_port_peer to;
    /* digits (x0, x1, x2): (1, 0, 0) = 1 <-> (0, 1, 0) = 3 (level 1) */
    cr_assert(t.vt->link(t.self, 1, 1, &to));
    cr_assert_eq(to.router, 3u);
    cr_assert_eq(to.port, 1u);
    /* (2, 2, 0) = 8 <-> (0, 0, 2) = 18 (level 2) */
    cr_assert(t.vt->link(t.self, 8, 1, &to));
    cr_assert_eq(to.router, 18u);
    /* (1, 1, 1) = 13: all digits equal, no cable */
    cr_assert_not(t.vt->link(t.self, 13, 1, &to));
    /* follower 27 (switch 0) has no second cable in an HCN */
    cr_assert_not(t.vt->link(t.self, 27, 1, &to));
    cr_assert(t.vt->link(t.self, 27, 0, &to));
    cr_assert_eq(to.router, 36u); /* the first switch follows the 36 servers */
    cr_assert_eq(to.port, 3u);
    /* same switch: two hops; the cabled leaders: one */
    cr_assert_eq(route_hops(&t, 0, 2), 2u);
    cr_assert_eq(route_hops(&t, 1, 3), 1u);
    fam_free(&t);
}

/* DCell's rule: follower s of copy u, u <= s, joins follower u of copy s + 1. */
Test(hcnbcn, bcn_follower_cables)
{
    fam t;
    make(&t, "bcn", 2, 1, 1, 1, 0); /* 3 copies of 6 servers: 4 leaders, 2 followers */
    insee_port_peer to;
    cr_assert(t.vt->link(t.self, 4, 1, &to)); /* copy 0, s = 0 -> copy 1, s = 0 */
    cr_assert_eq(to.router, 6 + 4u);
    cr_assert(t.vt->link(t.self, 5, 1, &to)); /* copy 0, s = 1 -> copy 2, s = 0 */
    cr_assert_eq(to.router, 12 + 4u);
    cr_assert(t.vt->link(t.self, 11, 1, &to)); /* copy 1, s = 1 -> copy 2, s = 1 */
    cr_assert_eq(to.router, 12 + 5u);
    fam_free(&t);
}

Test(hcnbcn, bad_sizes)
{
    insee_error err = {0};
    insee_value bcn[6] = {value_int(2), value_int(1), value_int(1), value_int(2), value_int(0),
                          value_double(64)};
    cr_assert_null(fam_try("bcn", bcn, 1, &err));
    cr_assert(strstr(err.message, "c = 2 exceeds h = 1"), "%s", err.message);
    insee_error big = {0};
    insee_value hcn[4] = {value_int(1000), value_int(1000), value_int(4), value_double(64)};
    cr_assert_null(fam_try("hcn", hcn, 1, &big));
    cr_assert(strstr(big.message, "hcn:"), "%s", big.message);
}
