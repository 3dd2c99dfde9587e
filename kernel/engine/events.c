/* kernel/engine/events.c — the timing wheel and the task heap (events.h). */
#include "engine/events.h"

void insee_wheel_init(insee_wheel *w, uint32_t horizon)
{
    uint32_t size = 2;
    while (size <= horizon)
        size *= 2;
    w->bucket = g_new0(insee_vec, size);
    w->mask = size - 1;
    w->pending = 0;
}

void insee_wheel_clear(insee_wheel *w)
{
    if (w->bucket)
        for (uint32_t i = 0; i <= w->mask; i++)
            g_free(w->bucket[i].v);
    g_free(w->bucket);
    w->bucket = NULL;
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
