/* shortest.c — the graph and its cached distance tables; see shortest.h. */
#include "shortest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void routing_graph_free(routing_graph *g)
{
    if (!g)
        return;
    free(g->port_base);
    free(g->peer);
    free(g->in_base);
    free(g->in_from);
    free(g->slot_dst);
    free(g->tables);
    free(g->queue);
    free(g);
}

/* The links backwards: for each router, the routers that feed it. */
static bool build_reverse(routing_graph *g)
{
    uint32_t n = g->routers, links = g->port_base[n];
    g->in_base = calloc((size_t)n + 1, sizeof *g->in_base);
    g->in_from = malloc(sizeof *g->in_from * (links ? links : 1));
    if (!g->in_base || !g->in_from)
        return false;
    for (uint32_t p = 0; p < links; p++)
        if (g->peer[p] != ROUTING_UNREACHABLE)
            g->in_base[g->peer[p] + 1]++;
    for (uint32_t r = 0; r < n; r++)
        g->in_base[r + 1] += g->in_base[r];
    uint32_t *fill = g->queue; /* scratch: the next free entry of each router */
    memcpy(fill, g->in_base, sizeof *fill * n);
    for (uint32_t r = 0; r < n; r++)
        for (uint32_t p = g->port_base[r]; p < g->port_base[r + 1]; p++)
            if (g->peer[p] != ROUTING_UNREACHABLE)
                g->in_from[fill[g->peer[p]]++] = r;
    return true;
}

routing_graph *routing_graph_read(const char *who, const routing_graph_source *src,
                                  double table_mb, insee_error *err)
{
    routing_graph *g = calloc(1, sizeof *g);
    uint32_t n = src->routers;
    if (g) {
        g->routers = n;
        g->port_base = malloc(sizeof *g->port_base * ((size_t)n + 1));
        g->queue = malloc(sizeof *g->queue * (n ? n : 1));
    }
    if (!g || !g->port_base || !g->queue)
        goto nomem;
    g->port_base[0] = 0;
    for (uint32_t r = 0; r < n; r++)
        g->port_base[r + 1] = g->port_base[r] + src->ports(src->ctx, r);
    g->peer = malloc(sizeof *g->peer * (g->port_base[n] ? g->port_base[n] : 1));
    if (!g->peer)
        goto nomem;
    for (uint32_t r = 0; r < n; r++) {
        for (uint32_t p = g->port_base[r]; p < g->port_base[r + 1]; p++) {
            insee_port_peer to;
            g->peer[p] = src->peer(src->ctx, r, p - g->port_base[r], &to)
                             ? to.router
                             : ROUTING_UNREACHABLE;
        }
    }
    if (!build_reverse(g))
        goto nomem;
    double fit = table_mb * 1048576.0 / ((double)sizeof(uint32_t) * (n ? n : 1));
    g->slots = fit < 1 ? 1 : fit > n ? (n ? n : 1) : (uint32_t)fit;
    g->slot_dst = malloc(sizeof *g->slot_dst * g->slots);
    g->tables = malloc(sizeof *g->tables * (size_t)g->slots * (n ? n : 1));
    if (!g->slot_dst || !g->tables)
        goto nomem;
    memset(g->slot_dst, 0xff, sizeof *g->slot_dst * g->slots);
    return g;
nomem:
    insee_error_set(err, INSEE_ERR_NOMEM, "%s: out of memory for the graph of %u routers", who,
                    n);
    routing_graph_free(g);
    return NULL;
}

static uint32_t host_ports(void *ctx, uint32_t router)
{
    const insee_host *host = ctx;
    return host->ports(host->kernel, router);
}

static bool host_peer(void *ctx, uint32_t router, uint32_t port, insee_port_peer *out)
{
    const insee_host *host = ctx;
    return host->peer(host->kernel, router, port, out);
}

routing_graph *routing_graph_new(const char *who, const insee_host *host, double table_mb,
                                 insee_error *err)
{
    insee_shape shape;
    host->shape(host->kernel, &shape);
    routing_graph_source src = {.routers = shape.routers, .ports = host_ports,
                                .peer = host_peer, .ctx = (void *)host};
    return routing_graph_read(who, &src, table_mb, err);
}

uint32_t routing_mix(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    return x ^ (x >> 16);
}

/* Breadth-first from dst along the links backwards. */
static void search(routing_graph *g, uint32_t dst, uint32_t *dist)
{
    memset(dist, 0xff, sizeof *dist * g->routers);
    uint32_t head = 0, tail = 0;
    dist[dst] = 0;
    g->queue[tail++] = dst;
    while (head < tail) {
        uint32_t r = g->queue[head++];
        for (uint32_t i = g->in_base[r]; i < g->in_base[r + 1]; i++) {
            uint32_t q = g->in_from[i];
            if (dist[q] == ROUTING_UNREACHABLE) {
                dist[q] = dist[r] + 1;
                g->queue[tail++] = q;
            }
        }
    }
}

const uint32_t *routing_graph_distances(routing_graph *g, uint32_t dst)
{
    uint32_t slot = dst % g->slots;
    uint32_t *table = g->tables + (size_t)slot * g->routers;
    if (g->slot_dst[slot] != dst) {
        search(g, dst, table);
        g->slot_dst[slot] = dst;
    }
    return table;
}

uint32_t routing_graph_path(const routing_graph *g, const uint32_t *dist, uint32_t src,
                            uint32_t dst, uint32_t (*pick)(uint32_t hop, uint32_t count,
                                                           uint32_t salt),
                            uint32_t salt, uint32_t *next, uint32_t *path)
{
    uint32_t hops = 0;
    for (uint32_t r = src; r != dst; hops++) {
        uint32_t n = routing_graph_next(g, dist, r, next);
        path[hops] = next[pick(hops, n, salt)];
        r = routing_graph_peer(g, r, path[hops]);
    }
    return hops;
}

uint32_t routing_graph_next(const routing_graph *g, const uint32_t *dist, uint32_t router,
                            uint32_t *out)
{
    uint32_t n = 0;
    for (uint32_t p = 0; p < routing_graph_ports(g, router); p++) {
        uint32_t q = routing_graph_peer(g, router, p);
        if (q != ROUTING_UNREACHABLE && dist[q] != ROUTING_UNREACHABLE &&
            dist[q] + 1 == dist[router])
            out[n++] = p;
    }
    return n;
}
