/* broadcast.c — binomial-tree broadcast, as MPI libraries build it from
 * point-to-point messages (INSEE §3.2.4). Ranks are relative to the root,
 * rel = (r - root) mod n: rank rel > 0 receives from rel - 2^h, h the
 * highest set bit of rel, and then sends to rel + 2^k for every k > h (every
 * k for the root) with rel + 2^k < n, largest subtree (largest k) first. A
 * task's depth in the tree is the number of set bits of rel. */
#include "kernel_common.h"

static const insee_param_def broadcast_params[] = {
    KERNEL_PARAMS,
    KERNEL_ROOT_PARAM("the task that holds the data"),
    {0},
};

static void broadcast_rank(script *s, const kernel_args *a, uint32_t it, uint32_t rel,
                           uint32_t root, uint32_t n)
{
    uint32_t r = (rel + root) % n;
    kernel_compute(s, a, r);
    uint32_t first = 0; /* the first round in which rel sends */
    if (rel) {
        uint32_t h = kernel_floor_log2(rel);
        script_recv(s, r, (rel - (1u << h) + root) % n, kernel_tag(it, h), a->bytes);
        first = h + 1;
    }
    for (uint32_t k = kernel_floor_log2(n) + 1; k-- > first;)
        if ((uint64_t)rel + (1u << k) < n)
            script_send(s, r, (rel + (1u << k) + root) % n, kernel_tag(it, k), a->bytes);
}

script *broadcast_script(const kernel_args *a, insee_error *err)
{
    return kernel_rooted_script(a, broadcast_rank, err);
}

KERNEL_PLUGIN(broadcast, "broadcast", broadcast_script, broadcast_params,
              "binomial-tree broadcast from a root: each task receives once, then forwards",
              "INSEE §3.2.4")
