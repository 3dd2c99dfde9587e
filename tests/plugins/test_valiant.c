/* test_valiant.c — the valiant, ugal and minimal-adaptive routers through
 * the mock host on HyperX, hypercube and dragonfly instances. One program
 * for the three: they share the network survey (valiant and ugal also the
 * phases and VC rule), and the rig that builds these topologies on the mock.
 *
 *  - valiant: the phase switch at the intermediate and the VCs of
 *    hand-checked paths; the intermediate drawn once; over every source,
 *    intermediate and destination and every candidate at every hop, the
 *    channels' (VC, dimension) strictly increase and the VCs stay below the
 *    count create() demands, which some path reaches; create()'s refusals.
 *  - ugal: its choice against the rule q_min w_min <= q_val w_val +
 *    threshold with fixed rooms (or used phits) per port, ties minimal;
 *    the weights the hops or fixed ones.
 *  - minimal-adaptive: candidates roomiest first, full ones left out,
 *    dimension order on VC 0 last; the escape climbs the dimensions on
 *    every pair (an acyclic channel dependency graph); refusals. */
#include "harness.h"
#include "valiant_core.h"

#include <criterion/criterion.h>
#include <string.h>

/* output_room() and output_used_phits() by output port and VC, whatever
   the router. */
#define ROOM_PORTS 64u
#define ROOM_VCS 4u
static uint32_t room_at[ROOM_PORTS][ROOM_VCS];
static uint32_t used_at[ROOM_PORTS][ROOM_VCS];

static uint32_t port_room(insee_kernel *k, uint32_t router, uint32_t port, uint32_t vc)
{
    (void)k;
    (void)router;
    return room_at[port][vc];
}

static uint32_t port_used_phits(insee_kernel *k, uint32_t router, uint32_t port, uint32_t vc)
{
    (void)k;
    (void)router;
    return used_at[port][vc];
}

static void set_room(uint32_t port, uint32_t vc0, uint32_t vc1, uint32_t vc2)
{
    room_at[port][0] = vc0;
    room_at[port][1] = vc1;
    room_at[port][2] = vc2;
}

typedef struct rig {
    insee_kernel k;
    insee_host host;
    const insee_router_vtable *vt;
    void *self;
} rig;

/* The mock host over g->k, reading the link table and room_at[], every
   queue empty (room 4 of 4). */
static void rig_host(rig *g, uint32_t vcs)
{
    g->k.shape.vcs = vcs;
    g->k.shape.queue_packets = 4;
    g->k.shape.packet_phits = 16;
    g->k.seed = 1;
    g->host = mock_host(&g->k);
    g->host.output_room = port_room;
    g->host.output_used_phits = port_used_phits;
    memset(used_at, 0, sizeof used_at);
    for (uint32_t p = 0; p < ROOM_PORTS; p++)
        set_room(p, 4, 4, 4);
}

static void rig_topology(rig *g, const char *name, const insee_value *params, uint32_t vcs)
{
    memset(g, 0, sizeof *g);
    const insee_plugin_desc *d = load_plugin("topology", name);
    rig_host(g, vcs);
    insee_error err = {0};
    g->k.topo = d->vtable;
    g->k.topo_self = g->k.topo->create(&g->host, params, &err);
    cr_assert_not_null(g->k.topo_self, "%s create: %s", name, err.message);
    insee_topology_info info;
    g->k.topo->info(g->k.topo_self, &info);
    cr_assert_leq(info.max_ports, ROOM_PORTS);
    g->k.shape.routers = info.routers;
    g->k.shape.nodes = info.nodes;
    g->k.shape.max_ports = info.max_ports;
    g->k.shape.dims = info.dims;
}

static void hyperx(rig *g, const int64_t *dims, size_t n, int64_t trunking, uint32_t vcs)
{
    insee_value params[3] = {value_int_list(dims, n), value_int(trunking), value_int(1)};
    rig_topology(g, "hyperx", params, vcs);
}

static void hypercube(rig *g, int64_t n, uint32_t vcs)
{
    insee_value params[1] = {value_int(n)};
    rig_topology(g, "hypercube", params, vcs);
}

/* The dragonfly's arrangements, in the order of its choices. */
static const char *const arrangements[] = {"consecutive", "palmtree", "relative",
                                           "absolute",    "circulant", "random"};

/* a = 4, h = 2, p = 2: 9 groups of 4 routers, 72 nodes. */
static void dragonfly(rig *g, int arrangement, uint32_t vcs)
{
    insee_value params[6] = {value_int(4), value_int(2), value_int(2), value_int(0),
                             value_enum(arrangement, arrangements[arrangement]),
                             value_bool(false)};
    rig_topology(g, "dragonfly", params, vcs);
}

/* Router `name` on the rig; NULL (err filled) when create() refuses. */
static void *rig_router(rig *g, const char *name, const insee_value *params, insee_error *err)
{
    const insee_plugin_desc *d = load_plugin("router", name);
    cr_assert_eq(d->kind, INSEE_KIND_ROUTER);
    g->vt = d->vtable;
    g->self = g->vt->create(&g->host, params, err);
    return g->self;
}

static void *valiant_on(rig *g, int intermediate, insee_error *err)
{
    insee_value params[1] = {value_enum(intermediate, intermediate ? "group" : "router")};
    return rig_router(g, "valiant", params, err);
}

/* ugal's parameters: its threshold, and BookSim2's metric and weights
   (phits = true, min_weight, valiant_weight; 0 weights: the hops). */
typedef struct ugal_rule {
    int64_t threshold;
    bool phits;
    int64_t w_min, w_val;
} ugal_rule;

static void *ugal_with(rig *g, ugal_rule r, insee_error *err)
{
    insee_value params[5] = {value_enum(0, "router"), value_int(r.threshold),
                             r.phits ? value_enum(1, "phits") : value_enum(0, "packets"),
                             value_int(r.w_min), value_int(r.w_val)};
    return rig_router(g, "ugal", params, err);
}

static void *ugal_on(rig *g, int64_t threshold, insee_error *err)
{
    return ugal_with(g, (ugal_rule){.threshold = threshold}, err);
}

static void rig_free(rig *g)
{
    if (g->self)
        g->vt->destroy(g->self);
    mock_topology_free(&g->k);
}

#define DIMS(...) (const int64_t[]){__VA_ARGS__}, sizeof((const int64_t[]){__VA_ARGS__}) / sizeof(int64_t)

static uint32_t router_of(const rig *g, uint32_t node)
{
    return g->k.topo->node_router(g->k.topo_self, node);
}

/* The lowest node of a router (HyperX and dragonfly number nodes by router). */
static uint32_t node_on(const rig *g, uint32_t router)
{
    return router * (g->k.shape.nodes / g->k.shape.routers);
}

static uint32_t distance(const rig *g, uint32_t router, uint32_t node)
{
    return g->k.topo->distance(g->k.topo_self, router, node);
}

static int16_t dim_of(const rig *g, uint32_t router, uint32_t port)
{
    insee_hop h;
    g->k.topo->port_info(g->k.topo_self, router, port, &h);
    return h.dim;
}

static insee_route_ctx injection_ctx(const rig *g, uint32_t router, uint32_t dst_node,
                                     valiant_packet *st, insee_rng *rng)
{
    return (insee_route_ctx){.size = sizeof(insee_route_ctx), .router = router,
                             .in_port = INSEE_PORT_INJECTION, .src_node = node_on(g, router),
                             .dst_node = dst_node, .salt = 5, .packet_state = st, .rng = rng};
}

/* ctx after the hop `c`: at the router it leads to, on its VC. */
static void follow(const rig *g, insee_route_ctx *ctx, const insee_candidate *c)
{
    insee_port_peer to;
    cr_assert(g->k.topo->link(g->k.topo_self, ctx->router, c->port, &to));
    ctx->router = to.router;
    ctx->in_port = to.port;
    ctx->in_vc = c->vc;
    ctx->hops++;
}

/* ---- valiant ------------------------------------------------------------ */

/* Walk a packet with its intermediate set (`via`, a router) from router src
   to node dst as the kernel would (first candidate, consumed at dst's
   router); the routers it visits (path[0] = src) and its VCs. Checks that
   the phase switches exactly when it leaves the intermediate. */
static uint32_t walk(const rig *g, uint32_t src, uint32_t via, uint32_t dst, uint32_t *routers,
                     uint16_t *vcs)
{
    valiant_packet st = {.via = via + 1};
    insee_rng rng;
    insee_rng_init(&rng, 1, 2);
    insee_route_ctx ctx = injection_ctx(g, src, dst, &st, &rng);
    uint32_t hops = 0;
    bool left_via = false;
    routers[0] = src;
    while (ctx.router != router_of(g, dst)) {
        cr_assert_lt(hops, 8u);
        insee_candidate c[INSEE_MAX_CANDIDATES];
        cr_assert_geq(g->vt->route(g->self, &ctx, c, INSEE_MAX_CANDIDATES), 1u);
        left_via |= ctx.router == via;
        g->vt->forwarded(g->self, &ctx, &c[0]);
        cr_assert_eq(st.to_dst, left_via, "hop %u from router %u: phase %u", hops, ctx.router,
                     st.to_dst);
        cr_assert_eq(st.via, via + 1, "the intermediate never changes");
        vcs[hops] = c[0].vc;
        follow(g, &ctx, &c[0]);
        routers[++hops] = ctx.router;
    }
    return hops;
}

static void expect_walk(const rig *g, uint32_t src, uint32_t via, uint32_t dst_router,
                        const uint32_t *want_routers, const uint16_t *want_vcs, uint32_t n)
{
    uint32_t routers[9];
    uint16_t vcs[8];
    cr_assert_eq(walk(g, src, via, node_on(g, dst_router), routers, vcs), n,
                 "%u via %u to %u", src, via, dst_router);
    for (uint32_t i = 0; i < n; i++) {
        cr_assert_eq(routers[i + 1], want_routers[i], "%u via %u to %u: hop %u to router %u, "
                     "want %u", src, via, dst_router, i, routers[i + 1], want_routers[i]);
        cr_assert_eq(vcs[i], want_vcs[i], "%u via %u to %u: hop %u on VC %u, want %u", src, via,
                     dst_router, i, vcs[i], want_vcs[i]);
    }
}

#define ROUTERS(...) (const uint32_t[]){__VA_ARGS__}
#define VCS(...) (const uint16_t[]){__VA_ARGS__}, sizeof((const uint16_t[]){__VA_ARGS__}) / sizeof(uint16_t)

/* HyperX 4 x 3, router x + 4 y: dimension order in each phase; VC 1 from
   the first hop of the second phase that does not climb above the last
   dimension. */
Test(valiant, phases_on_a_hyperx)
{
    rig g;
    insee_error err = {0};
    hyperx(&g, DIMS(4, 3), 1, 2);
    cr_assert_not_null(valiant_on(&g, 0, &err), "%s", err.message);
    /* (0,0) -> (2,1) -> (1,2): x, y, then x again (VC 1), y */
    expect_walk(&g, 0, 6, 9, ROUTERS(2, 6, 5, 9), VCS(0, 0, 1, 1));
    /* (0,0) -> (2,0) -> (2,2): x, then y climbs: VC 0 throughout */
    expect_walk(&g, 0, 2, 10, ROUTERS(2, 10), VCS(0, 0));
    /* intermediate = source: minimal from the start */
    expect_walk(&g, 0, 0, 9, ROUTERS(1, 9), VCS(0, 0));
    /* the destination's router on the way to the intermediate: consumed there */
    expect_walk(&g, 0, 6, 2, ROUTERS(2), VCS(0));
    cr_assert_eq(g.vt->packet_state_size(g.self), sizeof(valiant_packet));
    rig_free(&g);
}

/* The intermediate is drawn at the first request from the injection queue
   and kept while the head waits there. */
Test(valiant, intermediate_drawn_once)
{
    rig g;
    insee_error err = {0};
    dragonfly(&g, 0, 4);
    cr_assert_not_null(valiant_on(&g, 0, &err), "%s", err.message);
    uint32_t seen = 0;
    for (uint64_t seed = 0; seed < 64; seed++) {
        valiant_packet st = {0};
        insee_rng rng;
        insee_rng_init(&rng, seed, 9);
        insee_route_ctx ctx = injection_ctx(&g, 3, node_on(&g, 30), &st, &rng);
        insee_candidate c[INSEE_MAX_CANDIDATES];
        g.vt->route(g.self, &ctx, c, INSEE_MAX_CANDIDATES);
        uint32_t via = st.via;
        cr_assert(via >= 1 && via <= g.k.shape.routers);
        for (int again = 0; again < 3; again++) {
            g.vt->route(g.self, &ctx, c, INSEE_MAX_CANDIDATES);
            cr_assert_eq(st.via, via);
        }
        seen |= 1u << (via % 32);
    }
    cr_assert_gt(__builtin_popcount(seen), 16, "64 draws hit few intermediates");
    rig_free(&g);
}

/* Every path the router may give from ctx on (every candidate at every
   hop): the highest VC used; asserts that (VC, dimension) strictly
   increases hop after hop. */
static uint16_t highest_vc(const rig *g, insee_route_ctx ctx, valiant_packet st,
                           uint16_t last_vc, int16_t last_dim)
{
    if (ctx.router == router_of(g, ctx.dst_node))
        return 0;
    cr_assert_lt(ctx.hops, 12u); /* two phases of at most 5 hops (the 5-cube) */
    ctx.packet_state = &st;
    insee_candidate c[INSEE_MAX_CANDIDATES];
    uint32_t n = g->vt->route(g->self, &ctx, c, INSEE_MAX_CANDIDATES);
    cr_assert_geq(n, 1u);
    uint16_t top = 0;
    for (uint32_t i = 0; i < n; i++) {
        int16_t dim = dim_of(g, ctx.router, c[i].port);
        bool first = ctx.in_port == INSEE_PORT_INJECTION;
        cr_assert(first || c[i].vc > last_vc || (c[i].vc == last_vc && dim > last_dim),
                  "router %u to node %u: (VC %u, dim %d) after (VC %u, dim %d)", ctx.router,
                  ctx.dst_node, c[i].vc, dim, last_vc, last_dim);
        cr_assert_eq(c[i].room, 1);
        valiant_packet next = st;
        insee_route_ctx at = ctx;
        at.packet_state = &next;
        g->vt->forwarded(g->self, &at, &c[i]);
        follow(g, &at, &c[i]);
        uint16_t below = highest_vc(g, at, next, c[i].vc, dim);
        top = c[i].vc > top ? c[i].vc : top;
        top = below > top ? below : top;
    }
    return top;
}

/* Over every source router, intermediate and destination router. */
static uint16_t highest_vc_anywhere(const rig *g, bool by_group)
{
    uint16_t top = 0;
    uint32_t R = g->k.shape.routers;
    for (uint32_t s = 0; s < R; s++)
        for (uint32_t via = 0; via < R; via++) {
            /* intermediate = "group": the far ends of the source group's
               global links (dimension 1) only */
            bool landing = false;
            for (uint32_t r = s - s % 4; by_group && r < s - s % 4 + 4; r++)
                for (uint32_t p = 0; p < g->k.shape.max_ports; p++) {
                    insee_port_peer to;
                    g->k.topo->link(g->k.topo_self, r, p, &to);
                    landing |= dim_of(g, r, p) == 1 && to.router == via;
                }
            if (by_group && !landing)
                continue;
            for (uint32_t t = 0; t < R; t++) {
                if (t == s)
                    continue;
                valiant_packet st = {.via = via + 1};
                insee_rng rng;
                insee_rng_init(&rng, 1, 2);
                uint16_t v = highest_vc(g, injection_ctx(g, s, node_on(g, t), &st, &rng), st, 0,
                                        -1);
                top = v > top ? v : top;
            }
        }
    return top;
}

/* The VC counts of the README are enough, and needed: some path uses the
   last VC, whatever the arrangement of the global links (the router reads
   the groups from the links, not from a formula). */
Test(valiant, vcs_needed_on_a_dragonfly, .timeout = 120)
{
    for (int arr = 0; arr < (int)(sizeof arrangements / sizeof arrangements[0]); arr++) {
        rig g;
        insee_error err = {0};
        dragonfly(&g, arr, 4);
        cr_assert_not_null(valiant_on(&g, 0, &err), "%s", err.message);
        cr_assert_eq(highest_vc_anywhere(&g, false), 3, "intermediate router: VCs 0-3");
        g.vt->destroy(g.self);
        g.k.shape.vcs = 3;
        cr_assert_not_null(valiant_on(&g, 1, &err), "%s", err.message);
        cr_assert_eq(highest_vc_anywhere(&g, true), 2, "intermediate group: VCs 0-2");
        rig_free(&g);
    }
}

Test(valiant, vcs_needed_on_hyperx_and_hypercube, .timeout = 120)
{
    rig g;
    insee_error err = {0};
    hyperx(&g, DIMS(4, 3), 2, 2);
    cr_assert_not_null(valiant_on(&g, 0, &err), "%s", err.message);
    cr_assert_eq(highest_vc_anywhere(&g, false), 1);
    rig_free(&g);
    hyperx(&g, DIMS(3, 3, 3), 1, 2);
    cr_assert_not_null(valiant_on(&g, 0, &err), "%s", err.message);
    cr_assert_eq(highest_vc_anywhere(&g, false), 1);
    rig_free(&g);
    hypercube(&g, 5, 2);
    cr_assert_not_null(valiant_on(&g, 0, &err), "%s", err.message);
    cr_assert_eq(highest_vc_anywhere(&g, false), 1);
    rig_free(&g);
}

/* create() names vcs and the count needed, and refuses what it cannot
   route deadlock free. */
Test(valiant, refusals)
{
    rig g;
    insee_error err = {0};
    hyperx(&g, DIMS(4, 3), 1, 1);
    cr_assert_null(valiant_on(&g, 0, &err));
    cr_assert(strstr(err.message, "vcs = 2"), "%s", err.message);
    g.k.shape.vcs = 2;
    cr_assert_null(valiant_on(&g, 1, &err));
    cr_assert(strstr(err.message, "intermediate = \"router\""), "%s", err.message);
    rig_free(&g);
    dragonfly(&g, 0, 3);
    cr_assert_null(valiant_on(&g, 0, &err));
    cr_assert(strstr(err.message, "vcs = 4") && strstr(err.message, "vcs = 3"), "%s",
              err.message);
    g.k.shape.vcs = 2;
    cr_assert_null(valiant_on(&g, 1, &err));
    cr_assert(strstr(err.message, "vcs = 3") && strstr(err.message, "vcs = 2"), "%s",
              err.message);
    rig_free(&g);
    memset(&g, 0, sizeof g);
    mock_topology(&g.k, "torus", DIMS(4, 4), true);
    rig_host(&g, 8);
    cr_assert_null(valiant_on(&g, 0, &err));
    cr_assert(strstr(err.message, "torus") && strstr(err.message, "updown"), "%s", err.message);
    rig_free(&g);
    memset(&g, 0, sizeof g);
    mock_topology(&g.k, "mesh", DIMS(4, 4), true);
    rig_host(&g, 8);
    cr_assert_null(ugal_on(&g, 0, &err));
    cr_assert(strstr(err.message, "ugal: ") && strstr(err.message, "mesh"), "%s", err.message);
    rig_free(&g);
}

/* ---- ugal ---------------------------------------------------------------- */

/* UGAL's choice for a packet from router 0 to router `dst` of a 4 x 3
   HyperX with the rooms set in room_at[], for the draw `seed` gives:
   checked against the rule, computed here from the topology. Returns
   whether it went minimal. */
static bool ugal_checked(const rig *g, uint64_t seed, uint32_t dst, ugal_rule r)
{
    const uint32_t src = 0, vcs = g->k.shape.vcs, Q = g->k.shape.queue_packets;
    valiant_packet st = {0};
    insee_rng rng, copy;
    insee_rng_init(&rng, seed, 4);
    copy = rng;
    insee_route_ctx ctx = injection_ctx(g, src, node_on(g, dst), &st, &rng);
    insee_candidate c[INSEE_MAX_CANDIDATES];
    g->vt->route(g->self, &ctx, c, INSEE_MAX_CANDIDATES);
    /* The Valiant candidate: ugal's first draw, a router at random. */
    uint32_t via = insee_rng_below(&copy, g->k.shape.routers);
    insee_hop first_min, first_val;
    g->k.topo->minimal_hops(g->k.topo_self, src, node_on(g, dst), ctx.salt, &first_min, 1);
    uint32_t q_min = 0, q_val = 0;
    for (uint32_t vc = 0; vc < vcs; vc++)
        q_min += r.phits ? used_at[first_min.port][vc] : Q - room_at[first_min.port][vc];
    if (via != src) {
        g->k.topo->minimal_hops(g->k.topo_self, src, node_on(g, via), ctx.salt, &first_val, 1);
        for (uint32_t vc = 0; vc < vcs; vc++)
            q_val += r.phits ? used_at[first_val.port][vc] : Q - room_at[first_val.port][vc];
    }
    int64_t w_min = r.w_min ? r.w_min : distance(g, src, node_on(g, dst));
    int64_t w_val = r.w_val ? r.w_val
                            : distance(g, src, node_on(g, via)) + distance(g, via, node_on(g, dst));
    bool minimal = via == src || (int64_t)q_min * w_min <= (int64_t)q_val * w_val + r.threshold;
    cr_assert_eq(st.via, (minimal ? src : via) + 1,
                 "seed %llu: via %u, q_min %u w_min %lld, q_val %u w_val %lld, threshold %lld: "
                 "chose %u", (unsigned long long)seed, via, q_min, (long long)w_min, q_val,
                 (long long)w_val, (long long)r.threshold, st.via - 1);
    /* The choice is kept while the head waits. */
    g->vt->route(g->self, &ctx, c, INSEE_MAX_CANDIDATES);
    cr_assert_eq(st.via, (minimal ? src : via) + 1);
    return minimal;
}

/* Counts of minimal choices over 200 draws. */
static uint32_t ugal_rule_count(rig *g, uint32_t dst, ugal_rule r)
{
    insee_error err = {0};
    cr_assert_not_null(ugal_with(g, r, &err), "%s", err.message);
    uint32_t minimal = 0;
    for (uint64_t seed = 0; seed < 200; seed++)
        minimal += ugal_checked(g, seed, dst, r);
    g->vt->destroy(g->self);
    g->self = NULL;
    return minimal;
}

static uint32_t ugal_minimal_count(rig *g, uint32_t dst, int64_t threshold)
{
    return ugal_rule_count(g, dst, (ugal_rule){.threshold = threshold});
}

Test(ugal, decision_rule_with_fixed_rooms)
{
    rig g;
    hyperx(&g, DIMS(4, 3), 1, 2);
    /* Router 0 to router 1, one hop over port 0. Empty queues: minimal. */
    cr_assert_eq(ugal_minimal_count(&g, 1, 0), 200);
    /* Port 0 full on both VCs (q_min = 8), the others empty: Valiant,
       except through port 0 itself or when the draw is the source. */
    set_room(0, 0, 0, 0);
    uint32_t minimal = ugal_minimal_count(&g, 1, 0);
    cr_assert(minimal > 0 && minimal < 100, "%u minimal of 200", minimal);
    /* A threshold of 8 packet-hops keeps even that minimal. */
    cr_assert_eq(ugal_minimal_count(&g, 1, 8), 200);
    /* q_min h_min = 2 x 1; q_val = 1 on every other port, over Valiant
       paths of 2 hops or more, and 2 through port 0: every draw ties or
       loses, and a tie goes minimal. Threshold -1 sends the ties Valiant. */
    set_room(0, 3, 3, 0);
    for (uint32_t p = 1; p < g.k.shape.max_ports; p++)
        set_room(p, 4, 3, 0);
    cr_assert_eq(ugal_minimal_count(&g, 1, 0), 200);
    uint32_t ties_valiant = ugal_minimal_count(&g, 1, -1);
    cr_assert(ties_valiant > 0 && ties_valiant < 200, "%u minimal of 200", ties_valiant);
    /* To router 9 = (1, 2), 2 hops: q_min h_min = 2 x 2 against a Valiant
       path of 2 to 4 hops at q_val = 1 (or 2 through port 0). */
    cr_assert_gt(ugal_minimal_count(&g, 9, 0), 0);
    rig_free(&g);
}

/* BookSim2's rule: the phits in use (output_used_phits, not the rooms)
   weighed 1 against 2, with its threshold of 30. */
Test(ugal, booksim_rule_reads_used_phits_with_fixed_weights)
{
    rig g;
    hyperx(&g, DIMS(4, 3), 1, 2);
    const ugal_rule booksim = {.threshold = 30, .phits = true, .w_min = 1, .w_val = 2};
    /* Full rooms everywhere do not count under metric = "phits": minimal. */
    for (uint32_t p = 0; p < g.k.shape.max_ports; p++)
        set_room(p, 0, 0, 0);
    cr_assert_eq(ugal_rule_count(&g, 1, booksim), 200);
    /* 31 phits behind the minimal hop, none elsewhere: over 2 x 0 + 30,
       Valiant unless the draw is the source or goes through port 0. */
    used_at[0][1] = 31;
    uint32_t minimal = ugal_rule_count(&g, 1, booksim);
    cr_assert(minimal > 0 && minimal < 100, "%u minimal of 200", minimal);
    /* 30 ties, and a tie goes minimal. */
    used_at[0][1] = 30;
    cr_assert_eq(ugal_rule_count(&g, 1, booksim), 200);
    /* 40 phits behind the minimal hop and 6 behind every other one: 40 >
       2 x 6 + 30 = 42 is false, so minimal; by the hops (1 against >= 2,
       threshold 30) it is the same, and weights 1 and 1 send it Valiant. */
    used_at[0][1] = 40;
    for (uint32_t p = 1; p < g.k.shape.max_ports; p++)
        used_at[p][0] = 6;
    cr_assert_eq(ugal_rule_count(&g, 1, booksim), 200);
    uint32_t even = ugal_rule_count(&g, 1, (ugal_rule){.threshold = 30, .phits = true,
                                                       .w_min = 1, .w_val = 1});
    cr_assert(even > 0 && even < 100, "%u minimal of 200", even);
    /* A kernel older than ABI 1.13 has no output_used_phits: refused. */
    g.host.abi_minor = 12;
    insee_error err = {0};
    cr_assert_null(ugal_with(&g, booksim, &err));
    cr_assert(strstr(err.message, "1.13") && strstr(err.message, "metric = \"packets\""), "%s",
              err.message);
    rig_free(&g);
}

/* ---- minimal-adaptive ------------------------------------------------------ */

static void *madapt_on(rig *g, insee_error *err)
{
    return rig_router(g, "minimal-adaptive", NULL, err);
}

/* HyperX 4 x 3 with trunking 2, router 0 = (0,0) to router 9 = (1,2): the
   minimal ports are 0 and 1 (x to 1, the two links of the trunk) and 8 and
   9 (y to 2), listed in that order with salt 0. */
Test(minimal_adaptive, roomiest_first_escape_last)
{
    rig g;
    insee_error err = {0};
    hyperx(&g, DIMS(4, 3), 2, 3);
    cr_assert_not_null(madapt_on(&g, &err), "%s", err.message);
    set_room(0, 4, 1, 3);
    set_room(1, 4, 0, 2);
    set_room(8, 4, 3, 4);
    set_room(9, 4, 2, 0);
    insee_rng rng;
    insee_rng_init(&rng, 1, 1);
    insee_route_ctx ctx = {.size = sizeof ctx, .router = 0, .in_port = INSEE_PORT_INJECTION,
                           .dst_node = 9, .salt = 0, .rng = &rng};
    insee_candidate c[INSEE_MAX_CANDIDATES];
    static const struct { uint32_t port; uint16_t vc; } want[] = {
        {8, 2}, {0, 2}, {8, 1}, {1, 2}, {9, 1}, {0, 1}, /* room 4, 3, 3, 2, 2, 1 */
        {0, 0},                                         /* the escape: x first, VC 0 */
    };
    uint32_t n = g.vt->route(g.self, &ctx, c, INSEE_MAX_CANDIDATES);
    cr_assert_eq(n, sizeof want / sizeof want[0]);
    for (uint32_t i = 0; i < n; i++) {
        cr_assert_eq(c[i].port, want[i].port, "candidate %u: port %u, want %u", i, c[i].port,
                     want[i].port);
        cr_assert_eq(c[i].vc, want[i].vc, "candidate %u: VC %u, want %u", i, c[i].vc,
                     want[i].vc);
        cr_assert_eq(c[i].room, 1);
    }
    /* Nothing adaptive has room: the escape alone. */
    for (uint32_t p = 0; p < g.k.shape.max_ports; p++)
        set_room(p, 4, 0, 0);
    cr_assert_eq(g.vt->route(g.self, &ctx, c, INSEE_MAX_CANDIDATES), 1);
    cr_assert(c[0].port == 0 && c[0].vc == 0);
    cr_assert_null(g.vt->forwarded, "no packet state to keep");
    rig_free(&g);
}

/* On every pair, every candidate is a minimal hop, only the last is on
   VC 0, and that escape climbs the dimensions hop after hop: VC 0 alone
   has an acyclic channel dependency graph (Duato's escape). */
static void escape_climbs(rig *g)
{
    uint32_t R = g->k.shape.routers;
    for (uint32_t s = 0; s < R; s++)
        for (uint32_t t = 0; t < R; t++) {
            insee_rng rng;
            insee_rng_init(&rng, 1, 1);
            insee_route_ctx ctx = {.size = sizeof ctx, .router = s,
                                   .in_port = INSEE_PORT_INJECTION, .dst_node = node_on(g, t),
                                   .salt = s * 7 + t, .rng = &rng};
            int16_t last_dim = -1;
            while (ctx.router != t) {
                insee_candidate c[INSEE_MAX_CANDIDATES];
                uint32_t n = g->vt->route(g->self, &ctx, c, INSEE_MAX_CANDIDATES);
                cr_assert_geq(n, 1u);
                uint32_t d = distance(g, ctx.router, ctx.dst_node);
                for (uint32_t i = 0; i < n; i++) {
                    insee_port_peer to;
                    g->k.topo->link(g->k.topo_self, ctx.router, c[i].port, &to);
                    cr_assert_eq(distance(g, to.router, ctx.dst_node) + 1, d);
                    cr_assert_eq(c[i].vc == 0, i == n - 1);
                }
                int16_t dim = dim_of(g, ctx.router, c[n - 1].port);
                cr_assert_gt(dim, last_dim, "%u to %u: escape in dimension %d after %d", s, t,
                             dim, last_dim);
                last_dim = dim;
                follow(g, &ctx, &c[n - 1]);
            }
        }
}

Test(minimal_adaptive, escape_is_dimension_order)
{
    rig g;
    insee_error err = {0};
    hyperx(&g, DIMS(4, 3), 2, 2);
    cr_assert_not_null(madapt_on(&g, &err), "%s", err.message);
    escape_climbs(&g);
    rig_free(&g);
    hypercube(&g, 5, 3);
    cr_assert_not_null(madapt_on(&g, &err), "%s", err.message);
    escape_climbs(&g);
    rig_free(&g);
}

Test(minimal_adaptive, refusals)
{
    rig g;
    insee_error err = {0};
    hyperx(&g, DIMS(4, 3), 1, 1);
    cr_assert_null(madapt_on(&g, &err));
    cr_assert(strstr(err.message, "vcs = 2") && strstr(err.message, "vcs = 1"), "%s",
              err.message);
    rig_free(&g);
    dragonfly(&g, 0, 8);
    cr_assert_null(madapt_on(&g, &err));
    cr_assert(strstr(err.message, "dragonfly") && strstr(err.message, "ugal"), "%s",
              err.message);
    rig_free(&g);
    memset(&g, 0, sizeof g);
    mock_topology(&g.k, "torus", DIMS(4, 4), true);
    rig_host(&g, 8);
    cr_assert_null(madapt_on(&g, &err));
    cr_assert(strstr(err.message, "torus") && strstr(err.message, "updown"), "%s", err.message);
    rig_free(&g);
    memset(&g, 0, sizeof g);
    mock_topology(&g.k, "mesh", DIMS(4, 4), true);
    rig_host(&g, 2);
    cr_assert_not_null(madapt_on(&g, &err), "a mesh: %s", err.message);
    rig_free(&g);
}
