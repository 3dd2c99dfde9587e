/* conservative.c — conservative backfilling (Mu'alem and Feitelson 2001;
 * INRFlow §3.4 names it, its code has none): every queued job, in queue
 * order, gets a reservation at the earliest time the running jobs'
 * estimated ends and the earlier reservations leave its nodes free for its
 * estimated run time; the jobs whose reservation is now start. No job ever
 * delays an earlier one's reservation. */
#include <insee/insee.h>

#include <stdlib.h>

#include "../common/instance.h"
#include "../jobs-common/profile.h"

static void *conservative_create(const insee_host *host, const insee_value *params, insee_error *err)
{
    (void)params; /* no parameters */
    return sched_plain_create(host, "conservative", err);
}

static uint32_t conservative_select(void *self, double now, uint32_t free_nodes, uint32_t nodes,
                           const insee_job *queue, uint32_t queued,
                           const insee_running_job *running, uint32_t n_running, uint32_t *start)
{
    (void)self;
    (void)nodes;
    return profile_backfill(now, free_nodes, queue, queued, running, n_running, UINT32_MAX, start);
}

static const insee_selection_vtable conservative_vtable = {
    .size = sizeof(insee_selection_vtable),
    .create = conservative_create,
    .destroy = sched_destroy,
    .select = conservative_select,
};

static const insee_plugin_desc conservative_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_SELECTION,
    .name = "conservative",
    .version = "1.0.0",
    .summary = "conservative backfilling: every queued job holds a reservation in queue order; a job starts early only when it delays none",
    .reference = "INRFlow §3.4",
    .params = NULL,
    .vtable = &conservative_vtable,
};

INSEE_PLUGIN_DEFINE(conservative_desc)
