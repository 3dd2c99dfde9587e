/* round_robin.c — round-robin arbitration (INSEE §2.2.5): an output grants
 * the first requesting input after the one it granted last, wrapping round.
 *
 * Per-output state: one uint32_t holding (last granted input + 1), so the
 * zeroed state at start means "none granted yet" and the first request wins
 * without a separate flag. */
#include <insee/insee.h>

#include <stdlib.h>
#include <string.h>

typedef struct round_robin {
    const insee_host *host;
} round_robin;

static void *rr_create(const insee_host *host, const insee_value *params, insee_error *err)
{
    (void)params; /* no parameters */
    round_robin *self = malloc(sizeof *self);
    if (!self) {
        insee_error_set(err, INSEE_ERR_NOMEM, "round-robin: out of memory");
        return NULL;
    }
    self->host = host;
    return self;
}

static void rr_destroy(void *self)
{
    free(self);
}

static size_t rr_state_size(void *self)
{
    (void)self;
    return sizeof(uint32_t);
}

static uint32_t rr_pick(void *self, void *state, const insee_request *req, uint32_t n,
                        uint64_t now, insee_rng *rng)
{
    (void)self;
    (void)now;
    (void)rng;
    uint32_t after; /* inputs >= after come after the last grant */
    memcpy(&after, state, sizeof after); /* the kernel promises no alignment */
    /* Requests are sorted by input: the first one at or past `after` is next
       in turn; if there is none, wrap round to the lowest. */
    uint32_t g = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (req[i].input >= after) {
            g = i;
            break;
        }
    }
    /* Input UINT32_MAX wraps `after` to 0, which again means "start over". */
    after = req[g].input + 1u;
    memcpy(state, &after, sizeof after);
    return g;
}

static const insee_arbiter_vtable rr_vtable = {
    .size = sizeof(insee_arbiter_vtable),
    .create = rr_create,
    .destroy = rr_destroy,
    .pick = rr_pick,
    .state_size = rr_state_size,
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
