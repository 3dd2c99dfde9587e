/* test_bubble.c — the bubble router's local buffer restriction (LBR, INSEE
 * §2.2.5) pinned to its exact threshold through the mock host: a packet
 * leaves its injection queue only while the ring's queue at this router
 * has room for at least lbr packets (lbr x L phits), as INSEE's
 * check_restrictions() tests queue_space() < bub_adap x pkt_len; one phit
 * less refuses it, and packets already in the ring never see the rule. */
#include "harness.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

enum { OBLIVIOUS, SMART = 3 };
static const char *const modes[] = {"oblivious", "random", "shortest", "smart"};

#define L 16u

/* The room of every input queue, in phits, as the test sets it; downstream
   queues are always empty. */
static uint32_t input_phits;

static uint32_t free_in(insee_kernel *k, uint32_t router, uint32_t port, uint32_t vc)
{
    (void)k, (void)router, (void)port, (void)vc;
    return input_phits;
}

static uint32_t room_in(insee_kernel *k, uint32_t router, uint32_t port, uint32_t vc)
{
    (void)k, (void)router, (void)port, (void)vc;
    return input_phits / L;
}

static uint32_t free_out(insee_kernel *k, uint32_t router, uint32_t port, uint32_t vc)
{
    (void)k, (void)router, (void)port, (void)vc;
    return 4 * L;
}

typedef struct rig {
    insee_kernel k;
    insee_host host;
    const insee_router_vtable *vt;
    void *self;
    void *state;
} rig;

/* A bubble router (bubble = 1, lbr = 3) on a ring of 8, queues of 4
   packets; phit_view: the host answers in phits (else in packets only). */
static void make(rig *g, int mode, bool phit_view)
{
    memset(g, 0, sizeof *g);
    mock_topology(&g->k, "torus", (const int64_t[]){8}, 1, true);
    g->k.shape.vcs = mode == OBLIVIOUS ? 1 : 2;
    g->k.shape.queue_packets = 4;
    g->k.shape.packet_phits = L;
    g->k.room[0] = g->k.room[1] = 4;
    g->host = mock_host(&g->k);
    g->host.input_room = room_in;
    if (phit_view) {
        g->host.input_free_phits = free_in;
        g->host.output_free_phits = free_out;
    }
    const insee_plugin_desc *d = load_plugin("router", "bubble");
    g->vt = d->vtable;
    insee_value params[3] = {value_enum(mode, modes[mode]), value_int(1), value_int(3)};
    insee_error err = {0};
    g->self = g->vt->create(&g->host, params, &err);
    cr_assert_not_null(g->self, "bubble create: %s", err.message);
    size_t n = g->vt->packet_state_size ? g->vt->packet_state_size(g->self) : 0;
    g->state = n ? calloc(1, n) : NULL;
}

static void drop(rig *g)
{
    g->vt->destroy(g->self);
    free(g->state);
    mock_topology_free(&g->k);
}

/* The candidates route() gives a packet of node 0 for node 1 at router 0,
   from injection or (in_port != INJECTION) arriving on the ring. */
static uint32_t candidates(rig *g, uint32_t in_port)
{
    insee_rng rng;
    g->host.rng_seed(g->host.kernel, 0, &rng);
    insee_route_ctx ctx = {.size = sizeof ctx, .router = 0, .in_port = in_port, .in_vc = 0,
                           .src_node = 0, .dst_node = 1, .packet_state = g->state,
                           .rng = &rng};
    insee_candidate c[INSEE_MAX_CANDIDATES];
    return g->vt->route(g->self, &ctx, c, INSEE_MAX_CANDIDATES);
}

/* The port on which router 0 receives the +x ring from router 7. */
static uint32_t ring_input(const rig *g)
{
    insee_port_peer peer;
    cr_assert(g->k.topo->link(g->k.topo_self, 7, 0, &peer));
    cr_assert_eq(peer.router, 0u);
    return peer.port;
}

Test(bubble, lbr_admits_from_exactly_b_packets_of_room)
{
    for (int mode = OBLIVIOUS; mode <= SMART; mode += SMART - OBLIVIOUS) {
        rig g;
        make(&g, mode, true);
        input_phits = 3 * L;
        cr_assert_geq(candidates(&g, INSEE_PORT_INJECTION), 1u, "%s: room for 3 packets",
                      modes[mode]);
        input_phits = 3 * L - 1;
        cr_assert_eq(candidates(&g, INSEE_PORT_INJECTION), 0u,
                     "%s: one phit short of 3 packets, yet injected", modes[mode]);
        input_phits = 0;
        cr_assert_geq(candidates(&g, ring_input(&g)), 1u,
                      "%s: a packet in the ring is held by LBR", modes[mode]);
        drop(&g);
    }
}

/* A host that answers in whole packets only: 3 packets admit, 2 refuse. */
Test(bubble, lbr_threshold_in_packets)
{
    rig g;
    make(&g, OBLIVIOUS, false);
    input_phits = 3 * L;
    cr_assert_geq(candidates(&g, INSEE_PORT_INJECTION), 1u);
    input_phits = 3 * L - 1; /* 2 whole packets */
    cr_assert_eq(candidates(&g, INSEE_PORT_INJECTION), 0u);
    drop(&g);
}
