/* test_shuffle.c — shuffle placement: the first node of every switch, then
 * the second of every switch, ...; consecutive on a direct network. */
#include "test_placement_rig.h"

#include <criterion/criterion.h>
#include <string.h>

/* The switch of each node, as the test's mock topology gives it. */
static const uint32_t *switch_of;

static uint32_t test_node_router(insee_kernel *k, uint32_t node)
{
    (void)k;
    return switch_of[node];
}

static void open_on_switches(placer *p, const uint32_t *sw, uint32_t routers)
{
    switch_of = sw;
    placer_init(p);
    p->host.node_router = test_node_router;
    p->k.shape.routers = routers;
    insee_error err;
    cr_assert(placer_create(p, "shuffle", NULL, &err), "%s", err.message);
}

Test(shuffle, four_nodes_per_switch_is_0_p_2p)
{
    uint32_t sw[16];
    for (uint32_t n = 0; n < 16; n++)
        sw[n] = n / 4; /* p = 4 nodes on each of 4 switches */
    placer p;
    open_on_switches(&p, sw, 4);
    bool avail[16];
    uint32_t map[16];
    all_available(avail, 16);
    insee_error err;
    cr_assert(placer_run(&p, 16, avail, 16, map, 1, &err), "%s", err.message);
    assert_mapping(map, (const uint32_t[]){0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15},
                   16);
    /* A second application of 4 after the first 4 tasks took 0, 4, 8, 12. */
    avail[0] = avail[4] = avail[8] = avail[12] = false;
    cr_assert(placer_run(&p, 4, avail, 16, map, 1, &err), "%s", err.message);
    assert_mapping(map, (const uint32_t[]){1, 5, 9, 13}, 4);
    placer_close(&p);
}

Test(shuffle, uneven_switches_skip_missing_ports)
{
    /* Switch 0 has nodes 0-2, switch 1 node 3, switch 2 nodes 4-5. */
    static const uint32_t sw[6] = {0, 0, 0, 1, 2, 2};
    placer p;
    open_on_switches(&p, sw, 3);
    bool avail[6];
    uint32_t map[6];
    all_available(avail, 6);
    insee_error err;
    cr_assert(placer_run(&p, 6, avail, 6, map, 1, &err), "%s", err.message);
    assert_mapping(map, (const uint32_t[]){0, 3, 4, 1, 5, 2}, 6);
    placer_close(&p);
}

Test(shuffle, direct_network_is_consecutive)
{
    placer p;
    placer_init(&p);
    mock_topology(&p.k, "torus", (const int64_t[]){4, 4}, 2, true);
    insee_error err;
    cr_assert(placer_create(&p, "shuffle", NULL, &err), "%s", err.message);
    bool avail[16];
    uint32_t map[16];
    all_available(avail, 16);
    cr_assert(placer_run(&p, 16, avail, 16, map, 1, &err), "%s", err.message);
    for (uint32_t t = 0; t < 16; t++)
        cr_assert_eq(map[t], t);
    placer_close(&p);
    mock_topology_free(&p.k);
}

Test(shuffle, refuses_a_node_on_no_router)
{
    static const uint32_t sw[4] = {0, 1, 7, 1};
    placer p;
    open_on_switches(&p, sw, 2);
    bool avail[4];
    uint32_t map[4];
    all_available(avail, 4);
    insee_error err;
    cr_assert_not(placer_run(&p, 4, avail, 4, map, 1, &err));
    cr_assert_not_null(strstr(err.message, "node 2 on router 7"), "%s", err.message);
    placer_close(&p);
}

Test(shuffle, bijection_on_several_sizes)
{
    static uint32_t sw[48];
    const uint32_t per_switch[] = {1, 2, 3, 5};
    for (size_t i = 0; i < sizeof per_switch / sizeof *per_switch; i++) {
        uint32_t nodes = 48 / per_switch[i] * per_switch[i];
        for (uint32_t n = 0; n < nodes; n++)
            sw[n] = n / per_switch[i];
        placer p;
        open_on_switches(&p, sw, nodes / per_switch[i]);
        assert_bijection_sizes(&p, nodes);
        placer_close(&p);
    }
}
