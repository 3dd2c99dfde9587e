/* test_fifo.c — the fifo arbiter: the head that first requested earliest
 * wins whatever its position and the last grant; heads that requested in the
 * same cycle take turns round robin from the last grant of that output; each
 * output keeps its own turn; the answer is always in [0, n). */
#include "arbiter_rig.h"

#include <criterion/criterion.h>
#include <stdlib.h>

/* A request whose head first asked at `since`. The other fields disagree
   with `since` on purpose (larger queues and older packets where `since` is
   later), so only `since` can explain the winner. */
static void since_only(insee_request *r, uint64_t since)
{
    r->occupancy = (uint32_t)since;
    r->since = since;
    r->born = r->injected = 1000 - since;
}

static uint32_t pick(arbiter_rig *a, void *state, const uint32_t *inputs, const uint64_t *since,
                     uint32_t n)
{
    return arb_grant_keyed(a, state, inputs, since, n, since_only);
}

Test(fifo, earliest_request_wins_wherever_it_is)
{
    arbiter_rig a;
    arb_make(&a, "fifo", NULL, 1000);
    uint64_t since[8];
    for (uint32_t i = 0; i < 8; i++)
        since[i] = 100 + (i * 5 + 3) % 11; /* >= 100, mixed order */
    arb_check_key_wins(&a, since, 99, since_only);
    arb_free(&a);
}

Test(fifo, equal_requests_take_turns)
{
    arbiter_rig a;
    arb_make(&a, "fifo", NULL, 1000);
    insee_request req[7];
    arb_keyed(req, (const uint32_t[]){0, 2, 3, 5, 8, 9, 13},
              (const uint64_t[]){40, 40, 40, 40, 40, 40, 40}, 7, since_only);
    arb_check_take_turns(&a, req, 7);
    arb_free(&a);
}

Test(fifo, a_tie_goes_to_the_first_after_the_last_grant)
{
    arbiter_rig a;
    arb_make(&a, "fifo", NULL, 1000);
    void *state = arb_turn_state(&a);
    static const uint32_t in[] = {1, 4, 6, 9};
    /* 6 requested first: granted although 1 and 4 come before it. */
    cr_assert_eq(pick(&a, state, in, (const uint64_t[]){20, 20, 10, 30}, 4), 6);
    /* 1 and 9 tie: 9 comes next after 6, then the turn wraps to 1. */
    cr_assert_eq(pick(&a, state, in, (const uint64_t[]){20, 25, 25, 20}, 4), 9);
    cr_assert_eq(pick(&a, state, in, (const uint64_t[]){20, 25, 25, 20}, 4), 1);
    cr_assert_eq(pick(&a, state, in, (const uint64_t[]){20, 25, 25, 20}, 4), 9);
    free(state);
    arb_free(&a);
}

Test(fifo, each_output_has_its_own_turn)
{
    arbiter_rig a;
    arb_make(&a, "fifo", NULL, 1000);
    insee_request req[3];
    arb_keyed(req, (const uint32_t[]){1, 2, 3}, (const uint64_t[]){5, 5, 5}, 3, since_only);
    arb_check_own_turns(&a, req);
    arb_free(&a);
}

/* Few values of `since`: many ties. */
static void draw_since(insee_request *r, insee_rng *rng)
{
    since_only(r, insee_rng_below(rng, 4));
}

Test(fifo, always_in_range)
{
    arbiter_rig a;
    arb_make(&a, "fifo", NULL, 1000);
    arb_check_in_range(&a, 1, draw_since);
    arb_free(&a);
}
