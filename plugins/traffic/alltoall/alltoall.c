/* alltoall.c — all-to-all personalised exchange by pairwise exchange, as
 * MPI libraries build it from point-to-point messages (INSEE §3.2.4): in
 * step k = 1..n-1 task r sends to (r + k) mod n and receives from
 * (r - k) mod n, so every task meets every other once per iteration and
 * each step pairs a send with the receive it waits for. */
#include "kernel_common.h"

static const insee_param_def alltoall_params[] = {KERNEL_PARAMS, {0}};

static void alltoall_task(script *s, const kernel_args *a, uint32_t it, uint32_t r, uint32_t root,
                          uint32_t n)
{
    (void)root;
    kernel_compute(s, a, r);
    kernel_pairwise_exchange(s, a, r, n, it);
}

script *alltoall_script(const kernel_args *a, insee_error *err)
{
    return kernel_program_script(a, 2, alltoall_task, err);
}

KERNEL_PLUGIN(alltoall, "alltoall", alltoall_script, alltoall_params,
              "all-to-all by pairwise exchange: n-1 steps, task r sends to r+k and receives from r-k",
              "INSEE §3.2.4")
