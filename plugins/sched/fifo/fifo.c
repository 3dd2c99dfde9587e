/* fifo.c — FIFO arbitration (INSEE §2.2.5): an output grants the input whose
 * head first requested earliest (the request's `since`).
 *
 * INSEE keeps the first of equal times in scan order, always from the lowest
 * port, so two heads that started asking in the same cycle would favour the
 * lower input every time. Here ties rotate round robin from the last input
 * this output granted, which keeps the policy fair among equals.
 *
 * Per-output state: one uint32_t holding (last granted input + 1), as in
 * round-robin: the zeroed state at start means "none granted yet". */
#include <insee/insee.h>

#include <stdlib.h>
#include <string.h>

typedef struct fifo {
    const insee_host *host;
} fifo;

static void *fifo_create(const insee_host *host, const insee_value *params, insee_error *err)
{
    (void)params; /* no parameters */
    fifo *self = malloc(sizeof *self);
    if (!self) {
        insee_error_set(err, INSEE_ERR_NOMEM, "fifo: out of memory");
        return NULL;
    }
    self->host = host;
    return self;
}

static void fifo_destroy(void *self)
{
    free(self);
}

static size_t fifo_state_size(void *self)
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

static uint32_t fifo_pick(void *self, void *state, const insee_request *req, uint32_t n,
                          uint64_t now, insee_rng *rng)
{
    (void)self;
    (void)now;
    (void)rng;
    uint32_t after;
    memcpy(&after, state, sizeof after); /* the kernel promises no alignment */
    uint32_t g = 0;
    for (uint32_t i = 1; i < n; i++) {
        if (req[i].since < req[g].since ||
            (req[i].since == req[g].since && turn(req[i].input, after) < turn(req[g].input, after)))
            g = i;
    }
    /* Input UINT32_MAX wraps `after` to 0, which again means "start over". */
    after = req[g].input + 1u;
    memcpy(state, &after, sizeof after);
    return g;
}

static const insee_arbiter_vtable fifo_vtable = {
    .size = sizeof(insee_arbiter_vtable),
    .create = fifo_create,
    .destroy = fifo_destroy,
    .pick = fifo_pick,
    .state_size = fifo_state_size,
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
