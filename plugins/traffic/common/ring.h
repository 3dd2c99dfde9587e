/* ring.h — a FIFO of 64-bit values that grows when full, for the traffic
 * plugins that queue work per task: the replies of `reactive`, the read
 * requests a storage task of `markov` serves. Header only; a zeroed ring is
 * empty. Pushing is amortised O(1); memory is the largest length reached.
 */
#ifndef INSEE_TRAFFIC_RING_H
#define INSEE_TRAFFIC_RING_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

typedef struct traffic_ring {
    uint64_t *v;
    uint32_t head, len, cap;
} traffic_ring;

/* Append x; false (and the ring unchanged) when out of memory. */
static inline bool traffic_ring_push(traffic_ring *q, uint64_t x)
{
    if (q->len == q->cap) {
        uint32_t cap = q->cap ? 2 * q->cap : 4;
        uint64_t *n = malloc(sizeof *n * cap);
        if (!n)
            return false;
        for (uint32_t i = 0; i < q->len; i++)
            n[i] = q->v[(q->head + i) % q->cap];
        free(q->v);
        *q = (traffic_ring){.v = n, .head = 0, .len = q->len, .cap = cap};
    }
    q->v[(q->head + q->len++) % q->cap] = x;
    return true;
}

/* Remove and return the oldest value; the ring must not be empty. */
static inline uint64_t traffic_ring_pop(traffic_ring *q)
{
    uint64_t x = q->v[q->head];
    q->head = (q->head + 1) % q->cap;
    q->len--;
    return x;
}

static inline void traffic_ring_free(traffic_ring *q)
{
    free(q->v);
    *q = (traffic_ring){0};
}

#endif
