/* dally.c — the Dally router (INSEE §2.2.1, Fig. 4): dimension-order routing
 * on k-ary n-cubes with two escape VCs that cut every ring's cycle at its
 * wrap-around link. Modes trc, basic and improved; VCs above 1 are unused.
 *
 * VC 0 carries the packets that the wrap link concerns, VC 1 the others:
 *  - trc: VC 1 at injection and at each change of dimension, VC 0 from the
 *    router whose coordinate in that dimension is 0 on, as INSEE does (the
 *    spiral of Fig. 4b);
 *  - basic: VC 0 while the rest of the path in this dimension crosses the
 *    wrap link (hop flag WRAP_AHEAD), VC 1 otherwise (the chains of Fig. 4c);
 *  - improved: like basic, but packets with no wrap ahead may take either VC:
 *    a fair coin on every attempt, the other VC if the drawn one cannot take
 *    the packet (INSEE), or, with vc_choice = "room", the one with more free
 *    room downstream first;
 *  - adaptive: VCs 0 and 1 are improved's escape VCs; VCs 2 and up are
 *    adaptive: a packet takes one of them at random on any minimal direction
 *    with room, and the escape VCs only when none admits it;
 *  - partition: a packet travels a whole dimension on VC 1 when its path in
 *    it crosses the wrap link, on VC 0 when it does not (BookSim2's
 *    dim_order_torus). Minimal paths are shorter than a ring, so no VC 1
 *    path reaches the channel half a ring from the wrap: both chains are
 *    acyclic.
 * On a topology with no wrap link (mesh) and a single VC every packet uses
 * VC 0: dimension order alone is deadlock free there.
 */
#include <insee/insee.h>

#include <stdlib.h>

enum { P_MODE, P_VC_CHOICE, P_ALLOW_DEADLOCK };
enum dally_mode { MODE_TRC, MODE_BASIC, MODE_IMPROVED, MODE_ADAPTIVE, MODE_PARTITION }; /* order of the choices */
enum vc_choice { CHOICE_COIN, CHOICE_ROOM };

static const insee_param_def dally_params[] = {
    [P_MODE] = {"mode", INSEE_PARAM_ENUM, "\"basic\"", 1, 0,
                "trc|basic|improved|adaptive|partition", NULL,
                "how the two escape VCs break the ring cycles, and whether VCs 2 and up adapt "
                "(INSEE §2.2.1; partition: BookSim2's)"},
    [P_VC_CHOICE] = {"vc_choice", INSEE_PARAM_ENUM, "\"coin\"", 1, 0, "coin|room", NULL,
                     "improved: which VC a packet with no wrap ahead tries first (coin: a "
                     "fair draw per attempt, as INSEE; room: the one with more free room)"},
    [P_ALLOW_DEADLOCK] = {"allow_deadlock", INSEE_PARAM_BOOL, "false", 1, 0, NULL, NULL,
                          "accept a single VC on a topology with wrap-around links, where "
                          "dimension order can deadlock (to study deadlock)"},
    {0},
};

typedef struct dally {
    const insee_host *host;
    enum dally_mode mode;
    enum vc_choice choice;
    uint32_t vcs;
    uint32_t dims;
    int32_t *xy;        /* trc: scratch for the current router's coordinates */
    /* VC of packets with no wrap link ahead (or, in trc, not yet crossed):
       1, or 0 when the network has no wrap link and a single VC. */
    uint16_t vc_direct;
} dally;

/* trc per packet: the dimension of its last hop and whether it has switched
   to VC 0 in it. Zeroed at generation = not switched, which is right for the
   first hop whatever its dimension. */
typedef struct trc_state {
    int16_t dim;
    uint8_t wrapped;
} trc_state;

/* What one scan of every port at create() tells: whether some link wraps
   around (then 2 VCs are needed), and the first port that is not a
   dimension's link (trees, graphs): dimension order means nothing there. */
typedef struct port_survey {
    bool wraps;
    bool backwards;    /* some link goes the - way: rings are bidirectional */
    bool dimensionless;
    uint32_t router, port; /* the first dimensionless port */
} port_survey;

static port_survey survey_ports(const insee_host *host, uint32_t routers)
{
    port_survey s = {0};
    for (uint32_t r = 0; r < routers && !s.dimensionless; r++) {
        uint32_t ports = host->ports(host->kernel, r);
        for (uint32_t p = 0; p < ports; p++) {
            insee_hop h;
            host->port_info(host->kernel, r, p, &h);
            s.wraps |= (h.flags & INSEE_HOP_WRAP) != 0;
            s.backwards |= h.dir < 0;
            if (h.dim < 0 || (h.flags & (INSEE_HOP_UP | INSEE_HOP_DOWN))) {
                s = (port_survey){s.wraps, s.backwards, true, r, p};
                break;
            }
        }
    }
    return s;
}

/* A pair whose first-hop path goes back to a lower dimension (a dragonfly's
   local-global-local), or the index of the last pair checked: dimension
   order then orders nothing and its escape VCs cut no cycle. Walks the
   first minimal hop from router to router, for every pair of small networks
   and an even sample of at most 4096 pairs of large ones. */
typedef struct order_break {
    bool found;
    uint32_t router, node;
    int16_t from_dim, to_dim;
} order_break;

static order_break find_order_break(const insee_host *host, const insee_shape *shape)
{
    uint64_t pairs = (uint64_t)shape->routers * shape->nodes;
    uint64_t stride = pairs > 4096 ? pairs / 4096 : 1;
    for (uint64_t i = 0; i < pairs; i += stride) {
        uint32_t start = (uint32_t)(i / shape->nodes), node = (uint32_t)(i % shape->nodes);
        uint32_t r = start, target = host->node_router(host->kernel, node);
        int16_t last = -1;
        for (uint32_t steps = 0; r != target && steps <= shape->routers; steps++) {
            insee_hop hop;
            insee_port_peer next;
            if (host->minimal_hops(host->kernel, r, node, 0, &hop, 1) != 1 ||
                !host->peer(host->kernel, r, hop.port, &next))
                break;
            if (hop.dim < last)
                return (order_break){true, start, node, last, hop.dim};
            last = hop.dim;
            r = next.router;
        }
    }
    return (order_break){0};
}

static void *dally_create(const insee_host *host, const insee_value *params, insee_error *err)
{
    insee_shape shape;
    host->shape(host->kernel, &shape);
    enum dally_mode mode = (enum dally_mode)params[P_MODE].i;
    port_survey survey = survey_ports(host, shape.routers);
    if (survey.dimensionless) {
        insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                        "dally: port %u of router %u is not the link of a dimension (a tree or "
                        "a graph): dimension-order routing is undefined there; use "
                        "plugin = \"updown\" in [router]",
                        survey.port, survey.router);
        return NULL;
    }
    order_break ob = find_order_break(host, &shape);
    if (ob.found) {
        insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                        "dally: minimal paths of this topology do not follow dimension order "
                        "(router %u to node %u goes from dimension %d back to %d, as a "
                        "dragonfly's local-global-local does), so its escape VCs cut no cycle; "
                        "use plugin = \"updown\" or \"ecmp\" in [router]",
                        ob.router, ob.node, ob.from_dim, ob.to_dim);
        return NULL;
    }
    if (shape.vcs < 2 && survey.wraps && !params[P_ALLOW_DEADLOCK].b) {
        insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                        "dally: mode \"%s\" needs 2 virtual channels on a topology with "
                        "wrap-around links, but vcs = %u; set vcs = 2 (or more) in [router] "
                        "(or allow_deadlock = true to study deadlock)",
                        params[P_MODE].s, shape.vcs);
        return NULL;
    }
    /* A wrapping minimal path is at most half a ring long only when rings
       go both ways: on a one-way ring VC 1's paths close the cycle. */
    if (mode == MODE_PARTITION && survey.wraps && !survey.backwards) {
        insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                        "dally: mode \"partition\" is deadlock free only on bidirectional "
                        "rings, and this topology's go one way; use mode = \"basic\"");
        return NULL;
    }
    if (mode == MODE_ADAPTIVE && shape.vcs < 3) {
        insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                        "dally: mode \"adaptive\" needs 2 escape VCs and at least one adaptive "
                        "VC, but vcs = %u; set vcs = 3 (or more) in [router]",
                        shape.vcs);
        return NULL;
    }
    dally *self = calloc(1, sizeof *self);
    int32_t *xy = mode == MODE_TRC ? calloc(shape.dims ? shape.dims : 1, sizeof *xy) : NULL;
    if (!self || (mode == MODE_TRC && !xy)) {
        free(self);
        free(xy);
        insee_error_set(err, INSEE_ERR_NOMEM, "dally: out of memory");
        return NULL;
    }
    if (mode == MODE_TRC && shape.dims == 0) {
        free(self);
        free(xy);
        insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                        "dally: mode \"trc\" switches VC at coordinate 0, but the topology "
                        "has no coordinates; use mode = \"basic\"");
        return NULL;
    }
    *self = (dally){.host = host, .mode = mode, .vcs = shape.vcs,
                    .choice = (enum vc_choice)params[P_VC_CHOICE].i, .dims = shape.dims,
                    .xy = xy, .vc_direct = shape.vcs < 2 ? 0 : 1};
    return self;
}

static void dally_destroy(void *vself)
{
    dally *self = vself;
    free(self->xy);
    free(self);
}

/* improved, no wrap ahead: both escape VCs are safe. The VC tried first is
   a fair coin (INSEE), or the one with more free room downstream, VC 1 on a
   tie (leaving VC 0 to the packets that have no choice). */
static uint16_t improved_first_vc(const dally *self, const insee_route_ctx *ctx,
                                  const insee_hop *hop)
{
    if (self->choice == CHOICE_COIN)
        return (uint16_t)(insee_rng_u64(ctx->rng) >> 63);
    const insee_host *h = self->host;
    uint32_t room0 = h->output_room(h->kernel, ctx->router, hop->port, 0);
    uint32_t room1 = h->output_room(h->kernel, ctx->router, hop->port, 1);
    return room0 > room1 ? 0 : 1;
}

/* Dimension order: the first minimal hop is in the lowest dimension still to
   travel, in the direction the packet's salt chose on a tie. */
static bool first_hop(const dally *self, const insee_route_ctx *ctx, insee_hop *hop)
{
    const insee_host *h = self->host;
    return h->minimal_hops(h->kernel, ctx->router, ctx->dst_node, ctx->salt, hop, 1) == 1;
}

/* trc: is the packet on VC 0 once `hop` is taken? From the router whose
   coordinate in the hop's dimension is 0 on (INSEE): in the - direction that
   is the wrap link itself, in the + direction the hop after it. The Dally
   router serves k-ary n-cubes, where router r hosts node r. */
static bool trc_switched(const dally *self, const insee_route_ctx *ctx, const trc_state *st,
                         const insee_hop *hop)
{
    if (st->dim == hop->dim && st->wrapped)
        return true;
    const insee_host *h = self->host;
    uint32_t n = h->coords(h->kernel, ctx->router, self->xy, self->dims);
    return hop->dim >= 0 && (uint32_t)hop->dim < n && self->xy[hop->dim] == 0;
}

/* adaptive: an adaptive VC (>= 2) with room on any minimal direction, one at
   random, as the paper defines it (INSEE's own code never takes one). */
static bool adaptive_choice(const dally *self, const insee_route_ctx *ctx, insee_candidate *out)
{
    const insee_host *h = self->host;
    insee_hop hops[INSEE_MAX_CANDIDATES];
    uint32_t n = h->minimal_hops(h->kernel, ctx->router, ctx->dst_node, ctx->salt, hops,
                                 INSEE_MAX_CANDIDATES);
    n = insee_hops_one_per_dimension(hops, n);
    insee_candidate viable[INSEE_MAX_CANDIDATES];
    uint32_t nv = 0;
    for (uint32_t i = 0; i < n; i++)
        for (uint16_t vc = 2; vc < self->vcs && nv < INSEE_MAX_CANDIDATES; vc++)
            if (h->output_room(h->kernel, ctx->router, hops[i].port, vc) >= 1)
                viable[nv++] = (insee_candidate){.port = hops[i].port, .vc = vc, .room = 1};
    if (nv == 0)
        return false;
    *out = viable[insee_rng_below(ctx->rng, nv)];
    return true;
}

/* partition: the VC the packet came in on while it goes on in the same
   dimension (an input port is its output port's dimension); at injection
   and at each turn, VC 1 when the wrap link is ahead in the new one. */
static uint16_t partition_vc(const dally *self, const insee_route_ctx *ctx, const insee_hop *hop)
{
    if (ctx->in_port != INSEE_PORT_INJECTION) {
        insee_hop in;
        self->host->port_info(self->host->kernel, ctx->router, ctx->in_port, &in);
        if (in.dim == hop->dim)
            return (uint16_t)ctx->in_vc;
    }
    return (hop->flags & INSEE_HOP_WRAP_AHEAD) ? self->vc_direct : 0;
}

static uint32_t dally_route(void *vself, const insee_route_ctx *ctx, insee_candidate *out,
                            uint32_t max)
{
    (void)max; /* at most 2 candidates; max >= INSEE_MAX_CANDIDATES */
    const dally *self = vself;
    if (self->mode == MODE_ADAPTIVE && adaptive_choice(self, ctx, out))
        return 1;
    insee_hop hop;
    /* No hop only at the destination, which the kernel consumes before
       route(); answer "nothing now" rather than route on garbage. */
    if (!first_hop(self, ctx, &hop))
        return 0;
    bool wrap_ahead = hop.flags & INSEE_HOP_WRAP_AHEAD;
    bool improved = self->mode == MODE_IMPROVED || self->mode == MODE_ADAPTIVE;
    if (improved && !wrap_ahead && self->vc_direct != 0) {
        uint16_t best = improved_first_vc(self, ctx, &hop);
        out[0] = (insee_candidate){.port = hop.port, .vc = best, .room = 1};
        out[1] = (insee_candidate){.port = hop.port, .vc = (uint16_t)(1 - best), .room = 1};
        return 2;
    }
    if (self->mode == MODE_TRC) {
        const trc_state *st = ctx->packet_state;
        bool wrapped = trc_switched(self, ctx, st, &hop);
        /* The tag carries the state after this hop to forwarded(). */
        out[0] = (insee_candidate){.port = hop.port, .vc = wrapped ? 0 : self->vc_direct,
                                   .room = 1,
                                   .tag = ((uint32_t)(uint16_t)hop.dim << 1) | wrapped};
        return 1;
    }
    if (self->mode == MODE_PARTITION) {
        out[0] = (insee_candidate){.port = hop.port, .vc = partition_vc(self, ctx, &hop),
                                   .room = 1};
        return 1;
    }
    /* basic, and improved when the wrap is ahead (or only VC 0 exists) */
    out[0] = (insee_candidate){.port = hop.port, .vc = wrap_ahead ? 0 : self->vc_direct,
                               .room = 1};
    return 1;
}

static size_t dally_packet_state_size(void *vself)
{
    const dally *self = vself;
    return self->mode == MODE_TRC ? sizeof(trc_state) : 0;
}

/* trc remembers, hop by hop, whether the current dimension's wrap link is
   behind the packet: route() computed it into the candidate's tag. */
static void dally_forwarded(void *vself, const insee_route_ctx *ctx,
                            const insee_candidate *granted)
{
    const dally *self = vself;
    if (self->mode != MODE_TRC)
        return;
    trc_state *st = ctx->packet_state;
    *st = (trc_state){.dim = (int16_t)(uint16_t)(granted->tag >> 1),
                      .wrapped = (uint8_t)(granted->tag & 1u)};
}

/* trc and basic depend only on the packet and where it waits. improved with
   vc_choice = "room" gives the same two escape VCs, only their order read
   from the room downstream: steady. With the coin, and adaptive, it draws.
   Only trc keeps packet state, and only trc writes the instance (its
   coordinates' scratch), so basic alone may route on several threads. */
static uint32_t dally_properties(void *vself)
{
    const dally *self = vself;
    uint32_t props = self->mode == MODE_BASIC || self->mode == MODE_PARTITION
                         ? INSEE_ROUTE_PURE | INSEE_ROUTE_CONCURRENT
                     : self->mode == MODE_TRC ? INSEE_ROUTE_PURE
                     : self->mode == MODE_IMPROVED && self->choice == CHOICE_ROOM
                         ? INSEE_ROUTE_STEADY
                         : INSEE_ROUTE_LOCAL; /* draws, and reads its own outputs' room */
    props |= INSEE_ROUTE_NO_DROPS;
    return self->mode == MODE_TRC ? props : props | INSEE_ROUTE_NO_FORWARDED;
}

static const insee_router_vtable dally_vtable = {
    .size = sizeof(insee_router_vtable),
    .create = dally_create,
    .destroy = dally_destroy,
    .route = dally_route,
    .packet_state_size = dally_packet_state_size,
    .forwarded = dally_forwarded,
    .properties = dally_properties,
    /* select_injector NULL: the kernel's "shortest" */
};

static const insee_plugin_desc dally_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_ROUTER,
    .name = "dally",
    .version = "1.0.0",
    .summary = "Dally router: dimension-order routing, two escape VCs (trc, basic, improved), "
               "adaptive VCs (adaptive)",
    .reference = "INSEE §2.2.1",
    .params = dally_params,
    .vtable = &dally_vtable,
};

INSEE_PLUGIN_DEFINE(dally_desc)
