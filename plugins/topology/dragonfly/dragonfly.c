/* dragonfly.c — the dragonfly (Kim, Dally, Scott, Abts, ISCA 2008; INRFlow
 * §3.2): g groups of a routers, all-to-all local links inside a group, h
 * global links per router joining the groups, p nodes per router. The global
 * links follow the "consecutive" or the "palmtree" arrangement (Camarero,
 * Vallejo, Beivide, ACM TACO 2014); fewer than a*h + 1 groups get the same
 * number of parallel global links between every pair of groups.
 *
 * Both arrangements are circulant: group G's global link m (router m / h,
 * its global port m % h) leads to group G + delta(m) and lands on link m2(m),
 * whatever G. So the a*h links of group 0 describe all of them, and the hops
 * between router i of a group and router i2 of the group delta ahead depend
 * on (delta, i, i2) only: create() tables both (a^2 (g - 1) bytes, fewer than
 * the network's links), and minimal_hops() looks up the far end of each of
 * its a - 1 + h ports: O(ports), no search. */
#include <insee/insee.h>

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../common/limits.h"
#include "../common/nic.h"

enum { P_A, P_P, P_H, P_GROUPS, P_ARRANGEMENT, P_NIC };
enum { ARR_CONSECUTIVE, ARR_PALMTREE }; /* order of the choices */

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
                       "consecutive|palmtree", NULL,
                       "which global port reaches which group (see the README)"},
    [P_NIC] = TOPO_NIC_PARAM("false"),
    {0},
};

/* Where global link m of group 0 leads (see global_peer). */
typedef struct df_peer {
    uint32_t delta; /* the group reached, 1..g-1 ahead */
    uint16_t r2, j2; /* the router of that group and its global port */
} df_peer;

typedef struct dragonfly {
    uint32_t a, p, h, g;
    bool palmtree;
    uint32_t routers, nodes, ports, diameter;
    df_peer *peer; /* a*h: group 0's global links, by m = r*h + j */
    /* hops[((delta - 1) * a + i) * a + i2]: hops from router i of a group
       to router i2 of the group delta ahead (1, 2 or 3). a^2 (g - 1)
       bytes: fewer than the links of the network. */
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

/* Where global link m (= r*h + j) of group 0 leads: to group delta (1..g-1),
   landing on that group's link m2. Both are involutions: link m2 of group
   delta leads back to group 0 (delta(m2) = g - delta) and lands on link m.
   They need (g - 1) to divide a*h, which create() checks. */
static void global_peer(const dragonfly *df, uint32_t m, uint32_t *delta, uint32_t *m2)
{
    uint32_t others = df->g - 1;
    if (df->palmtree) {
        /* Router a-1-r's port h-1-j answers router r's port j, in every
           group (Camarero et al., TACO 2014; CAMINOS' Palmtree). */
        uint32_t mirror = df->a * df->h - 1 - m;
        *delta = 1 + mirror % others;
        *m2 = mirror;
    } else {
        /* Links in order to the next groups, G+1, G+2, ... G-1, round after
           round when there are fewer groups; link c of a round lands on link
           others-1-c of the same round of the group reached. */
        uint32_t c = m % others;
        *delta = 1 + c;
        *m2 = m - c + (others - 1 - c);
    }
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

/* Hops from router offset i of group G to router offset i2 of group G2. */
static uint32_t hops_between(const dragonfly *df, uint32_t G, uint32_t i, uint32_t G2, uint32_t i2)
{
    if (G == G2)
        return i != i2;
    return *hops_at(df, (G2 + df->g - G) % df->g, i, i2);
}

static dragonfly *dragonfly_build(const insee_host *host, const insee_value *params,
                                  insee_error *err)
{
    (void)host; /* the wiring is a pure function of the parameters */
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
        .palmtree = params[P_ARRANGEMENT].i == ARR_PALMTREE,
        .routers = (uint32_t)(a * g),
        .nodes = (uint32_t)(a * g * p),
        .ports = (uint32_t)(a - 1 + h),
        .peer = malloc(sizeof *df->peer * links),
        .hops = malloc(table),
    };
    if (!df->peer || !df->hops) {
        dragonfly_destroy(df);
        insee_error_set(err, INSEE_ERR_NOMEM,
                        "dragonfly: out of memory for a hop table of %" PRIu64 " bytes", table);
        return NULL;
    }
    for (uint32_t m = 0; m < links; m++) {
        uint32_t delta, m2;
        global_peer(df, m, &delta, &m2);
        df->peer[m] = (df_peer){delta, (uint16_t)(m2 / df->h), (uint16_t)(m2 % df->h)};
    }
    fill_hops(df);
    df->diameter = a > 1 ? 1 : 0; /* inside a group */
    for (size_t k = 0; k < table; k++)
        df->diameter = df->hops[k] > df->diameter ? df->hops[k] : df->diameter;
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
    const df_peer *l = &df->peer[i * df->h + (port - (df->a - 1))];
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
        const df_peer *l = &df->peer[i * df->h + j];
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
               "consecutive or palmtree arrangement",
    .reference = "INRFlow §3.2; Kim et al., ISCA 2008; Camarero et al., ACM TACO 2014",
    .params = dragonfly_params,
    .vtable = &dragonfly_vtable,
};

INSEE_PLUGIN_DEFINE(dragonfly_desc)
