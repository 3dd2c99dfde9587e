/* source.c — Bernoulli and on/off sources with message lengths; see
 * source.h. */
#include "source.h"

#include <stdlib.h>

enum { S_PROCESS, S_ON, S_OFF, S_LENGTH };

struct traffic_source {
    double load;
    traffic_bernoulli gap; /* the Bernoulli gaps: rate, or rate_on when bursty */
    traffic_length length;
    bool bursty;
    double leave_on, leave_off; /* 1 / burst_on, 1 / burst_off */
    double on_share;            /* burst_on / (burst_on + burst_off) */
    /* bursty, per task: the on period [on_start, on_end) now or next, and
       the cycle the task was last told it is due (a later emit() is a
       stall, which delays the schedule by as much). */
    uint64_t *on_start, *on_end, *due;
};

void traffic_source_destroy(traffic_source *s)
{
    if (!s)
        return;
    free(s->on_start);
    free(s->on_end);
    free(s->due);
    free(s);
}

traffic_source *traffic_source_create(const char *who, const insee_host *host, double load,
                                      const insee_value *params, insee_error *err)
{
    insee_shape shape;
    host->shape(host->kernel, &shape);
    traffic_source *s = calloc(1, sizeof *s);
    if (!s) {
        insee_error_set(err, INSEE_ERR_NOMEM, "%s: out of memory", who);
        return NULL;
    }
    s->load = load;
    if (!traffic_bernoulli_init(&s->gap, who, &shape, load, err) ||
        !traffic_length_init(&s->length, who, host, params + S_LENGTH, err)) {
        traffic_source_destroy(s);
        return NULL;
    }
    /* rate = load / (L x P); with one packet per message exactly load / L. */
    traffic_bernoulli_rate(&s->gap, load / ((double)shape.packet_phits * s->length.mean_packets));
    if (params[S_PROCESS].i == 0)
        return s;
    double on = params[S_ON].d, off = params[S_OFF].d;
    s->bursty = true;
    s->leave_on = 1 / on;
    s->leave_off = 1 / off;
    s->on_share = on / (on + off);
    if (load > s->on_share) {
        insee_error_set(err, INSEE_ERR_PARAM,
                        "%s: process = \"bursty\" at load %g with burst_on = %g and burst_off = "
                        "%g offers %g phits/cycle while on, more than the node's link carries "
                        "(1); lower load to at most burst_on / (burst_on + burst_off) = %g, or "
                        "lengthen burst_on",
                        who, load, on, off, load / s->on_share, s->on_share);
        traffic_source_destroy(s);
        return NULL;
    }
    traffic_bernoulli_rate(&s->gap, s->gap.p / s->on_share);
    size_t n = shape.tasks ? shape.tasks : 1;
    s->on_start = malloc(sizeof *s->on_start * n);
    s->on_end = malloc(sizeof *s->on_end * n);
    s->due = malloc(sizeof *s->due * n);
    if (!s->on_start || !s->on_end || !s->due) {
        insee_error_set(err, INSEE_ERR_NOMEM, "%s: out of memory", who);
        traffic_source_destroy(s);
        return NULL;
    }
    return s;
}

/* The first cycle >= t at which the on/off source of `task` sends. Each on
   period is a Bernoulli source from its first cycle (or from t): a gap
   that overshoots the period's end means no message in it, and the draw
   starts again in the next on period, after an off period. */
static uint64_t bursty_from(traffic_source *s, uint32_t task, uint64_t t, insee_rng *rng)
{
    for (;;) {
        if (t >= s->on_end[task]) {
            s->on_start[task] = s->on_end[task] + 1 + insee_rng_geometric(rng, s->leave_off);
            s->on_end[task] = s->on_start[task] + 1 + insee_rng_geometric(rng, s->leave_on);
        }
        if (t < s->on_start[task])
            t = s->on_start[task];
        uint64_t at = t + traffic_bernoulli_gap(&s->gap, rng);
        if (at < s->on_end[task])
            return s->due[task] = at;
        t = s->on_end[task];
    }
}

uint64_t traffic_source_start(traffic_source *s, uint32_t task, insee_rng *rng)
{
    if (!s->bursty)
        return traffic_bernoulli_start(&s->gap, rng);
    if (s->gap.p <= 0)
        return INSEE_NEVER;
    /* The stationary state: on with probability on_share; either way the
       rest of the period is geometric again (the chain has no memory). */
    if (insee_rng_double(rng) < s->on_share) {
        s->on_start[task] = 0;
    } else {
        s->on_start[task] = 1 + insee_rng_geometric(rng, s->leave_off);
    }
    s->on_end[task] = s->on_start[task] + 1 + insee_rng_geometric(rng, s->leave_on);
    return bursty_from(s, task, 0, rng);
}

uint64_t traffic_source_next(traffic_source *s, uint32_t task, uint64_t now, insee_rng *rng)
{
    if (!s->bursty)
        return traffic_bernoulli_next(&s->gap, now, rng);
    uint64_t stall = now - s->due[task];
    s->on_start[task] += stall;
    s->on_end[task] += stall;
    return bursty_from(s, task, now + 1, rng);
}

void traffic_source_message(const traffic_source *s, uint32_t dst, insee_rng *rng,
                            insee_message *msg)
{
    *msg = (insee_message){.dst = dst};
    traffic_length_draw(&s->length, rng, msg);
}

double traffic_source_load(const traffic_source *s)
{
    return s->load;
}
