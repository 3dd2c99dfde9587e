/* thin-tree.c — the k:k'-ary n-thin-tree (INSEE §2.1.2, Fig. 3b; Navaridas
 * et al.): a k-ary n-tree whose switches keep k down ports but only k' up
 * ports, k not necessarily a multiple of k'; with the lists `down` and `up`,
 * the generalised tree of INRFlow (gtree: any number of levels, per-level
 * down and up ports). The arithmetic lives in thintree.c, shared with the
 * kary-ntree plugin. */
#include "thintree.h"

#include "nic.h"

enum { P_K, P_K_UP, P_N, P_NIC, P_DOWN, P_UP };

static const insee_param_def thin_tree_params[] = {
    [P_K] = {"k", INSEE_PARAM_INT, "4", 2, 65532, NULL, "ports",
             "down ports per switch (nodes per leaf switch)"},
    [P_K_UP] = {"k_up", INSEE_PARAM_INT, "2", 1, 32766, NULL, "ports",
                "up ports per switch (k'), at most k"},
    [P_N] = {"n", INSEE_PARAM_INT, "3", 1, THINTREE_MAX_LEVELS, NULL, "levels",
             "levels of switches (k^n nodes)"},
    [P_NIC] = TOPO_NIC_PARAM("true"),
    [P_DOWN] = {"down", INSEE_PARAM_INT_LIST, "[]", 2, 65532, NULL, "ports",
                "down ports per switch of each level, leaves first (a generalised tree; "
                "replaces k and n)"},
    [P_UP] = {"up", INSEE_PARAM_INT_LIST, "[]", 0, 65533, NULL, "ports",
              "up ports per switch of each level below the top (with down; replaces k_up)"},
    {0},
};

static void *thin_tree_create(const insee_host *host, const insee_value *params, insee_error *err)
{
    (void)host; /* the wiring is a pure function of the parameters */
    const insee_value *down = &params[P_DOWN], *up = &params[P_UP];
    if (up->list_len > 0 && down->list_len == 0) {
        insee_error_set(err, INSEE_ERR_PARAM,
                        "thin-tree: up is given without down; give both lists (a generalised "
                        "tree) or neither (k, k_up and n)");
        return NULL;
    }
    thintree *t = down->list_len > 0
                      ? thintree_create_levels("thin-tree", down->list, down->list_len, up->list,
                                               up->list_len, err)
                      : thintree_create("thin-tree", params[P_K].i, params[P_K_UP].i,
                                        params[P_N].i, err);
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
    .summary = "k:k'-ary n-thin-tree: k down and k' <= k up ports per switch, k^n nodes; "
               "or a generalised tree with per-level down and up ports",
    .reference = "INSEE §2.1.2 (Fig. 3b); Navaridas et al., thin-trees; INRFlow §3.2 (gtree)",
    .params = thin_tree_params,
    .vtable = &thin_tree_vtable,
};

INSEE_PLUGIN_DEFINE(thin_tree_desc)
