/* consecutive.c — consecutive ("row") placement (INSEE §3.4, Fig. 12a):
 * task t runs on the t-th available node in node-index order. */
#include <insee/insee.h>

#include <stdlib.h>

typedef struct consecutive {
    const insee_host *host;
} consecutive;

static void *consecutive_create(const insee_host *host, const insee_value *params,
                                insee_error *err)
{
    (void)params; /* no parameters */
    consecutive *self = malloc(sizeof *self);
    if (!self) {
        insee_error_set(err, INSEE_ERR_NOMEM, "consecutive: out of memory");
        return NULL;
    }
    self->host = host;
    return self;
}

static void consecutive_destroy(void *self)
{
    free(self);
}

static bool consecutive_place(void *self, uint32_t tasks, const bool *available,
                              uint32_t nodes, uint32_t *task_node, insee_rng *rng,
                              insee_error *err)
{
    (void)self;
    (void)rng; /* deterministic */
    uint32_t t = 0;
    for (uint32_t n = 0; n < nodes && t < tasks; n++) {
        if (available[n])
            task_node[t++] = n;
    }
    if (t < tasks) {
        insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                        "consecutive: %u tasks do not fit on the %u available nodes "
                        "(of %u); use fewer tasks or a larger network",
                        tasks, t, nodes);
        return false;
    }
    return true;
}

static const insee_placement_vtable consecutive_vtable = {
    .size = sizeof(insee_placement_vtable),
    .create = consecutive_create,
    .destroy = consecutive_destroy,
    .place = consecutive_place,
};

static const insee_plugin_desc consecutive_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_PLACEMENT,
    .name = "consecutive",
    .version = "1.0.0",
    .summary = "task t on the t-th available node, in node-index order",
    .reference = "INSEE §3.4",
    .params = NULL,
    .vtable = &consecutive_vtable,
};

INSEE_PLUGIN_DEFINE(consecutive_desc)
