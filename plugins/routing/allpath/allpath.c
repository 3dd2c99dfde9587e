/* allpath.c — every loop-free path between two routers no longer than the
 * shortest plus extra_hops, up to max_paths of them (INRFlow §3.2's
 * all-path routing with its length bound), for the flow engines on any
 * topology.
 *
 * The paths are listed by length, and for each length depth first, lowest
 * port first: ordered as ksp orders them, so the cap keeps the shortest.
 * The destination's distance table (../common/shortest.c) prunes every
 * branch that could not reach it within the length sought, so with
 * extra_hops = 0 the search only follows minimal links and gives exactly
 * ecmp's paths. A pair's paths are kept in a cache of recent pairs
 * (../common/paths.c); what it holds never changes an answer. */
#include <stdlib.h>

#include "paths.h"

enum { P_EXTRA_HOPS, P_MAX_PATHS, P_SPLIT, P_TABLE_MB, P_CACHE_MB };

static const insee_param_def allpath_params[] = {
    [P_EXTRA_HOPS] = {"extra_hops", INSEE_PARAM_INT, "0", 0, 64, NULL, "hops",
                      "paths at most this many hops longer than the pair's shortest"},
    [P_MAX_PATHS] = {"max_paths", INSEE_PARAM_INT, "16", 1, 65536, NULL, "paths",
                     "at most this many paths per pair (the shortest first, then in port order)"},
    [P_SPLIT] = ROUTING_SPLIT_PARAM,
    [P_TABLE_MB] = ROUTING_TABLE_MB_PARAM,
    [P_CACHE_MB] = ROUTING_CACHE_MB_PARAM,
    {0},
};

typedef struct allpath {
    routing_lister l;
    routing_graph *g; /* l's */
    uint32_t extra, max_paths;
    uint32_t *path;   /* the path being built (routers) */
    uint32_t *route;  /* its routers by depth (routers + 1) */
    uint32_t *at;     /* per depth: the port to try next */
    bool *on_path;    /* per router */
} allpath;

static void allpath_destroy(void *vself)
{
    allpath *a = vself;
    routing_lister_clear(&a->l);
    free(a->path);
    free(a->route);
    free(a->at);
    free(a->on_path);
    free(a);
}

static void *allpath_create(const insee_host *host, const insee_value *params, insee_error *err)
{
    insee_shape shape;
    host->shape(host->kernel, &shape);
    allpath *a = calloc(1, sizeof *a);
    if (!a) {
        insee_error_set(err, INSEE_ERR_NOMEM, "allpath: out of memory");
        return NULL;
    }
    size_t n = (size_t)shape.routers + 1;
    a->extra = (uint32_t)params[P_EXTRA_HOPS].i;
    a->max_paths = (uint32_t)params[P_MAX_PATHS].i;
    if (!routing_lister_init(&a->l, "allpath", host, (int)params[P_SPLIT].i,
                             params[P_TABLE_MB].d, params[P_CACHE_MB].d, err)) {
        allpath_destroy(a);
        return NULL;
    }
    a->g = a->l.g;
    a->path = malloc(sizeof *a->path * n);
    a->route = malloc(sizeof *a->route * n);
    a->at = malloc(sizeof *a->at * n);
    a->on_path = calloc(n, sizeof *a->on_path);
    if (!a->path || !a->route || !a->at || !a->on_path) {
        insee_error_set(err, INSEE_ERR_NOMEM, "allpath: out of memory");
        allpath_destroy(a);
        return NULL;
    }
    return a;
}

/* Append every loop-free path of exactly `len` hops from src to dst, depth
   first, lowest port first, while fewer than max_paths are found: a link is
   followed only if the destination is still within reach from where it
   leads. False when out of memory. */
static bool each_of_length(allpath *a, const uint32_t *dist, uint32_t src, uint32_t dst,
                           uint32_t len)
{
    bool ok = true;
    uint32_t d = 0;
    a->route[0] = src;
    a->at[0] = 0;
    a->on_path[src] = true;
    while (ok && a->l.found.count < a->max_paths) {
        uint32_t r = a->route[d], p = a->at[d]++;
        if (p == routing_graph_ports(a->g, r)) {
            a->on_path[r] = false;
            if (d == 0)
                return true;
            d--;
            continue;
        }
        uint32_t q = routing_graph_peer(a->g, r, p);
        if (q == ROUTING_UNREACHABLE || a->on_path[q] || dist[q] == ROUTING_UNREACHABLE ||
            d + 1 + dist[q] > len)
            continue;
        a->path[d] = p;
        if (q == dst) {
            if (d + 1 == len)
                ok = routing_list_push(&a->l.found, a->path, len, NULL, 0);
            continue;
        }
        a->route[++d] = q;
        a->at[d] = 0;
        a->on_path[q] = true;
    }
    for (uint32_t i = 0; i <= d; i++)
        a->on_path[a->route[i]] = false;
    return ok;
}

/* By length, shortest first, until max_paths are found. */
static bool every_path(void *vself, uint32_t src, uint32_t dst, const uint32_t *dist)
{
    allpath *a = vself;
    for (uint32_t len = dist[src];
         len <= dist[src] + a->extra && a->l.found.count < a->max_paths; len++)
        if (!each_of_length(a, dist, src, dst, len))
            return false;
    return true;
}

static bool allpath_paths(void *vself, uint32_t src, uint32_t dst, uint32_t salt,
                          void (*add)(void *ctx, const uint32_t *ports, uint32_t hops,
                                      double share),
                          void *ctx, insee_error *err)
{
    allpath *a = vself;
    return routing_lister_paths(&a->l, a, every_path, src, dst, salt, add, ctx, err);
}

/* Without extra hops every path is a shortest one. */
static uint32_t allpath_properties(void *vself)
{
    const allpath *a = vself;
    return a->extra == 0 ? INSEE_PATHS_MINIMAL : 0;
}

static const insee_routing_vtable allpath_vtable = {
    .size = sizeof(insee_routing_vtable),
    .create = allpath_create,
    .destroy = allpath_destroy,
    .paths = allpath_paths,
    .properties = allpath_properties,
};

static const insee_plugin_desc allpath_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_ROUTING,
    .name = "allpath",
    .version = "1.0.0",
    .summary = "every loop-free path within extra_hops of the shortest, up to max_paths per pair "
               "of routers, a flow split evenly over them or hashed onto one, on any topology",
    .reference = "INRFlow §3.2",
    .params = allpath_params,
    .vtable = &allpath_vtable,
};

INSEE_PLUGIN_DEFINE(allpath_desc)
