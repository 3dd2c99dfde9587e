/* test_multistage.c — the multistage router on k-ary n-trees and thin-trees
 * through the mock host: static's up ports follow the source on hand-checked
 * paths and its VC the salt; adaptive takes the up port and VC with most
 * free room, ties at random; create() refuses what is not a tree. */
#include "harness.h"

#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

enum { STATIC, ADAPTIVE };
static const char *const modes[] = {"static", "adaptive"};
enum { RULE_PAPER, RULE_INSEE };
static const char *const rules[] = {"paper", "insee"};
enum { BY_SOURCE, BY_DESTINATION };
static const char *const up_bys[] = {"source", "destination"};

/* Free room downstream per (router, port, VC), in packets; room_phits()
   reports it in phits. Every other queue has room_default. */
#define MAX_ROUTERS 128u
#define MAX_PORTS 16u
#define MAX_VCS 4u
static uint32_t room_of[MAX_ROUTERS][MAX_PORTS][MAX_VCS];

static uint32_t room_packets(insee_kernel *k, uint32_t router, uint32_t port, uint32_t vc)
{
    (void)k;
    return room_of[router][port][vc];
}

static uint32_t room_phits(insee_kernel *k, uint32_t router, uint32_t port, uint32_t vc)
{
    return room_packets(k, router, port, vc) * k->shape.packet_phits;
}

typedef struct rig {
    insee_kernel k;
    insee_host host;
    const insee_router_vtable *vt;
    void *self;
} rig;

/* A topology `name` with its parameter values on the mock kernel, and a host
   that reads the link table and per-port room. */
static void rig_topology(rig *g, const char *name, const insee_value *params, uint32_t vcs)
{
    memset(g, 0, sizeof *g);
    const insee_plugin_desc *d = load_plugin("topology", name);
    g->host = mock_host(&g->k);
    insee_error err = {0};
    g->k.topo = d->vtable;
    g->k.topo_self = g->k.topo->create(&g->host, params, &err);
    cr_assert_not_null(g->k.topo_self, "%s create: %s", name, err.message);
    insee_topology_info info;
    g->k.topo->info(g->k.topo_self, &info);
    cr_assert_leq(info.routers, MAX_ROUTERS);
    cr_assert_leq(info.max_ports, MAX_PORTS);
    g->k.shape = (insee_shape){.routers = info.routers, .nodes = info.nodes,
                               .max_ports = info.max_ports, .vcs = vcs, .queue_packets = 4,
                               .packet_phits = 16};
    g->host.output_room = room_packets;
    g->host.output_free_phits = room_phits;
    for (uint32_t r = 0; r < MAX_ROUTERS; r++)
        for (uint32_t p = 0; p < MAX_PORTS; p++)
            for (uint32_t v = 0; v < MAX_VCS; v++)
                room_of[r][p][v] = 4;
}

static void *rig_router_by(rig *g, int mode, int rule, int up_by, insee_error *err)
{
    const insee_plugin_desc *d = load_plugin("router", "multistage");
    cr_assert_eq(d->kind, INSEE_KIND_ROUTER);
    g->vt = d->vtable;
    insee_value params[3] = {value_enum(mode, modes[mode]), value_enum(rule, rules[rule]),
                             value_enum(up_by, up_bys[up_by])};
    return g->self = g->vt->create(&g->host, params, err);
}

static void *rig_router_rule(rig *g, int mode, int rule, insee_error *err)
{
    return rig_router_by(g, mode, rule, BY_SOURCE, err);
}

static void *rig_router(rig *g, int mode, insee_error *err)
{
    return rig_router_rule(g, mode, RULE_PAPER, err);
}

/* A k-ary n-tree, nodes on the leaves (nic = false) unless `nic`. */
static void rig_tree_nic(rig *g, int64_t k, int64_t n, bool nic, int mode, int rule,
                         uint32_t vcs)
{
    insee_value params[3] = {value_int(k), value_int(n), value_bool(nic)};
    rig_topology(g, "kary-ntree", params, vcs);
    insee_error err = {0};
    cr_assert_not_null(rig_router_rule(g, mode, rule, &err), "multistage create: %s",
                       err.message);
}

static void rig_tree(rig *g, int64_t k, int64_t n, int mode, uint32_t vcs)
{
    rig_tree_nic(g, k, n, false, mode, RULE_PAPER, vcs);
}

static void rig_free(rig *g)
{
    if (g->self)
        g->vt->destroy(g->self);
    g->k.topo->destroy(g->k.topo_self);
}

/* The one candidate route() gives a head at `router` that came in on
   (in_port, in_vc) after `hops` hops. */
static insee_candidate route_one(rig *g, insee_rng *rng, uint32_t router, uint32_t in_port,
                                 uint32_t in_vc, uint32_t hops, uint32_t src, uint32_t dst,
                                 uint32_t salt)
{
    insee_route_ctx ctx = {.size = sizeof ctx, .router = router, .in_port = in_port,
                           .in_vc = in_vc, .src_node = src, .dst_node = dst, .salt = salt,
                           .hops = hops, .rng = rng};
    insee_candidate c[INSEE_MAX_CANDIDATES];
    cr_assert_eq(g->vt->route(g->self, &ctx, c, INSEE_MAX_CANDIDATES), 1u,
                 "one request per attempt, as INSEE");
    cr_assert_lt(c[0].vc, g->k.shape.vcs);
    cr_assert_leq(c[0].room, 1u);
    return c[0];
}

/* Carry a packet from src to dst taking route()'s candidate, drawing from a
   copy of *rngp; records the routers it crossed and the port and VC it
   took at each. Returns the hops. walk(): a fixed stream. */
static uint32_t walk_with(rig *g, insee_rng *rngp, uint32_t src, uint32_t dst, uint32_t salt,
                          uint32_t *routers, insee_candidate *taken, uint32_t max)
{
    insee_rng rng = *rngp;
    uint32_t first = g->k.topo->node_router(g->k.topo_self, src);
    uint32_t leaf = g->k.topo->node_router(g->k.topo_self, dst);
    uint32_t r = first, in_port = INSEE_PORT_INJECTION, in_vc = 0, hops = 0;
    while (r != leaf) {
        cr_assert_lt(hops, max, "%u -> %u does not arrive in %u hops", src, dst, max);
        insee_candidate c = route_one(g, &rng, r, in_port, in_vc, hops, src, dst, salt);
        routers[hops] = r;
        taken[hops] = c;
        insee_port_peer peer;
        cr_assert(g->k.topo->link(g->k.topo_self, r, c.port, &peer));
        r = peer.router, in_port = peer.port, in_vc = c.vc;
        hops++;
    }
    cr_assert_eq(hops, g->k.topo->distance(g->k.topo_self, first, dst),
                 "%u -> %u: a shortest route", src, dst);
    return hops;
}

static uint32_t walk(rig *g, uint32_t src, uint32_t dst, uint32_t salt, uint32_t *routers,
                     insee_candidate *taken, uint32_t max)
{
    insee_rng rng;
    insee_rng_init(&rng, 1, 2);
    return walk_with(g, &rng, src, dst, salt, routers, taken, max);
}

/* 4-ary 3-tree (ports 0-3 down, 4-7 up; leaf y/4 holds node y; level-1
   routers 16-31, top 32-47). Node 6 sits on leaf 1 (label digits 1, 0).
   Going up it takes port 4 + 6 mod 4 = 6 to level-1 switch (2, 0) = router
   18, then port 4 + (6 / 4) mod 4 = 5 to top switch (2, 1) = router 32 + 6
   = 38, then down port (60 / 16) mod 4 = 3 to level-1 switch (2, 3) =
   router 30 and down port (60 / 4) mod 4 = 3 to leaf 15, where node 60 is. */
Test(multistage, static_up_ports_follow_the_source)
{
    rig g;
    rig_tree(&g, 4, 3, STATIC, 3);
    uint32_t routers[8];
    insee_candidate taken[8];
    cr_assert_eq(walk(&g, 6, 60, 7, routers, taken, 8), 4u);
    const uint32_t want_router[4] = {1, 18, 38, 30}, want_port[4] = {6, 5, 3, 3};
    for (uint32_t i = 0; i < 4; i++) {
        cr_assert_eq(routers[i], want_router[i], "hop %u at router %u, want %u", i, routers[i],
                     want_router[i]);
        cr_assert_eq(taken[i].port, want_port[i], "hop %u port %u, want %u", i, taken[i].port,
                     want_port[i]);
        cr_assert_eq(taken[i].vc, 7 % 3, "the salt's VC (7 mod 3), kept all the way");
    }
    /* The four nodes of a leaf leave by the four up ports: source mod k. */
    insee_rng rng;
    insee_rng_init(&rng, 1, 2);
    for (uint32_t src = 4; src < 8; src++)
        cr_assert_eq(route_one(&g, &rng, 1, INSEE_PORT_INJECTION, 0, 0, src, 60, 0).port,
                     4 + src % 4);
    /* The same question, the same answer: static may be reused by the kernel. */
    cr_assert_eq(g.vt->properties(g.self),
                 (uint32_t)(INSEE_ROUTE_PURE | INSEE_ROUTE_CONCURRENT | INSEE_ROUTE_NO_DROPS));
    rig_free(&g);
}

/* With network interfaces (routers 48 + y) the same route is two hops
   longer, and the switches' choices are the same: the level is the up
   hops' dim, not the hops taken. INSEE's code (rule = "insee")
   draws the VC at the interface on every attempt and keeps it, and adds it
   before the mod: on VC 1, 4 + (6 + 1) mod 4 = 7 at the leaf, 4 + (1 + 1)
   mod 4 = 6 at level 1 (router 19, label (3, 0)) to top switch (3, 2) = 32
   + 11 = 43, down through level-1 switch (3, 3) = router 31 to leaf 15. */
static void check_route_6_to_60(rig *g, insee_rng *rng, const uint32_t *want_router,
                                const uint32_t *want_port, uint32_t want_vc)
{
    uint32_t routers[8];
    insee_candidate taken[8];
    cr_assert_eq(walk_with(g, rng, 6, 60, 7, routers, taken, 8), 6u);
    for (uint32_t i = 0; i < 6; i++) {
        cr_assert_eq(routers[i], want_router[i], "hop %u at router %u", i, routers[i]);
        cr_assert_eq(taken[i].port, want_port[i], "hop %u port %u", i, taken[i].port);
        cr_assert_eq(taken[i].vc, want_vc, "one VC all the way");
    }
}

Test(multistage, network_interfaces_and_insee_static_rule)
{
    rig g;
    insee_rng rng;
    insee_rng_init(&rng, 1, 2);
    rig_tree_nic(&g, 4, 3, true, STATIC, RULE_PAPER, 3);
    check_route_6_to_60(&g, &rng, (const uint32_t[]){48 + 6, 1, 18, 38, 30, 15},
                        (const uint32_t[]){0, 6, 5, 3, 3, 60 % 4}, 7 % 3);
    rig_free(&g);
    rig_tree_nic(&g, 4, 3, true, STATIC, RULE_INSEE, 3);
    cr_assert_eq(g.vt->properties(g.self), INSEE_ROUTE_LOCAL | INSEE_ROUTE_NO_DROPS,
                 "draws at the interface: not pure");
    uint32_t seen[3] = {0};
    for (int i = 0; i < 300; i++)
        seen[route_one(&g, &rng, 48 + 6, INSEE_PORT_INJECTION, 0, 0, 6, 60, 7).vc]++;
    for (uint32_t vc = 0; vc < 3; vc++)
        cr_assert_gt(seen[vc], 60u, "VC %u drawn %u times of 300", vc, seen[vc]);
    /* A walk whose interface drew VC 1 (the walk's stream decides). */
    for (int tries = 0;; tries++) {
        cr_assert_lt(tries, 100);
        insee_rng probe = rng;
        if (route_one(&g, &probe, 48 + 6, INSEE_PORT_INJECTION, 0, 0, 6, 60, 7).vc == 1)
            break;
        insee_rng_below(&rng, 2);
    }
    check_route_6_to_60(&g, &rng, (const uint32_t[]){48 + 6, 1, 19, 43, 31, 15},
                        (const uint32_t[]){0, 7, 6, 3, 3, 60 % 4}, 1);
    rig_free(&g);
}

/* A 5:2-ary 3-thin-tree has 2 up ports (5, 6): node 7 (leaf 1) leaves by
   port 5 + 7 mod 2 = 6, then by 5 + (7 / 5) mod 2 = 6 again. */
Test(multistage, static_on_a_thin_tree_takes_source_mod_k_up)
{
    rig g;
    insee_value params[6] = {value_int(5),      value_int(2),          value_int(3),
                             value_bool(false), value_int_list(NULL, 0), value_int_list(NULL, 0)};
    rig_topology(&g, "thin-tree", params, 1);
    insee_error err = {0};
    cr_assert_not_null(rig_router(&g, STATIC, &err), "multistage create: %s", err.message);
    uint32_t routers[8];
    insee_candidate taken[8];
    cr_assert_eq(walk(&g, 7, 120, 0, routers, taken, 8), 4u);
    cr_assert_eq(taken[0].port, 6);
    cr_assert_eq(taken[1].port, 6);
    insee_rng rng;
    insee_rng_init(&rng, 1, 2);
    cr_assert_eq(route_one(&g, &rng, 1, INSEE_PORT_INJECTION, 0, 0, 8, 120, 0).port, 5);
    rig_free(&g);
}

/* up_by = "destination" (INSEE's check_rr_thintree_static): on the same
   5:2-ary 3-thin-tree node 7 to node 121 leaves leaf 1 by port 5 + 121
   mod 2 = 6, then level 1 by 5 + (121 / 5) mod 2 = 5, whatever the
   source; with INSEE's rule on VC 1, 5 + (121 + 1) mod 2 = 5, then
   5 + (24 + 1) mod 2 = 6. */
Test(multistage, static_up_by_destination_on_a_thin_tree)
{
    insee_value params[6] = {value_int(5),      value_int(2),          value_int(3),
                             value_bool(false), value_int_list(NULL, 0), value_int_list(NULL, 0)};
    const struct {
        int rule;
        uint32_t salt, port[2];
    } cases[] = {{RULE_PAPER, 0, {6, 5}}, {RULE_INSEE, 1, {5, 6}}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        rig g;
        rig_topology(&g, "thin-tree", params, 2);
        insee_error err = {0};
        cr_assert_not_null(rig_router_by(&g, STATIC, cases[c].rule, BY_DESTINATION, &err),
                           "multistage create: %s", err.message);
        for (uint32_t src = 5; src < 10; src++) {
            uint32_t routers[8];
            insee_candidate taken[8];
            cr_assert_eq(walk(&g, src, 121, cases[c].salt, routers, taken, 8), 4u);
            cr_assert_eq(taken[0].port, cases[c].port[0], "source %u, leaf: port %u", src,
                         taken[0].port);
            cr_assert_eq(taken[1].port, cases[c].port[1], "source %u, level 1: port %u", src,
                         taken[1].port);
        }
        rig_free(&g);
    }
}

/* adaptive, going up from leaf 1 of the 4-ary 3-tree: the (up port, VC)
   with most free room; on a tie each of the roomiest, never another. */
Test(multistage, adaptive_takes_the_roomiest_up_port)
{
    rig g;
    rig_tree(&g, 4, 3, ADAPTIVE, 2);
    cr_assert_eq(g.vt->properties(g.self), INSEE_ROUTE_LOCAL | INSEE_ROUTE_NO_DROPS);
    for (uint32_t p = 4; p < 8; p++)
        room_of[1][p][0] = room_of[1][p][1] = 1;
    room_of[1][6][1] = 3;
    insee_rng rng;
    insee_rng_init(&rng, 5, 1);
    for (int i = 0; i < 50; i++) {
        insee_candidate c = route_one(&g, &rng, 1, INSEE_PORT_INJECTION, 0, 0, 6, 60, 0);
        cr_assert(c.port == 6 && c.vc == 1, "took port %u vc %u, want the roomiest 6/1", c.port,
                  c.vc);
    }
    room_of[1][4][0] = 3;
    int seen[2] = {0, 0};
    for (int i = 0; i < 400; i++) {
        insee_candidate c = route_one(&g, &rng, 1, INSEE_PORT_INJECTION, 0, 0, 6, 60, 0);
        bool first = c.port == 4 && c.vc == 0, second = c.port == 6 && c.vc == 1;
        cr_assert(first || second, "took port %u vc %u, not one of the roomiest", c.port, c.vc);
        seen[second]++;
    }
    cr_assert(seen[0] > 140 && seen[1] > 140, "ties at random: %d / %d", seen[0], seen[1]);
    /* Going down (top router 38 toward node 60) the port is the
       destination's; only the VC adapts. */
    room_of[38][3][0] = 1;
    insee_candidate c = route_one(&g, &rng, 38, 5, 0, 2, 6, 60, 0);
    cr_assert_eq(c.port, 3);
    cr_assert_eq(c.vc, 1);
    rig_free(&g);
}

/* rule = "insee": of two equally roomy pairs the first (port 4 VC 0, before
   port 6 VC 1) is drawn twice as often, as INSEE's min_queue_occupation()
   counts it twice: 2/3 of 900 draws, within five binomial deviations. */
Test(multistage, insee_rule_weighs_the_first_roomiest_twice)
{
    rig g;
    rig_tree_nic(&g, 4, 3, false, ADAPTIVE, RULE_INSEE, 2);
    for (uint32_t p = 4; p < 8; p++)
        room_of[1][p][0] = room_of[1][p][1] = 1;
    room_of[1][4][0] = room_of[1][6][1] = 3;
    insee_rng rng;
    insee_rng_init(&rng, 5, 1);
    int first = 0;
    const int draws = 900;
    for (int i = 0; i < draws; i++) {
        insee_candidate c = route_one(&g, &rng, 1, INSEE_PORT_INJECTION, 0, 0, 6, 60, 0);
        cr_assert((c.port == 4 && c.vc == 0) || (c.port == 6 && c.vc == 1));
        first += c.port == 4;
    }
    double sd = sqrt(draws * (2.0 / 3) * (1.0 / 3));
    cr_assert(fabs(first - draws * 2.0 / 3) < 5 * sd, "first roomiest %d times of %d", first,
              draws);
    rig_free(&g);
}

/* On an ABI 1.0 host (no phit counts) adaptive compares whole packets. */
Test(multistage, adaptive_reads_packets_without_phit_counts)
{
    rig g;
    insee_value params[3] = {value_int(4), value_int(3), value_bool(false)};
    rig_topology(&g, "kary-ntree", params, 1);
    g.host.output_free_phits = NULL;
    insee_error err = {0};
    cr_assert_not_null(rig_router(&g, ADAPTIVE, &err), "multistage create: %s", err.message);
    for (uint32_t p = 4; p < 8; p++)
        room_of[1][p][0] = 1;
    room_of[1][5][0] = 2;
    insee_rng rng;
    insee_rng_init(&rng, 5, 1);
    cr_assert_eq(route_one(&g, &rng, 1, INSEE_PORT_INJECTION, 0, 0, 6, 60, 0).port, 5);
    rig_free(&g);
}

/* Not a tree: refused, pointing at the generic routers. */
Test(multistage, refuses_a_torus)
{
    rig g;
    memset(&g, 0, sizeof g);
    mock_topology(&g.k, "torus", (const int64_t[]){4, 4}, 2, true);
    g.k.shape.vcs = 2;
    g.host = mock_host(&g.k);
    insee_error err = {0};
    for (int mode = STATIC; mode <= ADAPTIVE; mode++) {
        cr_assert_null(rig_router(&g, mode, &err));
        cr_assert_eq(err.code, INSEE_ERR_UNSUPPORTED);
        cr_assert(strstr(err.message, "not labelled up or down") &&
                      strstr(err.message, "updown") && strstr(err.message, "ecmp"),
                  "%s", err.message);
    }
    mock_topology_free(&g.k);
}
