/* round_robin.c — round-robin arbitration (INSEE §2.2.5): an output grants
 * the first requesting input after the one it granted last, wrapping round.
 *
 * Per-output state: the turn of ../common/rotation.h, (last granted input +
 * 1), so the zeroed state at start means "none granted yet" and the first
 * request wins without a separate flag. */
#include "instance.h"
#include "rotation.h"

static void *rr_create(const insee_host *host, const insee_value *params, insee_error *err)
{
    (void)params; /* no parameters */
    return sched_plain_create(host, "round-robin", err);
}

static uint32_t rr_pick(void *self, void *state, const insee_request *req, uint32_t n,
                        uint64_t now, insee_rng *rng)
{
    (void)self;
    (void)now;
    (void)rng;
    uint32_t after = rotation_after(state); /* inputs >= after come after the last grant */
    /* Requests are sorted by input: the first one at or past `after` is next
       in turn; if there is none, wrap round to the lowest. */
    uint32_t g = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (req[i].input >= after) {
            g = i;
            break;
        }
    }
    rotation_granted(state, req[g].input);
    return g;
}

static const insee_arbiter_vtable rr_vtable = {
    .size = sizeof(insee_arbiter_vtable),
    .create = rr_create,
    .destroy = sched_destroy,
    .pick = rr_pick,
    .state_size = rotation_state_size,
};

static const insee_plugin_desc rr_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_ARBITER,
    .name = "round-robin",
    .version = "1.0.0",
    .summary = "round robin: the first requesting input after the last one granted",
    .reference = "INSEE §2.2.5",
    .params = NULL,
    .vtable = &rr_vtable,
};

INSEE_PLUGIN_DEFINE(rr_desc)
