/* kernel/engine/engine.c — the time loop (docs/architecture.md §8).
 *
 * Packets, not phits, move. A grant reserves an output VC and a whole
 * packet's room downstream; the link then carries its reserved VCs one whole
 * packet each, round robin. A packet whose link starts it at cycle s has its
 * head at the next router at s + 1 (routable there at once: cut-through), its
 * tail leaves the queue it came from at s + L - 1, and that slot, the output
 * VC and the link are free again at s + L. That is the timing INSEE's
 * phit-by-phit engine gives under the same rules, at one event per
 * packet-hop instead of L.
 *
 * A cycle: (1) the wheel's events for this cycle (heads becoming routable,
 * slots freeing, tails consumed, links done); (2) due traffic sources
 * generate; (3) every active head asks its router plugin for candidates and
 * requests the first admissible one (state read as it was at the start of
 * the phase); (4) one arbitration per requested output VC; winners reserve
 * it, losers ask again next cycle; (5) every free link with reserved VCs
 * starts the next one's packet. Idle stretches are skipped: with no event
 * and no active head the clock jumps to the next due source.
 */
#define _XOPEN_SOURCE 700 /* getrusage, isatty */
#include "engine/engine.h"
#include "engine/partition.h"

#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "engine/crew.h"
#include "engine/experiment.h"

void insee_engine_fail(insee_engine *eng, const char *fmt, ...)
{
    if (eng->error || eng->wl.error)
        return;
    va_list ap;
    va_start(ap, fmt);
    eng->error = insee_simulation_error(eng->now, fmt, ap);
    va_end(ap);
}

/* The run's first error into eng->error: insee_engine_fail() records none
   once the workload has one, so when both are set the engine's came first. */
static gboolean failed(insee_engine *eng)
{
    if (G_UNLIKELY(eng->wl.error)) { /* asked at every turn of the loop */
        if (!eng->error)
            eng->error = g_steal_pointer(&eng->wl.error);
        g_clear_error(&eng->wl.error);
    }
    return eng->error != NULL;
}

uint32_t insee_engine_distance(insee_engine *eng, uint32_t router, uint32_t dst)
{
    const insee_net *net = &eng->net;
    if (eng->topo->distance)
        return eng->topo->distance(eng->topo_self, router, dst);
    uint32_t d = 0;
    insee_hop hop;
    while (d <= net->routers &&
           eng->topo->minimal_hops(eng->topo_self, router, dst, 0, &hop, 1) > 0) {
        router = insee_net_next_router(net, net->port_base[router] + hop.port);
        if (router == INSEE_NONE)
            break;
        d++;
    }
    return d;
}

/* The workload's port: the router's select_injector() for packet p of
   `node`, with the route context of the node's first injection queue. */
static uint32_t select_injector(void *ctx, uint32_t node, uint32_t p)
{
    insee_engine *eng = ctx;
    insee_route_ctx rc;
    insee_engine_route_ctx(eng, insee_net_inject_queue(&eng->net, node, 0), p, INSEE_DRAW_OWN,
                           NULL, &rc);
    return eng->router->select_injector(eng->router_self, &rc, eng->net.injectors);
}

/* None before a router is bound (a flow engine has none). */
static uint32_t router_props(const insee_engine *eng)
{
    return eng->router && eng->router->properties ? eng->router->properties(eng->router_self) : 0;
}

/* Whether a blocked head's candidates may be kept: they change only with
   the network's state. */
static gboolean steady(uint32_t props)
{
    return (props & (INSEE_ROUTE_PURE | INSEE_ROUTE_STEADY | INSEE_ROUTE_SETTLED)) != 0;
}

/* Whether a blocked head may sleep on the bound of route()'s answers
   (ABI 1.16) rather than on the answers themselves. */
static gboolean bounded(const insee_engine *eng, uint32_t props)
{
    return !steady(props) && !(props & INSEE_ROUTE_MULTICAST) && eng->router &&
           eng->router->route_bound;
}

/* A blocked head whose whole set is kept is asked again only when two of
   its candidates could move: past saturation on a large-radix router, most
   wakes of a herd then cost no route() call. A bounded router's head keeps
   its bound when it fits twice the least cache (bubble's on a torus with 3
   or 4 VCs: 5 to 7 candidates; keeping every port's VCs cost a 64×64 torus
   more in memory traffic than it spared): a larger one is asked again
   whenever the head is blocked. */
uint32_t insee_engine_kept_candidates(const insee_engine *eng)
{
    uint32_t props = router_props(eng);
    if (bounded(eng, props))
        return MIN(2 * INSEE_ROUTE_CACHE,
                   MAX(INSEE_ROUTE_CACHE, eng->net.max_ports * eng->net.vcs));
    if (!steady(props))
        return INSEE_ROUTE_CACHE;
    return MAX(INSEE_ROUTE_CACHE, MIN(eng->net.max_ports * eng->net.vcs, INSEE_MAX_CANDIDATES));
}

void insee_engine_prepare(insee_engine *eng)
{
    insee_net *net = &eng->net;
    uint32_t props = router_props(eng);
    eng->route_kept = (props & (INSEE_ROUTE_PURE | INSEE_ROUTE_SETTLED)) != 0;
    eng->route_steady = steady(props);
    eng->route_draws = !(props & (INSEE_ROUTE_PURE | INSEE_ROUTE_STEADY | INSEE_ROUTE_NO_DRAWS));
    eng->route_room_order = (props & INSEE_ROUTE_STEADY) && (props & INSEE_ROUTE_ROOM_ORDER) &&
                            !eng->route_kept;
    eng->route_bounded = bounded(eng, props);
    eng->waits_kept = eng->route_steady && !eng->route_bounded;
    eng->call_forwarded = eng->router->forwarded && !(props & INSEE_ROUTE_NO_FORWARDED);
    eng->multicast = (props & INSEE_ROUTE_MULTICAST) != 0;
    eng->active.kept = insee_engine_kept_candidates(eng);
    eng->rstate = g_malloc0(eng->rstate_size * net->routers + 1);
    eng->astate = g_malloc0(eng->astate_size * net->outputs + 1);
    eng->router_rng = g_new(insee_rng, net->routers);
    eng->arb_rng = g_new(insee_rng, net->routers);
    /* Stream ids are disjoint ranges per purpose so that adding a purpose
       never shifts the numbers another one draws. */
    for (uint32_t r = 0; r < net->routers; r++) {
        insee_rng_init(&eng->router_rng[r], eng->seed, (1ull << 40) + r);
        insee_rng_init(&eng->arb_rng[r], eng->seed, (2ull << 40) + r);
    }
    if (eng->ipr > 0) {
        eng->ipr_rng = g_new(insee_rng, net->routers);
        for (uint32_t r = 0; r < net->routers; r++)
            insee_rng_init(&eng->ipr_rng[r], eng->seed, (6ull << 40) + r);
    }
    /* An output is requested by at most every input of its router. */
    uint32_t inputs = 1;
    for (uint32_t q = 0; q < net->queues; q++)
        if (net->q_at[q].input + 1 > inputs)
            inputs = net->q_at[q].input + 1;
    eng->arb_req = g_new(insee_request, inputs);
    if (eng->arb_stride != sizeof(insee_request))
        eng->arb_packed = g_malloc(eng->arb_stride * inputs);
    eng->arb_rec = g_new(uint32_t, inputs);
    eng->out_req = g_new(uint32_t, net->outputs);
    eng->out_bits = g_new0(uint64_t, net->outputs / 64 + 1);
    for (uint32_t gp = 0; gp < net->ports_total; gp++)
        net->link[gp].peer = net->peer_queue[gp];
    /* A bounded router's waits for a queue's room (its needs) are listed
       past the downstream queues' lists, at transit_queues + the queue. */
    size_t lists = (eng->route_bounded ? 2u : 1u) * (size_t)net->transit_queues + 1;
    eng->wait_first = g_new(uint32_t, lists);
    memset(eng->wait_first, 0xff, sizeof(uint32_t) * lists);
    eng->head_wait = g_new(uint32_t, net->queues + 1);
    memset(eng->head_wait, 0xff, sizeof(uint32_t) * (net->queues + 1));
    eng->waits_free = INSEE_NONE;
    eng->waits_bound = INSEE_WAITS_PER_QUEUE * net->queues;
    memset(eng->out_req, 0xff, sizeof(uint32_t) * net->outputs);
    eng->threads = MAX(eng->threads, 1u);
    /* Fewer heads than 256 per worker decide faster on one thread (64 made
       a saturated 32x32 torus slower on two). */
    eng->crew_min_heads = 256 * eng->threads;
    eng->sets = g_new0(insee_cand_vec, eng->threads);
    /* The farthest event: a link's packet done, or a slot freed, L cycles
       on; a head ready at the next router past its cable and pipeline. */
    uint32_t longest_cable = eng->cable_cycles, slowest = MAX(eng->node_phit_cycles, 1u);
    for (uint32_t gp = 0; eng->cable && gp < net->ports_total; gp++)
        longest_cable = MAX(longest_cable, eng->cable[gp]);
    for (uint32_t gp = 0; eng->phit_cycles && gp < net->ports_total; gp++)
        slowest = MAX(slowest, (uint32_t)eng->phit_cycles[gp]);
    /* A packet's phits are never spread wider than L on the slowest link. */
    uint32_t horizon = (eng->packet_phits + 1) * slowest + longest_cable + eng->router_cycles +
                       eng->node_cable_cycles;
    if (eng->wormhole) {
        eng->wh = insee_wormhole_new(eng, &eng->wh_params);
        horizon = MAX(horizon, insee_wormhole_horizon(&eng->wh_params, longest_cable,
                                                      eng->node_cable_cycles));
    }
    insee_wheel_init(&eng->wheel, horizon);
    if (eng->router->select_injector)
        eng->wl.port = (insee_workload_port){.select_injector = select_injector, .ctx = eng};
}

void insee_engine_clear(insee_engine *eng)
{
    insee_partition_free(eng->part);
    eng->part = NULL;
    eng->cut = NULL;
    eng->wl.node_part = NULL;
    g_free(eng->rstate);
    g_free(eng->cable);
    g_free(eng->phit_cycles);
    g_free(eng->out_used);
    g_free(eng->out_leaving);
    g_free(eng->out_last);
    g_free(eng->astate);
    g_free(eng->router_rng);
    g_free(eng->arb_rng);
    g_free(eng->ipr_rng);
    g_free(eng->out_req);
    g_free(eng->out_bits);
    g_free(eng->waits);
    g_free(eng->wait_first);
    g_free(eng->head_wait);
    g_free(eng->need_woken.v);
    g_free(eng->sort_scratch.v);
    g_free(eng->arb_req);
    g_free(eng->arb_packed);
    g_free(eng->arb_rec);
    g_free(eng->req);
    g_free(eng->active.queue);
    g_free(eng->active.ncand);
    g_free(eng->active.cand);
    g_free(eng->touched.v);
    g_free(eng->link_check.v);
    g_free(eng->later_cuts.v);
    g_free(eng->later_leaving.v);
    for (uint32_t w = 0; eng->sets && w < eng->threads; w++)
        g_free(eng->sets[w].v);
    g_free(eng->sets);
    g_free(eng->decision);
    insee_crew_free(eng->crew);
    insee_wormhole_free(eng->wh);
    insee_wheel_clear(&eng->wheel);
    insee_stats_clear(&eng->stats);
    insee_workload_clear(&eng->wl);
    insee_net_clear(&eng->net);
    g_clear_error(&eng->error);
}

static void active_push(insee_active *a, uint32_t q)
{
    if (a->len == a->cap) {
        a->cap = a->cap ? a->cap * 2 : 256;
        a->queue = g_renew(uint32_t, a->queue, a->cap);
        a->ncand = g_renew(uint8_t, a->ncand, a->cap);
        a->cand = g_renew(insee_candidate, a->cand, (size_t)a->cap * a->kept);
    }
    a->queue[a->len] = q;
    a->ncand[a->len] = INSEE_NOT_CACHED;
    a->len++;
}

/* The high and low halves of a * b folded: a mix as good as splitmix's
   for seeding, in three instructions. */
static inline uint64_t fold_mul(uint64_t a, uint64_t b)
{
    unsigned __int128 m = (unsigned __int128)a * b;
    return (uint64_t)m ^ (uint64_t)(m >> 64);
}

/* The stream of one question (insee_draw), in `draws`, from the seed, the
   cycle, the queue and the purpose. A router that draws is asked a few
   times a packet-hop, so it is seeded by four folded products, chained,
   rather than insee_rng_init()'s four splitmix rounds (half the
   instructions); out of line, so that filling a context stays short
   enough to inline where a pure or steady router is asked. */
static G_NO_INLINE insee_rng *seed_draws(const insee_engine *eng, uint32_t q, insee_draw why,
                                         insee_rng *draws)
{
    uint64_t a = eng->seed ^ (eng->now * 0x9e3779b97f4a7c15ull);
    uint64_t b = ((uint64_t)q * 4 + why) * 0xd1342543de82ef95ull + 0x2545f4914f6cdd1dull;
    uint64_t *s = draws->s;
    s[0] = fold_mul(a ^ 0xa0761d6478bd642full, b ^ 0xe7037ed1a0b428dbull);
    s[1] = fold_mul(s[0] ^ 0x8ebc6af09c88c6e3ull, a ^ 0x589965cc75374cc3ull);
    s[2] = fold_mul(s[1] ^ 0x1d8e4e27c47d124full, b ^ 0xa0761d6478bd642full);
    s[3] = fold_mul(s[2] ^ 0xe7037ed1a0b428dbull, a ^ 0x8ebc6af09c88c6e3ull) | 1; /* never all 0 */
    return draws;
}

/* insee_engine_route_ctx(), inlined where a head is asked and granted:
   as a call it costs some 20 instructions a packet-hop. */
G_ALWAYS_INLINE static inline void route_ctx(insee_engine *eng, uint32_t q, uint32_t p,
                                             insee_draw why, insee_rng *draws,
                                             insee_route_ctx *ctx)
{
    const insee_net *net = &eng->net;
    const insee_packet *pk = &net->pkt[p];
    uint32_t r = net->q_at[q].router;
    ctx->size = sizeof *ctx;
    ctx->router = r;
    ctx->in_port = net->q_at[q].port;
    ctx->in_vc = net->q_at[q].vc;
    ctx->src_node = pk->src;
    ctx->dst_node = pk->dst;
    ctx->salt = pk->salt;
    ctx->hops = pk->hops;
    ctx->now = eng->now;
    ctx->born = pk->born;
    ctx->packet_state = insee_net_packet_state(net, p);
    ctx->router_state = eng->rstate_size ? eng->rstate + eng->rstate_size * r : NULL;
    ctx->rng = &eng->router_rng[r];
    if (G_UNLIKELY(eng->route_draws) && why != INSEE_DRAW_OWN)
        ctx->rng = seed_draws(eng, q, why, draws);
}

void insee_engine_route_ctx(insee_engine *eng, uint32_t q, uint32_t p, insee_draw why,
                            insee_rng *draws, insee_route_ctx *ctx)
{
    route_ctx(eng, q, p, why, draws, ctx);
}

static void schedule(insee_engine *eng, uint64_t at, uint32_t ev)
{
    insee_wheel_add(&eng->wheel, eng->now, at, ev);
}

/* Head p of q becomes a routing candidate: in the active list from now. */
static void activate(insee_engine *eng, uint32_t q, uint32_t p)
{
    eng->net.q[q].flags |= INSEE_Q_ACTIVE;
    eng->net.pkt[p].since = INSEE_NEVER;
    active_push(&eng->active, q);
}

/* Wait w leaves its list, back to the pool. */
static void unlink_wait(insee_engine *eng, uint32_t w)
{
    insee_wait *wt = &eng->waits[w];
    if (wt->prev != INSEE_NONE)
        eng->waits[wt->prev].next = wt->next;
    else
        eng->wait_first[wt->at] = wt->next;
    if (wt->next != INSEE_NONE)
        eng->waits[wt->next].prev = wt->prev;
    wt->next = eng->waits_free;
    eng->waits_free = w;
    eng->waits_used--;
}

/* Every wait of q's head leaves its list: the head leaves q. */
static G_NO_INLINE void drop_waits(insee_engine *eng, uint32_t q)
{
    for (uint32_t w = eng->head_wait[q], next; w != INSEE_NONE; w = next) {
        next = eng->waits[w].sibling;
        unlink_wait(eng, w);
    }
    eng->head_wait[q] = INSEE_NONE;
    eng->net.q[q].flags &= (uint8_t)~INSEE_Q_WAITS;
}

/* The head of q leaves it (granted, or dropped); its slot stays taken until
   its tail has left. Returns the packet. */
static uint32_t unlink_departing(insee_engine *eng, uint32_t q)
{
    insee_net *net = &eng->net;
    uint32_t p = insee_net_unlink_head(net, q);
    if (G_UNLIKELY(net->q[q].flags & INSEE_Q_WAITS))
        drop_waits(eng, q);
    net->q[q].flags = (uint8_t)((net->q[q].flags & ~INSEE_Q_ACTIVE) | INSEE_Q_DEPARTING);
    return p;
}

/* As unlink_departing(), the tail leaving at `release_at` - 1; q's phit
   view shows it gone at `out_done` once the phase is over (what a part
   feeding q across a cut is told). */
static uint32_t depart(insee_engine *eng, uint32_t q, uint64_t release_at, uint64_t out_done)
{
    uint32_t p = unlink_departing(eng, q);
    schedule(eng, release_at, insee_event(INSEE_EV_RELEASE, q));
    if (G_UNLIKELY(eng->cut != NULL) && (eng->cut[q] & INSEE_CUT_UPSTREAM))
        insee_partition_credit(eng, q, release_at, out_done);
    return p;
}

/* q's first packet may now head the queue: make it a routing candidate,
   from this cycle or from its arrival past its cable and its router's
   pipeline (a HEAD_READY event), unless q is already active or still
   sending its previous head. */
static void insee_engine_queue_wake(insee_engine *eng, uint32_t q)
{
    insee_net *net = &eng->net;
    uint32_t p = net->q[q].head;
    if (p == INSEE_NONE || (net->q[q].flags & (INSEE_Q_DEPARTING | INSEE_Q_ACTIVE)))
        return;
    if (net->pkt[p].ready <= eng->now) {
        activate(eng, q, p);
        return;
    }
    net->q[q].flags |= INSEE_Q_ACTIVE;
    net->pkt[p].since = INSEE_NEVER;
    schedule(eng, net->pkt[p].ready, insee_event(INSEE_EV_HEAD_READY, q));
}

/* The list of the waits for transit queue rq's room (a bound's need). */
static inline uint32_t need_list(const insee_engine *eng, uint32_t rq)
{
    return eng->net.transit_queues + rq;
}

/* Head of q goes to sleep waiting for candidate `cd`'s downstream queue
   `at` (or, from need_list(), for the room of the queue its need names),
   one wait of its chain. */
static void wait_on(insee_engine *eng, uint32_t q, uint32_t at, const insee_candidate *cd)
{
    if (eng->waits_free == INSEE_NONE) {
        uint32_t old = eng->waits_cap;
        eng->waits_cap = old ? old * 2 : 256;
        eng->waits = g_renew(insee_wait, eng->waits, eng->waits_cap);
        for (uint32_t w = old; w < eng->waits_cap; w++)
            eng->waits[w].next = w + 1 < eng->waits_cap ? w + 1 : INSEE_NONE;
        eng->waits_free = old;
    }
    uint32_t w = eng->waits_free;
    insee_wait *wt = &eng->waits[w];
    eng->waits_free = wt->next;
    eng->waits_used++;
    *wt = (insee_wait){.queue = q, .at = at, .prev = INSEE_NONE, .next = eng->wait_first[at],
                       .sibling = eng->head_wait[q], .cand = *cd};
    if (wt->next != INSEE_NONE)
        eng->waits[wt->next].prev = w;
    eng->wait_first[at] = w;
    eng->head_wait[q] = w;
    eng->net.q[q].flags |= INSEE_Q_WAITS;
}

/* The sleeping head of q asks again this cycle: it joins the active list,
   and when its waits for candidates fit an entry's cache it finds them
   there, in the order the router gave them (the chain holds them last
   first). Returns the cache, NULL when they do not fit; the count of them
   is the entry's. */
static inline insee_candidate *wake_into_active(insee_engine *eng, uint32_t q)
{
    insee_active *a = &eng->active;
    active_push(a, q);
    uint32_t n = 0, lists = eng->net.transit_queues; /* past them, need waits: not its set */
    for (uint32_t w = eng->head_wait[q]; w != INSEE_NONE; w = eng->waits[w].sibling)
        n += eng->waits[w].at < lists;
    eng->net.q[q].flags &= (uint8_t)~INSEE_Q_ASLEEP;
    if (n > a->kept)
        return NULL;
    a->ncand[a->len - 1] = (uint8_t)n;
    return &a->cand[(size_t)(a->len - 1) * a->kept];
}

/* A steady router's head wakes (waits_kept): should it sleep again it waits
   for the same set, so its waits stay listed and leave only with it. */
static void wake_kept_head(insee_engine *eng, uint32_t q)
{
    insee_candidate *cached = wake_into_active(eng, q);
    if (cached == NULL)
        return;
    uint8_t n = eng->active.ncand[eng->active.len - 1];
    uint32_t lists = eng->net.transit_queues;
    for (uint32_t w = eng->head_wait[q]; w != INSEE_NONE; w = eng->waits[w].sibling)
        if (eng->waits[w].at < lists)
            cached[--n] = eng->waits[w].cand;
}

/* Any other router's head wakes: its waits leave their lists, as its next
   sleep may wait for another set. */
static void wake_head(insee_engine *eng, uint32_t q)
{
    insee_candidate *cached = wake_into_active(eng, q);
    uint8_t n = cached ? eng->active.ncand[eng->active.len - 1] : 0;
    uint32_t lists = eng->net.transit_queues;
    for (uint32_t w = eng->head_wait[q], next; w != INSEE_NONE; w = next) {
        const insee_wait *wt = &eng->waits[w];
        next = wt->sibling;
        if (cached != NULL && wt->at < lists)
            cached[--n] = wt->cand;
        unlink_wait(eng, w);
    }
    eng->head_wait[q] = INSEE_NONE;
    eng->net.q[q].flags &= (uint8_t)~INSEE_Q_WAITS;
}

/* Whether a candidate waiting at downstream queue dq may be admissible:
   the output VC feeding dq is free and dq has a free unit (every head
   needs one). Every wait listed at dq names that VC (dq has one feeder),
   so the first tells which it is. */
static gboolean waiting_may_move(const insee_engine *eng, uint32_t dq)
{
    const insee_net *net = &eng->net;
    const insee_wait *wt = &eng->waits[eng->wait_first[dq]];
    uint32_t gp = net->port_base[net->q_at[wt->queue].router] + wt->cand.port;
    return net->ovc[gp * net->vcs + wt->cand.vc].free_at <= eng->now &&
           insee_net_room(net, dq) > 0;
}

/* Downstream queue dq has one more free slot, or the output VC feeding it
   is free again: the heads waiting for it ask again this cycle. Both happen
   only in a cycle's first phase, so they ask in the same cycle as if they
   had asked every cycle. Unless the other half is still missing (a slot
   frees while the VC is held, or the VC frees into a full queue): then
   none of them could be granted this cycle, and the event that completes
   the pair wakes them, as it would have found them asleep again. Past
   saturation this spares most wakes. */
static void wake_waiting(insee_engine *eng, uint32_t dq)
{
    if (!waiting_may_move(eng, dq))
        return;
    if (!eng->waits_kept) { /* each head woken leaves the list */
        while (eng->wait_first[dq] != INSEE_NONE)
            wake_head(eng, eng->waits[eng->wait_first[dq]].queue);
        return;
    }
    const insee_net *net = &eng->net;
    for (uint32_t w = eng->wait_first[dq]; w != INSEE_NONE; w = eng->waits[w].next)
        if (net->q[eng->waits[w].queue].flags & INSEE_Q_ASLEEP)
            wake_kept_head(eng, eng->waits[w].queue);
}

/* Whether input queue rq may show `need` free phits, as INSEE's phit view
   counts them (insee_net_free_phits), before it next wakes the waits for
   its room: its departing head's phits go on leaving, one a cycle, until
   its slot frees; phits arriving only take room. */
static gboolean room_may_show(const insee_net *net, uint32_t rq, uint64_t now, uint64_t need)
{
    uint64_t room = insee_net_free_phits(net, rq, now), out = net->q[rq].out_done;
    if (out != INSEE_NEVER && out > now)
        room += MIN(out - now, (uint64_t)net->packet_phits) - 1;
    return room >= need;
}

/* Transit queue q shows more free phits from next cycle (its head starts
   leaving) or now (a slot frees): the heads whose bound needs room there
   that q may now show ask again; the others sleep on (q cannot show it
   before it next frees more). Gathered first: a woken head's waits leave
   the list. */
static void wake_needing(insee_engine *eng, uint32_t q)
{
    const insee_net *net = &eng->net;
    insee_vec *woken = &eng->need_woken;
    woken->len = 0;
    for (uint32_t w = eng->wait_first[need_list(eng, q)]; w != INSEE_NONE;
         w = eng->waits[w].next) {
        uint64_t need = (uint64_t)INSEE_BOUND_NEEDS_PACKETS(eng->waits[w].cand.tag) *
                        net->packet_phits;
        if (room_may_show(net, q, eng->now, need))
            insee_vec_push(woken, eng->waits[w].queue);
    }
    for (uint32_t i = 0; i < woken->len; i++)
        if (eng->head_wait[woken->v[i]] != INSEE_NONE)
            wake_head(eng, woken->v[i]);
}

/* q's head starts leaving, its tail gone at `done`: in INSEE's phit view
   q gains a free phit a cycle from the next, which a bound's need may be
   waiting for. */
static void starts_leaving(insee_engine *eng, uint32_t q, uint64_t done)
{
    eng->net.q[q].out_done = done;
    if (G_UNLIKELY(eng->route_bounded) && q < eng->net.transit_queues &&
        eng->wait_first[need_list(eng, q)] != INSEE_NONE)
        wake_needing(eng, q);
}

/* The packets the workload has just queued at their sources: in flight
   from now, and their queues' heads may route. */
static void take_queued(insee_engine *eng)
{
    insee_vec *queued = &eng->wl.queued;
    for (uint32_t i = 0; i < queued->len; i++) {
        if (G_UNLIKELY(eng->part != NULL))
            eng->queued_at = eng->now;
        else if (eng->in_flight == 0)
            eng->last_move = eng->now; /* a deadlock needs packets inside */
        eng->in_flight++;
        if (eng->wh)
            insee_wormhole_wake(eng, queued->v[i]);
        else
            insee_engine_queue_wake(eng, queued->v[i]);
    }
    uint32_t source = eng->node_cable_cycles + eng->router_cycles;
    if (queued->len && source) /* on their nodes' links, then in their routers' pipelines */
        insee_engine_keep_moving(eng, eng->now + source);
    queued->len = 0;
}

/* Packet p is consumed: out of the network, into its message. */
void insee_engine_consumed(insee_engine *eng, uint32_t p)
{
    eng->in_flight--;
    insee_workload_delivered(&eng->wl, p);
}

void insee_engine_source_freed(insee_engine *eng, uint32_t q)
{
    insee_workload_room(&eng->wl, (q - eng->net.transit_queues) / eng->net.injectors);
    take_queued(eng);
}

static void release(insee_engine *eng, uint32_t q)
{
    insee_net *net = &eng->net;
    insee_net_release_slot(net, q);
    if (q < net->transit_queues && eng->wait_first[q] != INSEE_NONE)
        wake_waiting(eng, q);
    if (G_UNLIKELY(eng->route_bounded) && q < net->transit_queues &&
        eng->wait_first[need_list(eng, q)] != INSEE_NONE)
        wake_needing(eng, q);
    net->q[q].flags &= (uint8_t)~INSEE_Q_DEPARTING;
    insee_engine_queue_wake(eng, q);
    if (q >= net->transit_queues)
        insee_engine_source_freed(eng, q);
}

/* Link gp may start a packet after this cycle's arbitration. */
static void link_check(insee_engine *eng, uint32_t gp)
{
    if (eng->net.link[gp].checked)
        return;
    eng->net.link[gp].checked = 1;
    insee_vec_push(&eng->link_check, gp);
}

/* The output VC that link gp carries now: the one its pointer just passed. */
static uint32_t link_current_ovc(const insee_net *net, uint32_t gp)
{
    uint32_t vc = net->link[gp].rr ? net->link[gp].rr - 1u : net->vcs - 1u;
    return gp * net->vcs + vc;
}

/* Whether all of packet p fits in the output buffer of global port gp. */
static inline gboolean output_fits(const insee_engine *eng, uint32_t gp, uint32_t p)
{
    return eng->out_used[gp] + eng->net.pkt[p].phits <= eng->out_cap;
}

/* With output buffers an output VC is never held by one packet: several
   of a VC wait in order. Its free_at tells instead, for admissible(),
   whether its port's buffer has room for a longest packet (grant() checks
   the packet's own length). */
static void output_room_changed(insee_engine *eng, uint32_t gp)
{
    insee_net *net = &eng->net;
    uint64_t free_at = eng->out_used[gp] + net->packet_phits <= eng->out_cap ? 0 : INSEE_NEVER;
    for (uint32_t vc = 0; vc < net->vcs; vc++)
        net->ovc[gp * net->vcs + vc].free_at = free_at;
}

/* With output buffers: the packet link gp carried is out of its buffer.
   The heads waiting for any VC of the port may fit now. */
static void output_drained(insee_engine *eng, uint32_t gp)
{
    insee_net *net = &eng->net;
    eng->out_used[gp] -= eng->out_leaving[gp];
    output_room_changed(eng, gp);
    if (net->link[gp].peer == INSEE_NONE)
        return;
    for (uint32_t vc = 0; vc < net->vcs; vc++)
        if (eng->wait_first[net->link[gp].peer + vc] != INSEE_NONE)
            wake_waiting(eng, net->link[gp].peer + vc);
}

/* The tail of link gp's packet has crossed: its output VC may be granted
   again, the slot it held upstream is free, and the link may start the next
   reserved VC (after this cycle's arbitration, which may reserve more). */
static void link_done(insee_engine *eng, uint32_t gp)
{
    insee_net *net = &eng->net;
    uint32_t ovc = link_current_ovc(net, gp);
    uint32_t q = net->ovc[ovc].src;
    net->ovc[ovc].src = INSEE_NONE;
    if (G_UNLIKELY(eng->out_used != NULL))
        output_drained(eng, gp);
    else if (net->link[gp].peer != INSEE_NONE) { /* heads waiting for this output VC */
        uint32_t dq = net->link[gp].peer + (ovc - gp * net->vcs);
        if (eng->wait_first[dq] != INSEE_NONE)
            wake_waiting(eng, dq);
    }
    if (q != INSEE_NONE) /* a multicast copy's queue is released on its own */
        release(eng, q);
    if (net->link[gp].waiting)
        link_check(eng, gp);
}

static void process_events(insee_engine *eng)
{
    insee_vec *b = insee_wheel_due(&eng->wheel, eng->now);
    for (uint32_t i = 0; i < b->len; i++) {
        uint32_t ev = b->v[i];
        uint32_t id = insee_event_id(ev);
        switch (insee_event_kind_of(ev)) {
        case INSEE_EV_HEAD_READY:
            active_push(&eng->active, id);
            break;
        case INSEE_EV_RELEASE:
            release(eng, id);
            break;
        case INSEE_EV_DELIVER:
            insee_engine_consumed(eng, id);
            break;
        case INSEE_EV_LINK_DONE:
            link_done(eng, id);
            break;
        }
    }
    eng->wheel.pending -= b->len;
    b->len = 0;
}

/* Out of add_request(), inlined into the request phase's loop: its rare
   growth would make that loop save registers at every hop. */
static G_GNUC_NO_INLINE void requests_grow(insee_engine *eng)
{
    eng->req_cap = eng->req_cap ? eng->req_cap * 2 : 256;
    eng->req = g_renew(insee_request_rec, eng->req, eng->req_cap);
}

G_ALWAYS_INLINE static inline void add_request(insee_engine *eng, uint32_t q, uint32_t out,
                                               uint32_t link, const insee_candidate *cand)
{
    if (G_UNLIKELY(eng->req_len == eng->req_cap))
        requests_grow(eng);
    insee_request_rec *rq = &eng->req[eng->req_len];
    rq->queue = q;
    rq->out = out;
    rq->link = link;
    rq->input = eng->net.q_at[q].input;
    rq->cand = *cand;
    rq->next = eng->out_req[out];
    if (rq->next == INSEE_NONE)
        insee_vec_push(&eng->touched, out);
    eng->out_req[out] = eng->req_len++;
}

static gboolean same_port_earlier(const insee_candidate *cand, uint32_t c)
{
    for (uint32_t e = 0; e < c; e++)
        if (cand[e].port == cand[c].port)
            return TRUE;
    return FALSE;
}

/* The most packets of room a candidate may ask: what a queue holds (a head
   asking more could never move); with wormhole switching, any. */
static uint32_t room_bound(const insee_engine *eng)
{
    const insee_net *net = &eng->net;
    return eng->wh ? UINT32_MAX : net->queue_packets / insee_net_unit_packet(net);
}

/* valid_candidates() when a candidate is not plainly right: which rule it
   breaks, if any (a drop, a multicast set's LOCAL and a port unplugged
   only by a failed cable are right). `what` answered them: route() or
   route_bound(). */
static G_GNUC_NO_INLINE gboolean check_candidates(insee_engine *eng, uint32_t r,
                                                  const insee_candidate *cand, uint32_t n,
                                                  gboolean report, const char *what)
{
    const insee_net *net = &eng->net;
    uint32_t ports = net->port_base[r + 1] - net->port_base[r];
    if (n > INSEE_MAX_CANDIDATES) {
        if (report)
            insee_engine_fail(eng, "router plugin's %s returned %u candidates (at most %u)",
                              what, n, INSEE_MAX_CANDIDATES);
        return FALSE;
    }
    for (uint32_t c = 0; c < n; c++) {
        const insee_candidate *cd = &cand[c];
        const char *wrong = NULL;
        if (eng->multicast && c > 0 && same_port_earlier(cand, c))
            wrong = "a port (or LOCAL) twice in one multicast set";
        else if (cd->port == INSEE_PORT_DROP || (eng->multicast && cd->port == INSEE_PORT_LOCAL))
            continue;
        else if (cd->port >= ports)
            wrong = "a port it does not have";
        else if (net->link[net->port_base[r] + cd->port].peer == INSEE_NONE &&
                 !(net->failed && net->failed[net->port_base[r] + cd->port]))
            wrong = "an unplugged port";
        else if (cd->vc >= net->vcs)
            wrong = "a VC beyond [router] vcs";
        else if (cd->room > room_bound(eng))
            wrong = "more room than a queue holds (it could never move)";
        if (wrong) {
            if (report)
                insee_engine_fail(eng,
                                  "router plugin's %s chose %s at router %u: port %u VC %u room "
                                  "%u (the router has %u ports, %u VCs, queues of %u packets)",
                                  what, wrong, r, cd->port, cd->vc, cd->room, ports, net->vcs,
                                  net->queue_packets / insee_net_unit_packet(net));
            return FALSE;
        }
    }
    return TRUE;
}

/* Checked at every hop (inlined into candidates()): a set whose every
   candidate is plainly right (a plugged port, a VC and room within bounds,
   not multicast) passes in a few instructions, check_candidates() tells
   the rest. */
G_ALWAYS_INLINE static inline gboolean valid_candidates(insee_engine *eng, uint32_t r,
                                                        const insee_candidate *cand,
                                                        uint32_t n, gboolean report)
{
    const insee_net *net = &eng->net;
    uint32_t base = net->port_base[r], ports = net->port_base[r + 1] - base;
    uint32_t vcs = net->vcs, rooms = room_bound(eng), c = 0;
    if (!eng->multicast && n <= INSEE_MAX_CANDIDATES)
        while (c < n && cand[c].port < ports && cand[c].vc < vcs && cand[c].room <= rooms &&
               net->link[base + cand[c].port].peer != INSEE_NONE)
            c++;
    return c == n || check_candidates(eng, r, cand, n, report, "route()");
}

gboolean insee_engine_valid_candidates(insee_engine *eng, uint32_t r,
                                       const insee_candidate *cand, uint32_t n, gboolean report)
{
    return valid_candidates(eng, r, cand, n, report);
}

/* A candidate port of the kernel's own: every candidate the router gave
   leaves by a failed cable (net/faults.h), so the packet is dropped as
   unroutable. Above every port and pseudo-port: `port >= INSEE_PORT_DROP`
   tells both drops at once. */
#define PORT_FAILED UINT32_MAX

/* The candidates less those that leave by a failed cable; PORT_FAILED alone
   when none is left. Never a multicast set: the experiment refuses
   multicast routers with failures. */
static uint32_t avoid_failed(const insee_net *net, uint32_t r, insee_candidate *cand, uint32_t n)
{
    uint32_t kept = 0;
    for (uint32_t c = 0; c < n; c++)
        if (cand[c].port == INSEE_PORT_DROP || !net->failed[net->port_base[r] + cand[c].port])
            cand[kept++] = cand[c];
    if (kept > 0 || n == 0)
        return kept;
    cand[0] = (insee_candidate){.port = PORT_FAILED};
    return 1;
}

/* The router's candidates for the head of active entry i, validated: asked
   now (into `scratch`), or what a pure or settled router answered on an
   earlier cycle. A steady router's answer is kept too, for decide_route().
   NULL when the answer fails the check (an error of the run when
   `report`). */
G_ALWAYS_INLINE static inline const insee_candidate *
candidates(insee_engine *eng, uint32_t i, uint32_t p, uint32_t r, insee_candidate *scratch,
           uint32_t *n, gboolean report)
{
    insee_active *a = &eng->active;
    if (eng->route_kept && a->ncand[i] != INSEE_NOT_CACHED) {
        *n = a->ncand[i];
        return &a->cand[(size_t)i * a->kept];
    }
    insee_route_ctx ctx;
    insee_rng draws;
    route_ctx(eng, a->queue[i], p, INSEE_DRAW_ROUTE, &draws, &ctx);
    *n = eng->router->route(eng->router_self, &ctx, scratch, INSEE_MAX_CANDIDATES);
    if (!valid_candidates(eng, r, scratch, *n, report)) {
        *n = 0;
        return NULL;
    }
    if (eng->net.failed)
        *n = avoid_failed(&eng->net, r, scratch, *n);
    if (!eng->route_steady || *n > a->kept)
        return scratch;
    insee_candidate *cached = &a->cand[(size_t)i * a->kept];
    for (uint32_t c = 0; c < *n; c++)
        cached[c] = scratch[c];
    a->ncand[i] = (uint8_t)*n;
    return cached;
}

/* The units a head of `units` needs downstream for candidate cd: its own,
   and a full packet's for each more packet of room the router asks. */
static inline uint32_t room_needed(const insee_net *net, const insee_candidate *cd,
                                   uint32_t units)
{
    return cd->room > 1 ? units + (cd->room - 1) * insee_net_unit_packet(net) : units;
}

/* Candidate cd of router r can be requested now by a head of `units`: its
   output VC is not held by another packet (with output buffers: its port's
   buffer has room for a longest packet) and its downstream queue has the
   room it asks (a drop always can). Its output VC and link into *ovc and
   *gp. */
G_ALWAYS_INLINE static inline gboolean admissible(const insee_engine *eng, uint32_t r,
                                                  const insee_candidate *cd, uint32_t units,
                                                  uint32_t *ovc, uint32_t *gp)
{
    const insee_net *net = &eng->net;
    if (cd->port >= INSEE_PORT_DROP) /* or PORT_FAILED */
        return TRUE;
    *gp = net->port_base[r] + cd->port;
    *ovc = *gp * net->vcs + cd->vc;
    return net->ovc[*ovc].free_at <= eng->now &&
           insee_net_room(net, net->link[*gp].peer + cd->vc) >= room_needed(net, cd, units);
}

/* The input queue of router r a bound candidate's need names
   (INSEE_BOUND_NEEDS in its tag). */
static inline uint32_t needed_queue(const insee_net *net, uint32_t r, uint32_t tag)
{
    return (net->port_base[r] + INSEE_BOUND_NEEDS_PORT(tag)) * net->vcs +
           INSEE_BOUND_NEEDS_VC(tag);
}

/* A bounded router's candidate of its bound could be requested now: as
   admissible(), and its need, if any, may hold before it next changes. */
G_ALWAYS_INLINE static inline gboolean bound_admissible(const insee_engine *eng, uint32_t r,
                                                        const insee_candidate *cd,
                                                        uint32_t units)
{
    uint32_t ovc, gp, need = INSEE_BOUND_NEEDS_PACKETS(cd->tag);
    const insee_net *net = &eng->net;
    return admissible(eng, r, cd, units, &ovc, &gp) &&
           (need == 0 || room_may_show(net, needed_queue(net, r, cd->tag), eng->now,
                                       (uint64_t)need * net->packet_phits));
}

/* A steady router's head with kept candidates: how many of them could be
   requested now (0, 1, or 2 for more), the first in *first. The router
   would give the same set in some order, drawing nothing and changing
   nothing: when none or one of it is admissible, the order cannot matter,
   so the router need not be asked. */
static uint32_t kept_admissible(const insee_engine *eng, uint32_t i, uint32_t r, uint32_t units,
                                uint32_t *first)
{
    const insee_active *a = &eng->active;
    const insee_candidate *cached = &a->cand[(size_t)i * a->kept];
    uint32_t found = 0, ovc, gp;
    for (uint32_t c = 0; c < a->ncand[i] && found < 2; c++) {
        if (!admissible(eng, r, &cached[c], units, &ovc, &gp))
            continue;
        if (found++ == 0)
            *first = c;
    }
    return found;
}

/* A room-ordered router's kept set (INSEE_ROUTE_ROOM_ORDER), for a head
   of `units` at router r: the candidate route() would put first among
   those that can be requested now (the most room downstream in whole
   packets, as host->output_room() counts it; ties by VC, then port), into
   d, without asking route(). FALSE when none can be requested, or the set
   holds a drop or a failed port, which only route() places. */
static gboolean first_by_room(const insee_engine *eng, uint32_t r, const insee_candidate *cand,
                              uint32_t n, uint32_t units, insee_decision *d)
{
    const insee_net *net = &eng->net;
    const insee_candidate *best = NULL;
    uint32_t best_room = 0, out, link;
    for (uint32_t c = 0; c < n; c++) {
        const insee_candidate *cd = &cand[c];
        if (cd->port >= INSEE_PORT_DROP)
            return FALSE;
        if (!admissible(eng, r, cd, units, &out, &link))
            continue;
        uint32_t room = insee_net_room_packets(net, net->link[link].peer + cd->vc);
        if (best && (room < best_room ||
                     (room == best_room &&
                      (cd->vc > best->vc || (cd->vc == best->vc && cd->port > best->port)))))
            continue;
        best = cd;
        best_room = room;
        d->out = out;
        d->link = link;
    }
    if (!best)
        return FALSE;
    d->cand = *best;
    return TRUE;
}

/* A bounded router's head with its bound kept: whether any of it could be
   requested now. */
static gboolean bound_free(const insee_engine *eng, const insee_candidate *bound, uint32_t n,
                           uint32_t r, uint32_t units)
{
    for (uint32_t c = 0; c < n; c++)
        if (bound_admissible(eng, r, &bound[c], units))
            return TRUE;
    return FALSE;
}

/* The bound of a bounded router's answers for the head of active entry i
   (packet p at router r), into `bound`, validated; 0 when there is none to
   sleep on: the router gives none, or one with a drop or a port whose
   cable failed (a drop can always be taken); or a wrong one, which ends
   the run. */
static G_NO_INLINE uint32_t ask_bound(insee_engine *eng, uint32_t i, uint32_t p, uint32_t r,
                                      insee_candidate *bound)
{
    const insee_net *net = &eng->net;
    insee_route_ctx ctx;
    insee_rng draws;
    route_ctx(eng, eng->active.queue[i], p, INSEE_DRAW_OWN, &draws, &ctx);
    uint32_t n = eng->router->route_bound(eng->router_self, &ctx, bound, INSEE_MAX_CANDIDATES);
    if (!check_candidates(eng, r, bound, n, TRUE, "route_bound()"))
        return 0;
    uint32_t base = net->port_base[r], ports = net->port_base[r + 1] - base;
    for (uint32_t c = 0; c < n; c++) {
        if (bound[c].port == INSEE_PORT_DROP || (net->failed && net->failed[base + bound[c].port]))
            return 0;
        if (INSEE_BOUND_NEEDS_PACKETS(bound[c].tag) &&
            (INSEE_BOUND_NEEDS_PORT(bound[c].tag) >= ports ||
             INSEE_BOUND_NEEDS_VC(bound[c].tag) >= net->vcs)) {
            insee_engine_fail(eng,
                              "router plugin's route_bound() needs room at input port %u VC %u "
                              "of router %u, which has %u ports and %u VCs: fix its "
                              "INSEE_BOUND_NEEDS",
                              INSEE_BOUND_NEEDS_PORT(bound[c].tag),
                              INSEE_BOUND_NEEDS_VC(bound[c].tag), r, ports, net->vcs);
            return 0;
        }
    }
    return n;
}

/* A bounded router's head that route() gave nothing admissible: its bound
   is asked into `scratch` (route()'s answer is no longer needed) and kept
   in the entry's cache when it fits, for the next cycles to check; not at
   the head's first question at its queue, as most heads blocked once move
   on at the next (8x8 torus, bubble smart: 2 130 -> 2 010 instructions per
   packet-hop at 0.3, 2 714 -> 2 534 past saturation). Returns
   its size when none of it can be requested either (whatever route()
   answers, nothing could be granted until one of them frees: the head
   may sleep on them, found in *cand), else 0. */
static uint32_t bound_blocked(insee_engine *eng, uint32_t i, uint32_t p, uint32_t r,
                              uint32_t units, insee_candidate *scratch,
                              const insee_candidate **cand)
{
    insee_active *a = &eng->active;
    if (a->ncand[i] != INSEE_NOT_CACHED) /* kept, and something in it was free */
        return 0;
    if (eng->net.pkt[p].since == eng->now) /* its first question here: most move on soon */
        return 0;
    uint32_t n = ask_bound(eng, i, p, r, scratch);
    insee_candidate *cached = &a->cand[(size_t)i * a->kept];
    *cand = scratch;
    if (n > 0 && n <= a->kept) {
        memcpy(cached, scratch, n * sizeof *scratch);
        a->ncand[i] = (uint8_t)n;
        *cand = cached;
    }
    return bound_free(eng, scratch, n, r, units) ? 0 : n;
}

/* Which candidate the head of active entry i (packet p at router r)
   requests: CHOSEN (admissible now), BLOCKED (none is; the set kept in the
   entry's cache or, when it does not fit and the router is steady, in
   worker w's scratch; for a bounded router, the bound when nothing in it
   is admissible either, else none) or INVALID. Reads the network and writes only the
   entry's cache, the decision and w's scratch, so that for a pure router
   that may be asked from several threads it runs on any worker. */
G_ALWAYS_INLINE static inline void decide_route(insee_engine *eng, uint32_t i, uint32_t p,
                                                uint32_t r, uint32_t w, gboolean report,
                                                insee_decision *d)
{
    insee_active *a = &eng->active;
    insee_candidate scratch[INSEE_MAX_CANDIDATES];
    uint32_t n = 0, first = 0, units = insee_net_units(&eng->net, p);
    const insee_candidate *cand;
    uint32_t kept = 2;
    if (!eng->route_kept && a->ncand[i] != INSEE_NOT_CACHED)
        kept = !eng->route_bounded ? kept_admissible(eng, i, r, units, &first)
               : bound_free(eng, &a->cand[(size_t)i * a->kept], a->ncand[i], r, units) ? 2
                                                                                      : 0;
    d->kind = INSEE_DECIDE_CHOSEN;
    if (kept < 2) {
        cand = &a->cand[(size_t)i * a->kept];
        n = a->ncand[i];
        if (kept == 1 && admissible(eng, r, &cand[first], units, &d->out, &d->link)) {
            d->cand = cand[first];
            return;
        }
    } else if (eng->route_room_order && a->ncand[i] != INSEE_NOT_CACHED &&
               first_by_room(eng, r, &a->cand[(size_t)i * a->kept], a->ncand[i], units, d)) {
        return;
    } else {
        cand = candidates(eng, i, p, r, scratch, &n, report);
        if (!cand) {
            d->kind = INSEE_DECIDE_INVALID;
            return;
        }
        for (uint32_t c = 0; c < n; c++) {
            if (admissible(eng, r, &cand[c], units, &d->out, &d->link)) {
                d->cand = cand[c];
                return;
            }
        }
        if (eng->route_bounded)
            n = bound_blocked(eng, i, p, r, units, scratch, &cand);
    }
    d->kind = INSEE_DECIDE_BLOCKED;
    d->n = n;
    d->at = INSEE_NONE;
    if (n == 0 || cand != scratch || !(eng->route_steady || eng->route_bounded))
        return;
    insee_cand_vec *set = &eng->sets[w];
    if (set->len + n > set->cap) {
        set->cap = MAX(set->cap * 2, set->len + n);
        set->v = g_renew(insee_candidate, set->v, set->cap);
    }
    memcpy(set->v + set->len, cand, n * sizeof *cand);
    d->worker = (uint8_t)w;
    d->at = set->len;
    set->len += n;
}

/* A blocked head of a steady router (INSEE_ROUTE_STEADY, or PURE) sleeps,
   waiting at each candidate's downstream queue, until that queue frees a
   slot or the output VC feeding it frees: nothing else could make one of
   them admissible, and the router's answer could change nothing else. A
   bounded router's head sleeps likewise on its bound, when nothing in it
   is admissible. While the waits would pass their bound (memory), heads
   ask every cycle instead, or only check their kept candidates. */
static void sleep_blocked(insee_engine *eng, uint32_t i, uint32_t r, const insee_decision *d)
{
    insee_net *net = &eng->net;
    insee_active *a = &eng->active;
    uint32_t n = d->n, needs = 0, q = a->queue[i];
    if (n == 0 || !(eng->route_steady || eng->route_bounded))
        return;
    if (net->q[q].flags & INSEE_Q_WAITS) { /* kept since it last slept: the same set */
        a->queue[i] = INSEE_NONE;
        net->q[q].flags |= INSEE_Q_ASLEEP;
        return;
    }
    const insee_candidate *cand = d->at == INSEE_NONE ? &a->cand[(size_t)i * a->kept]
                                                      : &eng->sets[d->worker].v[d->at];
    for (uint32_t c = 0; eng->route_bounded && c < n; c++)
        needs += INSEE_BOUND_NEEDS_PACKETS(cand[c].tag) != 0;
    if (eng->waits_used + n + needs > eng->waits_bound)
        return;
    a->queue[i] = INSEE_NONE; /* leaves the list; still INSEE_Q_ACTIVE */
    net->q[q].flags |= INSEE_Q_ASLEEP;
    for (uint32_t c = 0; c < n; c++)
        wait_on(eng, q, net->link[net->port_base[r] + cand[c].port].peer + cand[c].vc, &cand[c]);
    for (uint32_t c = 0; needs && c < n; c++)
        if (INSEE_BOUND_NEEDS_PACKETS(cand[c].tag))
            wait_on(eng, q, need_list(eng, needed_queue(net, r, cand[c].tag)), &cand[c]);
}

/* A router drops the packet: unroutable when no minimal path leaves here
   for its destination (the topology lists none), else the router's choice. */
static insee_drop_reason drop_reason(insee_engine *eng, uint32_t q, const insee_packet *pk)
{
    const insee_net *net = &eng->net;
    uint32_t r = net->q_at[q].router;
    insee_hop hop;
    if (net->node_router[pk->dst] != r &&
        eng->topo->minimal_hops(eng->topo_self, r, pk->dst, pk->salt, &hop, 1) == 0)
        return INSEE_DROP_UNROUTABLE;
    return INSEE_DROP_ROUTER;
}

/* `port`: INSEE_PORT_DROP (the router's drop) or PORT_FAILED. */
static void drop_head(insee_engine *eng, uint32_t q, uint32_t port)
{
    insee_net *net = &eng->net;
    const insee_packet *pk = &net->pkt[net->q[q].head];
    insee_stats_on_dropped(&eng->stats,
                           port == PORT_FAILED ? INSEE_DROP_UNROUTABLE : drop_reason(eng, q, pk),
                           pk, q, eng->now);
    eng->dropped_failed += port == PORT_FAILED;
    /* nothing to transmit: free next cycle */
    uint32_t p = depart(eng, q, eng->now + 1, net->q[q].out_done);
    if (net->q[q].in_done > eng->now) /* its tail will not arrive: discarded as it comes */
        insee_vec_push(&eng->later_cuts, q);
    eng->in_flight--;
    insee_engine_keep_moving(eng, eng->now);
    eng->report.total_dropped_network++;
    insee_workload_packet_dropped(&eng->wl, net->pkt[p].msg, net->pkt[p].id);
    insee_net_packet_free(net, p);
}

static void grant(insee_engine *eng, const insee_request_rec *rq);
static void request_multicast(insee_engine *eng, uint32_t i, uint32_t q, uint32_t p, uint32_t r);

/* Phase 3, the part that only reads the network: what the head of active
   entry i asks for, by worker w. decide(), decide_route() and apply() are
   inlined into the lone loop and the crew's chunks: as calls, with the
   decision passed through memory, they cost 40 to 130 instructions more
   per packet-hop. */
G_ALWAYS_INLINE static inline void decide(insee_engine *eng, uint32_t i, uint32_t w,
                                          gboolean report, insee_decision *d)
{
    insee_net *net = &eng->net;
    uint32_t q = eng->active.queue[i];
    d->kind = INSEE_DECIDE_SKIP;
    if (q == INSEE_NONE)
        return; /* the queue's head went to sleep in this phase */
    if (eng->gcc_stop && q >= net->transit_queues)
        return; /* global congestion control holds injection back */
    uint32_t p = net->q[q].head;
    insee_packet *pk = &net->pkt[p];
    uint32_t r = net->q_at[q].router;
    if (pk->since == INSEE_NEVER)
        pk->since = eng->now;
    if (eng->multicast)
        d->kind = INSEE_DECIDE_MULTICAST;
    else if (net->node_router[pk->dst] == r)
        d->kind = INSEE_DECIDE_CONSUME;
    else
        decide_route(eng, i, p, r, w, report, d);
}

/* Phase 3, the rest: the head of active entry i acts on its decision. */
G_ALWAYS_INLINE static inline void apply(insee_engine *eng, uint32_t i,
                                         const insee_decision *d)
{
    insee_net *net = &eng->net;
    uint32_t q = eng->active.queue[i];
    if (d->kind == INSEE_DECIDE_SKIP)
        return;
    uint32_t p = net->q[q].head;
    uint32_t r = net->q_at[q].router;
    switch ((insee_decision_kind)d->kind) {
    case INSEE_DECIDE_MULTICAST:
        request_multicast(eng, i, q, p, r);
        break;
    case INSEE_DECIDE_CONSUME: {
        /* `multiple` drains every input at once, so it needs no arbitration
           and touches nothing another request reads. */
        uint32_t dst = net->pkt[p].dst;
        insee_request_rec consume = {.queue = q, .out = net->ovcs + dst,
                                     .link = net->ports_total + dst};
        if (!eng->single_consumption)
            grant(eng, &consume);
        else if (net->link[consume.link].free_at <= eng->now)
            add_request(eng, q, consume.out, consume.link, &consume.cand);
        break;
    }
    case INSEE_DECIDE_CHOSEN:
        if (d->cand.port >= INSEE_PORT_DROP)
            drop_head(eng, q, d->cand.port);
        else
            add_request(eng, q, d->out, d->link, &d->cand);
        break;
    case INSEE_DECIDE_BLOCKED:
        sleep_blocked(eng, i, r, d);
        break;
    case INSEE_DECIDE_INVALID: { /* decided on a worker: ask again to report it */
        insee_candidate scratch[INSEE_MAX_CANDIDATES];
        uint32_t n;
        candidates(eng, i, p, r, scratch, &n, TRUE);
        break;
    }
    case INSEE_DECIDE_SKIP:
        break;
    }
}

/* The crew's share of the request phase: decisions [from, to) of the range
   that starts at eng->decide_from. */
static void decide_chunk(void *ctx, uint32_t w, uint32_t from, uint32_t to)
{
    insee_engine *eng = ctx;
    for (uint32_t i = eng->decide_from + from; i < eng->decide_from + to; i++)
        decide(eng, i, w, FALSE, &eng->decision[i]);
}

/* The request phase's changes to queues' phit views that would show in
   the same cycle take effect at its end, so that every head reads the
   views as they were at the phase's start, in whatever order the heads
   ask (a split run's parts learn of each other's changes only after the
   cycle): a head dropped while its tail still arrives, whose queue
   discards the rest (drop_head()), and a packet shorter than the longest
   consumed, whose phits show leaving (grant_consumption()). */
static void settle_phit_views(insee_engine *eng)
{
    insee_net *net = &eng->net;
    for (uint32_t i = 0; i < eng->later_cuts.len; i++) {
        uint32_t q = eng->later_cuts.v[i];
        if (G_UNLIKELY(eng->cut != NULL) && (eng->cut[q] & INSEE_CUT_UPSTREAM))
            insee_partition_cut(eng, q, eng->now);
        net->q[q].in_done = eng->now;
    }
    for (uint32_t i = 0; i < eng->later_leaving.len; i += 2)
        starts_leaving(eng, eng->later_leaving.v[i], eng->now + eng->later_leaving.v[i + 1]);
    eng->later_cuts.len = eng->later_leaving.len = 0;
}

/* Phase 3: every active head requests one output. Alone, each head decides
   and acts in turn. With a crew (a pure router), every head decides first,
   the crew sharing the list in contiguous chunks, then each acts in list
   order: a pure router's answer and a candidate's admissibility read
   nothing that acting changes within the phase (a head that leaves keeps
   its slot until its tail has left), so the run is the same to the bit.
   Heads activated while acting (a delivery that lets a source queue) are
   decided and act after. */
static void request_phase(insee_engine *eng)
{
    insee_active *a = &eng->active;
    for (uint32_t w = 0; w < eng->threads; w++)
        eng->sets[w].len = 0;
    eng->requesting = TRUE;
    if (!eng->crew) {
        for (uint32_t i = 0; i < a->len; i++) {
            insee_decision d;
            decide(eng, i, 0, TRUE, &d);
            apply(eng, i, &d);
        }
    }
    for (uint32_t from = 0, to; eng->crew && from < a->len; from = to) {
        to = a->len;
        if (eng->decision_cap < to) {
            eng->decision_cap = MAX(to, eng->decision_cap * 2);
            eng->decision = g_renew(insee_decision, eng->decision, eng->decision_cap);
        }
        eng->decide_from = from;
        insee_crew_run(eng->crew, decide_chunk, eng, to - from);
        for (uint32_t i = from; i < to; i++)
            apply(eng, i, &eng->decision[i]);
    }
    eng->requesting = FALSE;
    if (G_UNLIKELY(eng->later_cuts.len + eng->later_leaving.len > 0))
        settle_phit_views(eng);
}

/* Packet p's head leaves queue q now (onto a link, or into consumption). */
void insee_engine_head_leaves(insee_engine *eng, uint32_t q, insee_packet *pk)
{
    if (q < eng->net.transit_queues)
        return;
    pk->injected = eng->now;
    insee_stats_on_leaving_source(&eng->stats, pk, eng->now);
    if (!insee_engine_in_window(eng, eng->now))
        return;
    eng->report.injected++;
    if (!insee_stats_per_injection(&eng->stats))
        return;
    uint32_t distance = eng->stats.opt.distance_histograms
                            ? insee_engine_distance(eng, eng->net.q_at[q].router, pk->dst)
                            : 0;
    insee_stats_on_injected(&eng->stats, pk, distance, eng->now);
}

/* When a packet whose tail started leaving at `now` + (L - 1) k at the
   earliest, a phit every k cycles, has its tail across (one phit of
   consumption, or of a link): no sooner than its tail has arrived, as a
   faster link cannot outrun a slower one before it (NSIM §3.1, cases 2
   and 3). INSEE's model: now + L. */
static uint64_t tail_across(const insee_engine *eng, uint32_t p, uint32_t k)
{
    uint64_t leaves = eng->now + (uint64_t)(eng->net.pkt[p].phits - 1) * k;
    if (eng->net.tail && eng->net.tail[p] > leaves)
        leaves = eng->net.tail[p];
    return leaves + k;
}

/* A packet crossing a link from now: when its tail is across (the link,
   its output VC and the slot upstream free), when its tail is in the next
   router, and when its head may be routed there. */
typedef struct insee_crossing {
    uint64_t done, tail_in, ready;
} insee_crossing;

/* Packet p on link gp: INSEE's model (every link a phit a cycle, no cable,
   no pipeline) at the cost of one branch; else [network]'s cable, the
   link's pace and the next router's pipeline. */
static insee_crossing crossing(const insee_engine *eng, uint32_t gp, uint32_t p)
{
    if (G_LIKELY(!eng->timed))
        return (insee_crossing){eng->now + eng->packet_phits, eng->now + eng->packet_phits,
                                eng->now + 1};
    uint32_t cable = eng->cable ? eng->cable[gp] : eng->cable_cycles;
    uint32_t k = eng->phit_cycles ? eng->phit_cycles[gp] : 1;
    uint64_t done = tail_across(eng, p, k);
    return (insee_crossing){done, done + cable, eng->now + k + cable + eng->router_cycles};
}

/* The packet reserved on output VC ovc of link gp starts crossing now: its
   tail has crossed at now + L - 1 (crossing() with [network]), when the
   VC, the link and its slot upstream free. */
static void link_start(insee_engine *eng, uint32_t gp, uint32_t ovc)
{
    insee_net *net = &eng->net;
    uint32_t p = net->ovc[ovc].wait;
    uint32_t vc = ovc - gp * net->vcs, dq = net->link[gp].peer + vc;
    insee_packet *pk = &net->pkt[p];
    insee_crossing c = crossing(eng, gp, p);
    net->ovc[ovc].wait = INSEE_NONE;
    net->link[gp].waiting--;
    net->link[gp].rr = (uint8_t)(vc + 1 < net->vcs ? vc + 1 : 0);
    net->link[gp].free_at = c.done;
    net->ovc[ovc].free_at = c.done;
    if (G_UNLIKELY(eng->out_used != NULL)) { /* the next of its VC may start after it */
        net->ovc[ovc].wait = pk->next;
        eng->out_leaving[gp] = pk->phits;
        output_room_changed(eng, gp);
    }
    /* Moving until the tail is in and the head out of the pipeline. */
    insee_engine_keep_moving(eng, MAX(c.tail_in, c.ready) - 1);
    schedule(eng, c.done, insee_event(INSEE_EV_LINK_DONE, gp));
    if (net->ovc[ovc].src != INSEE_NONE) { /* a multicast copy left with its original */
        insee_engine_head_leaves(eng, net->ovc[ovc].src, pk);
        starts_leaving(eng, net->ovc[ovc].src, c.done);
        if (G_UNLIKELY(eng->cut != NULL) && (eng->cut[net->ovc[ovc].src] & INSEE_CUT_UPSTREAM))
            insee_partition_credit(eng, net->ovc[ovc].src, c.done, c.done);
    }
    net->q[dq].in_done = c.tail_in;
    if (net->tail)
        net->tail[p] = c.tail_in;
    pk->hops += pk->hops < UINT16_MAX;
    pk->ready = c.ready;
    eng->report.total_packet_hops++;
    if (insee_engine_in_window(eng, eng->now))
        eng->report.packet_hops++;
    insee_stats_on_hop(&eng->stats, pk, ovc, eng->now);
    if (G_UNLIKELY(eng->cut != NULL) && (eng->cut[dq] & INSEE_CUT_DOWNSTREAM)) {
        insee_partition_send(eng, dq, p);
        return;
    }
    if (insee_net_link(net, dq, p))
        insee_engine_arrive(eng, dq, p);
}

void insee_engine_arrive(insee_engine *eng, uint32_t dq, uint32_t p)
{
    if (eng->net.q[dq].flags & INSEE_Q_DEPARTING)
        return;
    /* Routable next cycle: links start after this cycle's requests, so
       joining the active list now is the same as a HEAD_READY event at
       now + 1, without the wheel. Later, past a cable or a pipeline: the
       event. */
    if (eng->net.pkt[p].ready == eng->now + 1)
        activate(eng, dq, p);
    else
        insee_engine_queue_wake(eng, dq);
}

/* Phase 5: every free link with reserved VCs starts one of them, the first
   from its pointer on: INSEE's link serves its VCs one whole packet each. */
static void start_links(insee_engine *eng)
{
    insee_net *net = &eng->net;
    for (uint32_t t = 0; t < eng->link_check.len; t++) {
        uint32_t gp = eng->link_check.v[t];
        eng->net.link[gp].checked = 0;
        if (!net->link[gp].waiting || net->link[gp].free_at > eng->now)
            continue;
        for (uint32_t k = 0, vc = net->link[gp].rr; k < net->vcs; k++) {
            uint32_t ovc = gp * net->vcs + vc;
            if (net->ovc[ovc].wait != INSEE_NONE) {
                link_start(eng, gp, ovc);
                break;
            }
            vc = vc + 1 < net->vcs ? vc + 1 : 0;
        }
    }
    eng->link_check.len = 0;
}

/* Consumption: the tail is consumed L - 1 cycles after the head (on a
   node link slower than the router, as tail_across() says). */
static void grant_consumption(insee_engine *eng, const insee_request_rec *rq)
{
    insee_net *net = &eng->net;
    uint32_t head = net->q[rq->queue].head;
    uint64_t done = net->tail ? tail_across(eng, head, eng->node_phit_cycles)
                              : eng->now + net->pkt[head].phits;
    /* A packet shorter than the longest shows phits leaving from now: in
       the request phase (`multiple` consumption) only once it is over. */
    if (eng->requesting && done - eng->now < net->packet_phits) {
        insee_vec_push(&eng->later_leaving, rq->queue);
        insee_vec_push(&eng->later_leaving, (uint32_t)(done - eng->now));
    } else {
        starts_leaving(eng, rq->queue, done);
    }
    uint32_t p = depart(eng, rq->queue, done, done);
    insee_engine_head_leaves(eng, rq->queue, &net->pkt[p]);
    /* The tail reaches the node its link's latency after it left. */
    uint64_t delivered = done - 1 + eng->node_cable_cycles;
    insee_engine_keep_moving(eng, delivered);
    if (eng->single_consumption)
        net->link[rq->link].free_at = done;
    if (delivered == eng->now)
        insee_engine_consumed(eng, p);
    else
        schedule(eng, delivered, insee_event(INSEE_EV_DELIVER, p));
}

/* With output buffers, the head of q, granted an output VC of link gp,
   crosses the crossbar into gp's buffer from now, `speedup` phits a cycle
   but its tail no sooner than it came in: q's slot frees when the tail is
   across. The link may start the packet at once, its tail behind. */
static uint32_t cross_into_output(insee_engine *eng, uint32_t q, uint32_t gp)
{
    insee_net *net = &eng->net;
    uint32_t p = net->q[q].head;
    uint64_t L = net->pkt[p].phits;
    uint64_t done = MAX(eng->now + (L + eng->speedup - 1) / eng->speedup, net->tail[p] + 1);
    starts_leaving(eng, q, done);
    depart(eng, q, done, done);
    insee_engine_head_leaves(eng, q, &net->pkt[p]);
    insee_engine_keep_moving(eng, done);
    net->tail[p] = done - 1;
    eng->out_used[gp] += (uint32_t)L;
    return p;
}

/* Packet p joins the packets of output VC ovc waiting in its port's
   buffer for the link, last. */
static void output_append(insee_engine *eng, uint32_t ovc, uint32_t p)
{
    insee_net *net = &eng->net;
    net->pkt[p].next = INSEE_NONE;
    if (net->ovc[ovc].wait == INSEE_NONE)
        net->ovc[ovc].wait = p;
    else
        net->pkt[eng->out_last[ovc]].next = p;
    eng->out_last[ovc] = p;
}

/* A router that keeps state learns which candidate the head of the
   request's queue was granted. */
static void tell_forwarded(insee_engine *eng, const insee_request_rec *rq)
{
    if (!eng->call_forwarded)
        return;
    insee_route_ctx ctx;
    route_ctx(eng, rq->queue, eng->net.q[rq->queue].head, INSEE_DRAW_OWN, NULL, &ctx);
    eng->router->forwarded(eng->router_self, &ctx, &rq->cand);
}

/* Granted packet p holds a slot downstream from now, and waits for its link. */
G_ALWAYS_INLINE static inline void hold_downstream(insee_engine *eng, const insee_request_rec *rq,
                                                    uint32_t p)
{
    insee_net *net = &eng->net;
    uint32_t gp = rq->link, dq = net->link[gp].peer + rq->cand.vc;
    net->q[dq].in_done = INSEE_NEVER;
    insee_net_reserve_slot(net, dq, p);
    if (G_UNLIKELY(eng->cut != NULL) && (eng->cut[dq] & INSEE_CUT_DOWNSTREAM))
        insee_partition_reserve(eng, dq, p);
    net->link[gp].waiting++;
    if (net->link[gp].free_at <= eng->now)
        link_check(eng, gp);
}

/* With output buffers: the head crosses into its port's buffer, unless
   another VC of the port took the room this cycle. */
static void grant_into_output(insee_engine *eng, const insee_request_rec *rq)
{
    if (!output_fits(eng, rq->link, eng->net.q[rq->queue].head))
        return;
    tell_forwarded(eng, rq);
    uint32_t p = cross_into_output(eng, rq->queue, rq->link);
    output_append(eng, rq->out, p);
    output_room_changed(eng, rq->link);
    hold_downstream(eng, rq, p);
}

/* The request wins its output VC: the VC and a slot downstream are the
   packet's from now; it waits in its queue (or, with output buffers, in its
   port's) until the link starts it. */
static void grant(insee_engine *eng, const insee_request_rec *rq)
{
    insee_net *net = &eng->net;
    uint32_t q = rq->queue;
    insee_engine_keep_moving(eng, eng->now);
    if (rq->out >= net->ovcs) {
        grant_consumption(eng, rq);
        return;
    }
    if (G_UNLIKELY(eng->out_used != NULL)) {
        grant_into_output(eng, rq);
        return;
    }
    tell_forwarded(eng, rq);
    uint32_t p = unlink_departing(eng, q);
    uint32_t ovc = rq->out;
    net->ovc[ovc].src = q;
    net->ovc[ovc].wait = p;
    net->ovc[ovc].free_at = INSEE_NEVER;
    net->q[q].out_done = INSEE_NEVER;
    hold_downstream(eng, rq, p);
}

/* A copy of packet p for one more output of a multicast set: a packet of
   its own, of the same message, with id 0 so that the id sums still count
   every generated packet exactly once. */
static uint32_t copy_packet(insee_engine *eng, uint32_t p)
{
    insee_net *net = &eng->net;
    uint32_t c = insee_net_packet_new(net); /* may move the pool */
    net->pkt[c] = net->pkt[p];
    net->pkt[c].next = INSEE_NONE;
    net->pkt[c].id = 0;
    if (net->tail)
        net->tail[c] = net->tail[p];
    if (net->pstate_size)
        memcpy(insee_net_packet_state(net, c), insee_net_packet_state(net, p), net->pstate_size);
    insee_workload_packet_copied(&eng->wl, net->pkt[c].msg);
    eng->in_flight++;
    eng->report.total_copies++;
    return c;
}

/* Every output of the set can take the packet now: its link idle, its output
   VC free, the room it asks downstream. */
static gboolean multicast_admissible(const insee_engine *eng, uint32_t r,
                                     const insee_candidate *cand, uint32_t n)
{
    const insee_net *net = &eng->net;
    for (uint32_t c = 0; c < n; c++) {
        if (cand[c].port == INSEE_PORT_LOCAL)
            continue;
        uint32_t gp = net->port_base[r] + cand[c].port;
        uint32_t need = cand[c].room > 1 ? cand[c].room : 1;
        if (net->link[gp].free_at > eng->now || net->link[gp].waiting ||
            net->ovc[gp * net->vcs + cand[c].vc].free_at > eng->now ||
            insee_net_room(net, net->peer_queue[gp] + cand[c].vc) < need)
            return FALSE;
    }
    return TRUE;
}

/* The head of q leaves by every output of its set at once; its slot upstream
   frees when the tails have left, L cycles on, as for a single output. */
static void grant_multicast(insee_engine *eng, uint32_t q, const insee_candidate *cand,
                            uint32_t n)
{
    insee_net *net = &eng->net;
    uint32_t L = eng->packet_phits;
    insee_engine_keep_moving(eng, eng->now);
    if (eng->call_forwarded) {
        insee_route_ctx ctx;
        insee_engine_route_ctx(eng, q, net->q[q].head, INSEE_DRAW_OWN, NULL, &ctx);
        eng->router->forwarded(eng->router_self, &ctx, &cand[0]);
    }
    uint32_t p = depart(eng, q, eng->now + L, eng->now + L);
    insee_engine_head_leaves(eng, q, &net->pkt[p]);
    starts_leaving(eng, q, eng->now + L);
    insee_engine_keep_moving(eng, eng->now + L - 1 + eng->node_cable_cycles);
    uint32_t r = net->q_at[q].router;
    uint32_t now_delivered[INSEE_MAX_CANDIDATES], k = 0;
    for (uint32_t c = 0; c < n; c++) {
        uint32_t copy = c == 0 ? p : copy_packet(eng, p);
        if (cand[c].port == INSEE_PORT_LOCAL) {
            /* Consumed like `multiple` consumption: the tail L - 1 cycles on
               (and across the node's link); at once for 1-phit packets,
               once no more copies are made. */
            uint64_t delivered = eng->now + L - 1 + eng->node_cable_cycles;
            if (delivered == eng->now)
                now_delivered[k++] = copy;
            else
                schedule(eng, delivered, insee_event(INSEE_EV_DELIVER, copy));
            continue;
        }
        uint32_t gp = net->port_base[r] + cand[c].port;
        uint32_t ovc = gp * net->vcs + cand[c].vc, dq = net->peer_queue[gp] + cand[c].vc;
        net->ovc[ovc].src = INSEE_NONE;
        net->ovc[ovc].wait = copy;
        net->ovc[ovc].free_at = INSEE_NEVER;
        net->q[dq].in_done = INSEE_NEVER;
        insee_net_reserve_slot(net, dq, copy);
        net->link[gp].waiting++;
        link_check(eng, gp);
    }
    for (uint32_t c = 0; c < k; c++)
        insee_engine_consumed(eng, now_delivered[c]);
}

/* A multicast router's head: its whole set, or a drop, or nothing yet. */
static void request_multicast(insee_engine *eng, uint32_t i, uint32_t q, uint32_t p, uint32_t r)
{
    insee_candidate scratch[INSEE_MAX_CANDIDATES];
    uint32_t n = 0;
    const insee_candidate *cand = candidates(eng, i, p, r, scratch, &n, TRUE);
    for (uint32_t c = 0; c < n; c++) {
        if (cand[c].port == INSEE_PORT_DROP) {
            drop_head(eng, q, cand[c].port);
            return;
        }
    }
    if (n > 0 && multicast_admissible(eng, r, cand, n))
        grant_multicast(eng, q, cand, n);
}

/* Sort the outputs requested this cycle, each there once. A cycle touches
   few outputs in small networks: insertion sort there. Large ones touch
   hundreds to many thousands, and a comparison sort cost a fifth of the
   engine at 4 k nodes: where they are dense in the range of ids they span
   (a network busy enough, or one part of a split run), they are marked in
   the `bits` of every output (kept clear between calls) and read back in
   order; where they are sparse (a very large network nearly idle), a radix
   sort of 8-bit digits, as many passes as the largest output id has bytes,
   through `scratch` (grown to v's capacity). The radix sort's 256 counts a
   pass cost more than the marks at a few hundred outputs, and each part of
   a split run paid them (32x32 torus, Dally at 0.075: 1 222 -> 1 184
   instructions per packet-hop; at 0.3 on two threads, 3.5 % fewer). */
void insee_engine_sort_outputs(insee_vec *v, insee_vec *scratch, uint64_t *bits,
                               uint32_t outputs)
{
    if (v->len <= 32) {
        for (uint32_t i = 1; i < v->len; i++) {
            uint32_t x = v->v[i], j = i;
            for (; j > 0 && v->v[j - 1] > x; j--)
                v->v[j] = v->v[j - 1];
            v->v[j] = x;
        }
        return;
    }
    uint32_t lo = UINT32_MAX, hi = 0;
    for (uint32_t i = 0; i < v->len; i++) {
        lo = MIN(lo, v->v[i]);
        hi = MAX(hi, v->v[i]);
    }
    if (hi / 64 - lo / 64 < 4 * v->len) {
        for (uint32_t i = 0; i < v->len; i++)
            bits[v->v[i] / 64] |= UINT64_C(1) << (v->v[i] % 64);
        uint32_t n = 0;
        for (uint32_t w = lo / 64; w <= hi / 64; w++) {
            for (uint64_t b = bits[w]; b; b &= b - 1)
                v->v[n++] = w * 64 + (uint32_t)__builtin_ctzll(b);
            bits[w] = 0;
        }
        return;
    }
    if (scratch->cap < v->cap) {
        scratch->cap = v->cap;
        scratch->v = g_renew(uint32_t, scratch->v, scratch->cap);
    }
    uint32_t *from = v->v, *to = scratch->v;
    for (uint32_t shift = 0; shift < 32 && (outputs - 1) >> shift; shift += 8) {
        uint32_t count[257] = {0};
        for (uint32_t i = 0; i < v->len; i++)
            count[((from[i] >> shift) & 0xffu) + 1]++;
        for (uint32_t d = 1; d < 257; d++)
            count[d] += count[d - 1];
        for (uint32_t i = 0; i < v->len; i++)
            to[count[(from[i] >> shift) & 0xffu]++] = from[i];
        uint32_t *t = from;
        from = to;
        to = t;
    }
    if (from != v->v)
        memcpy(v->v, from, sizeof(uint32_t) * v->len);
}

/* Gather the requests for `out` into the arbiter's array, sorted by input
   (the contract). Returns how many. Inputs are unique per output. */
static uint32_t gather_requests(insee_engine *eng, uint32_t out)
{
    const insee_net *net = &eng->net;
    uint32_t n = 0;
    for (uint32_t i = eng->out_req[out]; i != INSEE_NONE; i = eng->req[i].next) {
        const insee_request_rec *rq = &eng->req[i];
        const insee_packet *pk = &net->pkt[net->q[rq->queue].head];
        insee_request r = {
            .input = rq->input,
            .occupancy = net->q[rq->queue].count,
            .since = pk->since,
            .born = pk->born,
            .transit = rq->queue < net->transit_queues,
            .injected = rq->queue < net->transit_queues ? pk->injected : eng->now,
        };
        uint32_t j = n++;
        for (; j > 0 && eng->arb_req[j - 1].input > r.input; j--) {
            eng->arb_req[j] = eng->arb_req[j - 1];
            eng->arb_rec[j] = eng->arb_rec[j - 1];
        }
        eng->arb_req[j] = r;
        eng->arb_rec[j] = i;
    }
    return n;
}

_Static_assert(offsetof(insee_request, injected) == INSEE_REQUEST_SIZE_1_0,
              "ABI 1.0's insee_request is a prefix of today's");

/* In-transit priority: keep only the transit requests, if there are any. */
static uint32_t transit_first(insee_engine *eng, uint32_t n)
{
    uint32_t kept = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (!eng->arb_req[i].transit)
            continue;
        eng->arb_req[kept] = eng->arb_req[i];
        eng->arb_rec[kept++] = eng->arb_rec[i];
    }
    return kept ? kept : n;
}

/* The requests as the arbiter was built to read them: an arbiter of an
   earlier ABI minor gets the shorter records of its minor. */
static const insee_request *arbiter_view(insee_engine *eng, uint32_t n)
{
    if (!eng->arb_packed)
        return eng->arb_req;
    for (uint32_t i = 0; i < n; i++)
        memcpy(eng->arb_packed + i * eng->arb_stride, &eng->arb_req[i], eng->arb_stride);
    return (const insee_request *)(const void *)eng->arb_packed;
}

/* Phase 4: one arbitration per requested output, in output order, so that
   what an arbiter draws from its stream never depends on the order heads
   became active. */
static void arbitrate_phase(insee_engine *eng)
{
    insee_net *net = &eng->net;
    insee_engine_sort_outputs(&eng->touched, &eng->sort_scratch, eng->out_bits, net->outputs);
    for (uint32_t t = 0; t < eng->touched.len; t++) {
        uint32_t out = eng->touched.v[t];
        uint32_t n = gather_requests(eng, out);
        uint32_t router = net->q_at[eng->req[eng->arb_rec[0]].queue].router;
        if (eng->ipr > 0 && insee_rng_double(&eng->ipr_rng[router]) < eng->ipr)
            n = transit_first(eng, n);
        void *state = eng->astate_size ? eng->astate + eng->astate_size * out : NULL;
        uint32_t w = eng->arbiter->pick(eng->arbiter_self, state, arbiter_view(eng, n), n,
                                        eng->now, &eng->arb_rng[router]);
        if (w >= n) {
            insee_engine_fail(eng, "arbiter plugin picked request %u of %u at output %u", w, n,
                              out);
            break;
        }
        grant(eng, &eng->req[eng->arb_rec[w]]);
    }
    for (uint32_t t = 0; t < eng->touched.len; t++)
        eng->out_req[eng->touched.v[t]] = INSEE_NONE; /* after an early break too */
    eng->touched.len = 0;
    eng->req_len = 0;
    start_links(eng);
}

/* Keep the heads that were not granted: they ask again next cycle. */
static void compact_active(insee_engine *eng)
{
    insee_net *net = &eng->net;
    insee_active *a = &eng->active;
    uint32_t kept = 0;
    for (uint32_t i = 0; i < a->len; i++) {
        uint32_t q = a->queue[i];
        if (q == INSEE_NONE || !(net->q[q].flags & INSEE_Q_ACTIVE) ||
            (net->q[q].flags & INSEE_Q_DEPARTING))
            continue;
        if (kept != i) {
            a->queue[kept] = q;
            a->ncand[kept] = a->ncand[i];
            if (a->ncand[i] != INSEE_NOT_CACHED)
                memcpy(&a->cand[(size_t)kept * a->kept],
                       &a->cand[(size_t)i * a->kept],
                       a->ncand[i] * sizeof(insee_candidate));
        }
        kept++;
    }
    a->len = kept;
}

/* A count of the whole network from this process's share `v`: a
   partitioned run's parts add theirs, so every part calls it at the same
   cycle (global congestion control's samples: their cycles are every
   part's). */
static uint64_t whole_network(insee_engine *eng, uint64_t v)
{
    return G_LIKELY(eng->part == NULL) ? v : insee_partition_sum(eng->part, v);
}

/* INSEE's count: every packet whose head has left its injection queue and
   whose tail is not consumed yet (in_flight less those still queued at
   their source). */
static uint64_t packets_past_sources(const insee_engine *eng)
{
    const insee_net *net = &eng->net;
    uint64_t queued = 0;
    for (uint32_t q = net->transit_queues; q < net->queues; q++)
        for (uint32_t p = net->q[q].head; p != INSEE_NONE; p = net->pkt[p].next)
            queued++;
    return eng->in_flight - queued;
}

/* Global congestion control: sample the share of transit slots in use every
   gcc_period cycles; injection waits while it is above the threshold. An
   idle jump only skips samples of an empty network. gcc_count = "insee" is
   INSEE's code instead (data_generation.c, batch.c): its capacity counts
   each port of a bidirectional direct network twice (radix * nways), the
   limit is truncated to whole packets, the sources act on the sample taken
   one period earlier, and they skip their draws rather than hold their
   injection queues. */
static void sample_congestion(insee_engine *eng)
{
    if (eng->gcc <= 0 || eng->now < eng->gcc_next)
        return;
    const insee_net *net = &eng->net;
    double slots = (double)net->transit_queues * net->queue_packets;
    eng->gcc_next = eng->now + eng->gcc_period;
    if (!eng->gcc_insee) {
        uint64_t mine = eng->part ? insee_partition_transit_used(eng->part, net)
                                  : net->transit_used;
        eng->gcc_stop = slots > 0 && (double)whole_network(eng, mine) / slots > eng->gcc;
        return;
    }
    /* a part's share of INSEE's count wraps; the sum does not */
    uint64_t past = whole_network(eng, packets_past_sources(eng));
    eng->gcc_skip = eng->gcc_over;
    eng->gcc_over = past > (uint64_t)(2 * slots * eng->gcc);
}

static void step(insee_engine *eng)
{
    insee_workload_cycle(&eng->wl, eng->now, eng->gcc_skip);
    if (eng->wh)
        insee_wormhole_events(eng);
    else
        process_events(eng);
    insee_workload_local(&eng->wl);
    take_queued(eng); /* messages whose sender's overhead just ended */
    insee_workload_sched(&eng->wl);
    if (eng->now < eng->window_end) {
        insee_workload_generate(&eng->wl);
        take_queued(eng);
    }
    sample_congestion(eng);
    if (eng->wh) {
        insee_wormhole_move(eng);
    } else {
        request_phase(eng);
        arbitrate_phase(eng);
        compact_active(eng);
    }
}

/* The next cycle this process has something to do: a packet moving, a
   source due, a phase boundary. */
static uint64_t next_due(insee_engine *eng)
{
    if (eng->active.len || eng->wheel.pending || (eng->wh && insee_wormhole_busy(eng)))
        return eng->now + 1;
    uint64_t next = MIN(insee_workload_next_due(&eng->wl), insee_workload_sched_next(&eng->wl));
    return MIN(next, MIN(eng->window_end, eng->phases.next));
}

/* The next cycle to simulate, given the next with work anywhere: no later
   than the cycle a stall becomes a deadlock (heads sleeping for room wait
   for nothing else). */
static uint64_t next_cycle(insee_engine *eng, uint64_t next)
{
    if (insee_engine_in_flight(eng))
        next = MIN(next, eng->last_move +
                             (eng->deadlock_cycles ? eng->deadlock_cycles : INSEE_STALL_LIMIT));
    return next > eng->now + 1 ? next : eng->now + 1;
}

/* The end (exclusive) of the window a part of a split run runs on its
   own from the cycle just simulated, every part having simulated it: at
   most its lookahead long, and ending before any cycle at which the parts
   decide together what one process decides from the whole network: a
   phase's boundary, a statistics boundary, a sample of the congestion
   control, the drain's limit, and the first cycle a deadlock could be
   found (a stall starts no sooner than the last move the parts know of,
   or now if the network was empty). The run's end may come within a
   window: the parts find its cycle when they meet. */
static uint64_t window_end(const insee_engine *eng)
{
    uint64_t now = eng->now, end = now + insee_partition_lookahead(eng->part);
    uint64_t limit = eng->deadlock_cycles ? eng->deadlock_cycles : INSEE_STALL_LIMIT;
    uint64_t stall = eng->in_flight_parts ? insee_partition_last_move(eng->part) : now;
    end = MIN(end, MIN(eng->phases.next, eng->stats.next_split));
    if (eng->gcc > 0)
        end = MIN(end, eng->gcc_next);
    end = MIN(end, eng->drain_limit);
    end = MIN(end, stall + limit + 1);
    return MAX(end, now + 1);
}

/* A part of a split run, after simulating a cycle: the window it runs on
   its own opens at the first cycle after the parts met (*from: INSEE_NEVER
   outside one) and ends (*end) at window_end(). TRUE while the part goes
   on alone, eng->now moved to its next cycle in the window; else the
   parts have met, *next being the whole network's next cycle with work
   and its figures those at the window's last cycle. *next: this part's
   (next_due(): a boundary already passed means the next cycle). */
static gboolean window_goes_on(insee_engine *eng, uint64_t *next, uint64_t *from, uint64_t *end)
{
    if (*from == INSEE_NEVER) {
        *from = eng->now;
        *end = window_end(eng);
        insee_partition_open(eng->part, *from, *end);
    }
    uint64_t at = MAX(*next, eng->now + 1);
    if (at < *end && !failed(eng)) {
        insee_partition_cycle_done(eng);
        eng->now = at;
        return TRUE;
    }
    insee_partition_sync(eng, *next);
    *next = insee_partition_next(eng->part);
    return FALSE;
}

/* Whether the run is over after the cycle just simulated. A causal run
   first waits for every causal application; the cycle they are done ends
   generation for the open-ended ones, whose packets then drain. */
static gboolean finished(insee_engine *eng)
{
    if (eng->causal && !eng->causal_done) {
        if (!insee_workload_apps_done(&eng->wl))
            return FALSE;
        eng->causal_done = TRUE;
        eng->report.completion = eng->now + 1; /* the cycle just simulated counts */
        insee_phases_window(eng, eng->window_start, eng->now + 1);
    }
    gboolean hands_over = eng->part ? insee_partition_hands_over(eng->part)
                                    : insee_workload_next_local(&eng->wl) != INSEE_NEVER;
    return insee_engine_in_flight(eng) == 0 && !hands_over &&
           eng->now + 1 >= eng->window_end;
}

/* What causal application `a` waits for, in the words of an error. */
static char *app_waits(const insee_app *a)
{
    char why[512] = "";
    if (!(a->traffic->describe_wait && a->traffic->describe_wait(a->self, why, sizeof why)))
        g_strlcpy(why, "its plugin does not say what it waits for", sizeof why);
    why[sizeof why - 1] = '\0';
    return g_strdup_printf("application '%s' (%s) has not finished: %s", a->rep->name,
                           a->rep->plugins, why);
}

/* Causal application `a` will not finish: stuck (nothing of it is left to
   happen) or out of time (max_cycles reached, or all it has left is due
   after it). */
static void fail_unfinished(insee_engine *eng, const insee_app *a)
{
    char *waits = app_waits(a);
    /* Why a message may never come: a drop at a failed cable says nothing
       to the plugin, so the kernel says it. */
    char *why = eng->dropped_failed
                    ? g_strdup_printf("%s (%" G_GUINT64_FORMAT " packets were dropped at failed "
                                      "cables, [faults]: their messages never arrive)", waits,
                                      eng->dropped_failed)
                    : g_strdup(waits);
    g_free(waits);
    if (a->late || eng->now + 1 >= eng->max_cycles)
        insee_engine_fail(eng, "%s by [simulation] max_cycles = %" G_GUINT64_FORMAT
                          "; raise it if the workload is this long", why, eng->max_cycles);
    else
        insee_engine_fail(eng, "the workload is stuck, nothing is left to happen: %s", why);
    g_free(why);
}

/* The first causal application not done, when the run ends without it. */
static void fail_first_unfinished(insee_engine *eng)
{
    const insee_app *a = insee_workload_unfinished(&eng->wl);
    if (a)
        fail_unfinished(eng, a);
}

/* Checked every turn of the loop: a stuck application ends the run at once,
   even while open-ended traffic keeps the network busy. */
static void check_stuck(insee_engine *eng)
{
    if (!eng->causal || eng->causal_done)
        return;
    const insee_app *a = insee_workload_stuck_app(&eng->wl);
    if (a)
        fail_unfinished(eng, a);
}

/* What one process checks after every cycle: a deadlock, the run's end
   (TRUE, the cycle just simulated counting), an application that will not
   finish. */
static gboolean cycle_ends_run(insee_engine *eng)
{
    insee_deadlock_check(eng);
    if (finished(eng)) {
        eng->now++;
        return TRUE;
    }
    check_stuck(eng);
    return FALSE;
}

/* After the parts met, the window's cycles from `from` that some part
   simulated, in turn, each with the whole network's figures at its end,
   checked as one process checks them after each cycle it simulates: the
   run ends at the first that ends it, or fails at the first that finds an
   application stuck. The parts simulated the cycles after it, in which
   nothing was left to change what the checks read (nothing in flight,
   nothing left to hand over, no source generating), but queues' slots
   freeing after the measurement. A deadlock cannot be found before the
   last (window_end()). */
static gboolean window_ends_run(insee_engine *eng, uint64_t from)
{
    uint64_t last = insee_partition_window_last(eng->part);
    for (uint64_t c = from; c < last && !failed(eng); c++) {
        if (!insee_partition_simulated(eng->part, c))
            continue;
        insee_partition_recall(eng, c);
        if (finished(eng)) {
            eng->now++;
            return TRUE;
        }
        check_stuck(eng);
    }
    if (failed(eng))
        return FALSE;
    insee_partition_recall(eng, last);
    return cycle_ends_run(eng);
}

/* Progress on stderr when it is a terminal, at most twice a second; the
   clock is read once every 4096 loop turns so the loop stays cheap. The
   time left is estimated once the end of generation is known. */
typedef struct progress {
    gboolean on;
    gint64 start_us, next_us;
    uint32_t turns;
} progress;

static void progress_tick(const insee_engine *eng, progress *pg)
{
    if (!pg->on || (++pg->turns & 4095u) != 0)
        return;
    gint64 t = g_get_monotonic_time();
    if (t < pg->next_us)
        return;
    pg->next_us = t + 500000;
    char left[64] = "";
    if (eng->window_end != INSEE_NEVER && eng->now < eng->window_end && eng->now > 0 && !eng->causal)
        g_snprintf(left, sizeof left, ", about %.0f s left",
                   (double)(t - pg->start_us) / 1e6 * (double)(eng->window_end - eng->now) /
                       (double)eng->now);
    fprintf(stderr, "\rinsee: cycle %" G_GUINT64_FORMAT " (%s), %" G_GUINT64_FORMAT
            " packets in flight%s   ", eng->now, insee_phase_name(insee_phases_current(eng)),
            insee_engine_in_flight(eng), left);
}

/* The figures the collector holds, into the report. */
static void report_collected(insee_engine *eng)
{
    insee_report *rep = &eng->report;
    const insee_stats *st = &eng->stats;
    uint64_t from = MIN(eng->window_start, eng->now), to = MIN(eng->window_end, eng->now);
    rep->warmup_cycles = eng->phases.mode == INSEE_RUN_CONVERGE && !eng->causal
                             ? eng->phases.warmup
                             : from;
    if (!eng->causal)
        rep->measure_cycles = to - from;
    rep->phases = eng->causal ? "causal"
                  : eng->phases.mode == INSEE_RUN_CONVERGE ? "converge" : "fixed";
    rep->dropped_source = st->dropped[INSEE_DROP_SOURCE_FULL];
    rep->dropped_router = st->dropped[INSEE_DROP_ROUTER];
    rep->dropped_unroutable = st->dropped[INSEE_DROP_UNROUTABLE];
    rep->occupancy_max = st->occupancy_max;
    static const double q[4] = {0.5, 0.9, 0.99, 0.999};
    for (int k = 0; k < 4; k++) {
        rep->latency_gen_q[k] = insee_lat_hist_quantile(&st->latency, q[k]);
        rep->latency_inj_q[k] = insee_lat_hist_quantile(&st->latency_inj, q[k]);
    }
}

/* Whether the loop ends for an error: in a partitioned run, when any part
   had one at the last exchange, so that every part ends at the same cycle. */
static gboolean stopped_by_error(insee_engine *eng)
{
    return eng->part ? insee_partition_failed(eng->part) : failed(eng);
}

/* Whether the user asked to stop (in a partitioned run: any part's user). */
static gboolean stop_asked(const insee_engine *eng)
{
    if (eng->part)
        return insee_partition_stopped(eng->part);
    return eng->stop && *eng->stop;
}

gboolean insee_engine_run(insee_engine *eng, GError **err)
{
    insee_report *rep = &eng->report;
    gint64 start = g_get_monotonic_time();
    progress pg = {.on = isatty(STDERR_FILENO) && (!eng->transport || eng->transport->part == 0),
                   .start_us = start, .next_us = start + 500000};
    if (eng->threads > 1 && !eng->crew) {
        eng->crew = insee_crew_new(eng->threads, eng->crew_min_heads, INSEE_CREW_SPINS, err);
        if (!eng->crew)
            return FALSE;
    }
    eng->now = 0;
    if (eng->transport && !insee_partition_start(eng, eng->transport, err))
        return FALSE;
    insee_phases_start(eng);
    insee_workload_start(&eng->wl);
    uint64_t from = INSEE_NEVER, end = 0; /* a part's window */
    while (!stopped_by_error(eng) && eng->now < eng->drain_limit) {
        if (stop_asked(eng)) {
            rep->interrupted = TRUE;
            break;
        }
        /* Within a window a part learns the whole network's packets in
           flight when the parts meet (partition.c accounts them then). */
        insee_stats_advance(&eng->stats, eng->now,
                            from == INSEE_NEVER ? insee_engine_in_flight(eng) : 0,
                            insee_phases_current(eng));
        if (eng->now >= eng->phases.next)
            insee_phases_at(eng);
        step(eng);
        uint64_t next = next_due(eng);
        if (eng->part && window_goes_on(eng, &next, &from, &end))
            continue;
        /* A part checks on the whole network's figures, its last move
           included, as one process does: every part decides alike. */
        gboolean ends = eng->part ? window_ends_run(eng, from) : cycle_ends_run(eng);
        from = INSEE_NEVER;
        if (ends)
            break;
        eng->now = next_cycle(eng, next);
        progress_tick(eng, &pg);
    }
    if (eng->causal && !eng->causal_done && !failed(eng) && !rep->interrupted)
        fail_first_unfinished(eng);
    if (eng->part)
        insee_partition_agree_failure(eng, failed(eng));
    if (pg.on && pg.next_us > start + 500000)
        fputs("\r\033[K", stderr); /* erase the progress line */
    if (eng->now > eng->drain_limit)
        eng->now = eng->drain_limit;
    if (failed(eng)) {
        g_propagate_error(err, eng->error);
        eng->error = NULL;
        return FALSE;
    }
    rep->cycles = eng->now;
    rep->drained = insee_engine_in_flight(eng) == 0;
    rep->stalled_cycles = !rep->drained && eng->now > eng->last_move ? eng->now - eng->last_move : 0;
    rep->causal = eng->causal;
    rep->completed = eng->causal_done;
    rep->drain_cycles = eng->now > eng->window_end ? eng->now - eng->window_end : 0;
    rep->wall_seconds = (double)(g_get_monotonic_time() - start) / 1e6;
    struct rusage usage;
    if (getrusage(RUSAGE_SELF, &usage) == 0)
        rep->peak_rss_kib = (uint64_t)usage.ru_maxrss; /* Linux: KiB */
    if (eng->causal) /* measured from cycle 0 to completion */
        rep->measure_cycles = eng->causal_done ? rep->completion : eng->now;
    insee_stats_finish(&eng->stats, &eng->net, eng->now, insee_phases_current(eng));
    if (eng->part)
        insee_partition_merge(eng);
    insee_stats_close_last(&eng->stats, eng->now, insee_phases_current(eng));
    rep->total_in_flight = insee_engine_in_flight(eng);
    double wall = rep->wall_seconds > 1e-9 ? rep->wall_seconds : 1e-9;
    rep->cycles_per_second = (double)rep->cycles / wall;
    rep->packet_hops_per_second = (double)rep->total_packet_hops / wall; /* every part's */
    report_collected(eng);
    if (rep->measure_cycles)
        rep->occupancy = (double)eng->stats.occupancy_area / (double)rep->measure_cycles;
    double denom = (double)eng->net.nodes * (double)rep->measure_cycles;
    if (denom > 0) {
        rep->generated_load = (double)rep->generated_phits / denom;
        rep->accepted_load = (double)rep->delivered_phits / denom;
    }
    insee_workload_report(&eng->wl);
    return TRUE;
}
