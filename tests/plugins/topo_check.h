/* topo_check.h — the checks every topology test runs against a breadth-first
 * search over the topology's own link(), shared by test_topology.c here and
 * by ../topo-direct, ../topo-families, ../topo-graph and ../topo-trees (each
 * test executable compiles topo_check.c next to harness.c).
 *
 * Contract
 *  - A topo_table is one instance's link table, read once through its vtable
 *    (link() is pure, topology.h). It borrows the instance: vt and self must
 *    outlive it. Read it only where the checks run: it is sized by the ports
 *    of all routers, and a BFS table by routers squared.
 *  - Hops are counted along links as link() directs them. A BFS table is
 *    routers x routers, row = source: bfs[s * routers + x] is the hops from
 *    router s to router x, TOPO_NONE when x is not reached.
 *  - The checks are Criterion assertions (call them inside a Test). They
 *    compare distance(), node_router(), minimal_hops() and port_info() with
 *    the table; run topo_check_links first, since the others trust that
 *    every plugged output leads to a real router.
 *  - What each topology promises beyond topology.h (closed forms, port
 *    numbering, flags such as WRAP or UP) stays with its own tests, which
 *    look at what the checks return.
 */
#ifndef INSEE_TEST_PLUGINS_TOPO_CHECK_H
#define INSEE_TEST_PLUGINS_TOPO_CHECK_H

#include <insee/insee.h>
#include <stdbool.h>
#include <stddef.h>

#define TOPO_NONE UINT32_MAX

typedef struct topo_table {
    const insee_topology_vtable *vt;
    void *self;
    insee_topology_info info;
    uint32_t *first;       /* router r's outputs are peer[first[r] .. first[r + 1] - 1] */
    insee_port_peer *peer; /* where each output leads; router TOPO_NONE when unplugged */
} topo_table;

/* Read info(), ports() and every link() of `self`. */
void topo_read(topo_table *t, const insee_topology_vtable *vt, void *self);
void topo_table_free(topo_table *t);

/* Where output `port` of `router` leads; NULL when it is unplugged. */
const insee_port_peer *topo_peer(const topo_table *t, uint32_t router, uint32_t port);

/* Hops from router `src` to every router into dist (routers entries);
   returns how many routers were reached, src included. */
uint32_t topo_bfs(const topo_table *t, uint32_t src, uint32_t *dist);

/* The BFS table from every router; the caller frees it. */
uint32_t *topo_bfs_all(const topo_table *t);

/* Whether a and b have the same link table: as many routers, as many ports
   at each router, and every output alike, unplugged in both or leading to
   the same router and input port. Not an assertion, so that tests can ask
   for a difference too; when they differ and why is not NULL, the first
   difference is written into why (why_len bytes) for the failure message. */
bool topo_same_links(const topo_table *a, const topo_table *b, char *why, size_t why_len);

/* Every plugged output leads to a real router (not its own) and a real
   input port of it, no input is fed twice, and unless info.flags has
   INSEE_TOPO_DIRECTED the reverse link comes back into the same port;
   info.max_ports is the largest ports(r). Returns the plugged outputs. */
uint32_t topo_check_links(const topo_table *t);

/* Every router reaches every router (as the conformance suite's
   topo.connected asks); for every router and every node, node_router()
   names a real router and distance() equals the BFS. Returns the sum of the
   BFS distances over ordered pairs of routers that host nodes (self pairs
   included) and sets *diameter to the largest of them. */
uint64_t topo_check_distances(const topo_table *t, const uint32_t *bfs, uint32_t *diameter);

/* minimal_hops(router, node, salt) into out (cap entries, at least
   ports(router)), then: nothing exactly at the node's router; every hop a
   plugged port, listed once, one BFS hop closer, in non-decreasing dim
   after the first,
   with the dim and dir of port_info() (dim -1 without port_info()); every
   plugged port one BFS hop closer listed; max = 1 gives the same first hop
   and max = 0 writes nothing. Returns how many hops were listed. */
uint32_t topo_check_hops(const topo_table *t, const uint32_t *bfs, uint32_t router,
                         uint32_t node, uint32_t salt, insee_hop *out, uint32_t cap);

#endif
