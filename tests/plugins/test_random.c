/* test_random.c — the random arbiter: every request is granted with
 * frequency 1/n within a binomial bound whatever the input numbers, the
 * draws come from the stream passed to pick() (same stream, same picks;
 * another stream, other picks), and the answer is always in [0, n). */
#include "arbiter_rig.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

/* n requests from sparse inputs, so a plugin that confused positions with
   input numbers would fail the range and frequency checks. */
static void requests(insee_request *req, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        req[i] = (insee_request){.input = 3 + 7 * i, .occupancy = 1 + i % 4, .since = 50 - i,
                                 .born = 40 - i, .transit = i % 2 == 0, .injected = 45 - i};
}

Test(random, alone_is_granted_and_always_in_range)
{
    arbiter_rig a;
    arb_make(&a, "random", NULL, 100);
    void *state = arb_state(&a);
    insee_rng rng;
    insee_rng_init(&rng, 1, 1);
    insee_request req[16];
    requests(req, 16);
    for (int k = 0; k < 100; k++)
        cr_assert_eq(arb_pick(&a, state, req, 1, &rng), 0u);
    for (uint32_t n = 2; n <= 16; n++)
        for (int k = 0; k < 1000; k++)
            arb_pick(&a, state, req, n, &rng);
    free(state);
    arb_free(&a);
}

Test(random, each_request_granted_one_time_in_n)
{
    arbiter_rig a;
    arb_make(&a, "random", NULL, 100);
    void *state = arb_state(&a);
    insee_rng rng;
    insee_rng_init(&rng, 7, 3);
    enum { DRAWS = 60000 };
    static const uint32_t sizes[] = {2, 3, 5, 16};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        uint32_t n = sizes[s];
        insee_request req[16];
        requests(req, n);
        uint32_t wins[16] = {0};
        for (int k = 0; k < DRAWS; k++)
            wins[arb_pick(&a, state, req, n, &rng)]++;
        /* Binomial(DRAWS, 1/n): a fair arbiter falls outside 5 standard
           deviations with probability below 1e-6 per count. */
        double p = 1.0 / n, mean = DRAWS * p, sd = sqrt(DRAWS * p * (1 - p));
        for (uint32_t i = 0; i < n; i++)
            cr_assert_lt(fabs(wins[i] - mean), 5 * sd,
                         "n %u: request %u won %u of %d (expected %.0f)", n, i, wins[i], DRAWS,
                         mean);
    }
    free(state);
    arb_free(&a);
}

Test(random, same_stream_same_picks_other_stream_other_picks)
{
    arbiter_rig a;
    arb_make(&a, "random", NULL, 100);
    void *s1 = arb_state(&a), *s2 = arb_state(&a), *s3 = arb_state(&a);
    insee_rng r1, r2, r3;
    insee_rng_init(&r1, 11, 5);
    insee_rng_init(&r2, 11, 5);
    insee_rng_init(&r3, 11, 6);
    insee_request req[8];
    requests(req, 8);
    uint32_t differ = 0;
    for (int k = 0; k < 1000; k++) {
        uint32_t g1 = arb_pick(&a, s1, req, 8, &r1);
        cr_assert_eq(arb_pick(&a, s2, req, 8, &r2), g1, "pick %d", k);
        differ += arb_pick(&a, s3, req, 8, &r3) != g1;
    }
    /* Independent streams agree about 1 time in 8. */
    cr_assert_gt(differ, 700u);
    free(s1);
    free(s2);
    free(s3);
    arb_free(&a);
}
