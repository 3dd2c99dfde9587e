/* easy.c — EASY, aggressive backfilling (Lifka 1995; INRFlow §3.4): jobs
 * start in arrival order while they fit; the first that does not fit gets a
 * reservation at the earliest time the running jobs' estimated ends free its
 * nodes; a later job starts now when it fits and does not touch the
 * reservation: it ends (by its estimate) before the reservation, or uses only
 * nodes the head will not need. Later jobs get no reservation. */
#include <insee/insee.h>

#include <stdlib.h>

#include "../common/instance.h"
#include "../jobs-common/profile.h"

static void *easy_create(const insee_host *host, const insee_value *params, insee_error *err)
{
    (void)params; /* no parameters */
    return sched_plain_create(host, "easy", err);
}

static uint32_t easy_select(void *self, double now, uint32_t free_nodes, uint32_t nodes,
                           const insee_job *queue, uint32_t queued,
                           const insee_running_job *running, uint32_t n_running, uint32_t *start)
{
    (void)self;
    (void)nodes;
    return profile_backfill(now, free_nodes, queue, queued, running, n_running, 1, start);
}

static const insee_selection_vtable easy_vtable = {
    .size = sizeof(insee_selection_vtable),
    .create = easy_create,
    .destroy = sched_destroy,
    .select = easy_select,
};

static const insee_plugin_desc easy_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_SELECTION,
    .name = "easy",
    .version = "1.0.0",
    .summary = "EASY (aggressive) backfilling: the head holds a reservation, later jobs start when they do not delay it",
    .reference = "INRFlow §3.4",
    .params = NULL,
    .vtable = &easy_vtable,
};

INSEE_PLUGIN_DEFINE(easy_desc)
