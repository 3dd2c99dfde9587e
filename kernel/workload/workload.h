/* kernel/workload/workload.h — the workload room: applications, tasks,
 * messages cut into packets, completion (docs/architecture.md §8). Internal
 * to the kernel: plugins see none of this.
 *
 * Contract
 * --------
 * The packet engine holds one insee_workload, embedded in insee_engine (the
 * same lifetime, nothing to allocate, no pointer to follow on the hot path),
 * and calls it at fixed points of a cycle. The workload never calls the
 * engine nor reads its fields: what it uses of the network side it is given
 * once (insee_workload_env: the network, where it creates packets and
 * enqueues them; the stats collector and the report it counts into; the
 * topology, for INSEE's injection policies), the clock the engine writes
 * (insee_workload_cycle(), insee_workload_window()), and one port back, the
 * router plugin's select_injector(), which needs a route context only the
 * engine fills (NULL when the router has none).
 *
 * One cycle, in this order (kernel/engine/engine.c):
 *  1. insee_workload_cycle(): the cycle, and whether the congestion control
 *     drops this cycle's draws; before any other call of the cycle.
 *  2. The cycle's events: insee_workload_delivered() for each packet
 *     consumed, insee_workload_room() when a slot of a node's injection
 *     queue frees (its throttled tasks queue what now fits).
 *  3. insee_workload_local() (messages between tasks of one node due now),
 *     insee_workload_sched() (jobs' arrivals and starts), then, while
 *     generation runs (now < window_end), insee_workload_generate().
 *  4. The requests and arbitration: insee_workload_packet_dropped() for a
 *     packet a router drops, insee_workload_packet_copied() for a multicast
 *     copy, insee_workload_delivered() for a packet of one phit consumed
 *     at once.
 *  5. After the cycle: insee_workload_apps_done() and
 *     insee_workload_stuck_app() while a causal run is not done; then
 *     insee_workload_next_due() and insee_workload_sched_next() say when the
 *     workload has work again.
 * insee_workload_window() whenever the measurement window moves (phases.c).
 *
 * Packets: room() and generate() queue packets in injection queues; each
 * packet's queue is appended to `queued`, in order. Right after either call
 * the engine counts each in flight and wakes its queue, then empties the
 * vector; nothing between a packet's enqueue and that wake reads what the
 * wake changes, so the order of a cycle is that of a direct call. Packets in
 * the network are the engine's count; the workload counts messages.
 *
 * Errors: what a plugin does wrong (a wake of a task it does not have, a due
 * cycle not after now, a message to nowhere, an injection queue that does
 * not exist, a bridge's failed sync) is kept in `error` ("cycle N: ...",
 * the first only); the engine ends the run after the cycle, keeping its own
 * error when that came first.
 *
 * Plugins: the traffic plugins' start(), emit(), delivered() and finished(),
 * and a bridge's sync() and deliver(), are called from these calls only;
 * host->wake_task reaches insee_workload_wake(), which hands it to the flow
 * engine's hook while one runs the tasks.
 *
 * Memory: the workload owns its task arrays, message records, heaps,
 * `queued` and `error` (insee_workload_clear() frees them); `apps`, `bridge`
 * and `sched` are the experiment's, which fills them before
 * insee_workload_init() and frees them; the env's pointers are borrowed.
 */
#ifndef INSEE_KERNEL_WORKLOAD_H
#define INSEE_KERNEL_WORKLOAD_H

#include <glib.h>
#include <insee/insee.h>

#include "engine/events.h"
#include "net/network.h"
#include "stats/collect.h"
#include "stats/report.h"

G_BEGIN_DECLS

/* One message a task sends: packets still to queue at the source, and still
   to be consumed at the destination. */
typedef struct insee_message_rec {
    uint32_t src_task;
    uint32_t to_queue;
    uint32_t to_deliver;
    uint32_t lost;        /* packets dropped: the message is never delivered */
    uint32_t next_free;
    uint16_t last_phits;  /* its last packet's length (the others: packet_phits);
                             0: a proxy */
    uint16_t nic;         /* env.nics > 1: the interface it leaves by */
    union {
        insee_message msg;
        /* A partitioned run's proxy: a record standing here for one packet
           of part `part`'s message `msg` while the packet is in this part
           (it queues nothing, so it needs none of the message). */
        struct {
            uint32_t part, msg;
        } proxy;
    };
} insee_message_rec;

/* A partitioned run: what each part says of its causal applications at the
   end of a cycle, and the whole network's (the AND over the parts), bit i
   for application i. */
typedef struct insee_app_states {
    uint64_t finished; /* its plugin has finished here, or none of its tasks runs here */
    uint64_t idle;     /* nothing of it in flight here */
    uint64_t quiet;    /* none of its tasks here is due before generation stops */
} insee_app_states;

/* A partitioned run: a packet of part `part`'s message `msg` ended in
   another part at cycle `at`, delivered or dropped; `handed_there`: the
   message's part hands it to its task (it was not announced to this one). */
typedef struct insee_notice {
    uint32_t part, msg, dropped, handed_there;
    uint64_t at;
} insee_notice;

/* One application: a traffic instance whose tasks are a contiguous range of
   the workload's task ids, placed by its own placement. Plugins see local
   task ids (0..tasks-1); the kernel adds first_task. */
typedef struct insee_app {
    const insee_traffic_vtable *traffic;
    void *self;
    const char *plugin;      /* the traffic plugin's name (the bridge's, for a bridge) */
    uint32_t abi_minor;      /* the minor its traffic table was built for */
    uint32_t first_task, tasks;
    gboolean drop_on_full;   /* [traffic] on_full = "drop" */
    gboolean io;             /* [background] class = "io": every message is I/O */
    gboolean causal;         /* the traffic has finished(): run until it is done */
    gboolean per_task;       /* its traffic declares INSEE_TRAFFIC_PER_TASK */
    gboolean done;           /* causal, finished and nothing of it left in flight */
    uint64_t in_flight;      /* its messages not yet delivered (queuing, in the network, local) */
    uint32_t due;            /* its tasks with a due cycle */
    uint32_t late;           /* of those, due when generation has stopped */
    insee_app_report *rep;   /* its figures, in the run's report */
    uint32_t job;            /* its job in the workload's sched (scheduling.md), or INSEE_NONE */
    uint64_t runtime;        /* a job of open-ended traffic: cycles it generates (0: causal) */
    uint64_t stop;           /* generation stops at this cycle (INSEE_NEVER: when the run's does) */
} insee_app;

/* Which injection queue a new packet waits in, when the router has no
   select_injector() (INSEE §2.3). */
typedef enum insee_injection {
    INSEE_INJECT_SHORTEST,            /* the queue with most room */
    INSEE_INJECT_DOR,                 /* the queue of the first hop in dimension order */
    INSEE_INJECT_DOR_SHORTEST,        /* dor's, or shortest when it is full */
    INSEE_INJECT_SHORTEST_PROFITABLE, /* the roomiest among the minimal directions' */
    INSEE_INJECT_LONGEST_PATH,        /* the direction with most hops to go */
} insee_injection;

/* What the workload is given for the whole run (borrowed). */
typedef struct insee_workload_env {
    insee_net *net;
    insee_stats *stats;
    insee_report *report;
    const insee_topology_vtable *topo;
    void *topo_self;
    insee_injection injection;
    uint64_t seed;
    uint32_t packet_phits, phit_bytes;
    uint64_t payload_bytes;  /* a packet's bytes less its header: a message in packets is this many bytes each */
    /* [network] mtu_bytes: a message given in bytes ends with a packet only
       as long as its header and what is left of its bytes. Else every
       packet is packet_phits long. */
    gboolean variable_packets;
    uint32_t source_cycles;  /* a new packet may leave its router this long after it is queued
                                (its node's link and its router's pipeline) */
    /* A node's link to its router moves a phit every node_phit_cycles
       cycles: above 1, a node's packets cross it one after another, each
       from the cycle it is queued or the one before has crossed, and their
       tails arrive that much later (net->tail; net/timing.h). */
    uint32_t node_phit_cycles;
    /* Per message, as NSIM's MPI overhead: its sender is busy send_cycles
       before its packets are queued (its next action waits as long), and
       it is handed to its application recv_cycles after it arrived. */
    uint32_t send_cycles, recv_cycles;
    /* NSIM's two-copy transfer: each end also copies the message through
       the MPI buffer, this many cycles a byte (0: zero-copy), for a
       message that leaves the choice to the run (INSEE_COPY_DEFAULT). */
    double copy_cycles_per_byte;
    /* A byte's copy at memory_bandwidth, for a message that asks for
       INSEE_COPY_TWO (0: memory_bandwidth not given, which refuses it). */
    double memory_cycles_per_byte;
    /* Network interfaces per node (1 or 0: one, the injection policy picks
       the queue): above 1, injection queue j is interface j, with its own
       link, and a node's messages take them in turn unless a message names
       its own. */
    uint32_t nics;
} insee_workload_env;

/* The engine's one service to the workload: the router plugin's choice of
   injection queue (an index at the node) for packet p of `node`, not yet
   queued. Set by the engine; select_injector NULL: the router has none. */
typedef struct insee_workload_port {
    uint32_t (*select_injector)(void *ctx, uint32_t node, uint32_t p);
    void *ctx;
} insee_workload_port;

typedef struct insee_workload {
    /* the experiment's, set before insee_workload_init() */
    insee_app *apps;          /* n_apps applications, in configuration order */
    uint32_t n_apps;
    uint32_t tasks;           /* of all applications */
    struct insee_bridge_app *bridge; /* [bridge]: the application it drives (bridge.h) */
    struct insee_sched *sched; /* jobs: their queue and nodes (sched.h); NULL when none */
    double bsld_min;           /* jobs: the bounded slowdown's floor, cycles */

    insee_workload_port port; /* the engine's, set before the run */
    /* engine = "dynamic": insee_workload_wake() reaches the flow engine
       while it runs (flow/flow.h). */
    void (*flow_wake)(void *ctx, uint32_t app, uint32_t task, uint64_t at);
    void *flow_ctx;
    /* insee trace export of a run (export.h): every message a task emits,
       at `now`, before it is queued, and (msg NULL) the cycle a message held
       back by a full injection queue is queued whole. NULL: none. */
    void (*record)(void *ctx, uint32_t task, const insee_message *msg, uint64_t now);
    void *record_ctx;

    /* the clock, written by the engine only */
    uint64_t now;
    uint64_t window_start, window_end; /* measurement window; generation stops at its end */
    gboolean skip_draws;               /* gcc_count = "insee": the due sources skip their draws */

    insee_vec queued;         /* injection queue of each packet queued by the last call */
    GError *error;            /* the first error, for the engine to take */

    /* the workload's own */
    insee_workload_env env;
    uint32_t *task_app;       /* the application of each task */
    uint32_t *task_node;      /* filled by the experiment's placements (a job's when it starts) */
    insee_rng *task_rng;
    insee_rng *node_rng;      /* per node: packet salts */
    uint64_t *task_due;       /* the due cycle the calendar holds for the task, or INSEE_NEVER */
    uint64_t *task_next;      /* due cycle to use once its message is queued */
    uint32_t *task_msg;       /* message still being queued, or INSEE_NONE */
    uint64_t *task_blocked_at;
    uint64_t *task_wake;      /* earliest wake asked while its message was queuing */
    uint32_t *task_blocked_next;
    uint32_t *node_blocked_head, *node_blocked_tail;
    uint64_t *nic_free;       /* per interface of each node: when its link can start a packet
                                 (node_phit_cycles > 1) */
    uint32_t *nic_next;       /* per node: the interface its next message takes (nics > 1) */
    insee_message_rec *msg;
    uint32_t msg_cap, msg_free;
    uint64_t serial;          /* ids of queued packets */
    insee_heap local;         /* messages between tasks of one node: (cycle, message) */
    insee_heap sending;       /* (cycle, task): its message is queued once its overhead is over */
    insee_heap receiving;     /* (cycle, message): arrived, handed over after the overhead */
    insee_calendar due;       /* (due cycle, task) */

    /* A partitioned run (engine/partition.h): this part's number, the
       part of each node, whose tasks run there (NULL: the whole network in
       one process), and the notices for other parts' messages whose
       packets ended here, which the engine sends at the end of the cycle. */
    uint32_t part;
    const uint16_t *node_part;
    GArray *notices;          /* insee_notice */
    /* A message of a causal application, or of traffic that reacts to
       deliveries, is handed to its task in its destination's part, where
       its plugin is told: its sender's part announces it (the messages
       made this cycle, sent with its exchange), and the receiver's keeps a
       record of its own, found by (sender's part, message) in `rx`. */
    insee_vec announce;
    GHashTable *rx;
    /* The causal applications, bit i for application i (at most 64):
       those with tasks in this part (set at the start), and this part's
       and the whole network's view at the cycle the parts check
       (insee_workload_set_states). */
    uint64_t apps_here;
    insee_app_states here, whole;
} insee_workload;

/* apps, n_apps and tasks set; task_node: the node of each task (copied). */
void insee_workload_init(insee_workload *wl, const insee_workload_env *env,
                         const uint32_t *task_node);
void insee_workload_clear(insee_workload *wl);

/* The clock (see the contract above). */
void insee_workload_cycle(insee_workload *wl, uint64_t now, gboolean skip_draws);
void insee_workload_window(insee_workload *wl, uint64_t start, uint64_t end);

/* Cycle 0 (the clock set to it): the tasks of every application that is
   not a job start. */
void insee_workload_start(insee_workload *wl);
/* Every task due now (and not past its job's runtime) is asked for a
   message, which is queued, sent locally, or held for room. */
void insee_workload_generate(insee_workload *wl);
/* A slot of `node`'s injection queues freed: its throttled tasks queue what
   fits. */
void insee_workload_room(insee_workload *wl, uint32_t node);
/* The injection queue (index at the node) packet p, not yet queued, waits in. */
uint32_t insee_workload_injector(insee_workload *wl, uint32_t node, uint32_t p);
/* Packet p was consumed at its destination; the workload frees it. */
void insee_workload_delivered(insee_workload *wl, uint32_t p);
/* Packet `id` of message m ends without delivery (dropped). */
void insee_workload_packet_dropped(insee_workload *wl, uint32_t m, uint64_t id);
/* A partitioned run. A packet of part `part`'s message `msg`, from task
   src_task, arrives in this part: the message record it counts against
   here (a proxy for it alone, or the message itself when it comes home). */
uint32_t insee_workload_adopt(insee_workload *wl, uint32_t src_task, uint32_t part, uint32_t msg);
/* The packet of message m leaves this part: the message it belongs to, as
   adopt() takes it; a proxy is freed. */
void insee_workload_hand_off(insee_workload *wl, uint32_t m, uint32_t *part, uint32_t *msg);
/* One packet of this part's message m ended in another part, at the
   workload's current cycle (the caller sets it to the notice's). Whether
   the message then waits to be handed to its task, after the receiver's
   overhead from that cycle. */
gboolean insee_workload_notice(insee_workload *wl, uint32_t m, gboolean dropped);
/* A partitioned run, at the end of a cycle. This part's view of its
   causal applications, taken before the exchange changes what is in
   flight where. */
insee_app_states insee_workload_app_states(const insee_workload *wl);
/* This part's and the whole network's at the cycle the parts check, which
   apps_done(), stuck_app() and unfinished() read from now on. */
void insee_workload_set_states(insee_workload *wl, insee_app_states here,
                               insee_app_states whole);
/* The messages in `announce` were told to their receivers' parts: from now
   on they count as in flight there. */
void insee_workload_announced(insee_workload *wl);
/* Part `part` announced its message `msg` of task src_task (its last
   packet's phits, and the message), whose packets are consumed here. */
void insee_workload_receive(insee_workload *wl, uint32_t part, uint32_t msg, uint32_t src_task,
                            uint16_t last_phits, const insee_message *m);
/* The network made one more packet of message m (a multicast copy). */
void insee_workload_packet_copied(insee_workload *wl, uint32_t m);
/* Task `task` of application `app` (a local id from its plugin). */
void insee_workload_wake(insee_workload *wl, uint32_t app, uint32_t task, uint64_t at);
/* The next cycle a task is due (stale entries dropped) or a local
   message is handed over, or INSEE_NEVER. */
uint64_t insee_workload_next_due(insee_workload *wl);
/* The next cycle a local message is handed over, or INSEE_NEVER. */
uint64_t insee_workload_next_local(const insee_workload *wl);
/* Hand over the local messages due now. */
void insee_workload_local(insee_workload *wl);
/* A causal application that can no longer progress: nothing of it due
   before generation stops, no message of it on its way, not finished. NULL
   when none; another application's traffic does not keep it alive. In a
   partitioned run, only the parts whose tasks of it wait find it. */
insee_app *insee_workload_stuck_app(insee_workload *wl);
/* The first causal application not done, or NULL. In a partitioned run,
   the first this part reports: one whose tasks here wait, or whose plugin
   has finished in every part with tasks here (so another part may see
   NULL, and end without an error of its own). */
insee_app *insee_workload_unfinished(insee_workload *wl);
/* Mark the causal applications that have finished; TRUE when all have. */
gboolean insee_workload_apps_done(insee_workload *wl);
/* Jobs (sched.h): start() the tasks of application `app`, whose task_node
   the caller has just set, from now on. */
void insee_workload_start_app(insee_workload *wl, uint32_t app);
/* The scheduler's turn at the top of a cycle: arrivals, selection, starts
   (nothing without jobs). */
void insee_workload_sched(insee_workload *wl);
/* The next cycle the scheduler needs (an arrival, the cycle a job's runtime
   ends), or INSEE_NEVER. */
uint64_t insee_workload_sched_next(insee_workload *wl);
/* After the run, once the report's measure_cycles is set: the jobs' figures
   and each application's accepted load. */
void insee_workload_report(insee_workload *wl);
/* Application a's messages are handed to their tasks where its plugin
   hears of them: it is causal or reacts to deliveries (a partitioned run
   announces them to their receivers' parts). */
gboolean insee_workload_tells_deliveries(const insee_app *a);
/* Whether this run can send a message by interface choice `nic` (0: the
   node's turn) with copy mode `copy` (insee_message's fields): TRUE, or
   FALSE with `why` filled with what completes "... sent a message ",
   naming the setting it breaks. Shared by traffic plugins' messages and
   the bridge's, so both are refused alike. */
gboolean insee_workload_choices_ok(const insee_workload *wl, uint32_t nic, uint32_t copy,
                                   char *why, size_t len);
/* Record the first error (printf-style), for the engine to take. */
void insee_workload_fail(insee_workload *wl, const char *fmt, ...) G_GNUC_PRINTF(2, 3);

G_END_DECLS
#endif
