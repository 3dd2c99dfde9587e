/* kcube.h — k-ary n-cube arithmetic shared by the torus and mesh plugins
 * (compiled into both .so files; hidden like everything but the entry).
 *
 * Router r hosts node r; its coordinates are x0 + k0*(x1 + k1*(x2 + ...))
 * (dimension 0 varies fastest). Ports: with links in both directions
 * (bidirectional torus, mesh) port 2d is the + direction of dimension d and
 * port 2d+1 the - direction; a unidirectional torus has port d = + only.
 * Output +d of r feeds input -d (2d+1) of its + neighbour, so each port is
 * one bidirectional physical port and the reverse link comes back into the
 * same index (topology.h). All calls are O(dims); nothing is sized N^2.
 */
#ifndef INSEE_PLUGIN_KCUBE_H
#define INSEE_PLUGIN_KCUBE_H

#include <insee/insee.h>

typedef struct kcube_dim {
    uint32_t k;      /* routers along this dimension */
    uint32_t stride; /* product of the sizes of the lower dimensions */
    bool wrap;       /* wrap-around links; else unplugged border ports (a mesh row) */
} kcube_dim;

typedef struct kcube {
    uint32_t n;        /* dimensions */
    uint32_t nodes;    /* product of the sizes */
    uint32_t diameter;
    bool bidir;        /* a - port per dimension besides the + port */
    uint16_t *coord;   /* coord[node * n + d]: node's coordinate in dimension d */
    kcube_dim dim[];
} kcube;

/* Build from an INT_LIST of sizes, every dimension wrapping around or none;
 * `name` prefixes error messages. Sizes are range-checked by the kernel
 * against the plugin's table; this checks what a range cannot: an empty
 * list, a node count or port count that overflows. */
kcube *kcube_create(const char *name, const insee_value *dims, bool wrap, bool bidir,
                    insee_error *err);
/* Dimension d of a bidirectional cube becomes a mesh row (a mixed
 * mesh/torus such as Tofu's); call before any other query. */
void kcube_set_mesh(kcube *c, uint32_t d);

void kcube_destroy(void *self);
void kcube_info(void *self, insee_topology_info *out);
uint32_t kcube_ports(void *self, uint32_t router);
bool kcube_link(void *self, uint32_t router, uint32_t port, insee_port_peer *out);
uint32_t kcube_node_router(void *self, uint32_t node);
uint32_t kcube_minimal_hops(void *self, uint32_t router, uint32_t dst_node, uint32_t salt,
                            insee_hop *out, uint32_t max);
void kcube_port_info(void *self, uint32_t router, uint32_t port, insee_hop *out);
uint32_t kcube_distance(void *self, uint32_t router, uint32_t dst_node);
uint32_t kcube_coords(void *self, uint32_t node, int32_t *out, uint32_t max);

/* The topology vtable of a k-ary n-cube; only create differs between plugins. */
#define KCUBE_VTABLE(CREATE)                                                 \
    {                                                                        \
        .size = sizeof(insee_topology_vtable),                               \
        .create = (CREATE),                                                  \
        .destroy = kcube_destroy,                                            \
        .info = kcube_info,                                                  \
        .ports = kcube_ports,                                                \
        .link = kcube_link,                                                  \
        .node_router = kcube_node_router,                                    \
        .minimal_hops = kcube_minimal_hops,                                  \
        .port_info = kcube_port_info,                                        \
        .distance = kcube_distance,                                          \
        .coords = kcube_coords,                                              \
    }

#endif
