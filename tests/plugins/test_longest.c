/* test_longest.c — the longest arbiter: the input whose queue holds most
 * packets wins whatever its position and the last grant; equal queues take
 * turns, INSEE's way: the scan starts after the input this output granted
 * last and keeps the first of the longest; each output keeps its own turn;
 * the answer is always in [0, n). */
#include "arbiter_rig.h"

#include <criterion/criterion.h>
#include <stdlib.h>

/* A request whose queue holds `occupancy` packets. The longer queues get
   the later requests and younger packets, so only `occupancy` can explain
   the winner. */
static void occupancy_only(insee_request *r, uint64_t occupancy)
{
    r->occupancy = (uint32_t)occupancy;
    r->since = 500 + occupancy;
    r->born = 400 + occupancy;
    r->injected = 450 + occupancy;
}

static uint32_t pick(arbiter_rig *a, void *state, const uint32_t *inputs,
                     const uint64_t *occupancy, uint32_t n)
{
    return arb_grant_keyed(a, state, inputs, occupancy, n, occupancy_only);
}

Test(longest, longest_queue_wins_wherever_it_is)
{
    arbiter_rig a;
    arb_make(&a, "longest", NULL, 1000);
    uint64_t occupancy[8];
    for (uint32_t i = 0; i < 8; i++)
        occupancy[i] = 1 + (i * 5 + 3) % 7; /* 1..7, mixed order */
    arb_check_key_wins(&a, occupancy, 8, occupancy_only);
    arb_free(&a);
}

Test(longest, equal_queues_take_turns)
{
    arbiter_rig a;
    arb_make(&a, "longest", NULL, 1000);
    insee_request req[7];
    arb_keyed(req, (const uint32_t[]){0, 2, 3, 5, 8, 9, 13}, (const uint64_t[]){4, 4, 4, 4, 4, 4, 4},
              7, occupancy_only);
    arb_check_take_turns(&a, req, 7);
    arb_free(&a);
}

Test(longest, the_scan_starts_after_the_last_grant)
{
    arbiter_rig a;
    arb_make(&a, "longest", NULL, 1000);
    void *state = arb_turn_state(&a);
    static const uint32_t in[] = {1, 4, 6, 9};
    /* 6 is longest: granted although 1 and 4 come before it. */
    cr_assert_eq(pick(&a, state, in, (const uint64_t[]){2, 2, 5, 1}, 4), 6);
    /* 4 and 9 tie: the scan from 7 meets 9 first, then from 10 wraps to 4. */
    cr_assert_eq(pick(&a, state, in, (const uint64_t[]){2, 3, 1, 3}, 4), 9);
    cr_assert_eq(pick(&a, state, in, (const uint64_t[]){2, 3, 1, 3}, 4), 4);
    cr_assert_eq(pick(&a, state, in, (const uint64_t[]){2, 3, 1, 3}, 4), 9);
    /* a grant the tie did not decide still moves the turn: after 1, 4 is next */
    cr_assert_eq(pick(&a, state, in, (const uint64_t[]){7, 3, 1, 3}, 4), 1);
    cr_assert_eq(pick(&a, state, in, (const uint64_t[]){2, 3, 1, 3}, 4), 4);
    free(state);
    arb_free(&a);
}

Test(longest, each_output_has_its_own_turn)
{
    arbiter_rig a;
    arb_make(&a, "longest", NULL, 1000);
    insee_request req[3];
    arb_keyed(req, (const uint32_t[]){1, 2, 3}, (const uint64_t[]){2, 2, 2}, 3, occupancy_only);
    arb_check_own_turns(&a, req);
    arb_free(&a);
}

/* Few queue lengths: many ties. */
static void draw_occupancy(insee_request *r, insee_rng *rng)
{
    occupancy_only(r, 1 + insee_rng_below(rng, 3));
}

Test(longest, always_in_range)
{
    arbiter_rig a;
    arb_make(&a, "longest", NULL, 1000);
    arb_check_in_range(&a, 2, draw_occupancy);
    arb_free(&a);
}
