/* topo_check.c — a topology's link table, BFS over it, and the checks of
 * topology.h against that BFS (topo_check.h). */
#include "topo_check.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void topo_read(topo_table *t, const insee_topology_vtable *vt, void *self)
{
    *t = (topo_table){.vt = vt, .self = self};
    vt->info(self, &t->info);
    uint32_t N = t->info.routers;
    t->first = malloc(sizeof *t->first * ((size_t)N + 1));
    t->first[0] = 0;
    for (uint32_t r = 0; r < N; r++)
        t->first[r + 1] = t->first[r] + vt->ports(self, r);
    /* One spare entry: a network of unplugged routers still gets an array. */
    t->peer = malloc(sizeof *t->peer * ((size_t)t->first[N] + 1));
    for (uint32_t r = 0; r < N; r++)
        for (uint32_t p = 0; p < t->first[r + 1] - t->first[r]; p++) {
            insee_port_peer *to = &t->peer[t->first[r] + p];
            if (!vt->link(self, r, p, to))
                *to = (insee_port_peer){TOPO_NONE, TOPO_NONE};
        }
}

void topo_table_free(topo_table *t)
{
    free(t->first);
    free(t->peer);
}

static uint32_t ports_of(const topo_table *t, uint32_t router)
{
    return t->first[router + 1] - t->first[router];
}

const insee_port_peer *topo_peer(const topo_table *t, uint32_t router, uint32_t port)
{
    const insee_port_peer *to = &t->peer[t->first[router] + port];
    return to->router == TOPO_NONE ? NULL : to;
}

uint32_t topo_bfs(const topo_table *t, uint32_t src, uint32_t *dist)
{
    uint32_t N = t->info.routers;
    uint32_t *queue = malloc(sizeof *queue * N);
    for (uint32_t r = 0; r < N; r++)
        dist[r] = TOPO_NONE;
    dist[src] = 0;
    uint32_t head = 0, tail = 0;
    queue[tail++] = src;
    while (head < tail) {
        uint32_t r = queue[head++];
        for (uint32_t i = t->first[r]; i < t->first[r + 1]; i++) {
            uint32_t to = t->peer[i].router; /* TOPO_NONE (unplugged) is >= N too */
            if (to < N && dist[to] == TOPO_NONE) {
                dist[to] = dist[r] + 1;
                queue[tail++] = to;
            }
        }
    }
    free(queue);
    return tail;
}

uint32_t *topo_bfs_all(const topo_table *t)
{
    uint32_t N = t->info.routers;
    uint32_t *bfs = malloc(sizeof *bfs * N * N);
    for (uint32_t s = 0; s < N; s++)
        topo_bfs(t, s, bfs + (size_t)s * N);
    return bfs;
}

bool topo_same_links(const topo_table *a, const topo_table *b, char *why, size_t why_len)
{
    uint32_t N = a->info.routers;
    if (b->info.routers != N) {
        if (why)
            snprintf(why, why_len, "%u routers against %u", N, b->info.routers);
        return false;
    }
    for (uint32_t r = 0; r < N; r++) {
        uint32_t ports = ports_of(a, r);
        if (ports_of(b, r) != ports) {
            if (why)
                snprintf(why, why_len, "router %u: %u ports against %u", r, ports,
                         ports_of(b, r));
            return false;
        }
        for (uint32_t p = 0; p < ports; p++) {
            const insee_port_peer *x = &a->peer[a->first[r] + p], *y = &b->peer[b->first[r] + p];
            if (x->router != y->router || x->port != y->port) {
                if (why) {
                    char xs[48] = "unplugged", ys[48] = "unplugged";
                    if (x->router != TOPO_NONE)
                        snprintf(xs, sizeof xs, "router %u port %u", x->router, x->port);
                    if (y->router != TOPO_NONE)
                        snprintf(ys, sizeof ys, "router %u port %u", y->router, y->port);
                    snprintf(why, why_len, "link(%u, %u): %s against %s", r, p, xs, ys);
                }
                return false;
            }
        }
    }
    return true;
}

uint32_t topo_check_links(const topo_table *t)
{
    uint32_t N = t->info.routers, widest = 0, plugged = 0;
    bool symmetric = !(t->info.flags & INSEE_TOPO_DIRECTED);
    /* An input is indexed like the output of the same number. */
    uint8_t *fed = calloc((size_t)t->first[N] + 1, 1);
    for (uint32_t r = 0; r < N; r++) {
        uint32_t ports = ports_of(t, r);
        widest = ports > widest ? ports : widest;
        for (uint32_t p = 0; p < ports; p++) {
            const insee_port_peer *to = topo_peer(t, r, p);
            if (!to)
                continue;
            plugged++;
            cr_assert_lt(to->router, N, "link(%u, %u) to router %u of %u", r, p, to->router, N);
            cr_assert_lt(to->port, ports_of(t, to->router),
                         "link(%u, %u) to port %u of router %u, which has %u", r, p, to->port,
                         to->router, ports_of(t, to->router));
            cr_assert_neq(to->router, r, "link(%u, %u) loops back to its router", r, p);
            cr_assert_eq(fed[t->first[to->router] + to->port]++, 0,
                         "input %u of router %u fed twice", to->port, to->router);
            if (!symmetric)
                continue;
            const insee_port_peer *back = topo_peer(t, to->router, to->port);
            cr_assert_not_null(back, "link(%u, %u) has no way back", r, p);
            cr_assert_eq(back->router, r, "link(%u, %u) does not come back", r, p);
            cr_assert_eq(back->port, p, "link(%u, %u) comes back into port %u", r, p, back->port);
        }
    }
    cr_assert_eq(t->info.max_ports, widest, "info.max_ports %u, largest router %u ports",
                 t->info.max_ports, widest);
    free(fed);
    return plugged;
}

uint64_t topo_check_distances(const topo_table *t, const uint32_t *bfs, uint32_t *diameter)
{
    uint32_t N = t->info.routers;
    for (uint32_t s = 0; s < N; s++)
        for (uint32_t x = 0; x < N; x++)
            cr_assert_neq(bfs[(size_t)s * N + x], TOPO_NONE, "router %u does not reach router %u",
                          s, x);
    bool *hosts = calloc(N, sizeof *hosts);
    for (uint32_t node = 0; node < t->info.nodes; node++) {
        uint32_t x = t->vt->node_router(t->self, node);
        cr_assert_lt(x, N, "node_router(%u) = %u of %u routers", node, x, N);
        hosts[x] = true;
        for (uint32_t r = 0; r < N; r++)
            cr_assert_eq(t->vt->distance(t->self, r, node), bfs[(size_t)r * N + x],
                         "distance(router %u, node %u)", r, node);
    }
    uint64_t sum = 0;
    *diameter = 0;
    for (uint32_t s = 0; s < N; s++)
        for (uint32_t x = 0; x < N; x++)
            if (hosts[s] && hosts[x]) {
                uint32_t d = bfs[(size_t)s * N + x];
                sum += d;
                *diameter = d > *diameter ? d : *diameter;
            }
    free(hosts);
    return sum;
}

uint32_t topo_check_hops(const topo_table *t, const uint32_t *bfs, uint32_t r, uint32_t node,
                         uint32_t salt, insee_hop *out, uint32_t cap)
{
    const insee_topology_vtable *vt = t->vt;
    uint32_t N = t->info.routers, ports = ports_of(t, r);
    uint32_t x = vt->node_router(t->self, node), dist = bfs[(size_t)r * N + x];
    /* Fewer entries than ports could cut the list short of a minimal port. */
    cr_assert_geq(cap, ports, "room for %u hops at a router of %u ports", cap, ports);
    uint32_t n = vt->minimal_hops(t->self, r, node, salt, out, cap);
    cr_assert_leq(n, cap, "%u -> node %u: %u hops written into %u", r, node, n, cap);
    cr_assert_eq(n == 0, r == x, "router %u, node %u: %u hops", r, node, n);
    bool *listed = calloc((size_t)ports + 1, sizeof *listed);
    for (uint32_t i = 0; i < n; i++) {
        const insee_hop *h = &out[i];
        cr_assert_lt(h->port, ports, "%u -> node %u: port %u of %u", r, node, h->port, ports);
        cr_assert(!listed[h->port], "%u -> node %u: port %u listed twice", r, node, h->port);
        listed[h->port] = true;
        /* The first hop is the topology's pick (a twisted torus may draw a
           higher dimension first); the rest come in dimension order. */
        if (i > 1)
            cr_assert_geq(h->dim, out[i - 1].dim, "%u -> node %u: not in dimension order", r,
                          node);
        if (vt->port_info) {
            insee_hop info;
            vt->port_info(t->self, r, h->port, &info);
            cr_assert_eq(info.port, h->port);
            cr_assert_eq(h->dim, info.dim, "%u -> node %u port %u", r, node, h->port);
            cr_assert_eq(h->dir, info.dir, "%u -> node %u port %u", r, node, h->port);
        } else {
            cr_assert_eq(h->dim, -1, "no port_info(), so no dimension either");
        }
        const insee_port_peer *to = topo_peer(t, r, h->port);
        cr_assert_not_null(to, "%u -> node %u: port %u is unplugged", r, node, h->port);
        cr_assert_eq(bfs[(size_t)to->router * N + x] + 1, dist,
                     "%u -> node %u via port %u does not reduce the distance", r, node, h->port);
    }
    for (uint32_t p = 0; p < ports; p++) {
        const insee_port_peer *to = topo_peer(t, r, p);
        if (to && bfs[(size_t)to->router * N + x] + 1 == dist)
            cr_assert(listed[p], "%u -> node %u: minimal port %u not listed", r, node, p);
    }
    free(listed);
    /* A router that reads only the first hop asks for one. */
    if (n > 0) {
        insee_hop one;
        cr_assert_eq(vt->minimal_hops(t->self, r, node, salt, &one, 1), 1u);
        cr_assert(memcmp(&one, &out[0], sizeof one) == 0, "%u -> node %u: max = 1 changes the "
                  "first hop", r, node);
    }
    insee_hop none;
    cr_assert_eq(vt->minimal_hops(t->self, r, node, salt, &none, 0), 0u,
                 "%u -> node %u: max = 0 writes nothing", r, node);
    return n;
}
