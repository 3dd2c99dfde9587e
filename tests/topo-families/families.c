/* families.c — create topology plugins with any parameters on the mock host,
 * and the checks every family's tests run against a BFS over link(). */
#include "families.h"

#include <criterion/criterion.h>
#include <stdlib.h>

insee_value value_int(int64_t i)
{
    return (insee_value){.type = INSEE_PARAM_INT, .i = i, .d = (double)i};
}

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

void fam_check_links(const fam *t)
{
    uint32_t N = t->info.routers, P = t->info.max_ports;
    uint8_t *fed = calloc((size_t)N * P, 1);
    for (uint32_t r = 0; r < N; r++) {
        uint32_t ports = t->vt->ports(t->self, r);
        cr_assert_leq(ports, P);
        for (uint32_t p = 0; p < ports; p++) {
            insee_port_peer peer, back;
            if (!t->vt->link(t->self, r, p, &peer))
                continue;
            cr_assert_lt(peer.router, N, "link(%u, %u) to router %u", r, p, peer.router);
            cr_assert_lt(peer.port, t->vt->ports(t->self, peer.router));
            cr_assert_neq(peer.router, r, "link(%u, %u) loops back to its router", r, p);
            cr_assert_eq(fed[(size_t)peer.router * P + peer.port]++, 0,
                         "input %u of router %u fed twice", peer.port, peer.router);
            cr_assert(t->vt->link(t->self, peer.router, peer.port, &back));
            cr_assert_eq(back.router, r, "link(%u, %u) does not come back", r, p);
            cr_assert_eq(back.port, p, "link(%u, %u) comes back into port %u", r, p, back.port);
        }
    }
    free(fed);
}

uint32_t *fam_bfs(const fam *t)
{
    uint32_t N = t->info.routers;
    uint32_t *dist = malloc(sizeof *dist * N * N), *queue = malloc(sizeof *queue * N);
    for (uint32_t s = 0; s < N; s++) {
        uint32_t *row = dist + (size_t)s * N, head = 0, tail = 0;
        for (uint32_t x = 0; x < N; x++)
            row[x] = UINT32_MAX;
        row[s] = 0;
        queue[tail++] = s;
        while (head < tail) {
            uint32_t r = queue[head++];
            for (uint32_t p = 0; p < t->vt->ports(t->self, r); p++) {
                insee_port_peer peer;
                if (t->vt->link(t->self, r, p, &peer) && row[peer.router] == UINT32_MAX) {
                    row[peer.router] = row[r] + 1;
                    queue[tail++] = peer.router;
                }
            }
        }
    }
    free(queue);
    return dist;
}

uint64_t fam_check_distances(const fam *t, const uint32_t *bfs, uint32_t *diameter)
{
    uint32_t N = t->info.routers;
    uint64_t sum = 0;
    *diameter = 0;
    for (uint32_t s = 0; s < N; s++)
        for (uint32_t x = 0; x < N; x++) {
            uint32_t d = bfs[(size_t)s * N + x];
            cr_assert_neq(d, UINT32_MAX, "router %u does not reach router %u", s, x);
            sum += d;
            *diameter = d > *diameter ? d : *diameter;
        }
    for (uint32_t s = 0; s < N; s++)
        for (uint32_t node = 0; node < t->info.nodes; node++) {
            uint32_t x = t->vt->node_router(t->self, node);
            cr_assert_eq(t->vt->distance(t->self, s, node), bfs[(size_t)s * N + x],
                         "distance(%u, node %u)", s, node);
        }
    return sum;
}

/* One (router, node) pair of fam_check_minimal_hops. */
static void check_pair(const fam *t, const uint32_t *bfs, uint32_t r, uint32_t node, uint32_t salt)
{
    uint32_t N = t->info.routers, P = t->info.max_ports;
    uint32_t x = t->vt->node_router(t->self, node), dist = bfs[(size_t)r * N + x];
    insee_hop hops[512];
    cr_assert_leq(P, 512u);
    uint32_t n = t->vt->minimal_hops(t->self, r, node, salt, hops, 512);
    cr_assert_eq(n == 0, r == x, "router %u, node %u: %u hops", r, node, n);
    bool listed[512] = {0};
    for (uint32_t i = 0; i < n; i++) {
        const insee_hop *h = &hops[i];
        cr_assert_lt(h->port, t->vt->ports(t->self, r));
        cr_assert(!listed[h->port], "%u -> node %u: port %u listed twice", r, node, h->port);
        listed[h->port] = true;
        if (i > 0)
            cr_assert_geq(h->dim, hops[i - 1].dim, "%u -> node %u: not in dimension order", r,
                          node);
        if (t->vt->port_info) {
            insee_hop info;
            t->vt->port_info(t->self, r, h->port, &info);
            cr_assert_eq(info.port, h->port);
            cr_assert_eq(h->dim, info.dim);
            cr_assert_eq(h->dir, info.dir);
        } else {
            cr_assert_eq(h->dim, -1, "no port_info(), so no dimension either");
        }
        insee_port_peer peer;
        cr_assert(t->vt->link(t->self, r, h->port, &peer));
        cr_assert_eq(bfs[(size_t)peer.router * N + x] + 1, dist,
                     "%u -> node %u via port %u does not reduce the distance", r, node, h->port);
    }
    for (uint32_t p = 0; p < t->vt->ports(t->self, r); p++) {
        insee_port_peer peer;
        if (t->vt->link(t->self, r, p, &peer) && bfs[(size_t)peer.router * N + x] + 1 == dist)
            cr_assert(listed[p], "%u -> node %u: minimal port %u not listed", r, node, p);
    }
    if (n > 0) {
        insee_hop one;
        cr_assert_eq(t->vt->minimal_hops(t->self, r, node, salt, &one, 1), 1u);
        cr_assert_eq(one.port, hops[0].port, "the first hop depends on max");
    }
}

void fam_check_minimal_hops(const fam *t, const uint32_t *bfs)
{
    static const uint32_t salts[] = {0u, 1u, 0x12345u};
    for (uint32_t r = 0; r < t->info.routers; r++)
        for (uint32_t node = 0; node < t->info.nodes; node++)
            for (size_t s = 0; s < sizeof salts / sizeof salts[0]; s++)
                check_pair(t, bfs, r, node, salts[s]);
}

uint32_t *fam_check_all(const fam *t)
{
    fam_check_links(t);
    uint32_t *bfs = fam_bfs(t);
    uint32_t diameter;
    fam_check_distances(t, bfs, &diameter);
    cr_assert_eq(t->info.diameter, diameter, "info.diameter %u, BFS %u", t->info.diameter,
                 diameter);
    fam_check_minimal_hops(t, bfs);
    return bfs;
}
