/* permutation.c — permutation traffic from independent sources (INSEE
 * §3.2.1, Table 2): every task sends all its messages to one fixed
 * destination, its image under the chosen permutation, at the offered load
 * (the process and lengths of ../common/source.c; by default one-packet
 * messages at load/L per cycle).
 *
 * The destinations are ../common/perm.c (shared with `bursts`): Table 2's
 * bit permutations, tornado, shift, and a random nearest neighbour per
 * packet. A task with no destination (its own image) sends nothing: its
 * start() is INSEE_NEVER. The bit permutations need a power-of-two number
 * of tasks; create() refuses any other.
 */
#include "perm.h"
#include "source.h"

#include <stdlib.h>

enum { P_LOAD, P_PATTERN, P_OFFSET, P_TORNADO, P_SOURCE };

static const insee_param_def permutation_params[] = {
    [P_LOAD] = TRAFFIC_LOAD_PARAM,
    [P_PATTERN] = {"pattern", INSEE_PARAM_ENUM, "\"bit-complement\"", 1, 0,
                   TRAFFIC_PERM_CHOICES, NULL,
                   "the destination of each task (INSEE Table 2, plus shift and neighbour)"},
    [P_OFFSET] = TRAFFIC_PERM_OFFSET_PARAM,
    [P_TORNADO] = TRAFFIC_PERM_TORNADO_PARAM,
    TRAFFIC_SOURCE_PARAMS,
    {0},
};

typedef struct permutation {
    traffic_source *source;
    double offered; /* load averaged over every task, silent ones included */
    traffic_perm *perm;
} permutation;

static void permutation_destroy(void *vself)
{
    permutation *p = vself;
    traffic_perm_destroy(p->perm);
    traffic_source_destroy(p->source);
    free(p);
}

static void *permutation_create(const insee_host *host, const insee_value *params,
                                insee_error *err)
{
    insee_shape shape;
    host->shape(host->kernel, &shape);
    permutation *p = calloc(1, sizeof *p);
    if (!p) {
        insee_error_set(err, INSEE_ERR_NOMEM, "permutation: out of memory");
        return NULL;
    }
    p->source = traffic_source_create("permutation", host, params[P_LOAD].d,
                                      params + P_SOURCE, err);
    if (p->source)
        p->perm = traffic_perm_create("permutation", (traffic_perm_pattern)params[P_PATTERN].i,
                                      params[P_PATTERN].s, params[P_OFFSET].i,
                                      (traffic_perm_tornado)params[P_TORNADO].i, host, err);
    if (!p->perm) {
        permutation_destroy(p);
        return NULL;
    }
    /* What the network is offered per node, averaged over all of them: the
       measured load agrees with it, and the report shows the silent tasks. */
    p->offered = params[P_LOAD].d * traffic_perm_senders(p->perm) / shape.tasks;
    return p;
}

static uint64_t permutation_start(void *vself, uint32_t task, insee_rng *rng)
{
    permutation *p = vself;
    return traffic_perm_silent(p->perm, task) ? INSEE_NEVER
                                              : traffic_source_start(p->source, task, rng);
}

static void permutation_draw(const permutation *p, uint32_t task, insee_rng *rng,
                             insee_message *msg)
{
    uint32_t dst = traffic_perm_dst(p->perm, task, rng);
    traffic_source_message(p->source, dst, rng, msg);
}

static bool permutation_emit(void *vself, uint32_t task, uint64_t now, insee_rng *rng,
                             insee_message *msg, uint64_t *next)
{
    permutation *p = vself;
    permutation_draw(p, task, rng, msg);
    *next = traffic_source_next(p->source, task, now, rng);
    return true;
}

/* A round: each task's one message to its image; a silent task sends none. */
static void permutation_round(void *vself, uint32_t task, insee_rng *rng,
                              void (*add)(void *ctx, const insee_message *msg), void *ctx)
{
    const permutation *p = vself;
    if (traffic_perm_silent(p->perm, task))
        return;
    insee_message msg;
    permutation_draw(p, task, rng, &msg);
    add(ctx, &msg);
}

static double permutation_offered_load(void *vself)
{
    const permutation *p = vself;
    return p->offered;
}

static const insee_traffic_vtable permutation_vtable = {
    .size = sizeof(insee_traffic_vtable),
    .create = permutation_create,
    .destroy = permutation_destroy,
    .start = permutation_start,
    .emit = permutation_emit,
    .offered_load = permutation_offered_load,
    .round = permutation_round,
};

static const insee_plugin_desc permutation_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_TRAFFIC,
    .name = "permutation",
    .version = "1.1.0",
    .summary = "a fixed destination per task (bit permutations, tornado, shift) or a random "
               "nearest neighbour, sources at a given load",
    .reference = "INSEE §3.2.1, Table 2",
    .params = permutation_params,
    .vtable = &permutation_vtable,
};

INSEE_PLUGIN_DEFINE(permutation_desc)
