/* graph.c — unstructured traffic of graph analytics (INRFlow §3.3.3:
 * "causal random traffic"): the tasks are the vertices of a random directed
 * graph in which every task has `degree` out-neighbours, drawn uniformly
 * among the other tasks without repetition from the kernel's seeded stream
 * (so the same seed gives the same graph). In every iteration each task
 * computes, sends one message to each of its out-neighbours, then receives
 * one from each of its in-neighbours, lowest task first. */
#include "kernel_common.h"

#include <stdlib.h>

enum { P_DEGREE = 0 };

static const insee_param_def graph_params[] = {
    KERNEL_PARAMS,
    {"degree", INSEE_PARAM_INT, "4", 1, 16777215, NULL, "tasks",
     "out-neighbours of every task (messages it sends per iteration)"},
    {0},
};

/* `k` distinct tasks other than r among 0..n-1, uniformly (Floyd's
   sampling over the n - 1 others), into out[0..k). */
static void draw_neighbours(insee_rng *rng, uint32_t n, uint32_t r, uint32_t k, uint32_t *out)
{
    for (uint32_t j = n - 1 - k, got = 0; j < n - 1; j++) {
        uint32_t t = insee_rng_below(rng, j + 1);
        for (uint32_t i = 0; i < got; i++)
            if (out[i] == t) {
                t = j;
                break;
            }
        out[got++] = t;
    }
    for (uint32_t i = 0; i < k; i++)
        out[i] += out[i] >= r;
}

script *graph_script(const kernel_args *a, insee_error *err)
{
    uint32_t n = kernel_tasks(a), k = (uint32_t)a->own[P_DEGREE].i;
    if (k >= n) {
        insee_error_set(err, INSEE_ERR_PARAM,
                        "%s: degree = %u needs at least %u tasks, has %u; lower degree or raise "
                        "tasks",
                        a->name, k, k + 1, n);
        return NULL;
    }
    script *s = kernel_script(a, 2, err);
    if (!s)
        return NULL;
    uint32_t *out = malloc((size_t)n * k * sizeof *out);
    uint32_t *first_in = calloc((size_t)n + 1, sizeof *first_in);
    uint32_t *in = malloc((size_t)n * k * sizeof *in);
    if (!out || !first_in || !in)
        abort();
    insee_rng rng = a->rng;
    for (uint32_t r = 0; r < n; r++)
        draw_neighbours(&rng, n, r, k, out + (size_t)r * k);
    /* In-neighbours by counting sort on the destination, sources ascending. */
    for (size_t e = 0; e < (size_t)n * k; e++)
        first_in[out[e] + 1]++;
    for (uint32_t r = 0; r < n; r++)
        first_in[r + 1] += first_in[r];
    for (size_t e = 0; e < (size_t)n * k; e++)
        in[first_in[out[e]]++] = (uint32_t)(e / k);
    for (uint32_t r = n; r > 0; r--)
        first_in[r] = first_in[r - 1];
    first_in[0] = 0;
    for (uint32_t it = 0; it < a->iterations; it++)
        for (uint32_t r = 0; r < n; r++) {
            kernel_compute(s, a, r);
            for (uint32_t i = 0; i < k; i++)
                script_send(s, r, out[(size_t)r * k + i], kernel_tag(it, 0), a->bytes);
            for (uint32_t e = first_in[r]; e < first_in[r + 1]; e++)
                script_recv(s, r, in[e], kernel_tag(it, 0), a->bytes);
        }
    free(out);
    free(first_in);
    free(in);
    return s;
}

KERNEL_PLUGIN(graph, "graph", graph_script, graph_params,
              "unstructured graph traffic: each task messages its out-neighbours in a seeded "
              "random graph",
              "INRFlow §3.3.3")
