/* kernel/engine/siblings.c — see siblings.h. */
#include "engine/siblings.h"

#include <string.h>

/* Spins before a waiting part also yields its core at each turn. */
#define EAGER_SPINS 1000

/* What a part publishes for a collective: the others read it between the
   collective's two barriers. */
typedef struct published {
    const void *send;
    const int *scount, *sdispl;
    const uint64_t *v;
} published;

typedef struct member {
    insee_siblings *s;
    uint32_t me;
} member;

struct insee_siblings {
    uint32_t parts;
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
    for (uint32_t spin = 0; g_atomic_int_get(&s->generation) == gen; spin++)
        if (spin >= EAGER_SPINS)
            g_thread_yield(); /* more parts than free cores: let the others run */
}

static void sib_alltoall(void *ctx, const void *send, void *recv, size_t each)
{
    member *m = ctx;
    insee_siblings *s = m->s;
    s->pub[m->me].send = send;
    barrier(s);
    for (uint32_t q = 0; q < s->parts; q++)
        memcpy((char *)recv + q * each, (const char *)s->pub[q].send + m->me * each, each);
    barrier(s);
}

static void sib_alltoallv(void *ctx, const void *send, const int *scount, const int *sdispl,
                          void *recv, const int *rcount, const int *rdispl)
{
    member *m = ctx;
    insee_siblings *s = m->s;
    s->pub[m->me] = (published){.send = send, .scount = scount, .sdispl = sdispl};
    barrier(s);
    for (uint32_t q = 0; q < s->parts; q++) {
        const published *from = &s->pub[q];
        g_assert(from->scount[m->me] == rcount[q]);
        if (rcount[q])
            memcpy((char *)recv + rdispl[q], (const char *)from->send + from->sdispl[m->me],
                   (size_t)rcount[q]);
    }
    barrier(s);
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

insee_siblings *insee_siblings_new(uint32_t parts)
{
    g_return_val_if_fail(parts >= 1, NULL);
    insee_siblings *s = g_new0(insee_siblings, 1);
    s->parts = parts;
    s->pub = g_new0(published, parts);
    s->members = g_new(member, parts);
    for (uint32_t p = 0; p < parts; p++)
        s->members[p] = (member){s, p};
    return s;
}

insee_transport insee_siblings_transport(insee_siblings *s, uint32_t part)
{
    return (insee_transport){.part = part, .parts = s->parts, .alltoall = sib_alltoall,
                             .alltoallv = sib_alltoallv, .allreduce = sib_allreduce,
                             .ctx = &s->members[part]};
}

void insee_siblings_free(insee_siblings *s)
{
    if (!s)
        return;
    g_free(s->pub);
    g_free(s->members);
    g_free(s);
}
