/* allreduce.c — allreduce by recursive doubling, as MPI libraries build it
 * from point-to-point messages (INSEE §3.2.4). With n = 2^m tasks, in step
 * k = 0..m-1 task r exchanges its partial result with r XOR 2^k (send, then
 * receive); after m steps every task holds the result.
 *
 * Any other n = p + q, p the largest power of two below n, takes the usual
 * MPI detour: first each even task r < 2q sends its data to r + 1 and drops
 * out; the p tasks left (odd r < 2q, and every r >= 2q) run the doubling
 * among themselves, numbered r / 2 and r - q; last each odd r < 2q sends
 * the result back to r - 1. */
#include "kernel_common.h"

static const insee_param_def allreduce_params[] = {KERNEL_PARAMS, {0}};

/* The task of doubling rank v when q tasks dropped out. */
static uint32_t doubling_task(uint32_t v, uint32_t q) { return v < q ? 2 * v + 1 : v + q; }

static void allreduce_task(script *s, const kernel_args *a, uint32_t it, uint32_t r, uint32_t root,
                           uint32_t n)
{
    (void)root;
    uint32_t m = kernel_floor_log2(n), q = n - (1u << m);
    uint64_t first = kernel_tag(it, 0), last = kernel_tag(it, m + 1);
    kernel_compute(s, a, r);
    if (r < 2 * q && r % 2 == 0) {
        script_send(s, r, r + 1, first, a->bytes);
        script_recv(s, r, r + 1, last, a->bytes);
        return;
    }
    if (r < 2 * q)
        script_recv(s, r, r - 1, first, a->bytes);
    uint32_t v = r < 2 * q ? r / 2 : r - q;
    for (uint32_t k = 0; k < m; k++) {
        uint32_t peer = doubling_task(v ^ (1u << k), q);
        script_send(s, r, peer, kernel_tag(it, k + 1), a->bytes);
        script_recv(s, r, peer, kernel_tag(it, k + 1), a->bytes);
    }
    if (r < 2 * q)
        script_send(s, r, r - 1, last, a->bytes);
}

script *allreduce_script(const kernel_args *a, insee_error *err)
{
    return kernel_program_script(a, 1, allreduce_task, err);
}

KERNEL_PLUGIN(allreduce, "allreduce", allreduce_script, allreduce_params,
              "recursive-doubling allreduce: log2 n pairwise exchanges (any n, with the usual "
              "fold-in for non-powers of two)",
              "INSEE §3.2.4")
