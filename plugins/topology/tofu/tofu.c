/* tofu.c — Tofu's six-dimensional mesh/torus (Ajima et al., IEEE Computer
 * 2009; the 6-D network NSIM §3.1 models): X, Y and Z tori of any size, and
 * in every (x, y, z) a unit of 12 routers, a (mesh of 2) × b (torus of 3) ×
 * c (mesh of 2). The arithmetic is kcube.c's, dimensions in the order
 * X, Y, Z, a, b, c (X varies fastest in node numbers). */
#include "kcube.h"

enum { P_DIMS };

static const insee_param_def tofu_params[] = {
    [P_DIMS] = {"dims", INSEE_PARAM_INT_LIST, "[4, 4, 4]", 2, 65535, NULL, "units",
                "the X, Y and Z torus sizes, in units of 2 x 3 x 2 routers"},
    {0},
};

/* The unit's a, b, c: sizes, and which are meshes. */
static const int64_t unit[] = {2, 3, 2};
static const bool unit_mesh[] = {true, false, true};

static void *tofu_create(const insee_host *host, const insee_value *params, insee_error *err)
{
    (void)host; /* the wiring is a pure function of the parameters */
    const insee_value *xyz = &params[P_DIMS];
    if (xyz->list_len != 3) {
        insee_error_set(err, INSEE_ERR_PARAM,
                        "tofu: dims has %zu sizes; give the three of X, Y and Z, e.g. "
                        "dims = [4, 4, 4] (the unit's a, b, c are always 2 x 3 x 2)",
                        xyz->list_len);
        return NULL;
    }
    int64_t six[6] = {xyz->list[0], xyz->list[1], xyz->list[2], unit[0], unit[1], unit[2]};
    insee_value dims = {.type = INSEE_PARAM_INT_LIST, .list = six, .list_len = 6};
    kcube *c = kcube_create("tofu", &dims, true, true, err);
    for (uint32_t d = 0; c && d < 3; d++)
        if (unit_mesh[d])
            kcube_set_mesh(c, 3 + d);
    return c;
}

static const insee_topology_vtable tofu_vtable = KCUBE_VTABLE(tofu_create);

static const insee_plugin_desc tofu_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_TOPOLOGY,
    .name = "tofu",
    .version = "1.0.0",
    .summary = "Tofu's 6-D mesh/torus: X, Y, Z tori of units of 2 x 3 x 2 routers (a, c "
               "meshes, b a torus)",
    .reference = "Ajima et al., IEEE Computer 42(11), 2009; NSIM §3.1",
    .params = tofu_params,
    .vtable = &tofu_vtable,
};

INSEE_PLUGIN_DEFINE(tofu_desc)
