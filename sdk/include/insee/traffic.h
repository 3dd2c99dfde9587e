/* insee/traffic.h — the traffic contract: what is sent, when, to whom, and
 * with what causality.
 *
 * Traffic speaks in tasks 0..tasks-1; the kernel maps tasks to nodes through
 * the placement plugin and messages to packets (ceil of the message length).
 *
 * Who calls what
 *  - start(task) once per task before cycle 0: the first cycle the task is
 *    due, or INSEE_NEVER.
 *  - emit(task, now) when a task is due: fill *msg and return true to send a
 *    message now; always set *next to the next cycle the task is due (> now)
 *    or INSEE_NEVER. A task whose previous message is still waiting for room in
 *    its injection queue is not asked (the source is throttled, as in INSEE).
 *  - delivered() when the last packet of a message has been consumed: reactive
 *    traffic replies, a causal workload (trace, application kernel) completes
 *    a receive and wakes the waiting task with host->wake_task().
 *  - finished(): a causal workload says it has completed. NULL: an
 *    open-ended source, which generates during the configured window. A
 *    causal workload is never cut off at warmup + cycles: the run lasts until
 *    it has finished and the network is empty, and reports that cycle as its
 *    completion time; one that waits forever ends with an error
 *    (describe_wait() says for what), one that runs past [simulation]
 *    max_cycles too.
 * Compute phases are gaps between due cycles; when every task waits and the
 * network is empty the kernel jumps the clock to the next due cycle.
 * Each task has its own rng stream, so results never depend on call order.
 *
 * Messages (insee_message)
 *  - dst and packets are required; tag is the plugin's own and comes back
 *    unchanged in delivered().
 *  - minor 8: bytes, the message's length in bytes, which the flow engines
 *    move (the packet engine moves `packets` and ignores it). 0: not given,
 *    counted as packets x packet_phits x [simulation] phit_bytes. When
 *    given, host->message_packets(bytes) must equal packets (insee-conform
 *    checks it). A plugin defined in packets gives packets times the bytes
 *    of a packet, the longest message message_packets() cuts into one.
 *  - minor 8: traffic_class, INSEE_TRAFFIC_APP (0, the default) or
 *    INSEE_TRAFFIC_IO: whether the message is the application's own
 *    communication or I/O (storage reads and writes), which the dynamic
 *    flow engine's priorities tell apart (INRFlow §3.1). A [background]
 *    section's `class = "io"` makes all its messages I/O whatever the
 *    plugin says.
 *  - minor 13: nic, which of the sending node's network interfaces sends
 *    the message: 0, the kernel's turn ([network] nics, the node's messages
 *    in turn); k >= 1, interface k - 1, which must be below nics (the run
 *    fails otherwise, naming the plugin and the task). A message that names
 *    its interface leaves the turn where it was.
 *  - minor 13: copy, INSEE_COPY_DEFAULT (0: the run's [network] copy),
 *    INSEE_COPY_ZERO or INSEE_COPY_TWO: NSIM's per-message choice of
 *    transfer. A two-copy message costs a copy at memory_bandwidth at each
 *    end, so it needs that key set. Both are the packet engine's; the flow
 *    engines, which model no node interface, ignore them.
 *  The kernel zeroes the message it hands to emit(), so a plugin built for
 *  an older minor, which writes only the fields it knows, leaves bytes and
 *  traffic_class 0. The message a plugin hands to round()'s add() is the
 *  plugin's own, as large as its minor made it: the kernel reads the fields
 *  of minor 8 only from a plugin built for minor 8 or later. nic and copy
 *  lie where the struct of minor 8 had its padding, so its size did not
 *  change and an older plugin that copies a struct of its own over *msg
 *  writes that padding there: the kernel reads them only from a plugin
 *  built for minor 13 or later, in emit() too.
 */
#ifndef INSEE_TRAFFIC_H
#define INSEE_TRAFFIC_H

#include <insee/host.h>

#ifdef __cplusplus
extern "C" {
#endif

/* insee_message.traffic_class (minor 8). */
enum {
    INSEE_TRAFFIC_APP = 0, /* the application's own communication */
    INSEE_TRAFFIC_IO = 1,  /* I/O: storage reads and writes */
};

/* insee_message.copy and insee_program_event.copy (minor 13). */
enum {
    INSEE_COPY_DEFAULT = 0, /* the run's [network] copy */
    INSEE_COPY_ZERO = 1,    /* the network interface reads the task's memory */
    INSEE_COPY_TWO = 2,     /* through the MPI buffer: a copy at each end */
};

typedef struct insee_message {
    uint32_t dst;     /* destination task */
    uint32_t packets; /* length in packets, >= 1 */
    uint64_t tag;     /* the workload's own matching key (MPI tag, kind of message) */

    /* minor 8 */
    uint64_t bytes;         /* length in bytes; 0: packets x the bytes of a packet */
    uint32_t traffic_class; /* INSEE_TRAFFIC_APP or INSEE_TRAFFIC_IO */

    /* minor 13 */
    uint16_t nic; /* 0: the kernel's turn; k >= 1: the sending node's interface k - 1 */
    uint8_t copy; /* INSEE_COPY_DEFAULT, INSEE_COPY_ZERO or INSEE_COPY_TWO */
} insee_message;

/* One event of a task's program (minor 11): what `insee trace export`
   writes as an FSIN trace line. The fields of minor 13 make the struct
   larger: the kernel reads them only from a plugin built for minor 13 or
   later. */
typedef enum insee_program_op {
    INSEE_PROGRAM_SEND,    /* to `peer`, `bytes` with `tag`, eager */
    INSEE_PROGRAM_RECV,    /* from `peer`: blocks until that message has arrived */
    INSEE_PROGRAM_COMPUTE, /* holds the task `cycles` cycles */
} insee_program_op;

typedef struct insee_program_event {
    uint32_t op;     /* insee_program_op */
    uint32_t peer;   /* SEND: destination task; RECV: source task */
    uint64_t tag;    /* SEND, RECV: the matching key */
    uint64_t bytes;  /* SEND, RECV: the message's length */
    uint64_t cycles; /* COMPUTE: as this instance holds the task (scaled, if it scales) */

    /* minor 13 */
    uint16_t nic; /* SEND: as insee_message.nic */
    uint8_t copy; /* SEND: as insee_message.copy */
} insee_program_event;

/* properties() bits (minor 17). */
enum {
    /* Each task's state is its own: start() and emit() of task t change
       only t's state and draw only from t's stream; delivered() changes
       only the state of the message's destination, msg->dst, and wakes
       only it, in a way that does not depend on the order of the messages
       delivered to it in one cycle; finished() is true once every task given start() has
       finished (before any start(), once every task has). Then a run may
       be split over threads or mpirun's ranks, each part with an instance
       of its own that starts only its part's tasks and is told only of the
       messages delivered to them, with the results of one process. */
    INSEE_TRAFFIC_PER_TASK = 1u << 0,
};

typedef struct insee_traffic_vtable {
    uint32_t size; /* sizeof(insee_traffic_vtable) as built */

    /* minor 0 — required */
    void *(*create)(const insee_host *host, const insee_value *params, insee_error *err);
    void (*destroy)(void *self);
    uint64_t (*start)(void *self, uint32_t task, insee_rng *rng);
    bool (*emit)(void *self, uint32_t task, uint64_t now, insee_rng *rng,
                 insee_message *msg, uint64_t *next);

    /* minor 0 — optional */
    void (*delivered)(void *self, uint32_t src_task, const insee_message *msg, uint64_t now);
    bool (*finished)(void *self);
    /* Offered load in phits/node/cycle when the traffic has one (reports); <0: none. */
    double (*offered_load)(void *self);

    /* minor 2 — optional */
    /* A causal workload that has not finished although nothing is due and
       the network is empty (a receive never matched), or that ran out of
       [simulation] max_cycles: write what it waits for into buf (a
       NUL-terminated sentence naming the task and its event, e.g. "task 3
       waits at trace.fsin:12 for 'r 1 3 7 64'") and return true. The kernel
       puts it in the error that ends the run. NULL or false: the kernel
       names no task. */
    bool (*describe_wait)(void *self, char *buf, size_t len);
    /* Whether this instance runs to completion (true) or is open-ended
       (false), for a plugin that can be either by its parameters (finite
       flows or a load). NULL: an instance is causal exactly when the plugin
       has finished(). Asked once, after create(). */
    bool (*causal)(void *self);

    /* minor 7 — optional */
    /* The flow engines' view of the pattern: one round, every message
       `task` sends once through it, each handed to add(ctx, msg) (dst,
       packets and, from minor 8, bytes and traffic_class filled as emit()
       fills them; tag free). A round of an open-ended source is one
       message per task to the destination emit() would draw (uniform: one
       random task; a permutation: its image); a pattern with destination
       sets sends to each member once (all-to-all: every other task).
       Draws come from `rng`, the task's own stream, so a round depends on
       the seed alone; the kernel asks each task in turn, once per round
       ([flow] rounds), and may ask the same rounds again with the same
       streams, getting the same messages. A task that sends nothing adds
       nothing. NULL: the flow engines refuse this traffic, naming it. */
    void (*round)(void *self, uint32_t task, insee_rng *rng,
                  void (*add)(void *ctx, const insee_message *msg), void *ctx);

    /* minor 11 — optional */
    /* A causal workload whose every task plays a fixed program (a trace, an
       application kernel): hand `task`'s events, in program order, to
       event(ctx, ev) (ev valid during the call) and return true. A program
       played this way, receive for receive, gives the run this instance
       gives. False: this instance plays no fixed program (its events depend
       on the run, as a Markov walk's do). NULL: never. */
    bool (*program)(void *self, uint32_t task,
                    void (*event)(void *ctx, const insee_program_event *ev), void *ctx);

    /* minor 17 — optional */
    /* INSEE_TRAFFIC_* bits this instance declares. NULL: none. */
    uint32_t (*properties)(void *self);
} insee_traffic_vtable;

#ifdef __cplusplus
}
#endif
#endif
