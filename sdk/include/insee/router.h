/* insee/router.h — the router model contract: routing, virtual-channel
 * selection, admission (deadlock avoidance, congestion control) and the
 * injection policy.
 *
 * Who calls what
 * --------------
 * In every cycle, for every input queue (transit or injection) whose head
 * packet has arrived and is not yet forwarded, the kernel calls route(). The
 * router writes its candidates (output port, output VC, room needed) in
 * preference order. The kernel keeps the first candidate whose link is free
 * and whose downstream queue has at least `room` free packet slots (virtual
 * cut-through: always at least one whole packet), and that input requests it.
 * The arbiter then picks one request per output port; the winner is
 * forwarded and forwarded() tells the router which candidate it got. Losers,
 * and heads with no admissible candidate, are asked again next cycle.
 * Packets at the router hosting their destination are consumed by the kernel
 * and never reach route().
 *
 * State
 *  - packet_state_size() bytes per packet, zeroed at generation, passed as
 *    ctx->packet_state at every hop and every retry (smart's "bet", the VC
 *    class of trc, a drop timer);
 *  - router_state_size() bytes per router, zeroed at start (SpiNNaker's
 *    engine: which head holds it, since when);
 *  - both allocated by the kernel next to the network state (no malloc in the
 *    time loop), each block aligned to 16 bytes. Everything else lives in the
 *    instance create() returns.
 *
 * How the family maps onto this contract
 *  - Dally trc/basic/improved: VC from ctx->in_vc, hop flags WRAP/WRAP_AHEAD.
 *  - Dally adaptive, bubble random/shortest: several candidates from
 *    host->minimal_hops(), ordered by host->output_room() (free downstream room).
 *  - bubble admission: room = 2 on the escape VC; INSEE's own-ring check reads
 *    host->input_room() of this router's queue of the ring being entered.
 *  - smart: its per-packet bet in packet_state, updated in forwarded().
 *  - multistage static/adaptive: UP/DOWN hop flags from minimal_hops();
 *    updown (generic up*-down*): the graph from host->peer() and the
 *    topology's UP/DOWN labels from host->port_info() at create().
 *  - LBR/GCC: route() of an injection queue (in_port == INSEE_PORT_INJECTION)
 *    asks a larger `room` (LBR's B reserved slots), or returns no candidate
 *    while host->occupancy() is above GCC's threshold.
 *  - IPR: arbitration, not routing: each insee_request says whether it comes
 *    from a transit or an injection queue (arbiter.h), so an arbiter grants
 *    transit inputs first in a fraction P of cycles.
 *  - SpiNNaker's single routing engine: router_state records which head holds
 *    the engine; route() returns no candidate for the others meanwhile, and
 *    INSEE_PORT_DROP for the holder once it has waited too long.
 * Later models append entries at the end of the vtable (ABI minor).
 */
#ifndef INSEE_ROUTER_H
#define INSEE_ROUTER_H

#include <insee/host.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct insee_route_ctx {
    uint32_t size;      /* sizeof(insee_route_ctx) as the kernel built it */
    uint32_t router;
    uint32_t in_port;   /* input port, or INSEE_PORT_INJECTION */
    uint32_t in_vc;     /* VC of the input queue; the injector index for injection */
    uint32_t src_node;
    uint32_t dst_node;
    uint32_t salt;      /* per-packet random word fixed at generation */
    uint32_t hops;      /* router-to-router hops taken so far */
    uint64_t now;       /* current cycle */
    uint64_t born;      /* cycle the packet entered its injection queue */
    void *packet_state; /* packet_state_size() bytes, persist across hops and retries */
    void *router_state; /* router_state_size() bytes of this router */
    insee_rng *rng;     /* this router's stream */
} insee_route_ctx;

typedef struct insee_candidate {
    uint32_t port; /* output port at ctx->router, INSEE_PORT_DROP, or (multicast)
                      INSEE_PORT_LOCAL */
    uint16_t vc;   /* output VC (the input VC it enters downstream) */
    uint16_t room; /* free packet slots required downstream; 0 or 1 = one packet (VCT) */
    uint32_t tag;  /* the router's own word, handed back in forwarded() (e.g. the
                      hop's flags), so it need not recompute what route() knew */
} insee_candidate;

/* properties() bits. */
enum {
    /* route() depends only on the packet (src, dst, salt, packet_state, hops)
       and where it waits (router, in_port, in_vc): not on time, random draws
       or network state. The kernel may then reuse the candidates of a blocked
       head instead of asking again every cycle. */
    INSEE_ROUTE_PURE = 1u << 0,
    /* forwarded() has nothing to do for this instance (a mode that keeps no
       packet state): the kernel may skip the call. */
    INSEE_ROUTE_NO_FORWARDED = 1u << 1,
    /* minor 1. route()'s candidates are one multicast set, not alternatives:
       the packet leaves by all of them at once, a copy on each, or waits.
       INSEE_PORT_LOCAL in the set delivers a copy to this router's node (the
       kernel does not consume such a router's packets at their destination
       on its own: route() is asked there too). The set is granted, without
       arbitration, when every link in it is idle and every output VC is free
       with the room asked; the router serialises its heads itself (as
       SpiNNaker's single routing engine does). A copy is a packet of its
       own: it may be dropped, and is delivered, on its own. */
    INSEE_ROUTE_MULTICAST = 1u << 2,
    /* minor 10. Weaker than PURE: route() draws no random numbers and
       changes no state (packet, router or its own), and the set of
       candidates it gives depends only on the packet and where it waits;
       their order may follow the network's state (the room downstream, a
       link being free). The kernel may then let a head whose every
       candidate is blocked (its output VC held, or no room downstream) wait
       without asking until one of them frees; the head is asked again
       then, in the very cycle it would have found it free. PURE implies
       it. */
    INSEE_ROUTE_STEADY = 1u << 3,
    /* minor 12. route() and forwarded() may be called from several threads
       at once, each with its own ctx (its own packet_state, router_state
       and rng): they write nothing but those, not the instance, and call
       only host queries. The host's queries are safe concurrently when the
       topology declares INSEE_TOPO_CONCURRENT. */
    INSEE_ROUTE_CONCURRENT = 1u << 4,
    /* minor 14. Weaker than PURE in another way: route()'s first answer
       for a head may read the network and draw (UGAL's choice at the
       source, a Valiant intermediate), but asking again while the head
       waits at the same queue gives the same candidates in the same order,
       drawing nothing and changing no state: what the first answer decided
       is in the packet's state. The kernel keeps the first answer while
       the head waits, as for PURE, and lets a blocked head wait without
       asking until one of its candidates frees, as for STEADY. PURE
       implies it. */
    INSEE_ROUTE_SETTLED = 1u << 5,
    /* minor 15. route() reads the network's state only at ctx->router (its
       own input queues, the room downstream of its own outputs, its own
       links: never another router's, nor the whole network's occupancy),
       draws only from ctx->rng and writes nothing but the packet's state.
       The kernel gives a router that may draw a stream per question (the
       queue and the cycle), so such a router decides alike in whatever
       order its heads are asked: a run may then be split over threads or
       mpirun's ranks, each owning some routers, with results identical to
       one process. PURE and STEADY routers are split without it. */
    INSEE_ROUTE_LOCAL = 1u << 6,
    /* minor 16. route() never draws from ctx->rng (this instance: bubble
       smart with one adaptive VC has nothing to draw): the kernel seeds no
       stream for each question of a router that may otherwise draw. */
    INSEE_ROUTE_NO_DRAWS = 1u << 7,
    /* minor 18. route() never answers INSEE_PORT_DROP (this instance): a
       head waits for one of its candidates, however long. A slot then
       frees no sooner than a packet has crossed out of it, so the parts of
       a split run whose links have latencies may meet once every so many
       cycles instead of every cycle (docs/engine.md). A router that claims
       it and drops ends such a run with an error naming the claim. */
    INSEE_ROUTE_NO_DROPS = 1u << 8,
    /* minor 19. With STEADY: route() orders its candidates by the room
       downstream of each, as host->output_room() reports it, most first,
       ties by VC, then by port, the lowest first (updown's `room`). The
       kernel may then pick, for a waiting head whose candidates it keeps,
       the one that comes first in that order among those it could request
       now, without asking route() again. */
    INSEE_ROUTE_ROOM_ORDER = 1u << 9,
};

#define INSEE_MAX_CANDIDATES 64u

/* minor 16. In the tag of a candidate of route_bound() (where tags are
   otherwise not read): route() gives it only while this router's input
   queue (port, vc) shows at least `packets` full packets of free phits, as
   host->input_free_phits() reports them (bubble's entry into a ring, the
   local buffer restriction). The kernel then also lets the head sleep
   while that cannot hold, and wakes it when that queue's head starts
   leaving or a slot of it frees. port < 65536, vc < 256, 1 <= packets <
   128; a tag of 0 needs nothing. */
#define INSEE_BOUND_NEEDS(port, vc, packets)                                          \
    ((((uint32_t)(packets) & 0x7Fu) << 24) | (((uint32_t)(vc) & 0xFFu) << 16) |      \
     ((uint32_t)(port) & 0xFFFFu))
#define INSEE_BOUND_NEEDS_PORT(tag) ((uint32_t)(tag) & 0xFFFFu)
#define INSEE_BOUND_NEEDS_VC(tag) (((uint32_t)(tag) >> 16) & 0xFFu)
#define INSEE_BOUND_NEEDS_PACKETS(tag) (((uint32_t)(tag) >> 24) & 0x7Fu)

typedef struct insee_router_vtable {
    uint32_t size; /* sizeof(insee_router_vtable) as built */

    /* minor 0 — required */
    /* The host's shape() is valid here: check vcs and the topology's needs. */
    void *(*create)(const insee_host *host, const insee_value *params, insee_error *err);
    void (*destroy)(void *self);
    /* Fill up to `max` (>= INSEE_MAX_CANDIDATES) candidates, best first;
       return how many. 0: nothing possible now, ask again next cycle. */
    uint32_t (*route)(void *self, const insee_route_ctx *ctx, insee_candidate *out, uint32_t max);

    /* minor 0 — optional (NULL: kernel default) */
    size_t (*packet_state_size)(void *self);  /* default 0 */
    size_t (*router_state_size)(void *self);  /* default 0 */
    /* The packet was granted `granted` (one of route()'s candidates). */
    void (*forwarded)(void *self, const insee_route_ctx *ctx, const insee_candidate *granted);
    /* INSEE_ROUTE_* bits describing route(); default 0 (asked every cycle). */
    uint32_t (*properties)(void *self);
    /* Which injection queue of ctx->src_node a new packet waits in (ctx->in_vc
       is meaningless here); return an index < injectors. Default: "shortest",
       the queue with most free room, lowest index on a tie. */
    uint32_t (*select_injector)(void *self, const insee_route_ctx *ctx, uint32_t injectors);

    /* minor 16 — optional. Every candidate route() could give this head
       while it waits at this queue, whatever it reads of the network or
       draws, each with the least room route() would ask for it: a set
       fixed by the router, the queue and the packet's destination and
       salt. It may read what route() keeps in the packet's state (smart's
       directions at this router), draws nothing and changes nothing.
       Return how many (at most max; 0: no bound, the head is asked every
       cycle). While none of them can be requested (each one's output VC
       held by another packet, or its downstream queue short of the room),
       nothing route() answers could be granted, so the kernel lets the
       head wait without asking until one of them frees, and asks it again
       in the very cycle that happens. A router whose answers change
       state (bubble smart moves its bet at each question) accepts that
       those questions are not asked; one that is PURE, STEADY or SETTLED
       needs no bound. A candidate route() gives only while one of this
       router's input queues has room (bubble's entering a ring) says so
       in its tag (INSEE_BOUND_NEEDS). `insee-conform` checks that route()
       stays inside. */
    uint32_t (*route_bound)(void *self, const insee_route_ctx *ctx, insee_candidate *out,
                            uint32_t max);
} insee_router_vtable;

#ifdef __cplusplus
}
#endif
#endif
