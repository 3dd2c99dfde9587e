/* kernel/engine/host.c — the host table: the kernel services plugins call
 * (insee/host.h). Each function is a thin, allocation-free read of the
 * engine's state, cheap enough to call from route(). */
#include "engine/engine.h"
#include "engine/partition.h"

#include <math.h>
#include <string.h>

#include "net/own_paths.h"
#include "plugin/registry.h"
#include "workload/bridge.h"

static insee_engine *E(insee_kernel *k) { return k->eng; }

static void host_log(insee_kernel *k, insee_log_level level, const char *message)
{
    static const char *const names[] = {"error", "warning", "info", "debug"};
    if (level > INSEE_LOG_INFO && !k->debug)
        return;
    g_printerr("insee: %s plugin: %s: %s\n", insee_kind_name(k->kind),
               names[level <= INSEE_LOG_DEBUG ? level : INSEE_LOG_DEBUG], message);
}

static void host_rng_seed(insee_kernel *k, uint64_t stream, insee_rng *out)
{
    /* Plugin-requested streams live above the kernel's own ranges; each
       application's traffic and placement draw their own. */
    insee_rng_init(out, E(k)->seed,
                   ((uint64_t)(8 + k->kind) << 40) + stream + ((uint64_t)k->app << 32));
}

static void host_shape(insee_kernel *k, insee_shape *out) { *out = *k->shape; }

static uint32_t host_ports(insee_kernel *k, uint32_t router)
{
    const insee_net *net = &E(k)->net;
    return router < net->routers ? net->port_base[router + 1] - net->port_base[router] : 0;
}

static uint32_t host_node_router(insee_kernel *k, uint32_t node)
{
    const insee_net *net = &E(k)->net;
    return node < net->nodes ? net->node_router[node] : INSEE_NONE;
}

/* Topology queries reach the plugin only with routers and nodes that exist:
   a router plugin's bad argument must not read out of the topology's tables. */
static gboolean in_network(const insee_net *net, uint32_t router, uint32_t node)
{
    return router < net->routers && node < net->nodes;
}

static uint32_t host_minimal_hops(insee_kernel *k, uint32_t router, uint32_t dst,
                                  uint32_t salt, insee_hop *out, uint32_t max)
{
    insee_engine *eng = E(k);
    if (!in_network(&eng->net, router, dst))
        return 0;
    return eng->topo->minimal_hops(eng->topo_self, router, dst, salt, out, max);
}

static void host_port_info(insee_kernel *k, uint32_t router, uint32_t port, insee_hop *out)
{
    insee_engine *eng = E(k);
    *out = (insee_hop){.port = (uint16_t)port, .dim = -1};
    if (eng->topo->port_info && router < eng->net.routers && port < host_ports(k, router))
        eng->topo->port_info(eng->topo_self, router, port, out);
}

static uint32_t host_distance(insee_kernel *k, uint32_t router, uint32_t dst)
{
    insee_engine *eng = E(k);
    return in_network(&eng->net, router, dst) ? insee_engine_distance(eng, router, dst) : 0;
}

static uint32_t host_coords(insee_kernel *k, uint32_t node, int32_t *out, uint32_t max)
{
    insee_engine *eng = E(k);
    if (!eng->topo->coords || node >= eng->net.nodes)
        return 0;
    return eng->topo->coords(eng->topo_self, node, out, max);
}

/* The global port of (router, port), or INSEE_NONE when either is out of
   range: a plugin's bad query reads nothing it should not. */
static uint32_t global_port(const insee_net *net, uint32_t router, uint32_t port)
{
    if (router >= net->routers || port >= net->port_base[router + 1] - net->port_base[router])
        return INSEE_NONE;
    return net->port_base[router] + port;
}

/* A part of a run split over mpirun's ranks (partition.h) holds exactly
   what its own routers' decisions need: their links, the count of the
   queues those links feed, and the queues both fed and drained here. It
   answers a query about anything else from a copy that lags, so the run
   ends with an error instead. `q`: the queue read (INSEE_NONE: only
   `router`'s own state); `whole`: q's both ends are read (the phit view),
   else only its count as its feeding link sees it. */
static gboolean held_here(insee_kernel *k, uint32_t router, uint32_t q, gboolean whole,
                          const char *what)
{
    insee_engine *eng = E(k);
    if (G_LIKELY(eng->part == NULL) || insee_partition_holds(eng->part, &eng->net, router, q, whole))
        return TRUE;
    gboolean threads = eng->report.parts_on_threads;
    insee_engine_fail(eng, "the %s plugin read %s at router %u, which this %s does not hold "
                      "exactly: this router cannot be split over %s; %s",
                      insee_kind_name(k->kind), what, router,
                      threads ? "thread's part of the run" : "mpirun rank",
                      threads ? "threads" : "ranks",
                      threads ? "set [simulation] threads = 1" : "run it without mpirun");
    return FALSE;
}

static uint32_t host_input_room(insee_kernel *k, uint32_t router, uint32_t port, uint32_t vc)
{
    const insee_net *net = &E(k)->net;
    uint32_t gp = global_port(net, router, port);
    if (gp == INSEE_NONE || vc >= net->vcs ||
        !held_here(k, router, gp * net->vcs + vc, FALSE, "an input queue's room"))
        return 0;
    return insee_net_room_packets(net, gp * net->vcs + vc);
}

static uint32_t host_output_room(insee_kernel *k, uint32_t router, uint32_t port, uint32_t vc)
{
    const insee_net *net = &E(k)->net;
    uint32_t gp = global_port(net, router, port);
    if (gp == INSEE_NONE || vc >= net->vcs || net->peer_queue[gp] == INSEE_NONE ||
        !held_here(k, router, INSEE_NONE, FALSE, "an output's room"))
        return 0;
    return insee_net_room_packets(net, net->peer_queue[gp] + vc);
}

static uint32_t host_input_free_phits(insee_kernel *k, uint32_t router, uint32_t port,
                                      uint32_t vc)
{
    const insee_engine *eng = E(k);
    const insee_net *net = &eng->net;
    uint32_t gp = global_port(net, router, port);
    if (gp == INSEE_NONE || vc >= net->vcs ||
        !held_here(k, router, gp * net->vcs + vc, TRUE, "an input queue's free phits"))
        return 0;
    return insee_net_free_phits(net, gp * net->vcs + vc, eng->now);
}

static uint32_t host_output_free_phits(insee_kernel *k, uint32_t router, uint32_t port,
                                       uint32_t vc)
{
    const insee_engine *eng = E(k);
    const insee_net *net = &eng->net;
    uint32_t gp = global_port(net, router, port);
    if (gp == INSEE_NONE || vc >= net->vcs || net->peer_queue[gp] == INSEE_NONE ||
        !held_here(k, router, net->peer_queue[gp] + vc, TRUE, "an output's free phits"))
        return 0;
    return insee_net_free_phits(net, net->peer_queue[gp] + vc, eng->now);
}

static uint32_t host_output_used_phits(insee_kernel *k, uint32_t router, uint32_t port,
                                       uint32_t vc)
{
    const insee_net *net = &E(k)->net;
    uint32_t gp = global_port(net, router, port);
    if (gp == INSEE_NONE || vc >= net->vcs || net->peer_queue[gp] == INSEE_NONE ||
        !held_here(k, router, INSEE_NONE, FALSE, "an output's used phits"))
        return 0;
    return net->q[net->peer_queue[gp] + vc].count * (net->phit_queues ? 1u : net->packet_phits);
}

static bool host_link_free(insee_kernel *k, uint32_t router, uint32_t port)
{
    insee_engine *eng = E(k);
    uint32_t gp = global_port(&eng->net, router, port);
    return gp != INSEE_NONE && held_here(k, router, INSEE_NONE, FALSE, "a link's state") &&
           eng->net.link[gp].free_at <= eng->now;
}

/* A flow engine's network is the graph alone (insee_net_build_graph): no
   queue holds a packet, so every queue has its whole room, in packets or
   phits, and every link is free. */
static uint32_t empty_room(insee_kernel *k, uint32_t router, uint32_t port, uint32_t vc)
{
    const insee_net *net = &E(k)->net;
    return global_port(net, router, port) == INSEE_NONE || vc >= net->vcs
               ? 0
               : k->shape->queue_packets;
}

static uint32_t empty_free_phits(insee_kernel *k, uint32_t router, uint32_t port, uint32_t vc)
{
    return empty_room(k, router, port, vc) * k->shape->packet_phits;
}

static uint32_t empty_used_phits(insee_kernel *k, uint32_t router, uint32_t port, uint32_t vc)
{
    (void)k, (void)router, (void)port, (void)vc;
    return 0;
}

static bool empty_link_free(insee_kernel *k, uint32_t router, uint32_t port)
{
    return global_port(&E(k)->net, router, port) != INSEE_NONE;
}

static double host_occupancy(insee_kernel *k)
{
    const insee_net *net = &E(k)->net;
    if (!held_here(k, INSEE_NONE, INSEE_NONE, FALSE, "the whole network's occupancy"))
        return 0.0;
    double cap = (double)net->transit_queues * net->queue_packets;
    return cap > 0 ? (double)net->transit_used / cap : 0.0;
}

static void host_wake_task(insee_kernel *k, uint32_t task, uint64_t at)
{
    insee_workload_wake(&E(k)->wl, k->app, task, at);
}

static bool host_peer(insee_kernel *k, uint32_t router, uint32_t port, insee_port_peer *out)
{
    const insee_net *net = &E(k)->net;
    uint32_t gp = global_port(net, router, port);
    if (gp == INSEE_NONE || net->peer_queue[gp] == INSEE_NONE)
        return false;
    uint32_t in = net->peer_queue[gp] / net->vcs;
    out->router = net->port_router[in];
    out->port = in - net->port_base[out->router];
    return true;
}

static uint32_t host_message_packets(insee_kernel *k, uint64_t bytes)
{
    const insee_engine *eng = E(k);
    uint64_t per_packet = eng->payload_bytes;
    uint64_t packets = bytes / per_packet + (bytes % per_packet != 0);
    if (packets == 0)
        return 1;
    return packets > UINT32_MAX ? UINT32_MAX : (uint32_t)packets;
}

static bool host_bridge_inject_with(insee_kernel *k, uint32_t src, uint32_t dst,
                                    uint64_t bytes, uint64_t handle, uint64_t at, uint16_t nic,
                                    uint8_t copy, insee_error *err)
{
    if (k->kind != INSEE_KIND_BRIDGE) {
        insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                        "bridge_inject() is only for a bridge plugin, inside its sync()");
        return false;
    }
    return insee_bridge_inject(&E(k)->wl, src, dst, bytes, host_message_packets(k, bytes), handle,
                               at, nic, copy, err);
}

static bool host_bridge_inject(insee_kernel *k, uint32_t src, uint32_t dst, uint64_t bytes,
                               uint64_t handle, uint64_t at, insee_error *err)
{
    return host_bridge_inject_with(k, src, dst, bytes, handle, at, 0, INSEE_COPY_DEFAULT, err);
}

static bool host_report_figure(insee_kernel *k, const char *name, double value, const char *unit)
{
    if (!insee_figure_name_valid(name) || !isfinite(value)) {
        char *why = g_strdup_printf("report_figure(\"%s\", %g) ignored: the name must be 1 to 47 "
                                    "of [a-z0-9_] starting with a letter, the value finite",
                                    name ? name : "(null)", value);
        host_log(k, INSEE_LOG_WARNING, why);
        g_free(why);
        return false;
    }
    insee_report_set_figure(&E(k)->report, k->section, name, value, unit);
    return true;
}

static bool host_stop_requested(insee_kernel *k)
{
    const insee_engine *eng = E(k);
    return eng->stop && *eng->stop;
}

static uint32_t host_topology_paths(insee_kernel *k, uint32_t src, uint32_t dst, uint32_t salt,
                                    void (*add)(void *ctx, const uint32_t *ports, uint32_t hops,
                                                double share),
                                    void *ctx)
{
    insee_engine *eng = E(k);
    return insee_net_own_paths(&eng->net, eng->topo, eng->topo_self, src, dst, salt, add, ctx);
}

static uint32_t host_topology_path_hops(insee_kernel *k)
{
    const insee_engine *eng = E(k);
    return insee_net_own_path_hops(eng->topo, eng->topo_self);
}

void insee_host_init(insee_host *host, struct insee_kernel *k)
{
    k->debug = g_getenv("INSEE_DEBUG") != NULL; /* read once, not per message */
    *host = (insee_host){
        .size = sizeof(insee_host),
        .abi_minor = INSEE_ABI_MINOR,
        .kernel = k,
        .log = host_log,
        .rng_seed = host_rng_seed,
        .shape = host_shape,
        .ports = host_ports,
        .node_router = host_node_router,
        .minimal_hops = host_minimal_hops,
        .port_info = host_port_info,
        .distance = host_distance,
        .coords = host_coords,
        .input_room = host_input_room,
        .output_room = host_output_room,
        .link_free = host_link_free,
        .occupancy = host_occupancy,
        .wake_task = host_wake_task,
        .peer = host_peer,
        .input_free_phits = host_input_free_phits,
        .output_free_phits = host_output_free_phits,
        .message_packets = host_message_packets,
        .bridge_inject = host_bridge_inject,
        .report_figure = host_report_figure,
        .stop_requested = host_stop_requested,
        .topology_paths = host_topology_paths,
        .topology_path_hops = host_topology_path_hops,
        .output_used_phits = host_output_used_phits,
        .bridge_inject_with = host_bridge_inject_with,
    };
    if (k->eng->net.routers && !k->eng->net.queues) {
        host->input_room = host->output_room = empty_room;
        host->input_free_phits = host->output_free_phits = empty_free_phits;
        host->output_used_phits = empty_used_phits;
        host->link_free = empty_link_free;
    }
}
