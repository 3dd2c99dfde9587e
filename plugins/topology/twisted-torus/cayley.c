/* cayley.c — wiring, distances and dimension-ordered minimal hops of a
 * Cayley graph of a finite abelian group, from one BFS at create (see
 * cayley.h for the model and the argument). Shared by twisted-torus,
 * midimew and spinnaker. */
#include "cayley.h"

#include <stdlib.h>

static uint32_t port_dim(uint32_t port)
{
    return port / 2;
}

static int port_dir(uint32_t port)
{
    return port & 1u ? -1 : +1;
}

static const int32_t *reach_of(const cayley *g, uint32_t c, uint32_t d)
{
    return &g->reach[((size_t)c * g->dims + d) * 2];
}

/* Whether `hops` moves along d in direction dir from `router` cross the
   dimension's dateline (hops = 1: whether this link is the dateline). */
static bool crosses(const cayley *g, uint32_t router, uint32_t d, int dir, uint32_t hops)
{
    int64_t to = (int64_t)g->pos[(size_t)router * g->axes + d] +
                 (int64_t)dir * hops * g->ring[d].step;
    return to < 0 || to >= g->ring[d].length;
}

/* Fill dist and reach by BFS from node 0. A node's predecessors (one move
   closer to 0) are final when it leaves the queue, and each of its shortest
   paths is one of theirs plus the move to it: its extremes are theirs plus
   that move. */
static void explore(cayley *g, uint32_t *queue)
{
    uint32_t n = g->dims;
    for (uint32_t c = 0; c < g->nodes; c++)
        g->dist[c] = UINT32_MAX;
    g->dist[0] = 0;
    uint32_t head = 0, tail = 0;
    queue[tail++] = 0;
    while (head < tail) {
        uint32_t c = queue[head++];
        int32_t *rc = &g->reach[(size_t)c * n * 2];
        bool first = true;
        for (uint32_t p = 0; p < 2 * n; p++) {
            uint32_t d = port_dim(p);
            int dir = port_dir(p);
            uint32_t w = g->ops->neighbour(g, c, d, dir);
            if (g->dist[w] == UINT32_MAX) {
                g->dist[w] = g->dist[c] + 1;
                queue[tail++] = w;
            }
            if (g->dist[w] + 1 != g->dist[c])
                continue;
            /* c = w - dir along d: w's paths plus one move of -dir. */
            for (uint32_t e = 0; e < n; e++) {
                const int32_t *rw = reach_of(g, w, e);
                int32_t move = e == d ? -dir : 0;
                int32_t hi = rw[0] + move, lo = rw[1] + move;
                rc[2 * e] = first || hi > rc[2 * e] ? hi : rc[2 * e];
                rc[2 * e + 1] = first || lo < rc[2 * e + 1] ? lo : rc[2 * e + 1];
            }
            first = false;
        }
        g->diameter = g->dist[c]; /* the last node out is the farthest */
    }
}

/* The first dimension whose shortest paths cross its dateline twice, or -1:
   the condition for Dally's dateline VCs (cayley.h). */
static int32_t twice_crossed_dim(const cayley *g)
{
    for (uint32_t c = 0; c < g->nodes; c++)
        for (uint32_t d = 0; d < g->dims; d++) {
            const int32_t *r = reach_of(g, c, d);
            uint64_t most = (uint64_t)(r[0] > -r[1] ? r[0] : -r[1]);
            if (most * g->ring[d].step > g->ring[d].length)
                return (int32_t)d;
        }
    return -1;
}

bool cayley_build(cayley *g, const insee_host *host, insee_error *err)
{
    size_t n = g->nodes;
    g->pos = malloc(sizeof *g->pos * n * g->axes);
    g->dist = malloc(sizeof *g->dist * n);
    g->reach = calloc(n * g->dims * 2, sizeof *g->reach); /* node 0 keeps its zeros */
    uint32_t *queue = malloc(sizeof *queue * n);
    if (!g->pos || !g->dist || !g->reach || !queue) {
        free(queue);
        insee_error_set(err, INSEE_ERR_NOMEM, "%s: out of memory for the tables of %zu nodes",
                        g->name, n);
        return false;
    }
    g->ops->place(g);
    explore(g, queue);
    free(queue);
    int32_t twice = twice_crossed_dim(g);
    if (twice >= 0) {
        char msg[320];
        snprintf(msg, sizeof msg,
                 "%s: some shortest paths cross the dateline of dimension %d twice; "
                 "dimension-order routing with two VCs per dimension (router dally) can "
                 "deadlock on this network: use router updown",
                 g->name, (int)twice);
        host->log(host->kernel, INSEE_LOG_WARNING, msg);
    }
    return true;
}

void cayley_destroy(void *self)
{
    cayley *g = self;
    free(g->pos);
    free(g->dist);
    free(g->reach);
    free(g);
}

void cayley_info(void *self, insee_topology_info *out)
{
    const cayley *g = self;
    *out = (insee_topology_info){
        .routers = g->nodes,
        .nodes = g->nodes,
        .max_ports = 2 * g->dims,
        .dims = g->axes,
        .flags = 0,
        .diameter = g->diameter,
    };
}

uint32_t cayley_ports(void *self, uint32_t router)
{
    (void)router; /* every router has one + and one - port per dimension */
    const cayley *g = self;
    return 2 * g->dims;
}

bool cayley_link(void *self, uint32_t router, uint32_t port, insee_port_peer *out)
{
    const cayley *g = self;
    out->router = g->ops->neighbour(g, router, port_dim(port), port_dir(port));
    out->port = port ^ 1u; /* the neighbour's port back toward us */
    return true;
}

uint32_t cayley_node_router(void *self, uint32_t node)
{
    (void)self; /* direct topology: router r hosts node r */
    return node;
}

/* A hop along d in direction dir with `hops` moves left along d. */
static insee_hop make_hop(const cayley *g, uint32_t router, uint32_t d, int dir, uint32_t hops,
                          bool tie)
{
    uint8_t flags = tie ? INSEE_HOP_TIE : 0;
    if (crosses(g, router, d, dir, 1))
        flags |= INSEE_HOP_WRAP;
    if (crosses(g, router, d, dir, hops))
        flags |= INSEE_HOP_WRAP_AHEAD;
    return (insee_hop){
        .port = (uint16_t)(2 * d + (dir < 0)),
        .dir = (int8_t)dir,
        .flags = flags,
        .dim = (int16_t)d,
        .dim_hops = hops <= UINT16_MAX ? (uint16_t)hops : 0, /* 0: too many to say */
    };
}

uint32_t cayley_minimal_hops(void *self, uint32_t router, uint32_t dst_node, uint32_t salt,
                             insee_hop *out, uint32_t max)
{
    const cayley *g = self;
    uint32_t c = g->ops->difference(g, dst_node, router);
    uint32_t w = 0, first = UINT32_MAX;
    /* The dimension-order hop first (cayley.h): the lowest dimension with a
       move, toward its extreme farther from 0, the salt's bit on a tie. */
    for (uint32_t d = 0; d < g->dims && w < max; d++) {
        const int32_t *r = reach_of(g, c, d);
        if (r[0] <= 0 && r[1] >= 0)
            continue;
        bool tie = r[0] == -r[1];
        bool plus = r[0] > -r[1] || (tie && !((salt >> d) & 1u));
        out[w++] = plus ? make_hop(g, router, d, +1, (uint32_t)r[0], r[1] < 0)
                        : make_hop(g, router, d, -1, (uint32_t)-r[1], r[0] > 0);
        first = out[0].port;
        break;
    }
    /* Then every other minimal port, in port order. */
    for (uint32_t d = 0; d < g->dims && w < max; d++) {
        const int32_t *r = reach_of(g, c, d);
        if (r[0] > 0 && 2 * d != first)
            out[w++] = make_hop(g, router, d, +1, (uint32_t)r[0], r[1] < 0);
        if (r[1] < 0 && w < max && 2 * d + 1 != first)
            out[w++] = make_hop(g, router, d, -1, (uint32_t)-r[1], r[0] > 0);
    }
    return w;
}

void cayley_port_info(void *self, uint32_t router, uint32_t port, insee_hop *out)
{
    const cayley *g = self;
    uint32_t d = port_dim(port);
    int dir = port_dir(port);
    *out = (insee_hop){
        .port = (uint16_t)port,
        .dir = (int8_t)dir,
        .flags = crosses(g, router, d, dir, 1) ? (uint8_t)INSEE_HOP_WRAP : 0,
        .dim = (int16_t)d,
        .dim_hops = 0,
    };
}

uint32_t cayley_distance(void *self, uint32_t router, uint32_t dst_node)
{
    const cayley *g = self;
    return g->dist[g->ops->difference(g, dst_node, router)];
}

uint32_t cayley_coords(void *self, uint32_t node, int32_t *out, uint32_t max)
{
    const cayley *g = self;
    uint32_t w = g->axes < max ? g->axes : max;
    for (uint32_t a = 0; a < w; a++)
        out[a] = (int32_t)(g->pos[(size_t)node * g->axes + a] / g->ring[a].step);
    return w;
}
