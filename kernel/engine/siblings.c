/* kernel/engine/siblings.c — see siblings.h. */
#include "engine/siblings.h"

#include <string.h>

#include "engine/spin.h"

/* What a part publishes for an allreduce: the others read it between its
   two barriers. */
typedef struct published {
    const uint64_t *v;
} published;

/* A part's copy of what it sends with an exchange: its header words for
   every part, where each part's bytes start, then the bytes. */
typedef struct posted {
    uint64_t *head;
    int *displ;
    const char *bytes;
    GByteArray *buf;
} posted;

typedef struct member {
    insee_siblings *s;
    uint32_t me;
    uint32_t exchanges; /* made so far: their parity picks the copy */
    posted copy[2];
} member;

/* How long a part spins at a barrier before it yields its core at every
   turn: a few cycles' wait for a part that has more to do; longer means
   the part waited for was set aside by a busy machine, and a spinning part
   would keep the core it needs. With more parts than cores some are
   always set aside: the others yield at once (on 2 cores, 4 parts of a
   32x32 torus ran 8 times faster so than spinning first, 3 times faster
   than sleeping on a condition). */
#define SPIN_US 50

struct insee_siblings {
    uint32_t parts;
    gint64 spin_us;  /* SPIN_US, or 0 with more parts than cores */
    gint arrived;    /* parts at the current barrier */
    gint generation; /* barriers passed */
    published *pub;
    member *members;
};

/* Every part waits here until all have come. The last to come opens the
   next generation; the atomics order every part's publishing before any
   part's reading. */
static void barrier(insee_siblings *s)
{
    gint gen = g_atomic_int_get(&s->generation);
    if ((uint32_t)g_atomic_int_add(&s->arrived, 1) == s->parts - 1) {
        g_atomic_int_set(&s->arrived, 0);
        g_atomic_int_inc(&s->generation);
        return;
    }
    gint64 until = s->spin_us ? g_get_monotonic_time() + s->spin_us : 0;
    for (uint32_t spin = 1; g_atomic_int_get(&s->generation) == gen; spin++) {
        if (until && (spin % 64 || g_get_monotonic_time() <= until)) {
            insee_cpu_relax();
        } else {
            until = 0;
            g_thread_yield();
        }
    }
}

static void sib_allreduce(void *ctx, uint64_t *v, size_t n, insee_reduce_op op)
{
    member *m = ctx;
    insee_siblings *s = m->s;
    uint64_t *out = g_new(uint64_t, n);
    memcpy(out, v, n * sizeof *v);
    s->pub[m->me].v = v;
    barrier(s);
    for (uint32_t q = 0; q < s->parts; q++) {
        if (q == m->me)
            continue;
        for (size_t i = 0; i < n; i++)
            out[i] = op == INSEE_REDUCE_SUM ? out[i] + s->pub[q].v[i]
                                            : MAX(out[i], s->pub[q].v[i]);
    }
    barrier(s); /* every part has read every v before any is overwritten */
    memcpy(v, out, n * sizeof *v);
    g_free(out);
}

/* Copy what part m sends into the copy for this exchange's parity, where
   the others read it until the next exchange's barrier. */
static void post(member *m, const uint64_t *head_out, size_t words, const void *send,
                 const int *sdispl)
{
    uint32_t parts = m->s->parts;
    posted *c = &m->copy[m->exchanges++ % 2];
    size_t bytes = 0;
    for (uint32_t q = 0; q < parts; q++)
        bytes = MAX(bytes, (size_t)sdispl[q] + head_out[q * words]);
    size_t head = parts * words * sizeof *c->head, displ = parts * sizeof *c->displ;
    g_byte_array_set_size(c->buf, (guint)(head + displ + bytes));
    c->head = (uint64_t *)c->buf->data;
    c->displ = (int *)(c->buf->data + head);
    c->bytes = (const char *)c->buf->data + head + displ;
    memcpy(c->head, head_out, head);
    memcpy(c->displ, sdispl, displ);
    memcpy(c->buf->data + head + displ, send, bytes);
}

/* One meeting a cycle: every part posts a copy of what it sends, meets
   the others, and reads theirs. Two copies alternate, so a part that
   leaves the meeting may post the next cycle's while the others still
   read this one's: none can post a third before all have left, as the
   next meeting waits for them. A quarter of the meetings of an alltoall
   then an alltoallv. */
static void sib_exchange(void *ctx, const uint64_t *head_out, uint64_t *head_in, size_t words,
                         const void *send, const int *sdispl, GByteArray *recv, int *rcount,
                         int *rdispl)
{
    member *m = ctx;
    insee_siblings *s = m->s;
    uint32_t parity = m->exchanges % 2;
    post(m, head_out, words, send, sdispl);
    barrier(s);
    size_t total = 0;
    for (uint32_t q = 0; q < s->parts; q++) {
        const posted *c = &s->members[q].copy[parity];
        memcpy(head_in + q * words, c->head + m->me * words, words * sizeof *head_in);
        rcount[q] = (int)head_in[q * words];
        rdispl[q] = (int)total;
        total += (size_t)rcount[q];
    }
    g_byte_array_set_size(recv, (guint)total);
    for (uint32_t q = 0; q < s->parts; q++) {
        const posted *c = &s->members[q].copy[parity];
        if (rcount[q])
            memcpy(recv->data + rdispl[q], c->bytes + c->displ[m->me], (size_t)rcount[q]);
    }
}

insee_siblings *insee_siblings_new(uint32_t parts)
{
    g_return_val_if_fail(parts >= 1, NULL);
    insee_siblings *s = g_new0(insee_siblings, 1);
    s->parts = parts;
    s->spin_us = parts <= g_get_num_processors() ? SPIN_US : 0;
    s->pub = g_new0(published, parts);
    s->members = g_new(member, parts);
    for (uint32_t p = 0; p < parts; p++)
        s->members[p] = (member){.s = s, .me = p,
                                 .copy = {{.buf = g_byte_array_new()}, {.buf = g_byte_array_new()}}};
    return s;
}

insee_transport insee_siblings_transport(insee_siblings *s, uint32_t part)
{
    return (insee_transport){.part = part, .parts = s->parts, .allreduce = sib_allreduce,
                             .exchange = sib_exchange, .ctx = &s->members[part]};
}

void insee_siblings_free(insee_siblings *s)
{
    if (!s)
        return;
    for (uint32_t p = 0; p < s->parts; p++)
        for (int c = 0; c < 2; c++)
            g_byte_array_unref(s->members[p].copy[c].buf);
    g_free(s->pub);
    g_free(s->members);
    g_free(s);
}
