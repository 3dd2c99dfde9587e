/* hcn.c — HCN(a + b, h) of Guo et al. (IEEE TC 2013 §3.1) with INRFlow's
 * parameters: a leaders (the paper's master servers) and b followers (its
 * slave servers, second port left free for a BCN) per switch. The network
 * and its FdimRouting live in hcnbcn.c, shared with the bcn plugin. */
#include "hcnbcn.h"

enum { P_A, P_B, P_H, P_TABLE_MB };

static const insee_param_def hcn_params[] = {
    [P_A] = {"a", INSEE_PARAM_INT, "4", 2, 65535, NULL, "servers",
             "leaders per switch (the paper's alpha master servers): HCN(n, i) is a "
             "copies of HCN(n, i - 1)"},
    [P_B] = {"b", INSEE_PARAM_INT, "1", 0, 65535, NULL, "servers",
             "followers per switch (the paper's beta slave servers), second port unplugged"},
    [P_H] = {"h", INSEE_PARAM_INT, "2", 0, 30, NULL, "levels",
             "levels of the recursion: a^h switches, a^(h+1) leaders"},
    [P_TABLE_MB] = ROUTING_TABLE_MB_PARAM,
    {0},
};

static void *hcn_create(const insee_host *host, const insee_value *params, insee_error *err)
{
    (void)host; /* the wiring is a pure function of the parameters */
    uint32_t h = (uint32_t)params[P_H].i;
    return hcnbcn_create("hcn", (uint32_t)params[P_A].i, (uint32_t)params[P_B].i, h, h + 1, 0,
                         params[P_TABLE_MB].d, err);
}

static const insee_topology_vtable hcn_vtable = HCNBCN_VTABLE(hcn_create);

static const insee_plugin_desc hcn_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_TOPOLOGY,
    .name = "hcn",
    .version = "1.0.0",
    .summary = "HCN(a + b, h): recursive dual-port server-centric network, a leaders and b "
               "followers per switch, FdimRouting",
    .reference = "Guo et al., IEEE TC 62(7) 2013, §3.1 and §4.1; INRFlow §3.2",
    .params = hcn_params,
    .vtable = &hcn_vtable,
};

INSEE_PLUGIN_DEFINE(hcn_desc)
