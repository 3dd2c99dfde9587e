/* wavefront.c — the wavefront sweep of 2D and 3D sweep codes (INRFlow
 * §3.3.3; INSEE §3.2.4): the tasks form a grid and every iteration is a
 * sweep from the corner at the origin. Task x receives from x - e_d for
 * every dimension d in which it is not on the low face, computes, then sends
 * to x + e_d for every d in which it is not on the high face. So a task at
 * Manhattan distance D from the origin starts D hops after the corner, and
 * successive sweeps follow one another through the grid as a pipeline. */
#include "kernel_common.h"

static const insee_param_def wavefront_params[] = {
    KERNEL_PARAMS,
    KERNEL_GRID_PARAMS,
    {0},
};

script *wavefront_script(const kernel_args *a, insee_error *err)
{
    uint32_t g[KERNEL_GRID_MAX], n, dims = (uint32_t)a->own[KERNEL_P_DIMS].i;
    script *s = kernel_grid_script(a, g, &n, err);
    if (!s)
        return NULL;
    for (uint32_t it = 0; it < a->iterations; it++)
        for (uint32_t r = 0; r < n; r++) {
            for (uint32_t d = 0; d < dims; d++) {
                uint32_t from = kernel_grid_step(g, r, d, -1, false);
                if (from != KERNEL_NONE)
                    script_recv(s, r, from, kernel_tag(it, d), a->bytes);
            }
            kernel_compute(s, a, r);
            for (uint32_t d = 0; d < dims; d++) {
                uint32_t to = kernel_grid_step(g, r, d, +1, false);
                if (to != KERNEL_NONE)
                    script_send(s, r, to, kernel_tag(it, d), a->bytes);
            }
        }
    return s;
}

KERNEL_PLUGIN(wavefront, "wavefront", wavefront_script, wavefront_params,
              "2D/3D wavefront sweep: each task waits for its upstream neighbours, computes, "
              "passes downstream",
              "INRFlow §3.3.3; INSEE §3.2.4")
