/* source.h — the temporal side of INSEE's independent traffic sources
 * (§3.2.1, Table 1), shared by every traffic plugin that sends at a load
 * (compiled into each .so, hidden like everything but the entry): when a
 * task sends, and how long each message is (length.h).
 *
 * The load stays what INSEE means by it, phits offered per node per cycle,
 * whatever the lengths: a task starts messages at
 *     rate = load / (L x P)   messages per cycle,
 * L the packet length in phits and P the mean packets per message
 * (traffic_length_mean; 1 by default, so rate = load / L as in INSEE).
 *
 * process = "bernoulli": a message starts in each cycle with probability
 * `rate`, independently. Rather than a die per cycle, a source draws the
 * gap to its next message (a geometric number of failures), so an idle task
 * costs nothing and the cycles have exactly the Bernoulli distribution.
 *
 * process = "bursty": an on/off source, a two-state Markov chain per task.
 * An on period lasts a geometric number of cycles (at least 1) of mean
 * burst_on, i.e. it ends after each cycle with probability 1 / burst_on; an
 * off period likewise with mean burst_off. While on, the task is a
 * Bernoulli source at
 *     rate_on = rate x (burst_on + burst_off) / burst_on,
 * while off it sends nothing, so the long-run rate is `rate` (the task is
 * on a share burst_on / (burst_on + burst_off) of the time). While on it
 * offers load x (burst_on + burst_off) / burst_on phits per cycle; more
 * than 1, what its link carries, is refused at create(): load must be at
 * most burst_on / (burst_on + burst_off). Each task starts in the chain's
 * stationary state (on with probability burst_on / (burst_on + burst_off)).
 * When the kernel throttles a task (its injection queue full), it delays
 * the task's next message by the stall; the on/off schedule moves with it,
 * so a stall pauses the source as a whole.
 */
#ifndef INSEE_TRAFFIC_SOURCE_H
#define INSEE_TRAFFIC_SOURCE_H

#include "bernoulli.h" /* TRAFFIC_LOAD_PARAM, traffic_other_task() */
#include "length.h"

/* The entries a plugin appends to its table, in this order, for the
   process and the message length; it passes create() the values from the
   first of them on. */
#define TRAFFIC_SOURCE_PARAMS                                                          \
    {"process", INSEE_PARAM_ENUM, "\"bernoulli\"", 1, 0, "bernoulli|bursty", NULL,     \
     "when a task sends: independent cycles, or on/off periods (bursty)"},            \
    {"burst_on", INSEE_PARAM_DOUBLE, "100", 1.0, 1e12, NULL, "cycles",                \
     "bursty: mean length of an on period"},                                          \
    {"burst_off", INSEE_PARAM_DOUBLE, "100", 1.0, 1e12, NULL, "cycles",               \
     "bursty: mean length of an off period"},                                         \
    TRAFFIC_LENGTH_PARAMS
#define TRAFFIC_SOURCE_NPARAMS (3 + TRAFFIC_LENGTH_NPARAMS)

typedef struct traffic_source traffic_source;

/* A source for `tasks` tasks at `load` with the TRAFFIC_SOURCE_PARAMS
   values `params`; NULL with err filled (the message starts with `who`)
   when they are impossible or out of memory. */
traffic_source *traffic_source_create(const char *who, const insee_host *host, double load,
                                      const insee_value *params, insee_error *err);
void traffic_source_destroy(traffic_source *s);

/* The first cycle `task` is due: INSEE_NEVER at load 0. */
uint64_t traffic_source_start(traffic_source *s, uint32_t task, insee_rng *rng);
/* The cycle after `now` at which `task`, which just sent, is due again. */
uint64_t traffic_source_next(traffic_source *s, uint32_t task, uint64_t now, insee_rng *rng);
/* *msg = the message being sent, to `dst`: its length drawn, in packets and
   bytes; tag and traffic_class 0. Filled in place: the packet engine asks
   for one per message. */
void traffic_source_message(const traffic_source *s, uint32_t dst, insee_rng *rng,
                            insee_message *msg);
/* The offered load, phits/node/cycle. */
double traffic_source_load(const traffic_source *s);

#endif
