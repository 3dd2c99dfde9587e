/* valiant_core.c — the phases and VC rule of valiant_core.h. */
#include "valiant_core.h"

#include <stdlib.h>

/* What the VC rule needs on each family (proofs in the valiant README):
   - HyperX / hypercube: a minimal path climbs the dimensions, so only the
     turn between the phases can move a VC up: 2;
   - dragonfly, intermediate router: each phase turns down at most once
     (local, global, local), plus the turn between them: 4;
   - dragonfly, intermediate group: the first phase (local, global to the
     landing router) never turns down: 3, as Kim et al. count. */
static uint32_t vcs_needed(fabric_kind kind, enum valiant_intermediate how)
{
    return kind == FABRIC_HAMMING ? 2 : how == VALIANT_GROUP ? 3 : 4;
}

/* The routers group g's global (dimension-1) links land on, by group. */
static bool build_landings(valiant_core *core)
{
    const insee_host *h = core->host;
    const fabric *net = &core->net;
    core->landing_start = calloc(net->groups + 1, sizeof *core->landing_start);
    if (!core->landing_start)
        return false;
    for (int pass = 0; pass < 2; pass++) {
        /* pass 0 counts (into start[g + 1]), pass 1 places */
        for (uint32_t r = 0; r < net->routers; r++) {
            uint32_t ports = h->ports(h->kernel, r), g = net->group_of[r];
            for (uint32_t p = 0; p < ports; p++) {
                insee_hop hop;
                insee_port_peer to;
                h->port_info(h->kernel, r, p, &hop);
                if (hop.dim != 1 || !h->peer(h->kernel, r, p, &to))
                    continue;
                if (pass == 0)
                    core->landing_start[g + 1]++;
                else
                    core->landing[core->landing_start[g]++] = to.router;
            }
        }
        if (pass == 0) {
            for (uint32_t g = 0; g < net->groups; g++)
                core->landing_start[g + 1] += core->landing_start[g];
            core->landing = malloc(sizeof *core->landing * (core->landing_start[net->groups] + 1));
            if (!core->landing)
                return false;
        }
    }
    /* Placing advanced each start to the next group's: shift them back. */
    for (uint32_t g = net->groups; g > 0; g--)
        core->landing_start[g] = core->landing_start[g - 1];
    core->landing_start[0] = 0;
    return true;
}

bool valiant_core_init(valiant_core *core, const char *plugin, const insee_host *host,
                       enum valiant_intermediate how, insee_error *err)
{
    insee_shape shape;
    host->shape(host->kernel, &shape);
    *core = (valiant_core){.host = host, .vcs = shape.vcs};
    if (!fabric_survey(host, plugin, &core->net, err))
        return false;
    const char *how_name = how == VALIANT_GROUP ? "group" : "router";
    switch (core->net.kind) {
    case FABRIC_HAMMING:
        if (how == VALIANT_GROUP) {
            insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                            "%s: intermediate = \"group\" needs groups of routers (a dragonfly), "
                            "but this network is a HyperX or hypercube; use intermediate = "
                            "\"router\"",
                            plugin);
            goto refuse;
        }
        break;
    case FABRIC_GROUPS:
        if (how == VALIANT_GROUP && core->net.groups < 2) {
            insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                            "%s: intermediate = \"group\" needs at least 2 groups, but this "
                            "network is a single group; use intermediate = \"router\"",
                            plugin);
            goto refuse;
        }
        break;
    case FABRIC_MESH:
        insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                        "%s: runs on HyperX, hypercubes and dragonflies, and this network is a "
                        "mesh; use plugin = \"dally\" or \"minimal-adaptive\" in [router]",
                        plugin);
        goto refuse;
    default:
        insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                        "%s: runs on HyperX, hypercubes and dragonflies, and this network is "
                        "neither: %s; use plugin = \"updown\" in [router] (any topology)",
                        plugin, core->net.why);
        goto refuse;
    }
    uint32_t needed = vcs_needed(core->net.kind, how);
    if (shape.vcs < needed) {
        insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                        "%s: on a %s with intermediate = \"%s\" a path can need %u VCs (one more "
                        "at every hop that does not climb to a higher dimension), but vcs = %u; "
                        "set vcs = %u (or more) in [router]%s",
                        plugin, core->net.kind == FABRIC_HAMMING ? "HyperX" : "dragonfly",
                        how_name, needed, shape.vcs, needed,
                        core->net.kind == FABRIC_GROUPS && how == VALIANT_ROUTER
                            ? ", or intermediate = \"group\" (3 VCs)"
                            : "");
        goto refuse;
    }
    if (how == VALIANT_GROUP && !build_landings(core)) {
        insee_error_set(err, INSEE_ERR_NOMEM, "%s: out of memory", plugin);
        goto refuse;
    }
    return true;
refuse:
    valiant_core_free(core);
    return false;
}

void valiant_core_free(valiant_core *core)
{
    fabric_free(&core->net);
    free(core->landing_start);
    free(core->landing);
    core->landing_start = core->landing = NULL;
}

uint32_t valiant_draw(const valiant_core *core, const insee_route_ctx *ctx)
{
    if (!core->landing)
        return insee_rng_below(ctx->rng, core->net.routers);
    /* Every other group owns the same share of a group's global links, so
       a random link is a random other group. */
    uint32_t g = core->net.group_of[ctx->router];
    uint32_t from = core->landing_start[g], n = core->landing_start[g + 1] - from;
    return core->landing[from + insee_rng_below(ctx->rng, n)];
}

uint32_t valiant_toward(const valiant_core *core, const insee_route_ctx *ctx, uint32_t node,
                        insee_candidate *out)
{
    const insee_host *h = core->host;
    const valiant_packet *st = ctx->packet_state;
    insee_hop hops[INSEE_MAX_CANDIDATES];
    uint32_t n = h->minimal_hops(h->kernel, ctx->router, node, ctx->salt, hops,
                                 INSEE_MAX_CANDIDATES);
    /* The VC rule: up one at a hop whose dimension is not above the last. */
    uint16_t vc = 0;
    if (n > 0 && ctx->in_port != INSEE_PORT_INJECTION)
        vc = (uint16_t)(ctx->in_vc + (hops[0].dim <= st->last_dim));
    /* minimal_hops() lists the lowest dimension first; its ports are equal
       for the proofs, so the kernel may take whichever is free. */
    uint32_t w = 0;
    for (; w < n && hops[w].dim == hops[0].dim; w++)
        out[w] = (insee_candidate){.port = hops[w].port, .vc = vc, .room = 1,
                                   .tag = (uint32_t)(uint16_t)hops[w].dim};
    return w;
}

uint32_t valiant_route(const valiant_core *core, const insee_route_ctx *ctx,
                       insee_candidate *out)
{
    const valiant_packet *st = ctx->packet_state;
    uint32_t via = st->via - 1;
    bool to_dst = st->to_dst || ctx->router == via;
    return valiant_toward(core, ctx, to_dst ? ctx->dst_node : core->net.node_of[via], out);
}

/* The intermediate is drawn (and, for UGAL, chosen on the queues of the
   source router's own outputs) at the packet's first request; from then on
   its path is fixed by its state, so asking again while it waits answers
   the same. forwarded() keeps that state, so it is always called. Both
   read no other router's state: local. */
uint32_t valiant_properties(void *self)
{
    (void)self;
    return INSEE_ROUTE_SETTLED | INSEE_ROUTE_LOCAL | INSEE_ROUTE_NO_DROPS;
}

size_t valiant_packet_state_size(void *self)
{
    (void)self;
    return sizeof(valiant_packet);
}

void valiant_forwarded(void *self, const insee_route_ctx *ctx, const insee_candidate *granted)
{
    (void)self;
    valiant_packet *st = ctx->packet_state;
    st->to_dst |= ctx->router == st->via - 1;
    st->last_dim = (int16_t)(uint16_t)granted->tag;
}
