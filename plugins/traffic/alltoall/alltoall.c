/* alltoall.c — all-to-all personalised exchange by pairwise exchange, as
 * MPI libraries build it from point-to-point messages (INSEE §3.2.4): in
 * step k = 1..n-1 task r sends to (r + k) mod n and receives from
 * (r - k) mod n, so every task meets every other once per iteration and
 * each step pairs a send with the receive it waits for. With pairing =
 * "xor" (n a power of two, as MPICH pairs its ranks then, and as NSIM §5.3
 * ran it) task r exchanges with r XOR k: the two tasks of a step send to
 * each other. */
#include "kernel_common.h"

enum { P_PAIRING = 0 };

static const insee_param_def alltoall_params[] = {
    KERNEL_PARAMS,
    {"pairing", INSEE_PARAM_ENUM, "\"shift\"", 1, 0, "shift|xor", NULL,
     "who meets whom in step k: shift, task r sends to r + k and receives from r - k; xor, "
     "task r exchanges with r XOR k (tasks a power of two)"},
    {0},
};

static void alltoall_task(script *s, const kernel_args *a, uint32_t it, uint32_t r, uint32_t root,
                          uint32_t n)
{
    (void)root;
    kernel_compute(s, a, r);
    if (a->own[P_PAIRING].i == 0) {
        kernel_pairwise_exchange(s, a, r, n, it);
        return;
    }
    for (uint32_t k = 1; k < n; k++) {
        script_send(s, r, r ^ k, kernel_tag(it, k), a->bytes);
        script_recv(s, r, r ^ k, kernel_tag(it, k), a->bytes);
    }
}

script *alltoall_script(const kernel_args *a, insee_error *err)
{
    uint32_t n = kernel_tasks(a);
    if (a->own[P_PAIRING].i == 1 && (n & (n - 1))) {
        insee_error_set(err, INSEE_ERR_PARAM,
                        "%s: pairing = \"xor\" needs a power of two of tasks, has %u; use "
                        "pairing = \"shift\" or set tasks",
                        a->name, n);
        return NULL;
    }
    return kernel_program_script(a, 2, alltoall_task, err);
}

KERNEL_PLUGIN(alltoall, "alltoall", alltoall_script, alltoall_params,
              "all-to-all by pairwise exchange: n-1 steps, task r sends to r+k and receives from "
              "r-k, or exchanges with r XOR k",
              "INSEE §3.2.4; NSIM §5.3")
