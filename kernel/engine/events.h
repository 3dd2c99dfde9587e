/* kernel/engine/events.h — what the time loop waits for.
 *
 * Two structures, both owned by the engine:
 *  - a timing wheel of network events (a head becomes routable, a queue slot
 *    frees, a packet's tail is consumed, a link's packet has crossed), all at
 *    most `horizon` cycles ahead;
 *    a bucket per cycle, so scheduling and popping are O(1);
 *  - a binary heap of task due times (traffic sources), which may be far
 *    ahead; ties pop in the order asked for (a sequence number, 0 when any
 *    will do), then in task order, so runs are deterministic;
 *  - a calendar of task due times, which pops in the heap's order (with
 *    sequence 0) but costs O(1) for the near future.
 * Storage grows by doubling and is reused, so the time loop stops allocating
 * once the run reaches its steady state.
 */
#ifndef INSEE_KERNEL_EVENTS_H
#define INSEE_KERNEL_EVENTS_H

#include <glib.h>
#include <stdint.h>

G_BEGIN_DECLS

typedef enum insee_event_kind {
    INSEE_EV_HEAD_READY = 0, /* id: queue */
    INSEE_EV_RELEASE = 1,    /* id: queue */
    INSEE_EV_DELIVER = 2,    /* id: packet */
    INSEE_EV_LINK_DONE = 3,  /* id: global port (its link's tail has crossed) */
} insee_event_kind;

static inline uint32_t insee_event(insee_event_kind kind, uint32_t id)
{
    return (id << 2) | (uint32_t)kind;
}
static inline insee_event_kind insee_event_kind_of(uint32_t ev) { return (insee_event_kind)(ev & 3u); }
static inline uint32_t insee_event_id(uint32_t ev) { return ev >> 2; }

typedef struct insee_vec {
    uint32_t *v;
    uint32_t len, cap;
} insee_vec;

static inline void insee_vec_push(insee_vec *a, uint32_t x)
{
    if (a->len == a->cap) {
        a->cap = a->cap ? a->cap * 2 : 64;
        a->v = g_renew(uint32_t, a->v, a->cap);
    }
    a->v[a->len++] = x;
}

typedef struct insee_due {
    uint64_t at;
    uint64_t seq;  /* among equal `at`: the order asked for (0 when any will do) */
    uint32_t task;
} insee_due;

typedef struct insee_heap {
    insee_due *v;
    uint32_t len, cap;
} insee_heap;

/* Entries come out by `at`, then `seq`, then `task`. */
void insee_heap_push_seq(insee_heap *h, uint64_t at, uint64_t seq, uint32_t task);
static inline void insee_heap_push(insee_heap *h, uint64_t at, uint32_t task)
{
    insee_heap_push_seq(h, at, 0, task);
}
/* Remove and return the earliest entry; the heap must not be empty. */
insee_due insee_heap_pop(insee_heap *h);
static inline uint64_t insee_heap_top(const insee_heap *h) { return h->len ? h->v[0].at : UINT64_MAX; }
void insee_heap_clear(insee_heap *h);

typedef struct insee_wheel {
    insee_vec *bucket; /* horizon buckets, bucket[t & mask] holds cycle t */
    uint32_t mask;
    uint64_t pending;  /* events in all buckets, and beyond */
    /* Events past the horizon when added (a packet's tail far behind its
       head, on a node's link shared by its injection queues): by cycle,
       then the order added; each moves into its bucket once in reach. */
    insee_heap far;
    uint64_t far_added;
} insee_wheel;

/* A wheel for events mostly at most `horizon` cycles after the current one. */
void insee_wheel_init(insee_wheel *w, uint32_t horizon);
void insee_wheel_clear(insee_wheel *w);
void insee_wheel_add_far(insee_wheel *w, uint64_t at, uint32_t ev);
/* Event `ev` at cycle `at`, from cycle `now` (at >= now). */
static inline void insee_wheel_add(insee_wheel *w, uint64_t now, uint64_t at, uint32_t ev)
{
    if (G_UNLIKELY(at - now > w->mask)) /* its bucket would be one nearer */
        insee_wheel_add_far(w, at, ev);
    else
        insee_vec_push(&w->bucket[at & w->mask], ev);
    w->pending++;
}
void insee_wheel_reach(insee_wheel *w, uint64_t now);
/* Cycle `now`'s events, before anything is added at `now`: the caller
   empties the bucket and takes them off `pending`. */
static inline insee_vec *insee_wheel_due(insee_wheel *w, uint64_t now)
{
    if (G_UNLIKELY(w->far.len != 0))
        insee_wheel_reach(w, now);
    return &w->bucket[now & w->mask];
}

/* Every traffic source has one due time, a few dozen cycles ahead for a
   Bernoulli source: a bucket per cycle for the `mask + 1` cycles from
   `base`, and the heap for entries outside them when pushed (a wake
   earlier than base, a gap longer than the span). A bucket is a list in
   task order; its entries come from one pool, so that a bucket costs no
   allocation of its own. */
typedef struct insee_calendar_entry {
    uint32_t task, next;
} insee_calendar_entry;

typedef struct insee_calendar {
    uint32_t *bucket; /* bucket[t & mask]: first entry of cycle t, base <= t <= base + mask */
    uint32_t *last;   /* last[t & mask]: its last entry, while the bucket has one */
    uint32_t mask;
    uint32_t count;   /* entries in all buckets */
    uint64_t base;    /* no bucket entry is earlier */
    insee_calendar_entry *pool;
    uint32_t pool_cap, pool_used; /* entries allocated, ever used */
    uint32_t pool_free;           /* first popped entry, a list by next */
    insee_heap far;
} insee_calendar;

/* A calendar whose buckets cover `span` cycles (a power of 2). */
void insee_calendar_init(insee_calendar *c, uint32_t span);
void insee_calendar_clear(insee_calendar *c);
void insee_calendar_push(insee_calendar *c, uint64_t at, uint32_t task);
/* The earliest entry, which stays; `at` UINT64_MAX when there is none. */
insee_due insee_calendar_first(insee_calendar *c);
/* Remove the earliest entry; the calendar must not be empty. */
void insee_calendar_pop(insee_calendar *c);

G_END_DECLS
#endif
