/* harness.c — plugin loader and mock host for the plugin unit tests. */
#include "harness.h"

#include <criterion/criterion.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

const insee_plugin_desc *load_plugin(const char *kind, const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s-%s.so", INSEE_TEST_PLUGIN_DIR, kind, name);
    /* Never closed: each Criterion test runs in its own process. */
    void *so = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    cr_assert_not_null(so, "dlopen %s: %s", path, dlerror());
    insee_entry_fn entry;
    *(void **)&entry = dlsym(so, INSEE_ENTRY_SYMBOL);
    cr_assert_not_null(entry, "%s exports no %s", path, INSEE_ENTRY_SYMBOL);
    const insee_plugin_desc *d = entry();
    cr_assert_eq(d->abi_major, INSEE_ABI_MAJOR);
    cr_assert_eq(d->abi_minor, INSEE_ABI_MINOR);
    cr_assert_eq(d->size, sizeof(insee_plugin_desc));
    cr_assert_str_eq(d->name, name);
    cr_assert_not_null(d->vtable);
    cr_assert_not_null(d->summary);
    cr_assert_not_null(d->reference);
    return d;
}

static void mock_log(insee_kernel *k, insee_log_level level, const char *message)
{
    (void)k;
    fprintf(stderr, "[plugin log %d] %s\n", (int)level, message);
}

static void mock_rng_seed(insee_kernel *k, uint64_t stream, insee_rng *out)
{
    insee_rng_init(out, k->seed, stream);
}

static void mock_shape(insee_kernel *k, insee_shape *out)
{
    *out = k->shape;
}

static uint32_t mock_ports(insee_kernel *k, uint32_t router)
{
    return k->topo->ports(k->topo_self, router);
}

static uint32_t mock_node_router(insee_kernel *k, uint32_t node)
{
    return k->topo->node_router(k->topo_self, node);
}

static uint32_t mock_minimal_hops(insee_kernel *k, uint32_t router, uint32_t dst_node,
                                  uint32_t salt, insee_hop *out, uint32_t max)
{
    return k->topo->minimal_hops(k->topo_self, router, dst_node, salt, out, max);
}

static void mock_port_info(insee_kernel *k, uint32_t router, uint32_t port, insee_hop *out)
{
    k->topo->port_info(k->topo_self, router, port, out);
}

static uint32_t mock_distance(insee_kernel *k, uint32_t router, uint32_t dst_node)
{
    return k->topo->distance(k->topo_self, router, dst_node);
}

static uint32_t mock_coords(insee_kernel *k, uint32_t node, int32_t *out, uint32_t max)
{
    return k->topo->coords(k->topo_self, node, out, max);
}

static uint32_t mock_output_room(insee_kernel *k, uint32_t router, uint32_t port, uint32_t vc)
{
    (void)router;
    (void)port;
    return k->room[vc];
}

static bool mock_peer(insee_kernel *k, uint32_t router, uint32_t port, insee_port_peer *out)
{
    return k->topo->link(k->topo_self, router, port, out);
}

static uint32_t mock_message_packets(insee_kernel *k, uint64_t bytes)
{
    uint64_t per_packet = (uint64_t)k->shape.packet_phits * (k->phit_bytes ? k->phit_bytes : 4);
    uint64_t packets = bytes / per_packet + (bytes % per_packet != 0);
    return packets == 0 ? 1 : packets > UINT32_MAX ? UINT32_MAX : (uint32_t)packets;
}

static void mock_wake_task(insee_kernel *k, uint32_t task, uint64_t at)
{
    if (k->wake_at && task < k->shape.tasks && at < k->wake_at[task])
        k->wake_at[task] = at;
}

/* The mock keeps no nic or copy: the sync-server's tests read them from
   the runs of tests/bridge. */
static bool mock_bridge_inject_with(insee_kernel *k, uint32_t src, uint32_t dst, uint64_t bytes,
                                    uint64_t handle, uint64_t at, uint16_t nic, uint8_t copy,
                                    insee_error *err)
{
    (void)nic;
    (void)copy;
    if (!k->injected || k->n_injected == k->max_injected || src >= k->shape.tasks ||
        dst >= k->shape.tasks) {
        insee_error_set(err, INSEE_ERR_PARAM, "mock bridge_inject(): refused");
        return false;
    }
    k->injected[k->n_injected++] = (insee_bridge_msg){.src_node = src, .dst_node = dst,
                                                      .bytes = bytes, .handle = handle,
                                                      .at_cycle = at};
    return true;
}

static bool mock_bridge_inject(insee_kernel *k, uint32_t src, uint32_t dst, uint64_t bytes,
                               uint64_t handle, uint64_t at, insee_error *err)
{
    return mock_bridge_inject_with(k, src, dst, bytes, handle, at, 0, 0, err);
}

insee_host mock_host(insee_kernel *k)
{
    return (insee_host){
        .size = sizeof(insee_host),
        .abi_minor = INSEE_ABI_MINOR,
        .kernel = k,
        .log = mock_log,
        .rng_seed = mock_rng_seed,
        .shape = mock_shape,
        .ports = mock_ports,
        .node_router = mock_node_router,
        .minimal_hops = mock_minimal_hops,
        .port_info = mock_port_info,
        .distance = mock_distance,
        .coords = mock_coords,
        .output_room = mock_output_room,
        .peer = mock_peer,
        .message_packets = mock_message_packets,
        .wake_task = mock_wake_task,
        .bridge_inject = mock_bridge_inject,
        .bridge_inject_with = mock_bridge_inject_with,
    };
}

void mock_topology(insee_kernel *k, const char *name, const int64_t *dims, size_t n,
                   bool bidirectional)
{
    const insee_plugin_desc *d = load_plugin("topology", name);
    insee_value params[2] = {value_int_list(dims, n), value_bool(bidirectional)};
    insee_host host = mock_host(k);
    insee_error err = {0};
    k->topo = d->vtable;
    k->topo_self = k->topo->create(&host, params, &err);
    cr_assert_not_null(k->topo_self, "%s create: %s", name, err.message);
    insee_topology_info info;
    k->topo->info(k->topo_self, &info);
    k->shape.routers = info.routers;
    k->shape.nodes = info.nodes;
    k->shape.max_ports = info.max_ports;
    k->shape.dims = info.dims;
}

void mock_topology_free(insee_kernel *k)
{
    k->topo->destroy(k->topo_self);
}

uint32_t route_walk(const insee_kernel *k, const insee_router_vtable *vt, void *router,
                    uint32_t src, uint32_t dst, uint32_t salt, route_step *path,
                    uint32_t max_steps)
{
    size_t state_size = vt->packet_state_size(router);
    void *state = state_size ? calloc(1, state_size) : NULL; /* exact size: ASan sees overruns */
    insee_rng rng;
    insee_rng_init(&rng, 1, 2);
    insee_route_ctx ctx = {
        .size = sizeof ctx,
        .router = src,
        .in_port = INSEE_PORT_INJECTION,
        .in_vc = 0,
        .src_node = src,
        .dst_node = dst,
        .salt = salt,
        .packet_state = state,
        .rng = &rng,
    };
    uint32_t hops = 0;
    while (ctx.router != dst) {
        cr_assert_lt(hops, max_steps, "%u -> %u does not arrive in %u hops", src, dst, max_steps);
        insee_candidate c[INSEE_MAX_CANDIDATES];
        cr_assert_geq(vt->route(router, &ctx, c, INSEE_MAX_CANDIDATES), 1u);
        cr_assert_lt(c[0].vc, k->shape.vcs);
        cr_assert_leq(c[0].room, 1u);
        path[hops] = (route_step){ctx.router, c[0].port, c[0].vc};
        vt->forwarded(router, &ctx, &c[0]);
        insee_port_peer peer;
        cr_assert(k->topo->link(k->topo_self, ctx.router, c[0].port, &peer));
        ctx.router = peer.router;
        ctx.in_port = peer.port;
        ctx.in_vc = c[0].vc;
        ctx.hops = ++hops;
    }
    free(state);
    cr_assert_eq(hops, k->topo->distance(k->topo_self, src, dst));
    return hops;
}

insee_value value_bool(bool b)
{
    return (insee_value){.type = INSEE_PARAM_BOOL, .b = b};
}

insee_value value_double(double d)
{
    return (insee_value){.type = INSEE_PARAM_DOUBLE, .d = d};
}

insee_value value_int(int64_t i)
{
    return (insee_value){.type = INSEE_PARAM_INT, .i = i, .d = (double)i};
}

insee_value value_enum(int64_t index, const char *s)
{
    return (insee_value){.type = INSEE_PARAM_ENUM, .i = index, .s = s};
}

insee_value value_int_list(const int64_t *list, size_t n)
{
    return (insee_value){.type = INSEE_PARAM_INT_LIST, .list = list, .list_len = n};
}

insee_value value_string(const char *s)
{
    return (insee_value){.type = INSEE_PARAM_STRING, .s = s};
}
