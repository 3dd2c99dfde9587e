/* source.c — source routing along the topology's own paths (topology.h
 * paths(), ABI 1.9): the route a packet takes is the one the topology's
 * paper defines (BCube's digit correction, DCell's recursion...), the same
 * the flow engines follow through the path routing `native`, as a
 * datacentre's source-routed packets carry it in their header.
 *
 * Every hop is one lookup: the topology's paths between the packet's source
 * and destination routers, one of them picked by the packet's salt in
 * proportion to its share, and the port at index `hops` of it. Nothing is
 * stored in the packet, so the router is pure.
 *
 * Deadlock freedom by hop-indexed VCs: the i-th hop of every packet is
 * taken on VC i, so a packet waiting on VC i only ever waits for VC i + 1:
 * the channel dependencies follow increasing VC numbers and cannot close a
 * cycle, whatever the paths (Gopal's hop scheme, as Günther's structured
 * buffer pools). The network needs as many VCs as the longest path. */
#include <insee/insee.h>

#include <stdlib.h>

typedef struct source {
    const insee_host *host;
} source;

static void *source_create(const insee_host *host, const insee_value *params, insee_error *err)
{
    (void)params;
    uint32_t hops = host->topology_path_hops(host->kernel);
    if (!hops) {
        insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                        "source: the topology has no routing of its own (its plugin gives no "
                        "paths()); use a router that routes on any graph, such as updown or "
                        "ecmp");
        return NULL;
    }
    insee_shape shape;
    host->shape(host->kernel, &shape);
    if (shape.vcs < hops) {
        insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                        "source: the topology's longest route takes %u hops and each hop takes "
                        "its own VC (that is what keeps source routing deadlock free), but vcs "
                        "= %u; set vcs = %u (or more) in [router]",
                        hops, shape.vcs, hops);
        return NULL;
    }
    source *s = calloc(1, sizeof *s);
    if (!s) {
        insee_error_set(err, INSEE_ERR_NOMEM, "source: out of memory");
        return NULL;
    }
    s->host = host;
    return s;
}

static void source_destroy(void *self)
{
    free(self);
}

/* Which of a pair's paths the packet follows: the one whose cumulative
   share first passes `u`, drawn from its salt; the last one if rounding
   leaves the shares' sum a hair below u. */
typedef struct pick {
    double u, acc;
    uint32_t hop;
    uint32_t port; /* the chosen path's port at `hop`; INSEE_PORT_DROP: too short */
    bool chosen;
} pick;

static void take_path(void *ctx, const uint32_t *ports, uint32_t hops, double share)
{
    pick *p = ctx;
    if (p->chosen)
        return;
    p->acc += share;
    p->port = p->hop < hops ? ports[p->hop] : INSEE_PORT_DROP;
    p->chosen = p->u < p->acc;
}

/* The salt's share draw in [0, 1): a multiplicative hash, so that the
   salts of consecutive packets spread over every path. */
static double salt_draw(uint32_t salt)
{
    return (double)(uint32_t)(salt * 2654435761u) / 4294967296.0;
}

static uint32_t source_route(void *vself, const insee_route_ctx *ctx, insee_candidate *out,
                             uint32_t max)
{
    (void)max;
    const insee_host *host = ((const source *)vself)->host;
    uint32_t from = host->node_router(host->kernel, ctx->src_node);
    uint32_t to = host->node_router(host->kernel, ctx->dst_node);
    pick p = {.u = salt_draw(ctx->salt), .hop = ctx->hops, .port = INSEE_PORT_DROP};
    if (!host->topology_paths(host->kernel, from, to, ctx->salt, take_path, &p))
        p.port = INSEE_PORT_DROP; /* cut off by failed cables: no route */
    out[0] = (insee_candidate){.port = p.port, .vc = (uint16_t)ctx->hops, .room = 1};
    return 1;
}

static uint32_t source_properties(void *self)
{
    (void)self;
    return INSEE_ROUTE_PURE | INSEE_ROUTE_NO_FORWARDED;
}

static const insee_router_vtable source_vtable = {
    .size = sizeof(insee_router_vtable),
    .create = source_create,
    .destroy = source_destroy,
    .route = source_route,
    .properties = source_properties,
};

static const insee_plugin_desc source_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_ROUTER,
    .name = "source",
    .version = "1.0.0",
    .summary = "source routing along the topology's own paths (BCube, DCell, FiConn, "
               "DPillar...), one VC per hop",
    .reference = "INRFlow §3.2",
    .params = NULL,
    .vtable = &source_vtable,
};

INSEE_PLUGIN_DEFINE(source_desc)
