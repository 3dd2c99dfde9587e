/* twisted-torus.c — 2D and 3D twisted tori (INSEE §2.1.1, Fig. 2d; Cámara
 * et al., IEEE TPDS 21(12), 2010): a torus whose wrap-around links along y
 * (and/or z) land `twist` positions further along x. Routing, distances and
 * datelines come from cayley.c: the network is Z^n modulo the lattice of
 * (dims[0], 0, 0), (-twist, dims[1], 0), (-twist, 0, dims[2]) (twisted
 * dimensions; an untwisted one contributes dims[d] alone). */
#include "cayley.h"

#include "../common/limits.h"

#include <stdlib.h>

enum { P_DIMS, P_TWIST, P_TWISTED, P_ORDER };
enum { TWISTED_ALL, TWISTED_Y, TWISTED_Z }; /* order of the choices */

static const insee_param_def twisted_params[] = {
    [P_DIMS] = {"dims", INSEE_PARAM_INT_LIST, "[8, 4]", 2, 65535, NULL, "routers",
                "routers along x, y (and z); x varies fastest in node numbers"},
    [P_TWIST] = {"twist", INSEE_PARAM_INT, "-1", -1, 65535, NULL, "routers",
                 "how far along x a twisted wrap-around link lands; -1: dims[0] / 2 "
                 "(the symmetric 2a x a and 2a x a x a networks when dims[0] = 2a)"},
    [P_TWISTED] = {"twisted", INSEE_PARAM_ENUM, "\"all\"", 1, 0, "all|y|z", NULL,
                   "which wrap-around links carry the twist: all = those of y and z"},
    [P_ORDER] = {"order", INSEE_PARAM_ENUM, "\"draw\"", 1, 0, "draw|farther", NULL,
                 "dimension order among equally short ways: drawn per packet, as INSEE "
                 "draws its routing record (draw), or toward the farther extreme (farther)"},
    {0},
};

typedef struct twisted {
    cayley g; /* first: the shared code sees a cayley */
    uint32_t k[CAYLEY_MAX_DIMS];
    uint32_t twist;
    bool twisted[CAYLEY_MAX_DIMS]; /* whether the wraps of d land twist further along x */
} twisted;

static uint32_t index_of(const twisted *t, const int64_t *x)
{
    uint32_t node = 0;
    for (uint32_t d = t->g.dims; d-- > 0;)
        node = node * t->k[d] + (uint32_t)x[d];
    return node;
}

static void twisted_place(cayley *g)
{
    const twisted *t = (const twisted *)g;
    for (uint32_t node = 0; node < g->nodes; node++) {
        uint32_t rest = node;
        for (uint32_t d = 0; d < g->dims; d++) {
            g->pos[(size_t)node * g->axes + d] = rest % t->k[d];
            rest /= t->k[d];
        }
    }
}

static uint32_t twisted_neighbour(const cayley *g, uint32_t node, uint32_t d, int dir)
{
    const twisted *t = (const twisted *)g;
    int64_t x[CAYLEY_MAX_DIMS];
    for (uint32_t e = 0; e < g->dims; e++)
        x[e] = g->pos[(size_t)node * g->axes + e];
    x[d] += dir;
    if (x[d] < 0 || x[d] >= t->k[d]) {
        x[d] -= dir * (int64_t)t->k[d];
        if (t->twisted[d]) /* (x, k-1) + 1 = (x + twist, 0) */
            x[0] += dir * (int64_t)t->twist;
    }
    x[0] = ((x[0] % t->k[0]) + t->k[0]) % t->k[0];
    return index_of(t, x);
}

static uint32_t twisted_difference(const cayley *g, uint32_t v, uint32_t u)
{
    const twisted *t = (const twisted *)g;
    int64_t x[CAYLEY_MAX_DIMS];
    for (uint32_t d = 0; d < g->dims; d++)
        x[d] = (int64_t)g->pos[(size_t)v * g->axes + d] - g->pos[(size_t)u * g->axes + d];
    /* Bring y and z into range; through a twisted wrap that costs -twist in x. */
    for (uint32_t d = 1; d < g->dims; d++)
        if (x[d] < 0) {
            x[d] += t->k[d];
            if (t->twisted[d])
                x[0] -= t->twist;
        }
    x[0] = ((x[0] % t->k[0]) + t->k[0]) % t->k[0];
    return index_of(t, x);
}

static const cayley_ops twisted_ops = {
    .place = twisted_place,
    .neighbour = twisted_neighbour,
    .difference = twisted_difference,
};

static void *twisted_create(const insee_host *host, const insee_value *params, insee_error *err)
{
    const insee_value *dims = &params[P_DIMS];
    if (dims->list_len < 2 || dims->list_len > 3) {
        insee_error_set(err, INSEE_ERR_PARAM,
                        "twisted-torus: dims has %zu sizes; give 2 or 3, e.g. dims = [8, 4] "
                        "or dims = [8, 4, 4]",
                        dims->list_len);
        return NULL;
    }
    uint32_t n = (uint32_t)dims->list_len;
    uint64_t nodes = 1;
    for (uint32_t d = 0; d < n; d++)
        nodes *= (uint64_t)dims->list[d];
    if (!topology_within_limits("twisted-torus", nodes, nodes, 2 * n, 2 * n * nodes,
                                "use smaller dims", err))
        return NULL;
    uint32_t k0 = (uint32_t)dims->list[0];
    int64_t twist = params[P_TWIST].i < 0 ? k0 / 2 : params[P_TWIST].i;
    if (twist >= k0) {
        insee_error_set(err, INSEE_ERR_PARAM,
                        "twisted-torus: twist = %lld >= dims[0] = %u; the twist is a shift "
                        "along x, use 0 <= twist < %u (or -1 for dims[0] / 2)",
                        (long long)twist, k0, k0);
        return NULL;
    }
    int64_t which = params[P_TWISTED].i;
    if (which == TWISTED_Z && n < 3) {
        insee_error_set(err, INSEE_ERR_PARAM,
                        "twisted-torus: twisted = \"z\" but dims has no z; give 3 sizes or "
                        "use twisted = \"y\"");
        return NULL;
    }
    twisted *t = calloc(1, sizeof *t);
    if (!t) {
        insee_error_set(err, INSEE_ERR_NOMEM, "twisted-torus: out of memory");
        return NULL;
    }
    t->g = (cayley){.ops = &twisted_ops, .name = "twisted-torus", .nodes = (uint32_t)nodes,
                    .dims = n, .axes = n, .draw = params[P_ORDER].i == 0};
    t->twist = (uint32_t)twist;
    for (uint32_t d = 0; d < n; d++) {
        t->k[d] = (uint32_t)dims->list[d];
        /* Positions are the coordinates; the dateline is the wrap link. */
        t->g.ring[d] = (cayley_ring){.length = t->k[d], .step = 1};
    }
    t->twisted[1] = which != TWISTED_Z;
    t->twisted[2] = n == 3 && which != TWISTED_Y;
    if (!cayley_build(&t->g, host, err)) {
        cayley_destroy(t);
        return NULL;
    }
    return t;
}

static const insee_topology_vtable twisted_vtable = CAYLEY_VTABLE(twisted_create);

static const insee_plugin_desc twisted_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_TOPOLOGY,
    .name = "twisted-torus",
    .version = "1.0.0",
    .summary = "2D and 3D twisted torus: wrap-around links of y (and z) shifted along x",
    .reference = "INSEE §2.1.1 (Fig. 2d); Cámara et al., IEEE TPDS 21(12), 2010",
    .params = twisted_params,
    .vtable = &twisted_vtable,
};

INSEE_PLUGIN_DEFINE(twisted_desc)
