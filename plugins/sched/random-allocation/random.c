/* random.c — random allocation (INRFlow §3.4): a job gets free nodes drawn
 * uniformly without replacement from the kernel's stream for that job, so
 * the same seed gives the same nodes. */
#include <insee/insee.h>

#include <stdlib.h>

#include "../common/instance.h"
#include "../jobs-common/too_few.h"

static void *random_alloc_create(const insee_host *host, const insee_value *params, insee_error *err)
{
    (void)params; /* no parameters */
    return sched_plain_create(host, "random", err);
}

static bool random_alloc_allocate(void *self, uint32_t count, const bool *free_nodes,
                                  uint32_t nodes, uint32_t *out, insee_rng *rng, insee_error *err)
{
    (void)self;
    if (too_few(count, free_nodes, nodes, "random", err))
        return false;
    uint32_t *pool = malloc(sizeof *pool * (nodes + 1));
    if (!pool) {
        insee_error_set(err, INSEE_ERR_NOMEM, "random: out of memory");
        return false;
    }
    uint32_t n = 0;
    for (uint32_t v = 0; v < nodes; v++)
        if (free_nodes[v])
            pool[n++] = v;
    /* the first `count` draws of a Fisher-Yates shuffle */
    for (uint32_t i = 0; i < count; i++) {
        uint32_t j = i + insee_rng_below(rng, n - i);
        uint32_t t = pool[i];
        pool[i] = pool[j];
        pool[j] = t;
        out[i] = pool[i];
    }
    free(pool);
    return true;
}

static const insee_allocation_vtable random_alloc_vtable = {
    .size = sizeof(insee_allocation_vtable),
    .create = random_alloc_create,
    .destroy = sched_destroy,
    .allocate = random_alloc_allocate,
};

static const insee_plugin_desc random_alloc_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_ALLOCATION,
    .name = "random",
    .version = "1.0.0",
    .summary = "free nodes drawn at random from the experiment's seed",
    .reference = "INRFlow §3.4",
    .params = NULL,
    .vtable = &random_alloc_vtable,
};

INSEE_PLUGIN_DEFINE(random_alloc_desc)
