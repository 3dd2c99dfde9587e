/* test_round_robin.c — the round-robin arbiter: grants rotate after the last
 * granted input, wrapping round; n constant requesters are each granted
 * once every n calls; the state of each output port is its own. */
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
    const insee_plugin_desc *d = load_plugin("arbiter", "round-robin");
    cr_assert_eq(d->kind, INSEE_KIND_ARBITER);
    a->vt = d->vtable;
    a->host = mock_host(&a->k);
    insee_error err = {0};
    a->self = a->vt->create(&a->host, NULL, &err);
    cr_assert_not_null(a->self, "%s", err.message);
}

static uint32_t pick(arb *a, void *state, const uint32_t *inputs, uint32_t n)
{
    insee_request req[64];
    for (uint32_t i = 0; i < n; i++)
        req[i] = (insee_request){.input = inputs[i], .transit = true};
    uint32_t g = a->vt->pick(a->self, state, req, n, 0, NULL);
    cr_assert_lt(g, n);
    return inputs[g];
}

/* A zeroed state of state_size() bytes, as the kernel gives it. */
static void *fresh_state(arb *a)
{
    size_t size = a->vt->state_size(a->self);
    cr_assert_geq(size, sizeof(uint32_t));
    return calloc(1, size);
}

Test(round_robin, constant_requesters_rotate_fairly)
{
    arb a;
    arb_make(&a);
    static const uint32_t inputs[] = {0, 2, 3, 5, 8, 9, 13};
    for (uint32_t n = 1; n <= 7; n++) {
        void *state = fresh_state(&a);
        uint32_t granted[16] = {0};
        for (uint32_t call = 0; call < 10 * n; call++) {
            uint32_t g = pick(&a, state, inputs, n);
            /* strictly in turn, starting from the lowest input */
            cr_assert_eq(g, inputs[call % n], "n %u call %u", n, call);
            granted[g]++;
        }
        for (uint32_t i = 0; i < n; i++)
            cr_assert_eq(granted[inputs[i]], 10u);
        free(state);
    }
    a.vt->destroy(a.self);
}

Test(round_robin, first_after_last_grant_then_wraps)
{
    arb a;
    arb_make(&a);
    void *state = fresh_state(&a);
    cr_assert_eq(pick(&a, state, (const uint32_t[]){4, 7}, 2), 4); /* nothing granted yet */
    cr_assert_eq(pick(&a, state, (const uint32_t[]){1, 2, 5}, 3), 5);
    cr_assert_eq(pick(&a, state, (const uint32_t[]){1, 2, 5}, 3), 1); /* wraps */
    cr_assert_eq(pick(&a, state, (const uint32_t[]){1, 6}, 2), 6);
    cr_assert_eq(pick(&a, state, (const uint32_t[]){6}, 1), 6); /* alone: granted again */
    cr_assert_eq(pick(&a, state, (const uint32_t[]){0, UINT32_MAX}, 2), UINT32_MAX);
    cr_assert_eq(pick(&a, state, (const uint32_t[]){0, UINT32_MAX}, 2), 0);
    free(state);
    a.vt->destroy(a.self);
}

Test(round_robin, each_output_has_its_own_state)
{
    arb a;
    arb_make(&a);
    void *s1 = fresh_state(&a), *s2 = fresh_state(&a);
    static const uint32_t in[] = {1, 2, 3};
    cr_assert_eq(pick(&a, s1, in, 3), 1);
    cr_assert_eq(pick(&a, s1, in, 3), 2);
    cr_assert_eq(pick(&a, s2, in, 3), 1);
    cr_assert_eq(pick(&a, s1, in, 3), 3);
    cr_assert_eq(pick(&a, s2, in, 3), 2);
    free(s1);
    free(s2);
    a.vt->destroy(a.self);
}
