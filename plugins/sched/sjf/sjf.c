/* sjf.c — shortest job first (INRFlow §3.4): the queue in order of
 * estimated run time (a job without an estimate last, ties in arrival
 * order), started while each fits the free nodes; the first that does not
 * fit stops the queue. */
#include <insee/insee.h>

#include <stdlib.h>

#include "../common/instance.h"
#include "../jobs-common/in_order.h"

static void *sjf_create(const insee_host *host, const insee_value *params, insee_error *err)
{
    (void)params; /* no parameters */
    return sched_plain_create(host, "sjf", err);
}

/* Insertion by estimate, stable: the queue is short and arrives in order. */
static uint32_t sjf_select(void *self, double now, uint32_t free_nodes, uint32_t nodes,
                           const insee_job *queue, uint32_t queued,
                           const insee_running_job *running, uint32_t n_running, uint32_t *start)
{
    (void)self;
    (void)now;
    (void)nodes;
    (void)running;
    (void)n_running;
    uint32_t *order = malloc(sizeof *order * (queued + 1));
    if (!order)
        return 0;
    for (uint32_t q = 0; q < queued; q++) {
        uint32_t i = q;
        while (i > 0 && queue[order[i - 1]].estimate > queue[q].estimate) {
            order[i] = order[i - 1];
            i--;
        }
        order[i] = q;
    }
    uint32_t n = start_in_order(queue, order, queued, free_nodes, start);
    free(order);
    return n;
}

static const insee_selection_vtable sjf_vtable = {
    .size = sizeof(insee_selection_vtable),
    .create = sjf_create,
    .destroy = sched_destroy,
    .select = sjf_select,
};

static const insee_plugin_desc sjf_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_SELECTION,
    .name = "sjf",
    .version = "1.0.0",
    .summary = "shortest job first: the queue by estimated run time, blocked by the first that does not fit",
    .reference = "INRFlow §3.4",
    .params = NULL,
    .vtable = &sjf_vtable,
};

INSEE_PLUGIN_DEFINE(sjf_desc)
