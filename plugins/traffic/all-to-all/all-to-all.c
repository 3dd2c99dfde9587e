/* all-to-all.c — INRFlow's all-to-all pattern (§3.3.1): every task sends to
 * every other task. Finite (INRFlow's flows): `messages` messages to each
 * other task, in turn from the next one, and the run lasts until all are
 * delivered. Open-ended at a load: each message to a task drawn uniformly
 * among the others, which is `uniform`. The sets and both modes are
 * ../common/flows.c.
 */
#include "flows.h"

enum { P_LOAD, P_MODE, P_MESSAGES, P_SOURCE };

static const insee_param_def all_to_all_params[] = {
    [P_LOAD] = TRAFFIC_LOAD_PARAM,
    [P_MODE] = TRAFFIC_FLOWS_MODE_PARAMS,
    TRAFFIC_SOURCE_PARAMS,
    {0},
};

static void *all_to_all_create(const insee_host *host, const insee_value *params,
                               insee_error *err)
{
    traffic_flows *f = traffic_flows_create("all-to-all", host, params, P_SOURCE, err);
    if (!f)
        return NULL;
    insee_shape shape;
    host->shape(host->kernel, &shape);
    for (uint32_t t = 0; t < shape.tasks; t++)
        traffic_flows_set(f, t, 0, shape.tasks);
    return traffic_flows_finish(f, host, err);
}

static const insee_traffic_vtable all_to_all_vtable = TRAFFIC_FLOWS_VTABLE(all_to_all_create);

static const insee_plugin_desc all_to_all_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_TRAFFIC,
    .name = "all-to-all",
    .version = "1.0.0",
    .summary = "every task sends to every other: a finite set of flows run to completion, or "
               "open-ended at a load",
    .reference = "INRFlow §3.3.1",
    .params = all_to_all_params,
    .vtable = &all_to_all_vtable,
};

INSEE_PLUGIN_DEFINE(all_to_all_desc)
