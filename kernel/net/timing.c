/* kernel/net/timing.c — [network]: the cycle's length and the latencies of
 * cables and routers (timing.h). */
#include "net/timing.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"

enum { K_BANDWIDTH, K_CYCLE_NS, K_CABLE_CYCLES, K_CABLE_NS, K_DIM_CABLE_CYCLES, K_DIM_CABLE_NS,
       K_ROUTER_CYCLES, K_ROUTER_NS, K_DIM_PHIT_CYCLES, K_NODE_PHIT_CYCLES, K_NODE_BANDWIDTH,
       K_SEND_CYCLES, K_SEND_NS, K_RECV_CYCLES, K_RECV_NS, K_HEADER_BYTES, K_MTU_BYTES,
       K_VC_BUFFER_BYTES, K_NODE_CABLE_CYCLES, K_NODE_CABLE_NS, K_FLOW_CONTROL, K_ROUTING_CYCLES,
       K_VC_ALLOC_CYCLES, K_SWITCH_ALLOC_CYCLES, K_SWITCH_CYCLES, K_CREDIT_CYCLES, K_COPY,
       K_MEMORY_BANDWIDTH, K_DMA_BANDWIDTH, K_NICS, K_OUTPUT_BUFFER_BYTES, K_CROSSBAR_SPEEDUP };

/* The most cycles a wormhole router's stage may take. */
#define MAX_STAGE_CYCLES 1024

/* The slowest a link may be: a phit in this many cycles. */
#define MAX_PHIT_CYCLES 1024

/* The fastest a crossbar may be: this many phits a cycle. */
#define MAX_SPEEDUP 64

const insee_param_def insee_timing_params[] = {
    [K_BANDWIDTH] = {"link_bandwidth", INSEE_PARAM_STRING, "\"\"", 1, 0, NULL, NULL,
                     "bandwidth of every link, its unit spelled out (\"4 GB/s\", \"32 Gb/s\"): a "
                     "link moves one phit per cycle, so this and [simulation] phit_bytes give "
                     "the cycle its length (empty: cycle_ns, or no real units)"},
    [K_CYCLE_NS] = {"cycle_ns", INSEE_PARAM_DOUBLE, "0", 0, 1e12, NULL, "ns",
                    "the cycle's length, instead of link_bandwidth (0: none)"},
    [K_CABLE_CYCLES] = {"cable_cycles", INSEE_PARAM_INT, "0", 0, INSEE_TIMING_MAX_CYCLES, NULL,
                        "cycles", "a cable's latency: a head reaches the next router this many "
                        "cycles later than one cycle after leaving"},
    [K_CABLE_NS] = {"cable_ns", INSEE_PARAM_DOUBLE, "0", 0, 1e12, NULL, "ns",
                    "the cable latency in ns (needs the cycle's length), instead of cable_cycles"},
    [K_DIM_CABLE_CYCLES] = {"dim_cable_cycles", INSEE_PARAM_INT_LIST, "[]", -1,
                            INSEE_TIMING_MAX_CYCLES, NULL, "cycles",
                            "the cable latency of each dimension or level, as the topology "
                            "numbers them (a dragonfly's local then global links, a tree's "
                            "levels from the leaves); -1 or absent: cable_cycles"},
    [K_DIM_CABLE_NS] = {"dim_cable_ns", INSEE_PARAM_INT_LIST, "[]", -1, 1e12, NULL, "ns",
                        "dim_cable_cycles in ns (needs the cycle's length)"},
    [K_ROUTER_CYCLES] = {"router_cycles", INSEE_PARAM_INT, "0", 0, INSEE_TIMING_MAX_CYCLES,
                         NULL, "cycles",
                         "a router's pipeline (routing, VC and switch allocation together): a "
                         "head requests an output no sooner than this many cycles after it "
                         "entered the router; the packets behind it go through the pipeline "
                         "meanwhile"},
    [K_ROUTER_NS] = {"router_ns", INSEE_PARAM_DOUBLE, "0", 0, 1e12, NULL, "ns",
                     "router_cycles in ns (needs the cycle's length)"},
    [K_DIM_PHIT_CYCLES] = {"dim_phit_cycles", INSEE_PARAM_INT_LIST, "[]", 1, MAX_PHIT_CYCLES, NULL,
                           "cycles", "the links of each dimension or level (numbered as for "
                           "dim_cable_cycles) move a phit every this many cycles: 1 is the "
                           "router's rate, 2 half of it; absent: 1"},
    [K_NODE_PHIT_CYCLES] = {"node_phit_cycles", INSEE_PARAM_INT, "1", 1, MAX_PHIT_CYCLES, NULL,
                            "cycles", "the nodes' links to their routers move a phit every "
                            "this many cycles (a network interface slower than the router)"},
    [K_NODE_BANDWIDTH] = {"node_bandwidth", INSEE_PARAM_STRING, "\"\"", 1, 0, NULL, NULL,
                          "node_phit_cycles as a bandwidth with its unit, link_bandwidth "
                          "divided by a whole number (empty: node_phit_cycles)"},
    [K_SEND_CYCLES] = {"send_overhead_cycles", INSEE_PARAM_INT, "0", 0, INSEE_TIMING_MAX_CYCLES,
                       NULL, "cycles",
                       "a message's sender is busy this long (an MPI call, NSIM's MPI overhead) "
                       "before its packets are queued; its next action waits as long"},
    [K_SEND_NS] = {"send_overhead_ns", INSEE_PARAM_DOUBLE, "0", 0, 1e12, NULL, "ns",
                   "send_overhead_cycles in ns (needs the cycle's length)"},
    [K_RECV_CYCLES] = {"recv_overhead_cycles", INSEE_PARAM_INT, "0", 0, INSEE_TIMING_MAX_CYCLES,
                       NULL, "cycles",
                       "a message is handed to its receiving task this long after its last "
                       "packet arrived"},
    [K_RECV_NS] = {"recv_overhead_ns", INSEE_PARAM_DOUBLE, "0", 0, 1e12, NULL, "ns",
                   "recv_overhead_cycles in ns (needs the cycle's length)"},
    [K_HEADER_BYTES] = {"header_bytes", INSEE_PARAM_INT, "0", 0, 1e9, NULL, "bytes",
                        "every packet's header: a message of B bytes is cut into packets of "
                        "packet_phits x phit_bytes - header_bytes bytes of payload"},
    [K_MTU_BYTES] = {"mtu_bytes", INSEE_PARAM_INT, "0", 0, 1e9, NULL, "bytes",
                     "the longest packet, header included, a whole number of phits; given, "
                     "it replaces [simulation] packet_phits and packets vary in length: a "
                     "message given in bytes ends with a packet only as long as its header "
                     "and the bytes left (0: every packet packet_phits long)"},
    [K_VC_BUFFER_BYTES] = {"vc_buffer_bytes", INSEE_PARAM_INT, "0", 0, 1e9, NULL, "bytes",
                           "each virtual channel's input buffer, a whole number of phits and "
                           "at least a longest packet; given, it replaces [router] "
                           "queue_packets and queues count phits, so short packets take less "
                           "room (0: queues of queue_packets packets)"},
    [K_NODE_CABLE_CYCLES] = {"node_cable_cycles", INSEE_PARAM_INT, "0", 0, INSEE_TIMING_MAX_CYCLES,
                             NULL, "cycles", "the latency of a node's link to its router, each "
                             "way: a new packet reaches its router's pipeline this long after "
                             "it is queued, and a consumed one its node this long after its "
                             "tail left the router"},
    [K_NODE_CABLE_NS] = {"node_cable_ns", INSEE_PARAM_DOUBLE, "0", 0, 1e12, NULL, "ns",
                         "node_cable_cycles in ns (needs the cycle's length)"},
    [K_FLOW_CONTROL] = {"flow_control", INSEE_PARAM_ENUM, "\"vct\"", 0, 0, "vct|wormhole", NULL,
                        "vct: a packet leaves only when all of it fits downstream, and moves "
                        "whole (INSEE's model); wormhole: a flit moves when one flit fits, so a "
                        "packet may spread over several routers, and flits of several packets "
                        "share a link cycle by cycle (simulated flit by flit, slower)"},
    [K_ROUTING_CYCLES] = {"routing_cycles", INSEE_PARAM_INT, "1", 1, MAX_STAGE_CYCLES, NULL,
                          "cycles", "wormhole: a head's routing stage"},
    [K_VC_ALLOC_CYCLES] = {"vc_alloc_cycles", INSEE_PARAM_INT, "1", 1, MAX_STAGE_CYCLES, NULL,
                           "cycles", "wormhole: VC allocation, from the head's grant to its "
                           "first switch request"},
    [K_SWITCH_ALLOC_CYCLES] = {"switch_alloc_cycles", INSEE_PARAM_INT, "1", 1, MAX_STAGE_CYCLES,
                               NULL, "cycles", "wormhole: switch allocation, per flit"},
    [K_SWITCH_CYCLES] = {"switch_cycles", INSEE_PARAM_INT, "1", 0, MAX_STAGE_CYCLES, NULL,
                         "cycles", "wormhole: switch traversal, per flit"},
    [K_CREDIT_CYCLES] = {"credit_cycles", INSEE_PARAM_INT, "1", 1, MAX_STAGE_CYCLES, NULL,
                         "cycles", "wormhole: a credit reaches the router upstream this long "
                         "after its flit left the buffer, plus the cable's latency"},
    [K_COPY] = {"copy", INSEE_PARAM_ENUM, "\"zero\"", 0, 0, "zero|two", NULL,
                "zero: the network interface reads a message from the task's memory; two: "
                "through the MPI buffer, a copy at memory_bandwidth at each end (NSIM's "
                "two-copy transfer)"},
    [K_MEMORY_BANDWIDTH] = {"memory_bandwidth", INSEE_PARAM_STRING, "\"\"", 1, 0, NULL, NULL,
                            "a node's memory bandwidth with its unit, for copy = \"two\" "
                            "and for messages that ask for a two-copy transfer"},
    [K_DMA_BANDWIDTH] = {"dma_bandwidth", INSEE_PARAM_STRING, "\"\"", 1, 0, NULL, NULL,
                         "the network interface's DMA rate with its unit; slower than "
                         "link_bandwidth (by a whole factor) it paces the node's link as "
                         "node_bandwidth does (empty: as fast as the link)"},
    [K_NICS] = {"nics", INSEE_PARAM_INT, "1", 1, 64, NULL, NULL,
                "network interfaces per node (Tofu has four): each is an injection queue with "
                "a link of its own to the router, and a node's messages take them in turn "
                "(above 1, it sets [router] injectors)"},
    [K_OUTPUT_BUFFER_BYTES] = {"output_buffer_bytes", INSEE_PARAM_INT, "0", 0, 1e9, NULL, "bytes",
                               "virtual cut-through: each output port's buffer behind the "
                               "crossbar, a whole number of phits and at least a longest "
                               "packet; a granted packet crosses the crossbar into it and "
                               "frees its input buffer once its tail is across, and the link "
                               "drains it (NSIM's router; 0: none, a packet waits in its input "
                               "buffer until its link takes it, INSEE's model)"},
    [K_CROSSBAR_SPEEDUP] = {"crossbar_speedup", INSEE_PARAM_INT, "1", 1, MAX_SPEEDUP, NULL, NULL,
                            "phits the crossbar moves a cycle from an input buffer into an "
                            "output buffer (needs output_buffer_bytes)"},
    {0},
};

/* Units of bandwidth, in GB/s (10^9 bytes per second). */
static const struct {
    const char *name;
    double gbytes_s;
} bandwidth_units[] = {
    {"B/s", 1e-9},    {"kB/s", 1e-6},   {"MB/s", 1e-3},   {"GB/s", 1.0},   {"TB/s", 1e3},
    {"b/s", 1e-9 / 8}, {"kb/s", 1e-6 / 8}, {"Mb/s", 1e-3 / 8}, {"Gb/s", 1.0 / 8}, {"Tb/s", 1e3 / 8},
    {"bps", 1e-9 / 8}, {"kbps", 1e-6 / 8}, {"Mbps", 1e-3 / 8}, {"Gbps", 1.0 / 8}, {"Tbps", 1e3 / 8},
    {"GiB/s", 1.073741824}, {"MiB/s", 1.048576e-3},
};

gboolean insee_timing_parse_bandwidth(const char *text, const char *key, double *gbytes_s,
                                      GError **err)
{
    const char *s = text;
    char *end = NULL;
    double v = g_ascii_strtod(s, &end);
    if (end != s) {
        while (*end == ' ')
            end++;
        for (size_t u = 0; u < G_N_ELEMENTS(bandwidth_units); u++) {
            if (strcmp(end, bandwidth_units[u].name) != 0)
                continue;
            if (!(v > 0) || !isfinite(v))
                break;
            *gbytes_s = v * bandwidth_units[u].gbytes_s;
            return TRUE;
        }
    }
    g_set_error(err, INSEE_CONFIG_ERROR, INSEE_CONFIG_ERROR_INVALID,
                "[network] %s = \"%s\": give a positive number and its unit, bytes (\"4 GB/s\", "
                "\"400 MB/s\", \"1 GiB/s\") or bits (\"32 Gb/s\", \"100 Gbps\") per second",
                key, text);
    return FALSE;
}

static gboolean refuse(GError **err, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
static gboolean refuse(GError **err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    GError *e = g_error_new_valist(INSEE_CONFIG_ERROR, INSEE_CONFIG_ERROR_INVALID, fmt, ap);
    va_end(ap);
    g_prefix_error(&e, "[network] ");
    g_propagate_error(err, e);
    return FALSE;
}

/* The cycle's length from link_bandwidth or cycle_ns (both: they agree). */
static gboolean read_cycle(insee_timing *t, const insee_value *v, uint32_t phit_bytes,
                           GError **err)
{
    double cycle = v[K_CYCLE_NS].d;
    if (v[K_BANDWIDTH].s[0]) {
        double gb;
        if (!insee_timing_parse_bandwidth(v[K_BANDWIDTH].s, "link_bandwidth", &gb, err))
            return FALSE;
        double from_bandwidth = phit_bytes / gb; /* bytes / (bytes/ns) */
        if (cycle > 0 && fabs(cycle - from_bandwidth) > 1e-9 * from_bandwidth)
            return refuse(err,
                          "link_bandwidth = \"%s\" with phit_bytes = %u makes a cycle of %g ns, "
                          "but cycle_ns = %g: give one of them",
                          v[K_BANDWIDTH].s, phit_bytes, from_bandwidth, cycle);
        cycle = from_bandwidth;
    }
    t->cycle_ns = cycle;
    t->link_gbytes_s = cycle > 0 ? phit_bytes / cycle : 0;
    return TRUE;
}

/* A latency given in cycles or in ns, into cycles. */
static gboolean read_latency(const insee_timing *t, const insee_value *v, int k_cycles,
                             int k_ns, uint32_t *cycles, GError **err)
{
    const char *name = insee_timing_params[k_cycles].name;
    const char *name_ns = insee_timing_params[k_ns].name;
    if (v[k_ns].d == 0) {
        *cycles = (uint32_t)v[k_cycles].i;
        return TRUE;
    }
    if (v[k_cycles].i)
        return refuse(err, "%s and %s are both given: keep one", name, name_ns);
    if (t->cycle_ns == 0)
        return refuse(err, "%s = %g needs the cycle's length: set link_bandwidth or cycle_ns, "
                      "or give %s", name_ns, v[k_ns].d, name);
    double c = round(v[k_ns].d / t->cycle_ns);
    if (c > INSEE_TIMING_MAX_CYCLES)
        return refuse(err, "%s = %g is %.0f cycles of %g ns, more than the %u allowed", name_ns,
                      v[k_ns].d, c, t->cycle_ns, INSEE_TIMING_MAX_CYCLES);
    *cycles = (uint32_t)c;
    return TRUE;
}

/* dim_cable_cycles or dim_cable_ns, into cycles per dimension (UINT32_MAX:
   cable_cycles). */
static gboolean read_dim_cables(insee_timing *t, const insee_value *v, GError **err)
{
    const insee_value *cyc = &v[K_DIM_CABLE_CYCLES], *ns = &v[K_DIM_CABLE_NS];
    if (cyc->list_len && ns->list_len)
        return refuse(err, "dim_cable_cycles and dim_cable_ns are both given: keep one");
    const insee_value *l = ns->list_len ? ns : cyc;
    if (ns->list_len && t->cycle_ns == 0)
        return refuse(err, "dim_cable_ns needs the cycle's length: set link_bandwidth or "
                      "cycle_ns, or give dim_cable_cycles");
    t->dims = (uint32_t)l->list_len;
    t->dim_cable = g_new(uint32_t, MAX(t->dims, 1));
    for (uint32_t d = 0; d < t->dims; d++) {
        if (l->list[d] < 0) {
            t->dim_cable[d] = UINT32_MAX;
            continue;
        }
        double c = l == ns ? round((double)l->list[d] / t->cycle_ns) : (double)l->list[d];
        if (c > INSEE_TIMING_MAX_CYCLES)
            return refuse(err, "dim_cable_ns[%u] = %" G_GINT64_FORMAT " is %.0f cycles of %g ns, "
                          "more than the %u allowed", d, l->list[d], c, t->cycle_ns,
                          INSEE_TIMING_MAX_CYCLES);
        t->dim_cable[d] = (uint32_t)c;
    }
    return TRUE;
}

/* How many times slower than a link the bandwidth `key` is: a whole
   number from 1 to MAX_PHIT_CYCLES. */
static gboolean slower_by(const insee_timing *t, const insee_value *v, int key, uint32_t *k,
                          GError **err)
{
    const char *name = insee_timing_params[key].name;
    double gb;
    if (!insee_timing_parse_bandwidth(v[key].s, name, &gb, err))
        return FALSE;
    if (t->link_gbytes_s == 0)
        return refuse(err, "%s = \"%s\" needs link_bandwidth (or cycle_ns) to compare with",
                      name, v[key].s);
    double r = t->link_gbytes_s / gb;
    if (r <= 1) {
        *k = 1;
        return TRUE;
    }
    if (fabs(r - round(r)) > 1e-9 * r || r > MAX_PHIT_CYCLES)
        return refuse(err, "%s = \"%s\" is %g times link_bandwidth = %g GB/s: a node's link "
                      "must move a phit every whole number of cycles, from 1 to %d, so a "
                      "slower rate must be the link's divided by that number",
                      name, v[key].s, 1 / r, t->link_gbytes_s, MAX_PHIT_CYCLES);
    *k = (uint32_t)round(r);
    return TRUE;
}

/* Cycles a byte takes to copy at memory_bandwidth, read whenever it is
   given: a message may ask for a two-copy transfer under copy = "zero". */
static gboolean read_copy(insee_timing *t, const insee_value *v, GError **err)
{
    double gb;
    if (!v[K_MEMORY_BANDWIDTH].s[0])
        return v[K_COPY].i == 0 ||
               refuse(err, "copy = \"two\" needs memory_bandwidth, the rate of the copies");
    if (!insee_timing_parse_bandwidth(v[K_MEMORY_BANDWIDTH].s, "memory_bandwidth", &gb, err))
        return FALSE;
    if (t->cycle_ns == 0)
        return refuse(err, "memory_bandwidth needs the cycle's length: set link_bandwidth or "
                      "cycle_ns");
    t->memory_cycles_per_byte = 1 / (gb * t->cycle_ns); /* GB/s = bytes/ns */
    if (v[K_COPY].i == 1)
        t->copy_cycles_per_byte = t->memory_cycles_per_byte;
    return TRUE;
}

/* node_phit_cycles, or node_bandwidth as link_bandwidth / k. */
static gboolean read_node_rate(insee_timing *t, const insee_value *v, GError **err)
{
    t->node_phit = (uint32_t)v[K_NODE_PHIT_CYCLES].i;
    t->header_bytes = (uint32_t)v[K_HEADER_BYTES].i;
    if (!v[K_NODE_BANDWIDTH].s[0])
        return TRUE;
    if (t->node_phit != 1)
        return refuse(err, "node_phit_cycles and node_bandwidth are both given: keep one");
    return slower_by(t, v, K_NODE_BANDWIDTH, &t->node_phit, err);
}

/* dma_bandwidth slower than the link paces the node's link, as the slower
   of it and node_bandwidth. */
static gboolean read_dma(insee_timing *t, const insee_value *v, GError **err)
{
    uint32_t k;
    if (!v[K_DMA_BANDWIDTH].s[0])
        return TRUE;
    if (!slower_by(t, v, K_DMA_BANDWIDTH, &k, err))
        return FALSE;
    t->node_phit = MAX(t->node_phit, k);
    return TRUE;
}

/* flow_control and the wormhole router's stages, which only it has (its
   pipeline is their sum; virtual cut-through's is router_cycles). */
static gboolean read_wormhole(insee_timing *t, const insee_value *v, GError **err)
{
    static const int stages[] = {K_ROUTING_CYCLES, K_VC_ALLOC_CYCLES, K_SWITCH_ALLOC_CYCLES,
                                 K_SWITCH_CYCLES, K_CREDIT_CYCLES};
    t->wormhole = v[K_FLOW_CONTROL].i == 1;
    for (size_t k = 0; k < G_N_ELEMENTS(stages); k++) {
        const insee_param_def *d = &insee_timing_params[stages[k]];
        if (!t->wormhole && v[stages[k]].i != g_ascii_strtoll(d->default_value, NULL, 10))
            return refuse(err, "%s is a stage of the wormhole router: set flow_control = "
                          "\"wormhole\", or give virtual cut-through's pipeline as "
                          "router_cycles", d->name);
    }
    if (t->wormhole && t->router_cycles)
        return refuse(err, "router_cycles is virtual cut-through's pipeline; with "
                      "flow_control = \"wormhole\" give its stages (routing_cycles, "
                      "vc_alloc_cycles, switch_alloc_cycles, switch_cycles)");
    t->stages = (insee_wormhole_stages){
        .routing = (uint32_t)v[K_ROUTING_CYCLES].i, .vc_alloc = (uint32_t)v[K_VC_ALLOC_CYCLES].i,
        .switch_alloc = (uint32_t)v[K_SWITCH_ALLOC_CYCLES].i,
        .switch_traversal = (uint32_t)v[K_SWITCH_CYCLES].i,
        .credit = (uint32_t)v[K_CREDIT_CYCLES].i};
    return TRUE;
}

gboolean insee_timing_read(insee_timing *t, const insee_value *values, uint32_t phit_bytes,
                           GError **err)
{
    *t = insee_timing_default();
    const insee_value *phit = &values[K_DIM_PHIT_CYCLES];
    t->phit_dims = (uint32_t)phit->list_len;
    t->dim_phit = g_new(uint32_t, MAX(t->phit_dims, 1));
    for (uint32_t d = 0; d < t->phit_dims; d++)
        t->dim_phit[d] = (uint32_t)phit->list[d];
    if (read_cycle(t, values, phit_bytes, err) &&
        read_latency(t, values, K_CABLE_CYCLES, K_CABLE_NS, &t->cable_cycles, err) &&
        read_latency(t, values, K_NODE_CABLE_CYCLES, K_NODE_CABLE_NS, &t->node_cable_cycles,
                     err) &&
        read_latency(t, values, K_ROUTER_CYCLES, K_ROUTER_NS, &t->router_cycles, err) &&
        read_latency(t, values, K_SEND_CYCLES, K_SEND_NS, &t->send_overhead, err) &&
        read_latency(t, values, K_RECV_CYCLES, K_RECV_NS, &t->recv_overhead, err) &&
        read_dim_cables(t, values, err) && read_node_rate(t, values, err) &&
        read_dma(t, values, err) && read_copy(t, values, err) && read_wormhole(t, values, err))
        return TRUE;
    insee_timing_clear(t);
    return FALSE;
}

void insee_timing_clear(insee_timing *t)
{
    g_free(t->dim_cable);
    g_free(t->dim_phit);
    *t = insee_timing_default();
}

/* A size in bytes that must be a whole number of phits. */
static gboolean whole_phits(const insee_value *v, int key, uint32_t phit_bytes, uint32_t *phits,
                            GError **err)
{
    int64_t bytes = v[key].i;
    if (bytes % phit_bytes)
        return refuse(err, "%s = %" G_GINT64_FORMAT " is not a whole number of phits of %u "
                      "bytes ([simulation] phit_bytes): make it a multiple of %u",
                      insee_timing_params[key].name, bytes, phit_bytes, phit_bytes);
    *phits = (uint32_t)(bytes / phit_bytes);
    return TRUE;
}

/* output_buffer_bytes and crossbar_speedup: virtual cut-through's, whole
   packets. */
static gboolean read_output_buffers(const insee_value *values, uint32_t phit_bytes,
                                    uint32_t longest, const insee_timing_sizes *sizes,
                                    GError **err)
{
    if (sizes->speedup > 1 && !sizes->output_phits)
        return refuse(err, "crossbar_speedup = %u needs output buffers to move packets into: "
                      "set output_buffer_bytes (at least a packet), or remove crossbar_speedup",
                      sizes->speedup);
    if (!sizes->output_phits)
        return TRUE;
    if (sizes->wormhole)
        return refuse(err, "output_buffer_bytes is virtual cut-through's: the wormhole router "
                      "is input-queued, as BookSim2's; remove it, or set flow_control = \"vct\"");
    if (sizes->output_phits < longest)
        return refuse(err, "output_buffer_bytes = %" G_GINT64_FORMAT " is smaller than a "
                      "packet of %" G_GUINT64_FORMAT " bytes: an output buffer holds at least "
                      "a whole packet; raise it", values[K_OUTPUT_BUFFER_BYTES].i,
                      (uint64_t)longest * phit_bytes);
    return TRUE;
}

gboolean insee_timing_read_sizes(const insee_value *values, uint32_t phit_bytes,
                                 uint32_t packet_phits, insee_timing_sizes *sizes, GError **err)
{
    *sizes = (insee_timing_sizes){.wormhole = values[K_FLOW_CONTROL].i == 1,
                                  .nics = (uint32_t)values[K_NICS].i,
                                  .speedup = (uint32_t)values[K_CROSSBAR_SPEEDUP].i};
    if (!whole_phits(values, K_MTU_BYTES, phit_bytes, &sizes->mtu_phits, err) ||
        !whole_phits(values, K_VC_BUFFER_BYTES, phit_bytes, &sizes->buffer_phits, err) ||
        !whole_phits(values, K_OUTPUT_BUFFER_BYTES, phit_bytes, &sizes->output_phits, err))
        return FALSE;
    if (sizes->mtu_phits > UINT16_MAX)
        return refuse(err, "mtu_bytes = %" G_GINT64_FORMAT " is %u phits; packets are at most "
                      "%u phits long: lower it, or make phits larger",
                      values[K_MTU_BYTES].i, sizes->mtu_phits, UINT16_MAX);
    uint32_t longest = sizes->mtu_phits ? sizes->mtu_phits : packet_phits;
    if (sizes->buffer_phits && sizes->buffer_phits < longest && !sizes->wormhole)
        return refuse(err, "vc_buffer_bytes = %" G_GINT64_FORMAT " is smaller than a packet "
                      "of %" G_GUINT64_FORMAT " bytes: under virtual cut-through a buffer "
                      "holds at least a whole packet; raise vc_buffer_bytes, lower %s, or set "
                      "flow_control = \"wormhole\"",
                      values[K_VC_BUFFER_BYTES].i, (uint64_t)longest * phit_bytes,
                      sizes->mtu_phits ? "mtu_bytes" : "[simulation] packet_phits");
    return read_output_buffers(values, phit_bytes, longest, sizes, err);
}
