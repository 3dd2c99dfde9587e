/* test_longest.c — the longest arbiter: the input whose queue holds most
 * packets wins whatever its position and the last grant; equal queues take
 * turns, INSEE's way: the scan starts after the input this output granted
 * last and keeps the first of the longest; each output keeps its own turn;
 * the answer is always in [0, n). */
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
    const insee_plugin_desc *d = load_plugin("arbiter", "longest");
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
    cr_assert_not_null(a->vt->state_size, "ties rotate: longest needs per-output state");
    size_t size = a->vt->state_size(a->self);
    cr_assert_geq(size, sizeof(uint32_t));
    return calloc(1, size);
}

/* Grant among requests (input, occupancy); returns the granted input. The
   longer queues get the later requests and younger packets, so only
   `occupancy` can explain the winner. */
static uint32_t pick(arb *a, void *state, const uint32_t *inputs, const uint32_t *occupancy,
                     uint32_t n)
{
    cr_assert_leq(n, 16u);
    insee_request req[16] = {{0}}; /* zeroed only to quiet GCC's maybe-uninitialized */
    for (uint32_t i = 0; i < n; i++)
        req[i] = (insee_request){.input = inputs[i], .occupancy = occupancy[i],
                                 .since = 500 + occupancy[i], .born = 400 + occupancy[i],
                                 .transit = true, .injected = 450 + occupancy[i]};
    uint32_t g = a->vt->pick(a->self, state, req, n, 1000, NULL);
    cr_assert_lt(g, n);
    return inputs[g];
}

Test(longest, longest_queue_wins_wherever_it_is)
{
    arb a;
    arb_make(&a);
    static const uint32_t inputs[] = {0, 2, 3, 5, 8, 9, 13, 14};
    void *state = fresh_state(&a);
    for (uint32_t n = 1; n <= 8; n++)
        for (uint32_t w = 0; w < n; w++) {
            uint32_t occupancy[8];
            for (uint32_t i = 0; i < n; i++)
                occupancy[i] = 1 + (i * 5 + 3) % 7; /* 1..7, mixed order */
            occupancy[w] = 8;
            /* the state is whatever the previous picks left: it must not matter */
            cr_assert_eq(pick(&a, state, inputs, occupancy, n), inputs[w], "n %u w %u", n, w);
        }
    free(state);
    a.vt->destroy(a.self);
}

Test(longest, equal_queues_take_turns)
{
    arb a;
    arb_make(&a);
    static const uint32_t inputs[] = {0, 2, 3, 5, 8, 9, 13};
    static const uint32_t occupancy[] = {4, 4, 4, 4, 4, 4, 4};
    for (uint32_t n = 1; n <= 7; n++) {
        void *state = fresh_state(&a);
        uint32_t granted[16] = {0};
        for (uint32_t call = 0; call < 10 * n; call++) {
            uint32_t g = pick(&a, state, inputs, occupancy, n);
            cr_assert_eq(g, inputs[call % n], "n %u call %u", n, call);
            granted[g]++;
        }
        for (uint32_t i = 0; i < n; i++)
            cr_assert_eq(granted[inputs[i]], 10u);
        free(state);
    }
    a.vt->destroy(a.self);
}

Test(longest, the_scan_starts_after_the_last_grant)
{
    arb a;
    arb_make(&a);
    void *state = fresh_state(&a);
    static const uint32_t in[] = {1, 4, 6, 9};
    /* 6 is longest: granted although 1 and 4 come before it. */
    cr_assert_eq(pick(&a, state, in, (const uint32_t[]){2, 2, 5, 1}, 4), 6);
    /* 4 and 9 tie: the scan from 7 meets 9 first, then from 10 wraps to 4. */
    cr_assert_eq(pick(&a, state, in, (const uint32_t[]){2, 3, 1, 3}, 4), 9);
    cr_assert_eq(pick(&a, state, in, (const uint32_t[]){2, 3, 1, 3}, 4), 4);
    cr_assert_eq(pick(&a, state, in, (const uint32_t[]){2, 3, 1, 3}, 4), 9);
    /* a grant the tie did not decide still moves the turn: after 1, 4 is next */
    cr_assert_eq(pick(&a, state, in, (const uint32_t[]){7, 3, 1, 3}, 4), 1);
    cr_assert_eq(pick(&a, state, in, (const uint32_t[]){2, 3, 1, 3}, 4), 4);
    free(state);
    a.vt->destroy(a.self);
}

Test(longest, each_output_has_its_own_turn)
{
    arb a;
    arb_make(&a);
    void *s1 = fresh_state(&a), *s2 = fresh_state(&a);
    static const uint32_t in[] = {1, 2, 3};
    static const uint32_t occupancy[] = {2, 2, 2};
    cr_assert_eq(pick(&a, s1, in, occupancy, 3), 1);
    cr_assert_eq(pick(&a, s1, in, occupancy, 3), 2);
    cr_assert_eq(pick(&a, s2, in, occupancy, 3), 1);
    cr_assert_eq(pick(&a, s1, in, occupancy, 3), 3);
    cr_assert_eq(pick(&a, s2, in, occupancy, 3), 2);
    free(s1);
    free(s2);
    a.vt->destroy(a.self);
}

Test(longest, always_in_range)
{
    arb a;
    arb_make(&a);
    void *state = fresh_state(&a);
    insee_rng rng;
    insee_rng_init(&rng, 3, 2);
    for (int k = 0; k < 5000; k++) {
        uint32_t n = 1 + insee_rng_below(&rng, 16), inputs[16], occupancy[16];
        for (uint32_t i = 0; i < n; i++) {
            inputs[i] = i * 3 + insee_rng_below(&rng, 3); /* increasing */
            occupancy[i] = 1 + insee_rng_below(&rng, 3);  /* many ties */
        }
        uint32_t g = pick(&a, state, inputs, occupancy, n);
        if (n == 1)
            cr_assert_eq(g, inputs[0]);
    }
    free(state);
    a.vt->destroy(a.self);
}
