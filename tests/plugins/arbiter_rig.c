/* arbiter_rig.c — mock host, state and checks for the arbiter plugin
 * tests. */
#include "arbiter_rig.h"

#include <criterion/criterion.h>
#include <stdlib.h>

void arb_make(arbiter_rig *a, const char *name, const insee_value *params, uint64_t now)
{
    a->desc = load_plugin("arbiter", name);
    cr_assert_eq(a->desc->kind, INSEE_KIND_ARBITER);
    a->vt = a->desc->vtable;
    a->now = now;
    a->host = mock_host(&a->k);
    insee_error err = {0};
    a->self = a->vt->create(&a->host, params, &err);
    cr_assert_not_null(a->self, "%s", err.message);
}

void arb_free(arbiter_rig *a)
{
    a->vt->destroy(a->self);
}

void *arb_state(arbiter_rig *a)
{
    size_t size = a->vt->state_size ? a->vt->state_size(a->self) : 0;
    return size ? calloc(1, size) : NULL;
}

void *arb_turn_state(arbiter_rig *a)
{
    cr_assert_not_null(a->vt->state_size, "ties rotate: %s needs per-output state",
                       a->desc->name);
    size_t size = a->vt->state_size(a->self);
    cr_assert_geq(size, sizeof(uint32_t));
    return calloc(1, size);
}

uint32_t arb_pick(arbiter_rig *a, void *state, const insee_request *req, uint32_t n,
                  insee_rng *rng)
{
    uint32_t g = a->vt->pick(a->self, state, req, n, a->now, rng);
    cr_assert_lt(g, n);
    return g;
}

uint32_t arb_grant(arbiter_rig *a, void *state, const insee_request *req, uint32_t n)
{
    return req[arb_pick(a, state, req, n, NULL)].input;
}

void arb_requests(insee_request *req, const uint32_t *inputs, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        req[i] = (insee_request){.input = inputs[i], .transit = true};
}

void arb_keyed(insee_request *req, const uint32_t *inputs, const uint64_t *keys, uint32_t n,
               arb_key *key)
{
    arb_requests(req, inputs, n);
    for (uint32_t i = 0; i < n; i++)
        key(&req[i], keys[i]);
}

uint32_t arb_grant_keyed(arbiter_rig *a, void *state, const uint32_t *inputs,
                         const uint64_t *keys, uint32_t n, arb_key *key)
{
    cr_assert_leq(n, 16u);
    insee_request req[16];
    arb_keyed(req, inputs, keys, n, key);
    return arb_grant(a, state, req, n);
}

void arb_check_take_turns(arbiter_rig *a, const insee_request *req, uint32_t max)
{
    for (uint32_t n = 1; n <= max; n++) {
        void *state = arb_turn_state(a);
        uint32_t granted[16] = {0}; /* by position */
        cr_assert_leq(n, 16u);
        for (uint32_t call = 0; call < 10 * n; call++) {
            uint32_t g = arb_pick(a, state, req, n, NULL);
            /* strictly in turn, starting from the lowest input */
            cr_assert_eq(req[g].input, req[call % n].input, "n %u call %u", n, call);
            granted[g]++;
        }
        for (uint32_t i = 0; i < n; i++)
            cr_assert_eq(granted[i], 10u);
        free(state);
    }
}

void arb_check_own_turns(arbiter_rig *a, const insee_request *req)
{
    void *s1 = arb_turn_state(a), *s2 = arb_turn_state(a);
    cr_assert_eq(arb_grant(a, s1, req, 3), 1);
    cr_assert_eq(arb_grant(a, s1, req, 3), 2);
    cr_assert_eq(arb_grant(a, s2, req, 3), 1);
    cr_assert_eq(arb_grant(a, s1, req, 3), 3);
    cr_assert_eq(arb_grant(a, s2, req, 3), 2);
    free(s1);
    free(s2);
}

void arb_check_best_wins(arbiter_rig *a, arb_best_at *best_at, const void *ctx)
{
    void *state = arb_turn_state(a);
    for (uint32_t n = 1; n <= 8; n++)
        for (uint32_t w = 0; w < n; w++) {
            insee_request req[8];
            best_at(req, n, w, ctx);
            /* the state is whatever the previous picks left: it must not matter */
            cr_assert_eq(arb_grant(a, state, req, n), req[w].input, "n %u w %u", n, w);
        }
    free(state);
}

/* arb_check_key_wins()'s requests, as arb_check_best_wins() asks for them. */
typedef struct key_wins {
    const uint64_t *others;
    uint64_t best;
    arb_key *key;
} key_wins;

static void key_best_at(insee_request *req, uint32_t n, uint32_t w, const void *ctx)
{
    const key_wins *kw = ctx;
    static const uint32_t inputs[] = {0, 2, 3, 5, 8, 9, 13, 14};
    uint64_t keys[8];
    for (uint32_t i = 0; i < n; i++)
        keys[i] = i == w ? kw->best : kw->others[i];
    arb_keyed(req, inputs, keys, n, kw->key);
}

void arb_check_key_wins(arbiter_rig *a, const uint64_t *others, uint64_t best, arb_key *key)
{
    arb_check_best_wins(a, key_best_at, &(const key_wins){others, best, key});
}

void arb_check_in_range(arbiter_rig *a, uint64_t stream, arb_draw *draw)
{
    void *state = arb_turn_state(a);
    insee_rng rng;
    insee_rng_init(&rng, 3, stream);
    for (int k = 0; k < 5000; k++) {
        uint32_t n = 1 + insee_rng_below(&rng, 16);
        insee_request req[16];
        for (uint32_t i = 0; i < n; i++) {
            req[i] = (insee_request){.input = i * 3 + insee_rng_below(&rng, 3), /* increasing */
                                     .transit = true};
            draw(&req[i], &rng);
        }
        uint32_t g = arb_grant(a, state, req, n);
        if (n == 1)
            cr_assert_eq(g, req[0].input);
    }
    free(state);
}
