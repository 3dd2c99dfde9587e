/* kernel/engine/events.c — the timing wheel, the task heap and the
 * calendar (events.h). */
#include "engine/events.h"

#include <string.h>

void insee_wheel_init(insee_wheel *w, uint32_t horizon)
{
    uint32_t size = 2;
    while (size <= horizon)
        size *= 2;
    *w = (insee_wheel){.bucket = g_new0(insee_vec, size), .mask = size - 1};
}

void insee_wheel_clear(insee_wheel *w)
{
    if (w->bucket)
        for (uint32_t i = 0; i <= w->mask; i++)
            g_free(w->bucket[i].v);
    g_free(w->bucket);
    w->bucket = NULL;
    insee_heap_clear(&w->far);
}

void insee_wheel_add_far(insee_wheel *w, uint64_t at, uint32_t ev)
{
    insee_heap_push_seq(&w->far, at, w->far_added++, ev);
}

/* Far events now in reach move to their buckets at the start of a cycle,
   before any event of theirs is added there: they come first, as added
   first. */
void insee_wheel_reach(insee_wheel *w, uint64_t now)
{
    while (insee_heap_top(&w->far) <= now + w->mask) {
        insee_due d = insee_heap_pop(&w->far);
        insee_vec_push(&w->bucket[d.at & w->mask], d.task);
    }
}

static gboolean earlier(const insee_due *a, const insee_due *b)
{
    if (a->at != b->at)
        return a->at < b->at;
    return a->seq < b->seq || (a->seq == b->seq && a->task < b->task);
}

void insee_heap_push_seq(insee_heap *h, uint64_t at, uint64_t seq, uint32_t task)
{
    if (h->len == h->cap) {
        h->cap = h->cap ? h->cap * 2 : 256;
        h->v = g_renew(insee_due, h->v, h->cap);
    }
    uint32_t i = h->len++;
    insee_due d = {at, seq, task};
    while (i > 0) {
        uint32_t parent = (i - 1) / 2;
        if (!earlier(&d, &h->v[parent]))
            break;
        h->v[i] = h->v[parent];
        i = parent;
    }
    h->v[i] = d;
}

insee_due insee_heap_pop(insee_heap *h)
{
    insee_due top = h->v[0];
    insee_due last = h->v[--h->len];
    uint32_t i = 0;
    for (;;) {
        uint32_t child = 2 * i + 1;
        if (child >= h->len)
            break;
        if (child + 1 < h->len && earlier(&h->v[child + 1], &h->v[child]))
            child++;
        if (!earlier(&h->v[child], &last))
            break;
        h->v[i] = h->v[child];
        i = child;
    }
    if (h->len)
        h->v[i] = last;
    return top;
}

void insee_heap_clear(insee_heap *h)
{
    g_free(h->v);
    h->v = NULL;
    h->len = h->cap = 0;
}

void insee_calendar_init(insee_calendar *c, uint32_t span)
{
    *c = (insee_calendar){.bucket = g_new(uint32_t, span), .last = g_new(uint32_t, span),
                          .mask = span - 1, .pool_free = UINT32_MAX};
    memset(c->bucket, 0xff, sizeof(uint32_t) * span);
}

void insee_calendar_clear(insee_calendar *c)
{
    g_free(c->bucket);
    g_free(c->last);
    g_free(c->pool);
    insee_heap_clear(&c->far);
    *c = (insee_calendar){0};
}

/* A free entry: one popped before, else one never used. */
static uint32_t entry_new(insee_calendar *c)
{
    uint32_t e = c->pool_free;
    if (e != UINT32_MAX) {
        c->pool_free = c->pool[e].next;
        return e;
    }
    if (c->pool_used == c->pool_cap) {
        c->pool_cap = c->pool_cap ? c->pool_cap * 2 : 256;
        c->pool = g_renew(insee_calendar_entry, c->pool, c->pool_cap);
    }
    return c->pool_used++;
}

void insee_calendar_push(insee_calendar *c, uint64_t at, uint32_t task)
{
    if (c->count == 0)
        c->base = at;
    if (at < c->base || at - c->base > c->mask) {
        insee_heap_push(&c->far, at, task);
        return;
    }
    uint32_t b = (uint32_t)(at & c->mask), e = entry_new(c), *link = &c->bucket[b];
    /* The tasks due in a cycle are asked in task order, and each pushes
       its next cycle: most pushes go after the bucket's last entry. */
    if (*link != UINT32_MAX && c->pool[c->last[b]].task <= task)
        link = &c->pool[c->last[b]].next;
    while (*link != UINT32_MAX && c->pool[*link].task <= task)
        link = &c->pool[*link].next;
    c->pool[e] = (insee_calendar_entry){.task = task, .next = *link};
    if (*link == UINT32_MAX)
        c->last[b] = e;
    *link = e;
    c->count++;
}

/* Whether the earliest entry is a bucket's, base moved up to it. */
static gboolean first_in_bucket(insee_calendar *c)
{
    if (c->count == 0)
        return FALSE;
    while (c->bucket[c->base & c->mask] == UINT32_MAX)
        c->base++;
    if (c->far.len == 0 || c->base != c->far.v[0].at)
        return c->far.len == 0 || c->base < c->far.v[0].at;
    return c->pool[c->bucket[c->base & c->mask]].task < c->far.v[0].task;
}

insee_due insee_calendar_first(insee_calendar *c)
{
    if (first_in_bucket(c))
        return (insee_due){.at = c->base, .task = c->pool[c->bucket[c->base & c->mask]].task};
    return c->far.len ? c->far.v[0] : (insee_due){.at = UINT64_MAX};
}

void insee_calendar_pop(insee_calendar *c)
{
    if (!first_in_bucket(c)) {
        insee_heap_pop(&c->far);
        return;
    }
    uint32_t *head = &c->bucket[c->base & c->mask], e = *head;
    *head = c->pool[e].next;
    c->pool[e].next = c->pool_free;
    c->pool_free = e;
    c->count--;
}
