/* test_age.c — the age arbiter: the oldest packet since injection
 * (`injected`) wins whatever its position, its wait and the last grant; a
 * head still in its injection queue (injected = now) loses to a packet in
 * the network; since = "generation" counts from `born` instead; equal ages
 * go to the earliest request (`since`), then take turns round robin; the
 * answer is always in [0, n). */
#include "harness.h"

#include <criterion/criterion.h>
#include <stdlib.h>

enum { SINCE_INJECTION, SINCE_GENERATION }; /* choice index of `since` */

typedef struct arb {
    const insee_arbiter_vtable *vt;
    void *self;
    insee_kernel k;
    insee_host host;
} arb;

static void arb_make(arb *a, int since)
{
    const insee_plugin_desc *d = load_plugin("arbiter", "age");
    cr_assert_eq(d->kind, INSEE_KIND_ARBITER);
    cr_assert_str_eq(d->params[0].name, "since");
    cr_assert_str_eq(d->params[0].default_value, "\"injection\"");
    a->vt = d->vtable;
    a->host = mock_host(&a->k);
    insee_value params[1] = {
        value_enum(since, since == SINCE_GENERATION ? "generation" : "injection")};
    insee_error err = {0};
    a->self = a->vt->create(&a->host, params, &err);
    cr_assert_not_null(a->self, "%s", err.message);
}

/* A zeroed state of state_size() bytes, as the kernel gives it. */
static void *fresh_state(arb *a)
{
    cr_assert_not_null(a->vt->state_size, "ties rotate: age needs per-output state");
    size_t size = a->vt->state_size(a->self);
    cr_assert_geq(size, sizeof(uint32_t));
    return calloc(1, size);
}

#define NOW 1000u

static uint32_t pick(arb *a, void *state, const insee_request *req, uint32_t n)
{
    uint32_t g = a->vt->pick(a->self, state, req, n, NOW, NULL);
    cr_assert_lt(g, n);
    return req[g].input;
}

/* n requests on inputs 0, 2, 4, ... where request w holds the oldest packet
   by `key` (injected or born) while the other key, `since` and `occupancy`
   all point elsewhere: only the chosen key can explain the winner. */
static void oldest_at(insee_request *req, uint32_t n, uint32_t w, int key)
{
    for (uint32_t i = 0; i < n; i++) {
        uint64_t t = 500 + (i * 5 + 3) % 11; /* >= 500, mixed order */
        uint64_t other = 100 + i;            /* oldest by the other key: input 0 */
        req[i] = (insee_request){.input = 2 * i, .occupancy = 1 + i, .since = 600 - i,
                                 .transit = true};
        req[i].injected = key == SINCE_INJECTION ? t : other;
        req[i].born = key == SINCE_GENERATION ? t : other;
    }
    if (key == SINCE_INJECTION)
        req[w].injected = 499;
    else
        req[w].born = 499;
    req[w].since = 900; /* the latest request */
}

Test(age, oldest_since_injection_wins_wherever_it_is)
{
    arb a;
    arb_make(&a, SINCE_INJECTION);
    void *state = fresh_state(&a);
    for (uint32_t n = 1; n <= 8; n++)
        for (uint32_t w = 0; w < n; w++) {
            insee_request req[8];
            oldest_at(req, n, w, SINCE_INJECTION);
            cr_assert_eq(pick(&a, state, req, n), 2 * w, "n %u w %u", n, w);
        }
    free(state);
    a.vt->destroy(a.self);
}

Test(age, since_generation_counts_from_born)
{
    arb a;
    arb_make(&a, SINCE_GENERATION);
    void *state = fresh_state(&a);
    for (uint32_t n = 1; n <= 8; n++)
        for (uint32_t w = 0; w < n; w++) {
            insee_request req[8];
            oldest_at(req, n, w, SINCE_GENERATION);
            cr_assert_eq(pick(&a, state, req, n), 2 * w, "n %u w %u", n, w);
        }
    free(state);
    a.vt->destroy(a.self);
}

Test(age, the_network_goes_before_the_injection_queue)
{
    /* An injection head has injected = now, however long ago it was born
       and however long it has asked; a transit packet has left its queue
       earlier. The generation setting then sees the injection head's age. */
    insee_request req[2] = {
        {.input = 3, .occupancy = 4, .since = NOW - 1, .born = NOW - 2, .transit = true,
         .injected = NOW - 1},
        {.input = 20, .occupancy = 4, .since = NOW - 50, .born = NOW - 90, .transit = false,
         .injected = NOW},
    };
    arb a, g;
    arb_make(&a, SINCE_INJECTION);
    arb_make(&g, SINCE_GENERATION);
    void *sa = fresh_state(&a), *sg = fresh_state(&g);
    cr_assert_eq(pick(&a, sa, req, 2), 3);
    cr_assert_eq(pick(&g, sg, req, 2), 20);
    free(sa);
    free(sg);
    a.vt->destroy(a.self);
    g.vt->destroy(g.self);
}

Test(age, equal_ages_go_to_the_earliest_request)
{
    arb a;
    arb_make(&a, SINCE_INJECTION);
    void *state = fresh_state(&a);
    /* all injection heads (injected = now): the one asking longest wins,
       whatever the turn (the same input twice in a row, then out of order) */
    static const uint32_t winners[] = {3, 3, 0, 4, 4, 1, 2};
    for (uint32_t k = 0; k < sizeof winners / sizeof winners[0]; k++) {
        uint32_t w = winners[k];
        insee_request req[5];
        for (uint32_t i = 0; i < 5; i++)
            req[i] = (insee_request){.input = 10 + i, .occupancy = 2, .since = NOW - 3,
                                     .born = NOW - 10 - i, .injected = NOW};
        req[w].since = NOW - 4;
        cr_assert_eq(pick(&a, state, req, 5), 10 + w, "call %u", k);
    }
    free(state);
    a.vt->destroy(a.self);
}

Test(age, full_ties_take_turns)
{
    arb a;
    arb_make(&a, SINCE_INJECTION);
    static const uint32_t inputs[] = {0, 2, 3, 5, 8, 9, 13};
    for (uint32_t n = 1; n <= 7; n++) {
        void *state = fresh_state(&a);
        insee_request req[7];
        for (uint32_t i = 0; i < n; i++)
            req[i] = (insee_request){.input = inputs[i], .occupancy = 1 + i, .since = 70,
                                     .born = 60 - i, .transit = true, .injected = 65};
        for (uint32_t call = 0; call < 10 * n; call++)
            cr_assert_eq(pick(&a, state, req, n), inputs[call % n], "n %u call %u", n, call);
        free(state);
    }
    a.vt->destroy(a.self);
}

Test(age, a_tie_goes_to_the_first_after_the_last_grant)
{
    arb a;
    arb_make(&a, SINCE_INJECTION);
    void *state = fresh_state(&a);
    insee_request req[4];
    static const uint32_t in[] = {1, 4, 6, 9};
    for (uint32_t i = 0; i < 4; i++)
        req[i] = (insee_request){.input = in[i], .since = 30, .transit = true, .injected = 20};
    req[2].injected = 10; /* 6 is oldest */
    cr_assert_eq(pick(&a, state, req, 4), 6);
    req[2].injected = 20; /* now all tie: 9 is next after 6, then wrap to 1 */
    cr_assert_eq(pick(&a, state, req, 4), 9);
    cr_assert_eq(pick(&a, state, req, 4), 1);
    cr_assert_eq(pick(&a, state, req, 4), 4);
    free(state);
    a.vt->destroy(a.self);
}

Test(age, always_in_range)
{
    for (int since = SINCE_INJECTION; since <= SINCE_GENERATION; since++) {
        arb a;
        arb_make(&a, since);
        void *state = fresh_state(&a);
        insee_rng rng;
        insee_rng_init(&rng, 3, 3);
        for (int k = 0; k < 5000; k++) {
            uint32_t n = 1 + insee_rng_below(&rng, 16);
            insee_request req[16];
            for (uint32_t i = 0; i < n; i++) /* few values: many ties */
                req[i] = (insee_request){.input = i * 3 + insee_rng_below(&rng, 3),
                                         .occupancy = 1 + insee_rng_below(&rng, 3),
                                         .since = insee_rng_below(&rng, 3),
                                         .born = insee_rng_below(&rng, 3),
                                         .transit = true,
                                         .injected = insee_rng_below(&rng, 3)};
            uint32_t g = pick(&a, state, req, n);
            if (n == 1)
                cr_assert_eq(g, req[0].input);
        }
        free(state);
        a.vt->destroy(a.self);
    }
}
