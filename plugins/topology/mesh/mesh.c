/* mesh.c — the n-dimensional mesh (INSEE §2.1.1): a torus without its
 * wrap-around links; border ports stay numbered but unplugged. The
 * arithmetic lives in ../torus/kcube.c, shared with the torus plugin. */
#include "kcube.h"

enum { P_DIMS };

static const insee_param_def mesh_params[] = {
    [P_DIMS] = {"dims", INSEE_PARAM_INT_LIST, "[8, 8]", 1, 65535, NULL, "routers",
                "routers along each dimension (dimension 0 varies fastest in node numbers)"},
    {0},
};

static void *mesh_create(const insee_host *host, const insee_value *params, insee_error *err)
{
    (void)host; /* the wiring is a pure function of the parameters */
    return kcube_create("mesh", &params[P_DIMS], false, true, err);
}

static const insee_topology_vtable mesh_vtable = KCUBE_VTABLE(mesh_create);

static const insee_plugin_desc mesh_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_TOPOLOGY,
    .name = "mesh",
    .version = "1.0.0",
    .summary = "n-dimensional mesh, any dimensions and sizes, no wrap-around links",
    .reference = "INSEE §2.1.1",
    .params = mesh_params,
    .vtable = &mesh_vtable,
};

INSEE_PLUGIN_DEFINE(mesh_desc)
