/* kernel/engine/wormhole.c — wormhole flow control, flit by flit
 * (wormhole.h, docs/model.md).
 *
 * Why flits: under virtual cut-through a packet is whole in one buffer once
 * its head stops, so its head and tail times say everything (NSIM §3.1).
 * Under wormhole a blocked packet stays spread over the buffers it holds,
 * and the flits of several packets share a link cycle by cycle, so when a
 * flit may move depends on every flit ahead of it: there is no packet-level
 * shortcut that keeps the timing exact. This mode moves flits, and costs
 * accordingly.
 *
 * Each VC's buffer holds the packet it is forwarding (`cur`, its head gone
 * on) and behind it a FIFO of packets whose heads have not left (the
 * network's queue: a packet is in one FIFO at a time, so it joins the next
 * one as its head leaves), with two counts: the flits present, and the
 * flits of its first packet already forwarded. Flits arrive and leave in
 * order, so the first packet's flits available are min(present, length -
 * forwarded).
 *
 * A head flit present at cycle t is routed at t + routing (the router
 * plugin's candidates), then asks for an output VC each cycle until one is
 * free (round robin among the VCs asking for it); from VC allocation +
 * vc_alloc on, each of its flits with a credit downstream competes for the
 * switch: one flit per input port and per output port a cycle, each chosen
 * round robin (a separable allocator). A flit that wins at cycle s is in the
 * next router's buffer at s + switch_alloc + switch_traversal + 1 + cable,
 * and its credit is back upstream `credit` + cable cycles after it left. The tail
 * frees the output VC as it leaves. At the destination the ejection port
 * takes a flit a cycle; the tail reaches the node node_cable cycles after.
 */
#include "engine/wormhole.h"

#include <string.h>

#include "engine/engine.h"
#include "engine/partition.h"

/* The wheel's events here, in events.h's two bits of kind: a flit in a
   buffer (id: its queue), a credit back (id: the queue it left), a tail at
   its node (id: the packet). */
#define EV_FLIT ((insee_event_kind)0)
#define EV_CREDIT ((insee_event_kind)1)
#define EV_DELIVER ((insee_event_kind)2)

enum { VC_IDLE, VC_ROUTE, VC_ALLOC, VC_ACTIVE };

/* Candidates a head keeps from its routing for VC allocation. */
#define KEPT 4u

typedef struct wh_vc {
    uint64_t ready;     /* the cycle its current stage is done */
    uint32_t cur;       /* the packet it is forwarding, or INSEE_NONE */
    uint32_t out;       /* active: its output VC, or ovcs + dst * vcs + vc to eject */
    uint32_t port;      /* active: that VC's output port (out_port()) */
    uint16_t present;   /* transit: flits in the buffer */
    uint16_t sent;      /* flits of its first packet forwarded */
    uint8_t state;      /* VC_* */
    uint8_t ncand;
    uint8_t listed;     /* in `busy` */
    uint8_t asking;     /* asks the switch for `port` this cycle */
    insee_candidate cand[KEPT];
} wh_vc;

struct insee_wormhole {
    insee_wormhole_stages p;
    /* VCs of an injection port: a node's injection queues share one port,
       or, with several network interfaces, each is a port of its own. */
    uint32_t inject_vcs;
    wh_vc *vc;            /* per queue */
    uint32_t *owner;      /* per output VC, then per (node, vc) ejection: its queue, or NONE */
    uint32_t *feed;       /* per transit queue: the output VC that feeds it */
    uint32_t *cable;      /* per global port: 1 + its cable's cycles */
    insee_vec busy;       /* queues with a packet, in the order they became busy */
    /* allocation scratch and round-robin pointers */
    uint32_t *va_pick;    /* per output VC / ejection: the queue chosen this cycle */
    uint32_t *va_last;    /* per output VC / ejection: the last queue granted */
    insee_vec va_touched;
    /* Ports, input and output: the global ports, then the nodes' injection
       and ejection ports. */
    uint32_t *out_pick;   /* per output port: the input it grants this cycle */
    uint32_t *out_last;   /* per output port: the last input that took its grant */
    insee_vec out_touched;
    uint32_t *in_accept;  /* per input port: the grant it takes this cycle */
    uint32_t *in_last;    /* per input port: the last output it took */
    uint8_t *in_next;     /* per input port: the VC it looks at first */
    insee_vec in_touched;
};

static uint32_t ejections(const insee_net *net) { return net->nodes * net->vcs; }

insee_wormhole *insee_wormhole_new(insee_engine *eng, const insee_wormhole_stages *params)
{
    insee_net *net = &eng->net;
    insee_wormhole *wh = g_new0(insee_wormhole, 1);
    uint32_t outs = net->ovcs + ejections(net), ports = net->ports_total + net->nodes;
    wh->p = *params;
    wh->inject_vcs = eng->wl.env.nics > 1 ? 1 : net->injectors;
    uint32_t ins = net->ports_total + (net->queues - net->transit_queues) / wh->inject_vcs;
    wh->vc = g_new0(wh_vc, net->queues + 1);
    for (uint32_t q = 0; q <= net->queues; q++)
        wh->vc[q].cur = INSEE_NONE;
    wh->owner = g_new(uint32_t, outs + 1);
    memset(wh->owner, 0xff, sizeof(uint32_t) * (outs + 1));
    wh->va_pick = g_new(uint32_t, outs + 1);
    memset(wh->va_pick, 0xff, sizeof(uint32_t) * (outs + 1));
    wh->va_last = g_new(uint32_t, outs + 1);
    memset(wh->va_last, 0xff, sizeof(uint32_t) * (outs + 1));
    wh->feed = g_new(uint32_t, net->transit_queues + 1);
    wh->cable = g_new(uint32_t, net->ports_total + 1);
    for (uint32_t gp = 0; gp < net->ports_total; gp++) {
        wh->cable[gp] = 1 + (eng->cable ? eng->cable[gp] : eng->cable_cycles);
        if (net->peer_queue[gp] == INSEE_NONE)
            continue;
        for (uint32_t v = 0; v < net->vcs; v++)
            wh->feed[net->peer_queue[gp] + v] = gp * net->vcs + v;
    }
    wh->in_accept = g_new(uint32_t, ins + 1);
    memset(wh->in_accept, 0xff, sizeof(uint32_t) * (ins + 1));
    wh->in_last = g_new(uint32_t, ins + 1);
    memset(wh->in_last, 0xff, sizeof(uint32_t) * (ins + 1));
    wh->in_next = g_new0(uint8_t, ins + 1);
    wh->out_pick = g_new(uint32_t, ports + 1);
    memset(wh->out_pick, 0xff, sizeof(uint32_t) * (ports + 1));
    wh->out_last = g_new(uint32_t, ports + 1);
    memset(wh->out_last, 0xff, sizeof(uint32_t) * (ports + 1));
    return wh;
}

void insee_wormhole_free(insee_wormhole *wh)
{
    if (!wh)
        return;
    g_free(wh->vc);
    g_free(wh->owner);
    g_free(wh->va_pick);
    g_free(wh->va_last);
    g_free(wh->feed);
    g_free(wh->cable);
    g_free(wh->busy.v);
    g_free(wh->va_touched.v);
    g_free(wh->in_accept);
    g_free(wh->in_last);
    g_free(wh->in_next);
    g_free(wh->in_touched.v);
    g_free(wh->out_pick);
    g_free(wh->out_last);
    g_free(wh->out_touched.v);
    g_free(wh);
}

uint32_t insee_wormhole_horizon(const insee_wormhole_stages *params, uint32_t longest_cable,
                                uint32_t node_cable)
{
    uint32_t flit = params->switch_alloc + params->switch_traversal + 1 + longest_cable;
    return MAX(MAX(flit, params->credit + longest_cable),
               params->switch_alloc + params->switch_traversal + node_cable) + 1;
}

static void list_busy(insee_wormhole *wh, uint32_t q)
{
    if (wh->vc[q].listed)
        return;
    wh->vc[q].listed = 1;
    insee_vec_push(&wh->busy, q);
}

void insee_wormhole_wake(insee_engine *eng, uint32_t q)
{
    list_busy(eng->wh, q);
}

gboolean insee_wormhole_busy(const insee_engine *eng)
{
    return eng->wh->busy.len > 0;
}

void insee_wormhole_events(insee_engine *eng)
{
    insee_wormhole *wh = eng->wh;
    insee_vec *b = insee_wheel_due(&eng->wheel, eng->now);
    for (uint32_t i = 0; i < b->len; i++) {
        uint32_t id = insee_event_id(b->v[i]);
        switch ((uint32_t)insee_event_kind_of(b->v[i])) {
        case EV_FLIT:
            wh->vc[id].present++;
            list_busy(wh, id);
            break;
        case EV_CREDIT:
            insee_net_add_units(&eng->net, id, -1); /* a flit credited back */
            break;
        case EV_DELIVER:
            insee_engine_consumed(eng, id);
            break;
        }
    }
    eng->wheel.pending -= b->len;
    b->len = 0;
}

void insee_wormhole_take(insee_engine *eng, uint32_t q, uint64_t at, gboolean credit)
{
    insee_wheel_add(&eng->wheel, eng->now, at, insee_event(credit ? EV_CREDIT : EV_FLIT, q));
}

/* q's first packet: the one it forwards, else the first of its FIFO. */
static uint32_t first(const insee_engine *eng, uint32_t q)
{
    uint32_t cur = eng->wh->vc[q].cur;
    return cur != INSEE_NONE ? cur : eng->net.q[q].head;
}

/* Flits of q's first packet p in its buffer now. */
static uint32_t available(const insee_engine *eng, uint32_t q, uint32_t p)
{
    const wh_vc *v = &eng->wh->vc[q];
    uint32_t left = eng->net.pkt[p].phits - v->sent;
    return q < eng->net.transit_queues ? MIN(left, v->present) : left;
}

/* The head of q is routed: its candidates, or its ejection. A router
   with no candidate now is asked again next cycle. */
static void route_head(insee_engine *eng, uint32_t q, uint32_t p)
{
    insee_net *net = &eng->net;
    wh_vc *v = &eng->wh->vc[q];
    uint32_t r = net->q_at[q].router, dst = net->pkt[p].dst;
    v->state = VC_ALLOC;
    if (net->node_router[dst] == r) {
        v->ncand = 0;
        v->out = net->ovcs + dst * net->vcs + (q < net->transit_queues ? net->q_at[q].vc : 0);
        return;
    }
    insee_candidate cand[INSEE_MAX_CANDIDATES];
    insee_route_ctx ctx;
    insee_rng draws;
    insee_engine_route_ctx(eng, q, p, INSEE_DRAW_ROUTE, &draws, &ctx);
    uint32_t n = eng->router->route(eng->router_self, &ctx, cand, INSEE_MAX_CANDIDATES);
    v->ncand = 0;
    if (!insee_engine_valid_candidates(eng, r, cand, n, TRUE))
        return;
    for (uint32_t c = 0; c < n && v->ncand < KEPT; c++) {
        if (cand[c].port == INSEE_PORT_DROP) {
            insee_engine_fail(eng, "router plugin dropped a packet at router %u, which wormhole "
                              "flow control cannot do (its flits may be spread over several "
                              "routers); use flow_control = \"vct\"", r);
            return;
        }
        v->cand[v->ncand++] = cand[c];
    }
    if (v->ncand == 0) {
        v->state = VC_ROUTE;
        v->ready = eng->now + 1;
    }
}

/* Candidate c of q as an output VC. */
static uint32_t cand_ovc(const insee_engine *eng, uint32_t q, uint32_t c)
{
    const insee_net *net = &eng->net;
    const insee_candidate *cd = &eng->wh->vc[q].cand[c];
    return (net->port_base[net->q_at[q].router] + cd->port) * net->vcs + cd->vc;
}

/* The output VC q asks for this cycle: its first free candidate. */
static uint32_t wanted(const insee_engine *eng, uint32_t q)
{
    const wh_vc *v = &eng->wh->vc[q];
    if (v->ncand == 0)
        return eng->wh->owner[v->out] == INSEE_NONE ? v->out : INSEE_NONE;
    for (uint32_t c = 0; c < v->ncand; c++)
        if (eng->wh->owner[cand_ovc(eng, q, c)] == INSEE_NONE)
            return cand_ovc(eng, q, c);
    return INSEE_NONE;
}

/* A router that keeps state learns which of its candidates q got. */
static void tell_forwarded(insee_engine *eng, uint32_t q, uint32_t out)
{
    for (uint32_t c = 0; c < eng->wh->vc[q].ncand; c++) {
        if (cand_ovc(eng, q, c) != out)
            continue;
        insee_route_ctx ctx;
        insee_engine_route_ctx(eng, q, eng->net.q[q].head, INSEE_DRAW_OWN, NULL, &ctx);
        eng->router->forwarded(eng->router_self, &ctx, &eng->wh->vc[q].cand[c]);
        return;
    }
}

/* Round robin: whether `key` comes before `best` after `last`. */
static gboolean sooner(uint32_t key, uint32_t best, uint32_t last)
{
    return best == INSEE_NONE || key - last - 1 < best - last - 1;
}

/* The output port of an active VC: its global port, or ports_total + dst. */
static uint32_t out_port(const insee_net *net, uint32_t out)
{
    return out < net->ovcs ? out / net->vcs : net->ports_total + (out - net->ovcs) / net->vcs;
}

/* A routed head asks for its first free output VC; a source's waits
   while global congestion control stops injection. It waits before it
   takes one, not after: a source's head holding an output VC that transit
   packets need would keep the network as full as it stopped injection
   for, for ever. */
static void ask_vc(insee_wormhole *wh, const insee_engine *eng, uint32_t q)
{
    if (eng->gcc_stop && q >= eng->net.transit_queues)
        return;
    uint32_t out = wanted(eng, q);
    if (out == INSEE_NONE)
        return;
    if (wh->va_pick[out] == INSEE_NONE)
        insee_vec_push(&wh->va_touched, out);
    if (sooner(q, wh->va_pick[out], wh->va_last[out]))
        wh->va_pick[out] = q;
}

/* VC allocation: each requested VC goes to the first asker after the last
   it granted. */
static void allocate_vcs(insee_engine *eng)
{
    insee_wormhole *wh = eng->wh;
    for (uint32_t t = 0; t < wh->va_touched.len; t++) {
        uint32_t out = wh->va_touched.v[t], q = wh->va_pick[out];
        wh_vc *v = &wh->vc[q];
        wh->va_pick[out] = INSEE_NONE;
        wh->va_last[out] = q;
        wh->owner[out] = q;
        v->out = out;
        v->port = out_port(&eng->net, out);
        v->state = VC_ACTIVE;
        v->ready = eng->now + wh->p.vc_alloc;
        if (eng->call_forwarded && out < eng->net.ovcs)
            tell_forwarded(eng, q, out);
    }
    wh->va_touched.len = 0;
}

/* Whether active q may send a flit now: one there, and a credit for it. */
static gboolean may_send(const insee_engine *eng, uint32_t q)
{
    const insee_net *net = &eng->net;
    const wh_vc *v = &eng->wh->vc[q];
    if (v->state != VC_ACTIVE || v->ready > eng->now || !available(eng, q, first(eng, q)))
        return FALSE;
    if (v->out >= net->ovcs)
        return TRUE;
    uint32_t gp = v->out / net->vcs;
    return insee_net_room(net, net->peer_queue[gp] + v->out % net->vcs) > 0;
}

/* The input port of queue q (its global port, or above them its node's
   injection port: a node's injection queues share one, a flit a cycle, as
   VCs, unless each is a network interface of its own), the VC it is there,
   and how many VCs the port has. */
static uint32_t in_port(const insee_engine *eng, uint32_t q, uint32_t *vc, uint32_t *vcs)
{
    const insee_net *net = &eng->net;
    uint32_t k = eng->wh->inject_vcs;
    if (q < net->transit_queues) {
        *vc = q % net->vcs, *vcs = net->vcs;
        return q / net->vcs;
    }
    *vc = (q - net->transit_queues) % k, *vcs = k;
    return net->ports_total + (q - net->transit_queues) / k;
}

/* Switch allocation, requests and grants: a VC that may send asks for its
   output port; each output port grants the first asking input port after
   the last it served. */
static void ask_switch(insee_wormhole *wh, const insee_engine *eng, uint32_t q)
{
    uint32_t vc, vcs;
    wh->vc[q].asking = may_send(eng, q);
    if (!wh->vc[q].asking)
        return;
    uint32_t in = in_port(eng, q, &vc, &vcs), out = wh->vc[q].port;
    if (wh->out_pick[out] == INSEE_NONE)
        insee_vec_push(&wh->out_touched, out);
    if (sooner(in, wh->out_pick[out], wh->out_last[out]))
        wh->out_pick[out] = in;
}

/* Accepts: each input port granted by several outputs takes the first
   after the last it used. */
static void accept_grants(insee_wormhole *wh)
{
    for (uint32_t t = 0; t < wh->out_touched.len; t++) {
        uint32_t out = wh->out_touched.v[t], in = wh->out_pick[out];
        wh->out_pick[out] = INSEE_NONE;
        if (wh->in_accept[in] == INSEE_NONE)
            insee_vec_push(&wh->in_touched, in);
        if (sooner(out, wh->in_accept[in], wh->in_last[in]))
            wh->in_accept[in] = out;
    }
    wh->out_touched.len = 0;
}

/* The VC of input port `in` that sends to `out`: the first asking for it
   from the port's VC pointer. */
static uint32_t sending_vc(const insee_engine *eng, uint32_t in, uint32_t out)
{
    const insee_net *net = &eng->net;
    gboolean transit = in < net->ports_total;
    uint32_t vcs = transit ? net->vcs : eng->wh->inject_vcs;
    uint32_t base = transit ? in * net->vcs
                            : net->transit_queues + (in - net->ports_total) * vcs;
    for (uint32_t k = 0, vc = eng->wh->in_next[in]; k < vcs; k++, vc = vc + 1 < vcs ? vc + 1 : 0) {
        const wh_vc *v = &eng->wh->vc[base + vc];
        if (v->asking && v->port == out)
            return base + vc;
    }
    g_assert_not_reached(); /* the grant came from one of them */
}

/* q's packet has left q whole: the next one may head it. */
static void packet_left(insee_engine *eng, uint32_t q)
{
    insee_net *net = &eng->net;
    wh_vc *v = &eng->wh->vc[q];
    v->cur = INSEE_NONE;
    v->sent = 0;
    v->state = VC_IDLE;
    if (q >= net->transit_queues) {
        insee_net_release_slot(net, q);
        insee_engine_source_freed(eng, q);
    }
}

/* The winner of output port `port` sends one flit. */
static void send_flit(insee_engine *eng, uint32_t q)
{
    insee_wormhole *wh = eng->wh;
    insee_net *net = &eng->net;
    wh_vc *v = &wh->vc[q];
    uint32_t p = first(eng, q);
    insee_packet *pk = &net->pkt[p];
    uint64_t across = eng->now + wh->p.switch_alloc + wh->p.switch_traversal;
    gboolean head = v->sent == 0, tail = v->sent + 1u == pk->phits;
    if (head) { /* out of q's FIFO, into the next one's */
        v->cur = insee_net_unlink_head(net, q);
        insee_engine_head_leaves(eng, q, pk);
    }
    v->sent++;
    if (q < net->transit_queues) {
        v->present--;
        /* back over the cable it came by */
        uint64_t back = eng->now + wh->p.credit + wh->cable[wh->feed[q] / net->vcs] - 1;
        /* here too when q is fed across a cut: the copy of its count */
        if (G_UNLIKELY(eng->cut != NULL) && (eng->cut[q] & INSEE_CUT_UPSTREAM))
            insee_partition_flit_credit(eng, q, back);
        insee_wheel_add(&eng->wheel, eng->now, back, insee_event(EV_CREDIT, q));
    }
    if (v->out >= net->ovcs) {
        insee_engine_keep_moving(eng, across + eng->node_cable_cycles);
        if (tail)
            insee_wheel_add(&eng->wheel, eng->now, across + eng->node_cable_cycles,
                            insee_event(EV_DELIVER, p));
    } else {
        uint32_t gp = v->out / net->vcs, dq = net->peer_queue[gp] + v->out % net->vcs;
        uint64_t in = across + wh->cable[gp];
        insee_net_add_units(net, dq, 1); /* a credit spent */
        insee_engine_keep_moving(eng, in);
        /* the next router another part's: the flit, and the packet with its
           head, go there; this part keeps the packet until its tail left */
        gboolean crosses = G_UNLIKELY(eng->cut != NULL) && (eng->cut[dq] & INSEE_CUT_DOWNSTREAM);
        if (crosses)
            insee_partition_flit(eng, dq, in);
        else
            insee_wheel_add(&eng->wheel, eng->now, in, insee_event(EV_FLIT, dq));
        if (head) {
            pk->hops += pk->hops < UINT16_MAX;
            eng->report.total_packet_hops++;
            if (insee_engine_in_window(eng, eng->now))
                eng->report.packet_hops++;
            insee_stats_on_hop(&eng->stats, pk, v->out, eng->now);
            if (!crosses)
                insee_net_link(net, dq, p);
            else
                insee_partition_head(eng, dq, p);
        }
        if (crosses && tail)
            insee_net_packet_free(net, p);
    }
    if (!tail)
        return;
    wh->owner[v->out] = INSEE_NONE;
    packet_left(eng, q);
}

/* Switch allocation as iSLIP's single iteration (BookSim2's default):
   requests, grants, accepts; the pointers move only on an accept. */
static void allocate_switch(insee_engine *eng)
{
    insee_wormhole *wh = eng->wh;
    accept_grants(wh);
    for (uint32_t t = 0; t < wh->in_touched.len; t++) {
        uint32_t in = wh->in_touched.v[t], out = wh->in_accept[in], vc, vcs;
        uint32_t q = sending_vc(eng, in, out);
        wh->in_accept[in] = INSEE_NONE;
        wh->out_last[out] = in;
        wh->in_last[in] = out;
        in_port(eng, q, &vc, &vcs);
        wh->in_next[in] = (uint8_t)((vc + 1) % vcs);
        send_flit(eng, q);
    }
    wh->in_touched.len = 0;
}

/* One pass over the VCs that hold something, each at its stage: a head
   present starts its routing (an injection queue's when its packet is
   ready there, its node's link crossed); a routed head asks for an output
   VC; an active VC asks for the switch. Every request reads the network as
   the cycle found it: the grants come after the pass. */
static void ask(insee_engine *eng)
{
    insee_wormhole *wh = eng->wh;
    const insee_net *net = &eng->net;
    for (uint32_t i = 0; i < wh->busy.len; i++) {
        uint32_t q = wh->busy.v[i], p = first(eng, q);
        wh_vc *v = &wh->vc[q];
        if (v->state == VC_IDLE && p != INSEE_NONE && available(eng, q, p) > 0) {
            uint64_t from = MAX(eng->now, net->pkt[p].ready);
            v->state = VC_ROUTE;
            v->ready = from + wh->p.routing;
            insee_engine_keep_moving(eng, v->ready);
        }
        if (v->state == VC_ROUTE && v->ready <= eng->now)
            route_head(eng, q, p);
        v->asking = 0;
        if (v->state == VC_ALLOC && v->ready <= eng->now)
            ask_vc(wh, eng, q);
        else
            ask_switch(wh, eng, q);
    }
}

/* Queues with nothing in them and nothing on the way leave the list. */
static void compact_busy(insee_wormhole *wh, const insee_net *net)
{
    uint32_t kept = 0;
    for (uint32_t i = 0; i < wh->busy.len; i++) {
        uint32_t q = wh->busy.v[i];
        if (net->q[q].head == INSEE_NONE && wh->vc[q].cur == INSEE_NONE &&
            wh->vc[q].present == 0) {
            wh->vc[q].listed = 0;
            wh->vc[q].asking = 0;
            continue;
        }
        wh->busy.v[kept++] = q;
    }
    wh->busy.len = kept;
}

void insee_wormhole_move(insee_engine *eng)
{
    ask(eng);
    allocate_vcs(eng);
    allocate_switch(eng);
    compact_busy(eng->wh, &eng->net);
}
