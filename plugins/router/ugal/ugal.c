/* ugal.c — UGAL, Universal Globally-Adaptive Load-balanced routing (Singh,
 * 2005; on dragonflies Kim, Dally, Scott & Abts, ISCA 2008), in its local
 * form: at the source router a packet weighs its minimal path against a
 * Valiant path through a random intermediate by (what is queued behind the
 * first hop) x (a weight: the path's hops, or a fixed one), and keeps the
 * choice to its destination. Minimal when q_min w_min <= q_val w_val +
 * threshold. A minimal packet is a Valiant packet whose intermediate is its
 * source router, so both follow valiant_core.c's phases and VC rule and mix
 * without deadlock. */
#include "valiant_core.h"

#include <stdlib.h>

enum { P_INTERMEDIATE, P_THRESHOLD, P_METRIC, P_MIN_WEIGHT, P_VALIANT_WEIGHT };

enum ugal_metric { METRIC_PACKETS, METRIC_PHITS }; /* order of the choices */

static const insee_param_def ugal_params[] = {
    [P_INTERMEDIATE] = VALIANT_PARAM_INTERMEDIATE,
    [P_THRESHOLD] = {"threshold", INSEE_PARAM_INT, "0", -1e9, 1e9, NULL, "metric x weight",
                     "bias towards the minimal path: minimal while q_min w_min <= q_val w_val + "
                     "threshold"},
    [P_METRIC] = {"metric", INSEE_PARAM_ENUM, "\"packets\"", 1, 0, "packets|phits", NULL,
                  "q, what waits behind a path's first hop: the packets in the queues it "
                  "feeds, or the phits counted against them (under wormhole, the credits in "
                  "use, as BookSim2 counts)"},
    [P_MIN_WEIGHT] = {"min_weight", INSEE_PARAM_INT, "0", 0, 1e6, NULL, NULL,
                      "w_min, the minimal path's weight; 0: its hops"},
    [P_VALIANT_WEIGHT] = {"valiant_weight", INSEE_PARAM_INT, "0", 0, 1e6, NULL, NULL,
                          "w_val, the Valiant path's weight; 0: its hops"},
    {0},
};

typedef struct ugal {
    valiant_core core;
    uint32_t queue_packets;
    enum ugal_metric metric;
    int64_t threshold, min_weight, valiant_weight;
} ugal;

static void *ugal_create(const insee_host *host, const insee_value *params, insee_error *err)
{
    if (params[P_METRIC].i == METRIC_PHITS && host->abi_minor < 13) {
        insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                        "ugal: metric = \"phits\" needs a kernel of ABI 1.13 or later (this one "
                        "is 1.%u); use metric = \"packets\"",
                        host->abi_minor);
        return NULL;
    }
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
    self->metric = (enum ugal_metric)params[P_METRIC].i;
    self->min_weight = params[P_MIN_WEIGHT].i;
    self->valiant_weight = params[P_VALIANT_WEIGHT].i;
    return self;
}

static void ugal_destroy(void *vself)
{
    ugal *self = vself;
    valiant_core_free(&self->core);
    free(self);
}

/* What waits for the link of output `port` of `router`: the packets (or
   phits) in the queues it feeds, over all its VCs. */
static int64_t queued(const ugal *self, uint32_t router, uint32_t port)
{
    const insee_host *h = self->core.host;
    int64_t q = 0;
    for (uint32_t vc = 0; vc < self->core.vcs; vc++)
        q += self->metric == METRIC_PHITS
                 ? h->output_used_phits(h->kernel, router, port, vc)
                 : (int64_t)self->queue_packets - h->output_room(h->kernel, router, port, vc);
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
    int64_t w_min = self->min_weight ? self->min_weight
                                     : h->distance(h->kernel, src, ctx->dst_node);
    int64_t w_val = self->valiant_weight
                        ? self->valiant_weight
                        : (int64_t)h->distance(h->kernel, src, core->net.node_of[via]) +
                              h->distance(h->kernel, via, ctx->dst_node);
    return q_min * w_min <= q_val * w_val + self->threshold ? src : via;
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
    .properties = valiant_properties,
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
