/* grid.c — node coordinates as a k-ary n-cube grid; see grid.h. */
#include "grid.h"

#include <stdlib.h>

void traffic_grid_destroy(traffic_grid *g)
{
    if (!g)
        return;
    free(g->k);
    free(g->stride);
    free(g->pos);
    free(g->node);
    free(g);
}

/* Read every node's coordinates into g->pos (as positions) and g->k; false
   with err filled when the topology has no coordinates or they are not a
   full grid. */
static bool read_grid(traffic_grid *g, const char *who, const insee_host *host,
                      int32_t *c, insee_error *err)
{
    for (uint32_t d = 0; d < g->n; d++)
        g->k[d] = 1;
    /* First pass: the extent of each dimension. */
    for (uint32_t v = 0; v < g->nodes; v++) {
        if (host->coords(host->kernel, v, c, g->n) != g->n) {
            insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                            "%s needs node coordinates (a k-ary n-cube: torus or mesh); "
                            "the topology gives none for node %u",
                            who, v);
            return false;
        }
        for (uint32_t d = 0; d < g->n; d++) {
            if (c[d] < 0) {
                insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                                "%s needs a k-ary n-cube; node %u has coordinate %d in "
                                "dimension %u",
                                who, v, c[d], d);
                return false;
            }
            if ((uint32_t)c[d] >= g->k[d])
                g->k[d] = (uint32_t)c[d] + 1;
        }
    }
    uint64_t size = 1;
    for (uint32_t d = 0; d < g->n; d++) {
        g->stride[d] = (uint32_t)size;
        size *= g->k[d];
        if (size > g->nodes)
            break; /* reported below; stops before the product can overflow */
    }
    if (size != g->nodes) {
        insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                        "%s needs a k-ary n-cube; the %u nodes' coordinates do not fill "
                        "a grid (the topology is not a torus or mesh)",
                        who, g->nodes);
        return false;
    }
    /* Second pass: positions, each taken once. */
    for (uint32_t p = 0; p < g->nodes; p++)
        g->node[p] = UINT32_MAX;
    for (uint32_t v = 0; v < g->nodes; v++) {
        host->coords(host->kernel, v, c, g->n);
        uint32_t p = 0;
        for (uint32_t d = 0; d < g->n; d++)
            p += (uint32_t)c[d] * g->stride[d];
        if (g->node[p] != UINT32_MAX) {
            insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                            "%s needs a k-ary n-cube; nodes %u and %u have the same "
                            "coordinates (several nodes per router?)",
                            who, g->node[p], v);
            return false;
        }
        g->node[p] = v;
        g->pos[v] = p;
    }
    return true;
}

traffic_grid *traffic_grid_create(const char *who, const insee_host *host, insee_error *err)
{
    insee_shape shape;
    host->shape(host->kernel, &shape);
    if (shape.dims == 0) {
        insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                        "%s needs node coordinates (a k-ary n-cube: torus or mesh); "
                        "the topology has none",
                        who);
        return NULL;
    }
    if (shape.tasks != shape.nodes) {
        insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                        "%s needs one task per node (task t on node t); there are %u tasks "
                        "on %u nodes",
                        who, shape.tasks, shape.nodes);
        return NULL;
    }
    traffic_grid *g = calloc(1, sizeof *g);
    int32_t *c = malloc(sizeof *c * shape.dims);
    if (g) {
        *g = (traffic_grid){
            .n = shape.dims,
            .nodes = shape.nodes,
            .k = malloc(sizeof *g->k * shape.dims),
            .stride = malloc(sizeof *g->stride * shape.dims),
            .pos = malloc(sizeof *g->pos * shape.nodes),
            .node = malloc(sizeof *g->node * shape.nodes),
        };
    }
    if (!g || !c || !g->k || !g->stride || !g->pos || !g->node) {
        insee_error_set(err, INSEE_ERR_NOMEM, "%s: out of memory", who);
        free(c);
        traffic_grid_destroy(g);
        return NULL;
    }
    bool ok = read_grid(g, who, host, c, err);
    free(c);
    if (!ok) {
        traffic_grid_destroy(g);
        return NULL;
    }
    return g;
}

uint32_t traffic_grid_move(const traffic_grid *g, uint32_t pos, uint32_t d, int64_t delta)
{
    int64_t k = g->k[d];
    int64_t c = pos / g->stride[d] % k;
    int64_t moved = ((c + delta) % k + k) % k;
    return (uint32_t)((int64_t)pos + (moved - c) * g->stride[d]);
}
