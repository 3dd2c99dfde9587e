/* dcntraffic.c — datacentre traffic (INRFlow §3.3.3): every task starts
 * flows at a load, each to a task drawn uniformly among the others; 80 % of
 * the flows are short and 20 % long (the shares measured in datacentres
 * that the paper cites). Each task starts `flows` flows; the workload has
 * finished when every flow has been delivered, and the kernel reports that
 * cycle as the completion time.
 *
 * A flow is one message. Its arrivals and size are the shared sources of
 * ../common/source.c with a Bernoulli process and the bimodal length:
 * short_bytes or long_bytes, long with probability long_share, cut into
 * packets by the kernel's rule; a task starts flows at load / (L x mean
 * packets per flow) per cycle, so the load stays phits per node per cycle.
 */
#include "source.h"

#include <stdio.h>
#include <stdlib.h>

enum { P_LOAD, P_FLOWS, P_SHORT, P_LONG, P_SHARE };

static const insee_param_def dcntraffic_params[] = {
    [P_LOAD] = TRAFFIC_LOAD_PARAM,
    [P_FLOWS] = {"flows", INSEE_PARAM_INT, "100", 1, 1e12, NULL, NULL,
                 "flows every task starts; the workload ends when all are delivered"},
    [P_SHORT] = {"short_bytes", INSEE_PARAM_INT, "1024", 0, TRAFFIC_LENGTH_MAX_BYTES, NULL,
                 "bytes", "the size of a short flow (0: one packet)"},
    [P_LONG] = {"long_bytes", INSEE_PARAM_INT, "65536", 1, TRAFFIC_LENGTH_MAX_BYTES, NULL,
                "bytes", "the size of a long flow"},
    [P_SHARE] = {"long_share", INSEE_PARAM_DOUBLE, "0.2", 0.0, 1.0, NULL, NULL,
                 "the share of the flows that are long"},
    {0},
};

typedef struct dcntraffic {
    traffic_source *source;
    uint32_t tasks;
    uint64_t flows;     /* per task */
    uint64_t *started;  /* per task */
    uint64_t delivered; /* flows delivered, all tasks */
} dcntraffic;

static void dcntraffic_destroy(void *vself)
{
    dcntraffic *d = vself;
    traffic_source_destroy(d->source);
    free(d->started);
    free(d);
}

/* The shared source's parameter values (TRAFFIC_SOURCE_PARAMS, in order)
   for Bernoulli arrivals of bimodal flows. */
static traffic_source *flow_source(const insee_host *host, const insee_value *params,
                                   insee_error *err)
{
    const insee_value source[TRAFFIC_SOURCE_NPARAMS] = {
        {.type = INSEE_PARAM_ENUM, .i = 0, .s = "bernoulli"}, /* process */
        {.type = INSEE_PARAM_DOUBLE, .d = 100},               /* burst_on, unused */
        {.type = INSEE_PARAM_DOUBLE, .d = 100},               /* burst_off, unused */
        {.type = INSEE_PARAM_ENUM, .i = TRAFFIC_LENGTH_BIMODAL, .s = "bimodal"},
        {.type = INSEE_PARAM_INT, .i = params[P_SHORT].i},    /* message_bytes: short */
        {.type = INSEE_PARAM_INT, .i = 0},                    /* message_bytes_min, unused */
        {.type = INSEE_PARAM_INT, .i = 0},                    /* message_bytes_max, unused */
        {.type = INSEE_PARAM_INT, .i = params[P_LONG].i},     /* long_bytes */
        {.type = INSEE_PARAM_DOUBLE, .d = params[P_SHARE].d}, /* long_share */
    };
    return traffic_source_create("dcntraffic", host, params[P_LOAD].d, source, err);
}

static void *dcntraffic_create(const insee_host *host, const insee_value *params,
                               insee_error *err)
{
    insee_shape shape;
    host->shape(host->kernel, &shape);
    if (shape.tasks < 2) {
        insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                        "dcntraffic: %u task(s) leave no destination other than the source; "
                        "use at least 2 tasks",
                        shape.tasks);
        return NULL;
    }
    if (params[P_LOAD].d <= 0) {
        insee_error_set(err, INSEE_ERR_PARAM,
                        "dcntraffic: load = 0 never starts a flow, so the workload would never "
                        "finish; set load > 0");
        return NULL;
    }
    if (!INSEE_HOST_HAS(host, message_packets)) {
        insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                        "dcntraffic: the host lacks message_packets (ABI 1.2); run it in a "
                        "kernel of ABI 1.2 or later");
        return NULL;
    }
    dcntraffic *d = calloc(1, sizeof *d);
    if (!d || !(d->started = calloc(shape.tasks, sizeof *d->started))) {
        free(d);
        insee_error_set(err, INSEE_ERR_NOMEM, "dcntraffic: out of memory");
        return NULL;
    }
    d->tasks = shape.tasks;
    d->flows = (uint64_t)params[P_FLOWS].i;
    if (!(d->source = flow_source(host, params, err))) {
        dcntraffic_destroy(d);
        return NULL;
    }
    return d;
}

static uint64_t dcntraffic_start(void *vself, uint32_t task, insee_rng *rng)
{
    dcntraffic *d = vself;
    return traffic_source_start(d->source, task, rng);
}

static bool dcntraffic_emit(void *vself, uint32_t task, uint64_t now, insee_rng *rng,
                            insee_message *msg, uint64_t *next)
{
    dcntraffic *d = vself;
    *next = INSEE_NEVER;
    if (d->started[task] == d->flows)
        return false;
    traffic_source_message(d->source, traffic_other_task(rng, d->tasks, task), rng, msg);
    if (++d->started[task] < d->flows)
        *next = traffic_source_next(d->source, task, now, rng);
    return true;
}

static void dcntraffic_delivered(void *vself, uint32_t src_task, const insee_message *msg,
                                 uint64_t now)
{
    (void)src_task;
    (void)msg;
    (void)now;
    dcntraffic *d = vself;
    d->delivered++;
}

static bool dcntraffic_finished(void *vself)
{
    const dcntraffic *d = vself;
    return d->delivered == (uint64_t)d->tasks * d->flows;
}

static bool dcntraffic_describe_wait(void *vself, char *buf, size_t len)
{
    const dcntraffic *d = vself;
    uint64_t started = 0;
    for (uint32_t t = 0; t < d->tasks; t++)
        started += d->started[t];
    snprintf(buf, len,
             "%llu of %llu flows delivered, %llu started (a dropped packet's flow never "
             "arrives: dcntraffic needs [traffic] on_full = \"throttle\")",
             (unsigned long long)d->delivered, (unsigned long long)d->tasks * d->flows,
             (unsigned long long)started);
    return true;
}

static double dcntraffic_offered_load(void *vself)
{
    const dcntraffic *d = vself;
    return traffic_source_load(d->source);
}

static const insee_traffic_vtable dcntraffic_vtable = {
    .size = sizeof(insee_traffic_vtable),
    .create = dcntraffic_create,
    .destroy = dcntraffic_destroy,
    .start = dcntraffic_start,
    .emit = dcntraffic_emit,
    .delivered = dcntraffic_delivered,
    .finished = dcntraffic_finished,
    .offered_load = dcntraffic_offered_load,
    .describe_wait = dcntraffic_describe_wait,
};

static const insee_plugin_desc dcntraffic_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_TRAFFIC,
    .name = "dcntraffic",
    .version = "1.0.0",
    .summary = "datacentre flows at a load, 80 % short and 20 % long, to uniform destinations; "
               "a number of flows per task, run to completion",
    .reference = "INRFlow §3.3.3",
    .params = dcntraffic_params,
    .vtable = &dcntraffic_vtable,
};

INSEE_PLUGIN_DEFINE(dcntraffic_desc)
