/* hotspot.c — hot-spot (HS) traffic from independent Bernoulli sources
 * (INSEE §3.2.1): a fraction of every task's packets goes to one hot task,
 * the rest uniformly to the other tasks, at load/L packets per cycle (the
 * timing of ../common/bernoulli.c). INSEE's default: 2 % to node 0.
 */
#include "hot.h"
#include "source.h"

#include <stdlib.h>

enum { P_LOAD, P_FRACTION, P_NODE, P_SOURCE };

static const insee_param_def hotspot_params[] = {
    [P_LOAD] = TRAFFIC_LOAD_PARAM,
    [P_FRACTION] = {"fraction", INSEE_PARAM_DOUBLE, "0.02", 0.0, 1.0, NULL, NULL,
                    "fraction of each task's packets sent to the hot task"},
    [P_NODE] = {"node", INSEE_PARAM_INT, "0", 0, 4294967294.0, NULL, NULL,
                "the hot task (with the consecutive placement, the hot node)"},
    TRAFFIC_SOURCE_PARAMS,
    {0},
};

typedef struct hotspot {
    traffic_source *source;
    double fraction;
    uint32_t node;
    uint32_t tasks;
} hotspot;

static void *hotspot_create(const insee_host *host, const insee_value *params, insee_error *err)
{
    insee_shape shape;
    host->shape(host->kernel, &shape);
    if (params[P_NODE].i >= shape.tasks) {
        insee_error_set(err, INSEE_ERR_PARAM,
                        "hotspot: node = %lld, but the tasks are 0 .. %u; choose one of them",
                        (long long)params[P_NODE].i, shape.tasks - 1);
        return NULL;
    }
    if (params[P_LOAD].d > 0 && shape.tasks < 2) {
        insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                        "hotspot: %u task(s) leave no destination other than the source; "
                        "use at least 2 tasks",
                        shape.tasks);
        return NULL;
    }
    hotspot *h = malloc(sizeof *h);
    if (!h) {
        insee_error_set(err, INSEE_ERR_NOMEM, "hotspot: out of memory");
        return NULL;
    }
    *h = (hotspot){
        .source = traffic_source_create("hotspot", host, params[P_LOAD].d, params + P_SOURCE,
                                        err),
        .fraction = params[P_FRACTION].d,
        .node = (uint32_t)params[P_NODE].i,
        .tasks = shape.tasks,
    };
    if (!h->source) {
        free(h);
        return NULL;
    }
    return h;
}

static void hotspot_destroy(void *vself)
{
    hotspot *h = vself;
    traffic_source_destroy(h->source);
    free(h);
}

static uint64_t hotspot_start(void *vself, uint32_t task, insee_rng *rng)
{
    hotspot *h = vself;
    return traffic_source_start(h->source, task, rng);
}

static bool hotspot_emit(void *vself, uint32_t task, uint64_t now, insee_rng *rng,
                         insee_message *msg, uint64_t *next)
{
    const hotspot *h = vself;
    uint32_t dst = traffic_hotspot_dst(rng, h->tasks, task, h->node, h->fraction);
    traffic_source_message(h->source, dst, rng, msg);
    *next = traffic_source_next(h->source, task, now, rng);
    return true;
}

static double hotspot_offered_load(void *vself)
{
    const hotspot *h = vself;
    return traffic_source_load(h->source);
}

static const insee_traffic_vtable hotspot_vtable = {
    .size = sizeof(insee_traffic_vtable),
    .create = hotspot_create,
    .destroy = hotspot_destroy,
    .start = hotspot_start,
    .emit = hotspot_emit,
    .offered_load = hotspot_offered_load,
};

static const insee_plugin_desc hotspot_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_TRAFFIC,
    .name = "hotspot",
    .version = "1.1.0",
    .summary = "a fraction of the packets to one hot node, the rest uniform, Bernoulli sources "
               "at a given load",
    .reference = "INSEE §3.2.1",
    .params = hotspot_params,
    .vtable = &hotspot_vtable,
};

INSEE_PLUGIN_DEFINE(hotspot_desc)
