/* local.c — local (LO) traffic from independent Bernoulli sources (INSEE
 * §3.2.1) on a k-ary n-cube: the destination moves away from the source by
 * an offset drawn per dimension, small offsets being the most likely, so
 * most packets go to nearby nodes; load/L packets per cycle (the timing of
 * ../common/bernoulli.c).
 *
 * Per dimension, as INSEE's code draws it: with probability 1/2 an offset
 * in [-1, 1], 1/4 one of ±2..3, 1/8 one of ±4..7, else a coordinate
 * anywhere on the ring; the move wraps mod k. A draw that lands on the
 * source is drawn again, whole.
 */
#include "hot.h"
#include "source.h"

#include <stdlib.h>

enum { P_LOAD, P_SOURCE };

static const insee_param_def local_params[] = {
    [P_LOAD] = TRAFFIC_LOAD_PARAM,
    TRAFFIC_SOURCE_PARAMS,
    {0},
};

typedef struct local {
    traffic_source *source;
    traffic_grid *grid;
} local;

static void local_destroy(void *vself)
{
    local *l = vself;
    traffic_grid_destroy(l->grid);
    traffic_source_destroy(l->source);
    free(l);
}

static void *local_create(const insee_host *host, const insee_value *params, insee_error *err)
{
    insee_shape shape;
    host->shape(host->kernel, &shape);
    if (params[P_LOAD].d > 0 && shape.tasks < 2) {
        insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                        "local: %u task(s) leave no destination other than the source; "
                        "use at least 2 tasks",
                        shape.tasks);
        return NULL;
    }
    local *l = malloc(sizeof *l);
    if (!l) {
        insee_error_set(err, INSEE_ERR_NOMEM, "local: out of memory");
        return NULL;
    }
    *l = (local){
        .source = traffic_source_create("local", host, params[P_LOAD].d, params + P_SOURCE, err),
    };
    if (l->source)
        l->grid = traffic_grid_create("local", host, err);
    if (!l->grid) {
        local_destroy(l);
        return NULL;
    }
    return l;
}

static uint64_t local_start(void *vself, uint32_t task, insee_rng *rng)
{
    local *l = vself;
    return traffic_source_start(l->source, task, rng);
}

static bool local_emit(void *vself, uint32_t task, uint64_t now, insee_rng *rng,
                       insee_message *msg, uint64_t *next)
{
    const local *l = vself;
    uint32_t dst = traffic_local_dst(l->grid, rng, task); /* 2 tasks or more: a ring of k >= 2 */
    traffic_source_message(l->source, dst, rng, msg);
    *next = traffic_source_next(l->source, task, now, rng);
    return true;
}

static double local_offered_load(void *vself)
{
    const local *l = vself;
    return traffic_source_load(l->source);
}

static const insee_traffic_vtable local_vtable = {
    .size = sizeof(insee_traffic_vtable),
    .create = local_create,
    .destroy = local_destroy,
    .start = local_start,
    .emit = local_emit,
    .offered_load = local_offered_load,
};

static const insee_plugin_desc local_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_TRAFFIC,
    .name = "local",
    .version = "1.1.0",
    .summary = "destinations near the source (per dimension offsets of 1, 2-3, 4-7 or anywhere, "
               "halving in probability), Bernoulli sources at a given load",
    .reference = "INSEE §3.2.1",
    .params = local_params,
    .vtable = &local_vtable,
};

INSEE_PLUGIN_DEFINE(local_desc)
