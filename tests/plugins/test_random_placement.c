/* test_random_placement.c — random placement: a bijection drawn from the
 * rng place() receives (same seed, same mapping; another seed, another),
 * spread evenly, and refused without an rng. */
#include "test_placement_rig.h"

#include <criterion/criterion.h>
#include <string.h>

Test(random_placement, same_seed_same_mapping_other_seed_other)
{
    placer p;
    placer_open(&p, "random", NULL);
    bool avail[64];
    uint32_t a[64], b[64], c[64];
    all_available(avail, 64);
    insee_error err;
    cr_assert(placer_run(&p, 64, avail, 64, a, 42, &err), "%s", err.message);
    cr_assert(placer_run(&p, 64, avail, 64, b, 42, &err), "%s", err.message);
    cr_assert(placer_run(&p, 64, avail, 64, c, 43, &err), "%s", err.message);
    cr_assert_eq(memcmp(a, b, sizeof a), 0);
    cr_assert_neq(memcmp(a, c, sizeof a), 0); /* equal with probability 1/64! */
    assert_bijection(a, 64, avail, 64);
    assert_bijection(c, 64, avail, 64);
    placer_close(&p);
}

Test(random_placement, task_0_is_spread_evenly)
{
    /* 8000 seeds on 8 nodes: each node should get task 0 about 1000 times
       (standard deviation 29.6); 150 off is more than 5 of them. */
    placer p;
    placer_open(&p, "random", NULL);
    bool avail[8];
    uint32_t map[8], hits[8] = {0};
    all_available(avail, 8);
    insee_error err;
    for (uint64_t seed = 0; seed < 8000; seed++) {
        cr_assert(placer_run(&p, 8, avail, 8, map, seed, &err), "%s", err.message);
        hits[map[0]]++;
    }
    for (uint32_t n = 0; n < 8; n++)
        cr_assert(hits[n] > 850 && hits[n] < 1150, "node %u got task 0 %u times of 8000", n,
                  hits[n]);
    placer_close(&p);
}

Test(random_placement, refuses_no_rng)
{
    placer p;
    placer_open(&p, "random", NULL);
    bool avail[4];
    uint32_t map[4];
    all_available(avail, 4);
    insee_error err = {0};
    cr_assert_not(p.vt->place(p.self, 4, avail, 4, map, NULL, &err));
    cr_assert_not_null(strstr(err.message, "no rng"), "%s", err.message);
    placer_close(&p);
}

Test(random_placement, bijection_on_several_sizes)
{
    const uint32_t sizes[] = {1, 2, 7, 16, 33};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        placer p;
        placer_open(&p, "random", NULL);
        assert_bijection_sizes(&p, sizes[i]);
        placer_close(&p);
    }
}
