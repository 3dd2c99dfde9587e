/* script.h — causal task programs: for every task an ordered list of sends,
 * receives and computes, and the runner that plays them through the traffic
 * contract (insee/traffic.h). Shared by `trace` (programs read from a file)
 * and the application kernels (programs generated from parameters);
 * compiled into each .so, hidden like everything but the entry.
 *
 * Building (script.c): script_new(tasks), then append events per task in
 * program order; a script owns its events. Message lengths are in bytes; the
 * runner converts them to packets with host->message_packets().
 *
 * Running (script_runner.c): the runner takes the script and answers the
 * traffic entries. A send is eager (the task goes on the cycle after its
 * message is queued at its node; while the kernel throttles the source the
 * task waits); a receive blocks the task until the matching message (same
 * source, tag and length in bytes) has fully arrived, and one that arrived
 * earlier is kept until it is asked for; a compute holds the task for
 * round(cycles x cpu_scale) cycles (the runner scales, so a script keeps the
 * workload's own time unit). Without causality (inject at will) every send
 * of a task is issued as fast as its source takes them, and receives and
 * computes are skipped.
 *
 * Timing, exactly: a message whose last packet is consumed at cycle d
 * completes a receive at d + 1, whether the task was already waiting (the
 * runner wakes it for d + 1) or reaches the receive later; a task that
 * reaches a compute of c > 0 cycles at cycle t goes on at t + c; receives
 * already satisfied and computes of 0 cycles take no time. A task with no
 * events, or numbered beyond the script's tasks, never sends.
 */
#ifndef INSEE_TRAFFIC_SCRIPT_H
#define INSEE_TRAFFIC_SCRIPT_H

#include <insee/insee.h>

typedef enum script_op {
    SCRIPT_SEND,    /* to `peer` */
    SCRIPT_RECV,    /* from `peer` */
    SCRIPT_COMPUTE, /* for `cycles` */
} script_op;

typedef struct script_event {
    uint8_t op;       /* script_op */
    uint8_t copy;     /* SEND: insee_message.copy (INSEE_COPY_DEFAULT: the run's) */
    uint16_t nic;     /* SEND: insee_message.nic (0: the node's turn) */
    uint32_t peer;    /* SEND: destination task; RECV: source task */
    uint32_t line;    /* where the event came from (a trace's line), 0 when generated */
    uint64_t tag;     /* SEND/RECV: the matching key */
    uint64_t bytes;   /* SEND/RECV: message length */
    uint64_t cycles;  /* COMPUTE: time the task is held, scaled by the runner's cpu_scale */
} script_event;

typedef struct script script;

script *script_new(uint32_t tasks);
void script_free(script *s);
uint32_t script_tasks(const script *s);

/* Append to `task`'s program (task and peer < tasks; the caller checks). */
void script_add(script *s, uint32_t task, const script_event *ev);
void script_send(script *s, uint32_t task, uint32_t dst, uint64_t tag, uint64_t bytes);
void script_recv(script *s, uint32_t task, uint32_t src, uint64_t tag, uint64_t bytes);
void script_compute(script *s, uint32_t task, uint64_t cycles);

/* Task `task`'s program: script_length() events from script_events(). */
size_t script_length(const script *s, uint32_t task);
const script_event *script_events(const script *s, uint32_t task);
/* Sends of all tasks. */
uint64_t script_messages(const script *s);

/* ---- Running -------------------------------------------------------------
 * A runner plays one script for one traffic instance. It uses the host's
 * message_packets() (bytes to packets) and wake_task() (a waiting receive
 * satisfied). Memory: one word per task, the script, and the messages that
 * arrived before their receive (a hash table); each event costs O(1)
 * amortised. A message carries its send's tag in insee_message.tag and its
 * exact length in insee_message.bytes (ABI 1.8), the key of its receive:
 * a delivery is matched without looking at the sender's program. */
typedef struct script_runner script_runner;

/* Take `s` (freed with the runner, and on failure). `causal` false: inject
   at will. `origin` names the program in messages (a trace's path, a
   kernel's name; copied): an event with a line is "origin:line", one
   without "event i of origin". A compute of c holds its task
   round(c x cpu_scale) cycles. NULL with err filled when the script needs
   more tasks than the host's shape has (the message names the first line
   using the highest task), a peer is out of range, or a scaled compute or a
   message does not fit the kernel's counters. */
script_runner *script_runner_new(script *s, const insee_host *host, bool causal,
                                 const char *origin, double cpu_scale, insee_error *err);
void script_runner_free(script_runner *r);

/* A program of `tasks` tasks fits an application of `have`: true, or false
   with err saying what to change ("origin needs 64 tasks (task 63 at line
   12), the application has 16; ..."; line 0: no line named). */
bool script_check_tasks(const char *origin, uint32_t tasks, uint32_t line, uint32_t have,
                        insee_error *err);

/* The traffic entries of insee/traffic.h, for one runner. */
uint64_t script_runner_start(script_runner *r, uint32_t task);
bool script_runner_emit(script_runner *r, uint32_t task, uint64_t now, insee_message *msg,
                        uint64_t *next);
void script_runner_delivered(script_runner *r, uint32_t src_task, const insee_message *msg,
                             uint64_t now);
/* Every task given start() has played its last event (before any start(),
   every task has): the kernel then waits for the network to empty. */
bool script_runner_finished(const script_runner *r);
/* The first task waiting at a receive (else the first not done): "task 3
   waits at t.fsin:12 (event 5 of 9) for a message from task 1 (tag 7, 64
   bytes)", with how many tasks wait; false when every task is done. */
bool script_runner_describe_wait(const script_runner *r, char *buf, size_t len);

/* The traffic entry program() (insee/traffic.h) for one runner: the
   task's events as the runner plays them (at will: its sends alone;
   computes scaled by cpu_scale). */
bool script_runner_program(const script_runner *r, uint32_t task,
                           void (*event)(void *ctx, const insee_program_event *ev), void *ctx);

/* Vtable glue. A plugin whose instance is a malloc'ed struct with a
   `script_runner *` as its first member puts these in its vtable (or all of
   them at once with SCRIPT_TRAFFIC_VTABLE) and writes only create(): build
   the script, script_runner_new() it, return the instance.
   script_traffic_destroy frees the runner and the instance; a plugin that
   owns more writes its own destroy and calls script_runner_free(). */
void script_traffic_destroy(void *self);
uint64_t script_traffic_start(void *self, uint32_t task, insee_rng *rng);
bool script_traffic_emit(void *self, uint32_t task, uint64_t now, insee_rng *rng,
                         insee_message *msg, uint64_t *next);
void script_traffic_delivered(void *self, uint32_t src_task, const insee_message *msg,
                              uint64_t now);
bool script_traffic_finished(void *self);
bool script_traffic_describe_wait(void *self, char *buf, size_t len);
bool script_traffic_program(void *self, uint32_t task,
                            void (*event)(void *ctx, const insee_program_event *ev), void *ctx);
/* INSEE_TRAFFIC_PER_TASK: a task's program, its receives and its state are
   its own. */
uint32_t script_traffic_properties(void *self);

#define SCRIPT_TRAFFIC_VTABLE(create_fn)                                     \
    {                                                                        \
        .size = sizeof(insee_traffic_vtable), .create = (create_fn),         \
        .destroy = script_traffic_destroy, .start = script_traffic_start,    \
        .emit = script_traffic_emit, .delivered = script_traffic_delivered,  \
        .finished = script_traffic_finished,                                 \
        .describe_wait = script_traffic_describe_wait,                       \
        .program = script_traffic_program,                                   \
        .properties = script_traffic_properties,                             \
    }

#endif
