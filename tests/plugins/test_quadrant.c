/* test_quadrant.c — quadrant placement: the grid cut into squares (cubes),
 * each in consecutive order (Fig. 12d of INSEE: four applications of four on
 * a 4x4 grid take one 2x2 quadrant each), and a clear refusal without a
 * grid. Nodes are numbered x + kx*y (+ kx*ky*z), as test_column.c checks. */
#include "test_placement_rig.h"

#include <criterion/criterion.h>
#include <string.h>

static void open_on_grid(placer *p, const int64_t *dims, size_t n, int64_t side)
{
    insee_value params[1] = {value_int(side)};
    placer_open_grid(p, "quadrant", params, "torus", dims, n);
}

Test(quadrant, four_applications_take_one_quadrant_each_on_4x4)
{
    placer p;
    open_on_grid(&p, (const int64_t[]){4, 4}, 2, 0);
    assert_applications_in_turn(&p, 4, 4, 16,
                                (const uint32_t[]){0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 12, 13,
                                                   10, 11, 14, 15});
    placer_close_grid(&p);
}

Test(quadrant, side_2_on_4x4_at_once)
{
    placer p;
    open_on_grid(&p, (const int64_t[]){4, 4}, 2, 2);
    bool avail[16];
    uint32_t map[16];
    all_available(avail, 16);
    insee_error err;
    cr_assert(placer_run(&p, 16, avail, 16, map, 1, &err), "%s", err.message);
    assert_mapping(map, (const uint32_t[]){0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 12, 13, 10, 11, 14, 15},
                   16);
    placer_close_grid(&p);
}

Test(quadrant, whole_grid_application_is_consecutive)
{
    placer p;
    open_on_grid(&p, (const int64_t[]){4, 4}, 2, 0); /* 16 tasks: one 4x4 square */
    bool avail[16];
    uint32_t map[16];
    all_available(avail, 16);
    insee_error err;
    cr_assert(placer_run(&p, 16, avail, 16, map, 1, &err), "%s", err.message);
    for (uint32_t t = 0; t < 16; t++)
        cr_assert_eq(map[t], t);
    placer_close_grid(&p);
}

Test(quadrant, side_3_clips_at_the_edge_of_4x4)
{
    placer p;
    open_on_grid(&p, (const int64_t[]){4, 4}, 2, 3);
    bool avail[16];
    uint32_t map[16];
    all_available(avail, 16);
    insee_error err;
    cr_assert(placer_run(&p, 16, avail, 16, map, 1, &err), "%s", err.message);
    /* squares: 3x3 at (0,0), 1x3 at (3,0), 3x1 at (0,3), 1x1 at (3,3) */
    assert_mapping(map, (const uint32_t[]){0, 1, 2, 4, 5, 6, 8, 9, 10, 3, 7, 11, 12, 13, 14, 15},
                   16);
    placer_close_grid(&p);
}

Test(quadrant, eight_tasks_take_a_2x2x2_cube_of_4x4x4)
{
    placer p;
    open_on_grid(&p, (const int64_t[]){4, 4, 4}, 3, 0);
    bool avail[64];
    uint32_t map[8];
    all_available(avail, 64);
    insee_error err;
    cr_assert(placer_run(&p, 8, avail, 64, map, 1, &err), "%s", err.message);
    assert_mapping(map, (const uint32_t[]){0, 1, 4, 5, 16, 17, 20, 21}, 8);
    for (uint32_t t = 0; t < 8; t++)
        avail[map[t]] = false;
    cr_assert(placer_run(&p, 8, avail, 64, map, 1, &err), "%s", err.message);
    assert_mapping(map, (const uint32_t[]){2, 3, 6, 7, 18, 19, 22, 23}, 8);
    placer_close_grid(&p);
}

Test(quadrant, refuses_a_topology_without_coordinates)
{
    placer p;
    placer_init(&p); /* no topology: the shape has no dimensions */
    p.k.shape.nodes = 16;
    insee_value params[1] = {value_int(0)};
    insee_error err;
    cr_assert_not(placer_create(&p, "quadrant", params, &err));
    cr_assert_eq(err.code, INSEE_ERR_UNSUPPORTED);
    cr_assert_not_null(strstr(err.message, "at least 2 dimensions"), "%s", err.message);
}

Test(quadrant, bijection_on_several_sizes)
{
    const int64_t grids[][3] = {{4, 4, 0}, {3, 5, 0}, {6, 4, 0}, {4, 4, 2}, {3, 2, 5}};
    for (size_t g = 0; g < sizeof grids / sizeof *grids; g++) {
        for (int64_t side = 0; side < 4; side++) {
            placer p;
            open_on_grid(&p, grids[g], grids[g][2] ? 3 : 2, side);
            assert_bijection_sizes(&p, p.k.shape.nodes);
            placer_close_grid(&p);
        }
    }
}
