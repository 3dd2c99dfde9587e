/* test_trees.c — the kary-ntree and thin-tree plugins against closed forms
 * and a breadth-first search over link(): switch and link counts per level,
 * the wiring (each switch reaches a block of k^l leaves going down, k'^l
 * switches per block, links come back into the same port), distances equal
 * to BFS and to 2 x the levels to the nearest common ancestor, the average
 * distance, minimal hops (all up ports while climbing, the one down port
 * after, each one BFS hop closer), k' = k equal to the k-ary n-tree, and the
 * errors of impossible parameters. */
#include "harness.h"
#include "topo_check.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

typedef struct tree {
    insee_kernel kernel; /* the host must outlive the instance */
    insee_host host;
    const insee_topology_vtable *vt;
    void *self;
    insee_topology_info info;
    uint32_t k, kup, n;
    uint32_t first[33]; /* closed form: router index of level l's first switch */
    uint32_t *level;    /* level of each router, from `first` */
    uint32_t *lo;       /* lowest leaf below each switch (going down only) */
    topo_table links;   /* what the BFS and the shared checks read */
    uint32_t *bfs;      /* from every router (topo_check.h) */
} tree;

static uint32_t ipow(uint32_t b, uint32_t e)
{
    uint32_t p = 1;
    while (e--)
        p *= b;
    return p;
}

/* create() of `plugin` ("kary-ntree": k and n only), with network
   interfaces or without; NULL with err filled when refused. */
static void *create_nic(tree *t, const char *plugin, int64_t k, int64_t kup, int64_t n, bool nic,
                        insee_error *err)
{
    const insee_plugin_desc *d = load_plugin("topology", plugin);
    cr_assert_eq(d->kind, INSEE_KIND_TOPOLOGY);
    t->vt = d->vtable;
    t->host = mock_host(&t->kernel);
    bool full = strcmp(plugin, "kary-ntree") == 0;
    /* thin-tree: empty down and up lists (k, k_up and n say the shape) */
    insee_value params[6] = {value_int(k),
                             full ? value_int(n) : value_int(kup),
                             full ? value_bool(nic) : value_int(n),
                             value_bool(nic),
                             value_int_list(NULL, 0),
                             value_int_list(NULL, 0)};
    return t->vt->create(&t->host, params, err);
}

/* The switches alone (nic = false): nodes attach to their leaves. */
static void *create(tree *t, const char *plugin, int64_t k, int64_t kup, int64_t n,
                    insee_error *err)
{
    return create_nic(t, plugin, k, kup, n, false, err);
}

static tree make(const char *plugin, uint32_t k, uint32_t kup, uint32_t n)
{
    tree t = {.k = k, .kup = kup, .n = n};
    insee_error err = {0};
    t.self = create(&t, plugin, k, kup, n, &err);
    cr_assert_not_null(t.self, "%s %u:%u %u create: %s", plugin, k, kup, n, err.message);
    t.vt->info(t.self, &t.info);
    for (uint32_t l = 0; l < n; l++)
        t.first[l + 1] = t.first[l] + ipow(k, n - 1 - l) * ipow(kup, l);
    uint32_t R = t.first[n];
    cr_assert_eq(t.info.routers, R, "%u:%u-ary %u-thin-tree: %u routers", k, kup, n,
                 t.info.routers);
    t.level = malloc(sizeof *t.level * R);
    for (uint32_t l = 0; l < n; l++)
        for (uint32_t r = t.first[l]; r < t.first[l + 1]; r++)
            t.level[r] = l;
    t.lo = malloc(sizeof *t.lo * R);
    topo_read(&t.links, t.vt, t.self);
    t.bfs = topo_bfs_all(&t.links);
    return t;
}

static void tree_free(tree *t)
{
    t->vt->destroy(t->self);
    free(t->level);
    free(t->lo);
    topo_table_free(&t->links);
    free(t->bfs);
}

/* Level of the nearest common ancestor of two nodes: the first level whose
   subtrees (k^(h+1) consecutive nodes) hold both. */
static uint32_t nca_level(const tree *t, uint32_t x, uint32_t y)
{
    uint32_t h = 0, block = t->k;
    while (x / block != y / block) {
        block *= t->k;
        h++;
    }
    return h;
}

/* Counts against closed forms: Σ k^(n-1-l) k'^l = (k^n - k'^n)/(k - k')
   switches (n k^(n-1) when k' = k), k^n nodes, k + k' ports each. */
static void check_info(const tree *t)
{
    uint32_t k = t->k, kup = t->kup, n = t->n;
    uint32_t switches = k == kup ? n * ipow(k, n - 1) : (ipow(k, n) - ipow(kup, n)) / (k - kup);
    cr_assert_eq(t->info.routers, switches);
    cr_assert_eq(t->info.nodes, ipow(k, n));
    cr_assert_eq(t->info.max_ports, k + kup);
    cr_assert_eq(t->info.dims, 0u);
    cr_assert_eq(t->info.flags, (uint32_t)(INSEE_TOPO_INDIRECT | INSEE_TOPO_CONCURRENT));
    cr_assert_eq(t->info.diameter, 2 * (n - 1));
    for (uint32_t r = 0; r < t->info.routers; r++)
        cr_assert_eq(t->vt->ports(t->self, r), k + kup);
    /* Leaf switch s hosts nodes s k .. s k + k - 1. */
    for (uint32_t y = 0; y < t->info.nodes; y++)
        cr_assert_eq(t->vt->node_router(t->self, y), y / k);
}

/* The wiring: down ports 0..k-1 reach level l-1 (none at the leaves), up
   ports k..k+k'-1 reach level l+1 (none at the top), every link comes back
   into the same port and every input is fed once (topo_check_links), the
   plugged outputs number
   2 Σ_{l<n-1} k^(n-1-l) k'^(l+1) = 2 k k' (k^(n-1) - k'^(n-1))/(k - k')
   ((n-1) k^n links when k' = k); port_info agrees. */
static void check_links(tree *t)
{
    uint32_t k = t->k, kup = t->kup, n = t->n, R = t->info.routers, P = k + kup;
    uint32_t links = k == kup ? (n - 1) * ipow(k, n)
                              : k * kup * (ipow(k, n - 1) - ipow(kup, n - 1)) / (k - kup);
    uint32_t plugged = topo_check_links(&t->links);
    cr_assert_eq(plugged, 2 * links, "%u:%u %u: %u plugged outputs", k, kup, n, plugged);
    for (uint32_t r = 0; r < R; r++) {
        uint32_t l = t->level[r];
        for (uint32_t p = 0; p < P; p++) {
            bool up = p >= k;
            insee_hop info;
            t->vt->port_info(t->self, r, p, &info);
            cr_assert_eq(info.port, p);
            cr_assert_eq(info.dir, up ? +1 : -1);
            cr_assert_eq(info.flags, up ? INSEE_HOP_UP : INSEE_HOP_DOWN);
            cr_assert_eq(info.dim, up ? (int)l : (int)l - 1, "router %u port %u", r, p);
            insee_port_peer peer;
            bool ok = t->vt->link(t->self, r, p, &peer);
            cr_assert_eq(ok, up ? l < n - 1 : l > 0, "router %u (level %u) port %u", r, l, p);
            if (!ok)
                continue;
            cr_assert_eq(t->level[peer.router], up ? l + 1 : l - 1, "router %u port %u", r, p);
            cr_assert_eq(peer.port >= k, !up, "an up port feeds a down port and back");
        }
    }
}

/* The tree shape, from the links alone: going down, a level-l switch
   reaches the k^l consecutive leaves lo .. lo + k^l - 1 with lo a multiple
   of k^l, down port d leading to the d-th block of k^(l-1); each block has
   k'^l switches above it. */
static void check_subtrees(tree *t)
{
    uint32_t k = t->k, n = t->n;
    for (uint32_t r = 0; r < t->first[1]; r++)
        t->lo[r] = r;
    for (uint32_t l = 1; l < n; l++) {
        uint32_t block = ipow(k, l), below = ipow(k, l - 1);
        uint32_t *per_block = calloc(ipow(k, n - 1) / block, sizeof *per_block);
        for (uint32_t r = t->first[l]; r < t->first[l + 1]; r++) {
            for (uint32_t d = 0; d < k; d++) {
                insee_port_peer child;
                cr_assert(t->vt->link(t->self, r, d, &child));
                if (d == 0)
                    t->lo[r] = t->lo[child.router];
                cr_assert_eq(t->lo[child.router], t->lo[r] + d * below,
                             "level %u switch %u: down port %u", l, r, d);
            }
            cr_assert_eq(t->lo[r] % block, 0u);
            per_block[t->lo[r] / block]++;
        }
        for (uint32_t b = 0; b < ipow(k, n - 1) / block; b++)
            cr_assert_eq(per_block[b], ipow(t->kup, l), "level %u block %u", l, b);
        free(per_block);
    }
}

/* distance() equals BFS from every router to every node
   (topo_check_distances); from a leaf it is 2 h (h: levels to the nearest
   common ancestor); the average over all ordered node pairs is
   Σ_{h=1}^{n-1} 2h (k^(h+1) - k^h) / k^n; the largest is the diameter. */
static void check_distances(const tree *t)
{
    uint32_t N = t->info.nodes, k = t->k, leaf_diameter;
    topo_check_distances(&t->links, t->bfs, &leaf_diameter);
    cr_assert_eq(leaf_diameter, t->info.diameter);
    double sum = 0;
    uint32_t max = 0;
    for (uint32_t x = 0; x < N; x++)
        for (uint32_t y = 0; y < N; y++) {
            uint32_t d = t->vt->distance(t->self, t->vt->node_router(t->self, x), y);
            cr_assert_eq(d, 2 * nca_level(t, x, y), "nodes %u -> %u", x, y);
            sum += d;
            max = d > max ? d : max;
        }
    double closed = 0;
    for (uint32_t h = 1; h < t->n; h++)
        closed += 2.0 * h * (ipow(k, h + 1) - ipow(k, h)) / N;
    cr_assert_float_eq(sum / ((double)N * N), closed, 1e-9);
    cr_assert_eq(max, t->info.diameter);
}

/* At router r toward node y: all k' up ports in index order while y is not
   below r, else the one down port toward y (none at y's leaf); each hop is
   one BFS hop closer, flagged, agrees with port_info; every closer port is
   listed; `max` is honoured (those three by topo_check_hops); the salt
   changes nothing. */
static void check_minimal_hops(const tree *t)
{
    static const uint32_t salts[] = {0u, ~0u, 0x9e3779b9u};
    uint32_t k = t->k, kup = t->kup, R = t->info.routers, N = t->info.nodes;
    insee_hop hops[64], again[64];
    for (uint32_t r = 0; r < R; r++) {
        uint32_t l = t->level[r];
        for (uint32_t y = 0; y < N; y++) {
            uint32_t n = topo_check_hops(&t->links, t->bfs, r, y, 0, hops, 64);
            bool below = y / k >= t->lo[r] && y / k < t->lo[r] + ipow(k, l);
            cr_assert_eq(n, below ? (l > 0 ? 1u : 0u) : kup, "router %u node %u: %u hops", r, y,
                         n);
            for (uint32_t i = 0; i < n; i++) {
                const insee_hop *h = &hops[i];
                if (below) {
                    cr_assert_lt(h->port, k);
                    cr_assert_eq(h->flags, INSEE_HOP_DOWN);
                    cr_assert_eq(h->dir, -1);
                    cr_assert_eq(h->dim, (int)l - 1);
                } else {
                    cr_assert_eq(h->port, k + i, "up ports in index order");
                    cr_assert_eq(h->flags, INSEE_HOP_UP);
                    cr_assert_eq(h->dir, +1);
                    cr_assert_eq(h->dim, (int)l);
                }
                cr_assert_eq(h->dim_hops, 1);
                insee_hop info;
                t->vt->port_info(t->self, r, h->port, &info);
                cr_assert_eq(info.flags, h->flags);
            }
            for (size_t s = 1; s < sizeof salts / sizeof salts[0]; s++) {
                cr_assert_eq(t->vt->minimal_hops(t->self, r, y, salts[s], again, 64), n);
                cr_assert_eq(memcmp(hops, again, sizeof hops[0] * n), 0);
            }
        }
    }
}

static void check_all(const char *plugin, uint32_t k, uint32_t kup, uint32_t n)
{
    tree t = make(plugin, k, kup, n);
    check_info(&t);
    check_links(&t);
    check_subtrees(&t);
    check_distances(&t);
    check_minimal_hops(&t);
    tree_free(&t);
}

Test(kary_ntree, sizes)
{
    static const uint32_t sizes[][2] = {{2, 1}, {2, 2}, {2, 4}, {3, 3}, {4, 3}, {5, 2},
                                        {7, 2}, {3, 4}, {4, 1}, {2, 5}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        check_all("kary-ntree", sizes[i][0], sizes[i][0], sizes[i][1]);
}

Test(thin_tree, k_multiple_of_k_up)
{
    static const uint32_t sizes[][3] = {{4, 2, 3}, {2, 1, 3}, {3, 1, 3}, {4, 1, 2},
                                        {6, 3, 3}, {6, 2, 2}, {4, 2, 1}, {2, 1, 5}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        check_all("thin-tree", sizes[i][0], sizes[i][1], sizes[i][2]);
}

Test(thin_tree, k_not_multiple_of_k_up)
{
    static const uint32_t sizes[][3] = {{3, 2, 3}, {5, 2, 3}, {4, 3, 3}, {5, 3, 2},
                                        {6, 4, 3}, {7, 2, 2}, {3, 2, 4}, {5, 4, 2}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        check_all("thin-tree", sizes[i][0], sizes[i][1], sizes[i][2]);
}

Test(thin_tree, k_up_equal_k_is_the_kary_ntree)
{
    static const uint32_t sizes[][2] = {{2, 3}, {3, 3}, {4, 2}, {4, 3}, {5, 1}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        uint32_t k = sizes[i][0], n = sizes[i][1];
        tree a = make("kary-ntree", k, k, n), b = make("thin-tree", k, k, n);
        cr_assert_eq(memcmp(&a.info, &b.info, sizeof a.info), 0);
        char why[160];
        cr_assert(topo_same_links(&a.links, &b.links, why, sizeof why), "%u-ary %u-tree: %s", k,
                  n, why);
        for (uint32_t r = 0; r < a.info.routers; r++) {
            for (uint32_t y = 0; y < a.info.nodes; y++) {
                cr_assert_eq(a.vt->distance(a.self, r, y), b.vt->distance(b.self, r, y));
                insee_hop ha[64], hb[64];
                uint32_t na = a.vt->minimal_hops(a.self, r, y, 0, ha, 64);
                cr_assert_eq(b.vt->minimal_hops(b.self, r, y, 0, hb, 64), na);
                cr_assert_eq(memcmp(ha, hb, sizeof ha[0] * na), 0);
            }
        }
        tree_free(&a);
        tree_free(&b);
    }
}

/* The 4:2-ary 3-thin-tree of INSEE Fig. 3b, by hand: 16 + 8 + 4 switches,
   32 + 16 links; leaf 5 (nodes 20..23) climbs to switches 18 and 19. */
Test(thin_tree, figure_3b_by_hand)
{
    tree t = make("thin-tree", 4, 2, 3);
    cr_assert_eq(t.info.routers, 28u);
    cr_assert_eq(t.info.nodes, 64u);
    insee_port_peer peer;
    cr_assert(t.vt->link(t.self, 5, 4, &peer));
    cr_assert_eq(peer.router, 18u);
    cr_assert_eq(peer.port, 1u);
    cr_assert(t.vt->link(t.self, 5, 5, &peer));
    cr_assert_eq(peer.router, 19u);
    cr_assert_eq(peer.port, 1u);
    cr_assert_not(t.vt->link(t.self, 5, 0, &peer), "nodes attach through injection");
    cr_assert_not(t.vt->link(t.self, 24, 4, &peer), "top up ports are unplugged");
    insee_hop h[8];
    /* node 20 -> node 63: up, up (both ports each time), then down 3, 3 */
    cr_assert_eq(t.vt->distance(t.self, 5, 63), 4u);
    cr_assert_eq(t.vt->minimal_hops(t.self, 5, 63, 0, h, 8), 2u);
    cr_assert_eq(h[0].port, 4);
    cr_assert_eq(h[1].port, 5);
    cr_assert_eq(t.vt->distance(t.self, 5, 21), 0u);
    cr_assert_eq(t.vt->minimal_hops(t.self, 5, 21, 0, h, 8), 0u);
    cr_assert_eq(t.vt->distance(t.self, 5, 16), 2u);
    tree_free(&t);
}

/* With network interfaces (nic = true, the default): router S + y is node
   y's NIC, one port linked to down port y mod k of leaf y / k and back; the
   links stay symmetric and connected, distances from a NIC are the tree's
   plus two (one plus one, from a switch), every minimal hop one BFS hop
   closer; the diameter grows by two and so does the average over node
   pairs (the closed form of check_distances, + 2 for each distinct pair). */
static void check_nic(const char *plugin, uint32_t k, uint32_t kup, uint32_t n)
{
    tree bare = make(plugin, k, kup, n), t = {.k = k, .kup = kup, .n = n};
    insee_error err = {0};
    t.self = create_nic(&t, plugin, k, kup, n, true, &err);
    cr_assert_not_null(t.self, "%s", err.message);
    t.vt->info(t.self, &t.info);
    uint32_t S = bare.info.routers, N = bare.info.nodes;
    cr_assert_eq(t.info.routers, S + N);
    cr_assert_eq(t.info.nodes, N);
    cr_assert_eq(t.info.max_ports, k + kup);
    cr_assert_eq(t.info.diameter, bare.info.diameter + 2);
    cr_assert_eq(t.info.flags, (uint32_t)(INSEE_TOPO_INDIRECT | INSEE_TOPO_CONCURRENT));
    topo_read(&t.links, t.vt, t.self);
    cr_assert_eq(topo_check_links(&t.links), topo_check_links(&bare.links) + 2 * N);
    uint32_t *bfs = topo_bfs_all(&t.links);
    uint32_t diameter;
    uint64_t sum = topo_check_distances(&t.links, bfs, &diameter);
    uint64_t bare_sum = 0;
    for (uint32_t x = 0; x < N; x++)
        for (uint32_t y = 0; y < N; y++)
            bare_sum += bare.vt->distance(bare.self, x / k, y);
    cr_assert_eq(sum, bare_sum + 2ull * N * (N - 1), "%u:%u %u", k, kup, n);
    cr_assert_eq(diameter, t.info.diameter);
    for (uint32_t y = 0; y < N; y++) {
        insee_port_peer peer;
        cr_assert_eq(t.vt->node_router(t.self, y), S + y);
        cr_assert_eq(t.vt->ports(t.self, S + y), 1u);
        cr_assert(t.vt->link(t.self, S + y, 0, &peer));
        cr_assert_eq(peer.router, y / k);
        cr_assert_eq(peer.port, y % k, "the leaf's down port y mod k");
        insee_hop info;
        t.vt->port_info(t.self, S + y, 0, &info);
        cr_assert_eq(info.flags, INSEE_HOP_UP);
        cr_assert_eq(info.dim, -1);
    }
    insee_hop h[64];
    for (uint32_t r = 0; r < S + N; r++)
        for (uint32_t y = 0; y < N; y++)
            cr_assert_eq(topo_check_hops(&t.links, bfs, r, y, 0, h, 64),
                         r == S + y ? 0u : (r >= S || r == y / k ? 1u : bare.vt->minimal_hops(
                                                 bare.self, r, y, 0, h, 64)));
    free(bfs);
    topo_table_free(&t.links);
    t.vt->destroy(t.self);
    tree_free(&bare);
}

Test(trees, network_interfaces)
{
    check_nic("kary-ntree", 4, 4, 3);
    check_nic("kary-ntree", 2, 2, 1);
    check_nic("thin-tree", 5, 2, 3);
    check_nic("thin-tree", 3, 1, 2);
}

/* A 16-ary 3-tree (4096 nodes) is cheap: nothing is sized nodes squared. */
Test(kary_ntree, sixteen_ary_three_tree)
{
    tree t = {.k = 16};
    insee_error err = {0};
    t.self = create(&t, "kary-ntree", 16, 16, 3, &err);
    cr_assert_not_null(t.self, "%s", err.message);
    t.vt->info(t.self, &t.info);
    cr_assert_eq(t.info.routers, 768u);
    cr_assert_eq(t.info.nodes, 4096u);
    cr_assert_eq(t.info.max_ports, 32u);
    cr_assert_eq(t.info.diameter, 4u);
    cr_assert_eq(t.vt->distance(t.self, 0, 4095), 4u);
    cr_assert_eq(t.vt->distance(t.self, 0, 255), 2u);
    cr_assert_eq(t.vt->distance(t.self, 767, 4095), 2u);
    insee_hop h[32];
    cr_assert_eq(t.vt->minimal_hops(t.self, 0, 4095, 0, h, 32), 16u);
    t.vt->destroy(t.self);
}

/* create() refuses, naming the plugin and saying `expect` and, unless NULL,
   `also` in one message. */
static void check_refused(const char *plugin, int64_t k, int64_t kup, int64_t n,
                          const char *expect, const char *also)
{
    tree t = {0};
    insee_error err = {0};
    cr_assert_null(create(&t, plugin, k, kup, n, &err), "%s %ld:%ld %ld accepted", plugin,
                   (long)k, (long)kup, (long)n);
    cr_assert_eq(err.code, INSEE_ERR_PARAM);
    cr_assert_not_null(strstr(err.message, expect), "%s", err.message);
    if (also)
        cr_assert_not_null(strstr(err.message, also), "%s", err.message);
    cr_assert_not_null(strstr(err.message, plugin), "%s", err.message);
}

Test(trees, impossible_parameters_are_refused)
{
    check_refused("thin-tree", 4, 5, 3, "k_up = 5 > k = 4", "use k_up <= k");
    check_refused("kary-ntree", 16, 16, 9, "k^n = 16^9 nodes do not fit", NULL);
    check_refused("thin-tree", 2, 2, 31, "33285996544 routers", "fewer than 1073741824 queues");
    check_refused("thin-tree", 40000, 30000, 1, "70000 ports per router", "at most 65533");
    /* 2k = 65534 ports: one past the kernel's limit (k stops at 32766). */
    check_refused("kary-ntree", 32767, 32767, 1, "65534 ports per router", "smaller k");
}

/* The kernel's limits are where the checks put them: one switch of 2 x 32766
   ports is built; the binary 25-tree is refused before a table is made. */
Test(trees, kernel_limits_exactly)
{
    tree t = {0};
    insee_error err = {0};
    t.self = create(&t, "kary-ntree", 32766, 32766, 1, &err);
    cr_assert_not_null(t.self, "%s", err.message);
    t.vt->info(t.self, &t.info);
    cr_assert_eq(t.info.max_ports, 65532u);
    t.vt->destroy(t.self);
    check_refused("kary-ntree", 2, 2, 25, "419430400 routers with 1677721600 ports",
                  "the kernel numbers fewer than 1073741824 queues");
}

Test(trees, parameter_tables)
{
    const insee_plugin_desc *full = load_plugin("topology", "kary-ntree");
    cr_assert_str_eq(full->params[0].name, "k");
    cr_assert_eq(full->params[0].type, INSEE_PARAM_INT);
    cr_assert_str_eq(full->params[0].default_value, "4");
    cr_assert_eq(full->params[0].min, 2);
    cr_assert_str_eq(full->params[1].name, "n");
    cr_assert_str_eq(full->params[1].default_value, "3");
    cr_assert_eq(full->params[1].min, 1);
    cr_assert_str_eq(full->params[2].name, "nic");
    cr_assert_eq(full->params[2].type, INSEE_PARAM_BOOL);
    cr_assert_str_eq(full->params[2].default_value, "true", "INSEE's node model by default");
    cr_assert_null(full->params[3].name);
    const insee_plugin_desc *thin = load_plugin("topology", "thin-tree");
    cr_assert_str_eq(thin->params[0].name, "k");
    cr_assert_str_eq(thin->params[1].name, "k_up");
    cr_assert_str_eq(thin->params[1].default_value, "2");
    cr_assert_eq(thin->params[1].min, 1);
    cr_assert_str_eq(thin->params[2].name, "n");
    cr_assert_str_eq(thin->params[3].name, "nic");
    cr_assert_str_eq(thin->params[3].default_value, "true");
    cr_assert_str_eq(thin->params[4].name, "down");
    cr_assert_eq(thin->params[4].type, INSEE_PARAM_INT_LIST);
    cr_assert_str_eq(thin->params[4].default_value, "[]", "k, k_up and n by default");
    cr_assert_str_eq(thin->params[5].name, "up");
    cr_assert_str_eq(thin->params[5].default_value, "[]");
    cr_assert_null(thin->params[6].name);
}

/* The generalised tree (thin-tree with the lists down and up; INRFlow's
   gtree), switches alone; NULL with err filled when refused. */
static void *create_levels(tree *t, const int64_t *down, size_t nd, const int64_t *up, size_t nu,
                           insee_error *err)
{
    const insee_plugin_desc *d = load_plugin("topology", "thin-tree");
    t->vt = d->vtable;
    t->host = mock_host(&t->kernel);
    insee_value params[6] = {value_int(4), value_int(2), value_int(3), value_bool(false),
                             value_int_list(down, nd), value_int_list(up, nu)};
    return t->vt->create(&t->host, params, err);
}

/* Closed forms with D_l = down[0] ... down[l-1], U_l = up[0] ... up[l-1]:
   level l has U_l D_n / D_{l+1} switches of down[l] + up[l] ports, the
   links between levels l and l+1 number U_{l+1} D_n / D_{l+1}, the nodes
   D_n, the diameter 2(n - 1); distances equal a BFS and 2 x the levels to
   the nearest common ancestor (the first level l whose D_{l+1}-node blocks
   hold both), minimal hops each one BFS hop closer. */
static void check_levels(const int64_t *down, const int64_t *up, size_t n, size_t nu)
{
    tree t = {0};
    insee_error err = {0};
    t.self = create_levels(&t, down, n, up, nu, &err);
    cr_assert_not_null(t.self, "%s", err.message);
    t.vt->info(t.self, &t.info);
    uint32_t D[33] = {1}, U[33] = {1}, switches = 0, links = 0, max_ports = 0;
    for (size_t l = 0; l < n; l++) {
        D[l + 1] = D[l] * (uint32_t)down[l];
        U[l + 1] = U[l] * (l < nu ? (uint32_t)up[l] : 0);
    }
    for (size_t l = 0; l < n; l++) {
        uint32_t level = U[l] * (D[n] / D[l + 1]), ports = (uint32_t)down[l] + (l < nu ? (uint32_t)up[l] : 0);
        for (uint32_t r = switches; r < switches + level; r++)
            cr_assert_eq(t.vt->ports(t.self, r), ports, "router %u of level %zu", r, l);
        switches += level;
        links += l + 1 < n ? U[l + 1] * (D[n] / D[l + 1]) : 0;
        max_ports = ports > max_ports ? ports : max_ports;
    }
    cr_assert_eq(t.info.routers, switches);
    cr_assert_eq(t.info.nodes, D[n]);
    cr_assert_eq(t.info.max_ports, max_ports);
    cr_assert_eq(t.info.diameter, 2 * ((uint32_t)n - 1));
    topo_read(&t.links, t.vt, t.self);
    cr_assert_eq(topo_check_links(&t.links), 2 * links);
    t.bfs = topo_bfs_all(&t.links);
    uint32_t diameter;
    topo_check_distances(&t.links, t.bfs, &diameter);
    cr_assert_eq(diameter, t.info.diameter);
    insee_hop hops[64];
    for (uint32_t y = 0; y < t.info.nodes; y++) {
        cr_assert_eq(t.vt->node_router(t.self, y), y / (uint32_t)down[0]);
        for (uint32_t x = 0; x < t.info.nodes; x++) {
            uint32_t h = 0;
            while (x / D[h + 1] != y / D[h + 1])
                h++;
            cr_assert_eq(t.vt->distance(t.self, x / (uint32_t)down[0], y), 2 * h);
        }
    }
    for (uint32_t r = 0; r < t.info.routers; r++)
        for (uint32_t y = 0; y < t.info.nodes; y++)
            topo_check_hops(&t.links, t.bfs, r, y, 0, hops, 64);
    topo_table_free(&t.links);
    free(t.bfs);
    t.vt->destroy(t.self);
}

Test(gtree, per_level_closed_forms)
{
    static const int64_t d1[] = {4, 3, 2}, u1[] = {2, 3};
    check_levels(d1, u1, 3, 2);
    static const int64_t d2[] = {2, 3, 2, 2}, u2[] = {3, 1, 2, 5}; /* fatter than thin */
    check_levels(d2, u2, 4, 4);
    static const int64_t d3[] = {5}, u3[] = {0};
    check_levels(d3, u3, 1, 0);
    check_levels(d3, u3, 1, 1);
    static const int64_t d4[] = {3, 4}, u4[] = {4};
    check_levels(d4, u4, 2, 1);
}

/* down = [k] * n, up = [k'] * n is the k:k'-ary n-thin-tree, link for link;
   with n - 1 entries in up the top switches lose only their unplugged up
   ports. */
Test(gtree, constant_lists_are_the_thin_tree)
{
    static const int64_t down[] = {3, 3, 3}, up[] = {2, 2, 2};
    tree thin = make("thin-tree", 3, 2, 3);
    for (size_t nu = 2; nu <= 3; nu++) {
        tree g = {0};
        insee_error err = {0};
        g.self = create_levels(&g, down, 3, up, nu, &err);
        cr_assert_not_null(g.self, "%s", err.message);
        g.vt->info(g.self, &g.info);
        cr_assert_eq(g.info.routers, thin.info.routers);
        for (uint32_t r = 0; r < thin.info.routers; r++)
            for (uint32_t p = 0; p < 5; p++) {
                insee_port_peer a, b;
                bool ta = thin.vt->link(thin.self, r, p, &a), tb = g.vt->link(g.self, r, p, &b);
                cr_assert_eq(ta, tb, "router %u port %u", r, p);
                cr_assert(!ta || (a.router == b.router && a.port == b.port));
            }
        cr_assert_eq(g.vt->ports(g.self, thin.info.routers - 1), nu == 3 ? 5u : 3u);
        g.vt->destroy(g.self);
    }
    tree_free(&thin);
}

static void levels_refused(const int64_t *down, size_t nd, const int64_t *up, size_t nu,
                           const char *expect)
{
    tree t = {0};
    insee_error err = {0};
    cr_assert_null(create_levels(&t, down, nd, up, nu, &err), "accepted; expected %s", expect);
    cr_assert_eq(err.code, INSEE_ERR_PARAM);
    cr_assert_not_null(strstr(err.message, expect), "%s", err.message);
}

Test(gtree, impossible_lists_are_refused)
{
    static const int64_t down[] = {4, 4, 4}, up[] = {2, 0, 2, 2};
    levels_refused(down, 3, up, 1, "up has 1 entries for the 3 levels of down");
    levels_refused(down, 3, up, 4, "up has 4 entries");
    levels_refused(down, 3, up, 2, "up[1] = 0 leaves the switches of level 1 without a parent");
    levels_refused(NULL, 0, up, 2, "up is given without down");
    static const int64_t wide[] = {65532, 65532, 65532};
    levels_refused(wide, 3, up, 0, "up has 0 entries");
    static const int64_t wide_up[] = {1, 1};
    levels_refused(wide, 3, wide_up, 2, "the product of down (the nodes) passes 32 bits");
    static const int64_t narrow[] = {2, 2, 2, 2}, fat[] = {65533, 65533, 65533};
    levels_refused(narrow, 4, fat, 3, "level 3 would have more than 2^32 switches");
}
