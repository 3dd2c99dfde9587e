/* in_order.h — the rule FCFS and SJF share: jobs start in one order while
 * each fits the nodes left; the first that does not fit stops the rest.
 * Compiled into each plugin that includes it. */
#ifndef INSEE_SCHED_IN_ORDER_H
#define INSEE_SCHED_IN_ORDER_H

#include <insee/insee.h>

/* queue[order[i]] for i < queued (order NULL: queue order) into start[]. */
static inline uint32_t start_in_order(const insee_job *queue, const uint32_t *order,
                                      uint32_t queued, uint32_t free_nodes, uint32_t *start)
{
    uint32_t n = 0;
    for (; n < queued; n++) {
        uint32_t q = order ? order[n] : n;
        if (queue[q].nodes > free_nodes)
            break;
        free_nodes -= queue[q].nodes;
        start[n] = q;
    }
    return n;
}

#endif
