/* kernel/stats/json.c — the run's JSON document (json.h), written as it is
 * built (json_writer.h). Objects follow docs/results.md in order. */
#include "stats/json.h"

#include <insee/insee.h>
#include <math.h>
#include <stddef.h>

#include "stats/json_writer.h"

/* ---- values ---------------------------------------------------------------- */

static void key(insee_jw *b, const char *k)
{
    if (k)
        insee_jw_key(b, k);
}

/* JSON has no NaN nor infinity: a figure over nothing is null. */
static void num(insee_jw *b, const char *k, double v)
{
    key(b, k);
    if (isfinite(v))
        insee_jw_double(b, v);
    else
        insee_jw_null(b);
}

static void count(insee_jw *b, const char *k, uint64_t v)
{
    key(b, k);
    insee_jw_int(b, (gint64)v);
}

static void flag(insee_jw *b, const char *k, gboolean v)
{
    key(b, k);
    insee_jw_bool(b, v);
}

static void text(insee_jw *b, const char *k, const char *v)
{
    key(b, k);
    if (v)
        insee_jw_string(b, v);
    else
        insee_jw_null(b);
}

static void null(insee_jw *b, const char *k)
{
    key(b, k);
    insee_jw_null(b);
}

/* A causal workload's completion; null for open-ended traffic. */
static void completion(insee_jw *b, gboolean causal, gboolean completed, uint64_t cycle)
{
    if (causal) {
        flag(b, "completed", completed);
        count(b, "completion", cycle);
    } else {
        null(b, "completed");
        null(b, "completion");
    }
}

/* n counters; with `trim`, trailing zeros left out (histograms). */
static void counts(insee_jw *b, const char *k, const uint64_t *v, uint32_t n, gboolean trim)
{
    while (trim && n > 0 && v[n - 1] == 0)
        n--;
    key(b, k);
    insee_jw_begin_array(b);
    for (uint32_t i = 0; i < n; i++)
        insee_jw_int(b, (gint64)v[i]);
    insee_jw_end_array(b);
}

static void histogram(insee_jw *b, const char *k, const insee_counts *c, gboolean on)
{
    if (on)
        counts(b, k, c->v, c->len, TRUE);
    else
        null(b, k);
}

/* ---- sections -------------------------------------------------------------- */

static void network(insee_jw *b, const insee_report *r, const insee_net *net,
                    const insee_layout *lay)
{
    key(b, "network");
    insee_jw_begin_object(b);
    count(b, "nodes", net->nodes);
    count(b, "routers", net->routers);
    count(b, "vcs", net->vcs);
    count(b, "packet_phits", r->packet_phits);
    count(b, "phit_bytes", lay->phit_bytes);
    count(b, "dims", lay->dims);
    key(b, "router_coords");
    if (lay->router_coords) {
        insee_jw_begin_array(b);
        for (uint32_t rt = 0; rt < net->routers; rt++) {
            insee_jw_begin_array(b);
            for (uint32_t d = 0; d < lay->dims; d++)
                insee_jw_int(b, lay->router_coords[(size_t)rt * lay->dims + d]);
            insee_jw_end_array(b);
        }
        insee_jw_end_array(b);
    } else {
        insee_jw_null(b);
    }
    key(b, "ports");
    insee_jw_begin_array(b);
    for (uint32_t gp = 0; gp < net->ports_total; gp++) {
        const insee_layout_port *p = &lay->ports[gp];
        insee_jw_begin_object(b);
        count(b, "router", net->port_router[gp]);
        count(b, "port", gp - net->port_base[net->port_router[gp]]);
        if (p->to == INSEE_NONE)
            null(b, "to");
        else
            count(b, "to", p->to);
        key(b, "dim");
        insee_jw_int(b, p->dim);
        key(b, "dir");
        insee_jw_int(b, p->dir);
        flag(b, "wrap", p->wrap);
        insee_jw_end_object(b);
    }
    insee_jw_end_array(b);
    insee_jw_end_object(b);
}

/* [network]'s timing and the summary's figures in its units; absent
   without the table, so INSEE's model writes the document it always did. */
static void timing(insee_jw *b, const insee_report *r)
{
    const insee_report_units *u = &r->units;
    if (!u->given)
        return;
    gboolean real = u->cycle_ns > 0;
    double ns = real ? u->cycle_ns : NAN;
    key(b, "timing");
    insee_jw_begin_object(b);
    num(b, "cycle_ns", ns);
    num(b, "link_gbytes_s", real ? u->link_gbytes_s : NAN);
    count(b, "cable_cycles", u->cable_cycles);
    count(b, "longest_cable_cycles", u->longest_cable_cycles);
    count(b, "router_cycles", u->router_cycles);
    count(b, "node_cable_cycles", u->node_cable_cycles);
    count(b, "node_phit_cycles", u->node_phit_cycles);
    count(b, "send_overhead_cycles", u->send_overhead);
    count(b, "recv_overhead_cycles", u->recv_overhead);
    count(b, "header_bytes", u->header_bytes);
    count(b, "mtu_bytes", u->variable_packets ? (uint64_t)r->packet_phits * u->phit_bytes : 0);
    count(b, "vc_buffer_bytes", u->buffer_bytes);
    count(b, "output_buffer_bytes", u->output_buffer_bytes);
    count(b, "crossbar_speedup", MAX(u->crossbar_speedup, 1u));
    num(b, "copy_cycles_per_byte", u->copy_cycles_per_byte);
    count(b, "nics", MAX(u->nics, 1u));
    key(b, "flow_control");
    insee_jw_string(b, u->wormhole ? "wormhole" : "vct");
    num(b, "simulated_us", (double)r->cycles * ns / 1e3);
    num(b, "accepted_gbytes_s_per_node", r->accepted_load * (real ? u->link_gbytes_s : NAN));
    num(b, "latency_mean_ns", r->latency_gen.count ? insee_stat_mean(&r->latency_gen) * ns : NAN);
    num(b, "latency_injection_mean_ns",
        r->latency_inj.count ? insee_stat_mean(&r->latency_inj) * ns : NAN);
    insee_jw_end_object(b);
}

static void run(insee_jw *b, const insee_report *r)
{
    gboolean converge = g_strcmp0(r->phases, "converge") == 0;
    key(b, "run");
    insee_jw_begin_object(b);
    count(b, "seed", r->seed);
    text(b, "phases", r->phases);
    if (converge)
        flag(b, "converged", r->converged);
    else
        null(b, "converged");
    count(b, "warmup", r->warmup_cycles);
    count(b, "convergence_cycles", r->convergence_cycles);
    count(b, "measured_cycles", r->measure_cycles);
    count(b, "cycles", r->cycles);
    count(b, "drain_cycles", r->drain_cycles);
    flag(b, "drained", r->drained);
    completion(b, r->causal, r->completed, r->completion);
    insee_jw_end_object(b);
}

static void latency(insee_jw *b, const char *k, const insee_stat *s, const uint64_t q[4],
                    gboolean quantiles)
{
    static const char *const names[] = {"p50", "p90", "p99", "p999"};
    key(b, k);
    insee_jw_begin_object(b);
    num(b, "mean", s->count ? insee_stat_mean(s) : NAN);
    num(b, "std", s->count > 1 ? insee_stat_std(s) : NAN);
    count(b, "max", s->max);
    for (int i = 0; i < 4; i++) {
        if (quantiles && s->count)
            count(b, names[i], q[i]);
        else
            null(b, names[i]);
    }
    insee_jw_end_object(b);
}

static void summary(insee_jw *b, const insee_report *r, const insee_stats *st)
{
    key(b, "summary");
    insee_jw_begin_object(b);
    num(b, "offered_load", r->offered_load >= 0 ? r->offered_load : NAN);
    num(b, "generated_load", r->generated_load);
    num(b, "accepted_load", r->accepted_load);
    count(b, "generated", r->generated);
    count(b, "injected", r->injected);
    count(b, "delivered", r->delivered);
    key(b, "dropped");
    insee_jw_begin_object(b);
    count(b, "total", r->dropped);
    count(b, "source_full", r->dropped_source);
    count(b, "router", r->dropped_router);
    count(b, "unroutable", r->dropped_unroutable);
    insee_jw_end_object(b);
    num(b, "avg_hops", r->delivered ? (double)r->hops / (double)r->delivered : NAN);
    count(b, "packet_hops", r->packet_hops);
    num(b, "occupancy", r->occupancy);
    count(b, "occupancy_max", r->occupancy_max);
    latency(b, "latency", &r->latency_gen, r->latency_gen_q, st->opt.latency_histogram);
    latency(b, "latency_injection", &r->latency_inj, r->latency_inj_q, st->opt.latency_histogram);
    insee_jw_end_object(b);
}

static void batches(insee_jw *b, const insee_report *r)
{
    if (g_strcmp0(r->phases, "converge") != 0) {
        null(b, "batches");
        return;
    }
    static const struct {
        const char *name;
        size_t field;
    } figures[] = {{"accepted_load", offsetof(insee_batch, accepted_load)},
                   {"generated_load", offsetof(insee_batch, generated_load)},
                   {"latency_mean", offsetof(insee_batch, latency_mean)},
                   {"avg_hops", offsetof(insee_batch, avg_hops)}};
    key(b, "batches");
    insee_jw_begin_object(b);
    count(b, "count", r->n_batches);
    count(b, "cycles", r->batch_cycles);
    key(b, "figures");
    insee_jw_begin_object(b);
    for (size_t f = 0; f < G_N_ELEMENTS(figures); f++) {
        insee_estimate e = insee_batch_estimate(r, figures[f].field);
        key(b, figures[f].name);
        insee_jw_begin_object(b);
        key(b, "values");
        insee_jw_begin_array(b);
        for (uint32_t i = 0; i < r->n_batches; i++)
            num(b, NULL, *(const double *)((const char *)&r->batches[i] + figures[f].field));
        insee_jw_end_array(b);
        num(b, "mean", e.mean);
        num(b, "std", e.std);
        key(b, "ci95");
        insee_jw_begin_array(b);
        num(b, NULL, e.ci_lo);
        num(b, NULL, e.ci_hi);
        insee_jw_end_array(b);
        insee_jw_end_object(b);
    }
    insee_jw_end_object(b);
    insee_jw_end_object(b);
}

/* One column of the series. */
typedef enum { COL_GENERATED, COL_ACCEPTED, COL_LATENCY, COL_HOPS, COL_OCCUPANCY, COL_DROPPED } column;

static double point_value(const insee_series_point *pt, uint64_t cycles, column c,
                          const insee_stats *st)
{
    const insee_window *w = &pt->w;
    switch (c) {
    case COL_GENERATED: return insee_load(w->generated_phits, st->nodes, cycles);
    case COL_ACCEPTED: return insee_load(w->delivered_phits, st->nodes, cycles);
    case COL_LATENCY: return insee_window_latency(w);
    case COL_HOPS: return w->delivered ? (double)w->hops / (double)w->delivered : NAN;
    case COL_OCCUPANCY: return cycles ? (double)w->occupancy_area / (double)cycles : NAN;
    case COL_DROPPED: return (double)w->dropped;
    }
    return NAN;
}

/* [stats] direction_series: per dimension and direction, its links and
   their mean utilisation (phits per link per cycle) in every interval of
   the series, and in GB/s per link when the cycle has a length. Absent
   without it, so other runs write the document they always did. */
static void directions(insee_jw *b, const insee_stats *st, const insee_report *r)
{
    const insee_directions *d = &st->dir;
    const insee_series_point *pts = (const insee_series_point *)st->series->data;
    const uint64_t *phits = (const uint64_t *)(void *)d->series->data;
    double gb = r->units.cycle_ns > 0 ? r->units.link_gbytes_s : NAN;
    key(b, "direction_series");
    insee_jw_begin_array(b);
    for (uint32_t c = 0; c < d->classes; c++) {
        insee_jw_begin_object(b);
        count(b, "dim", c / 2);
        key(b, "dir");
        insee_jw_int(b, c % 2 ? -1 : 1);
        count(b, "links", d->links[c]);
        const char *names[] = {"utilisation", "gbytes_s"};
        for (int k = 0; k < 2; k++) {
            key(b, names[k]);
            insee_jw_begin_array(b);
            for (guint i = 0; i < st->series->len; i++) {
                uint64_t cycles = pts[i].cycle - (i ? pts[i - 1].cycle : 0);
                double u = d->links[c] && cycles ? (double)phits[(size_t)i * d->classes + c] /
                                                       ((double)d->links[c] * (double)cycles)
                                                 : NAN;
                num(b, NULL, k ? u * gb : u);
            }
            insee_jw_end_array(b);
        }
        insee_jw_end_object(b);
    }
    insee_jw_end_array(b);
}

static void series(insee_jw *b, const insee_stats *st)
{
    if (!st->opt.interval) {
        null(b, "series");
        return;
    }
    static const struct {
        const char *name;
        column c;
    } cols[] = {{"generated_load", COL_GENERATED}, {"accepted_load", COL_ACCEPTED},
                {"latency_mean", COL_LATENCY},     {"avg_hops", COL_HOPS},
                {"occupancy", COL_OCCUPANCY},      {"dropped", COL_DROPPED}};
    const insee_series_point *pts = (const insee_series_point *)st->series->data;
    guint n = st->series->len;
    key(b, "series");
    insee_jw_begin_object(b);
    count(b, "interval", st->opt.interval);
    key(b, "cycle");
    insee_jw_begin_array(b);
    for (guint i = 0; i < n; i++)
        insee_jw_int(b, (gint64)pts[i].cycle);
    insee_jw_end_array(b);
    key(b, "phase");
    insee_jw_begin_array(b);
    for (guint i = 0; i < n; i++)
        insee_jw_string(b, insee_phase_name(pts[i].phase));
    insee_jw_end_array(b);
    for (size_t c = 0; c < G_N_ELEMENTS(cols); c++) {
        key(b, cols[c].name);
        insee_jw_begin_array(b);
        for (guint i = 0; i < n; i++) {
            uint64_t from = i ? pts[i - 1].cycle : 0;
            num(b, NULL, point_value(&pts[i], pts[i].cycle - from, cols[c].c, st));
        }
        insee_jw_end_array(b);
    }
    insee_jw_end_object(b);
}

static void histograms(insee_jw *b, const insee_stats *st)
{
    key(b, "histograms");
    insee_jw_begin_object(b);
    key(b, "latency");
    if (st->opt.latency_histogram) {
        insee_jw_begin_array(b);
        for (uint32_t i = 0; i < st->latency.bins.len; i++) {
            if (!st->latency.bins.v[i])
                continue;
            uint64_t lo, hi;
            insee_lat_hist_bin(i, &lo, &hi);
            insee_jw_begin_object(b);
            count(b, "lo", lo);
            count(b, "hi", hi);
            count(b, "count", st->latency.bins.v[i]);
            insee_jw_end_object(b);
        }
        insee_jw_end_array(b);
    } else {
        insee_jw_null(b);
    }
    histogram(b, "distance_injection", &st->dist_inj, st->opt.distance_histograms);
    histogram(b, "distance_consumption", &st->dist_cons, st->opt.distance_histograms);
    key(b, "queue_occupancy");
    if (st->opt.queue_histograms) {
        insee_jw_begin_object(b);
        histogram(b, "transit", &st->occ_transit, TRUE);
        histogram(b, "injection", &st->occ_inject, TRUE);
        insee_jw_end_object(b);
    } else {
        insee_jw_null(b);
    }
    insee_jw_end_object(b);
}

static void pair_map(insee_jw *b, const char *k, const uint64_t *m, uint32_t nodes)
{
    key(b, k);
    insee_jw_begin_array(b);
    for (uint32_t s = 0; s < nodes; s++)
        counts(b, NULL, m + (size_t)s * nodes, nodes, FALSE);
    insee_jw_end_array(b);
}

static void maps(insee_jw *b, const insee_report *r, const insee_stats *st,
                 const insee_net *net)
{
    key(b, "maps");
    insee_jw_begin_object(b);
    key(b, "port_load");
    if (st->port_phits) {
        insee_jw_begin_object(b);
        count(b, "cycles", r->measure_cycles);
        key(b, "phits");
        insee_jw_begin_array(b);
        for (uint32_t gp = 0; gp < net->ports_total; gp++)
            counts(b, NULL, st->port_phits + (size_t)gp * net->vcs, net->vcs, FALSE);
        insee_jw_end_array(b);
        insee_jw_end_object(b);
    } else {
        insee_jw_null(b);
    }
    if (st->node_inj) {
        counts(b, "node_injected", st->node_inj, net->nodes, FALSE);
        counts(b, "node_accepted", st->node_acc, net->nodes, FALSE);
    } else {
        null(b, "node_injected");
        null(b, "node_accepted");
    }
    key(b, "pairs");
    if (st->pair_inj) {
        insee_jw_begin_object(b);
        pair_map(b, "injection", st->pair_inj, net->nodes);
        pair_map(b, "consumption", st->pair_cons, net->nodes);
        insee_jw_end_object(b);
    } else {
        insee_jw_null(b);
    }
    insee_jw_end_object(b);
}

void insee_json_job(insee_jw *b, const insee_report *r, const insee_app_report *ar)
{
    insee_job_figures f;
    insee_job_figures_of(ar, r->sched->bsld_min, &f);
    key(b, "job");
    insee_jw_begin_object(b);
    num(b, "arrival", ar->job_arrival);
    num(b, "estimated_runtime", ar->job_estimate);
    num(b, "start", ar->job_start);
    num(b, "end", ar->job_end);
    num(b, "wait", f.wait);
    num(b, "run", f.run);
    num(b, "turnaround", f.turnaround);
    num(b, "slowdown", f.slowdown);
    num(b, "bounded_slowdown", f.bounded_slowdown);
    key(b, "nodes");
    insee_jw_begin_array(b);
    for (uint32_t i = 0; i < ar->job_nodes; i++)
        insee_jw_int(b, ar->job_node[i]);
    insee_jw_end_array(b);
    insee_jw_end_object(b);
}

static void applications(insee_jw *b, const insee_report *r)
{
    key(b, "applications");
    insee_jw_begin_array(b);
    for (uint32_t a = 0; a < r->n_apps; a++) {
        const insee_app_report *ar = &r->apps[a];
        insee_jw_begin_object(b);
        text(b, "name", ar->name);
        text(b, "plugins", ar->plugins);
        count(b, "tasks", ar->tasks);
        count(b, "nodes", ar->nodes);
        flag(b, "causal", ar->causal);
        completion(b, ar->causal, ar->completed, ar->completion);
        count(b, "messages", ar->messages);
        count(b, "local_messages", ar->local_messages);
        count(b, "generated", ar->generated);
        count(b, "delivered", ar->delivered);
        num(b, "avg_hops", ar->delivered ? (double)ar->hops / (double)ar->delivered : NAN);
        num(b, "latency_mean", ar->latency_gen.count ? insee_stat_mean(&ar->latency_gen) : NAN);
        num(b, "offered_load", ar->offered_load >= 0 ? ar->offered_load : NAN);
        num(b, "accepted_load", ar->accepted_load);
        if (ar->job)
            insee_json_job(b, r, ar);
        insee_jw_end_object(b);
    }
    insee_jw_end_array(b);
}

void insee_json_scheduler(insee_jw *b, const insee_report *r)
{
    const insee_sched_summary *s = r->sched;
    if (!s)
        return;
    key(b, "scheduler");
    insee_jw_begin_object(b);
    text(b, "unit", s->unit);
    text(b, "selection", s->selection);
    text(b, "allocation", s->allocation);
    count(b, "jobs", s->jobs);
    count(b, "completed", s->completed);
    count(b, "nodes", s->nodes);
    num(b, "first_arrival", s->first_arrival);
    num(b, "makespan", s->makespan);
    num(b, "throughput", s->throughput);
    num(b, "busy_node_time", s->busy_node_time);
    num(b, "utilisation", s->utilisation);
    num(b, "mean_wait", s->mean_wait);
    num(b, "mean_turnaround", s->mean_turnaround);
    num(b, "mean_slowdown", s->mean_slowdown);
    num(b, "mean_bounded_slowdown", s->mean_bounded_slowdown);
    num(b, "bounded_slowdown_min", s->bsld_min);
    key(b, "busy_nodes");
    insee_jw_begin_array(b);
    for (uint32_t i = 0; i < s->n_series; i++) {
        insee_jw_begin_object(b);
        num(b, "from", s->series_at[i]);
        count(b, "nodes", s->series_busy[i]);
        insee_jw_end_object(b);
    }
    insee_jw_end_array(b);
    insee_jw_end_object(b);
}

static void plugin_figures(insee_jw *b, const insee_report *r)
{
    key(b, "plugin_figures");
    insee_jw_begin_array(b);
    for (uint32_t i = 0; i < r->n_figures; i++) {
        insee_jw_begin_object(b);
        text(b, "section", r->figures[i].section);
        text(b, "name", r->figures[i].name);
        num(b, "value", r->figures[i].value);
        text(b, "unit", r->figures[i].unit);
        insee_jw_end_object(b);
    }
    insee_jw_end_array(b);
}

static void performance(insee_jw *b, const insee_report *r)
{
    key(b, "performance");
    insee_jw_begin_object(b);
    num(b, "setup_seconds", r->setup_seconds);
    num(b, "wall_seconds", r->wall_seconds);
    num(b, "cycles_per_second", r->cycles_per_second);
    num(b, "packet_hops_per_second", r->packet_hops_per_second);
    count(b, "peak_rss_kib", r->peak_rss_kib);
    if (r->parts > 1) { /* a run split over mpirun's ranks or threads */
        count(b, "parts", r->parts);
        flag(b, "parts_on_threads", r->parts_on_threads);
        count(b, "links", r->links);
        count(b, "cut_links", r->cut_links);
        count(b, "exchanges", r->exchanges);
        count(b, "lookahead", r->lookahead);
        num(b, "exchange_seconds", r->exchange_seconds);
    }
    insee_jw_end_object(b);
}

gboolean insee_json_write(const char *path, const insee_report *r, const insee_stats *st,
                          const insee_net *net, const insee_layout *layout, GError **err)
{
    insee_jw *b = insee_jw_open(path, "[stats] json", err);
    if (!b)
        return FALSE;
    insee_jw_begin_object(b);
    text(b, "format", INSEE_RESULTS_FORMAT);
    count(b, "format_version", INSEE_RESULTS_VERSION);
    text(b, "status", "complete");
    key(b, "insee");
    insee_jw_begin_object(b);
    text(b, "version", INSEE_VERSION);
    char *abi = g_strdup_printf("%u.%u", INSEE_ABI_MAJOR, INSEE_ABI_MINOR);
    text(b, "abi", abi);
    g_free(abi);
    insee_jw_end_object(b);
    text(b, "config", r->echo);
    text(b, "plugins", r->plugins);
    text(b, "params", r->params ? r->params : "");
    network(b, r, net, layout);
    timing(b, r);
    run(b, r);
    summary(b, r, st);
    batches(b, r);
    series(b, st);
    if (st->dir.port_class)
        directions(b, st, r);
    histograms(b, st);
    maps(b, r, st, net);
    applications(b, r);
    insee_json_scheduler(b, r);
    plugin_figures(b, r);
    performance(b, r);
    insee_jw_end_object(b);
    return insee_jw_close(b, err);
}
