/* bisection.c — INRFlow's bisection pattern (§3.3.1): the tasks are split
 * into two halves (uniformly at random, or the first and the second half
 * by number) and every task sends to every task of the other half. With N
 * odd the halves hold floor(N/2) and ceil(N/2) tasks. Finite (INRFlow's
 * flows): `messages` messages to each task of the other half, the run
 * lasting until all are delivered; or open-ended at a load, each message
 * to a task of the other half drawn uniformly. The sets and both modes are
 * ../common/flows.c.
 */
#include "flows.h"

enum { P_LOAD, P_MODE, P_MESSAGES, P_PARTITION, P_SOURCE };

static const insee_param_def bisection_params[] = {
    [P_LOAD] = TRAFFIC_LOAD_PARAM,
    [P_MODE] = TRAFFIC_FLOWS_MODE_PARAMS,
    [P_PARTITION] = TRAFFIC_FLOWS_PARTITION_PARAM,
    TRAFFIC_SOURCE_PARAMS,
    {0},
};

static void *bisection_create(const insee_host *host, const insee_value *params,
                              insee_error *err)
{
    insee_shape shape;
    host->shape(host->kernel, &shape);
    if (shape.tasks < 2) {
        insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                        "bisection: %u task leaves the other half empty; use at least 2 tasks",
                        shape.tasks);
        return NULL;
    }
    traffic_flows *f = traffic_flows_create("bisection", host, params, P_SOURCE, err);
    if (!f)
        return NULL;
    if (params[P_PARTITION].i == 0)
        traffic_flows_shuffle(f, host, 0);
    uint32_t half = shape.tasks / 2;
    for (uint32_t at = 0; at < shape.tasks; at++) {
        uint32_t t = traffic_flows_at(f, at);
        if (at < half)
            traffic_flows_set(f, t, half, shape.tasks);
        else
            traffic_flows_set(f, t, 0, half);
    }
    return traffic_flows_finish(f, host, err);
}

static const insee_traffic_vtable bisection_vtable = TRAFFIC_FLOWS_VTABLE(bisection_create);

static const insee_plugin_desc bisection_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_TRAFFIC,
    .name = "bisection",
    .version = "1.0.0",
    .summary = "two halves, every task sending to every task of the other: a finite set of "
               "flows run to completion, or open-ended at a load",
    .reference = "INRFlow §3.3.1",
    .params = bisection_params,
    .vtable = &bisection_vtable,
};

INSEE_PLUGIN_DEFINE(bisection_desc)
