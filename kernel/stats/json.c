/* kernel/stats/json.c — the run's JSON document (json.h), built with
 * json-glib. Objects follow docs/results.md in order. */
#include "stats/json.h"

#include <insee/insee.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <stddef.h>

#include "stats/output.h"

/* ---- values ---------------------------------------------------------------- */

static void key(JsonBuilder *b, const char *k)
{
    if (k)
        json_builder_set_member_name(b, k);
}

/* JSON has no NaN nor infinity: a figure over nothing is null. */
static void num(JsonBuilder *b, const char *k, double v)
{
    key(b, k);
    if (isfinite(v))
        json_builder_add_double_value(b, v);
    else
        json_builder_add_null_value(b);
}

static void count(JsonBuilder *b, const char *k, uint64_t v)
{
    key(b, k);
    json_builder_add_int_value(b, (gint64)v);
}

static void flag(JsonBuilder *b, const char *k, gboolean v)
{
    key(b, k);
    json_builder_add_boolean_value(b, v);
}

static void text(JsonBuilder *b, const char *k, const char *v)
{
    key(b, k);
    if (v)
        json_builder_add_string_value(b, v);
    else
        json_builder_add_null_value(b);
}

static void null(JsonBuilder *b, const char *k)
{
    key(b, k);
    json_builder_add_null_value(b);
}

/* A causal workload's completion; null for open-ended traffic. */
static void completion(JsonBuilder *b, gboolean causal, gboolean completed, uint64_t cycle)
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
static void counts(JsonBuilder *b, const char *k, const uint64_t *v, uint32_t n, gboolean trim)
{
    while (trim && n > 0 && v[n - 1] == 0)
        n--;
    key(b, k);
    json_builder_begin_array(b);
    for (uint32_t i = 0; i < n; i++)
        json_builder_add_int_value(b, (gint64)v[i]);
    json_builder_end_array(b);
}

static void histogram(JsonBuilder *b, const char *k, const insee_counts *c, gboolean on)
{
    if (on)
        counts(b, k, c->v, c->len, TRUE);
    else
        null(b, k);
}

/* ---- sections -------------------------------------------------------------- */

static void network(JsonBuilder *b, const insee_report *r, const insee_net *net,
                    const insee_layout *lay)
{
    key(b, "network");
    json_builder_begin_object(b);
    count(b, "nodes", net->nodes);
    count(b, "routers", net->routers);
    count(b, "vcs", net->vcs);
    count(b, "packet_phits", r->packet_phits);
    count(b, "phit_bytes", lay->phit_bytes);
    count(b, "dims", lay->dims);
    key(b, "router_coords");
    if (lay->router_coords) {
        json_builder_begin_array(b);
        for (uint32_t rt = 0; rt < net->routers; rt++) {
            json_builder_begin_array(b);
            for (uint32_t d = 0; d < lay->dims; d++)
                json_builder_add_int_value(b, lay->router_coords[(size_t)rt * lay->dims + d]);
            json_builder_end_array(b);
        }
        json_builder_end_array(b);
    } else {
        json_builder_add_null_value(b);
    }
    key(b, "ports");
    json_builder_begin_array(b);
    for (uint32_t gp = 0; gp < net->ports_total; gp++) {
        const insee_layout_port *p = &lay->ports[gp];
        json_builder_begin_object(b);
        count(b, "router", net->port_router[gp]);
        count(b, "port", gp - net->port_base[net->port_router[gp]]);
        if (p->to == INSEE_NONE)
            null(b, "to");
        else
            count(b, "to", p->to);
        key(b, "dim");
        json_builder_add_int_value(b, p->dim);
        key(b, "dir");
        json_builder_add_int_value(b, p->dir);
        flag(b, "wrap", p->wrap);
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
    json_builder_end_object(b);
}

/* [network]'s timing and the summary's figures in its units; absent
   without the table, so INSEE's model writes the document it always did. */
static void timing(JsonBuilder *b, const insee_report *r)
{
    const insee_report_units *u = &r->units;
    if (!u->given)
        return;
    gboolean real = u->cycle_ns > 0;
    double ns = real ? u->cycle_ns : NAN;
    key(b, "timing");
    json_builder_begin_object(b);
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
    json_builder_add_string_value(b, u->wormhole ? "wormhole" : "vct");
    num(b, "simulated_us", (double)r->cycles * ns / 1e3);
    num(b, "accepted_gbytes_s_per_node", r->accepted_load * (real ? u->link_gbytes_s : NAN));
    num(b, "latency_mean_ns", r->latency_gen.count ? insee_stat_mean(&r->latency_gen) * ns : NAN);
    num(b, "latency_injection_mean_ns",
        r->latency_inj.count ? insee_stat_mean(&r->latency_inj) * ns : NAN);
    json_builder_end_object(b);
}

static void run(JsonBuilder *b, const insee_report *r)
{
    gboolean converge = g_strcmp0(r->phases, "converge") == 0;
    key(b, "run");
    json_builder_begin_object(b);
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
    json_builder_end_object(b);
}

static void latency(JsonBuilder *b, const char *k, const insee_stat *s, const uint64_t q[4],
                    gboolean quantiles)
{
    static const char *const names[] = {"p50", "p90", "p99", "p999"};
    key(b, k);
    json_builder_begin_object(b);
    num(b, "mean", s->count ? insee_stat_mean(s) : NAN);
    num(b, "std", s->count > 1 ? insee_stat_std(s) : NAN);
    count(b, "max", s->max);
    for (int i = 0; i < 4; i++) {
        if (quantiles && s->count)
            count(b, names[i], q[i]);
        else
            null(b, names[i]);
    }
    json_builder_end_object(b);
}

static void summary(JsonBuilder *b, const insee_report *r, const insee_stats *st)
{
    key(b, "summary");
    json_builder_begin_object(b);
    num(b, "offered_load", r->offered_load >= 0 ? r->offered_load : NAN);
    num(b, "generated_load", r->generated_load);
    num(b, "accepted_load", r->accepted_load);
    count(b, "generated", r->generated);
    count(b, "injected", r->injected);
    count(b, "delivered", r->delivered);
    key(b, "dropped");
    json_builder_begin_object(b);
    count(b, "total", r->dropped);
    count(b, "source_full", r->dropped_source);
    count(b, "router", r->dropped_router);
    count(b, "unroutable", r->dropped_unroutable);
    json_builder_end_object(b);
    num(b, "avg_hops", r->delivered ? (double)r->hops / (double)r->delivered : NAN);
    count(b, "packet_hops", r->packet_hops);
    num(b, "occupancy", r->occupancy);
    count(b, "occupancy_max", r->occupancy_max);
    latency(b, "latency", &r->latency_gen, r->latency_gen_q, st->opt.latency_histogram);
    latency(b, "latency_injection", &r->latency_inj, r->latency_inj_q, st->opt.latency_histogram);
    json_builder_end_object(b);
}

static void batches(JsonBuilder *b, const insee_report *r)
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
    json_builder_begin_object(b);
    count(b, "count", r->n_batches);
    count(b, "cycles", r->batch_cycles);
    key(b, "figures");
    json_builder_begin_object(b);
    for (size_t f = 0; f < G_N_ELEMENTS(figures); f++) {
        insee_estimate e = insee_batch_estimate(r, figures[f].field);
        key(b, figures[f].name);
        json_builder_begin_object(b);
        key(b, "values");
        json_builder_begin_array(b);
        for (uint32_t i = 0; i < r->n_batches; i++)
            num(b, NULL, *(const double *)((const char *)&r->batches[i] + figures[f].field));
        json_builder_end_array(b);
        num(b, "mean", e.mean);
        num(b, "std", e.std);
        key(b, "ci95");
        json_builder_begin_array(b);
        num(b, NULL, e.ci_lo);
        num(b, NULL, e.ci_hi);
        json_builder_end_array(b);
        json_builder_end_object(b);
    }
    json_builder_end_object(b);
    json_builder_end_object(b);
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
static void directions(JsonBuilder *b, const insee_stats *st, const insee_report *r)
{
    const insee_directions *d = &st->dir;
    const insee_series_point *pts = (const insee_series_point *)st->series->data;
    const uint64_t *phits = (const uint64_t *)(void *)d->series->data;
    double gb = r->units.cycle_ns > 0 ? r->units.link_gbytes_s : NAN;
    key(b, "direction_series");
    json_builder_begin_array(b);
    for (uint32_t c = 0; c < d->classes; c++) {
        json_builder_begin_object(b);
        count(b, "dim", c / 2);
        key(b, "dir");
        json_builder_add_int_value(b, c % 2 ? -1 : 1);
        count(b, "links", d->links[c]);
        const char *names[] = {"utilisation", "gbytes_s"};
        for (int k = 0; k < 2; k++) {
            key(b, names[k]);
            json_builder_begin_array(b);
            for (guint i = 0; i < st->series->len; i++) {
                uint64_t cycles = pts[i].cycle - (i ? pts[i - 1].cycle : 0);
                double u = d->links[c] && cycles ? (double)phits[(size_t)i * d->classes + c] /
                                                       ((double)d->links[c] * (double)cycles)
                                                 : NAN;
                num(b, NULL, k ? u * gb : u);
            }
            json_builder_end_array(b);
        }
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
}

static void series(JsonBuilder *b, const insee_stats *st)
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
    json_builder_begin_object(b);
    count(b, "interval", st->opt.interval);
    key(b, "cycle");
    json_builder_begin_array(b);
    for (guint i = 0; i < n; i++)
        json_builder_add_int_value(b, (gint64)pts[i].cycle);
    json_builder_end_array(b);
    key(b, "phase");
    json_builder_begin_array(b);
    for (guint i = 0; i < n; i++)
        json_builder_add_string_value(b, insee_phase_name(pts[i].phase));
    json_builder_end_array(b);
    for (size_t c = 0; c < G_N_ELEMENTS(cols); c++) {
        key(b, cols[c].name);
        json_builder_begin_array(b);
        for (guint i = 0; i < n; i++) {
            uint64_t from = i ? pts[i - 1].cycle : 0;
            num(b, NULL, point_value(&pts[i], pts[i].cycle - from, cols[c].c, st));
        }
        json_builder_end_array(b);
    }
    json_builder_end_object(b);
}

static void histograms(JsonBuilder *b, const insee_stats *st)
{
    key(b, "histograms");
    json_builder_begin_object(b);
    key(b, "latency");
    if (st->opt.latency_histogram) {
        json_builder_begin_array(b);
        for (uint32_t i = 0; i < st->latency.bins.len; i++) {
            if (!st->latency.bins.v[i])
                continue;
            uint64_t lo, hi;
            insee_lat_hist_bin(i, &lo, &hi);
            json_builder_begin_object(b);
            count(b, "lo", lo);
            count(b, "hi", hi);
            count(b, "count", st->latency.bins.v[i]);
            json_builder_end_object(b);
        }
        json_builder_end_array(b);
    } else {
        json_builder_add_null_value(b);
    }
    histogram(b, "distance_injection", &st->dist_inj, st->opt.distance_histograms);
    histogram(b, "distance_consumption", &st->dist_cons, st->opt.distance_histograms);
    key(b, "queue_occupancy");
    if (st->opt.queue_histograms) {
        json_builder_begin_object(b);
        histogram(b, "transit", &st->occ_transit, TRUE);
        histogram(b, "injection", &st->occ_inject, TRUE);
        json_builder_end_object(b);
    } else {
        json_builder_add_null_value(b);
    }
    json_builder_end_object(b);
}

static void pair_map(JsonBuilder *b, const char *k, const uint64_t *m, uint32_t nodes)
{
    key(b, k);
    json_builder_begin_array(b);
    for (uint32_t s = 0; s < nodes; s++)
        counts(b, NULL, m + (size_t)s * nodes, nodes, FALSE);
    json_builder_end_array(b);
}

static void maps(JsonBuilder *b, const insee_report *r, const insee_stats *st,
                 const insee_net *net)
{
    key(b, "maps");
    json_builder_begin_object(b);
    key(b, "port_load");
    if (st->port_phits) {
        json_builder_begin_object(b);
        count(b, "cycles", r->measure_cycles);
        key(b, "phits");
        json_builder_begin_array(b);
        for (uint32_t gp = 0; gp < net->ports_total; gp++)
            counts(b, NULL, st->port_phits + (size_t)gp * net->vcs, net->vcs, FALSE);
        json_builder_end_array(b);
        json_builder_end_object(b);
    } else {
        json_builder_add_null_value(b);
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
        json_builder_begin_object(b);
        pair_map(b, "injection", st->pair_inj, net->nodes);
        pair_map(b, "consumption", st->pair_cons, net->nodes);
        json_builder_end_object(b);
    } else {
        json_builder_add_null_value(b);
    }
    json_builder_end_object(b);
}

void insee_json_job(void *builder, const insee_report *r, const insee_app_report *ar)
{
    JsonBuilder *b = builder;
    insee_job_figures f;
    insee_job_figures_of(ar, r->sched->bsld_min, &f);
    key(b, "job");
    json_builder_begin_object(b);
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
    json_builder_begin_array(b);
    for (uint32_t i = 0; i < ar->job_nodes; i++)
        json_builder_add_int_value(b, ar->job_node[i]);
    json_builder_end_array(b);
    json_builder_end_object(b);
}

static void applications(JsonBuilder *b, const insee_report *r)
{
    key(b, "applications");
    json_builder_begin_array(b);
    for (uint32_t a = 0; a < r->n_apps; a++) {
        const insee_app_report *ar = &r->apps[a];
        json_builder_begin_object(b);
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
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
}

void insee_json_scheduler(void *builder, const insee_report *r)
{
    JsonBuilder *b = builder;
    const insee_sched_summary *s = r->sched;
    if (!s)
        return;
    key(b, "scheduler");
    json_builder_begin_object(b);
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
    json_builder_begin_array(b);
    for (uint32_t i = 0; i < s->n_series; i++) {
        json_builder_begin_object(b);
        num(b, "from", s->series_at[i]);
        count(b, "nodes", s->series_busy[i]);
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
    json_builder_end_object(b);
}

static void plugin_figures(JsonBuilder *b, const insee_report *r)
{
    key(b, "plugin_figures");
    json_builder_begin_array(b);
    for (uint32_t i = 0; i < r->n_figures; i++) {
        json_builder_begin_object(b);
        text(b, "section", r->figures[i].section);
        text(b, "name", r->figures[i].name);
        num(b, "value", r->figures[i].value);
        text(b, "unit", r->figures[i].unit);
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
}

static void performance(JsonBuilder *b, const insee_report *r)
{
    key(b, "performance");
    json_builder_begin_object(b);
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
        num(b, "exchange_seconds", r->exchange_seconds);
    }
    json_builder_end_object(b);
}

gboolean insee_json_write(const char *path, const insee_report *r, const insee_stats *st,
                          const insee_net *net, const insee_layout *layout, GError **err)
{
    JsonBuilder *b = json_builder_new();
    json_builder_begin_object(b);
    text(b, "format", INSEE_RESULTS_FORMAT);
    count(b, "format_version", INSEE_RESULTS_VERSION);
    text(b, "status", "complete");
    key(b, "insee");
    json_builder_begin_object(b);
    text(b, "version", INSEE_VERSION);
    char *abi = g_strdup_printf("%u.%u", INSEE_ABI_MAJOR, INSEE_ABI_MINOR);
    text(b, "abi", abi);
    g_free(abi);
    json_builder_end_object(b);
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
    json_builder_end_object(b);
    return insee_json_write_builder(path, b, err);
}

gboolean insee_json_write_builder(const char *path, void *builder, GError **err)
{
    JsonBuilder *b = builder;
    JsonGenerator *gen = json_generator_new();
    JsonNode *root = json_builder_get_root(b);
    json_generator_set_root(gen, root);
    char *doc = json_generator_to_data(gen, NULL);
    gboolean ok = insee_output_replace(path, "[stats] json", doc, err);
    g_free(doc);
    json_node_unref(root);
    g_object_unref(gen);
    g_object_unref(b);
    return ok;
}
