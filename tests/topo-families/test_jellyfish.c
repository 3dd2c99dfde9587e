/* test_jellyfish.c — the jellyfish plugin: every size of a sweep gives a
 * simple, regular, connected graph (BFS) with routers * degree / 2 links;
 * distances, diameter and minimal hops match a BFS; the same seed gives the
 * same link table and another seed another graph; impossible sizes are
 * refused with what to change. */
#include "families.h"
#include "topo_check.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

static void *try_jf(int64_t routers, int64_t degree, int64_t p, uint64_t seed, insee_error *err)
{
    insee_value params[3] = {value_int(routers), value_int(degree), value_int(p)};
    return fam_try("jellyfish", params, seed, err);
}

static void make_jf(fam *t, int64_t routers, int64_t degree, int64_t p, uint64_t seed)
{
    insee_value params[3] = {value_int(routers), value_int(degree), value_int(p)};
    fam_make(t, "jellyfish", params, seed);
}

/* Regular (every port plugged), simple (no two ports to one neighbour, no
   loop: fam_check_links) and connected (BFS from router 0 reaches all). */
static void check_graph(const fam *t, uint32_t routers, uint32_t degree, uint32_t p)
{
    cr_assert_eq(t->info.routers, routers);
    cr_assert_eq(t->info.nodes, routers * p);
    cr_assert_eq(t->info.max_ports, degree);
    cr_assert_eq(t->info.dims, 0u);
    cr_assert_eq(fam_channels(t), (uint64_t)routers * degree, "%u routers of degree %u", routers,
                 degree);
    fam_check_links(t);
    for (uint32_t r = 0; r < routers; r++) {
        cr_assert_eq(t->vt->ports(t->self, r), degree);
        for (uint32_t q = 1; q < degree; q++) {
            insee_port_peer a, b;
            t->vt->link(t->self, r, q - 1, &a);
            t->vt->link(t->self, r, q, &b);
            /* Ports in increasing neighbour order: distinct neighbours. */
            cr_assert_lt(a.router, b.router, "router %u ports %u and %u", r, q - 1, q);
        }
    }
    for (uint32_t node = 0; node < t->info.nodes; node++)
        cr_assert_eq(t->vt->node_router(t->self, node), node / p);
    topo_table links;
    topo_read(&links, t->vt, t->self);
    uint32_t *dist = malloc(sizeof *dist * routers);
    uint32_t reached = topo_bfs(&links, 0, dist);
    cr_assert_eq(reached, routers, "%u routers of degree %u: only %u connected", routers, degree,
                 reached);
    free(dist);
    topo_table_free(&links);
}

/* Every small size with routers * degree even, under several seeds. */
Test(jellyfish, small_sizes_sweep)
{
    for (uint32_t n = 3; n <= 24; n++)
        for (uint32_t r = 2; r < n; r++) {
            if (n * r % 2)
                continue;
            for (uint64_t seed = 1; seed <= 4; seed++) {
                fam t;
                make_jf(&t, n, r, 1, seed);
                check_graph(&t, n, r, 1);
                fam_free(&t);
            }
        }
}

Test(jellyfish, distances_and_minimal_hops)
{
    static const uint32_t sizes[][3] = {{4, 3, 1},  {10, 2, 1},  {11, 4, 2},  {16, 5, 1},
                                        {33, 6, 3}, {50, 7, 1},  {64, 2, 1},  {100, 3, 1},
                                        {200, 10, 1}, {500, 5, 1}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        fam t;
        make_jf(&t, sizes[i][0], sizes[i][1], sizes[i][2], 1 + i);
        check_graph(&t, sizes[i][0], sizes[i][1], sizes[i][2]);
        fam_check_all(&t);
        fam_free(&t);
    }
    /* A complete graph: one hop to everyone. */
    fam k;
    make_jf(&k, 6, 5, 1, 1);
    cr_assert_eq(k.info.diameter, 1u);
    fam_free(&k);
}


/* The graph is a function of the experiment seed: the same seed, the same
   link table (two instances side by side); another seed, another graph. */
Test(jellyfish, seeded)
{
    fam a, b, c;
    make_jf(&a, 64, 5, 1, 7);
    make_jf(&b, 64, 5, 1, 7);
    make_jf(&c, 64, 5, 1, 8);
    topo_table ta, tb, tc;
    topo_read(&ta, a.vt, a.self);
    topo_read(&tb, b.vt, b.self);
    topo_read(&tc, c.vt, c.self);
    char why[160];
    cr_assert(topo_same_links(&ta, &tb, why, sizeof why), "seed 7 twice: %s", why);
    cr_assert_not(topo_same_links(&ta, &tc, NULL, 0), "seeds 7 and 8 give one graph");
    topo_table_free(&ta);
    topo_table_free(&tb);
    topo_table_free(&tc);
    fam_free(&a);
    fam_free(&b);
    fam_free(&c);
}

static void refused(int64_t routers, int64_t degree, const char *says)
{
    insee_error err;
    cr_assert_null(try_jf(routers, degree, 1, 1, &err), "%lld routers of degree %lld",
                   (long long)routers, (long long)degree);
    cr_assert_eq(err.code, INSEE_ERR_PARAM);
    cr_assert_not_null(strstr(err.message, says), "%s", err.message);
}

Test(jellyfish, impossible_sizes_refused)
{
    refused(9, 7, "routers * degree = 9 * 7 is odd");
    refused(5, 5, "degree = 5 >= routers = 5");
    refused(8192, 300, "too long to build");
    refused(600, 2, "degree 2 makes a ring"); /* diameter 300 */
}
