/* flows.c — destination sets, open-ended or finite; see flows.h. */
#include "flows.h"

#include <stdio.h>
#include <stdlib.h>

struct traffic_flows {
    const char *who;
    traffic_source *source;
    double load;
    bool finite;
    traffic_flows_pick pick;
    uint64_t messages; /* finite: to each destination */
    uint32_t tasks, senders;
    uint32_t *order, *pos; /* order[position] = task; pos[task] = its position */
    uint32_t *lo, *hi;     /* a task's set: the positions [lo, hi) */
    uint32_t *count;       /* members of a task's set, itself excepted */
    uint32_t *cursor;      /* the member a task sends to next (all but DRAW) */
    uint64_t *left;        /* finite: messages a task has still to hand over */
    uint64_t *pending;     /* finite: messages handed over and not delivered */
    uint64_t unfinished;   /* finite: messages not delivered, every task's */
};

void traffic_flows_destroy(void *self)
{
    traffic_flows *f = self;
    if (!f)
        return;
    traffic_source_destroy(f->source);
    free(f->order);
    free(f->pos);
    free(f->lo);
    free(f->hi);
    free(f->count);
    free(f->cursor);
    free(f->left);
    free(f->pending);
    free(f);
}

traffic_flows *traffic_flows_new(const char *who, const insee_host *host, double load,
                                 bool finite, uint64_t messages, traffic_flows_pick pick,
                                 const insee_value *source, insee_error *err)
{
    insee_shape shape;
    host->shape(host->kernel, &shape);
    traffic_flows *f = calloc(1, sizeof *f);
    if (!f) {
        insee_error_set(err, INSEE_ERR_NOMEM, "%s: out of memory", who);
        return NULL;
    }
    *f = (traffic_flows){
        .who = who, .load = load, .finite = finite, .pick = pick, .messages = messages,
        .tasks = shape.tasks,
    };
    /* The finite mode sends as fast as it can: the load is not used, nor
       checked against the on/off periods. */
    f->source = traffic_source_create(who, host, finite ? 0 : load, source, err);
    if (!f->source) {
        traffic_flows_destroy(f);
        return NULL;
    }
    size_t n = shape.tasks ? shape.tasks : 1;
    f->order = malloc(sizeof *f->order * n);
    f->pos = malloc(sizeof *f->pos * n);
    f->lo = calloc(n, sizeof *f->lo);
    f->hi = calloc(n, sizeof *f->hi);
    f->count = calloc(n, sizeof *f->count);
    f->cursor = calloc(n, sizeof *f->cursor);
    if (finite) {
        f->left = calloc(n, sizeof *f->left);
        f->pending = calloc(n, sizeof *f->pending);
    }
    if (!f->order || !f->pos || !f->lo || !f->hi || !f->count || !f->cursor ||
        (finite && (!f->left || !f->pending))) {
        insee_error_set(err, INSEE_ERR_NOMEM, "%s: out of memory", who);
        traffic_flows_destroy(f);
        return NULL;
    }
    for (uint32_t t = 0; t < shape.tasks; t++)
        f->order[t] = t;
    return f;
}

traffic_flows *traffic_flows_create(const char *who, const insee_host *host,
                                    const insee_value *params, size_t source, insee_error *err)
{
    /* params: load, mode (0 = finite), messages, ... */
    return traffic_flows_new(who, host, params[0].d, params[1].i == 0, (uint64_t)params[2].i,
                             TRAFFIC_FLOWS_DRAW, params + source, err);
}

void traffic_flows_shuffle(traffic_flows *f, const insee_host *host, uint64_t stream)
{
    insee_rng rng;
    host->rng_seed(host->kernel, stream, &rng);
    for (uint32_t i = f->tasks; i > 1; i--) { /* Fisher-Yates */
        uint32_t j = insee_rng_below(&rng, i);
        uint32_t t = f->order[i - 1];
        f->order[i - 1] = f->order[j];
        f->order[j] = t;
    }
}

uint32_t traffic_flows_at(const traffic_flows *f, uint32_t at)
{
    return f->order[at];
}

void traffic_flows_set(traffic_flows *f, uint32_t task, uint32_t lo, uint32_t hi)
{
    f->lo[task] = lo;
    f->hi[task] = hi;
}

static bool in_own_set(const traffic_flows *f, uint32_t task)
{
    return f->pos[task] >= f->lo[task] && f->pos[task] < f->hi[task];
}

bool traffic_flows_ready(traffic_flows *f, const insee_host *host, insee_error *err)
{
    for (uint32_t at = 0; at < f->tasks; at++)
        f->pos[f->order[at]] = at;
    for (uint32_t t = 0; t < f->tasks; t++) {
        bool self = in_own_set(f, t);
        uint32_t n = f->count[t] = f->hi[t] - f->lo[t] - self;
        if (n == 0)
            continue;
        f->senders++;
        f->cursor[t] = self ? (f->pos[t] - f->lo[t]) % n : f->pos[t] % n;
        if (!f->finite)
            continue;
        if (f->messages > UINT64_MAX / n || f->unfinished > UINT64_MAX - f->messages * n) {
            insee_error_set(err, INSEE_ERR_PARAM,
                            "%s: messages = %llu to each of %u destinations is more than can "
                            "be counted; lower messages",
                            f->who, (unsigned long long)f->messages, n);
            return false;
        }
        f->left[t] = f->messages * n;
        f->unfinished += f->left[t];
    }
    if (f->senders < f->tasks) {
        char line[200];
        snprintf(line, sizeof line, "%s: %u of %u tasks have no destination and send nothing",
                 f->who, f->tasks - f->senders, f->tasks);
        host->log(host->kernel, INSEE_LOG_INFO, line);
    }
    return true;
}

void *traffic_flows_finish(traffic_flows *f, const insee_host *host, insee_error *err)
{
    if (traffic_flows_ready(f, host, err))
        return f;
    traffic_flows_destroy(f);
    return NULL;
}

/* Member m (0 .. count-1) of task's set, the task itself skipped. */
static uint32_t member(const traffic_flows *f, uint32_t task, uint32_t m)
{
    uint32_t at = f->lo[task] + m;
    if (in_own_set(f, task) && at >= f->pos[task])
        at++;
    return f->order[at];
}

uint64_t traffic_flows_start(void *self, uint32_t task, insee_rng *rng)
{
    traffic_flows *f = self;
    if (f->count[task] == 0)
        return INSEE_NEVER;
    if (f->finite)
        return 0;
    if (f->pick == TRAFFIC_FLOWS_RANDOM_START)
        f->cursor[task] = insee_rng_below(rng, f->count[task]);
    return traffic_source_start(f->source, task, rng);
}

bool traffic_flows_emit(void *self, uint32_t task, uint64_t now, insee_rng *rng,
                        insee_message *msg, uint64_t *next)
{
    traffic_flows *f = self;
    uint32_t m;
    if (!f->finite && f->pick == TRAFFIC_FLOWS_DRAW) {
        m = insee_rng_below(rng, f->count[task]);
    } else {
        m = f->cursor[task];
        f->cursor[task] = m + 1 == f->count[task] ? 0 : m + 1;
    }
    traffic_source_message(f->source, member(f, task, m), rng, msg);
    if (!f->finite) {
        *next = traffic_source_next(f->source, task, now, rng);
        return true;
    }
    f->pending[task]++;
    *next = --f->left[task] ? now + 1 : INSEE_NEVER;
    return true;
}

void traffic_flows_delivered(void *self, uint32_t src_task, const insee_message *msg,
                             uint64_t now)
{
    (void)msg;
    (void)now;
    traffic_flows *f = self;
    if (f->finite && src_task < f->tasks && f->pending[src_task] > 0) {
        f->pending[src_task]--;
        f->unfinished--;
    }
}

void traffic_flows_round(void *self, uint32_t task, insee_rng *rng,
                         void (*add)(void *ctx, const insee_message *msg), void *ctx)
{
    const traffic_flows *f = self;
    for (uint32_t m = 0; m < f->count[task]; m++) {
        insee_message msg;
        traffic_source_message(f->source, member(f, task, m), rng, &msg);
        add(ctx, &msg);
    }
}

bool traffic_flows_finished(void *self)
{
    const traffic_flows *f = self;
    return f->finite && f->unfinished == 0;
}

bool traffic_flows_causal(void *self)
{
    const traffic_flows *f = self;
    return f->finite;
}

double traffic_flows_offered_load(void *self)
{
    const traffic_flows *f = self;
    if (f->finite)
        return -1; /* as fast as the sources can: no load is offered */
    return f->tasks ? f->load * f->senders / f->tasks : 0;
}

bool traffic_flows_describe_wait(void *self, char *buf, size_t len)
{
    const traffic_flows *f = self;
    if (!f->finite) {
        snprintf(buf, len,
                 "%s: mode = \"load\" is open-ended and never finishes; for a run to "
                 "completion set mode = \"finite\"",
                 f->who);
        return true;
    }
    for (uint32_t t = 0; t < f->tasks; t++) {
        if (f->left[t] == 0 && f->pending[t] == 0)
            continue;
        uint64_t all = f->messages * f->count[t];
        snprintf(buf, len,
                 "%s: task %u has handed %llu of its %llu messages to the network and %llu "
                 "of those are not delivered (a dropped message never is: one dropped at a "
                 "full queue, which a finite mode avoids with on_full = \"throttle\", or "
                 "unroutable, e.g. through failed cables)",
                 f->who, t, (unsigned long long)(all - f->left[t]), (unsigned long long)all,
                 (unsigned long long)f->pending[t]);
        return true;
    }
    return false;
}
