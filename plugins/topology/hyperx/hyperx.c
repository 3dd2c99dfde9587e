/* hyperx.c — HyperX / flattened butterfly (Ahn et al., SC 2009; Kim et al.,
 * ISCA 2007; INRFlow §3.2's large-scale families): routers on a lattice,
 * fully connected within each dimension, optional parallel links (trunking)
 * and several nodes per router (concentration). The arithmetic lives in
 * hamming.c, shared with the hypercube plugin. */
#include "hamming.h"

enum { P_DIMS, P_TRUNKING, P_P };

static const insee_param_def hyperx_params[] = {
    [P_DIMS] = {"dims", INSEE_PARAM_INT_LIST, "[4, 4]", 2, 65535, NULL, "routers",
                "routers along each dimension (dimension 0 varies fastest in router numbers)"},
    [P_TRUNKING] = {"trunking", INSEE_PARAM_INT, "1", 1, 65535, NULL, "links",
                    "parallel links between each pair of linked routers (K)"},
    [P_P] = {"p", INSEE_PARAM_INT, "1", 1, 65535, NULL, "nodes",
             "nodes per router (concentration); node n attaches to router n / p"},
    {0},
};

static void *hyperx_create(const insee_host *host, const insee_value *params, insee_error *err)
{
    (void)host; /* the wiring is a pure function of the parameters */
    return hamming_create("hyperx", params[P_DIMS].list, params[P_DIMS].list_len,
                          (uint32_t)params[P_TRUNKING].i, (uint32_t)params[P_P].i,
                          "a router has trunking x sum of (size - 1) ports and p nodes: use "
                          "less trunking, smaller dims or a smaller p",
                          err);
}

static const insee_topology_vtable hyperx_vtable = HAMMING_VTABLE(hyperx_create);

static const insee_plugin_desc hyperx_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_TOPOLOGY,
    .name = "hyperx",
    .version = "1.0.0",
    .summary = "HyperX / flattened butterfly: full connection in each dimension, "
               "optional trunking and concentration",
    .reference = "INRFlow §3.2; Ahn et al., HyperX, SC 2009",
    .params = hyperx_params,
    .vtable = &hyperx_vtable,
};

INSEE_PLUGIN_DEFINE(hyperx_desc)
