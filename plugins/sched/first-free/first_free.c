/* first_free.c — first-free allocation (INRFlow §3.4): a job gets the
 * lowest-numbered free nodes. */
#include <insee/insee.h>

#include <stdlib.h>

#include "../common/instance.h"
#include "../jobs-common/too_few.h"

static void *first_free_create(const insee_host *host, const insee_value *params, insee_error *err)
{
    (void)params; /* no parameters */
    return sched_plain_create(host, "first-free", err);
}

static bool first_free_allocate(void *self, uint32_t count, const bool *free_nodes,
                                uint32_t nodes, uint32_t *out, insee_rng *rng, insee_error *err)
{
    (void)self;
    (void)rng; /* deterministic */
    if (too_few(count, free_nodes, nodes, "first-free", err))
        return false;
    for (uint32_t v = 0, i = 0; v < nodes && i < count; v++)
        if (free_nodes[v])
            out[i++] = v;
    return true;
}

static const insee_allocation_vtable first_free_vtable = {
    .size = sizeof(insee_allocation_vtable),
    .create = first_free_create,
    .destroy = sched_destroy,
    .allocate = first_free_allocate,
};

static const insee_plugin_desc first_free_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_ALLOCATION,
    .name = "first-free",
    .version = "1.0.0",
    .summary = "the lowest-numbered free nodes",
    .reference = "INRFlow §3.4",
    .params = NULL,
    .vtable = &first_free_vtable,
};

INSEE_PLUGIN_DEFINE(first_free_desc)
