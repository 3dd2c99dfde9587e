/* nic.h — INSEE's node model for indirect topologies (INSEE §2.1.2, as its
 * fat and thin trees are built): every node sits behind its own network
 * interface (NIC), a router of one port joined by a link to the switch that
 * hosts the node. A packet then crosses two more links than switch to switch
 * (NIC to switch, switch to NIC), and a node receives at most one phit per
 * cycle, whatever `consumption` says, since one link feeds it.
 *
 * A topology plugin builds its switches as usual (the "inner" topology: its
 * nodes attach through injection and consumption), then wraps them with
 * topo_nic_wrap() and exports TOPO_NIC_VTABLE: the wrapper is the plugin's
 * instance. Off (`on` false) the wrapper only forwards, so one vtable serves
 * both models. On:
 *  - routers 0..S-1 are the inner switches, unchanged; router S + y is the
 *    NIC of node y, and node_router(y) = S + y;
 *  - the NIC has one port, 0, linked to its switch; its port_info and its
 *    minimal hop have dim -1, dir +1, and, when the inner topology labels
 *    its links up or down (a tree), INSEE_HOP_UP (toward the network);
 *  - at the switch the link lands on the port `port_of(inner, y)` names (one
 *    the inner topology leaves unplugged, a tree leaf's down port) or, when
 *    port_of is NULL, on a port appended after the switch's own, one per
 *    hosted node in node order; dim -1, dir -1 (INSEE_HOP_DOWN in a tree),
 *    and it is the one minimal hop at the switch toward a node it hosts;
 *  - distances grow by one at a switch (the last link) and by two at a NIC
 *    (the first link too); info.diameter by two, flags gain INDIRECT.
 * The inner topology must provide distance(). Create-time tables are linear
 * in nodes; minimal_hops() adds O(1) to the inner one.
 */
#ifndef INSEE_PLUGIN_TOPOLOGY_NIC_H
#define INSEE_PLUGIN_TOPOLOGY_NIC_H

#include <insee/insee.h>

typedef struct topo_nic topo_nic;

/* The port of node y's switch its NIC link lands on (an unplugged one). */
typedef uint32_t (*topo_nic_port_fn)(void *inner, uint32_t node);

/* Wrap `inner` (an instance of `vt`, created by the caller). Takes
   ownership of inner: destroyed with the wrapper, or at once on failure
   (NULL, err set, its message prefixed with `name`). */
topo_nic *topo_nic_wrap(const char *name, const insee_topology_vtable *vt, void *inner,
                        topo_nic_port_fn port_of, bool on, insee_error *err);

void topo_nic_destroy(void *self);
void topo_nic_info(void *self, insee_topology_info *out);
uint32_t topo_nic_ports(void *self, uint32_t router);
bool topo_nic_link(void *self, uint32_t router, uint32_t port, insee_port_peer *out);
uint32_t topo_nic_node_router(void *self, uint32_t node);
uint32_t topo_nic_minimal_hops(void *self, uint32_t router, uint32_t dst_node, uint32_t salt,
                               insee_hop *out, uint32_t max);
void topo_nic_port_info(void *self, uint32_t router, uint32_t port, insee_hop *out);
uint32_t topo_nic_distance(void *self, uint32_t router, uint32_t dst_node);
uint32_t topo_nic_coords(void *self, uint32_t node, int32_t *out, uint32_t max);

/* The vtable of a plugin whose create() returns topo_nic_wrap(...). */
#define TOPO_NIC_VTABLE(CREATE)                                              \
    {                                                                        \
        .size = sizeof(insee_topology_vtable),                               \
        .create = (CREATE),                                                  \
        .destroy = topo_nic_destroy,                                         \
        .info = topo_nic_info,                                               \
        .ports = topo_nic_ports,                                             \
        .link = topo_nic_link,                                               \
        .node_router = topo_nic_node_router,                                 \
        .minimal_hops = topo_nic_minimal_hops,                               \
        .port_info = topo_nic_port_info,                                     \
        .distance = topo_nic_distance,                                       \
        .coords = topo_nic_coords,                                           \
    }

/* The parameter every plugin using the wrapper declares, default on or off. */
#define TOPO_NIC_PARAM(DEFAULT)                                                                \
    {"nic", INSEE_PARAM_BOOL, (DEFAULT), 1, 0, NULL, NULL,                                     \
     "each node behind its own network interface and link (INSEE's node model: two more "      \
     "hops, at most one phit per cycle into a node); false: nodes attach to their switch"}

#endif
