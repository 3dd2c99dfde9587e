/* kernel/net/network.h — the network state built from a topology: routers,
 * ports, links, virtual-channel queues and the packet pool.
 *
 * Everything is a flat array indexed by integers (DESIGN §8):
 *  - global port gp = port_base[router] + port; output gp feeds the input
 *    queues peer_queue[gp] + vc of the next router (NONE when unplugged);
 *  - transit queue q = gp * vcs + vc (the input queue of port gp, VC vc);
 *  - injection queue q = transit_queues + node * injectors + j;
 *  - the `single` consumption port of node n is output ports_total + n in
 *    the per-output arrays (link_free_at, arbiter state).
 * A queue is a singly linked FIFO of packet indices (pkt.next) with a count
 * that includes packets granted towards it but still on the wire, so
 * `capacity - count` is the room a new whole packet may reserve (VCT).
 *
 * The engine owns one insee_net and mutates it; nothing here runs plugins
 * except insee_net_build(), which queries the topology once.
 */
#ifndef INSEE_KERNEL_NETWORK_H
#define INSEE_KERNEL_NETWORK_H

#include <glib.h>
#include <insee/insee.h>

G_BEGIN_DECLS

#define INSEE_NONE UINT32_MAX

typedef struct insee_packet {
    uint32_t next;     /* next packet in the same queue, or INSEE_NONE */
    uint32_t src;      /* source node */
    uint32_t dst;      /* destination node */
    uint32_t salt;     /* per-packet random word (topology tie breaks) */
    uint32_t hops;     /* router-to-router hops taken */
    uint32_t msg;      /* message it belongs to */
    uint64_t id;       /* serial number, from 1 */
    uint64_t born;     /* entered its injection queue */
    uint64_t injected; /* head left the injection queue */
    uint64_t ready;    /* head may be routed at its current queue from this cycle */
    uint64_t since;    /* first request at its current queue (fifo arbitration) */
} insee_packet;

enum {
    INSEE_Q_DEPARTING = 1, /* a packet granted from q still has its tail in q */
    INSEE_Q_ACTIVE = 2,    /* the head is in the engine's active list or scheduled */
};

typedef struct insee_net {
    uint32_t routers, nodes;
    uint32_t vcs, queue_packets, inject_packets, injectors;

    uint32_t *port_base;      /* routers + 1 entries */
    uint32_t ports_total;     /* global ports */
    uint32_t *port_router;    /* gp -> router */
    uint32_t *peer_queue;     /* gp -> first downstream transit queue, or INSEE_NONE */
    uint32_t *node_router;    /* node -> router */

    uint32_t outputs;         /* ports_total + nodes: arbitrated resources */
    uint64_t *link_free_at;   /* per output: first cycle it can be granted again */

    uint32_t transit_queues;  /* ports_total * vcs */
    uint32_t queues;          /* transit + nodes * injectors */
    uint32_t *q_head, *q_tail;
    uint32_t *q_router;       /* per queue: its router */
    uint16_t *q_port;         /* per queue: input port, or INSEE_PORT_INJECTION */
    uint8_t *q_vc;            /* per queue: VC, or injector index */
    uint32_t *q_input;        /* per queue: input index at its router (arbiter contract) */
    uint16_t *q_count;        /* packets queued or on the wire towards q, and the
                                 departing one until its tail has left */
    uint8_t *q_flags;         /* INSEE_Q_* */
    uint64_t transit_used;    /* packets counted in transit queues (occupancy) */

    insee_packet *pkt;        /* pool; grows by doubling, never shrinks */
    uint32_t pkt_cap;
    uint32_t pkt_free;        /* free list head through pkt.next */
    size_t pstate_size;       /* router's per-packet state bytes */
    uint8_t *pstate;          /* pkt_cap * pstate_size */
} insee_net;

/* Per-router and per-packet plugin state blocks are rounded up to this, so
   every block is aligned for any type (router.h, arbiter.h promise 16). */
#define INSEE_STATE_ALIGN 16u
static inline size_t insee_state_round(size_t size)
{
    return (size + INSEE_STATE_ALIGN - 1) / INSEE_STATE_ALIGN * INSEE_STATE_ALIGN;
}

/* Query the topology and allocate the network. `topo` is the kernel copy of
   the vtable, `self` the topology instance. */
gboolean insee_net_build(insee_net *net, const insee_topology_vtable *topo, void *self,
                         uint32_t vcs, uint32_t queue_packets, uint32_t inject_packets,
                         uint32_t injectors, GError **err);
void insee_net_clear(insee_net *net);

/* The router that output gp feeds, or INSEE_NONE when unplugged. */
static inline uint32_t insee_net_next_router(const insee_net *net, uint32_t gp)
{
    uint32_t q = net->peer_queue[gp];
    return q == INSEE_NONE ? INSEE_NONE : net->port_router[q / net->vcs];
}

static inline uint32_t insee_net_inject_queue(const insee_net *net, uint32_t node, uint32_t j)
{
    return net->transit_queues + node * net->injectors + j;
}

static inline uint32_t insee_net_queue_capacity(const insee_net *net, uint32_t q)
{
    return q < net->transit_queues ? net->queue_packets : net->inject_packets;
}

static inline uint32_t insee_net_room(const insee_net *net, uint32_t q)
{
    return insee_net_queue_capacity(net, q) - net->q_count[q];
}

/* Take a packet from the pool (zeroed, state zeroed); grows the pool when empty. */
uint32_t insee_net_packet_new(insee_net *net);
void insee_net_packet_free(insee_net *net, uint32_t p);

static inline void *insee_net_packet_state(const insee_net *net, uint32_t p)
{
    return net->pstate_size ? net->pstate + (size_t)p * net->pstate_size : NULL;
}

/* Append packet p to queue q; its slot is counted at once (reserved). Returns
   whether p is now the first packet of the FIFO. */
gboolean insee_net_enqueue(insee_net *net, uint32_t q, uint32_t p);
/* Unlink the head of q's FIFO when it is granted; its slot stays counted until
   insee_net_release_slot(), when its tail has left. Returns the packet. */
uint32_t insee_net_unlink_head(insee_net *net, uint32_t q);
void insee_net_release_slot(insee_net *net, uint32_t q);

G_END_DECLS
#endif
