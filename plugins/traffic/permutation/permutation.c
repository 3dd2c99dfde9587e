/* permutation.c — permutation traffic from independent Bernoulli sources
 * (INSEE §3.2.1, Table 2): every task sends all its packets to one fixed
 * destination, its image under the chosen permutation, at load/L packets
 * per cycle (the timing of ../common/bernoulli.c).
 *
 * The destinations are ../common/perm.c (shared with `bursts`): Table 2's
 * bit permutations, tornado, shift, and a random nearest neighbour per
 * packet. A task with no destination (its own image, or one >= N) sends
 * nothing: its start() is INSEE_NEVER.
 */
#include "bernoulli.h"
#include "perm.h"

#include <stdlib.h>

enum { P_LOAD, P_PATTERN, P_OFFSET };

static const insee_param_def permutation_params[] = {
    [P_LOAD] = TRAFFIC_LOAD_PARAM,
    [P_PATTERN] = {"pattern", INSEE_PARAM_ENUM, "\"bit-complement\"", 1, 0,
                   TRAFFIC_PERM_CHOICES, NULL,
                   "the destination of each task (INSEE Table 2, plus shift and neighbour)"},
    [P_OFFSET] = TRAFFIC_PERM_OFFSET_PARAM,
    {0},
};

typedef struct permutation {
    traffic_bernoulli rate;
    double offered; /* load averaged over every task, silent ones included */
    traffic_perm *perm;
} permutation;

static void permutation_destroy(void *vself)
{
    permutation *p = vself;
    traffic_perm_destroy(p->perm);
    free(p);
}

static void *permutation_create(const insee_host *host, const insee_value *params,
                                insee_error *err)
{
    insee_shape shape;
    host->shape(host->kernel, &shape);
    traffic_bernoulli rate;
    if (!traffic_bernoulli_init(&rate, "permutation", &shape, params[P_LOAD].d, err))
        return NULL;
    traffic_perm *perm =
        traffic_perm_create("permutation", (traffic_perm_pattern)params[P_PATTERN].i,
                            params[P_PATTERN].s, params[P_OFFSET].i, host, err);
    if (!perm)
        return NULL;
    permutation *p = malloc(sizeof *p);
    if (!p) {
        traffic_perm_destroy(perm);
        insee_error_set(err, INSEE_ERR_NOMEM, "permutation: out of memory");
        return NULL;
    }
    /* What the network is offered per node, averaged over all of them: the
       measured load agrees with it, and the report shows the silent tasks. */
    *p = (permutation){
        .rate = rate,
        .offered = rate.load * traffic_perm_senders(perm) / shape.tasks,
        .perm = perm,
    };
    return p;
}

static uint64_t permutation_start(void *vself, uint32_t task, insee_rng *rng)
{
    const permutation *p = vself;
    return traffic_perm_silent(p->perm, task) ? INSEE_NEVER
                                              : traffic_bernoulli_start(&p->rate, rng);
}

static bool permutation_emit(void *vself, uint32_t task, uint64_t now, insee_rng *rng,
                             insee_message *msg, uint64_t *next)
{
    const permutation *p = vself;
    *msg = (insee_message){.dst = traffic_perm_dst(p->perm, task, rng), .packets = 1, .tag = 0};
    *next = traffic_bernoulli_next(&p->rate, now, rng);
    return true;
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
};

static const insee_plugin_desc permutation_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_TRAFFIC,
    .name = "permutation",
    .version = "1.0.0",
    .summary = "a fixed destination per task (bit permutations, tornado, shift) or a random "
               "nearest neighbour, Bernoulli sources at a given load",
    .reference = "INSEE §3.2.1, Table 2",
    .params = permutation_params,
    .vtable = &permutation_vtable,
};

INSEE_PLUGIN_DEFINE(permutation_desc)
