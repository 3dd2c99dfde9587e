/* oldest_first.c — the SDK template's example plugin: an arbiter that grants
 * the oldest request (the "age" policy of INSEE §2.2.5).
 *
 * Contract (insee/arbiter.h): for one output port, pick() receives the n >= 1
 * requests sorted by input index and returns the position of the winner.
 * Here the winner is the request with the smallest age key — the cycle its
 * packet was born, or the cycle its head started waiting, per `age_from` —
 * and a tie goes to the lowest input. The policy is starvation-free: a
 * waiting head's key never changes while newcomers' keys only grow, so it
 * becomes the oldest in bounded time.
 *
 * Copying this file for a new plugin: keep the shape (parameter table,
 * instance struct from create(), static functions, one vtable, one
 * descriptor, INSEE_PLUGIN_DEFINE); rename; run insee-conform on the result.
 */
#include <insee/insee.h>

#include <stdlib.h>

/* Parameters, in table order: create() reads params[P_AGE_FROM]. */
enum { P_AGE_FROM };
enum age_from { AGE_BORN, AGE_SINCE }; /* the order of the choices below */

static const insee_param_def oldest_params[] = {
    [P_AGE_FROM] = {"age_from", INSEE_PARAM_ENUM, "\"born\"", 1, 0, "born|since", NULL,
                    "born: oldest packet in the network first (global age); since: longest "
                    "wait at this router first (local FIFO)"},
    {0},
};

/* Everything the plugin keeps lives in its instance: no globals, so two
   experiments in one process never interfere. */
typedef struct oldest_first {
    enum age_from age_from;
} oldest_first;

static void *oldest_create(const insee_host *host, const insee_value *params, insee_error *err)
{
    (void)host; /* this policy needs no kernel service */
    oldest_first *self = malloc(sizeof *self);
    if (!self) {
        insee_error_set(err, INSEE_ERR_NOMEM, "oldest-first: out of memory");
        return NULL;
    }
    self->age_from = (enum age_from)params[P_AGE_FROM].i; /* ENUM: index of the choice */
    return self;
}

static void oldest_destroy(void *self)
{
    free(self);
}

static uint32_t oldest_pick(void *self, void *state, const insee_request *req, uint32_t n,
                            uint64_t now, insee_rng *rng)
{
    (void)state; /* stateless: no state_size() entry */
    (void)now;
    (void)rng; /* deterministic: draws nothing */
    const oldest_first *of = self;
    uint32_t best = 0;
    for (uint32_t i = 1; i < n; i++) {
        uint64_t key = of->age_from == AGE_BORN ? req[i].born : req[i].since;
        uint64_t best_key = of->age_from == AGE_BORN ? req[best].born : req[best].since;
        if (key < best_key) /* strict: on a tie the lower input, listed first, stays */
            best = i;
    }
    return best;
}

static const insee_arbiter_vtable oldest_vtable = {
    .size = sizeof(insee_arbiter_vtable),
    .create = oldest_create,
    .destroy = oldest_destroy,
    .pick = oldest_pick,
};

static const insee_plugin_desc oldest_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_ARBITER,
    .name = "oldest-first",
    .version = "1.0.0",
    .summary = "grants the oldest request (by packet age or by wait), ties to the lowest input",
    .reference = "INSEE §2.2.5 (age arbitration)",
    .params = oldest_params,
    .vtable = &oldest_vtable,
};

/* The one exported symbol. */
INSEE_PLUGIN_DEFINE(oldest_desc)
