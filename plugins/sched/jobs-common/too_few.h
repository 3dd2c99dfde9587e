/* too_few.h — the refusal every allocation plugin shares: fewer free nodes
 * than the job needs (insee/allocation.h). Compiled into each plugin that
 * includes it. */
#ifndef INSEE_SCHED_TOO_FEW_H
#define INSEE_SCHED_TOO_FEW_H

#include <insee/insee.h>

/* True, with err filled naming the plugin, when fewer than `count` of the
   `nodes` nodes are free. */
static inline bool too_few(uint32_t count, const bool *free_nodes, uint32_t nodes,
                           const char *name, insee_error *err)
{
    uint32_t n = 0;
    for (uint32_t v = 0; v < nodes; v++)
        n += free_nodes[v];
    if (n >= count)
        return false;
    insee_error_set(err, INSEE_ERR_UNSUPPORTED, "%s: %u nodes asked, %u of %u free", name, count,
                    n, nodes);
    return true;
}

#endif
