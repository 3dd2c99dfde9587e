/* many-all-to-all.c — INRFlow's many-all-to-all pattern (§3.3.1): the tasks
 * are split into groups of `group` tasks (uniformly at random, or by number;
 * the last group holds what is left, so every group has at most `group`
 * tasks) and each task sends to every other task of its group. A group of
 * one task sends nothing. Finite (INRFlow's flows): `messages` messages to
 * each other member, the run lasting until all are delivered; or
 * open-ended at a load, each message to a member drawn uniformly. The sets
 * and both modes are ../common/flows.c.
 */
#include "flows.h"

enum { P_LOAD, P_MODE, P_MESSAGES, P_GROUP, P_PARTITION, P_SOURCE };

static const insee_param_def many_params[] = {
    [P_LOAD] = TRAFFIC_LOAD_PARAM,
    [P_MODE] = TRAFFIC_FLOWS_MODE_PARAMS,
    [P_GROUP] = {"group", INSEE_PARAM_INT, "8", 2, 4294967295.0, NULL, "tasks",
                 "the size s of a group: tasks 0 .. s-1 of the partition's order, s .. 2s-1, ..."},
    [P_PARTITION] = TRAFFIC_FLOWS_PARTITION_PARAM,
    TRAFFIC_SOURCE_PARAMS,
    {0},
};

static void *many_create(const insee_host *host, const insee_value *params, insee_error *err)
{
    insee_shape shape;
    host->shape(host->kernel, &shape);
    traffic_flows *f = traffic_flows_create("many-all-to-all", host, params, P_SOURCE, err);
    if (!f)
        return NULL;
    if (params[P_PARTITION].i == 0)
        traffic_flows_shuffle(f, host, 0);
    uint64_t s = (uint64_t)params[P_GROUP].i;
    for (uint32_t at = 0; at < shape.tasks; at++) {
        uint64_t lo = at / s * s, hi = lo + s < shape.tasks ? lo + s : shape.tasks;
        traffic_flows_set(f, traffic_flows_at(f, at), (uint32_t)lo, (uint32_t)hi);
    }
    return traffic_flows_finish(f, host, err);
}

static const insee_traffic_vtable many_vtable = TRAFFIC_FLOWS_VTABLE(many_create);

static const insee_plugin_desc many_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_TRAFFIC,
    .name = "many-all-to-all",
    .version = "1.0.0",
    .summary = "all-to-all within groups of a given size: a finite set of flows run to "
               "completion, or open-ended at a load",
    .reference = "INRFlow §3.3.1",
    .params = many_params,
    .vtable = &many_vtable,
};

INSEE_PLUGIN_DEFINE(many_desc)
