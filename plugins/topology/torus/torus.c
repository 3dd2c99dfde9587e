/* torus.c — the k-ary n-cube torus (INSEE §2.1.1): any number of dimensions
 * and sizes, bidirectional or unidirectional links. The arithmetic lives in
 * kcube.c, shared with the mesh plugin. */
#include "kcube.h"

enum { P_DIMS, P_BIDIRECTIONAL };

static const insee_param_def torus_params[] = {
    [P_DIMS] = {"dims", INSEE_PARAM_INT_LIST, "[8, 8]", 2, 65535, NULL, "routers",
                "routers along each dimension (dimension 0 varies fastest in node numbers)"},
    [P_BIDIRECTIONAL] = {"bidirectional", INSEE_PARAM_BOOL, "true", 1, 0, NULL, NULL,
                         "links in both directions; false: one + port per dimension"},
    {0},
};

static void *torus_create(const insee_host *host, const insee_value *params, insee_error *err)
{
    (void)host; /* the wiring is a pure function of the parameters */
    return kcube_create("torus", &params[P_DIMS], true, params[P_BIDIRECTIONAL].b, err);
}

static const insee_topology_vtable torus_vtable = KCUBE_VTABLE(torus_create);

static const insee_plugin_desc torus_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_TOPOLOGY,
    .name = "torus",
    .version = "1.0.0",
    .summary = "k-ary n-cube torus, any dimensions and sizes, bidirectional or unidirectional",
    .reference = "INSEE §2.1.1",
    .params = torus_params,
    .vtable = &torus_vtable,
};

INSEE_PLUGIN_DEFINE(torus_desc)
