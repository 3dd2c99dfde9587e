/* grid.h — the nodes as a k-ary n-cube grid, for the traffic patterns that
 * are defined on coordinates (tornado, nearest neighbour, local); compiled
 * into each plugin that uses it.
 *
 * The grid is read from host->coords() at create(): k_d is one more than
 * the largest coordinate d of any node, and the coordinates must map the
 * nodes one to one onto the k_0 x k_1 x ... grid, as they do on a torus or
 * mesh; any other topology (none, several nodes per router, a tree) is
 * refused with a message. Task t is node t: the kernel runs one task per
 * node, and a traffic plugin cannot see the placement, so a pattern on
 * coordinates assumes the consecutive one.
 *
 * A position on the grid is the mixed-radix number sum(c_d * stride_d);
 * moving along a dimension wraps mod k_d, as on the rings of a k-ary n-cube.
 * Everything is O(nodes) at create() and O(1) per move.
 */
#ifndef INSEE_TRAFFIC_GRID_H
#define INSEE_TRAFFIC_GRID_H

#include <insee/insee.h>

typedef struct traffic_grid {
    uint32_t n;        /* dimensions */
    uint32_t nodes;
    uint32_t *k;       /* k[d]: nodes along dimension d */
    uint32_t *stride;  /* stride[d]: the place value of dimension d in a position */
    uint32_t *pos;     /* pos[node]: where the node is */
    uint32_t *node;    /* node[position]: the node there */
} traffic_grid;

/* The grid of the network `host` describes; NULL with err filled (the
   message starts with `who`) when there is none. */
traffic_grid *traffic_grid_create(const char *who, const insee_host *host, insee_error *err);
void traffic_grid_destroy(traffic_grid *g);

/* Position `pos` with its coordinate along dimension d moved by `delta`,
   mod k_d. */
uint32_t traffic_grid_move(const traffic_grid *g, uint32_t pos, uint32_t d, int64_t delta);

#endif
