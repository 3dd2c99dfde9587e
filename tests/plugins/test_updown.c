/* test_updown.c — updown's `select = "room"` through the mock host: the
 * candidates come most free room first, in the order `first` gives them on
 * ties, whether few (a 4-ary tree's 8 up candidates), many (a 16-ary
 * tree's 32, counted by room) or with rooms far apart. */
#include "harness.h"

#include <criterion/criterion.h>
#include <string.h>

/* Free room downstream of each (port, VC) of the router asked: a spread of
   `spread` rooms with ties, differing by port and VC. */
static uint32_t spread = 1;

static uint32_t room_packets(insee_kernel *k, uint32_t router, uint32_t port, uint32_t vc)
{
    (void)k;
    (void)router;
    return (port * 7u + vc * 3u) % spread;
}

/* The candidates of updown by `select` at leaf switch 0 for a packet of the
   last node (up every way), into c. */
static uint32_t candidates(insee_kernel *k, insee_host *host, const char *select, uint32_t vcs,
                           insee_candidate *c)
{
    const insee_plugin_desc *d = load_plugin("router", "updown");
    const insee_router_vtable *vt = d->vtable;
    k->shape.vcs = vcs;
    insee_value params[2] = {value_int(0), value_enum(strcmp(select, "room") == 0, select)};
    insee_error err = {0};
    void *self = vt->create(host, params, &err);
    cr_assert_not_null(self, "updown create: %s", err.message);
    uint8_t state[64] = {0};
    cr_assert_leq(vt->packet_state_size(self), sizeof state);
    insee_rng rng;
    insee_rng_init(&rng, 1, 2);
    insee_route_ctx ctx = {.size = sizeof ctx, .router = 0, .in_port = INSEE_PORT_INJECTION,
                           .dst_node = k->shape.nodes - 1, .packet_state = state, .rng = &rng};
    uint32_t n = vt->route(self, &ctx, c, INSEE_MAX_CANDIDATES);
    vt->destroy(self);
    return n;
}

static void check_room_order(int64_t arity, uint32_t vcs, uint32_t rooms)
{
    insee_kernel k;
    memset(&k, 0, sizeof k);
    insee_host host = mock_host(&k);
    const insee_plugin_desc *d = load_plugin("topology", "kary-ntree");
    insee_value tp[3] = {value_int(arity), value_int(2), value_bool(false)};
    insee_error err = {0};
    k.topo = d->vtable;
    k.topo_self = k.topo->create(&host, tp, &err);
    cr_assert_not_null(k.topo_self, "kary-ntree create: %s", err.message);
    insee_topology_info info;
    k.topo->info(k.topo_self, &info);
    k.shape = (insee_shape){.routers = info.routers, .nodes = info.nodes,
                            .max_ports = info.max_ports, .queue_packets = rooms,
                            .packet_phits = 16};
    host.output_room = room_packets;
    insee_candidate first[INSEE_MAX_CANDIDATES], room[INSEE_MAX_CANDIDATES];
    spread = rooms;
    uint32_t n = candidates(&k, &host, "first", vcs, first);
    cr_assert_eq(n, (uint32_t)arity * vcs, "%u candidates up a %ld-ary tree", n, (long)arity);
    cr_assert_eq(candidates(&k, &host, "room", vcs, room), n);
    /* the expected order: `first`'s, stably by room, most first */
    insee_candidate want[INSEE_MAX_CANDIDATES];
    uint32_t placed = 0;
    for (uint32_t r = rooms; r-- > 0;)
        for (uint32_t i = 0; i < n; i++)
            if (room_packets(&k, 0, first[i].port, first[i].vc) == r)
                want[placed++] = first[i];
    cr_assert_eq(placed, n);
    for (uint32_t i = 0; i < n; i++)
        cr_assert(room[i].port == want[i].port && room[i].vc == want[i].vc,
                  "%ld-ary, %u VCs, %u rooms: candidate %u is port %u VC %u, not port %u VC %u",
                  (long)arity, vcs, rooms, i, room[i].port, room[i].vc, want[i].port,
                  want[i].vc);
    k.topo->destroy(k.topo_self);
}

Test(updown, room_orders_most_room_first_and_ties_as_first_does)
{
    check_room_order(4, 2, 5);    /* 8 candidates, a pass per room */
    check_room_order(16, 2, 5);   /* 32, counted by room */
    check_room_order(16, 2, 1);   /* all tie */
    check_room_order(16, 2, 200); /* rooms too far apart to count */
    check_room_order(8, 3, 7);    /* 24 */
}
