/* bernoulli.c — Bernoulli sources by geometric gaps, and the uniform
 * destination; see bernoulli.h. */
#include "bernoulli.h"

#include <math.h>

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
    b->load = load;
    traffic_bernoulli_rate(b, load / shape->packet_phits);
    return true;
}

void traffic_bernoulli_rate(traffic_bernoulli *b, double p)
{
    b->p = p;
    b->log_q = log1p(-p);
}

uint64_t traffic_bernoulli_gap(const traffic_bernoulli *b, insee_rng *rng)
{
    if (b->p >= 1.0)
        return 0;
    double u = 1.0 - insee_rng_double(rng); /* (0, 1] */
    double g = floor(log(u) / b->log_q);
    return g >= 1e18 ? (uint64_t)1e18 : (uint64_t)g;
}

uint64_t traffic_bernoulli_start(const traffic_bernoulli *b, insee_rng *rng)
{
    if (b->p <= 0)
        return INSEE_NEVER;
    return traffic_bernoulli_gap(b, rng); /* failures before the first success */
}

uint64_t traffic_bernoulli_next(const traffic_bernoulli *b, uint64_t now, insee_rng *rng)
{
    return now + 1 + traffic_bernoulli_gap(b, rng);
}

uint32_t traffic_other_task(insee_rng *rng, uint32_t tasks, uint32_t task)
{
    /* Draw among tasks-1 and step over the source. */
    uint32_t dst = insee_rng_below(rng, tasks - 1);
    return dst + (dst >= task);
}
