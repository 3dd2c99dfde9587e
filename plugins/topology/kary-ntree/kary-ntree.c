/* kary-ntree.c — the k-ary n-tree (INSEE §2.1.2, Fig. 3a; Petrini and
 * Vanneschi): n levels of k^(n-1) switches with k down and k up ports,
 * k^n nodes. It is the thin-tree with k' = k: the arithmetic lives in
 * ../thin-tree/thintree.c, shared with the thin-tree plugin. */
#include "thintree.h"

#include "nic.h"

enum { P_K, P_N, P_NIC };

static const insee_param_def kary_ntree_params[] = {
    [P_K] = {"k", INSEE_PARAM_INT, "4", 2, 32766, NULL, "ports",
             "down ports and up ports per switch (nodes per leaf switch)"},
    [P_N] = {"n", INSEE_PARAM_INT, "3", 1, THINTREE_MAX_LEVELS, NULL, "levels",
             "levels of switches (k^n nodes)"},
    [P_NIC] = TOPO_NIC_PARAM("true"),
    {0},
};

static void *kary_ntree_create(const insee_host *host, const insee_value *params, insee_error *err)
{
    (void)host; /* the wiring is a pure function of the parameters */
    thintree *t = thintree_create("kary-ntree", params[P_K].i, params[P_K].i, params[P_N].i, err);
    if (!t)
        return NULL;
    return topo_nic_wrap("kary-ntree", &thintree_vtable, t, thintree_leaf_port, params[P_NIC].b,
                         err);
}

static const insee_topology_vtable kary_ntree_vtable = TOPO_NIC_VTABLE(kary_ntree_create);

static const insee_plugin_desc kary_ntree_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_TOPOLOGY,
    .name = "kary-ntree",
    .version = "1.0.0",
    .summary = "k-ary n-tree (fat tree): n levels of k^(n-1) switches, k^n nodes",
    .reference = "INSEE §2.1.2 (Fig. 3a); Petrini and Vanneschi, k-ary n-trees",
    .params = kary_ntree_params,
    .vtable = &kary_ntree_vtable,
};

INSEE_PLUGIN_DEFINE(kary_ntree_desc)
