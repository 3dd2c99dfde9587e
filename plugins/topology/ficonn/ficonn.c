/* ficonn.c — FiConn (Li, Guo, Wu, Tan, Zhang, Lu, FiConn: using backup port
 * for server interconnection in data centers, INFOCOM 2009): servers with
 * two ports, n-port switches; level l links half of the backup ports left
 * free in each FiConn_(l-1), routed by the traffic-oblivious routing (TOR).
 * The arithmetic lives in ../gdcficonn/gdc.c, shared with the dcell and
 * gdcficonn plugins. */
#include "gdc.h"

enum { P_N, P_K };

static const insee_param_def ficonn_params[] = {
    [P_N] = {"n", INSEE_PARAM_INT, "4", 2, 65534, NULL, "ports",
             "ports per switch, servers per FiConn_0; even"},
    [P_K] = {"k", INSEE_PARAM_INT, "2", 0, GDC_MAX_LEVELS, NULL, "levels",
             "levels above FiConn_0"},
    {0},
};

static void *ficonn_create(const insee_host *host, const insee_value *params, insee_error *err)
{
    (void)host; /* the wiring is a pure function of the parameters */
    gdc_params p = {.n = params[P_N].i, .k = params[P_K].i, .rule = GDC_FICONN};
    return gdc_create("ficonn", &p, err);
}

static const insee_topology_vtable ficonn_vtable = GDC_VTABLE(ficonn_create);

static const insee_plugin_desc ficonn_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_TOPOLOGY,
    .name = "ficonn",
    .version = "1.0.0",
    .summary = "FiConn_k: server-centric, two ports per server (switch and backup), n-port "
               "switches, traffic-oblivious routing",
    .reference = "INRFlow §3.2; Li et al., FiConn, INFOCOM 2009",
    .params = ficonn_params,
    .vtable = &ficonn_vtable,
};

INSEE_PLUGIN_DEFINE(ficonn_desc)
