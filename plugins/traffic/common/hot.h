/* hot.h — the random destinations of INSEE §3.2.1 that are not uniform:
 * hot spot, hot region and local, shared by their own plugins and by
 * `bursts` (compiled into each .so that uses them, hidden like everything
 * but the entry).
 *
 * Each draw is one packet's destination, never its source; `rng` is the
 * task's stream. The callers check what a draw needs at create(): at
 * least 2 tasks, and for local a grid (grid.h).
 */
#ifndef INSEE_TRAFFIC_HOT_H
#define INSEE_TRAFFIC_HOT_H

#include "grid.h"

/* Hot spot: with probability `fraction` the hot task `node`, else uniform
   over the other tasks; the hot task's own packets are all uniform. */
uint32_t traffic_hotspot_dst(insee_rng *rng, uint32_t tasks, uint32_t task, uint32_t node,
                             double fraction);

/* The hot region's size: the first floor(share x tasks) tasks, at least 1. */
uint32_t traffic_hot_region_size(double share, uint32_t tasks);

/* Hot region: with probability `fraction` a task of 0 .. region-1 (another
   one when the source is in it), else uniform over the other tasks; the
   only hot task's packets are all uniform. */
uint32_t traffic_hot_region_dst(insee_rng *rng, uint32_t tasks, uint32_t task, uint32_t region,
                                double fraction);

/* Local on grid g: per dimension, as INSEE's code draws it, an offset in
   [-1, 1] with probability 1/2, one of +-2..3 with 1/4, one of +-4..7 with
   1/8, else a coordinate anywhere on the ring, each move mod k; a draw
   that lands on the source is drawn again, whole. g has a ring of k >= 2. */
uint32_t traffic_local_dst(const traffic_grid *g, insee_rng *rng, uint32_t task);

#endif
