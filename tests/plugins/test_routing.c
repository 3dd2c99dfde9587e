/* test_routing.c — the multipath routings ksp and allpath (and ecmp beside
 * them) through the mock host, on tori and meshes and on small graphs given
 * as link lists: the paths of every pair against closed forms (the two ways
 * round a ring, the binomial count of a grid's minimal paths), against
 * every loop-free path listed here by brute force and sorted (hops, then
 * the lower port where two differ), and against ecmp; the even and hashed
 * splits; answers that do not depend on the cache; the declared
 * properties. */
#include "harness.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

/* A network as the routings see it: ports and where each leads. */
typedef struct net {
    insee_kernel k;
    insee_host host;
    uint32_t routers, max_ports;
    uint32_t *ports; /* per router */
    uint32_t *peer;  /* routers x max_ports: the router a port leads to, or NONE */
    bool topo;       /* built from a topology plugin (mock_topology) */
} net;

static const net *shown; /* the network host->ports() and peer() read */

static uint32_t net_ports(insee_kernel *k, uint32_t router)
{
    (void)k;
    return shown->ports[router];
}

static bool net_peer(insee_kernel *k, uint32_t router, uint32_t port, insee_port_peer *out)
{
    (void)k;
    uint32_t q = shown->peer[router * shown->max_ports + port];
    if (q == NONE)
        return false;
    *out = (insee_port_peer){.router = q, .port = 0};
    return true;
}

static void net_show(net *n)
{
    n->host = mock_host(&n->k);
    n->host.ports = net_ports;
    n->host.peer = net_peer;
    n->k.shape.routers = n->routers;
    n->k.shape.max_ports = n->max_ports;
    shown = n;
}

/* A torus or mesh of one router per node, its links read from the plugin. */
static void net_grid(net *n, const char *topology, const int64_t *dims, size_t d)
{
    memset(n, 0, sizeof *n);
    mock_topology(&n->k, topology, dims, d, true);
    n->topo = true;
    n->routers = n->k.shape.routers;
    n->max_ports = n->k.shape.max_ports;
    n->ports = calloc(n->routers, sizeof *n->ports);
    n->peer = malloc(sizeof *n->peer * n->routers * n->max_ports);
    for (uint32_t r = 0; r < n->routers; r++) {
        n->ports[r] = n->k.topo->ports(n->k.topo_self, r);
        for (uint32_t p = 0; p < n->max_ports; p++) {
            insee_port_peer to;
            n->peer[r * n->max_ports + p] =
                p < n->ports[r] && n->k.topo->link(n->k.topo_self, r, p, &to) ? to.router : NONE;
        }
    }
    net_show(n);
}

/* Routers linked both ways by each pair of `links` (2 x count entries), in
   the order given: a pair listed twice is two parallel links. */
static void net_links(net *n, uint32_t routers, const uint32_t *links, uint32_t count)
{
    memset(n, 0, sizeof *n);
    n->routers = routers;
    n->ports = calloc(routers, sizeof *n->ports);
    for (uint32_t i = 0; i < 2 * count; i++)
        n->ports[links[i]]++;
    for (uint32_t r = 0; r < routers; r++)
        n->max_ports = n->ports[r] > n->max_ports ? n->ports[r] : n->max_ports;
    n->peer = malloc(sizeof *n->peer * routers * n->max_ports);
    memset(n->ports, 0, sizeof *n->ports * routers);
    for (uint32_t i = 0; i < count; i++) {
        uint32_t a = links[2 * i], b = links[2 * i + 1];
        n->peer[a * n->max_ports + n->ports[a]++] = b;
        n->peer[b * n->max_ports + n->ports[b]++] = a;
    }
    net_show(n);
}

static void net_free(net *n)
{
    if (n->topo)
        mock_topology_free(&n->k);
    free(n->ports);
    free(n->peer);
}

/* Petersen's graph: 10 routers of 3 ports, girth 5. */
static void net_petersen(net *n)
{
    static const uint32_t links[] = {0, 1, 1, 2, 2, 3, 3, 4, 4, 0, 0, 5, 1, 6, 2, 7,
                                     3, 8, 4, 9, 5, 7, 7, 9, 9, 6, 6, 8, 8, 5};
    net_links(n, 10, links, 15);
}

/* An irregular graph of 9 routers with two parallel links (2-3 twice,
   5-6 twice): paths differ by their ports, not only their routers. */
static void net_irregular(net *n)
{
    static const uint32_t links[] = {0, 1, 0, 2, 1, 3, 2, 3, 2, 3, 3, 4, 4, 5, 1, 5, 5, 6,
                                     5, 6, 6, 7, 7, 8, 8, 0, 4, 7, 2, 8, 6, 1};
    net_links(n, 9, links, 16);
}

/* ---- the routings ------------------------------------------------------- */

typedef struct setting {
    const char *name;
    int64_t value; /* INT; ENUM: the choice's index; DOUBLE (table_mb, cache_mb): KiB */
} setting;

/* An instance of routing `name` on n, every parameter at its default but
   those in `set` (NULL-name terminated). */
static void *routing_new(const char *name, net *n, const setting *set,
                         const insee_routing_vtable **vt)
{
    const insee_plugin_desc *d = load_plugin("routing", name);
    cr_assert_eq(d->kind, INSEE_KIND_ROUTING);
    insee_value params[8];
    uint32_t i = 0;
    for (const insee_param_def *p = d->params; p->name; p++, i++) {
        cr_assert_lt(i, 8u);
        if (p->type == INSEE_PARAM_ENUM) /* every default is the first choice */
            params[i] = value_enum(0, NULL);
        else if (p->type == INSEE_PARAM_INT)
            params[i] = value_int(strtoll(p->default_value, NULL, 10));
        else
            params[i] = value_double(strtod(p->default_value, NULL));
        for (const setting *s = set; s && s->name; s++) {
            if (strcmp(s->name, p->name) != 0)
                continue;
            if (p->type == INSEE_PARAM_ENUM)
                params[i] = value_enum(s->value, NULL);
            else if (p->type == INSEE_PARAM_INT)
                params[i] = value_int(s->value);
            else
                params[i] = value_double((double)s->value / 1024); /* the MiB in KiB */
        }
    }
    *vt = d->vtable;
    insee_error err = {0};
    void *self = (*vt)->create(&n->host, params, &err);
    cr_assert_not_null(self, "%s create: %s", name, err.message);
    return self;
}

/* One answer of paths(). */
typedef struct answer {
    uint32_t count, used;
    uint32_t hops[4096], first[4096];
    double share[4096];
    uint32_t ports[65536];
} answer;

static void add_path(void *ctx, const uint32_t *ports, uint32_t hops, double share)
{
    answer *a = ctx;
    cr_assert_lt(a->count, 4096u);
    cr_assert_leq(a->used + hops, 65536u);
    a->hops[a->count] = hops;
    a->first[a->count] = a->used;
    a->share[a->count++] = share;
    memcpy(a->ports + a->used, ports, sizeof *ports * hops);
    a->used += hops;
}

static answer *ask(const insee_routing_vtable *vt, void *self, uint32_t src, uint32_t dst,
                   uint32_t salt)
{
    answer *a = calloc(1, sizeof *a);
    insee_error err = {0};
    cr_assert(vt->paths(self, src, dst, salt, add_path, a, &err), "paths(): %s", err.message);
    return a;
}

static bool same_answer(const answer *a, const answer *b)
{
    return a->count == b->count && a->used == b->used &&
           memcmp(a->hops, b->hops, sizeof *a->hops * a->count) == 0 &&
           memcmp(a->share, b->share, sizeof *a->share * a->count) == 0 &&
           memcmp(a->ports, b->ports, sizeof *a->ports * a->used) == 0;
}

/* The router path i of `a` ends at, asserting it never comes back to one;
   its routers into `route` when not NULL (hops + 1 of them). */
static uint32_t walk(const net *n, const answer *a, uint32_t i, uint32_t src, uint32_t *route)
{
    bool *seen = calloc(n->routers, sizeof *seen);
    uint32_t r = src;
    for (uint32_t h = 0; h < a->hops[i]; h++) {
        if (route)
            route[h] = r;
        seen[r] = true;
        uint32_t p = a->ports[a->first[i] + h];
        cr_assert_lt(p, n->ports[r]);
        r = n->peer[r * n->max_ports + p];
        cr_assert_neq(r, NONE, "path %u leaves by a port that leads nowhere", i);
        cr_assert(!seen[r], "path %u comes back to router %u", i, r);
    }
    if (route)
        route[a->hops[i]] = r;
    free(seen);
    return r;
}

/* ---- every loop-free path, by brute force --------------------------------- */

static const answer *sorting;

static int by_hops_then_ports(const void *x, const void *y)
{
    uint32_t i = *(const uint32_t *)x, j = *(const uint32_t *)y;
    const answer *a = sorting;
    if (a->hops[i] != a->hops[j])
        return a->hops[i] < a->hops[j] ? -1 : 1;
    for (uint32_t h = 0; h < a->hops[i]; h++) {
        uint32_t p = a->ports[a->first[i] + h], q = a->ports[a->first[j] + h];
        if (p != q)
            return p < q ? -1 : 1;
    }
    return 0;
}

static void every_path_from(const net *n, uint32_t r, uint32_t dst, bool *seen, uint32_t *path,
                            uint32_t depth, answer *all)
{
    if (r == dst) {
        add_path(all, path, depth, 1.0);
        return;
    }
    seen[r] = true;
    for (uint32_t p = 0; p < n->ports[r]; p++) {
        uint32_t q = n->peer[r * n->max_ports + p];
        if (q != NONE && !seen[q]) {
            path[depth] = p;
            every_path_from(n, q, dst, seen, path, depth + 1, all);
        }
    }
    seen[r] = false;
}

/* Every loop-free path from src to dst, sorted by hops, then the lower port
   at the first router where two differ. */
static answer *every_path(const net *n, uint32_t src, uint32_t dst)
{
    answer *all = calloc(1, sizeof *all), *sorted = calloc(1, sizeof *sorted);
    bool *seen = calloc(n->routers, sizeof *seen);
    uint32_t path[64], *order = malloc(sizeof *order * 4096);
    every_path_from(n, src, dst, seen, path, 0, all);
    for (uint32_t i = 0; i < all->count; i++)
        order[i] = i;
    sorting = all;
    qsort(order, all->count, sizeof *order, by_hops_then_ports);
    for (uint32_t i = 0; i < all->count; i++)
        add_path(sorted, all->ports + all->first[order[i]], all->hops[order[i]], 1.0);
    free(order);
    free(seen);
    free(all);
    return sorted;
}

/* Paths first..first+count of `a` are exactly those of `b`, in order. */
static void assert_same_paths(const answer *a, const answer *b, uint32_t count,
                              const char *what)
{
    cr_assert_eq(a->count, count, "%s: %u paths, not %u", what, a->count, count);
    for (uint32_t i = 0; i < count; i++) {
        cr_assert_eq(a->hops[i], b->hops[i], "%s: path %u", what, i);
        cr_assert_arr_eq(a->ports + a->first[i], b->ports + b->first[i],
                         sizeof *a->ports * a->hops[i], "%s: path %u", what, i);
    }
}

static uint32_t min_u(uint32_t a, uint32_t b)
{
    return a < b ? a : b;
}

/* ---- closed forms -------------------------------------------------------- */

/* A ring of n routers has two loop-free paths between two of them, one
   each way round, of d and n - d hops: k = 2 gives both, the shorter first
   (by port when they tie), each carrying half the flow; k = 4 no more. */
static void assert_ring(uint32_t n)
{
    net g;
    net_grid(&g, "torus", (const int64_t[]){n}, 1);
    const insee_routing_vtable *vt;
    void *two = routing_new("ksp", &g, (const setting[]){{"k", 2}, {NULL, 0}}, &vt);
    void *four = routing_new("ksp", &g, (const setting[]){{"k", 4}, {NULL, 0}}, &vt);
    uint32_t route[64];
    for (uint32_t s = 0; s < n; s++) {
        for (uint32_t t = 0; t < n; t++) {
            if (s == t)
                continue;
            answer *a = ask(vt, two, s, t, 0), *b = ask(vt, four, s, t, 0);
            cr_assert_eq(a->count, 2, "%u -> %u", s, t);
            cr_assert(same_answer(a, b), "%u -> %u: only two paths exist", s, t);
            uint32_t d = (t + n - s) % n, shorter = min_u(d, n - d);
            cr_assert_eq(a->hops[0], shorter);
            cr_assert_eq(a->hops[1], n - shorter);
            int steps[2];
            for (uint32_t i = 0; i < 2; i++) {
                cr_assert_eq(walk(&g, a, i, s, route), t);
                cr_assert_float_eq(a->share[i], 0.5, 1e-15);
                /* one way round: every hop the same step */
                steps[i] = (int)((route[1] + n - route[0]) % n);
                for (uint32_t h = 0; h < a->hops[i]; h++)
                    cr_assert_eq((route[h + 1] + n - route[h]) % n, (uint32_t)steps[i]);
            }
            cr_assert_neq(steps[0], steps[1], "%u -> %u: both ways round", s, t);
            if (2 * d == n)
                cr_assert_lt(a->ports[0], a->ports[a->first[1]], "a tie goes by port");
            free(a);
            free(b);
        }
    }
    vt->destroy(two);
    vt->destroy(four);
    net_free(&g);
}

Test(routing, ksp_gives_both_ways_round_a_ring)
{
    assert_ring(9);
    assert_ring(8);
}

static uint64_t binomial(uint32_t n, uint32_t k)
{
    uint64_t c = 1;
    for (uint32_t i = 1; i <= k; i++)
        c = c * (n - k + i) / i;
    return c;
}

/* On a grid the minimal paths from (x, y) to (x', y') interleave |dx| steps
   in x with |dy| in y: C(|dx| + |dy|, |dx|) of them; on an odd torus dx is
   the shorter way round. allpath with extra_hops = 0 lists them all, or
   max_paths of them. */
static void assert_binomial(const char *topology, const int64_t *dims, bool wrap)
{
    net g;
    net_grid(&g, topology, dims, 2);
    const insee_routing_vtable *vt;
    void *all = routing_new("allpath", &g, (const setting[]){{"max_paths", 65536}, {NULL, 0}},
                            &vt);
    void *capped = routing_new("allpath", &g, NULL, &vt);
    for (uint32_t s = 0; s < g.routers; s++) {
        for (uint32_t t = 0; t < g.routers; t++) {
            if (s == t)
                continue;
            int32_t cs[2], ct[2];
            cr_assert_eq(g.k.topo->coords(g.k.topo_self, s, cs, 2), 2);
            cr_assert_eq(g.k.topo->coords(g.k.topo_self, t, ct, 2), 2);
            uint32_t dx = (uint32_t)abs(cs[0] - ct[0]), dy = (uint32_t)abs(cs[1] - ct[1]);
            if (wrap) {
                dx = min_u(dx, (uint32_t)dims[0] - dx);
                dy = min_u(dy, (uint32_t)dims[1] - dy);
            }
            uint64_t paths = binomial(dx + dy, dx);
            answer *a = ask(vt, all, s, t, 0), *c = ask(vt, capped, s, t, 0);
            cr_assert_eq(a->count, paths, "%s %u -> %u: %u paths, not %lu", topology, s, t,
                         a->count, (unsigned long)paths);
            cr_assert_eq(c->count, min_u((uint32_t)paths, 16));
            for (uint32_t i = 0; i < a->count; i++) {
                cr_assert_eq(a->hops[i], dx + dy);
                cr_assert_eq(walk(&g, a, i, s, NULL), t);
                cr_assert_float_eq(a->share[i], 1.0 / (double)paths, 1e-15);
            }
            assert_same_paths(c, a, c->count, "the cap keeps the first");
            free(a);
            free(c);
        }
    }
    vt->destroy(all);
    vt->destroy(capped);
    net_free(&g);
}

Test(routing, allpath_counts_the_binomial_minimal_paths_of_a_grid)
{
    assert_binomial("mesh", (const int64_t[]){5, 4}, false);
    assert_binomial("torus", (const int64_t[]){5, 7}, true);
}

/* ---- against brute force --------------------------------------------------- */

/* ksp's k paths are the first k of every loop-free path in order, and
   allpath's those within extra_hops of the shortest, up to max_paths. */
static void assert_first_paths(net *g)
{
    static const uint32_t ks[] = {1, 2, 3, 5, 9};
    const insee_routing_vtable *vt, *avt;
    void *ksp[5], *ap[3][2];
    for (uint32_t i = 0; i < 5; i++)
        ksp[i] = routing_new("ksp", g, (const setting[]){{"k", ks[i]}, {NULL, 0}}, &vt);
    for (uint32_t e = 0; e < 3; e++)
        for (uint32_t m = 0; m < 2; m++)
            ap[e][m] = routing_new("allpath", g,
                                   (const setting[]){{"extra_hops", e},
                                                     {"max_paths", m ? 4000 : 5},
                                                     {NULL, 0}},
                                   &avt);
    for (uint32_t s = 0; s < g->routers; s++) {
        for (uint32_t t = 0; t < g->routers; t++) {
            if (s == t)
                continue;
            answer *every = every_path(g, s, t);
            cr_assert_gt(every->count, 0);
            for (uint32_t i = 0; i < 5; i++) {
                answer *a = ask(vt, ksp[i], s, t, 0);
                char what[64];
                snprintf(what, sizeof what, "ksp k=%u %u -> %u", ks[i], s, t);
                assert_same_paths(a, every, min_u(ks[i], every->count), what);
                free(a);
            }
            for (uint32_t e = 0; e < 3; e++) {
                uint32_t within = 0;
                while (within < every->count && every->hops[within] <= every->hops[0] + e)
                    within++;
                for (uint32_t m = 0; m < 2; m++) {
                    answer *a = ask(avt, ap[e][m], s, t, 0);
                    char what[64];
                    snprintf(what, sizeof what, "allpath extra_hops=%u %u -> %u", e, s, t);
                    assert_same_paths(a, every, min_u(within, m ? 4000 : 5), what);
                    free(a);
                }
            }
            free(every);
        }
    }
    for (uint32_t i = 0; i < 5; i++)
        vt->destroy(ksp[i]);
    for (uint32_t e = 0; e < 3; e++)
        for (uint32_t m = 0; m < 2; m++)
            avt->destroy(ap[e][m]);
}

Test(routing, ksp_and_allpath_give_the_first_loop_free_paths_in_order)
{
    net g;
    net_petersen(&g);
    assert_first_paths(&g);
    net_free(&g);
    net_irregular(&g);
    assert_first_paths(&g);
    net_free(&g);
    net_grid(&g, "torus", (const int64_t[]){3, 3}, 2);
    assert_first_paths(&g);
    net_free(&g);
    net_grid(&g, "mesh", (const int64_t[]){3, 3}, 2);
    assert_first_paths(&g);
    net_free(&g);
}

/* ---- against ecmp and bfs ---------------------------------------------------- */

/* Same paths and shares for every pair from two routings. */
static void assert_same_routing(net *g, const char *a_name, const setting *a_set,
                                const char *b_name, const setting *b_set)
{
    const insee_routing_vtable *avt, *bvt;
    void *a = routing_new(a_name, g, a_set, &avt), *b = routing_new(b_name, g, b_set, &bvt);
    for (uint32_t s = 0; s < g->routers; s++) {
        for (uint32_t t = 0; t < g->routers; t++) {
            if (s == t)
                continue;
            answer *x = ask(avt, a, s, t, 0), *y = ask(bvt, b, s, t, 0);
            cr_assert(same_answer(x, y), "%s and %s differ from %u to %u", a_name, b_name, s, t);
            free(x);
            free(y);
        }
    }
    avt->destroy(a);
    bvt->destroy(b);
}

/* allpath without extra hops is ecmp's even split, max_paths for
   max_paths; ksp with k = 1 is bfs. */
static void assert_like_ecmp_and_bfs(net *g)
{
    for (int64_t m = 1; m <= 64; m *= 4)
        assert_same_routing(g, "allpath", (const setting[]){{"max_paths", m}, {NULL, 0}},
                            "ecmp", (const setting[]){{"max_paths", m}, {NULL, 0}});
    assert_same_routing(g, "ksp", (const setting[]){{"k", 1}, {NULL, 0}}, "bfs", NULL);
}

Test(routing, allpath_without_extra_hops_is_ecmp_and_ksp_of_one_is_bfs)
{
    net g;
    net_grid(&g, "torus", (const int64_t[]){4, 6}, 2);
    assert_like_ecmp_and_bfs(&g);
    net_free(&g);
    net_grid(&g, "mesh", (const int64_t[]){3, 5}, 2);
    assert_like_ecmp_and_bfs(&g);
    net_free(&g);
    net_irregular(&g);
    assert_like_ecmp_and_bfs(&g);
    net_free(&g);
}

/* ---- splits, cache, properties ------------------------------------------------- */

/* Hashed, a flow goes whole on one of the paths the even split lists, the
   same one for the same salt, and salts reach every one of them. */
static void assert_hash(const char *name, const setting *even, const setting *hash)
{
    net g;
    net_petersen(&g);
    const insee_routing_vtable *vt;
    void *e = routing_new(name, &g, even, &vt), *h = routing_new(name, &g, hash, &vt);
    for (uint32_t t = 1; t < g.routers; t++) {
        answer *all = ask(vt, e, 0, t, 0);
        bool picked[4096] = {false};
        for (uint32_t salt = 0; salt < 64 * all->count; salt++) {
            answer *one = ask(vt, h, 0, t, salt * 2654435761u);
            cr_assert_eq(one->count, 1);
            cr_assert_eq(one->share[0], 1.0);
            uint32_t i = 0;
            while (i < all->count &&
                   !(all->hops[i] == one->hops[0] &&
                     memcmp(all->ports + all->first[i], one->ports,
                            sizeof *one->ports * one->hops[0]) == 0))
                i++;
            cr_assert_lt(i, all->count, "%s 0 -> %u: the hashed path is one of the even split's",
                         name, t);
            picked[i] = true;
            answer *again = ask(vt, h, 0, t, salt * 2654435761u);
            cr_assert(same_answer(one, again));
            free(one);
            free(again);
        }
        for (uint32_t i = 0; i < all->count; i++)
            cr_assert(picked[i], "%s 0 -> %u: path %u never picked", name, t, i);
        free(all);
    }
    vt->destroy(e);
    vt->destroy(h);
    net_free(&g);
}

Test(routing, hashed_flows_go_whole_on_one_of_the_paths)
{
    assert_hash("ksp", NULL, (const setting[]){{"split", 1}, {NULL, 0}});
    assert_hash("allpath", (const setting[]){{"extra_hops", 2}, {NULL, 0}},
                (const setting[]){{"extra_hops", 2}, {"split", 1}, {NULL, 0}});
}

/* A cache of 1 KiB holds a few pairs at most (and 1 KiB of distance
   tables a few destinations): asked in a scrambled order, twice, it
   answers as one that holds every pair. */
static void assert_cache_blind(const char *name, const setting *big, const setting *tiny)
{
    net g;
    net_grid(&g, "torus", (const int64_t[]){6, 6}, 2);
    const insee_routing_vtable *vt;
    void *ref = routing_new(name, &g, big, &vt), *small = routing_new(name, &g, tiny, &vt);
    uint32_t pairs = g.routers * g.routers;
    for (uint32_t round = 0; round < 2; round++) {
        for (uint32_t i = 0; i < pairs; i++) {
            uint32_t x = (i * 7919u + round * 31u) % pairs, s = x / g.routers, t = x % g.routers;
            if (s == t)
                continue;
            answer *a = ask(vt, ref, s, t, x), *b = ask(vt, small, s, t, x);
            cr_assert(same_answer(a, b), "%s %u -> %u", name, s, t);
            free(a);
            free(b);
        }
    }
    vt->destroy(ref);
    vt->destroy(small);
    net_free(&g);
}

Test(routing, answers_do_not_depend_on_what_the_cache_holds)
{
    assert_cache_blind("ksp", (const setting[]){{"k", 6}, {NULL, 0}},
                       (const setting[]){{"k", 6}, {"cache_mb", 1}, {"table_mb", 1}, {NULL, 0}});
    assert_cache_blind("allpath", (const setting[]){{"extra_hops", 2}, {NULL, 0}},
                       (const setting[]){{"extra_hops", 2}, {"cache_mb", 1}, {NULL, 0}});
}

static uint32_t properties_of(const char *name, const setting *set)
{
    net g;
    net_petersen(&g);
    const insee_routing_vtable *vt;
    void *self = routing_new(name, &g, set, &vt);
    uint32_t p = vt->properties(self);
    vt->destroy(self);
    net_free(&g);
    return p;
}

Test(routing, only_single_shortest_or_unstretched_paths_are_declared_minimal)
{
    cr_assert_eq(properties_of("ksp", (const setting[]){{"k", 1}, {NULL, 0}}),
                 INSEE_PATHS_MINIMAL);
    cr_assert_eq(properties_of("ksp", NULL), 0);
    cr_assert_eq(properties_of("allpath", NULL), INSEE_PATHS_MINIMAL);
    cr_assert_eq(properties_of("allpath", (const setting[]){{"extra_hops", 1}, {NULL, 0}}), 0);
}

/* A router the graph does not reach gets no path (the flow is unroutable). */
Test(routing, unconnected_routers_get_no_path)
{
    static const uint32_t links[] = {0, 1, 1, 2, 2, 0, 3, 4};
    net g;
    net_links(&g, 5, links, 4);
    static const char *const names[] = {"ksp", "allpath"};
    for (uint32_t i = 0; i < 2; i++) {
        const insee_routing_vtable *vt;
        void *self = routing_new(names[i], &g, NULL, &vt);
        answer *a = ask(vt, self, 0, 4, 0), *b = ask(vt, self, 3, 4, 0);
        cr_assert_eq(a->count, 0, "%s", names[i]);
        cr_assert_eq(b->count, 1, "%s: the one path of a single link", names[i]);
        free(a);
        free(b);
        vt->destroy(self);
    }
    net_free(&g);
}
