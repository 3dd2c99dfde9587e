/* uniform.c — uniform random traffic from independent Bernoulli sources
 * (INSEE §3.2.1): every task sends one-packet messages with probability
 * load/L per cycle (L = packet length in phits), each to a task drawn
 * uniformly among the others (or among all, with self = true).
 *
 * A source draws the cycle of its next packet (a geometric gap) instead of
 * a die per cycle, so an idle task costs nothing between packets. */
#include <insee/insee.h>

#include <stdlib.h>

enum { P_LOAD, P_SELF };

static const insee_param_def uniform_params[] = {
    [P_LOAD] = {"load", INSEE_PARAM_DOUBLE, "0.1", 0.0, 1.0, NULL, "phits/node/cycle",
                "offered load per node; a packet starts with probability load/L per cycle"},
    [P_SELF] = {"self", INSEE_PARAM_BOOL, "false", 1, 0, NULL, NULL,
                "a task may draw itself as destination (INSEE never does)"},
    {0},
};

typedef struct uniform {
    double load;    /* phits/node/cycle */
    double p;       /* packets per task per cycle: load / L */
    uint32_t tasks;
    bool self;
} uniform;

static void *uniform_create(const insee_host *host, const insee_value *params, insee_error *err)
{
    insee_shape shape;
    host->shape(host->kernel, &shape);
    double load = params[P_LOAD].d;
    bool self = params[P_SELF].b;
    if (shape.packet_phits == 0) {
        insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                        "uniform: the packet length is 0 phits; set packet_phits >= 1 "
                        "in [simulation]");
        return NULL;
    }
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
        .load = load,
        .p = load / shape.packet_phits,
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
    if (u->p <= 0)
        return INSEE_NEVER;
    return insee_rng_geometric(rng, u->p); /* failures before the first success */
}

static bool uniform_emit(void *vself, uint32_t task, uint64_t now, insee_rng *rng,
                         insee_message *msg, uint64_t *next)
{
    const uniform *u = vself;
    uint32_t dst;
    if (u->self) {
        dst = insee_rng_below(rng, u->tasks);
    } else {
        /* Uniform over the other tasks: draw among tasks-1 and step over the source. */
        dst = insee_rng_below(rng, u->tasks - 1);
        dst += dst >= task;
    }
    *msg = (insee_message){.dst = dst, .packets = 1, .tag = 0};
    *next = now + 1 + insee_rng_geometric(rng, u->p);
    return true;
}

static double uniform_offered_load(void *vself)
{
    const uniform *u = vself;
    return u->load;
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
