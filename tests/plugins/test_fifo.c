/* test_fifo.c — the fifo arbiter: the head that first requested earliest
 * wins whatever its position and the last grant; heads that requested in the
 * same cycle take turns round robin from the last grant of that output; each
 * output keeps its own turn; the answer is always in [0, n). */
#include "harness.h"

#include <criterion/criterion.h>
#include <stdlib.h>

typedef struct arb {
    const insee_arbiter_vtable *vt;
    void *self;
    insee_kernel k;
    insee_host host;
} arb;

static void arb_make(arb *a)
{
    const insee_plugin_desc *d = load_plugin("arbiter", "fifo");
    cr_assert_eq(d->kind, INSEE_KIND_ARBITER);
    a->vt = d->vtable;
    a->host = mock_host(&a->k);
    insee_error err = {0};
    a->self = a->vt->create(&a->host, NULL, &err);
    cr_assert_not_null(a->self, "%s", err.message);
}

/* A zeroed state of state_size() bytes, as the kernel gives it. */
static void *fresh_state(arb *a)
{
    cr_assert_not_null(a->vt->state_size, "ties rotate: fifo needs per-output state");
    size_t size = a->vt->state_size(a->self);
    cr_assert_geq(size, sizeof(uint32_t));
    return calloc(1, size);
}

/* Grant among requests (input, since); returns the granted input. The other
   fields disagree with `since` on purpose (larger queues and older packets
   where `since` is later), so only `since` can explain the winner. */
static uint32_t pick(arb *a, void *state, const uint32_t *inputs, const uint64_t *since, uint32_t n)
{
    cr_assert_leq(n, 16u);
    insee_request req[16] = {{0}}; /* zeroed only to quiet GCC's maybe-uninitialized */
    for (uint32_t i = 0; i < n; i++)
        req[i] = (insee_request){.input = inputs[i], .occupancy = (uint32_t)since[i],
                                 .since = since[i], .born = 1000 - since[i], .transit = true,
                                 .injected = 1000 - since[i]};
    uint32_t g = a->vt->pick(a->self, state, req, n, 1000, NULL);
    cr_assert_lt(g, n);
    return inputs[g];
}

Test(fifo, earliest_request_wins_wherever_it_is)
{
    arb a;
    arb_make(&a);
    static const uint32_t inputs[] = {0, 2, 3, 5, 8, 9, 13, 14};
    void *state = fresh_state(&a);
    for (uint32_t n = 1; n <= 8; n++)
        for (uint32_t w = 0; w < n; w++) {
            uint64_t since[8];
            for (uint32_t i = 0; i < n; i++)
                since[i] = 100 + (i * 5 + 3) % 11; /* >= 100, mixed order */
            since[w] = 99;
            /* the state is whatever the previous picks left: it must not matter */
            cr_assert_eq(pick(&a, state, inputs, since, n), inputs[w], "n %u w %u", n, w);
        }
    free(state);
    a.vt->destroy(a.self);
}

Test(fifo, equal_requests_take_turns)
{
    arb a;
    arb_make(&a);
    static const uint32_t inputs[] = {0, 2, 3, 5, 8, 9, 13};
    static const uint64_t since[7] = {40, 40, 40, 40, 40, 40, 40};
    for (uint32_t n = 1; n <= 7; n++) {
        void *state = fresh_state(&a);
        for (uint32_t call = 0; call < 10 * n; call++)
            cr_assert_eq(pick(&a, state, inputs, since, n), inputs[call % n], "n %u call %u", n,
                         call);
        free(state);
    }
    a.vt->destroy(a.self);
}

Test(fifo, a_tie_goes_to_the_first_after_the_last_grant)
{
    arb a;
    arb_make(&a);
    void *state = fresh_state(&a);
    static const uint32_t in[] = {1, 4, 6, 9};
    /* 6 requested first: granted although 1 and 4 come before it. */
    cr_assert_eq(pick(&a, state, in, (const uint64_t[]){20, 20, 10, 30}, 4), 6);
    /* 1 and 9 tie: 9 comes next after 6, then the turn wraps to 1. */
    cr_assert_eq(pick(&a, state, in, (const uint64_t[]){20, 25, 25, 20}, 4), 9);
    cr_assert_eq(pick(&a, state, in, (const uint64_t[]){20, 25, 25, 20}, 4), 1);
    cr_assert_eq(pick(&a, state, in, (const uint64_t[]){20, 25, 25, 20}, 4), 9);
    free(state);
    a.vt->destroy(a.self);
}

Test(fifo, each_output_has_its_own_turn)
{
    arb a;
    arb_make(&a);
    void *s1 = fresh_state(&a), *s2 = fresh_state(&a);
    static const uint32_t in[] = {1, 2, 3};
    static const uint64_t since[] = {5, 5, 5};
    cr_assert_eq(pick(&a, s1, in, since, 3), 1);
    cr_assert_eq(pick(&a, s1, in, since, 3), 2);
    cr_assert_eq(pick(&a, s2, in, since, 3), 1);
    cr_assert_eq(pick(&a, s1, in, since, 3), 3);
    cr_assert_eq(pick(&a, s2, in, since, 3), 2);
    free(s1);
    free(s2);
    a.vt->destroy(a.self);
}

Test(fifo, always_in_range)
{
    arb a;
    arb_make(&a);
    void *state = fresh_state(&a);
    insee_rng rng;
    insee_rng_init(&rng, 3, 1);
    for (int k = 0; k < 5000; k++) {
        uint32_t n = 1 + insee_rng_below(&rng, 16), inputs[16];
        uint64_t since[16];
        for (uint32_t i = 0; i < n; i++) {
            inputs[i] = i * 3 + insee_rng_below(&rng, 3); /* increasing */
            since[i] = insee_rng_below(&rng, 4);          /* many ties */
        }
        uint32_t g = pick(&a, state, inputs, since, n);
        if (n == 1)
            cr_assert_eq(g, inputs[0]);
    }
    free(state);
    a.vt->destroy(a.self);
}
