/* bfs.c — one shortest path per pair of routers on any topology (INRFlow
 * §3.2's BFS routing), for the flow engines: from the source, at every
 * router the lowest-numbered output port that brings the flow one hop
 * closer to its destination, by the destination's breadth-first distance
 * table (../common/shortest.c). Deterministic: every flow between two
 * routers follows the same path. */
#include "shortest.h"

#include <stdlib.h>

enum { P_TABLE_MB };

static const insee_param_def bfs_params[] = {
    [P_TABLE_MB] = ROUTING_TABLE_MB_PARAM,
    {0},
};

typedef struct bfs {
    routing_graph *g;
    uint32_t *path; /* a path's ports: at most routers - 1 */
    uint32_t *next; /* one router's minimal ports */
} bfs;

static void bfs_destroy(void *vself)
{
    bfs *b = vself;
    routing_graph_free(b->g);
    free(b->path);
    free(b->next);
    free(b);
}

static void *bfs_create(const insee_host *host, const insee_value *params, insee_error *err)
{
    insee_shape shape;
    host->shape(host->kernel, &shape);
    bfs *b = calloc(1, sizeof *b);
    if (!b) {
        insee_error_set(err, INSEE_ERR_NOMEM, "bfs: out of memory");
        return NULL;
    }
    b->g = routing_graph_new("bfs", host, params[P_TABLE_MB].d, err);
    b->path = malloc(sizeof *b->path * (shape.routers ? shape.routers : 1));
    b->next = malloc(sizeof *b->next * (shape.max_ports ? shape.max_ports : 1));
    if (!b->g || !b->path || !b->next) {
        if (b->g)
            insee_error_set(err, INSEE_ERR_NOMEM, "bfs: out of memory");
        bfs_destroy(b);
        return NULL;
    }
    return b;
}

static uint32_t lowest(uint32_t hop, uint32_t count, uint32_t salt)
{
    (void)hop;
    (void)count;
    (void)salt;
    return 0;
}

static bool bfs_paths(void *vself, uint32_t src, uint32_t dst, uint32_t salt,
                      void (*add)(void *ctx, const uint32_t *ports, uint32_t hops, double share),
                      void *ctx, insee_error *err)
{
    (void)err;
    bfs *b = vself;
    const uint32_t *dist = routing_graph_distances(b->g, dst);
    if (dist[src] == ROUTING_UNREACHABLE)
        return true; /* not connected: no path */
    uint32_t hops = routing_graph_path(b->g, dist, src, dst, lowest, salt, b->next, b->path);
    add(ctx, b->path, hops, 1.0);
    return true;
}

static uint32_t bfs_properties(void *vself)
{
    (void)vself;
    return INSEE_PATHS_MINIMAL;
}

static const insee_routing_vtable bfs_vtable = {
    .size = sizeof(insee_routing_vtable),
    .create = bfs_create,
    .destroy = bfs_destroy,
    .paths = bfs_paths,
    .properties = bfs_properties,
};

static const insee_plugin_desc bfs_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_ROUTING,
    .name = "bfs",
    .version = "1.0.0",
    .summary = "one shortest path per pair of routers (the lowest port closer to the "
               "destination at every hop), on any topology",
    .reference = "INRFlow §3.2",
    .params = bfs_params,
    .vtable = &bfs_vtable,
};

INSEE_PLUGIN_DEFINE(bfs_desc)
