/* kernel/net/network.h — the network state built from a topology: routers,
 * ports, links, virtual-channel queues and the packet pool.
 *
 * Everything is a flat array indexed by integers (docs/architecture.md §9):
 *  - global port gp = port_base[router] + port; output gp feeds the input
 *    queues peer_queue[gp] + vc of the next router (NONE when unplugged);
 *  - transit queue q = gp * vcs + vc (the input queue of port gp, VC vc);
 *  - injection queue q = transit_queues + node * injectors + j;
 *  - output VC ovc = gp * vcs + vc: the arbitrated resource of a link. A
 *    grant reserves it (and a slot downstream) until the packet's tail has
 *    crossed; the link then carries the reserved VCs one whole packet each;
 *  - arbitrated resources ("outputs"): the output VCs, then the `single`
 *    consumption port of node n at ovcs + n; `link` has the links,
 *    then node n's consumption port at ports_total + n.
 * A queue is a singly linked FIFO of packet indices (pkt.next) with a count
 * that includes packets granted towards it but not yet arrived, so
 * `capacity - count` is the room a new whole packet may reserve (VCT).
 * Queues count packets (INSEE's model), or phits when [network] sizes
 * buffers in bytes (`phit_queues`): then a packet takes as many units as it
 * has phits, capacities are in phits, and a short packet takes less room.
 *
 * An injection queue stands for INSEE's two source stages in series: the
 * injection buffer (inject_packets, whole-packet admission) that feeds at
 * once, phit by phit, the router's injection port (queue_packets, a router
 * input). Phits cross into the port as soon as there is room, so the pair
 * behaves as one FIFO of inject_packets + queue_packets packets that admits
 * a packet while a whole one fits; its head is the port's head.
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
    uint16_t hops;     /* router-to-router hops taken, counted up to UINT16_MAX */
    uint16_t phits;    /* its length: packet_phits, or less for a message's last
                          packet when [network] mtu_bytes is given */
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
    INSEE_Q_ASLEEP = 4,    /* the head sleeps on its waits, out of the active list */
    INSEE_Q_WAITS = 8,     /* the head has waits listed (asleep, or awake and kept) */
};

/* A queue's state, what changes as packets move, in one record (two to a
   cache line): a packet arriving, granted or leaving touches one line of
   the queue. */
typedef struct insee_queue {
    /* The phit view, for routers that read room as INSEE does (in phits
       physically there): the cycle the incoming packet's tail has fully
       arrived (INSEE_NEVER while it waits for its link; past: none), and the
       cycle the departing packet's tail has left (INSEE_NEVER while it waits
       for its link; past: none). */
    uint64_t in_done, out_done;
    uint32_t head, tail;      /* the FIFO of packets (pkt.next), or INSEE_NONE */
    uint16_t count;           /* units (packets, or phits) queued or on the wire
                                 towards it, and the departing packet's until its
                                 tail has left */
    uint16_t leaving;         /* the departing packet's units */
    uint8_t flags;            /* INSEE_Q_* */
} insee_queue;

/* Where a queue is, fixed once the network is built; read together when
   its head is routed or arbitrated, so in one record. */
typedef struct insee_queue_at {
    uint32_t router; /* its router */
    uint32_t input;  /* its input index at the router (the arbiter contract) */
    uint16_t port;   /* its input port, or INSEE_PORT_INJECTION */
    uint8_t vc;      /* its VC, or injector index */
} insee_queue_at;

/* A link's state, in one place for the same reason as an output VC's. */
typedef struct insee_link {
    uint64_t free_at; /* first cycle it can start a packet */
    uint8_t rr;       /* the VC it looks at first for its next packet */
    uint8_t waiting;  /* granted packets waiting for it */
    /* The engine's, here rather than in arrays of their own because they
       are read with the fields above: */
    uint8_t checked;  /* in its list of links to start after this cycle's arbitration */
    uint32_t peer;    /* peer_queue[] of this link, copied once faults are applied */
} insee_link;

/* An output VC's state. */
typedef struct insee_ovc {
    uint64_t free_at; /* first cycle it can be granted again (INSEE_NEVER while its
                         packet waits for the link) */
    uint32_t src;     /* the queue its packet leaves (INSEE_NONE: a multicast copy) */
    uint32_t wait;    /* its packet waiting for the link, or INSEE_NONE */
} insee_ovc;

typedef struct insee_net {
    uint32_t routers, nodes;
    /* Queue capacities in units: packets, or phits with phit_queues. */
    uint32_t vcs, queue_packets, inject_packets, injectors;
    gboolean phit_queues;
    uint32_t packet_phits;    /* a full packet's phits (set by the engine) */

    uint32_t *port_base;      /* routers + 1 entries */
    uint32_t ports_total;     /* global ports */
    uint32_t max_ports;       /* the most ports a router has */
    uint32_t *port_router;    /* gp -> router */
    uint32_t *peer_queue;     /* gp -> first downstream transit queue, or INSEE_NONE */
    uint32_t *node_router;    /* node -> router */
    uint8_t *failed;          /* gp -> its cable failed (net/faults.h), unplugged since;
                                 NULL: no [faults] */
    uint32_t failed_cables;

    uint32_t ovcs;            /* ports_total * vcs output VCs */
    uint32_t outputs;         /* ovcs + nodes: arbitrated resources */
    insee_link *link;         /* per link, then per consumption port (free_at only) */
    insee_ovc *ovc;           /* per output VC, its state in one place: a grant and a
                                 link start each touch one cache line, not three */

    uint32_t transit_queues;  /* ports_total * vcs */
    uint32_t queues;          /* transit + nodes * injectors */
    insee_queue *q;           /* per queue, what changes as packets move */
    insee_queue_at *q_at;     /* per queue, where it is (fixed once built) */
    uint64_t transit_used;    /* packets counted in transit queues (occupancy) */
    /* When set, called just before a queue's count changes (the queue
       histograms of stats/collect.h); NULL costs one branch. */
    void (*count_changes)(void *ctx, uint32_t q, uint32_t count);
    void *count_ctx;

    insee_packet *pkt;        /* pool; grows by doubling up to pkt_bound, never shrinks */
    uint32_t pkt_cap;
    uint32_t pkt_bound;       /* insee_net_pool_cap() of the packets the queues hold */
    uint32_t pkt_free;        /* free list head through pkt.next */
    size_t pstate_size;       /* router's per-packet state bytes */
    uint8_t *pstate;          /* pkt_cap * pstate_size */
    /* Per packet, when some link is slower than the router (net/timing.h):
       the cycle its tail has fully arrived in its queue, which a faster link
       out cannot outrun. track_tail is set before the first packet; tail is
       NULL without it. */
    gboolean track_tail;
    uint64_t *tail;
} insee_net;

/* Per-router and per-packet plugin state blocks are rounded up to this, so
   every block is aligned for any type (router.h, arbiter.h promise 16). */
#define INSEE_STATE_ALIGN 16u
static inline size_t insee_state_round(size_t size)
{
    return (size + INSEE_STATE_ALIGN - 1) / INSEE_STATE_ALIGN * INSEE_STATE_ALIGN;
}

/* The pool's first size, and its size once `packets` are alive at once:
   doubling from INSEE_POOL_FIRST stops at what the queues can hold. */
#define INSEE_POOL_FIRST 1024u
static inline uint64_t insee_net_pool_cap(uint64_t packets)
{
    return MAX(packets, INSEE_POOL_FIRST);
}

/* Query the topology and allocate the network. Before allocating, it checks
   the kernel's limits (INSEE_MAX_PORTS per router, fewer than
   INSEE_MAX_QUEUES queues, packets numbered below INSEE_NONE) and the memory
   the network will take against what the process may allocate
   (net/memory.h); each refusal is an INSEE_EXPERIMENT_ERROR_SETUP naming
   the figure and the parameters to change. `topo` is the kernel copy of
   the vtable, `self` the topology instance. */
gboolean insee_net_build(insee_net *net, const insee_topology_vtable *topo, void *self,
                         uint32_t vcs, uint32_t queue_packets, uint32_t inject_packets,
                         uint32_t injectors, GError **err);
/* The graph alone, for the flow engines: port_base, port_router,
   peer_queue and node_router, with the same numbering (peer_queue counts
   `vcs` queues per port) and the same checks of the topology; the queue
   sizes are recorded, but queues = 0 and every queue, link and packet
   array is NULL, so a flow run of millions of ports takes no packet-engine
   state. The host answers a router's room queries as in an empty network
   (engine/host.c). */
gboolean insee_net_build_graph(insee_net *net, const insee_topology_vtable *topo, void *self,
                               uint32_t vcs, uint32_t queue_packets, uint32_t inject_packets,
                               uint32_t injectors, GError **err);
void insee_net_clear(insee_net *net);

/* The router that output gp feeds, or INSEE_NONE when unplugged. */
static inline uint32_t insee_net_next_router(const insee_net *net, uint32_t gp)
{
    uint32_t q = net->peer_queue[gp];
    return q == INSEE_NONE ? INSEE_NONE : net->port_router[q / net->vcs];
}

/* The output that comes back into output gp's link (topology.h: the port
   gp feeds, seen as an output, leads back to gp), or INSEE_NONE. */
static inline uint32_t insee_net_reverse(const insee_net *net, uint32_t gp)
{
    uint32_t q = net->peer_queue[gp];
    if (q == INSEE_NONE)
        return INSEE_NONE;
    uint32_t in = q / net->vcs;
    return net->peer_queue[in] != INSEE_NONE && net->peer_queue[in] / net->vcs == gp ? in
                                                                                    : INSEE_NONE;
}

static inline uint32_t insee_net_inject_queue(const insee_net *net, uint32_t node, uint32_t j)
{
    return net->transit_queues + node * net->injectors + j;
}

static inline uint32_t insee_net_queue_capacity(const insee_net *net, uint32_t q)
{
    return q < net->transit_queues ? net->queue_packets
                                   : net->inject_packets + net->queue_packets;
}

/* Free units of q. */
static inline uint32_t insee_net_room(const insee_net *net, uint32_t q)
{
    return insee_net_queue_capacity(net, q) - net->q[q].count;
}

/* The units a full-length packet takes, and packet p. */
static inline uint32_t insee_net_unit_packet(const insee_net *net)
{
    return net->phit_queues ? net->packet_phits : 1;
}
static inline uint32_t insee_net_units(const insee_net *net, uint32_t p)
{
    return net->phit_queues ? net->pkt[p].phits : 1;
}

/* What a router plugin is told: whole full-length packets. */
static inline uint32_t insee_net_room_packets(const insee_net *net, uint32_t q)
{
    return insee_net_room(net, q) / insee_net_unit_packet(net);
}

/* Free phits of q at cycle `now`, as a phit-by-phit simulator sees them: a
   packet granted towards q occupies only the phits that have arrived, the
   departing one only the phits still there (counted as full-length packets
   when queues count packets). */
static inline uint32_t insee_net_free_phits(const insee_net *net, uint32_t q, uint64_t now)
{
    uint64_t L = net->packet_phits, unit = net->phit_queues ? 1 : L;
    uint64_t in = net->q[q].in_done, out = net->q[q].out_done;
    uint64_t unarrived = in > now ? (in - now < L ? in - now : L) : 0;
    uint64_t sent = out > now && out != INSEE_NEVER && out - now < L ? L - (out - now) : 0;
    uint64_t counted = (uint64_t)net->q[q].count * unit;
    uint64_t present = counted > unarrived + sent ? counted - unarrived - sent : 0;
    return (uint32_t)((uint64_t)insee_net_queue_capacity(net, q) * unit - present);
}

/* Take a packet from the pool (zeroed, state and tail zeroed); grows the pool when empty. */
uint32_t insee_net_packet_new(insee_net *net);
void insee_net_packet_free(insee_net *net, uint32_t p);

static inline void *insee_net_packet_state(const insee_net *net, uint32_t p)
{
    return net->pstate_size ? net->pstate + (size_t)p * net->pstate_size : NULL;
}

/* Change q's count by `units` (the queue histograms see it, and the
   transit occupancy). */
void insee_net_add_units(insee_net *net, uint32_t q, int32_t units);
/* Count packet p's units in q: granted towards it, or entering it. */
void insee_net_reserve_slot(insee_net *net, uint32_t q, uint32_t p);
/* Append packet p, whose slot is already counted, to q's FIFO. Returns
   whether p is now the first packet of the FIFO. */
gboolean insee_net_link(insee_net *net, uint32_t q, uint32_t p);
/* Reserve a slot and append: a packet entering q at once. */
static inline gboolean insee_net_enqueue(insee_net *net, uint32_t q, uint32_t p)
{
    insee_net_reserve_slot(net, q, p);
    return insee_net_link(net, q, p);
}
/* Unlink the head of q's FIFO when it is granted; its units stay counted
   (as q's `leaving`) until insee_net_release_slot(), when its tail has
   left. Returns the packet. */
uint32_t insee_net_unlink_head(insee_net *net, uint32_t q);
void insee_net_release_slot(insee_net *net, uint32_t q);

G_END_DECLS
#endif
