/* families.c — create topology plugins with any parameters on the mock host,
 * and the checks every family's tests run against a BFS over link(). */
#include "families.h"
#include "topo_check.h"

#include <criterion/criterion.h>
#include <stdlib.h>

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
