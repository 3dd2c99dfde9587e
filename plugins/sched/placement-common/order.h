/* placement-common/order.h — what the placement plugins share. Each policy
 * defines an order of the network's nodes and task t runs on the t-th
 * available node in that order. Filling by an order makes every policy a
 * bijection onto the available nodes, and puts successive applications (one
 * place() call each) on successive free stretches of the same order, which
 * is how INSEE §3.4 lays several application instances side by side.
 * Header-only so that each .so stays self-contained.
 */
#ifndef INSEE_PLACEMENT_ORDER_H
#define INSEE_PLACEMENT_ORDER_H

#include <insee/insee.h>

#include <stdlib.h>

/* Sort keys: quadrant needs a tile coordinate and a coordinate per
   dimension, so this bounds the grids it handles to ORDER_KEY_MAX / 2 dims. */
#define ORDER_KEY_MAX 16
#define ORDER_MAX_DIMS (ORDER_KEY_MAX / 2)

/* Task t on the t-th node of order[0..nodes) whose available[] is true. */
static inline bool order_fill(const char *plugin, const uint32_t *order, uint32_t nodes,
                              const bool *available, uint32_t tasks, uint32_t *task_node,
                              insee_error *err)
{
    uint32_t t = 0;
    for (uint32_t i = 0; i < nodes && t < tasks; i++) {
        if (available[order[i]])
            task_node[t++] = order[i];
    }
    if (t < tasks) {
        uint32_t free_nodes = 0;
        for (uint32_t n = 0; n < nodes; n++)
            free_nodes += available[n];
        insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                        "%s: %u tasks do not fit on the %u available nodes (of %u); "
                        "use fewer tasks or a larger network",
                        plugin, tasks, free_nodes, nodes);
        return false;
    }
    return true;
}

static inline uint32_t *order_alloc(const char *plugin, uint32_t nodes, insee_error *err)
{
    uint32_t *order = malloc(sizeof *order * (nodes ? nodes : 1));
    if (!order)
        insee_error_set(err, INSEE_ERR_NOMEM, "%s: out of memory for %u nodes", plugin, nodes);
    return order;
}

/* Fill a node's sort key (ORDER_KEY_MAX entries, zeroed beforehand); false
   with err filled when the node cannot be placed by this policy. Called for
   nodes 0, 1, 2, ... in that order, so a key may count earlier nodes. */
typedef bool (*order_key_fn)(void *ctx, uint32_t node, int64_t *key, insee_error *err);

typedef struct order_keyed {
    int64_t key[ORDER_KEY_MAX];
    uint32_t node;
} order_keyed;

/* Lexicographic on the key; equal keys keep node-index order, so the order
   never depends on how qsort breaks ties. */
static inline int order_keyed_cmp(const void *pa, const void *pb)
{
    const order_keyed *a = pa, *b = pb;
    for (int i = 0; i < ORDER_KEY_MAX; i++) {
        if (a->key[i] != b->key[i])
            return a->key[i] < b->key[i] ? -1 : 1;
    }
    return a->node < b->node ? -1 : a->node > b->node;
}

/* place() for a policy whose order sorts the nodes by key(). */
static inline bool order_place_by_key(const char *plugin, order_key_fn key, void *ctx,
                                      uint32_t tasks, const bool *available, uint32_t nodes,
                                      uint32_t *task_node, insee_error *err)
{
    order_keyed *keyed = calloc(nodes ? nodes : 1, sizeof *keyed);
    uint32_t *order = keyed ? order_alloc(plugin, nodes, err) : NULL;
    bool ok = order != NULL;
    if (!keyed)
        insee_error_set(err, INSEE_ERR_NOMEM, "%s: out of memory for %u nodes", plugin, nodes);
    for (uint32_t n = 0; ok && n < nodes; n++) {
        keyed[n].node = n;
        ok = key(ctx, n, keyed[n].key, err);
    }
    if (ok) {
        qsort(keyed, nodes, sizeof *keyed, order_keyed_cmp);
        for (uint32_t i = 0; i < nodes; i++)
            order[i] = keyed[i].node;
        ok = order_fill(plugin, order, nodes, available, tasks, task_node, err);
    }
    free(order);
    free(keyed);
    return ok;
}

#endif
