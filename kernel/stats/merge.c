/* kernel/stats/merge.c — the fold of a partitioned run's parts; contract in
 * merge.h. Scalars are gathered into one array so that a merge costs a few
 * collective calls, not one per field; every call's length depends only on
 * what every part shares (options, network, series length), so the parts'
 * calls pair up. */
#include "stats/merge.h"

#include <string.h>

/* Pointers to the scalars to sum, and to those to take the largest of. */
typedef struct fold {
    GPtrArray *sum, *max;
} fold;

static void sum(const insee_merge_ops *ops, uint64_t *v, size_t n)
{
    if (n)
        ops->sum(ops->ctx, v, n);
}

/* Every scalar `at` points to, replaced by `op` over the parts. */
static void combine(GPtrArray *at, void (*op)(void *, uint64_t *, size_t), void *ctx)
{
    if (!at->len)
        return;
    uint64_t *v = g_new(uint64_t, at->len);
    for (guint i = 0; i < at->len; i++)
        v[i] = *(const uint64_t *)g_ptr_array_index(at, i);
    op(ctx, v, at->len);
    for (guint i = 0; i < at->len; i++)
        *(uint64_t *)g_ptr_array_index(at, i) = v[i];
    g_free(v);
}

static void fold_run(fold *f, const insee_merge_ops *ops)
{
    combine(f->sum, ops->sum, ops->ctx);
    combine(f->max, ops->max, ops->ctx);
    g_ptr_array_free(f->sum, TRUE);
    g_ptr_array_free(f->max, TRUE);
}

static void add_sums(fold *f, uint64_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        g_ptr_array_add(f->sum, &v[i]);
}

/* A window's summed fields: all but occupancy_area, already the whole
   network's on every part. */
#define WINDOW_SUMMED 7
static void window_fields(insee_window *w, uint64_t *f[WINDOW_SUMMED])
{
    f[0] = &w->generated;
    f[1] = &w->delivered;
    f[2] = &w->dropped;
    f[3] = &w->generated_phits;
    f[4] = &w->delivered_phits;
    f[5] = &w->hops;
    f[6] = &w->latency_sum;
}

static void add_window(fold *f, insee_window *w)
{
    uint64_t *at[WINDOW_SUMMED];
    window_fields(w, at);
    for (int k = 0; k < WINDOW_SUMMED; k++)
        g_ptr_array_add(f->sum, at[k]);
}

/* The series' points packed into one array: it may hold many. */
static void merge_series(GArray *series, const insee_merge_ops *ops)
{
    size_t n = series->len * (size_t)WINDOW_SUMMED;
    uint64_t *v = g_new(uint64_t, MAX(n, 1));
    uint64_t *at[WINDOW_SUMMED];
    for (guint i = 0; i < series->len; i++) {
        window_fields(&g_array_index(series, insee_series_point, i).w, at);
        for (int k = 0; k < WINDOW_SUMMED; k++)
            v[i * WINDOW_SUMMED + k] = *at[k];
    }
    sum(ops, v, n);
    for (guint i = 0; i < series->len; i++) {
        window_fields(&g_array_index(series, insee_series_point, i).w, at);
        for (int k = 0; k < WINDOW_SUMMED; k++)
            *at[k] = v[i * WINDOW_SUMMED + k];
    }
    g_free(v);
}

/* Histograms: the longest part's length first, the others grown to it
   (their zeros beyond are never written out), then the bins summed. */
static void merge_histograms(insee_counts *const *c, size_t n, const insee_merge_ops *ops)
{
    uint64_t *len = g_new(uint64_t, n);
    for (size_t i = 0; i < n; i++)
        len[i] = c[i]->len;
    ops->max(ops->ctx, len, n);
    for (size_t i = 0; i < n; i++) {
        if (c[i]->len < len[i])
            insee_counts_grow(c[i], (uint32_t)len[i] - 1);
        sum(ops, c[i]->v, len[i]);
    }
    g_free(len);
}

void insee_stats_merge(insee_stats *st, const insee_merge_ops *ops)
{
    fold f = {g_ptr_array_new(), g_ptr_array_new()};
    add_sums(&f, st->dropped, INSEE_DROP_REASONS);
    add_window(&f, &st->total);
    add_window(&f, &st->series_mark);
    add_window(&f, &st->phase_mark);
    fold_run(&f, ops);

    insee_counts *const hist[] = {&st->latency.bins, &st->latency_inj.bins, &st->dist_inj,
                                  &st->dist_cons,    &st->occ_transit,      &st->occ_inject};
    merge_histograms(hist, G_N_ELEMENTS(hist), ops);
    if (st->port_phits)
        sum(ops, st->port_phits, st->ovcs);
    if (st->node_inj) {
        sum(ops, st->node_inj, st->nodes);
        sum(ops, st->node_acc, st->nodes);
    }
    if (st->pair_inj) {
        sum(ops, st->pair_inj, (size_t)st->nodes * st->nodes);
        sum(ops, st->pair_cons, (size_t)st->nodes * st->nodes);
    }
    merge_series(st->series, ops);
    if (st->dir.port_class) {
        sum(ops, st->dir.phits, st->dir.classes);
        sum(ops, st->dir.mark, st->dir.classes);
        sum(ops, (uint64_t *)(void *)st->dir.series->data, st->dir.series->len);
    }
}

static void add_stat(fold *f, insee_stat *s)
{
    uint64_t *summed[] = {&s->count, &s->sum, &s->sq_hi, &s->sq_lo};
    for (size_t k = 0; k < G_N_ELEMENTS(summed); k++)
        g_ptr_array_add(f->sum, summed[k]);
    g_ptr_array_add(f->max, &s->max);
}

void insee_report_merge(insee_report *rep, const insee_merge_ops *ops)
{
    fold f = {g_ptr_array_new(), g_ptr_array_new()};
    uint64_t *summed[] = {&rep->generated,
                          &rep->injected,
                          &rep->delivered,
                          &rep->dropped,
                          &rep->generated_phits,
                          &rep->delivered_phits,
                          &rep->hops,
                          &rep->packet_hops,
                          &rep->total_generated,
                          &rep->total_delivered,
                          &rep->total_dropped,
                          &rep->total_copies,
                          &rep->total_dropped_network,
                          &rep->total_packet_hops,
                          &rep->source_stalls,
                          &rep->sum_generated_ids,
                          &rep->sum_delivered_ids};
    for (size_t k = 0; k < G_N_ELEMENTS(summed); k++)
        g_ptr_array_add(f.sum, summed[k]);
    add_stat(&f, &rep->latency_gen);
    add_stat(&f, &rep->latency_inj);
    for (uint32_t a = 0; a < rep->n_apps; a++) {
        insee_app_report *ar = &rep->apps[a];
        uint64_t *app[] = {&ar->messages,  &ar->local_messages,  &ar->generated,
                           &ar->delivered, &ar->delivered_phits, &ar->hops};
        for (size_t k = 0; k < G_N_ELEMENTS(app); k++)
            g_ptr_array_add(f.sum, app[k]);
        add_stat(&f, &ar->latency_gen);
    }
    fold_run(&f, ops);
    insee_stat_normalise(&rep->latency_gen);
    insee_stat_normalise(&rep->latency_inj);
    for (uint32_t a = 0; a < rep->n_apps; a++)
        insee_stat_normalise(&rep->apps[a].latency_gen);
}
