/* ecmp.c — Equal Cost Multiple Paths (INRFlow §3.2) for the flow engines,
 * on any topology: a flow uses the shortest paths between its routers
 * (../common/shortest.c), either
 *  - split = "even": split evenly over them, each carrying 1/n of the
 *    flow; they are the first max_paths in port order (depth first, the
 *    lowest minimal port first at every router), so a pair with more
 *    shortest paths uses max_paths of them, as switches cap their ECMP ways;
 *  - split = "hash": whole on one of them, chosen hop by hop from the flow's
 *    salt as a switch hashes a flow's header: at the i-th router the
 *    minimal port number (salt hashed with i) mod their count.
 * Deterministic for a given flow (salt): the same arguments, the same paths. */
#include "shortest.h"

#include <stdlib.h>

enum { P_SPLIT, P_MAX_PATHS, P_TABLE_MB };
enum { SPLIT_EVEN, SPLIT_HASH };

static const insee_param_def ecmp_params[] = {
    [P_SPLIT] = {"split", INSEE_PARAM_ENUM, "\"even\"", 1, 0, "even|hash", NULL,
                 "even: the flow split equally over its shortest paths; hash: the whole flow on "
                 "one of them, picked hop by hop from the flow's salt"},
    [P_MAX_PATHS] = {"max_paths", INSEE_PARAM_INT, "16", 1, 65536, NULL, "paths",
                     "even: at most this many shortest paths per flow (the first in port order)"},
    [P_TABLE_MB] = ROUTING_TABLE_MB_PARAM,
    {0},
};

typedef struct ecmp {
    routing_graph *g;
    int split;
    uint32_t max_paths;
    uint32_t max_ports;
    uint32_t *path;  /* the path being built: at most routers - 1 ports */
    uint32_t *next;  /* per depth: the minimal ports of the router there (routers x max_ports) */
    uint32_t *count; /* per depth: how many */
    uint32_t *at;    /* per depth: which of them the path takes */
} ecmp;

static void ecmp_destroy(void *vself)
{
    ecmp *e = vself;
    routing_graph_free(e->g);
    free(e->path);
    free(e->next);
    free(e->count);
    free(e->at);
    free(e);
}

static void *ecmp_create(const insee_host *host, const insee_value *params, insee_error *err)
{
    insee_shape shape;
    host->shape(host->kernel, &shape);
    ecmp *e = calloc(1, sizeof *e);
    if (!e) {
        insee_error_set(err, INSEE_ERR_NOMEM, "ecmp: out of memory");
        return NULL;
    }
    size_t depth = shape.routers ? shape.routers : 1;
    e->split = (int)params[P_SPLIT].i;
    e->max_paths = (uint32_t)params[P_MAX_PATHS].i;
    e->max_ports = shape.max_ports ? shape.max_ports : 1;
    e->g = routing_graph_new("ecmp", host, params[P_TABLE_MB].d, err);
    e->path = malloc(sizeof *e->path * depth);
    e->next = malloc(sizeof *e->next * depth * e->max_ports);
    e->count = malloc(sizeof *e->count * depth);
    e->at = malloc(sizeof *e->at * depth);
    if (!e->g || !e->path || !e->next || !e->count || !e->at) {
        if (e->g)
            insee_error_set(err, INSEE_ERR_NOMEM, "ecmp: out of memory");
        ecmp_destroy(e);
        return NULL;
    }
    return e;
}

/* The port a switch's hash picks at the hop-th router of a flow. */
static uint32_t hashed(uint32_t hop, uint32_t count, uint32_t salt)
{
    return routing_mix(salt ^ routing_mix(hop)) % count;
}

/* The first max_paths shortest paths, depth first in port order. */
static uint32_t each_path(ecmp *e, const uint32_t *dist, uint32_t src,
                          void (*add)(void *, const uint32_t *, uint32_t, double), void *ctx,
                          double share)
{
    uint32_t len = dist[src], found = 0, d = 0, r = src;
    e->count[0] = routing_graph_next(e->g, dist, src, e->next);
    e->at[0] = 0;
    while (found < e->max_paths) {
        if (e->at[d] == e->count[d]) { /* every port here tried: back one router */
            if (d == 0)
                break;
            d--;
            e->at[d]++;
            r = src;
            for (uint32_t i = 0; i < d; i++)
                r = routing_graph_peer(e->g, r, e->path[i]);
            continue;
        }
        e->path[d] = e->next[(size_t)d * e->max_ports + e->at[d]];
        uint32_t q = routing_graph_peer(e->g, r, e->path[d]);
        if (d + 1 == len) {
            if (add)
                add(ctx, e->path, len, share);
            found++;
            e->at[d]++;
            continue;
        }
        d++;
        r = q;
        e->count[d] = routing_graph_next(e->g, dist, r, e->next + (size_t)d * e->max_ports);
        e->at[d] = 0;
    }
    return found;
}

static bool ecmp_paths(void *vself, uint32_t src, uint32_t dst, uint32_t salt,
                       void (*add)(void *ctx, const uint32_t *ports, uint32_t hops, double share),
                       void *ctx, insee_error *err)
{
    (void)err;
    ecmp *e = vself;
    const uint32_t *dist = routing_graph_distances(e->g, dst);
    if (dist[src] == ROUTING_UNREACHABLE)
        return true; /* not connected: no path */
    if (e->split == SPLIT_HASH) {
        uint32_t hops = routing_graph_path(e->g, dist, src, dst, hashed, salt, e->next, e->path);
        add(ctx, e->path, hops, 1.0);
        return true;
    }
    /* Count first, so that every path carries the same share. */
    uint32_t n = each_path(e, dist, src, NULL, NULL, 0);
    each_path(e, dist, src, add, ctx, 1.0 / n);
    return true;
}

static uint32_t ecmp_properties(void *vself)
{
    (void)vself;
    return INSEE_PATHS_MINIMAL;
}

static const insee_routing_vtable ecmp_vtable = {
    .size = sizeof(insee_routing_vtable),
    .create = ecmp_create,
    .destroy = ecmp_destroy,
    .paths = ecmp_paths,
    .properties = ecmp_properties,
};

static const insee_plugin_desc ecmp_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_ROUTING,
    .name = "ecmp",
    .version = "1.0.0",
    .summary = "the shortest paths of every pair of routers, a flow split evenly over them or "
               "hashed onto one, on any topology",
    .reference = "INRFlow §3.2",
    .params = ecmp_params,
    .vtable = &ecmp_vtable,
};

INSEE_PLUGIN_DEFINE(ecmp_desc)
