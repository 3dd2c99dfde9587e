/* uniform.c — uniform random traffic from independent sources (INSEE
 * §3.2.1): every task sends messages at the offered load, each to a task
 * drawn uniformly among the others (or among all, with self = true).
 *
 * When a task sends and how long its messages are is ../common/source.c,
 * shared with the other patterns: by default one-packet messages with
 * probability load/L per cycle (L = packet length in phits), drawn as
 * geometric gaps so an idle task costs nothing between packets. */
#include "source.h"

#include <stdlib.h>

enum { P_LOAD, P_SELF, P_SOURCE };

static const insee_param_def uniform_params[] = {
    [P_LOAD] = TRAFFIC_LOAD_PARAM,
    [P_SELF] = {"self", INSEE_PARAM_BOOL, "false", 1, 0, NULL, NULL,
                "a task may draw itself as destination (INSEE never does)"},
    TRAFFIC_SOURCE_PARAMS,
    {0},
};

typedef struct uniform {
    traffic_source *source;
    uint32_t tasks;
    bool self;
} uniform;

static void *uniform_create(const insee_host *host, const insee_value *params, insee_error *err)
{
    insee_shape shape;
    host->shape(host->kernel, &shape);
    double load = params[P_LOAD].d;
    bool self = params[P_SELF].b;
    if (load > 0 && shape.tasks < (self ? 1u : 2u)) {
        insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                        "uniform: %u task(s) leave no destination other than the source; "
                        "use at least 2 tasks, or self = true",
                        shape.tasks);
        return NULL;
    }
    uniform *u = malloc(sizeof *u);
    if (!u) {
        insee_error_set(err, INSEE_ERR_NOMEM, "uniform: out of memory");
        return NULL;
    }
    *u = (uniform){
        .source = traffic_source_create("uniform", host, load, params + P_SOURCE, err),
        .tasks = shape.tasks,
        .self = self,
    };
    if (!u->source) {
        free(u);
        return NULL;
    }
    return u;
}

static void uniform_destroy(void *vself)
{
    uniform *u = vself;
    traffic_source_destroy(u->source);
    free(u);
}

static uint64_t uniform_start(void *vself, uint32_t task, insee_rng *rng)
{
    uniform *u = vself;
    return traffic_source_start(u->source, task, rng);
}

static void uniform_draw(const uniform *u, uint32_t task, insee_rng *rng, insee_message *msg)
{
    uint32_t dst =
        u->self ? insee_rng_below(rng, u->tasks) : traffic_other_task(rng, u->tasks, task);
    traffic_source_message(u->source, dst, rng, msg);
}

static bool uniform_emit(void *vself, uint32_t task, uint64_t now, insee_rng *rng,
                         insee_message *msg, uint64_t *next)
{
    uniform *u = vself;
    uniform_draw(u, task, rng, msg);
    *next = traffic_source_next(u->source, task, now, rng);
    return true;
}

/* A round: one message per task, as INRFlow's random pattern sends one flow
   per node and round. */
static void uniform_round(void *vself, uint32_t task, insee_rng *rng,
                          void (*add)(void *ctx, const insee_message *msg), void *ctx)
{
    const uniform *u = vself;
    if (u->tasks >= (u->self ? 1u : 2u)) {
        insee_message msg;
        uniform_draw(u, task, rng, &msg);
        add(ctx, &msg);
    }
}

static double uniform_offered_load(void *vself)
{
    const uniform *u = vself;
    return traffic_source_load(u->source);
}

static const insee_traffic_vtable uniform_vtable = {
    .size = sizeof(insee_traffic_vtable),
    .create = uniform_create,
    .destroy = uniform_destroy,
    .start = uniform_start,
    .emit = uniform_emit,
    .offered_load = uniform_offered_load,
    .round = uniform_round,
};

static const insee_plugin_desc uniform_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_TRAFFIC,
    .name = "uniform",
    .version = "1.1.0",
    .summary = "uniform random destinations, sources at a given load (Bernoulli or on/off, message "
               "lengths fixed or drawn)",
    .reference = "INSEE §3.2.1",
    .params = uniform_params,
    .vtable = &uniform_vtable,
};

INSEE_PLUGIN_DEFINE(uniform_desc)
