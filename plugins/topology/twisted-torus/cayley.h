/* cayley.h — routing shared by the direct topologies that are Cayley graphs
 * of a finite abelian group: the twisted torus (Z^n modulo a twisted
 * lattice), the midimew (Z_N with jumps b-1 and b) and SpiNNaker (Z_w x Z_h
 * with moves x, y and x+y). Compiled into each of those plugins (hidden like
 * everything but their entries), as ../torus/kcube.c is into mesh.
 *
 * Model
 *  - Node r is router r and a group element; node 0 is the identity. Every
 *    router has 2 * dims ports: port 2d moves +1 along "dimension" d (one
 *    generator of the group), port 2d+1 moves -1; the generators generate
 *    the whole group (every plugin's parameters give a connected network).
 *    Output 2d of r feeds input 2d+1 of its + neighbour, so the reverse
 *    link comes back into the same port index (topology.h), as in
 *    ../torus/kcube.h.
 *  - The graph looks the same from every node, so the way from u to v is
 *    the way from 0 to the node v - u. create() runs one BFS from node 0 and
 *    keeps, per node c: its distance, and for each dimension d the largest
 *    and the smallest net move along d (+ moves minus - moves; a shortest
 *    path never makes both) over all shortest paths from 0 to c (a
 *    shortest path's moves, in any order, are one shortest path). Port
 *    (d, +) is minimal toward c exactly when some shortest path makes a +
 *    move along d: when the largest is > 0. Memory: 4 + 8 * dims + 4 * axes bytes per node, linear;
 *    set-up O(nodes * ports); every query O(dims).
 *  - Dimension order: the first hop listed is in the lowest dimension some
 *    shortest path moves along, in the direction of the extreme farther from
 *    0 (largest or smallest; the salt's bit d breaks a tie). After that hop the same rule at the next
 *    router picks the same path: the shortest paths from there are those of
 *    here that started with this move, so the extreme of this dimension is
 *    still there, one move shorter, and the lower dimensions stay done.
 *  - With `draw` (INSEE's twisted torus: a routing record drawn per packet
 *    among every equally short one), create() also tables, per node c, the
 *    sign patterns (-, none, + along each dimension) of the shortest paths
 *    0 -> c: a path to c is a path to a neighbour one move closer plus that
 *    move, which sets that dimension's sign. The first hop is then the
 *    pattern the packet prefers: dimension by dimension, lowest first, the
 *    sign its salt ranks highest (one of the 6 orders of -, none, +, from a
 *    hash of the salt) among the patterns still kept, then the lowest
 *    dimension that pattern moves along. The same choice holds at the next
 *    router: the pattern taken is still there (one move shorter, at most
 *    losing this dimension's sign, which then ranks as it did), no pattern
 *    moving the other way along it can appear (it would pass back through
 *    here), and in lower dimensions the "none" kept stays, so the packet
 *    never returns to a lower dimension. At the source each pattern of the
 *    lowest tie is equally likely, as INSEE's draw makes each record.
 *  - Datelines: along dimension d every node has a position 0 .. length-1
 *    on a ring of that dimension (pos, set by the plugin); one hop moves it
 *    by `step`; a hop that leaves [0, length) crosses the dimension's
 *    dateline (flag INSEE_HOP_WRAP) and lands at the position minus/plus
 *    length. coords() reports position / step, which is 0 exactly at the
 *    routers just past a + dateline: what the Dally router's trc mode reads.
 *    A plugin may add coordinates after the dims ring positions (axes > dims,
 *    step 1) so that every node gets its own.
 *    Dally's two VCs per dimension are deadlock free when no shortest path
 *    crosses a dimension's dateline twice (hops * step <= length along
 *    every dimension); create() checks it over every node and logs a
 *    warning when it does not hold.
 */
#ifndef INSEE_PLUGIN_CAYLEY_H
#define INSEE_PLUGIN_CAYLEY_H

#include <insee/insee.h>

#define CAYLEY_MAX_DIMS 3

typedef struct cayley cayley;

/* What each plugin provides. */
typedef struct cayley_ops {
    /* Fill g->pos (pos[node * axes + a]) for every node. */
    void (*place)(cayley *g);
    /* The node one move from `node` along dimension d, direction dir (+1/-1). */
    uint32_t (*neighbour)(const cayley *g, uint32_t node, uint32_t d, int dir);
    /* The node v - u (the destination v seen from u, moved to node 0). */
    uint32_t (*difference)(const cayley *g, uint32_t v, uint32_t u);
} cayley_ops;

typedef struct cayley_ring {
    uint32_t length; /* positions from one dateline to the next */
    uint32_t step;   /* positions one hop moves */
} cayley_ring;

/* The shared part of an instance; a plugin's own instance starts with it. */
struct cayley {
    const cayley_ops *ops;
    const char *name; /* prefixes messages */
    uint32_t nodes;
    uint32_t dims;                     /* port dimensions: 2 * dims ports */
    uint32_t axes;                     /* coordinates per node, >= dims */
    cayley_ring ring[CAYLEY_MAX_DIMS]; /* one per axis; step 1 past dims */
    uint32_t diameter;
    bool draw;       /* dimension order draws among the shortest ways (above); set before build */
    uint32_t *ways;  /* with draw, ways[c]: bit i set when some shortest path 0 -> c makes the
                        net moves of sign pattern i (base-3 digit d: 0 -, 1 none, 2 +) */
    uint32_t *pos;   /* pos[node * axes + a]: position on the ring of a */
    uint32_t *dist;  /* dist[c]: hops from node 0 to node c */
    int32_t *reach;  /* reach[(c * dims + d) * 2]: the largest net move along d
                        over the shortest paths 0 -> c; [... + 1]: the smallest */
};

/* Build the tables of `g`, whose ops, name, nodes, dims, axes and rings the
   plugin has set; the plugin's instance (`g` first) was allocated with
   calloc. Out of memory: fill err and return false; cayley_destroy(g) then
   frees it all. Logs a warning through host when some shortest path crosses
   a dateline twice (see above). */
bool cayley_build(cayley *g, const insee_host *host, insee_error *err);

void cayley_destroy(void *self);
void cayley_info(void *self, insee_topology_info *out);
uint32_t cayley_ports(void *self, uint32_t router);
bool cayley_link(void *self, uint32_t router, uint32_t port, insee_port_peer *out);
uint32_t cayley_node_router(void *self, uint32_t node);
uint32_t cayley_minimal_hops(void *self, uint32_t router, uint32_t dst_node, uint32_t salt,
                             insee_hop *out, uint32_t max);
void cayley_port_info(void *self, uint32_t router, uint32_t port, insee_hop *out);
uint32_t cayley_distance(void *self, uint32_t router, uint32_t dst_node);
uint32_t cayley_coords(void *self, uint32_t node, int32_t *out, uint32_t max);

/* The topology vtable of such a graph; only create differs between plugins. */
#define CAYLEY_VTABLE(CREATE)                                                \
    {                                                                        \
        .size = sizeof(insee_topology_vtable),                               \
        .create = (CREATE),                                                  \
        .destroy = cayley_destroy,                                           \
        .info = cayley_info,                                                 \
        .ports = cayley_ports,                                               \
        .link = cayley_link,                                                 \
        .node_router = cayley_node_router,                                   \
        .minimal_hops = cayley_minimal_hops,                                 \
        .port_info = cayley_port_info,                                       \
        .distance = cayley_distance,                                         \
        .coords = cayley_coords,                                             \
    }

#endif
