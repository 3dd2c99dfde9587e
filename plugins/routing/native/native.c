/* native.c — the topology's own routing as a path routing, for the flow
 * engines: the paths the topology plugin's paths() gives (BCube's digit
 * correction, DCell's recursion...), through the host, which checks each
 * one against the graph and drops those that cross a failed cable. The
 * topology is the routing here: this plugin only passes its answer on. */
#include <insee/insee.h>

#include <stdlib.h>

typedef struct native {
    const insee_host *host;
} native;

static void *native_create(const insee_host *host, const insee_value *params, insee_error *err)
{
    (void)params;
    if (!host->topology_path_hops(host->kernel)) {
        insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                        "native: the topology has no routing of its own (its plugin gives no "
                        "paths()); use a path routing that reads the graph, such as bfs, ecmp, "
                        "ksp or allpath");
        return NULL;
    }
    native *n = calloc(1, sizeof *n);
    if (!n) {
        insee_error_set(err, INSEE_ERR_NOMEM, "native: out of memory");
        return NULL;
    }
    n->host = host;
    return n;
}

static void native_destroy(void *self)
{
    free(self);
}

static bool native_paths(void *self, uint32_t src, uint32_t dst, uint32_t salt,
                         void (*add)(void *ctx, const uint32_t *ports, uint32_t hops, double share),
                         void *ctx, insee_error *err)
{
    (void)err;
    const insee_host *host = ((native *)self)->host;
    host->topology_paths(host->kernel, src, dst, salt, add, ctx);
    return true;
}

static const insee_routing_vtable native_vtable = {
    .size = sizeof(insee_routing_vtable),
    .create = native_create,
    .destroy = native_destroy,
    .paths = native_paths,
};

static const insee_plugin_desc native_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_ROUTING,
    .name = "native",
    .version = "1.0.0",
    .summary = "the topology's own routing (BCube, DCell, FiConn, DPillar...): the paths its "
               "plugin gives",
    .reference = "INRFlow §3.2",
    .params = NULL,
    .vtable = &native_vtable,
};

INSEE_PLUGIN_DEFINE(native_desc)
