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
 * traffic entries. A send is eager (the task goes on once the message is
 * queued at its node); a receive blocks the task until the matching message
 * (same source, tag and length) has fully arrived, and one that arrived
 * earlier is kept until it is asked for; a compute holds the task for its
 * cycles. Without causality (inject at will) every send of a task is issued
 * as fast as its source takes them, and receives and computes are skipped.
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
    uint32_t peer;    /* SEND: destination task; RECV: source task */
    uint32_t line;    /* where the event came from (a trace's line), 0 when generated */
    uint64_t tag;     /* SEND/RECV: the matching key */
    uint64_t bytes;   /* SEND/RECV: message length */
    uint64_t cycles;  /* COMPUTE: time the task is held */
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

#endif
