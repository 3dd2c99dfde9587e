/* minimal-adaptive.c — fully adaptive minimal routing on HyperX, hypercubes
 * (and meshes), deadlock free by Duato's escape channel: at every hop a
 * packet may take any minimal port (in a HyperX one per dimension still to
 * fix, every link of a trunk) on any VC >= 1 with room, the roomiest first;
 * last comes VC 0 on the dimension-order hop, the escape. Dimension order
 * alone is deadlock free on these networks (it climbs the dimensions and
 * never turns back), and every packet can always ask for it. */
#include "fabric.h"

#include <stdlib.h>

typedef struct madapt {
    const insee_host *host;
    uint32_t vcs;
} madapt;

static void *madapt_create(const insee_host *host, const insee_value *params, insee_error *err)
{
    (void)params; /* none */
    insee_shape shape;
    host->shape(host->kernel, &shape);
    fabric net;
    if (!fabric_survey(host, "minimal-adaptive", &net, err))
        return NULL;
    fabric_kind kind = net.kind;
    if (kind == FABRIC_GROUPS)
        insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                        "minimal-adaptive: this network is a dragonfly, where dimension order "
                        "(local, global, local) is no deadlock-free escape; use plugin = "
                        "\"ugal\" or \"valiant\" in [router]");
    else if (kind == FABRIC_OTHER)
        insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                        "minimal-adaptive: its dimension-order escape needs a HyperX, hypercube "
                        "or mesh, and this network is neither: %s; use plugin = \"updown\" in "
                        "[router] (any topology)",
                        net.why);
    else if (shape.vcs < 2)
        insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                        "minimal-adaptive: needs the escape VC 0 and at least one adaptive VC, "
                        "but vcs = %u; set vcs = 2 (or more) in [router]",
                        shape.vcs);
    fabric_free(&net);
    if ((kind != FABRIC_HAMMING && kind != FABRIC_MESH) || shape.vcs < 2)
        return NULL;
    madapt *self = malloc(sizeof *self);
    if (!self) {
        insee_error_set(err, INSEE_ERR_NOMEM, "minimal-adaptive: out of memory");
        return NULL;
    }
    *self = (madapt){.host = host, .vcs = shape.vcs};
    return self;
}

static void madapt_destroy(void *self)
{
    free(self);
}

static uint32_t madapt_route(void *vself, const insee_route_ctx *ctx, insee_candidate *out,
                             uint32_t max)
{
    const madapt *self = vself;
    const insee_host *h = self->host;
    insee_hop hops[INSEE_MAX_CANDIDATES];
    uint32_t n = h->minimal_hops(h->kernel, ctx->router, ctx->dst_node, ctx->salt, hops,
                                 INSEE_MAX_CANDIDATES);
    /* No hop only at the destination, which the kernel consumes first. */
    if (n == 0)
        return 0;
    /* Adaptive candidates sorted by free room downstream, most first (ties
       in minimal_hops() order, lower VC first), keeping the last slot for
       the escape. */
    uint32_t room[INSEE_MAX_CANDIDATES];
    uint32_t cap = (max < INSEE_MAX_CANDIDATES ? max : INSEE_MAX_CANDIDATES) - 1, w = 0;
    for (uint32_t i = 0; i < n; i++)
        for (uint16_t vc = 1; vc < self->vcs; vc++) {
            uint32_t r = h->output_room(h->kernel, ctx->router, hops[i].port, vc);
            if (r == 0 || (w == cap && r <= room[w - 1]))
                continue; /* cannot take the packet, or roomier ones fill the list */
            uint32_t j = w < cap ? w++ : w - 1;
            for (; j > 0 && room[j - 1] < r; j--) {
                room[j] = room[j - 1];
                out[j] = out[j - 1];
            }
            room[j] = r;
            out[j] = (insee_candidate){.port = hops[i].port, .vc = vc, .room = 1};
        }
    /* The escape: dimension order (the first hop listed) on VC 0. */
    out[w++] = (insee_candidate){.port = hops[0].port, .vc = 0, .room = 1};
    return w;
}

/* route() reads the room downstream of its own router's outputs, and
   nothing else of the network. */
static uint32_t madapt_properties(void *vself)
{
    (void)vself;
    return INSEE_ROUTE_LOCAL | INSEE_ROUTE_NO_DROPS;
}

static const insee_router_vtable madapt_vtable = {
    .size = sizeof(insee_router_vtable),
    .create = madapt_create,
    .destroy = madapt_destroy,
    .route = madapt_route,
    .properties = madapt_properties, /* no packet state, forwarded() NULL */
};

static const insee_plugin_desc madapt_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_ROUTER,
    .name = "minimal-adaptive",
    .version = "1.0.0",
    .summary = "minimal adaptive routing, roomiest port and VC first, dimension-order escape on "
               "VC 0 (HyperX, hypercube, mesh)",
    .reference = "Ahn et al., HyperX, SC 2009; Duato, IEEE TPDS 1993 (escape channels)",
    .params = NULL,
    .vtable = &madapt_vtable,
};

INSEE_PLUGIN_DEFINE(madapt_desc)
