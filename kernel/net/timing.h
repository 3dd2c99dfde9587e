/* kernel/net/timing.h — the packet network's time in real units: how long a
 * cycle is, how many cycles a cable and a router's pipeline add to a hop
 * (docs/model.md).
 *
 * Contract
 * --------
 * The experiment binds the optional [network] table against
 * insee_timing_params and calls insee_timing_read() on its values with the
 * phit size; the result is a plain record the engine copies what it needs
 * from. Without the table (insee_timing_default()) nothing changes: a cycle
 * has no length in seconds, cables and routers add nothing, and the run is
 * INSEE's model to the bit.
 *
 * A link moves one phit per cycle, so a link bandwidth and a phit size fix
 * the cycle (cycle = phit bytes / bandwidth); `cycle_ns` may give it
 * instead. Latencies are given in cycles, or in ns when the cycle has a
 * length; ns are rounded to the nearest whole cycle, and the record keeps
 * the cycles the run uses. Per-dimension cable latencies (`dim_cable_*`)
 * follow the topology's numbering of dimensions or levels, as [flow]
 * dim_gbps does; insee_timing_cable() answers per port.
 *
 * A link may be slower than the router: a phit then takes `k` cycles on it
 * (dim_phit_cycles per dimension or level; node_phit_cycles, or
 * node_bandwidth as a fraction 1/k of link_bandwidth, for the nodes' links
 * to their routers). insee_timing_phit_cycles() answers per port.
 *
 * Errors name the key and what to change (INSEE_CONFIG_ERROR_INVALID).
 */
#ifndef INSEE_KERNEL_TIMING_H
#define INSEE_KERNEL_TIMING_H

#include <glib.h>
#include <insee/insee.h>

G_BEGIN_DECLS

/* The most cycles a cable or a router may add: the engine's event wheel
   holds this many cycles ahead, so the bound keeps it small. */
#define INSEE_TIMING_MAX_CYCLES 65536u

/* A wormhole router's stages in cycles, and a credit's way back. */
typedef struct insee_wormhole_stages {
    uint32_t routing, vc_alloc, switch_alloc, switch_traversal;
    uint32_t credit;
} insee_wormhole_stages;

typedef struct insee_timing {
    double cycle_ns;          /* one cycle in ns; 0: no real units */
    double link_gbytes_s;     /* a link's bandwidth in GB/s (10^9 bytes/s); 0: no real units */
    uint32_t cable_cycles;    /* every cable's latency, but where dim_cable overrides */
    uint32_t node_cable_cycles; /* a node's link to its router, each way */
    uint32_t router_cycles;   /* a head's routing pipeline at every router */
    uint32_t *dim_cable;      /* per dimension or level: its cables' latency; owned */
    uint32_t dims;            /* entries of dim_cable */
    uint32_t *dim_phit;       /* per dimension or level: cycles a phit takes; owned */
    uint32_t phit_dims;       /* entries of dim_phit */
    uint32_t node_phit;       /* cycles a phit takes on a node's link (1: the router's rate) */
    uint32_t send_overhead;   /* a message's sender is busy this long before it is queued */
    uint32_t recv_overhead;   /* and its receiver this long after it arrived */
    uint32_t header_bytes;    /* of every packet, not payload */
    double copy_cycles_per_byte; /* copy = "two": each end's copy; 0: zero-copy */
    double memory_cycles_per_byte; /* memory_bandwidth: a byte's copy; 0: not given */
    gboolean wormhole;        /* flow_control = "wormhole" */
    insee_wormhole_stages stages; /* its router's */
} insee_timing;

/* The [network] table's keys, NULL-name terminated. */
extern const insee_param_def insee_timing_params[];

/* INSEE's model: no units, no latencies, every link at the router's rate. */
static inline insee_timing insee_timing_default(void) { return (insee_timing){.node_phit = 1}; }

/* Read the bound [network] values; `phit_bytes` is [simulation]'s. */
gboolean insee_timing_read(insee_timing *t, const insee_value *values, uint32_t phit_bytes,
                           GError **err);
void insee_timing_clear(insee_timing *t);

/* [network]'s packet and buffer sizes, in phits, read before the network
   is built: mtu_phits (0: packets of [simulation] packet_phits, all full),
   buffer_phits (0: queues of [router] queue_packets packets) and the
   output buffers. A size that is not a whole number of phits, or a buffer
   smaller than a longest packet (virtual cut-through), is refused naming
   the key. */
typedef struct insee_timing_sizes {
    uint32_t mtu_phits;
    uint32_t buffer_phits;
    gboolean wormhole;        /* buffers may then be smaller than a packet */
    uint32_t nics;            /* network interfaces per node */
    uint32_t output_phits;    /* each output port's buffer behind the crossbar; 0: none */
    uint32_t speedup;         /* phits the crossbar moves a cycle into it */
} insee_timing_sizes;

gboolean insee_timing_read_sizes(const insee_value *values, uint32_t phit_bytes,
                                 uint32_t packet_phits, insee_timing_sizes *sizes, GError **err);

/* A bandwidth with its unit spelled out ("4 GB/s", "32 Gb/s", "100 Gbps",
   "400 MB/s"), into GB/s; FALSE (with a message naming `key`) for anything
   else, zero or negative included. */
gboolean insee_timing_parse_bandwidth(const char *text, const char *key, double *gbytes_s,
                                      GError **err);

/* The latency of the cable a port of dimension or level `dim` (-1: none)
   starts. */
static inline uint32_t insee_timing_cable(const insee_timing *t, int32_t dim)
{
    return dim >= 0 && (uint32_t)dim < t->dims && t->dim_cable[dim] != UINT32_MAX
               ? t->dim_cable[dim]
               : t->cable_cycles;
}

/* The cycles a phit takes on a port of dimension or level `dim`. */
static inline uint32_t insee_timing_phit_cycles(const insee_timing *t, int32_t dim)
{
    return dim >= 0 && (uint32_t)dim < t->phit_dims ? t->dim_phit[dim] : 1;
}

G_END_DECLS
#endif
