/* sequential.c — INSEE's distribution patterns (§3.2.1, Table 1): every
 * task sends its messages to each of the other tasks in turn, in order of
 * number and wrapping. SD starts at the next task (task t sends to t+1,
 * t+2, ..., N-1, 0, ..., t-1, then again); RD starts at a task drawn
 * uniformly among the others and goes on in the same order. The tasks send
 * at the offered load with the process and lengths of ../common/source.c;
 * the turn is ../common/flows.c.
 */
#include "flows.h"

enum { P_LOAD, P_START, P_SOURCE };

static const insee_param_def sequential_params[] = {
    [P_LOAD] = TRAFFIC_LOAD_PARAM,
    [P_START] = {"start", INSEE_PARAM_ENUM, "\"next\"", 1, 0, "next|random", NULL,
                 "the first destination: the next task (SD) or a random other task (RD)"},
    TRAFFIC_SOURCE_PARAMS,
    {0},
};

static void *sequential_create(const insee_host *host, const insee_value *params,
                               insee_error *err)
{
    insee_shape shape;
    host->shape(host->kernel, &shape);
    if (params[P_LOAD].d > 0 && shape.tasks < 2) {
        insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                        "sequential: %u task(s) leave no destination other than the source; "
                        "use at least 2 tasks",
                        shape.tasks);
        return NULL;
    }
    traffic_flows_pick pick =
        params[P_START].i == 0 ? TRAFFIC_FLOWS_NEXT : TRAFFIC_FLOWS_RANDOM_START;
    traffic_flows *f = traffic_flows_new("sequential", host, params[P_LOAD].d, false, 0, pick,
                                         params + P_SOURCE, err);
    if (!f)
        return NULL;
    for (uint32_t t = 0; t < shape.tasks; t++)
        traffic_flows_set(f, t, 0, shape.tasks);
    return traffic_flows_finish(f, host, err);
}

static const insee_traffic_vtable sequential_vtable = TRAFFIC_FLOWS_OPEN_VTABLE(sequential_create);

static const insee_plugin_desc sequential_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_TRAFFIC,
    .name = "sequential",
    .version = "1.0.0",
    .summary = "each task sends to every other in turn, from the next (SD) or a random one (RD), "
               "sources at a given load",
    .reference = "INSEE §3.2.1, Table 1",
    .params = sequential_params,
    .vtable = &sequential_vtable,
};

INSEE_PLUGIN_DEFINE(sequential_desc)
