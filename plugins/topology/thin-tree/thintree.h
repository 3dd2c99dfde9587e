/* thintree.h — k:k'-ary n-thin-tree arithmetic shared by the thin-tree and
 * kary-ntree plugins (a k-ary n-tree is the thin-tree with k' = k; compiled
 * into both .so files, hidden like everything but the entry).
 *
 * Levels 0 (leaves) .. n-1 (top); level l holds k^(n-1-l) * k'^l switches.
 * The switch at index i of level l (router first[l] + i) is written
 * i = a + k'^l * b: `a` (digits 0..l-1 in base k') is the choice of up port
 * made at each level below it, `b` (digits l..n-2 in base k) names the
 * subtree of nodes it reaches going down: the nodes y with y / k^(l+1) = b.
 * Node y attaches to leaf switch y / k (through injection/consumption, not
 * through a port; the plugins put a network interface between them, linked
 * to the leaf's down port y mod k, unless nic = false). Ports: 0..k-1 down, k..k+k'-1 up. Up port k+j of
 * <a, b, l> feeds down port b mod k of <a + j k'^l, b / k, l+1>; down port d
 * of <a, b, l> feeds up port k + a / k'^(l-1) of <a mod k'^(l-1), b k + d,
 * l-1>, so every link comes back into the same port index. Leaf down ports
 * and top up ports are unplugged. All queries are O(1) or O(n).
 */
#ifndef INSEE_PLUGIN_THINTREE_H
#define INSEE_PLUGIN_THINTREE_H

#include <insee/insee.h>

/* k >= 2 makes k^n overflow 32 bits beyond n = 31. */
#define THINTREE_MAX_LEVELS 31u

/* What minimal_hops needs of a switch, tabled at create (linear in switches). */
typedef struct thintree_switch {
    uint32_t b;     /* the subtree it reaches going down (see above) */
    uint32_t level; /* 0 = leaves */
} thintree_switch;

typedef struct thintree {
    uint32_t k, kup, n;   /* down ports, up ports, levels */
    uint32_t routers, nodes;
    uint32_t first[THINTREE_MAX_LEVELS + 1];  /* router index of level l's first switch */
    uint32_t pow_k[THINTREE_MAX_LEVELS + 1];  /* k^i, i = 0..n (k^n = nodes) */
    uint32_t pow_up[THINTREE_MAX_LEVELS];     /* k'^i, i = 0..n-1 */
    thintree_switch *sw;                      /* per router */
} thintree;

/* Build a k:kup-ary n-tree; `name` prefixes error messages. The kernel has
 * range-checked each parameter; this refuses what a range cannot express
 * (kup > k, a node count past 32 bits, a tree past the kernel's limits of
 * ../common/limits.h), before allocating anything sized by the tree. */
thintree *thintree_create(const char *name, int64_t k, int64_t kup, int64_t n, insee_error *err);

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
   port y mod k, unplugged in the tree itself (nic.h's topo_nic_port_fn). */
uint32_t thintree_leaf_port(void *self, uint32_t node);

/* The tree's own entries, without create: the plugins build it with
   thintree_create() and wrap it in ../common/nic.h's network interfaces. No
   coords: info.dims is 0. */
extern const insee_topology_vtable thintree_vtable;

#endif
