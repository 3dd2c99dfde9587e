/* kernel/net/network.c — building the flat network arrays from a topology,
 * the packet pool and the queue FIFOs. See network.h for the layout. */
#include "net/network.h"

#include <stdlib.h>
#include <string.h>

#include "engine/experiment.h"
#include "net/memory.h"

static gboolean fail(GError **err, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
static gboolean fail(GError **err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    g_set_error_literal(err, INSEE_EXPERIMENT_ERROR, INSEE_EXPERIMENT_ERROR_SETUP, msg);
    g_free(msg);
    return FALSE;
}

/* Sum ports(r), checking the ports per router against the pseudo-ports. */
static gboolean count_ports(const insee_topology_vtable *topo, void *self, insee_net_size *s,
                            GError **err)
{
    s->ports = 0;
    s->max_ports = 0;
    for (uint32_t r = 0; r < s->routers; r++) {
        uint32_t n = topo->ports(self, r);
        if (n > INSEE_MAX_PORTS)
            return fail(err, "topology: router %u has %u ports; the kernel handles at most %u "
                        "per router: change the [topology] parameters that set the ports per "
                        "router", r, n, INSEE_MAX_PORTS);
        s->ports += n;
        s->max_ports = MAX(s->max_ports, n);
    }
    return TRUE;
}

/* What the packet engine's numbering holds, before anything is allocated:
   queue ids below INSEE_MAX_QUEUES (they travel in events beside a 2-bit
   kind), packets alive below INSEE_NONE, and the memory it all takes. */
static gboolean check_size(const insee_net_size *s, GError **err)
{
    insee_net_memory m = insee_net_memory_of(s);
    if (m.queues >= INSEE_MAX_QUEUES)
        return fail(err, "topology: %" G_GUINT64_FORMAT " ports x [router] vcs = %u, plus %"
                    G_GUINT64_FORMAT " nodes x injectors = %u, make %" G_GUINT64_FORMAT
                    " queues; the kernel numbers fewer than %u: use a smaller topology or "
                    "lower vcs or injectors", s->ports, s->vcs, s->nodes, s->injectors,
                    m.queues, INSEE_MAX_QUEUES);
    if (m.packets >= INSEE_NONE)
        return fail(err, "topology: the queues hold up to %" G_GUINT64_FORMAT " packets "
                    "([router] queue_packets = %u, inject_packets = %u); the kernel numbers "
                    "fewer than %u: lower queue_packets or inject_packets, or vcs",
                    m.packets, s->queue_packets, s->inject_packets, INSEE_NONE);
    const char *limit;
    uint64_t available = insee_memory_available(&limit);
    return insee_net_memory_check(s, available, limit, err);
}

/* The estimate passed but an allocation failed all the same (memory taken
   meanwhile, or overcommit refused). */
static gboolean no_memory(const insee_net *net, GError **err)
{
    return fail(err, "topology: out of memory for the network's arrays (%u routers, %u ports, "
                "%u queues); use a smaller topology or lower [router] vcs", net->routers,
                net->ports_total, net->queues);
}

#define INSEE_CACHE_LINE 64u

/* n records of `size` bytes from a cache line's start: the system's
   allocator gives large blocks 16 bytes past a page's start, and then half
   the records of a 32-byte array, and every one of a 64-byte array,
   straddle two lines. NULL when it cannot. Freed with free(). */
static void *lines_alloc(size_t n, size_t size)
{
    if (n && size > (SIZE_MAX - INSEE_CACHE_LINE) / n)
        return NULL;
    size_t bytes = (n * size + INSEE_CACHE_LINE) & ~(size_t)(INSEE_CACHE_LINE - 1);
    return aligned_alloc(INSEE_CACHE_LINE, bytes); /* a whole number of lines, as C asks */
}

static void *lines_alloc0(size_t n, size_t size)
{
    void *v = lines_alloc(n, size);
    if (v)
        memset(v, 0, n * size);
    return v;
}

/* As g_renew(), on lines_alloc()'s blocks: the first `old` records kept,
   the rest not zeroed. */
static void *lines_renew(void *v, size_t old, size_t n, size_t size)
{
    void *w = lines_alloc(n, size);
    if (!w)
        g_error("out of memory for %zu records of %zu bytes", n, size);
    if (v)
        memcpy(w, v, MIN(old, n) * size);
    free(v);
    return w;
}

/* Every array, or none: sizes come from the user, so a failure is an error
   to report, never an abort. The graph always; the queues and links' packet
   state only when the network has queues (the packet engine). */
static gboolean allocate(insee_net *net, GError **err)
{
    uint32_t P = net->ports_total, Q = net->queues;
    net->port_base = g_try_new(uint32_t, net->routers + 1);
    net->port_router = g_try_new(uint32_t, (size_t)P + 1);
    net->peer_queue = g_try_new(uint32_t, (size_t)P + 1);
    net->node_router = g_try_new(uint32_t, net->nodes);
    if (!(net->port_base && net->port_router && net->peer_queue && net->node_router))
        return no_memory(net, err);
    if (Q == 0)
        return TRUE;
    net->link = lines_alloc0((size_t)P + net->nodes + 1, sizeof(insee_link));
    net->ovc = lines_alloc0((size_t)net->ovcs + 1, sizeof(insee_ovc));
    net->q = lines_alloc0(Q, sizeof(insee_queue));
    net->q_at = lines_alloc0(Q, sizeof(insee_queue_at));
    if (net->link && net->ovc && net->q && net->q_at)
        return TRUE;
    return no_memory(net, err);
}

static void build_ports(insee_net *net, const insee_topology_vtable *topo, void *self)
{
    uint32_t total = 0;
    for (uint32_t r = 0; r < net->routers; r++) {
        net->port_base[r] = total;
        total += topo->ports(self, r);
        for (uint32_t gp = net->port_base[r]; gp < total; gp++)
            net->port_router[gp] = r;
    }
    net->port_base[net->routers] = total;
}

static gboolean build_links(insee_net *net, const insee_topology_vtable *topo, void *self,
                            GError **err)
{
    uint8_t *fed = g_try_new0(uint8_t, (size_t)net->ports_total + 1);
    if (!fed)
        return no_memory(net, err);
    gboolean ok = TRUE;
    for (uint32_t r = 0; r < net->routers && ok; r++) {
        for (uint32_t p = 0; p < net->port_base[r + 1] - net->port_base[r]; p++) {
            uint32_t gp = net->port_base[r] + p;
            insee_port_peer peer;
            if (!topo->link(self, r, p, &peer)) {
                net->peer_queue[gp] = INSEE_NONE;
                continue;
            }
            if (peer.router >= net->routers ||
                peer.port >= net->port_base[peer.router + 1] - net->port_base[peer.router]) {
                ok = fail(err, "topology: router %u port %u links to router %u port %u, "
                          "which does not exist", r, p, peer.router, peer.port);
                break;
            }
            uint32_t in = net->port_base[peer.router] + peer.port;
            if (fed[in]++) {
                ok = fail(err, "topology: input port %u of router %u is fed by two links "
                          "(the second from router %u port %u)", peer.port, peer.router, r, p);
                break;
            }
            net->peer_queue[gp] = in * net->vcs;
        }
    }
    g_free(fed);
    return ok;
}
/* Where each queue sits, so the time loop never divides to find out. */
static void describe_queues(insee_net *net, const uint32_t *slot)
{
    for (uint32_t gp = 0; gp < net->ports_total; gp++) {
        uint32_t r = net->port_router[gp];
        for (uint32_t vc = 0; vc < net->vcs; vc++) {
            uint32_t q = gp * net->vcs + vc;
            net->q_at[q].router = r;
            net->q_at[q].port = (uint16_t)(gp - net->port_base[r]);
            net->q_at[q].vc = (uint8_t)vc;
            net->q_at[q].input = q - net->port_base[r] * net->vcs;
        }
    }
    for (uint32_t node = 0; node < net->nodes; node++) {
        uint32_t r = net->node_router[node];
        uint32_t ports = net->port_base[r + 1] - net->port_base[r];
        for (uint32_t j = 0; j < net->injectors; j++) {
            uint32_t q = insee_net_inject_queue(net, node, j);
            net->q_at[q].router = r;
            net->q_at[q].port = INSEE_PORT_INJECTION;
            net->q_at[q].vc = (uint8_t)j;
            net->q_at[q].input = ports * net->vcs + slot[node] * net->injectors + j;
        }
    }
}

static gboolean attach_nodes(insee_net *net, const insee_topology_vtable *topo, void *self,
                             GError **err)
{
    uint32_t *slot = g_try_new(uint32_t, net->nodes); /* rank of a node at its router */
    uint32_t *hosted = g_try_new0(uint32_t, net->routers);
    gboolean ok = slot && hosted ? TRUE : no_memory(net, err);
    for (uint32_t n = 0; ok && n < net->nodes; n++) {
        uint32_t r = topo->node_router(self, n);
        if (r >= net->routers) {
            ok = fail(err, "topology: node %u attaches to router %u, but there are only %u", n,
                      r, net->routers);
            break;
        }
        net->node_router[n] = r;
        slot[n] = hosted[r]++;
    }
    if (ok && net->queues)
        describe_queues(net, slot);
    g_free(hosted);
    g_free(slot);
    return ok;
}

/* The network of `size` (its vcs and queue sizes set, the rest filled
   here): with the packet engine's queues, or the graph alone. */
static gboolean build(insee_net *net, const insee_topology_vtable *topo, void *self,
                      insee_net_size *size, gboolean queues, GError **err)
{
    memset(net, 0, sizeof *net);
    insee_topology_info info = {0};
    topo->info(self, &info);
    if (info.routers == 0 || info.nodes == 0)
        return fail(err, "topology: it has %u routers and %u nodes; both must be at least 1",
                    info.routers, info.nodes);
    size->routers = info.routers;
    size->nodes = info.nodes;
    if (!count_ports(topo, self, size, err) || (queues && !check_size(size, err)))
        return FALSE;
    if (!queues && size->ports * size->vcs >= INSEE_NONE)
        return fail(err, "topology: %" G_GUINT64_FORMAT " ports x [router] vcs = %u input "
                    "queues; the kernel numbers fewer than %u: use a smaller topology or "
                    "lower vcs", size->ports, size->vcs, INSEE_NONE);
    net->routers = info.routers;
    net->nodes = info.nodes;
    net->vcs = size->vcs;
    net->queue_packets = size->queue_packets;
    net->inject_packets = size->inject_packets;
    net->injectors = size->injectors;
    net->ports_total = (uint32_t)size->ports;
    net->max_ports = size->max_ports;
    if (queues) {
        insee_net_memory m = insee_net_memory_of(size);
        net->transit_queues = net->ports_total * size->vcs;
        net->ovcs = net->transit_queues;
        net->outputs = net->ovcs + net->nodes;
        net->queues = (uint32_t)m.queues;
        net->pkt_bound = (uint32_t)insee_net_pool_cap(m.packets);
    }
    gboolean ok = allocate(net, err);
    if (ok)
        build_ports(net, topo, self);
    if (!ok || !build_links(net, topo, self, err) || !attach_nodes(net, topo, self, err)) {
        insee_net_clear(net);
        return FALSE;
    }
    return TRUE;
}

gboolean insee_net_build(insee_net *net, const insee_topology_vtable *topo, void *self,
                         uint32_t vcs, uint32_t queue_packets, uint32_t inject_packets,
                         uint32_t injectors, GError **err)
{
    insee_net_size size = {.vcs = vcs, .queue_packets = queue_packets,
                           .inject_packets = inject_packets, .injectors = injectors};
    if (!build(net, topo, self, &size, TRUE, err))
        return FALSE;
    for (uint32_t o = 0; o <= net->ovcs; o++)
        net->ovc[o].src = net->ovc[o].wait = INSEE_NONE;
    for (uint32_t q = 0; q < net->queues; q++)
        net->q[q].head = net->q[q].tail = INSEE_NONE;
    net->pkt_free = INSEE_NONE;
    return TRUE;
}

gboolean insee_net_build_graph(insee_net *net, const insee_topology_vtable *topo, void *self,
                               uint32_t vcs, uint32_t queue_packets, uint32_t inject_packets,
                               uint32_t injectors, GError **err)
{
    insee_net_size size = {.vcs = vcs, .queue_packets = queue_packets,
                           .inject_packets = inject_packets, .injectors = injectors};
    return build(net, topo, self, &size, FALSE, err);
}

void insee_net_clear(insee_net *net)
{
    g_free(net->port_base);
    g_free(net->port_router);
    g_free(net->peer_queue);
    g_free(net->node_router);
    g_free(net->failed);
    free(net->link);
    free(net->ovc);
    free(net->q);
    free(net->q_at);
    free(net->pkt);
    g_free(net->pstate);
    g_free(net->tail);
    memset(net, 0, sizeof *net);
}

/* Doubling keeps growth amortised and rare: the pool settles at the peak
   number of packets alive, so the time loop stops allocating after warm-up. */
static void grow_pool(insee_net *net)
{
    uint32_t old = net->pkt_cap;
    /* No further than the queues can hold (the figure the memory estimate
       counted), unless the pool is already there. */
    uint64_t want = old < net->pkt_bound ? MIN((uint64_t)old * 2, net->pkt_bound)
                                         : (uint64_t)old * 2;
    uint32_t cap = (uint32_t)MAX(want, INSEE_POOL_FIRST);
    g_assert(want < INSEE_NONE); /* insee_net_build() refused larger queues */
    net->pkt = lines_renew(net->pkt, old, cap, sizeof(insee_packet));
    if (net->pstate_size)
        net->pstate = g_realloc(net->pstate, (size_t)cap * net->pstate_size);
    if (net->track_tail)
        net->tail = g_renew(uint64_t, net->tail, cap);
    for (uint32_t p = cap; p-- > old;) {
        net->pkt[p].next = net->pkt_free;
        net->pkt_free = p;
    }
    net->pkt_cap = cap;
}

uint32_t insee_net_packet_new(insee_net *net)
{
    if (net->pkt_free == INSEE_NONE)
        grow_pool(net);
    uint32_t p = net->pkt_free;
    net->pkt_free = net->pkt[p].next;
    memset(&net->pkt[p], 0, sizeof net->pkt[p]);
    net->pkt[p].next = INSEE_NONE;
    if (net->pstate_size)
        memset(insee_net_packet_state(net, p), 0, net->pstate_size);
    if (net->tail)
        net->tail[p] = 0;
    return p;
}

void insee_net_packet_free(insee_net *net, uint32_t p)
{
    net->pkt[p].next = net->pkt_free;
    net->pkt_free = p;
}

void insee_net_add_units(insee_net *net, uint32_t q, int32_t units)
{
    if (net->count_changes)
        net->count_changes(net->count_ctx, q, net->q[q].count);
    net->q[q].count = (uint16_t)(net->q[q].count + units);
    if (q < net->transit_queues)
        net->transit_used += (uint64_t)(int64_t)units;
}

void insee_net_reserve_slot(insee_net *net, uint32_t q, uint32_t p)
{
    insee_net_add_units(net, q, (int32_t)insee_net_units(net, p));
}

gboolean insee_net_link(insee_net *net, uint32_t q, uint32_t p)
{
    net->pkt[p].next = INSEE_NONE;
    if (net->q[q].tail == INSEE_NONE)
        net->q[q].head = p;
    else
        net->pkt[net->q[q].tail].next = p;
    net->q[q].tail = p;
    return net->q[q].head == p;
}

uint32_t insee_net_unlink_head(insee_net *net, uint32_t q)
{
    uint32_t p = net->q[q].head;
    net->q[q].head = net->pkt[p].next;
    if (net->q[q].head == INSEE_NONE)
        net->q[q].tail = INSEE_NONE;
    net->q[q].leaving = (uint16_t)insee_net_units(net, p);
    net->pkt[p].next = INSEE_NONE;
    return p;
}

void insee_net_release_slot(insee_net *net, uint32_t q)
{
    insee_net_add_units(net, q, -(int32_t)net->q[q].leaving);
}
