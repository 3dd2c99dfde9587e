/* families.h — what the unit tests of the large-scale topology families
 * (dragonfly, hyperx, hypercube, jellyfish) share: create a topology plugin
 * with hand-built parameters on the mock host of ../plugins, and check it
 * against a breadth-first search over its link() (../plugins/topo_check.c:
 * link symmetry, unique inputs, distances, minimal hops). */
#ifndef INSEE_TEST_TOPO_FAMILIES_H
#define INSEE_TEST_TOPO_FAMILIES_H

#include "harness.h"

typedef struct fam {
    const insee_topology_vtable *vt;
    void *self;
    insee_topology_info info;
} fam;

/* create() of topology `name` with `params` (table order) on a mock host of
   experiment seed `seed`: the instance, or NULL with err filled. */
void *fam_try(const char *name, const insee_value *params, uint64_t seed, insee_error *err);

/* The same, asserting success, into `t` (info read). */
void fam_make(fam *t, const char *name, const insee_value *params, uint64_t seed);
void fam_free(fam *t);

/* Plugged output ports over all routers (twice the links when every link
   has its reverse). */
uint64_t fam_channels(const fam *t);

/* Every link names a real router and port (not its own router), comes back
   into the same port, and every input is fed once at most
   (topo_check_links; no family is INSEE_TOPO_DIRECTED). */
void fam_check_links(const fam *t);

/* The links as fam_check_links; the BFS between every pair of routers
   reaches, equals distance() to every node and gives info.diameter; at
   every router toward every node under a few salts, topo_check_hops.
   Returns the sum of the router-pair distances (self pairs included). */
uint64_t fam_check_all(const fam *t);

/* The topology's own routing (topology.h paths(), minor 9) between every
   pair of different routers under a few salts: every path a chain of
   plugged links from source to destination that visits no router twice,
   at most path_hops() long, shares positive and summing to 1, the same
   paths when asked again; `routable` says whether every pair must have a
   path. Returns the sum over pairs of the share-weighted hops (salt 0), so
   that a test can compare a routing's mean length with its paper's. */
double fam_check_paths(const fam *t, bool routable);

/* One paths() answer kept whole, for tests that look at each path: pass
   fam_keep_path as add() and a zeroed fam_paths as its ctx (at most
   FAM_PATHS paths of FAM_PATH_HOPS hops, asserted). */
#define FAM_PATHS 8u
#define FAM_PATH_HOPS 128u
typedef struct fam_paths {
    uint32_t count, hops[FAM_PATHS], ports[FAM_PATHS][FAM_PATH_HOPS];
    double share[FAM_PATHS];
} fam_paths;
void fam_keep_path(void *ctx, const uint32_t *ports, uint32_t hops, double share);

#endif
