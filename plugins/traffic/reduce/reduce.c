/* reduce.c — binomial-tree reduce, as MPI libraries build it from
 * point-to-point messages (INSEE §3.2.4). Ranks are relative to the root,
 * rel = (r - root) mod n: rank rel receives from rel + 2^k for every k below
 * its lowest set bit (every k for the root) with rel + 2^k < n, smallest k
 * first, and then sends its partial result to rel - 2^l, l its lowest set
 * bit. The tree is the broadcast's mirror: a task's depth is the number of
 * set bits of rel. */
#include "kernel_common.h"

static const insee_param_def reduce_params[] = {
    KERNEL_PARAMS,
    KERNEL_ROOT_PARAM("the task that receives the result"),
    {0},
};

static void reduce_rank(script *s, const kernel_args *a, uint32_t it, uint32_t rel, uint32_t root,
                        uint32_t n)
{
    uint32_t r = (rel + root) % n, k = 0;
    kernel_compute(s, a, r);
    for (; (uint64_t)rel + (1u << k) < n && !(rel & (1u << k)); k++)
        script_recv(s, r, (rel + (1u << k) + root) % n, kernel_tag(it, k), a->bytes);
    if (rel) {
        while (!(rel & (1u << k)))
            k++;
        script_send(s, r, (rel - (1u << k) + root) % n, kernel_tag(it, k), a->bytes);
    }
}

script *reduce_script(const kernel_args *a, insee_error *err)
{
    return kernel_rooted_script(a, reduce_rank, err);
}

KERNEL_PLUGIN(reduce, "reduce", reduce_script, reduce_params,
              "binomial-tree reduce to a root: each task gathers its subtree, then sends up",
              "INSEE §3.2.4")
