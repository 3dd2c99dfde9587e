/* causal_rig.h — a mock kernel loop for the tests of causal and reactive
 * traffic plugins (bursts, reactive, markov, dcntraffic): tasks due at the
 * cycles emit() and wake_task() give, messages delivered after a fixed
 * delay, delivered() called at that cycle, the way the kernel drives a
 * traffic plugin but without a network (no contention, no throttling).
 *
 * In a cycle the rig first delivers the messages due then (in the order
 * they were sent), then asks each due task in task order; a wake takes
 * effect as the kernel's does: at max(at, now + 1), and only when earlier
 * than the task's due cycle. Hooks see every message and delivery.
 */
#ifndef INSEE_TEST_PLUGINS_CAUSAL_RIG_H
#define INSEE_TEST_PLUGINS_CAUSAL_RIG_H

#include "traffic_rig.h"

typedef struct causal_rig causal_rig;

/* What the test watches; any may be NULL. `msg` is NULL when emit()
   returned false; `next` is the due cycle emit() gave. */
typedef struct causal_hooks {
    void (*emitted)(void *user, uint32_t task, uint64_t now, const insee_message *msg,
                    uint64_t next);
    void (*delivered)(void *user, uint32_t src, const insee_message *msg, uint64_t now);
    void *user;
} causal_hooks;

/* The loop for the plugin instance of `r` (created already): a message
   sent at cycle s is delivered at s + delay + (packets - 1) * per_packet. */
causal_rig *causal_new(traffic_rig *r, uint64_t delay, uint64_t per_packet,
                       const causal_hooks *hooks);
void causal_free(causal_rig *c);

/* Run until nothing is due and nothing is in flight, or until cycle
   `limit`; returns the cycle of the last event (delivery or emit) run. */
uint64_t causal_run(causal_rig *c, uint64_t limit);

/* Messages in flight (sent, not yet delivered). */
uint64_t causal_in_flight(const causal_rig *c);
/* From now on add to each message's delay a number drawn uniformly in
   0 .. max (a seeded stream of the rig's own), so that messages overtake
   each other. */
void causal_jitter(causal_rig *c, uint64_t max);
/* Make the next message sent be lost (never delivered), as a dropped
   packet would be. */
void causal_lose_next(causal_rig *c);

#endif
