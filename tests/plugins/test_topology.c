/* test_topology.c — the torus and mesh plugins against closed forms and a
 * breadth-first search: wiring and link symmetry, distances (average over
 * all ordered pairs, diameter), minimal hops (each reduces the distance by
 * exactly one, all of them are listed, flags WRAP / WRAP_AHEAD / TIE right). */
#include "harness.h"
#include "topo_check.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

typedef struct topo {
    insee_kernel k;
    const insee_topology_vtable *vt;
    void *self;
    insee_topology_info info;
    const int64_t *dims;
    size_t n;
    bool wrap, bidir;
} topo;

static topo make(const char *name, const int64_t *dims, size_t n, bool bidirectional)
{
    topo t = {.dims = dims, .n = n};
    mock_topology(&t.k, name, dims, n, bidirectional);
    t.vt = t.k.topo;
    t.self = t.k.topo_self;
    t.vt->info(t.self, &t.info);
    t.wrap = strcmp(name, "torus") == 0;
    t.bidir = !t.wrap || bidirectional;
    return t;
}

/* Coordinate of `node` in dimension d, independently of the plugin. */
static uint32_t coord_of(const topo *t, uint32_t node, size_t d)
{
    for (size_t i = 0; i < d; i++)
        node /= (uint32_t)t->dims[i];
    return node % (uint32_t)t->dims[d];
}

/* Closed-form distance along one dimension. */
static uint32_t dim_dist(const topo *t, size_t d, uint32_t s, uint32_t x)
{
    uint32_t k = (uint32_t)t->dims[d];
    if (!t->wrap)
        return s > x ? s - x : x - s;
    uint32_t fwd = (x + k - s) % k;
    return t->bidir && k - fwd < fwd ? k - fwd : fwd;
}

/* Closed-form average distance over all ordered pairs, self included. */
static double closed_average(const topo *t)
{
    double sum = 0;
    for (size_t d = 0; d < t->n; d++) {
        double k = (double)t->dims[d];
        if (!t->wrap)
            sum += (k * k - 1) / (3 * k);
        else if (!t->bidir)
            sum += (k - 1) / 2;
        else if ((t->dims[d] & 1) == 0)
            sum += k / 4;
        else
            sum += (k * k - 1) / (4 * k);
    }
    return sum;
}

static uint32_t closed_diameter(const topo *t)
{
    uint32_t sum = 0;
    for (size_t d = 0; d < t->n; d++)
        sum += t->wrap && t->bidir ? (uint32_t)t->dims[d] / 2 : (uint32_t)t->dims[d] - 1;
    return sum;
}

static void check_info(const topo *t)
{
    uint32_t nodes = 1;
    for (size_t d = 0; d < t->n; d++)
        nodes *= (uint32_t)t->dims[d];
    cr_assert_eq(t->info.routers, nodes);
    cr_assert_eq(t->info.nodes, nodes);
    cr_assert_eq(t->info.dims, t->n);
    cr_assert_eq(t->info.max_ports, t->bidir ? 2 * t->n : t->n);
    cr_assert_eq(t->info.flags, (t->bidir ? 0u : (uint32_t)INSEE_TOPO_DIRECTED) | INSEE_TOPO_CONCURRENT);
    cr_assert_eq(t->info.diameter, closed_diameter(t));
    for (uint32_t r = 0; r < nodes; r++) {
        cr_assert_eq(t->vt->ports(t->self, r), t->info.max_ports);
        cr_assert_eq(t->vt->node_router(t->self, r), r);
        int32_t c[8];
        cr_assert_eq(t->vt->coords(t->self, r, c, 8), t->n);
        for (size_t d = 0; d < t->n; d++)
            cr_assert_eq((uint32_t)c[d], coord_of(t, r, d));
    }
}

/* Wiring: ports lead to the right neighbour, every input is fed at most
   once, bidirectional links come back into the same port index (those two
   by topo_check_links), mesh borders (and only they) are unplugged,
   port_info agrees. */
static void check_links(const topo *t, const topo_table *links)
{
    uint32_t N = t->info.routers, P = t->info.max_ports;
    uint32_t expected_plugged = 0;
    for (size_t d = 0; d < t->n; d++) {
        uint32_t k = (uint32_t)t->dims[d];
        expected_plugged += (t->wrap ? k : k - 1) * (N / k) * (t->bidir ? 2 : 1);
    }
    cr_assert_eq(topo_check_links(links), expected_plugged);
    for (uint32_t r = 0; r < N; r++) {
        for (uint32_t p = 0; p < P; p++) {
            uint32_t d = t->bidir ? p / 2 : p;
            int dir = t->bidir && (p & 1) ? -1 : +1;
            uint32_t k = (uint32_t)t->dims[d], s = coord_of(t, r, d);
            bool border = dir > 0 ? s == k - 1 : s == 0;
            insee_hop info;
            t->vt->port_info(t->self, r, p, &info);
            cr_assert_eq(info.port, p);
            cr_assert_eq(info.dim, (int16_t)d);
            cr_assert_eq(info.dir, dir);
            cr_assert_eq(info.flags, t->wrap && border ? INSEE_HOP_WRAP : 0,
                         "router %u port %u", r, p);
            insee_port_peer peer;
            bool ok = t->vt->link(t->self, r, p, &peer);
            cr_assert_eq(ok, t->wrap || !border, "router %u port %u plugged=%d", r, p, ok);
            if (!ok)
                continue;
            for (size_t e = 0; e < t->n; e++) {
                uint32_t want = coord_of(t, r, e);
                if (e == d)
                    want = (want + (dir > 0 ? 1 : k - 1)) % k;
                cr_assert_eq(coord_of(t, peer.router, e), want);
            }
            if (!t->bidir) {
                /* Unidirectional: the + link feeds input + of the next router,
                   whose output + goes on, never back (rings longer than 2). */
                insee_port_peer back;
                t->vt->link(t->self, peer.router, peer.port, &back);
                cr_assert_eq(peer.port, p);
                if (k > 2)
                    cr_assert_neq(back.router, r);
            }
        }
    }
}

static void check_distances(const topo *t, const topo_table *links, const uint32_t *bfs)
{
    uint32_t N = t->info.routers, max;
    uint64_t sum = topo_check_distances(links, bfs, &max);
    cr_assert_float_eq((double)sum / ((double)N * N), closed_average(t), 1e-9);
    cr_assert_eq(max, t->info.diameter);
}

/* Follow `hops` links out of `port` from `r`; true if one is a wrap link. */
static bool crosses_wrap(const topo *t, uint32_t r, uint32_t port, uint32_t hops)
{
    bool wrapped = false;
    for (uint32_t i = 0; i < hops; i++) {
        insee_hop info;
        t->vt->port_info(t->self, r, port, &info);
        wrapped |= (info.flags & INSEE_HOP_WRAP) != 0;
        insee_port_peer peer;
        cr_assert(t->vt->link(t->self, r, port, &peer));
        r = peer.router;
    }
    return wrapped;
}

/* The hops topo_check_hops finds minimal, complete and in dimension order,
   against the closed forms: dim_hops, WRAP, WRAP_AHEAD and TIE. */
static void check_minimal_hops_pair(const topo *t, const topo_table *links, const uint32_t *bfs,
                                    uint32_t r, uint32_t x, uint32_t salt)
{
    insee_hop hops[64];
    uint32_t n = topo_check_hops(links, bfs, r, x, salt, hops, 64);
    for (uint32_t i = 0; i < n; i++) {
        const insee_hop *h = &hops[i];
        insee_hop info;
        t->vt->port_info(t->self, r, h->port, &info);
        cr_assert_eq(h->flags & INSEE_HOP_WRAP, info.flags & INSEE_HOP_WRAP);
        size_t d = (size_t)h->dim;
        uint32_t dh = dim_dist(t, d, coord_of(t, r, d), coord_of(t, x, d));
        cr_assert_eq(h->dim_hops, dh, "%u -> %u dim %zu", r, x, d);
        cr_assert_eq((h->flags & INSEE_HOP_WRAP_AHEAD) != 0,
                     crosses_wrap(t, r, h->port, h->dim_hops), "%u -> %u port %u", r, x,
                     h->port);
        /* A tie lists both directions of the dimension, adjacently, the
           one the salt bit chooses first (set: - first). */
        bool tie = t->wrap && t->bidir && 2 * dh == (uint32_t)t->dims[d];
        cr_assert_eq((h->flags & INSEE_HOP_TIE) != 0, tie);
        if (tie) {
            bool first = i == 0 || hops[i - 1].dim != h->dim;
            int want = ((salt >> (d % 32)) & 1) ? -1 : +1;
            cr_assert_eq(h->dir, first ? want : -want, "%u -> %u salt %x", r, x, salt);
        }
    }
}

static void check_minimal_hops(const topo *t, const topo_table *links, const uint32_t *bfs)
{
    static const uint32_t salts[] = {0u, ~0u, 0x5u, 0xAu};
    uint32_t N = t->info.routers;
    for (uint32_t r = 0; r < N; r++)
        for (uint32_t x = 0; x < N; x++)
            for (size_t s = 0; s < sizeof salts / sizeof salts[0]; s++)
                check_minimal_hops_pair(t, links, bfs, r, x, salts[s]);
}

static void check_all(const char *name, const int64_t *dims, size_t n, bool bidirectional)
{
    topo t = make(name, dims, n, bidirectional);
    check_info(&t);
    topo_table links;
    topo_read(&links, t.vt, t.self);
    check_links(&t, &links);
    uint32_t *bfs = topo_bfs_all(&links);
    check_distances(&t, &links, bfs);
    check_minimal_hops(&t, &links, bfs);
    free(bfs);
    topo_table_free(&links);
    mock_topology_free(&t.k);
}

#define DIMS(...) (const int64_t[]){__VA_ARGS__}, sizeof((const int64_t[]){__VA_ARGS__}) / sizeof(int64_t)

Test(torus, bidirectional_1d)
{
    check_all("torus", DIMS(2), true);
    check_all("torus", DIMS(3), true);
    check_all("torus", DIMS(4), true);
    check_all("torus", DIMS(5), true);
    check_all("torus", DIMS(8), true);
}

Test(torus, bidirectional_2d)
{
    check_all("torus", DIMS(4, 5), true);
    check_all("torus", DIMS(8, 8), true);
    check_all("torus", DIMS(2, 3), true);
}

Test(torus, bidirectional_3d)
{
    check_all("torus", DIMS(4, 5, 8), true);
    check_all("torus", DIMS(3, 2, 4), true);
}

Test(torus, unidirectional)
{
    check_all("torus", DIMS(2), false);
    check_all("torus", DIMS(5), false);
    check_all("torus", DIMS(8), false);
    check_all("torus", DIMS(4, 5), false);
    check_all("torus", DIMS(3, 4, 5), false);
}

Test(mesh, all_sizes)
{
    check_all("mesh", DIMS(1), true);
    check_all("mesh", DIMS(4), true);
    check_all("mesh", DIMS(5), true);
    check_all("mesh", DIMS(8), true);
    check_all("mesh", DIMS(4, 5), true);
    check_all("mesh", DIMS(1, 8), true);
    check_all("mesh", DIMS(3, 4, 5), true);
}

/* Hand-picked minimal hops on a ring of 8 (ports: 0 = +, 1 = -). */
Test(torus, ring_of_8_by_hand)
{
    topo t = make("torus", DIMS(8), true);
    insee_hop h[4];
    /* 6 -> 1: + over the wrap link 7 -> 0 */
    cr_assert_eq(t.vt->minimal_hops(t.self, 6, 1, 0, h, 4), 1u);
    cr_assert_eq(h[0].port, 0);
    cr_assert_eq(h[0].dim_hops, 3);
    cr_assert_eq(h[0].flags, INSEE_HOP_WRAP_AHEAD);
    cr_assert_eq(t.vt->minimal_hops(t.self, 7, 1, 0, h, 4), 1u);
    cr_assert_eq(h[0].flags, INSEE_HOP_WRAP_AHEAD | INSEE_HOP_WRAP);
    cr_assert_eq(t.vt->minimal_hops(t.self, 0, 1, 0, h, 4), 1u);
    cr_assert_eq(h[0].flags, 0);
    /* 1 -> 6: - over the wrap link 0 -> 7 */
    cr_assert_eq(t.vt->minimal_hops(t.self, 1, 6, 0, h, 4), 1u);
    cr_assert_eq(h[0].port, 1);
    cr_assert_eq(h[0].dir, -1);
    cr_assert_eq(h[0].flags, INSEE_HOP_WRAP_AHEAD);
    /* 0 -> 4: a tie; salt bit 0 picks the direction listed first */
    cr_assert_eq(t.vt->minimal_hops(t.self, 0, 4, 0, h, 4), 2u);
    cr_assert_eq(h[0].port, 0);
    cr_assert_eq(h[0].flags, INSEE_HOP_TIE);
    cr_assert_eq(h[1].port, 1);
    cr_assert_eq(h[1].flags, INSEE_HOP_TIE | INSEE_HOP_WRAP | INSEE_HOP_WRAP_AHEAD);
    cr_assert_eq(t.vt->minimal_hops(t.self, 0, 4, 1, h, 4), 2u);
    cr_assert_eq(h[0].port, 1);
    cr_assert_eq(h[1].port, 0);
    /* the wiring: out +0 of 3 enters 4 by its - port, and back */
    insee_port_peer peer;
    cr_assert(t.vt->link(t.self, 3, 0, &peer));
    cr_assert_eq(peer.router, 4);
    cr_assert_eq(peer.port, 1);
    mock_topology_free(&t.k);
}

/* A ring of 2: the + and - links of a router both reach the other router,
   as two distinct physical links. */
Test(torus, ring_of_2_two_links)
{
    topo t = make("torus", DIMS(2), true);
    insee_port_peer a, b;
    cr_assert(t.vt->link(t.self, 0, 0, &a));
    cr_assert(t.vt->link(t.self, 0, 1, &b));
    cr_assert_eq(a.router, 1);
    cr_assert_eq(a.port, 1);
    cr_assert_eq(b.router, 1);
    cr_assert_eq(b.port, 0);
    mock_topology_free(&t.k);
}

Test(torus, unidirectional_distance_is_mod_k)
{
    topo t = make("torus", DIMS(5, 8), false);
    for (uint32_t s = 0; s < 40; s++)
        for (uint32_t x = 0; x < 40; x++) {
            uint32_t want = (x % 5 + 5 - s % 5) % 5 + (x / 5 + 8 - s / 5) % 8;
            cr_assert_eq(t.vt->distance(t.self, s, x), want);
        }
    mock_topology_free(&t.k);
}

/* Nothing is sized by the node count squared: a 64x32x32 torus is cheap. */
Test(torus, large_is_cheap)
{
    topo t = make("torus", DIMS(64, 32, 32), true);
    cr_assert_eq(t.info.nodes, 65536u);
    cr_assert_eq(t.info.diameter, 64u);
    uint32_t far = 32 + 64 * (16 + 32 * 16);
    cr_assert_eq(t.vt->distance(t.self, 0, far), 64u);
    insee_hop h[8];
    cr_assert_eq(t.vt->minimal_hops(t.self, 0, far, 0, h, 8), 6u); /* three ties */
    mock_topology_free(&t.k);
}

Test(torus, bad_dims_are_refused)
{
    const insee_plugin_desc *d = load_plugin("topology", "torus");
    const insee_topology_vtable *vt = d->vtable;
    insee_kernel k = {0};
    insee_host host = mock_host(&k);
    insee_error err = {0};
    const int64_t big[] = {65535, 65535, 2};
    insee_value params[2] = {value_int_list(big, 3), value_bool(true)};
    cr_assert_null(vt->create(&host, params, &err));
    cr_assert_eq(err.code, INSEE_ERR_PARAM);
    cr_assert_not_null(strstr(err.message, "dims"), "%s", err.message);
    err = (insee_error){0};
    params[0] = value_int_list(big, 0);
    cr_assert_null(vt->create(&host, params, &err));
    cr_assert_eq(err.code, INSEE_ERR_PARAM);
}

Test(topology, parameter_tables)
{
    const insee_plugin_desc *torus = load_plugin("topology", "torus");
    cr_assert_eq(torus->kind, INSEE_KIND_TOPOLOGY);
    cr_assert_str_eq(torus->params[0].name, "dims");
    cr_assert_eq(torus->params[0].type, INSEE_PARAM_INT_LIST);
    cr_assert_str_eq(torus->params[0].default_value, "[8, 8]");
    cr_assert_eq(torus->params[0].min, 2);
    cr_assert_str_eq(torus->params[1].name, "bidirectional");
    cr_assert_eq(torus->params[1].type, INSEE_PARAM_BOOL);
    cr_assert_str_eq(torus->params[1].default_value, "true");
    cr_assert_null(torus->params[2].name);
    const insee_plugin_desc *mesh = load_plugin("topology", "mesh");
    cr_assert_str_eq(mesh->params[0].name, "dims");
    cr_assert_eq(mesh->params[0].min, 1);
    cr_assert_null(mesh->params[1].name);
}
