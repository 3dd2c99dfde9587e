/* gdcficonn.c — the generalised DCell and FiConn of Erickson, Kiasari,
 * Navaridas and Stewart (Routing algorithms for recursively-defined data
 * centre networks, IEEE TrustCom/BigDataSE/ISPA 2015; INRFlow's gdcficonn):
 * DCell's, Kliegl et al.'s beta or FiConn's connection rule, with their
 * dimensional routing or their proxy routing. The arithmetic lives in gdc.c,
 * shared with the dcell and ficonn plugins. */
#include "gdc.h"

enum { P_N, P_K, P_RULE, P_ROUTING, P_TIGHTNESS, P_PROXY_LEVELS };

static const insee_param_def gdcficonn_params[] = {
    [P_N] = {"n", INSEE_PARAM_INT, "4", 2, 65535, NULL, "ports",
             "ports per switch, servers per level-0 cell (even for rule = \"ficonn\")"},
    [P_K] = {"k", INSEE_PARAM_INT, "1", 0, GDC_MAX_LEVELS, NULL, "levels",
             "levels above the level-0 cells"},
    [P_RULE] = {"rule", INSEE_PARAM_ENUM, "\"alpha\"", 0, 0, "alpha|beta|ficonn", NULL,
                "connection rule: DCell's (alpha), Kliegl et al.'s beta, or FiConn's"},
    [P_ROUTING] = {"routing", INSEE_PARAM_ENUM, "\"dimensional\"", 0, 0, "dimensional|proxy",
                   NULL, "the paths of paths(): dimensional (DCellRouting, FiConn's TOR) or "
                         "through proxy cells where shorter"},
    [P_TIGHTNESS] = {"tightness", INSEE_PARAM_INT, "0", 0, GDC_MAX_LEVELS - 1, NULL, "level",
                     "proxy: a proxy cell is tried when its bridge lies in the level-tightness "
                     "cell of the source or destination; below k"},
    [P_PROXY_LEVELS] = {"proxy_levels", INSEE_PARAM_INT_LIST, "[]", 1, GDC_MAX_LEVELS, NULL,
                        "levels", "proxy: the levels that try proxy cells; [] is every level"},
    {0},
};

static void *gdcficonn_create(const insee_host *host, const insee_value *params,
                              insee_error *err)
{
    (void)host; /* the wiring is a pure function of the parameters */
    gdc_params p = {
        .n = params[P_N].i,
        .k = params[P_K].i,
        .rule = (gdc_rule)params[P_RULE].i,
        .proxy = params[P_ROUTING].i == 1,
        .tightness = params[P_TIGHTNESS].i,
        .proxy_levels = params[P_PROXY_LEVELS].list,
        .proxy_levels_len = params[P_PROXY_LEVELS].list_len,
    };
    return gdc_create("gdcficonn", &p, err);
}

static const insee_topology_vtable gdcficonn_vtable = GDC_VTABLE(gdcficonn_create);

static const insee_plugin_desc gdcficonn_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_TOPOLOGY,
    .name = "gdcficonn",
    .version = "1.0.0",
    .summary = "generalised DCell/FiConn: DCell alpha, beta or FiConn wiring, dimensional or "
               "proxy routing",
    .reference = "INRFlow §3.2; Erickson, Kiasari, Navaridas, Stewart, ISPA 2015",
    .params = gdcficonn_params,
    .vtable = &gdcficonn_vtable,
};

INSEE_PLUGIN_DEFINE(gdcficonn_desc)
