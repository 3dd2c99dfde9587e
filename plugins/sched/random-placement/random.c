/* random.c — random placement (INSEE §3.4): "All the tasks are randomly
 * placed along the network independently of their application. To do so, we
 * generate a random permutation of the network nodes." The permutation is a
 * Fisher-Yates shuffle drawn from the rng place() receives, so the same seed
 * gives the same placement; tasks then fill its available nodes in order.
 */
#include "order.h"

static void *random_create(const insee_host *host, const insee_value *params, insee_error *err)
{
    (void)host;   /* all it needs comes with place() */
    (void)params; /* no parameters */
    /* A placement with no state still needs a distinct non-NULL instance. */
    void *self = malloc(1);
    if (!self)
        insee_error_set(err, INSEE_ERR_NOMEM, "random: out of memory");
    return self;
}

static void random_destroy(void *self)
{
    free(self);
}

static bool random_place(void *self, uint32_t tasks, const bool *available, uint32_t nodes,
                         uint32_t *task_node, insee_rng *rng, insee_error *err)
{
    (void)self;
    if (!rng) {
        insee_error_set(err, INSEE_ERR_PARAM,
                        "random: place() was given no rng; the kernel must pass the placement "
                        "stream");
        return false;
    }
    uint32_t *order = order_alloc("random", nodes, err);
    if (!order)
        return false;
    for (uint32_t i = 0; i < nodes; i++)
        order[i] = i;
    for (uint32_t i = nodes; i > 1; i--) {
        uint32_t j = insee_rng_below(rng, i);
        uint32_t tmp = order[i - 1];
        order[i - 1] = order[j];
        order[j] = tmp;
    }
    bool ok = order_fill("random", order, nodes, available, tasks, task_node, err);
    free(order);
    return ok;
}

static const insee_placement_vtable random_vtable = {
    .size = sizeof(insee_placement_vtable),
    .create = random_create,
    .destroy = random_destroy,
    .place = random_place,
};

static const insee_plugin_desc random_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_PLACEMENT,
    .name = "random",
    .version = "1.0.0",
    .summary = "tasks on a random permutation of the nodes, drawn from the placement rng",
    .reference = "INSEE §3.4",
    .params = NULL,
    .vtable = &random_vtable,
};

INSEE_PLUGIN_DEFINE(random_desc)
