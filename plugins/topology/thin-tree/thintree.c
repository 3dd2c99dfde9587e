/* thintree.c — generalised-tree arithmetic (thin-tree with per-level
 * radices, its k:k'-ary n-thin-tree, and kary-ntree as its k' = k case):
 * switch counts, wiring, up/down minimal hops and distances to the nearest
 * common ancestor. Numbering in thintree.h. */
#include "thintree.h"

#include "../common/limits.h"

#include <inttypes.h>
#include <stdlib.h>

/* The tree of n levels with down[l] and up[l] ports, its node count
   D_n = down[0] ... down[n-1] already known to fit in 32 bits. `fix` says
   what to change when the tree is past the kernel's limits. */
static thintree *build(const char *name, const uint32_t *down, const uint32_t *up, uint32_t n,
                       const char *fix, insee_error *err)
{
    thintree *t = calloc(1, sizeof *t);
    if (!t) {
        insee_error_set(err, INSEE_ERR_NOMEM, "%s: out of memory", name);
        return NULL;
    }
    t->n = n;
    t->pow_k[0] = 1;
    for (uint32_t l = 0; l < n; l++) {
        t->down[l] = down[l];
        t->up[l] = up[l];
        t->pow_k[l + 1] = t->pow_k[l] * down[l];
        t->max_ports = down[l] + up[l] > t->max_ports ? down[l] + up[l] : t->max_ports;
    }
    t->nodes = t->pow_k[n];
    /* U_l <= 2^32 and D_n / D_{l+1} < 2^32: each level's count fits 64
       bits, and the kernel's limits below keep the sum far from it. */
    uint64_t switches = 0, pu = 1, all_ports = 0;
    for (uint32_t l = 0; l < n; l++) {
        if (pu > UINT32_MAX) {
            insee_error_set(err, INSEE_ERR_PARAM,
                            "%s: level %u would have more than 2^32 switches (the product of "
                            "the up ports below it is %" PRIu64 "): %s",
                            name, l, pu, fix);
            free(t);
            return NULL;
        }
        t->pow_up[l] = (uint32_t)pu;
        t->first[l] = (uint32_t)switches; /* only read once the total is known to fit */
        uint64_t level = pu * (t->nodes / t->pow_k[l + 1]);
        switches += level;
        all_ports += level * (down[l] + up[l]);
        pu *= up[l];
    }
    if (!topology_within_limits(name, switches, t->nodes, t->max_ports, all_ports, fix, err)) {
        free(t);
        return NULL;
    }
    t->routers = (uint32_t)switches;
    t->first[n] = t->routers;
    return t;
}

thintree *thintree_create(const char *name, int64_t k, int64_t kup, int64_t n, insee_error *err)
{
    if (kup > k) {
        insee_error_set(err, INSEE_ERR_PARAM,
                        "%s: k_up = %" PRId64 " > k = %" PRId64 ": a switch cannot have more up "
                        "ports than down ports; use k_up <= k",
                        name, kup, k);
        return NULL;
    }
    if (n < 1 || n > THINTREE_MAX_LEVELS) {
        insee_error_set(err, INSEE_ERR_PARAM, "%s: n = %" PRId64 " levels; use 1 <= n <= %u",
                        name, n, THINTREE_MAX_LEVELS);
        return NULL;
    }
    uint64_t nodes = 1;
    uint32_t down[THINTREE_MAX_LEVELS], up[THINTREE_MAX_LEVELS];
    for (int64_t l = 0; l < n; l++) {
        nodes *= (uint64_t)k;
        if (nodes > UINT32_MAX) {
            insee_error_set(err, INSEE_ERR_PARAM,
                            "%s: k^n = %" PRId64 "^%" PRId64 " nodes do not fit in 32 bits; "
                            "use a smaller k or n",
                            name, k, n);
            return NULL;
        }
        down[l] = (uint32_t)k;
        up[l] = (uint32_t)kup;
    }
    return build(name, down, up, (uint32_t)n, "a switch has k + k_up ports and the tree k^n "
                 "nodes: use a smaller k, k_up or n", err);
}

thintree *thintree_create_levels(const char *name, const int64_t *down, size_t down_len,
                                 const int64_t *up, size_t up_len, insee_error *err)
{
    if (down_len < 1 || down_len > THINTREE_MAX_LEVELS) {
        insee_error_set(err, INSEE_ERR_PARAM,
                        "%s: down has %zu entries, one per level; use 1 to %u levels", name,
                        down_len, THINTREE_MAX_LEVELS);
        return NULL;
    }
    if (up_len + 1 != down_len && up_len != down_len) {
        insee_error_set(err, INSEE_ERR_PARAM,
                        "%s: up has %zu entries for the %zu levels of down; give one per level "
                        "below the top (%zu), or one per level (%zu, the top's left unplugged)",
                        name, up_len, down_len, down_len - 1, down_len);
        return NULL;
    }
    uint32_t d[THINTREE_MAX_LEVELS], u[THINTREE_MAX_LEVELS] = {0};
    uint64_t nodes = 1;
    for (size_t l = 0; l < down_len; l++) {
        if (l < up_len && up[l] < 1 && l + 1 < down_len) {
            insee_error_set(err, INSEE_ERR_PARAM,
                            "%s: up[%zu] = 0 leaves the switches of level %zu without a parent; "
                            "use at least 1 below the top",
                            name, l, l);
            return NULL;
        }
        nodes *= (uint64_t)down[l];
        if (nodes > UINT32_MAX) {
            insee_error_set(err, INSEE_ERR_PARAM,
                            "%s: the product of down (the nodes) passes 32 bits at level %zu; "
                            "use fewer levels or fewer down ports",
                            name, l);
            return NULL;
        }
        d[l] = (uint32_t)down[l];
        u[l] = l < up_len ? (uint32_t)up[l] : 0;
    }
    return build(name, d, u, (uint32_t)down_len, "use fewer levels or fewer ports in down and up",
                 err);
}

void thintree_destroy(void *self)
{
    free(self);
}

void thintree_info(void *self, insee_topology_info *out)
{
    const thintree *t = self;
    *out = (insee_topology_info){
        .routers = t->routers,
        .nodes = t->nodes,
        .max_ports = t->max_ports,
        .dims = 0,
        .flags = INSEE_TOPO_INDIRECT | INSEE_TOPO_CONCURRENT,
        /* Two leaves whose common ancestors are the top switches: n-1 up, n-1 down. */
        .diameter = 2 * (t->n - 1),
    };
}

/* Where a router stands, from its number alone: levels are consecutive
   blocks of the numbering, and index i of a level is a + U_l b. Computed
   rather than tabled: a table of every switch misses the cache on each hop
   of a large tree, a few compares and one division do not. */
typedef struct place {
    uint32_t level, a, b;
} place;

static place locate(const thintree *t, uint32_t router)
{
    uint32_t l = 0;
    while (router >= t->first[l + 1])
        l++;
    uint32_t i = router - t->first[l];
    return (place){.level = l, .a = i % t->pow_up[l], .b = i / t->pow_up[l]};
}

uint32_t thintree_ports(void *self, uint32_t router)
{
    /* down[l] down and up[l] up ports; leaf down and top up are unplugged */
    const thintree *t = self;
    uint32_t l = locate(t, router).level;
    return t->down[l] + t->up[l];
}

bool thintree_link(void *self, uint32_t router, uint32_t port, insee_port_peer *out)
{
    const thintree *t = self;
    place s = locate(t, router);
    uint32_t l = s.level, a = s.a, down = t->down[l];
    if (port < down) {
        if (l == 0)
            return false; /* nodes attach through injection and consumption, not ports */
        /* Down port d: the child whose subtree is b down[l] + d, reached
           through the up port it took to get here (the top digit of a). */
        uint32_t below = t->pow_up[l - 1];
        out->router = t->first[l - 1] + a % below + below * (s.b * down + port);
        out->port = t->down[l - 1] + a / below;
    } else {
        if (l == t->n - 1 || port >= down + t->up[l])
            return false; /* the top level's up ports are left unplugged */
        /* Up port down[l]+j: the parent that records j as digit l of a; we
           are its down port b mod down[l+1]. */
        uint32_t j = port - down, above = t->down[l + 1];
        out->router = t->first[l + 1] + a + j * t->pow_up[l] + t->pow_up[l + 1] * (s.b / above);
        out->port = s.b % above;
    }
    return true;
}

uint32_t thintree_node_router(void *self, uint32_t node)
{
    const thintree *t = self;
    return node / t->down[0]; /* leaves are routers 0.. and hold down[0] nodes each */
}

/* What a port is, statically: up ports cross the link between levels l and
   l+1, down ports the link between l-1 and l; dim is the link's lower level
   (the label digit it changes), so a link has the same dim both ways, as in
   a torus. Leaf down ports get dim -1 (no link).
   dim_hops: 1 in a route (a path crosses each level's links once each way),
   0 in the static description. */
static insee_hop port_hop(const thintree *t, uint32_t level, uint32_t port, uint16_t dim_hops)
{
    bool up = port >= t->down[level];
    return (insee_hop){
        .port = (uint16_t)port,
        .dir = (int8_t)(up ? +1 : -1),
        .flags = up ? INSEE_HOP_UP : INSEE_HOP_DOWN,
        .dim = (int16_t)(up ? (int32_t)level : (int32_t)level - 1),
        .dim_hops = dim_hops,
    };
}

uint32_t thintree_minimal_hops(void *self, uint32_t router, uint32_t dst_node, uint32_t salt,
                               insee_hop *out, uint32_t max)
{
    (void)salt; /* up ports are listed in index order; a router spreads the load */
    const thintree *t = self;
    place s = locate(t, router);
    uint32_t w = 0, below = dst_node / t->pow_k[s.level]; /* the subtree of level l-1 */
    if (s.b == below / t->down[s.level]) {
        /* The destination is below: the one down port toward it (none at its leaf). */
        if (s.level > 0 && max > 0)
            out[w++] = port_hop(t, s.level, below % t->down[s.level], 1);
    } else {
        /* Every up port leads to a switch one level nearer a common ancestor. */
        for (uint32_t j = 0; j < t->up[s.level] && w < max; j++)
            out[w++] = port_hop(t, s.level, t->down[s.level] + j, 1);
    }
    return w;
}

void thintree_port_info(void *self, uint32_t router, uint32_t port, insee_hop *out)
{
    const thintree *t = self;
    *out = port_hop(t, locate(t, router).level, port, 0);
}

uint32_t thintree_distance(void *self, uint32_t router, uint32_t dst_node)
{
    const thintree *t = self;
    place s = locate(t, router);
    /* Climb to the nearest common ancestor level h, the first whose subtree
       holds the destination, then go down h levels to its leaf. */
    uint32_t h = s.level, b = s.b, y = dst_node / t->pow_k[h + 1];
    while (b != y) {
        b /= t->down[h + 1];
        y /= t->down[h + 1];
        h++;
    }
    return (h - s.level) + h;
}

uint32_t thintree_leaf_port(void *self, uint32_t node)
{
    const thintree *t = self;
    return node % t->down[0];
}

const insee_topology_vtable thintree_vtable = {
    .size = sizeof(insee_topology_vtable),
    .destroy = thintree_destroy,
    .info = thintree_info,
    .ports = thintree_ports,
    .link = thintree_link,
    .node_router = thintree_node_router,
    .minimal_hops = thintree_minimal_hops,
    .port_info = thintree_port_info,
    .distance = thintree_distance,
};
