/* hamming.c — Hamming-graph arithmetic (HyperX / flattened butterfly and
 * its binary case, the hypercube): coordinates, wiring with parallel links,
 * minimal hops, distances. Every query is O(dims); see hamming.h for the
 * numbering. */
#include "hamming.h"

#include "../common/limits.h"

#include <stdlib.h>

static uint32_t coord(const hamming *h, uint32_t router, uint32_t d)
{
    return router / h->dim[d].stride % h->dim[d].s;
}

/* Index of the routers of coordinate v among those x_d's ports lead to. */
static uint32_t slot_of(uint32_t v, uint32_t x)
{
    return v < x ? v : v - 1;
}

/* The dimension port `port` belongs to (ports are grouped by dimension). */
static uint32_t dim_of(const hamming *h, uint32_t port)
{
    uint32_t d = 0;
    while (d + 1 < h->n && port >= h->dim[d + 1].base)
        d++;
    return d;
}

hamming *hamming_create(const char *name, const int64_t *sizes, size_t n, uint32_t trunk,
                        uint32_t p, const char *fix, insee_error *err)
{
    if (n == 0) {
        insee_error_set(err, INSEE_ERR_PARAM,
                        "%s: no dimension given; give at least one size, e.g. dims = [4, 4]",
                        name);
        return NULL;
    }
    /* More dimensions than 32 would need more than 2^32 routers (sizes >= 2);
       checking it first keeps the allocation below small. */
    if (n > 32) {
        insee_error_set(err, INSEE_ERR_PARAM,
                        "%s: %zu dimensions give at least 2^%zu routers, more than 32 bits "
                        "hold; use at most 32 dimensions",
                        name, n, n);
        return NULL;
    }
    hamming *h = calloc(1, sizeof *h + n * sizeof h->dim[0]);
    if (!h) {
        insee_error_set(err, INSEE_ERR_NOMEM, "%s: out of memory", name);
        return NULL;
    }
    *h = (hamming){.n = (uint32_t)n, .p = p, .trunk = trunk};
    uint64_t routers = 1, ports = 0;
    for (uint32_t d = 0; d < h->n; d++) {
        uint32_t s = (uint32_t)sizes[d];
        h->dim[d] = (hamming_dim){.s = s, .stride = (uint32_t)routers, .base = (uint32_t)ports};
        routers *= s;
        ports += (uint64_t)(s - 1) * trunk;
        if (routers > UINT32_MAX) {
            insee_error_set(err, INSEE_ERR_PARAM,
                            "%s: the sizes give more than %u routers (overflow at dimension "
                            "%u); use smaller sizes or fewer dimensions",
                            name, UINT32_MAX, d);
            free(h);
            return NULL;
        }
    }
    if (!topology_within_limits(name, routers, routers * p, ports, routers * ports, fix, err)) {
        free(h);
        return NULL;
    }
    h->routers = (uint32_t)routers;
    h->nodes = (uint32_t)(routers * p);
    h->ports = (uint32_t)ports;
    return h;
}

void hamming_destroy(void *self)
{
    free(self);
}

void hamming_info(void *self, insee_topology_info *out)
{
    const hamming *h = self;
    *out = (insee_topology_info){
        .routers = h->routers,
        .nodes = h->nodes,
        .max_ports = h->ports,
        /* With several nodes per router the slot is one more coordinate,
           so that every node has its own. */
        .dims = h->n + (h->p > 1),
        .flags = 0,
        /* One hop per differing coordinate, and every size is >= 2. */
        .diameter = h->n,
    };
}

uint32_t hamming_ports(void *self, uint32_t router)
{
    (void)router; /* every router has every port, all plugged */
    const hamming *h = self;
    return h->ports;
}

bool hamming_link(void *self, uint32_t router, uint32_t port, insee_port_peer *out)
{
    const hamming *h = self;
    if (port >= h->ports)
        return false;
    uint32_t d = dim_of(h, port);
    const hamming_dim *dim = &h->dim[d];
    uint32_t slot = (port - dim->base) / h->trunk, t = (port - dim->base) % h->trunk;
    uint32_t x = coord(h, router, d);
    uint32_t v = slot < x ? slot : slot + 1;
    out->router = router - x * dim->stride + v * dim->stride;
    out->port = dim->base + slot_of(x, v) * h->trunk + t;
    return true;
}

uint32_t hamming_node_router(void *self, uint32_t node)
{
    const hamming *h = self;
    return node / h->p;
}

uint32_t hamming_minimal_hops(void *self, uint32_t router, uint32_t dst_node, uint32_t salt,
                              insee_hop *out, uint32_t max)
{
    const hamming *h = self;
    uint32_t dst = dst_node / h->p, w = 0;
    /* The K parallel links of a pair tie: the packet's salt says which is
       listed first, so a router that takes the first hop spreads packets
       over the trunk while each packet keeps to one index. */
    uint32_t first = salt % h->trunk;
    for (uint32_t d = 0; d < h->n && w < max; d++) {
        uint32_t x = coord(h, router, d), y = coord(h, dst, d);
        if (x == y)
            continue;
        uint32_t base = h->dim[d].base + slot_of(y, x) * h->trunk;
        for (uint32_t i = 0; i < h->trunk && w < max; i++)
            out[w++] = (insee_hop){
                .port = (uint16_t)(base + (first + i) % h->trunk),
                .dir = 0, /* a full connection has no direction */
                .flags = 0,
                .dim = (int16_t)d,
                .dim_hops = 1,
            };
    }
    return w;
}

void hamming_port_info(void *self, uint32_t router, uint32_t port, insee_hop *out)
{
    (void)router; /* the port numbering is the same at every router */
    const hamming *h = self;
    *out = (insee_hop){.port = (uint16_t)port, .dim = (int16_t)dim_of(h, port)};
}

uint32_t hamming_distance(void *self, uint32_t router, uint32_t dst_node)
{
    const hamming *h = self;
    uint32_t dst = dst_node / h->p, differ = 0;
    for (uint32_t d = 0; d < h->n; d++)
        differ += coord(h, router, d) != coord(h, dst, d);
    return differ;
}

uint32_t hamming_coords(void *self, uint32_t node, int32_t *out, uint32_t max)
{
    const hamming *h = self;
    uint32_t router = node / h->p, w = 0;
    for (uint32_t d = 0; d < h->n && w < max; d++)
        out[w++] = (int32_t)coord(h, router, d);
    if (h->p > 1 && w < max)
        out[w++] = (int32_t)(node % h->p);
    return w;
}
