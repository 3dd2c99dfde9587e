/* test_ecmp.c — the ecmp router on a 4x4 torus through the mock host: the
 * adaptive candidates are exactly the minimal ports on the adaptive VCs with
 * room, in a random order that puts each of them first now and then, the
 * escape VC 0 last; a packet on the escape VC stays there, on an up*-down*
 * route to its destination; create() wants two VCs. */
#include "harness.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#define SIDE 4u
#define NODES (SIDE * SIDE)

typedef struct rig {
    insee_kernel k;
    insee_host host;
    const insee_router_vtable *vt;
    void *self;
} rig;

/* ecmp with `vcs` VCs on a 4x4 torus whose queues all have room; NULL self
   (err filled) when create() refuses. */
static void rig_init(rig *g, uint32_t vcs, insee_error *err)
{
    memset(g, 0, sizeof *g);
    mock_topology(&g->k, "torus", (const int64_t[]){SIDE, SIDE}, 2, true);
    g->k.shape.vcs = vcs;
    g->k.shape.queue_packets = 4;
    g->k.shape.packet_phits = 16;
    for (uint32_t v = 0; v < 4; v++)
        g->k.room[v] = 4;
    g->host = mock_host(&g->k);
    const insee_plugin_desc *d = load_plugin("router", "ecmp");
    cr_assert_eq(d->kind, INSEE_KIND_ROUTER);
    g->vt = d->vtable;
    insee_value params[1] = {value_int(0)};
    g->self = g->vt->create(&g->host, params, err);
}

static void rig_make(rig *g, uint32_t vcs)
{
    insee_error err = {0};
    rig_init(g, vcs, &err);
    cr_assert_not_null(g->self, "ecmp create: %s", err.message);
}

static void rig_free(rig *g)
{
    if (g->self)
        g->vt->destroy(g->self);
    mock_topology_free(&g->k);
}

/* The route() answer for a packet at `router` that came in on (in_port,
   in_vc), in packet state `state`. */
static uint32_t ask(rig *g, insee_rng *rng, void *state, uint32_t router, uint32_t in_port,
                    uint32_t in_vc, uint32_t dst, insee_candidate *c, insee_route_ctx *ctx)
{
    *ctx = (insee_route_ctx){.size = sizeof *ctx, .router = router, .in_port = in_port,
                             .in_vc = in_vc, .src_node = router, .dst_node = dst,
                             .packet_state = state, .rng = rng};
    uint32_t n = g->vt->route(g->self, ctx, c, INSEE_MAX_CANDIDATES);
    cr_assert_leq(n, INSEE_MAX_CANDIDATES);
    for (uint32_t i = 0; i < n; i++) {
        cr_assert_lt(c[i].vc, g->k.shape.vcs);
        cr_assert_lt(c[i].port, g->k.topo->ports(g->k.topo_self, router));
        cr_assert_leq(c[i].room, 1u);
    }
    return n;
}

Test(ecmp, needs_two_vcs)
{
    rig g;
    insee_error err = {0};
    rig_init(&g, 1, &err);
    cr_assert_null(g.self);
    cr_assert_eq(err.code, INSEE_ERR_UNSUPPORTED);
    cr_assert(strstr(err.message, "vcs = 1") && strstr(err.message, "[router]"), "%s",
              err.message);
    rig_free(&g);
}

/* From router 0 to node 5 = (1, 1) both +x and +y are minimal. With 3 VCs
   the adaptive candidates are those 2 ports on VCs 1 and 2, each once, and
   the escape VC 0 comes after them; over many draws each of the 4 comes
   first about a quarter of the time. */
Test(ecmp, adaptive_candidates_are_the_minimal_ports_then_the_escape)
{
    rig g;
    rig_make(&g, 3);
    insee_hop minimal[INSEE_MAX_CANDIDATES];
    uint32_t nm = g.k.topo->minimal_hops(g.k.topo_self, 0, 5, 0, minimal, INSEE_MAX_CANDIDATES);
    cr_assert_eq(nm, 2u);
    uint8_t *state = calloc(1, g.vt->packet_state_size(g.self));
    insee_rng rng;
    insee_rng_init(&rng, 9, 0);
    int first[2][3] = {{0}};
    const int draws = 800;
    for (int d = 0; d < draws; d++) {
        insee_candidate c[INSEE_MAX_CANDIDATES];
        insee_route_ctx ctx;
        uint32_t n = ask(&g, &rng, state, 0, INSEE_PORT_INJECTION, 0, 5, c, &ctx);
        cr_assert_gt(n, 4u, "4 adaptive candidates and at least one escape");
        bool listed[2][3] = {{false}};
        for (uint32_t i = 0; i < 4; i++) {
            cr_assert_geq(c[i].vc, 1, "adaptive candidates first");
            uint32_t m = c[i].port == minimal[0].port ? 0 : 1;
            cr_assert_eq(c[i].port, minimal[m].port, "port %u is not minimal", c[i].port);
            cr_assert_not(listed[m][c[i].vc], "port %u vc %u twice", c[i].port, c[i].vc);
            listed[m][c[i].vc] = true;
        }
        for (uint32_t i = 4; i < n; i++)
            cr_assert_eq(c[i].vc, 0, "the escape VC last");
        first[c[0].port == minimal[0].port ? 0 : 1][c[0].vc]++;
    }
    for (int m = 0; m < 2; m++)
        for (int v = 1; v < 3; v++)
            cr_assert(first[m][v] > draws / 4 - 80 && first[m][v] < draws / 4 + 80,
                      "port %u vc %d first %d times in %d", minimal[m].port, v, first[m][v],
                      draws);
    free(state);
    rig_free(&g);
}

/* An adaptive VC without room downstream is not offered; with none left
   only the escape VC is. */
Test(ecmp, full_adaptive_vcs_are_left_out)
{
    rig g;
    rig_make(&g, 3);
    uint8_t *state = calloc(1, g.vt->packet_state_size(g.self));
    insee_rng rng;
    insee_rng_init(&rng, 9, 0);
    insee_candidate c[INSEE_MAX_CANDIDATES];
    insee_route_ctx ctx;
    g.k.room[2] = 0;
    uint32_t n = ask(&g, &rng, state, 0, INSEE_PORT_INJECTION, 0, 5, c, &ctx);
    cr_assert_eq(c[0].vc, 1);
    cr_assert_eq(c[1].vc, 1);
    for (uint32_t i = 2; i < n; i++)
        cr_assert_eq(c[i].vc, 0);
    g.k.room[1] = 0;
    n = ask(&g, &rng, state, 0, INSEE_PORT_INJECTION, 0, 5, c, &ctx);
    cr_assert_gt(n, 0u);
    for (uint32_t i = 0; i < n; i++)
        cr_assert_eq(c[i].vc, 0);
    free(state);
    rig_free(&g);
}

/* Every pair: a packet that takes the escape VC at injection (the last
   candidate) is offered only the escape VC afterwards, although every
   adaptive VC has room, and reaches its destination up hops first, then down
   hops (the candidate tag: a down hop), never up again. */
Test(ecmp, escape_vc_is_up_down_to_the_destination)
{
    rig g;
    rig_make(&g, 2);
    size_t state_size = g.vt->packet_state_size(g.self);
    insee_rng rng;
    insee_rng_init(&rng, 3, 0);
    for (uint32_t src = 0; src < NODES; src++) {
        for (uint32_t dst = 0; dst < NODES; dst++) {
            if (src == dst)
                continue;
            void *state = calloc(1, state_size);
            insee_candidate c[INSEE_MAX_CANDIDATES];
            insee_route_ctx ctx;
            uint32_t n = ask(&g, &rng, state, src, INSEE_PORT_INJECTION, 0, dst, c, &ctx);
            insee_candidate take = c[n - 1];
            cr_assert_eq(take.vc, 0);
            bool gone_down = false;
            uint32_t r = src, hops = 0;
            for (;;) {
                cr_assert(!(gone_down && !take.tag), "%u -> %u: up after down at router %u",
                          src, dst, r);
                gone_down = take.tag;
                g.vt->forwarded(g.self, &ctx, &take);
                insee_port_peer peer;
                cr_assert(g.k.topo->link(g.k.topo_self, r, take.port, &peer));
                r = peer.router;
                cr_assert_lt(++hops, 2 * NODES, "%u -> %u does not arrive", src, dst);
                if (r == dst)
                    break;
                n = ask(&g, &rng, state, r, peer.port, 0, dst, c, &ctx);
                cr_assert_gt(n, 0u);
                for (uint32_t i = 0; i < n; i++)
                    cr_assert_eq(c[i].vc, 0, "%u -> %u left the escape VC at router %u", src,
                                 dst, r);
                take = c[0];
            }
            free(state);
        }
    }
    rig_free(&g);
}
