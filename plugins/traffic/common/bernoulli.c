/* bernoulli.c — Bernoulli sources by geometric gaps, and the uniform
 * destination; see bernoulli.h. */
#include "bernoulli.h"

bool traffic_bernoulli_init(traffic_bernoulli *b, const char *name, const insee_shape *shape,
                            double load, insee_error *err)
{
    if (shape->packet_phits == 0) {
        insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                        "%s: the packet length is 0 phits; set packet_phits >= 1 "
                        "in [simulation]",
                        name);
        return false;
    }
    *b = (traffic_bernoulli){.load = load, .p = load / shape->packet_phits};
    return true;
}

uint64_t traffic_bernoulli_start(const traffic_bernoulli *b, insee_rng *rng)
{
    if (b->p <= 0)
        return INSEE_NEVER;
    return insee_rng_geometric(rng, b->p); /* failures before the first success */
}

uint64_t traffic_bernoulli_next(const traffic_bernoulli *b, uint64_t now, insee_rng *rng)
{
    return now + 1 + insee_rng_geometric(rng, b->p);
}

uint32_t traffic_other_task(insee_rng *rng, uint32_t tasks, uint32_t task)
{
    /* Draw among tasks-1 and step over the source. */
    uint32_t dst = insee_rng_below(rng, tasks - 1);
    return dst + (dst >= task);
}
