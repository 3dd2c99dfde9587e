/* kernel/stats/collect.c — the run's histograms, maps and series; contract
 * in collect.h. */
#include "stats/collect.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "config/config.h"
#include "engine/experiment.h"
#include "net/memory.h"

void insee_counts_grow(insee_counts *c, uint32_t i)
{
    uint32_t len = MAX(i + 1, c->len ? c->len * 2 : 16u);
    c->v = g_renew(uint64_t, c->v, len);
    memset(c->v + c->len, 0, (len - c->len) * sizeof *c->v);
    c->len = len;
}

uint64_t insee_counts_total(const insee_counts *c)
{
    uint64_t t = 0;
    for (uint32_t i = 0; i < c->len; i++)
        t += c->v[i];
    return t;
}

/* ---- latency histogram ---------------------------------------------------- */

#define SUB_BITS 7u /* 128 bins per power of two above the exact range */
#define EXACT_BITS 10u

static uint32_t lat_bin(uint64_t v)
{
    if (v < INSEE_LAT_EXACT)
        return (uint32_t)v;
    uint32_t e = 63u - (uint32_t)__builtin_clzll(v);
    uint32_t sub = (uint32_t)(v >> (e - SUB_BITS)) & ((1u << SUB_BITS) - 1);
    return INSEE_LAT_EXACT + ((e - EXACT_BITS) << SUB_BITS) + sub;
}

void insee_lat_hist_bin(uint32_t b, uint64_t *lo, uint64_t *hi)
{
    if (b < INSEE_LAT_EXACT) {
        *lo = *hi = b;
        return;
    }
    uint32_t k = b - INSEE_LAT_EXACT;
    uint32_t e = EXACT_BITS + (k >> SUB_BITS);
    uint64_t sub = k & ((1u << SUB_BITS) - 1);
    *lo = ((1ull << SUB_BITS) + sub) << (e - SUB_BITS);
    *hi = *lo + (1ull << (e - SUB_BITS)) - 1;
}

void insee_lat_hist_add_wide(insee_lat_hist *h, uint64_t cycles)
{
    insee_counts_add(&h->bins, lat_bin(cycles), 1);
}

uint64_t insee_lat_hist_quantile(const insee_lat_hist *h, double q)
{
    uint64_t total = insee_counts_total(&h->bins);
    if (!total)
        return 0;
    uint64_t target = (uint64_t)ceil(q * (double)total);
    target = CLAMP(target, 1, total);
    uint64_t seen = 0, lo, hi = 0;
    for (uint32_t b = 0; b < h->bins.len; b++) {
        seen += h->bins.v[b];
        if (seen >= target) {
            insee_lat_hist_bin(b, &lo, &hi);
            break;
        }
    }
    return hi;
}

/* ---- set-up ---------------------------------------------------------------- */

const char *insee_phase_name(insee_phase phase)
{
    static const char *const names[] = {"warm-up", "convergence", "measurement", "drain"};
    return names[phase];
}

/* Whether `need` bytes leave the network its room: at most half of what
   the process may still take. Otherwise the error names the figure (`what`
   and `advice`, printf-ready) and the limit. */
static gboolean fits_in_memory(uint64_t need, GError **err, const char *what, ...)
    G_GNUC_PRINTF(3, 4);

static gboolean fits_in_memory(uint64_t need, GError **err, const char *what, ...)
{
    const char *limit = NULL;
    uint64_t available = insee_memory_available(&limit);
    if (need <= available / 2)
        return TRUE;
    va_list ap;
    va_start(ap, what);
    char *figure = g_strdup_vprintf(what, ap);
    va_end(ap);
    g_set_error(err, INSEE_EXPERIMENT_ERROR, INSEE_EXPERIMENT_ERROR_SETUP,
                "%s needs %.1f MiB, more than half of the %.1f MiB this process may use (%s)",
                figure, (double)need / 1048576.0, (double)available / 1048576.0,
                limit ? limit : "memory available");
    g_free(figure);
    return FALSE;
}

/* nodes² counters twice. */
static gboolean pair_map_fits(uint32_t nodes, GError **err)
{
    return fits_in_memory(2ull * nodes * nodes * sizeof(uint64_t), err,
                          "[stats] pair_map = true (two %u x %u maps for %u nodes; turn it off, "
                          "or use distance_histograms and node_map, which grow linearly)",
                          nodes, nodes, nodes);
}

/* What a point of the series takes at most: the array's share (it doubles
   as it grows). */
#define SERIES_POINT_BYTES 128

gboolean insee_stats_series_fits(const insee_stats *st, uint64_t longest, GError **err)
{
    if (!st->opt.interval)
        return TRUE;
    uint64_t points = longest / st->opt.interval + 2; /* and a partial last one */
    double need = (double)points * (double)SERIES_POINT_BYTES;
    return fits_in_memory(need >= 1.8e19 ? UINT64_MAX : (uint64_t)need, err,
                          "[stats] interval = %" G_GUINT64_FORMAT " (a time series of up to %"
                          G_GUINT64_FORMAT " points over a run of up to %" G_GUINT64_FORMAT
                          " cycles; raise interval, shorten the run, or set interval = 0)",
                          st->opt.interval, points, longest);
}

gboolean insee_stats_init(insee_stats *st, const insee_stats_options *opt, const insee_net *net,
                          GError **err)
{
    memset(st, 0, sizeof *st);
    st->opt = *opt;
    st->nodes = net->nodes;
    st->queues = net->queues;
    st->transit_queues = net->transit_queues;
    st->ovcs = net->ovcs;
    st->window_start = st->window_end = UINT64_MAX;
    st->series_end = opt->interval ? opt->interval : UINT64_MAX;
    st->next_split = 0;
    st->series = g_array_new(FALSE, FALSE, sizeof(insee_series_point));
    if (opt->pair_map && !pair_map_fits(net->nodes, err))
        return FALSE;
    if (opt->queue_histograms)
        st->q_since = g_new0(uint64_t, net->queues);
    if (opt->port_map)
        st->port_phits = g_new0(uint64_t, net->ovcs);
    if (opt->node_map) {
        st->node_inj = g_new0(uint64_t, net->nodes);
        st->node_acc = g_new0(uint64_t, net->nodes);
    }
    if (opt->pair_map) {
        st->pair_inj = g_new0(uint64_t, (size_t)net->nodes * net->nodes);
        st->pair_cons = g_new0(uint64_t, (size_t)net->nodes * net->nodes);
    }
    return TRUE;
}

void insee_stats_clear(insee_stats *st)
{
    g_free(st->latency.bins.v);
    g_free(st->latency_inj.bins.v);
    g_free(st->dist_inj.v);
    g_free(st->dist_cons.v);
    g_free(st->occ_transit.v);
    g_free(st->occ_inject.v);
    g_free(st->q_since);
    g_free(st->port_phits);
    g_free(st->node_inj);
    g_free(st->node_acc);
    g_free(st->pair_inj);
    g_free(st->pair_cons);
    if (st->series)
        g_array_unref(st->series);
    g_free(st->dir.port_class);
    g_free(st->dir.links);
    g_free(st->dir.phits);
    g_free(st->dir.mark);
    if (st->dir.series)
        g_array_unref(st->dir.series);
    memset(st, 0, sizeof *st);
}

gboolean insee_stats_track_directions(insee_stats *st, const insee_net *net, const int32_t *dim,
                                      const int32_t *dir, GError **err)
{
    int32_t dims = 0;
    for (uint32_t gp = 0; gp < net->ports_total; gp++)
        if (dim[gp] >= 0 && dir[gp] != 0)
            dims = MAX(dims, dim[gp] + 1);
    if (!st->opt.interval || !dims) {
        g_set_error(err, INSEE_CONFIG_ERROR, INSEE_CONFIG_ERROR_INVALID,
                    "[stats] direction_series = true needs %s; set it to false, or %s",
                    !dims ? "a topology whose ports have a dimension or level and a direction"
                          : "the time series",
                    !dims ? "use such a topology" : "set [stats] interval > 0");
        return FALSE;
    }
    insee_directions *d = &st->dir;
    d->classes = 2 * (uint32_t)dims;
    d->vcs = net->vcs;
    d->port_class = g_new(uint16_t, MAX(net->ports_total, 1));
    d->links = g_new0(uint32_t, d->classes);
    d->phits = g_new0(uint64_t, d->classes);
    d->mark = g_new0(uint64_t, d->classes);
    d->series = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    for (uint32_t gp = 0; gp < net->ports_total; gp++) {
        gboolean counted = dim[gp] >= 0 && dir[gp] != 0 && net->peer_queue[gp] != INSEE_NONE;
        d->port_class[gp] = counted ? (uint16_t)(2 * dim[gp] + (dir[gp] < 0)) : UINT16_MAX;
        if (counted)
            d->links[d->port_class[gp]]++;
    }
    return TRUE;
}

/* The first boundary after `clock` that splits a stretch: an interval's
   end, the window's start or end. */
static uint64_t next_boundary(const insee_stats *st, uint64_t clock, uint64_t until);

void insee_stats_set_window(insee_stats *st, uint64_t start, uint64_t end)
{
    st->window_start = start;
    st->window_end = end;
    st->next_split = next_boundary(st, st->clock, UINT64_MAX);
}

/* ---- time ------------------------------------------------------------------ */

static uint64_t next_boundary(const insee_stats *st, uint64_t clock, uint64_t until)
{
    uint64_t end = until;
    if (st->series_end < end)
        end = st->series_end;
    if (st->window_start > clock && st->window_start < end)
        end = st->window_start;
    if (st->window_end > clock && st->window_end < end)
        end = st->window_end;
    return end;
}

insee_window insee_window_between(const insee_window *from, const insee_window *to)
{
    return (insee_window){
        .generated = to->generated - from->generated,
        .delivered = to->delivered - from->delivered,
        .dropped = to->dropped - from->dropped,
        .generated_phits = to->generated_phits - from->generated_phits,
        .delivered_phits = to->delivered_phits - from->delivered_phits,
        .hops = to->hops - from->hops,
        .latency_sum = to->latency_sum - from->latency_sum,
        .occupancy_area = to->occupancy_area - from->occupancy_area,
    };
}

static void close_interval(insee_stats *st, insee_phase phase)
{
    insee_series_point pt = {.cycle = st->series_end, .phase = phase,
                             .w = insee_window_between(&st->series_mark, &st->total)};
    g_array_append_val(st->series, pt);
    st->series_mark = st->total;
    for (uint32_t c = 0; c < st->dir.classes; c++) {
        uint64_t crossed = st->dir.phits[c] - st->dir.mark[c];
        g_array_append_val(st->dir.series, crossed);
        st->dir.mark[c] = st->dir.phits[c];
    }
    st->series_end += st->opt.interval;
}

void insee_stats_advance_split(insee_stats *st, uint64_t now, uint64_t in_network,
                               insee_phase phase)
{
    while (st->clock < now) {
        uint64_t end = next_boundary(st, st->clock, now);
        uint64_t area = in_network * (end - st->clock);
        st->total.occupancy_area += area;
        if (insee_stats_measuring(st, st->clock)) {
            st->occupancy_area += area;
            st->occupancy_max = MAX(st->occupancy_max, in_network);
        }
        st->clock = end;
        if (end == st->series_end)
            close_interval(st, phase);
    }
    st->next_split = next_boundary(st, st->clock, UINT64_MAX);
}

void insee_stats_occupancy(insee_stats *st, uint64_t at, uint64_t in_network, uint64_t cycles)
{
    uint64_t area = in_network * cycles;
    st->total.occupancy_area += area;
    if (insee_stats_measuring(st, at)) {
        st->occupancy_area += area;
        st->occupancy_max = MAX(st->occupancy_max, in_network);
    }
}

/* The part of [from, to) inside the measurement window. */
static uint64_t measured_span(const insee_stats *st, uint64_t from, uint64_t to)
{
    uint64_t a = MAX(from, st->window_start), b = MIN(to, st->window_end);
    return b > a ? b - a : 0;
}

void insee_stats_on_queue(void *stats, uint32_t q, uint32_t count)
{
    insee_stats *st = stats;
    if (st->q_counted && !st->q_counted[q])
        return;
    uint64_t span = measured_span(st, st->q_since[q], st->clock);
    if (span)
        insee_counts_add(q < st->transit_queues ? &st->occ_transit : &st->occ_inject, count, span);
    st->q_since[q] = st->clock;
}

void insee_stats_finish(insee_stats *st, const insee_net *net, uint64_t now, insee_phase phase)
{
    insee_stats_advance(st, now, 0, phase);
    if (st->q_since)
        for (uint32_t q = 0; q < st->queues; q++)
            insee_stats_on_queue(st, q, net->q[q].count);
}

void insee_stats_close_last(insee_stats *st, uint64_t now, insee_phase phase)
{
    insee_window last = insee_window_between(&st->series_mark, &st->total);
    if (st->opt.interval && (last.generated || last.delivered || last.dropped ||
                             last.occupancy_area || st->series->len == 0)) {
        st->series_end = now; /* a last, partial interval */
        close_interval(st, phase);
    }
}

/* ---- packets --------------------------------------------------------------- */

void insee_stats_on_injected(insee_stats *st, const insee_packet *pk, uint32_t distance,
                             uint64_t now)
{
    if (!insee_stats_measuring(st, now))
        return;
    if (st->opt.distance_histograms)
        insee_counts_add(&st->dist_inj, distance, 1);
    if (st->node_inj)
        st->node_inj[pk->src] += pk->phits;
    if (st->pair_inj)
        st->pair_inj[(size_t)pk->src * st->nodes + pk->dst]++;
}

void insee_stats_on_delivered(insee_stats *st, const insee_packet *pk, uint64_t now)
{
    if (G_UNLIKELY(st->trace))
        insee_trace_consumed(st->trace, pk, now);
    st->total.delivered++;
    st->total.delivered_phits += pk->phits;
    st->total.hops += pk->hops;
    st->total.latency_sum += now - pk->born;
    if (!insee_stats_measuring(st, now))
        return;
    if (st->opt.latency_histogram) {
        insee_lat_hist_add(&st->latency, now - pk->born);
        insee_lat_hist_add(&st->latency_inj, now - pk->injected);
    }
    if (st->opt.distance_histograms)
        insee_counts_add(&st->dist_cons, pk->hops, 1);
    if (st->node_acc)
        st->node_acc[pk->dst] += pk->phits;
    if (st->pair_cons)
        st->pair_cons[(size_t)pk->src * st->nodes + pk->dst]++;
}

void insee_stats_on_dropped(insee_stats *st, insee_drop_reason why, const insee_packet *pk,
                            uint32_t q, uint64_t now)
{
    if (G_UNLIKELY(st->trace))
        insee_trace_dropped(st->trace, pk, why, q, now);
    st->total.dropped++;
    if (insee_stats_measuring(st, now))
        st->dropped[why]++;
}

/* ---- figures --------------------------------------------------------------- */

double insee_load(uint64_t phits, uint32_t nodes, uint64_t cycles)
{
    double denom = (double)nodes * (double)cycles;
    return denom > 0 ? (double)phits / denom : 0.0;
}

double insee_window_latency(const insee_window *w)
{
    return w->delivered ? (double)w->latency_sum / (double)w->delivered : NAN;
}
