/* mapreduce.c — a MapReduce job (INRFlow §3.3.3): in every iteration task
 * 0 scatters one message of input to every other task, every task maps
 * (computes), the tasks shuffle by an all-to-all pairwise exchange (step k:
 * send to r + k, receive from r - k), every task reduces (computes), and
 * task 0 gathers one message of output from every other task. Task 0 maps
 * and reduces too. */
#include "kernel_common.h"

static const insee_param_def mapreduce_params[] = {KERNEL_PARAMS, {0}};

/* The scatter is tagged step 0, the shuffle steps 1..n-1, the gather step n. */
static void mapreduce_task(script *s, const kernel_args *a, uint32_t it, uint32_t r,
                           uint32_t root, uint32_t n)
{
    (void)root;
    uint64_t scatter = kernel_tag(it, 0), gather = kernel_tag(it, n);
    for (uint32_t t = 1; t < n && r == 0; t++)
        script_send(s, 0, t, scatter, a->bytes);
    if (r)
        script_recv(s, r, 0, scatter, a->bytes);
    kernel_compute(s, a, r);
    kernel_pairwise_exchange(s, a, r, n, it);
    kernel_compute(s, a, r);
    if (r)
        script_send(s, r, 0, gather, a->bytes);
    for (uint32_t t = 1; t < n && r == 0; t++)
        script_recv(s, 0, t, gather, a->bytes);
}

script *mapreduce_script(const kernel_args *a, insee_error *err)
{
    return kernel_program_script(a, 2, mapreduce_task, err);
}

KERNEL_PLUGIN(mapreduce, "mapreduce", mapreduce_script, mapreduce_params,
              "MapReduce: scatter from task 0, map, all-to-all shuffle, reduce, gather to task 0",
              "INRFlow §3.3.3")
