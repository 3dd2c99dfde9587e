/* reactive.c — reactive traffic (INSEE §3.2.2): independent Bernoulli
 * sources at a load with uniform destinations, plus replies. Each delivery
 * of an independent message makes its receiver reply, with probability q,
 * with a message of a number of packets drawn uniformly in [a, b], sent
 * back to the sender. Replies do not trigger replies unless `cascade` is
 * set.
 *
 * delivered() decides with the receiver's own stream, queues the reply in
 * the receiver's FIFO and wakes it for the next cycle; emit() sends queued
 * replies first, one per cycle, then the independent message when its
 * Bernoulli cycle has come. A wake replaces the task's due cycle in the
 * kernel, so emit() always hands back the earliest of "next reply" and
 * "next independent message". The tag says which a message is.
 *
 * INSEE's own code differs in two ways, both offered: a cycle that sends a
 * triggered packet makes no independent draw (replies = "instead"), and
 * each triggered packet goes to a destination of the pattern (reply_to =
 * "pattern"). With cascade as well, that is INSEE's reactive traffic.
 */
#include "bernoulli.h"
#include "packet_bytes.h"
#include "ring.h"

#include <stdlib.h>

enum { P_LOAD, P_PROBABILITY, P_REPLY_MIN, P_REPLY_MAX, P_CASCADE, P_REPLIES, P_REPLY_TO };
enum { REPLIES_EXTRA, REPLIES_INSTEAD };   /* order of the choices */
enum { REPLY_TO_SENDER, REPLY_TO_PATTERN }; /* order of the choices */

/* A queued reply whose destination is drawn when it is sent. */
#define DRAWN_DST UINT32_MAX

enum { TAG_INDEPENDENT = 0, TAG_REPLY = 1 };

static const insee_param_def reactive_params[] = {
    [P_LOAD] = TRAFFIC_LOAD_PARAM,
    [P_PROBABILITY] = {"probability", INSEE_PARAM_DOUBLE, "0.5", 0.0, 1.0, NULL, NULL,
                       "q: the chance that a delivered message triggers a reply"},
    [P_REPLY_MIN] = {"reply_min", INSEE_PARAM_INT, "1", 1, 1e6, NULL, "packets",
                     "a: the shortest reply"},
    [P_REPLY_MAX] = {"reply_max", INSEE_PARAM_INT, "1", 1, 1e6, NULL, "packets",
                     "b: the longest reply (lengths uniform in [a, b])"},
    [P_CASCADE] = {"cascade", INSEE_PARAM_BOOL, "false", 1, 0, NULL, NULL,
                   "replies trigger replies too (INSEE's own code reacts to every packet)"},
    [P_REPLIES] = {"replies", INSEE_PARAM_ENUM, "\"extra\"", 1, 0, "extra|instead", NULL,
                   "a cycle that sends a reply also draws the independent message (extra), "
                   "or makes no draw, as INSEE's sources (instead)"},
    [P_REPLY_TO] = {"reply_to", INSEE_PARAM_ENUM, "\"sender\"", 1, 0, "sender|pattern", NULL,
                    "a reply is one message back to the sender, or (pattern, as INSEE's code) "
                    "its packets go one by one to uniformly drawn destinations"},
    {0},
};

typedef struct reactive {
    const insee_host *host;
    traffic_bernoulli rate;
    uint32_t tasks;
    uint64_t packet_bytes; /* lengths are in packets: a message's bytes are packets x this */
    double q;
    uint32_t reply_min, reply_span; /* lengths reply_min + below(reply_span) */
    bool cascade;
    bool instead;  /* replies = "instead" */
    bool scatter;  /* reply_to = "pattern" */
    uint64_t *independent_at; /* per task: the cycle its next independent message is due */
    uint64_t *fresh_at;       /* per task: the cycle of its last trigger ... */
    uint32_t *fresh;          /* ... and the replies it queued then, last in the FIFO */
    traffic_ring *queue;      /* per task: replies to send, dst << 32 | packets */
    insee_rng *rng;           /* per task: its decisions on what it receives */
} reactive;

static void reactive_destroy(void *vself)
{
    reactive *re = vself;
    for (uint32_t t = 0; re->queue && t < re->tasks; t++)
        traffic_ring_free(&re->queue[t]);
    free(re->queue);
    free(re->independent_at);
    free(re->fresh_at);
    free(re->fresh);
    free(re->rng);
    free(re);
}

static void *reactive_create(const insee_host *host, const insee_value *params, insee_error *err)
{
    insee_shape shape;
    host->shape(host->kernel, &shape);
    int64_t a = params[P_REPLY_MIN].i, b = params[P_REPLY_MAX].i;
    double q = params[P_PROBABILITY].d;
    bool cascade = params[P_CASCADE].b;
    traffic_bernoulli rate;
    if (!traffic_bernoulli_init(&rate, "reactive", &shape, params[P_LOAD].d, err))
        return NULL;
    if (a > b) {
        insee_error_set(err, INSEE_ERR_PARAM,
                        "reactive: reply_min = %lld is above reply_max = %lld; replies have "
                        "between reply_min and reply_max packets",
                        (long long)a, (long long)b);
        return NULL;
    }
    bool scatter = params[P_REPLY_TO].i == REPLY_TO_PATTERN;
    /* Each triggering message brings q replies (sender) or q m one-packet
       replies (pattern); with cascade they trigger in turn. */
    double mean = (double)(a + b) / 2;
    if (cascade && (scatter ? q * mean : q) >= 1) {
        insee_error_set(err, INSEE_ERR_PARAM,
                        "reactive: with cascade = true every message would trigger %g replies "
                        "on average, each triggering as many, forever; use probability x "
                        "replies per trigger below 1",
                        scatter ? q * mean : q);
        return NULL;
    }
    if (shape.tasks < 2) {
        insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                        "reactive: %u task(s) leave no destination other than the source; "
                        "use at least 2 tasks",
                        shape.tasks);
        return NULL;
    }
    reactive *re = calloc(1, sizeof *re);
    if (re) {
        re->tasks = shape.tasks;
        re->independent_at = malloc(sizeof *re->independent_at * shape.tasks);
        re->fresh_at = calloc(shape.tasks, sizeof *re->fresh_at);
        re->fresh = calloc(shape.tasks, sizeof *re->fresh);
        re->queue = calloc(shape.tasks, sizeof *re->queue);
        re->rng = malloc(sizeof *re->rng * shape.tasks);
    }
    if (!re || !re->independent_at || !re->fresh_at || !re->fresh || !re->queue || !re->rng) {
        if (re)
            reactive_destroy(re);
        insee_error_set(err, INSEE_ERR_NOMEM, "reactive: out of memory");
        return NULL;
    }
    re->host = host;
    re->packet_bytes = traffic_packet_bytes(host);
    re->rate = rate;
    re->q = q;
    re->reply_min = (uint32_t)a;
    re->reply_span = (uint32_t)(b - a + 1);
    re->cascade = cascade;
    re->instead = params[P_REPLIES].i == REPLIES_INSTEAD;
    re->scatter = scatter;
    for (uint32_t t = 0; t < shape.tasks; t++)
        host->rng_seed(host->kernel, t, &re->rng[t]);
    return re;
}

static uint64_t reactive_start(void *vself, uint32_t task, insee_rng *rng)
{
    reactive *re = vself;
    return re->independent_at[task] = traffic_bernoulli_start(&re->rate, rng);
}

static bool reactive_emit(void *vself, uint32_t task, uint64_t now, insee_rng *rng,
                          insee_message *msg, uint64_t *next)
{
    reactive *re = vself;
    traffic_ring *rq = &re->queue[task];
    /* A reply leaves in a cycle after the delivery that triggered it, as
       INSEE's receptions come after the cycle's generation, whichever order
       the host calls delivered() and emit() within a cycle. */
    size_t ready = rq->len - (re->fresh_at[task] == now ? re->fresh[task] : 0);
    bool sent = true;
    if (ready) {
        /* Replies first, as INSEE's sources send triggered packets first. */
        uint64_t r = traffic_ring_pop(rq);
        uint32_t dst = (uint32_t)(r >> 32), packets = (uint32_t)r;
        *msg = (insee_message){.dst = dst == DRAWN_DST ? traffic_other_task(rng, re->tasks, task)
                                                       : dst,
                               .packets = packets, .tag = TAG_REPLY,
                               .bytes = packets * re->packet_bytes};
        /* INSEE makes no Bernoulli draw in a cycle that sends a triggered
           packet: an independent message due now is never made (one due
           earlier, held back by a full queue or a wake, was made: it waits). */
        if (re->instead && re->independent_at[task] == now)
            re->independent_at[task] = traffic_bernoulli_next(&re->rate, now, rng);
    } else if (now >= re->independent_at[task]) {
        *msg = (insee_message){.dst = traffic_other_task(rng, re->tasks, task),
                               .packets = 1,
                               .tag = TAG_INDEPENDENT,
                               .bytes = re->packet_bytes};
        re->independent_at[task] = traffic_bernoulli_next(&re->rate, now, rng);
    } else {
        sent = false; /* woken early: nothing is due yet */
    }
    *next = rq->len ? now + 1 : re->independent_at[task];
    if (*next <= now) /* an independent message held back by replies */
        *next = now + 1;
    return sent;
}

static void reactive_delivered(void *vself, uint32_t src_task, const insee_message *msg,
                               uint64_t now)
{
    reactive *re = vself;
    uint32_t receiver = msg->dst;
    if (msg->tag != TAG_INDEPENDENT && !re->cascade)
        return;
    insee_rng *rng = &re->rng[receiver];
    if (!(insee_rng_double(rng) < re->q))
        return;
    uint32_t packets = re->reply_min + insee_rng_below(rng, re->reply_span);
    if (re->fresh_at[receiver] != now)
        re->fresh[receiver] = 0;
    re->fresh_at[receiver] = now;
    /* pattern: as many one-packet replies, each to a destination drawn
       when it is sent. */
    uint64_t entry = re->scatter ? (uint64_t)DRAWN_DST << 32 | 1u
                                 : (uint64_t)src_task << 32 | packets;
    for (uint32_t i = 0; i < (re->scatter ? packets : 1u); i++) {
        if (!traffic_ring_push(&re->queue[receiver], entry)) {
            re->host->log(re->host->kernel, INSEE_LOG_ERROR,
                          "reactive: out of memory queuing a reply; it is not sent");
            return;
        }
        re->fresh[receiver]++;
    }
    re->host->wake_task(re->host->kernel, receiver, now + 1);
}

/* Phits per node per cycle. Per triggering message come rho reply
   messages (q, or q m one-packet ones with pattern) and q m reply packets,
   m = (a + b) / 2; with cascade the replies trigger too, kappa = 1 / (1 -
   rho) triggering messages per independent one, else kappa = 1. With
   extra the independent messages keep their rate p = load / L; with
   instead each reply message takes a cycle from their draws, so p_i =
   p (1 - rho kappa p_i), p_i = p / (1 + p rho kappa). The load is
   L p_i (1 + q m kappa). */
static double reactive_offered_load(void *vself)
{
    const reactive *re = vself;
    double mean = re->reply_min + (re->reply_span - 1) / 2.0;
    double rho = re->scatter ? re->q * mean : re->q;
    double kappa = re->cascade ? 1 / (1 - rho) : 1;
    double p = re->rate.p;
    double kept = re->instead ? 1 / (1 + p * rho * kappa) : 1; /* p_i / p */
    return re->rate.load * kept * (1 + re->q * mean * kappa);
}

static const insee_traffic_vtable reactive_vtable = {
    .size = sizeof(insee_traffic_vtable),
    .create = reactive_create,
    .destroy = reactive_destroy,
    .start = reactive_start,
    .emit = reactive_emit,
    .delivered = reactive_delivered,
    .offered_load = reactive_offered_load,
};

static const insee_plugin_desc reactive_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_TRAFFIC,
    .name = "reactive",
    .version = "1.0.0",
    .summary = "uniform Bernoulli traffic at a load, and each delivery answered with "
               "probability q by a reply of a to b packets to the sender",
    .reference = "INSEE §3.2.2",
    .params = reactive_params,
    .vtable = &reactive_vtable,
};

INSEE_PLUGIN_DEFINE(reactive_desc)
