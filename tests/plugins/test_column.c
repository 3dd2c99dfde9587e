/* test_column.c — column placement on meshes and tori: nodes column by
 * column (Fig. 12c of INSEE: four applications of four on a 4x4 grid take
 * one column each), and a clear refusal without a grid. */
#include "test_placement_rig.h"

#include <criterion/criterion.h>
#include <string.h>

static void open_on_grid(placer *p, const char *topo, const int64_t *dims, size_t n)
{
    placer_open_grid(p, "column", NULL, topo, dims, n);
}

Test(column, grid_numbers_x_fastest)
{
    /* The expectations below read node x + 4y as (x, y). */
    placer p;
    open_on_grid(&p, "torus", (const int64_t[]){4, 4}, 2);
    int32_t c[2];
    p.host.coords(p.host.kernel, 1, c, 2);
    cr_assert(c[0] == 1 && c[1] == 0);
    p.host.coords(p.host.kernel, 4, c, 2);
    cr_assert(c[0] == 0 && c[1] == 1);
    placer_close_grid(&p);
}

Test(column, four_applications_take_one_column_each_on_4x4)
{
    placer p;
    open_on_grid(&p, "torus", (const int64_t[]){4, 4}, 2);
    assert_applications_in_turn(&p, 4, 4, 16,
                                (const uint32_t[]){0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14,
                                                   3, 7, 11, 15});
    placer_close_grid(&p);
}

Test(column, whole_4x4_mesh_column_major)
{
    placer p;
    open_on_grid(&p, "mesh", (const int64_t[]){4, 4}, 2);
    bool avail[16];
    uint32_t map[16];
    all_available(avail, 16);
    insee_error err;
    cr_assert(placer_run(&p, 16, avail, 16, map, 1, &err), "%s", err.message);
    assert_mapping(map, (const uint32_t[]){0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15},
                   16);
    placer_close_grid(&p);
}

Test(column, eight_tasks_on_4x2x2_fill_two_columns_of_the_first_plane)
{
    /* 4 wide, 2 tall, 2 deep: node x + 4y + 8z. */
    placer p;
    open_on_grid(&p, "torus", (const int64_t[]){4, 2, 2}, 3);
    bool avail[16];
    uint32_t map[8];
    all_available(avail, 16);
    insee_error err;
    cr_assert(placer_run(&p, 8, avail, 16, map, 1, &err), "%s", err.message);
    assert_mapping(map, (const uint32_t[]){0, 4, 1, 5, 2, 6, 3, 7}, 8);
    placer_close_grid(&p);
}

Test(column, refuses_a_topology_without_coordinates)
{
    placer p;
    placer_init(&p); /* no topology: the shape has no dimensions */
    p.k.shape.nodes = 16;
    insee_error err;
    cr_assert_not(placer_create(&p, "column", NULL, &err));
    cr_assert_eq(err.code, INSEE_ERR_UNSUPPORTED);
    cr_assert_not_null(strstr(err.message, "at least 2 dimensions"), "%s", err.message);
}

Test(column, refuses_a_ring)
{
    placer p;
    placer_init(&p);
    mock_topology(&p.k, "torus", (const int64_t[]){8}, 1, true);
    insee_error err;
    cr_assert_not(placer_create(&p, "column", NULL, &err));
    cr_assert_not_null(strstr(err.message, "1 coordinates"), "%s", err.message);
    mock_topology_free(&p.k);
}

Test(column, bijection_on_several_sizes)
{
    const int64_t grids[][3] = {{4, 4, 0}, {3, 5, 0}, {6, 4, 0}, {4, 4, 2}, {3, 2, 5}};
    for (size_t g = 0; g < sizeof grids / sizeof *grids; g++) {
        size_t n = grids[g][2] ? 3 : 2;
        placer p;
        open_on_grid(&p, g % 2 ? "mesh" : "torus", grids[g], n);
        assert_bijection_sizes(&p, p.k.shape.nodes);
        placer_close_grid(&p);
    }
}
