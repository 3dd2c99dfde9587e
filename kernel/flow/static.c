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
 * link). */
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
    BLOCK_WORDS = 1u << 20,
};

typedef struct store {
    GPtrArray *blocks; /* uint32_t[] */
    GArray *used;      /* uint32_t per block: its words */
    uint64_t words, cap_words;
    uint64_t flows;    /* flows kept, from the first */
    gboolean full;     /* a flow was not kept: none after it is */
    uint32_t *last;    /* the header of the flow's last path (first pass) */
    guint block;       /* reading (second pass) */
    uint32_t pos;
} store;

/* What a pass needs while round() hands it messages. */
typedef struct pass {
    const insee_flow_setup *s;
    insee_flow_walker *walker;    /* the router's paths, walked in batches */
    insee_flow_paths *routing;    /* or the path routing's */
    gboolean second;
    /* Flows per link (plugged network ports, then node in, node out): whole
       flows counted in 32 bits, half the memory a double takes, which a
       run of millions of links reads at random; the shares of split flows
       in `frac`, made when the first one comes. */
    uint32_t *count;
    double *frac;
    size_t links;
    const insee_flow_app *app;
    uint32_t src_task;        /* the application's own task number */
    uint32_t src, dst;        /* a routing's flow: its nodes */
    uint32_t paths;           /* the paths the flow got so far */
    uint32_t messages;        /* messages waiting for their nodes: their tasks, salts */
    uint32_t m_src[INSEE_FLOW_BATCH], m_dst[INSEE_FLOW_BATCH], m_salt[INSEE_FLOW_BATCH];
    uint32_t batch;           /* flows waiting to be walked or read back */
    uint32_t b_src[INSEE_FLOW_BATCH], b_dst[INSEE_FLOW_BATCH], b_salt[INSEE_FLOW_BATCH];
    store kept;
    gboolean keeping;         /* the flow being routed is kept */
    uint64_t read_flows;      /* second pass: flows read back from `kept` */
    gboolean reading;         /* the batch holds kept flows, not flows to walk */
    insee_rng salt_rng;       /* the source task's salts */
    insee_flow_report *rep;
    GArray *hops_hist;        /* double, first pass */
    double hops_sum;
    double non_restricted;    /* second pass */
    GError *error;            /* the first failure; later messages are ignored */
} pass;

/* Room for `n` more words in the last block, a new block when it has not. */
static uint32_t *store_take(store *k, uint32_t n)
{
    uint32_t *used = k->used->len ? &g_array_index(k->used, uint32_t, k->used->len - 1) : NULL;
    if (!used || *used + n > BLOCK_WORDS) { /* a longer path takes a block of its own */
        uint32_t zero = 0;
        g_ptr_array_add(k->blocks, g_new(uint32_t, MAX(n, BLOCK_WORDS)));
        g_array_append_val(k->used, zero);
        used = &g_array_index(k->used, uint32_t, k->used->len - 1);
    }
    uint32_t *w = (uint32_t *)g_ptr_array_index(k->blocks, k->blocks->len - 1) + *used;
    *used += n;
    k->words += n;
    return w;
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

static void keep_path(store *k, gboolean first, const uint32_t *ports, uint32_t hops,
                      double share)
{
    if (!first)
        *k->last |= MORE;
    gboolean whole = share == 1.0;
    uint32_t *w = store_take(k, 1 + (whole ? 0 : 2) + hops);
    k->last = w;
    *w++ = hops | (whole ? 0 : SHARE);
    if (!whole) {
        memcpy(w, &share, sizeof share);
        w += 2;
    }
    if (hops)
        memcpy(w, ports, sizeof *ports * hops);
}

static double load_at(const pass *p, uint32_t l)
{
    return (double)p->count[l] + (p->frac ? p->frac[l] : 0.0);
}

/* One path of the flow from src to dst, carrying `share` of it. */
static void take_path(pass *p, uint32_t src, uint32_t dst, const uint32_t *ports,
                      uint32_t hops, double share)
{
    const insee_net *net = p->s->net;
    p->paths++;
    if (p->second) {
        double worst =
            MAX(load_at(p, insee_flow_link_in(net, src)), load_at(p, insee_flow_link_out(net, dst)));
        for (uint32_t i = 0; i < hops; i++)
            worst = MAX(worst, load_at(p, ports[i]));
        p->non_restricted += share / worst;
        return;
    }
    if (share == 1.0) {
        for (uint32_t i = 0; i < hops; i++)
            p->count[ports[i]]++;
    } else {
        if (!p->frac)
            p->frac = g_new0(double, p->links);
        for (uint32_t i = 0; i < hops; i++)
            p->frac[ports[i]] += share;
    }
    if (p->hops_hist->len <= hops)
        g_array_set_size(p->hops_hist, hops + 1);
    g_array_index(p->hops_hist, double, hops) += share;
    p->hops_sum += hops * share;
    if (p->keeping && hops <= HOPS_MASK)
        keep_path(&p->kept, p->paths == 1, ports, hops, share);
    else
        p->keeping = FALSE;
}

/* Ask for the load lines a path will touch: a batch asks for all of them
   before taking any, so the misses overlap. */
static void prefetch_loads(const pass *p, uint32_t src, uint32_t dst, const uint32_t *ports,
                           uint32_t hops)
{
    const insee_net *net = p->s->net;
    __builtin_prefetch(&p->count[insee_flow_link_in(net, src)]);
    __builtin_prefetch(&p->count[insee_flow_link_out(net, dst)]);
    for (uint32_t i = 0; i < hops; i++)
        __builtin_prefetch(&p->count[ports[i]]);
}

/* Before a flow's paths: whether the first pass keeps them. */
static void begin_flow(pass *p)
{
    p->paths = 0;
    p->keeping = !p->second && !p->kept.full && p->kept.words < p->kept.cap_words;
}

/* After a flow's paths (first pass): its node links, or unroutable. A flow
   not kept whole ends the keeping: the kept flows are the first ones. */
static void end_flow(pass *p, uint32_t src, uint32_t dst)
{
    if (p->second)
        return;
    const insee_net *net = p->s->net;
    if (p->paths == 0) {
        p->rep->unroutable++;
        if (p->keeping)
            *store_take(&p->kept, 1) = NO_PATH;
    } else if (p->rep->flows == UINT32_MAX && !p->error) {
        /* A link's count could pass 32 bits beyond this. */
        g_set_error(&p->error, INSEE_FLOW_ERROR, INSEE_FLOW_ERROR_LIMIT,
                    "more than %u flows: the static engine counts a link's flows in 32 bits; "
                    "use fewer [flow] rounds", UINT32_MAX);
    } else {
        p->count[insee_flow_link_in(net, src)]++;
        p->count[insee_flow_link_out(net, dst)]++;
        p->rep->flows++;
    }
    if (p->keeping)
        p->kept.flows++;
    else
        p->kept.full = TRUE;
}

/* Second pass: a kept flow's paths read back, taken or (`ask`) only their
   load lines asked for. */
static void read_flow(pass *p, uint32_t src, uint32_t dst, gboolean ask)
{
    uint32_t head;
    do {
        head = *store_read(&p->kept, 1);
        if (head & NO_PATH)
            return;
        double share = 1.0;
        if (head & SHARE)
            memcpy(&share, store_read(&p->kept, 2), sizeof share);
        uint32_t hops = head & HOPS_MASK;
        const uint32_t *ports = store_read(&p->kept, hops);
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
    guint block = p->kept.block;
    uint32_t pos = p->kept.pos;
    for (uint32_t i = 0; i < n; i++)
        read_flow(p, p->b_src[i], p->b_dst[i], TRUE);
    p->kept.block = block;
    p->kept.pos = pos;
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
    gboolean kept = p->second && p->read_flows < p->kept.flows;
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
            p->rep->self_flows += !p->second;
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
}

static void add_flow(void *ctx, const insee_message *msg)
{
    pass *p = ctx;
    if (p->error)
        return;
    const insee_flow_app *app = p->app;
    if (msg->dst >= app->tasks) {
        finish_messages(p); /* an earlier flow's failure comes first */
        if (!p->error)
            g_set_error(&p->error, INSEE_FLOW_ERROR, INSEE_FLOW_ERROR_PLUGIN,
                        "traffic plugin '%s' gave task %u a flow to task %u, but the "
                        "application has %u tasks", app->plugin, p->src_task, msg->dst,
                        app->tasks);
        return;
    }
    uint32_t i = p->messages++;
    p->m_src[i] = app->first_task + p->src_task;
    p->m_dst[i] = app->first_task + msg->dst;
    p->m_salt[i] = (uint32_t)insee_rng_u64(&p->salt_rng);
    if (p->messages == INSEE_FLOW_BATCH)
        route_messages(p);
}

/* Every task of every application, `rounds` rounds each, from its own
   streams: the same messages in both passes. */
static gboolean run_pass(pass *p, GError **err)
{
    const insee_flow_setup *s = p->s;
    for (uint32_t a = 0; a < s->n_apps && !p->error; a++) {
        p->app = &s->apps[a];
        for (uint32_t t = 0; t < p->app->tasks && !p->error; t++) {
            uint32_t task = p->app->first_task + t;
            insee_rng rng;
            insee_rng_init(&rng, s->seed, (4ull << 40) + task);
            insee_rng_init(&p->salt_rng, s->seed, (7ull << 40) + 1 + task);
            p->src_task = t;
            for (uint32_t r = 0; r < s->rounds && !p->error; r++)
                p->app->traffic->round(p->app->self, t, &rng, add_flow, p);
        }
    }
    finish_messages(p);
    if (p->error) {
        g_propagate_error(err, p->error);
        p->error = NULL;
        return FALSE;
    }
    return TRUE;
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
static void link_figures(const pass *p, insee_flow_report *rep)
{
    const insee_net *net = p->s->net;
    uint32_t n = insee_flow_links(net);
    double sum = 0, sq = 0, lo = INFINITY, hi = 0;
    gboolean whole = TRUE;
    for (uint32_t l = 0; l < n; l++) {
        if (!link_counted(net, l))
            continue;
        double load = load_at(p, l);
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
            rep->load_hist[(gsize)load_at(p, l)]++;
    if (whole) {
        rep->load_median = (hist_rank(rep->load_hist, (rep->links - 1) / 2) +
                            hist_rank(rep->load_hist, rep->links / 2)) / 2;
    } else {
        double *sorted = g_new(double, rep->links);
        uint64_t i = 0;
        for (uint32_t l = 0; l < n; l++)
            if (link_counted(net, l))
                sorted[i++] = load_at(p, l);
        qsort(sorted, rep->links, sizeof *sorted, compare_loads);
        rep->load_median = (sorted[(rep->links - 1) / 2] + sorted[rep->links / 2]) / 2;
        g_free(sorted);
    }
    rep->ports = rep->links - net->nodes; /* each node's two links meet one router port */
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
    size_t count_bytes = sizeof(uint32_t) * links;
    pass p = {.s = setup, .rep = rep, .links = links,
              .hops_hist = g_array_new(FALSE, TRUE, sizeof(double)),
              .count = insee_flow_table_new0(count_bytes),
              .kept = {.blocks = g_ptr_array_new_with_free_func(g_free),
                       .used = g_array_new(FALSE, FALSE, sizeof(uint32_t)),
                       .cap_words = (setup->keep_bytes ? setup->keep_bytes
                                                       : insee_memory_available(&limit) / 4) /
                                    sizeof(uint32_t)}};
    if (!p.count)
        g_set_error(err, INSEE_FLOW_ERROR, INSEE_FLOW_ERROR_LIMIT,
                    "out of memory for the loads of %u ports and %u nodes' links; use a "
                    "smaller topology", net->ports_total, net->nodes);
    else if (setup->routing)
        p.routing = insee_flow_paths_new(setup, err);
    else
        p.walker = insee_flow_walker_new(setup, err);
    gboolean ok = p.count && (p.routing || p.walker) && run_pass(&p, err);
    if (ok) {
        link_figures(&p, rep);
        rep->hops_mean = rep->flows ? p.hops_sum / (double)rep->flows : 0;
        rep->hops_max = p.hops_hist->len ? p.hops_hist->len - 1 : 0;
        rep->hops_hist = (double *)g_array_steal(p.hops_hist, NULL);
        rep->restricted = rep->load_max > 0 ? (double)rep->flows / rep->load_max : 0;
        p.second = TRUE;
        ok = run_pass(&p, err);
        rep->non_restricted = p.non_restricted;
    }
    insee_flow_walker_free(p.walker);
    insee_flow_paths_free(p.routing);
    g_array_unref(p.hops_hist);
    g_ptr_array_unref(p.kept.blocks);
    g_array_unref(p.kept.used);
    insee_flow_table_free(p.count, count_bytes);
    g_free(p.frac);
    return ok;
}

void insee_flow_report_clear(insee_flow_report *rep)
{
    g_free(rep->load_hist);
    g_free(rep->hops_hist);
    *rep = (insee_flow_report){0};
}
