/* sdk/conformance/mock_host.c — the host table plugins get outside an
 * experiment (see conform.h). The topology queries go to a real topology
 * instance, bound and created from the registry as the kernel does, so a
 * plugin sees the same wiring, minimal hops and coordinates it would in an
 * experiment on that network; only the network state (free room in packets
 * and in phits, links, occupancy) is made up. Like the kernel's host, every query checks its
 * arguments first, so a plugin's bad argument never reaches the topology. */
#include <math.h>
#include <stdio.h>

#include "conform.h"

static conform_mock *mock_of(insee_kernel *k)
{
    return (conform_mock *)(void *)k;
}

static const conform_topo *topo_of(insee_kernel *k)
{
    return mock_of(k)->topo;
}

static void mock_log(insee_kernel *k, insee_log_level level, const char *message)
{
    (void)k;
    if (level <= INSEE_LOG_WARNING)
        fprintf(stderr, "insee-conform: plugin %s: %s\n",
                level == INSEE_LOG_ERROR ? "error" : "warning", message);
}

static void mock_rng_seed(insee_kernel *k, uint64_t stream, insee_rng *out)
{
    (void)k;
    insee_rng_init(out, CONFORM_SEED, stream);
}

static void mock_shape(insee_kernel *k, insee_shape *out)
{
    *out = mock_of(k)->shape;
}

static uint32_t mock_ports(insee_kernel *k, uint32_t router)
{
    const conform_topo *t = topo_of(k);
    return router < t->info.routers ? t->vt->ports(t->self, router) : 0;
}

static uint32_t mock_node_router(insee_kernel *k, uint32_t node)
{
    const conform_topo *t = topo_of(k);
    return node < t->info.nodes ? t->vt->node_router(t->self, node) : UINT32_MAX;
}

static gboolean in_network(const conform_topo *t, uint32_t router, uint32_t node)
{
    return router < t->info.routers && node < t->info.nodes;
}

static uint32_t mock_minimal_hops(insee_kernel *k, uint32_t router, uint32_t dst_node,
                                  uint32_t salt, insee_hop *out, uint32_t max)
{
    const conform_topo *t = topo_of(k);
    return in_network(t, router, dst_node)
               ? t->vt->minimal_hops(t->self, router, dst_node, salt, out, max)
               : 0;
}

static void mock_port_info(insee_kernel *k, uint32_t router, uint32_t port, insee_hop *out)
{
    const conform_topo *t = topo_of(k);
    *out = (insee_hop){.port = (uint16_t)port, .dim = -1};
    if (t->vt->port_info && port < mock_ports(k, router))
        t->vt->port_info(t->self, router, port, out);
}

static bool mock_peer(insee_kernel *k, uint32_t router, uint32_t port, insee_port_peer *out)
{
    const conform_topo *t = topo_of(k);
    return port < mock_ports(k, router) && t->vt->link(t->self, router, port, out) &&
           out->router < t->info.routers;
}

/* The topology's distance(), or what the kernel does without one: follow
   the first minimal hop until the destination. */
static uint32_t mock_distance(insee_kernel *k, uint32_t router, uint32_t dst_node)
{
    const conform_topo *t = topo_of(k);
    if (!in_network(t, router, dst_node))
        return 0;
    if (t->vt->distance)
        return t->vt->distance(t->self, router, dst_node);
    uint32_t d = 0;
    insee_hop hop;
    insee_port_peer next;
    while (d <= t->info.routers && t->vt->minimal_hops(t->self, router, dst_node, 0, &hop, 1) > 0 &&
           mock_peer(k, router, hop.port, &next)) {
        router = next.router;
        d++;
    }
    return d;
}

static uint32_t mock_coords(insee_kernel *k, uint32_t node, int32_t *out, uint32_t max)
{
    const conform_topo *t = topo_of(k);
    return t->vt->coords && node < t->info.nodes ? t->vt->coords(t->self, node, out, max) : 0;
}

/* A query of router's state: counted when it is not the home router's. */
static void seen(insee_kernel *k, uint32_t router)
{
    conform_mock *m = mock_of(k);
    m->away += m->home != UINT32_MAX && router != m->home;
}

/* A busy network's state at one queue: an arbitrary but repeatable word. */
static uint32_t busy(const conform_mock *m, uint32_t router, uint32_t port, uint32_t vc)
{
    uint32_t h = router * 73856093u ^ port * 19349663u ^ vc * 83492791u ^ m->noise;
    h ^= h >> 13;
    h *= 0x5bd1e995u;
    return h ^ h >> 15;
}

/* Free slots of the input queue (router, port, vc), 0 when it does not
   exist (host.h). */
static uint32_t queue_room(insee_kernel *k, uint32_t router, uint32_t port, uint32_t vc)
{
    const conform_mock *m = mock_of(k);
    if (port >= mock_ports(k, router) || vc >= m->shape.vcs)
        return 0;
    return m->noise ? busy(m, router, port, vc) % (m->shape.queue_packets + 1) : m->shape.queue_packets;
}

static uint32_t mock_input_room(insee_kernel *k, uint32_t router, uint32_t port, uint32_t vc)
{
    seen(k, router);
    return queue_room(k, router, port, vc);
}

static uint32_t mock_output_room(insee_kernel *k, uint32_t router, uint32_t port, uint32_t vc)
{
    seen(k, router);
    insee_port_peer next;
    return mock_peer(k, router, port, &next) ? queue_room(k, next.router, next.port, vc) : 0;
}

/* The same queue in free phits (host.h, minor 1): its whole free slots,
   and in a busy network part of a packet granted towards it that has not
   all crossed yet. */
static uint32_t queue_free_phits(insee_kernel *k, uint32_t router, uint32_t port, uint32_t vc)
{
    const conform_mock *m = mock_of(k);
    uint32_t room = queue_room(k, router, port, vc), phits = m->shape.packet_phits;
    uint32_t crossing = m->noise && room < m->shape.queue_packets
                            ? busy(m, router, port, vc + 1) % phits
                            : 0;
    return room * phits + crossing;
}

static uint32_t mock_input_free_phits(insee_kernel *k, uint32_t router, uint32_t port, uint32_t vc)
{
    seen(k, router);
    return queue_free_phits(k, router, port, vc);
}

static uint32_t mock_output_free_phits(insee_kernel *k, uint32_t router, uint32_t port, uint32_t vc)
{
    seen(k, router);
    insee_port_peer next;
    return mock_peer(k, router, port, &next) ? queue_free_phits(k, next.router, next.port, vc) : 0;
}

static uint32_t mock_output_used_phits(insee_kernel *k, uint32_t router, uint32_t port,
                                       uint32_t vc)
{
    const conform_mock *m = mock_of(k);
    seen(k, router);
    insee_port_peer next;
    if (!mock_peer(k, router, port, &next))
        return 0;
    return m->shape.queue_packets * m->shape.packet_phits -
           queue_free_phits(k, next.router, next.port, vc);
}

static bool mock_link_free(insee_kernel *k, uint32_t router, uint32_t port)
{
    const conform_mock *m = mock_of(k);
    seen(k, router);
    return port < mock_ports(k, router) && (!m->noise || busy(m, router, port, UINT32_MAX) % 2);
}

static double mock_occupancy(insee_kernel *k)
{
    conform_mock *m = mock_of(k);
    m->away += m->home != UINT32_MAX; /* the whole network's: never one router's */
    return m->noise ? (double)(busy(m, 0, 0, 0) % 100) / 100.0 : 0.0;
}

static void mock_wake_task(insee_kernel *k, uint32_t task, uint64_t at)
{
    conform_mock *m = mock_of(k);
    if (task < CONFORM_MOCK_NODES && at < m->wake_at[task])
        m->wake_at[task] = at;
}

/* The kernel's rule with its default of 4 bytes per phit. */
static uint32_t mock_message_packets(insee_kernel *k, uint64_t bytes)
{
    uint64_t per_packet = (uint64_t)mock_of(k)->shape.packet_phits * 4;
    uint64_t packets = bytes / per_packet + (bytes % per_packet != 0);
    return packets == 0 ? 1 : packets > UINT32_MAX ? UINT32_MAX : (uint32_t)packets;
}

/* The kernel's rules for a bridge's injection (kernel/workload/bridge.c),
   but for the interface, which the mock cannot check: it has no [network]
   nics. */
static bool mock_bridge_inject_with(insee_kernel *k, uint32_t src, uint32_t dst, uint64_t bytes,
                                    uint64_t handle, uint64_t at, uint16_t nic, uint8_t copy,
                                    insee_error *err)
{
    (void)nic;
    conform_mock *m = mock_of(k);
    if (!m->bridge_msgs) {
        insee_error_set(err, INSEE_ERR_UNSUPPORTED, "bridge_inject(): not a bridge's host");
        return false;
    }
    const char *why = !m->bridge_in_sync                               ? "outside sync()"
                      : src >= m->shape.tasks || dst >= m->shape.tasks ? "a node out of range"
                      : at < m->bridge_boundary                        ? "a cycle before the boundary"
                      : copy > INSEE_COPY_TWO                          ? "a copy mode out of range"
                                                                       : NULL;
    if (why) {
        if (!m->bridge_refused->len)
            g_string_printf(m->bridge_refused, "node %u to node %u at cycle %" G_GUINT64_FORMAT
                            " (boundary %" G_GUINT64_FORMAT ", %u nodes): %s", src, dst, at,
                            m->bridge_boundary, m->shape.tasks, why);
        insee_error_set(err, INSEE_ERR_PARAM, "bridge_inject(): %s", why);
        return false;
    }
    insee_bridge_msg msg = {.src_node = src, .dst_node = dst, .bytes = bytes, .handle = handle,
                            .at_cycle = at};
    g_array_append_val(m->bridge_msgs, msg);
    return true;
}

static bool mock_bridge_inject(insee_kernel *k, uint32_t src, uint32_t dst, uint64_t bytes,
                               uint64_t handle, uint64_t at, insee_error *err)
{
    return mock_bridge_inject_with(k, src, dst, bytes, handle, at, 0, INSEE_COPY_DEFAULT, err);
}

/* The kernel's rules (kernel/engine/host.c); the figure itself goes
   nowhere outside an experiment. */
static bool mock_report_figure(insee_kernel *k, const char *name, double value, const char *unit)
{
    (void)k;
    (void)unit;
    return insee_figure_name_valid(name) && isfinite(value);
}

static bool mock_stop_requested(insee_kernel *k)
{
    return mock_of(k)->stop;
}

/* The topology's own paths, passed on as they come: the suites check them
   (the kernel's host also drops paths that cross a failed cable, and the
   mock network has none). */
static uint32_t mock_topology_paths(insee_kernel *k, uint32_t src, uint32_t dst, uint32_t salt,
                                    void (*add)(void *ctx, const uint32_t *ports, uint32_t hops,
                                                double share),
                                    void *ctx)
{
    const conform_topo *t = topo_of(k);
    if (!t->vt->paths || !t->vt->path_hops || src == dst || src >= t->info.routers ||
        dst >= t->info.routers)
        return 0;
    return t->vt->paths(t->self, src, dst, salt, add, ctx);
}

static uint32_t mock_topology_path_hops(insee_kernel *k)
{
    const conform_topo *t = topo_of(k);
    return t->vt->paths && t->vt->path_hops ? t->vt->path_hops(t->self) : 0;
}

void conform_mock_clear(conform_mock *m)
{
    if (m->bridge_msgs)
        g_array_free(m->bridge_msgs, TRUE);
    if (m->bridge_refused)
        g_string_free(m->bridge_refused, TRUE);
    m->bridge_msgs = NULL;
    m->bridge_refused = NULL;
}

void conform_mock_init(conform_mock *m, const conform_topo *topo)
{
    *m = (conform_mock){.topo = topo, .home = UINT32_MAX};
    m->host.size = sizeof m->host;
    m->host.abi_minor = INSEE_ABI_MINOR;
    m->host.kernel = (insee_kernel *)(void *)m;
    m->host.log = mock_log;
    m->host.rng_seed = mock_rng_seed;
    m->host.shape = mock_shape;
    for (uint32_t t = 0; t < CONFORM_MOCK_NODES; t++)
        m->wake_at[t] = INSEE_NEVER;
    if (!topo)
        return; /* a topology's create(): only log and rng_seed mean anything */
    m->shape = (insee_shape){
        .routers = topo->info.routers,
        .nodes = topo->info.nodes,
        .max_ports = topo->info.max_ports,
        .dims = topo->info.dims,
        .vcs = 2,
        .queue_packets = 4,
        .inject_packets = 4,
        .injectors = 1,
        .packet_phits = CONFORM_MOCK_PACKET_PHITS,
        .tasks = topo->info.nodes,
    };
    m->host.ports = mock_ports;
    m->host.node_router = mock_node_router;
    m->host.minimal_hops = mock_minimal_hops;
    m->host.port_info = mock_port_info;
    m->host.distance = mock_distance;
    m->host.coords = mock_coords;
    m->host.input_room = mock_input_room;
    m->host.output_room = mock_output_room;
    m->host.link_free = mock_link_free;
    m->host.occupancy = mock_occupancy;
    m->host.wake_task = mock_wake_task;
    m->host.peer = mock_peer;
    m->host.input_free_phits = mock_input_free_phits;
    m->host.output_free_phits = mock_output_free_phits;
    m->host.message_packets = mock_message_packets;
    m->host.bridge_inject = mock_bridge_inject;
    m->host.bridge_inject_with = mock_bridge_inject_with;
    m->host.report_figure = mock_report_figure;
    m->host.stop_requested = mock_stop_requested;
    m->host.topology_paths = mock_topology_paths;
    m->host.topology_path_hops = mock_topology_path_hops;
    m->host.output_used_phits = mock_output_used_phits;
}

conform_topo *conform_topo_new(const conform_ctx *ctx, const char *label, const char *body,
                               gboolean overrides, GError **err)
{
    char *text = g_strdup_printf("[topology]\n%s", body);
    char *origin = g_strdup_printf("<insee-conform network: %s>", label);
    insee_config *cfg = insee_config_load_string(text, origin, err);
    g_free(text);
    g_free(origin);
    if (!cfg)
        return NULL;
    const char *name = NULL;
    const insee_plugin *plugin = NULL;
    insee_binding b = {0};
    /* "torus": the kernel's default topology plugin, as in an experiment. */
    if ((!overrides || conform_apply_overrides(ctx, cfg, "topology", NULL, err)) &&
        insee_config_plugin_name(cfg, "topology", "torus", &name, err)) {
        plugin = insee_registry_find(ctx->reg, INSEE_KIND_TOPOLOGY, name);
        if (!plugin)
            g_set_error(err, INSEE_CONFIG_ERROR, INSEE_CONFIG_ERROR_INVALID,
                        "%s: no topology plugin '%s' was found; add its directory with "
                        "--plugin-dir",
                        label, name);
    }
    if (plugin) {
        char *owner = g_strdup_printf("topology plugin '%s'", name);
        b = (insee_binding){plugin->desc->params, owner, NULL};
        gboolean bound = insee_config_bind(cfg, "topology", &b, 1, err);
        g_free(owner);
        if (!bound)
            plugin = NULL;
    }
    if (!plugin) {
        insee_config_free(cfg);
        return NULL;
    }
    conform_topo *t = g_new0(conform_topo, 1);
    t->label = g_strdup(label);
    t->vt = plugin->vtable;
    t->cfg = cfg;
    t->created_on = g_new(conform_mock, 1);
    conform_mock_init(t->created_on, NULL);
    insee_error perr = {0};
    t->self = t->vt->create(&t->created_on->host, b.values, &perr);
    if (!t->self) {
        g_set_error(err, INSEE_CONFIG_ERROR, INSEE_CONFIG_ERROR_INVALID,
                    "%s: topology plugin '%s' refused its parameters: %s", label, name,
                    perr.message[0] ? perr.message : "create() failed without a reason");
        conform_topo_free(t);
        return NULL;
    }
    t->vt->info(t->self, &t->info);
    return t;
}

void conform_topo_free(conform_topo *t)
{
    if (!t)
        return;
    if (t->self)
        t->vt->destroy(t->self);
    insee_config_free(t->cfg);
    g_free(t->created_on);
    g_free(t->label);
    g_free(t);
}
