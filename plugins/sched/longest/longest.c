/* longest.c — longest-queue arbitration (INSEE §2.2.5): an output grants the
 * input whose queue holds the most packets (the request's `occupancy`).
 *
 * Ties follow INSEE's scan: it visits the inputs round robin starting after
 * the one this output granted last and keeps the first of the longest, so
 * equal queues take turns.
 *
 * Per-output state: the turn of ../common/rotation.h, as in round-robin. Its
 * rotation_pick() ranks the tied inputs by their distance after the last
 * grant, which keeps the same one as INSEE's scan. */
#include "instance.h"
#include "rotation.h"

static void *longest_create(const insee_host *host, const insee_value *params, insee_error *err)
{
    (void)params; /* no parameters */
    return sched_plain_create(host, "longest", err);
}

/* The longer queue goes first. */
static int longest_order(const void *self, const insee_request *x, const insee_request *y)
{
    (void)self;
    return rotation_cmp(y->occupancy, x->occupancy);
}

static uint32_t longest_pick(void *self, void *state, const insee_request *req, uint32_t n,
                             uint64_t now, insee_rng *rng)
{
    (void)now;
    (void)rng;
    return rotation_pick(state, req, n, self, longest_order);
}

static const insee_arbiter_vtable longest_vtable = {
    .size = sizeof(insee_arbiter_vtable),
    .create = longest_create,
    .destroy = sched_destroy,
    .pick = longest_pick,
    .state_size = rotation_state_size,
};

static const insee_plugin_desc longest_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_ARBITER,
    .name = "longest",
    .version = "1.0.0",
    .summary = "longest queue: the input holding the most packets; ties round robin",
    .reference = "INSEE §2.2.5",
    .params = NULL,
    .vtable = &longest_vtable,
};

INSEE_PLUGIN_DEFINE(longest_desc)
