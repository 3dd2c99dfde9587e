/* kernel/engine/partition.c — a run split over several processes
 * (partition.h): who owns what, what crosses a cut link, how long the
 * parts may run on their own, the exchange at the end of every window of
 * cycles, and the merge of the figures. */
#include "engine/partition.h"

#include <string.h>

#include "config/config.h"
#include "engine/engine.h"
#include "engine/wormhole.h"
#include "stats/merge.h"

/* Scalars every part tells every other with each exchange, after
   the count of bytes it sends that part (word 0: the transport's
   exchange() reads it). */
enum { H_BYTES, H_NEXT, H_LAST_MOVE, H_FLAGS, H_FLIGHT, H_TRANSIT, H_WORDS };
enum { F_FAILED = 1, F_STOP = 2, F_HANDED = 4 };

/* What crosses: a record's first word says which. */
enum {
    R_ARRIVAL = 1, R_CREDIT, R_NOTICE, R_CUT, R_ANNOUNCE, R_CYCLES, R_RESERVE,
    R_HEAD, R_FLIT, R_FLIT_CREDIT /* wormhole flow control's */
};

/* A router no part owns yet, while the parts are assigned. */
enum { UNOWNED = G_MAXUINT16 };

typedef struct arrival {
    uint32_t kind, dq;
    uint32_t part, msg;  /* the message the packet belongs to (insee_workload_adopt) */
    uint32_t src_task, pad;
    uint64_t in_done;    /* dq's phit view: the cycle its tail is in */
    uint64_t tail;       /* the cycle its tail is in, when links are slower than the
                            router or ports have buffers (net->tail); else 0 */
    insee_packet pk;     /* then the router's packet state, pstate_size bytes */
} arrival;

/* Wormhole flow control: a flit is in queue q at cycle `at` (R_FLIT, to
   q's part), or q's credit for one is back upstream at `at` (R_FLIT_CREDIT,
   to the part feeding q). A packet whose head crosses is an R_HEAD, laid
   out as an arrival: the receiving part queues it in dq, where its flits
   follow. */
typedef struct flit_event {
    uint32_t kind, q;
    uint64_t at;
} flit_event;

/* A packet granted towards queue q, drained in another part, holds
   `units` there from the grant, its tail not yet in: q's phit view at
   either end counts it so until it starts crossing (an arrival). */
typedef struct reserve {
    uint32_t kind, q, units, pad;
} reserve;

/* A packet leaves queue q, fed from another part: its slot frees at
   `due`, and the cycle its tail has left (q's phit view) is `out_done`. */
typedef struct credit {
    uint32_t kind, q, units, pad;
    uint64_t due, out_done;
} credit;

/* The packet arriving in queue q was dropped at cycle `at`: the rest of
   its tail is discarded as it comes (q's phit view). */
typedef struct cut {
    uint32_t kind, q;
    uint64_t at;
} cut;

/* A packet of the receiver's message `msg` ended at cycle `at` of the
   window (from its start). */
typedef struct notice {
    uint32_t kind, msg, dropped, at;
} notice;

/* The sender's message `msg` will be handed to its task in the receiving
   part (insee_workload_receive). */
typedef struct announce {
    uint32_t kind, msg, src_task, last_phits;
    insee_message m;
} announce;

/* The sender's share of each cycle of the window since the last meeting:
   `n` counts of its packets in flight at a cycle's end, then B_SETS sets
   of (n + 63) / 64 words of bits (below); in a causal run, then the states
   of its causal applications at each cycle's end (n insee_app_states). */
typedef struct cycles {
    uint32_t kind, n;
    uint64_t last; /* the last cycle of the window the sender simulated */
} cycles;

/* The most cycles the parts run on their own between two meetings. */
enum { LOOKAHEAD_MAX = 1024 };

/* A cycle's bit is set in B_QUEUED when the part queued a packet at a
   source, in B_PENDING when it had messages left to hand over at its end,
   in B_SIMULATED when it simulated it. */
enum { B_QUEUED, B_PENDING, B_SIMULATED, B_SETS };

static uint32_t bit_words(uint32_t n)
{
    return (n + 63) / 64;
}

static gboolean bit(const uint64_t *bits, uint32_t i)
{
    return bits[i / 64] >> (i % 64) & 1;
}

static void set_bit(uint64_t *bits, uint32_t i, gboolean on)
{
    bits[i / 64] |= (uint64_t)(on != 0) << (i % 64);
}

struct insee_partition {
    insee_transport t;
    uint16_t *router_part;   /* per router: the part that owns it */
    uint16_t *feeder_part;   /* per transit queue: the part owning the link into it */
    uint8_t *cut;            /* per queue: INSEE_CUT_* (the engine's `cut`) */
    uint16_t *node_part;     /* per node: its router's part (the workload's) */
    uint8_t *counted;        /* per queue: its count is exact here (the stats' q_counted) */
    /* Queues of other parts whose phit view this part set in the window
       (a grant towards one, a packet starting across), where packets may
       be dropped (cuts; windows are then a cycle long): a cut taken after
       the cycle comes before those in one process (it is made at the end
       of the request phase) and changes nothing then. */
    gboolean may_cut;
    insee_vec fed;
    insee_vec drained_cut;   /* transit queues drained here and fed across a cut: their
                                count here is not exact (global congestion control) */
    GByteArray **out;        /* per part: what this cycle sends it */
    GByteArray *send, *recv; /* the exchange's scratch */
    int *scount, *sdispl, *rcount, *rdispl;
    uint64_t *head_out, *head_in;
    /* the whole network's, as of the last sync */
    uint64_t next, transit;
    gboolean hands_over; /* messages left to hand over (as of the last recall) */
    gboolean stop, failed;
    uint32_t first_failed; /* the first part that failed, or INSEE_NONE */
    /* A queue across a cut is seen whole (in phits) at either end where
       the parts meet every cycle: what the other end changed comes with
       the cycle's exchange (reserves, arrivals, credits, cuts), before
       the next cycle's requests read it. */
    gboolean cut_phits_exact;
    /* Wormhole flow control: the part draining a queue across a cut keeps
       a copy of its count of flits (a flit is added when it crosses, a
       credit taken when its flit leaves), exact where the parts meet
       every cycle. */
    gboolean wormhole;
    /* The parts meet once every `lookahead` cycles at most: a window
       [win_from, win_end). Per cycle of it, this part's packets in flight
       at its end, whether it queued one at a source and whether messages
       were left to hand over (filled up to win_filled), then the whole
       network's once the parts have met. */
    uint32_t lookahead;
    uint64_t win_from, win_end, win_last;
    uint32_t win_filled;
    uint64_t *flight, *whole;    /* lookahead entries each */
    uint64_t *bits[B_SETS];      /* lookahead bits each, this part's */
    uint64_t *whole_bits[B_SETS];
    insee_app_states *states, *whole_states; /* lookahead entries each (causal runs) */
    /* The first cycle of the window from which a message whose last packet
       arrived in another part waits to be handed over in this one: this
       part's while it takes the window's notices, then the whole
       network's (settle_handed()). INSEE_NEVER: none. */
    uint64_t held_from;
    uint64_t last_move;         /* the whole network's, as the parts last agreed it */
};

gboolean insee_partition_check(const insee_engine *eng, uint32_t router_props,
                               const insee_transport *t, GError **err)
{
    const char *why = NULL;
    if (t->parts > eng->net.routers || t->parts > G_MAXUINT16)
        why = "there are more ranks than routers: start fewer ranks";
    else if (!(router_props & (INSEE_ROUTE_PURE | INSEE_ROUTE_STEADY | INSEE_ROUTE_LOCAL)))
        why = "its router plugin may read other routers' state or keep state of its own as "
              "it routes (it declares none of INSEE_ROUTE_PURE, INSEE_ROUTE_STEADY and "
              "INSEE_ROUTE_LOCAL)";
    else if (router_props & INSEE_ROUTE_MULTICAST)
        why = "its router makes multicast copies";
    else if (eng->wl.sched)
        why = "jobs ([scheduler]) start and end on the whole network's state";
    else if (eng->wl.bridge)
        why = "a [bridge] section's clients are served by one process";
    else if (eng->causal && eng->wl.n_apps > 64)
        why = "a causal run splits with at most 64 applications";
    for (uint32_t i = 0; !why && i < eng->wl.n_apps; i++) {
        const insee_app *a = &eng->wl.apps[i];
        if (!insee_workload_tells_deliveries(a))
            continue;
        if (a->drop_on_full || (eng->net.failed && !a->causal))
            why = "a causal application, or traffic that reacts to deliveries, may lose packets "
                  "(on_full = \"drop\", [faults]), and a receiving part does not learn of drops "
                  "yet";
        else if (!a->per_task)
            why = a->causal ? "a causal traffic plugin does not declare its tasks' states their "
                              "own (INSEE_TRAFFIC_PER_TASK)"
                            : "a traffic plugin reacts to deliveries (delivered()) and does not "
                              "declare its tasks' states their own (INSEE_TRAFFIC_PER_TASK)";
    }
    if (!why)
        return TRUE;
    g_set_error(err, INSEE_CONFIG_ERROR, INSEE_CONFIG_ERROR_INVALID,
                "this run cannot be split over %u mpirun ranks: %s. Run it without mpirun "
                "(insee run), or change it as said",
                t->parts, why);
    return FALSE;
}

uint32_t insee_partition_first_failed(const insee_partition *part)
{
    return part ? part->first_failed : INSEE_NONE;
}

gboolean insee_partition_owns(const insee_partition *part, uint32_t r)
{
    return part->router_part[r] == part->t.part;
}

gboolean insee_partition_holds(const insee_partition *part, const insee_net *net, uint32_t r,
                               uint32_t q, gboolean whole)
{
    if (r == INSEE_NONE || !insee_partition_owns(part, r))
        return FALSE;
    if (q == INSEE_NONE || q >= net->transit_queues)
        return TRUE;
    gboolean feeds = part->feeder_part[q] == part->t.part,
             drains = insee_partition_owns(part, net->q_at[q].router);
    if (part->wormhole) /* a count, whole where its copy is (phit views are not kept) */
        return feeds || (drains && part->lookahead == 1);
    if (!whole)
        return feeds;
    return (feeds && drains) || (part->cut_phits_exact && (feeds || drains));
}

/* Router r's part when nothing else decides: the part that most of its
   links lead to among those with room for their share of routers, then
   the smallest, then the first. `votes` (parts entries) is left zero. */
static uint16_t nearest_part(const insee_net *net, const uint16_t *owner, uint32_t r,
                             const uint32_t *size, uint32_t share, uint32_t parts,
                             uint32_t *votes)
{
    for (uint32_t gp = net->port_base[r]; gp < net->port_base[r + 1]; gp++) {
        uint32_t nr = insee_net_next_router(net, gp);
        if (nr != INSEE_NONE && owner[nr] != UNOWNED)
            votes[owner[nr]]++;
    }
    uint32_t best = UNOWNED;
    for (uint32_t p = 0; p < parts; p++) {
        if (size[p] >= share)
            continue;
        if (best == UNOWNED || votes[p] > votes[best] ||
            (votes[p] == votes[best] && size[p] < size[best]))
            best = p;
    }
    memset(votes, 0, parts * sizeof *votes);
    return (uint16_t)best; /* some part has room: the parts' shares cover every router */
}

/* Who owns each router, by the network's own shape. The nodes are cut
   into equal ranges of ids: the topologies number a torus's nodes slab by
   slab, a tree's subtree by subtree and a dragonfly's group by group. A
   router with nodes goes with its middle node; one without (a tree's
   upper switches) goes, nearest first, to the part most of its links lead
   to (nearest_part). So a fat tree split in two keeps each half's
   subtrees whole and cuts only links to the top, where ranges of router
   ids would give each part whole levels and cut nearly every link. */
static void assign_routers(uint16_t *owner, const insee_net *net, uint32_t parts)
{
    uint32_t routers = net->routers;
    uint32_t *nodes = g_new0(uint32_t, routers), *seen = g_new0(uint32_t, routers);
    uint32_t *order = g_new(uint32_t, routers), *size = g_new0(uint32_t, parts);
    uint32_t *votes = g_new0(uint32_t, parts);
    uint32_t head = 0, tail = 0, share = (routers + parts - 1) / parts;
    uint8_t *queued = g_new0(uint8_t, routers);
    for (uint32_t r = 0; r < routers; r++)
        owner[r] = UNOWNED;
    for (uint32_t n = 0; n < net->nodes; n++)
        nodes[net->node_router[n]]++;
    for (uint32_t n = 0; n < net->nodes; n++) {
        uint32_t r = net->node_router[n];
        if (seen[r]++ == nodes[r] / 2)
            owner[r] = (uint16_t)((uint64_t)n * parts / net->nodes);
    }
    for (uint32_t r = 0; r < routers; r++)
        if (nodes[r]) {
            size[owner[r]]++;
            queued[r] = 1;
            order[tail++] = r;
        }
    /* Breadth first from the routers with nodes; a router no path reaches
       starts a search of its own. */
    for (uint32_t next_unqueued = 0; head < routers; head++) {
        if (head == tail) {
            while (queued[next_unqueued])
                next_unqueued++;
            queued[next_unqueued] = 1;
            order[tail++] = next_unqueued;
        }
        uint32_t r = order[head];
        if (owner[r] == UNOWNED) {
            owner[r] = nearest_part(net, owner, r, size, share, parts, votes);
            size[owner[r]]++;
        }
        for (uint32_t gp = net->port_base[r]; gp < net->port_base[r + 1]; gp++) {
            uint32_t nr = insee_net_next_router(net, gp);
            if (nr != INSEE_NONE && !queued[nr]) {
                queued[nr] = 1;
                order[tail++] = nr;
            }
        }
    }
    g_free(nodes);
    g_free(seen);
    g_free(order);
    g_free(size);
    g_free(votes);
    g_free(queued);
}

/* Who feeds each queue and which nodes are this part's, once every router
   has its owner; and how many links the cut crosses, for the report. */
static void assign_queues(insee_partition *part, const insee_net *net, insee_report *rep)
{
    part->feeder_part = g_new(uint16_t, net->transit_queues);
    /* A queue no link feeds (its cable absent) is its own router's. */
    for (uint32_t q = 0; q < net->transit_queues; q++)
        part->feeder_part[q] = part->router_part[net->q_at[q].router];
    for (uint32_t r = 0; r < net->routers; r++)
        for (uint32_t gp = net->port_base[r]; gp < net->port_base[r + 1]; gp++) {
            uint32_t nr = insee_net_next_router(net, gp);
            if (nr == INSEE_NONE)
                continue;
            for (uint32_t vc = 0; vc < net->vcs; vc++)
                part->feeder_part[net->link[gp].peer + vc] = part->router_part[r];
            rep->links++;
            rep->cut_links += part->router_part[nr] != part->router_part[r];
        }
    part->node_part = g_new(uint16_t, net->nodes);
    for (uint32_t n = 0; n < net->nodes; n++)
        part->node_part[n] = part->router_part[net->node_router[n]];
    /* A transit queue's count is exact where its link is fed (a slot is
       taken at the grant, freed by a credit), an injection queue's at its
       router: each is timed by one part, and the histograms add up. */
    part->counted = g_new(uint8_t, net->queues);
    for (uint32_t q = 0; q < net->queues; q++) {
        part->counted[q] = q < net->transit_queues
                               ? part->feeder_part[q] == part->t.part
                               : insee_partition_owns(part, net->q_at[q].router);
        if (!part->counted[q] && insee_partition_owns(part, net->q_at[q].router))
            insee_vec_push(&part->drained_cut, q);
    }
    part->cut = g_new0(uint8_t, net->queues);
    for (uint32_t q = 0; q < net->queues; q++) {
        gboolean theirs = !insee_partition_owns(part, net->q_at[q].router),
                 fed_there = q < net->transit_queues && part->feeder_part[q] != part->t.part;
        part->cut[q] = (theirs ? INSEE_CUT_DOWNSTREAM : 0) | (fed_there ? INSEE_CUT_UPSTREAM : 0);
    }
}

/* What every part must agree on: the configuration as used (seed
   included), the network's size, the router's packet state, and this
   build's record layout. */
static uint64_t fingerprint(const insee_engine *eng)
{
    const insee_net *net = &eng->net;
    uint64_t h = 14695981039346656037ull; /* FNV-1a */
    uint64_t sizes[] = {net->routers, net->nodes, net->queues, net->ovcs, net->pstate_size,
                        sizeof(arrival), eng->seed};
    const guint8 *bytes[] = {(const guint8 *)(eng->report.echo ? eng->report.echo : ""),
                             (const guint8 *)sizes};
    size_t lens[] = {strlen((const char *)bytes[0]), sizeof sizes};
    for (size_t k = 0; k < G_N_ELEMENTS(bytes); k++)
        for (size_t i = 0; i < lens[k]; i++)
            h = (h ^ bytes[k][i]) * 1099511628211ull;
    return h;
}

/* Whether every part runs the same experiment: its fingerprint's largest
   and smallest over the parts agree (the same answer in every part). */
static gboolean same_everywhere(const insee_transport *t, uint64_t fp)
{
    uint64_t v[] = {fp, ~fp};
    t->allreduce(t->ctx, v, G_N_ELEMENTS(v), INSEE_REDUCE_MAX);
    return v[0] == ~v[1];
}

/* Whether a message may be handed to its task some cycles after its last
   packet arrived: the receiver's overhead, or a two-copy message's copy. */
static gboolean receivers_wait(const insee_engine *eng)
{
    return eng->wl.env.recv_cycles > 0 || eng->memory_cycles_per_byte > 0;
}

/* The phits of the shortest packet the workload makes: a message's last
   packet is only as long as its header and what is left of its bytes. */
static uint64_t shortest_packet(const insee_engine *eng)
{
    uint64_t L = eng->packet_phits, phit = eng->phit_bytes;
    if (!eng->variable_packets)
        return L;
    uint64_t header = L * phit - eng->payload_bytes;
    return MAX((header + 1 + phit - 1) / phit, 1);
}

/* How many cycles the parts may run on their own between two meetings.
   What one part sends another must be there before it is due: a packet
   that starts crossing a cut link at t is routable in the next router from
   t + k + cable + pipeline (a phit's cycles on the link, the cable, the
   router's pipeline), and a slot of a queue fed across a cut frees no
   sooner than a shortest packet has left it, at the crossbar's speedup.
   One cycle, as INSEE's model gives, when any of these is 1 or when a
   part would act on what the parts decide together at a cycle within the
   window: a drop frees its slot at the next cycle (failed cables, a router
   that may drop); and the cycle every causal application is done ends the
   generation of open-ended traffic beside them. A message handed to its
   task in its sender's part (one whose plugin does not hear of deliveries)
   is handed over there the receiver's overhead after its last packet
   arrived in another part: the window is no longer than that overhead, so
   the hand-over falls after the meeting that tells the sender's part.
   One cycle too for a router that is only local: it may read the phit
   view of a queue across a cut, which the other end changes.
   Under wormhole flow control a flit is due in the next router's buffer,
   and its credit back upstream, its stages and cable after it left
   (wormhole.c); no packet is dropped there. A router that is only local
   may read the count of its own input queues, which the part across a
   cut keeps a copy of from what crosses: one cycle. Credits still come back after
   a causal run's last delivery, whose cycle ends the measurement: the
   parts learn it when they meet, so they meet every cycle where the queue
   histograms would count a credit that came after it. */
static uint32_t lookahead(const insee_engine *eng)
{
    const insee_net *net = &eng->net;
    uint32_t props = eng->router->properties ? eng->router->properties(eng->router_self) : 0;
    gboolean only_local = !(props & (INSEE_ROUTE_PURE | INSEE_ROUTE_STEADY));
    if (only_local || (eng->wormhole ? eng->causal && eng->stats.opt.queue_histograms
                                     : !eng->timed || !(props & INSEE_ROUTE_NO_DROPS) ||
                                           net->failed))
        return 1;
    uint64_t handed = LOOKAHEAD_MAX;
    for (uint32_t i = 0; i < eng->wl.n_apps; i++) {
        const insee_app *a = &eng->wl.apps[i];
        if (eng->causal && !a->causal)
            return 1;
        if (receivers_wait(eng) && !insee_workload_tells_deliveries(a))
            handed = MIN(handed, eng->wl.env.recv_cycles); /* a copy only adds to it */
    }
    uint64_t cable = UINT64_MAX, arrive = UINT64_MAX;
    for (uint32_t gp = 0; gp < net->port_base[net->routers]; gp++)
        if (insee_net_next_router(net, gp) != INSEE_NONE) {
            uint64_t c = eng->cable ? eng->cable[gp] : eng->cable_cycles;
            cable = MIN(cable, c);
            arrive = MIN(arrive, (eng->phit_cycles ? eng->phit_cycles[gp] : 1) + c);
        }
    uint64_t w;
    if (eng->wormhole) {
        const insee_wormhole_stages *st = &eng->wh_params;
        w = MIN(st->switch_alloc + st->switch_traversal + 1 + cable, st->credit + cable);
    } else {
        uint64_t speedup = eng->out_used ? eng->speedup : 1;
        w = MIN(arrive + eng->router_cycles, (shortest_packet(eng) + speedup - 1) / speedup);
    }
    w = MIN(w, handed);
    return (uint32_t)MAX(w, 1);
}

gboolean insee_partition_start(insee_engine *eng, const insee_transport *t, GError **err)
{
    if (!same_everywhere(t, fingerprint(eng))) {
        g_set_error(err, INSEE_CONFIG_ERROR, INSEE_CONFIG_ERROR_INVALID,
                    "the mpirun ranks do not run the same experiment (their configuration, "
                    "seed, network or insee build differ): give every rank the same files and "
                    "the same insee");
        return FALSE;
    }
    insee_partition *part = g_new0(insee_partition, 1);
    uint32_t parts = t->parts;
    part->t = *t;
    part->first_failed = INSEE_NONE;
    part->held_from = INSEE_NEVER;
    part->router_part = g_new(uint16_t, eng->net.routers);
    assign_routers(part->router_part, &eng->net, parts);
    assign_queues(part, &eng->net, &eng->report);
    part->out = g_new(GByteArray *, parts);
    for (uint32_t r = 0; r < parts; r++)
        part->out[r] = g_byte_array_new();
    /* Allocated from the start: an empty exchange still hands the
       transport buffers, never NULL. */
    part->send = g_byte_array_sized_new(4096);
    part->recv = g_byte_array_sized_new(4096);
    part->scount = g_new(int, 4 * parts);
    part->sdispl = part->scount + parts;
    part->rcount = part->scount + 2 * parts;
    part->rdispl = part->scount + 3 * parts;
    part->head_out = g_new0(uint64_t, 2 * H_WORDS * parts);
    part->head_in = part->head_out + H_WORDS * parts;
    part->lookahead = lookahead(eng);
    uint32_t props = eng->router->properties ? eng->router->properties(eng->router_self) : 0;
    part->may_cut = eng->net.failed || !(props & INSEE_ROUTE_NO_DROPS);
    part->cut_phits_exact = part->lookahead == 1;
    part->wormhole = eng->wormhole;
    part->flight = g_new0(uint64_t, 2 * (size_t)part->lookahead);
    part->whole = part->flight + part->lookahead;
    uint32_t words = bit_words(part->lookahead);
    part->bits[0] = g_new0(uint64_t, 2 * B_SETS * (size_t)words);
    for (uint32_t b = 0; b < B_SETS; b++) {
        part->bits[b] = part->bits[0] + b * words;
        part->whole_bits[b] = part->bits[0] + (B_SETS + b) * words;
    }
    part->states = g_new0(insee_app_states, 2 * (size_t)part->lookahead);
    part->whole_states = part->states + part->lookahead;
    eng->queued_at = INSEE_NEVER;
    eng->report.lookahead = part->lookahead;
    eng->wl.part = t->part;
    eng->wl.node_part = part->node_part;
    eng->stats.q_counted = part->counted;
    eng->cut = part->cut;
    eng->report.parts = parts;
    eng->part = part;
    return TRUE;
}

void insee_partition_free(insee_partition *part)
{
    if (!part)
        return;
    for (uint32_t r = 0; r < part->t.parts; r++)
        g_byte_array_free(part->out[r], TRUE);
    g_free(part->out);
    g_byte_array_free(part->send, TRUE);
    g_byte_array_free(part->recv, TRUE);
    g_free(part->scount);
    g_free(part->head_out);
    g_free(part->router_part);
    g_free(part->feeder_part);
    g_free(part->cut);
    g_free(part->node_part);
    g_free(part->counted);
    g_free(part->drained_cut.v);
    g_free(part->fed.v);
    g_free(part->flight);
    g_free(part->bits[0]);
    g_free(part->states);
    g_free(part);
}

static void note_fed(insee_partition *part, uint32_t dq)
{
    if (part->may_cut)
        insee_vec_push(&part->fed, dq);
}

static gboolean fed_in_window(const insee_partition *part, uint32_t q)
{
    for (uint32_t i = 0; i < part->fed.len; i++)
        if (part->fed.v[i] == q)
            return TRUE;
    return FALSE;
}

/* Packet p, with its message and router state, to the part owning dq. */
static void send_packet(insee_engine *eng, uint32_t kind, uint32_t dq, uint32_t p)
{
    insee_net *net = &eng->net;
    insee_partition *part = eng->part;
    GByteArray *out = part->out[part->router_part[net->q_at[dq].router]];
    arrival a = {.kind = kind, .dq = dq, .in_done = net->q[dq].in_done,
                 .tail = net->tail ? net->tail[p] : 0, .pk = net->pkt[p]};
    a.src_task = eng->wl.msg[a.pk.msg].src_task;
    insee_workload_hand_off(&eng->wl, a.pk.msg, &a.part, &a.msg);
    g_byte_array_append(out, (const guint8 *)&a, sizeof a);
    if (net->pstate_size)
        g_byte_array_append(out, insee_net_packet_state(net, p), (guint)net->pstate_size);
}

void insee_partition_send(insee_engine *eng, uint32_t dq, uint32_t p)
{
    note_fed(eng->part, dq);
    send_packet(eng, R_ARRIVAL, dq, p);
    insee_net_packet_free(&eng->net, p);
}

void insee_partition_head(insee_engine *eng, uint32_t dq, uint32_t p)
{
    send_packet(eng, R_HEAD, dq, p);
}

void insee_partition_flit(insee_engine *eng, uint32_t dq, uint64_t at)
{
    insee_partition *part = eng->part;
    uint32_t owner = part->router_part[eng->net.q_at[dq].router];
    flit_event f = {.kind = R_FLIT, .q = dq, .at = at};
    g_byte_array_append(part->out[owner], (const guint8 *)&f, sizeof f);
}

void insee_partition_flit_credit(insee_engine *eng, uint32_t q, uint64_t at)
{
    insee_partition *part = eng->part;
    flit_event f = {.kind = R_FLIT_CREDIT, .q = q, .at = at};
    g_byte_array_append(part->out[part->feeder_part[q]], (const guint8 *)&f, sizeof f);
}

void insee_partition_reserve(insee_engine *eng, uint32_t dq, uint32_t p)
{
    const insee_net *net = &eng->net;
    insee_partition *part = eng->part;
    uint32_t owner = part->router_part[net->q_at[dq].router];
    note_fed(part, dq);
    reserve rec = {.kind = R_RESERVE, .q = dq, .units = insee_net_units(net, p)};
    g_byte_array_append(part->out[owner], (const guint8 *)&rec, sizeof rec);
}

void insee_partition_credit(insee_engine *eng, uint32_t q, uint64_t due, uint64_t out_done)
{
    insee_partition *part = eng->part;
    const insee_net *net = &eng->net;
    if (due < part->win_end) { /* only a drop frees a slot this soon */
        insee_engine_fail(eng, "a slot freed at cycle %" G_GUINT64_FORMAT ", before the parts "
                          "meet (every %u cycles at most): a packet was dropped, and its "
                          "router plugin declares INSEE_ROUTE_NO_DROPS. Run it in one process "
                          "([simulation] threads = 1, no mpirun), or fix the plugin",
                          due, part->lookahead);
        return;
    }
    credit c = {.kind = R_CREDIT, .q = q, .units = net->q[q].leaving, .due = due,
                .out_done = out_done};
    g_byte_array_append(part->out[part->feeder_part[q]], (const guint8 *)&c, sizeof c);
}

void insee_partition_cut(insee_engine *eng, uint32_t q, uint64_t at)
{
    insee_partition *part = eng->part;
    cut c = {.kind = R_CUT, .q = q, .at = at};
    g_byte_array_append(part->out[part->feeder_part[q]], (const guint8 *)&c, sizeof c);
}

uint32_t insee_partition_lookahead(const insee_partition *part)
{
    return part->lookahead;
}

void insee_partition_open(insee_partition *part, uint64_t from, uint64_t end)
{
    part->win_from = from;
    part->win_end = end;
    part->win_filled = 0;
    memset(part->bits[0], 0, B_SETS * bit_words(part->lookahead) * sizeof(uint64_t));
}

/* The window's cycles before cycle `i` of it that this part skipped:
   nothing of it changed, so what it had at the end of the last it
   simulated stays. */
static void fill_skipped(insee_partition *part, uint32_t i)
{
    for (uint32_t k = part->win_filled; k < i; k++) { /* cycle 0 of a window is simulated */
        part->flight[k] = part->flight[k - 1];
        part->states[k] = part->states[k - 1];
        set_bit(part->bits[B_PENDING], k, bit(part->bits[B_PENDING], k - 1));
    }
}

void insee_partition_cycle_done(insee_engine *eng)
{
    insee_partition *part = eng->part;
    uint32_t i = (uint32_t)(eng->now - part->win_from);
    fill_skipped(part, i);
    part->flight[i] = eng->in_flight;
    set_bit(part->bits[B_QUEUED], i, eng->queued_at == eng->now);
    set_bit(part->bits[B_PENDING], i, insee_workload_next_local(&eng->wl) != INSEE_NEVER);
    set_bit(part->bits[B_SIMULATED], i, TRUE);
    if (eng->causal)
        part->states[i] = insee_workload_app_states(&eng->wl);
    part->win_filled = i + 1;
    part->win_last = eng->now;
}

/* This part's record of the window, to every other part; the whole
   network's starts from it. */
static void send_cycles(insee_partition *part, uint32_t n, gboolean causal)
{
    uint32_t words = bit_words(n);
    cycles rec = {.kind = R_CYCLES, .n = n, .last = part->win_last};
    for (uint32_t r = 0; r < part->t.parts; r++) {
        if (r == part->t.part)
            continue;
        g_byte_array_append(part->out[r], (const guint8 *)&rec, sizeof rec);
        g_byte_array_append(part->out[r], (const guint8 *)part->flight, n * sizeof(uint64_t));
        for (uint32_t b = 0; b < B_SETS; b++)
            g_byte_array_append(part->out[r], (const guint8 *)part->bits[b],
                                words * sizeof(uint64_t));
        if (causal)
            g_byte_array_append(part->out[r], (const guint8 *)part->states,
                                n * sizeof(insee_app_states));
    }
    memcpy(part->whole_states, part->states, n * sizeof(insee_app_states));
    memcpy(part->whole, part->flight, n * sizeof(uint64_t));
    for (uint32_t b = 0; b < B_SETS; b++)
        memcpy(part->whole_bits[b], part->bits[b], words * sizeof(uint64_t));
}

/* Another part's record of the window, added to the whole network's. */
static void take_cycles(insee_partition *part, const cycles *rec, const guint8 *data,
                        gboolean causal)
{
    uint64_t v;
    for (uint32_t i = 0; i < rec->n; i++) {
        memcpy(&v, data + i * sizeof v, sizeof v);
        part->whole[i] += v; /* each part's count wraps; their sum does not */
    }
    data += rec->n * sizeof v;
    uint32_t words = bit_words(rec->n);
    for (uint32_t b = 0; b < B_SETS; b++)
        for (uint32_t i = 0; i < words; i++) {
            memcpy(&v, data + (b * words + i) * sizeof v, sizeof v);
            part->whole_bits[b][i] |= v;
        }
    data += B_SETS * words * sizeof v;
    for (uint32_t i = 0; causal && i < rec->n; i++) {
        insee_app_states st, *w = &part->whole_states[i];
        memcpy(&st, data + i * sizeof st, sizeof st);
        w->finished &= st.finished;
        w->idle &= st.idle;
        w->quiet &= st.quiet;
    }
    part->win_last = MAX(part->win_last, rec->last);
}

/* The notices the workload gathered this cycle, to their messages' parts;
   whether any is of a message its part hands over itself. */
static gboolean send_notices(insee_engine *eng)
{
    GArray *notices = eng->wl.notices;
    gboolean any = FALSE;
    for (guint i = 0; notices && i < notices->len; i++) {
        const insee_notice *n = &g_array_index(notices, insee_notice, i);
        any |= n->handed_there != 0;
        notice rec = {.kind = R_NOTICE, .msg = n->msg, .dropped = n->dropped,
                      .at = (uint32_t)(n->at - eng->part->win_from)};
        g_byte_array_append(eng->part->out[n->part], (const guint8 *)&rec, sizeof rec);
    }
    if (notices)
        g_array_set_size(notices, 0);
    return any;
}

/* The messages made this cycle that are handed over in another part, to
   that part, which counts them in flight from now on. */
static void send_announces(insee_engine *eng)
{
    insee_workload *wl = &eng->wl;
    if (wl->error) {
        /* a drop failed the run: a record listed may have been freed */
        wl->announce.len = 0;
        return;
    }
    for (uint32_t i = 0; i < wl->announce.len; i++) {
        const insee_message_rec *rec = &wl->msg[wl->announce.v[i]];
        const insee_app *a = &wl->apps[wl->task_app[rec->src_task]];
        uint32_t dst = wl->task_node[a->first_task + rec->msg.dst];
        announce an = {.kind = R_ANNOUNCE, .msg = wl->announce.v[i], .src_task = rec->src_task,
                       .last_phits = rec->last_phits, .m = rec->msg};
        g_byte_array_append(eng->part->out[eng->part->node_part[dst]], (const guint8 *)&an,
                            sizeof an);
    }
    insee_workload_announced(wl);
}

/* A packet another part sent, as a record of this part's. */
static uint32_t take_packet(insee_engine *eng, const arrival *a, const guint8 *pstate)
{
    insee_net *net = &eng->net;
    uint32_t p = insee_net_packet_new(net);
    net->pkt[p] = a->pk;
    net->pkt[p].next = INSEE_NONE;
    if (net->tail)
        net->tail[p] = a->tail;
    if (net->pstate_size)
        memcpy(insee_net_packet_state(net, p), pstate, net->pstate_size);
    net->pkt[p].msg = insee_workload_adopt(&eng->wl, a->src_task, a->part, a->msg);
    return p;
}

/* A packet that crossed a cut link this cycle joins its queue here, as
   link_start() would have put it there; its units are held there since
   its grant (a reserve). */
static void take_arrival(insee_engine *eng, const arrival *a, const guint8 *pstate)
{
    uint32_t p = take_packet(eng, a, pstate);
    eng->net.q[a->dq].in_done = a->in_done;
    if (insee_net_link(&eng->net, a->dq, p))
        insee_engine_arrive(eng, a->dq, p);
}

/* A packet of this part's message ended in another part at a cycle of
   the window: counted as of that cycle, from which the message, when it
   was its last, waits to be handed over. FALSE: not a cycle of it. */
static gboolean take_notice(insee_engine *eng, const notice *n)
{
    insee_partition *part = eng->part;
    if (n->at >= part->win_end - part->win_from)
        return FALSE;
    uint64_t now = eng->wl.now, at = part->win_from + n->at;
    eng->wl.now = at;
    if (insee_workload_notice(&eng->wl, n->msg, n->dropped != 0))
        part->held_from = MIN(part->held_from, at);
    eng->wl.now = now;
    return TRUE;
}

/* The bytes of the record at `at` (`len` left), 0 when it is not one
   this build sends; a window's record must span this window. */
static size_t record_size(const insee_engine *eng, uint32_t kind, const guint8 *at, size_t len)
{
    if (kind == R_CYCLES) {
        cycles rec;
        if (len < sizeof rec)
            return 0;
        memcpy(&rec, at, sizeof rec);
        const insee_partition *part = eng->part;
        if (rec.n != part->win_end - part->win_from)
            return 0;
        return sizeof rec + (rec.n + B_SETS * bit_words(rec.n)) * sizeof(uint64_t) +
               (eng->causal ? rec.n * sizeof(insee_app_states) : 0);
    }
    return kind == R_ARRIVAL || kind == R_HEAD ? sizeof(arrival) + eng->net.pstate_size
           : kind == R_FLIT || kind == R_FLIT_CREDIT ? sizeof(flit_event)
           : kind == R_CREDIT   ? sizeof(credit)
           : kind == R_NOTICE   ? sizeof(notice)
           : kind == R_CUT      ? sizeof(cut)
           : kind == R_ANNOUNCE ? sizeof(announce)
           : kind == R_RESERVE  ? sizeof(reserve)
                                : 0;
}

/* Apply what part `from` sent; FALSE when it is not what this build sends. */
static gboolean take(insee_engine *eng, uint32_t from, const guint8 *at, size_t len)
{
    while (len >= sizeof(uint32_t)) {
        uint32_t kind;
        memcpy(&kind, at, sizeof kind);
        size_t size = record_size(eng, kind, at, len);
        if (!size || size > len)
            return FALSE;
        if (kind == R_ARRIVAL) {
            arrival a;
            memcpy(&a, at, sizeof a);
            /* routable here no sooner than the parts have met */
            if (a.pk.ready <= eng->now)
                return FALSE;
            take_arrival(eng, &a, at + sizeof a);
        } else if (kind == R_HEAD) {
            /* its flits come as R_FLIT; it waits in dq's FIFO for them */
            arrival a;
            memcpy(&a, at, sizeof a);
            insee_net_link(&eng->net, a.dq, take_packet(eng, &a, at + sizeof a));
        } else if (kind == R_FLIT || kind == R_FLIT_CREDIT) {
            flit_event f;
            memcpy(&f, at, sizeof f);
            if (f.at <= eng->now)
                return FALSE;
            if (kind == R_FLIT) /* the drain's copy of the feeder's count */
                insee_net_add_units(&eng->net, f.q, 1);
            insee_wormhole_take(eng, f.q, f.at, kind == R_FLIT_CREDIT);
        } else if (kind == R_CYCLES) {
            cycles rec;
            memcpy(&rec, at, sizeof rec);
            take_cycles(eng->part, &rec, at + sizeof rec, eng->causal);
        } else if (kind == R_CREDIT) {
            credit c;
            memcpy(&c, at, sizeof c);
            if (c.due <= eng->now)
                return FALSE;
            eng->net.q[c.q].leaving = (uint16_t)c.units;
            eng->net.q[c.q].out_done = c.out_done;
            insee_wheel_add(&eng->wheel, eng->now, c.due, insee_event(INSEE_EV_RELEASE, c.q));
        } else if (kind == R_RESERVE) {
            reserve rv;
            memcpy(&rv, at, sizeof rv);
            eng->net.q[rv.q].in_done = INSEE_NEVER;
            insee_net_add_units(&eng->net, rv.q, (int32_t)rv.units);
        } else if (kind == R_CUT) {
            cut c;
            memcpy(&c, at, sizeof c);
            if (!fed_in_window(eng->part, c.q))
                eng->net.q[c.q].in_done = c.at;
        } else if (kind == R_ANNOUNCE) {
            announce an;
            memcpy(&an, at, sizeof an);
            insee_workload_receive(&eng->wl, from, an.msg, an.src_task, (uint16_t)an.last_phits,
                                   &an.m);
        } else {
            notice n;
            memcpy(&n, at, sizeof n);
            if (!take_notice(eng, &n))
                return FALSE;
        }
        at += size;
        len -= size;
    }
    return len == 0;
}

/* The whole network's packets in flight over the window, which one
   process accounts as its clock moves: up to the last cycle any part
   simulated (after it nothing changed, and the clock's next move accounts
   it, as one process's does), each cycle at the count at its end. */
static void account_window(insee_engine *eng)
{
    const insee_partition *part = eng->part;
    uint64_t from = part->win_from, last = part->win_last;
    insee_stats_advance(&eng->stats, last, 0, insee_phases_current(eng));
    for (uint64_t c = from; c < last;) {
        uint64_t v = part->whole[c - from], run = 1;
        while (c + run < last && part->whole[c + run - from] == v)
            run++;
        insee_stats_occupancy(&eng->stats, c, v, run);
        c += run;
    }
}

/* The stall a deadlock is timed from starts when a packet is queued in
   an empty network: at a cycle some part queued one, the whole network
   having been empty at the end of the one before. */
static void start_stalls(insee_engine *eng, uint64_t before)
{
    const insee_partition *part = eng->part;
    uint32_t n = (uint32_t)(part->win_end - part->win_from);
    for (uint32_t i = 0; i < n; i++) {
        uint64_t empty = (i ? part->whole[i - 1] : before) == 0;
        if (empty && bit(part->whole_bits[B_QUEUED], i))
            eng->last_move = MAX(eng->last_move, part->win_from + i);
    }
}

gboolean insee_partition_simulated(const insee_partition *part, uint64_t c)
{
    return bit(part->whole_bits[B_SIMULATED], (uint32_t)(c - part->win_from));
}

uint64_t insee_partition_window_last(const insee_partition *part)
{
    return part->win_last;
}

uint64_t insee_partition_last_move(const insee_partition *part)
{
    return part->last_move;
}

void insee_partition_recall(insee_engine *eng, uint64_t c)
{
    insee_partition *part = eng->part;
    uint32_t i = (uint32_t)(c - part->win_from);
    eng->now = c;
    eng->wl.now = c; /* an application done is done at the cycle after it */
    eng->in_flight_parts = part->whole[i];
    part->hands_over = bit(part->whole_bits[B_PENDING], i) || c >= part->held_from;
    if (eng->causal)
        insee_workload_set_states(&eng->wl, part->states[i], part->whole_states[i]);
}

/* Messages whose last packet arrived in another part in the window, and
   that their own parts hand over after the receiver's overhead, were
   posted there at this meeting: after each part told its next cycle with
   work, and after the window's record said at which cycles messages were
   left to hand over. Their hand-overs fall after the window (lookahead()),
   so each waited from the cycle it arrived to the window's end. The parts
   ask each other for the earliest of those cycles and for their next
   hand-over, in one collective; unless the window is one cycle with
   packets in flight at its end: then nothing can end the run there, and
   the next cycle stands for the hand-over, which its part tells at the
   next meeting (a message cut short when generation ended is never handed
   over, which only its part knows). */
static void settle_handed(insee_engine *eng, uint64_t in_flight, uint64_t *next)
{
    insee_partition *part = eng->part;
    if (part->win_end - part->win_from == 1 && in_flight > 0) {
        part->held_from = part->win_from;
        *next = MIN(*next, part->win_end);
        return;
    }
    /* the earliest of each, as the largest of their complements */
    uint64_t v[] = {UINT64_MAX - insee_workload_next_local(&eng->wl),
                    UINT64_MAX - part->held_from};
    part->t.allreduce(part->t.ctx, v, G_N_ELEMENTS(v), INSEE_REDUCE_MAX);
    *next = MIN(*next, UINT64_MAX - v[0]);
    part->held_from = UINT64_MAX - v[1];
}

/* Each part's scalars, the same from every part: the whole network's. */
static void combine(insee_engine *eng)
{
    insee_partition *part = eng->part;
    uint64_t next = INSEE_NEVER, in_flight = 0, transit = 0;
    uint32_t failed = INSEE_NONE;
    gboolean handed = FALSE;
    part->stop = FALSE;
    for (uint32_t r = 0; r < part->t.parts; r++) {
        const uint64_t *h = part->head_in + (size_t)r * H_WORDS;
        next = MIN(next, h[H_NEXT]);
        eng->last_move = MAX(eng->last_move, h[H_LAST_MOVE]);
        if ((h[H_FLAGS] & F_FAILED) && failed == INSEE_NONE)
            failed = r;
        part->stop |= (h[H_FLAGS] & F_STOP) != 0;
        handed |= (h[H_FLAGS] & F_HANDED) != 0;
        in_flight += h[H_FLIGHT]; /* each part's count wraps; their sum does not */
        transit += h[H_TRANSIT];
    }
    /* from the headers alone, every part reaches the same collectives even
       where one could not read what another sent */
    if (handed)
        settle_handed(eng, in_flight, &next);
    else
        part->held_from = INSEE_NEVER; /* no part has one */
    part->transit = transit;
    start_stalls(eng, eng->in_flight_parts);
    part->next = next;
    part->last_move = eng->last_move;
    account_window(eng);
    insee_partition_recall(eng, part->win_last);
    part->failed = failed != INSEE_NONE;
    if (part->first_failed == INSEE_NONE)
        part->first_failed = failed;
    if (failed != INSEE_NONE && !eng->error && !eng->wl.error)
        insee_engine_fail(eng, "rank %u of the run failed (its message says why)", failed);
}

void insee_partition_sync(insee_engine *eng, uint64_t next)
{
    insee_partition *part = eng->part;
    uint32_t parts = part->t.parts, n = (uint32_t)(part->win_end - part->win_from);
    insee_partition_cycle_done(eng);
    fill_skipped(part, n);
    eng->now = part->win_end - 1; /* what comes is applied as of the window's last cycle */
    send_cycles(part, n, eng->causal);
    /* (A message announced here is handed over here: its hand-over is
       posted already.) */
    gboolean handed = send_notices(eng) && receivers_wait(eng);
    send_announces(eng); /* the applications' states were taken before */
    uint64_t flags = (eng->error || eng->wl.error ? F_FAILED : 0) |
                     (eng->stop && *eng->stop ? F_STOP : 0) | (handed ? F_HANDED : 0);
    /* what the deadlock check's exemption under congestion control reads */
    uint64_t transit = eng->gcc > 0 && !eng->gcc_insee
                           ? insee_partition_transit_used(part, &eng->net)
                           : 0;
    g_byte_array_set_size(part->send, 0);
    for (uint32_t r = 0; r < parts; r++) {
        uint64_t *h = part->head_out + (size_t)r * H_WORDS;
        h[H_BYTES] = part->out[r]->len;
        h[H_NEXT] = next;
        h[H_LAST_MOVE] = eng->last_move;
        h[H_FLAGS] = flags;
        h[H_FLIGHT] = eng->in_flight;
        h[H_TRANSIT] = transit;
        part->scount[r] = (int)part->out[r]->len;
        part->sdispl[r] = (int)part->send->len;
        g_byte_array_append(part->send, part->out[r]->data, part->out[r]->len);
        g_byte_array_set_size(part->out[r], 0);
    }
    gint64 start = g_get_monotonic_time();
    if (part->t.exchange) {
        part->t.exchange(part->t.ctx, part->head_out, part->head_in, H_WORDS, part->send->data,
                         part->sdispl, part->recv, part->rcount, part->rdispl);
    } else {
        part->t.alltoall(part->t.ctx, part->head_out, part->head_in, H_WORDS * sizeof(uint64_t));
        size_t total = 0;
        for (uint32_t r = 0; r < parts; r++) {
            part->rcount[r] = (int)part->head_in[(size_t)r * H_WORDS + H_BYTES];
            part->rdispl[r] = (int)total;
            total += (size_t)part->rcount[r];
        }
        g_byte_array_set_size(part->recv, (guint)total);
        part->t.alltoallv(part->t.ctx, part->send->data, part->scount, part->sdispl,
                          part->recv->data, part->rcount, part->rdispl);
    }
    eng->report.exchanges++;
    eng->report.exchange_seconds += (double)(g_get_monotonic_time() - start) / 1e6;
    part->held_from = INSEE_NEVER;
    for (uint32_t r = 0; r < parts; r++)
        if (!take(eng, r, part->recv->data + part->rdispl[r], (size_t)part->rcount[r])) {
            insee_engine_fail(eng, "rank %u sent rank %u what it cannot read at cycle %"
                              G_GUINT64_FORMAT ": are both the same insee build?",
                              r, part->t.part, eng->now);
            break;
        }
    part->fed.len = 0;
    combine(eng);
}

void insee_partition_agree_failure(insee_engine *eng, gboolean failed)
{
    insee_partition *part = eng->part;
    uint32_t parts = part->t.parts;
    uint64_t v = failed ? parts - part->t.part : 0; /* the largest: the first to fail */
    part->t.allreduce(part->t.ctx, &v, 1, INSEE_REDUCE_MAX);
    if (!v)
        return;
    uint32_t first = parts - (uint32_t)v;
    if (part->first_failed == INSEE_NONE)
        part->first_failed = first;
    part->failed = TRUE;
    if (!failed)
        insee_engine_fail(eng, "rank %u of the run failed (its message says why)", first);
}

uint64_t insee_partition_next(const insee_partition *part)
{
    return part->next;
}

gboolean insee_partition_hands_over(const insee_partition *part)
{
    return part->hands_over;
}

gboolean insee_partition_stopped(const insee_partition *part)
{
    return part->stop;
}

gboolean insee_partition_failed(const insee_partition *part)
{
    return part->failed;
}

uint64_t insee_partition_transit(const insee_partition *part)
{
    return part->transit;
}

uint64_t insee_partition_sum(insee_partition *part, uint64_t v)
{
    part->t.allreduce(part->t.ctx, &v, 1, INSEE_REDUCE_SUM);
    return v;
}

uint64_t insee_partition_transit_used(const insee_partition *part, const insee_net *net)
{
    uint64_t used = net->transit_used;
    for (uint32_t i = 0; i < part->drained_cut.len; i++)
        used -= net->q[part->drained_cut.v[i]].count;
    return used;
}

void insee_partition_sum_window(insee_partition *part, insee_window *w)
{
    /* occupancy_area is every part's already: the collector is given the
       whole network's count */
    uint64_t v[] = {w->generated, w->delivered, w->dropped, w->generated_phits,
                    w->delivered_phits, w->hops, w->latency_sum};
    part->t.allreduce(part->t.ctx, v, G_N_ELEMENTS(v), INSEE_REDUCE_SUM);
    *w = (insee_window){v[0], v[1], v[2], v[3], v[4], v[5], v[6], w->occupancy_area};
}

static void merge_sum(void *ctx, uint64_t *v, size_t n)
{
    const insee_transport *t = ctx;
    t->allreduce(t->ctx, v, n, INSEE_REDUCE_SUM);
}

static void merge_max(void *ctx, uint64_t *v, size_t n)
{
    const insee_transport *t = ctx;
    t->allreduce(t->ctx, v, n, INSEE_REDUCE_MAX);
}

void insee_partition_merge(insee_engine *eng)
{
    insee_merge_ops ops = {.sum = merge_sum, .max = merge_max, .ctx = &eng->part->t};
    insee_stats_merge(&eng->stats, &ops);
    insee_report_merge(&eng->report, &ops);
    /* the engine's own count, reported as a figure of [faults] */
    merge_sum(ops.ctx, &eng->dropped_failed, 1);
}
