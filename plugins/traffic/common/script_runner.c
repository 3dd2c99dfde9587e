/* script_runner.c — playing causal task programs through the traffic
 * contract (script.h gives the semantics and the exact timing).
 *
 * Each task keeps the index of its next event and whether it runs, waits
 * at a receive or is done. Messages that arrived before their receive wait
 * in one open-addressing hash table keyed by (receiver, source, tag,
 * bytes), holding how many are there. So every event is played once, a
 * delivery is matched in O(1), and memory stays linear in the tasks plus
 * the messages in waiting (never tasks x tasks, as a table per pair would).
 */
#include "script.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Longest compute, in cycles: far beyond any run, and now + cycles never
   overflows. */
#define SCRIPT_MAX_COMPUTE (UINT64_C(1) << 62)

enum { TASK_RUN, TASK_WAIT, TASK_DONE };

typedef struct task_state {
    size_t pos;      /* next event to play */
    uint64_t resume; /* TASK_RUN: the cycle it is due again (describe_wait) */
    uint8_t state;
    bool started;    /* given start(): a task of this instance's part */
} task_state;

typedef struct msg_key {
    uint32_t task, src; /* receiver, sender */
    uint64_t tag, bytes;
} msg_key;

/* Messages of one key that arrived and were not yet received. Arrivals come
   in time order, so the only ones a receive at `now` may not take yet (they
   complete a receive from the next cycle) are those of the latest arrival
   cycle: counting them is enough to know how many are usable. */
typedef struct kept {
    msg_key key;
    uint64_t last;    /* cycle of the latest arrival */
    uint32_t count;   /* 0: empty slot */
    uint32_t at_last; /* how many of count arrived at `last` */
} kept;

struct script_runner {
    script *s;
    const insee_host *host;
    bool causal;
    char *origin;
    double cpu_scale;
    uint32_t tasks, done;
    /* Tasks given start(), and of those the ones not done: a run split
       over parts starts only its part's tasks here (INSEE_TRAFFIC_PER_TASK). */
    uint32_t started, live;
    task_state *task;
    kept *table;         /* power-of-two capacity, at most half full */
    size_t table_cap, table_used;
};

/* ---- the table of messages that arrived early ---------------------------- */

static uint64_t key_hash(const msg_key *k)
{
    uint64_t h = ((uint64_t)k->task << 32 | k->src) * UINT64_C(0x9e3779b97f4a7c15);
    h ^= k->tag * UINT64_C(0xbf58476d1ce4e5b9);
    h ^= k->bytes * UINT64_C(0x94d049bb133111eb);
    h ^= h >> 31;
    h *= UINT64_C(0xd6e8feb86659fd93);
    return h ^ (h >> 32);
}

static bool key_eq(const msg_key *a, const msg_key *b)
{
    return a->task == b->task && a->src == b->src && a->tag == b->tag && a->bytes == b->bytes;
}

/* The slot holding `k`, or the empty slot where it would go. */
static kept *table_slot(const script_runner *r, const msg_key *k)
{
    size_t mask = r->table_cap - 1;
    for (size_t i = key_hash(k) & mask;; i = (i + 1) & mask)
        if (r->table[i].count == 0 || key_eq(&r->table[i].key, k))
            return &r->table[i];
}

static void table_grow(script_runner *r)
{
    kept *old = r->table;
    size_t old_cap = r->table_cap;
    r->table_cap = old_cap ? old_cap * 2 : 64;
    r->table = calloc(r->table_cap, sizeof *r->table);
    if (!r->table)
        abort(); /* as script_add: a run cannot go on without its messages */
    for (size_t i = 0; i < old_cap; i++)
        if (old[i].count)
            *table_slot(r, &old[i].key) = old[i];
    free(old);
}

static void table_arrive(script_runner *r, const msg_key *k, uint64_t now)
{
    if (2 * (r->table_used + 1) > r->table_cap)
        table_grow(r);
    kept *e = table_slot(r, k);
    if (e->count == 0) {
        *e = (kept){.key = *k, .last = now};
        r->table_used++;
    } else if (e->last != now) {
        e->last = now;
        e->at_last = 0;
    }
    e->count++;
    e->at_last++;
}

/* Empty slot `hole` and pull back the entries of its probe run that would
   no longer be found (linear probing deletes without tombstones). */
static void table_remove(script_runner *r, kept *hole)
{
    size_t mask = r->table_cap - 1, i = (size_t)(hole - r->table);
    r->table_used--;
    for (size_t j = (i + 1) & mask; r->table[j].count; j = (j + 1) & mask) {
        size_t home = key_hash(&r->table[j].key) & mask;
        /* Entry j may fill hole i unless its home lies cyclically in (i, j]. */
        if (((j - home) & mask) >= ((j - i) & mask)) {
            r->table[i] = r->table[j];
            i = j;
        }
    }
    r->table[i].count = 0;
}

/* What a receive at `now` finds of key `k`. */
enum { FOUND_NONE, FOUND_NEXT_CYCLE, FOUND_TAKEN };

/* Take one message of `k` that a receive at `now` may use: FOUND_TAKEN; or
   FOUND_NEXT_CYCLE when those there all arrived at `now`; or FOUND_NONE. */
static int table_take(script_runner *r, const msg_key *k, uint64_t now)
{
    if (r->table_used == 0)
        return FOUND_NONE;
    kept *e = table_slot(r, k);
    if (e->count == 0)
        return FOUND_NONE;
    if (e->last >= now && e->count == e->at_last)
        return FOUND_NEXT_CYCLE;
    if (e->count-- == e->at_last)
        e->at_last--; /* all it held arrived at `last`, before now: one of those goes */
    if (e->count == 0)
        table_remove(r, e);
    return FOUND_TAKEN;
}

/* ---- creation ------------------------------------------------------------ */

static uint64_t compute_cycles(const script_runner *r, uint64_t c)
{
    if (r->cpu_scale == 1.0)
        return c; /* exact, whatever its size */
    return (uint64_t)floor((double)c * r->cpu_scale + 0.5);
}

/* Where event `i` of `task` comes from, for messages. */
static void event_place(const script_runner *r, uint32_t task, size_t i, char *buf, size_t len)
{
    uint32_t line = script_events(r->s, task)[i].line;
    size_t n = script_length(r->s, task);
    if (line)
        snprintf(buf, len, "%s:%u, its event %zu of %zu", r->origin, line, i + 1, n);
    else
        snprintf(buf, len, "its event %zu of %zu in %s", i + 1, n, r->origin);
}

/* The smallest line naming task `t` as owner or peer (0: none has a line). */
static uint32_t first_line_naming(const script *s, uint32_t t)
{
    uint32_t best = 0;
    for (uint32_t task = 0; task < script_tasks(s); task++) {
        const script_event *ev = script_events(s, task);
        for (size_t i = 0; i < script_length(s, task); i++) {
            bool names = task == t || (ev[i].op != SCRIPT_COMPUTE && ev[i].peer == t);
            if (names && ev[i].line && (!best || ev[i].line < best))
                best = ev[i].line;
        }
    }
    return best;
}

bool script_check_tasks(const char *origin, uint32_t tasks, uint32_t line, uint32_t have,
                        insee_error *err)
{
    if (tasks <= have)
        return true;
    char from[64] = "";
    if (line)
        snprintf(from, sizeof from, " (task %u at line %u)", tasks - 1, line);
    insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                    "%s needs %u tasks%s, the application has %u; run it on a network of at "
                    "least %u nodes, or give its [[application]] tasks = %u (tasks_per_node "
                    "puts several on a node)",
                    origin, tasks, from, have, tasks, tasks);
    return false;
}

static bool check_event(const script_runner *r, uint32_t task, size_t i, insee_error *err)
{
    const script_event *e = &script_events(r->s, task)[i];
    char where[256];
    if (e->op == SCRIPT_COMPUTE) {
        if (r->cpu_scale == 1.0 ? e->cycles < SCRIPT_MAX_COMPUTE
                                : (double)e->cycles * r->cpu_scale < (double)SCRIPT_MAX_COMPUTE)
            return true;
        event_place(r, task, i, where, sizeof where);
        insee_error_set(err, INSEE_ERR_PARAM,
                        "task %u at %s: a compute of %llu x cpu_scale %g cycles is longer than "
                        "2^62 cycles; lower cpu_scale",
                        task, where, (unsigned long long)e->cycles, r->cpu_scale);
        return false;
    }
    if (e->peer >= r->tasks) {
        event_place(r, task, i, where, sizeof where);
        insee_error_set(err, INSEE_ERR_PARAM, "task %u at %s names task %u, but %s has %u tasks",
                        task, where, e->peer, r->origin, r->tasks);
        return false;
    }
    if (e->op == SCRIPT_SEND &&
        r->host->message_packets(r->host->kernel, e->bytes) >= UINT32_MAX) {
        event_place(r, task, i, where, sizeof where);
        insee_error_set(err, INSEE_ERR_PARAM,
                        "task %u at %s: a message of %llu bytes makes more packets than the "
                        "kernel counts; shorten it",
                        task, where, (unsigned long long)e->bytes);
        return false;
    }
    return true;
}

/* The first send of `task` at or after event `i`, or its length. */
static size_t next_send(const script_runner *r, uint32_t task, size_t i)
{
    const script_event *ev = script_events(r->s, task);
    size_t n = script_length(r->s, task);
    while (i < n && ev[i].op != SCRIPT_SEND)
        i++;
    return i;
}

static void task_done(script_runner *r, task_state *ts)
{
    ts->state = TASK_DONE;
    r->done++;
    r->live -= ts->started;
}

script_runner *script_runner_new(script *s, const insee_host *host, bool causal,
                                 const char *origin, double cpu_scale, insee_error *err)
{
    script_runner *r = calloc(1, sizeof *r);
    size_t olen = strlen(origin) + 1;
    char *copy = malloc(olen);
    task_state *task = calloc(script_tasks(s) ? script_tasks(s) : 1, sizeof *task);
    if (!r || !copy || !task) {
        insee_error_set(err, INSEE_ERR_NOMEM, "%s: out of memory", origin);
        free(r);
        free(copy);
        free(task);
        script_free(s);
        return NULL;
    }
    *r = (script_runner){.s = s, .host = host, .causal = causal,
                         .origin = memcpy(copy, origin, olen), .cpu_scale = cpu_scale,
                         .tasks = script_tasks(s), .task = task};
    insee_shape shape;
    host->shape(host->kernel, &shape);
    bool ok = INSEE_HOST_HAS(host, message_packets) && INSEE_HOST_HAS(host, wake_task);
    if (!ok)
        insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                        "%s: the host lacks message_packets or wake_task (ABI 1.2); run it in "
                        "an insee kernel of ABI 1.2 or later", origin);
    ok = ok && (r->tasks <= shape.tasks || /* the line is looked for only then */
                script_check_tasks(origin, r->tasks, first_line_naming(s, r->tasks - 1),
                                   shape.tasks, err));
    for (uint32_t t = 0; ok && t < r->tasks; t++)
        for (size_t i = 0; ok && i < script_length(s, t); i++)
            ok = check_event(r, t, i, err);
    if (!ok) {
        script_runner_free(r);
        return NULL;
    }
    for (uint32_t t = 0; t < r->tasks; t++) {
        task[t].pos = causal ? 0 : next_send(r, t, 0);
        if (task[t].pos == script_length(s, t))
            task_done(r, &task[t]);
    }
    return r;
}

void script_runner_free(script_runner *r)
{
    if (!r)
        return;
    script_free(r->s);
    free(r->origin);
    free(r->task);
    free(r->table);
    free(r);
}

/* ---- running ------------------------------------------------------------- */

uint64_t script_runner_start(script_runner *r, uint32_t task)
{
    if (task >= r->tasks)
        return INSEE_NEVER;
    task_state *ts = &r->task[task];
    if (!ts->started) {
        ts->started = true;
        r->started++;
        r->live += ts->state != TASK_DONE;
    }
    return ts->state != TASK_DONE ? 0 : INSEE_NEVER;
}

/* Hand event `i` (a send) of `task` to the kernel. */
static void send_event(const script_runner *r, uint32_t task, size_t i, insee_message *msg)
{
    const script_event *e = &script_events(r->s, task)[i];
    *msg = (insee_message){
        .dst = e->peer,
        .packets = r->host->message_packets(r->host->kernel, e->bytes),
        .tag = e->tag,
        .bytes = e->bytes,
        .nic = e->nic,
        .copy = e->copy,
    };
}

/* Inject at will: the next send now, the one after next cycle. */
static bool emit_at_will(script_runner *r, uint32_t task, uint64_t now, insee_message *msg,
                         uint64_t *next)
{
    task_state *ts = &r->task[task];
    send_event(r, task, ts->pos, msg);
    ts->pos = next_send(r, task, ts->pos + 1);
    if (ts->pos == script_length(r->s, task))
        task_done(r, ts);
    else
        *next = ts->resume = now + 1;
    return true;
}

/* Play `task`'s events from its position until one takes time: a send (the
   task goes on next cycle), a compute, or a receive not yet satisfied. */
static bool emit_causal(script_runner *r, uint32_t task, uint64_t now, insee_message *msg,
                        uint64_t *next)
{
    task_state *ts = &r->task[task];
    const script_event *ev = script_events(r->s, task);
    size_t n = script_length(r->s, task);
    ts->state = TASK_RUN;
    while (ts->pos < n) {
        const script_event *e = &ev[ts->pos];
        if (e->op == SCRIPT_SEND) {
            send_event(r, task, ts->pos++, msg);
            if (ts->pos == n)
                task_done(r, ts);
            else
                *next = ts->resume = now + 1;
            return true;
        }
        if (e->op == SCRIPT_COMPUTE) {
            uint64_t c = compute_cycles(r, e->cycles);
            ts->pos++;
            if (c == 0)
                continue;
            *next = ts->resume = now + c;
            return false;
        }
        msg_key k = {task, e->peer, e->tag, e->bytes};
        int found = table_take(r, &k, now);
        if (found == FOUND_TAKEN) {
            ts->pos++;
            continue;
        }
        if (found == FOUND_NEXT_CYCLE) /* delivered this very cycle */
            *next = ts->resume = now + 1;
        else
            ts->state = TASK_WAIT; /* delivered() wakes it */
        return false;
    }
    task_done(r, ts);
    return false;
}

bool script_runner_emit(script_runner *r, uint32_t task, uint64_t now, insee_message *msg,
                        uint64_t *next)
{
    *next = INSEE_NEVER;
    if (task >= r->tasks || r->task[task].state == TASK_DONE)
        return false;
    return r->causal ? emit_causal(r, task, now, msg, next)
                     : emit_at_will(r, task, now, msg, next);
}

void script_runner_delivered(script_runner *r, uint32_t src_task, const insee_message *msg,
                             uint64_t now)
{
    /* Inject at will receives nothing. A message carries its send's tag and
       exact length (bytes, ABI 1.8), the key a receive matches. */
    if (!r->causal || src_task >= r->tasks || msg->dst >= r->tasks)
        return;
    msg_key k = {msg->dst, src_task, msg->tag, msg->bytes};
    table_arrive(r, &k, now);
    task_state *ts = &r->task[msg->dst];
    if (ts->state != TASK_WAIT)
        return;
    const script_event *want = &script_events(r->s, msg->dst)[ts->pos];
    if (want->peer == src_task && want->tag == msg->tag && want->bytes == msg->bytes) {
        ts->state = TASK_RUN;
        ts->resume = now + 1;
        r->host->wake_task(r->host->kernel, msg->dst, now + 1);
    }
}

bool script_runner_finished(const script_runner *r)
{
    return r->started ? r->live == 0 : r->done == r->tasks;
}

/* Append to buf[*at..len) (printf-style), keeping it NUL-terminated. */
static void append(char *buf, size_t len, size_t *at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void append(char *buf, size_t len, size_t *at, const char *fmt, ...)
{
    if (*at >= len)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *at, len - *at, fmt, ap);
    va_end(ap);
    *at = n < 0 ? len : *at + (size_t)n;
}

/* A message to `task` from `src` that arrived and no receive has taken:
   often the one a mistyped receive was meant for. */
static const kept *unclaimed_from(const script_runner *r, uint32_t task, uint32_t src)
{
    for (size_t i = 0; i < r->table_cap; i++)
        if (r->table[i].count && r->table[i].key.task == task && r->table[i].key.src == src)
            return &r->table[i];
    return NULL;
}

bool script_runner_describe_wait(const script_runner *r, char *buf, size_t len)
{
    uint32_t waiting = 0, first_wait = UINT32_MAX, first_run = UINT32_MAX;
    for (uint32_t t = 0; t < r->tasks; t++) {
        if (r->started && !r->task[t].started)
            continue; /* another part's */
        if (r->task[t].state == TASK_WAIT && waiting++ == 0)
            first_wait = t;
        if (r->task[t].state == TASK_RUN && first_run == UINT32_MAX)
            first_run = t;
    }
    uint32_t t = first_wait != UINT32_MAX ? first_wait : first_run;
    if (t == UINT32_MAX || len == 0)
        return false;
    const task_state *ts = &r->task[t];
    size_t at = 0;
    char where[256];
    if (ts->state == TASK_WAIT) {
        const script_event *e = &script_events(r->s, t)[ts->pos];
        event_place(r, t, ts->pos, where, sizeof where);
        append(buf, len, &at, "task %u waits at %s, for a message from task %u (tag %llu, %llu bytes)",
               t, where, e->peer, (unsigned long long)e->tag, (unsigned long long)e->bytes);
        const kept *other = unclaimed_from(r, t, e->peer);
        if (other)
            append(buf, len, &at, "; one from task %u with tag %llu and %llu bytes has arrived",
                   e->peer, (unsigned long long)other->key.tag,
                   (unsigned long long)other->key.bytes);
    } else if (ts->pos < script_length(r->s, t)) {
        event_place(r, t, ts->pos, where, sizeof where);
        append(buf, len, &at, "task %u is due at cycle %llu at %s", t,
               (unsigned long long)ts->resume, where);
    } else {
        append(buf, len, &at, "task %u ends its last compute at cycle %llu", t,
               (unsigned long long)ts->resume);
    }
    /* In a split run, of this part's tasks. */
    append(buf, len, &at, "; %u of %u tasks wait at a receive, %u have finished", waiting,
           r->started ? r->started : r->tasks, r->started ? r->started - r->live : r->done);
    return true;
}

/* What the task plays: at will, its sends alone; computes as scaled. */
bool script_runner_program(const script_runner *r, uint32_t task,
                           void (*event)(void *ctx, const insee_program_event *ev), void *ctx)
{
    const script_event *e = task < script_tasks(r->s) ? script_events(r->s, task) : NULL;
    size_t n = e ? script_length(r->s, task) : 0;
    for (size_t i = 0; i < n; i++) {
        if (!r->causal && e[i].op != SCRIPT_SEND)
            continue;
        static const uint32_t ops[] = {[SCRIPT_SEND] = INSEE_PROGRAM_SEND,
                                       [SCRIPT_RECV] = INSEE_PROGRAM_RECV,
                                       [SCRIPT_COMPUTE] = INSEE_PROGRAM_COMPUTE};
        insee_program_event ev = {.op = ops[e[i].op], .peer = e[i].peer, .tag = e[i].tag,
                                  .bytes = e[i].bytes, .nic = e[i].nic, .copy = e[i].copy};
        if (e[i].op == SCRIPT_COMPUTE)
            ev.cycles = compute_cycles(r, e[i].cycles);
        event(ctx, &ev);
    }
    return true;
}

/* ---- vtable glue --------------------------------------------------------- */

static script_runner *runner_of(void *self)
{
    return *(script_runner **)self;
}

void script_traffic_destroy(void *self)
{
    if (!self)
        return;
    script_runner_free(runner_of(self));
    free(self);
}

uint64_t script_traffic_start(void *self, uint32_t task, insee_rng *rng)
{
    (void)rng;
    return script_runner_start(runner_of(self), task);
}

bool script_traffic_emit(void *self, uint32_t task, uint64_t now, insee_rng *rng,
                         insee_message *msg, uint64_t *next)
{
    (void)rng;
    return script_runner_emit(runner_of(self), task, now, msg, next);
}

void script_traffic_delivered(void *self, uint32_t src_task, const insee_message *msg,
                              uint64_t now)
{
    script_runner_delivered(runner_of(self), src_task, msg, now);
}

bool script_traffic_finished(void *self)
{
    return script_runner_finished(runner_of(self));
}

bool script_traffic_describe_wait(void *self, char *buf, size_t len)
{
    return script_runner_describe_wait(runner_of(self), buf, len);
}

bool script_traffic_program(void *self, uint32_t task,
                            void (*event)(void *ctx, const insee_program_event *ev), void *ctx)
{
    return script_runner_program(runner_of(self), task, event, ctx);
}

uint32_t script_traffic_properties(void *self)
{
    (void)self;
    return INSEE_TRAFFIC_PER_TASK;
}
