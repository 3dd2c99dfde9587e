/* test_hyperx.c — the hyperx and hypercube plugins against closed forms and
 * a BFS: router, node, port and link counts (prod S * sum (S_i - 1) / 2 * K
 * links), distance = differing coordinates, diameter = dimensions, average
 * distance sum (S_i - 1) / S_i, every parallel link listed with the salt's
 * pick first and the rest in cyclic order (README port numbering),
 * port_info() agreeing, hypercube(n) identical to hyperx([2] * n) with its
 * hops on the set bits of r ^ y lowest first, and sizes that do not fit
 * refused. */
#include "families.h"
#include "topo_check.h"

#include <criterion/criterion.h>
#include <string.h>

#define DIMS(...) (const int64_t[]){__VA_ARGS__}, sizeof((const int64_t[]){__VA_ARGS__}) / sizeof(int64_t)

static void *try_hx(const int64_t *dims, size_t n, int64_t trunk, int64_t p, insee_error *err)
{
    insee_value params[3] = {value_int_list(dims, n), value_int(trunk), value_int(p)};
    return fam_try("hyperx", params, 1, err);
}

static void make_hx(fam *t, const int64_t *dims, size_t n, int64_t trunk, int64_t p)
{
    insee_value params[3] = {value_int_list(dims, n), value_int(trunk), value_int(p)};
    fam_make(t, "hyperx", params, 1);
}

static void make_hc(fam *t, int64_t n)
{
    insee_value params[1] = {value_int(n)};
    fam_make(t, "hypercube", params, 1);
}

/* Coordinate d of router r, independently of the plugin. */
static uint32_t coord_of(const int64_t *dims, size_t d, uint32_t r)
{
    for (size_t e = 0; e < d; e++)
        r /= (uint32_t)dims[e];
    return r % (uint32_t)dims[d];
}

static void check_hyperx(const int64_t *dims, size_t n, uint32_t K, uint32_t p)
{
    fam t;
    make_hx(&t, dims, n, K, p);
    uint64_t N = 1, ports = 0, pair_sum = 0;
    for (size_t d = 0; d < n; d++) {
        N *= (uint64_t)dims[d];
        ports += (uint64_t)(dims[d] - 1) * K;
    }
    for (size_t d = 0; d < n; d++) /* N^2 (S_d - 1) / S_d per dimension */
        pair_sum += N * (N / (uint64_t)dims[d]) * (uint64_t)(dims[d] - 1);
    cr_assert_eq(t.info.routers, N);
    cr_assert_eq(t.info.nodes, N * p);
    cr_assert_eq(t.info.max_ports, ports);
    cr_assert_eq(t.info.dims, n + (p > 1));
    cr_assert_eq(t.info.diameter, n);
    /* prod S * sum (S_i - 1) / 2 * K links, each a channel both ways. */
    cr_assert_eq(fam_channels(&t), N * ports);
    cr_assert_eq(fam_check_all(&t), pair_sum);
    for (uint32_t node = 0; node < t.info.nodes; node++) {
        int32_t c[16];
        cr_assert_eq(t.vt->coords(t.self, node, c, 16), t.info.dims);
        for (size_t d = 0; d < n; d++)
            cr_assert_eq((uint32_t)c[d], coord_of(dims, d, node / p));
        if (p > 1)
            cr_assert_eq((uint32_t)c[n], node % p);
    }
    /* One hop per differing dimension and parallel link, the salt's
       parallel link first; the distance counts differing coordinates. */
    for (uint32_t r = 0; r < N; r++)
        for (uint32_t x = 0; x < N; x++) {
            uint32_t differ = 0;
            for (size_t d = 0; d < n; d++)
                differ += coord_of(dims, d, r) != coord_of(dims, d, x);
            cr_assert_eq(t.vt->distance(t.self, r, x * p), differ);
            insee_hop hops[512];
            uint32_t salt = r * 7 + x;
            cr_assert_eq(t.vt->minimal_hops(t.self, r, x * p, salt, hops, 512), differ * K);
            /* Differing dimensions lowest first; in dimension d the K ports
               of the slot of x's coordinate (README numbering), starting at
               parallel link salt mod K, then the others in cyclic order. */
            uint32_t i = 0, base = 0;
            for (size_t d = 0; d < n; base += (uint32_t)(dims[d] - 1) * K, d++) {
                uint32_t from = coord_of(dims, d, r), to = coord_of(dims, d, x);
                if (from == to)
                    continue;
                uint32_t slot = to < from ? to : to - 1;
                for (uint32_t j = 0; j < K; j++, i++) {
                    const insee_hop *h = &hops[i];
                    cr_assert_eq(h->dim, (int16_t)d, "%u -> %u hop %u", r, x, i);
                    cr_assert_eq(h->dim_hops, 1);
                    cr_assert_eq(h->dir, 0);
                    cr_assert_eq(h->flags, 0);
                    cr_assert_geq(h->port, base, "%u -> %u hop %u", r, x, i);
                    cr_assert_eq((h->port - base) / K, slot, "%u -> %u hop %u", r, x, i);
                    if (K > 1) /* with K = 1 every index is 0 */
                        cr_assert_eq((h->port - base) % K, (salt + j) % K,
                                     "%u -> %u hop %u, salt %u", r, x, i, salt);
                    /* port_info() says the same of the port: its number and
                       dimension, no direction, no flags. */
                    insee_hop info;
                    t.vt->port_info(t.self, r, h->port, &info);
                    cr_assert_eq(info.port, h->port);
                    cr_assert_eq(info.dim, h->dim, "%u port %u", r, h->port);
                    cr_assert_eq(info.dir, 0);
                    cr_assert_eq(info.flags, 0);
                }
            }
            cr_assert_eq(i, differ * K);
        }
    fam_free(&t);
}

Test(hyperx, sizes)
{
    check_hyperx(DIMS(4, 4), 1, 1);
    check_hyperx(DIMS(5, 3), 1, 1);
    check_hyperx(DIMS(2), 1, 1);
    check_hyperx(DIMS(7), 1, 2);
    check_hyperx(DIMS(2, 2, 2, 2), 1, 1);
    check_hyperx(DIMS(3, 3, 3), 1, 2);
    check_hyperx(DIMS(4, 2), 2, 1);
    check_hyperx(DIMS(3, 5, 2), 3, 3);
    check_hyperx(DIMS(3, 4), 2, 2);
    check_hyperx(DIMS(5), 3, 1);
}

/* Hand-picked: a row of 4 routers with trunking 3; router 1's ports 0-2
   lead to router 0, 3-5 to router 2, 6-8 to router 3, parallel link t into
   port t of the same pair at the other end. */
Test(hyperx, trunk_by_hand)
{
    fam t;
    make_hx(&t, DIMS(4), 3, 1);
    insee_port_peer peer;
    cr_assert(t.vt->link(t.self, 1, 4, &peer));
    cr_assert_eq(peer.router, 2);
    cr_assert_eq(peer.port, 4); /* router 2: ports 3-5 lead to router 1 */
    cr_assert(t.vt->link(t.self, 1, 0, &peer));
    cr_assert_eq(peer.router, 0);
    cr_assert_eq(peer.port, 0);
    insee_hop hops[8];
    cr_assert_eq(t.vt->minimal_hops(t.self, 1, 3, 0, hops, 8), 3u);
    cr_assert_eq(hops[0].port, 6);
    cr_assert_eq(hops[1].port, 7);
    cr_assert_eq(hops[2].port, 8);
    cr_assert_eq(t.vt->minimal_hops(t.self, 1, 3, 5, hops, 8), 3u);
    cr_assert_eq(hops[0].port, 8);
    cr_assert_eq(hops[1].port, 6);
    cr_assert_eq(hops[2].port, 7);
    cr_assert_eq(t.vt->minimal_hops(t.self, 1, 3, 5, hops, 2), 2u);
    fam_free(&t);
}

/* hypercube(n) is hyperx([2] * n): the same counts, wiring, distances and
   minimal hops; port d of router r flips bit d, distance() counts the
   differing bits and minimal_hops() lists their ports lowest bit first. */
Test(hypercube, equals_hyperx_of_twos)
{
    for (int64_t n = 1; n <= 8; n++) {
        int64_t twos[8] = {2, 2, 2, 2, 2, 2, 2, 2};
        fam c, x;
        make_hc(&c, n);
        make_hx(&x, twos, (size_t)n, 1, 1);
        cr_assert_eq(memcmp(&c.info, &x.info, sizeof c.info), 0, "n = %lld", (long long)n);
        cr_assert_eq(c.info.routers, 1u << n);
        cr_assert_eq(c.info.max_ports, n);
        cr_assert_eq(fam_channels(&c), (uint64_t)n << n);
        topo_table tc, tx;
        topo_read(&tc, c.vt, c.self);
        topo_read(&tx, x.vt, x.self);
        char why[160];
        cr_assert(topo_same_links(&tc, &tx, why, sizeof why), "n = %lld: %s", (long long)n, why);
        topo_table_free(&tc);
        topo_table_free(&tx);
        for (uint32_t r = 0; r < c.info.routers; r++) {
            for (uint32_t d = 0; d < n; d++) {
                insee_port_peer a;
                cr_assert(c.vt->link(c.self, r, d, &a));
                cr_assert_eq(a.router, r ^ (1u << d));
                cr_assert_eq(a.port, d);
            }
            for (uint32_t y = 0; y < c.info.nodes; y++) {
                uint32_t flip = r ^ y;
                cr_assert_eq(c.vt->distance(c.self, r, y), (uint32_t)__builtin_popcount(flip));
                cr_assert_eq(c.vt->distance(c.self, r, y), x.vt->distance(x.self, r, y));
                insee_hop hc[8], hx[8];
                uint32_t k = c.vt->minimal_hops(c.self, r, y, r, hc, 8);
                cr_assert_eq(k, (uint32_t)__builtin_popcount(flip), "%u -> %u", r, y);
                /* hc[i] flips the i-th set bit of r ^ y. */
                uint32_t i = 0;
                for (uint32_t b = 0; b < n; b++) {
                    if (!(flip >> b & 1))
                        continue;
                    cr_assert_eq(hc[i].port, b, "%u -> %u hop %u", r, y, i);
                    cr_assert_eq(hc[i].dim, (int16_t)b, "%u -> %u hop %u", r, y, i);
                    cr_assert_eq(hc[i].dir, 0);
                    cr_assert_eq(hc[i].dim_hops, 1);
                    i++;
                }
                cr_assert_eq(x.vt->minimal_hops(x.self, r, y, r, hx, 8), k);
                cr_assert_eq(memcmp(hc, hx, k * sizeof hc[0]), 0);
            }
        }
        if (n <= 6)
            fam_check_all(&c);
        fam_free(&c);
        fam_free(&x);
    }
}

/* Nothing is sized by the router count: a million-router hypercube and a
   16x16x16 HyperX answer at once. */
Test(hypercube, large_is_cheap)
{
    fam c;
    make_hc(&c, 20);
    cr_assert_eq(c.info.routers, 1u << 20);
    cr_assert_eq(c.info.diameter, 20u);
    cr_assert_eq(c.vt->distance(c.self, 0, (1u << 20) - 1), 20u);
    insee_hop hops[32];
    cr_assert_eq(c.vt->minimal_hops(c.self, 0, (1u << 20) - 1, 0, hops, 32), 20u);
    fam_free(&c);
    fam x;
    make_hx(&x, DIMS(16, 16, 16), 1, 1);
    cr_assert_eq(x.vt->distance(x.self, 0, 4095), 3u);
    cr_assert_eq(x.vt->minimal_hops(x.self, 0, 4095, 0, hops, 32), 3u);
    fam_free(&x);
}

static void refused(const int64_t *dims, size_t n, int64_t trunk, int64_t p, const char *says)
{
    insee_error err;
    cr_assert_null(try_hx(dims, n, trunk, p, &err));
    cr_assert_eq(err.code, INSEE_ERR_PARAM);
    cr_assert_not_null(strstr(err.message, says), "%s", err.message);
}

Test(hyperx, impossible_sizes_refused)
{
    int64_t many[33];
    for (size_t d = 0; d < 33; d++)
        many[d] = 2;
    refused(many, 0, 1, 1, "no dimension");
    refused(many, 33, 1, 1, "33 dimensions");
    refused(DIMS(65535, 3), 1, 1, "65536 ports");
    refused(DIMS(4, 4), 30000, 1, "ports");
    refused(DIMS(65535, 65535, 2), 1, 1, "routers");
    refused(many, 31, 1, 2, "nodes"); /* 2^31 routers, 2 nodes each */
}

/* The kernel's limits, exactly: 65533 ports at a router, fewer than 2^30
   ports and nodes in all. Nothing is sized by the router count, so the
   largest accepted networks are built. */
Test(hyperx, kernel_limits_exactly)
{
    int64_t twos[26];
    for (size_t d = 0; d < 26; d++)
        twos[d] = 2;
    fam t;
    make_hx(&t, twos, 25, 1, 1); /* 2^25 routers x (25 ports + 1 node) */
    cr_assert_eq(t.info.routers, 1u << 25);
    fam_free(&t);
    refused(twos, 26, 1, 1, "the kernel numbers fewer than 1073741824 queues");
    make_hx(&t, DIMS(2), 65533, 1);
    cr_assert_eq(t.info.max_ports, 65533u);
    fam_free(&t);
    refused(DIMS(2), 65534, 1, "65534 ports per router; the kernel handles at most 65533");
    refused(DIMS(2), 65535, 1, "use less trunking");
}

Test(hyperx, parameter_tables)
{
    const insee_plugin_desc *x = load_plugin("topology", "hyperx");
    cr_assert_str_eq(x->params[0].name, "dims");
    cr_assert_str_eq(x->params[1].name, "trunking");
    cr_assert_str_eq(x->params[2].name, "p");
    cr_assert_null(x->params[3].name);
    const insee_plugin_desc *c = load_plugin("topology", "hypercube");
    cr_assert_str_eq(c->params[0].name, "n");
    cr_assert_null(c->params[1].name);
}
