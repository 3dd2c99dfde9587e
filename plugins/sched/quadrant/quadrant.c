/* quadrant.c — quadrant placement (INSEE §3.4, Fig. 12d): "we can partition
 * the network in perfect squares (or cubes). Within each square an
 * application is placed following consecutive order." The grid is cut into
 * squares (cubes in 3D) of `side` nodes per dimension, taken in consecutive
 * order; within each, nodes in consecutive order. Squares at the far edges
 * of a grid that `side` does not divide are smaller.
 */
#include "grid.h"

enum { P_SIDE };

static const insee_param_def quadrant_params[] = {
    [P_SIDE] = {"side", INSEE_PARAM_INT, "0", 0, 65536, NULL, "nodes",
                "nodes per dimension of each square (cube); 0: the smallest one that holds "
                "the application's tasks"},
    {0},
};

typedef struct quadrant {
    const insee_host *host;
    uint32_t dims;
    uint32_t side; /* 0: chosen per place() from the task count */
} quadrant;

/* What the key of each node needs during one place(). */
typedef struct quadrant_pass {
    const quadrant *self;
    int32_t side;
} quadrant_pass;

static void *quadrant_create(const insee_host *host, const insee_value *params, insee_error *err)
{
    uint32_t dims = grid_dims(host, "quadrant", err);
    if (!dims)
        return NULL;
    quadrant *self = malloc(sizeof *self);
    if (!self) {
        insee_error_set(err, INSEE_ERR_NOMEM, "quadrant: out of memory");
        return NULL;
    }
    *self = (quadrant){host, dims, (uint32_t)params[P_SIDE].i};
    return self;
}

static void quadrant_destroy(void *self)
{
    free(self);
}

/* The smallest s with s^dims >= tasks: a perfect square (cube) that holds
   the application. */
static int32_t quadrant_side(uint32_t tasks, uint32_t dims)
{
    int32_t s = 1;
    for (;;) {
        uint64_t volume = 1;
        for (uint32_t d = 0; d < dims && volume < tasks; d++)
            volume *= (uint64_t)s;
        if (volume >= tasks)
            return s;
        s++;
    }
}

/* Key (square's c[d-1], ..., square's c[0], c[d-1], ..., c[0]). */
static bool quadrant_key(void *ctx, uint32_t node, int64_t *key, insee_error *err)
{
    const quadrant_pass *pass = ctx;
    uint32_t dims = pass->self->dims;
    int32_t c[ORDER_MAX_DIMS];
    if (!grid_coords(pass->self->host, "quadrant", dims, node, c, err))
        return false;
    for (uint32_t d = 0; d < dims; d++) {
        key[dims - 1 - d] = c[d] / pass->side;
        key[2 * dims - 1 - d] = c[d];
    }
    return true;
}

static bool quadrant_place(void *self_, uint32_t tasks, const bool *available, uint32_t nodes,
                           uint32_t *task_node, insee_rng *rng, insee_error *err)
{
    const quadrant *self = self_;
    (void)rng; /* deterministic */
    quadrant_pass pass = {self, self->side ? (int32_t)self->side : quadrant_side(tasks, self->dims)};
    return order_place_by_key("quadrant", quadrant_key, &pass, tasks, available, nodes,
                              task_node, err);
}

static const insee_placement_vtable quadrant_vtable = {
    .size = sizeof(insee_placement_vtable),
    .create = quadrant_create,
    .destroy = quadrant_destroy,
    .place = quadrant_place,
};

static const insee_plugin_desc quadrant_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_PLACEMENT,
    .name = "quadrant",
    .version = "1.0.0",
    .summary = "the grid cut into squares (cubes), each filled in consecutive order",
    .reference = "INSEE §3.4",
    .params = quadrant_params,
    .vtable = &quadrant_vtable,
};

INSEE_PLUGIN_DEFINE(quadrant_desc)
