/* kernel/net/network.c — building the flat network arrays from a topology,
 * the packet pool and the queue FIFOs. See network.h for the layout. */
#include "net/network.h"

#include <string.h>

#include "engine/experiment.h"

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

static gboolean build_ports(insee_net *net, const insee_topology_vtable *topo, void *self,
                            GError **err)
{
    net->port_base = g_new(uint32_t, net->routers + 1);
    uint64_t total = 0;
    for (uint32_t r = 0; r < net->routers; r++) {
        net->port_base[r] = (uint32_t)total;
        uint32_t n = topo->ports(self, r);
        if (n > INSEE_PORT_LOCAL) /* the port numbers above are pseudo-ports */
            return fail(err, "topology: router %u reports %u ports (at most %u)", r, n,
                        INSEE_PORT_LOCAL);
        total += n;
    }
    /* Queue ids travel in events beside a 2-bit kind. */
    if (total * net->vcs + (uint64_t)net->nodes * net->injectors >= (1u << 30))
        return fail(err, "topology: %" G_GUINT64_FORMAT " ports with %u VCs is too large",
                    total, net->vcs);
    net->port_base[net->routers] = (uint32_t)total;
    net->ports_total = (uint32_t)total;
    net->port_router = g_new(uint32_t, total ? total : 1);
    for (uint32_t r = 0; r < net->routers; r++)
        for (uint32_t gp = net->port_base[r]; gp < net->port_base[r + 1]; gp++)
            net->port_router[gp] = r;
    return TRUE;
}

static gboolean build_links(insee_net *net, const insee_topology_vtable *topo, void *self,
                            GError **err)
{
    net->peer_queue = g_new(uint32_t, net->ports_total ? net->ports_total : 1);
    uint8_t *fed = g_new0(uint8_t, net->ports_total ? net->ports_total : 1);
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
    net->q_router = g_new(uint32_t, net->queues);
    net->q_port = g_new(uint16_t, net->queues);
    net->q_vc = g_new(uint8_t, net->queues);
    net->q_input = g_new(uint32_t, net->queues);
    for (uint32_t gp = 0; gp < net->ports_total; gp++) {
        uint32_t r = net->port_router[gp];
        for (uint32_t vc = 0; vc < net->vcs; vc++) {
            uint32_t q = gp * net->vcs + vc;
            net->q_router[q] = r;
            net->q_port[q] = (uint16_t)(gp - net->port_base[r]);
            net->q_vc[q] = (uint8_t)vc;
            net->q_input[q] = q - net->port_base[r] * net->vcs;
        }
    }
    for (uint32_t node = 0; node < net->nodes; node++) {
        uint32_t r = net->node_router[node];
        uint32_t ports = net->port_base[r + 1] - net->port_base[r];
        for (uint32_t j = 0; j < net->injectors; j++) {
            uint32_t q = insee_net_inject_queue(net, node, j);
            net->q_router[q] = r;
            net->q_port[q] = INSEE_PORT_INJECTION;
            net->q_vc[q] = (uint8_t)j;
            net->q_input[q] = ports * net->vcs + slot[node] * net->injectors + j;
        }
    }
}

gboolean insee_net_build(insee_net *net, const insee_topology_vtable *topo, void *self,
                         uint32_t vcs, uint32_t queue_packets, uint32_t inject_packets,
                         uint32_t injectors, GError **err)
{
    memset(net, 0, sizeof *net);
    insee_topology_info info = {0};
    topo->info(self, &info);
    if (info.routers == 0 || info.nodes == 0)
        return fail(err, "topology: it has %u routers and %u nodes; both must be at least 1",
                    info.routers, info.nodes);
    net->routers = info.routers;
    net->nodes = info.nodes;
    net->vcs = vcs;
    net->queue_packets = queue_packets;
    net->inject_packets = inject_packets;
    net->injectors = injectors;

    if (!build_ports(net, topo, self, err) || !build_links(net, topo, self, err))
        return FALSE;

    net->node_router = g_new(uint32_t, net->nodes);
    uint32_t *slot = g_new(uint32_t, net->nodes); /* rank of a node at its router */
    uint32_t *hosted = g_new0(uint32_t, net->routers);
    for (uint32_t n = 0; n < net->nodes; n++) {
        uint32_t r = topo->node_router(self, n);
        if (r >= net->routers) {
            g_free(hosted);
            g_free(slot);
            return fail(err, "topology: node %u attaches to router %u, but there are only %u",
                        n, r, net->routers);
        }
        net->node_router[n] = r;
        slot[n] = hosted[r]++;
    }
    g_free(hosted);

    net->transit_queues = net->ports_total * vcs;
    net->ovcs = net->transit_queues;
    net->outputs = net->ovcs + net->nodes;
    net->link_free_at = g_new0(uint64_t, net->ports_total + net->nodes);
    net->link_rr = g_new0(uint8_t, net->ports_total + 1);
    net->link_waiting = g_new0(uint8_t, net->ports_total + 1);
    net->ovc_free_at = g_new0(uint64_t, net->ovcs + 1);
    net->ovc_src = g_new(uint32_t, net->ovcs + 1);
    net->ovc_wait = g_new(uint32_t, net->ovcs + 1);
    memset(net->ovc_src, 0xff, sizeof(uint32_t) * (net->ovcs + 1));
    memset(net->ovc_wait, 0xff, sizeof(uint32_t) * (net->ovcs + 1));
    net->queues = net->transit_queues + net->nodes * injectors;
    net->q_head = g_new(uint32_t, net->queues);
    net->q_tail = g_new(uint32_t, net->queues);
    memset(net->q_head, 0xff, sizeof(uint32_t) * net->queues);
    memset(net->q_tail, 0xff, sizeof(uint32_t) * net->queues);
    net->q_count = g_new0(uint16_t, net->queues);
    net->q_flags = g_new0(uint8_t, net->queues);
    net->q_in_done = g_new0(uint64_t, net->queues);
    net->q_out_done = g_new0(uint64_t, net->queues);
    describe_queues(net, slot);
    g_free(slot);
    net->pkt_free = INSEE_NONE;
    return TRUE;
}

void insee_net_clear(insee_net *net)
{
    g_free(net->port_base);
    g_free(net->port_router);
    g_free(net->peer_queue);
    g_free(net->node_router);
    g_free(net->link_free_at);
    g_free(net->link_rr);
    g_free(net->link_waiting);
    g_free(net->ovc_free_at);
    g_free(net->ovc_src);
    g_free(net->ovc_wait);
    g_free(net->q_head);
    g_free(net->q_tail);
    g_free(net->q_count);
    g_free(net->q_flags);
    g_free(net->q_in_done);
    g_free(net->q_out_done);
    g_free(net->q_router);
    g_free(net->q_port);
    g_free(net->q_vc);
    g_free(net->q_input);
    g_free(net->pkt);
    g_free(net->pstate);
    memset(net, 0, sizeof *net);
}

/* Doubling keeps growth amortised and rare: the pool settles at the peak
   number of packets alive, so the time loop stops allocating after warm-up. */
static void grow_pool(insee_net *net)
{
    uint32_t old = net->pkt_cap;
    uint32_t cap = old ? old * 2 : 1024;
    net->pkt = g_renew(insee_packet, net->pkt, cap);
    if (net->pstate_size)
        net->pstate = g_realloc(net->pstate, (size_t)cap * net->pstate_size);
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
    return p;
}

void insee_net_packet_free(insee_net *net, uint32_t p)
{
    net->pkt[p].next = net->pkt_free;
    net->pkt_free = p;
}

void insee_net_reserve_slot(insee_net *net, uint32_t q)
{
    net->q_count[q]++;
    if (q < net->transit_queues)
        net->transit_used++;
}

gboolean insee_net_link(insee_net *net, uint32_t q, uint32_t p)
{
    net->pkt[p].next = INSEE_NONE;
    if (net->q_tail[q] == INSEE_NONE)
        net->q_head[q] = p;
    else
        net->pkt[net->q_tail[q]].next = p;
    net->q_tail[q] = p;
    return net->q_head[q] == p;
}

uint32_t insee_net_unlink_head(insee_net *net, uint32_t q)
{
    uint32_t p = net->q_head[q];
    net->q_head[q] = net->pkt[p].next;
    if (net->q_head[q] == INSEE_NONE)
        net->q_tail[q] = INSEE_NONE;
    net->pkt[p].next = INSEE_NONE;
    return p;
}

void insee_net_release_slot(insee_net *net, uint32_t q)
{
    net->q_count[q]--;
    if (q < net->transit_queues)
        net->transit_used--;
}
