/* shift.c — shift placement (INSEE §3.4, Fig. 12b/13b): "like the previous
 * one [consecutive], but adding a given shift s to the allocated node, that
 * is, task t is located in node t + s". Node indices wrap past the last
 * node, so every shift places as many tasks as consecutive does.
 */
#include "order.h"

enum { P_SHIFT };

static const insee_param_def shift_params[] = {
    [P_SHIFT] = {"shift", INSEE_PARAM_INT, "0", 0, 4294967295.0, NULL, "nodes",
                 "offset s added to the node of each task (task t on node (t + s) mod nodes)"},
    {0},
};

typedef struct shift {
    uint64_t shift;
} shift;

static void *shift_create(const insee_host *host, const insee_value *params, insee_error *err)
{
    (void)host; /* the order needs only the node count place() receives */
    shift *self = malloc(sizeof *self);
    if (!self) {
        insee_error_set(err, INSEE_ERR_NOMEM, "shift: out of memory");
        return NULL;
    }
    self->shift = (uint64_t)params[P_SHIFT].i;
    return self;
}

static void shift_destroy(void *self)
{
    free(self);
}

static bool shift_place(void *self_, uint32_t tasks, const bool *available, uint32_t nodes,
                        uint32_t *task_node, insee_rng *rng, insee_error *err)
{
    const shift *self = self_;
    (void)rng; /* deterministic */
    uint32_t *order = order_alloc("shift", nodes, err);
    if (!order)
        return false;
    for (uint32_t i = 0; i < nodes; i++)
        order[i] = (uint32_t)((i + self->shift) % nodes);
    bool ok = order_fill("shift", order, nodes, available, tasks, task_node, err);
    free(order);
    return ok;
}

static const insee_placement_vtable shift_vtable = {
    .size = sizeof(insee_placement_vtable),
    .create = shift_create,
    .destroy = shift_destroy,
    .place = shift_place,
};

static const insee_plugin_desc shift_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_PLACEMENT,
    .name = "shift",
    .version = "1.0.0",
    .summary = "consecutive placement shifted by s nodes, wrapping: task t on node (t + s) mod nodes",
    .reference = "INSEE §3.4",
    .params = shift_params,
    .vtable = &shift_vtable,
};

INSEE_PLUGIN_DEFINE(shift_desc)
