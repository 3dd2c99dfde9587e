/* ugal.c — UGAL, Universal Globally-Adaptive Load-balanced routing (Singh,
 * 2005; on dragonflies Kim, Dally, Scott & Abts, ISCA 2008), in its local
 * form: at the source router a packet weighs its minimal path against a
 * Valiant path through a random intermediate by (packets queued behind the
 * first hop) x (hops), and keeps the choice to its destination. Minimal
 * when q_min h_min <= q_val h_val + threshold. A minimal packet is a
 * Valiant packet whose intermediate is its source router, so both follow
 * valiant_core.c's phases and VC rule and mix without deadlock. */
#include "valiant_core.h"

#include <stdlib.h>

enum { P_INTERMEDIATE, P_THRESHOLD };

static const insee_param_def ugal_params[] = {
    [P_INTERMEDIATE] = VALIANT_PARAM_INTERMEDIATE,
    [P_THRESHOLD] = {"threshold", INSEE_PARAM_INT, "0", -1e9, 1e9, NULL, "packets x hops",
                     "bias towards the minimal path: minimal while q_min h_min <= q_val h_val + "
                     "threshold"},
    {0},
};

typedef struct ugal {
    valiant_core core;
    uint32_t queue_packets;
    int64_t threshold;
} ugal;

static void *ugal_create(const insee_host *host, const insee_value *params, insee_error *err)
{
    ugal *self = malloc(sizeof *self);
    if (!self) {
        insee_error_set(err, INSEE_ERR_NOMEM, "ugal: out of memory");
        return NULL;
    }
    if (!valiant_core_init(&self->core, "ugal", host,
                           (enum valiant_intermediate)params[P_INTERMEDIATE].i, err)) {
        free(self);
        return NULL;
    }
    insee_shape shape;
    host->shape(host->kernel, &shape);
    self->queue_packets = shape.queue_packets;
    self->threshold = params[P_THRESHOLD].i;
    return self;
}

static void ugal_destroy(void *vself)
{
    ugal *self = vself;
    valiant_core_free(&self->core);
    free(self);
}

/* Packets in the queues output `port` of `router` feeds, over all its VCs:
   what waits for that link. */
static int64_t queued(const ugal *self, uint32_t router, uint32_t port)
{
    const insee_host *h = self->core.host;
    int64_t q = 0;
    for (uint32_t vc = 0; vc < self->core.vcs; vc++)
        q += (int64_t)self->queue_packets - h->output_room(h->kernel, router, port, vc);
    return q;
}

/* The intermediate of a packet at its source router: the router itself
   (minimal) or a random one (Valiant). The first hop of each path is the
   first candidate valiant_toward() gives it. */
static uint32_t ugal_choose(const ugal *self, const insee_route_ctx *ctx)
{
    const valiant_core *core = &self->core;
    const insee_host *h = core->host;
    uint32_t src = ctx->router, via = valiant_draw(core, ctx);
    if (via == src)
        return src; /* the Valiant path is the minimal one */
    insee_candidate first[INSEE_MAX_CANDIDATES];
    /* The kernel consumes a packet at its destination's router before
       route(): both paths have a first hop. */
    valiant_toward(core, ctx, ctx->dst_node, first);
    int64_t q_min = queued(self, src, first[0].port);
    valiant_toward(core, ctx, core->net.node_of[via], first);
    int64_t q_val = queued(self, src, first[0].port);
    int64_t h_min = h->distance(h->kernel, src, ctx->dst_node);
    int64_t h_val = (int64_t)h->distance(h->kernel, src, core->net.node_of[via]) +
                    h->distance(h->kernel, via, ctx->dst_node);
    return q_min * h_min <= q_val * h_val + self->threshold ? src : via;
}

static uint32_t ugal_route(void *vself, const insee_route_ctx *ctx, insee_candidate *out,
                           uint32_t max)
{
    (void)max; /* valiant_toward() stops at INSEE_MAX_CANDIDATES <= max */
    const ugal *self = vself;
    valiant_packet *st = ctx->packet_state;
    /* Decided at the first request from the injection queue, on the queues
       of that cycle, and kept while the head waits and to the end. */
    if (st->via == 0)
        st->via = 1 + ugal_choose(self, ctx);
    return valiant_route(&self->core, ctx, out);
}

static const insee_router_vtable ugal_vtable = {
    .size = sizeof(insee_router_vtable),
    .create = ugal_create,
    .destroy = ugal_destroy,
    .route = ugal_route,
    .packet_state_size = valiant_packet_state_size,
    .forwarded = valiant_forwarded,
    /* properties NULL: route() reads queues and draws, forwarded() keeps state */
};

static const insee_plugin_desc ugal_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_ROUTER,
    .name = "ugal",
    .version = "1.0.0",
    .summary = "UGAL: at the source, minimal or Valiant by queue length x hops (HyperX, "
               "hypercube, dragonfly)",
    .reference = "Kim, Dally, Scott & Abts, ISCA 2008; Valiant & Brebner, STOC 1981",
    .params = ugal_params,
    .vtable = &ugal_vtable,
};

INSEE_PLUGIN_DEFINE(ugal_desc)
