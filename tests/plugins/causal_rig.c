/* causal_rig.c — the mock kernel loop of causal_rig.h. */
#include "causal_rig.h"

#include <criterion/criterion.h>
#include <stdlib.h>

typedef struct flight {
    uint64_t at, seq; /* delivery cycle; seq keeps the sending order on a tie */
    uint32_t src;
    insee_message msg;
} flight;

struct causal_rig {
    traffic_rig *r;
    uint64_t delay, per_packet;
    causal_hooks hooks;
    uint32_t tasks;
    uint64_t *due;
    insee_rng *rng;
    flight *heap; /* min-heap on (at, seq) */
    size_t len, cap;
    uint64_t seq;
    uint64_t jitter;
    insee_rng jitter_rng;
    bool lose_next;
};

static bool before(const flight *a, const flight *b)
{
    return a->at != b->at ? a->at < b->at : a->seq < b->seq;
}

static void push(causal_rig *c, flight f)
{
    if (c->len == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 64;
        c->heap = realloc(c->heap, sizeof *c->heap * c->cap);
        cr_assert_not_null(c->heap);
    }
    size_t i = c->len++;
    for (; i > 0 && before(&f, &c->heap[(i - 1) / 2]); i = (i - 1) / 2)
        c->heap[i] = c->heap[(i - 1) / 2];
    c->heap[i] = f;
}

static flight pop(causal_rig *c)
{
    flight top = c->heap[0], last = c->heap[--c->len];
    size_t i = 0;
    for (;;) {
        size_t k = 2 * i + 1;
        if (k >= c->len)
            break;
        if (k + 1 < c->len && before(&c->heap[k + 1], &c->heap[k]))
            k++;
        if (!before(&c->heap[k], &last))
            break;
        c->heap[i] = c->heap[k];
        i = k;
    }
    if (c->len)
        c->heap[i] = last;
    return top;
}

causal_rig *causal_new(traffic_rig *r, uint64_t delay, uint64_t per_packet,
                       const causal_hooks *hooks)
{
    causal_rig *c = calloc(1, sizeof *c);
    cr_assert_not_null(c);
    c->r = r;
    c->delay = delay;
    c->per_packet = per_packet;
    if (hooks)
        c->hooks = *hooks;
    c->tasks = r->k.shape.tasks;
    c->due = malloc(sizeof *c->due * c->tasks);
    c->rng = malloc(sizeof *c->rng * c->tasks);
    r->k.wake_at = malloc(sizeof *r->k.wake_at * c->tasks);
    cr_assert(c->due && c->rng && r->k.wake_at);
    for (uint32_t t = 0; t < c->tasks; t++) {
        r->k.wake_at[t] = INSEE_NEVER;
        r->host.rng_seed(r->host.kernel, t, &c->rng[t]); /* a stream per task, as the kernel */
        c->due[t] = r->vt->start(r->self, t, &c->rng[t]);
    }
    return c;
}

void causal_free(causal_rig *c)
{
    free(c->r->k.wake_at);
    c->r->k.wake_at = NULL;
    free(c->due);
    free(c->rng);
    free(c->heap);
    free(c);
}

/* The wakes the plugin asked for since the last look, as the kernel takes
   them. */
static void take_wakes(causal_rig *c, uint64_t now)
{
    uint64_t *wake = c->r->k.wake_at;
    for (uint32_t t = 0; t < c->tasks; t++) {
        uint64_t at = wake[t] < now + 1 ? now + 1 : wake[t];
        if (wake[t] != INSEE_NEVER && at < c->due[t])
            c->due[t] = at;
        wake[t] = INSEE_NEVER;
    }
}

static void emit_task(causal_rig *c, uint32_t t, uint64_t now)
{
    insee_message m;
    uint64_t next = INSEE_NEVER;
    bool sent = c->r->vt->emit(c->r->self, t, now, &c->rng[t], &m, &next);
    cr_assert_gt(next, now, "task %u at %lu: next %lu is not later", t, (unsigned long)now,
                 (unsigned long)next);
    c->due[t] = next;
    if (c->hooks.emitted)
        c->hooks.emitted(c->hooks.user, t, now, sent ? &m : NULL, next);
    if (!sent)
        return;
    cr_assert_lt(m.dst, c->tasks, "task %u sent to task %u", t, m.dst);
    cr_assert_geq(m.packets, 1u);
    if (c->lose_next) {
        c->lose_next = false;
        return;
    }
    uint64_t extra = c->jitter ? insee_rng_u64(&c->jitter_rng) % (c->jitter + 1) : 0;
    push(c, (flight){.at = now + c->delay + extra + (uint64_t)(m.packets - 1) * c->per_packet,
                     .seq = c->seq++,
                     .src = t,
                     .msg = m});
}

uint64_t causal_run(causal_rig *c, uint64_t limit)
{
    uint64_t last = 0;
    for (;;) {
        uint64_t now = c->len ? c->heap[0].at : INSEE_NEVER;
        for (uint32_t t = 0; t < c->tasks; t++)
            if (c->due[t] < now)
                now = c->due[t];
        if (now == INSEE_NEVER || now >= limit)
            return last;
        while (c->len && c->heap[0].at == now) {
            flight f = pop(c);
            if (c->r->vt->delivered)
                c->r->vt->delivered(c->r->self, f.src, &f.msg, now);
            if (c->hooks.delivered)
                c->hooks.delivered(c->hooks.user, f.src, &f.msg, now);
            take_wakes(c, now);
        }
        for (uint32_t t = 0; t < c->tasks; t++) {
            if (c->due[t] != now)
                continue;
            emit_task(c, t, now);
            take_wakes(c, now);
        }
        last = now;
    }
}

uint64_t causal_in_flight(const causal_rig *c)
{
    return c->len;
}

void causal_jitter(causal_rig *c, uint64_t max)
{
    c->jitter = max;
    insee_rng_init(&c->jitter_rng, 7, 99);
}

void causal_lose_next(causal_rig *c)
{
    c->lose_next = true;
}
