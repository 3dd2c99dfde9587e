/* kernel/engine/engine.h — the cycle engine's state (docs/architecture.md §8), shared by the
 * time loop (engine.c, phases.c, deadlock.c) and the host table (host.c).
 * Internal to the kernel: plugins see none of this.
 *
 * The experiment (experiment.c) fills the plugin fields and parameters,
 * builds `net` and the workload `wl`, then calls insee_engine_run(), which
 * owns the loop from cycle 0 to the end of the drain and fills `report`.
 * The engine calls the workload room (workload/workload.h, where the order
 * of a cycle's calls is stated); the workload never calls back.
 */
#ifndef INSEE_KERNEL_ENGINE_H
#define INSEE_KERNEL_ENGINE_H

#include <glib.h>
#include <insee/insee.h>

#include "engine/events.h"
#include "engine/wormhole.h"
#include "net/network.h"
#include "stats/collect.h"
#include "stats/report.h"
#include "workload/workload.h"

G_BEGIN_DECLS

typedef struct insee_request_rec {
    uint32_t queue;      /* requesting input queue */
    uint32_t out;        /* requested resource: output VC, or ovcs + node to consume */
    uint32_t link;       /* the output VC's global port */
    uint32_t input;      /* input index at the router, for the arbiter */
    uint32_t next;       /* next request for the same output */
    insee_candidate cand;
} insee_request_rec;

/* A sleeping head's wait for one of its candidates: listed (prev, next) at
   the candidate's downstream queue `at`, chained (sibling) with the head's
   other waits. Woken when that queue frees a slot or the output VC feeding
   it frees, whichever comes first for any of its candidates. */
typedef struct insee_wait {
    uint32_t queue;    /* the queue whose head sleeps */
    uint32_t at;       /* the downstream queue whose list holds it */
    uint32_t prev, next;
    uint32_t sibling;
    insee_candidate cand; /* the candidate it waits for */
} insee_wait;

/* The waits a network may hold, per queue on average: heads with more
   candidates than that sleep while the pool has room (net/memory.c counts
   it). */
#define INSEE_WAITS_PER_QUEUE 4u

/* Candidates kept for a blocked head of a steady router (INSEE_ROUTE_STEADY,
   SETTLED or PURE), while it waits in the active list or asleep: a pure or
   settled router's are its answer; a steady router's say whether asking
   it could change anything (the same set, every one still blocked: it is
   not asked). At least this many per head; a steady router's heads keep
   as many as one of its routers has output VCs (up to
   INSEE_MAX_CANDIDATES), so that a large-radix router's whole set is kept
   too. */
#define INSEE_ROUTE_CACHE 4u
#define INSEE_NOT_CACHED 0xFFu

/* The heads that ask for a route this cycle, with what a pure or settled
   router already answered for them. */
typedef struct insee_active {
    uint32_t *queue;
    uint8_t *ncand;          /* cached candidates, or INSEE_NOT_CACHED */
    insee_candidate *cand;   /* `kept` per entry */
    uint32_t kept;           /* candidates cached per entry, INSEE_ROUTE_CACHE or more */
    uint32_t len, cap;
} insee_active;

/* What the head of an active entry asks for in a cycle's request phase
   (engine.c), decided on the network as the phase found it. */
typedef enum insee_decision_kind {
    INSEE_DECIDE_SKIP,      /* no head to route (asleep, or held by congestion control) */
    INSEE_DECIDE_MULTICAST, /* a multicast router's head: decided as it is applied */
    INSEE_DECIDE_CONSUME,   /* at its destination's router */
    INSEE_DECIDE_CHOSEN,    /* the candidate `cand` (output `out` of link `link`, or a drop) */
    INSEE_DECIDE_BLOCKED,   /* none of its `n` candidates is admissible now */
    INSEE_DECIDE_INVALID,   /* the router's answer failed the kernel's check */
} insee_decision_kind;

typedef struct insee_decision {
    uint8_t kind;
    uint8_t worker;        /* blocked: the worker whose set scratch holds them */
    uint32_t n;            /* blocked: how many candidates */
    uint32_t at;           /* blocked: where in that scratch, or INSEE_NONE: in the entry's cache */
    uint32_t out, link;    /* chosen */
    insee_candidate cand;  /* chosen */
} insee_decision;

/* A worker's room for the candidate sets of blocked heads that do not fit
   an entry's cache. */
typedef struct insee_cand_vec {
    insee_candidate *v;
    uint32_t len, cap;
} insee_cand_vec;

/* How the measurement window is chosen (INSEE §3.2.1). */
typedef enum insee_run_mode {
    INSEE_RUN_FIXED,    /* [warmup, warmup + cycles) */
    INSEE_RUN_CONVERGE, /* warm-up, convergence check, then batches */
} insee_run_mode;

/* The run phases' parameters and where they stand (kernel/engine/phases.c). */
typedef struct insee_phases {
    insee_run_mode mode;
    uint64_t warmup;
    uint64_t cycles;        /* fixed: the measured cycles */
    uint64_t window;        /* convergence: cycles per check */
    uint64_t window_packets;/* convergence: deliveries a window needs (0: none) */
    double tolerance;       /* convergence: relative difference allowed */
    uint32_t needed;        /* convergence: consecutive agreeing windows */
    uint64_t max;           /* convergence: at most this many cycles after warm-up */
    uint32_t batches;
    uint64_t batch_cycles;

    insee_phase phase;
    uint64_t next;          /* cycle of the next boundary, or INSEE_NEVER */
    uint32_t agree;         /* consecutive windows within tolerance so far */
    uint64_t window_from;   /* cycle the current convergence window began */
    uint64_t windows;       /* convergence windows closed so far */
    double prev_load, prev_latency;
    gboolean have_prev;
} insee_phases;

typedef struct insee_engine {
    insee_net net;

    const insee_topology_vtable *topo;
    void *topo_self;
    const insee_router_vtable *router;
    void *router_self;
    const insee_arbiter_vtable *arbiter;
    void *arbiter_self;
    insee_workload wl;       /* the applications, their tasks and messages */
    gboolean causal;         /* some application is causal: generation runs until all are
                                done (window [0, max_cycles)), then the rest drains */
    uint64_t max_cycles;     /* a causal run not done by then ends with an error */

    uint64_t seed;
    uint32_t packet_phits;
    uint32_t phit_bytes;
    uint64_t payload_bytes;  /* a packet's bytes less [network] header_bytes */
    gboolean variable_packets; /* [network] mtu_bytes: a message's last packet may be shorter */
    /* [network] (net/timing.h): cycles a head spends in a router's pipeline
       once at the front of its input queue, and on a cable beyond the one
       cycle every hop takes: the same for every cable, or per global port. */
    uint32_t router_cycles;
    uint32_t cable_cycles;
    uint32_t node_cable_cycles; /* a node's link to its router, each way */
    /* [network] flow_control = "wormhole": its stages, and its state while
       the run lasts (NULL: virtual cut-through, this file's engine). */
    gboolean wormhole;
    insee_wormhole_stages wh_params;
    insee_wormhole *wh;
    uint32_t *cable;         /* per global port, or NULL: cable_cycles everywhere */
    /* Links slower than the router: cycles a phit takes on each global
       port's link (NULL: 1 everywhere) and on the nodes' links. With either,
       net.track_tail is set. */
    uint16_t *phit_cycles;
    uint32_t node_phit_cycles;
    /* Output buffers behind the crossbar ([network] output_buffer_bytes;
       out_used NULL: none, INSEE's model). A granted packet is in its
       output port's buffer, and out of its input buffer once the crossbar
       has moved it at `speedup` phits a cycle; the link drains the output
       buffer. */
    uint32_t out_cap;        /* each output buffer's phits */
    uint32_t speedup;
    uint32_t *out_used;      /* per global port: phits granted into it, not yet across its link */
    uint16_t *out_leaving;   /* per global port: the phits of the packet its link carries */
    uint32_t *out_last;      /* per output VC: the last of its packets waiting there */
    double memory_cycles_per_byte; /* [network] memory_bandwidth: a byte's copy (0: not given) */
    gboolean timed;          /* any of these differs from INSEE's model (a hop: one cycle) */
    gboolean single_consumption;
    gboolean requesting;     /* the request phase runs: see later_cuts */
    uint64_t deadlock_cycles;  /* no move for this long with packets inside: deadlock (0: off) */
    double ipr;                /* in-transit priority: fraction of arbitrations */
    double gcc;                /* global congestion control threshold (0: off) */
    uint64_t gcc_period;
    gboolean gcc_insee;        /* gcc_count = "insee": INSEE's count, lag and action */

    size_t rstate_size;
    uint8_t *rstate;         /* routers * rstate_size */
    size_t astate_size;
    uint8_t *astate;         /* outputs * astate_size */
    insee_rng *router_rng;   /* per router: route() */
    insee_rng *arb_rng;      /* per router: pick() */
    insee_rng *ipr_rng;      /* per router: in-transit priority draws (ipr > 0) */

    uint64_t in_flight;      /* packets in queues or being consumed */

    /* time */
    uint64_t now;
    uint64_t window_start, window_end; /* measurement window [start, end) */
    uint64_t drain_limit;              /* generation stops at window_end; drain until here */
    uint64_t drain;                    /* [simulation] drain: cycles allowed after generation */
    gboolean causal_done;              /* causal: every causal application is done */
    uint64_t last_move;                /* last cycle a packet was granted, dropped or consumed */
    uint64_t dropped_failed;           /* packets whose every candidate left by a failed cable */
    uint64_t gcc_next;                 /* next occupancy sample */
    gboolean gcc_stop;                 /* injection stopped by global congestion control */
    gboolean gcc_skip;                 /* gcc_insee: the sources skip their draws */
    gboolean gcc_over;                 /* gcc_insee: the last sample, applied at the next */
    insee_wheel wheel;
    insee_active active;
    /* Blocked heads asleep until a candidate frees (engine.c): a wait per
       (head, candidate), listed at the candidate's downstream queue. */
    insee_wait *waits;       /* the pool; free ones chained through `next` */
    uint32_t waits_cap, waits_free;
    uint64_t waits_used, waits_bound; /* at most INSEE_WAITS_PER_QUEUE per queue */
    uint32_t *wait_first;    /* per transit queue: the first wait listed there; with a
                                bounded router, then per transit queue the first wait
                                for its room (a bound's need, INSEE_BOUND_NEEDS) */
    uint32_t *head_wait;     /* per queue: its head's first wait, or INSEE_NONE */
    gboolean waits_kept;     /* steady: a head's waits stay listed until it leaves */
    insee_vec need_woken;    /* scratch: the heads a queue's room wakes */
    gboolean route_kept;     /* PURE or INSEE_ROUTE_SETTLED: a waiting head's answer is kept */
    gboolean route_steady;   /* PURE, INSEE_ROUTE_STEADY or SETTLED: blocked heads may sleep */
    gboolean route_draws;    /* neither PURE, STEADY nor NO_DRAWS: a stream per call (insee_draw) */
    gboolean route_room_order; /* STEADY and ROOM_ORDER: kept sets ordered by the engine */
    gboolean route_bounded;  /* not steady, with route_bound(): heads may sleep on the bound */
    gboolean call_forwarded; /* it has forwarded() and did not declare NO_FORWARDED */
    gboolean multicast;      /* it declared INSEE_ROUTE_MULTICAST */

    /* arbitration scratch */
    insee_request_rec *req;
    uint32_t req_len, req_cap;
    uint32_t *out_req;       /* per output: first request this cycle, or INSEE_NONE */
    insee_request *arb_req;  /* one output's requests, sorted by input */
    size_t arb_stride;       /* sizeof(insee_request) as the arbiter was built */
    uint8_t *arb_packed;     /* arb_req at that stride, for older arbiters */
    uint32_t *arb_rec;       /* the insee_request_rec of each of those */
    insee_vec touched;       /* outputs requested this cycle, each once */
    insee_vec sort_scratch;  /* room to sort `touched` */
    uint64_t *out_bits;      /* a bit per output, to sort `touched`; clear between cycles */
    insee_vec link_check;    /* links that may start a packet after arbitration */
    /* Changes the request phase makes to queues' phit views, applied at its
       end (settle_phit_views()): queues whose arriving packet was dropped,
       and pairs (queue, cycles from now until its tail has left) of short
       packets consumed. */
    insee_vec later_cuts, later_leaving;

    /* [simulation] threads: the request phase's decisions on a crew of
       `threads` workers (crew.h) when the router is pure and both it and
       the topology may be asked from several threads at once; else 1. */
    uint32_t threads;
    /* [simulation] threads as parts of the network instead, each a copy of
       the experiment on a thread of its own meeting the others as mpirun's
       ranks do (experiment.c), when the run can be split; 1: not split.
       The crew is not used then. */
    uint32_t split_parts;
    struct insee_crew *crew;     /* while the run lasts, when threads > 1 */
    uint32_t crew_min_heads;     /* fewer active heads than this decide on one thread */
    insee_decision *decision;    /* per active entry, with the crew */
    uint32_t decision_cap;
    uint32_t decide_from;        /* the first entry the crew decides for */
    insee_cand_vec *sets;        /* per worker */

    /* A run split over mpirun's ranks (partition.h): the transport the
       experiment was given, and while the run lasts this process's part;
       both NULL when the whole network runs here. */
    const struct insee_transport *transport;
    struct insee_partition *part;
    /* The part's: per queue, partition.h's INSEE_CUT_* bits, read before
       each hook to the part is called; NULL with `part`. */
    const uint8_t *cut;
    uint64_t in_flight_parts; /* the parts' in_flight summed at the last exchange */
    /* The last cycle a part queued a packet at a source: whether the
       network was empty then is known only when the parts meet, which
       then start the stall a deadlock is timed from (partition.c). */
    uint64_t queued_at;

    insee_phases phases;
    insee_stats stats;
    insee_report report;
    const volatile int *stop; /* when non-zero: stop now, report what was gathered */
    GError *error;           /* first simulation error (or the workload's): ends the run */
} insee_engine;

/* What a plugin's insee_host.kernel points to: the engine and the kind of
   the plugin holding it (which seeds its streams). */
struct insee_kernel {
    insee_engine *eng;
    insee_kind kind;
    uint32_t app;            /* traffic and placement: the application they serve */
    const char *section;     /* the configuration section it was bound from */
    const insee_shape *shape;
    gboolean debug;          /* INSEE_DEBUG set: plugins' debug messages shown */
};

/* Fill `host` for a plugin of that kind (host.c). */
void insee_host_init(insee_host *host, struct insee_kernel *k);

/* Allocate the per-router/per-output state once plugins and net exist. */
void insee_engine_prepare(insee_engine *eng);

/* The candidates an active entry keeps for the bound router (INSEE_ROUTE_CACHE,
   or a steady router's largest set); net/memory.c counts them. */
uint32_t insee_engine_kept_candidates(const insee_engine *eng);
gboolean insee_engine_run(insee_engine *eng, GError **err);
void insee_engine_clear(insee_engine *eng);
/* Record the first simulation error (printf-style), unless the workload has
   one; the loop stops after the cycle. */
void insee_engine_fail(insee_engine *eng, const char *fmt, ...) G_GNUC_PRINTF(2, 3);

/* What a route context is asked for. A router that may draw (neither
   PURE nor STEADY) draws for each route() from a stream of its own, seeded
   by the queue, the cycle and this: its draws depend on nothing else, not
   on the order in which heads are asked, so a run split over threads or
   ranks draws as one process does. INSEE_DRAW_OWN draws from the router's
   own stream instead, for calls made in an order every part keeps: a
   node's packets pick injectors in the workload's order, and a router's
   grants (forwarded()) come in output order. */
typedef enum insee_draw {
    INSEE_DRAW_OWN,
    INSEE_DRAW_ROUTE,
    INSEE_DRAW_CHECK, /* the deadlock check's question: it draws apart from the run */
} insee_draw;

/* Fill a route context for packet p waiting in queue q (q may be an injection
   queue not yet holding p, for select_injector), asked for `why`; `draws`
   is the caller's storage for the call's stream (unused, and may be NULL,
   for INSEE_DRAW_OWN, or when the router draws nothing). */
void insee_engine_route_ctx(insee_engine *eng, uint32_t q, uint32_t p, insee_draw why,
                            insee_rng *draws, insee_route_ctx *ctx);

static inline gboolean insee_engine_in_window(const insee_engine *eng, uint64_t t)
{
    return t >= eng->window_start && t < eng->window_end;
}

/* No run waits longer than this for a packet to move, so no phase spins
   for its whole budget: with deadlock_cycles = 0 the diagnosis comes late,
   not never. */
#define INSEE_STALL_LIMIT 1000000u

/* Phits keep moving until cycle `until` (a tail crossing a link or being
   consumed, a head in a cable or a pipeline): no deadlock before then. */
static inline void insee_engine_keep_moving(insee_engine *eng, uint64_t until)
{
    if (until > eng->last_move)
        eng->last_move = until;
}

/* engine.c's steps that wormhole.c shares: packet pk's head leaves queue
   q; packet p is consumed; injection queue q's departing packet has left
   it whole, so its node may queue more. */
void insee_engine_head_leaves(insee_engine *eng, uint32_t q, insee_packet *pk);
void insee_engine_consumed(insee_engine *eng, uint32_t p);
void insee_engine_source_freed(insee_engine *eng, uint32_t q);
/* Packets in the whole network. A partitioned run's part counts those
   generated and consumed there (in_flight wraps), so only the parts' sum
   means anything: as of the last cycle's exchange. */
static inline uint64_t insee_engine_in_flight(const insee_engine *eng)
{
    return G_UNLIKELY(eng->part != NULL) ? eng->in_flight_parts : eng->in_flight;
}
/* Packet p, just linked into queue dq past a link, may head it: routable
   from p's `ready` cycle (partition.c's arrivals share link_start()'s). */
void insee_engine_arrive(insee_engine *eng, uint32_t dq, uint32_t p);
/* Sorts v, distinct output ids below `outputs`, in place (arbitration's
   order): `bits` a clear bit per output, left clear; `scratch` grown as
   needed. Each of its three ways is tested on its own. */
void insee_engine_sort_outputs(insee_vec *v, insee_vec *scratch, uint64_t *bits,
                               uint32_t outputs);
/* Check what route() returned at router r: ports, VCs and (but under
   wormhole, which does not read it) room it has;
   FALSE (an error of the run when `report`) when not. */
gboolean insee_engine_valid_candidates(insee_engine *eng, uint32_t r,
                                       const insee_candidate *cand, uint32_t n, gboolean report);

/* Hops from `router` to node `dst` along minimal paths. */
uint32_t insee_engine_distance(insee_engine *eng, uint32_t router, uint32_t dst);

/* kernel/engine/phases.c: the run phases, owner of the measurement window.
   start() sets it before cycle 0; at() runs the boundary due at the top of
   cycle eng->now; window() moves it (a causal run ends it where the work is
   done), with the drain limit and the collector's and the workload's
   copies. */
void insee_phases_start(insee_engine *eng);
void insee_phases_window(insee_engine *eng, uint64_t start, uint64_t end);
void insee_phases_at(insee_engine *eng);
/* The most cycles the run can last (the drain allowed whole, a converging
   run's windows all as long as they may be), to size what grows with it. */
uint64_t insee_phases_longest(const insee_engine *eng);
/* The phase a cycle belongs to, for the series and the progress line
   (inline: read every cycle, used only when an interval closes). */
static inline insee_phase insee_phases_current(const insee_engine *eng)
{
    if (eng->phases.mode == INSEE_RUN_CONVERGE && !eng->causal)
        return eng->phases.phase;
    if (eng->now < eng->window_start)
        return INSEE_PHASE_WARMUP;
    return eng->now < eng->window_end ? INSEE_PHASE_MEASURE : INSEE_PHASE_DRAIN;
}

/* kernel/engine/deadlock.c: end the run with a diagnosis when nothing has
   moved for deadlock_cycles (INSEE_STALL_LIMIT when 0) while packets are
   inside. Once a cycle: at its end, or in a part of a split run after the
   cycle's exchange. */
void insee_deadlock_check(insee_engine *eng);

G_END_DECLS
#endif
