/* kernel/flow/dynamic.c — the dynamic flow engine: messages as flows with
 * bytes over links with bandwidth, in continuous time (docs/flow.md §5).
 *
 * Time moves from instant to instant: the next flow to end or the next task
 * due. At an instant every flow that ends is removed, its message delivered
 * (which may wake tasks), tasks due are asked for messages, and the new
 * flows added; the share then gives new rates to the flows whose rate can
 * change, once for the whole instant, and each such flow's end is predicted
 * again. A flow's remaining bytes are brought up to date only when its rate
 * changes, so an instant costs what changed, not every flow.
 *
 * A message split over several paths is one sub-flow per path; it is
 * delivered when its last sub-flow ends. Predicted ends sit in a 4-ary heap
 * keyed by the end time's bits (a non-negative double orders as its bits
 * do), then the sub-flow: a shallow heap, as a million flows that end
 * together are popped one after the other. An entry is live while it
 * matches the sub-flow's current prediction.
 *
 * Threads: a message that starts is queued; its paths are found later,
 * all the queue's at once, walked in batches (walk.h) on a crew of
 * threads when the router and topology allow it (insee_flow_threads),
 * each start's paths into its thread's own buffer. Then the caller adds
 * them to the share in the order the messages started, so the share, and
 * every figure, is what starting each in turn gives, for any number of
 * threads. The queue is emptied before anything that reads what a start
 * leaves behind: the rates (the instant's update), a task at its limit of
 * messages in flight (a message that finds no path is not in flight), and
 * the jobs' completion (its messages still live). */
#include "flow/flow.h"

#include <math.h>
#include <string.h>

#include "engine/crew.h"
#include "engine/events.h"
#include "flow/paths.h"
#include "flow/walk.h"
#include "workload/message.h"

#define NO_MESSAGE UINT32_MAX
/* Walks at once below which the caller walks alone: waking the crew costs
   more than walking a few paths (docs/flow.md, Threads). */
#define MIN_WALKS 256
/* Spins of a waiting thread before it sleeps: the serial work between two
   batches of walks (the other starts, ends and refills) is long, and
   spinning through it took half as much CPU again for a few percent of
   wall time (docs/flow.md). */
#define CREW_SPINS 1000
/* Starts queued at most before their paths are found: a few MB of queue
   and paths, and few wakings of the crew (with 4096, the 244 of a million
   starts cost about what the second thread saved). */
#define MAX_STARTS 65536

typedef struct message {
    insee_message msg;
    uint32_t app, src_task; /* the application and its own task number */
    uint32_t left;          /* sub-flows not ended */
    uint32_t next;          /* the task's next pending message, or NO_MESSAGE */
    uint64_t bytes;
    uint32_t cls;        /* INSEE_SHARE_APP or INSEE_SHARE_IO */
    double start, alone; /* when it entered the network; its time alone there */
} message;

typedef struct sub {
    uint32_t message;
    uint32_t n_links;
    double bytes, left, rate, since; /* bytes left at `since`, at `rate` since then */
    uint64_t end;                    /* predicted end's bits, or 0 */
    gboolean live;
} sub;

typedef struct end_entry {
    uint64_t at; /* the predicted end's bits */
    uint32_t sub;
} end_entry;

typedef struct end_heap {
    end_entry *v;
    uint32_t len, cap;
} end_heap;

static gboolean end_before(end_entry a, end_entry b)
{
    return a.at < b.at || (a.at == b.at && a.sub < b.sub);
}

static void end_push(end_heap *h, uint64_t at, uint32_t sub)
{
    if (h->len == h->cap) {
        h->cap = h->cap ? 2 * h->cap : 1024;
        h->v = g_renew(end_entry, h->v, h->cap);
    }
    end_entry e = {at, sub};
    uint32_t i = h->len++;
    while (i > 0 && end_before(e, h->v[(i - 1) / 4])) {
        h->v[i] = h->v[(i - 1) / 4];
        i = (i - 1) / 4;
    }
    h->v[i] = e;
}

/* Move entry `last` down from slot i to where it belongs among h->len. */
static void end_sift_down(end_heap *h, uint32_t i, end_entry last)
{
    for (;;) {
        uint32_t first = 4 * i + 1, best = i;
        end_entry least = last;
        for (uint32_t c = first; c < first + 4 && c < h->len; c++) {
            if (end_before(h->v[c], least)) {
                least = h->v[c];
                best = c;
            }
        }
        if (best == i)
            break;
        h->v[i] = h->v[best];
        i = best;
    }
    h->v[i] = last;
}

static end_entry end_pop(end_heap *h)
{
    end_entry top = h->v[0], last = h->v[--h->len];
    if (h->len)
        end_sift_down(h, 0, last);
    return top;
}

/* Byte `b` of an entry's key (at, sub), 0 the least significant. */
static unsigned end_key_byte(const end_entry *e, unsigned b)
{
    return b < 4 ? (e->sub >> (8 * b)) & 0xff : (unsigned)(e->at >> (8 * (b - 4))) & 0xff;
}

/* Sort by (at, sub), least significant byte first, skipping the bytes
   every entry shares (the ends of one instant mostly share `at`): linear,
   where a comparison sort of a million entries costs several times more. */
static void end_sort(GArray *v)
{
    enum { KEY_BYTES = 12 };
    guint n = v->len;
    if (n < 2)
        return;
    uint32_t (*count)[256] = g_malloc0(sizeof(uint32_t[256]) * KEY_BYTES);
    end_entry *a = (end_entry *)v->data, *tmp = g_new(end_entry, n);
    for (guint i = 0; i < n; i++)
        for (unsigned b = 0; b < KEY_BYTES; b++)
            count[b][end_key_byte(&a[i], b)]++;
    for (unsigned b = 0; b < KEY_BYTES; b++) {
        if (count[b][end_key_byte(&a[0], b)] == n)
            continue; /* every entry has the same byte here */
        uint32_t at = 0;
        for (unsigned c = 0; c < 256; c++) {
            uint32_t k = count[b][c];
            count[b][c] = at;
            at += k;
        }
        for (guint i = 0; i < n; i++)
            tmp[count[b][end_key_byte(&a[i], b)]++] = a[i];
        end_entry *t = a;
        a = tmp;
        tmp = t;
    }
    if (a != (end_entry *)v->data) {
        memcpy(v->data, a, sizeof *a * n);
        tmp = a;
    }
    g_free(tmp);
    g_free(count);
}

/* Every entry at or before `horizon` (bits of a non-negative double, which
   order as the doubles do), in the order pops would give them, into
   `out`; they leave the heap. An instant where many flows end together (a
   symmetric all-to-all ends a million at once) takes them in one pass and
   one sort, and rebuilds the heap from what stays, instead of a pop each. */
static void end_take_until(end_heap *h, uint64_t horizon, GArray *out)
{
    g_array_set_size(out, 0);
    if (!h->len || h->v[0].at > horizon)
        return;
    /* The entries due form a subtree at the root: walk it. */
    GArray *stack = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    uint32_t root = 0;
    g_array_append_val(stack, root);
    while (stack->len) {
        uint32_t i = g_array_index(stack, uint32_t, --stack->len);
        g_array_append_val(out, h->v[i]);
        for (uint32_t c = 4 * i + 1; c < 4 * i + 5 && c < h->len; c++)
            if (h->v[c].at <= horizon)
                g_array_append_val(stack, c);
    }
    g_array_free(stack, TRUE);
    end_sort(out);
    if ((uint64_t)out->len * 16 < h->len) {
        for (guint k = 0; k < out->len; k++)
            end_pop(h);
        return;
    }
    uint32_t kept = 0;
    for (uint32_t i = 0; i < h->len; i++)
        if (h->v[i].at > horizon)
            h->v[kept++] = h->v[i];
    h->len = kept;
    for (uint32_t i = kept > 1 ? (kept - 2) / 4 + 1 : 0; i-- > 0;)
        end_sift_down(h, i, h->v[i]);
}

/* A message started whose paths are still to be found and added: its
   task's salt and where it goes (from, to: nodes, equal for the local
   device; the store's device links), then where its paths were put. */
typedef struct start_job {
    uint32_t message, task, salt;
    insee_storage_access to;
    uint32_t finder, first, paths; /* the finder's path records first .. + paths */
} start_job;

typedef struct path_rec {
    uint32_t at, n; /* its links: the finder's links[at .. at + n) */
    double share;   /* of the message's bytes */
} path_rec;

/* One thread's share of finding paths: a walker of its own (NULL with a
   path routing, which the caller asks alone), and the paths it found. */
typedef struct finder {
    insee_flow_dynamic *d;
    insee_flow_walker *walker;
    GArray *links;  /* uint32_t */
    GArray *paths;  /* path_rec */
    start_job *job; /* the start a path routing is giving paths of */
    GError *error;  /* the first failure among its starts, that of start `failed` */
    uint32_t failed;
} finder;

typedef struct series_point {
    double at, rate; /* from `at` on, the links carry `rate` bytes per second in all */
} series_point;

struct insee_flow_dynamic {
    const insee_flow_setup *s;
    const insee_flow_dyn_options *o;
    insee_flow_paths *paths; /* a path routing's, or NULL: the finders walk the router */
    finder *finders;         /* one per thread */
    uint32_t threads;
    insee_crew *crew;        /* several threads: the finders' */
    insee_share *share;
    insee_storage *storage;  /* [storage], or NULL */
    double *own_capacity;    /* with [storage]: the network's links, then the devices */
    const double *capacity;  /* every link's bytes per second */
    double one_capacity;     /* every link's, when they are all the same;
                                0 when they differ */
    uint32_t links, tasks;
    double now;
    uint64_t cycle_run; /* the latest cycle a task ran at */
    /* tasks (global ids, as the packet engine numbers them) */
    uint32_t *task_app;
    insee_rng *task_rng, *salt_rng;
    uint64_t *due;         /* the cycle the task is due, or INSEE_NEVER */
    gboolean *blocked;     /* due while its messages still wait to start */
    uint32_t *outstanding; /* its messages in the network */
    uint32_t *pend_head, *pend_tail;
    insee_heap due_heap;
    end_heap ends;
    /* messages and sub-flows */
    GArray *messages;      /* message */
    GArray *free_messages; /* uint32_t */
    GArray *subs;          /* sub, by share id */
    GQueue done;           /* message ids delivered this instant, in order */
    GArray *starts;        /* start_job: the starts whose paths are to be found */
    /* figures */
    double *link_bytes;
    double total_rate;
    /* [flow] link_series: each link's bytes in link_series spans of `span`
       seconds, the spans doubled (pairs merged) whenever time outgrows
       them; the rate on each link since when it was last counted. */
    double *lseries, *lrate, *lsince, span;
    GArray *series;         /* series_point */
    GArray *ending;         /* end_entry: the ends due at this instant */
    GArray *fct, *slowdown; /* double */
    double *app_end;
    uint64_t *app_messages;
    /* jobs (setup->sched) */
    uint64_t *app_live;    /* its messages created and not yet delivered or dropped */
    double *app_stop;      /* an open-ended job's start + runtime */
    GArray *running;       /* uint32_t: the applications of the jobs running */
    uint64_t jobs_started;
    insee_flow_dyn_report *rep;
    GError *error;
};

static message *msg_at(insee_flow_dynamic *d, uint32_t m)
{
    return &g_array_index(d->messages, message, m);
}

static sub *sub_at(insee_flow_dynamic *d, uint32_t id)
{
    return &g_array_index(d->subs, sub, id);
}

static const insee_flow_app *app_of(insee_flow_dynamic *d, uint32_t task)
{
    return &d->s->apps[d->task_app[task]];
}

/* The capacity every link shares, or 0 when they differ: a message's time
   alone then needs no look at its links. */
static double one_capacity(const double *capacity, uint32_t links)
{
    for (uint32_t l = 1; l < links; l++)
        if (capacity[l] != capacity[0])
            return 0;
    return links ? capacity[0] : 0;
}

/* Seconds of traffic cycle `at`, and the first cycle at or after a time.
   Cycles of no length (cycle_s = 0: sends and computes take no time, as in
   INRFlow) only order a task's steps: every step the workload can take
   without waiting for a delivery happens at the same instant, and the
   cycle handed to the traffic is the latest one run. */
static double seconds(const insee_flow_dynamic *d, uint64_t at)
{
    return (double)at * d->o->cycle_s;
}

static uint64_t cycle_at(const insee_flow_dynamic *d, double t)
{
    if (d->o->cycle_s == 0)
        return d->cycle_run;
    double c = ceil(t / d->o->cycle_s - 1e-9);
    return c > 0 ? (uint64_t)c : 0;
}

/* A finder per thread, each walking with its own walker beside the first
   (one finder and no walker with a path routing), and the crew when there
   are several. */
static gboolean make_finders(insee_flow_dynamic *d, GError **err)
{
    uint32_t threads = insee_flow_threads(d->s);
    d->finders = g_new0(finder, threads);
    for (; d->threads < threads; d->threads++) {
        finder *f = &d->finders[d->threads];
        *f = (finder){.d = d, .links = g_array_new(FALSE, FALSE, sizeof(uint32_t)),
                      .paths = g_array_new(FALSE, FALSE, sizeof(path_rec))};
        if (d->paths)
            continue;
        f->walker = d->threads ? insee_flow_walker_new_beside(d->finders[0].walker, err)
                               : insee_flow_walker_new(d->s, err);
        if (!f->walker) {
            d->threads++; /* freed with the others */
            return FALSE;
        }
    }
    if (threads > 1 && !(d->crew = insee_crew_new(threads, d->o->min_walks ? d->o->min_walks
                                                                         : MIN_WALKS,
                                                  CREW_SPINS, err)))
        return FALSE;
    return TRUE;
}

insee_flow_dynamic *insee_flow_dynamic_new(const insee_flow_setup *setup,
                                           const insee_flow_dyn_options *opt, GError **err)
{
    for (uint32_t a = 0; a < setup->n_apps; a++) {
        if (!setup->apps[a].causal && !setup->apps[a].traffic->round) {
            g_set_error(err, INSEE_FLOW_ERROR, INSEE_FLOW_ERROR_UNSUPPORTED,
                        "traffic plugin '%s' is open-ended and cannot give its messages as "
                        "rounds of flows (it has no round() entry, ABI 1.7), so engine = "
                        "\"dynamic\" cannot run it; use a causal workload, a pattern that "
                        "has "
                        "round() (docs/flow.md lists them) or the packet engine",
                        setup->apps[a].plugin);
            return NULL;
        }
    }
    uint32_t links = insee_flow_links(setup->net);
    insee_storage *storage = NULL;
    if (opt->storage && !(storage = insee_storage_new(opt->storage, setup, links, err)))
        return NULL;
    insee_flow_paths *paths = NULL;
    if (setup->routing && !(paths = insee_flow_paths_new(setup, err))) {
        insee_storage_free(storage);
        return NULL;
    }
    insee_flow_dynamic *d = g_new0(insee_flow_dynamic, 1);
    d->s = setup;
    d->o = opt;
    d->paths = paths;
    d->links = links;
    d->capacity = opt->capacity;
    if (storage) {
        /* The devices are links after the network's (storage.h). */
        d->storage = storage;
        d->links += insee_storage_links(storage);
        d->own_capacity = g_new(double, d->links);
        memcpy(d->own_capacity, opt->capacity, sizeof(double) * links);
        insee_storage_capacities(storage, d->own_capacity);
        d->capacity = d->own_capacity;
    }
    d->share = insee_share_new(d->links, d->capacity, opt->rule, opt->policy, opt->app_share);
    d->one_capacity = one_capacity(d->capacity, d->links);
    for (uint32_t a = 0; a < setup->n_apps; a++)
        d->tasks = MAX(d->tasks, setup->apps[a].first_task + setup->apps[a].tasks);
    d->task_app = g_new0(uint32_t, d->tasks);
    d->task_rng = g_new(insee_rng, d->tasks);
    d->salt_rng = g_new(insee_rng, d->tasks);
    d->due = g_new(uint64_t, d->tasks);
    d->blocked = g_new0(gboolean, d->tasks);
    d->outstanding = g_new0(uint32_t, d->tasks);
    d->pend_head = g_new(uint32_t, d->tasks);
    d->pend_tail = g_new(uint32_t, d->tasks);
    for (uint32_t a = 0; a < setup->n_apps; a++)
        for (uint32_t t = 0; t < setup->apps[a].tasks; t++)
            d->task_app[setup->apps[a].first_task + t] = a;
    for (uint32_t t = 0; t < d->tasks; t++) {
        /* The streams the packet engine and the static engine give tasks. */
        insee_rng_init(&d->task_rng[t], setup->seed, (4ull << 40) + t);
        insee_rng_init(&d->salt_rng[t], setup->seed, (7ull << 40) + 1 + t);
        d->due[t] = INSEE_NEVER;
        d->pend_head[t] = d->pend_tail[t] = NO_MESSAGE;
    }
    d->messages = g_array_new(FALSE, FALSE, sizeof(message));
    d->free_messages = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    d->subs = g_array_new(FALSE, TRUE, sizeof(sub));
    g_queue_init(&d->done);
    d->starts = g_array_new(FALSE, FALSE, sizeof(start_job));
    d->link_bytes = g_new0(double, d->links);
    if (opt->link_series) {
        d->lseries = g_new0(double, (gsize)d->links * opt->link_series);
        d->lrate = g_new0(double, d->links);
        d->lsince = g_new0(double, d->links);
        d->span = 1e-9;
    }
    d->series = g_array_new(FALSE, FALSE, sizeof(series_point));
    d->ending = g_array_new(FALSE, FALSE, sizeof(end_entry));
    d->fct = g_array_new(FALSE, FALSE, sizeof(double));
    d->slowdown = g_array_new(FALSE, FALSE, sizeof(double));
    d->app_end = g_new0(double, setup->n_apps);
    d->app_messages = g_new0(uint64_t, setup->n_apps);
    d->app_live = g_new0(uint64_t, setup->n_apps);
    d->app_stop = g_new0(double, setup->n_apps);
    d->running = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    if (!make_finders(d, err)) {
        insee_flow_dynamic_free(d);
        return NULL;
    }
    return d;
}

void insee_flow_dynamic_free(insee_flow_dynamic *d)
{
    if (!d)
        return;
    insee_crew_free(d->crew);
    for (uint32_t i = d->threads; i-- > 0;) { /* the first walker last: the others read its table */
        insee_flow_walker_free(d->finders[i].walker);
        g_array_unref(d->finders[i].links);
        g_array_unref(d->finders[i].paths);
    }
    g_free(d->finders);
    insee_flow_paths_free(d->paths);
    insee_share_free(d->share);
    insee_storage_free(d->storage);
    g_free(d->own_capacity);
    g_free(d->task_app);
    g_free(d->task_rng);
    g_free(d->salt_rng);
    g_free(d->due);
    g_free(d->blocked);
    g_free(d->outstanding);
    g_free(d->pend_head);
    g_free(d->pend_tail);
    insee_heap_clear(&d->due_heap);
    g_free(d->ends.v);
    g_array_unref(d->messages);
    g_array_unref(d->free_messages);
    g_array_unref(d->subs);
    g_queue_clear(&d->done);
    g_array_unref(d->starts);
    g_free(d->link_bytes);
    g_free(d->lseries);
    g_free(d->lrate);
    g_free(d->lsince);
    g_array_unref(d->series);
    g_array_unref(d->ending);
    g_array_unref(d->fct);
    g_array_unref(d->slowdown);
    g_free(d->app_end);
    g_free(d->app_messages);
    g_free(d->app_live);
    g_free(d->app_stop);
    g_array_unref(d->running);
    g_clear_error(&d->error);
    g_free(d);
}

/* ---- tasks ---- */

static void schedule(insee_flow_dynamic *d, uint32_t task, uint64_t at)
{
    d->due[task] = at;
    if (at != INSEE_NEVER)
        insee_heap_push(&d->due_heap, at, task);
}

void insee_flow_dynamic_wake(insee_flow_dynamic *d, uint32_t app, uint32_t task, uint64_t at)
{
    const insee_flow_app *a = &d->s->apps[app];
    if (task >= a->tasks) {
        if (!d->error)
            g_set_error(&d->error, INSEE_FLOW_ERROR, INSEE_FLOW_ERROR_PLUGIN,
                        "traffic plugin '%s' woke task %u (its application has %u tasks)",
                        a->plugin, task, a->tasks);
        return;
    }
    uint32_t t = a->first_task + task;
    at = MAX(at, cycle_at(d, d->now));
    if (at < d->due[t] && !d->blocked[t])
        schedule(d, t, at);
    else if (d->blocked[t])
        d->due[t] = MIN(d->due[t], at);
}

static uint32_t new_message(insee_flow_dynamic *d, uint32_t task, const insee_message *msg)
{
    uint32_t m;
    if (d->free_messages->len) {
        m = g_array_index(d->free_messages, uint32_t, d->free_messages->len - 1);
        g_array_set_size(d->free_messages, d->free_messages->len - 1);
    } else {
        m = d->messages->len;
        g_array_set_size(d->messages, m + 1);
    }
    const insee_flow_app *a = app_of(d, task);
    *msg_at(d, m) = (message){
        .msg = *msg,
        .app = d->task_app[task],
        .src_task = task - a->first_task,
        .next = NO_MESSAGE,
        .bytes = insee_message_bytes(msg, a->abi_minor, d->o->packet_bytes),
        .cls = a->io ? INSEE_SHARE_IO : insee_message_class(msg, a->abi_minor)};
    d->rep->bytes_sent += msg_at(d, m)->bytes;
    d->app_live[d->task_app[task]]++;
    if (d->pend_tail[task] == NO_MESSAGE)
        d->pend_head[task] = m;
    else
        msg_at(d, d->pend_tail[task])->next = m;
    d->pend_tail[task] = m;
    return m;
}

/* A sub-flow of message `mid` over `n` links, carrying `share` of it. */
static void add_sub(insee_flow_dynamic *d, uint32_t mid, const uint32_t *links, uint32_t n,
                    double share)
{
    message *m = msg_at(d, mid);
    uint32_t id = insee_share_add(d->share, links, n, m->cls);
    if (id >= d->subs->len)
        g_array_set_size(d->subs, id + 1);
    *sub_at(d, id) = (sub){.message = mid,
                           .n_links = n,
                           .bytes = share * (double)m->bytes,
                           .left = share * (double)m->bytes,
                           .since = d->now,
                           .live = TRUE};
    m->left++;
}

/* One path of start s: its sub-flow's links into the finder, the source's
   node link, the path's ports and the destination's node link, then, for
   a storage access, the store's device links (alone for the local device). */
static void put_path(finder *f, start_job *s, const uint32_t *ports, uint32_t hops, double share)
{
    const insee_net *net = f->d->s->net;
    gboolean local = s->to.from == s->to.to;
    uint32_t at = f->links->len, n = (local ? 0 : hops + 2) + s->to.n_dev;
    g_array_set_size(f->links, at + n);
    uint32_t *p = &g_array_index(f->links, uint32_t, at);
    if (!local) {
        p[0] = insee_flow_link_in(net, s->to.from);
        if (hops) /* a path within one router may come as NULL */
            memcpy(p + 1, ports, sizeof *ports * hops);
        p[hops + 1] = insee_flow_link_out(net, s->to.to);
        p += hops + 2;
    }
    memcpy(p, s->to.dev, sizeof *p * s->to.n_dev);
    if (!s->paths)
        s->first = f->paths->len;
    path_rec r = {at, n, share};
    g_array_append_val(f->paths, r);
    s->paths++;
}

/* A path routing's path of the finder's start. */
static void take_path(void *ctx, const uint32_t *ports, uint32_t hops, double share)
{
    finder *f = ctx;
    put_path(f, f->job, ports, hops, share);
}

/* The router walked for starts batch[0 .. n) together; when one fails,
   walked again one at a time to tell which: the first in order. */
static void walk_batch(finder *f, const uint32_t *batch, uint32_t n)
{
    start_job *jobs = (start_job *)f->d->starts->data;
    /* Zeroed: gcc -O1 cannot tell that n >= 1 fills what the walk reads. */
    uint32_t src[INSEE_FLOW_BATCH] = {0}, dst[INSEE_FLOW_BATCH] = {0}, salt[INSEE_FLOW_BATCH] = {0};
    for (uint32_t i = 0; i < n; i++) {
        src[i] = jobs[batch[i]].to.from;
        dst[i] = jobs[batch[i]].to.to;
        salt[i] = jobs[batch[i]].salt;
    }
    if (!insee_flow_walk(f->walker, n, src, dst, salt, &f->error)) {
        if (n == 1) {
            f->failed = batch[0];
            return;
        }
        g_clear_error(&f->error);
        for (uint32_t i = 0; i < n && !f->error; i++)
            walk_batch(f, &batch[i], 1);
        return;
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t hops;
        gboolean routable;
        const uint32_t *ports = insee_flow_walk_path(f->walker, i, &hops, &routable);
        if (routable)
            put_path(f, &jobs[batch[i]], ports, hops, 1.0);
    }
}

/* Worker `worker`'s starts [from, to): their paths into its finder, up to
   its first failure. */
static void find_paths(void *ctx, uint32_t worker, uint32_t from, uint32_t to)
{
    insee_flow_dynamic *d = ctx;
    finder *f = &d->finders[worker];
    start_job *jobs = (start_job *)d->starts->data;
    uint32_t batch[INSEE_FLOW_BATCH], n = 0;
    for (uint32_t j = from; j < to && !f->error; j++) {
        start_job *s = &jobs[j];
        s->finder = worker;
        s->paths = 0;
        if (s->to.from == s->to.to) { /* the local device */
            put_path(f, s, NULL, 0, 1);
        } else if (!f->walker) {
            uint32_t given;
            f->job = s;
            if (!insee_flow_paths_route(d->paths, s->to.from, s->to.to, s->salt, take_path, f,
                                        &given, &f->error))
                f->failed = j;
        } else if ((batch[n++] = j, n == INSEE_FLOW_BATCH)) {
            walk_batch(f, batch, n);
            n = 0;
        }
    }
    if (n && !f->error)
        walk_batch(f, batch, n);
}

static int compare_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The message's time alone in the network over its paths' links[0 .. n):
   every path at the rate of its most contended link, a link shared by k
   of the message's own paths giving each a k-th of its capacity. */
static double alone_time(const insee_flow_dynamic *d, const message *m, uint32_t *links,
                         uint32_t n)
{
    double per_path = G_MAXDOUBLE;
    if (m->left == 1 && d->one_capacity > 0)
        return (double)m->bytes / d->one_capacity; /* reads no link's */
    if (m->left == 1) { /* one path crosses each of its links once */
        for (uint32_t i = 0; i < n; i++)
            per_path = MIN(per_path, d->capacity[links[i]]);
        return (double)m->bytes / per_path;
    }
    qsort(links, n, sizeof *links, compare_u32);
    for (uint32_t i = 0, j; i < n; i = j) {
        for (j = i; j < n && links[j] == links[i]; j++)
            ;
        per_path = MIN(per_path, d->capacity[links[i]] / (double)(j - i));
    }
    return (double)m->bytes / (per_path * m->left);
}

/* A start's sub-flows into the share, one per path; without a path the
   message is unroutable, and not in flight after all. */
static void finish_start(insee_flow_dynamic *d, const start_job *s)
{
    message *m = msg_at(d, s->message);
    if (s->paths == 0) {
        d->rep->unroutable++;
        d->rep->bytes_sent -= m->bytes;
        d->app_live[m->app]--;
        d->outstanding[s->task]--;
        g_array_append_val(d->free_messages, s->message);
        return;
    }
    const finder *f = &d->finders[s->finder];
    const path_rec *p = &g_array_index(f->paths, path_rec, s->first);
    uint32_t *links = &g_array_index(f->links, uint32_t, p[0].at);
    for (uint32_t i = 0; i < s->paths; i++)
        add_sub(d, s->message, links + (p[i].at - p[0].at), p[i].n, p[i].share);
    d->rep->messages++;
    d->rep->subflows += s->paths;
    /* A start's paths lie one after the other. */
    m->alone = alone_time(d, m, links, p[s->paths - 1].at + p[s->paths - 1].n - p[0].at);
}

/* The queued starts' paths found, on the crew when there is one, then
   their sub-flows added in the order they started. A failure is the
   first in that order, the run's over anything that came after it. */
static void add_starts(insee_flow_dynamic *d)
{
    uint32_t n = d->starts->len;
    if (!n)
        return;
    for (uint32_t w = 0; w < d->threads; w++) {
        g_array_set_size(d->finders[w].links, 0);
        g_array_set_size(d->finders[w].paths, 0);
    }
    if (d->crew)
        insee_crew_run(d->crew, find_paths, d, n);
    else
        find_paths(d, 0, 0, n);
    GError *error = NULL;
    uint32_t failed = n;
    for (uint32_t w = 0; w < d->threads; w++) {
        finder *f = &d->finders[w];
        if (f->error && !error) { /* the workers' ranges are in order */
            error = f->error;
            failed = f->failed;
        } else if (f->error) {
            g_error_free(f->error);
        }
        f->error = NULL;
    }
    for (uint32_t j = 0; j < failed; j++)
        finish_start(d, &g_array_index(d->starts, start_job, j));
    g_array_set_size(d->starts, 0);
    if (error) {
        g_clear_error(&d->error);
        d->error = error;
    }
}

/* A message leaves its task's queue into the network: queued for its paths
   and counted in flight, or delivered at once between tasks of one node. A
   storage access goes between the task's node and the store's, or over the
   local device's links alone, or is served by the cache at once. */
static void start_message(insee_flow_dynamic *d, uint32_t task, uint32_t mid)
{
    message *m = msg_at(d, mid);
    const insee_flow_app *a = &d->s->apps[m->app];
    start_job s = {.message = mid, .task = task};
    s.to.from = d->s->task_node[task];
    s.to.to = d->s->task_node[a->first_task + m->msg.dst];
    m->start = d->now;
    if (d->storage && insee_storage_is_access(&m->msg, m->src_task, m->cls == INSEE_SHARE_IO))
        insee_storage_pick(d->storage, m->app, task, insee_storage_is_read(&m->msg), &s.to);
    if (s.to.from == s.to.to && s.to.n_dev == 0) {
        d->rep->self_messages++;
        g_queue_push_tail(&d->done, GUINT_TO_POINTER(mid));
        return;
    }
    s.salt = (uint32_t)insee_rng_u64(&d->salt_rng[task]);
    g_array_append_val(d->starts, s);
    d->outstanding[task]++;
    if (d->starts->len == MAX_STARTS)
        add_starts(d);
}

/* Start the task's pending messages while it may have more in flight; a
   task that was due meanwhile is asked again now. */
static void start_pending(insee_flow_dynamic *d, uint32_t task)
{
    uint32_t cap = d->o->max_outstanding;
    while (d->pend_head[task] != NO_MESSAGE && !d->error) {
        if (cap && d->outstanding[task] >= cap) {
            /* Its queued starts count as in flight: one may find no path. */
            if (!d->starts->len)
                break;
            add_starts(d);
            continue;
        }
        uint32_t m = d->pend_head[task];
        d->pend_head[task] = msg_at(d, m)->next;
        if (d->pend_head[task] == NO_MESSAGE)
            d->pend_tail[task] = NO_MESSAGE;
        start_message(d, task, m);
    }
    if (d->blocked[task] && d->pend_head[task] == NO_MESSAGE) {
        d->blocked[task] = FALSE;
        schedule(d, task, MAX(d->due[task], cycle_at(d, d->now)));
    }
}

/* A due task of a causal application: asked for a message unless its last
   one still waits to start (throttled, as the packet engine does). */
static void run_task(insee_flow_dynamic *d, uint32_t task, uint64_t at)
{
    const insee_flow_app *a = app_of(d, task);
    if (d->pend_head[task] != NO_MESSAGE) {
        d->blocked[task] = TRUE;
        d->due[task] = at; /* asked when its queue has drained */
        return;
    }
    insee_message msg = {0};
    uint64_t next = INSEE_NEVER;
    d->cycle_run = MAX(d->cycle_run, at);
    d->app_end[d->task_app[task]] = MAX(d->app_end[d->task_app[task]], d->now);
    if (a->traffic->emit(a->self, task - a->first_task, at, &d->task_rng[task], &msg, &next)) {
        if (msg.dst >= a->tasks) {
            g_set_error(&d->error, INSEE_FLOW_ERROR, INSEE_FLOW_ERROR_PLUGIN,
                        "traffic plugin '%s' gave task %u a message to task %u, but the "
                        "application has %u tasks",
                        a->plugin, task - a->first_task, msg.dst, a->tasks);
            return;
        }
        new_message(d, task, &msg);
    }
    if (next != INSEE_NEVER && next <= at) {
        g_set_error(&d->error, INSEE_FLOW_ERROR, INSEE_FLOW_ERROR_PLUGIN,
                    "traffic plugin '%s' set task %u's next cycle to %" G_GUINT64_FORMAT
                    ", not after the current one (%" G_GUINT64_FORMAT ")",
                    a->plugin, task - a->first_task, next, at);
        return;
    }
    /* A wake during emit() may have scheduled an earlier cycle. */
    if (next < d->due[task])
        schedule(d, task, next);
    start_pending(d, task);
}

/* An open-ended application's rounds, all pending at time 0. */
typedef struct round_ctx {
    insee_flow_dynamic *d;
    uint32_t task;
} round_ctx;

static void add_round_message(void *ctx, const insee_message *msg)
{
    round_ctx *r = ctx;
    const insee_flow_app *a = app_of(r->d, r->task);
    if (r->d->error)
        return;
    if (msg->dst >= a->tasks) {
        g_set_error(&r->d->error, INSEE_FLOW_ERROR, INSEE_FLOW_ERROR_PLUGIN,
                    "traffic plugin '%s' gave task %u a flow to task %u, but the "
                    "application "
                    "has %u tasks",
                    a->plugin, r->task - a->first_task, msg->dst, a->tasks);
        return;
    }
    new_message(r->d, r->task, msg);
}

/* Task t starts now: a causal one's first due cycle counts from the
   current one (0 at the run's start, a job's start later), an open-ended
   one's rounds are all pending. */
static void start_task(insee_flow_dynamic *d, uint32_t t)
{
    const insee_flow_app *a = app_of(d, t);
    uint32_t local = t - a->first_task;
    if (a->causal) {
        uint64_t at = a->traffic->start(a->self, local, &d->task_rng[t]);
        schedule(d, t, at == INSEE_NEVER ? at : cycle_at(d, d->now) + at);
        return;
    }
    round_ctx r = {d, t};
    for (uint32_t k = 0; k < d->s->rounds && !d->error; k++)
        a->traffic->round(a->self, local, &d->task_rng[t], add_round_message, &r);
    start_pending(d, t);
}

/* A job's tasks start when the scheduler starts it. */
static void start_tasks(insee_flow_dynamic *d)
{
    for (uint32_t t = 0; t < d->tasks && !d->error; t++)
        if (app_of(d, t)->job == INSEE_NONE)
            start_task(d, t);
}

void insee_flow_dynamic_start_app(insee_flow_dynamic *d, uint32_t app)
{
    const insee_flow_app *a = &d->s->apps[app];
    d->app_stop[app] = a->causal ? INFINITY : d->now + a->runtime;
    d->app_end[app] = d->now;
    g_array_append_val(d->running, app);
    d->jobs_started++;
    for (uint32_t t = a->first_task; t < a->first_task + a->tasks && !d->error; t++)
        start_task(d, t);
}

/* ---- flows ---- */

/* rate x time from `from` to `to` into spans of `span` seconds, the last
   span taking what rounding leaves past its end. */
static void spread(double *series, uint32_t spans, double span, double from, double to,
                   double rate)
{
    uint32_t b = MIN((uint32_t)(from / span), spans - 1);
    for (double t = from; t < to; b++) {
        double stop = b + 1 < spans ? MIN(to, (b + 1) * span) : to;
        series[b] += rate * MAX(0.0, stop - t);
        t = MAX(t, stop);
        if (b + 1 >= spans)
            break;
    }
}

/* Link l's bytes since it was last counted, into its spans. */
static void count_link(insee_flow_dynamic *d, uint32_t l)
{
    spread(d->lseries + (gsize)l * d->o->link_series, d->o->link_series, d->span, d->lsince[l],
           d->now, d->lrate[l]);
    d->lsince[l] = d->now;
}

/* Time has outgrown the spans: merge them pairwise until it fits. */
static void widen_spans(insee_flow_dynamic *d)
{
    uint32_t spans = d->o->link_series;
    while (d->lseries && d->now >= spans * d->span) {
        for (uint32_t l = 0; l < d->links; l++) {
            double *series = d->lseries + (gsize)l * spans;
            for (uint32_t b = 0; b < spans; b++)
                series[b] = 2 * b < spans ? series[2 * b] + (2 * b + 1 < spans ? series[2 * b + 1] : 0)
                                          : 0;
        }
        d->span *= 2;
    }
}

/* A sub-flow's rate on its links moved by `delta`. */
static void links_rate_moved(insee_flow_dynamic *d, uint32_t id, double delta)
{
    if (!d->lseries || delta == 0)
        return;
    uint32_t n;
    const uint32_t *links = insee_share_links(d->share, id, &n);
    for (uint32_t i = 0; i < n; i++) {
        count_link(d, links[i]);
        d->lrate[links[i]] += delta;
    }
}

/* The share moved a sub-flow's rate: bring its bytes up to now and
   predict its end again. */
static void rate_changed(void *ctx, uint32_t id, double rate)
{
    insee_flow_dynamic *d = ctx;
    sub *f = sub_at(d, id);
    f->left = MAX(0.0, f->left - f->rate * (d->now - f->since));
    f->since = d->now;
    d->total_rate += (rate - f->rate) * f->n_links;
    links_rate_moved(d, id, rate - f->rate);
    f->rate = rate;
    d->rep->rate_changes++;
    if (rate > 0) {
        double end = d->now + f->left / rate;
        memcpy(&f->end, &end, sizeof end);
        end_push(&d->ends, f->end, id);
    } else {
        f->end = 0;
    }
}

static void end_sub(insee_flow_dynamic *d, uint32_t id)
{
    sub *f = sub_at(d, id);
    uint32_t n;
    const uint32_t *links = insee_share_links(d->share, id, &n);
    for (uint32_t i = 0; i < n; i++) /* all at once: they lie far apart */
        __builtin_prefetch(&d->link_bytes[links[i]], 1);
    for (uint32_t i = 0; i < n; i++)
        d->link_bytes[links[i]] += f->bytes;
    d->total_rate -= f->rate * f->n_links;
    links_rate_moved(d, id, -f->rate);
    insee_share_remove(d->share, id);
    f->live = FALSE;
    message *m = msg_at(d, f->message);
    if (--m->left > 0)
        return;
    double fct = d->now - m->start;
    g_array_append_val(d->fct, fct);
    double slowdown = m->alone > 0 ? fct / m->alone : 1;
    g_array_append_val(d->slowdown, slowdown);
    uint32_t task = d->s->apps[m->app].first_task + m->src_task;
    d->outstanding[task]--;
    g_queue_push_tail(&d->done, GUINT_TO_POINTER(f->message));
}

/* Every delivery of the instant: the receiving application hears of it,
   its sender may start what waited. */
static void deliver_done(insee_flow_dynamic *d)
{
    while (!g_queue_is_empty(&d->done) && !d->error) {
        uint32_t mid = GPOINTER_TO_UINT(g_queue_pop_head(&d->done));
        message m = *msg_at(d, mid);
        g_array_append_val(d->free_messages, mid);
        const insee_flow_app *a = &d->s->apps[m.app];
        d->rep->bytes_delivered += m.bytes;
        d->app_end[m.app] = MAX(d->app_end[m.app], d->now);
        d->app_messages[m.app]++;
        d->app_live[m.app]--;
        if (a->traffic->delivered)
            a->traffic->delivered(a->self, m.src_task, &m.msg, cycle_at(d, d->now));
        start_pending(d, a->first_task + m.src_task);
    }
}

/* The earliest live predicted end, or G_MAXDOUBLE. */
static double next_end(insee_flow_dynamic *d)
{
    while (d->ends.len) {
        end_entry top = d->ends.v[0];
        sub *f = sub_at(d, top.sub);
        if (f->live && f->end == top.at) {
            double t;
            memcpy(&t, &top.at, sizeof t);
            return t;
        }
        end_pop(&d->ends);
    }
    return G_MAXDOUBLE;
}

static double next_due(insee_flow_dynamic *d)
{
    while (d->due_heap.len) {
        insee_due top = d->due_heap.v[0];
        if (d->due[top.task] == top.at && !d->blocked[top.task])
            return seconds(d, top.at);
        insee_heap_pop(&d->due_heap);
    }
    return G_MAXDOUBLE;
}

/* The running jobs that complete now: a causal one once its traffic has
   finished, an open-ended one once its runtime is over, and either once
   every message it sent is delivered. Then the scheduler's step at this
   instant. TRUE when a job completed or started: what it started runs at
   this instant too, and may complete at once. */
static gboolean jobs_step(insee_flow_dynamic *d)
{
    add_starts(d); /* a job's messages are live until found unroutable */
    if (d->error)
        return FALSE;
    gboolean changed = FALSE;
    for (guint i = 0; i < d->running->len;) {
        uint32_t a = g_array_index(d->running, uint32_t, i);
        const insee_flow_app *app = &d->s->apps[a];
        gboolean over = app->causal ? app->traffic->finished(app->self) : d->now >= d->app_stop[a];
        if (!over || d->app_live[a]) {
            i++;
            continue;
        }
        d->app_end[a] = d->now;
        insee_sched_done(d->s->sched, app->job, d->now);
        g_array_remove_index(d->running, i);
        changed = TRUE;
    }
    uint64_t started = d->jobs_started;
    GError *err = NULL;
    if (!insee_sched_step(d->s->sched, d->now, &err) && !d->error)
        d->error = err;
    else
        g_clear_error(&err);
    return !d->error && (changed || d->jobs_started != started);
}

/* The next time a job needs the engine: an arrival, or an open-ended
   job's runtime over; G_MAXDOUBLE when none. */
static double next_job_time(insee_flow_dynamic *d)
{
    if (!d->s->sched)
        return G_MAXDOUBLE;
    double t = insee_sched_next(d->s->sched);
    for (guint i = 0; i < d->running->len; i++) {
        uint32_t a = g_array_index(d->running, uint32_t, i);
        if (d->app_stop[a] > d->now)
            t = MIN(t, d->app_stop[a]);
    }
    return isinf(t) ? G_MAXDOUBLE : t;
}

/* Ask for what ending the k-th flow ahead will read, in stages, each
   once the one before has arrived: its sub-flow 8 ahead, its message and
   share record 4 ahead, its links 2 ahead. Ending flows lie far apart;
   an entry that turns out stale costs only its hint. */
static void prefetch_end(insee_flow_dynamic *d, guint k)
{
    const end_entry *v = (const end_entry *)d->ending->data;
    guint n = d->ending->len;
    if (k + 8 < n)
        __builtin_prefetch(sub_at(d, v[k + 8].sub));
    if (k + 4 < n) {
        __builtin_prefetch(msg_at(d, sub_at(d, v[k + 4].sub)->message));
        insee_share_prefetch(d->share, v[k + 4].sub);
    }
    if (k + 2 < n) {
        uint32_t links;
        __builtin_prefetch(insee_share_links(d->share, v[k + 2].sub, &links));
    }
}

/* Everything that happens at d->now. */
static void instant(insee_flow_dynamic *d)
{
    widen_spans(d);
    /* Ends within a billionth of now end now: flows that the fluid model
       ends together can differ in their last bits after progressive
       filling, and ending them one by one would refill the rates for each. */
    double horizon = d->now + d->now * 1e-9;
    uint64_t bits;
    memcpy(&bits, &horizon, sizeof bits);
    end_take_until(&d->ends, bits, d->ending);
    for (guint k = 0; k < d->ending->len; k++) {
        end_entry e = g_array_index(d->ending, end_entry, k);
        prefetch_end(d, k);
        const sub *f = sub_at(d, e.sub);
        if (f->live && f->end == e.at)
            end_sub(d, e.sub);
    }
    for (;;) {
        deliver_done(d);
        if (d->error)
            break;
        if (next_due(d) <= d->now) {
            insee_due due = insee_heap_pop(&d->due_heap);
            d->due[due.task] = INSEE_NEVER;
            run_task(d, due.task, due.at);
        } else if (!d->s->sched || !jobs_step(d)) {
            break;
        }
    }
    add_starts(d);
    insee_share_update(d->share, rate_changed, d);
    /* The total follows every rate change by a difference, so rounding can
       leave a hair below 0 once the network is idle: no link runs backwards. */
    series_point p = {d->now, MAX(0.0, d->total_rate)};
    g_array_append_val(d->series, p);
    d->rep->instants++;
}

/* ---- figures ---- */

/* Put the k-th smallest of x[0..n) at x[k], smaller ones before it and
   larger ones after (Hoare's selection, median of three): O(n), where a
   sort of a million completion times would cost more than the run's end. */
static void select_kth(double *x, guint n, guint k)
{
    guint lo = 0, hi = n - 1;
    while (lo < hi) {
        guint mid = lo + (hi - lo) / 2;
        double a = x[lo], b = x[mid], c = x[hi];
        double pivot = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
        guint i = lo, j = hi;
        while (i <= j) {
            while (x[i] < pivot)
                i++;
            while (x[j] > pivot)
                j--;
            if (i <= j) {
                double t = x[i];
                x[i] = x[j];
                x[j] = t;
                i++;
                if (j == 0)
                    break;
                j--;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return;
    }
}

/* Mean, median, 99th percentile (nearest rank) and maximum. */
static void distribution(GArray *v, double *mean, double *p50, double *p99, double *max)
{
    *mean = *p50 = *p99 = *max = 0;
    if (!v->len)
        return;
    double *x = (double *)v->data, sum = 0;
    for (guint i = 0; i < v->len; i++) {
        sum += x[i];
        *max = MAX(*max, x[i]);
    }
    *mean = sum / v->len;
    guint k99 = (guint)ceil(0.99 * v->len) - 1, k50 = (guint)ceil(0.50 * v->len) - 1;
    select_kth(x, v->len, k99);
    *p99 = x[k99];
    select_kth(x, k99 + 1, k50); /* the smaller ones are all before k99 */
    *p50 = x[k50];
}

typedef struct ranked {
    double util;
    uint32_t link;
} ranked;

static int busiest_first(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->util != y->util)
        return x->util < y->util ? 1 : -1;
    return (x->link > y->link) - (x->link < y->link);
}

static gboolean link_exists(const insee_net *net, uint32_t l)
{
    return l >= net->ports_total || net->peer_queue[l] != INSEE_NONE;
}

/* The k busiest of all[0 .. n) (in link order) moved to its front, in
   any order: sorting only them gives what sorting every link would, where
   a large network's links (2.1 M on a 64^3 torus) took longer to sort
   than a ping-pong's whole run. Links as busy as the k-th busiest come in
   link order, as the sort takes them. */
static void keep_busiest(ranked *all, uint32_t n, uint32_t k)
{
    if (k == 0 || k >= n)
        return;
    double *minus = g_new(double, n); /* the k-th smallest of these: the k-th busiest */
    for (uint32_t i = 0; i < n; i++)
        minus[i] = -all[i].util;
    select_kth(minus, n, k - 1);
    double least = -minus[k - 1];
    g_free(minus);
    uint32_t ties = k;
    for (uint32_t i = 0; i < n; i++)
        ties -= all[i].util > least;
    for (uint32_t i = 0, kept = 0; kept < k; i++)
        if (all[i].util > least || (all[i].util == least && ties && ties--))
            all[kept++] = all[i];
}

static void link_figures(insee_flow_dynamic *d)
{
    insee_flow_dyn_report *r = d->rep;
    const insee_net *net = d->s->net;
    ranked *all = g_new(ranked, d->links);
    uint32_t n = 0;
    double sum = 0, capacity = 0;
    for (uint32_t l = 0; l < d->links; l++) {
        if (!link_exists(net, l))
            continue;
        double u = r->makespan > 0 ? d->link_bytes[l] / (d->capacity[l] * r->makespan) : 0;
        all[n++] = (ranked){u, l};
        sum += u;
        capacity += d->capacity[l];
    }
    r->utilisation = n ? sum / n : 0;
    r->n_busiest = MIN(n, d->o->busiest);
    keep_busiest(all, n, r->n_busiest);
    qsort(all, r->n_busiest, sizeof *all, busiest_first);
    r->busiest_link = g_new(uint32_t, r->n_busiest);
    r->busiest_util = g_new(double, r->n_busiest);
    for (uint32_t i = 0; i < r->n_busiest; i++) {
        r->busiest_link[i] = all[i].link;
        r->busiest_util[i] = all[i].util;
    }
    g_free(all);
    /* The series: the piecewise-constant total rate integrated over equal
     spans of the makespan, as a fraction of every link's capacity. */
    r->n_series = r->makespan > 0 ? d->o->series : 0;
    r->series = g_new0(double, r->n_series);
    double span = r->makespan / (r->n_series ? r->n_series : 1);
    for (guint i = 0; i < d->series->len && r->n_series; i++) {
        const series_point *p = &g_array_index(d->series, series_point, i);
        double until =
            i + 1 < d->series->len ? g_array_index(d->series, series_point, i + 1).at : r->makespan;
        spread(r->series, r->n_series, span, p->at, until, p->rate);
    }
    for (uint32_t b = 0; b < r->n_series; b++)
        r->series[b] /= span * capacity;
    if (!d->lseries || r->makespan <= 0)
        return;
    /* The busiest links' own series, up to the span that holds the end. */
    d->now = r->makespan;
    widen_spans(d);
    r->n_link_series = MIN(d->o->link_series, (uint32_t)ceil(r->makespan / d->span));
    r->link_series_span = d->span;
    r->link_series = g_new(double, (gsize)r->n_busiest * r->n_link_series);
    for (uint32_t i = 0; i < r->n_busiest; i++) {
        uint32_t l = r->busiest_link[i];
        count_link(d, l);
        for (uint32_t b = 0; b < r->n_link_series; b++)
            r->link_series[(gsize)i * r->n_link_series + b] =
                d->lseries[(gsize)l * d->o->link_series + b] / (d->capacity[l] * d->span);
    }
}

/* A causal application that has not finished although nothing is left to
   happen: it waits for a message that never comes. */
static gboolean check_finished(insee_flow_dynamic *d, GError **err)
{
    for (uint32_t a = 0; a < d->s->n_apps; a++) {
        const insee_flow_app *app = &d->s->apps[a];
        if (!app->causal || !app->traffic->finished || app->traffic->finished(app->self))
            continue;
        char why[512] = "";
        if (!app->traffic->describe_wait ||
            !app->traffic->describe_wait(app->self, why, sizeof why))
            g_strlcpy(why, "it names no task", sizeof why);
        g_set_error(err, INSEE_FLOW_ERROR, INSEE_FLOW_ERROR_STUCK,
                    "traffic plugin '%s' has not finished at %.9g s, and nothing "
                    "is left to "
                    "happen (%" G_GUINT64_FORMAT " messages were unroutable): %s",
                    app->plugin, d->now, d->rep->unroutable, why);
        return FALSE;
    }
    return TRUE;
}

gboolean insee_flow_dynamic_run(insee_flow_dynamic *d, insee_flow_dyn_report *rep, GError **err)
{
    *rep = (insee_flow_dyn_report){.n_apps = d->s->n_apps};
    d->rep = rep;
    start_tasks(d);
    add_starts(d); /* as if each had started in turn, before any stop */
    while (!d->error) {
        if (d->o->stop && *d->o->stop) {
            rep->interrupted = TRUE;
            break;
        }
        instant(d);
        double t = MIN(MIN(next_end(d), next_due(d)), next_job_time(d));
        if (t == G_MAXDOUBLE)
            break;
        d->now = MAX(d->now, t);
    }
    if (d->error) {
        g_propagate_error(err, d->error);
        d->error = NULL;
        return FALSE;
    }
    if (!rep->interrupted && !check_finished(d, err))
        return FALSE;
    for (uint32_t a = 0; a < d->s->n_apps; a++)
        rep->makespan = MAX(rep->makespan, d->app_end[a]);
    rep->threads = d->threads;
    rep->shared_walks = d->crew ? insee_crew_shared(d->crew) : 0;
    rep->app_completion = g_memdup2(d->app_end, sizeof(double) * d->s->n_apps);
    rep->app_messages = g_memdup2(d->app_messages, sizeof(uint64_t) * d->s->n_apps);
    distribution(d->fct, &rep->fct_mean, &rep->fct_p50, &rep->fct_p99, &rep->fct_max);
    distribution(d->slowdown, &rep->slowdown_mean, &rep->slowdown_p50, &rep->slowdown_p99,
                 &rep->slowdown_max);
    link_figures(d);
    return TRUE;
}

void insee_flow_dyn_report_clear(insee_flow_dyn_report *rep)
{
    g_free(rep->app_completion);
    g_free(rep->app_messages);
    g_free(rep->busiest_link);
    g_free(rep->busiest_util);
    g_free(rep->series);
    g_free(rep->link_series);
    *rep = (insee_flow_dyn_report){0};
}
