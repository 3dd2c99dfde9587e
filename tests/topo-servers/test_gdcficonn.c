/* test_gdcficonn.c — the dcell, ficonn and gdcficonn plugins against the
 * papers' closed forms and a BFS: servers t_k (DCell t_k = t_(k-1)
 * (t_(k-1) + 1), FiConn t_k = t_(k-1) (t_(k-1) / 2^k + 1)), t_k / n
 * switches, cables (DCell one per server and level plus the switch links,
 * FiConn the switch links plus half the used backup ports), ports per
 * router, the diameter of the small cells (2 at k = 0, 5 at k = 1), every
 * router's paths valid, the longest dimensional route 3 2^k - 1 hops, the
 * level-1 routes through the paper's bridge [i, j - 1] <-> [j, i], proxy
 * routes never longer than dimensional ones, DCell and FiConn the same
 * networks as gdcficonn with their rule, and bad parameters refused. */
#include "families.h"

#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

enum { ALPHA, BETA, FICONN };
enum { DIMENSIONAL, PROXY };

static const char *const rules[] = {"alpha", "beta", "ficonn"};

static void make_plugin(fam *t, const char *name, int64_t n, int64_t k)
{
    insee_value params[2] = {value_int(n), value_int(k)};
    fam_make(t, name, params, 1);
}

static void *try_gdc(int64_t n, int64_t k, int rule, int routing, int64_t tightness,
                     const int64_t *levels, size_t len, insee_error *err)
{
    insee_value params[6] = {value_int(n),
                             value_int(k),
                             value_enum(rule, rules[rule]),
                             value_enum(routing, routing ? "proxy" : "dimensional"),
                             value_int(tightness),
                             value_int_list(levels, len)};
    return fam_try("gdcficonn", params, 1, err);
}

static void make_gdc(fam *t, int64_t n, int64_t k, int rule, int routing)
{
    insee_error err;
    *t = (fam){.vt = load_plugin("topology", "gdcficonn")->vtable};
    t->self = try_gdc(n, k, rule, routing, 0, NULL, 0, &err);
    cr_assert_not_null(t->self, "gdcficonn create: %s", err.message);
    t->vt->info(t->self, &t->info);
}

/* Servers of a level-k cell, from the papers' recurrences. */
static uint64_t servers_of(int64_t n, int64_t k, bool ficonn)
{
    uint64_t t = (uint64_t)n;
    for (int64_t l = 1; l <= k; l++)
        t *= (ficonn ? t >> l : t) + 1;
    return t;
}

/* One path's length, kept by the callback of paths(). */
static void keep_hops(void *ctx, const uint32_t *ports, uint32_t hops, double share)
{
    (void)ports;
    (void)share;
    *(uint32_t *)ctx = hops;
}

static uint32_t hops_of(const fam *t, uint32_t src, uint32_t dst)
{
    uint32_t hops = 0;
    cr_assert_eq(t->vt->paths(t->self, src, dst, 0, keep_hops, &hops), 1u);
    return hops;
}

/* Counts, diameter bounds and paths of a DCell or FiConn of size (n, k). */
static void check_family(const fam *t, int64_t n, int64_t k, bool ficonn)
{
    uint64_t S = servers_of(n, k, ficonn), W = S / (uint64_t)n;
    cr_assert_eq(t->info.nodes, S);
    cr_assert_eq(t->info.routers, S + W);
    cr_assert_eq(t->info.flags, (uint32_t)INSEE_TOPO_INDIRECT);
    uint32_t server_ports = ficonn ? 2 : (uint32_t)k + 1;
    for (uint32_t r = 0; r < t->info.routers; r++)
        cr_assert_eq(t->vt->ports(t->self, r), r < S ? server_ports : (uint32_t)n);
    /* Switch links, and a bridge per two used bridge ports: every server's
       k ports in DCell; in FiConn all backup ports but the t_k / 2^k left
       free at the top. */
    uint64_t bridge_ends = ficonn ? S - (S >> k) : S * (uint64_t)k;
    cr_assert_eq(fam_channels(t), 2 * (S + bridge_ends / 2));
    if (ficonn) /* the paper's N >= 2^(k+2) (n/4)^(2^k) */
        cr_assert_geq((double)S, (double)(4u << k) * pow((double)n / 4, (double)(1u << k)));
    uint64_t sum = fam_check_all(t);
    cr_assert_gt(sum, 0u);
    uint32_t bound = 3 * (1u << k) - 1;
    cr_assert_eq(t->vt->path_hops(t->self), bound);
    cr_assert_leq(t->info.diameter, bound);
    if (k == 0)
        cr_assert_eq(t->info.diameter, 2u);
    if (k == 1 && n >= 3)
        cr_assert_eq(t->info.diameter, 5u);
    fam_check_paths(t, true);
}

/* The longest route between servers: 3 2^k - 1 hops, reached. */
static void check_longest(const fam *t)
{
    uint32_t most = 0;
    for (uint32_t s = 0; s < t->info.nodes; s++)
        for (uint32_t d = 0; d < t->info.nodes; d++)
            if (s != d) {
                uint32_t h = hops_of(t, s, d);
                most = h > most ? h : most;
            }
    cr_assert_eq(most, t->vt->path_hops(t->self));
}

/* Level 1: servers [a, x] = a t_0 + x; the bridge of cells a < b joins
   [a, e(b - 1)] and [b, e(a)], e(j) = j for DCell, 2 j for FiConn (its
   even servers carry level 1). A route is the switch hop at either end
   unless the server is the bridge's, and the bridge. */
static void check_level1(const fam *t, uint32_t n, bool ficonn)
{
    uint32_t mul = ficonn ? 2 : 1;
    for (uint32_t s = 0; s < t->info.nodes; s++)
        for (uint32_t d = 0; d < t->info.nodes; d++) {
            if (s == d)
                continue;
            uint32_t a = s / n, b = d / n, want = 2;
            if (a != b) {
                uint32_t lo = a < b ? a : b, hi = a < b ? b : a;
                uint32_t at_lo = lo * n + (hi - 1) * mul, at_hi = hi * n + lo * mul;
                uint32_t out = a < b ? at_lo : at_hi, in = a < b ? at_hi : at_lo;
                want = 2 * (s != out) + 1 + 2 * (d != in);
            }
            cr_assert_eq(hops_of(t, s, d), want, "%u -> %u", s, d);
        }
}

Test(gdcficonn, dcell_sizes)
{
    for (int64_t n = 2; n <= 4; n++)
        for (int64_t k = 0; k <= 2; k++) {
            fam t;
            make_plugin(&t, "dcell", n, k);
            check_family(&t, n, k, false);
            check_longest(&t);
            if (k == 1)
                check_level1(&t, (uint32_t)n, false);
            fam_free(&t);
        }
}

Test(gdcficonn, dcell_n2_k1_diameter_4)
{
    /* Three cells of two servers: [0,0] reaches [2,1] in 4 hops through
       cell 1 ([0,0]-[1,0], switch, [1,1]-[2,1]), shorter than the bridge
       route of 5. */
    fam t;
    make_plugin(&t, "dcell", 2, 1);
    cr_assert_eq(t.info.diameter, 4u);
    cr_assert_eq(t.vt->distance(t.self, 0, 5), 4u);
    cr_assert_eq(hops_of(&t, 0, 5), 5u);
    fam_free(&t);
}

Test(gdcficonn, ficonn_sizes)
{
    static const int64_t ns[] = {4, 6};
    for (size_t i = 0; i < 2; i++)
        for (int64_t k = 0; k <= 2; k++) {
            fam t;
            make_plugin(&t, "ficonn", ns[i], k);
            check_family(&t, ns[i], k, true);
            check_longest(&t);
            if (k == 1)
                check_level1(&t, (uint32_t)ns[i], true);
            fam_free(&t);
        }
}

Test(gdcficonn, ficonn_backup_ports)
{
    /* FiConn_2, n = 4: 48 servers; level 1 uses the even ones (24), level 2
       those ending in binary 01 (12), the other 12 keep a free backup. */
    fam t;
    make_plugin(&t, "ficonn", 4, 2);
    uint32_t used = 0;
    for (uint32_t s = 0; s < t.info.nodes; s++) {
        insee_port_peer peer;
        bool plugged = t.vt->link(t.self, s, 1, &peer);
        cr_assert_eq(plugged, s % 4 != 3, "server %u", s);
        used += plugged;
    }
    cr_assert_eq(used, 36u);
    fam_free(&t);
}

/* gdcficonn with a plugin's rule: the same links and paths. */
static void check_same(const char *name, int64_t n, int64_t k, int rule)
{
    fam a, b;
    make_plugin(&a, name, n, k);
    make_gdc(&b, n, k, rule, DIMENSIONAL);
    cr_assert(memcmp(&a.info, &b.info, sizeof a.info) == 0);
    for (uint32_t r = 0; r < a.info.routers; r++)
        for (uint32_t p = 0; p < a.vt->ports(a.self, r); p++) {
            insee_port_peer x, y;
            bool px = a.vt->link(a.self, r, p, &x), py = b.vt->link(b.self, r, p, &y);
            cr_assert(px == py && (!px || (x.router == y.router && x.port == y.port)));
        }
    for (uint32_t s = 0; s < a.info.routers; s++)
        for (uint32_t d = 0; d < a.info.routers; d++)
            if (s != d)
                cr_assert_eq(hops_of(&a, s, d), hops_of(&b, s, d));
    fam_free(&a);
    fam_free(&b);
}

Test(gdcficonn, special_cases)
{
    check_same("dcell", 3, 2, ALPHA);
    check_same("ficonn", 4, 2, FICONN);
}

Test(gdcficonn, beta_rule)
{
    /* Kliegl et al.'s beta: the same counts as DCell, other bridges. */
    for (int64_t n = 2; n <= 3; n++)
        for (int64_t k = 1; k <= 2; k++) {
            fam t;
            make_gdc(&t, n, k, BETA, DIMENSIONAL);
            check_family(&t, n, k, false);
            check_longest(&t);
            fam_free(&t);
        }
}

/* Proxy routes are valid and never longer than the dimensional ones;
   returns the two sums over server pairs. */
static void compare_proxy(int64_t n, int64_t k, int rule, uint64_t *dim_sum, uint64_t *proxy_sum)
{
    fam d, p;
    make_gdc(&d, n, k, rule, DIMENSIONAL);
    make_gdc(&p, n, k, rule, PROXY);
    fam_check_paths(&p, true);
    *dim_sum = *proxy_sum = 0;
    for (uint32_t s = 0; s < d.info.nodes; s++)
        for (uint32_t x = 0; x < d.info.nodes; x++) {
            if (s == x)
                continue;
            uint32_t hd = hops_of(&d, s, x), hp = hops_of(&p, s, x);
            cr_assert_leq(hp, hd, "%u -> %u: proxy %u hops, dimensional %u", s, x, hp, hd);
            cr_assert_geq(hp, d.vt->distance(d.self, s, x));
            *dim_sum += hd;
            *proxy_sum += hp;
        }
    fam_free(&d);
    fam_free(&p);
}

Test(gdcficonn, proxy_routing)
{
    uint64_t dim, proxy;
    for (int rule = ALPHA; rule <= FICONN; rule++) {
        compare_proxy(rule == FICONN ? 4 : 3, 2, rule, &dim, &proxy);
        cr_assert_lt(proxy, dim, "rule %s: proxies shorten no route", rules[rule]);
    }
}

/* One path folded into a word, kept by the callback of paths(). */
static void keep_print(void *ctx, const uint32_t *ports, uint32_t hops, double share)
{
    (void)share;
    uint64_t *print = ctx;
    *print = hops;
    for (uint32_t i = 0; i < hops; i++)
        *print = *print * 1000003u + ports[i] + 1;
}

/* Server pairs whose route changes with the salt (16 salts), asserting
   that its length never does. */
static uint32_t salt_varied(int64_t n, int64_t k)
{
    fam t;
    make_gdc(&t, n, k, ALPHA, PROXY);
    uint32_t varied = 0;
    for (uint32_t s = 0; s < t.info.nodes; s++)
        for (uint32_t d = 0; d < t.info.nodes; d++) {
            if (s == d)
                continue;
            uint64_t first = 0;
            cr_assert_eq(t.vt->paths(t.self, s, d, 0, keep_print, &first), 1u);
            uint32_t length = hops_of(&t, s, d);
            bool other = false;
            for (uint32_t salt = 1; salt < 16; salt++) {
                uint64_t print = 0;
                uint32_t hops = 0;
                t.vt->paths(t.self, s, d, salt, keep_print, &print);
                t.vt->paths(t.self, s, d, salt, keep_hops, &hops);
                cr_assert_eq(hops, length, "%u -> %u, salt %u", s, d, salt);
                other |= print != first;
            }
            varied += other;
        }
    fam_free(&t);
    return varied;
}

Test(gdcficonn, proxy_salt_ties)
{
    /* In DCell_1 a proxy route is even (its middle cell is always crossed
       through the switch: 2 hops) and the dimensional one odd, and a
       source or destination names at most one 4-hop proxy, so nothing
       ties; in DCell_2, n = 2, routes of equal length do, and the salt
       picks among them. */
    cr_assert_eq(salt_varied(3, 1), 0u);
    cr_assert_gt(salt_varied(2, 2), 0u, "no salt ever picks another of equal routes");
}

Test(gdcficonn, refusals)
{
    insee_error err;
    insee_value odd[2] = {value_int(5), value_int(1)};
    cr_assert_null(fam_try("ficonn", odd, 1, &err));
    cr_assert(strstr(err.message, "n = 5 is odd"), "%s", err.message);
    insee_value big[2] = {value_int(100), value_int(3)};
    cr_assert_null(fam_try("dcell", big, 1, &err));
    cr_assert(strstr(err.message, "use a smaller n or k"), "%s", err.message);
    cr_assert_null(try_gdc(3, 2, ALPHA, PROXY, 2, NULL, 0, &err));
    cr_assert(strstr(err.message, "tightness = 2"), "%s", err.message);
    static const int64_t three[] = {3};
    cr_assert_null(try_gdc(3, 2, ALPHA, PROXY, 0, three, 1, &err));
    cr_assert(strstr(err.message, "proxy_levels"), "%s", err.message);
    /* Dimensional routing ignores the proxy settings. */
    void *ok = try_gdc(3, 2, ALPHA, DIMENSIONAL, 5, three, 1, &err);
    cr_assert_not_null(ok, "%s", err.message);
    const insee_topology_vtable *vt = load_plugin("topology", "gdcficonn")->vtable;
    vt->destroy(ok);
}
