/* thintree.h — generalised-tree arithmetic shared by the thin-tree and
 * kary-ntree plugins: a tree of n levels whose level-l switches have
 * down[l] down and up[l] up ports (INRFlow's gtree). The k:k'-ary n-thin-tree
 * is down[l] = k, up[l] = k' at every level, the k-ary n-tree k' = k.
 * Compiled into both .so files, hidden like everything but the entry.
 *
 * Levels 0 (leaves) .. n-1 (top). With D_l = down[0] ... down[l-1] (nodes
 * below a level-l subtree root: D_{l+1}) and U_l = up[0] ... up[l-1], level
 * l holds U_l * D_n / D_{l+1} switches. The switch at index i of level l
 * (router first[l] + i) is written i = a + U_l * b: `a` (a mixed-radix
 * number, digit j in base up[j]) is the choice of up port made at each level
 * below it, `b` names the subtree of nodes it reaches going down: the nodes
 * y with y / D_{l+1} = b. Node y attaches to leaf switch y / down[0]
 * (through injection/consumption, not through a port; the plugins put a
 * network interface between them, linked to the leaf's down port
 * y mod down[0], unless nic = false). Ports: 0..down[l]-1 down, then
 * down[l]..down[l]+up[l]-1 up. Up port down[l]+j of <a, b, l> feeds down
 * port b mod down[l+1] of <a + j U_l, b / down[l+1], l+1>; down port d of
 * <a, b, l> feeds up port down[l-1] + a / U_{l-1} of
 * <a mod U_{l-1}, b down[l] + d, l-1>, so every link comes back into the
 * same port index. Leaf down ports and top up ports are unplugged. All
 * queries are O(1) or O(n).
 */
#ifndef INSEE_PLUGIN_THINTREE_H
#define INSEE_PLUGIN_THINTREE_H

#include <insee/insee.h>

/* down[l] >= 2 makes the node count overflow 32 bits beyond 31 levels. */
#define THINTREE_MAX_LEVELS 31u

typedef struct thintree {
    uint32_t n; /* levels */
    uint32_t down[THINTREE_MAX_LEVELS], up[THINTREE_MAX_LEVELS]; /* ports per level */
    uint32_t routers, nodes, max_ports;
    uint32_t first[THINTREE_MAX_LEVELS + 1];  /* router index of level l's first switch */
    uint32_t pow_k[THINTREE_MAX_LEVELS + 1];  /* D_i, i = 0..n (D_n = nodes) */
    uint32_t pow_up[THINTREE_MAX_LEVELS];     /* U_i, i = 0..n-1 */
} thintree;

/* Build a k:kup-ary n-tree; `name` prefixes error messages. The kernel has
 * range-checked each parameter; this refuses what a range cannot express
 * (kup > k, a node count past 32 bits, a tree past the kernel's limits of
 * ../common/limits.h), before allocating anything sized by the tree. */
thintree *thintree_create(const char *name, int64_t k, int64_t kup, int64_t n, insee_error *err);

/* Build the generalised tree of n = down_len levels, down[l] >= 2 down and
 * up[l] up ports at level l; up has n - 1 entries (the top has no up ports)
 * or n (the top's are numbered, unplugged), each >= 1 below the top. Refuses
 * other lengths, a node count past 32 bits and a tree past the kernel's
 * limits, naming the parameters `down` and `up`, before allocating anything
 * sized by the tree. */
thintree *thintree_create_levels(const char *name, const int64_t *down, size_t down_len,
                                 const int64_t *up, size_t up_len, insee_error *err);

void thintree_destroy(void *self);
void thintree_info(void *self, insee_topology_info *out);
uint32_t thintree_ports(void *self, uint32_t router);
bool thintree_link(void *self, uint32_t router, uint32_t port, insee_port_peer *out);
uint32_t thintree_node_router(void *self, uint32_t node);
uint32_t thintree_minimal_hops(void *self, uint32_t router, uint32_t dst_node, uint32_t salt,
                               insee_hop *out, uint32_t max);
void thintree_port_info(void *self, uint32_t router, uint32_t port, insee_hop *out);
uint32_t thintree_distance(void *self, uint32_t router, uint32_t dst_node);

/* The port of node y's leaf its network interface links to: the leaf's down
   port y mod down[0], unplugged in the tree itself (nic.h's
   topo_nic_port_fn). */
uint32_t thintree_leaf_port(void *self, uint32_t node);

/* The tree's own entries, without create: the plugins build it with
   thintree_create() and wrap it in ../common/nic.h's network interfaces. No
   coords: info.dims is 0. */
extern const insee_topology_vtable thintree_vtable;

#endif
