/* test_shift.c — shift placement: task t on node (t + s) mod nodes, the
 * next available node in that order when some are taken. */
#include "test_placement_rig.h"

#include <criterion/criterion.h>

static void open_shift(placer *p, int64_t s)
{
    insee_value params[1] = {value_int(s)};
    placer_open(p, "shift", params);
}

Test(shift, by_3_on_8_nodes_wraps)
{
    placer p;
    open_shift(&p, 3);
    bool avail[8];
    uint32_t map[8];
    all_available(avail, 8);
    insee_error err;
    cr_assert(placer_run(&p, 8, avail, 8, map, 1, &err), "%s", err.message);
    assert_mapping(map, (const uint32_t[]){3, 4, 5, 6, 7, 0, 1, 2}, 8);
    cr_assert(placer_run(&p, 3, avail, 8, map, 1, &err), "%s", err.message);
    assert_mapping(map, (const uint32_t[]){3, 4, 5}, 3);
    placer_close(&p);
}

Test(shift, shift_beyond_the_network_wraps_too)
{
    placer p;
    open_shift(&p, 11); /* 11 mod 8 = 3 */
    bool avail[8];
    uint32_t map[8];
    all_available(avail, 8);
    insee_error err;
    cr_assert(placer_run(&p, 8, avail, 8, map, 1, &err), "%s", err.message);
    assert_mapping(map, (const uint32_t[]){3, 4, 5, 6, 7, 0, 1, 2}, 8);
    placer_close(&p);
}

Test(shift, zero_is_consecutive)
{
    placer p;
    open_shift(&p, 0);
    bool avail[6];
    uint32_t map[6];
    all_available(avail, 6);
    insee_error err;
    cr_assert(placer_run(&p, 6, avail, 6, map, 1, &err), "%s", err.message);
    assert_mapping(map, (const uint32_t[]){0, 1, 2, 3, 4, 5}, 6);
    placer_close(&p);
}

Test(shift, skips_taken_nodes_in_shifted_order)
{
    placer p;
    open_shift(&p, 2);
    bool avail[8] = {true, true, true, false, true, true, false, true};
    uint32_t map[6];
    insee_error err;
    cr_assert(placer_run(&p, 6, avail, 8, map, 1, &err), "%s", err.message);
    assert_mapping(map, (const uint32_t[]){2, 4, 5, 7, 0, 1}, 6);
    placer_close(&p);
}

Test(shift, bijection_on_several_sizes)
{
    const uint32_t sizes[] = {1, 2, 7, 16, 33};
    for (int s = 0; s < 3; s++) {
        for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
            placer p;
            open_shift(&p, (int64_t[]){0, 5, 100}[s]);
            assert_bijection_sizes(&p, sizes[i]);
            placer_close(&p);
        }
    }
}
