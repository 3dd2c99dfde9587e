/* longest.c — longest-queue arbitration (INSEE §2.2.5): an output grants the
 * input whose queue holds the most packets (the request's `occupancy`).
 *
 * Ties follow INSEE's scan: it visits the inputs round robin starting after
 * the one this output granted last and keeps the first of the longest, so
 * equal queues take turns.
 *
 * Per-output state: one uint32_t holding (last granted input + 1), as in
 * round-robin: the zeroed state at start means "none granted yet". */
#include <insee/insee.h>

#include <stdlib.h>
#include <string.h>

typedef struct longest {
    const insee_host *host;
} longest;

static void *longest_create(const insee_host *host, const insee_value *params, insee_error *err)
{
    (void)params; /* no parameters */
    longest *self = malloc(sizeof *self);
    if (!self) {
        insee_error_set(err, INSEE_ERR_NOMEM, "longest: out of memory");
        return NULL;
    }
    self->host = host;
    return self;
}

static void longest_destroy(void *self)
{
    free(self);
}

static size_t longest_state_size(void *self)
{
    (void)self;
    return sizeof(uint32_t);
}

/* How far `input` comes after `after` in round-robin order: unsigned
   subtraction wraps, so inputs at or past `after` rank first in increasing
   order, then the lower ones, again in increasing order. */
static uint32_t turn(uint32_t input, uint32_t after)
{
    return input - after;
}

static uint32_t longest_pick(void *self, void *state, const insee_request *req, uint32_t n,
                             uint64_t now, insee_rng *rng)
{
    (void)self;
    (void)now;
    (void)rng;
    uint32_t after;
    memcpy(&after, state, sizeof after); /* the kernel promises no alignment */
    uint32_t g = 0;
    for (uint32_t i = 1; i < n; i++) {
        if (req[i].occupancy > req[g].occupancy ||
            (req[i].occupancy == req[g].occupancy &&
             turn(req[i].input, after) < turn(req[g].input, after)))
            g = i;
    }
    /* Input UINT32_MAX wraps `after` to 0, which again means "start over". */
    after = req[g].input + 1u;
    memcpy(state, &after, sizeof after);
    return g;
}

static const insee_arbiter_vtable longest_vtable = {
    .size = sizeof(insee_arbiter_vtable),
    .create = longest_create,
    .destroy = longest_destroy,
    .pick = longest_pick,
    .state_size = longest_state_size,
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
