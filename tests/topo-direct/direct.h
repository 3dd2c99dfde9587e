/* direct.h — what the tests of the direct topologies (twisted-torus,
 * midimew, spinnaker) share: open a topology plugin on the plugin tests'
 * mock host (../plugins/harness.c), check it whole against breadth-first
 * search over its own link() (../plugins/topo_check.c, plus what direct
 * topologies promise), and carry packets through the Dally router to build
 * its channel dependency graph. */
#ifndef INSEE_TEST_TOPO_DIRECT_H
#define INSEE_TEST_TOPO_DIRECT_H

#include "harness.h"

/* An open topology: the mock kernel's topology queries reach it. */
typedef struct net {
    insee_kernel k;
    insee_host host;
    const insee_topology_vtable *vt;
    void *self;
    insee_topology_info info;
    uint32_t warnings; /* warnings the plugin logged at create() */
} net;

/* Open `plugin` with `params` (one per entry of its table); false and `err`
   filled when create() refuses. */
bool net_try(net *t, const char *plugin, const insee_value *params, insee_error *err);
void net_open(net *t, const char *plugin, const insee_value *params);
void net_close(net *t);

/* The three plugins' parameters. `which` is the index of twisted-torus's
   `twisted` choice: 0 all, 1 y, 2 z. */
void twisted_open(net *t, const int64_t *dims, size_t n, int64_t twist, int which);
void midimew_open(net *t, int64_t nodes);
/* first = "b" (dimension 0 the b jump, as INSEE numbers them) or "b-1". */
void midimew_open_first(net *t, int64_t nodes, bool b_first);
void spinnaker_open(net *t, int64_t w, int64_t h);
insee_value *twisted_params(const int64_t *dims, size_t n, int64_t twist, int which,
                            insee_value out[4]);

/* Check everything the topology says against BFS over its links: wiring
   (in range, symmetric, inputs fed once, port_info), coordinates (unique;
   0 exactly past a + dateline), distance() for every pair, minimal_hops()
   listing exactly the ports one hop closer, and the first hops forming one
   dimension-ordered path whose dim_hops, WRAP and WRAP_AHEAD flags match
   the links it takes, crossing each dimension's dateline at most once when
   `dateline_safe`. Returns the sum of the distances over all ordered pairs;
   *diameter gets the largest. */
uint64_t check_net(const net *t, bool dateline_safe, uint32_t *diameter);

/* Whether the channel (router, port, VC) dependency graph of the Dally
   router in `mode` ("trc" or "basic"), 2 VCs, over the paths between every
   pair of nodes (salts 0, ~0, 2, 5) on `t` has a cycle. Asserts that every
   path is as long as distance() and uses VCs 0 and 1 only. */
bool dally_cdg_cyclic(net *t, const char *mode);

#define DIMS(...) (const int64_t[]){__VA_ARGS__}, sizeof((const int64_t[]){__VA_ARGS__}) / sizeof(int64_t)

#endif
