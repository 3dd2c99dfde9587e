/* dcell.c — DCell (Guo, Wu, Tan, Shi, Zhang, Lu, DCell: a scalable and
 * fault-tolerant network structure for data centers, SIGCOMM 2008): n
 * servers per switch, a level-k cell of t_(k-1) + 1 level-(k-1) cells joined
 * by the rule [i, j - 1] <-> [j, i], routed by DCellRouting. The arithmetic
 * lives in ../gdcficonn/gdc.c, shared with the ficonn and gdcficonn
 * plugins. */
#include "gdc.h"

enum { P_N, P_K };

static const insee_param_def dcell_params[] = {
    [P_N] = {"n", INSEE_PARAM_INT, "4", 2, 65535, NULL, "ports",
             "ports per switch, servers per DCell_0"},
    [P_K] = {"k", INSEE_PARAM_INT, "1", 0, GDC_MAX_LEVELS, NULL, "levels",
             "levels above DCell_0 (k + 1 ports per server)"},
    {0},
};

static void *dcell_create(const insee_host *host, const insee_value *params, insee_error *err)
{
    (void)host; /* the wiring is a pure function of the parameters */
    gdc_params p = {.n = params[P_N].i, .k = params[P_K].i, .rule = GDC_ALPHA};
    return gdc_create("dcell", &p, err);
}

static const insee_topology_vtable dcell_vtable = GDC_VTABLE(dcell_create);

static const insee_plugin_desc dcell_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_TOPOLOGY,
    .name = "dcell",
    .version = "1.0.0",
    .summary = "DCell_k: server-centric, n servers per switch, k + 1 ports per server, "
               "DCellRouting",
    .reference = "INRFlow §3.2; Guo et al., DCell, SIGCOMM 2008",
    .params = dcell_params,
    .vtable = &dcell_vtable,
};

INSEE_PLUGIN_DEFINE(dcell_desc)
