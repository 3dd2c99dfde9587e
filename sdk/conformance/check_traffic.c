/* sdk/conformance/check_traffic.c — the traffic suite: the plugin driven the
 * way the kernel drives it (start() per task, emit() when a task is due,
 * delivered() a fixed latency after a send, wake_task() honoured) on the mock
 * host's 16 tasks, with no injection limit. Each check drives a fresh
 * instance, because a traffic instance's state advances as it is driven.
 */
#include "conform.h"

#define TASKS CONFORM_MOCK_NODES
#define LATENCY 32u               /* cycles from a send to its delivered() */
#define RATE_PACKETS 20000u       /* packets over which the rate is measured */
#define RATE_CYCLES 10000000u     /* ... or at most this many cycles */
#define RATE_TOLERANCE 0.05
#define CHECK_CYCLES 100000u      /* window of the validity checks */
#define CHECK_PACKETS 20000u
#define COMPLETE_CYCLES 1000000u  /* a causal workload of the defaults ends within this */
#define BYTES_MINOR 8u            /* the minor that gave messages bytes and a traffic class */
#define SPLIT_PARTS 2u            /* traffic.per-task-claim: task t's part is t % SPLIT_PARTS */

/* One call of emit() as observed. */
typedef struct emission {
    uint32_t task;
    uint64_t now;
    gboolean sent;
    insee_message msg;
    uint64_t next;
} emission;

typedef struct drive_result {
    gboolean created;  /* false when the setting no longer creates */
    double offered;    /* offered_load(), < 0 when none */
    uint64_t cycles;   /* window driven */
    uint64_t messages, packets;
    gboolean quiet;    /* nothing was due and nothing in flight before the window ended */
    gboolean finished; /* finished() at the end, when provided (split: every part's) */
    gboolean foreign_wake; /* split: a part's instance woke another part's task */
} drive_result;

typedef void (*observer_fn)(void *data, const emission *e);

typedef struct delivery {
    uint64_t at;
    uint32_t src;
    insee_message msg;
} delivery;

static conform_status check_create(conform_ctx *ctx, GString *detail)
{
    const insee_traffic_vtable *vt = ctx->plugin->vtable;
    return conform_instances_setup(ctx, TRUE, FALSE, vt->create, vt->destroy, detail);
}

/* The instance at the defaults, or NULL with the SKIP reason. */
static const conform_instance *defaults(const conform_ctx *ctx, GString *detail)
{
    conform_instances *set = conform_instances_get(ctx, detail);
    return set ? set->created->pdata[0] : NULL;
}

/* A new instance at `setting` on a new mock host (which it keeps a pointer
   to), or NULL when the setting no longer creates. */
static conform_instance *fresh_instance(const conform_ctx *ctx, const conform_setting *setting,
                                        conform_mock *mock)
{
    const insee_traffic_vtable *vt = ctx->plugin->vtable;
    const conform_instances *set = ctx->state; /* a setting that created: the network exists */
    conform_mock_init(mock, set->topo);
    GError *bind_err = NULL;
    insee_error create_err = {0};
    conform_instance *inst =
        conform_instance_new(ctx, setting, &mock->host, vt->create, &bind_err, &create_err);
    g_clear_error(&bind_err);
    return inst;
}

/* The next delivery due at the queue's head: with `reverse`, the last of
   those due at the same cycle, so that a cycle's deliveries come in the
   other order. */
static delivery *next_delivery(GQueue *flight, gboolean reverse)
{
    guint n = 1;
    const delivery *head = g_queue_peek_head(flight);
    while (reverse && n < g_queue_get_length(flight) &&
           ((const delivery *)g_queue_peek_nth(flight, n))->at == head->at)
        n++;
    return g_queue_pop_nth(flight, n - 1);
}

/* Drive fresh instances at `setting` for up to `cycles` cycles or until
   `max_packets` packets were sent, showing every emit() to `observe`.
   `parts` 1: one instance runs every task. Else each part has an
   instance of its own on a mock host of its own, which starts, emits and
   is told of the deliveries to its tasks only (task t is part t %
   parts's), as a run split over parts drives a plugin that declares
   INSEE_TRAFFIC_PER_TASK; a cycle's deliveries come in reverse order. */
static drive_result drive(const conform_ctx *ctx, const conform_setting *setting, uint64_t cycles,
                          uint64_t max_packets, uint32_t parts, observer_fn observe, void *data)
{
    const insee_traffic_vtable *vt = ctx->plugin->vtable;
    drive_result res = {.offered = -1.0};
    conform_mock mock[SPLIT_PARTS];
    conform_instance *inst[SPLIT_PARTS] = {NULL};
    void *self[SPLIT_PARTS];
    for (uint32_t p = 0; p < parts; p++) {
        inst[p] = fresh_instance(ctx, setting, &mock[p]);
        if (!inst[p])
            goto out;
        self[p] = inst[p]->self;
    }
    res.created = TRUE;
    if (vt->offered_load)
        res.offered = vt->offered_load(self[0]);

    insee_rng rng[TASKS];
    uint64_t due[TASKS];
    for (uint32_t t = 0; t < TASKS; t++) {
        insee_rng_init(&rng[t], CONFORM_SEED, 1000u + t);
        due[t] = vt->start(self[t % parts], t, &rng[t]);
    }
    GQueue flight = G_QUEUE_INIT; /* deliveries, in time order: the latency is fixed */
    uint64_t clock = 0;
    res.quiet = TRUE;
    while (res.packets < max_packets) {
        uint32_t task = 0;
        for (uint32_t t = 0; t < TASKS; t++) {
            for (uint32_t p = 0; p < parts; p++) {
                if (p == t % parts)
                    due[t] = MIN(due[t], mock[p].wake_at[t]);
                else
                    res.foreign_wake |= mock[p].wake_at[t] != INSEE_NEVER;
                mock[p].wake_at[t] = INSEE_NEVER;
            }
            if (due[t] < due[task])
                task = t;
        }
        const delivery *head = g_queue_peek_head(&flight);
        uint64_t at = MIN(due[task], head ? head->at : INSEE_NEVER);
        if (at == INSEE_NEVER)
            break;
        clock = MAX(clock, at); /* a wake-up for the past happens now */
        if (clock >= cycles) {
            res.quiet = FALSE;
            break;
        }
        if (head && head->at <= due[task]) {
            delivery *d = next_delivery(&flight, parts > 1);
            if (vt->delivered)
                vt->delivered(self[d->msg.dst % parts], d->src, &d->msg, clock);
            g_free(d);
            continue;
        }
        emission e = {.task = task, .now = clock, .next = clock /* "not set" reads as invalid */};
        e.sent = vt->emit(self[task % parts], task, clock, &rng[task], &e.msg, &e.next);
        observe(data, &e);
        if (e.sent) {
            res.messages++;
            res.packets += e.msg.packets;
            if (e.msg.dst < TASKS) {
                delivery *d = g_new(delivery, 1);
                *d = (delivery){clock + LATENCY, task, e.msg};
                g_queue_push_tail(&flight, d);
            }
        }
        due[task] = e.next > clock ? e.next : clock + 1; /* keep going past a bad next */
    }
    res.cycles = MAX(clock, 1u);
    if (res.packets >= max_packets)
        res.quiet = FALSE;
    res.finished = vt->finished != NULL;
    for (uint32_t p = 0; p < parts && vt->finished; p++)
        res.finished &= vt->finished(self[p]);
    g_queue_clear_full(&flight, g_free);
out:
    for (uint32_t p = 0; p < parts; p++)
        if (inst[p])
            conform_instance_free(inst[p], vt->destroy);
    return res;
}

/* An observer that notes through a findings record. */
typedef struct noting {
    conform_findings *f;
    const char *where;
} noting;

static void observe_messages(void *data, const emission *e)
{
    noting *n = data;
    if (!e->sent)
        return;
    if (e->msg.dst >= TASKS)
        conform_note(n->f, n->where, "task %u at cycle %" G_GUINT64_FORMAT " sent to task %u of %u",
                     e->task, e->now, e->msg.dst, TASKS);
    if (e->msg.packets == 0)
        conform_note(n->f, n->where, "task %u at cycle %" G_GUINT64_FORMAT " sent a message of 0 packets",
                     e->task, e->now);
}

static void observe_next(void *data, const emission *e)
{
    noting *n = data;
    if (e->next <= e->now)
        conform_note(n->f, n->where,
                     "emit(task %u, now %" G_GUINT64_FORMAT ") set next to %" G_GUINT64_FORMAT
                     " (must be > now, or INSEE_NEVER)",
                     e->task, e->now, e->next);
}

static void observe_self(void *data, const emission *e)
{
    noting *n = data;
    if (e->sent && e->msg.dst == e->task)
        conform_note(n->f, n->where, "task %u at cycle %" G_GUINT64_FORMAT " sent to itself", e->task,
                     e->now);
}

static void observe_nothing(void *data, const emission *e)
{
    (void)data;
    (void)e;
}

/* Drive the instance's setting with the observer in `data` noting into f. */
static void drive_noting(const conform_ctx *ctx, const conform_instance *inst, conform_findings *f,
                         void *data)
{
    const observer_fn *observe = data;
    noting n = {f, inst->setting->label};
    drive(ctx, inst->setting, CHECK_CYCLES, CHECK_PACKETS, 1, *observe, &n);
}

static conform_status check_messages(conform_ctx *ctx, GString *detail)
{
    observer_fn observe = observe_messages;
    return conform_each_instance(ctx, detail, drive_noting, &observe);
}

static conform_status check_next(conform_ctx *ctx, GString *detail)
{
    observer_fn observe = observe_next;
    return conform_each_instance(ctx, detail, drive_noting, &observe);
}

/* At the defaults only: a parameter may allow sending to oneself on purpose
   (it is then documented by the parameter table). */
static conform_status check_no_self(conform_ctx *ctx, GString *detail)
{
    const conform_instance *inst = defaults(ctx, detail);
    if (!inst)
        return CONFORM_SKIP;
    conform_findings f = {detail, 0};
    noting n = {&f, NULL};
    drive(ctx, inst->setting, CHECK_CYCLES, CHECK_PACKETS, 1, observe_self, &n);
    return conform_verdict(&f);
}

static conform_status check_active(conform_ctx *ctx, GString *detail)
{
    const conform_instance *inst = defaults(ctx, detail);
    if (!inst)
        return CONFORM_SKIP;
    drive_result r = drive(ctx, inst->setting, CHECK_CYCLES, CHECK_PACKETS, 1, observe_nothing, NULL);
    if (r.messages > 0)
        return CONFORM_PASS;
    g_string_printf(detail, "no task sent anything in %u cycles", CHECK_CYCLES);
    return CONFORM_FAIL;
}

/* Compares the measured load with offered_load(); data: the settings
   measured so far (guint). */
static void rate_at(const conform_ctx *ctx, const conform_instance *inst, conform_findings *f,
                    void *data)
{
    guint *measured = data;
    drive_result r = drive(ctx, inst->setting, RATE_CYCLES, RATE_PACKETS, 1, observe_nothing, NULL);
    if (!r.created || r.offered < 0.0)
        return;
    (*measured)++;
    double got = (double)r.packets * CONFORM_MOCK_PACKET_PHITS / ((double)TASKS * (double)r.cycles);
    gboolean ok = r.offered == 0.0 ? r.packets == 0
                                   : got >= r.offered * (1 - RATE_TOLERANCE) &&
                                         got <= r.offered * (1 + RATE_TOLERANCE);
    if (!ok)
        conform_note(f, inst->setting->label,
                     "offered_load() says %.4g phits/node/cycle, measured %.4g over %" G_GUINT64_FORMAT
                     " cycles (%" G_GUINT64_FORMAT " packets of %u phits, %u tasks)",
                     r.offered, got, r.cycles, r.packets, CONFORM_MOCK_PACKET_PHITS, TASKS);
}

static conform_status check_rate(conform_ctx *ctx, GString *detail)
{
    const insee_traffic_vtable *vt = ctx->plugin->vtable;
    if (!conform_instances_if(ctx, vt->offered_load != NULL, "offered_load() not provided", detail))
        return CONFORM_SKIP;
    guint measured = 0;
    conform_status s = conform_each_instance(ctx, detail, rate_at, &measured);
    return conform_skip_if_none(s, measured, detail, "offered_load() is negative (no nominal load)");
}

static gboolean same_message(const insee_message *a, const insee_message *b)
{
    return a->dst == b->dst && a->packets == b->packets && a->tag == b->tag &&
           a->bytes == b->bytes && a->traffic_class == b->traffic_class;
}

static void observe_record(void *data, const emission *e)
{
    g_array_append_val((GArray *)data, *e);
}

/* The first emit() call at which two recorded drives differ, or -1. */
static gint first_difference(const GArray *a, const GArray *b)
{
    for (guint k = 0; k < MAX(a->len, b->len); k++) {
        const emission *x = k < a->len ? &g_array_index(a, emission, k) : NULL;
        const emission *y = k < b->len ? &g_array_index(b, emission, k) : NULL;
        if (!x || !y || x->task != y->task || x->now != y->now || x->sent != y->sent ||
            x->next != y->next || (x->sent && !same_message(&x->msg, &y->msg)))
            return (gint)k;
    }
    return -1;
}

/* Two drives of the setting, one instance against `parts` parts. */
static gint drives_differ(const conform_ctx *ctx, const conform_instance *inst, uint32_t parts,
                          drive_result *one, drive_result *split)
{
    GArray *a = g_array_new(FALSE, TRUE, sizeof(emission));
    GArray *b = g_array_new(FALSE, TRUE, sizeof(emission));
    *one = drive(ctx, inst->setting, CHECK_CYCLES, 2000, 1, observe_record, a);
    *split = drive(ctx, inst->setting, CHECK_CYCLES, 2000, parts, observe_record, b);
    gint k = first_difference(a, b);
    g_array_free(a, TRUE);
    g_array_free(b, TRUE);
    return k;
}

static void deterministic_at(const conform_ctx *ctx, const conform_instance *inst, conform_findings *f,
                             void *data)
{
    (void)data;
    drive_result one, again;
    gint k = drives_differ(ctx, inst, 1, &one, &again);
    if (k >= 0)
        conform_note(f, inst->setting->label, "two runs with the same seeds differ at emit() call %d",
                     k);
}

static conform_status check_deterministic(conform_ctx *ctx, GString *detail)
{
    return conform_each_instance(ctx, detail, deterministic_at, NULL);
}

static void completes_at(const conform_ctx *ctx, const conform_instance *inst, conform_findings *f,
                         void *data)
{
    (void)data;
    drive_result r = drive(ctx, inst->setting, COMPLETE_CYCLES, UINT64_MAX, 1, observe_nothing, NULL);
    if (r.created && r.quiet && !r.finished)
        conform_note(f, inst->setting->label,
                     "every task is idle and every message delivered at cycle %" G_GUINT64_FORMAT
                     ", but finished() is false: the run would never end",
                     r.cycles);
}

static conform_status check_completes(conform_ctx *ctx, GString *detail)
{
    const insee_traffic_vtable *vt = ctx->plugin->vtable;
    if (!conform_instances_if(ctx, vt->finished != NULL,
                              "finished() not provided (an open-ended source)", detail))
        return CONFORM_SKIP;
    return conform_each_instance(ctx, detail, completes_at, NULL);
}

/* An instance that declares INSEE_TRAFFIC_PER_TASK, driven split in two
   parts, emits what one instance does, call for call, wakes only its own
   tasks, and its parts have finished when the one has; data: the settings
   that declare it (guint). */
static void per_task_at(const conform_ctx *ctx, const conform_instance *inst, conform_findings *f,
                        void *data)
{
    const insee_traffic_vtable *vt = ctx->plugin->vtable;
    if (!(vt->properties(inst->self) & INSEE_TRAFFIC_PER_TASK))
        return;
    (*(guint *)data)++;
    drive_result one, split;
    gint k = drives_differ(ctx, inst, SPLIT_PARTS, &one, &split);
    if (k >= 0)
        conform_note(f, inst->setting->label,
                     "split in %u parts (task t in part t %% %u, each instance starting and told "
                     "of its own tasks only, a cycle's deliveries in reverse order), emit() call "
                     "%d differs from one instance's",
                     SPLIT_PARTS, SPLIT_PARTS, k);
    if (split.foreign_wake)
        conform_note(f, inst->setting->label,
                     "split in %u parts, an instance woke a task it was not given", SPLIT_PARTS);
    if (split.finished != one.finished)
        conform_note(f, inst->setting->label,
                     "split in %u parts, finished() is %s in every part where one instance says "
                     "%s", SPLIT_PARTS, split.finished ? "true" : "not true",
                     one.finished ? "true" : "false");
}

static conform_status check_per_task(conform_ctx *ctx, GString *detail)
{
    const insee_traffic_vtable *vt = ctx->plugin->vtable;
    if (!conform_instances_if(ctx, vt->properties != NULL, "properties() not provided", detail))
        return CONFORM_SKIP;
    guint claimed = 0;
    conform_status s = conform_each_instance(ctx, detail, per_task_at, &claimed);
    return conform_skip_if_none(s, claimed, detail, "no setting declares INSEE_TRAFFIC_PER_TASK");
}

/* Where round()'s add() puts messages, and the minor of the plugin that
   gives them. */
typedef struct round_sink {
    GArray *out;
    uint32_t minor;
} round_sink;

/* A plugin hands add() its own message, which ends after `tag` before
   BYTES_MINOR: only the fields of its minor are read. */
static void add_to_round(void *data, const insee_message *msg)
{
    const round_sink *sink = data;
    insee_message m = {.dst = msg->dst, .packets = msg->packets, .tag = msg->tag};
    if (sink->minor >= BYTES_MINOR) {
        m.bytes = msg->bytes;
        m.traffic_class = msg->traffic_class;
    }
    g_array_append_val(sink->out, m);
}

/* Two rounds of every task from a fresh instance, each task with its own
   stream as the flow engines give it: the messages, in order, appended to
   `out` (a task's followed by `separator`, which no valid message equals). */
static const insee_message separator = {.dst = UINT32_MAX, .packets = 0};

static gboolean two_rounds(const conform_ctx *ctx, const conform_setting *setting, GArray *out)
{
    const insee_traffic_vtable *vt = ctx->plugin->vtable;
    conform_mock mock;
    conform_instance *inst = fresh_instance(ctx, setting, &mock);
    if (!inst)
        return FALSE;
    round_sink sink = {out, ctx->plugin->desc->abi_minor};
    for (uint32_t t = 0; t < TASKS; t++) {
        insee_rng rng;
        insee_rng_init(&rng, CONFORM_SEED, 1000u + t);
        for (int r = 0; r < 2; r++)
            vt->round(inst->self, t, &rng, add_to_round, &sink);
        g_array_append_val(out, separator);
    }
    conform_instance_free(inst, vt->destroy);
    return TRUE;
}

static void round_at(const conform_ctx *ctx, const conform_instance *inst, conform_findings *f,
                     void *data)
{
    (void)data;
    GArray *a = g_array_new(FALSE, TRUE, sizeof(insee_message));
    GArray *b = g_array_new(FALSE, TRUE, sizeof(insee_message));
    if (two_rounds(ctx, inst->setting, a) && two_rounds(ctx, inst->setting, b)) {
        uint32_t task = 0;
        for (guint k = 0; k < a->len; k++) {
            const insee_message *m = &g_array_index(a, insee_message, k);
            if (m->dst == separator.dst && m->packets == separator.packets) {
                task++;
                continue;
            }
            if (m->dst >= TASKS || m->packets == 0) {
                conform_note(f, inst->setting->label,
                             "round() of task %u gave a message of %u packets to task %u of %u",
                             task, m->packets, m->dst, TASKS);
                break;
            }
        }
        gboolean same = a->len == b->len;
        for (guint k = 0; same && k < a->len; k++)
            same = same_message(&g_array_index(a, insee_message, k),
                                &g_array_index(b, insee_message, k));
        if (!same)
            conform_note(f, inst->setting->label,
                         "two instances asked the same rounds with the same streams gave "
                         "different messages");
    }
    g_array_free(a, TRUE);
    g_array_free(b, TRUE);
}

static conform_status check_round(conform_ctx *ctx, GString *detail)
{
    const insee_traffic_vtable *vt = ctx->plugin->vtable;
    if (!conform_instances_if(ctx, vt->round != NULL,
                              "round() not provided (the flow engines refuse this traffic)",
                              detail))
        return CONFORM_SKIP;
    return conform_each_instance(ctx, detail, round_at, NULL);
}

/* A message's bytes agree with its packets (the mock host cuts them as the
   kernel does) and its class is one there is; data: the findings and a
   host like the one the instance was created on. */
typedef struct length_check {
    noting n;
    conform_mock mock;
} length_check;

static void note_length(length_check *c, const char *entry, uint32_t task,
                        const insee_message *m)
{
    uint32_t packets = m->bytes ? c->mock.host.message_packets(c->mock.host.kernel, m->bytes)
                                : m->packets;
    if (packets != m->packets)
        conform_note(c->n.f, c->n.where,
                     "%s of task %u gave a message of %" G_GUINT64_FORMAT " bytes and %u "
                     "packets; message_packets(%" G_GUINT64_FORMAT ") is %u",
                     entry, task, m->bytes, m->packets, m->bytes, packets);
    if (m->traffic_class != INSEE_TRAFFIC_APP && m->traffic_class != INSEE_TRAFFIC_IO)
        conform_note(c->n.f, c->n.where, "%s of task %u gave a message of traffic class %u",
                     entry, task, m->traffic_class);
}

static void observe_length(void *data, const emission *e)
{
    if (e->sent)
        note_length(data, "emit()", e->task, &e->msg);
}

static void length_at(const conform_ctx *ctx, const conform_instance *inst, conform_findings *f,
                      void *data)
{
    (void)data;
    const conform_instances *set = ctx->state;
    length_check c = {.n = {f, inst->setting->label}};
    conform_mock_init(&c.mock, set->topo);
    drive(ctx, inst->setting, CHECK_CYCLES, CHECK_PACKETS, 1, observe_length, &c);
    if (!((const insee_traffic_vtable *)ctx->plugin->vtable)->round)
        return;
    GArray *a = g_array_new(FALSE, TRUE, sizeof(insee_message));
    if (two_rounds(ctx, inst->setting, a)) {
        uint32_t task = 0;
        for (guint k = 0; k < a->len; k++) {
            const insee_message *m = &g_array_index(a, insee_message, k);
            if (m->dst == separator.dst && m->packets == separator.packets)
                task++;
            else
                note_length(&c, "round()", task, m);
        }
    }
    g_array_free(a, TRUE);
}

static conform_status check_length(conform_ctx *ctx, GString *detail)
{
    uint32_t minor = ctx->plugin->desc->abi_minor;
    if (minor < BYTES_MINOR) {
        g_string_printf(detail, "built for ABI %u.%u: its messages have no bytes or class, the "
                        "kernel counts them from packets",
                        ctx->plugin->desc->abi_major, minor);
        return CONFORM_SKIP;
    }
    return conform_each_instance(ctx, detail, length_at, NULL);
}

static const conform_check traffic_checks[] = {
    {"traffic.create", CONFORM_ERROR, "create() succeeds at the defaults (and at every choice of its enums)",
     "fill err with what is wrong; defaults must work", check_create},
    {"traffic.messages", CONFORM_ERROR, "every message goes to a task < tasks and has at least one packet",
     "take the task count from host->shape()->tasks, not from the node count", check_messages},
    {"traffic.next", CONFORM_ERROR,
     "emit() always sets *next to a cycle after now (or INSEE_NEVER), sent or not",
     "set *next on every path of emit(), also when it returns false", check_next},
    {"traffic.no-self", CONFORM_WARNING, "at its defaults no task sends to itself",
     "draw the destination among the other tasks (e.g. below(tasks - 1), skipping the source)",
     check_no_self},
    {"traffic.active", CONFORM_WARNING, "at its defaults the traffic sends something within 100000 cycles",
     "check the default load and the start() cycles", check_active},
    {"traffic.rate", CONFORM_ERROR,
     "when offered_load() is given, the measured load is within 5% of it over a long window",
     "offered_load() is in phits/node/cycle: divide by packet_phits (and the message length) to get "
     "the message rate",
     check_rate},
    {"traffic.deterministic", CONFORM_ERROR, "the same seeds give the same messages at the same cycles",
     "draw randomness only from the rng argument of each task; never rand() or the clock",
     check_deterministic},
    {"traffic.completes", CONFORM_WARNING,
     "when finished() is given, it is true once every task is idle and every message delivered",
     "return true from finished() when the workload has no more work", check_completes},
    {"traffic.round", CONFORM_ERROR,
     "when round() is given (ABI 1.7), every message goes to a task < tasks with at least one "
     "packet, and the same streams give the same rounds",
     "draw only from the rng argument, and keep round() free of state that emit() advances",
     check_round},
    {"traffic.per-task-claim", CONFORM_ERROR,
     "when properties() declares INSEE_TRAFFIC_PER_TASK (ABI 1.17), two instances, each "
     "starting and told of the deliveries to half the tasks, emit what one instance does, wake "
     "only their own tasks and have finished when it has, whatever the order of a cycle's "
     "deliveries",
     "keep each task's state apart (delivered() changes only msg->dst's), count finished() over "
     "the tasks given start(), or do not declare it",
     check_per_task},
    {"traffic.bytes", CONFORM_ERROR,
     "from ABI 1.8, a message of emit() or round() that gives bytes is cut into its packets "
     "(message_packets(bytes) == packets), and its class is INSEE_TRAFFIC_APP or _IO",
     "set packets = host->message_packets(bytes), or leave bytes 0 for the kernel to count "
     "packets x packet bytes; traffic_class is 0 (application) or 1 (I/O)",
     check_length},
};

const conform_suite conform_traffic_suite =
    CONFORM_SUITE(INSEE_KIND_TRAFFIC, traffic_checks, conform_validate_own, conform_instances_cleanup);
