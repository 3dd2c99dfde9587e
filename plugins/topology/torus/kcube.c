/* kcube.c — k-ary n-cube arithmetic (torus, unidirectional torus, mesh):
 * coordinates, wiring, minimal hops with wrap-around flags, distances.
 * Every query is a closed form in O(dims); see kcube.h for the numbering. */
#include "kcube.h"

#include "../common/limits.h"

#include <inttypes.h>
#include <stdlib.h>

/* hop.dim is an int16_t and ports per router fit a uint16_t. */
#define KCUBE_MAX_DIMS 32767u

static uint32_t coord(const kcube *c, uint32_t node, uint32_t d)
{
    return c->coord[(size_t)node * c->n + d];
}

/* Hops from s to t going + (mod k). */
static uint32_t plus_hops(uint32_t k, uint32_t s, uint32_t t)
{
    return t >= s ? t - s : t + k - s; /* no division: this runs at every hop */
}

/* Hops from s to t along one dimension on the shortest allowed path. */
static uint32_t dim_distance(const kcube *c, uint32_t d, uint32_t s, uint32_t t)
{
    uint32_t k = c->dim[d].k;
    if (!c->dim[d].wrap)
        return s > t ? s - t : t - s;
    uint32_t fwd = plus_hops(k, s, t);
    if (!c->bidir)
        return fwd;
    return fwd < k - fwd ? fwd : k - fwd;
}

static uint16_t port_of(const kcube *c, uint32_t d, int dir)
{
    return (uint16_t)(c->bidir ? 2 * d + (dir < 0) : d);
}

/* A hop of `hops` hops from coordinate s toward t along d in direction dir.
 * The flags hold for the mesh too: there a + move always has t > s and
 * never starts at k-1, a - move the reverse, so no wrap flag can arise. */
static insee_hop make_hop(const kcube *c, uint32_t d, int dir, uint32_t hops, uint32_t s,
                          uint32_t t)
{
    uint32_t k = c->dim[d].k;
    uint8_t flags = 0;
    if (dir > 0 ? t < s : t > s)
        flags |= INSEE_HOP_WRAP_AHEAD;
    if (dir > 0 ? s == k - 1 : s == 0)
        flags |= INSEE_HOP_WRAP;
    return (insee_hop){
        .port = port_of(c, d, dir),
        .dir = (int8_t)dir,
        .flags = flags,
        .dim = (int16_t)d,
        .dim_hops = (uint16_t)hops,
    };
}

kcube *kcube_create(const char *name, const insee_value *dims, bool wrap, bool bidir,
                    insee_error *err)
{
    if (dims->list_len == 0) {
        insee_error_set(err, INSEE_ERR_PARAM,
                        "%s: dims is empty; give at least one size, e.g. dims = [8, 8]", name);
        return NULL;
    }
    if (dims->list_len > KCUBE_MAX_DIMS) {
        insee_error_set(err, INSEE_ERR_PARAM,
                        "%s: dims has %zu sizes; at most %u dimensions are supported", name,
                        dims->list_len, KCUBE_MAX_DIMS);
        return NULL;
    }
    uint32_t n = (uint32_t)dims->list_len;
    kcube *c = calloc(1, sizeof *c + n * sizeof c->dim[0]);
    if (!c) {
        insee_error_set(err, INSEE_ERR_NOMEM, "%s: out of memory for %u dimensions", name, n);
        return NULL;
    }
    c->n = n;
    c->bidir = bidir;
    uint64_t nodes = 1;
    for (uint32_t d = 0; d < n; d++) {
        uint32_t k = (uint32_t)dims->list[d];
        c->dim[d].k = k;
        c->dim[d].stride = (uint32_t)nodes;
        c->dim[d].wrap = wrap;
        nodes *= k;
        if (nodes > UINT32_MAX) {
            insee_error_set(err, INSEE_ERR_PARAM,
                            "%s: dims give more than %u nodes (overflow at dimension %u); "
                            "use smaller sizes",
                            name, UINT32_MAX, d);
            free(c);
            return NULL;
        }
        /* Farthest pair per dimension: half way round a bidirectional ring,
           all the way round a unidirectional ring or along a mesh row. */
        c->diameter += wrap && bidir ? k / 2 : k - 1;
    }
    c->nodes = (uint32_t)nodes;
    uint64_t ports = bidir ? 2 * n : n;
    if (!topology_within_limits(name, nodes, nodes, ports, nodes * ports, "use smaller dims",
                                err)) {
        free(c);
        return NULL;
    }
    /* Routing asks for coordinates at every hop: a table (2 bytes per node
       and dimension, linear in nodes) saves two divisions per dimension. */
    c->coord = malloc(sizeof(uint16_t) * n * nodes);
    if (!c->coord) {
        insee_error_set(err, INSEE_ERR_NOMEM, "%s: out of memory for the coordinates of %"
                        PRIu64 " nodes", name, nodes);
        free(c);
        return NULL;
    }
    for (uint32_t node = 0; node < c->nodes; node++)
        for (uint32_t d = 0; d < n; d++)
            c->coord[(size_t)node * n + d] = (uint16_t)(node / c->dim[d].stride % c->dim[d].k);
    return c;
}

void kcube_set_mesh(kcube *c, uint32_t d)
{
    uint32_t k = c->dim[d].k;
    if (c->dim[d].wrap)
        c->diameter += (k - 1) - k / 2; /* along the row, no longer half way round */
    c->dim[d].wrap = false;
}

void kcube_destroy(void *self)
{
    kcube *c = self;
    free(c->coord);
    free(c);
}

void kcube_info(void *self, insee_topology_info *out)
{
    const kcube *c = self;
    *out = (insee_topology_info){
        .routers = c->nodes,
        .nodes = c->nodes,
        .max_ports = c->bidir ? 2 * c->n : c->n,
        .dims = c->n,
        .flags = (c->bidir ? 0u : INSEE_TOPO_DIRECTED) | INSEE_TOPO_CONCURRENT,
        .diameter = c->diameter,
    };
}

uint32_t kcube_ports(void *self, uint32_t router)
{
    (void)router; /* every router has every port; mesh borders are unplugged, not absent */
    const kcube *c = self;
    return c->bidir ? 2 * c->n : c->n;
}

bool kcube_link(void *self, uint32_t router, uint32_t port, insee_port_peer *out)
{
    const kcube *c = self;
    uint32_t d = c->bidir ? port / 2 : port;
    bool minus = c->bidir && (port & 1u);
    uint32_t k = c->dim[d].k, s = coord(c, router, d);
    if (!c->dim[d].wrap && (minus ? s == 0 : s == k - 1))
        return false;
    uint32_t next = minus ? (s + k - 1) % k : (s + 1) % k;
    out->router = router - s * c->dim[d].stride + next * c->dim[d].stride;
    /* The neighbour's port facing back toward us: the other direction of d. */
    out->port = c->bidir ? port ^ 1u : port;
    return true;
}

uint32_t kcube_node_router(void *self, uint32_t node)
{
    (void)self; /* direct topology: router r hosts node r */
    return node;
}

/* The minimal hops along dimension d from coordinate s to t != s into out,
   at most `room` (>= 1) of them: one, or on a tie (half way round an even
   ring) both directions, the per-packet salt bit of this dimension saying
   which a DOR router takes first. Returns how many it wrote. */
static uint32_t dim_hops(const kcube *c, uint32_t d, uint32_t s, uint32_t t, uint32_t salt,
                         insee_hop *out, uint32_t room)
{
    uint32_t k = c->dim[d].k, fwd = plus_hops(k, s, t);
    if (!c->dim[d].wrap) {
        *out = t > s ? make_hop(c, d, +1, t - s, s, t) : make_hop(c, d, -1, s - t, s, t);
        return 1;
    }
    if (!c->bidir || fwd < k - fwd) {
        *out = make_hop(c, d, +1, fwd, s, t);
        return 1;
    }
    if (fwd > k - fwd) {
        *out = make_hop(c, d, -1, k - fwd, s, t);
        return 1;
    }
    int first = (salt >> (d % 32u)) & 1u ? -1 : +1;
    out[0] = make_hop(c, d, first, fwd, s, t);
    out[0].flags |= INSEE_HOP_TIE;
    if (room < 2)
        return 1;
    out[1] = make_hop(c, d, -first, fwd, s, t);
    out[1].flags |= INSEE_HOP_TIE;
    return 2;
}

/* Every dimension's hops, at most max. Out of line: inlined, the registers
   its loop needs would be saved on the first hop's path too. */
static __attribute__((noinline)) uint32_t every_hop(const kcube *c, const uint16_t *from,
                                                    const uint16_t *to, uint32_t salt,
                                                    insee_hop *out, uint32_t max)
{
    uint32_t w = 0;
    for (uint32_t d = 0; d < c->n && w < max; d++)
        if (from[d] != to[d])
            w += dim_hops(c, d, from[d], to[d], salt, out + w, max - w);
    return w;
}

uint32_t kcube_minimal_hops(void *self, uint32_t router, uint32_t dst_node, uint32_t salt,
                            insee_hop *out, uint32_t max)
{
    /* Both rows of coordinates once: reached through c->coord in the loop,
       they were recomputed at every dimension (stores to `out` may alias
       c). A dimension-order router asks for the first hop alone, at every
       hop: that path stays short, the rest is every_hop()'s. */
    const kcube *c = self;
    const uint16_t *from = &c->coord[(size_t)router * c->n];
    const uint16_t *to = &c->coord[(size_t)dst_node * c->n];
    if (max != 1)
        return every_hop(c, from, to, salt, out, max);
    for (uint32_t d = 0; d < c->n; d++)
        if (from[d] != to[d])
            return dim_hops(c, d, from[d], to[d], salt, out, 1);
    return 0;
}

void kcube_port_info(void *self, uint32_t router, uint32_t port, insee_hop *out)
{
    const kcube *c = self;
    uint32_t d = c->bidir ? port / 2 : port;
    bool minus = c->bidir && (port & 1u);
    uint32_t s = coord(c, router, d);
    bool wraps = c->dim[d].wrap && (minus ? s == 0 : s == c->dim[d].k - 1);
    *out = (insee_hop){
        .port = (uint16_t)port,
        .dir = (int8_t)(minus ? -1 : +1),
        .flags = wraps ? (uint8_t)INSEE_HOP_WRAP : 0,
        .dim = (int16_t)d,
        .dim_hops = 0,
    };
}

uint32_t kcube_distance(void *self, uint32_t router, uint32_t dst_node)
{
    const kcube *c = self;
    uint32_t sum = 0;
    for (uint32_t d = 0; d < c->n; d++)
        sum += dim_distance(c, d, coord(c, router, d), coord(c, dst_node, d));
    return sum;
}

uint32_t kcube_coords(void *self, uint32_t node, int32_t *out, uint32_t max)
{
    const kcube *c = self;
    uint32_t w = c->n < max ? c->n : max;
    for (uint32_t d = 0; d < w; d++)
        out[d] = (int32_t)coord(c, node, d);
    return w;
}
