/* bursts.c — bursty traffic sources (INSEE §3.2.3): every task injects b
 * packets of a spatial pattern as fast as its source takes them, then waits
 * until every packet of the burst has been consumed everywhere (a barrier);
 * then the next burst starts. The figure of merit is the time to deliver
 * all the bursts: the workload finishes after the last one, and the kernel
 * reports that cycle as its completion time.
 *
 * The barrier is a count: delivered() counts the packets of the current
 * burst and, at the last one, wakes every sending task for the next cycle.
 * A message is one packet, tagged with its burst. Destinations are uniform
 * (any other task) or a permutation of ../common/perm.c; a task that a
 * permutation leaves without a destination sends nothing and the barrier
 * does not wait for it.
 */
#include "bernoulli.h"
#include "packet_bytes.h"
#include "perm.h"

#include <stdio.h>
#include <stdlib.h>

enum { P_PACKETS, P_BURSTS, P_PATTERN, P_OFFSET };

static const insee_param_def bursts_params[] = {
    [P_PACKETS] = {"packets", INSEE_PARAM_INT, "10", 1, 1e9, NULL, "packets",
                   "b: packets every task injects per burst"},
    [P_BURSTS] = {"bursts", INSEE_PARAM_INT, "1", 1, 1e9, NULL, NULL,
                  "n: bursts, each after the previous one has been delivered"},
    [P_PATTERN] = {"pattern", INSEE_PARAM_ENUM, "\"uniform\"", 1, 0,
                   "uniform|" TRAFFIC_PERM_CHOICES, NULL,
                   "where packets go: uniform (any other task) or a permutation "
                   "(INSEE Table 2, plus shift and neighbour)"},
    [P_OFFSET] = TRAFFIC_PERM_OFFSET_PARAM,
    {0},
};

typedef struct bursts {
    const insee_host *host;
    uint32_t tasks;
    traffic_perm *perm; /* NULL: uniform */
    uint32_t packets;   /* b */
    uint64_t packet_bytes; /* the bytes of each message, one packet */
    uint32_t bursts;    /* n */
    uint32_t burst;     /* the burst under way; == bursts when finished */
    uint32_t *sent;     /* sent[task]: packets of this burst sent so far */
    uint64_t per_burst; /* packets in a burst: b x the tasks that send */
    uint64_t delivered; /* packets of this burst delivered so far */
} bursts;

static bool sends(const bursts *b, uint32_t task)
{
    return !b->perm || !traffic_perm_silent(b->perm, task);
}

static void bursts_destroy(void *vself)
{
    bursts *b = vself;
    traffic_perm_destroy(b->perm);
    free(b->sent);
    free(b);
}

static void *bursts_create(const insee_host *host, const insee_value *params, insee_error *err)
{
    insee_shape shape;
    host->shape(host->kernel, &shape);
    bursts *b = calloc(1, sizeof *b);
    if (!b || !(b->sent = calloc(shape.tasks ? shape.tasks : 1, sizeof *b->sent))) {
        free(b);
        insee_error_set(err, INSEE_ERR_NOMEM, "bursts: out of memory");
        return NULL;
    }
    b->host = host;
    b->tasks = shape.tasks;
    b->packets = (uint32_t)params[P_PACKETS].i;
    b->packet_bytes = traffic_packet_bytes(host);
    b->bursts = (uint32_t)params[P_BURSTS].i;
    uint32_t senders = shape.tasks;
    if (params[P_PATTERN].i == 0 && shape.tasks < 2) {
        insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                        "bursts: pattern 'uniform' needs at least 2 tasks (there is %u)",
                        shape.tasks);
        bursts_destroy(b);
        return NULL;
    }
    if (params[P_PATTERN].i > 0) {
        b->perm = traffic_perm_create("bursts", (traffic_perm_pattern)(params[P_PATTERN].i - 1),
                                      params[P_PATTERN].s, params[P_OFFSET].i, host, err);
        if (!b->perm) {
            bursts_destroy(b);
            return NULL;
        }
        senders = traffic_perm_senders(b->perm);
    }
    if (senders == 0) {
        insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                        "bursts: pattern '%s' leaves every one of the %u tasks without a "
                        "destination, so no burst would ever be sent; choose another pattern",
                        params[P_PATTERN].s, shape.tasks);
        bursts_destroy(b);
        return NULL;
    }
    b->per_burst = (uint64_t)senders * b->packets;
    return b;
}

static uint64_t bursts_start(void *vself, uint32_t task, insee_rng *rng)
{
    (void)rng;
    return sends(vself, task) ? 0 : INSEE_NEVER;
}

static bool bursts_emit(void *vself, uint32_t task, uint64_t now, insee_rng *rng,
                        insee_message *msg, uint64_t *next)
{
    bursts *b = vself;
    *next = INSEE_NEVER;
    if (b->burst == b->bursts || b->sent[task] == b->packets)
        return false; /* done with this burst: the barrier wakes it */
    uint32_t dst = b->perm ? traffic_perm_dst(b->perm, task, rng)
                           : traffic_other_task(rng, b->tasks, task);
    *msg = (insee_message){.dst = dst, .packets = 1, .tag = b->burst, .bytes = b->packet_bytes};
    /* As fast as the source takes them: the kernel holds the task while
       its injection queue is full. */
    if (++b->sent[task] < b->packets)
        *next = now + 1;
    return true;
}

static void bursts_delivered(void *vself, uint32_t src_task, const insee_message *msg,
                             uint64_t now)
{
    (void)src_task;
    (void)msg;
    bursts *b = vself;
    if (++b->delivered < b->per_burst)
        return;
    /* The barrier: the whole burst has been consumed. */
    b->delivered = 0;
    if (++b->burst == b->bursts)
        return;
    for (uint32_t t = 0; t < b->tasks; t++) {
        b->sent[t] = 0;
        if (sends(b, t))
            b->host->wake_task(b->host->kernel, t, now + 1);
    }
}

static bool bursts_finished(void *vself)
{
    const bursts *b = vself;
    return b->burst == b->bursts;
}

static bool bursts_describe_wait(void *vself, char *buf, size_t len)
{
    const bursts *b = vself;
    if (b->burst == b->bursts)
        return false;
    uint64_t sent = 0;
    uint32_t sending = 0;
    for (uint32_t t = 0; t < b->tasks; t++) {
        sent += b->sent[t];
        sending += sends(b, t) && b->sent[t] < b->packets;
    }
    int n = snprintf(buf, len,
                     "burst %u of %u waits at its barrier: %llu of its %llu packets "
                     "delivered, %llu sent, %u task(s) still sending",
                     b->burst + 1, b->bursts, (unsigned long long)b->delivered,
                     (unsigned long long)b->per_burst, (unsigned long long)sent, sending);
    if (sent == b->per_burst && n >= 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n,
                 "; every packet was sent, so the missing ones were lost (dropped "
                 "packets never arrive: bursts need [traffic] on_full = \"throttle\")");
    return true;
}

static double bursts_offered_load(void *vself)
{
    (void)vself;
    return -1; /* as fast as the sources can: no load is offered */
}

static const insee_traffic_vtable bursts_vtable = {
    .size = sizeof(insee_traffic_vtable),
    .create = bursts_create,
    .destroy = bursts_destroy,
    .start = bursts_start,
    .emit = bursts_emit,
    .delivered = bursts_delivered,
    .finished = bursts_finished,
    .offered_load = bursts_offered_load,
    .describe_wait = bursts_describe_wait,
};

static const insee_plugin_desc bursts_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_TRAFFIC,
    .name = "bursts",
    .version = "1.0.0",
    .summary = "bursts of b packets per task, each burst after the previous one has been "
               "delivered everywhere (a barrier); completes after n bursts",
    .reference = "INSEE §3.2.3",
    .params = bursts_params,
    .vtable = &bursts_vtable,
};

INSEE_PLUGIN_DEFINE(bursts_desc)
