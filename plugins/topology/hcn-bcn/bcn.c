/* bcn.c — BCN(a, b, h, c) of Guo et al. (IEEE TC 2013 §3.2) with INRFlow's
 * parameters: a^c b + 1 copies of HCN(a + b, h) whose followers join the
 * copies' HCN(a + b, c)s pairwise, by DCell's rule or beta-DCell's. The
 * network and its BdimRouting live in hcnbcn.c, shared with the hcn plugin. */
#include "hcnbcn.h"

#include <stdio.h>

enum { P_A, P_B, P_H, P_C, P_R, P_TABLE_MB };

static const insee_param_def bcn_params[] = {
    [P_A] = {"a", INSEE_PARAM_INT, "4", 2, 65535, NULL, "servers",
             "leaders per switch (the paper's alpha master servers)"},
    [P_B] = {"b", INSEE_PARAM_INT, "4", 1, 65535, NULL, "servers",
             "followers per switch (the paper's beta slave servers), cabled between copies"},
    [P_H] = {"h", INSEE_PARAM_INT, "1", 0, 30, NULL, "levels",
             "levels of each copy of HCN(a + b, h)"},
    [P_C] = {"c", INSEE_PARAM_INT, "1", 0, 30, NULL, "levels",
             "the paper's gamma (at most h): the followers of each HCN(a + b, c) join the "
             "same HCN(a + b, c) of every other copy; a^c b + 1 copies"},
    [P_R] = {"r", INSEE_PARAM_INT, "0", 0, 1, NULL, NULL,
             "connection rule of the follower cables: 0 DCell's, 1 beta-DCell's"},
    [P_TABLE_MB] = ROUTING_TABLE_MB_PARAM,
    {0},
};

static void *bcn_create(const insee_host *host, const insee_value *params, insee_error *err)
{
    (void)host; /* the wiring is a pure function of the parameters */
    if (params[P_C].i > params[P_H].i) {
        insee_error_set(err, INSEE_ERR_PARAM,
                        "bcn: c = %lld exceeds h = %lld; c must be at most h (for c > h the "
                        "network is HCN(a + b, h): use topology plugin \"hcn\")",
                        (long long)params[P_C].i, (long long)params[P_H].i);
        return NULL;
    }
    return hcnbcn_create("bcn", (uint32_t)params[P_A].i, (uint32_t)params[P_B].i,
                         (uint32_t)params[P_H].i, (uint32_t)params[P_C].i,
                         (uint32_t)params[P_R].i, params[P_TABLE_MB].d, err);
}

static const insee_topology_vtable bcn_vtable = HCNBCN_VTABLE(bcn_create);

static const insee_plugin_desc bcn_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_TOPOLOGY,
    .name = "bcn",
    .version = "1.0.0",
    .summary = "BCN(a, b, h, c): a^c b + 1 copies of HCN(a + b, h) joined through their "
               "followers, BdimRouting",
    .reference = "Guo et al., IEEE TC 62(7) 2013, §3.2 and §4.2; INRFlow §3.2",
    .params = bcn_params,
    .vtable = &bcn_vtable,
};

INSEE_PLUGIN_DEFINE(bcn_desc)
