/* butterfly.c — the butterfly exchanges of a parallel FFT (INSEE §3.2.4):
 * with n = 2^m tasks, in stage s = 0..m-1 task r exchanges with the task
 * whose number differs in bit m-1-s, the highest bit first (recursive
 * halving: first across the halves of the tasks, last between neighbours).
 * Only powers of two have this pattern: other counts are refused. */
#include "kernel_common.h"

static const insee_param_def butterfly_params[] = {KERNEL_PARAMS, {0}};

static void butterfly_task(script *s, const kernel_args *a, uint32_t it, uint32_t r, uint32_t root,
                           uint32_t n)
{
    (void)root;
    kernel_compute(s, a, r);
    for (uint32_t bit = n >> 1, st = 0; bit; bit >>= 1, st++) {
        script_send(s, r, r ^ bit, kernel_tag(it, st), a->bytes);
        script_recv(s, r, r ^ bit, kernel_tag(it, st), a->bytes);
    }
}

script *butterfly_script(const kernel_args *a, insee_error *err)
{
    uint32_t n = kernel_tasks(a);
    if (!kernel_power_of_two(n)) {
        insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                        "%s: needs a power-of-two number of tasks, has %u; set tasks to %u or "
                        "%u",
                        a->name, n, 1u << kernel_floor_log2(n), 2u << kernel_floor_log2(n));
        return NULL;
    }
    return kernel_program_script(a, 1, butterfly_task, err);
}

KERNEL_PLUGIN(butterfly, "butterfly", butterfly_script, butterfly_params,
              "FFT butterfly: log2 n stages, each task exchanging across the highest bit first",
              "INSEE §3.2.4")
