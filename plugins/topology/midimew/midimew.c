/* midimew.c — the midimew (INSEE §2.1.1, Fig. 2c; Beivide et al., IEEE TC
 * 40(10), 1991): the circulant graph C_N(b-1, b) with b = ceil(sqrt(N/2)),
 * the radix-4 network of least diameter and average distance for any node
 * count N. Dimension 0 moves by +-(b-1), dimension 1 by +-b (or the other
 * way round with first = "b", as INSEE's midimew.c numbers them, so that
 * dimension order takes the b jumps first); routing, distances and
 * datelines come from cayley.c. */
#include "cayley.h"

#include <stdlib.h>

enum { P_NODES, P_FIRST };

static const insee_param_def midimew_params[] = {
    [P_NODES] = {"nodes", INSEE_PARAM_INT, "64", 5, 16777216, NULL, "routers",
                 "node count N; node i links to i +- (b-1) and i +- b (mod N), "
                 "b = ceil(sqrt(N / 2))"},
    [P_FIRST] = {"first", INSEE_PARAM_ENUM, "\"b-1\"", 1, 0, "b-1|b", NULL,
                 "the jump of dimension 0, which dimension order takes first: b - 1, or b "
                 "as INSEE's code does"},
    {0},
};

typedef struct midimew {
    cayley g; /* first: the shared code sees a cayley */
    uint32_t jump[2]; /* of dimensions 0 and 1: b - 1 and b, or b and b - 1 */
} midimew;

/* Both jumps: the position is i itself, moved by the jump per hop, and
   the dateline is where i + jump passes N (or i - jump goes below 0):
   about N / jump hops apart round each ring of that jump, more than a
   shortest path makes. Coordinates 0 and 1 are then i / (b-1) and i / b,
   the jumps since that dateline (i / b and i / (b-1) with first = "b");
   the third, the column i mod b, gives
   every node its own (with i / b, its row and column in rows of b). */
static void midimew_place(cayley *g)
{
    for (uint32_t i = 0; i < g->nodes; i++) {
        uint32_t *p = &g->pos[(size_t)i * 3];
        p[0] = i;
        p[1] = i;
        p[2] = i % g->ring[2].length;
    }
}

static uint32_t midimew_neighbour(const cayley *g, uint32_t node, uint32_t d, int dir)
{
    const midimew *m = (const midimew *)g;
    uint32_t jump = dir > 0 ? m->jump[d] : g->nodes - m->jump[d];
    return (uint32_t)(((uint64_t)node + jump) % g->nodes);
}

static uint32_t midimew_difference(const cayley *g, uint32_t v, uint32_t u)
{
    return v >= u ? v - u : v + (g->nodes - u);
}

static const cayley_ops midimew_ops = {
    .place = midimew_place,
    .neighbour = midimew_neighbour,
    .difference = midimew_difference,
};

static void *midimew_create(const insee_host *host, const insee_value *params, insee_error *err)
{
    uint32_t nodes = (uint32_t)params[P_NODES].i;
    uint32_t b = 1;
    while (2ull * b * b < nodes) /* b = ceil(sqrt(N / 2)) without rounding */
        b++;
    midimew *m = calloc(1, sizeof *m);
    if (!m) {
        insee_error_set(err, INSEE_ERR_NOMEM, "midimew: out of memory");
        return NULL;
    }
    bool b_first = params[P_FIRST].i == 1;
    m->jump[0] = b_first ? b : b - 1;
    m->jump[1] = b_first ? b - 1 : b;
    m->g = (cayley){.ops = &midimew_ops, .name = "midimew", .nodes = nodes, .dims = 2,
                    .axes = 3};
    m->g.ring[0] = (cayley_ring){.length = nodes, .step = m->jump[0]};
    m->g.ring[1] = (cayley_ring){.length = nodes, .step = m->jump[1]};
    m->g.ring[2] = (cayley_ring){.length = b, .step = 1};
    if (!cayley_build(&m->g, host, err)) {
        cayley_destroy(m);
        return NULL;
    }
    return m;
}

static const insee_topology_vtable midimew_vtable = CAYLEY_VTABLE(midimew_create);

static const insee_plugin_desc midimew_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_TOPOLOGY,
    .name = "midimew",
    .version = "1.0.0",
    .summary = "midimew: the radix-4 circulant C_N(b-1, b) of minimal distances for any N",
    .reference = "INSEE §2.1.1 (Fig. 2c); Beivide et al., IEEE TC 40(10), 1991",
    .params = midimew_params,
    .vtable = &midimew_vtable,
};

INSEE_PLUGIN_DEFINE(midimew_desc)
