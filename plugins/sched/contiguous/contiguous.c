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

#include "../common/instance.h"
#include "../jobs-common/runs.h"
#include "../jobs-common/too_few.h"

static void *contiguous_create(const insee_host *host, const insee_value *params, insee_error *err)
{
    (void)params; /* no parameters */
    return sched_plain_create(host, "contiguous", err);
}

static bool contiguous_allocate(void *self, uint32_t count, const bool *free_nodes,
                                uint32_t nodes, uint32_t *out, insee_rng *rng, insee_error *err)
{
    (void)self;
    (void)rng; /* deterministic */
    if (too_few(count, free_nodes, nodes, "contiguous", err))
        return false;
    return fewest_runs(count, free_nodes, nodes, out, "contiguous", err);
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
