/* updown.c — a generic up*-down* router (Schroeder et al., Autonet, 1991)
 * that works on any topology whose links go both ways: a route is zero or
 * more "up" hops followed by zero or more "down" hops, never up after down,
 * which breaks every cycle of channel dependencies, so it is deadlock free
 * with virtual cut-through and a single VC.
 *
 * Routes: among the legal routes, the shortest ones (INSEE's multistage
 * router §2.2.3 uses shortest up/down paths too). Which way is up and the
 * hop-count tables are built at create by updown_tables.c, shared with the
 * ecmp router's escape VC. route() lists every port on a shortest legal
 * route; a packet remembers in its state whether it has gone down.
 */
#include "updown_tables.h"

#include <stdlib.h>
#include <string.h>

enum { P_ROOT, P_SELECT };
enum { SELECT_FIRST, SELECT_ROOM };

static const insee_param_def updown_params[] = {
    [P_ROOT] = {"root", INSEE_PARAM_INT, "0", 0, 4294967295.0, NULL, NULL,
                "root of the BFS spanning tree that orders the links, when the topology "
                "does not say which way is up"},
    [P_SELECT] = {"select", INSEE_PARAM_ENUM, "\"room\"", 1, 0, "first|room", NULL,
                  "among the shortest legal hops: the lowest port first (deterministic), or "
                  "the one with most free room downstream first (adaptive)"},
    {0},
};

typedef struct updown {
    int select;
    uint32_t vcs;
    updown_tables t;
} updown;

static void updown_destroy(void *vself)
{
    updown *self = vself;
    if (!self)
        return;
    updown_tables_free(&self->t);
    free(self);
}

static void *updown_create(const insee_host *host, const insee_value *params, insee_error *err)
{
    insee_shape shape;
    host->shape(host->kernel, &shape);
    updown *self = calloc(1, sizeof *self);
    if (!self) {
        insee_error_set(err, INSEE_ERR_NOMEM, "updown: out of memory");
        return NULL;
    }
    *self = (updown){.select = (int)params[P_SELECT].i, .vcs = shape.vcs};
    /* A packet starts its legal route at its source's router and stays on
       it: only routers hosting a node need a route to every destination. */
    if (!updown_tables_build(&self->t, host, "updown", params[P_ROOT].i, false, err)) {
        updown_destroy(self);
        return NULL;
    }
    return self;
}

typedef struct updown_state {
    uint8_t gone_down; /* no up hop may follow */
} updown_state;

/* Candidates sorted by counting their rooms, when this many or more and
   their rooms this close together. */
#define COUNT_FROM 16u
#define ROOM_SPAN 64u

/* Most free room first, port order kept on ties, so runs stay
   reproducible: one pass per distinct room, from the most down. A queue
   holds few packets, so there are few distinct rooms; a large-radix
   router's tens of candidates are counted by room, then placed, in two
   passes (a few candidates cost more so than in their passes). */
static void sort_by_room(const insee_host *h, uint32_t r, insee_candidate *out, uint32_t n)
{
    uint32_t room[INSEE_MAX_CANDIDATES], most = 0, least = UINT32_MAX;
    for (uint32_t i = 0; i < n; i++) {
        room[i] = h->output_room(h->kernel, r, out[i].port, out[i].vc);
        most = room[i] > most ? room[i] : most;
        least = room[i] < least ? room[i] : least;
    }
    if (most == least)
        return; /* all tie: port order stands */
    insee_candidate sorted[INSEE_MAX_CANDIDATES];
    if (n >= COUNT_FROM && most - least < ROOM_SPAN) {
        uint32_t at[ROOM_SPAN + 1], span = most - least + 1; /* by rank: most room is 0 */
        for (uint32_t k = 0; k <= span; k++)
            at[k] = 0;
        for (uint32_t i = 0; i < n; i++)
            at[most - room[i] + 1]++;
        for (uint32_t k = 1; k < span; k++)
            at[k] += at[k - 1];
        for (uint32_t i = 0; i < n; i++)
            sorted[at[most - room[i]]++] = out[i];
    } else {
        uint32_t k = 0;
        for (uint32_t want = most, below; k < n; want = below) {
            below = 0; /* the most room under `want` */
            for (uint32_t i = 0; i < n; i++) {
                if (room[i] == want)
                    sorted[k++] = out[i];
                else if (room[i] < want && room[i] > below)
                    below = room[i];
            }
        }
    }
    memcpy(out, sorted, n * sizeof *out);
}

static uint32_t updown_route(void *vself, const insee_route_ctx *ctx, insee_candidate *out,
                             uint32_t max)
{
    const updown *self = vself;
    const insee_host *h = self->t.host;
    const updown_state *st = ctx->packet_state;
    if (max > INSEE_MAX_CANDIDATES)
        max = INSEE_MAX_CANDIDATES; /* the scratch of hops[] and sort_by_room() */
    updown_hop hops[INSEE_MAX_CANDIDATES];
    uint32_t r = ctx->router;
    uint32_t nh = updown_tables_hops(&self->t, r, h->node_router(h->kernel, ctx->dst_node),
                                     st->gone_down, hops, max);
    /* VC by VC, so that when ports x VCs exceed `max` every port still
       appears on its first VCs. */
    uint32_t n = 0;
    for (uint32_t vc = 0; vc < self->vcs && n < max; vc++)
        for (uint32_t i = 0; i < nh && n < max; i++)
            out[n++] = (insee_candidate){.port = hops[i].port, .vc = (uint16_t)vc, .room = 1,
                                         .tag = hops[i].down};
    if (self->select == SELECT_ROOM)
        sort_by_room(h, r, out, n);
    return n;
}

static void updown_forwarded(void *vself, const insee_route_ctx *ctx,
                             const insee_candidate *granted)
{
    (void)vself;
    updown_state *st = ctx->packet_state;
    if (granted->tag)
        st->gone_down = 1;
}

static size_t updown_packet_state_size(void *vself)
{
    (void)vself;
    return sizeof(updown_state);
}

/* first: the answer depends on the packet and where it waits alone. room:
   the same candidates, only their order follows the room downstream, and
   nothing is drawn or changed, so a head they all block may wait; that
   order is the kernel's room order (the candidates are laid out VC by VC,
   each VC's in port order, and sort_by_room() keeps ties in place), so the
   kernel may order a waiting head's kept set itself. Both read tables
   built at create() and write only the packet's state, so first may route
   on several threads. */
static uint32_t updown_properties(void *vself)
{
    const updown *self = vself;
    return INSEE_ROUTE_NO_DROPS | (self->select == SELECT_FIRST
                                       ? INSEE_ROUTE_PURE | INSEE_ROUTE_CONCURRENT
                                       : INSEE_ROUTE_STEADY | INSEE_ROUTE_ROOM_ORDER);
}

static const insee_router_vtable updown_vtable = {
    .size = sizeof(insee_router_vtable),
    .create = updown_create,
    .destroy = updown_destroy,
    .route = updown_route,
    .packet_state_size = updown_packet_state_size,
    .forwarded = updown_forwarded,
    .properties = updown_properties,
};

static const insee_plugin_desc updown_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_ROUTER,
    .name = "updown",
    .version = "1.0.0",
    .summary = "generic up*-down* routing on any bidirectional topology, shortest legal paths",
    .reference = "INSEE §2.2.3 (multistage: shortest up/down paths); Schroeder et al. 1991",
    .params = updown_params,
    .vtable = &updown_vtable,
};

INSEE_PLUGIN_DEFINE(updown_desc)
