/* stencil.c — halo exchange of a 2D or 3D stencil code (INRFlow §3.3.3,
 * INSEE §3.2.4's virtual topologies): the tasks form a grid, and in every
 * iteration each task computes, sends its boundary to each neighbour along
 * every dimension (-x, +x, -y, ...), then receives its neighbours'
 * boundaries. Without `periodic` the grid's faces have fewer neighbours;
 * with it the grid wraps round, and on a dimension of size 2 the same
 * neighbour gets two messages, one per direction. */
#include "kernel_common.h"

enum { P_PERIODIC = KERNEL_P_GRID_OWN };

static const insee_param_def stencil_params[] = {
    KERNEL_PARAMS,
    KERNEL_GRID_PARAMS,
    {"periodic", INSEE_PARAM_BOOL, "false", 1, 0, NULL, NULL,
     "the grid wraps round (a torus of tasks)"},
    {0},
};

script *stencil_script(const kernel_args *a, insee_error *err)
{
    uint32_t g[KERNEL_GRID_MAX], n, dims = (uint32_t)a->own[KERNEL_P_DIMS].i;
    bool periodic = a->own[P_PERIODIC].b;
    script *s = kernel_grid_script(a, g, &n, err);
    if (!s)
        return NULL;
    for (uint32_t it = 0; it < a->iterations; it++)
        for (uint32_t r = 0; r < n; r++) {
            kernel_compute(s, a, r);
            /* The message that travels in direction dir along d is tagged 2d + (dir > 0). */
            for (uint32_t d = 0; d < dims; d++)
                for (int dir = -1; dir <= 1; dir += 2) {
                    uint32_t to = kernel_grid_step(g, r, d, dir, periodic);
                    if (to != KERNEL_NONE)
                        script_send(s, r, to, kernel_tag(it, 2 * d + (dir > 0)), a->bytes);
                }
            for (uint32_t d = 0; d < dims; d++)
                for (int dir = -1; dir <= 1; dir += 2) {
                    uint32_t from = kernel_grid_step(g, r, d, dir, periodic);
                    if (from != KERNEL_NONE)
                        script_recv(s, r, from, kernel_tag(it, 2 * d + (dir < 0)), a->bytes);
                }
        }
    return s;
}

KERNEL_PLUGIN(stencil, "stencil", stencil_script, stencil_params,
              "2D/3D stencil halo exchange: every iteration each task swaps boundaries with its "
              "grid neighbours",
              "INRFlow §3.3.3; INSEE §3.2.4")
