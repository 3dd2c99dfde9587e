/* contiguous.c — contiguous, locality-aware allocation (INRFlow §3.4): a
 * job gets consecutive free nodes, in as few runs as there can be. Nodes are
 * numbered so that neighbours share a router, a switch or a group (a tree's
 * leaves, a dragonfly's groups, a torus's rows), so fewer runs mean fewer
 * groups and shorter paths. When some run of free nodes is long enough, the
 * shortest such run is used (best fit: long runs stay whole for wide jobs),
 * from its start; otherwise the longest runs are taken whole, longest first
 * (the fewest runs that hold the job), the last one in part. Ties go to the
 * lowest-numbered run. */
#include <insee/insee.h>

#include <stdlib.h>

#include "../common/instance.h"
#include "../jobs-common/too_few.h"

static void *contiguous_create(const insee_host *host, const insee_value *params, insee_error *err)
{
    (void)params; /* no parameters */
    return sched_plain_create(host, "contiguous", err);
}

typedef struct run {
    uint32_t first, len;
} run;

static int longest_first(const void *a, const void *b)
{
    const run *x = a, *y = b;
    if (x->len != y->len)
        return x->len > y->len ? -1 : 1;
    return x->first < y->first ? -1 : 1;
}

static bool contiguous_allocate(void *self, uint32_t count, const bool *free_nodes,
                                uint32_t nodes, uint32_t *out, insee_rng *rng, insee_error *err)
{
    (void)self;
    (void)rng; /* deterministic */
    if (too_few(count, free_nodes, nodes, "contiguous", err))
        return false;
    run *runs = malloc(sizeof *runs * (nodes / 2 + 2));
    if (!runs) {
        insee_error_set(err, INSEE_ERR_NOMEM, "contiguous: out of memory");
        return false;
    }
    uint32_t n = 0;
    for (uint32_t v = 0; v < nodes; v++) {
        if (!free_nodes[v])
            continue;
        if (v == 0 || !free_nodes[v - 1])
            runs[n++] = (run){v, 0};
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
        qsort(runs, n, sizeof *runs, longest_first);
        uint32_t i = 0;
        for (uint32_t r = 0; i < count; r++)
            for (uint32_t k = 0; k < runs[r].len && i < count; k++)
                out[i++] = runs[r].first + k;
    }
    free(runs);
    return true;
}

static const insee_allocation_vtable contiguous_vtable = {
    .size = sizeof(insee_allocation_vtable),
    .create = contiguous_create,
    .destroy = sched_destroy,
    .allocate = contiguous_allocate,
};

static const insee_plugin_desc contiguous_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_ALLOCATION,
    .name = "contiguous",
    .version = "1.0.0",
    .summary = "consecutive free nodes in the fewest runs (locality-aware)",
    .reference = "INRFlow §3.4",
    .params = NULL,
    .vtable = &contiguous_vtable,
};

INSEE_PLUGIN_DEFINE(contiguous_desc)
