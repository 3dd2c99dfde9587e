/* kernel/flow/storage.h — the storage subsystem of the dynamic flow engine
 * (docs/storage.md, INRFlow §3.5): every node's NVM device behind its PCIe
 * link, an in-memory cache, and storage servers on dedicated nodes of the
 * same network.
 *
 * Contract
 * --------
 * The experiment reads a [storage] table into an insee_storage_config
 * (insee_storage_config_read over insee_storage_params) and reserves the
 * network's last `servers` nodes, so no application task lands on them;
 * the dynamic engine creates one insee_storage per run with
 * insee_storage_new(), which checks the placement against the config and
 * refuses what cannot work (an error naming the key).
 *
 * Devices are extra links after the flow engines' own (paths.h): from
 * `base`, every node's device link (nodes of them), then every node's PCIe
 * link (nodes of them); insee_storage_capacities() fills their bytes per
 * second. A storage server's device link has server_Bps and it has no PCIe
 * link of its own in any path (its PCIe link exists in the numbering, at
 * pcie_Bps, and stays idle).
 *
 * A storage access is an I/O-class message a task addresses to itself
 * (insee_storage_is_access): its tag says the direction, odd a read (the
 * data comes from the store to the task's node), even a write (from the
 * node to the store). insee_storage_pick() says, for one access, whether
 * the cache serves it and otherwise where the data is and which device
 * links the flow crosses at the store's end; the engine routes the network
 * part between the store's node and the task's. Draws come from each
 * task's own stream, so a run is reproducible from its seed.
 *
 * c->servers < the network's nodes (the experiment checks it).
 * insee_storage_new() copies what it needs of the config; setup and its
 * arrays are borrowed until insee_storage_free(). Not thread-safe.
 */
#ifndef INSEE_KERNEL_FLOW_STORAGE_H
#define INSEE_KERNEL_FLOW_STORAGE_H

#include <glib.h>
#include <insee/insee.h>

G_BEGIN_DECLS

typedef struct insee_flow_setup insee_flow_setup;

typedef enum {
    INSEE_STORAGE_LOCAL,    /* each task's data on its own node's device */
    INSEE_STORAGE_INTERNAL, /* on the devices of some of the application's nodes */
    INSEE_STORAGE_EXTERNAL, /* on the storage servers */
} insee_storage_placement;

typedef struct insee_storage_config {
    double nvm_Bps, pcie_Bps, server_Bps; /* bytes per second */
    double cache_hit;                     /* chance a read is served from memory */
    uint32_t servers;                     /* the network's last `servers` nodes */
    insee_storage_placement placement;
    double internal_fraction;             /* INTERNAL: the share of an application's
                                             nodes that hold its data */
} insee_storage_config;

/* The [storage] table's keys, NULL-name terminated; read its bound values
   with insee_storage_config_read(). */
extern const insee_param_def insee_storage_params[];
void insee_storage_config_read(const insee_value *values, insee_storage_config *c);

typedef struct insee_storage insee_storage;

insee_storage *insee_storage_new(const insee_storage_config *c, const insee_flow_setup *setup,
                                 uint32_t base, GError **err);
void insee_storage_free(insee_storage *s);

/* The extra links, and their capacities into cap[base .. base + links). */
uint32_t insee_storage_links(const insee_storage *s);
void insee_storage_capacities(const insee_storage *s, double *cap);

/* `io`: the message is of the I/O class (its own or its application's). */
static inline gboolean insee_storage_is_access(const insee_message *msg, uint32_t own_task,
                                               gboolean io)
{
    return io && msg->dst == own_task;
}

static inline gboolean insee_storage_is_read(const insee_message *msg)
{
    return (msg->tag & 1) != 0;
}

typedef struct insee_storage_access {
    gboolean cached;   /* a read served from memory: no flow */
    uint32_t from, to; /* nodes: the data moves from `from` to `to`; equal: no network */
    uint32_t dev[2];   /* the store's device links */
    uint32_t n_dev;
} insee_storage_access;

/* One access of global task `task` (application app): where its data is. */
void insee_storage_pick(insee_storage *s, uint32_t app, uint32_t task, gboolean read,
                        insee_storage_access *out);

G_END_DECLS
#endif
