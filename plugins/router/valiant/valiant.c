/* valiant.c — Valiant routing (Valiant & Brebner, STOC 1981) on HyperX,
 * hypercubes and dragonflies: every packet goes minimally to a random
 * intermediate, drawn once at injection, then minimally to its
 * destination. Uniform load on the links whatever the traffic, at the
 * price of longer paths. The phases and the VC rule are valiant_core.c,
 * shared with ugal. */
#include "valiant_core.h"

#include <stdlib.h>

enum { P_INTERMEDIATE };

static const insee_param_def valiant_params[] = {
    [P_INTERMEDIATE] = VALIANT_PARAM_INTERMEDIATE,
    {0},
};

static void *valiant_create(const insee_host *host, const insee_value *params, insee_error *err)
{
    valiant_core *self = malloc(sizeof *self);
    if (!self) {
        insee_error_set(err, INSEE_ERR_NOMEM, "valiant: out of memory");
        return NULL;
    }
    if (!valiant_core_init(self, "valiant", host, (enum valiant_intermediate)params[P_INTERMEDIATE].i,
                           err)) {
        free(self);
        return NULL;
    }
    return self;
}

static void valiant_destroy(void *vself)
{
    valiant_core_free(vself);
    free(vself);
}

static uint32_t valiant_route_packet(void *vself, const insee_route_ctx *ctx,
                                     insee_candidate *out, uint32_t max)
{
    (void)max; /* valiant_toward() stops at INSEE_MAX_CANDIDATES <= max */
    const valiant_core *self = vself;
    valiant_packet *st = ctx->packet_state;
    /* Drawn at the first request from the injection queue, kept while the
       head waits there and for the rest of the way. */
    if (st->via == 0)
        st->via = 1 + valiant_draw(self, ctx);
    return valiant_route(self, ctx, out);
}

static const insee_router_vtable valiant_vtable = {
    .size = sizeof(insee_router_vtable),
    .create = valiant_create,
    .destroy = valiant_destroy,
    .route = valiant_route_packet,
    .packet_state_size = valiant_packet_state_size,
    .forwarded = valiant_forwarded,
    .properties = valiant_properties,
};

static const insee_plugin_desc valiant_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_ROUTER,
    .name = "valiant",
    .version = "1.0.0",
    .summary = "Valiant routing: minimal to a random intermediate router or group, then minimal "
               "to the destination (HyperX, hypercube, dragonfly)",
    .reference = "Valiant & Brebner, STOC 1981; Kim et al., ISCA 2008 (dragonfly)",
    .params = valiant_params,
    .vtable = &valiant_vtable,
};

INSEE_PLUGIN_DEFINE(valiant_desc)
