/* bernoulli.h — the Bernoulli gaps of INSEE's independent traffic sources
 * (§3.2.1) and the uniform destination, shared by the traffic plugins
 * (compiled into each .so; hidden like everything but the entry). The
 * plugins that send at a load use them through source.h, which adds the
 * on/off process and message lengths.
 *
 * A Bernoulli source starts a message in each cycle with probability p
 * (load / L for one-packet messages, L = packet length in phits). Rather
 * than a die per cycle, it draws the gap to its next message: a geometric
 * number of failures. An idle task then costs nothing between messages,
 * and the sequence of message cycles has exactly the Bernoulli
 * distribution.
 */
#ifndef INSEE_TRAFFIC_BERNOULLI_H
#define INSEE_TRAFFIC_BERNOULLI_H

#include <insee/insee.h>

/* The `load` entry of a parameter table: the same name, range and meaning
   in every plugin that sends at a load. */
#define TRAFFIC_LOAD_PARAM                                                   \
    {"load", INSEE_PARAM_DOUBLE, "0.1", 0.0, 1.0, NULL, "phits/node/cycle",  \
     "offered load per node; a message starts with probability load / (L x mean packets per " \
     "message) per cycle"}

typedef struct traffic_bernoulli {
    double load;  /* phits/node/cycle */
    double p;     /* messages per task per cycle: load / L unless set by traffic_bernoulli_rate() */
    double log_q; /* log1p(-p), which every gap divides by */
} traffic_bernoulli;

/* Set *b for `load` with the packet length of `shape`; false with err
   filled (the message starts with `name`) when the packet length is 0. */
bool traffic_bernoulli_init(traffic_bernoulli *b, const char *name, const insee_shape *shape,
                            double load, insee_error *err);

/* Messages per task per cycle p, for a caller whose messages are not one
   packet long or whose source is not always on. */
void traffic_bernoulli_rate(traffic_bernoulli *b, double p);

/* A gap: insee_rng_geometric(rng, b->p), the same draws and the same
   value, with the logarithm of 1 - p taken once rather than per gap. */
uint64_t traffic_bernoulli_gap(const traffic_bernoulli *b, insee_rng *rng);

/* The first cycle a task is due: INSEE_NEVER at load 0. */
uint64_t traffic_bernoulli_start(const traffic_bernoulli *b, insee_rng *rng);

/* The cycle after `now` at which a task that just sent is due again. */
uint64_t traffic_bernoulli_next(const traffic_bernoulli *b, uint64_t now, insee_rng *rng);

/* A task drawn uniformly among the `tasks` tasks other than `task` (which
   must be one of them; tasks >= 2): the uniform (UN) destination. */
uint32_t traffic_other_task(insee_rng *rng, uint32_t tasks, uint32_t task);

#endif
