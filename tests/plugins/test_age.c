/* test_age.c — the age arbiter: the oldest packet since injection
 * (`injected`) wins whatever its position, its wait and the last grant; a
 * head still in its injection queue (injected = now) loses to a packet in
 * the network; since = "generation" counts from `born` instead; equal ages
 * go to the earliest request (`since`), then take turns round robin; the
 * answer is always in [0, n). */
#include "arbiter_rig.h"

#include <criterion/criterion.h>
#include <stdlib.h>

enum { SINCE_INJECTION, SINCE_GENERATION }; /* choice index of `since` */

#define NOW 1000u

/* An age arbiter counting from `since`, its picks told cycle NOW. */
static void age_make(arbiter_rig *a, int since)
{
    insee_value params[1] = {
        value_enum(since, since == SINCE_GENERATION ? "generation" : "injection")};
    arb_make(a, "age", params, NOW);
    cr_assert_str_eq(a->desc->params[0].name, "since");
    cr_assert_str_eq(a->desc->params[0].default_value, "\"injection\"");
}

/* n requests on inputs 0, 2, 4, ... where request w holds the oldest packet
   by *(const int *)ctx, the key (injected or born), while the other key,
   `since` and `occupancy` all point elsewhere: only the chosen key can
   explain the winner. */
static void oldest_at(insee_request *req, uint32_t n, uint32_t w, const void *ctx)
{
    int key = *(const int *)ctx;
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
    arbiter_rig a;
    age_make(&a, SINCE_INJECTION);
    arb_check_best_wins(&a, oldest_at, &(const int){SINCE_INJECTION});
    arb_free(&a);
}

Test(age, since_generation_counts_from_born)
{
    arbiter_rig a;
    age_make(&a, SINCE_GENERATION);
    arb_check_best_wins(&a, oldest_at, &(const int){SINCE_GENERATION});
    arb_free(&a);
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
    arbiter_rig a, g;
    age_make(&a, SINCE_INJECTION);
    age_make(&g, SINCE_GENERATION);
    void *sa = arb_turn_state(&a), *sg = arb_turn_state(&g);
    cr_assert_eq(arb_grant(&a, sa, req, 2), 3);
    cr_assert_eq(arb_grant(&g, sg, req, 2), 20);
    free(sa);
    free(sg);
    arb_free(&a);
    arb_free(&g);
}

Test(age, equal_ages_go_to_the_earliest_request)
{
    arbiter_rig a;
    age_make(&a, SINCE_INJECTION);
    void *state = arb_turn_state(&a);
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
        cr_assert_eq(arb_grant(&a, state, req, 5), 10 + w, "call %u", k);
    }
    free(state);
    arb_free(&a);
}

Test(age, full_ties_take_turns)
{
    arbiter_rig a;
    age_make(&a, SINCE_INJECTION);
    static const uint32_t inputs[] = {0, 2, 3, 5, 8, 9, 13};
    insee_request req[7];
    for (uint32_t i = 0; i < 7; i++)
        req[i] = (insee_request){.input = inputs[i], .occupancy = 1 + i, .since = 70,
                                 .born = 60 - i, .transit = true, .injected = 65};
    arb_check_take_turns(&a, req, 7);
    arb_free(&a);
}

Test(age, a_tie_goes_to_the_first_after_the_last_grant)
{
    arbiter_rig a;
    age_make(&a, SINCE_INJECTION);
    void *state = arb_turn_state(&a);
    insee_request req[4];
    static const uint32_t in[] = {1, 4, 6, 9};
    for (uint32_t i = 0; i < 4; i++)
        req[i] = (insee_request){.input = in[i], .since = 30, .transit = true, .injected = 20};
    req[2].injected = 10; /* 6 is oldest */
    cr_assert_eq(arb_grant(&a, state, req, 4), 6);
    req[2].injected = 20; /* now all tie: 9 is next after 6, then wrap to 1 */
    cr_assert_eq(arb_grant(&a, state, req, 4), 9);
    cr_assert_eq(arb_grant(&a, state, req, 4), 1);
    cr_assert_eq(arb_grant(&a, state, req, 4), 4);
    free(state);
    arb_free(&a);
}

/* Few values of every field: many ties. */
static void draw_ages(insee_request *r, insee_rng *rng)
{
    r->occupancy = 1 + insee_rng_below(rng, 3);
    r->since = insee_rng_below(rng, 3);
    r->born = insee_rng_below(rng, 3);
    r->injected = insee_rng_below(rng, 3);
}

Test(age, always_in_range)
{
    for (int since = SINCE_INJECTION; since <= SINCE_GENERATION; since++) {
        arbiter_rig a;
        age_make(&a, since);
        arb_check_in_range(&a, 3, draw_ages);
        arb_free(&a);
    }
}
