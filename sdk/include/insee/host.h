/* insee/host.h — the kernel services a plugin may call (the host table).
 *
 * Contract
 * --------
 * Every create() receives a `const insee_host *`. The table and the kernel
 * handle in it are owned by the kernel and stay valid until the plugin's
 * destroy() returns; a plugin keeps the pointer in its instance. Calls go
 * through the table, never through linked kernel symbols, so a plugin builds
 * against these headers alone, loads into newer kernels, and unit tests can
 * hand it a mock host.
 *
 * `size` is sizeof(insee_host) as the kernel built it and `abi_minor` the
 * kernel's minor: before calling an entry appended in a later minor, check
 * INSEE_HOST_HAS(host, entry). Entries are only ever appended.
 *
 * Which entries are meaningful when:
 *  - topology create(): log, rng_seed only (the network does not exist yet;
 *    shape() reports zeros).
 *  - router, arbiter, traffic, placement, bridge create() and later: all.
 *  - the queue/link queries (input_room, output_room, link_free, occupancy)
 *    describe the state at the start of the current cycle; they are meant to
 *    be called from router.route() and are cheap (array reads).
 */
#ifndef INSEE_HOST_H
#define INSEE_HOST_H

#include <insee/plugin.h>
#include <insee/rng.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct insee_kernel insee_kernel; /* opaque */

/* Pseudo-ports. */
#define INSEE_PORT_INJECTION 0xFFFFu /* route_ctx.in_port of a packet in an injection queue */
#define INSEE_PORT_DROP 0xFFFEu      /* candidate port: discard the packet (counted as dropped) */
#define INSEE_PORT_LOCAL 0xFFFDu     /* minor 1, multicast routers: a copy for this router's node */

/* What a router model needs to know about one hop (one output port). */
enum {
    INSEE_HOP_WRAP = 1u << 0,       /* this link is a wrap-around link */
    INSEE_HOP_WRAP_AHEAD = 1u << 1, /* the rest of the path in this dimension (this hop
                                       included) crosses a wrap-around link */
    INSEE_HOP_UP = 1u << 2,         /* trees: towards the roots */
    INSEE_HOP_DOWN = 1u << 3,       /* trees: towards the leaves */
    INSEE_HOP_TIE = 1u << 4,        /* torus: the other direction is as short */
};

typedef struct insee_hop {
    uint16_t port;     /* output port index at the current router */
    int8_t dir;        /* +1 / -1 along `dim`; 0 when the port has no direction */
    uint8_t flags;     /* INSEE_HOP_* */
    int16_t dim;       /* dimension index; -1 when the topology has none */
    uint16_t dim_hops; /* hops still to go along `dim`, this one included; 0 if unknown */
} insee_hop;

/* Where a link leads: the router at the other end and its input port. */
typedef struct insee_port_peer {
    uint32_t router;
    uint32_t port;
} insee_port_peer;

/* The experiment's dimensions, valid once the topology is built. */
typedef struct insee_shape {
    uint32_t routers;
    uint32_t nodes;
    uint32_t max_ports;     /* network ports of the largest router */
    uint32_t dims;          /* coordinates per node; 0 when none */
    uint32_t vcs;           /* virtual channels per port */
    uint32_t queue_packets; /* capacity of a transit queue, in packets */
    uint32_t inject_packets;/* capacity of an injection queue, in packets */
    uint32_t injectors;     /* injection queues per node */
    uint32_t packet_phits;  /* packet length */
    uint32_t tasks;         /* tasks of the workload (placed on nodes) */
} insee_shape;

typedef enum insee_log_level {
    INSEE_LOG_ERROR = 0,
    INSEE_LOG_WARNING = 1,
    INSEE_LOG_INFO = 2,
    INSEE_LOG_DEBUG = 3,
} insee_log_level;

typedef struct insee_host {
    uint32_t size;      /* sizeof(insee_host) as the kernel built it */
    uint32_t abi_minor; /* the kernel's INSEE_ABI_MINOR */
    insee_kernel *kernel;

    /* minor 0 */
    void (*log)(insee_kernel *k, insee_log_level level, const char *message);
    /* A stream derived from the experiment seed, the plugin's kind and `stream`. */
    void (*rng_seed)(insee_kernel *k, uint64_t stream, insee_rng *out);
    void (*shape)(insee_kernel *k, insee_shape *out);

    /* Topology queries, routed through the kernel (plugins never call each other). */
    uint32_t (*ports)(insee_kernel *k, uint32_t router);
    uint32_t (*node_router)(insee_kernel *k, uint32_t node);
    /* Up to `max` output ports at `router` on a shortest path to dst_node,
       as the topology lists them (topology.h); returns how many. 0 at
       dst_node's own router and for an out-of-range router or node. The
       order is topology-defined and stable: the same (router, dst_node,
       salt) always gives the same list, so a router that takes the first hop
       keeps each packet on one path. What the in-tree topologies list:
        - torus, mesh: one hop per dimension still to travel, lowest
          dimension first; half way round an even ring both directions,
          flagged INSEE_HOP_TIE, bit `dim` of salt choosing which comes first;
        - twisted torus, midimew, SpiNNaker: the dimension-order hop first
          (the lowest dimension with a move; bit `dim` of salt on a tie;
          on a twisted torus with order = "draw", the default, the first
          hop of the dimension-ordered shortest way the salt draws, which
          may start in a higher dimension), then every other minimal port
          in port order;
        - HyperX, hypercube: lowest dimension first; within a dimension its
          K parallel links (trunking), from index salt % K on;
        - k-ary n-tree, thin-tree: going down, the one down port toward the
          destination; going up, every up port in index order (salt unused);
        - dragonfly: the local ports (dim 0), then the global ones (dim 1),
          each in port order (salt unused);
        - jellyfish (dim -1): every minimal port in port order (salt unused);
        - graph (dim -1): every minimal port in port order, rotated to start
          at the (salt % count)-th, so packets spread over the shortest paths
          (as ECMP hashing does) while each keeps to one. */
    uint32_t (*minimal_hops)(insee_kernel *k, uint32_t router, uint32_t dst_node,
                             uint32_t salt, insee_hop *out, uint32_t max);
    void (*port_info)(insee_kernel *k, uint32_t router, uint32_t port, insee_hop *out);
    uint32_t (*distance)(insee_kernel *k, uint32_t router, uint32_t dst_node);
    uint32_t (*coords)(insee_kernel *k, uint32_t node, int32_t *out, uint32_t max);

    /* Network state at the start of the current cycle.
       input_room(): free packet slots, in whole packets, of the input queue
       of (router, port, vc), out of [router] queue_packets. A slot is taken
       by each packet waiting in the queue, by each packet granted towards it
       that has not arrived yet (on the link, or waiting for the link), and
       by the packet whose head has left but whose tail is still leaving.
       0 when `port` is not one of the router's network ports (injection
       queues are not reported) or router or vc is out of range.
       output_room(): the same count for the downstream input queue that
       output `port` of `router` feeds on VC vc, i.e. the room a candidate
       (port, vc) is admitted by; 0 when the port is unplugged or an
       argument is out of range. Neither says whether the output VC itself
       is held by another packet: such a candidate waits even with room. */
    uint32_t (*input_room)(insee_kernel *k, uint32_t router, uint32_t port, uint32_t vc);
    uint32_t (*output_room)(insee_kernel *k, uint32_t router, uint32_t port, uint32_t vc);
    bool (*link_free)(insee_kernel *k, uint32_t router, uint32_t port);
    double (*occupancy)(insee_kernel *k); /* fraction of transit queue slots in use */

    /* Traffic: have the kernel call traffic.emit() for `task` at cycle `at`
       (reactive replies, causal workloads woken by a delivery). */
    void (*wake_task)(insee_kernel *k, uint32_t task, uint64_t at);

    /* The router and input port that output `port` of `router` feeds; false
       when unplugged or out of range. Generic routers (up-down, tables
       built by BFS) read the whole graph through it at create(). */
    bool (*peer)(insee_kernel *k, uint32_t router, uint32_t port, insee_port_peer *out);

    /* minor 1 */
    /* The room of the same queues as input_room() / output_room(), in free
       phits as a phit-by-phit router sees it (INSEE's queue_space): a packet
       granted towards the queue occupies only the phits that have crossed
       so far, the departing one only the phits still there. At least
       packet_phits free phits whenever the room in packets is at least 1;
       more while a granted packet is still on its way. A router that
       chooses by INSEE's checks reads these; the kernel still admits a
       candidate by whole packets and a free output VC. */
    uint32_t (*input_free_phits)(insee_kernel *k, uint32_t router, uint32_t port, uint32_t vc);
    uint32_t (*output_free_phits)(insee_kernel *k, uint32_t router, uint32_t port, uint32_t vc);

    /* minor 2 */
    /* How many packets a message of `bytes` bytes is cut into:
       ceil(bytes / (packet_phits x phit_bytes)), at least 1, with
       [simulation] phit_bytes. Traffic that speaks bytes (traces, kernels,
       message-length distributions) converts through it. */
    uint32_t (*message_packets)(insee_kernel *k, uint64_t bytes);

    /* minor 3 */
    /* Bridges only, and only inside their sync(): queue a message of `bytes`
       bytes from node src_node to node dst_node (both among the nodes the
       bridge serves) at cycle at_cycle, no earlier than the boundary sync()
       was called for. It is cut into message_packets(bytes) packets that
       enter src_node's injection queues at that cycle (after the node's
       earlier messages, one message per node and cycle, throttled as any
       source); when its last packet is consumed the bridge's deliver()
       receives it with `handle`, the bridge's own key. false with err
       filled (naming the argument) when refused. A node's messages for
       the same cycle leave in the order of these calls; messages of
       different nodes do not depend on it. */
    bool (*bridge_inject)(insee_kernel *k, uint32_t src_node, uint32_t dst_node, uint64_t bytes,
                          uint64_t handle, uint64_t at_cycle, insee_error *err);

    /* minor 4 */
    /* Report one of the plugin's own figures with the run's results: the
       printed report lists it under the plugin's section, the JSON document
       in "plugin_figures", the CSV row in its `plugin_figures`
       column as section.name=value. `name` is 1 to 47 characters of [a-z0-9_],
       starting with a letter, unique within the plugin; reporting a name
       again replaces its value (a figure keeps its first position). `unit`
       ("cycles", "packets", ...) may be NULL. Both strings are copied.
       Figures must follow from the configuration and seed alone, like the
       kernel's own: wall-clock figures belong in log(). Call it before the
       run ends (the report is written before destroy()). false, with the
       figure ignored, for a bad name or a value that is not finite. */
    bool (*report_figure)(insee_kernel *k, const char *name, double value, const char *unit);

    /* minor 5 */
    /* Whether the run was asked to stop (Ctrl-C): the kernel ends it at its
       next cycle as interrupted, and a plugin that waits on the outside world
       (a bridge waiting for its clients) asks this between waits and returns
       at once instead of waiting out its timeout. Safe to call at any time
       after create(); cheap (one read). */
    bool (*stop_requested)(insee_kernel *k);

    /* minor 9 */
    /* The topology's own routing (topology.h paths()), checked by the
       kernel: add() is called once per path, each path a chain of plugged
       links from src_router to dst_router. Returns how many paths were
       given; 0 when the topology has no routing of its own, for src_router
       = dst_router, a router out of range, or a pair it does not connect. */
    uint32_t (*topology_paths)(insee_kernel *k, uint32_t src_router, uint32_t dst_router,
                               uint32_t salt,
                               void (*add)(void *ctx, const uint32_t *ports, uint32_t hops,
                                           double share),
                               void *ctx);
    /* The most hops a path of topology_paths() takes; 0 when the topology
       has no routing of its own. */
    uint32_t (*topology_path_hops)(insee_kernel *k);

    /* minor 13 */
    /* The phits counted against the queue that output `port` of `router`
       feeds on `vc`: in it, on their way to it, or granted towards it.
       Under wormhole flow control these are the credits spent on that VC
       and not yet back, what BookSim2's routers read as used credits. 0
       for a port out of range, an unplugged port, and on the flow engines'
       empty network. */
    uint32_t (*output_used_phits)(insee_kernel *k, uint32_t router, uint32_t port, uint32_t vc);
    /* bridge_inject() with the message's own choice of transfer, as a
       traffic plugin's insee_message makes it: `nic` 0 the node's turn,
       k >= 1 its interface k - 1 (at most [network] nics); `copy`
       INSEE_COPY_DEFAULT, INSEE_COPY_ZERO or INSEE_COPY_TWO (this one
       needs [network] memory_bandwidth). false with err filled when either
       is out of range, as well as for what bridge_inject() refuses. */
    bool (*bridge_inject_with)(insee_kernel *k, uint32_t src_node, uint32_t dst_node,
                               uint64_t bytes, uint64_t handle, uint64_t at_cycle, uint16_t nic,
                               uint8_t copy, insee_error *err);
} insee_host;

/* Keep, of the hops minimal_hops() listed, the first of each dimension (on a
   tie half way round a ring, the direction the packet's salt chose), in
   place; hops without a dimension are kept as they are. Returns how many are
   left. What routers that follow INSEE's routing record (one direction per
   dimension) route on. */
static inline uint32_t insee_hops_one_per_dimension(insee_hop *hops, uint32_t n)
{
    uint32_t kept = 0;
    for (uint32_t i = 0; i < n; i++) {
        bool seen = false;
        for (uint32_t j = 0; j < kept && !seen; j++)
            seen = hops[i].dim >= 0 && hops[j].dim == hops[i].dim;
        if (!seen)
            hops[kept++] = hops[i];
    }
    return kept;
}

/* Whether `name` is a figure name report_figure() takes: 1 to 47
   characters of [a-z0-9_], starting with a letter (they become CSV keys
   and JSON strings as they are). */
static inline bool insee_figure_name_valid(const char *name)
{
    if (!name || name[0] < 'a' || name[0] > 'z')
        return false;
    uint32_t n = 0;
    for (const char *c = name; *c; c++, n++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_') || n >= 47)
            return false;
    return true;
}

#define INSEE_HOST_HAS(host, entry)                                          \
    ((host)->size >= offsetof(insee_host, entry) + sizeof((host)->entry) &&  \
     (host)->entry != NULL)

#ifdef __cplusplus
}
#endif
#endif
