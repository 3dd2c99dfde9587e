/* spinnaker.c — the SpiNNaker network (INSEE §2.1.1, Fig. 2e; Navaridas et
 * al., ICS 2009): a w x h triangular torus, a 2D torus plus the diagonal
 * (x+1, y+1), six ports per router. Dimensions 0, 1, 2 move along x, y and
 * the diagonal; routing, distances and datelines come from cayley.c. */
#include "cayley.h"

#include "../common/limits.h"

#include <stdlib.h>

enum { P_DIMS };

static const insee_param_def spinnaker_params[] = {
    [P_DIMS] = {"dims", INSEE_PARAM_INT_LIST, "[8, 8]", 2, 65535, NULL, "routers",
                "routers along x and y, [w, h]; x varies fastest in node numbers"},
    {0},
};

typedef struct spinnaker {
    cayley g; /* first: the shared code sees a cayley */
    uint32_t w, h;
} spinnaker;

static uint32_t wrapped(int64_t x, uint32_t k)
{
    return (uint32_t)(x < 0 ? x + k : x >= k ? x - k : x);
}

/* Positions: x, y, and along the diagonal the coordinate of the longer
   side, whose wrap link is the diagonal's dateline. A shortest path never
   makes as many diagonal moves as the longer side (that many diagonal moves
   equal at most half as many moves along the shorter side alone), so it
   crosses that dateline at most once. */
static void spinnaker_place(cayley *g)
{
    const spinnaker *s = (const spinnaker *)g;
    for (uint32_t node = 0; node < g->nodes; node++) {
        uint32_t x = node % s->w, y = node / s->w;
        uint32_t *p = &g->pos[(size_t)node * 3];
        p[0] = x;
        p[1] = y;
        p[2] = s->w >= s->h ? x : y;
    }
}

static uint32_t spinnaker_neighbour(const cayley *g, uint32_t node, uint32_t d, int dir)
{
    const spinnaker *s = (const spinnaker *)g;
    const uint32_t *p = &g->pos[(size_t)node * 3];
    uint32_t x = d != 1 ? wrapped((int64_t)p[0] + dir, s->w) : p[0];
    uint32_t y = d != 0 ? wrapped((int64_t)p[1] + dir, s->h) : p[1];
    return x + s->w * y;
}

static uint32_t spinnaker_difference(const cayley *g, uint32_t v, uint32_t u)
{
    const spinnaker *s = (const spinnaker *)g;
    const uint32_t *pv = &g->pos[(size_t)v * 3], *pu = &g->pos[(size_t)u * 3];
    return wrapped((int64_t)pv[0] - pu[0], s->w) + s->w * wrapped((int64_t)pv[1] - pu[1], s->h);
}

static const cayley_ops spinnaker_ops = {
    .place = spinnaker_place,
    .neighbour = spinnaker_neighbour,
    .difference = spinnaker_difference,
};

static void *spinnaker_create(const insee_host *host, const insee_value *params, insee_error *err)
{
    const insee_value *dims = &params[P_DIMS];
    if (dims->list_len != 2) {
        insee_error_set(err, INSEE_ERR_PARAM,
                        "spinnaker: dims has %zu sizes; the triangular torus is 2D: give "
                        "dims = [w, h], e.g. [8, 8]",
                        dims->list_len);
        return NULL;
    }
    uint64_t nodes = (uint64_t)dims->list[0] * (uint64_t)dims->list[1];
    if (!topology_within_limits("spinnaker", nodes, nodes, 6, 6 * nodes, "use smaller dims",
                                err))
        return NULL;
    spinnaker *s = calloc(1, sizeof *s);
    if (!s) {
        insee_error_set(err, INSEE_ERR_NOMEM, "spinnaker: out of memory");
        return NULL;
    }
    s->w = (uint32_t)dims->list[0];
    s->h = (uint32_t)dims->list[1];
    s->g = (cayley){.ops = &spinnaker_ops, .name = "spinnaker", .nodes = (uint32_t)nodes,
                    .dims = 3, .axes = 3};
    s->g.ring[0] = (cayley_ring){.length = s->w, .step = 1};
    s->g.ring[1] = (cayley_ring){.length = s->h, .step = 1};
    s->g.ring[2] = (cayley_ring){.length = s->w >= s->h ? s->w : s->h, .step = 1};
    if (!cayley_build(&s->g, host, err)) {
        cayley_destroy(s);
        return NULL;
    }
    return s;
}

static const insee_topology_vtable spinnaker_vtable = CAYLEY_VTABLE(spinnaker_create);

static const insee_plugin_desc spinnaker_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_TOPOLOGY,
    .name = "spinnaker",
    .version = "1.0.0",
    .summary = "SpiNNaker triangular torus: 2D torus plus the (x+1, y+1) diagonal, 6 ports",
    .reference = "INSEE §2.1.1 (Fig. 2e); Navaridas et al., ICS 2009",
    .params = spinnaker_params,
    .vtable = &spinnaker_vtable,
};

INSEE_PLUGIN_DEFINE(spinnaker_desc)
