/* families.c — create topology plugins with any parameters on the mock host,
 * and the checks every family's tests run against a BFS over link(). */
#include "families.h"
#include "topo_check.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

void *fam_try(const char *name, const insee_value *params, uint64_t seed, insee_error *err)
{
    const insee_plugin_desc *d = load_plugin("topology", name);
    const insee_topology_vtable *vt = d->vtable;
    /* Topology create() may only log and draw seeds (host.h); the kernel
       and host table live on this stack frame for that call alone. */
    insee_kernel k = {.seed = seed};
    insee_host host = mock_host(&k);
    *err = (insee_error){0};
    void *self = vt->create(&host, params, err);
    if (!self)
        cr_assert_neq(err->code, 0, "%s: create() failed without an error code", name);
    return self;
}

void fam_make(fam *t, const char *name, const insee_value *params, uint64_t seed)
{
    insee_error err;
    *t = (fam){.vt = load_plugin("topology", name)->vtable};
    t->self = fam_try(name, params, seed, &err);
    cr_assert_not_null(t->self, "%s create: %s", name, err.message);
    t->vt->info(t->self, &t->info);
}

void fam_free(fam *t)
{
    t->vt->destroy(t->self);
}

uint64_t fam_channels(const fam *t)
{
    uint64_t plugged = 0;
    for (uint32_t r = 0; r < t->info.routers; r++)
        for (uint32_t p = 0; p < t->vt->ports(t->self, r); p++) {
            insee_port_peer peer;
            plugged += t->vt->link(t->self, r, p, &peer);
        }
    return plugged;
}

/* fam_check_links on a table already read. */
static void check_links(const fam *t, const topo_table *links)
{
    cr_assert_eq(t->info.flags & INSEE_TOPO_DIRECTED, 0u, "every family link has its reverse");
    topo_check_links(links);
}

void fam_check_links(const fam *t)
{
    topo_table links;
    topo_read(&links, t->vt, t->self);
    check_links(t, &links);
    topo_table_free(&links);
}

uint64_t fam_check_all(const fam *t)
{
    static const uint32_t salts[] = {0u, 1u, 0x12345u};
    topo_table links;
    topo_read(&links, t->vt, t->self);
    check_links(t, &links);
    uint32_t *bfs = topo_bfs_all(&links), diameter;
    uint64_t sum = topo_check_distances(&links, bfs, &diameter);
    cr_assert_eq(t->info.diameter, diameter, "info.diameter %u, BFS %u", t->info.diameter,
                 diameter);
    insee_hop hops[512];
    cr_assert_leq(t->info.max_ports, 512u);
    for (uint32_t r = 0; r < t->info.routers; r++)
        for (uint32_t node = 0; node < t->info.nodes; node++)
            for (size_t s = 0; s < sizeof salts / sizeof salts[0]; s++)
                topo_check_hops(&links, bfs, r, node, salts[s], hops, 512);
    free(bfs);
    topo_table_free(&links);
    return sum;
}

/* What one paths() call gave, checked as it comes. */
typedef struct path_check {
    const fam *t;
    uint32_t src, dst, max_hops, given;
    double shares, weighted;
    uint64_t fingerprint; /* the paths folded into one word, to compare two calls */
    uint8_t *seen;        /* routers: visited on the path being checked */
} path_check;

static void check_one_path(void *ctx, const uint32_t *ports, uint32_t hops, double share)
{
    path_check *c = ctx;
    cr_assert(hops >= 1 && hops <= c->max_hops, "router %u to %u: a path of %u hops (path_hops %u)",
              c->src, c->dst, hops, c->max_hops);
    cr_assert(share > 0 && share <= 1.0 + 1e-12, "router %u to %u: share %g", c->src, c->dst,
              share);
    memset(c->seen, 0, c->t->info.routers);
    uint32_t at = c->src;
    c->seen[at] = 1;
    for (uint32_t i = 0; i < hops; i++) {
        insee_port_peer peer;
        cr_assert(ports[i] < c->t->vt->ports(c->t->self, at) &&
                      c->t->vt->link(c->t->self, at, ports[i], &peer),
                  "router %u to %u: hop %u leaves router %u by port %u, not a plugged port",
                  c->src, c->dst, i, at, ports[i]);
        at = peer.router;
        cr_assert(!c->seen[at], "router %u to %u: the path comes back to router %u", c->src,
                  c->dst, at);
        c->seen[at] = 1;
        c->fingerprint = c->fingerprint * 1000003u + ports[i] + 1;
    }
    cr_assert_eq(at, c->dst, "router %u to %u: the path ends at router %u", c->src, c->dst, at);
    c->fingerprint = c->fingerprint * 31u + (uint64_t)(share * 1e9);
    c->given++;
    c->shares += share;
    c->weighted += share * hops;
}

double fam_check_paths(const fam *t, bool routable)
{
    static const uint32_t salts[] = {0u, 1u, 0x9e3779b9u};
    cr_assert_not_null(t->vt->paths, "the topology has no routing of its own (paths)");
    cr_assert_not_null(t->vt->path_hops, "paths() without path_hops()");
    uint32_t max_hops = t->vt->path_hops(t->self);
    uint8_t *seen = malloc(t->info.routers);
    double sum = 0;
    for (uint32_t s = 0; s < t->info.routers; s++)
        for (uint32_t d = 0; d < t->info.routers; d++) {
            if (s == d)
                continue;
            for (size_t k = 0; k < sizeof salts / sizeof salts[0]; k++) {
                path_check a = {.t = t, .src = s, .dst = d, .max_hops = max_hops, .seen = seen};
                path_check b = a;
                uint32_t n = t->vt->paths(t->self, s, d, salts[k], check_one_path, &a);
                t->vt->paths(t->self, s, d, salts[k], check_one_path, &b);
                cr_assert_eq(n, a.given, "router %u to %u: returned %u, added %u", s, d, n,
                             a.given);
                cr_assert(a.given == b.given && a.fingerprint == b.fingerprint,
                          "router %u to %u: other paths when asked again", s, d);
                if (routable)
                    cr_assert_gt(a.given, 0u, "router %u to %u: no path", s, d);
                if (a.given)
                    cr_assert_float_eq(a.shares, 1.0, 1e-9, "router %u to %u: shares sum to %g",
                                       s, d, a.shares);
                if (k == 0)
                    sum += a.weighted;
            }
        }
    free(seen);
    return sum;
}

void fam_keep_path(void *ctx, const uint32_t *ports, uint32_t hops, double share)
{
    fam_paths *g = ctx;
    cr_assert_lt(g->count, FAM_PATHS);
    cr_assert_leq(hops, FAM_PATH_HOPS);
    g->hops[g->count] = hops;
    g->share[g->count] = share;
    memcpy(g->ports[g->count], ports, hops * sizeof *ports);
    g->count++;
}
