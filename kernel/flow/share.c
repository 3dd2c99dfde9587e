/* kernel/flow/share.c — link bandwidth shared among flows; see share.h.
 *
 * Each link keeps the ids of the flows crossing it in an array; each flow
 * keeps its links. A flow that ends is only marked (a bit per id) and its
 * links made dirty; the update sweeps each dirty link's array once,
 * dropping the marked ids, so the many flows that end at one instant cost
 * one pass over the links they leave, not a search each. An id is reused
 * only after that sweep.
 *
 * Progressive filling keeps, for every link of the component, the capacity
 * R not yet given to frozen flows and the number n of flows still rising;
 * the link that fills first is the one with the least R / n. Freezing its
 * flows at that level can only raise the other links' R / n (the level is
 * the least of them), so a heap with stale entries re-pushed on pop finds
 * the next link in O(log links). */
#include "flow/share.h"

#include <string.h>

typedef struct link_flows {
    uint32_t *v; /* flow ids, ended ones too until the next update */
    uint32_t len, cap;
} link_flows;

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
    link_flows *on;
    uint32_t *io_on; /* I/O flows on each link */
    /* Every flow's links in one pool, a slot freed when its flow ends kept
       for the next flow of as many links: no allocation per flow, and
       paths of a network come in a few lengths. */
    uint32_t *pool;
    uint64_t pool_len, pool_cap;
    GPtrArray *free_slots; /* [n]: GArray of uint64_t offsets of free slots of n links */
    GArray *flows;   /* flow */
    GArray *free;    /* uint32_t: ids to reuse */
    GArray *ended;   /* uint32_t: ids that ended since the update */
    gboolean added;  /* a flow started since the update */
    uint64_t *gone;  /* a bit per id: ended, still in link arrays */
    uint32_t gone_words;
    GArray *dirty;   /* uint32_t: links whose flows changed since the update */
    uint8_t *is_dirty;
    /* Scratch of an update. */
    uint32_t stamp;
    uint32_t *link_seen;
    double *left;    /* R: capacity not given yet */
    uint32_t *rising; /* n: flows still rising */
    GArray *comp_links, *comp_flows, *heap;
};

static flow *flow_at(const insee_share *s, uint32_t f)
{
    return &g_array_index(s->flows, flow, f);
}

static uint32_t *flow_links(const insee_share *s, const flow *f)
{
    return s->pool + f->off;
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
    s->on = g_new0(link_flows, links);
    s->io_on = g_new0(uint32_t, links);
    s->flows = g_array_new(FALSE, FALSE, sizeof(flow));
    s->free = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    s->ended = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    s->dirty = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    s->is_dirty = g_new0(uint8_t, links);
    s->link_seen = g_new0(uint32_t, links);
    s->left = g_new0(double, links);
    s->rising = g_new0(uint32_t, links);
    s->comp_links = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    s->comp_flows = g_array_new(FALSE, FALSE, sizeof(uint32_t));
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
    g_free(s->io_on);
    g_array_unref(s->flows);
    g_array_unref(s->free);
    g_array_unref(s->ended);
    g_free(s->gone);
    g_array_unref(s->dirty);
    g_free(s->is_dirty);
    g_free(s->link_seen);
    g_free(s->left);
    g_free(s->rising);
    g_array_unref(s->comp_links);
    g_array_unref(s->comp_flows);
    g_array_unref(s->heap);
    g_free(s);
}

static void mark_dirty(insee_share *s, uint32_t l)
{
    if (s->is_dirty[l])
        return;
    s->is_dirty[l] = 1;
    s->left[l] = 0; /* until the update: the fastest flow that left the link */
    g_array_append_val(s->dirty, l);
}

uint32_t insee_share_add(insee_share *s, const uint32_t *links, uint32_t n, uint32_t cls)
{
    uint32_t id;
    if (s->free->len) {
        id = g_array_index(s->free, uint32_t, s->free->len - 1);
        g_array_set_size(s->free, s->free->len - 1);
    } else {
        id = s->flows->len;
        g_array_set_size(s->flows, id + 1);
        if (id / 64 >= s->gone_words) {
            uint32_t words = MAX(64u, 2 * s->gone_words);
            s->gone = g_renew(uint64_t, s->gone, words);
            memset(s->gone + s->gone_words, 0, sizeof(uint64_t) * (words - s->gone_words));
            s->gone_words = words;
        }
    }
    uint64_t off = slot_take(s, n);
    memcpy(s->pool + off, links, sizeof *links * n);
    flow *f = flow_at(s, id);
    *f = (flow){.off = off, .n = n, .cls = cls};
    for (uint32_t i = 0; i < n; i++) {
        link_flows *lf = &s->on[links[i]];
        if (lf->len == lf->cap) {
            lf->cap = lf->cap ? 2 * lf->cap : 4;
            lf->v = g_renew(uint32_t, lf->v, lf->cap);
        }
        lf->v[lf->len++] = id;
        s->io_on[links[i]] += cls == INSEE_SHARE_IO;
        mark_dirty(s, links[i]);
    }
    s->added = TRUE;
    return id;
}

void insee_share_remove(insee_share *s, uint32_t id)
{
    flow *f = flow_at(s, id);
    const uint32_t *links = flow_links(s, f);
    for (uint32_t i = 0; i < f->n; i++) {
        s->io_on[links[i]] -= f->cls == INSEE_SHARE_IO;
        mark_dirty(s, links[i]);
        s->left[links[i]] = MAX(s->left[links[i]], f->rate);
    }
    slot_free(s, f->off, f->n);
    *f = (flow){0};
    s->gone[id / 64] |= 1ull << (id % 64);
    g_array_append_val(s->ended, id);
}

/* Drop the ended flows from the dirty links' arrays; their ids are free
   from now on. */
static void sweep_ended(insee_share *s)
{
    if (!s->ended->len)
        return;
    for (guint k = 0; k < s->dirty->len; k++) {
        link_flows *lf = &s->on[g_array_index(s->dirty, uint32_t, k)];
        uint32_t kept = 0;
        for (uint32_t i = 0; i < lf->len; i++) {
            uint32_t id = lf->v[i];
            if (!(s->gone[id / 64] >> (id % 64) & 1))
                lf->v[kept++] = id;
        }
        lf->len = kept;
    }
    for (guint k = 0; k < s->ended->len; k++) {
        uint32_t id = g_array_index(s->ended, uint32_t, k);
        s->gone[id / 64] &= ~(1ull << (id % 64));
    }
    g_array_append_vals(s->free, s->ended->data, s->ended->len);
    g_array_set_size(s->ended, 0);
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
    if (cls < 0)
        return s->on[l].len;
    return cls == INSEE_SHARE_IO ? s->io_on[l] : s->on[l].len - s->io_on[l];
}

/* What class `cls` (-1: every class) may use of link l before filling:
   BA splits a link both classes cross; FP gives I/O what application flows
   left (their rates are final when I/O is filled). */
static double class_capacity(const insee_share *s, uint32_t l, int cls)
{
    double cap = s->capacity[l];
    if (cls < 0)
        return cap;
    if (s->policy == INSEE_SHARE_FP) {
        if (cls == INSEE_SHARE_APP)
            return cap;
        for (uint32_t i = 0; i < s->on[l].len; i++) {
            const flow *f = flow_at(s, s->on[l].v[i]);
            if (f->cls == INSEE_SHARE_APP)
                cap -= f->rate;
        }
        return cap > 0 ? cap : 0;
    }
    uint32_t mine = count_class(s, l, cls);
    if (mine == s->on[l].len)
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

static void heap_push(GArray *h, double key, uint32_t link)
{
    heap_item it = {key, link};
    g_array_append_val(h, it);
    heap_item *v = (heap_item *)h->data;
    for (guint i = h->len - 1; i > 0;) {
        guint up = (i - 1) / 2;
        if (v[up].key < v[i].key || (v[up].key == v[i].key && v[up].link <= v[i].link))
            break;
        heap_item t = v[up];
        v[up] = v[i];
        v[i] = t;
        i = up;
    }
}

static heap_item heap_pop(GArray *h)
{
    heap_item *v = (heap_item *)h->data, top = v[0];
    v[0] = v[h->len - 1];
    g_array_set_size(h, h->len - 1);
    for (guint i = 0;;) {
        guint a = 2 * i + 1, b = a + 1, m = i;
        if (a < h->len && (v[a].key < v[m].key || (v[a].key == v[m].key && v[a].link < v[m].link)))
            m = a;
        if (b < h->len && (v[b].key < v[m].key || (v[b].key == v[m].key && v[b].link < v[m].link)))
            m = b;
        if (m == i)
            break;
        heap_item t = v[m];
        v[m] = v[i];
        v[i] = t;
        i = m;
    }
    return top;
}

static double level_of(const insee_share *s, uint32_t l)
{
    double x = s->left[l] / s->rising[l];
    return x > 0 ? x : 0;
}

/* Progressive filling of the component's flows of class cls (-1: all). */
static void fill(insee_share *s, int cls, void (*changed)(void *, uint32_t, double), void *ctx)
{
    GArray *h = s->heap;
    g_array_set_size(h, 0);
    for (guint i = 0; i < s->comp_links->len; i++) {
        uint32_t l = g_array_index(s->comp_links, uint32_t, i);
        s->rising[l] = count_class(s, l, cls);
        s->left[l] = class_capacity(s, l, cls);
        if (s->rising[l])
            heap_push(h, level_of(s, l), l);
    }
    uint32_t frozen = ++s->stamp;
    while (h->len) {
        heap_item it = heap_pop(h);
        uint32_t l = it.link;
        if (!s->rising[l])
            continue;
        double level = level_of(s, l);
        if (level > it.key) {
            heap_push(h, level, l); /* raised since pushed */
            continue;
        }
        for (uint32_t i = 0; i < s->on[l].len; i++) {
            uint32_t id = s->on[l].v[i];
            flow *f = flow_at(s, id);
            if (f->seen == frozen || (cls >= 0 && f->cls != (uint32_t)cls))
                continue;
            f->seen = frozen;
            set_rate(f, id, level, changed, ctx);
            const uint32_t *links = flow_links(s, f);
            for (uint32_t j = 0; j < f->n; j++) {
                uint32_t m = links[j];
                s->left[m] -= level;
                s->rising[m]--;
            }
        }
    }
}

/* The links and flows connected to the dirty links through shared links. */
static void collect_component(insee_share *s)
{
    uint32_t mark = ++s->stamp;
    g_array_set_size(s->comp_links, 0);
    g_array_set_size(s->comp_flows, 0);
    for (guint i = 0; i < s->dirty->len; i++) {
        uint32_t l = g_array_index(s->dirty, uint32_t, i);
        s->link_seen[l] = mark;
        g_array_append_val(s->comp_links, l);
    }
    for (guint k = 0; k < s->comp_links->len; k++) {
        uint32_t l = g_array_index(s->comp_links, uint32_t, k);
        for (uint32_t i = 0; i < s->on[l].len; i++) {
            uint32_t id = s->on[l].v[i];
            flow *f = flow_at(s, id);
            if (f->seen == mark)
                continue;
            f->seen = mark;
            const uint32_t *links = flow_links(s, f);
            for (uint32_t j = 0; j < f->n; j++) {
                uint32_t m = links[j];
                if (s->link_seen[m] != mark) {
                    s->link_seen[m] = mark;
                    g_array_append_val(s->comp_links, m);
                }
            }
        }
    }
}

/* What class cls may use of link l, and its flows there, once per pass
   (stamp `mark`) into left and rising. */
static void class_view(insee_share *s, uint32_t l, int cls, uint32_t mark)
{
    if (s->link_seen[l] == mark)
        return;
    s->link_seen[l] = mark;
    s->left[l] = class_capacity(s, l, cls);
    s->rising[l] = count_class(s, l, cls);
}

/* Equal sharing (INRFlow's rule): each flow on a dirty link at the least,
   over its links, of what its class may use there divided by the flows of
   its class there. FP computes I/O flows after application flows, adding
   the links of every application flow whose rate moved. */
static void update_equal(insee_share *s, void (*changed)(void *, uint32_t, double), void *ctx)
{
    gboolean fp = s->policy == INSEE_SHARE_FP;
    g_array_set_size(s->comp_links, 0);
    g_array_append_vals(s->comp_links, s->dirty->data, s->dirty->len);
    for (int pass = 0; pass < (fp ? 2 : 1); pass++) {
        gboolean by_class = s->policy != INSEE_SHARE_NP;
        uint32_t link_mark = ++s->stamp, flow_mark = ++s->stamp;
        for (guint k = 0; k < s->comp_links->len; k++) {
            uint32_t l = g_array_index(s->comp_links, uint32_t, k);
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
                    rate = MIN(rate, s->left[m] / s->rising[m]);
                }
                set_rate(f, id, rate, changed, ctx);
                for (uint32_t j = 0; fp && pass == 0 && old != rate && j < f->n; j++)
                    g_array_append_val(s->comp_links, links[j]);
            }
        }
    }
}

/* Max-min without classes, after flows only ended: whether a flow left
   runs as fast as the fastest that left one of its links. Only such a flow
   can have had that link as its bottleneck (a full link's fastest flows
   are the ones it limits); the others are limited by links no flow left,
   still full with them, so the rates stay max-min and need no refill, as
   when the flows a link limits all end together. */
static gboolean bottleneck_freed(const insee_share *s)
{
    for (guint k = 0; k < s->dirty->len; k++) {
        uint32_t l = g_array_index(s->dirty, uint32_t, k);
        for (uint32_t i = 0; i < s->on[l].len; i++)
            if (flow_at(s, s->on[l].v[i])->rate >= s->left[l] * (1 - 1e-9))
                return TRUE;
    }
    return FALSE;
}

void insee_share_update(insee_share *s, void (*changed)(void *ctx, uint32_t flow, double rate),
                        void *ctx)
{
    if (!s->dirty->len)
        return;
    sweep_ended(s);
    if (s->rule == INSEE_SHARE_EQUAL) {
        update_equal(s, changed, ctx);
    } else if (s->added || s->policy != INSEE_SHARE_NP || bottleneck_freed(s)) {
        collect_component(s);
        if (s->policy == INSEE_SHARE_NP) {
            fill(s, -1, changed, ctx);
        } else {
            fill(s, INSEE_SHARE_APP, changed, ctx);
            fill(s, INSEE_SHARE_IO, changed, ctx);
        }
    }
    for (guint i = 0; i < s->dirty->len; i++)
        s->is_dirty[g_array_index(s->dirty, uint32_t, i)] = 0;
    g_array_set_size(s->dirty, 0);
    s->added = FALSE;
}
