/* test_dragonfly.c — the dragonfly plugin against closed forms and a BFS:
 * router, node and link counts (a(a-1)/2 local and a*h/2 global links per
 * group), diameter 3 and the average distance of the canonical a*h + 1
 * groups, both arrangements wired as documented (and mirror images of each
 * other), fewer groups with evenly trunked global links, minimal hops
 * (global-global shortcuts included), and impossible sizes refused. */
#include "families.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

enum { CONSECUTIVE, PALMTREE, RELATIVE, ABSOLUTE, CIRCULANT, RANDOM, ARRANGEMENTS };
static const char *const arrangements[] = {"consecutive", "palmtree", "relative",
                                           "absolute",    "circulant", "random"};

/* The parameters in table order; terminals attached to their routers
   unless nic. */
static insee_value *df_params(insee_value out[6], int64_t a, int64_t p, int64_t h,
                              int64_t groups, int arr, bool nic)
{
    out[0] = value_int(a);
    out[1] = value_int(p);
    out[2] = value_int(h);
    out[3] = value_int(groups);
    out[4] = value_enum(arr, arrangements[arr]);
    out[5] = value_bool(nic);
    return out;
}

static void *try_df(int64_t a, int64_t p, int64_t h, int64_t groups, int arr, insee_error *err)
{
    insee_value params[6];
    return fam_try("dragonfly", df_params(params, a, p, h, groups, arr, false), 1, err);
}

static void make_df(fam *t, int64_t a, int64_t p, int64_t h, int64_t groups, int arr)
{
    insee_value params[6];
    fam_make(t, "dragonfly", df_params(params, a, p, h, groups, arr, false), 1);
}

/* Links whose ports are local (< a - 1) or global, each counted once. */
static void count_links(const fam *t, uint32_t a, uint64_t *local, uint64_t *global)
{
    *local = *global = 0;
    for (uint32_t r = 0; r < t->info.routers; r++)
        for (uint32_t q = 0; q < t->info.max_ports; q++) {
            insee_port_peer peer;
            cr_assert(t->vt->link(t->self, r, q, &peer), "port %u of router %u unplugged", q, r);
            cr_assert_eq(q + 1 < a, peer.port + 1 < a, "a local port wired to a global one");
            if (q + 1 < a) {
                cr_assert_eq(peer.router / a, r / a, "a local link leaves its group");
                ++*local;
            } else {
                cr_assert_neq(peer.router / a, r / a, "a global link stays in its group");
                ++*global;
            }
        }
    *local /= 2;
    *global /= 2;
}

/* Sizes, wiring, distances and minimal hops of one dragonfly; with
   groups = 0 (canonical) also the diameter and the average distance. */
static void check_dragonfly(uint32_t a, uint32_t p, uint32_t h, uint32_t groups, int arr)
{
    fam t;
    make_df(&t, a, p, h, groups, arr);
    uint32_t g = groups ? groups : a * h + 1;
    cr_assert_eq(t.info.routers, a * g);
    cr_assert_eq(t.info.nodes, a * p * g);
    cr_assert_eq(t.info.max_ports, a - 1 + h);
    cr_assert_eq(t.info.flags, 0u);
    cr_assert_eq(t.info.dims, p > 1 ? 3u : 2u);
    uint64_t local, global;
    count_links(&t, a, &local, &global);
    cr_assert_eq(local, (uint64_t)a * (a - 1) / 2 * g);
    cr_assert_eq(global, (uint64_t)a * h * g / 2);
    /* Every pair of groups is joined by the same number of global links. */
    uint32_t *between = calloc((size_t)g * g, sizeof *between);
    for (uint32_t r = 0; r < t.info.routers; r++)
        for (uint32_t q = a - 1; q < t.info.max_ports; q++) {
            insee_port_peer peer;
            t.vt->link(t.self, r, q, &peer);
            between[(size_t)(r / a) * g + peer.router / a]++;
        }
    for (uint32_t G = 0; G < g; G++)
        for (uint32_t G2 = 0; G2 < g; G2++)
            cr_assert_eq(between[(size_t)G * g + G2], G == G2 ? 0 : a * h / (g - 1),
                         "groups %u and %u", G, G2);
    free(between);
    for (uint32_t node = 0; node < t.info.nodes; node++) {
        cr_assert_eq(t.vt->node_router(t.self, node), node / p);
        int32_t c[3];
        cr_assert_eq(t.vt->coords(t.self, node, c, 3), t.info.dims);
        cr_assert_eq((uint32_t)c[0], node / p % a);
        cr_assert_eq((uint32_t)c[1], node / p / a);
        if (p > 1)
            cr_assert_eq((uint32_t)c[2], node % p);
    }
    uint64_t sum = fam_check_all(&t);
    if (groups == 0 && a >= 2) {
        /* a = 2, h = 2 circulant is the Petersen graph (10 routers of
           degree 3 at most 2 apart, the Moore bound). */
        cr_assert_eq(t.info.diameter, arr == CIRCULANT && a == 2 && h == 2 ? 2u : 3u,
                     "a=%u h=%u %s", a, h, arrangements[arr]);
        /* Router pairs, self included: inside a group 1 hop; to another
           group at most 1 + [not the router with the link] + [not the
           router it lands on] (3a^2 - 2a over the a^2 pairs). With h = 1
           that is exact in every arrangement (a global-global path needs
           two global links on its middle router). Consecutive and palmtree
           are one less for the 2h - 2 groups and a - 2 routers where a
           global-global path through a third group (landing back on the
           same router index) beats local-global-local. */
        uint64_t A = a, H = h;
        uint64_t lgl = g * (A * (A - 1) + A * H * (3 * A * A - 2 * A));
        uint64_t want = lgl - g * (2 * H - 2) * (A - 2);
        if (arr == CONSECUTIVE || arr == RELATIVE || arr == PALMTREE || h == 1)
            cr_assert_eq(sum, want, "a=%u h=%u %s: distance sum %llu, closed form %llu", a, h,
                         arrangements[arr], (unsigned long long)sum, (unsigned long long)want);
        else
            cr_assert_leq(sum, lgl, "a=%u h=%u %s", a, h, arrangements[arr]);
    }
    fam_free(&t);
}

Test(dragonfly, canonical_sizes)
{
    static const uint32_t sizes[][3] = {{2, 1, 1}, {3, 2, 1}, {2, 2, 2}, {4, 1, 2},
                                        {4, 2, 2}, {5, 2, 1}, {4, 3, 3}, {6, 3, 1}};
    for (int arr = CONSECUTIVE; arr < ARRANGEMENTS; arr++)
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
            check_dragonfly(sizes[i][0], sizes[i][2], sizes[i][1], 0, arr);
}

Test(dragonfly, one_router_per_group_is_complete)
{
    fam t;
    make_df(&t, 1, 1, 4, 0, CONSECUTIVE);
    cr_assert_eq(t.info.routers, 5u);
    cr_assert_eq(t.info.diameter, 1u);
    fam_check_all(&t);
    fam_free(&t);
}

/* Fewer groups than a*h + 1: each pair joined by a*h / (groups - 1) links. */
Test(dragonfly, trunked_groups)
{
    static const uint32_t sizes[][3] = {{4, 2, 2}, {4, 2, 3}, {4, 2, 5}, {3, 4, 2}, {3, 4, 4},
                                        {3, 4, 5}, {3, 4, 7}, {6, 3, 4}, {6, 3, 7}, {6, 3, 10},
                                        {1, 3, 2}, {2, 3, 3}};
    for (int arr = CONSECUTIVE; arr < ARRANGEMENTS; arr++)
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
            check_dragonfly(sizes[i][0], 2, sizes[i][1], sizes[i][2], arr);
}

/* Router i's global port j of group G: consecutive reaches group
   G + i*h + j + 1, palmtree group G - (i*h + j + 1); both land on router
   a-1-i, port h-1-j (after the a - 1 local ports). */
Test(dragonfly, canonical_wiring_by_hand)
{
    const uint32_t a = 4, h = 3, g = a * h + 1;
    for (int arr = CONSECUTIVE; arr <= PALMTREE; arr++) {
        fam t;
        make_df(&t, a, 1, h, 0, arr);
        for (uint32_t G = 0; G < g; G++)
            for (uint32_t i = 0; i < a; i++)
                for (uint32_t j = 0; j < h; j++) {
                    insee_port_peer peer;
                    cr_assert(t.vt->link(t.self, G * a + i, a - 1 + j, &peer));
                    uint32_t step = i * h + j + 1;
                    uint32_t want = arr == CONSECUTIVE ? (G + step) % g : (G + g - step) % g;
                    cr_assert_eq(peer.router, want * a + (a - 1 - i), "%s G%u i%u j%u",
                                 arrangements[arr], G, i, j);
                    cr_assert_eq(peer.port, a - 1 + (h - 1 - j));
                }
        /* Local port q of router i leads to router q (q < i) or q + 1. */
        insee_port_peer peer;
        cr_assert(t.vt->link(t.self, a + 2, 1, &peer));
        cr_assert_eq(peer.router, a + 1);
        cr_assert_eq(peer.port, 1);
        cr_assert(t.vt->link(t.self, a + 2, 2, &peer));
        cr_assert_eq(peer.router, a + 3);
        cr_assert_eq(peer.port, 2);
        fam_free(&t);
    }
}

/* Palmtree is consecutive with the groups numbered backwards. */
Test(dragonfly, palmtree_mirrors_consecutive)
{
    const uint32_t a = 3, h = 2;
    fam c, m;
    make_df(&c, a, 1, h, 0, CONSECUTIVE);
    make_df(&m, a, 1, h, 0, PALMTREE);
    uint32_t g = a * h + 1, N = a * g;
    for (uint32_t r = 0; r < N; r++)
        for (uint32_t x = 0; x < N; x++) {
            uint32_t r2 = (g - r / a) % g * a + r % a, x2 = (g - x / a) % g * a + x % a;
            cr_assert_eq(m.vt->distance(m.self, r, x), c.vt->distance(c.self, r2, x2));
        }
    fam_free(&c);
    fam_free(&m);
}

/* Shortest paths are not only local-global-local: router 5 (group 1,
   router 1) reaches router 1 (group 0) in two global hops through router
   18 (group 4), where local-global-local takes three. */
Test(dragonfly, global_global_shortcut)
{
    fam t;
    make_df(&t, 4, 2, 2, 0, CONSECUTIVE);
    cr_assert_eq(t.vt->distance(t.self, 5, 2), 2u); /* node 2 is on router 1 */
    insee_hop hops[8];
    cr_assert_eq(t.vt->minimal_hops(t.self, 5, 2, 0, hops, 8), 1u);
    cr_assert_eq(hops[0].port, 3);
    cr_assert_eq(hops[0].dim, 1);
    insee_port_peer peer;
    cr_assert(t.vt->link(t.self, 5, 3, &peer));
    cr_assert_eq(peer.router, 18u);
    cr_assert(t.vt->link(t.self, 18, 3, &peer));
    cr_assert_eq(peer.router, 1u);
    /* In its own group: one local hop, dimension 0. */
    cr_assert_eq(t.vt->minimal_hops(t.self, 5, 14, 0, hops, 8), 1u);
    cr_assert_eq(hops[0].port, 2); /* router 7 is router 5's third neighbour */
    cr_assert_eq(hops[0].dim, 0);
    cr_assert_eq(t.vt->minimal_hops(t.self, 5, 10, 0, hops, 8), 0u); /* node 10 is on router 5 */
    fam_free(&t);
}

/* Relative is consecutive's other name: the same wiring, trunked too. */
Test(dragonfly, relative_is_consecutive)
{
    static const uint32_t sizes[][3] = {{4, 2, 0}, {4, 2, 5}, {3, 4, 7}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        fam c, r;
        make_df(&c, sizes[s][0], 1, sizes[s][1], sizes[s][2], CONSECUTIVE);
        make_df(&r, sizes[s][0], 1, sizes[s][1], sizes[s][2], RELATIVE);
        for (uint32_t x = 0; x < c.info.routers; x++)
            for (uint32_t q = 0; q < c.info.max_ports; q++) {
                insee_port_peer pc, pr;
                cr_assert(c.vt->link(c.self, x, q, &pc));
                cr_assert(r.vt->link(r.self, x, q, &pr));
                cr_assert_eq(pc.router, pr.router);
                cr_assert_eq(pc.port, pr.port);
            }
        fam_free(&c);
        fam_free(&r);
    }
}

/* Group and global link (after the a - 1 local ports) that global port j
   of router i of group G reaches. */
static void global_end(const fam *t, uint32_t a, uint32_t h, uint32_t G, uint32_t i, uint32_t j,
                       uint32_t *G2, uint32_t *m2)
{
    insee_port_peer peer;
    cr_assert(t->vt->link(t->self, G * a + i, a - 1 + j, &peer));
    *G2 = peer.router / a;
    *m2 = peer.router % a * h + (peer.port - (a - 1));
}

/* Absolute (INRFlow's, Hastings et al.): link m = i*h + j of group G leads
   to group m (m < G) or m + 1, the same whatever G, and lands on the link
   that numbers G the same way there: G (G < G2) or G - 1. Trunked: link m
   is link m mod (g - 1) of round m / (g - 1), landing in the same round. */
Test(dragonfly, absolute_wiring_by_hand)
{
    static const uint32_t sizes[][3] = {{4, 3, 0}, {4, 2, 5}, {3, 4, 7}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        uint32_t a = sizes[s][0], h = sizes[s][1];
        uint32_t g = sizes[s][2] ? sizes[s][2] : a * h + 1;
        fam t;
        make_df(&t, a, 1, h, sizes[s][2], ABSOLUTE);
        for (uint32_t G = 0; G < g; G++)
            for (uint32_t m = 0; m < a * h; m++) {
                uint32_t G2, m2, c = m % (g - 1);
                global_end(&t, a, h, G, m / h, m % h, &G2, &m2);
                cr_assert_eq(G2, c < G ? c : c + 1, "G%u m%u", G, m);
                cr_assert_eq(m2, m - c + (G < G2 ? G : G - 1), "G%u m%u", G, m);
            }
        fam_free(&t);
    }
}

/* Circulant (INRFlow's, Hastings et al.): link 2k leads k + 1 groups
   ahead and lands on link 2k + 1, which leads as far behind; with a*h odd
   the last link leads g / 2 ahead, to the same link there. */
Test(dragonfly, circulant_wiring_by_hand)
{
    static const uint32_t sizes[][2] = {{4, 3}, {3, 3}, {5, 1}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        uint32_t a = sizes[s][0], h = sizes[s][1], g = a * h + 1;
        fam t;
        make_df(&t, a, 1, h, 0, CIRCULANT);
        for (uint32_t G = 0; G < g; G++)
            for (uint32_t m = 0; m < a * h; m++) {
                uint32_t G2, m2, k = m / 2;
                global_end(&t, a, h, G, m / h, m % h, &G2, &m2);
                if (m % 2) {
                    cr_assert_eq(G2, (G + g - (k + 1)) % g, "a=%u h=%u G%u m%u", a, h, G, m);
                    cr_assert_eq(m2, m - 1);
                } else if (m + 1 == a * h) {
                    cr_assert_eq(G2, (G + g / 2) % g, "a=%u h=%u G%u m%u", a, h, G, m);
                    cr_assert_eq(m2, m);
                } else {
                    cr_assert_eq(G2, (G + k + 1) % g, "a=%u h=%u G%u m%u", a, h, G, m);
                    cr_assert_eq(m2, m + 1);
                }
            }
        fam_free(&t);
    }
}

/* Random: the same seed wires the same network, another seed another one;
   both balanced (check_dragonfly draws with seed 1). */
Test(dragonfly, random_follows_the_seed)
{
    insee_value params[6];
    fam t1, again, t2;
    fam_make(&t1, "dragonfly", df_params(params, 4, 1, 2, 0, RANDOM, false), 7);
    fam_make(&again, "dragonfly", df_params(params, 4, 1, 2, 0, RANDOM, false), 7);
    fam_make(&t2, "dragonfly", df_params(params, 4, 1, 2, 0, RANDOM, false), 8);
    uint32_t same = 0, differ = 0;
    for (uint32_t x = 0; x < t1.info.routers; x++)
        for (uint32_t q = 3; q < t1.info.max_ports; q++) {
            insee_port_peer p1, pa, p2;
            cr_assert(t1.vt->link(t1.self, x, q, &p1));
            cr_assert(again.vt->link(again.self, x, q, &pa));
            cr_assert(t2.vt->link(t2.self, x, q, &p2));
            same += p1.router == pa.router && p1.port == pa.port;
            differ += p1.router != p2.router || p1.port != p2.port;
        }
    cr_assert_eq(same, 36u * 2, "every global port wired alike with the same seed");
    cr_assert_gt(differ, 0u, "seeds 7 and 8 drew the same wiring");
    fam_free(&t1);
    fam_free(&again);
    fam_free(&t2);
}

static void refused(int64_t a, int64_t p, int64_t h, int64_t groups, const char *says)
{
    insee_error err;
    cr_assert_null(try_df(a, p, h, groups, CONSECUTIVE, &err), "a=%lld h=%lld groups=%lld",
                   (long long)a, (long long)h, (long long)groups);
    cr_assert_eq(err.code, INSEE_ERR_PARAM);
    cr_assert_not_null(strstr(err.message, says), "%s", err.message);
}

Test(dragonfly, impossible_sizes_refused)
{
    refused(4, 1, 2, 10, "groups = 10 > a*h + 1 = 9");
    refused(4, 1, 2, 1, "groups = 1 leaves");
    refused(4, 1, 2, 4, "groups = 4 cannot be wired");
    refused(3, 1, 4, 6, "not a multiple of 5");
    /* The kernel's limits, before the hop table is built: a - 1 + h ports at
       most 65533, and ports and nodes in all below 2^30. */
    refused(40000, 1, 40000, 0, "79999 ports per router; the kernel handles at most 65533");
    refused(65533, 1, 2, 0, "65534 ports per router");
    refused(100, 50000, 10, 0, "and 5005000000 nodes; the kernel numbers fewer than 1073741824");
    refused(30000, 1, 2, 0, "1800030000 routers");
}

Test(dragonfly, parameter_table)
{
    const insee_plugin_desc *d = load_plugin("topology", "dragonfly");
    static const char *const names[] = {"a", "p", "h", "groups", "arrangement", "nic"};
    for (size_t i = 0; i < 6; i++)
        cr_assert_str_eq(d->params[i].name, names[i]);
    cr_assert_str_eq(d->params[3].default_value, "0");
    cr_assert_str_eq(d->params[4].choices,
                     "consecutive|palmtree|relative|absolute|circulant|random");
    cr_assert_str_eq(d->params[5].default_value, "false", "terminals on their routers");
    cr_assert_null(d->params[6].name);
}

/* Terminals behind network interfaces (nic = true): a = 3, p = 2, h = 1
   gives 4 groups, 12 routers and 24 nodes; each router gains p ports after
   its a - 1 + h, port a - 1 + h + i linked to the interface of its i-th
   node, router 12 + y for node y, whose one port comes back. Links check
   against a BFS, distances are the routers' plus 2 from an interface (plus
   1 from a router), and the diameter grows by 2. */
Test(dragonfly, network_interfaces)
{
    fam bare, t;
    insee_value params[6];
    fam_make(&bare, "dragonfly", df_params(params, 3, 2, 1, 0, PALMTREE, false), 1);
    fam_make(&t, "dragonfly", df_params(params, 3, 2, 1, 0, PALMTREE, true), 1);
    uint32_t R = bare.info.routers, N = bare.info.nodes;
    cr_assert_eq(R, 12u);
    cr_assert_eq(t.info.routers, R + N);
    cr_assert_eq(t.info.max_ports, 3u + 2u);
    cr_assert_eq(t.info.diameter, bare.info.diameter + 2);
    cr_assert(t.info.flags & INSEE_TOPO_INDIRECT);
    fam_check_all(&t);
    for (uint32_t y = 0; y < N; y++) {
        uint32_t home = bare.vt->node_router(bare.self, y);
        insee_port_peer peer;
        cr_assert_eq(t.vt->node_router(t.self, y), R + y);
        cr_assert(t.vt->link(t.self, R + y, 0, &peer));
        cr_assert_eq(peer.router, home);
        cr_assert_eq(peer.port, 3u + y % 2, "after the a - 1 + h ports, in node order");
        for (uint32_t x = 0; x < N; x++)
            cr_assert_eq(t.vt->distance(t.self, R + y, x),
                         x == y ? 0u : 2 + bare.vt->distance(bare.self, home, x));
    }
    fam_free(&bare);
    fam_free(&t);
}
