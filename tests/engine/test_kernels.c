/* End to end: the application kernels (plugins/traffic/<kernel>/) run to
 * completion on an 8x8 torus through the kernel, the script runner and a
 * real network; each delivers exactly its closed-form number of packets,
 * and the n-body ring on an otherwise idle network completes at the cycle
 * its zero-load latencies give. */
#include <criterion/criterion.h>
#include <string.h>

#include "run_helpers.h"

#define L 16
#define PHIT_BYTES 4
#define PACKET_BYTES (L * PHIT_BYTES)

static char *torus_run(const char *traffic)
{
    return g_strdup_printf("[simulation]\npacket_phits = %d\nphit_bytes = %d\n"
                           "[topology]\nplugin = \"torus\"\ndims = [8, 8]\n"
                           "[traffic]\n%s",
                           L, PHIT_BYTES, traffic);
}

/* Run `traffic` to completion: it finished, drained, and delivered
   `messages` messages of `packets` packets each. */
static insee_report complete(const char *traffic, uint64_t messages, uint64_t packets)
{
    char *toml = torus_run(traffic);
    insee_report r = run_toml(toml);
    cr_assert(r.causal && r.completed, "%s", traffic);
    assert_all_delivered(&r);
    cr_assert_eq(r.n_apps, 1);
    cr_assert_eq(r.apps[0].messages, messages, "%s: %llu messages, closed form %llu", traffic,
                 (unsigned long long)r.apps[0].messages, (unsigned long long)messages);
    cr_assert_eq(r.total_delivered, messages * packets, "%s: %llu packets, closed form %llu",
                 traffic, (unsigned long long)r.total_delivered,
                 (unsigned long long)(messages * packets));
    g_free(toml);
    return r;
}

/* Eight tasks on row 0 of the torus (consecutive placement): each ring step
   is one hop along +x, task 7 to task 0 over the wrap-around link, every
   task on a link of its own. A step: compute C; send P packets, whose last
   tail is consumed P L + h - 1 cycles later (h = 1 hop, zero load); the
   receive completes the cycle after. n - 1 = 7 steps per iteration, and the
   run counts cycles 0..T, T the cycle the last receive completes. */
static void nbody_case(uint64_t bytes, uint64_t packets, uint64_t compute, uint64_t iterations)
{
    char *traffic = g_strdup_printf("plugin = \"nbody\"\ntasks = 8\nbytes = %llu\n"
                                    "iterations = %llu\ncompute = %llu\n",
                                    (unsigned long long)bytes, (unsigned long long)iterations,
                                    (unsigned long long)compute);
    insee_report r = complete(traffic, iterations * 8 * 7, packets);
    uint64_t step = compute + (packets * L + 1 - 1) + 1;
    cr_assert_eq(r.completion, iterations * 7 * step + 1, "%s: completed at %llu", traffic,
                 (unsigned long long)r.completion);
    cr_assert_eq(r.apps[0].completion, r.completion);
    cr_assert_eq(r.hops, r.total_delivered, "every packet crosses one link");
    insee_report_clear(&r);
    g_free(traffic);
}

Test(kernels, nbody_ring_completes_at_its_zero_load_closed_form)
{
    nbody_case(PACKET_BYTES, 1, 0, 1);
    nbody_case(2 * PACKET_BYTES + 1, 3, 25, 2); /* a partial third packet */
}

typedef struct kernel_case {
    const char *params;
    uint64_t messages; /* closed form for 64 tasks */
} kernel_case;

/* Every kernel on all 64 tasks, one-packet messages. */
Test(kernels, every_kernel_completes_with_its_message_count)
{
    const kernel_case cases[] = {
        /* n (n - 1) per iteration */
        {"plugin = \"alltoall\"\niterations = 2\n", 2 * 64 * 63},
        /* n - 1 per iteration: a tree */
        {"plugin = \"broadcast\"\nroot = 9\niterations = 3\ncompute = 10\n", 3 * 63},
        {"plugin = \"reduce\"\nroot = 63\niterations = 3\n", 3 * 63},
        /* n log2 n */
        {"plugin = \"allreduce\"\n", 64 * 6},
        {"plugin = \"butterfly\"\niterations = 2\n", 2 * 64 * 6},
        /* 48 tasks: p = 32, q = 16 fold in and out */
        {"plugin = \"allreduce\"\ntasks = 48\n", 32 * 5 + 2 * 16},
        /* a message each way per link of the task grid: 2 x 2 x 8 x 7 (mesh),
           2 x 2 x 64 (torus), 2 x 3 x 16 x 3 (4x4x4 mesh) */
        {"plugin = \"stencil\"\n", 2 * 2 * 8 * 7},
        {"plugin = \"stencil\"\nperiodic = true\niterations = 2\n", 2 * 2 * 2 * 64},
        {"plugin = \"stencil\"\ndims = 3\n", 2 * 3 * 16 * 3},
        /* one message per link of the task grid, downstream */
        {"plugin = \"wavefront\"\niterations = 4\n", 4 * 2 * 8 * 7},
        {"plugin = \"wavefront\"\ndims = 3\ngrid = [2, 4, 8]\n", 32 * 1 + 16 * 3 + 8 * 7},
        {"plugin = \"nbody\"\n", 64 * 63},
        /* scatter, shuffle, gather: (n - 1) (n + 2) */
        {"plugin = \"mapreduce\"\n", 63 * 66},
        {"plugin = \"graph\"\ndegree = 5\niterations = 3\n", 3 * 64 * 5},
        /* an item and a result per item: 2 x iterations x (n - 1) */
        {"plugin = \"master-worker\"\niterations = 3\ncompute = 50\n", 2 * 3 * 63},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        insee_report r = complete(cases[i].params, cases[i].messages, 1);
        insee_report_clear(&r);
    }
}

Test(kernels, a_kernel_that_cannot_run_is_refused_at_load)
{
    char *toml = torus_run("plugin = \"butterfly\"\ntasks = 12\n");
    char *msg = run_toml_error(toml);
    cr_assert(strstr(msg, "butterfly: needs a power-of-two number of tasks, has 12; set tasks to 8 "
                          "or 16"),
              "%s", msg);
    g_free(msg);
    g_free(toml);
}
