/* valiant_core.h — Valiant's two phases (Valiant & Brebner, 1981) as the
 * valiant and ugal routers share them: the intermediate chosen at
 * injection, minimal routing towards it and then towards the destination,
 * and the VC rule that keeps any mix of such paths deadlock free.
 *
 * The VC rule: a packet leaves its injection queue on VC 0 and moves one VC
 * up at every hop whose dimension is not above its last hop's. Along any
 * path the channels' (VC, dimension) then strictly increase, so the channel
 * dependency graph is acyclic whatever the phases, intermediates and mix of
 * minimal and Valiant packets. How many VCs that takes depends on how often
 * a path turns back to a lower dimension (valiant_core_init() checks it;
 * the valiant README proves the counts).
 *
 * Compiled into the valiant and ugal plugins. */
#ifndef INSEE_ROUTER_VALIANT_CORE_H
#define INSEE_ROUTER_VALIANT_CORE_H

#include "fabric.h"

/* Per packet (packet_state), zeroed at generation. */
typedef struct valiant_packet {
    uint32_t via;     /* the intermediate router + 1; 0 until chosen at injection */
    int16_t last_dim; /* the dimension of the hop that brought the packet here */
    uint8_t to_dst;   /* the intermediate is behind: on towards the destination */
} valiant_packet;

enum valiant_intermediate { VALIANT_ROUTER, VALIANT_GROUP }; /* order of the choices */

/* The `intermediate` parameter both plugins declare. */
#define VALIANT_PARAM_INTERMEDIATE                                                            \
    {"intermediate", INSEE_PARAM_ENUM, "\"router\"", 1, 0, "router|group", NULL,              \
     "the intermediate: any router at random, or (dragonfly) a random other group, entered "  \
     "where a random global link of the source's group lands"}

typedef struct valiant_core {
    const insee_host *host;
    fabric net;
    uint32_t vcs;
    /* intermediate = "group": group g's global links land on the routers
       landing[landing_start[g] .. landing_start[g + 1]); NULL otherwise. */
    uint32_t *landing_start, *landing;
} valiant_core;

/* Survey the network and check it and the VCs for `how`; false with err
   (naming `plugin`) when refused. */
bool valiant_core_init(valiant_core *core, const char *plugin, const insee_host *host,
                       enum valiant_intermediate how, insee_error *err);
void valiant_core_free(valiant_core *core);

/* A random intermediate router for a packet injected at ctx->router. */
uint32_t valiant_draw(const valiant_core *core, const insee_route_ctx *ctx);

/* The candidates of the next minimal hop towards node `node` (not on
   ctx->router): every port of the lowest dimension minimal_hops() lists,
   on the VC the rule gives. Returns how many (at most
   INSEE_MAX_CANDIDATES). */
uint32_t valiant_toward(const valiant_core *core, const insee_route_ctx *ctx, uint32_t node,
                        insee_candidate *out);

/* route() once the packet's intermediate is chosen: towards it, then
   (from it on) towards the destination. */
uint32_t valiant_route(const valiant_core *core, const insee_route_ctx *ctx,
                       insee_candidate *out);

/* The router vtable's packet_state_size() and forwarded() of both plugins
   (`self` unused): a valiant_packet, its phase and last hop's dimension. */
uint32_t valiant_properties(void *self);
size_t valiant_packet_state_size(void *self);
void valiant_forwarded(void *self, const insee_route_ctx *ctx, const insee_candidate *granted);

#endif
