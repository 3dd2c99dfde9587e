/* random.c — random arbitration (INSEE §2.2.5): an output grants one of its
 * requests drawn uniformly at random.
 *
 * The draw comes from the stream the kernel passes to pick() (one per
 * router, derived from the experiment seed), never from rand(), so a run
 * repeats exactly. No per-output state: each draw is independent. */
#include "instance.h"

static void *random_create(const insee_host *host, const insee_value *params, insee_error *err)
{
    (void)params; /* no parameters */
    return sched_plain_create(host, "random", err);
}

static uint32_t random_pick(void *self, void *state, const insee_request *req, uint32_t n,
                            uint64_t now, insee_rng *rng)
{
    (void)self;
    (void)state;
    (void)req; /* who asks does not matter, only how many */
    (void)now;
    return insee_rng_below(rng, n); /* unbiased in [0, n) */
}

static const insee_arbiter_vtable random_vtable = {
    .size = sizeof(insee_arbiter_vtable),
    .create = random_create,
    .destroy = sched_destroy,
    .pick = random_pick,
};

static const insee_plugin_desc random_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_ARBITER,
    .name = "random",
    .version = "1.0.0",
    .summary = "random: a requesting input drawn uniformly from the router's random stream",
    .reference = "INSEE §2.2.5",
    .params = NULL,
    .vtable = &random_vtable,
};

INSEE_PLUGIN_DEFINE(random_desc)
