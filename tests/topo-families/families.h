/* families.h — what the unit tests of the large-scale topology families
 * (dragonfly, hyperx, hypercube, jellyfish) share: create a topology plugin
 * with hand-built parameters on the mock host of ../plugins, read its graph
 * through link(), and check it against a breadth-first search (link
 * symmetry, unique inputs, distances, minimal hops). */
#ifndef INSEE_TEST_TOPO_FAMILIES_H
#define INSEE_TEST_TOPO_FAMILIES_H

#include "harness.h"

typedef struct fam {
    const insee_topology_vtable *vt;
    void *self;
    insee_topology_info info;
} fam;

insee_value value_int(int64_t i);

/* create() of topology `name` with `params` (table order) on a mock host of
   experiment seed `seed`: the instance, or NULL with err filled. */
void *fam_try(const char *name, const insee_value *params, uint64_t seed, insee_error *err);

/* The same, asserting success, into `t` (info read). */
void fam_make(fam *t, const char *name, const insee_value *params, uint64_t seed);
void fam_free(fam *t);

/* Plugged output ports over all routers (twice the links when every link
   has its reverse). */
uint64_t fam_channels(const fam *t);

/* Every link names a real router and port, comes back into the same port
   (bidirectional), and every input is fed once at most. */
void fam_check_links(const fam *t);

/* Hops between every pair of routers by BFS over link() (UINT32_MAX:
   unreached); routers x routers, caller frees. */
uint32_t *fam_bfs(const fam *t);

/* distance() equals the BFS to every node; returns the sum of router-pair
   distances (self pairs included) and sets *diameter to the largest. */
uint64_t fam_check_distances(const fam *t, const uint32_t *bfs, uint32_t *diameter);

/* At every router toward every node: minimal_hops() lists exactly the
   plugged ports one BFS hop closer, once each, nothing at the node's
   router, in non-decreasing dim; agrees with port_info(); honours max. */
void fam_check_minimal_hops(const fam *t, const uint32_t *bfs);

/* All of the above; returns the BFS table (caller frees). */
uint32_t *fam_check_all(const fam *t);

#endif
