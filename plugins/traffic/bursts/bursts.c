/* bursts.c — bursty traffic sources (INSEE §3.2.3): every task injects b
 * packets of a spatial pattern as fast as its source takes them, then waits
 * until every packet of the burst has been consumed everywhere (a barrier);
 * then the next burst starts. The figure of merit is the time to deliver
 * all the bursts: the workload finishes after the last one, and the kernel
 * reports that cycle as its completion time.
 *
 * The barrier is a count: delivered() counts the packets of the current
 * burst and, at the last one, wakes every sending task for the next cycle.
 * A message is one packet, tagged with its burst. Destinations are any of
 * the spatial patterns of INSEE §3.2.1 that need no file: uniform (any
 * other task), hot spot, hot region and local (../common/hot.c), or a
 * permutation of ../common/perm.c; a task that a permutation leaves
 * without a destination sends nothing and the barrier does not wait for
 * it.
 */
#include "bernoulli.h"
#include "hot.h"
#include "packet_bytes.h"
#include "perm.h"

#include <stdio.h>
#include <stdlib.h>

enum { P_PACKETS, P_BURSTS, P_PATTERN, P_OFFSET, P_TORNADO, P_HOT_NODE, P_HOT_FRACTION,
       P_REGION, P_REGION_FRACTION };

/* The patterns that are not permutations, by their place in `pattern`'s
   choices: uniform first, the others after the permutations. */
enum { UNIFORM = 0, FIRST_PERM = 1, HOTSPOT = FIRST_PERM + TRAFFIC_PERM_NEIGHBOUR + 1,
       HOT_REGION, LOCAL };

static const insee_param_def bursts_params[] = {
    [P_PACKETS] = {"packets", INSEE_PARAM_INT, "10", 1, 1e9, NULL, "packets",
                   "b: packets every task injects per burst"},
    [P_BURSTS] = {"bursts", INSEE_PARAM_INT, "1", 1, 1e9, NULL, NULL,
                  "n: bursts, each after the previous one has been delivered"},
    [P_PATTERN] = {"pattern", INSEE_PARAM_ENUM, "\"uniform\"", 1, 0,
                   "uniform|" TRAFFIC_PERM_CHOICES "|hotspot|hot-region|local", NULL,
                   "where packets go: uniform (any other task), a permutation (INSEE Table 2, "
                   "plus shift and neighbour), hot spot, hot region or local (INSEE §3.2.1)"},
    [P_OFFSET] = TRAFFIC_PERM_OFFSET_PARAM,
    [P_TORNADO] = TRAFFIC_PERM_TORNADO_PARAM,
    [P_HOT_NODE] = {"hot_node", INSEE_PARAM_INT, "0", 0, 4294967294.0, NULL, NULL,
                    "hotspot only: the hot task"},
    [P_HOT_FRACTION] = {"hot_fraction", INSEE_PARAM_DOUBLE, "0.02", 0.0, 1.0, NULL, NULL,
                        "hotspot only: fraction of each task's packets sent to the hot task"},
    [P_REGION] = {"region", INSEE_PARAM_DOUBLE, "0.125", 0.0, 1.0, NULL, NULL,
                  "hot-region only: the first floor(region x tasks) tasks, at least one"},
    [P_REGION_FRACTION] = {"region_fraction", INSEE_PARAM_DOUBLE, "0.25", 0.0, 1.0, NULL, NULL,
                           "hot-region only: fraction of each task's packets sent into the "
                           "region"},
    {0},
};

typedef struct bursts {
    const insee_host *host;
    uint32_t tasks;
    int pattern;        /* its place in `pattern`'s choices */
    traffic_perm *perm; /* a permutation, else NULL */
    traffic_grid *grid; /* local, else NULL */
    uint32_t hot;       /* hotspot: the hot task; hot-region: the region's size */
    double fraction;    /* hotspot, hot-region: the share of packets sent hot */
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
    traffic_grid_destroy(b->grid);
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
    b->pattern = (int)params[P_PATTERN].i;
    uint32_t senders = shape.tasks;
    bool perm = b->pattern >= FIRST_PERM && b->pattern < HOTSPOT;
    if (!perm && shape.tasks < 2) {
        insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                        "bursts: pattern '%s' needs at least 2 tasks (there is %u)",
                        params[P_PATTERN].s, shape.tasks);
        bursts_destroy(b);
        return NULL;
    }
    if (b->pattern == HOTSPOT && params[P_HOT_NODE].i >= shape.tasks) {
        insee_error_set(err, INSEE_ERR_PARAM,
                        "bursts: hot_node = %lld, but the tasks are 0 .. %u; choose one of them",
                        (long long)params[P_HOT_NODE].i, shape.tasks - 1);
        bursts_destroy(b);
        return NULL;
    }
    if (b->pattern == HOTSPOT) {
        b->hot = (uint32_t)params[P_HOT_NODE].i;
        b->fraction = params[P_HOT_FRACTION].d;
    } else if (b->pattern == HOT_REGION) {
        b->hot = traffic_hot_region_size(params[P_REGION].d, shape.tasks);
        b->fraction = params[P_REGION_FRACTION].d;
    } else if (b->pattern == LOCAL) {
        b->grid = traffic_grid_create("bursts: pattern 'local'", host, err);
        if (!b->grid) {
            bursts_destroy(b);
            return NULL;
        }
    } else if (perm) {
        b->perm = traffic_perm_create("bursts", (traffic_perm_pattern)(b->pattern - FIRST_PERM),
                                      params[P_PATTERN].s, params[P_OFFSET].i,
                                      (traffic_perm_tornado)params[P_TORNADO].i, host, err);
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

static uint32_t destination(const bursts *b, uint32_t task, insee_rng *rng)
{
    switch (b->pattern) {
    case UNIFORM:
        return traffic_other_task(rng, b->tasks, task);
    case HOTSPOT:
        return traffic_hotspot_dst(rng, b->tasks, task, b->hot, b->fraction);
    case HOT_REGION:
        return traffic_hot_region_dst(rng, b->tasks, task, b->hot, b->fraction);
    case LOCAL:
        return traffic_local_dst(b->grid, rng, task);
    default:
        return traffic_perm_dst(b->perm, task, rng);
    }
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
    uint32_t dst = destination(b, task, rng);
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
    .version = "1.1.0",
    .summary = "bursts of b packets per task, each burst after the previous one has been "
               "delivered everywhere (a barrier); completes after n bursts",
    .reference = "INSEE §3.2.3",
    .params = bursts_params,
    .vtable = &bursts_vtable,
};

INSEE_PLUGIN_DEFINE(bursts_desc)
