/* all-to-one.c — INRFlow's all-to-one pattern (§3.3.1): one root task,
 * chosen uniformly at random (or given), and every other task sends to it;
 * the root sends nothing. Finite (INRFlow's flows): `messages` messages from
 * each task to the root, the run lasting until all are delivered; or
 * open-ended at a load. The sets and both modes are ../common/flows.c.
 */
#include "flows.h"

enum { P_LOAD, P_MODE, P_MESSAGES, P_ROOT, P_SOURCE };

static const insee_param_def all_to_one_params[] = {
    [P_LOAD] = TRAFFIC_LOAD_PARAM,
    [P_MODE] = TRAFFIC_FLOWS_MODE_PARAMS,
    [P_ROOT] = {"root", INSEE_PARAM_INT, "-1", -1, 4294967294.0, NULL, NULL,
                "the task every other sends to; -1: one drawn uniformly at random"},
    TRAFFIC_SOURCE_PARAMS,
    {0},
};

static void *all_to_one_create(const insee_host *host, const insee_value *params,
                               insee_error *err)
{
    insee_shape shape;
    host->shape(host->kernel, &shape);
    int64_t root = params[P_ROOT].i;
    if (root >= (int64_t)shape.tasks) {
        insee_error_set(err, INSEE_ERR_PARAM,
                        "all-to-one: root = %lld, but the tasks are 0 .. %u; choose one of "
                        "them, or -1 for a random root",
                        (long long)root, shape.tasks - 1);
        return NULL;
    }
    traffic_flows *f = traffic_flows_create("all-to-one", host, params, P_SOURCE, err);
    if (!f)
        return NULL;
    if (root < 0) {
        insee_rng rng;
        host->rng_seed(host->kernel, 0, &rng);
        root = insee_rng_below(&rng, shape.tasks);
    }
    /* The identity order: the root's position is its number. */
    for (uint32_t t = 0; t < shape.tasks; t++)
        traffic_flows_set(f, t, (uint32_t)root, (uint32_t)root + 1);
    return traffic_flows_finish(f, host, err);
}

static const insee_traffic_vtable all_to_one_vtable = TRAFFIC_FLOWS_VTABLE(all_to_one_create);

static const insee_plugin_desc all_to_one_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_TRAFFIC,
    .name = "all-to-one",
    .version = "1.0.0",
    .summary = "every task sends to one root task: a finite set of flows run to completion, or "
               "open-ended at a load",
    .reference = "INRFlow §3.3.1",
    .params = all_to_one_params,
    .vtable = &all_to_one_vtable,
};

INSEE_PLUGIN_DEFINE(all_to_one_desc)
