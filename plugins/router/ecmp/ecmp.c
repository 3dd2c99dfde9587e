/* ecmp.c — Equal Cost Multiple Paths (INRFlow §3.2, Navaridas et al. 2019)
 * for a packet-level simulator, on any bidirectional topology: a packet
 * spreads over every shortest path by taking, at each router, a random
 * minimal port (host->minimal_hops()) on a random adaptive VC (>= 1) with
 * room. Shortest paths alone can close a cycle of waiting packets, so VC 0
 * is an escape: up*-down* routes (the tables of ../updown/updown_tables.c).
 * A packet on an adaptive VC may drop to the escape VC at any router, and a
 * packet on the escape VC stays on it to its destination; that escape
 * network has no cyclic dependency and nothing it waits for depends on the
 * adaptive VCs, so every packet can always drain (Duato's condition).
 *
 * route() returns the adaptive candidates with room in a random order, then
 * the escape ones, so the kernel takes a random admissible shortest-path hop
 * and falls back on the escape VC only when none is admissible.
 */
#include "updown_tables.h"

#include <stdlib.h>

enum { P_ROOT };

static const insee_param_def ecmp_params[] = {
    [P_ROOT] = {"root", INSEE_PARAM_INT, "0", 0, 4294967295.0, NULL, NULL,
                "root of the BFS spanning tree that orders the escape VC's up*-down* routes, "
                "when the topology does not say which way is up"},
    {0},
};

/* At most this many escape candidates, so the adaptive ones keep at least
   half of the list. */
#define MAX_ESCAPES (INSEE_MAX_CANDIDATES / 2)

typedef struct ecmp {
    uint32_t vcs;
    updown_tables escape;
} ecmp;

/* The escape route's progress, meaningful once the packet is on VC 0 (it
   never leaves it). */
typedef struct ecmp_state {
    uint8_t gone_down; /* no up hop may follow */
} ecmp_state;

static void ecmp_destroy(void *vself)
{
    ecmp *self = vself;
    if (!self)
        return;
    updown_tables_free(&self->escape);
    free(self);
}

static void *ecmp_create(const insee_host *host, const insee_value *params, insee_error *err)
{
    insee_shape shape;
    host->shape(host->kernel, &shape);
    if (shape.vcs < 2) {
        insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                        "ecmp: needs the escape VC 0 and at least one adaptive VC, but vcs = %u; "
                        "set vcs = 2 (or more) in [router]",
                        shape.vcs);
        return NULL;
    }
    ecmp *self = calloc(1, sizeof *self);
    if (!self) {
        insee_error_set(err, INSEE_ERR_NOMEM, "ecmp: out of memory");
        return NULL;
    }
    self->vcs = shape.vcs;
    /* A packet may drop to the escape VC at any router a shortest path
       crosses, not only where nodes attach: every router needs a legal route
       to every destination. */
    if (!updown_tables_build(&self->escape, host, "ecmp", params[P_ROOT].i, true, err)) {
        ecmp_destroy(self);
        return NULL;
    }
    return self;
}

/* Every adaptive VC with room on every minimal port, at most `budget` of
   them, in a uniformly random order: reservoir sampling (Algorithm R) keeps a
   uniform subset when there are more, then a Fisher-Yates shuffle orders it. */
static uint32_t adaptive_candidates(const ecmp *self, const insee_route_ctx *ctx,
                                    insee_candidate *out, uint32_t budget)
{
    const insee_host *h = self->escape.host;
    insee_hop hops[INSEE_MAX_CANDIDATES];
    uint32_t nh = h->minimal_hops(h->kernel, ctx->router, ctx->dst_node, ctx->salt, hops,
                                  INSEE_MAX_CANDIDATES);
    uint32_t seen = 0;
    for (uint32_t i = 0; i < nh; i++) {
        for (uint16_t vc = 1; vc < self->vcs; vc++) {
            if (h->output_room(h->kernel, ctx->router, hops[i].port, vc) == 0)
                continue;
            insee_candidate c = {.port = hops[i].port, .vc = vc, .room = 1};
            uint32_t slot = seen < budget ? seen : insee_rng_below(ctx->rng, seen + 1);
            if (slot < budget)
                out[slot] = c;
            seen++;
        }
    }
    uint32_t n = seen < budget ? seen : budget;
    for (uint32_t i = n; i > 1; i--) {
        uint32_t j = insee_rng_below(ctx->rng, i);
        insee_candidate c = out[i - 1];
        out[i - 1] = out[j];
        out[j] = c;
    }
    return n;
}

static uint32_t ecmp_route(void *vself, const insee_route_ctx *ctx, insee_candidate *out,
                           uint32_t max)
{
    const ecmp *self = vself;
    const insee_host *h = self->escape.host;
    const ecmp_state *st = ctx->packet_state;
    if (max > INSEE_MAX_CANDIDATES)
        max = INSEE_MAX_CANDIDATES; /* the hops[] scratch */
    updown_hop esc[MAX_ESCAPES];
    uint32_t ne = updown_tables_hops(&self->escape, ctx->router,
                                     h->node_router(h->kernel, ctx->dst_node), st->gone_down,
                                     esc, MAX_ESCAPES);
    /* In an injection queue in_vc is the injector, not a VC. */
    bool on_escape = ctx->in_port != INSEE_PORT_INJECTION && ctx->in_vc == 0;
    uint32_t n = on_escape ? 0 : adaptive_candidates(self, ctx, out, max - ne);
    for (uint32_t i = 0; i < ne; i++)
        out[n++] = (insee_candidate){.port = esc[i].port, .vc = 0, .room = 1, .tag = esc[i].down};
    return n;
}

/* Only escape hops carry a tag: a down hop on VC 0 ends the up phase of the
   escape route. */
static void ecmp_forwarded(void *vself, const insee_route_ctx *ctx,
                           const insee_candidate *granted)
{
    (void)vself;
    ecmp_state *st = ctx->packet_state;
    if (granted->tag)
        st->gone_down = 1;
}

static size_t ecmp_packet_state_size(void *vself)
{
    (void)vself;
    return sizeof(ecmp_state);
}

/* route() draws and reads the room downstream of its own router's
   outputs; what it keeps is in the packet's state. */
static uint32_t ecmp_properties(void *vself)
{
    (void)vself;
    return INSEE_ROUTE_LOCAL | INSEE_ROUTE_NO_DROPS;
}

static const insee_router_vtable ecmp_vtable = {
    .size = sizeof(insee_router_vtable),
    .create = ecmp_create,
    .destroy = ecmp_destroy,
    .route = ecmp_route,
    .packet_state_size = ecmp_packet_state_size,
    .forwarded = ecmp_forwarded,
    .properties = ecmp_properties,
};

static const insee_plugin_desc ecmp_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_ROUTER,
    .name = "ecmp",
    .version = "1.0.0",
    .summary = "equal-cost multipath: a random shortest-path port on an adaptive VC, "
               "up*-down* escape VC 0, on any bidirectional topology",
    .reference = "INRFlow §3.2 (ECMP); escape VC after Duato 1993",
    .params = ecmp_params,
    .vtable = &ecmp_vtable,
};

INSEE_PLUGIN_DEFINE(ecmp_desc)
