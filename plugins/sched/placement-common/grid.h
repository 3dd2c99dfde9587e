/* placement-common/grid.h — the grid that column and quadrant placement
 * (INSEE §3.4) read from host->coords(): both "only make sense in cube-like
 * topologies with, at least, two dimensions", so they refuse any other
 * topology at create() with a message saying which topologies fit.
 */
#ifndef INSEE_PLACEMENT_GRID_H
#define INSEE_PLACEMENT_GRID_H

#include "order.h"

/* The grid's dimensions (2 .. ORDER_MAX_DIMS), or 0 with err filled. The
   shape says how many coordinates the topology gives; grid_coords() checks
   that each node really has them. */
static inline uint32_t grid_dims(const insee_host *host, const char *plugin, insee_error *err)
{
    insee_shape shape = {0};
    host->shape(host->kernel, &shape);
    if (shape.dims < 2) {
        insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                        "%s: needs a grid of at least 2 dimensions (a 2D/3D mesh or torus), "
                        "but this topology gives its nodes %u coordinates; use consecutive, "
                        "shift, shuffle, random or file placement",
                        plugin, shape.dims);
        return 0;
    }
    if (shape.dims > ORDER_MAX_DIMS) {
        insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                        "%s: handles grids of up to %d dimensions, this one has %u; "
                        "use consecutive or shift placement",
                        plugin, ORDER_MAX_DIMS, shape.dims);
        return 0;
    }
    return shape.dims;
}

/* Node `node`'s coordinates into c[0..dims); false with err filled when the
   topology does not give them all. */
static inline bool grid_coords(const insee_host *host, const char *plugin, uint32_t dims,
                               uint32_t node, int32_t *c, insee_error *err)
{
    if (host->coords(host->kernel, node, c, dims) < dims) {
        insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                        "%s: node %u has fewer than %u coordinates; use a mesh or torus", plugin,
                        node, dims);
        return false;
    }
    return true;
}

#endif
