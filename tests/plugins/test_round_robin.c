/* test_round_robin.c — the round-robin arbiter: grants rotate after the last
 * granted input, wrapping round; n constant requesters are each granted
 * once every n calls; the state of each output port is its own. */
#include "arbiter_rig.h"

#include <criterion/criterion.h>
#include <stdlib.h>

/* The granted input among requests from `inputs` (n <= 8). */
static uint32_t pick(arbiter_rig *a, void *state, const uint32_t *inputs, uint32_t n)
{
    insee_request req[8];
    arb_requests(req, inputs, n);
    return arb_grant(a, state, req, n);
}

Test(round_robin, constant_requesters_rotate_fairly)
{
    arbiter_rig a;
    arb_make(&a, "round-robin", NULL, 0);
    static const uint32_t inputs[] = {0, 2, 3, 5, 8, 9, 13};
    insee_request req[7];
    arb_requests(req, inputs, 7);
    arb_check_take_turns(&a, req, 7);
    arb_free(&a);
}

Test(round_robin, first_after_last_grant_then_wraps)
{
    arbiter_rig a;
    arb_make(&a, "round-robin", NULL, 0);
    void *state = arb_turn_state(&a);
    cr_assert_eq(pick(&a, state, (const uint32_t[]){4, 7}, 2), 4); /* nothing granted yet */
    cr_assert_eq(pick(&a, state, (const uint32_t[]){1, 2, 5}, 3), 5);
    cr_assert_eq(pick(&a, state, (const uint32_t[]){1, 2, 5}, 3), 1); /* wraps */
    cr_assert_eq(pick(&a, state, (const uint32_t[]){1, 6}, 2), 6);
    cr_assert_eq(pick(&a, state, (const uint32_t[]){6}, 1), 6); /* alone: granted again */
    cr_assert_eq(pick(&a, state, (const uint32_t[]){0, UINT32_MAX}, 2), UINT32_MAX);
    cr_assert_eq(pick(&a, state, (const uint32_t[]){0, UINT32_MAX}, 2), 0);
    free(state);
    arb_free(&a);
}

Test(round_robin, each_output_has_its_own_state)
{
    arbiter_rig a;
    arb_make(&a, "round-robin", NULL, 0);
    insee_request req[3];
    arb_requests(req, (const uint32_t[]){1, 2, 3}, 3);
    arb_check_own_turns(&a, req);
    arb_free(&a);
}
