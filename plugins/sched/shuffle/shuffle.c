/* shuffle.c — shuffle placement (INSEE §3.4, Fig. 13c): "Tasks are placed in
 * order in the nodes attached to the first port of each switch, then to
 * those nodes attached to the second port of each switch, and so on." The
 * switches and their ports come from host->node_router(): a node's port is
 * its rank among the nodes of its router in node-index order. With p nodes
 * on every switch this is the paper's 0, p, 2p, ..., 1, p + 1, 2p + 1, ...;
 * with one node per router (direct topologies) it is consecutive placement.
 */
#include "order.h"

typedef struct shuffle {
    const insee_host *host;
} shuffle;

/* What the key of each node needs during one place(). */
typedef struct shuffle_pass {
    const insee_host *host;
    uint32_t routers;
    uint32_t *seen; /* per router: nodes of it met so far (the next one's port) */
} shuffle_pass;

static void *shuffle_create(const insee_host *host, const insee_value *params, insee_error *err)
{
    (void)params; /* no parameters */
    shuffle *self = malloc(sizeof *self);
    if (!self) {
        insee_error_set(err, INSEE_ERR_NOMEM, "shuffle: out of memory");
        return NULL;
    }
    self->host = host;
    return self;
}

static void shuffle_destroy(void *self)
{
    free(self);
}

/* Key (port, switch): all first ports by switch, then all second ports... */
static bool shuffle_key(void *ctx, uint32_t node, int64_t *key, insee_error *err)
{
    shuffle_pass *pass = ctx;
    uint32_t r = pass->host->node_router(pass->host->kernel, node);
    if (r >= pass->routers) {
        insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                        "shuffle: the topology puts node %u on router %u, out of its %u routers; "
                        "the topology plugin is inconsistent",
                        node, r, pass->routers);
        return false;
    }
    key[0] = pass->seen[r]++;
    key[1] = r;
    return true;
}

static bool shuffle_place(void *self_, uint32_t tasks, const bool *available, uint32_t nodes,
                          uint32_t *task_node, insee_rng *rng, insee_error *err)
{
    const shuffle *self = self_;
    (void)rng; /* deterministic */
    insee_shape shape = {0};
    self->host->shape(self->host->kernel, &shape);
    shuffle_pass pass = {self->host, shape.routers, calloc(shape.routers ? shape.routers : 1,
                                                           sizeof(uint32_t))};
    if (!pass.seen) {
        insee_error_set(err, INSEE_ERR_NOMEM, "shuffle: out of memory for %u routers",
                        shape.routers);
        return false;
    }
    bool ok = order_place_by_key("shuffle", shuffle_key, &pass, tasks, available, nodes,
                                 task_node, err);
    free(pass.seen);
    return ok;
}

static const insee_placement_vtable shuffle_vtable = {
    .size = sizeof(insee_placement_vtable),
    .create = shuffle_create,
    .destroy = shuffle_destroy,
    .place = shuffle_place,
};

static const insee_plugin_desc shuffle_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_PLACEMENT,
    .name = "shuffle",
    .version = "1.0.0",
    .summary = "the first node of every switch, then the second of every switch, ...",
    .reference = "INSEE §3.4",
    .params = NULL,
    .vtable = &shuffle_vtable,
};

INSEE_PLUGIN_DEFINE(shuffle_desc)
