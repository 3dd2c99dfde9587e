/* multistage.c — INSEE's multi-stage router (§2.2.3) for k-ary n-trees and
 * k:k'-ary n-thin-trees: shortest up*-down* routes, climbing to a nearest
 * common ancestor of source and destination, then descending. A route never
 * turns up after going down, so the channel dependencies have no cycle and
 * the router is deadlock free with any number of VCs.
 *
 * The topology says where a packet stands: host->minimal_hops() lists every
 * up port (flagged INSEE_HOP_UP) while the destination is not below this
 * switch, then the one down port toward it (INSEE_HOP_DOWN). The router only
 * chooses among the up ports, and the VC:
 *  - static: up port by the source, (source / k^level) mod k' (at the
 *    leaves source mod k', the paper's source_id mod k; higher up the
 *    source's next digits, as INSEE's own code does, so that the sources
 *    spread over every top switch instead of k of them); the VC is the
 *    packet's salt mod vcs, a random draw fixed at generation, kept all the
 *    way (the paper: drawn at injection, never left). The level is the up
 *    hops' dim; a network interface's one hop (dim -1) leaves no choice.
 *    rule = "insee" is INSEE's code instead: the VC added to the up port's
 *    index before the mod, and at a network interface the VC drawn anew at
 *    every attempt, then kept (the VC the packet came in on). up_by =
 *    "destination" takes the destination's digits instead of the source's,
 *    as INSEE's thin-tree code does.
 *  - adaptive: the (up port, VC) with most free room downstream, the one
 *    down port's VC with most room going down; ties drawn at random (with
 *    rule = "insee" the first of the roomiest, in port and VC order,
 *    weighs twice: INSEE's min_queue_occupation() records it twice).
 * Each attempt asks for exactly one output, as INSEE does: a head whose
 * choice is not admitted waits for the next cycle and chooses again.
 */
#include <insee/insee.h>

#include <stdlib.h>

enum { P_MODE, P_RULE, P_UP_BY };
enum mode { STATIC, ADAPTIVE }; /* order of the choices */
enum rule { RULE_PAPER, RULE_INSEE }; /* order of the choices */
enum up_by { BY_SOURCE, BY_DESTINATION }; /* order of the choices */

static const insee_param_def multistage_params[] = {
    [P_MODE] = {"mode", INSEE_PARAM_ENUM, "\"adaptive\"", 1, 0, "static|adaptive", NULL,
                "routing (INSEE §2.2.3): up ports fixed by the source and one VC per packet "
                "(static), or the up port and VC with most free room downstream (adaptive); "
                "down ports follow the destination"},
    [P_RULE] = {"rule", INSEE_PARAM_ENUM, "\"paper\"", 1, 0, "paper|insee", NULL,
                "each mode as the paper defines it (paper), or as INSEE's code does it "
                "(insee): static adds the VC to the up port and draws it at every attempt "
                "at a network interface; adaptive counts the first roomiest twice in ties"},
    [P_UP_BY] = {"up_by", INSEE_PARAM_ENUM, "\"source\"", 1, 0, "source|destination", NULL,
                 "static: the node whose digits pick the up port, the source (the paper) or "
                 "the destination (INSEE's code on thin-trees, check_rr_thintree_static)"},
    {0},
};

/* Up-hop dims the static mode tables, -1 (a network interface) .. 62;
   deeper dims share the last entry. */
#define UP_DIMS 64

/* The static mode's view of the switches whose up hops have one dim. */
typedef struct up_level {
    /* k^level (1 for dim -1), no higher than the first power past the last
       node: the source counted in blocks of this many nodes. */
    uint64_t span;
    uint32_t ups; /* their up ports (direct only) */
} up_level;

typedef struct multistage {
    const insee_host *host;
    enum mode mode;
    bool insee_rule; /* rule = "insee" */
    bool by_dst;     /* up_by = "destination" */
    uint32_t vcs;
    uint32_t L;     /* packet_phits: free phits from free packets on an ABI 1.0 host */
    uint32_t k;     /* nodes per leaf switch: the base of the source's digits */
    bool phit_view; /* the host reports room in phits (ABI 1.1) */
    /* direct: every switch's plugged up ports are consecutive, the same
       number at every switch of a level (level[].ups), and the topology
       lists them all in port order; the static mode then asks it for the
       first hop only and counts the rest itself, instead of having all
       k' written out at every hop. */
    bool direct;
    uint32_t ask;            /* hops asked of the topology: 1 when direct */
    up_level level[UP_DIMS]; /* by up_index(dim) */
} multistage;

static uint32_t up_index(int dim)
{
    return dim < 0 ? 0u : dim < (int)UP_DIMS - 1 ? (uint32_t)dim + 1 : UP_DIMS - 1;
}

static void multistage_destroy(void *vself)
{
    free(vself);
}

/* Whether the topology lists exactly router r's `ups` up ports from
   `first`, in port order, where the destination is not below it (the nodes
   at both ends, with two salts, stand for every destination). */
static bool lists_ups(const insee_host *h, uint32_t r, uint32_t nodes, uint32_t first,
                      uint32_t ups, int16_t dim)
{
    insee_hop hops[INSEE_MAX_CANDIDATES];
    for (uint32_t end = 0; end < 2; end++) {
        uint32_t n = h->minimal_hops(h->kernel, r, end ? nodes - 1 : 0, end, hops,
                                     INSEE_MAX_CANDIDATES);
        if (n == 0 || !(hops[0].flags & INSEE_HOP_UP))
            continue;
        if (n != ups)
            return false;
        for (uint32_t i = 0; i < n; i++)
            if (hops[i].port != first + i || hops[i].dim != dim)
                return false;
    }
    return true;
}

/* Only a tree will do: every link labelled up or down by the topology, and
   no more up ports at a switch than the minimal hops route() reads. Sets
   self->direct and self->level[].ups where the up ports allow it. */
static bool is_tree(multistage *self, const insee_shape *shape, insee_error *err)
{
    const insee_host *h = self->host;
    self->direct = true;
    for (uint32_t r = 0; r < shape->routers; r++) {
        uint32_t ups = 0, first = 0;
        int16_t dim = 0;
        for (uint32_t p = 0; p < h->ports(h->kernel, r); p++) {
            insee_port_peer peer;
            if (!h->peer(h->kernel, r, p, &peer))
                continue;
            insee_hop info;
            h->port_info(h->kernel, r, p, &info);
            uint8_t way = info.flags & (INSEE_HOP_UP | INSEE_HOP_DOWN);
            if (way != INSEE_HOP_UP && way != INSEE_HOP_DOWN) {
                insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                                "multistage: port %u of router %u is not labelled up or down: "
                                "the multistage router needs a tree (kary-ntree, thin-tree); "
                                "use plugin = \"updown\" or \"ecmp\" in [router]",
                                p, r);
                return false;
            }
            if (way != INSEE_HOP_UP)
                continue;
            if (ups == 0) {
                first = p;
                dim = info.dim;
            }
            self->direct &= p == first + ups && info.dim == dim;
            ups++;
        }
        if (ups > INSEE_MAX_CANDIDATES) {
            insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                            "multistage: router %u has %u up ports, more than the %u minimal "
                            "hops route() reads; use at most %u up ports per switch",
                            r, ups, INSEE_MAX_CANDIDATES, INSEE_MAX_CANDIDATES);
            return false;
        }
        if (ups == 0 || !self->direct)
            continue;
        uint32_t *at = dim >= -1 && dim < UP_DIMS - 1 ? &self->level[dim + 1].ups : NULL;
        self->direct = at && (*at == 0 || *at == ups) &&
                       lists_ups(h, r, shape->nodes, first, ups, dim);
        if (self->direct)
            *at = ups;
    }
    return true;
}

/* The leaf switch of a node: its router, or the one past its network
   interface (a router of one port, up, in no dimension: topology nic = true). */
static uint32_t leaf_of(const insee_host *h, uint32_t node)
{
    uint32_t r = h->node_router(h->kernel, node);
    insee_hop info;
    insee_port_peer peer;
    h->port_info(h->kernel, r, 0, &info);
    if (h->ports(h->kernel, r) == 1 && info.dim < 0 && (info.flags & INSEE_HOP_UP) &&
        h->peer(h->kernel, r, 0, &peer))
        return peer.router;
    return r;
}

static void *multistage_create(const insee_host *host, const insee_value *params,
                               insee_error *err)
{
    insee_shape shape;
    host->shape(host->kernel, &shape);
    multistage *self = calloc(1, sizeof *self);
    if (!self) {
        insee_error_set(err, INSEE_ERR_NOMEM, "multistage: out of memory");
        return NULL;
    }
    *self = (multistage){.host = host, .mode = (enum mode)params[P_MODE].i,
                         .insee_rule = params[P_RULE].i == RULE_INSEE,
                         .by_dst = params[P_UP_BY].i == BY_DESTINATION, .vcs = shape.vcs,
                         .L = shape.packet_phits,
                         .phit_view = INSEE_HOST_HAS(host, output_free_phits)};
    if (!is_tree(self, &shape, err)) {
        free(self);
        return NULL;
    }
    /* The trees attach node y to leaf y / k. */
    uint32_t leaf = leaf_of(host, 0);
    while (self->k < shape.nodes && leaf_of(host, self->k) == leaf)
        self->k++;
    self->level[0].span = self->level[1].span = 1;
    for (uint32_t d = 2; d < UP_DIMS; d++) {
        uint64_t below = self->level[d - 1].span;
        self->level[d].span = below < shape.nodes ? below * self->k : below;
    }
    self->direct &= self->mode == STATIC;
    self->ask = self->direct ? 1 : INSEE_MAX_CANDIDATES;
    return self;
}

/* Free room downstream of (port, vc), in phits as INSEE's credits count it. */
static uint32_t free_phits(const multistage *self, uint32_t router, uint32_t port, uint16_t vc)
{
    const insee_host *h = self->host;
    if (self->phit_view)
        return h->output_free_phits(h->kernel, router, port, vc);
    return h->output_room(h->kernel, router, port, vc) * self->L;
}

/* Of every VC of every listed hop, the one with most free room; among equals
   one drawn uniformly (reservoir sampling: the t-th tie replaces the choice
   with probability 1/t), or with INSEE's rule the first counted as two. */
static insee_candidate roomiest(const multistage *self, const insee_route_ctx *ctx,
                                const insee_hop *hops, uint32_t n)
{
    insee_candidate choice = {0};
    uint32_t best = 0, ties = 0;
    for (uint32_t i = 0; i < n; i++) {
        for (uint16_t vc = 0; vc < self->vcs; vc++) {
            uint32_t room = free_phits(self, ctx->router, hops[i].port, vc);
            insee_candidate c = {.port = hops[i].port, .vc = vc, .room = 1};
            if (ties == 0 || room > best) {
                best = room;
                ties = self->insee_rule ? 2 : 1; /* INSEE: the first best counts twice */
                choice = c;
            } else if (room == best && insee_rng_below(ctx->rng, ++ties) == 0) {
                choice = c;
            }
        }
    }
    return choice;
}

/* The static mode's VC: the salt's, drawn at generation and kept (the
   paper); with INSEE's rule drawn anew at every attempt at a network
   interface (INSEE's check_rr_fattree_static: rand() % nchan while the
   packet has made no hop), then the VC it came in on. */
static uint16_t static_vc(const multistage *self, const insee_route_ctx *ctx,
                          const insee_hop *hop)
{
    if (!self->insee_rule)
        return (uint16_t)(ctx->salt % self->vcs);
    if (ctx->in_port != INSEE_PORT_INJECTION)
        return (uint16_t)ctx->in_vc;
    if (hop->dim < 0)
        return (uint16_t)insee_rng_below(ctx->rng, self->vcs);
    return (uint16_t)(ctx->salt % self->vcs); /* no interface: injected at the leaf */
}

static uint32_t multistage_route(void *vself, const insee_route_ctx *ctx, insee_candidate *out,
                                 uint32_t max)
{
    (void)max; /* one candidate */
    const multistage *self = vself;
    const insee_host *h = self->host;
    insee_hop hops[INSEE_MAX_CANDIDATES];
    uint32_t n = h->minimal_hops(h->kernel, ctx->router, ctx->dst_node, ctx->salt, hops,
                                 self->ask);
    if (n == 0)
        return 0; /* cannot happen: the kernel consumes where the destination attaches */
    if (self->mode == ADAPTIVE) {
        out[0] = roomiest(self, ctx, hops, n);
        return 1;
    }
    /* Going down the one hop listed is the way. */
    uint16_t vc = static_vc(self, ctx, &hops[0]);
    uint32_t port = hops[0].port;
    if (hops[0].flags & INSEE_HOP_UP) {
        /* The source (or destination) counted in blocks of k^level nodes,
           the nodes below one switch of this level (the up hops' dim, as the
           trees label them). Mod the up ports it is source mod k' at the
           leaves and, with k' = k, the source's base-k digit of each level
           above. INSEE's code adds the packet's VC. */
        const up_level *l = &self->level[up_index(hops[0].dim)];
        uint32_t key = self->by_dst ? ctx->dst_node : ctx->src_node;
        uint32_t block = (uint32_t)(key / l->span) + (self->insee_rule ? vc : 0u);
        port = self->direct ? port + block % l->ups : hops[block % n].port;
    }
    out[0] = (insee_candidate){.port = port, .vc = vc, .room = 1};
    return 1;
}

/* static depends only on the packet and where it is: the kernel may keep its
   answer while the head waits. adaptive reads the room of its own router's
   outputs and draws ties, and INSEE's static rule draws at the interfaces:
   local. route() writes nothing of the instance, so static may route on
   several threads. */
static uint32_t multistage_properties(void *vself)
{
    const multistage *self = vself;
    return INSEE_ROUTE_NO_DROPS | (self->mode == STATIC && !self->insee_rule
                                       ? INSEE_ROUTE_PURE | INSEE_ROUTE_CONCURRENT
                                       : INSEE_ROUTE_LOCAL);
}

static const insee_router_vtable multistage_vtable = {
    .size = sizeof(insee_router_vtable),
    .create = multistage_create,
    .destroy = multistage_destroy,
    .route = multistage_route,
    .properties = multistage_properties,
};

static const insee_plugin_desc multistage_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_ROUTER,
    .name = "multistage",
    .version = "1.0.0",
    .summary = "multi-stage router for k-ary n-trees and thin-trees: shortest up*-down* "
               "routes, up ports static (by source) or adaptive (by free room)",
    .reference = "INSEE §2.2.3",
    .params = multistage_params,
    .vtable = &multistage_vtable,
};

INSEE_PLUGIN_DEFINE(multistage_desc)
