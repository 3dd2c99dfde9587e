/* arbiter_rig.h — what the arbiter plugin tests share: an instance on the
 * mock host, the per-output state the kernel would give it, pick() with its
 * answer checked, and the checks every arbiter whose ties rotate round robin
 * must pass (fifo, longest, age, and round-robin itself, where everything
 * ties). The checks are Criterion assertions: call them inside a Test. */
#ifndef INSEE_TEST_PLUGINS_ARBITER_RIG_H
#define INSEE_TEST_PLUGINS_ARBITER_RIG_H

#include "harness.h"

typedef struct arbiter_rig {
    const insee_plugin_desc *desc;
    const insee_arbiter_vtable *vt;
    void *self;
    uint64_t now; /* the cycle every pick() is told */
    insee_kernel k;
    insee_host host;
} arbiter_rig;

/* Load arbiter `name` and create it on a mock host with `params` (in its
   table's order; NULL for none), asserting success; its picks are told
   cycle `now`. */
void arb_make(arbiter_rig *a, const char *name, const insee_value *params, uint64_t now);
void arb_free(arbiter_rig *a);

/* The per-output state the kernel would give: state_size() zeroed bytes,
   or NULL when the arbiter keeps none. Free it with free(). */
void *arb_state(arbiter_rig *a);
/* The same, asserting that it has room for the uint32_t turn of an arbiter
   whose grants rotate. */
void *arb_turn_state(arbiter_rig *a);

/* pick() among req[0..n) with stream `rng` (NULL for a deterministic
   arbiter), asserting the answer is in [0, n): the granted position. */
uint32_t arb_pick(arbiter_rig *a, void *state, const insee_request *req, uint32_t n,
                  insee_rng *rng);
/* The same, deterministic: the granted input. */
uint32_t arb_grant(arbiter_rig *a, void *state, const insee_request *req, uint32_t n);

/* req[i] = {.input = inputs[i], .transit = true}: the fields an arbiter's
   own rule reads are the test's to set. */
void arb_requests(insee_request *req, const uint32_t *inputs, uint32_t n);

/* Sets the one field a test's arbiter ranks by to `key`, and the others so
   that they alone could not explain a winner. */
typedef void arb_key(insee_request *r, uint64_t key);

/* arb_requests(), then keys[i] set into req[i] by `key`. */
void arb_keyed(insee_request *req, const uint32_t *inputs, const uint64_t *keys, uint32_t n,
               arb_key *key);
/* The granted input among n <= 16 such requests. */
uint32_t arb_grant_keyed(arbiter_rig *a, void *state, const uint32_t *inputs,
                         const uint64_t *keys, uint32_t n, arb_key *key);

/* Requests that tie under the arbiter's own rule, on increasing inputs: for
   each prefix of n = 1..max of them, on a fresh state, 10 n picks grant the
   inputs strictly in turn from the lowest, each 10 times. */
void arb_check_take_turns(arbiter_rig *a, const insee_request *req, uint32_t max);

/* Three requests that tie, on inputs 1, 2, 3: two outputs' turns advance
   independently. */
void arb_check_own_turns(arbiter_rig *a, const insee_request *req);

/* Fills req[0..n) so that request w is the one the rule puts first. */
typedef void arb_best_at(insee_request *req, uint32_t n, uint32_t w, const void *ctx);

/* For n = 1..8 and every w < n, request w of best_at(req, n, w, ctx) is
   granted, whatever turn the previous picks left (one state throughout). */
void arb_check_best_wins(arbiter_rig *a, arb_best_at *best_at, const void *ctx);
/* The same with keyed requests on inputs 0, 2, 3, 5, 8, 9, 13, 14: the keys
   others[0..n), but `best` at w. */
void arb_check_key_wins(arbiter_rig *a, const uint64_t *others, uint64_t best, arb_key *key);

/* Sets the fields other than input and transit of one request from `rng`,
   with few values so that ties are many. */
typedef void arb_draw(insee_request *r, insee_rng *rng);

/* 5000 picks, stream (3, stream), among 1 to 16 transit requests on
   increasing inputs, the other fields by `draw`: every answer in [0, n), a
   lone request granted. */
void arb_check_in_range(arbiter_rig *a, uint64_t stream, arb_draw *draw);

#endif
