/* insee_stats_merge() and insee_report_merge() (stats/merge.h): the parts
 * of a sample set, each counted in its own collector and report, merged by
 * parts running in lockstep on threads (an in-process MPI_Allreduce) give
 * every part the counters, histograms and insee_stat bits of one collector
 * that saw everything, and leave the replicated fields alone. */
#include <criterion/criterion.h>
#include <string.h>

#include "stats/merge.h"

enum { PARTS = 3 };

/* ---- an allreduce over threads ---------------------------------------------- */

typedef struct world {
    GMutex lock;
    GCond turn;
    uint32_t arrived;
    uint64_t generation;
    uint64_t *v[PARTS];
    size_t n[PARTS];
    gboolean mismatch; /* parts' calls that did not pair up */
} world;

typedef struct part {
    world *w;
    uint32_t id;
    gboolean report; /* merge a report, else a collector */
    void *what;
} part;

static void barrier(world *w)
{
    g_mutex_lock(&w->lock);
    uint64_t gen = w->generation;
    if (++w->arrived == PARTS) {
        w->arrived = 0;
        w->generation++;
        g_cond_broadcast(&w->turn);
    } else {
        while (gen == w->generation)
            g_cond_wait(&w->turn, &w->lock);
    }
    g_mutex_unlock(&w->lock);
}

static void reduce(part *p, uint64_t *v, size_t n, gboolean max)
{
    world *w = p->w;
    w->v[p->id] = v;
    w->n[p->id] = n;
    barrier(w);
    uint64_t *acc = g_new0(uint64_t, MAX(n, 1));
    for (uint32_t k = 0; k < PARTS; k++) {
        if (w->n[k] != n) {
            w->mismatch = TRUE;
            continue;
        }
        for (size_t i = 0; i < n; i++)
            acc[i] = max ? MAX(acc[i], w->v[k][i]) : acc[i] + w->v[k][i];
    }
    barrier(w); /* every part has read every array before any is overwritten */
    memcpy(v, acc, n * sizeof *v);
    g_free(acc);
}

static void reduce_sum(void *ctx, uint64_t *v, size_t n)
{
    reduce(ctx, v, n, FALSE);
}

static void reduce_max(void *ctx, uint64_t *v, size_t n)
{
    reduce(ctx, v, n, TRUE);
}

static gpointer run_part(gpointer data)
{
    part *p = data;
    insee_merge_ops ops = {reduce_sum, reduce_max, p};
    if (p->report)
        insee_report_merge(p->what, &ops);
    else
        insee_stats_merge(p->what, &ops);
    return NULL;
}

/* Merge what[0..PARTS) (collectors or reports, `size` bytes each) in
   lockstep, one thread a part. */
static void merge_parts(void *what, size_t size, gboolean report)
{
    world w = {0};
    g_mutex_init(&w.lock);
    g_cond_init(&w.turn);
    part p[PARTS];
    GThread *t[PARTS];
    for (uint32_t k = 0; k < PARTS; k++) {
        p[k] = (part){&w, k, report, (char *)what + k * size};
        t[k] = g_thread_new("part", run_part, &p[k]);
    }
    for (uint32_t k = 0; k < PARTS; k++)
        g_thread_join(t[k]);
    g_mutex_clear(&w.lock);
    g_cond_clear(&w.turn);
    cr_assert_not(w.mismatch, "the parts' calls did not pair up");
}

/* ---- samples -------------------------------------------------------------------- */

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    return x ^ (x >> 33);
}

/* ---- the collector ----------------------------------------------------------- */

enum { NODES = 6, PORTS = 8, VCS = 2, CYCLES = 3000, START = 500, END = 2500, TAIL = 37 };

typedef struct fake_net {
    insee_net net;
    uint32_t peer[PORTS];
    int32_t dim[PORTS], dir[PORTS];
} fake_net;

/* What insee_stats_init() and insee_stats_track_directions() read of a
   network: its sizes, and ports in two dimensions, one unplugged. */
static void fake_net_init(fake_net *f)
{
    memset(f, 0, sizeof *f);
    f->net.nodes = NODES;
    f->net.vcs = VCS;
    f->net.ports_total = PORTS;
    f->net.ovcs = f->net.transit_queues = PORTS * VCS;
    f->net.queues = f->net.transit_queues + NODES;
    f->net.peer_queue = f->peer;
    for (uint32_t gp = 0; gp < PORTS; gp++) {
        f->peer[gp] = gp == 5 ? INSEE_NONE : gp * VCS;
        f->dim[gp] = (int32_t)(gp % 4) / 2;
        f->dir[gp] = gp % 2 ? -1 : 1;
    }
}

static void stats_init(insee_stats *st, fake_net *f)
{
    insee_stats_options opt = {.interval = 100,
                               .latency_histogram = TRUE,
                               .distance_histograms = TRUE,
                               .port_map = TRUE,
                               .node_map = TRUE,
                               .pair_map = TRUE};
    GError *err = NULL;
    cr_assert(insee_stats_init(st, &opt, &f->net, &err));
    cr_assert(insee_stats_track_directions(st, &f->net, f->dim, f->dir, &err));
    insee_stats_set_window(st, START, END);
}

static insee_phase phase_at(uint64_t t)
{
    return t < START ? INSEE_PHASE_WARMUP : t < END ? INSEE_PHASE_MEASURE : INSEE_PHASE_DRAIN;
}

/* One packet event at cycle t into collector st. */
static void event(insee_stats *st, uint64_t e, uint64_t t)
{
    uint64_t age = MIN(t, e % 2000); /* some beyond the histogram's exact range */
    insee_packet pk = {.src = (uint32_t)(e % NODES),
                       .dst = (uint32_t)(e / 7 % NODES),
                       .phits = (uint16_t)(1 + e % 4),
                       .hops = (uint16_t)(e / 11 % 6),
                       .id = e % 100000 + 1,
                       .born = t - age,
                       .injected = t - age / 2};
    switch (e / 13 % 6) {
        case 0:
            insee_stats_on_generated(st, &pk, t);
            break;
        case 1:
            insee_stats_on_injected(st, &pk, (uint32_t)(e / 17 % 9), t);
            break;
        case 2:
            insee_stats_on_hop(st, &pk, (uint32_t)(e / 17 % (PORTS * VCS)), t);
            break;
        case 3:
            insee_stats_on_delivered(st, &pk, t);
            break;
        case 4:
            insee_stats_on_dropped(st, (insee_drop_reason)(e / 17 % INSEE_DROP_REASONS), &pk,
                                   INSEE_NONE, t);
            break;
        default: /* the queue histograms' bins, grown unevenly by the parts */
            insee_counts_add(&st->occ_transit, (uint32_t)(e / 17 % (t / 8 + 1)), e % 5);
            insee_counts_add(&st->occ_inject, (uint32_t)(e / 17 % 40), 1);
            break;
    }
}

/* The whole run in `whole`, and each event in one of the parts; the run
   ends TAIL cycles into an interval whose events all go to part 0 (its
   last, partial interval: only part 0 would keep it alone). */
static void collect(insee_stats *whole, insee_stats *parts, fake_net *f)
{
    stats_init(whole, f);
    for (uint32_t k = 0; k < PARTS; k++)
        stats_init(&parts[k], f);
    for (uint64_t t = 0; t < CYCLES + TAIL; t++) {
        uint64_t in_network = t * 7 % 13; /* the engine's count of the whole network */
        insee_stats_advance(whole, t, in_network, phase_at(t));
        for (uint32_t k = 0; k < PARTS; k++)
            insee_stats_advance(&parts[k], t, in_network, phase_at(t));
        if (t == START + 50) { /* the run phases' window, as converge restarts it */
            insee_stats_restart_phase_window(whole);
            for (uint32_t k = 0; k < PARTS; k++)
                insee_stats_restart_phase_window(&parts[k]);
        }
        for (uint64_t j = 0; j < 4; j++) {
            uint64_t e = mix(t * 4 + j);
            event(whole, e, t);
            event(&parts[t < CYCLES ? e / 3 % PARTS : 0], e, t);
        }
    }
    insee_stats_finish(whole, &f->net, CYCLES + TAIL, INSEE_PHASE_DRAIN);
    insee_stats_close_last(whole, CYCLES + TAIL, INSEE_PHASE_DRAIN);
    for (uint32_t k = 0; k < PARTS; k++)
        insee_stats_finish(&parts[k], &f->net, CYCLES + TAIL, INSEE_PHASE_DRAIN);
}

/* Equal bins, a shorter histogram's missing ones counting as zeros. */
static gboolean same_counts(const insee_counts *a, const insee_counts *b)
{
    for (uint32_t i = 0; i < MAX(a->len, b->len); i++)
        if ((i < a->len ? a->v[i] : 0) != (i < b->len ? b->v[i] : 0))
            return FALSE;
    return TRUE;
}

static gboolean same(const void *a, const void *b, size_t bytes)
{
    return memcmp(a, b, bytes) == 0;
}

static void assert_same_series(const insee_stats *a, const insee_stats *b)
{
    cr_assert_eq(a->series->len, b->series->len);
    for (guint i = 0; i < a->series->len; i++) {
        const insee_series_point *p = &g_array_index(a->series, insee_series_point, i);
        const insee_series_point *q = &g_array_index(b->series, insee_series_point, i);
        cr_assert(p->cycle == q->cycle && p->phase == q->phase && same(&p->w, &q->w, sizeof p->w),
                  "point %u", i);
    }
    cr_assert_eq(a->dir.series->len, b->dir.series->len);
    cr_assert(
        same(a->dir.series->data, b->dir.series->data, a->dir.series->len * sizeof(uint64_t)));
}

static void assert_same_figures(const insee_stats *a, const insee_stats *b)
{
    cr_assert(same(a->dropped, b->dropped, sizeof a->dropped));
    cr_assert(same_counts(&a->latency.bins, &b->latency.bins));
    cr_assert(same_counts(&a->latency_inj.bins, &b->latency_inj.bins));
    cr_assert(same_counts(&a->dist_inj, &b->dist_inj));
    cr_assert(same_counts(&a->dist_cons, &b->dist_cons));
    cr_assert(same_counts(&a->occ_transit, &b->occ_transit));
    cr_assert(same_counts(&a->occ_inject, &b->occ_inject));
    cr_assert(same(a->port_phits, b->port_phits, a->ovcs * sizeof(uint64_t)));
    cr_assert(same(a->node_inj, b->node_inj, NODES * sizeof(uint64_t)));
    cr_assert(same(a->node_acc, b->node_acc, NODES * sizeof(uint64_t)));
    cr_assert(same(a->pair_inj, b->pair_inj, NODES * NODES * sizeof(uint64_t)));
    cr_assert(same(a->pair_cons, b->pair_cons, NODES * NODES * sizeof(uint64_t)));
    cr_assert(same(a->dir.phits, b->dir.phits, a->dir.classes * sizeof(uint64_t)));
    cr_assert(same(a->dir.mark, b->dir.mark, a->dir.classes * sizeof(uint64_t)));
    cr_assert(same(&a->total, &b->total, sizeof a->total));
    cr_assert(same(&a->series_mark, &b->series_mark, sizeof a->series_mark));
    cr_assert(same(&a->phase_mark, &b->phase_mark, sizeof a->phase_mark));
    assert_same_series(a, b);
    cr_assert_eq(insee_lat_hist_quantile(&a->latency, 0.99),
                 insee_lat_hist_quantile(&b->latency, 0.99));
}

/* The fields every part shares, which the merge must leave as they were. */
typedef struct replicated {
    insee_stats_options opt;
    uint64_t nodes, queues, transit_queues, ovcs, classes; /* no padding to compare */
    uint64_t occupancy_area, occupancy_max, clock, next_split, window_start, window_end;
    uint64_t series_end, total_area;
} replicated;

static replicated replicated_of(const insee_stats *st)
{
    return (replicated){st->opt,
                        st->nodes,
                        st->queues,
                        st->transit_queues,
                        st->ovcs,
                        st->dir.classes,
                        st->occupancy_area,
                        st->occupancy_max,
                        st->clock,
                        st->next_split,
                        st->window_start,
                        st->window_end,
                        st->series_end,
                        st->total.occupancy_area};
}

Test(merge, parts_of_a_collector_add_up_to_the_whole)
{
    fake_net f;
    fake_net_init(&f);
    insee_stats whole, parts[PARTS];
    collect(&whole, parts, &f);
    cr_assert_neq(parts[0].total.delivered, whole.total.delivered, "the parts split nothing");
    cr_assert_neq(parts[0].latency.bins.len, parts[1].latency.bins.len,
                  "histograms of one length: their growth is not tested");
    cr_assert_gt(whole.latency.bins.len, INSEE_LAT_EXACT);
    replicated before[PARTS];
    for (uint32_t k = 0; k < PARTS; k++)
        before[k] = replicated_of(&parts[k]);

    merge_parts(parts, sizeof parts[0], FALSE);
    cr_assert_eq(whole.series->len, CYCLES / 100 + 1, "the last, partial interval is a point");
    replicated w = replicated_of(&whole);
    for (uint32_t k = 0; k < PARTS; k++) {
        replicated after = replicated_of(&parts[k]);
        cr_assert(same(&after, &before[k], sizeof after), "part %u: a replicated field moved", k);
        insee_stats_close_last(&parts[k], CYCLES + TAIL, INSEE_PHASE_DRAIN); /* on the sums */
        assert_same_figures(&parts[k], &whole);
        after = replicated_of(&parts[k]);
        cr_assert(same(&after, &w, sizeof after));
        insee_stats_clear(&parts[k]);
    }
    insee_stats_clear(&whole);
}

/* ---- the report ---------------------------------------------------------------- */

enum { APPS = 2 };

/* The summed counters of a report, by pointer, with the applications'. */
static size_t report_counters(insee_report *r, uint64_t **at)
{
    uint64_t *run[] = {&r->generated,
                       &r->injected,
                       &r->delivered,
                       &r->dropped,
                       &r->generated_phits,
                       &r->delivered_phits,
                       &r->hops,
                       &r->packet_hops,
                       &r->total_generated,
                       &r->total_delivered,
                       &r->total_dropped,
                       &r->total_copies,
                       &r->total_dropped_network,
                       &r->total_packet_hops,
                       &r->source_stalls,
                       &r->sum_generated_ids,
                       &r->sum_delivered_ids};
    size_t n = 0;
    for (size_t k = 0; k < G_N_ELEMENTS(run); k++)
        at[n++] = run[k];
    for (uint32_t a = 0; a < r->n_apps; a++) {
        insee_app_report *ar = &r->apps[a];
        uint64_t *app[] = {&ar->messages,  &ar->local_messages,  &ar->generated,
                           &ar->delivered, &ar->delivered_phits, &ar->hops};
        for (size_t k = 0; k < G_N_ELEMENTS(app); k++)
            at[n++] = app[k];
    }
    return n;
}

/* Part k's replicated and derived fields: its own values, so that any the
   merge touched shows. */
static void report_init(insee_report *r, uint32_t k)
{
    memset(r, 0, sizeof *r);
    r->seed = 3;
    r->nodes = NODES;
    r->cycles = CYCLES + k;
    r->completion = 100 + k;
    r->occupancy = 1.5 + k;
    r->occupancy_max = 20 + k;
    r->total_in_flight = 7 + k;
    r->dropped_source = 30 + k;
    r->latency_gen_q[2] = 40 + k;
    r->accepted_load = 0.25 * k;
    r->wall_seconds = k;
    r->n_apps = APPS;
    r->apps = g_new0(insee_app_report, APPS);
    for (uint32_t a = 0; a < APPS; a++) {
        r->apps[a].tasks = 4;
        r->apps[a].completion = 50 + k;
        r->apps[a].accepted_load = 0.5 * k;
    }
}

Test(merge, parts_of_a_report_add_up_to_the_whole)
{
    enum { MAX_COUNTERS = 17 + 6 * APPS, SAMPLES = 50000 };
    insee_report whole, parts[PARTS], before[PARTS];
    report_init(&whole, 0);
    for (uint32_t k = 0; k < PARTS; k++)
        report_init(&parts[k], k);
    uint64_t *w[MAX_COUNTERS], *p[PARTS][MAX_COUNTERS];
    size_t n = report_counters(&whole, w);
    for (uint32_t k = 0; k < PARTS; k++)
        cr_assert_eq(report_counters(&parts[k], p[k]), n);
    for (size_t i = 0; i < n; i++) /* id sums wrap on the parts: the sum is modular */
        for (uint32_t k = 0; k < PARTS; k++) {
            uint64_t v = mix(i * PARTS + k) >> (i >= 15 && i < 17 ? 0 : 20);
            *p[k][i] = v;
            *w[i] += v;
        }
    for (uint64_t s = 0; s < SAMPLES; s++) {
        uint64_t e = mix(s + 1000000), x = (UINT64_C(1) << 30) + e % 100000;
        insee_report *r = &parts[e / 5 % PARTS];
        insee_stat_add(&whole.latency_gen, x);
        insee_stat_add(&r->latency_gen, x);
        insee_stat_add(&whole.latency_inj, x / 2);
        insee_stat_add(&r->latency_inj, x / 2);
        insee_stat_add(&whole.apps[s % APPS].latency_gen, x);
        insee_stat_add(&r->apps[s % APPS].latency_gen, x);
    }
    insee_app_report apps_before[PARTS][APPS];
    for (uint32_t k = 0; k < PARTS; k++) {
        before[k] = parts[k];
        memcpy(apps_before[k], parts[k].apps, sizeof apps_before[k]);
    }

    merge_parts(parts, sizeof parts[0], TRUE);
    for (uint32_t k = 0; k < PARTS; k++) {
        /* What part k should hold: its own fields, the whole's sums. */
        insee_report expect = before[k];
        insee_app_report expect_apps[APPS];
        memcpy(expect_apps, apps_before[k], sizeof expect_apps);
        expect.apps = expect_apps;
        uint64_t *e[MAX_COUNTERS];
        report_counters(&expect, e);
        for (size_t i = 0; i < n; i++)
            *e[i] = *w[i];
        expect.latency_gen = whole.latency_gen;
        expect.latency_inj = whole.latency_inj;
        for (uint32_t a = 0; a < APPS; a++)
            expect_apps[a].latency_gen = whole.apps[a].latency_gen;
        expect.apps = parts[k].apps;
        cr_assert(same(&parts[k], &expect, sizeof expect), "part %u: the report", k);
        cr_assert(same(parts[k].apps, expect_apps, sizeof expect_apps), "part %u: its apps", k);
        cr_assert_eq(insee_stat_mean(&parts[k].latency_gen), insee_stat_mean(&whole.latency_gen));
        cr_assert_eq(insee_stat_std(&parts[k].latency_gen), insee_stat_std(&whole.latency_gen));
        g_free(parts[k].apps);
    }
    g_free(whole.apps);
}
