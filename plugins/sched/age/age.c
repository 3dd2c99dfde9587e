/* age.c — age arbitration (INSEE §2.2.5): an output grants the input holding
 * the oldest packet, "measured since the packet was injected into the
 * network" — the request's `injected`, the cycle its head left its injection
 * queue. A head still in its injection queue has not been injected yet: the
 * kernel passes the current cycle, so packets already in the network win.
 *
 * `since = "generation"` measures from the cycle the packet entered its
 * injection queue instead (the request's `born`): INSEE's code does this,
 * its inj_time being set when the packet is generated.
 *
 * Ties (equal ages are common: every head still in an injection queue has
 * age 0) go to the head that started requesting first (`since`), then round
 * robin from the last input this output granted, so equals take turns.
 *
 * Per-output state: the turn of ../common/rotation.h, as in round-robin. */
#include "instance.h"
#include "rotation.h"

/* Parameters, in table order. */
enum { P_SINCE };
enum age_since { SINCE_INJECTION, SINCE_GENERATION }; /* the order of the choices */

static const insee_param_def age_params[] = {
    [P_SINCE] = {"since", INSEE_PARAM_ENUM, "\"injection\"", 1, 0, "injection|generation", NULL,
                 "what a packet's age counts from: injection (its head left the injection "
                 "queue, as the paper defines it) or generation (it entered the injection "
                 "queue, as INSEE's code does)"},
    {0},
};

typedef struct age {
    enum age_since since;
} age;

static void *age_create(const insee_host *host, const insee_value *params, insee_error *err)
{
    (void)host; /* no kernel service needed */
    age *self = sched_alloc(sizeof *self, "age", err);
    if (self)
        self->since = (enum age_since)params[P_SINCE].i; /* ENUM: index of the choice */
    return self;
}

/* The cycle the packet's age counts from: smaller is older. */
static uint64_t birth(const age *a, const insee_request *r)
{
    return a->since == SINCE_GENERATION ? r->born : r->injected;
}

/* The older packet goes first, then the earlier request (rotation_pick()
   puts full ties in turn). */
static int age_order(const void *self, const insee_request *x, const insee_request *y)
{
    int o = rotation_cmp(birth(self, x), birth(self, y));
    return o ? o : rotation_cmp(x->since, y->since);
}

static uint32_t age_pick(void *self, void *state, const insee_request *req, uint32_t n,
                         uint64_t now, insee_rng *rng)
{
    (void)now;
    (void)rng;
    return rotation_pick(state, req, n, self, age_order);
}

static const insee_arbiter_vtable age_vtable = {
    .size = sizeof(insee_arbiter_vtable),
    .create = age_create,
    .destroy = sched_destroy,
    .pick = age_pick,
    .state_size = rotation_state_size,
};

static const insee_plugin_desc age_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_ARBITER,
    .name = "age",
    .version = "1.0.0",
    .summary = "age: the oldest packet (since injection or generation); ties to the earliest "
               "request, then round robin",
    .reference = "INSEE §2.2.5",
    .params = age_params,
    .vtable = &age_vtable,
};

INSEE_PLUGIN_DEFINE(age_desc)
