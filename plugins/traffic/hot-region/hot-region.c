/* hot-region.c — hot-region (HR) traffic from independent Bernoulli sources
 * (INSEE §3.2.1): a fraction of every task's packets goes to a task of the
 * hot region (the first tasks), the rest uniformly to the other tasks, at
 * load/L packets per cycle (the timing of ../common/bernoulli.c). INSEE's
 * default: 25 % to the first eighth of the nodes.
 */
#include "hot.h"
#include "source.h"

#include <stdlib.h>

enum { P_LOAD, P_FRACTION, P_REGION, P_SOURCE };

static const insee_param_def hot_region_params[] = {
    [P_LOAD] = TRAFFIC_LOAD_PARAM,
    [P_FRACTION] = {"fraction", INSEE_PARAM_DOUBLE, "0.25", 0.0, 1.0, NULL, NULL,
                    "fraction of each task's packets sent into the hot region"},
    [P_REGION] = {"region", INSEE_PARAM_DOUBLE, "0.125", 0.0, 1.0, NULL, NULL,
                  "the hot region: the first floor(region x tasks) tasks, at least one"},
    TRAFFIC_SOURCE_PARAMS,
    {0},
};

typedef struct hot_region {
    traffic_source *source;
    double fraction;
    uint32_t region; /* tasks 0 .. region-1 are hot */
    uint32_t tasks;
} hot_region;

static void *hot_region_create(const insee_host *host, const insee_value *params,
                               insee_error *err)
{
    insee_shape shape;
    host->shape(host->kernel, &shape);
    if (params[P_LOAD].d > 0 && shape.tasks < 2) {
        insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                        "hot-region: %u task(s) leave no destination other than the source; "
                        "use at least 2 tasks",
                        shape.tasks);
        return NULL;
    }
    hot_region *h = malloc(sizeof *h);
    if (!h) {
        insee_error_set(err, INSEE_ERR_NOMEM, "hot-region: out of memory");
        return NULL;
    }
    *h = (hot_region){
        .source = traffic_source_create("hot-region", host, params[P_LOAD].d, params + P_SOURCE,
                                        err),
        .fraction = params[P_FRACTION].d,
        .region = traffic_hot_region_size(params[P_REGION].d, shape.tasks),
        .tasks = shape.tasks,
    };
    if (!h->source) {
        free(h);
        return NULL;
    }
    return h;
}

static void hot_region_destroy(void *vself)
{
    hot_region *h = vself;
    traffic_source_destroy(h->source);
    free(h);
}

static uint64_t hot_region_start(void *vself, uint32_t task, insee_rng *rng)
{
    hot_region *h = vself;
    return traffic_source_start(h->source, task, rng);
}

static void hot_region_draw(const hot_region *h, uint32_t task, insee_rng *rng,
                            insee_message *msg)
{
    uint32_t dst = traffic_hot_region_dst(rng, h->tasks, task, h->region, h->fraction);
    traffic_source_message(h->source, dst, rng, msg);
}

static bool hot_region_emit(void *vself, uint32_t task, uint64_t now, insee_rng *rng,
                            insee_message *msg, uint64_t *next)
{
    hot_region *h = vself;
    hot_region_draw(h, task, rng, msg);
    *next = traffic_source_next(h->source, task, now, rng);
    return true;
}

/* A round: one message per task, drawn as emit() draws (INRFlow's
   hotregion_F is F rounds). */
static void hot_region_round(void *vself, uint32_t task, insee_rng *rng,
                             void (*add)(void *ctx, const insee_message *msg), void *ctx)
{
    const hot_region *h = vself;
    if (h->tasks < 2)
        return; /* no destination but itself */
    insee_message msg;
    hot_region_draw(h, task, rng, &msg);
    add(ctx, &msg);
}

static double hot_region_offered_load(void *vself)
{
    const hot_region *h = vself;
    return traffic_source_load(h->source);
}

static const insee_traffic_vtable hot_region_vtable = {
    .size = sizeof(insee_traffic_vtable),
    .create = hot_region_create,
    .destroy = hot_region_destroy,
    .start = hot_region_start,
    .emit = hot_region_emit,
    .offered_load = hot_region_offered_load,
    .round = hot_region_round,
};

static const insee_plugin_desc hot_region_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_TRAFFIC,
    .name = "hot-region",
    .version = "1.1.0",
    .summary = "a fraction of the packets to the first nodes (the hot region), the rest uniform, "
               "Bernoulli sources at a given load",
    .reference = "INSEE §3.2.1",
    .params = hot_region_params,
    .vtable = &hot_region_vtable,
};

INSEE_PLUGIN_DEFINE(hot_region_desc)
