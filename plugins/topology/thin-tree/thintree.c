/* thintree.c — k:k'-ary n-thin-tree arithmetic (thin-tree, and kary-ntree as
 * its k' = k case): switch counts, wiring, up/down minimal hops and
 * distances to the nearest common ancestor. Numbering in thintree.h. */
#include "thintree.h"

#include "../common/limits.h"

#include <inttypes.h>
#include <stdlib.h>

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
    thintree *t = calloc(1, sizeof *t);
    if (!t) {
        insee_error_set(err, INSEE_ERR_NOMEM, "%s: out of memory", name);
        return NULL;
    }
    t->k = (uint32_t)k;
    t->kup = (uint32_t)kup;
    t->n = (uint32_t)n;
    uint64_t pk = 1, pu = 1;
    for (uint32_t i = 0; i <= t->n; i++) {
        if (pk > UINT32_MAX) {
            insee_error_set(err, INSEE_ERR_PARAM,
                            "%s: k^n = %" PRId64 "^%" PRId64 " nodes do not fit in 32 bits; "
                            "use a smaller k or n",
                            name, k, n);
            free(t);
            return NULL;
        }
        t->pow_k[i] = (uint32_t)pk;
        if (i < t->n)
            t->pow_up[i] = (uint32_t)pu; /* k'^i <= k^i: fits when k^i does */
        pk *= t->k;
        pu *= t->kup;
    }
    t->nodes = t->pow_k[t->n];
    uint64_t switches = 0;
    for (uint32_t l = 0; l < t->n; l++) {
        t->first[l] = (uint32_t)switches; /* only read once the total is known to fit */
        switches += (uint64_t)t->pow_k[t->n - 1 - l] * t->pow_up[l];
    }
    if (!topology_within_limits(name, switches, t->nodes, (uint64_t)(k + kup),
                                switches * (uint64_t)(k + kup),
                                "a switch has k + k_up ports and the tree k^n nodes: use a "
                                "smaller k, k_up or n", err)) {
        free(t);
        return NULL;
    }
    t->routers = (uint32_t)switches;
    t->first[t->n] = t->routers;
    t->sw = malloc(sizeof *t->sw * switches);
    if (!t->sw) {
        insee_error_set(err, INSEE_ERR_NOMEM, "%s: out of memory for %" PRIu64 " switches", name,
                        switches);
        free(t);
        return NULL;
    }
    /* Index i = a + k'^l b within a level: b is the outer loop. */
    thintree_switch *s = t->sw;
    for (uint32_t l = 0; l < t->n; l++)
        for (uint32_t b = 0; b < t->pow_k[t->n - 1 - l]; b++)
            for (uint32_t a = 0; a < t->pow_up[l]; a++)
                *s++ = (thintree_switch){.b = b, .level = l};
    return t;
}

void thintree_destroy(void *self)
{
    thintree *t = self;
    free(t->sw);
    free(t);
}

void thintree_info(void *self, insee_topology_info *out)
{
    const thintree *t = self;
    *out = (insee_topology_info){
        .routers = t->routers,
        .nodes = t->nodes,
        .max_ports = t->k + t->kup,
        .dims = 0,
        .flags = INSEE_TOPO_INDIRECT,
        /* Two leaves whose common ancestors are the top switches: n-1 up, n-1 down. */
        .diameter = 2 * (t->n - 1),
    };
}

uint32_t thintree_ports(void *self, uint32_t router)
{
    (void)router; /* all number k down and k' up ports; leaf down and top up are unplugged */
    const thintree *t = self;
    return t->k + t->kup;
}

bool thintree_link(void *self, uint32_t router, uint32_t port, insee_port_peer *out)
{
    const thintree *t = self;
    thintree_switch s = t->sw[router];
    uint32_t l = s.level, a = (router - t->first[l]) % t->pow_up[l];
    if (port < t->k) {
        if (l == 0)
            return false; /* nodes attach through injection and consumption, not ports */
        /* Down port d: the child whose subtree is b k + d, reached through the
           up port it took to get here (the top digit of a). */
        uint32_t below = t->pow_up[l - 1];
        out->router = t->first[l - 1] + a % below + below * (s.b * t->k + port);
        out->port = t->k + a / below;
    } else {
        if (l == t->n - 1)
            return false; /* the top level's up ports are left unplugged */
        /* Up port k+j: the parent that records j as digit l of a; we are its
           down port b mod k. */
        uint32_t j = port - t->k;
        out->router = t->first[l + 1] + a + j * t->pow_up[l] + t->pow_up[l + 1] * (s.b / t->k);
        out->port = s.b % t->k;
    }
    return true;
}

uint32_t thintree_node_router(void *self, uint32_t node)
{
    const thintree *t = self;
    return node / t->k; /* leaves are routers 0.. and hold k nodes each */
}

/* What a port is, statically: up ports cross the link between levels l and
   l+1, down ports the link between l-1 and l; dim is the link's lower level
   (the label digit it changes), so a link has the same dim both ways, as in
   a torus. Leaf down ports get dim -1 (no link).
   dim_hops: 1 in a route (a path crosses each level's links once each way),
   0 in the static description. */
static insee_hop port_hop(const thintree *t, uint32_t level, uint32_t port, uint16_t dim_hops)
{
    bool up = port >= t->k;
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
    thintree_switch s = t->sw[router];
    uint32_t w = 0;
    if (s.b == dst_node / t->pow_k[s.level + 1]) {
        /* The destination is below: the one down port toward it (none at its leaf). */
        if (s.level > 0 && max > 0)
            out[w++] = port_hop(t, s.level, dst_node / t->pow_k[s.level] % t->k, 1);
    } else {
        /* Every up port leads to a switch one level nearer a common ancestor. */
        for (uint32_t j = 0; j < t->kup && w < max; j++)
            out[w++] = port_hop(t, s.level, t->k + j, 1);
    }
    return w;
}

void thintree_port_info(void *self, uint32_t router, uint32_t port, insee_hop *out)
{
    const thintree *t = self;
    *out = port_hop(t, t->sw[router].level, port, 0);
}

uint32_t thintree_distance(void *self, uint32_t router, uint32_t dst_node)
{
    const thintree *t = self;
    thintree_switch s = t->sw[router];
    /* Climb to the nearest common ancestor level h, the first whose subtree
       holds the destination, then go down h levels to its leaf. */
    uint32_t h = s.level, b = s.b, y = dst_node / t->pow_k[h + 1];
    while (b != y) {
        b /= t->k;
        y /= t->k;
        h++;
    }
    return (h - s.level) + h;
}

uint32_t thintree_leaf_port(void *self, uint32_t node)
{
    const thintree *t = self;
    return node % t->k;
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
