/* uniform.c — uniform random traffic from independent Bernoulli sources
 * (INSEE §3.2.1): every task sends one-packet messages with probability
 * load/L per cycle (L = packet length in phits), each to a task drawn
 * uniformly among the others (or among all, with self = true).
 *
 * A source draws the cycle of its next packet (a geometric gap) instead of
 * a die per cycle, so an idle task costs nothing between packets; that
 * timing is ../common/bernoulli.c, shared with the other patterns. */
#include "bernoulli.h"

#include <stdlib.h>

enum { P_LOAD, P_SELF };

static const insee_param_def uniform_params[] = {
    [P_LOAD] = TRAFFIC_LOAD_PARAM,
    [P_SELF] = {"self", INSEE_PARAM_BOOL, "false", 1, 0, NULL, NULL,
                "a task may draw itself as destination (INSEE never does)"},
    {0},
};

typedef struct uniform {
    traffic_bernoulli rate;
    uint32_t tasks;
    bool self;
} uniform;

static void *uniform_create(const insee_host *host, const insee_value *params, insee_error *err)
{
    insee_shape shape;
    host->shape(host->kernel, &shape);
    double load = params[P_LOAD].d;
    bool self = params[P_SELF].b;
    traffic_bernoulli rate;
    if (!traffic_bernoulli_init(&rate, "uniform", &shape, load, err))
        return NULL;
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
        .rate = rate,
        .tasks = shape.tasks,
        .self = self,
    };
    return u;
}

static void uniform_destroy(void *self)
{
    free(self);
}

static uint64_t uniform_start(void *vself, uint32_t task, insee_rng *rng)
{
    (void)task;
    const uniform *u = vself;
    return traffic_bernoulli_start(&u->rate, rng);
}

static bool uniform_emit(void *vself, uint32_t task, uint64_t now, insee_rng *rng,
                         insee_message *msg, uint64_t *next)
{
    const uniform *u = vself;
    uint32_t dst =
        u->self ? insee_rng_below(rng, u->tasks) : traffic_other_task(rng, u->tasks, task);
    *msg = (insee_message){.dst = dst, .packets = 1, .tag = 0};
    *next = traffic_bernoulli_next(&u->rate, now, rng);
    return true;
}

static double uniform_offered_load(void *vself)
{
    const uniform *u = vself;
    return u->rate.load;
}

static const insee_traffic_vtable uniform_vtable = {
    .size = sizeof(insee_traffic_vtable),
    .create = uniform_create,
    .destroy = uniform_destroy,
    .start = uniform_start,
    .emit = uniform_emit,
    .offered_load = uniform_offered_load,
};

static const insee_plugin_desc uniform_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_TRAFFIC,
    .name = "uniform",
    .version = "1.0.0",
    .summary = "uniform random destinations, Bernoulli sources at a given load",
    .reference = "INSEE §3.2.1",
    .params = uniform_params,
    .vtable = &uniform_vtable,
};

INSEE_PLUGIN_DEFINE(uniform_desc)
