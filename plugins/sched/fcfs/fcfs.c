/* fcfs.c — first come, first served selection (INRFlow §3.4): the jobs
 * start in arrival order while each fits the free nodes; the first that does
 * not fit stops the queue, however many nodes the jobs behind it need. */
#include <insee/insee.h>

#include <stdlib.h>

#include "../common/instance.h"
#include "../jobs-common/in_order.h"

static void *fcfs_create(const insee_host *host, const insee_value *params, insee_error *err)
{
    (void)params; /* no parameters */
    return sched_plain_create(host, "fcfs", err);
}

static uint32_t fcfs_select(void *self, double now, uint32_t free_nodes, uint32_t nodes,
                            const insee_job *queue, uint32_t queued,
                            const insee_running_job *running, uint32_t n_running, uint32_t *start)
{
    (void)self;
    (void)now;
    (void)nodes;
    (void)running;
    (void)n_running;
    return start_in_order(queue, NULL, queued, free_nodes, start);
}

static const insee_selection_vtable fcfs_vtable = {
    .size = sizeof(insee_selection_vtable),
    .create = fcfs_create,
    .destroy = sched_destroy,
    .select = fcfs_select,
};

static const insee_plugin_desc fcfs_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_SELECTION,
    .name = "fcfs",
    .version = "1.0.0",
    .summary = "first come, first served: the queue in arrival order, blocked by a head that does not fit",
    .reference = "INRFlow §3.4",
    .params = NULL,
    .vtable = &fcfs_vtable,
};

INSEE_PLUGIN_DEFINE(fcfs_desc)
