/* kernel/flow/share.c — link bandwidth shared among flows; see share.h.
 *
 * Each link keeps the ids of the flows crossing it in an array; each flow
 * keeps its links. A flow that ends is only marked (a bit per id) and
 * counted on its links; a link's array drops its marked ids before it is
 * read, or before it would grow (tidy()), so the flows that end at an
 * instant cost their own links, not a pass over every flow still on the
 * links they leave. Ended ids are reused when a flow starts and they are
 * as many as the live flows: every array that may hold one is tidied
 * then, at a cost that the ends since the last time pay for
 * (release_ended()).
 *
 * Progressive filling keeps, for every link of the component, the capacity
 * R not yet given to frozen flows and the number n of flows still rising;
 * the link that fills first is the one with the least R / n. Freezing its
 * flows at that level can only raise the other links' R / n (the level is
 * the least of them), so a heap with stale entries re-pushed on pop finds
 * the next link in O(log links), and flows freeze in rising order of rate.
 *
 * Max-min also keeps, per link, its top group: the flows frozen on it at
 * its last level (within rounding), the fastest on it and the only ones it
 * can limit. A flow that ends leaves the groups it was in; after flows
 * only ended, a refill is needed only where a link they left still has
 * flows of its top group (see top_group_left()). */
#include "flow/share.h"

#include "engine/events.h"

#include <string.h>

/* Everything of a link in 48 bytes, so that a flow's start, end or
   refill reaches each of its links with one cache miss. A top group is
   kept only by max-min without classes, the only sharing that reads it;
   I/O flows are counted only when the policy has classes. */
typedef struct link_state {
    uint32_t *v; /* ids of the flows on it, ended ones among them */
    union {
        double top_rate; /* the least rate of its top group */
        uint32_t io;     /* its I/O flows, ended ones not counted */
    };
    double left;     /* update scratch: R, capacity not given yet */
    uint32_t len, room;
    uint32_t gone;   /* entries of v whose flow ended */
    uint32_t top_flows;
    uint32_t rising; /* update scratch: n, flows still rising */
    uint32_t seen;   /* update scratch: the pass's stamp; DIRTY between
                        updates when in `dirty` */
} link_state;

typedef struct flow {
    uint64_t off; /* its links: pool[off .. off + n) */
    double rate;
    uint32_t n, cls;
    uint32_t seen; /* stamp: in the component being refilled */
} flow;

typedef struct heap_item {
    double key;
    uint32_t link;
} heap_item;

struct insee_share {
    uint32_t links;
    const double *capacity; /* borrowed */
    insee_share_rule rule;
    insee_share_policy policy;
    double app_share;
    link_state *on;
    /* Every flow's links in one pool, a slot freed when its flow ends kept
       for the next flow of as many links: no allocation per flow, and
       paths of a network come in a few lengths. */
    uint32_t *pool;
    uint64_t pool_len, pool_cap;
    GPtrArray *free_slots; /* [n]: GArray of uint64_t offsets of free slots of n links */
    GArray *flows;   /* flow */
    insee_vec free;     /* ids to reuse */
    insee_vec ended;    /* ids ended, not reusable yet */
    insee_vec littered; /* links whose arrays may hold ended ids */
    uint32_t added, removed; /* flows started and ended since the update */
    uint64_t *gone;  /* a bit per id in `ended` */
    uint32_t gone_words;
    insee_vec dirty;    /* links whose flows changed since the update */
    uint32_t stamp;
    insee_vec comp_links;
    GArray *heap;
};

#define DIRTY UINT32_MAX

/* The next stamp of a pass; DIRTY is never one. */
static uint32_t next_stamp(insee_share *s)
{
    if (++s->stamp == DIRTY)
        s->stamp = 1;
    return s->stamp;
}

static flow *flow_at(const insee_share *s, uint32_t f)
{
    return &g_array_index(s->flows, flow, f);
}

static uint32_t *flow_links(const insee_share *s, const flow *f)
{
    return s->pool + f->off;
}

static gboolean is_gone(const insee_share *s, uint32_t id)
{
    return s->gone[id / 64] >> (id % 64) & 1;
}

/* A slot of n links in the pool: a freed one of that length, or new. */
static uint64_t slot_take(insee_share *s, uint32_t n)
{
    GArray *free = n < s->free_slots->len ? s->free_slots->pdata[n] : NULL;
    if (free && free->len) {
        uint64_t off = g_array_index(free, uint64_t, free->len - 1);
        g_array_set_size(free, free->len - 1);
        return off;
    }
    if (s->pool_len + n > s->pool_cap) {
        s->pool_cap = MAX(2 * s->pool_cap, s->pool_len + n + 1024);
        s->pool = g_renew(uint32_t, s->pool, s->pool_cap);
    }
    uint64_t off = s->pool_len;
    s->pool_len += n;
    return off;
}

static void slot_free(insee_share *s, uint64_t off, uint32_t n)
{
    while (s->free_slots->len <= n)
        g_ptr_array_add(s->free_slots, g_array_new(FALSE, FALSE, sizeof(uint64_t)));
    g_array_append_val(s->free_slots->pdata[n], off);
}

insee_share *insee_share_new(uint32_t links, const double *capacity, insee_share_rule rule,
                             insee_share_policy policy, double app_share)
{
    insee_share *s = g_new0(insee_share, 1);
    s->links = links;
    s->capacity = capacity;
    s->rule = rule;
    s->policy = policy;
    s->app_share = app_share;
    s->on = g_new0(link_state, links);
    s->flows = g_array_new(FALSE, FALSE, sizeof(flow));
    s->heap = g_array_new(FALSE, FALSE, sizeof(heap_item));
    s->free_slots = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
    return s;
}

void insee_share_free(insee_share *s)
{
    if (!s)
        return;
    g_free(s->pool);
    g_ptr_array_unref(s->free_slots);
    for (uint32_t l = 0; l < s->links; l++)
        g_free(s->on[l].v);
    g_free(s->on);
    g_array_unref(s->flows);
    g_free(s->free.v);
    g_free(s->ended.v);
    g_free(s->littered.v);
    g_free(s->gone);
    g_free(s->dirty.v);
    g_free(s->comp_links.v);
    g_array_unref(s->heap);
    g_free(s);
}

/* Ask for every link record of a path at once: a path's links lie far
   apart, and waiting for each in turn is most of what a flow's start, end
   or refill costs. */
static void prefetch_links(const insee_share *s, const uint32_t *links, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        __builtin_prefetch(&s->on[links[i]], 1);
}

/* Ask for what the flows ahead of place i in link k's array will need:
   the record of the 8th ahead, the links of the 4th (its record asked for
   before). A link's flows lie far apart. */
static void prefetch_flows(const insee_share *s, const link_state *k, uint32_t i)
{
    if (i + 8 < k->len)
        __builtin_prefetch(flow_at(s, k->v[i + 8]));
    if (i + 4 < k->len)
        __builtin_prefetch(flow_links(s, flow_at(s, k->v[i + 4])));
}

static void mark_dirty(insee_share *s, uint32_t l)
{
    if (s->on[l].seen == DIRTY)
        return;
    s->on[l].seen = DIRTY;
    insee_vec_push(&s->dirty, l);
}

/* Drop the ended flows' ids from link l's array. */
static void tidy(insee_share *s, uint32_t l)
{
    link_state *k = &s->on[l];
    if (!k->gone)
        return;
    uint32_t kept = 0;
    for (uint32_t i = 0; i < k->len; i++)
        if (!is_gone(s, k->v[i]))
            k->v[kept++] = k->v[i];
    k->len = kept;
    k->gone = 0;
}

/* Make the ended ids free: the arrays they littered are tidied, which,
   once they are as many as the live flows, costs no more than the live
   flows' links and the ends' own. */
static void release_ended(insee_share *s)
{
    for (uint32_t i = 0; i < s->littered.len; i++)
        tidy(s, s->littered.v[i]);
    s->littered.len = 0;
    for (uint32_t i = 0; i < s->ended.len; i++) {
        uint32_t id = s->ended.v[i];
        s->gone[id / 64] &= ~(1ull << (id % 64));
        insee_vec_push(&s->free, id);
    }
    s->ended.len = 0;
}

/* A new id: a free one, the ended ones made free when they are as many as
   the live flows, or the next. */
static uint32_t take_id(insee_share *s)
{
    if (!s->free.len && s->ended.len >= s->flows->len - s->ended.len)
        release_ended(s);
    if (s->free.len)
        return s->free.v[--s->free.len];
    uint32_t id = s->flows->len;
    g_array_set_size(s->flows, id + 1);
    if (id / 64 >= s->gone_words) {
        uint32_t words = MAX(64u, 2 * s->gone_words);
        s->gone = g_renew(uint64_t, s->gone, words);
        memset(s->gone + s->gone_words, 0, sizeof(uint64_t) * (words - s->gone_words));
        s->gone_words = words;
    }
    return id;
}

uint32_t insee_share_add(insee_share *s, const uint32_t *links, uint32_t n, uint32_t cls)
{
    uint32_t id = take_id(s);
    uint64_t off = slot_take(s, n);
    memcpy(s->pool + off, links, sizeof *links * n);
    *flow_at(s, id) = (flow){.off = off, .n = n, .cls = cls};
    prefetch_links(s, links, n);
    for (uint32_t i = 0; i < n; i++) {
        link_state *k = &s->on[links[i]];
        if (k->len == k->room)
            tidy(s, links[i]);
        if (k->len == k->room) {
            k->room = k->room ? 2 * k->room : 16;
            k->v = g_renew(uint32_t, k->v, k->room);
        }
        k->v[k->len++] = id;
        if (s->policy != INSEE_SHARE_NP)
            k->io += cls == INSEE_SHARE_IO;
        mark_dirty(s, links[i]);
    }
    s->added++;
    return id;
}

void insee_share_remove(insee_share *s, uint32_t id)
{
    flow *f = flow_at(s, id);
    const uint32_t *links = flow_links(s, f);
    s->gone[id / 64] |= 1ull << (id % 64);
    prefetch_links(s, links, f->n);
    for (uint32_t i = 0; i < f->n; i++) {
        link_state *k = &s->on[links[i]];
        if (!k->gone++)
            insee_vec_push(&s->littered, links[i]);
        if (s->policy != INSEE_SHARE_NP)
            k->io -= f->cls == INSEE_SHARE_IO;
        k->top_flows -= k->top_flows && f->rate >= k->top_rate;
        mark_dirty(s, links[i]);
    }
    slot_free(s, f->off, f->n);
    *f = (flow){0};
    insee_vec_push(&s->ended, id);
    s->removed++;
}

void insee_share_prefetch(const insee_share *s, uint32_t id)
{
    __builtin_prefetch(flow_at(s, id));
}

double insee_share_rate(const insee_share *s, uint32_t id)
{
    return flow_at(s, id)->rate;
}

const uint32_t *insee_share_links(const insee_share *s, uint32_t id, uint32_t *n)
{
    *n = flow_at(s, id)->n;
    return flow_links(s, flow_at(s, id));
}

/* The flows on link l of class cls, or of any class when cls is -1. */
static uint32_t count_class(const insee_share *s, uint32_t l, int cls)
{
    const link_state *k = &s->on[l];
    uint32_t all = k->len - k->gone;
    if (cls < 0)
        return all;
    return cls == INSEE_SHARE_IO ? k->io : all - k->io;
}

/* What class `cls` (-1: every class) may use of link l before filling:
   BA splits a link both classes cross; FP gives I/O what application flows
   left (their rates are final when I/O is filled). */
static double class_capacity(insee_share *s, uint32_t l, int cls)
{
    double cap = s->capacity[l];
    if (cls < 0)
        return cap;
    if (s->policy == INSEE_SHARE_FP) {
        if (cls == INSEE_SHARE_APP)
            return cap;
        tidy(s, l);
        for (uint32_t i = 0; i < s->on[l].len; i++) {
            const flow *f = flow_at(s, s->on[l].v[i]);
            if (f->cls == INSEE_SHARE_APP)
                cap -= f->rate;
        }
        return cap > 0 ? cap : 0;
    }
    if (count_class(s, l, cls) == count_class(s, l, -1))
        return cap; /* alone on the link */
    return cls == INSEE_SHARE_APP ? cap * s->app_share : cap * (1 - s->app_share);
}

static void set_rate(flow *f, uint32_t id, double rate,
                     void (*changed)(void *, uint32_t, double), void *ctx)
{
    if (f->rate == rate)
        return;
    f->rate = rate;
    changed(ctx, id, rate);
}

/* ---- the heap of links by R / n ---- */

static gboolean heap_before(heap_item a, heap_item b)
{
    return a.key < b.key || (a.key == b.key && a.link < b.link);
}

static void heap_push(GArray *h, double key, uint32_t link)
{
    heap_item it = {key, link};
    g_array_append_val(h, it);
    heap_item *v = (heap_item *)h->data;
    for (guint i = h->len - 1; i > 0;) {
        guint up = (i - 1) / 2;
        if (!heap_before(v[i], v[up]))
            break;
        heap_item t = v[up];
        v[up] = v[i];
        v[i] = t;
        i = up;
    }
}

static void heap_sift_down(GArray *h, guint i)
{
    heap_item *v = (heap_item *)h->data;
    for (;;) {
        guint a = 2 * i + 1, b = a + 1, m = i;
        if (a < h->len && heap_before(v[a], v[m]))
            m = a;
        if (b < h->len && heap_before(v[b], v[m]))
            m = b;
        if (m == i)
            break;
        heap_item t = v[m];
        v[m] = v[i];
        v[i] = t;
        i = m;
    }
}

/* Order items appended in any order into a heap, in linear time: a
   refill starts with every link of its component. */
static void heap_build(GArray *h)
{
    for (guint i = h->len / 2; i-- > 0;)
        heap_sift_down(h, i);
}

static heap_item heap_pop(GArray *h)
{
    heap_item *v = (heap_item *)h->data, top = v[0];
    v[0] = v[h->len - 1];
    g_array_set_size(h, h->len - 1);
    heap_sift_down(h, 0);
    return top;
}

static double level_of(const insee_share *s, uint32_t l)
{
    double x = s->on[l].left / s->on[l].rising;
    return x > 0 ? x : 0;
}

/* A flow froze at `level` on link m: it joins m's top group, or starts a
   new one when the level is above the group's rounding. Levels only rise
   during a fill, so the group's flows are exactly those of rate >= its
   least rate. */
static void join_top(insee_share *s, uint32_t m, double level)
{
    link_state *k = &s->on[m];
    if (k->top_flows && level <= k->top_rate * (1 + 2e-9)) {
        k->top_rate = MIN(k->top_rate, level);
        k->top_flows++;
        return;
    }
    k->top_rate = level;
    k->top_flows = 1;
}

/* Progressive filling of the component's flows of class cls (-1: all;
   then each link's top group is found too). */
static void fill(insee_share *s, int cls, void (*changed)(void *, uint32_t, double), void *ctx)
{
    GArray *h = s->heap;
    g_array_set_size(h, 0);
    for (guint i = 0; i < s->comp_links.len; i++) {
        uint32_t l = s->comp_links.v[i];
        s->on[l].rising = count_class(s, l, cls);
        s->on[l].left = class_capacity(s, l, cls);
        s->on[l].top_flows = 0;
        if (s->on[l].rising) {
            heap_item it = {level_of(s, l), l};
            g_array_append_val(h, it);
        }
    }
    heap_build(h);
    uint32_t frozen = next_stamp(s);
    while (h->len) {
        heap_item it = heap_pop(h);
        uint32_t l = it.link;
        if (!s->on[l].rising)
            continue;
        double level = level_of(s, l);
        if (level > it.key) {
            heap_push(h, level, l); /* raised since pushed */
            continue;
        }
        for (uint32_t i = 0; i < s->on[l].len; i++) {
            prefetch_flows(s, &s->on[l], i);
            uint32_t id = s->on[l].v[i];
            flow *f = flow_at(s, id);
            if (f->seen == frozen || (cls >= 0 && f->cls != (uint32_t)cls))
                continue;
            f->seen = frozen;
            set_rate(f, id, level, changed, ctx);
            const uint32_t *links = flow_links(s, f);
            prefetch_links(s, links, f->n);
            for (uint32_t j = 0; j < f->n; j++) {
                uint32_t m = links[j];
                s->on[m].left -= level;
                s->on[m].rising--;
                if (cls < 0)
                    join_top(s, m, level);
            }
        }
    }
}

/* The links connected to the dirty links through shared flows, each
   tidied. */
static void collect_component(insee_share *s)
{
    uint32_t mark = next_stamp(s);
    s->comp_links.len = 0;
    for (guint i = 0; i < s->dirty.len; i++) {
        uint32_t l = s->dirty.v[i];
        s->on[l].seen = mark;
        insee_vec_push(&s->comp_links, l);
    }
    for (guint k = 0; k < s->comp_links.len; k++) {
        uint32_t l = s->comp_links.v[k];
        tidy(s, l);
        for (uint32_t i = 0; i < s->on[l].len; i++) {
            prefetch_flows(s, &s->on[l], i);
            uint32_t id = s->on[l].v[i];
            flow *f = flow_at(s, id);
            if (f->seen == mark)
                continue;
            f->seen = mark;
            const uint32_t *links = flow_links(s, f);
            for (uint32_t j = 0; j < f->n; j++) {
                uint32_t m = links[j];
                if (s->on[m].seen != mark) {
                    s->on[m].seen = mark;
                    insee_vec_push(&s->comp_links, m);
                }
            }
        }
    }
}

/* The dirty links, each tidied, as the links to refill: equal sharing's,
   and max-min's component when every live flow started since the update
   and none ended, for then every link a flow crosses is dirty and every
   dirty link carries a flow. */
static void collect_dirty(insee_share *s)
{
    s->comp_links.len = 0;
    for (uint32_t i = 0; i < s->dirty.len; i++) {
        tidy(s, s->dirty.v[i]);
        insee_vec_push(&s->comp_links, s->dirty.v[i]);
    }
}

/* What class cls may use of link l, and its flows there, once per pass
   (stamp `mark`) into left and rising. */
static void class_view(insee_share *s, uint32_t l, int cls, uint32_t mark)
{
    if (s->on[l].seen == mark)
        return;
    s->on[l].seen = mark;
    s->on[l].left = class_capacity(s, l, cls);
    s->on[l].rising = count_class(s, l, cls);
}

/* Equal sharing (INRFlow's rule): each flow on a dirty link at the least,
   over its links, of what its class may use there divided by the flows of
   its class there. FP computes I/O flows after application flows, adding
   the links of every application flow whose rate moved. */
static void update_equal(insee_share *s, void (*changed)(void *, uint32_t, double), void *ctx)
{
    gboolean fp = s->policy == INSEE_SHARE_FP;
    collect_dirty(s);
    for (int pass = 0; pass < (fp ? 2 : 1); pass++) {
        gboolean by_class = s->policy != INSEE_SHARE_NP;
        uint32_t link_mark = next_stamp(s), flow_mark = next_stamp(s);
        for (guint k = 0; k < s->comp_links.len; k++) {
            uint32_t l = s->comp_links.v[k];
            tidy(s, l);
            for (uint32_t i = 0; i < s->on[l].len; i++) {
                uint32_t id = s->on[l].v[i];
                flow *f = flow_at(s, id);
                int mine = by_class ? (int)f->cls : -1;
                if (f->seen == flow_mark || (fp && mine != (pass ? INSEE_SHARE_IO : INSEE_SHARE_APP)))
                    continue;
                f->seen = flow_mark;
                double rate = G_MAXDOUBLE, old = f->rate;
                const uint32_t *links = flow_links(s, f);
                for (uint32_t j = 0; j < f->n; j++) {
                    uint32_t m = links[j];
                    /* BA's two classes need their own views of a link. */
                    class_view(s, m, mine, mine == INSEE_SHARE_IO ? flow_mark : link_mark);
                    rate = MIN(rate, s->on[m].left / s->on[m].rising);
                }
                set_rate(f, id, rate, changed, ctx);
                for (uint32_t j = 0; fp && pass == 0 && old != rate && j < f->n; j++)
                    insee_vec_push(&s->comp_links, links[j]);
            }
        }
    }
}

/* Max-min without classes, after flows only ended: whether a link they
   left still has flows of its top group. Only those can have had it as
   their bottleneck (a full link's fastest flows are the ones it limits);
   the others are limited by links no flow left, still full with them, so
   the rates stay max-min and need no refill, as when the flows a link
   limits all end together. */
static gboolean top_group_left(const insee_share *s)
{
    for (guint k = 0; k < s->dirty.len; k++)
        if (s->on[s->dirty.v[k]].top_flows)
            return TRUE;
    return FALSE;
}

void insee_share_update(insee_share *s, void (*changed)(void *ctx, uint32_t flow, double rate),
                        void *ctx)
{
    if (!s->dirty.len)
        return;
    if (s->rule == INSEE_SHARE_EQUAL) {
        update_equal(s, changed, ctx);
    } else if (s->added || s->policy != INSEE_SHARE_NP || top_group_left(s)) {
        uint32_t live = s->flows->len - s->free.len - s->ended.len;
        if (!s->removed && s->added == live)
            collect_dirty(s);
        else
            collect_component(s);
        if (s->policy == INSEE_SHARE_NP) {
            fill(s, -1, changed, ctx);
        } else {
            fill(s, INSEE_SHARE_APP, changed, ctx);
            fill(s, INSEE_SHARE_IO, changed, ctx);
        }
    }
    for (uint32_t i = 0; i < s->dirty.len; i++)
        s->on[s->dirty.v[i]].seen = 0; /* no stamp is 0 */
    s->dirty.len = 0;
    s->added = s->removed = 0;
}
