/* hot.c — hot spot, hot region and local destinations; see hot.h. */
#include "hot.h"
#include "bernoulli.h"

#include <math.h>

uint32_t traffic_hotspot_dst(insee_rng *rng, uint32_t tasks, uint32_t task, uint32_t node,
                             double fraction)
{
    bool hot = task != node && insee_rng_double(rng) < fraction;
    return hot ? node : traffic_other_task(rng, tasks, task);
}

uint32_t traffic_hot_region_size(double share, uint32_t tasks)
{
    /* The margin keeps a product like 0.29 x 100 = 28.999... at 29. */
    double region = floor(share * tasks + 1e-9);
    return region < 1 ? 1 : (uint32_t)region;
}

uint32_t traffic_hot_region_dst(insee_rng *rng, uint32_t tasks, uint32_t task, uint32_t region,
                                double fraction)
{
    bool hot = (task >= region || region > 1) && insee_rng_double(rng) < fraction;
    if (!hot)
        return traffic_other_task(rng, tasks, task);
    return task < region ? traffic_other_task(rng, region, task) : insee_rng_below(rng, region);
}

/* The offset along one dimension of k nodes. */
static int64_t local_offset(insee_rng *rng, uint32_t k)
{
    double u = insee_rng_double(rng);
    if (u < 0.5)
        return (int64_t)insee_rng_below(rng, 3) - 1; /* -1, 0, 1 */
    if (u < 0.75) {
        int64_t r = insee_rng_below(rng, 4); /* -3, -2, 2, 3 */
        return r < 2 ? r - 3 : r;
    }
    if (u < 0.875) {
        int64_t r = insee_rng_below(rng, 8); /* -7 .. -4, 4 .. 7 */
        return r < 4 ? r - 7 : r;
    }
    return insee_rng_below(rng, k); /* anywhere: every coordinate as likely */
}

uint32_t traffic_local_dst(const traffic_grid *g, insee_rng *rng, uint32_t task)
{
    uint32_t dst;
    /* Along a dimension of k >= 2 nodes the offset is 0 mod k with
       probability at most 5/12 (k = 2 is the worst), so fewer than 2 draws
       are expected. */
    do {
        uint32_t pos = g->pos[task];
        for (uint32_t d = 0; d < g->n; d++)
            pos = traffic_grid_move(g, pos, d, local_offset(rng, g->k[d]));
        dst = g->node[pos];
    } while (dst == task);
    return dst;
}
