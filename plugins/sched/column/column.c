/* column.c — column placement (INSEE §3.4, Fig. 12c): "Assignment is done
 * selecting the nodes by columns, which can be seen as partitioning the
 * network in rectangular sub-networks, taller than wide." Nodes are taken
 * down each column (coordinate 1 varying fastest, then coordinate 0), one
 * XY plane after another in consecutive order of the higher coordinates, so
 * an application of h·w nodes on a grid h nodes tall fills w whole columns.
 */
#include "grid.h"

typedef struct column {
    const insee_host *host;
    uint32_t dims;
} column;

static void *column_create(const insee_host *host, const insee_value *params, insee_error *err)
{
    (void)params; /* no parameters */
    uint32_t dims = grid_dims(host, "column", err);
    if (!dims)
        return NULL;
    column *self = malloc(sizeof *self);
    if (!self) {
        insee_error_set(err, INSEE_ERR_NOMEM, "column: out of memory");
        return NULL;
    }
    *self = (column){host, dims};
    return self;
}

static void column_destroy(void *self)
{
    free(self);
}

/* Key (c[d-1], ..., c[2], c[0], c[1]): consecutive order with x and y swapped. */
static bool column_key(void *ctx, uint32_t node, int64_t *key, insee_error *err)
{
    const column *self = ctx;
    int32_t c[ORDER_MAX_DIMS];
    if (!grid_coords(self->host, "column", self->dims, node, c, err))
        return false;
    for (uint32_t d = 2; d < self->dims; d++)
        key[self->dims - 1 - d] = c[d];
    key[self->dims - 2] = c[0];
    key[self->dims - 1] = c[1];
    return true;
}

static bool column_place(void *self, uint32_t tasks, const bool *available, uint32_t nodes,
                         uint32_t *task_node, insee_rng *rng, insee_error *err)
{
    (void)rng; /* deterministic */
    return order_place_by_key("column", column_key, self, tasks, available, nodes, task_node,
                              err);
}

static const insee_placement_vtable column_vtable = {
    .size = sizeof(insee_placement_vtable),
    .create = column_create,
    .destroy = column_destroy,
    .place = column_place,
};

static const insee_plugin_desc column_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_PLACEMENT,
    .name = "column",
    .version = "1.0.0",
    .summary = "nodes taken column by column on a 2D/3D grid (tall, narrow partitions)",
    .reference = "INSEE §3.4",
    .params = NULL,
    .vtable = &column_vtable,
};

INSEE_PLUGIN_DEFINE(column_desc)
