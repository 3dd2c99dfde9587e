/* fifo.c — FIFO arbitration (INSEE §2.2.5): an output grants the input whose
 * head first requested earliest (the request's `since`).
 *
 * INSEE keeps the first of equal times in scan order, always from the lowest
 * port, so two heads that started asking in the same cycle would favour the
 * lower input every time. Here ties rotate round robin from the last input
 * this output granted, which keeps the policy fair among equals.
 *
 * Per-output state: the turn of ../common/rotation.h, as in round-robin. */
#include "instance.h"
#include "rotation.h"

static void *fifo_create(const insee_host *host, const insee_value *params, insee_error *err)
{
    (void)params; /* no parameters */
    return sched_plain_create(host, "fifo", err);
}

/* The earlier first request goes first. */
static int fifo_order(const void *self, const insee_request *x, const insee_request *y)
{
    (void)self;
    return rotation_cmp(x->since, y->since);
}

static uint32_t fifo_pick(void *self, void *state, const insee_request *req, uint32_t n,
                          uint64_t now, insee_rng *rng)
{
    (void)now;
    (void)rng;
    return rotation_pick(state, req, n, self, fifo_order);
}

static const insee_arbiter_vtable fifo_vtable = {
    .size = sizeof(insee_arbiter_vtable),
    .create = fifo_create,
    .destroy = sched_destroy,
    .pick = fifo_pick,
    .state_size = rotation_state_size,
};

static const insee_plugin_desc fifo_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_ARBITER,
    .name = "fifo",
    .version = "1.0.0",
    .summary = "FIFO: the head that first requested earliest; ties round robin",
    .reference = "INSEE §2.2.5",
    .params = NULL,
    .vtable = &fifo_vtable,
};

INSEE_PLUGIN_DEFINE(fifo_desc)
