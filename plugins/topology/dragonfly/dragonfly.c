/* dragonfly.c — the dragonfly (Kim, Dally, Scott, Abts, ISCA 2008; INRFlow
 * §3.2): g groups of a routers, all-to-all local links inside a group, h
 * global links per router joining the groups, p nodes per router. The global
 * links follow one of the arrangements of the literature: consecutive (also
 * called relative), palmtree (Camarero, Vallejo, Beivide, ACM TACO 2014),
 * absolute and circulant (Hastings et al., IEEE Cluster 2015; INRFlow's
 * dragonfly), or random (drawn from the host's seed); fewer than a*h + 1
 * groups get the same number of parallel global links between every pair of
 * groups.
 *
 * Consecutive, palmtree and circulant are circulant wirings: group G's
 * global link m (router m / h, its global port m % h) leads to group
 * G + delta(m) and lands on link m2(m), whatever G. So the a*h links of
 * group 0 describe all of them, and the hops between router i of a group and
 * router i2 of the group delta ahead depend on (delta, i, i2) only: create()
 * tables both (a^2 (g - 1) bytes, fewer than the network's links), and
 * minimal_hops() looks up the far end of each of its a - 1 + h ports:
 * O(ports), no search. Absolute and random depend on the group: every
 * group's links are kept (a*h*g entries, one per global port) and a
 * distance is found from the links of the two routers and of their global
 * neighbours, O(h^2). */
#include <insee/insee.h>

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../common/limits.h"
#include "../common/nic.h"

enum { P_A, P_P, P_H, P_GROUPS, P_ARRANGEMENT, P_NIC };
/* Order of the choices; relative is consecutive under its other name. */
enum { ARR_CONSECUTIVE, ARR_PALMTREE, ARR_RELATIVE, ARR_ABSOLUTE, ARR_CIRCULANT, ARR_RANDOM };

static const insee_param_def dragonfly_params[] = {
    [P_A] = {"a", INSEE_PARAM_INT, "4", 1, 65535, NULL, "routers",
             "routers per group, linked all-to-all (a - 1 local ports each)"},
    [P_P] = {"p", INSEE_PARAM_INT, "2", 1, 65535, NULL, "nodes",
             "nodes per router; node n attaches to router n / p"},
    [P_H] = {"h", INSEE_PARAM_INT, "2", 1, 65535, NULL, "links",
             "global links per router (to other groups)"},
    [P_GROUPS] = {"groups", INSEE_PARAM_INT, "0", 0, 4294967295.0, NULL, "groups",
                  "groups; 0: a*h + 1, the largest, one global link between each pair; "
                  "fewer need groups - 1 to divide a*h"},
    [P_ARRANGEMENT] = {"arrangement", INSEE_PARAM_ENUM, "\"consecutive\"", 1, 0,
                       "consecutive|palmtree|relative|absolute|circulant|random", NULL,
                       "which global port reaches which group (see the README)"},
    [P_NIC] = TOPO_NIC_PARAM("false"),
    {0},
};

/* Where a group's global link m leads (see global_peer). */
typedef struct df_peer {
    uint32_t delta; /* the group reached, 1..g-1 ahead */
    uint16_t r2, j2; /* the router of that group and its global port */
} df_peer;

typedef struct dragonfly {
    uint32_t a, p, h, g;
    int arrangement;
    bool circulant; /* every group wired as group 0, shifted */
    uint32_t routers, nodes, ports, diameter;
    /* By m = r*h + j: group 0's a*h global links when circulant, else
       group G's at G*a*h + m. */
    df_peer *peer;
    /* hops[((delta - 1) * a + i) * a + i2]: hops from router i of a group
       to router i2 of the group delta ahead (1, 2 or 3). a^2 (g - 1)
       bytes: fewer than the links of the network. Circulant only. */
    uint8_t *hops;
} dragonfly;

static void dragonfly_destroy(void *vself)
{
    dragonfly *df = vself;
    if (!df)
        return;
    free(df->peer);
    free(df->hops);
    free(df);
}

/* Where global link m (= r*h + j) of group G leads: to group G + delta
   (delta in 1..g-1), landing on that group's link m2; G is ignored by the
   circulant arrangements. Link m2 of the group reached leads back to G and
   lands on link m. Every arrangement splits the a*h links into a*h / (g - 1)
   rounds of g - 1 links, one to each other group (create() checks that
   g - 1 divides a*h), and pairs link c of a round with a link of the same
   round. Not for random, drawn by draw_random. */
static void global_peer(const dragonfly *df, uint32_t G, uint32_t m, uint32_t *delta,
                        uint32_t *m2)
{
    uint32_t others = df->g - 1, c = m % others, round = m - c;
    switch (df->arrangement) {
    case ARR_PALMTREE: {
        /* Router a-1-r's port h-1-j answers router r's port j, in every
           group (Camarero et al., TACO 2014; CAMINOS' Palmtree). */
        uint32_t mirror = df->a * df->h - 1 - m;
        *delta = 1 + mirror % others;
        *m2 = mirror;
        break;
    }
    case ARR_ABSOLUTE: {
        /* Link c of a round leads to group c, or c + 1 from group c on
           (skipping G itself), whichever group G is; it lands on the link
           that group numbers G the same way. */
        uint32_t G2 = c < G ? c : c + 1;
        *delta = (G2 + df->g - G) % df->g;
        *m2 = round + (G < G2 ? G : G - 1);
        break;
    }
    case ARR_CIRCULANT:
        /* Links in pairs: link 2k leads k + 1 groups ahead, link 2k + 1 as
           far behind, so each pair answers the same pair of the group
           reached. With g - 1 odd, the round's last link leads halfway
           round, g / 2 ahead, to the same link there. */
        if (c % 2) {
            *delta = df->g - (c / 2 + 1);
            *m2 = m - 1;
        } else {
            *delta = c / 2 + 1;
            *m2 = c + 1 == others ? m : m + 1;
        }
        break;
    default:
        /* Consecutive (relative): links in order to the next groups, G+1,
           G+2, ... G-1, round after round; link c of a round lands on link
           others-1-c of the same round of the group reached. */
        *delta = 1 + c;
        *m2 = round + (others - 1 - c);
        break;
    }
}

static const df_peer *peer_of(const dragonfly *df, uint32_t G, uint32_t m)
{
    return &df->peer[df->circulant ? m : (size_t)G * df->a * df->h + m];
}

/* The random arrangement: each group's a*h links get the other groups,
   a*h / (g - 1) links each, in an order drawn from the seed (a shuffle of
   every group's list); then the n-th link of G toward G2 is paired with
   the n-th link of G2 toward G. Every global port is plugged once and every
   pair of groups gets the same number of links; which ports carry them is
   random. false when out of memory. */
static bool draw_random(dragonfly *df, const insee_host *host)
{
    uint32_t g = df->g, links = df->a * df->h, k = links / (g - 1);
    /* by_target[(G * g + G2) * k + n]: G's n-th link toward G2. */
    uint32_t *order = malloc(sizeof *order * links);
    uint32_t *by_target = malloc(sizeof *by_target * (size_t)g * g * k);
    uint32_t *seen = malloc(sizeof *seen * g);
    if (!order || !by_target || !seen) {
        free(order);
        free(by_target);
        free(seen);
        return false;
    }
    insee_rng rng;
    host->rng_seed(host->kernel, 0, &rng);
    for (uint32_t G = 0; G < g; G++) {
        for (uint32_t m = 0; m < links; m++)
            order[m] = (G + 1 + m % (g - 1)) % g;
        for (uint32_t m = links; m > 1; m--) {
            uint32_t x = insee_rng_below(&rng, m), t = order[m - 1];
            order[m - 1] = order[x];
            order[x] = t;
        }
        memset(seen, 0, sizeof *seen * g);
        for (uint32_t m = 0; m < links; m++) {
            uint32_t G2 = order[m];
            by_target[((size_t)G * g + G2) * k + seen[G2]++] = m;
        }
    }
    for (uint32_t G = 0; G < g; G++)
        for (uint32_t G2 = 0; G2 < g; G2++)
            for (uint32_t n = 0; G2 != G && n < k; n++) {
                uint32_t m = by_target[((size_t)G * g + G2) * k + n];
                uint32_t m2 = by_target[((size_t)G2 * g + G) * k + n];
                df->peer[(size_t)G * links + m] = (df_peer){
                    (G2 + g - G) % g, (uint16_t)(m2 / df->h), (uint16_t)(m2 % df->h)};
            }
    free(order);
    free(by_target);
    free(seen);
    return true;
}

/* Index of router v among router i's local ports (itself skipped). */
static uint32_t local_port(uint32_t v, uint32_t i)
{
    return v < i ? v : v - 1;
}

static uint8_t *hops_at(const dragonfly *df, uint32_t delta, uint32_t i, uint32_t i2)
{
    return &df->hops[((size_t)(delta - 1) * df->a + i) * df->a + i2];
}

static void at_most(uint8_t *hops, uint8_t bound)
{
    *hops = *hops < bound ? *hops : bound;
}

/* Hops between the routers of two groups, from the paths of one or two
   hops; every other pair is 3 hops apart (local, global, local: every pair
   of groups has a link). Two-hop paths are local-global, global-local, and
   global-global through a third group, which can beat the direct link's
   local-global-local. O(a^2 g + a^2 h + a h^2) for a table of a^2 (g - 1). */
static void fill_hops(dragonfly *df)
{
    uint32_t a = df->a, h = df->h;
    memset(df->hops, 3, (size_t)(df->g - 1) * a * a);
    for (uint32_t m = 0; m < a * h; m++) {
        uint32_t r = m / h;
        const df_peer *l = &df->peer[m];
        for (uint32_t i = 0; i < a; i++) {
            at_most(hops_at(df, l->delta, i, l->r2), 2); /* local from i, then l */
            at_most(hops_at(df, l->delta, r, i), 2);     /* l, then local to i */
        }
        for (uint32_t j = 0; j < h; j++) { /* l, then the landing router's link j */
            const df_peer *next = &df->peer[l->r2 * h + j];
            uint32_t delta = (l->delta + next->delta) % df->g;
            if (delta != 0)
                at_most(hops_at(df, delta, r, next->r2), 2);
        }
    }
    for (uint32_t m = 0; m < a * h; m++)
        *hops_at(df, df->peer[m].delta, m / h, df->peer[m].r2) = 1;
}

/* Hops between routers of different groups without the table (absolute,
   random): one global link; two hops when either router has a link to the
   other's group (then a local hop) or a link lands on a router with a link
   to the other; else local, global, local. O(h^2). */
static uint32_t hops_wired(const dragonfly *df, uint32_t G, uint32_t i, uint32_t G2, uint32_t i2)
{
    uint32_t h = df->h, g = df->g, hops = 3;
    for (uint32_t j = 0; j < h; j++) {
        const df_peer *l = peer_of(df, G, i * h + j), *back = peer_of(df, G2, i2 * h + j);
        uint32_t at = (G + l->delta) % g;
        if (at == G2 && l->r2 == i2)
            return 1;
        if (at == G2 || (G2 + back->delta) % g == G)
            hops = 2;
        for (uint32_t j2 = 0; j2 < h && hops == 3; j2++) {
            const df_peer *next = peer_of(df, at, l->r2 * h + j2);
            if ((at + next->delta) % g == G2 && next->r2 == i2)
                hops = 2;
        }
    }
    return hops;
}

/* Hops from router offset i of group G to router offset i2 of group G2. */
static uint32_t hops_between(const dragonfly *df, uint32_t G, uint32_t i, uint32_t G2, uint32_t i2)
{
    if (G == G2)
        return i != i2;
    if (!df->circulant)
        return hops_wired(df, G, i, G2, i2);
    return *hops_at(df, (G2 + df->g - G) % df->g, i, i2);
}

/* 1 when v was not yet stamped s (and stamps it), else 0. */
static uint32_t mark(uint32_t *stamp, uint32_t v, uint32_t s)
{
    if (stamp[v] == s)
        return 0;
    stamp[v] = s;
    return 1;
}

/* The diameter of a non-circulant wiring: 1, 2, or 3 (every pair of groups
   has a link) for the router that reaches the fewest routers in one and
   two hops, counted with a stamp per router. O(routers (a + h)^2). false
   when out of memory. */
static bool wired_diameter(dragonfly *df)
{
    uint32_t a = df->a, h = df->h, R = df->routers;
    uint32_t *stamp = calloc(R, sizeof *stamp), *near = malloc(sizeof *near * (a - 1 + h));
    if (!stamp || !near) {
        free(stamp);
        free(near);
        return false;
    }
    df->diameter = a > 1 ? 1 : 0;
    for (uint32_t r = 0; r < R && df->diameter < 3; r++) {
        uint32_t G = r / a, one = 0, reached = 0;
        stamp[r] = r + 1; /* itself, reached */
        for (uint32_t v = G * a; v < G * a + a; v++)
            if (v != r)
                near[one++] = v;
        for (uint32_t j = 0; j < h; j++) {
            const df_peer *l = peer_of(df, G, r % a * h + j);
            near[one++] = (G + l->delta) % df->g * a + l->r2;
        }
        for (uint32_t k = 0; k < one; k++)
            reached += mark(stamp, near[k], r + 1);
        uint32_t ecc = reached + 1 == R ? 1 : 2;
        for (uint32_t k = 0; k < one && ecc == 2; k++) {
            uint32_t n = near[k], N = n / a;
            for (uint32_t v = N * a; v < N * a + a; v++)
                reached += mark(stamp, v, r + 1);
            for (uint32_t j = 0; j < h; j++) {
                const df_peer *l = peer_of(df, N, n % a * h + j);
                reached += mark(stamp, (N + l->delta) % df->g * a + l->r2, r + 1);
            }
        }
        if (ecc == 2 && reached + 1 < R)
            ecc = 3;
        df->diameter = ecc > df->diameter ? ecc : df->diameter;
    }
    free(stamp);
    free(near);
    return true;
}

static dragonfly *dragonfly_build(const insee_host *host, const insee_value *params,
                                  insee_error *err)
{
    uint64_t a = (uint64_t)params[P_A].i, p = (uint64_t)params[P_P].i;
    uint64_t h = (uint64_t)params[P_H].i, groups = (uint64_t)params[P_GROUPS].i;
    uint64_t links = a * h, g = groups ? groups : links + 1;
    if (g > links + 1) {
        insee_error_set(err, INSEE_ERR_PARAM,
                        "dragonfly: groups = %" PRIu64 " > a*h + 1 = %" PRIu64 ": a group has "
                        "a*h = %" PRIu64 " global links, one per other group at most; use "
                        "groups <= %" PRIu64 " (0 means %" PRIu64 ")",
                        g, links + 1, links, links + 1, links + 1);
        return NULL;
    }
    if (g < 2) {
        insee_error_set(err, INSEE_ERR_PARAM,
                        "dragonfly: groups = 1 leaves the a*h = %" PRIu64 " global links of "
                        "the group with no other group to reach; use groups >= 2 (0 means "
                        "a*h + 1 = %" PRIu64 ")",
                        links, links + 1);
        return NULL;
    }
    if (links % (g - 1) != 0) {
        insee_error_set(err, INSEE_ERR_PARAM,
                        "dragonfly: groups = %" PRIu64 " cannot be wired: the a*h = %" PRIu64
                        " global links of a group must split evenly over the %" PRIu64
                        " other groups, and %" PRIu64 " is not a multiple of %" PRIu64
                        "; use groups - 1 dividing %" PRIu64 " (groups = %" PRIu64
                        " or 0 is the canonical size)",
                        g, links, g - 1, links, g - 1, links, links + 1);
        return NULL;
    }
    if (!topology_within_limits("dragonfly", a * g, a * g * p, a - 1 + h, a * g * (a - 1 + h),
                                "a router has a - 1 + h ports and p nodes, the network "
                                "a * groups routers: use smaller a, h, p or groups",
                                err))
        return NULL;
    /* a^2 (g - 1) < a * routers <= (a - 1 + h + p) * routers, the ports and
       nodes just checked: the table stays below INSEE_MAX_QUEUES bytes. */
    uint64_t table = a * a * (g - 1);
    int arrangement = (int)params[P_ARRANGEMENT].i;
    bool circulant = arrangement != ARR_ABSOLUTE && arrangement != ARR_RANDOM;
    dragonfly *df = calloc(1, sizeof *df);
    if (!df) {
        insee_error_set(err, INSEE_ERR_NOMEM, "dragonfly: out of memory");
        return NULL;
    }
    *df = (dragonfly){
        .a = (uint32_t)a,
        .p = (uint32_t)p,
        .h = (uint32_t)h,
        .g = (uint32_t)g,
        .arrangement = arrangement,
        .circulant = circulant,
        .routers = (uint32_t)(a * g),
        .nodes = (uint32_t)(a * g * p),
        .ports = (uint32_t)(a - 1 + h),
        .peer = malloc(sizeof *df->peer * (circulant ? links : links * g)),
        .hops = circulant ? malloc(table) : NULL,
    };
    if (!df->peer || (circulant && !df->hops)) {
        dragonfly_destroy(df);
        insee_error_set(err, INSEE_ERR_NOMEM,
                        "dragonfly: out of memory for the wiring of %" PRIu64 " routers",
                        a * g);
        return NULL;
    }
    bool ok = true;
    if (df->arrangement == ARR_RANDOM) {
        ok = draw_random(df, host);
    } else {
        for (uint32_t G = 0; G < (circulant ? 1 : g); G++)
            for (uint32_t m = 0; m < links; m++) {
                uint32_t delta, m2;
                global_peer(df, G, m, &delta, &m2);
                df->peer[G * links + m] =
                    (df_peer){delta, (uint16_t)(m2 / df->h), (uint16_t)(m2 % df->h)};
            }
    }
    if (circulant) {
        fill_hops(df);
        df->diameter = a > 1 ? 1 : 0; /* inside a group */
        for (size_t k = 0; k < table; k++)
            df->diameter = df->hops[k] > df->diameter ? df->hops[k] : df->diameter;
    } else {
        ok = ok && wired_diameter(df);
    }
    if (!ok) {
        dragonfly_destroy(df);
        insee_error_set(err, INSEE_ERR_NOMEM,
                        "dragonfly: out of memory for the wiring of %" PRIu64 " routers", a * g);
        return NULL;
    }
    return df;
}

static void dragonfly_info(void *vself, insee_topology_info *out)
{
    const dragonfly *df = vself;
    *out = (insee_topology_info){
        .routers = df->routers,
        .nodes = df->nodes,
        .max_ports = df->ports,
        /* (router in group, group), and the slot when several nodes share
           a router, so that every node has its own coordinates. */
        .dims = 2 + (df->p > 1),
        .flags = 0,
        .diameter = df->diameter,
    };
}

static uint32_t dragonfly_ports(void *vself, uint32_t router)
{
    (void)router; /* every router has a - 1 local and h global ports */
    const dragonfly *df = vself;
    return df->ports;
}

static bool dragonfly_link(void *vself, uint32_t router, uint32_t port, insee_port_peer *out)
{
    const dragonfly *df = vself;
    uint32_t G = router / df->a, i = router % df->a;
    if (port + 1 < df->a) {
        uint32_t v = port < i ? port : port + 1;
        *out = (insee_port_peer){G * df->a + v, local_port(i, v)};
        return true;
    }
    if (port >= df->ports)
        return false;
    const df_peer *l = peer_of(df, G, i * df->h + (port - (df->a - 1)));
    *out = (insee_port_peer){(G + l->delta) % df->g * df->a + l->r2, df->a - 1 + l->j2};
    return true;
}

static uint32_t dragonfly_node_router(void *vself, uint32_t node)
{
    const dragonfly *df = vself;
    return node / df->p;
}

static uint32_t dragonfly_minimal_hops(void *vself, uint32_t router, uint32_t dst_node,
                                       uint32_t salt, insee_hop *out, uint32_t max)
{
    (void)salt; /* no direction ties: every minimal port is listed, in port order */
    const dragonfly *df = vself;
    uint32_t dst = dst_node / df->p;
    uint32_t G = router / df->a, i = router % df->a, G2 = dst / df->a, i2 = dst % df->a;
    uint32_t left = hops_between(df, G, i, G2, i2), w = 0;
    if (left == 0)
        return 0;
    /* Local ports (dimension 0) first, then global ones (dimension 1):
       each port whose far end is one hop closer. */
    for (uint32_t v = 0; v < df->a && w < max; v++)
        if (v != i && hops_between(df, G, v, G2, i2) + 1 == left)
            out[w++] = (insee_hop){.port = (uint16_t)local_port(v, i), .dim = 0};
    for (uint32_t j = 0; j < df->h && w < max; j++) {
        const df_peer *l = peer_of(df, G, i * df->h + j);
        if (hops_between(df, (G + l->delta) % df->g, l->r2, G2, i2) + 1 == left)
            out[w++] = (insee_hop){.port = (uint16_t)(df->a - 1 + j), .dim = 1};
    }
    return w;
}

static void dragonfly_port_info(void *vself, uint32_t router, uint32_t port, insee_hop *out)
{
    (void)router; /* the port numbering is the same at every router */
    const dragonfly *df = vself;
    *out = (insee_hop){.port = (uint16_t)port, .dim = port + 1 < df->a ? 0 : 1};
}

static uint32_t dragonfly_distance(void *vself, uint32_t router, uint32_t dst_node)
{
    const dragonfly *df = vself;
    uint32_t dst = dst_node / df->p;
    return hops_between(df, router / df->a, router % df->a, dst / df->a, dst % df->a);
}

static uint32_t dragonfly_coords(void *vself, uint32_t node, int32_t *out, uint32_t max)
{
    const dragonfly *df = vself;
    uint32_t router = node / df->p;
    int32_t c[3] = {(int32_t)(router % df->a), (int32_t)(router / df->a), (int32_t)(node % df->p)};
    uint32_t n = 2 + (df->p > 1), w = 0;
    for (; w < n && w < max; w++)
        out[w] = c[w];
    return w;
}

/* The switches' own entries; the plugin's wrap them in network interfaces
   (../common/nic.h), on with nic = true. */
static const insee_topology_vtable dragonfly_switches = {
    .size = sizeof(insee_topology_vtable),
    .destroy = dragonfly_destroy,
    .info = dragonfly_info,
    .ports = dragonfly_ports,
    .link = dragonfly_link,
    .node_router = dragonfly_node_router,
    .minimal_hops = dragonfly_minimal_hops,
    .port_info = dragonfly_port_info,
    .distance = dragonfly_distance,
    .coords = dragonfly_coords,
};

/* Terminals behind network interfaces (nic = true): each node's link lands
   on a port appended after the router's a - 1 + h. */
static void *dragonfly_create(const insee_host *host, const insee_value *params,
                              insee_error *err)
{
    dragonfly *df = dragonfly_build(host, params, err);
    if (!df)
        return NULL;
    return topo_nic_wrap("dragonfly", &dragonfly_switches, df, NULL, params[P_NIC].b, err);
}

static const insee_topology_vtable dragonfly_vtable = TOPO_NIC_VTABLE(dragonfly_create);

static const insee_plugin_desc dragonfly_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_TOPOLOGY,
    .name = "dragonfly",
    .version = "1.0.0",
    .summary = "dragonfly: all-to-all groups of a routers joined by h global links per router, "
               "consecutive (relative), palmtree, absolute, circulant or random arrangement",
    .reference = "INRFlow §3.2; Kim et al., ISCA 2008; Camarero et al., ACM TACO 2014; "
                 "Hastings et al., IEEE Cluster 2015",
    .params = dragonfly_params,
    .vtable = &dragonfly_vtable,
};

INSEE_PLUGIN_DEFINE(dragonfly_desc)
