/* bubble.c — the bubble router (INSEE §2.2.2, Fig. 6): an escape VC 0 in
 * dimension order, made deadlock free on rings by bubble flow control (a
 * packet enters a ring only while the ring's queue at this router keeps room
 * for `bubble` packets), plus adaptive VCs >= 1 on any minimal direction.
 * Four request modes decide which output a head asks for each cycle:
 *  - oblivious: dimension order only; a VC drawn at random at injection and
 *    at each change of dimension, kept within a dimension; every VC is a
 *    bubble ring;
 *  - random: an adaptive VC at random among those with room on a minimal
 *    direction; the escape VC when none has room;
 *  - shortest: the adaptive VC with the most free room downstream;
 *  - smart (INSEE's default): the dimensions in turn from a per-packet bet
 *    that persists across cycles, keeping the adaptive VC in the same
 *    dimension and direction; the escape VC when no adaptive one admits it.
 * Each attempt asks for exactly one output, as INSEE does: a head whose
 * choice is held by another packet waits for the next cycle. Room is read in
 * phits as INSEE's phit-by-phit engine sees it (host input_free_phits /
 * output_free_phits, ABI 1.1; whole packets on an older kernel).
 */
#include <insee/insee.h>

#include <stdlib.h>

enum { P_MODE, P_BUBBLE, P_LBR };
enum mode { OBLIVIOUS, RANDOM, SHORTEST, SMART }; /* order of the choices */

static const insee_param_def bubble_params[] = {
    [P_MODE] = {"mode", INSEE_PARAM_ENUM, "\"smart\"", 1, 0, "oblivious|random|shortest|smart",
                NULL, "request mode (INSEE §2.2.2)"},
    [P_BUBBLE] = {"bubble", INSEE_PARAM_INT, "2", 1, 4096, NULL, "packets",
                  "free room a packet must leave in the ring's queue at this router to enter "
                  "the escape ring"},
    [P_LBR] = {"lbr", INSEE_PARAM_INT, "0", 0, 4096, NULL, "packets",
               "local buffer restriction: a packet is injected only while the ring's queue at "
               "this router has this much room (0: off; INSEE §2.2.5)"},
    {0},
};

#define NO_RING 0xFFFFu
#define BET_ESCAPE 0xFFu
#define MAX_DIMS 64u

typedef struct bubble {
    const insee_host *host;
    enum mode mode;
    uint32_t bubble, lbr;
    uint32_t vcs;
    uint32_t L;          /* packet length in phits */
    bool phit_view;      /* the host reads room in phits (ABI 1.1) */
    uint32_t dims;       /* 1 + the largest dimension of a port */
    uint32_t *port_base; /* routers + 1: first entry of each router in the tables */
    /* Per (router, output port): the input port of the same router where the
       packets travelling the same ring (same dimension and direction) arrive,
       or NO_RING (the first router of a mesh line). Its queue is the ring's
       queue that the bubble condition reads. */
    uint16_t *ring_in;
    int16_t *dim;        /* per (router, port): the port's dimension */
} bubble;

#define NO_PORT 0xFFFFu

/* smart: the next dimension to try, counted from the packet's own, or
   BET_ESCAPE. Zeroed at generation and after every grant (INSEE's
   B_TRIAL_0), it persists while the head waits. A head past saturation
   asks every cycle, so the minimal directions at its router are kept too:
   they depend only on the router, the destination and the salt, and asking
   the topology for them was a third of each attempt. */
typedef struct smart_state {
    uint8_t bet;
    uint16_t escape;  /* the dimension-order hop's port, or NO_PORT: none */
    uint32_t at;      /* 1 + the router the ports are for; 0: none yet */
    uint16_t port[];  /* per dimension: its minimal direction's port, or NO_PORT */
} smart_state;

static void bubble_destroy(void *vself)
{
    bubble *self = vself;
    if (!self)
        return;
    free(self->port_base);
    free(self->ring_in);
    free(self->dim);
    free(self);
}

/* Fill dim[] from port_info() and ring_in[] from the links: output (r', p')
   leads to input (r, q) in the direction of (dim, dir); the output of r with
   the same (dim, dir) continues that ring, so its ring queue is q. Returns
   false (err set) on a port without a dimension. */
static bool map_rings(bubble *self, uint32_t routers, insee_error *err)
{
    const insee_host *h = self->host;
    for (uint32_t r = 0; r < routers; r++) {
        for (uint32_t p = 0; p < self->port_base[r + 1] - self->port_base[r]; p++) {
            insee_hop info;
            h->port_info(h->kernel, r, p, &info);
            if (info.dim < 0 || info.dir == 0 || (info.flags & (INSEE_HOP_UP | INSEE_HOP_DOWN))) {
                insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                                "bubble: port %u of router %u is not a link along a dimension "
                                "ring (a tree, a graph or a fully connected dimension); use "
                                "plugin = \"updown\" in [router]",
                                p, r);
                return false;
            }
            self->dim[self->port_base[r] + p] = info.dim;
            if ((uint32_t)info.dim + 1 > self->dims)
                self->dims = (uint32_t)info.dim + 1;
        }
    }
    if (self->dims > MAX_DIMS) {
        insee_error_set(err, INSEE_ERR_UNSUPPORTED, "bubble: %u dimensions (at most %u)",
                        self->dims, MAX_DIMS);
        return false;
    }
    for (uint32_t r = 0; r < routers; r++) {
        for (uint32_t p = 0; p < self->port_base[r + 1] - self->port_base[r]; p++) {
            insee_port_peer peer;
            if (!h->peer(h->kernel, r, p, &peer))
                continue;
            insee_hop out;
            h->port_info(h->kernel, r, p, &out);
            uint32_t first = self->port_base[peer.router];
            uint32_t n = self->port_base[peer.router + 1] - first;
            for (uint32_t q = 0; q < n; q++) {
                insee_hop next;
                h->port_info(h->kernel, peer.router, q, &next);
                if (next.dim == out.dim && next.dir == out.dir)
                    self->ring_in[first + q] = (uint16_t)peer.port;
            }
        }
    }
    return true;
}

static void *bubble_create(const insee_host *host, const insee_value *params, insee_error *err)
{
    insee_shape shape;
    host->shape(host->kernel, &shape);
    enum mode mode = (enum mode)params[P_MODE].i;
    uint32_t min_vcs = mode == OBLIVIOUS ? 1 : 2;
    if (shape.vcs < min_vcs) {
        insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                        "bubble: mode \"%s\" needs an escape VC and at least one adaptive VC, "
                        "but vcs = %u; set vcs = 2 (or more) in [router]",
                        params[P_MODE].s, shape.vcs);
        return NULL;
    }
    if ((uint64_t)params[P_BUBBLE].i > shape.queue_packets) {
        insee_error_set(err, INSEE_ERR_PARAM,
                        "bubble: bubble = %lld packets cannot fit in queues of %u packets "
                        "(queue_packets): no packet could ever enter a ring; lower bubble or "
                        "raise queue_packets",
                        (long long)params[P_BUBBLE].i, shape.queue_packets);
        return NULL;
    }
    bubble *self = calloc(1, sizeof *self);
    if (!self) {
        insee_error_set(err, INSEE_ERR_NOMEM, "bubble: out of memory");
        return NULL;
    }
    *self = (bubble){.host = host, .mode = mode, .bubble = (uint32_t)params[P_BUBBLE].i,
                     .lbr = (uint32_t)params[P_LBR].i, .vcs = shape.vcs,
                     .L = shape.packet_phits,
                     .phit_view = INSEE_HOST_HAS(host, input_free_phits) &&
                                  INSEE_HOST_HAS(host, output_free_phits)};
    self->port_base = malloc(sizeof(uint32_t) * ((size_t)shape.routers + 1));
    if (self->port_base) {
        uint32_t total = 0;
        for (uint32_t r = 0; r < shape.routers; r++) {
            self->port_base[r] = total;
            total += host->ports(host->kernel, r);
        }
        self->port_base[shape.routers] = total;
        self->ring_in = malloc(sizeof(uint16_t) * ((size_t)total + 1));
        self->dim = malloc(sizeof(int16_t) * ((size_t)total + 1));
        for (uint32_t i = 0; self->ring_in && i < total; i++)
            self->ring_in[i] = NO_RING;
    }
    if (!self->port_base || !self->ring_in || !self->dim) {
        bubble_destroy(self);
        insee_error_set(err, INSEE_ERR_NOMEM, "bubble: out of memory");
        return NULL;
    }
    if (!map_rings(self, shape.routers, err)) {
        bubble_destroy(self);
        return NULL;
    }
    return self;
}

/* Free phits downstream of output `port` of this router on VC `vc`. */
static uint32_t output_phits(const bubble *self, uint32_t router, uint32_t port, uint16_t vc)
{
    const insee_host *h = self->host;
    if (self->phit_view)
        return h->output_free_phits(h->kernel, router, port, vc);
    return h->output_room(h->kernel, router, port, vc) * self->L;
}

/* Free phits of the ring's queue at this router for output `port`, VC `vc`;
   as good as infinite when no ring arrives here. */
static uint32_t ring_phits(const bubble *self, const insee_route_ctx *ctx, uint32_t port,
                           uint16_t vc)
{
    const insee_host *h = self->host;
    uint16_t q = self->ring_in[self->port_base[ctx->router] + port];
    if (q == NO_RING)
        return UINT32_MAX;
    if (self->phit_view)
        return h->input_free_phits(h->kernel, ctx->router, q, vc);
    return h->input_room(h->kernel, ctx->router, q, vc) * self->L;
}

static bool continues_ring(const bubble *self, const insee_route_ctx *ctx, uint32_t port)
{
    return ctx->in_port != INSEE_PORT_INJECTION &&
           self->ring_in[self->port_base[ctx->router] + port] == ctx->in_port;
}

/* What every candidate needs besides one packet of room downstream (which
   the kernel checks): the bubble when entering a bubble ring (escape VC 0,
   or any VC in oblivious mode) from injection, another ring or another VC;
   the local buffer restriction when injecting. */
static bool admits(const bubble *self, const insee_route_ctx *ctx, uint32_t port, uint16_t vc)
{
    bool bubble_ring = vc == 0 || self->mode == OBLIVIOUS;
    bool entering = !continues_ring(self, ctx, port) || ctx->in_vc != vc;
    if (bubble_ring && entering && ring_phits(self, ctx, port, vc) < self->bubble * self->L)
        return false;
    return self->lbr == 0 || ctx->in_port != INSEE_PORT_INJECTION ||
           ring_phits(self, ctx, port, vc) >= self->lbr * self->L;
}

/* An adaptive VC (>= 1) that has room for the packet downstream and passes
   admits(). */
static bool adaptive_viable(const bubble *self, const insee_route_ctx *ctx, uint32_t port,
                            uint16_t vc)
{
    return output_phits(self, ctx->router, port, vc) >= self->L && admits(self, ctx, port, vc);
}

static uint32_t one(insee_candidate *out, uint32_t port, uint16_t vc)
{
    out[0] = (insee_candidate){.port = port, .vc = vc, .room = 1};
    return 1;
}

/* The escape VC on `port`, the dimension-order hop, if admitted. */
static uint32_t escape(const bubble *self, const insee_route_ctx *ctx, uint32_t port,
                       insee_candidate *out)
{
    return admits(self, ctx, port, 0) ? one(out, port, 0) : 0;
}

/* With one adaptive VC there is nothing to draw (bubble_properties()
   declares so). */
static uint16_t random_adaptive_vc(const bubble *self, const insee_route_ctx *ctx)
{
    return self->vcs == 2 ? 1 : (uint16_t)(1 + insee_rng_below(ctx->rng, self->vcs - 1));
}

static uint32_t route_oblivious(const bubble *self, const insee_route_ctx *ctx,
                                const insee_hop *dor, insee_candidate *out)
{
    bool same_dim = ctx->in_port != INSEE_PORT_INJECTION &&
                    self->dim[self->port_base[ctx->router] + ctx->in_port] == dor->dim;
    uint16_t vc = same_dim || self->vcs == 1 ? (uint16_t)ctx->in_vc
                                             : (uint16_t)insee_rng_below(ctx->rng, self->vcs);
    return admits(self, ctx, dor->port, vc) ? one(out, dor->port, vc) : 0;
}

/* random / shortest: every adaptive VC on every minimal direction that
   admits the packet; one at random, or the first with the most free room
   downstream. */
static uint32_t route_adaptive(const bubble *self, const insee_route_ctx *ctx,
                               const insee_hop *dir, uint32_t ndir, insee_candidate *out)
{
    insee_candidate viable[INSEE_MAX_CANDIDATES];
    uint32_t n = 0, best = 0, best_room = 0;
    for (uint32_t i = 0; i < ndir; i++) {
        for (uint16_t vc = 1; vc < self->vcs && n < INSEE_MAX_CANDIDATES; vc++) {
            if (!adaptive_viable(self, ctx, dir[i].port, vc))
                continue;
            uint32_t room = output_phits(self, ctx->router, dir[i].port, vc);
            if (room > best_room) {
                best_room = room;
                best = n;
            }
            viable[n++] = (insee_candidate){.port = dir[i].port, .vc = vc, .room = 1};
        }
    }
    if (n == 0)
        return escape(self, ctx, dir[0].port, out);
    out[0] = viable[self->mode == RANDOM ? insee_rng_below(ctx->rng, n) : best];
    return 1;
}

static uint8_t next_bet(const bubble *self, uint8_t bet)
{
    return bet + 1u < self->dims ? (uint8_t)(bet + 1) : BET_ESCAPE;
}

/* The minimal directions of the packet at this router into its state: one
   per dimension, as INSEE's routing record has (on a tie the one the
   packet's salt chose), and the dimension-order hop of the escape VC. */
static void smart_directions(const bubble *self, const insee_route_ctx *ctx, smart_state *st)
{
    const insee_host *h = self->host;
    insee_hop hops[INSEE_MAX_CANDIDATES];
    uint32_t n = h->minimal_hops(h->kernel, ctx->router, ctx->dst_node, ctx->salt, hops,
                                 INSEE_MAX_CANDIDATES);
    uint32_t ndir = insee_hops_one_per_dimension(hops, n);
    for (uint32_t d = 0; d < self->dims; d++)
        st->port[d] = NO_PORT;
    for (uint32_t i = 0; i < ndir; i++)
        if (hops[i].dim >= 0 && (uint32_t)hops[i].dim < self->dims)
            st->port[hops[i].dim] = hops[i].port;
    st->escape = n ? hops[0].port : NO_PORT;
    st->at = ctx->router + 1;
}

/* smart: from the bet on, the dimensions in turn, counted from the packet's
   own dimension (from 0 at injection); the first minimal direction whose
   adaptive VC admits the packet is asked for, and the bet moves on so that
   a head that loses tries the next dimension next cycle. */
static uint32_t route_smart(const bubble *self, const insee_route_ctx *ctx, insee_candidate *out)
{
    smart_state *st = ctx->packet_state;
    if (st->at != ctx->router + 1)
        smart_directions(self, ctx, st);
    if (st->escape == NO_PORT)
        return 0;
    bool injecting = ctx->in_port == INSEE_PORT_INJECTION;
    uint32_t own = injecting ? 0 : (uint32_t)self->dim[self->port_base[ctx->router] + ctx->in_port];
    for (uint8_t bet = st->bet; bet != BET_ESCAPE; bet = next_bet(self, bet)) {
        uint32_t port = st->port[(own + bet) % self->dims];
        if (port == NO_PORT)
            continue;
        bool keep = !injecting && ctx->in_vc != 0 && continues_ring(self, ctx, port);
        uint16_t vc = keep ? (uint16_t)ctx->in_vc : random_adaptive_vc(self, ctx);
        if (!adaptive_viable(self, ctx, port, vc))
            continue;
        st->bet = next_bet(self, bet);
        return one(out, port, vc);
    }
    st->bet = 0;
    return escape(self, ctx, st->escape, out);
}

static uint32_t bubble_route(void *vself, const insee_route_ctx *ctx, insee_candidate *out,
                             uint32_t max)
{
    (void)max; /* one candidate */
    const bubble *self = vself;
    const insee_host *h = self->host;
    if (self->mode == SMART)
        return route_smart(self, ctx, out);
    insee_hop hops[INSEE_MAX_CANDIDATES];
    uint32_t n = h->minimal_hops(h->kernel, ctx->router, ctx->dst_node, ctx->salt, hops,
                                 INSEE_MAX_CANDIDATES);
    if (n == 0)
        return 0;
    if (self->mode == OBLIVIOUS)
        return route_oblivious(self, ctx, &hops[0], out);
    uint32_t ndir = insee_hops_one_per_dimension(hops, n);
    return route_adaptive(self, ctx, hops, ndir, out);
}

/* What admits() asks of the ring's queue for (port, vc), as a bound's
   need (INSEE_BOUND_NEEDS): the bubble on entering a bubble ring, the LBR's
   room at injection, the larger of both; 0: none, or more than a need can
   say (the bound then just asks no room there, which is still a bound). */
static uint32_t admits_need(const bubble *self, const insee_route_ctx *ctx, uint32_t port,
                            uint16_t vc)
{
    uint16_t q = self->ring_in[self->port_base[ctx->router] + port];
    if (q == NO_RING)
        return 0;
    bool bubble_ring = vc == 0 || self->mode == OBLIVIOUS;
    bool entering = !continues_ring(self, ctx, port) || ctx->in_vc != vc;
    uint32_t need = bubble_ring && entering ? self->bubble : 0;
    if (ctx->in_port == INSEE_PORT_INJECTION && self->lbr > need)
        need = self->lbr;
    return need > 0 && need < 128 ? INSEE_BOUND_NEEDS(q, vc, need) : 0;
}

/* One candidate of the bound: (port, vc), one packet of room downstream
   as route() asks, and what admits() needs of the ring's queue. */
static uint32_t bound_entry(const bubble *self, const insee_route_ctx *ctx, uint32_t port,
                            uint16_t vc, insee_candidate *out)
{
    one(out, port, vc);
    out->tag = admits_need(self, ctx, port, vc);
    return 1;
}

/* smart keeps the minimal directions at the router it waits at in the
   packet's state (smart_directions()): the same set, without asking the
   topology again. */
static uint32_t smart_route_bound(const bubble *self, const insee_route_ctx *ctx,
                                  insee_candidate *out, uint32_t max)
{
    const smart_state *st = ctx->packet_state;
    if (st->escape == NO_PORT)
        return 0;
    uint32_t w = 0;
    for (uint32_t d = 0; d < self->dims; d++)
        for (uint16_t vc = 1; st->port[d] != NO_PORT && vc < self->vcs; vc++) {
            if (w + 1 >= max)
                return 0; /* not the whole set: no bound */
            w += bound_entry(self, ctx, st->port[d], vc, out + w);
        }
    return w + bound_entry(self, ctx, st->escape, 0, out + w);
}

/* Every adaptive VC on every minimal direction, then the escape VC on the
   dimension-order hop: whatever random, shortest and smart draw or read,
   they answer one of these (oblivious: the dimension-order hop on the VC
   it keeps within a dimension, or on any VC), each only while admits()
   lets it through. */
static uint32_t bubble_route_bound(void *vself, const insee_route_ctx *ctx,
                                   insee_candidate *out, uint32_t max)
{
    const bubble *self = vself;
    const insee_host *h = self->host;
    if (self->mode == SMART && ((const smart_state *)ctx->packet_state)->at == ctx->router + 1)
        return smart_route_bound(self, ctx, out, max);
    insee_hop hops[INSEE_MAX_CANDIDATES];
    uint32_t n = h->minimal_hops(h->kernel, ctx->router, ctx->dst_node, ctx->salt, hops,
                                 INSEE_MAX_CANDIDATES);
    if (n == 0)
        return 0;
    uint32_t w = 0;
    if (self->mode == OBLIVIOUS) {
        bool same_dim = ctx->in_port != INSEE_PORT_INJECTION &&
                        self->dim[self->port_base[ctx->router] + ctx->in_port] == hops[0].dim;
        for (uint16_t vc = 0; vc < self->vcs; vc++)
            if ((!same_dim || vc == ctx->in_vc) && w < max)
                w += bound_entry(self, ctx, hops[0].port, vc, out + w);
        return w;
    }
    uint32_t ndir = insee_hops_one_per_dimension(hops, n);
    if ((uint64_t)ndir * (self->vcs - 1) + 1 > max)
        return 0; /* not the whole set: no bound */
    for (uint32_t i = 0; i < ndir; i++)
        for (uint16_t vc = 1; vc < self->vcs; vc++)
            w += bound_entry(self, ctx, hops[i].port, vc, out + w);
    return w + bound_entry(self, ctx, hops[0].port, 0, out + w);
}

static size_t bubble_packet_state_size(void *vself)
{
    const bubble *self = vself;
    return self->mode == SMART ? sizeof(smart_state) + sizeof(uint16_t) * self->dims : 0;
}

/* A grant resets smart's bet: the next router starts from its own
   dimension again. */
static void bubble_forwarded(void *vself, const insee_route_ctx *ctx,
                             const insee_candidate *granted)
{
    (void)vself;
    (void)granted;
    smart_state *st = ctx->packet_state;
    st->bet = 0;
}

/* Every mode draws at random or reads the network's room: never pure; but
   only its own router's queues and outputs. Only smart keeps packet
   state. shortest never draws, nor smart with one adaptive VC, nor
   oblivious with one VC. */
static uint32_t bubble_properties(void *vself)
{
    const bubble *self = vself;
    bool draws = self->mode == RANDOM || (self->mode == SMART && self->vcs > 2) ||
                 (self->mode == OBLIVIOUS && self->vcs > 1);
    return INSEE_ROUTE_LOCAL | INSEE_ROUTE_NO_DROPS | (self->mode == SMART ? 0u : INSEE_ROUTE_NO_FORWARDED) |
           (draws ? 0u : INSEE_ROUTE_NO_DRAWS);
}

static const insee_router_vtable bubble_vtable = {
    .size = sizeof(insee_router_vtable),
    .create = bubble_create,
    .destroy = bubble_destroy,
    .route = bubble_route,
    .packet_state_size = bubble_packet_state_size,
    .forwarded = bubble_forwarded,
    .properties = bubble_properties,
    .route_bound = bubble_route_bound,
};

static const insee_plugin_desc bubble_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_ROUTER,
    .name = "bubble",
    .version = "1.0.0",
    .summary = "bubble router: escape VC in dimension order with bubble flow control, "
               "adaptive VCs (oblivious, random, shortest, smart)",
    .reference = "INSEE §2.2.2",
    .params = bubble_params,
    .vtable = &bubble_vtable,
};

INSEE_PLUGIN_DEFINE(bubble_desc)
