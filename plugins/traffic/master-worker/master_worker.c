/* master_worker.c — master–worker with dynamic load balancing (INSEE
 * §3.2.4: "programming models such as master–slave"), execution-driven:
 * task 0, the master, hands out work items one message at a time, and a
 * worker that returns a result gets the next item at once. Who gets which
 * item therefore depends on how fast each worker's messages cross the
 * network, so the pattern cannot be a fixed script: this plugin is a small
 * state machine on the traffic entries.
 *
 *  - The master starts by sending one item to each worker 1..n-1 in turn
 *    (one message per cycle). Each result it receives at cycle d queues its
 *    worker for the next item, which it sends from d + 1 on, in the order the
 *    results arrived, one per cycle.
 *  - A worker that receives an item at cycle d computes from d + 1 for
 *    `compute` cycles (jitter spreads it uniformly over compute x
 *    [1 - jitter, 1 + jitter), drawn from the worker's own stream), then
 *    sends its result to the master.
 *  - The workload has finished when the master holds every result. */
#include "kernel_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

enum { P_REPLY_BYTES = 0, P_JITTER };

static const insee_param_def master_worker_params[] = {
    KERNEL_PARAM_TASKS,
    {"bytes", INSEE_PARAM_INT, "64", 1, 1e12, NULL, "bytes", "length of a work item message"},
    {"iterations", INSEE_PARAM_INT, "4", 1, 1e9, NULL, NULL,
     "work items per worker: the master hands out iterations x (tasks - 1) items"},
    {"compute", INSEE_PARAM_INT, "0", 0, 1e12, NULL, "cycles", "a worker's computation per item"},
    [KERNEL_P_OWN + P_REPLY_BYTES] = {"reply_bytes", INSEE_PARAM_INT, "64", 1, 1e12, NULL, "bytes",
                                      "length of a result message"},
    [KERNEL_P_OWN + P_JITTER] = {"jitter", INSEE_PARAM_DOUBLE, "0", 0, 1, NULL, NULL,
                                 "spread of the computation per item, as a fraction of compute"},
    {0},
};

enum { IDLE, ARRIVED, COMPUTING };

typedef struct worker {
    uint64_t item;  /* the item it holds, from the master's send to its result's arrival */
    uint64_t until; /* COMPUTING: the cycle the result goes out */
    uint8_t phase;
} worker;

typedef struct master_worker {
    const insee_host *host;
    uint32_t n; /* tasks taking part: the master, 0, and the workers 1..n-1 */
    uint32_t item_packets, reply_packets;
    uint64_t item_bytes, reply_bytes;
    uint64_t compute;
    double jitter;
    uint64_t items, handed, results;
    uint32_t *queue; /* workers waiting for an item, in the order they answered */
    uint32_t head, queued;
    worker *w; /* by task; [0] unused */
} master_worker;

#define NO_ITEM UINT64_MAX

static void enqueue(master_worker *m, uint32_t task)
{
    m->queue[(m->head + m->queued++) % (m->n - 1)] = task;
}

static void *master_worker_create(const insee_host *host, const insee_value *params, insee_error *err)
{
    kernel_args a;
    if (!kernel_args_init(&a, "master-worker", host, params, err))
        return NULL;
    uint32_t n = kernel_tasks(&a);
    if (n < 2) {
        insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                        "master-worker: needs a master and at least one worker, has %u task(s); "
                        "raise tasks or the number of tasks of the experiment",
                        n);
        return NULL;
    }
    master_worker *m = calloc(1, sizeof *m);
    if (m)
        *m = (master_worker){
            .host = host,
            .n = n,
            .item_packets = host->message_packets(host->kernel, a.bytes),
            .reply_packets = host->message_packets(host->kernel, (uint64_t)a.own[P_REPLY_BYTES].i),
            .item_bytes = a.bytes,
            .reply_bytes = (uint64_t)a.own[P_REPLY_BYTES].i,
            .compute = a.compute,
            .jitter = a.own[P_JITTER].d,
            .items = (uint64_t)a.iterations * (n - 1),
            .queue = malloc((size_t)(n - 1) * sizeof *m->queue),
            .w = malloc((size_t)n * sizeof *m->w),
        };
    if (!m || !m->queue || !m->w) {
        if (m) {
            free(m->queue);
            free(m->w);
        }
        free(m);
        insee_error_set(err, INSEE_ERR_NOMEM, "master-worker: out of memory for %u tasks", n);
        return NULL;
    }
    for (uint32_t t = 0; t < n; t++)
        m->w[t] = (worker){.item = NO_ITEM, .phase = IDLE};
    for (uint32_t t = 1; t < n && m->queued < m->items; t++)
        enqueue(m, t);
    return m;
}

static void master_worker_destroy(void *self)
{
    master_worker *m = self;
    free(m->queue);
    free(m->w);
    free(m);
}

static uint64_t master_worker_start(void *self, uint32_t task, insee_rng *rng)
{
    (void)rng;
    const master_worker *m = self;
    return task == 0 && m->queued ? 0 : INSEE_NEVER;
}

static uint64_t draw_compute(const master_worker *m, insee_rng *rng)
{
    if (m->jitter == 0)
        return m->compute;
    double spread = 1 - m->jitter + 2 * m->jitter * insee_rng_double(rng);
    return (uint64_t)llround((double)m->compute * spread);
}

static bool master_emit(master_worker *m, uint64_t now, insee_message *msg, uint64_t *next)
{
    if (!m->queued) {
        *next = INSEE_NEVER;
        return false;
    }
    uint32_t t = m->queue[m->head];
    m->head = (m->head + 1) % (m->n - 1);
    m->queued--;
    m->w[t].item = m->handed++;
    *msg = (insee_message){
        .dst = t, .packets = m->item_packets, .tag = m->w[t].item, .bytes = m->item_bytes};
    *next = m->queued ? now + 1 : INSEE_NEVER;
    return true;
}

static bool worker_emit(master_worker *m, uint32_t task, uint64_t now, insee_rng *rng,
                        insee_message *msg, uint64_t *next)
{
    worker *w = &m->w[task];
    *next = INSEE_NEVER;
    if (w->phase == ARRIVED) {
        w->phase = COMPUTING;
        w->until = now + draw_compute(m, rng);
    }
    if (w->phase != COMPUTING)
        return false;
    if (now < w->until) {
        *next = w->until;
        return false;
    }
    w->phase = IDLE;
    *msg = (insee_message){
        .dst = 0, .packets = m->reply_packets, .tag = w->item, .bytes = m->reply_bytes};
    return true;
}

static bool master_worker_emit(void *self, uint32_t task, uint64_t now, insee_rng *rng,
                               insee_message *msg, uint64_t *next)
{
    master_worker *m = self;
    if (task == 0)
        return master_emit(m, now, msg, next);
    if (task < m->n)
        return worker_emit(m, task, now, rng, msg, next);
    *next = INSEE_NEVER;
    return false;
}

static void master_worker_delivered(void *self, uint32_t src_task, const insee_message *msg,
                                    uint64_t now)
{
    master_worker *m = self;
    if (msg->dst != 0) {
        /* An item reached its worker: it starts computing next cycle. */
        m->w[msg->dst].phase = ARRIVED;
        m->host->wake_task(m->host->kernel, msg->dst, now + 1);
        return;
    }
    m->results++;
    m->w[src_task].item = NO_ITEM;
    if (m->handed + m->queued < m->items) {
        enqueue(m, src_task);
        m->host->wake_task(m->host->kernel, 0, now + 1);
    }
}

static bool master_worker_finished(void *self)
{
    const master_worker *m = self;
    return m->results == m->items;
}

static bool master_worker_describe_wait(void *self, char *buf, size_t len)
{
    const master_worker *m = self;
    if (m->results == m->items)
        return false;
    uint32_t t = 1;
    while (t < m->n && m->w[t].item == NO_ITEM)
        t++;
    if (t == m->n)
        snprintf(buf, len, "master-worker: task 0 (the master) has %llu of %llu results and no "
                 "item out",
                 (unsigned long long)m->results, (unsigned long long)m->items);
    else
        snprintf(buf, len, "master-worker: task 0 (the master) has %llu of %llu results and "
                 "waits for the result of item %llu from task %u",
                 (unsigned long long)m->results, (unsigned long long)m->items,
                 (unsigned long long)m->w[t].item, t);
    return true;
}

static const insee_traffic_vtable master_worker_vtable = {
    .size = sizeof(insee_traffic_vtable),
    .create = master_worker_create,
    .destroy = master_worker_destroy,
    .start = master_worker_start,
    .emit = master_worker_emit,
    .delivered = master_worker_delivered,
    .finished = master_worker_finished,
    .describe_wait = master_worker_describe_wait,
};

static const insee_plugin_desc master_worker_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_TRAFFIC,
    .name = "master-worker",
    .version = "1.0.0",
    .summary = "master-worker with dynamic load balancing: the next item goes to whichever "
               "worker answers first",
    .reference = "INSEE §3.2.4",
    .params = master_worker_params,
    .vtable = &master_worker_vtable,
};

INSEE_PLUGIN_DEFINE(master_worker_desc)
