/* thin-tree.c — the k:k'-ary n-thin-tree (INSEE §2.1.2, Fig. 3b; Navaridas
 * et al.): a k-ary n-tree whose switches keep k down ports but only k' up
 * ports, k not necessarily a multiple of k'. The arithmetic lives in
 * thintree.c, shared with the kary-ntree plugin. */
#include "thintree.h"

#include "nic.h"

enum { P_K, P_K_UP, P_N, P_NIC };

static const insee_param_def thin_tree_params[] = {
    [P_K] = {"k", INSEE_PARAM_INT, "4", 2, 65532, NULL, "ports",
             "down ports per switch (nodes per leaf switch)"},
    [P_K_UP] = {"k_up", INSEE_PARAM_INT, "2", 1, 32766, NULL, "ports",
                "up ports per switch (k'), at most k"},
    [P_N] = {"n", INSEE_PARAM_INT, "3", 1, THINTREE_MAX_LEVELS, NULL, "levels",
             "levels of switches (k^n nodes)"},
    [P_NIC] = TOPO_NIC_PARAM("true"),
    {0},
};

static void *thin_tree_create(const insee_host *host, const insee_value *params, insee_error *err)
{
    (void)host; /* the wiring is a pure function of the parameters */
    thintree *t = thintree_create("thin-tree", params[P_K].i, params[P_K_UP].i, params[P_N].i, err);
    if (!t)
        return NULL;
    return topo_nic_wrap("thin-tree", &thintree_vtable, t, thintree_leaf_port, params[P_NIC].b,
                         err);
}

static const insee_topology_vtable thin_tree_vtable = TOPO_NIC_VTABLE(thin_tree_create);

static const insee_plugin_desc thin_tree_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_TOPOLOGY,
    .name = "thin-tree",
    .version = "1.0.0",
    .summary = "k:k'-ary n-thin-tree: k down and k' <= k up ports per switch, k^n nodes",
    .reference = "INSEE §2.1.2 (Fig. 3b); Navaridas et al., thin-trees",
    .params = thin_tree_params,
    .vtable = &thin_tree_vtable,
};

INSEE_PLUGIN_DEFINE(thin_tree_desc)
