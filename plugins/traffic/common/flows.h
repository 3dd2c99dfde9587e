/* flows.h — traffic in which every task has a set of destinations: the
 * distribution patterns of INSEE §3.2.1 (SD and RD: each task sends to
 * every other in turn) and the synthetic patterns of INRFlow §3.3.1
 * (bisection, all-to-one, all-to-all, many-all-to-all). Shared by those
 * plugins (compiled into each .so, hidden like everything but the entry);
 * a plugin describes the sets and the rest of its traffic entries are
 * here.
 *
 * The sets. The tasks are laid out in an order (a permutation of the tasks:
 * the identity, or shuffled for a random partition), and a task's
 * destinations are the tasks at positions [lo, hi) of that order, itself
 * excepted. A task whose set holds nobody else is silent: it sends nothing
 * (as a task a permutation maps to itself). Its members are numbered
 * 0 .. n-1 in the order, the task itself skipped; they are visited in turn
 * from a first member:
 *  - the one after the task in the order (wrapping), when it is in its own
 *    set — INSEE's SD: task t sends to t+1, t+2, ..., t-1;
 *  - otherwise the member at the task's position modulo n, which staggers
 *    the tasks of one half of a bisection over the other half;
 *  - or a member drawn at random (INSEE's RD).
 *
 * The modes.
 *  - Open-ended (mode = "load"): the tasks send at the offered load with
 *    the process and lengths of source.h, each message to a member drawn
 *    uniformly (TRAFFIC_FLOWS_DRAW) or to the next member in turn
 *    (TRAFFIC_FLOWS_NEXT, TRAFFIC_FLOWS_RANDOM_START).
 *  - Finite (mode = "finite", INRFlow's flows): every task sends `messages`
 *    messages to every member of its set, in rounds over the set from its
 *    first member, as fast as its source takes them (due again the cycle
 *    after each message; the kernel does not ask a task whose previous
 *    message waits for room). Lengths come from source.h; the process and
 *    load are not used. The traffic has finished once every message was
 *    handed over and delivered, counted in delivered(): the kernel runs it
 *    to completion and reports the cycle.
 */
#ifndef INSEE_TRAFFIC_FLOWS_H
#define INSEE_TRAFFIC_FLOWS_H

#include "source.h"

/* The `mode` and `messages` entries of a parameter table, in this order. */
#define TRAFFIC_FLOWS_MODE_PARAMS                                                      \
    {"mode", INSEE_PARAM_ENUM, "\"finite\"", 1, 0, "finite|load", NULL,               \
     "finite: every task sends its messages and the run lasts until they are "        \
     "delivered; load: open-ended at the offered load"},                               \
    {"messages", INSEE_PARAM_INT, "1", 1, 1e12, NULL, "messages",                      \
     "finite: messages each task sends to each of its destinations"}

/* The `partition` entry: how tasks are split into halves or groups. */
#define TRAFFIC_FLOWS_PARTITION_PARAM                                                  \
    {"partition", INSEE_PARAM_ENUM, "\"random\"", 1, 0, "random|consecutive", NULL,   \
     "random: tasks split uniformly at random (INRFlow); consecutive: by task number"}

typedef enum traffic_flows_pick {
    TRAFFIC_FLOWS_DRAW,         /* load: a member drawn uniformly per message */
    TRAFFIC_FLOWS_NEXT,         /* load: the members in turn from the first (SD) */
    TRAFFIC_FLOWS_RANDOM_START, /* load: the members in turn from a random one (RD) */
} traffic_flows_pick;

typedef struct traffic_flows traffic_flows;

/* Sets for the tasks of host->shape(), each empty, in the identity order.
   finite: the finite mode with `messages` per destination; otherwise
   open-ended at `load` picking by `pick`. `source` is the plugin's
   TRAFFIC_SOURCE_PARAMS values. NULL with err filled (the message starts
   with `who`). */
traffic_flows *traffic_flows_new(const char *who, const insee_host *host, double load,
                                 bool finite, uint64_t messages, traffic_flows_pick pick,
                                 const insee_value *source, insee_error *err);
/* traffic_flows_new() for a table that starts with TRAFFIC_LOAD_PARAM and
   TRAFFIC_FLOWS_MODE_PARAMS and holds TRAFFIC_SOURCE_PARAMS from entry
   `source` on; an open-ended mode draws a member per message. */
traffic_flows *traffic_flows_create(const char *who, const insee_host *host,
                                    const insee_value *params, size_t source, insee_error *err);

/* The tasks in a random order drawn from the plugin's stream `stream`
   (host->rng_seed): a uniformly random partition by position. */
void traffic_flows_shuffle(traffic_flows *f, const insee_host *host, uint64_t stream);
/* The task at position `at` of the order. */
uint32_t traffic_flows_at(const traffic_flows *f, uint32_t at);
/* `task`'s destinations: the tasks at positions [lo, hi) of the order. */
void traffic_flows_set(traffic_flows *f, uint32_t task, uint32_t lo, uint32_t hi);
/* Once every set is given: count what each task sends, and log at the
   info level how many tasks are silent. False with err filled when out of
   memory or a count overflows. */
bool traffic_flows_ready(traffic_flows *f, const insee_host *host, insee_error *err);
/* f once traffic_flows_ready(), or NULL (f destroyed) when it fails: what a
   plugin's create() returns. */
void *traffic_flows_finish(traffic_flows *f, const insee_host *host, insee_error *err);

/* The traffic entries of a plugin whose instance is the traffic_flows. */
void traffic_flows_destroy(void *self);
uint64_t traffic_flows_start(void *self, uint32_t task, insee_rng *rng);
bool traffic_flows_emit(void *self, uint32_t task, uint64_t now, insee_rng *rng,
                        insee_message *msg, uint64_t *next);
void traffic_flows_delivered(void *self, uint32_t src_task, const insee_message *msg,
                             uint64_t now);
bool traffic_flows_finished(void *self);
/* A round for the flow engines: one message to every member of the set,
   whatever the mode (the pattern itself, as INRFlow's static engine routes
   it). */
void traffic_flows_round(void *self, uint32_t task, insee_rng *rng,
                         void (*add)(void *ctx, const insee_message *msg), void *ctx);
double traffic_flows_offered_load(void *self);
bool traffic_flows_describe_wait(void *self, char *buf, size_t len);
/* Whether the instance is finite (runs to completion) or sends at a load. */
bool traffic_flows_causal(void *self);

/* A vtable with those entries around the plugin's create(): finite or at a
   load by its mode (causal() tells the kernel which), or open-ended only. */
#define TRAFFIC_FLOWS_VTABLE(create_fn)                                        \
    {                                                                          \
        .size = sizeof(insee_traffic_vtable), .create = (create_fn),           \
        .destroy = traffic_flows_destroy, .start = traffic_flows_start,        \
        .emit = traffic_flows_emit, .delivered = traffic_flows_delivered,      \
        .finished = traffic_flows_finished,                                    \
        .offered_load = traffic_flows_offered_load,                            \
        .describe_wait = traffic_flows_describe_wait,                          \
        .causal = traffic_flows_causal, .round = traffic_flows_round,          \
    }
#define TRAFFIC_FLOWS_OPEN_VTABLE(create_fn)                                   \
    {                                                                          \
        .size = sizeof(insee_traffic_vtable), .create = (create_fn),           \
        .destroy = traffic_flows_destroy, .start = traffic_flows_start,        \
        .emit = traffic_flows_emit, .offered_load = traffic_flows_offered_load, \
        .round = traffic_flows_round,                                          \
    }

#endif
