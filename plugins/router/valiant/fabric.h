/* fabric.h — which family of network a router is running on, found at
 * create() from the host's topology queries alone (port_info, peer,
 * coords): the valiant, ugal and minimal-adaptive routers each need a
 * deadlock argument that holds only for some families, and prove it from
 * what this survey checks, not from the topology plugin's name.
 *
 * Compiled into the valiant, ugal and minimal-adaptive plugins. */
#ifndef INSEE_ROUTER_FABRIC_H
#define INSEE_ROUTER_FABRIC_H

#include <insee/insee.h>

typedef enum fabric_kind {
    /* None of the below; fabric.why says what ruled them out. */
    FABRIC_OTHER,
    /* Every port a dimension's link with a direction and none wrapping
       around: a mesh. Dimension order never turns back there. */
    FABRIC_MESH,
    /* A Hamming graph (HyperX, hypercube): every link changes exactly its
       dimension's coordinate, and every router reaches every other value of
       each coordinate in one hop. A shortest path fixes each differing
       coordinate once, so the first hop minimal_hops() lists (lowest
       dimension first) climbs the dimensions strictly. */
    FABRIC_HAMMING,
    /* Groups (dragonfly): the links of dimension 0 join routers into
       cliques, the groups; links of dimension 1 join groups, every pair of
       groups at least once. Shortest paths have at most 3 hops. */
    FABRIC_GROUPS,
} fabric_kind;

typedef struct fabric {
    fabric_kind kind;
    uint32_t routers;
    uint32_t *node_of;  /* a node on each router (its lowest): minimal_hops()
                           and distance() take a node, not a router */
    uint32_t groups;    /* FABRIC_GROUPS: how many */
    uint32_t *group_of; /* FABRIC_GROUPS: each router's group; else NULL */
    char why[256];      /* FABRIC_OTHER: the first port or router that fits no family */
} fabric;

/* Survey the network behind `host` into *out (O(links · coordinates), at
   create()). False only when out of memory (err set, naming `plugin`);
   otherwise out->kind says the family, FABRIC_OTHER included. Free with
   fabric_free() either way. */
bool fabric_survey(const insee_host *host, const char *plugin, fabric *out, insee_error *err);
void fabric_free(fabric *f);

#endif
