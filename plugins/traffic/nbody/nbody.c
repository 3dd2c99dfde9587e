/* nbody.c — the ring algorithm of an n-body code (INRFlow §3.3.3): the
 * bodies are split in n blocks, one per task, and in every iteration (one
 * time step of the simulation) each task's block travels once round a ring
 * of the tasks. A step of the ring is: compute the forces between the
 * task's own bodies and the block it holds, send that block to task r + 1,
 * receive the next one from task r - 1 (mod n). After n - 1 steps every
 * block has met every other. */
#include "kernel_common.h"

static const insee_param_def nbody_params[] = {KERNEL_PARAMS, {0}};

static void nbody_task(script *s, const kernel_args *a, uint32_t it, uint32_t r, uint32_t root,
                       uint32_t n)
{
    (void)root;
    for (uint32_t k = 1; k < n; k++) {
        kernel_compute(s, a, r);
        script_send(s, r, (r + 1) % n, kernel_tag(it, k), a->bytes);
        script_recv(s, r, (r + n - 1) % n, kernel_tag(it, k), a->bytes);
    }
}

script *nbody_script(const kernel_args *a, insee_error *err)
{
    return kernel_program_script(a, 2, nbody_task, err);
}

KERNEL_PLUGIN(nbody, "nbody", nbody_script, nbody_params,
              "n-body ring: each iteration every task's block of bodies travels once round a ring",
              "INRFlow §3.3.3")
