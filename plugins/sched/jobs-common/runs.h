/* runs.h — the fewest runs of consecutive free nodes that hold a job
 * (INRFlow §3.4's contiguous allocation): the shortest run long enough,
 * from its start (best fit: long runs stay whole for wide jobs); otherwise
 * the longest runs whole, longest first, the last in part. Ties go to the
 * lowest-numbered run. Used by `contiguous`, and by `locality` where no box
 * of a mesh or torus fits. Compiled into each plugin that includes it. */
#ifndef INSEE_SCHED_RUNS_H
#define INSEE_SCHED_RUNS_H

#include <insee/insee.h>

#include <stdlib.h>

typedef struct sched_run {
    uint32_t first, len;
} sched_run;

static int sched_run_longest_first(const void *a, const void *b)
{
    const sched_run *x = a, *y = b;
    if (x->len != y->len)
        return x->len > y->len ? -1 : 1;
    return x->first < y->first ? -1 : 1;
}

/* `count` of the free nodes into out[]; at least `count` must be free.
   False, with err filled naming `name`, when out of memory. */
static inline bool fewest_runs(uint32_t count, const bool *free_nodes, uint32_t nodes,
                               uint32_t *out, const char *name, insee_error *err)
{
    sched_run *runs = malloc(sizeof *runs * (nodes / 2 + 2));
    if (!runs) {
        insee_error_set(err, INSEE_ERR_NOMEM, "%s: out of memory", name);
        return false;
    }
    uint32_t n = 0;
    for (uint32_t v = 0; v < nodes; v++) {
        if (!free_nodes[v])
            continue;
        if (v == 0 || !free_nodes[v - 1])
            runs[n++] = (sched_run){v, 0};
        runs[n - 1].len++;
    }
    int64_t best = -1;
    for (uint32_t r = 0; r < n; r++)
        if (runs[r].len >= count && (best < 0 || runs[r].len < runs[best].len))
            best = r;
    if (best >= 0) {
        for (uint32_t i = 0; i < count; i++)
            out[i] = runs[best].first + i;
    } else {
        qsort(runs, n, sizeof *runs, sched_run_longest_first);
        uint32_t i = 0;
        for (uint32_t r = 0; i < count; r++)
            for (uint32_t k = 0; k < runs[r].len && i < count; k++)
                out[i++] = runs[r].first + k;
    }
    free(runs);
    return true;
}

#endif
