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

/* Sign patterns (cayley.h): base-3 digits, one per dimension. */
static uint32_t pow3(uint32_t d)
{
    return d == 0 ? 1u : 3u * pow3(d - 1);
}

/* Pattern p with dimension d's digit set to the sign of `move`. */
static uint32_t with_sign(uint32_t p, uint32_t d, int move)
{
    uint32_t unit = pow3(d);
    return p - (p / unit % 3) * unit + (uint32_t)(move + 1) * unit;
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
    if (g->ways) /* node 0: the empty path, no move along any dimension */
        g->ways[0] = 1u << ((pow3(n) - 1) / 2);
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
            for (uint32_t bits = g->ways ? g->ways[w] : 0; bits; bits &= bits - 1)
                g->ways[c] |= 1u << with_sign((uint32_t)__builtin_ctz(bits), d, -dir);
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
    if (g->draw)
        g->ways = calloc(n, sizeof *g->ways);
    if (!g->pos || !g->dist || !g->reach || !queue || (g->draw && !g->ways)) {
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
    free(g->ways);
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

/* The lowest dimension with a move toward c, in *d, and its way: toward
   the extreme farther from 0, the salt's bit d on a tie. 0: c is node 0. */
static int farther_way(const cayley *g, uint32_t c, uint32_t salt, uint32_t *d)
{
    for (*d = 0; *d < g->dims; ++*d) {
        const int32_t *r = reach_of(g, c, *d);
        if (r[0] <= 0 && r[1] >= 0)
            continue;
        bool tie = r[0] == -r[1];
        return r[0] > -r[1] || (tie && !((salt >> *d) & 1u)) ? +1 : -1;
    }
    return 0;
}

/* The packet's rank of the signs -, none, + along dimension d: one of the
   6 orders, from a hash of the salt (each dimension hashed apart, and none
   reusing the tie bits). */
static const int8_t *sign_order(uint32_t salt, uint32_t d)
{
    static const int8_t orders[6][3] = {{+1, -1, 0}, {+1, 0, -1}, {-1, +1, 0},
                                        {-1, 0, +1}, {0, +1, -1}, {0, -1, +1}};
    uint32_t h = (salt + 0x9e3779b9u * (d + 1)) * 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return orders[h % 6];
}

/* The pattern the packet prefers among the shortest ways to c (cayley.h):
   its lowest moving dimension in *d and the way along it; 0 at node 0. */
static int drawn_way(const cayley *g, uint32_t c, uint32_t salt, uint32_t *d)
{
    uint32_t kept = g->ways[c];
    for (uint32_t e = 0; e < g->dims; e++) {
        const int8_t *order = sign_order(salt, e);
        for (int i = 0; i < 3; i++) {
            uint32_t same = 0;
            for (uint32_t bits = kept; bits; bits &= bits - 1) {
                uint32_t p = (uint32_t)__builtin_ctz(bits);
                if ((int)(p / pow3(e) % 3) - 1 == order[i])
                    same |= 1u << p;
            }
            if (same) {
                kept = same;
                break;
            }
        }
    }
    uint32_t p = (uint32_t)__builtin_ctz(kept); /* one pattern is left */
    for (*d = 0; *d < g->dims; ++*d)
        if (p / pow3(*d) % 3 != 1)
            return (int)(p / pow3(*d) % 3) - 1;
    return 0;
}

/* How many moves the packet makes along dim, way, from router on: patterns
   of one sign may differ in length, and which the packet follows shows
   only as it goes (O(those moves)). */
static uint32_t drawn_run(const cayley *g, uint32_t router, uint32_t dst_node, uint32_t salt,
                          uint32_t dim, int way)
{
    uint32_t hops = 0, d = dim;
    do {
        router = g->ops->neighbour(g, router, dim, way);
        hops++;
    } while (drawn_way(g, g->ops->difference(g, dst_node, router), salt, &d) == way && d == dim);
    return hops;
}

uint32_t cayley_minimal_hops(void *self, uint32_t router, uint32_t dst_node, uint32_t salt,
                             insee_hop *out, uint32_t max)
{
    const cayley *g = self;
    uint32_t c = g->ops->difference(g, dst_node, router);
    uint32_t w = 0, first = UINT32_MAX;
    /* The dimension-order hop first (cayley.h): the lowest dimension with a
       move, toward its extreme farther from 0, the salt's bit on a tie; or
       the way of the pattern the packet prefers. */
    uint32_t dim = 0;
    int way = g->draw ? drawn_way(g, c, salt, &dim) : farther_way(g, c, salt, &dim);
    if (way != 0 && w < max) {
        const int32_t *r = reach_of(g, c, dim);
        uint32_t hops = g->draw ? drawn_run(g, router, dst_node, salt, dim, way)
                                : (uint32_t)(way > 0 ? r[0] : -r[1]);
        out[w++] = make_hop(g, router, dim, way, hops, way > 0 ? r[1] < 0 : r[0] > 0);
        first = out[0].port;
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
