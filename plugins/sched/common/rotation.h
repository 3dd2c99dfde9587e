/* rotation.h — the round-robin turn an arbiter keeps per output: round-robin
 * grants by it alone; fifo, longest and age break their ties with it.
 * Compiled into each arbiter that includes it (plugins may not call each
 * other); static inline, so every .so keeps its own hidden copy.
 *
 * Per-output state: one uint32_t holding (last granted input + 1), so the
 * zeroed state the kernel gives at start means "none granted yet" without a
 * separate flag: the lowest input is first in turn. */
#ifndef INSEE_SCHED_ROTATION_H
#define INSEE_SCHED_ROTATION_H

#include <insee/insee.h>

#include <string.h>

/* state_size() of an arbiter that keeps the turn. */
static inline size_t rotation_state_size(void *self)
{
    (void)self;
    return sizeof(uint32_t);
}

/* The first input in turn at this output: inputs >= it come after the last
   grant. */
static inline uint32_t rotation_after(const void *state)
{
    uint32_t after;
    memcpy(&after, state, sizeof after); /* the kernel promises no alignment */
    return after;
}

/* Record that this output granted `input`. Input UINT32_MAX wraps the turn
   to 0, which again means "start over". */
static inline void rotation_granted(void *state, uint32_t input)
{
    uint32_t after = input + 1u;
    memcpy(state, &after, sizeof after);
}

/* How far `input` comes after `after` in round-robin order: unsigned
   subtraction wraps, so inputs at or past `after` rank first in increasing
   order, then the lower ones, again in increasing order. */
static inline uint32_t rotation_turn(uint32_t input, uint32_t after)
{
    return input - after;
}

/* -1, 0 or 1 as a is below, equal to or above b: the three-way comparison
   an order below is made of. */
static inline int rotation_cmp(uint64_t a, uint64_t b)
{
    return (a > b) - (a < b);
}

/* An arbiter's own rule: negative when request x goes before y, positive
   when after, 0 when the rule cannot tell them apart. */
typedef int rotation_order(const void *self, const insee_request *x, const insee_request *y);

/* The position among the n >= 1 requests of the one `order` puts first, a
   tie going to the input soonest in turn after the last grant; records the
   grant in `state`, whether or not a tie decided it. */
static inline uint32_t rotation_pick(void *state, const insee_request *req, uint32_t n,
                                     const void *self, rotation_order *order)
{
    uint32_t after = rotation_after(state);
    uint32_t g = 0;
    for (uint32_t i = 1; i < n; i++) {
        int o = order(self, &req[i], &req[g]);
        if (o < 0 || (o == 0 && rotation_turn(req[i].input, after) <
                                    rotation_turn(req[g].input, after)))
            g = i;
    }
    rotation_granted(state, req[g].input);
    return g;
}

#endif
