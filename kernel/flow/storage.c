/* kernel/flow/storage.c — where a storage access's data is, and the device
 * links it crosses (storage.h, docs/storage.md).
 *
 * Local: the task's own node. Internal: one of the first
 * ceil(internal_fraction x n) of the application's n nodes (in task
 * order), drawn uniformly per access, the task's own node included when it
 * is one of them: the paper's "only some of the local devices are
 * available". External: one of the storage servers, drawn uniformly. */
#include "flow/storage.h"

#include <math.h>

#include "flow/flow.h"

/* Each task's storage draws: a stream no other part of the kernel uses. */
#define STORAGE_STREAM (40ull << 40)

enum { K_NVM, K_PCIE, K_SERVER, K_SERVERS, K_PLACEMENT, K_CACHE_HIT, K_INTERNAL };

const insee_param_def insee_storage_params[] = {
    [K_NVM] = {"nvm_gbps", INSEE_PARAM_DOUBLE, "16", 1e-6, 1e9, NULL, "Gb/s",
               "bandwidth of every compute node's local NVM device"},
    [K_PCIE] = {"pcie_gbps", INSEE_PARAM_DOUBLE, "32", 1e-6, 1e9, NULL, "Gb/s",
                "bandwidth of the PCIe link between a node and its NVM device"},
    [K_SERVER] = {"server_gbps", INSEE_PARAM_DOUBLE, "100", 1e-6, 1e9, NULL, "Gb/s",
                  "bandwidth of each storage server's device"},
    [K_SERVERS] = {"storage_nodes", INSEE_PARAM_INT, "0", 0, 4294967295.0, NULL, "nodes",
                   "the network's last this many nodes are storage servers and take no "
                   "application task"},
    [K_PLACEMENT] = {"placement", INSEE_PARAM_ENUM, "\"local\"", 1, 0,
                     "local|internal|external", NULL,
                     "where an application's data is: its own nodes' devices (local), some "
                     "of its nodes' devices (internal), the storage servers (external)"},
    [K_CACHE_HIT] = {"cache_hit", INSEE_PARAM_DOUBLE, "0", 0, 1, NULL, NULL,
                     "chance that a read is served from the node's memory (no flow); writes "
                     "always reach the device"},
    [K_INTERNAL] = {"internal_fraction", INSEE_PARAM_DOUBLE, "0.5", 1e-9, 1, NULL, NULL,
                    "placement = \"internal\": the share of an application's nodes (the first "
                    "in task order, at least one) whose devices hold its data"},
    {0},
};

void insee_storage_config_read(const insee_value *v, insee_storage_config *c)
{
    *c = (insee_storage_config){
        .nvm_Bps = v[K_NVM].d * 1e9 / 8,
        .pcie_Bps = v[K_PCIE].d * 1e9 / 8,
        .server_Bps = v[K_SERVER].d * 1e9 / 8,
        .servers = (uint32_t)v[K_SERVERS].i,
        .placement = (insee_storage_placement)v[K_PLACEMENT].i,
        .cache_hit = v[K_CACHE_HIT].d,
        .internal_fraction = v[K_INTERNAL].d,
    };
}

struct insee_storage {
    insee_storage_config c;
    const insee_flow_setup *setup;
    uint32_t base, nodes;
    insee_rng *rng;     /* per task */
    uint32_t **holders; /* per application: the nodes holding its data (internal) */
    uint32_t *n_holders;
};

static gboolean is_server(const insee_storage *s, uint32_t node)
{
    return node >= s->nodes - s->c.servers;
}

/* The first ceil(fraction x n) of the application's distinct nodes. */
static void find_holders(insee_storage *s, uint32_t a)
{
    const insee_flow_app *app = &s->setup->apps[a];
    GHashTable *seen = g_hash_table_new(g_direct_hash, g_direct_equal);
    GArray *nodes = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    for (uint32_t t = 0; t < app->tasks; t++) {
        uint32_t n = s->setup->task_node[app->first_task + t];
        if (g_hash_table_add(seen, GUINT_TO_POINTER(n + 1)))
            g_array_append_val(nodes, n);
    }
    g_hash_table_destroy(seen);
    uint32_t k = (uint32_t)ceil(s->c.internal_fraction * nodes->len - 1e-9);
    s->n_holders[a] = MAX(k, 1);
    s->holders[a] = (uint32_t *)g_array_free(nodes, FALSE);
}

insee_storage *insee_storage_new(const insee_storage_config *c, const insee_flow_setup *setup,
                                 uint32_t base, GError **err)
{
    uint32_t nodes = setup->net->nodes;
    if (c->placement == INSEE_STORAGE_EXTERNAL && c->servers == 0) {
        g_set_error(err, INSEE_FLOW_ERROR, INSEE_FLOW_ERROR_UNSUPPORTED,
                    "[storage] placement = \"external\" keeps the data on storage servers, "
                    "but storage_nodes = 0; set storage_nodes >= 1, or placement = \"local\" "
                    "or \"internal\"");
        return NULL;
    }
    insee_storage *s = g_new0(insee_storage, 1);
    s->c = *c;
    s->setup = setup;
    s->base = base;
    s->nodes = nodes;
    uint32_t tasks = 0;
    for (uint32_t a = 0; a < setup->n_apps; a++)
        tasks = MAX(tasks, setup->apps[a].first_task + setup->apps[a].tasks);
    for (uint32_t t = 0; t < tasks; t++) {
        if (is_server(s, setup->task_node[t])) {
            g_set_error(err, INSEE_FLOW_ERROR, INSEE_FLOW_ERROR_UNSUPPORTED,
                        "task %u is on node %u, one of the [storage] storage_nodes (the "
                        "network's last %u), which take no application task; place the "
                        "applications on the other nodes",
                        t, setup->task_node[t], c->servers);
            g_free(s);
            return NULL;
        }
    }
    s->rng = g_new(insee_rng, MAX(tasks, 1));
    for (uint32_t t = 0; t < tasks; t++)
        insee_rng_init(&s->rng[t], setup->seed, STORAGE_STREAM + t);
    s->holders = g_new0(uint32_t *, MAX(setup->n_apps, 1));
    s->n_holders = g_new0(uint32_t, MAX(setup->n_apps, 1));
    for (uint32_t a = 0; a < setup->n_apps && c->placement == INSEE_STORAGE_INTERNAL; a++)
        find_holders(s, a);
    return s;
}

void insee_storage_free(insee_storage *s)
{
    if (!s)
        return;
    for (uint32_t a = 0; a < s->setup->n_apps; a++)
        g_free(s->holders[a]);
    g_free(s->holders);
    g_free(s->n_holders);
    g_free(s->rng);
    g_free(s);
}

uint32_t insee_storage_links(const insee_storage *s)
{
    return 2 * s->nodes;
}

void insee_storage_capacities(const insee_storage *s, double *cap)
{
    for (uint32_t n = 0; n < s->nodes; n++) {
        cap[s->base + n] = is_server(s, n) ? s->c.server_Bps : s->c.nvm_Bps;
        cap[s->base + s->nodes + n] = s->c.pcie_Bps;
    }
}

void insee_storage_pick(insee_storage *s, uint32_t app, uint32_t task, gboolean read,
                        insee_storage_access *out)
{
    insee_rng *rng = &s->rng[task];
    uint32_t node = s->setup->task_node[task], store = node;
    *out = (insee_storage_access){0};
    if (read && s->c.cache_hit > 0 && insee_rng_double(rng) < s->c.cache_hit) {
        out->cached = TRUE;
        out->from = out->to = node;
        return;
    }
    if (s->c.placement == INSEE_STORAGE_INTERNAL)
        store = s->holders[app][insee_rng_below(rng, s->n_holders[app])];
    else if (s->c.placement == INSEE_STORAGE_EXTERNAL)
        store = s->nodes - s->c.servers + insee_rng_below(rng, s->c.servers);
    out->from = read ? store : node;
    out->to = read ? node : store;
    out->dev[out->n_dev++] = s->base + store;
    if (!is_server(s, store))
        out->dev[out->n_dev++] = s->base + s->nodes + store;
}
