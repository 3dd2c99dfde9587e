/* test_dally.c — the Dally router on tori and meshes through the mock host:
 * VC choices of trc / basic / improved on hand-picked paths of a ring of 8
 * and an 8x8 torus, the vcs checks of create(), and deadlock freedom of trc
 * and basic as an acyclic channel dependency graph over every pair. */
#include "harness.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

enum { TRC, BASIC, IMPROVED, ADAPTIVE, PARTITION };
static const char *const modes[] = {"trc", "basic", "improved", "adaptive", "partition"};

typedef struct rig {
    insee_kernel k;
    insee_host host;
    const insee_router_vtable *vt;
    void *self;
} rig;

/* A Dally router of `mode` with `vcs` VCs on a torus/mesh; NULL self (and
   err filled) when create() refuses. */
static void rig_init_choice(rig *g, const char *topo, const int64_t *dims, size_t n,
                            bool bidir, int mode, uint32_t vcs, int choice, insee_error *err)
{
    memset(g, 0, sizeof *g);
    mock_topology(&g->k, topo, dims, n, bidir);
    g->k.shape.vcs = vcs;
    g->k.shape.queue_packets = 4;
    g->k.shape.packet_phits = 16;
    g->host = mock_host(&g->k);
    const insee_plugin_desc *d = load_plugin("router", "dally");
    cr_assert_eq(d->kind, INSEE_KIND_ROUTER);
    g->vt = d->vtable;
    insee_value params[3] = {value_enum(mode, modes[mode]),
                             value_enum(choice, choice ? "room" : "coin"), value_bool(false)};
    g->self = g->vt->create(&g->host, params, err);
}

static void rig_init(rig *g, const char *topo, const int64_t *dims, size_t n, bool bidir,
                     int mode, uint32_t vcs, insee_error *err)
{
    rig_init_choice(g, topo, dims, n, bidir, mode, vcs, 0, err);
}

static void rig_make(rig *g, const char *topo, const int64_t *dims, size_t n, bool bidir,
                     int mode, uint32_t vcs)
{
    insee_error err = {0};
    rig_init(g, topo, dims, n, bidir, mode, vcs, &err);
    cr_assert_not_null(g->self, "dally create: %s", err.message);
}

static void rig_free(rig *g)
{
    g->vt->destroy(g->self);
    mock_topology_free(&g->k);
}

/* The VCs of the path src -> dst equal `want` (n hops). */
static void expect_vcs(rig *g, uint32_t src, uint32_t dst, uint32_t salt, const uint16_t *want,
                       uint32_t n)
{
    route_step path[64];
    cr_assert_eq(route_walk(&g->k, g->vt, g->self, src, dst, salt, path, 64), n, "%u -> %u", src,
                 dst);
    for (uint32_t i = 0; i < n; i++)
        cr_assert_eq(path[i].vc, want[i], "%u -> %u salt %u hop %u (router %u): vc %u, want %u",
                     src, dst, salt, i, path[i].router, path[i].vc, want[i]);
}

#define VCS(...) (const uint16_t[]){__VA_ARGS__}, sizeof((const uint16_t[]){__VA_ARGS__}) / sizeof(uint16_t)
#define DIMS(...) (const int64_t[]){__VA_ARGS__}, sizeof((const int64_t[]){__VA_ARGS__}) / sizeof(int64_t)

/* basic: VC 0 while the rest of the path in the dimension crosses the wrap
   link (the wrap hop included), VC 1 after it and on paths without it. */
Test(dally, basic_ring_of_8)
{
    rig g;
    rig_make(&g, "torus", DIMS(8), true, BASIC, 2);
    expect_vcs(&g, 6, 1, 0, VCS(0, 0, 1)); /* 6 7 |wrap| 0 1 */
    expect_vcs(&g, 1, 3, 0, VCS(1, 1));
    expect_vcs(&g, 1, 6, 0, VCS(0, 0, 1)); /* 1 0 |wrap| 7 6 */
    expect_vcs(&g, 0, 4, 0, VCS(1, 1, 1, 1)); /* tie, salt: + (no wrap) */
    expect_vcs(&g, 0, 4, 1, VCS(0, 1, 1, 1)); /* tie, salt: - over 0 -> 7 */
    cr_assert_eq(g.vt->packet_state_size(g.self), 0u);
    rig_free(&g);
}

/* partition (BookSim2's): the whole of a dimension on VC 1 when its path
   there crosses the wrap link, on VC 0 when not; each dimension afresh. */
Test(dally, partition_ring_of_8)
{
    rig g;
    rig_make(&g, "torus", DIMS(8), true, PARTITION, 2);
    expect_vcs(&g, 6, 1, 0, VCS(1, 1, 1)); /* 6 7 |wrap| 0 1 */
    expect_vcs(&g, 1, 3, 0, VCS(0, 0));
    expect_vcs(&g, 1, 6, 0, VCS(1, 1, 1)); /* 1 0 |wrap| 7 6 */
    expect_vcs(&g, 0, 4, 0, VCS(0, 0, 0, 0)); /* tie, salt: + (no wrap) */
    expect_vcs(&g, 0, 4, 1, VCS(1, 1, 1, 1)); /* tie, salt: - over 0 -> 7 */
    rig_free(&g);
    rig_make(&g, "torus", DIMS(8, 8), true, PARTITION, 2);
    expect_vcs(&g, 6 + 8 * 1, 1 + 8 * 3, 0, VCS(1, 1, 1, 0, 0)); /* x wraps, y does not */
    expect_vcs(&g, 1 + 8 * 3, 6 + 8 * 1, 0, VCS(1, 1, 1, 0, 0)); /* x wraps (-), y not */
    expect_vcs(&g, 2 + 8 * 6, 3 + 8 * 1, 0, VCS(0, 1, 1, 1)); /* y wraps: 6 7 0 1 */
    cr_assert(g.vt->properties(g.self) & INSEE_ROUTE_PURE);
    rig_free(&g);
}

/* partition on a one-way ring would let VC 1's wrapping paths close the
   ring's cycle: refused. */
Test(dally, partition_refuses_one_way_rings)
{
    rig g;
    insee_error err = {0};
    rig_init(&g, "torus", DIMS(5), false, PARTITION, 2, &err);
    cr_assert_null(g.self);
    cr_assert(strstr(err.message, "bidirectional"), "%s", err.message);
    mock_topology_free(&g.k);
}

/* trc: VC 1 from injection, VC 0 from the router of coordinate 0 on. */
Test(dally, trc_ring_of_8)
{
    rig g;
    rig_make(&g, "torus", DIMS(8), true, TRC, 2);
    expect_vcs(&g, 6, 1, 0, VCS(1, 1, 0)); /* 6 7 |wrap| 0: switch leaving 0 */
    expect_vcs(&g, 1, 3, 0, VCS(1, 1));
    expect_vcs(&g, 1, 6, 0, VCS(1, 0, 0)); /* 1 0: the - wrap link leaves 0 */
    expect_vcs(&g, 7, 2, 0, VCS(1, 0, 0)); /* the wrap link itself on VC 1 */
    expect_vcs(&g, 0, 4, 0, VCS(0, 0, 0, 0)); /* starts at coordinate 0 */
    expect_vcs(&g, 0, 4, 1, VCS(0, 0, 0, 0));
    expect_vcs(&g, 2, 5, 0, VCS(1, 1, 1));
    cr_assert_gt(g.vt->packet_state_size(g.self), 0u);
    rig_free(&g);
}

/* Each dimension starts afresh: back to VC 1 (trc) at the change. */
Test(dally, two_dimensions_8x8)
{
    rig g;
    /* (6,6) -> (1,1): x 6 7 0 1, then y 6 7 0 1 */
    uint32_t src = 6 + 8 * 6, dst = 1 + 8 * 1;
    rig_make(&g, "torus", DIMS(8, 8), true, TRC, 2);
    expect_vcs(&g, src, dst, 0, VCS(1, 1, 0, 1, 1, 0));
    expect_vcs(&g, 6 + 8 * 0, 1 + 8 * 2, 0, VCS(1, 1, 0, 0, 0));
    rig_free(&g);
    rig_make(&g, "torus", DIMS(8, 8), true, BASIC, 2);
    expect_vcs(&g, src, dst, 0, VCS(0, 0, 1, 0, 0, 1));
    expect_vcs(&g, 6 + 8 * 0, 1 + 8 * 2, 0, VCS(0, 0, 1, 1, 1));
    rig_free(&g);
}

Test(dally, unidirectional_ring_of_8)
{
    rig g;
    rig_make(&g, "torus", DIMS(8), false, BASIC, 2);
    expect_vcs(&g, 6, 1, 0, VCS(0, 0, 1));
    expect_vcs(&g, 1, 6, 0, VCS(1, 1, 1, 1, 1));
    expect_vcs(&g, 6, 5, 0, VCS(0, 0, 1, 1, 1, 1, 1));
    rig_free(&g);
    rig_make(&g, "torus", DIMS(8), false, TRC, 2);
    expect_vcs(&g, 6, 1, 0, VCS(1, 1, 0));
    expect_vcs(&g, 1, 6, 0, VCS(1, 1, 1, 1, 1));
    expect_vcs(&g, 6, 5, 0, VCS(1, 1, 0, 0, 0, 0, 0));
    rig_free(&g);
}

/* improved, vc_choice = "coin" (INSEE): wrap ahead -> VC 0 only; otherwise
   both VCs, the first drawn by a fair coin on every attempt whatever the
   room, the other second. */
Test(dally, improved_draws_a_fair_coin)
{
    rig g;
    rig_make(&g, "torus", DIMS(8), true, IMPROVED, 2);
    insee_rng rng;
    insee_rng_init(&rng, 7, 0);
    insee_route_ctx ctx = {.size = sizeof ctx, .in_port = INSEE_PORT_INJECTION, .rng = &rng};
    insee_candidate c[INSEE_MAX_CANDIDATES];

    ctx.router = 6, ctx.dst_node = 1; /* crosses the wrap */
    cr_assert_eq(g.vt->route(g.self, &ctx, c, INSEE_MAX_CANDIDATES), 1u);
    cr_assert_eq(c[0].vc, 0);

    ctx.router = 1, ctx.dst_node = 3; /* no wrap */
    g.k.room[0] = 4, g.k.room[1] = 1; /* room must not sway the coin */
    int first_vc1 = 0;
    const int draws = 4000;
    for (int i = 0; i < draws; i++) {
        cr_assert_eq(g.vt->route(g.self, &ctx, c, INSEE_MAX_CANDIDATES), 2u);
        cr_assert_eq(c[0].vc + c[1].vc, 1, "both escape VCs, each once");
        first_vc1 += c[0].vc == 1;
    }
    /* Binomial(4000, 1/2): sd 31.6; 5 sd either side. */
    cr_assert(first_vc1 > draws / 2 - 160 && first_vc1 < draws / 2 + 160,
              "VC 1 first in %d of %d attempts", first_vc1, draws);
    cr_assert_eq(g.vt->properties(g.self) & INSEE_ROUTE_PURE, 0u, "a coin is not pure");
    rig_free(&g);
}

/* adaptive: an adaptive VC (>= 2) with room, on either minimal direction
   of an 8x8 torus, at random; improved's escape candidates only when no
   adaptive VC has room; fewer than 3 VCs refused. */
Test(dally, adaptive_takes_adaptive_vcs_first)
{
    rig g;
    insee_error err = {0};
    rig_init(&g, "torus", DIMS(8, 8), true, ADAPTIVE, 2, &err);
    cr_assert_null(g.self, "2 VCs leave no adaptive VC");
    cr_assert(strstr(err.message, "vcs = 3"), "%s", err.message);
    mock_topology_free(&g.k);
    rig_make(&g, "torus", DIMS(8, 8), true, ADAPTIVE, 3);
    insee_rng rng;
    insee_rng_init(&rng, 11, 0);
    insee_route_ctx ctx = {.size = sizeof ctx, .in_port = INSEE_PORT_INJECTION, .rng = &rng};
    insee_candidate c[INSEE_MAX_CANDIDATES];
    ctx.router = 0, ctx.dst_node = 2 * 8 + 3; /* +x and +y are both minimal */
    g.k.room[0] = g.k.room[1] = g.k.room[2] = 4;
    bool port_seen[4] = {false};
    for (int i = 0; i < 400; i++) {
        cr_assert_eq(g.vt->route(g.self, &ctx, c, INSEE_MAX_CANDIDATES), 1u);
        cr_assert_eq(c[0].vc, 2, "an adaptive VC while one has room");
        cr_assert(c[0].port == 0 || c[0].port == 2, "port %u is not minimal", c[0].port);
        port_seen[c[0].port] = true;
    }
    cr_assert(port_seen[0] && port_seen[2], "both minimal directions are drawn");
    g.k.room[2] = 0; /* no adaptive room: improved's escape VCs */
    cr_assert_eq(g.vt->route(g.self, &ctx, c, INSEE_MAX_CANDIDATES), 2u);
    cr_assert_eq(c[0].port, 0, "escape in dimension order");
    cr_assert_eq(c[0].vc + c[1].vc, 1);
    rig_free(&g);
}

/* improved, vc_choice = "room": wrap ahead -> VC 0 only; otherwise both
   VCs, more room first, VC 1 first on a tie. */
Test(dally, improved_candidates_by_room)
{
    rig g;
    insee_error err = {0};
    rig_init_choice(&g, "torus", DIMS(8), true, IMPROVED, 2, 1, &err);
    cr_assert_not_null(g.self, "%s", err.message);
    insee_route_ctx ctx = {.size = sizeof ctx, .in_port = INSEE_PORT_INJECTION};
    insee_candidate c[INSEE_MAX_CANDIDATES];

    ctx.router = 6, ctx.dst_node = 1; /* crosses the wrap */
    g.k.room[0] = 0, g.k.room[1] = 4;
    cr_assert_eq(g.vt->route(g.self, &ctx, c, INSEE_MAX_CANDIDATES), 1u);
    cr_assert_eq(c[0].port, 0);
    cr_assert_eq(c[0].vc, 0);

    ctx.router = 1, ctx.dst_node = 3; /* no wrap */
    g.k.room[0] = 3, g.k.room[1] = 1;
    cr_assert_eq(g.vt->route(g.self, &ctx, c, INSEE_MAX_CANDIDATES), 2u);
    cr_assert_eq(c[0].vc, 0);
    cr_assert_eq(c[1].vc, 1);
    cr_assert_eq(c[0].port, 0);
    cr_assert_eq(c[1].port, 0);
    cr_assert_leq(c[0].room, 1u);
    g.k.room[0] = 1, g.k.room[1] = 3;
    cr_assert_eq(g.vt->route(g.self, &ctx, c, INSEE_MAX_CANDIDATES), 2u);
    cr_assert_eq(c[0].vc, 1);
    cr_assert_eq(c[1].vc, 0);
    g.k.room[0] = 2, g.k.room[1] = 2;
    cr_assert_eq(g.vt->route(g.self, &ctx, c, INSEE_MAX_CANDIDATES), 2u);
    cr_assert_eq(c[0].vc, 1);
    rig_free(&g);
}

/* trc and basic return exactly one candidate needing one packet of room. */
Test(dally, one_candidate_in_trc_and_basic)
{
    for (int mode = TRC; mode <= BASIC; mode++) {
        rig g;
        rig_make(&g, "torus", DIMS(5, 4), true, mode, 2);
        insee_route_ctx ctx = {.size = sizeof ctx, .in_port = INSEE_PORT_INJECTION};
        char state[64] = {0};
        ctx.packet_state = state;
        insee_candidate c[INSEE_MAX_CANDIDATES];
        for (uint32_t s = 0; s < 20; s++)
            for (uint32_t x = 0; x < 20; x++) {
                if (s == x)
                    continue;
                ctx.router = s, ctx.dst_node = x;
                cr_assert_eq(g.vt->route(g.self, &ctx, c, INSEE_MAX_CANDIDATES), 1u);
                cr_assert_eq(c[0].room, 1);
            }
        rig_free(&g);
    }
}

Test(dally, refuses_one_vc_on_a_torus)
{
    for (int mode = TRC; mode <= IMPROVED; mode++) {
        rig g;
        insee_error err = {0};
        rig_init(&g, "torus", DIMS(4, 4), true, mode, 1, &err);
        cr_assert_null(g.self);
        cr_assert_eq(err.code, INSEE_ERR_UNSUPPORTED);
        cr_assert_not_null(strstr(err.message, "vcs"), "%s", err.message);
        mock_topology_free(&g.k);
    }
}

/* A mesh has no wrap link: one VC suffices and every hop uses VC 0. */
Test(dally, mesh_with_one_vc)
{
    for (int mode = TRC; mode <= IMPROVED; mode++) {
        rig g;
        rig_make(&g, "mesh", DIMS(4, 3), true, mode, 1);
        route_step path[16];
        for (uint32_t s = 0; s < 12; s++)
            for (uint32_t x = 0; x < 12; x++) {
                uint32_t n = route_walk(&g.k, g.vt, g.self, s, x, 0, path, 16);
                for (uint32_t i = 0; i < n; i++)
                    cr_assert_eq(path[i].vc, 0);
            }
        rig_free(&g);
    }
}

/* Deadlock freedom of trc and basic: the channel (router, port, VC)
   dependency graph of dimension-order paths over all pairs has no cycle.
   VCs above 1 must stay unused. */
typedef struct cdg {
    uint32_t channels;
    bool *edge; /* channels x channels */
} cdg;

static bool has_cycle_from(const cdg *g, uint32_t c, uint8_t *color)
{
    color[c] = 1; /* on the stack */
    for (uint32_t d = 0; d < g->channels; d++) {
        if (!g->edge[(size_t)c * g->channels + d])
            continue;
        if (color[d] == 1 || (color[d] == 0 && has_cycle_from(g, d, color)))
            return true;
    }
    color[c] = 2;
    return false;
}

static void check_acyclic(const int64_t *dims, size_t n, bool bidir, int mode, uint32_t vcs)
{
    rig g;
    rig_make(&g, "torus", dims, n, bidir, mode, vcs);
    uint32_t N = g.k.shape.routers, P = g.k.shape.max_ports;
    cdg dep = {.channels = N * P * 2};
    dep.edge = calloc((size_t)dep.channels * dep.channels, sizeof *dep.edge);
    static const uint32_t salts[] = {0u, ~0u, 0x2u, 0x5u};
    route_step path[64];
    for (uint32_t s = 0; s < N; s++)
        for (uint32_t x = 0; x < N; x++)
            for (size_t i = 0; i < sizeof salts / sizeof salts[0]; i++) {
                uint32_t h = route_walk(&g.k, g.vt, g.self, s, x, salts[i], path, 64);
                uint32_t prev = UINT32_MAX;
                for (uint32_t j = 0; j < h; j++) {
                    cr_assert_lt(path[j].vc, 2u, "VC %u used", path[j].vc);
                    uint32_t c = (path[j].router * P + path[j].port) * 2 + path[j].vc;
                    if (prev != UINT32_MAX)
                        dep.edge[(size_t)prev * dep.channels + c] = true;
                    prev = c;
                }
            }
    uint8_t *color = calloc(dep.channels, 1);
    for (uint32_t c = 0; c < dep.channels; c++)
        cr_assert(color[c] != 0 || !has_cycle_from(&dep, c, color),
                  "%s: channel dependency cycle through channel %u", modes[mode], c);
    free(color);
    free(dep.edge);
    rig_free(&g);
}

Test(dally, trc_basic_and_partition_are_deadlock_free)
{
    static const int acyclic[] = {TRC, BASIC, PARTITION};
    for (size_t m = 0; m < sizeof acyclic / sizeof acyclic[0]; m++) {
        int mode = acyclic[m];
        check_acyclic(DIMS(5), true, mode, 2);
        check_acyclic(DIMS(8), true, mode, 2);
        if (mode != PARTITION) { /* refused on one-way rings (below) */
            check_acyclic(DIMS(5), false, mode, 2);
            check_acyclic(DIMS(8), false, mode, 2);
            check_acyclic(DIMS(4, 5), false, mode, 2);
        }
        check_acyclic(DIMS(2, 4), true, mode, 2);
        check_acyclic(DIMS(4, 5), true, mode, 3);
        check_acyclic(DIMS(3, 4, 4), true, mode, 4);
    }
}

/* A cyclic graph is caught (the checker itself works): dimension order on a
   ring with one VC class is the textbook deadlock. */
Test(dally, cycle_checker_sees_a_ring)
{
    cdg dep = {.channels = 4};
    dep.edge = calloc(16, sizeof *dep.edge);
    for (uint32_t c = 0; c < 4; c++)
        dep.edge[c * 4 + (c + 1) % 4] = true;
    uint8_t color[4] = {0};
    cr_assert(has_cycle_from(&dep, 0, color));
    free(dep.edge);
}

Test(dally, parameter_table)
{
    const insee_plugin_desc *d = load_plugin("router", "dally");
    cr_assert_str_eq(d->params[0].name, "mode");
    cr_assert_eq(d->params[0].type, INSEE_PARAM_ENUM);
    cr_assert_str_eq(d->params[0].choices, "trc|basic|improved|adaptive|partition");
    cr_assert_str_eq(d->params[0].default_value, "\"basic\"");
    /* improved follows INSEE's coin unless asked otherwise */
    cr_assert_str_eq(d->params[1].name, "vc_choice");
    cr_assert_str_eq(d->params[1].default_value, "\"coin\"");
    /* a deadlock-prone single VC on a torus only when asked for */
    cr_assert_str_eq(d->params[2].name, "allow_deadlock");
    cr_assert_str_eq(d->params[2].default_value, "false");
    cr_assert_null(d->params[3].name);
    const insee_router_vtable *vt = d->vtable;
    cr_assert_null(vt->select_injector); /* kernel default: shortest */
}
