/* kernel/flow/static.c — INRFlow's static engine (its §3.1, figures of §4):
 * every flow of the workload routed at once, each directed link's capacity
 * shared equally by the flows that cross it.
 *
 * Two passes over the same flows (the same streams give the same rounds and
 * salts): the first counts the flows on each link, the second gives each
 * flow the rate of its most loaded link for the non-restricted throughput.
 * The first pass keeps the paths it found (their ports, in blocks) while
 * they take less than a quarter of the memory available, and the second
 * reads them back instead of routing again; flows past that are routed
 * again, so memory stays bounded and the figures do not depend on it
 * (docs/flow.md §6). A router is walked a batch of flows at a time (walk.h).
 * A flow split over several paths (a multipath routing) counts its share on
 * each path's links, and each share runs at share / (its path's most loaded
 * link).
 *
 * Threads: the source tasks are cut into chunks of CHUNK_TASKS, whichever
 * thread is free takes the next, and each chunk keeps its own paths and its
 * own sum of the second pass; the chunks' sums are added in chunk order.
 * Loads are whole counts, added atomically when several threads run, so
 * every figure is the same for any number of threads. The traffic plugin
 * is asked one task at a time under a lock (it promises nothing about
 * threads); the router and topology are asked at once from several threads
 * only when both declare it (insee_flow_setup.concurrent), and a path
 * routing, whose tables are its own, runs on one. */
#include "flow/flow.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "flow/paths.h"
#include "flow/table.h"
#include "flow/walk.h"
#include "net/memory.h"

G_DEFINE_QUARK(insee-flow-error-quark, insee_flow_error)

/* The kept paths: per path a header word (its hops, and the flags below),
   the share as two words when it is not 1, then its global ports; a flow
   that got no path keeps one NO_PATH word. A path never straddles blocks. */
enum {
    HOPS_MASK = (1u << 28) - 1,
    NO_PATH = 1u << 29,
    MORE = 1u << 30, /* another path of the same flow follows */
    SHARE = 1u << 31,
    FIRST_BLOCK_WORDS = 1u << 16, /* a chunk's blocks double from this */
    BLOCK_WORDS = 1u << 20,       /* up to this */
    /* Source tasks per chunk, the unit of work a thread takes. Fixed, so
       that the sums made chunk by chunk, then over chunks in order, are the
       same for any number of threads. */
    CHUNK_TASKS = 1024,
};

/* One chunk's kept paths, in blocks. */
typedef struct store {
    GPtrArray *blocks; /* uint32_t[] */
    GArray *used;      /* uint32_t per block: its words */
    uint64_t flows;    /* flows kept, from the chunk's first */
    gboolean full;     /* a flow was not kept: none after it is */
    uint32_t *last;    /* the header of the flow's last path (first pass) */
    uint32_t last_cap; /* the last block's words */
    guint block;       /* reading (second pass) */
    uint32_t pos;
} store;

/* A range of one application's source tasks. */
typedef struct chunk {
    uint32_t app, first, end; /* its local tasks first .. end - 1 */
    store kept;
    double non_restricted;    /* second pass: its flows' sum */
    GError *error;            /* its first failure */
} chunk;

/* What the threads of a pass share. Chunks are taken in turn by whichever
   thread is free; everything a chunk adds to is either a whole count (the
   same in any order: link loads, atomically when several threads run) or
   the chunk's own. */
typedef struct run {
    const insee_flow_setup *s;
    /* Flows per link (plugged network ports, then node in, node out): whole
       flows counted in 32 bits, half the memory a double takes, which a
       run of millions of links reads at random. A port's count lies at
       port_load[gp * stride]: beside where the port leads in the walker's
       table (walk.h), the line a walked hop has just read; a path
       routing's in `count`, stride 1. The node links' follow at
       node_load[l - ports]. The shares of split flows (a path routing, one
       thread) are in `frac`, made when the first one comes. */
    uint32_t *count;
    uint32_t *port_load, *node_load;
    size_t stride;
    uint32_t ports;
    double *frac;
    size_t links;
    gboolean second;
    gboolean atomic;       /* several threads add to `count` */
    chunk *chunks;
    uint32_t n_chunks;
    gint next_chunk;       /* the next chunk to take */
    gint failed;           /* the first chunk that failed (G_MAXINT: none) */
    GMutex traffic;        /* traffic plugins are asked one task at a time */
    uint64_t kept_words;   /* words in the chunks' blocks, against cap_words */
    uint64_t cap_words;
} run;

/* A message of the task being generated. */
typedef struct gen_msg {
    uint32_t dst, salt;
} gen_msg;

/* One thread's pass over the chunks it takes. */
typedef struct pass {
    run *r;
    const insee_flow_setup *s;
    insee_flow_walker *walker;    /* the router's paths, walked in batches */
    insee_flow_paths *routing;    /* or the path routing's */
    store *kept;                  /* the store of the chunk being routed */
    const insee_flow_app *app;
    gen_msg *gen;                 /* the task's messages */
    uint32_t gen_len, gen_cap;
    gboolean bad;                 /* the task sent to a task the application lacks */
    uint32_t bad_dst;
    uint32_t src, dst;            /* a routing's flow: its nodes */
    uint32_t paths;               /* the paths the flow got so far */
    uint32_t messages;            /* messages waiting for their nodes: their tasks, salts */
    uint32_t m_src[INSEE_FLOW_BATCH], m_dst[INSEE_FLOW_BATCH], m_salt[INSEE_FLOW_BATCH];
    uint32_t batch;               /* flows waiting to be walked or read back */
    uint32_t b_src[INSEE_FLOW_BATCH], b_dst[INSEE_FLOW_BATCH], b_salt[INSEE_FLOW_BATCH];
    gboolean keeping;             /* the flow being routed is kept */
    uint64_t read_flows;          /* second pass: flows read back from `kept` */
    gboolean reading;             /* the batch holds kept flows, not flows to walk */
    insee_rng salt_rng;           /* the source task's salts */
    uint64_t flows, self_flows, unroutable; /* first pass, this thread's */
    GArray *hops_hist;            /* double, first pass */
    double hops_sum;
    double non_restricted;        /* second pass, the chunk's */
    GError *error;                /* the chunk's first failure; later messages are ignored */
} pass;

/* Room for `n` more words in the last block, a new block when it has not. */
static uint32_t *store_take(run *r, store *k, uint32_t n)
{
    uint32_t *used = k->used->len ? &g_array_index(k->used, uint32_t, k->used->len - 1) : NULL;
    if (!used || *used + n > k->last_cap) {
        /* Blocks double from FIRST_BLOCK_WORDS to BLOCK_WORDS, so that a
           small chunk keeps little; a longer path takes a block of its own. */
        k->last_cap = MAX(n, k->last_cap ? MIN(2 * k->last_cap, (uint32_t)BLOCK_WORDS)
                                         : (uint32_t)FIRST_BLOCK_WORDS);
        uint32_t zero = 0;
        g_ptr_array_add(k->blocks, g_new(uint32_t, k->last_cap));
        g_array_append_val(k->used, zero);
        used = &g_array_index(k->used, uint32_t, k->used->len - 1);
        __atomic_fetch_add(&r->kept_words, (uint64_t)k->last_cap, __ATOMIC_RELAXED);
    }
    uint32_t *w = (uint32_t *)g_ptr_array_index(k->blocks, k->blocks->len - 1) + *used;
    *used += n;
    return w;
}

/* The chunk's first pass is over: its last block shrinks to what it holds. */
static void store_trim(run *r, store *k)
{
    if (!k->used->len)
        return;
    uint32_t used = g_array_index(k->used, uint32_t, k->used->len - 1);
    gpointer *last = &g_ptr_array_index(k->blocks, k->blocks->len - 1);
    *last = g_realloc(*last, sizeof(uint32_t) * MAX(used, 1u));
    __atomic_fetch_sub(&r->kept_words, (uint64_t)(k->last_cap - used), __ATOMIC_RELAXED);
    k->last_cap = used;
}

/* The next `n` words of the second pass's reading. */
static const uint32_t *store_read(store *k, uint32_t n)
{
    if (n == 0)
        return NULL;
    if (k->pos == g_array_index(k->used, uint32_t, k->block)) {
        k->block++;
        k->pos = 0;
    }
    const uint32_t *w = (const uint32_t *)g_ptr_array_index(k->blocks, k->block) + k->pos;
    k->pos += n;
    return w;
}

static void keep_path(pass *p, gboolean first, const uint32_t *ports, uint32_t hops,
                      double share)
{
    store *k = p->kept;
    if (!first)
        *k->last |= MORE;
    gboolean whole = share == 1.0;
    uint32_t *w = store_take(p->r, k, 1 + (whole ? 0 : 2) + hops);
    k->last = w;
    *w++ = hops | (whole ? 0 : SHARE);
    if (!whole) {
        memcpy(w, &share, sizeof share);
        w += 2;
    }
    if (hops)
        memcpy(w, ports, sizeof *ports * hops);
}

/* Link l's count: a port's (l < ports) or a node link's. */
static uint32_t *port_cell(const run *r, uint32_t gp)
{
    return r->port_load + (size_t)gp * r->stride;
}

static uint32_t *load_cell(const run *r, uint32_t l)
{
    return l < r->ports ? port_cell(r, l) : r->node_load + (l - r->ports);
}

static double load_at(const run *r, uint32_t l)
{
    return (double)*load_cell(r, l) + (r->frac ? r->frac[l] : 0.0);
}

static double port_load_at(const run *r, uint32_t gp)
{
    return (double)*port_cell(r, gp) + (r->frac ? r->frac[gp] : 0.0);
}

/* One more whole flow on the link whose count is *cell. */
static void count_flow(const run *r, uint32_t *cell)
{
    if (r->atomic)
        __atomic_fetch_add(cell, 1u, __ATOMIC_RELAXED);
    else
        ++*cell;
}

/* One path of the flow from src to dst, carrying `share` of it. */
static void take_path(pass *p, uint32_t src, uint32_t dst, const uint32_t *ports,
                      uint32_t hops, double share)
{
    run *r = p->r;
    const insee_net *net = p->s->net;
    p->paths++;
    if (r->second) {
        double worst =
            MAX(load_at(r, insee_flow_link_in(net, src)), load_at(r, insee_flow_link_out(net, dst)));
        for (uint32_t i = 0; i < hops; i++)
            worst = MAX(worst, port_load_at(r, ports[i]));
        p->non_restricted += share / worst;
        return;
    }
    if (share == 1.0) {
        for (uint32_t i = 0; i < hops; i++)
            count_flow(r, port_cell(r, ports[i]));
    } else {
        g_assert(!r->atomic); /* a path routing's shares: one thread */
        if (!r->frac)
            r->frac = g_new0(double, r->links);
        for (uint32_t i = 0; i < hops; i++)
            r->frac[ports[i]] += share;
    }
    if (p->hops_hist->len <= hops)
        g_array_set_size(p->hops_hist, hops + 1);
    g_array_index(p->hops_hist, double, hops) += share;
    p->hops_sum += hops * share;
    if (p->keeping && hops <= HOPS_MASK)
        keep_path(p, p->paths == 1, ports, hops, share);
    else
        p->keeping = FALSE;
}

/* Ask for the load lines a path will touch: a batch asks for all of them
   before taking any, so the misses overlap. */
static void prefetch_loads(const pass *p, uint32_t src, uint32_t dst, const uint32_t *ports,
                           uint32_t hops)
{
    const insee_net *net = p->s->net;
    __builtin_prefetch(load_cell(p->r, insee_flow_link_in(net, src)));
    __builtin_prefetch(load_cell(p->r, insee_flow_link_out(net, dst)));
    for (uint32_t i = 0; i < hops; i++)
        __builtin_prefetch(port_cell(p->r, ports[i]));
}

/* Before a flow's paths: whether the first pass keeps them. */
static void begin_flow(pass *p)
{
    run *r = p->r;
    p->paths = 0;
    p->keeping = !r->second && !p->kept->full &&
                 __atomic_load_n(&r->kept_words, __ATOMIC_RELAXED) < r->cap_words;
}

/* After a flow's paths (first pass): its node links, or unroutable. A flow
   not kept whole ends the chunk's keeping: the kept flows are its first. */
static void end_flow(pass *p, uint32_t src, uint32_t dst)
{
    run *r = p->r;
    if (r->second)
        return;
    const insee_net *net = p->s->net;
    if (p->paths == 0) {
        p->unroutable++;
        if (p->keeping)
            *store_take(r, p->kept, 1) = NO_PATH;
    } else {
        count_flow(r, load_cell(r, insee_flow_link_in(net, src)));
        count_flow(r, load_cell(r, insee_flow_link_out(net, dst)));
        p->flows++;
    }
    if (p->keeping)
        p->kept->flows++;
    else
        p->kept->full = TRUE;
}

/* Second pass: a kept flow's paths read back, taken or (`ask`) only their
   load lines asked for. */
static void read_flow(pass *p, uint32_t src, uint32_t dst, gboolean ask)
{
    uint32_t head;
    do {
        head = *store_read(p->kept, 1);
        if (head & NO_PATH)
            return;
        double share = 1.0;
        if (head & SHARE)
            memcpy(&share, store_read(p->kept, 2), sizeof share);
        uint32_t hops = head & HOPS_MASK;
        const uint32_t *ports = store_read(p->kept, hops);
        if (ask)
            prefetch_loads(p, src, dst, ports, hops);
        else
            take_path(p, src, dst, ports, hops, share);
    } while (head & MORE);
}

/* The kept flows waiting in the batch: read twice, once to ask for their
   load lines, once to take them in order. */
static void read_batch(pass *p)
{
    uint32_t n = p->batch;
    p->batch = 0;
    guint block = p->kept->block;
    uint32_t pos = p->kept->pos;
    for (uint32_t i = 0; i < n; i++)
        read_flow(p, p->b_src[i], p->b_dst[i], TRUE);
    p->kept->block = block;
    p->kept->pos = pos;
    for (uint32_t i = 0; i < n; i++)
        read_flow(p, p->b_src[i], p->b_dst[i], FALSE);
}

/* One path of the flow being routed by the path routing. */
static void take_routed_path(void *ctx, const uint32_t *ports, uint32_t hops, double share)
{
    pass *p = ctx;
    take_path(p, p->src, p->dst, ports, hops, share);
}

/* A flow by the path routing (one call, its paths handed back at once). */
static void route_flow(pass *p, uint32_t salt)
{
    uint32_t paths;
    begin_flow(p);
    if (insee_flow_paths_route(p->routing, p->src, p->dst, salt, take_routed_path, p, &paths,
                               &p->error))
        end_flow(p, p->src, p->dst);
}

/* The flows waiting for the walker, walked and taken in order. */
static void walk_batch(pass *p)
{
    uint32_t n = p->batch;
    p->batch = 0;
    if (n == 0 || p->error || !insee_flow_walk(p->walker, n, p->b_src, p->b_dst, p->b_salt,
                                               &p->error))
        return;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t hops;
        gboolean routable;
        const uint32_t *ports = insee_flow_walk_path(p->walker, i, &hops, &routable);
        prefetch_loads(p, p->b_src[i], p->b_dst[i], ports, hops);
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t hops;
        gboolean routable;
        const uint32_t *ports = insee_flow_walk_path(p->walker, i, &hops, &routable);
        begin_flow(p);
        if (routable)
            take_path(p, p->b_src[i], p->b_dst[i], ports, hops, 1.0);
        end_flow(p, p->b_src[i], p->b_dst[i]);
    }
}

/* One flow between different nodes, to the batch it belongs to. */
static void route_message(pass *p, uint32_t src, uint32_t dst, uint32_t salt)
{
    gboolean kept = p->r->second && p->read_flows < p->kept->flows;
    if (p->reading && !kept) { /* the first flow not kept: the kept ones first */
        read_batch(p);
        p->reading = FALSE;
    }
    if (kept) {
        p->reading = TRUE;
        p->read_flows++;
        p->b_src[p->batch] = src;
        p->b_dst[p->batch] = dst;
        if (++p->batch == INSEE_FLOW_BATCH)
            read_batch(p);
    } else if (p->s->routing) {
        p->src = src;
        p->dst = dst;
        route_flow(p, salt);
    } else {
        p->b_src[p->batch] = src;
        p->b_dst[p->batch] = dst;
        p->b_salt[p->batch] = salt;
        if (++p->batch == INSEE_FLOW_BATCH)
            walk_batch(p);
    }
}

/* The messages waiting, in order: their tasks' nodes looked up (asked for
   first: a destination task's entry is a miss on a large run), self-flows
   counted apart, the others routed. */
static void route_messages(pass *p)
{
    const uint32_t *task_node = p->s->task_node;
    const uint32_t *node_router = p->s->net->node_router;
    uint32_t n = p->messages;
    p->messages = 0;
    for (uint32_t i = 0; i < n; i++)
        __builtin_prefetch(&task_node[p->m_dst[i]]);
    for (uint32_t i = 0; i < n; i++) {
        p->m_src[i] = task_node[p->m_src[i]];
        p->m_dst[i] = task_node[p->m_dst[i]];
        __builtin_prefetch(&node_router[p->m_dst[i]]);
    }
    for (uint32_t i = 0; i < n && !p->error; i++) {
        if (p->m_src[i] == p->m_dst[i])
            p->self_flows += !p->r->second;
        else
            route_message(p, p->m_src[i], p->m_dst[i], p->m_salt[i]);
    }
}

/* Every flow waiting, routed and taken. */
static void finish_messages(pass *p)
{
    route_messages(p);
    if (p->reading)
        read_batch(p);
    else
        walk_batch(p);
    p->reading = FALSE;
}

/* A message of the task being generated, kept with its salt until the
   traffic plugin is left to the other threads. */
static void add_flow(void *ctx, const insee_message *msg)
{
    pass *p = ctx;
    if (p->bad)
        return;
    if (msg->dst >= p->app->tasks) {
        p->bad = TRUE;
        p->bad_dst = msg->dst;
        return;
    }
    if (p->gen_len == p->gen_cap) {
        p->gen_cap = p->gen_cap ? 2 * p->gen_cap : 256;
        p->gen = g_renew(gen_msg, p->gen, p->gen_cap);
    }
    p->gen[p->gen_len++] = (gen_msg){.dst = p->app->first_task + msg->dst,
                                     .salt = (uint32_t)insee_rng_u64(&p->salt_rng)};
}

/* Local task t's `rounds` rounds, from its own streams (the same messages
   in both passes), asked of the traffic plugin alone, then routed. */
static void route_task(pass *p, uint32_t t)
{
    run *r = p->r;
    const insee_flow_app *app = p->app;
    uint32_t task = app->first_task + t;
    insee_rng rng;
    insee_rng_init(&rng, p->s->seed, (4ull << 40) + task);
    insee_rng_init(&p->salt_rng, p->s->seed, (7ull << 40) + 1 + task);
    p->gen_len = 0;
    p->bad = FALSE;
    if (r->atomic)
        g_mutex_lock(&r->traffic);
    for (uint32_t k = 0; k < p->s->rounds && !p->bad; k++)
        app->traffic->round(app->self, t, &rng, add_flow, p);
    if (r->atomic)
        g_mutex_unlock(&r->traffic);
    for (uint32_t i = 0; i < p->gen_len && !p->error; i++) {
        uint32_t m = p->messages++;
        p->m_src[m] = task;
        p->m_dst[m] = p->gen[i].dst;
        p->m_salt[m] = p->gen[i].salt;
        if (p->messages == INSEE_FLOW_BATCH)
            route_messages(p);
    }
    if (p->bad) {
        finish_messages(p); /* an earlier flow's failure comes first */
        if (!p->error)
            g_set_error(&p->error, INSEE_FLOW_ERROR, INSEE_FLOW_ERROR_PLUGIN,
                        "traffic plugin '%s' gave task %u a flow to task %u, but the "
                        "application has %u tasks", app->plugin, t, p->bad_dst, app->tasks);
    }
}

/* Every source task of the chunk, in order. */
static void route_chunk(pass *p, chunk *c)
{
    p->kept = &c->kept;
    p->kept->block = 0;
    p->kept->pos = 0;
    p->read_flows = 0;
    p->non_restricted = 0;
    p->app = &p->s->apps[c->app];
    for (uint32_t t = c->first; t < c->end && !p->error; t++)
        route_task(p, t);
    if (!p->error)
        finish_messages(p);
    p->messages = p->batch = 0; /* what a failure left waiting */
    p->reading = FALSE;
    if (p->r->second)
        c->non_restricted = p->non_restricted;
    else
        store_trim(p->r, p->kept);
}

/* A thread's pass: chunks taken in turn until none is left. Once a chunk
   has failed, the ones after it are skipped (the first failure is the
   run's); the ones before it still run, as one of them may fail first. */
static gpointer work(gpointer data)
{
    pass *p = data;
    run *r = p->r;
    for (;;) {
        gint c = g_atomic_int_add(&r->next_chunk, 1);
        if (c >= (gint)r->n_chunks)
            break;
        if (c > g_atomic_int_get(&r->failed))
            continue;
        route_chunk(p, &r->chunks[c]);
        if (!p->error)
            continue;
        r->chunks[c].error = p->error;
        p->error = NULL;
        gint was = g_atomic_int_get(&r->failed);
        while (c < was && !g_atomic_int_compare_and_exchange(&r->failed, was, c))
            was = g_atomic_int_get(&r->failed);
    }
    return NULL;
}

/* One pass over every chunk on `n` threads (the caller's among them). */
static gboolean run_pass(run *r, pass *passes, uint32_t n, GError **err)
{
    r->next_chunk = 0;
    r->failed = G_MAXINT;
    GThread **threads = g_new0(GThread *, n);
    for (uint32_t i = 1; i < n; i++)
        threads[i] = g_thread_new("insee-static", work, &passes[i]);
    work(&passes[0]);
    for (uint32_t i = 1; i < n; i++)
        g_thread_join(threads[i]);
    g_free(threads);
    if (r->failed == G_MAXINT)
        return TRUE;
    g_propagate_error(err, r->chunks[r->failed].error);
    r->chunks[r->failed].error = NULL;
    return FALSE;
}

/* The chunks: every application's tasks, CHUNK_TASKS at a time. */
static chunk *make_chunks(const insee_flow_setup *s, uint32_t *n)
{
    GArray *a = g_array_new(FALSE, TRUE, sizeof(chunk));
    for (uint32_t app = 0; app < s->n_apps; app++)
        for (uint32_t t = 0; t < s->apps[app].tasks; t += CHUNK_TASKS) {
            chunk c = {.app = app, .first = t, .end = MIN(s->apps[app].tasks, t + CHUNK_TASKS),
                       .kept = {.blocks = g_ptr_array_new_with_free_func(g_free),
                                .used = g_array_new(FALSE, FALSE, sizeof(uint32_t))}};
            g_array_append_val(a, c);
        }
    *n = a->len;
    return (chunk *)g_array_free(a, FALSE);
}

static void free_chunks(chunk *chunks, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        g_ptr_array_unref(chunks[i].kept.blocks);
        g_array_unref(chunks[i].kept.used);
        g_clear_error(&chunks[i].error);
    }
    g_free(chunks);
}

static gboolean link_counted(const insee_net *net, uint32_t l)
{
    return l >= net->ports_total || net->peer_queue[l] != INSEE_NONE;
}

static int compare_loads(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The load of rank `i` (from 0) among whole-number loads, by the histogram. */
static double hist_rank(const uint64_t *hist, uint64_t i)
{
    uint64_t k = 0;
    for (uint64_t below = hist[0]; below <= i; below += hist[++k])
        ;
    return (double)k;
}

/* Flows per link: min, max, mean, std; the histogram by whole flows; the
   median from the histogram when every load is a whole number (flows not
   split), else from the sorted loads. */
static void link_figures(const run *r, insee_flow_report *rep)
{
    const insee_net *net = r->s->net;
    uint32_t n = insee_flow_links(net);
    double sum = 0, sq = 0, lo = INFINITY, hi = 0;
    gboolean whole = TRUE;
    for (uint32_t l = 0; l < n; l++) {
        if (!link_counted(net, l))
            continue;
        double load = load_at(r, l);
        rep->links++;
        sum += load;
        sq += load * load;
        lo = MIN(lo, load);
        hi = MAX(hi, load);
        whole = whole && load == floor(load);
    }
    rep->load_min = lo;
    rep->load_max = hi;
    rep->load_mean = sum / (double)rep->links;
    double var = sq / (double)rep->links - rep->load_mean * rep->load_mean;
    rep->load_std = var > 0 ? sqrt(var) : 0;
    rep->load_hist = g_new0(uint64_t, (gsize)rep->load_max + 1);
    for (uint32_t l = 0; l < n; l++)
        if (link_counted(net, l))
            rep->load_hist[(gsize)load_at(r, l)]++;
    if (whole) {
        rep->load_median = (hist_rank(rep->load_hist, (rep->links - 1) / 2) +
                            hist_rank(rep->load_hist, rep->links / 2)) / 2;
    } else {
        double *sorted = g_new(double, rep->links);
        uint64_t i = 0;
        for (uint32_t l = 0; l < n; l++)
            if (link_counted(net, l))
                sorted[i++] = load_at(r, l);
        qsort(sorted, rep->links, sizeof *sorted, compare_loads);
        rep->load_median = (sorted[(rep->links - 1) / 2] + sorted[rep->links / 2]) / 2;
        g_free(sorted);
    }
    rep->ports = rep->links - net->nodes; /* each node's two links meet one router port */
}

/* The passes' own figures added up in thread order: whole counts, and
   hop sums of whole flows (or of one thread's shares), so the same for
   any number of threads. */
static gboolean merge_first(const pass *passes, uint32_t n, insee_flow_report *rep,
                            GArray *hops_hist, double *hops_sum, GError **err)
{
    for (uint32_t i = 0; i < n; i++) {
        const pass *p = &passes[i];
        rep->flows += p->flows;
        rep->self_flows += p->self_flows;
        rep->unroutable += p->unroutable;
        *hops_sum += p->hops_sum;
        if (hops_hist->len < p->hops_hist->len)
            g_array_set_size(hops_hist, p->hops_hist->len);
        for (guint h = 0; h < p->hops_hist->len; h++)
            g_array_index(hops_hist, double, h) += g_array_index(p->hops_hist, double, h);
    }
    if (rep->flows <= UINT32_MAX)
        return TRUE;
    /* A link's count could have passed 32 bits. */
    g_set_error(err, INSEE_FLOW_ERROR, INSEE_FLOW_ERROR_LIMIT,
                "more than %u flows: the static engine counts a link's flows in 32 bits; use "
                "fewer [flow] rounds", UINT32_MAX);
    return FALSE;
}

/* The threads' passes, each with its own walker beside the first (or the
   one path routing): FALSE with `err` set when one cannot be made. */
static gboolean make_passes(run *r, pass *passes, uint32_t n, GError **err)
{
    const insee_flow_setup *s = r->s;
    for (uint32_t i = 0; i < n; i++) {
        passes[i] = (pass){.r = r, .s = s,
                           .hops_hist = g_array_new(FALSE, TRUE, sizeof(double))};
        if (s->routing)
            passes[i].routing = insee_flow_paths_new(s, err);
        else if (i == 0)
            passes[i].walker = insee_flow_walker_new(s, err);
        else
            passes[i].walker = insee_flow_walker_new_beside(passes[0].walker, err);
        if (!passes[i].routing && !passes[i].walker)
            return FALSE;
    }
    return TRUE;
}

static void free_passes(pass *passes, uint32_t n)
{
    for (uint32_t i = n; i-- > 0;) { /* the first walker last: the others read its table */
        insee_flow_walker_free(passes[i].walker);
        insee_flow_paths_free(passes[i].routing);
        g_free(passes[i].gen);
        if (passes[i].hops_hist)
            g_array_unref(passes[i].hops_hist);
    }
    g_free(passes);
}

gboolean insee_flow_static_run(const insee_flow_setup *setup, insee_flow_report *rep,
                               GError **err)
{
    for (uint32_t a = 0; a < setup->n_apps; a++) {
        if (!setup->apps[a].traffic->round) {
            g_set_error(err, INSEE_FLOW_ERROR, INSEE_FLOW_ERROR_UNSUPPORTED,
                        "traffic plugin '%s' cannot give its messages as flows (it has no "
                        "round() entry, ABI 1.7), so engine = \"static\" cannot run it; use "
                        "a pattern that has one (docs/flow.md lists them) or the packet engine",
                        setup->apps[a].plugin);
            return FALSE;
        }
    }
    const insee_net *net = setup->net;
    *rep = (insee_flow_report){0};
    const char *limit;
    size_t links = (size_t)net->ports_total + 2 * (size_t)net->nodes;
    /* A walker keeps the ports' counts; a path routing's are here too. */
    size_t count_bytes = sizeof(uint32_t) * (setup->routing ? links : links - net->ports_total);
    run r = {.s = setup, .links = links, .count = insee_flow_table_new0(count_bytes),
             .ports = net->ports_total,
             .cap_words = (setup->keep_bytes ? setup->keep_bytes
                                             : insee_memory_available(&limit) / 4) /
                          sizeof(uint32_t)};
    r.chunks = make_chunks(setup, &r.n_chunks);
    uint32_t threads = MAX(1u, MIN(insee_flow_threads(setup), r.n_chunks));
    r.atomic = threads > 1;
    rep->threads = threads;
    g_mutex_init(&r.traffic);
    pass *passes = g_new0(pass, threads);
    gboolean ok = FALSE;
    GArray *hops_hist = g_array_new(FALSE, TRUE, sizeof(double));
    double hops_sum = 0;
    if (!r.count)
        g_set_error(err, INSEE_FLOW_ERROR, INSEE_FLOW_ERROR_LIMIT,
                    "out of memory for the loads of %u ports and %u nodes' links; use a "
                    "smaller topology", net->ports_total, net->nodes);
    else
        ok = make_passes(&r, passes, threads, err);
    if (ok && setup->routing) {
        r.port_load = r.count;
        r.node_load = r.count + net->ports_total;
        r.stride = 1;
    } else if (ok) {
        r.port_load = insee_flow_walker_loads(passes[0].walker, &r.stride);
        r.node_load = r.count;
    }
    ok = ok && run_pass(&r, passes, threads, err) &&
         merge_first(passes, threads, rep, hops_hist, &hops_sum, err);
    if (ok) {
        link_figures(&r, rep);
        rep->hops_mean = rep->flows ? hops_sum / (double)rep->flows : 0;
        rep->hops_max = hops_hist->len ? hops_hist->len - 1 : 0;
        rep->hops_hist = (double *)g_array_steal(hops_hist, NULL);
        rep->restricted = rep->load_max > 0 ? (double)rep->flows / rep->load_max : 0;
        r.second = TRUE;
        ok = run_pass(&r, passes, threads, err);
        for (uint32_t c = 0; c < r.n_chunks; c++) /* in order: the same sum for any threads */
            rep->non_restricted += r.chunks[c].non_restricted;
    }
    free_passes(passes, threads);
    g_array_unref(hops_hist);
    free_chunks(r.chunks, r.n_chunks);
    g_mutex_clear(&r.traffic);
    insee_flow_table_free(r.count, count_bytes);
    g_free(r.frac);
    return ok;
}

void insee_flow_report_clear(insee_flow_report *rep)
{
    g_free(rep->load_hist);
    g_free(rep->hops_hist);
    *rep = (insee_flow_report){0};
}
