/* kernel/engine/partition.h — one packet-engine run split over several
 * processes (NSIM §3.4's conservative parallel simulation): each part owns
 * some routers, chosen by the network's shape to cut few links, with their
 * nodes, queues and links, and the parts meet at the end of every cycle,
 * or of every window of cycles that the links' latencies allow.
 *
 * Who calls what
 * --------------
 * The command line joins mpirun's ranks and fills an insee_transport (Open
 * MPI's collectives, sweep/ranks.h); the experiment checks the run with
 * insee_partition_check() and hands the transport to the engine, which
 * calls insee_partition_start() before cycle 0, the send hooks during a
 * cycle, insee_partition_open() after the first cycle of a window,
 * insee_partition_cycle_done() after each of the others and
 * insee_partition_sync() at its end, and insee_partition_merge() once
 * after the last cycle. Every part builds the whole network and every
 * plugin the same way, so a router, queue, packet or message id means the
 * same thing in every part; each part moves only what it owns.
 *
 * The parts meet once per window of cycles: one cycle in INSEE's model,
 * up to the links' and routers' latencies with [network]'s (lookahead()).
 * What crosses between parts, and why one cycle of lookahead is enough in
 * INSEE's model:
 *  - a packet that starts crossing a cut link at cycle t: its head is in
 *    the next router's queue from t + 1 at the earliest, so the receiving
 *    part puts it there after the cycle, before t + 1 begins;
 *  - a reserve: a packet granted towards a queue across a cut holds its
 *    units there from the grant, which the receiving part counts after
 *    the cycle, before the cycle its own router next reads the queue;
 *  - a credit: a queue's slot upstream of a cut link frees at a cycle that
 *    its own part knew at least a cycle ahead (when the tail started
 *    leaving), so the feeding part has it in its timing wheel in time;
 *  - a notice: a packet of another part's message was delivered or
 *    dropped here; the message's own part counts it after the cycle;
 *  - under wormhole flow control, flit by flit: a packet whose head flit
 *    crosses (queued in the next router's FIFO, where its flits follow),
 *    each flit, due there its stages and cable later, and each flit's
 *    credit, due back upstream its credit delay and cable later; the
 *    lookahead is the shorter of those two, or one cycle for a router
 *    that is only local (it may read its input queues' counts, which the
 *    draining part keeps a copy of from these records).
 * Each part also tells every other, with each exchange, its packets in
 * flight at the end of each cycle of the window, the next cycle it has
 * work, the last cycle a packet moved, and whether it failed or was asked
 * to stop, so that all of them jump the clock, end, or stop at the same
 * cycle. A window ends before any cycle at which the parts must decide
 * together (engine.c's window_end()).
 *
 * The result is the single process's, byte for byte: within a cycle the
 * engine's decisions do not depend on the order heads, links or events are
 * taken in, for the runs insee_partition_check() lets through (pure
 * routers, open-ended traffic, figures that are sums), and the figures are
 * merged as exact integer sums at the end. insee_partition_check() says
 * what is refused.
 *
 * Memory: the engine owns its part (engine->part), freed by
 * insee_partition_free(); the transport is the caller's and outlives the
 * run.
 */
#ifndef INSEE_KERNEL_PARTITION_H
#define INSEE_KERNEL_PARTITION_H

#include <glib.h>
#include <stdint.h>

#include "stats/collect.h"

G_BEGIN_DECLS

typedef enum insee_reduce_op {
    INSEE_REDUCE_SUM,
    INSEE_REDUCE_MAX,
} insee_reduce_op;

/* The collectives every part calls together, in the same order (MPI's
   semantics; a failure ends the whole job, so none returns an error).
   alltoall and alltoallv may be NULL when exchange is given. */
typedef struct insee_transport {
    uint32_t part, parts;
    /* Part r receives send[r * each .. (r + 1) * each) into its
       recv[part * each ..) from every part. */
    void (*alltoall)(void *ctx, const void *send, void *recv, size_t each);
    /* Part r receives scount[r] bytes from send + sdispl[r]; what part q
       sends here lands at recv + rdispl[q], rcount[q] bytes. */
    void (*alltoallv)(void *ctx, const void *send, const int *scount, const int *sdispl,
                      void *recv, const int *rcount, const int *rdispl);
    /* v[0..n) becomes the sum (or maximum) of every part's v. */
    void (*allreduce)(void *ctx, uint64_t *v, size_t n, insee_reduce_op op);
    /* Optional (NULL: alltoall, then alltoallv): both in one step, for a
       transport whose parts share memory and so meet twice, not four
       times. Part r receives head_out[r * words ..) into its
       head_in[part * words ..); word 0 of a header is the bytes of records
       that follow it, which part r takes from send + sdispl[r] and which
       land in `recv`, grown to fit, at rdispl[q] (rcount[q] bytes from
       part q; both filled here). */
    void (*exchange)(void *ctx, const uint64_t *head_out, uint64_t *head_in, size_t words,
                     const void *send, const int *sdispl, GByteArray *recv, int *rcount,
                     int *rdispl);
    void *ctx;
} insee_transport;

typedef struct insee_partition insee_partition;
struct insee_engine;

/* Whether the engine's run can be split: FALSE (INSEE_CONFIG_ERROR_INVALID)
   naming the key or plugin that cannot, and what to do. `router_props`:
   the router plugin's properties (router.h). */
gboolean insee_partition_check(const struct insee_engine *eng, uint32_t router_props,
                               const insee_transport *t, GError **err);
/* Before cycle 0: who owns what; the workload runs this part's nodes only.
   FALSE (INSEE_CONFIG_ERROR_INVALID), the same in every part, when the
   parts do not run the same experiment. */
gboolean insee_partition_start(struct insee_engine *eng, const insee_transport *t,
                               GError **err);
void insee_partition_free(insee_partition *part);

/* The first part whose run failed (its own error says why; the others'
   say that it failed), or INSEE_NONE; part may be NULL. */
uint32_t insee_partition_first_failed(const insee_partition *part);
/* Whether router r is this part's. */
gboolean insee_partition_owns(const insee_partition *part, uint32_t r);
/* Whether this part's copy of what a router reads is exact: router r is
   this part's, and so is the link feeding queue q (INSEE_NONE: none read);
   with `whole` (q's phit view, which both ends change), q's link or q's
   own router where the parts meet every cycle, else both. */
struct insee_net;
gboolean insee_partition_holds(const insee_partition *part, const struct insee_net *net,
                               uint32_t r, uint32_t q, gboolean whole);
/* What the engine reads per queue of a split run before it calls the
   hooks below (engine.h's `cut`, a byte per queue, the partition's): */
enum {
    INSEE_CUT_DOWNSTREAM = 1, /* the queue is another part's: what enters it crosses */
    INSEE_CUT_UPSTREAM = 2,   /* the link into the transit queue is another part's:
                                 what leaves it is told across */
};
/* Packet p, granted towards queue dq (INSEE_CUT_DOWNSTREAM), holds its
   units there from now (as insee_net_reserve_slot()): that part is told. */
void insee_partition_reserve(struct insee_engine *eng, uint32_t dq, uint32_t p);
/* Packet p starts crossing into queue dq (INSEE_CUT_DOWNSTREAM): it leaves
   this part (its record freed here) after the cycle. */
void insee_partition_send(struct insee_engine *eng, uint32_t dq, uint32_t p);
/* Wormhole flow control (wormhole.c). A flit is due at `at` in dq
   (INSEE_CUT_DOWNSTREAM): that part is told (it adds the flit to its copy
   of dq's count when the parts meet). Queue q's credit for a flit is due
   back upstream at `at`: the part feeding q (INSEE_CUT_UPSTREAM) is told
   (the part draining q takes the credit from its own copy at `at` too,
   from its own wheel). Packet p's head flit crosses into dq
   (INSEE_CUT_DOWNSTREAM): it is queued there; p stays here until its tail
   has crossed too. */
void insee_partition_flit(struct insee_engine *eng, uint32_t dq, uint64_t at);
void insee_partition_flit_credit(struct insee_engine *eng, uint32_t q, uint64_t at);
void insee_partition_head(struct insee_engine *eng, uint32_t dq, uint32_t p);
/* Queue q's departing packet frees its slot at `due`, its tail having
   left at `out_done` (q's phit view): the part feeding q
   (INSEE_CUT_UPSTREAM) is told. */
void insee_partition_credit(struct insee_engine *eng, uint32_t q, uint64_t due,
                            uint64_t out_done);
/* The packet arriving in q was dropped at `at`, before its tail was in:
   the part feeding q (INSEE_CUT_UPSTREAM) is told. */
void insee_partition_cut(struct insee_engine *eng, uint32_t q, uint64_t at);
/* The most cycles the parts may run on their own between two meetings
   (1: they meet every cycle), fixed when the run starts: what a part
   sends another is due there no sooner (partition.c's lookahead()). */
uint32_t insee_partition_lookahead(const insee_partition *part);
/* Every part, at the same cycle `from`, which it has just simulated: the
   parts run on their own until they meet at the end of cycle end - 1
   (end <= from + the lookahead, the same in every part). */
void insee_partition_open(insee_partition *part, uint64_t from, uint64_t end);
/* Cycle eng->now of the window has been simulated (called before the
   next one, and by insee_partition_sync() for the last). */
void insee_partition_cycle_done(struct insee_engine *eng);
/* The end of the window, the last cycle this part simulated being
   eng->now: exchange with every part and apply what came (as of the
   window's last cycle); the whole network's figures, and eng->now, are
   then those at the end of the last cycle any part simulated
   (insee_partition_window_last(), insee_partition_recall()). `next`: the
   next cycle this part has work (engine.c's next_due()), at the window's
   end or later. */
void insee_partition_sync(struct insee_engine *eng, uint64_t next);
/* After the sync: whether some part simulated cycle c of the window (one
   process simulates it then, and checks the run after it), and the last
   that one did. */
gboolean insee_partition_simulated(const insee_partition *part, uint64_t c);
uint64_t insee_partition_window_last(const insee_partition *part);
/* After the sync, cycle c of the window that some part simulated:
   eng->now becomes c, and the whole network's packets in flight, whether
   messages are left to hand over (insee_partition_hands_over()) and its causal
   applications' states those at the end of c, for the checks one process
   makes after every cycle. */
void insee_partition_recall(struct insee_engine *eng, uint64_t c);
/* The whole network's last move as the parts agreed it at the last sync
   (a part's own moves since are not in it). */
uint64_t insee_partition_last_move(const insee_partition *part);

/* After the loop, before any merge: whether any part `failed` after the
   last exchange (a causal application that will not finish is reported by
   the parts whose tasks wait). A part that did not fails too, naming the
   first that did, whose error is the run's. One collective. */
void insee_partition_agree_failure(struct insee_engine *eng, gboolean failed);
/* The whole network's, as of the last sync or recall (its packets in
   flight are the engine's in_flight_parts): the next cycle any part has
   work; whether any has messages left to hand over. */
uint64_t insee_partition_next(const insee_partition *part);
gboolean insee_partition_hands_over(const insee_partition *part);
/* Whether any part was asked to stop (its stop flag), or had failed, at
   the last sync: every part stops at the same cycle. A part's own error
   found while it applies what came reaches the others at the next. */
gboolean insee_partition_stopped(const insee_partition *part);
gboolean insee_partition_failed(const insee_partition *part);

/* The sum of every part's `v`; called by every part at the same cycle
   (global congestion control's samples). */
uint64_t insee_partition_sum(insee_partition *part, uint64_t v);
/* This part's exact share of the packets counted in transit queues: a
   queue fed across a cut is counted by its feeding part alone. */
uint64_t insee_partition_transit_used(const insee_partition *part, const insee_net *net);
/* The whole network's packets in transit queues at the last cycle the parts
   simulated, as of the last sync (told under global congestion control
   only, for the deadlock check; else 0). */
uint64_t insee_partition_transit(const insee_partition *part);

/* A window of the run phases (phases.c), this part's figures: replaced by
   every part's. Called by every part at the same cycle. */
void insee_partition_sum_window(insee_partition *part, insee_window *w);

/* After the last cycle: every part's collector and report hold the sums
   of all parts' figures. */
void insee_partition_merge(struct insee_engine *eng);

G_END_DECLS
#endif
