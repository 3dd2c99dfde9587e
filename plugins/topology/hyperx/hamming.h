/* hamming.h — Hamming-graph arithmetic shared by the hyperx and hypercube
 * plugins (compiled into both .so files; hidden like everything but the
 * entry).
 *
 * Routers sit on a lattice S0 x S1 x ...; router index = x0 + S0*(x1 +
 * S1*(x2 + ...)) (dimension 0 varies fastest). Two routers are linked, by K
 * parallel links (trunking), when their coordinates differ in exactly one
 * dimension. Node n attaches to router n / p.
 *
 * Ports: dimension 0 first, then 1, ...; inside dimension d the routers that
 * share every other coordinate, by increasing coordinate v (own coordinate
 * skipped), K ports each:
 *     port = base_d + (v < x_d ? v : v - 1) * K + t,  t = 0..K-1,
 * base_d = K * sum over e < d of (S_e - 1). Parallel link t of a pair uses
 * index t at both ends, so the reverse link comes back into the same port.
 * Every call is O(dims) with no table sized by the router count.
 */
#ifndef INSEE_PLUGIN_HAMMING_H
#define INSEE_PLUGIN_HAMMING_H

#include <insee/insee.h>

typedef struct hamming_dim {
    uint32_t s;      /* routers along this dimension */
    uint32_t stride; /* product of the sizes of the lower dimensions */
    uint32_t base;   /* first port of this dimension */
} hamming_dim;

typedef struct hamming {
    uint32_t n;       /* dimensions */
    uint32_t routers; /* product of the sizes */
    uint32_t nodes;   /* routers * p */
    uint32_t p;       /* nodes per router */
    uint32_t trunk;   /* parallel links per linked pair (K) */
    uint32_t ports;   /* K * sum (S_d - 1) */
    hamming_dim dim[];
} hamming;

/* Build from `n` sizes (each >= 2, range-checked by the kernel against the
 * plugin's table); `name` prefixes error messages. Checks what a range
 * cannot: no dimension, a router count beyond 32 bits, a network beyond the
 * kernel's limits (../common/limits.h), whose message ends with `fix`. */
hamming *hamming_create(const char *name, const int64_t *sizes, size_t n, uint32_t trunk,
                        uint32_t p, const char *fix, insee_error *err);

void hamming_destroy(void *self);
void hamming_info(void *self, insee_topology_info *out);
uint32_t hamming_ports(void *self, uint32_t router);
bool hamming_link(void *self, uint32_t router, uint32_t port, insee_port_peer *out);
uint32_t hamming_node_router(void *self, uint32_t node);
uint32_t hamming_minimal_hops(void *self, uint32_t router, uint32_t dst_node, uint32_t salt,
                              insee_hop *out, uint32_t max);
void hamming_port_info(void *self, uint32_t router, uint32_t port, insee_hop *out);
uint32_t hamming_distance(void *self, uint32_t router, uint32_t dst_node);
uint32_t hamming_coords(void *self, uint32_t node, int32_t *out, uint32_t max);

/* The topology vtable of a Hamming graph; only create differs between plugins. */
#define HAMMING_VTABLE(CREATE)                                               \
    {                                                                        \
        .size = sizeof(insee_topology_vtable),                               \
        .create = (CREATE),                                                  \
        .destroy = hamming_destroy,                                          \
        .info = hamming_info,                                                \
        .ports = hamming_ports,                                              \
        .link = hamming_link,                                                \
        .node_router = hamming_node_router,                                  \
        .minimal_hops = hamming_minimal_hops,                                \
        .port_info = hamming_port_info,                                      \
        .distance = hamming_distance,                                        \
        .coords = hamming_coords,                                            \
    }

#endif
