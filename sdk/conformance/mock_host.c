/* sdk/conformance/mock_host.c — the host table plugins get outside an
 * experiment (see conform.h). The network it describes is a 4x4 torus with
 * one node and one task per router: port 2d goes + along dimension d, port
 * 2d+1 goes -, node n sits at (n % 4, n / 4). Small enough to reason about,
 * real enough that a traffic or placement plugin asking for coordinates or
 * distances gets consistent answers. */
#include <stdio.h>

#include "conform.h"

#define SIDE CONFORM_MOCK_SIDE
#define DIMS 2u

static conform_mock *mock_of(insee_kernel *k)
{
    return (conform_mock *)(void *)k;
}

static int32_t coord(uint32_t node, uint32_t dim)
{
    return (int32_t)(dim == 0 ? node % SIDE : node / SIDE);
}

/* Steps from a to b going + along a ring of SIDE. */
static uint32_t ahead(int32_t a, int32_t b)
{
    return (uint32_t)((b - a + (int32_t)SIDE) % (int32_t)SIDE);
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
    (void)k;
    (void)router;
    return 2 * DIMS;
}

static uint32_t mock_node_router(insee_kernel *k, uint32_t node)
{
    (void)k;
    return node;
}

static insee_hop hop_of(uint32_t router, uint32_t dim, int dir, uint32_t steps)
{
    int32_t c = coord(router, dim);
    gboolean wrap = dir > 0 ? c == (int32_t)SIDE - 1 : c == 0;
    gboolean wrap_ahead = dir > 0 ? c + (int32_t)steps >= (int32_t)SIDE : c - (int32_t)steps < 0;
    return (insee_hop){
        .port = (uint16_t)(2 * dim + (dir > 0 ? 0 : 1)),
        .dir = (int8_t)dir,
        .flags = (uint8_t)((wrap ? INSEE_HOP_WRAP : 0) | (wrap_ahead ? INSEE_HOP_WRAP_AHEAD : 0)),
        .dim = (int16_t)dim,
        .dim_hops = (uint16_t)steps,
    };
}

static uint32_t mock_minimal_hops(insee_kernel *k, uint32_t router, uint32_t dst_node,
                                  uint32_t salt, insee_hop *out, uint32_t max)
{
    (void)k;
    uint32_t n = 0;
    for (uint32_t d = 0; d < DIMS; d++) {
        uint32_t plus = ahead(coord(router, d), coord(dst_node, d));
        if (plus == 0)
            continue;
        uint32_t minus = SIDE - plus;
        insee_hop h[2];
        uint32_t m = 0;
        if (plus <= minus)
            h[m++] = hop_of(router, d, +1, plus);
        if (minus <= plus)
            h[m++] = hop_of(router, d, -1, minus);
        if (m == 2) {
            h[0].flags |= INSEE_HOP_TIE;
            h[1].flags |= INSEE_HOP_TIE;
            if (salt >> d & 1u) {
                insee_hop t = h[0];
                h[0] = h[1];
                h[1] = t;
            }
        }
        for (uint32_t i = 0; i < m && n < max; i++)
            out[n++] = h[i];
    }
    return n;
}

static void mock_port_info(insee_kernel *k, uint32_t router, uint32_t port, insee_hop *out)
{
    (void)k;
    *out = hop_of(router, port / 2, port % 2 ? -1 : +1, 0);
    out->flags &= INSEE_HOP_WRAP; /* static: whether the link wraps */
}

static uint32_t mock_distance(insee_kernel *k, uint32_t router, uint32_t dst_node)
{
    (void)k;
    uint32_t hops = 0;
    for (uint32_t d = 0; d < DIMS; d++) {
        uint32_t plus = ahead(coord(router, d), coord(dst_node, d));
        hops += MIN(plus, SIDE - plus);
    }
    return hops;
}

static uint32_t mock_coords(insee_kernel *k, uint32_t node, int32_t *out, uint32_t max)
{
    (void)k;
    uint32_t n = MIN(max, DIMS);
    for (uint32_t d = 0; d < n; d++)
        out[d] = coord(node, d);
    return n;
}

/* A busy network's state at one queue: an arbitrary but repeatable word. */
static uint32_t busy(const conform_mock *m, uint32_t router, uint32_t port, uint32_t vc)
{
    uint32_t h = router * 73856093u ^ port * 19349663u ^ vc * 83492791u ^ m->noise;
    h ^= h >> 13;
    h *= 0x5bd1e995u;
    return h ^ h >> 15;
}

static uint32_t mock_room(insee_kernel *k, uint32_t router, uint32_t port, uint32_t vc)
{
    const conform_mock *m = mock_of(k);
    return m->noise ? busy(m, router, port, vc) % (m->shape.queue_packets + 1) : m->shape.queue_packets;
}

static bool mock_link_free(insee_kernel *k, uint32_t router, uint32_t port)
{
    const conform_mock *m = mock_of(k);
    return !m->noise || busy(m, router, port, UINT32_MAX) % 2;
}

static double mock_occupancy(insee_kernel *k)
{
    const conform_mock *m = mock_of(k);
    return m->noise ? (double)(busy(m, 0, 0, 0) % 100) / 100.0 : 0.0;
}

/* Port 2d leads + along d, port 2d+1 leads -; both come back on the same
   port index at the neighbour. */
static bool mock_peer(insee_kernel *k, uint32_t router, uint32_t port, insee_port_peer *out)
{
    (void)k;
    if (router >= CONFORM_MOCK_NODES || port >= 2 * DIMS)
        return false;
    uint32_t d = port / 2, step = port % 2 ? SIDE - 1 : 1;
    int32_t x = coord(router, 0), y = coord(router, 1);
    if (d == 0)
        x = (int32_t)((uint32_t)(x + (int32_t)step) % SIDE);
    else
        y = (int32_t)((uint32_t)(y + (int32_t)step) % SIDE);
    out->router = (uint32_t)y * SIDE + (uint32_t)x;
    out->port = port ^ 1u;
    return true;
}

static void mock_wake_task(insee_kernel *k, uint32_t task, uint64_t at)
{
    conform_mock *m = mock_of(k);
    if (task < CONFORM_MOCK_NODES && at < m->wake_at[task])
        m->wake_at[task] = at;
}

void conform_mock_init(conform_mock *m, gboolean network)
{
    *m = (conform_mock){0};
    m->host.size = sizeof m->host;
    m->host.abi_minor = INSEE_ABI_MINOR;
    m->host.kernel = (insee_kernel *)(void *)m;
    m->host.log = mock_log;
    m->host.rng_seed = mock_rng_seed;
    m->host.shape = mock_shape;
    for (uint32_t t = 0; t < CONFORM_MOCK_NODES; t++)
        m->wake_at[t] = INSEE_NEVER;
    if (!network)
        return; /* a topology's create(): only log and rng_seed mean anything */
    m->shape = (insee_shape){
        .routers = CONFORM_MOCK_NODES,
        .nodes = CONFORM_MOCK_NODES,
        .max_ports = 2 * DIMS,
        .dims = DIMS,
        .vcs = 2,
        .queue_packets = 4,
        .inject_packets = 4,
        .injectors = 1,
        .packet_phits = CONFORM_MOCK_PACKET_PHITS,
        .tasks = CONFORM_MOCK_NODES,
    };
    m->host.ports = mock_ports;
    m->host.node_router = mock_node_router;
    m->host.minimal_hops = mock_minimal_hops;
    m->host.port_info = mock_port_info;
    m->host.distance = mock_distance;
    m->host.coords = mock_coords;
    m->host.input_room = mock_room;
    m->host.output_room = mock_room;
    m->host.link_free = mock_link_free;
    m->host.occupancy = mock_occupancy;
    m->host.wake_task = mock_wake_task;
    m->host.peer = mock_peer;
}
