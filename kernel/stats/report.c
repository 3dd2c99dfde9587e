/* kernel/stats/report.c — running statistics, the human report and the CSV
 * rows (report.h). Everything printed except the wall-clock and speed lines
 * is a function of the configuration and the seed, so two runs can be
 * compared byte for byte. */
/* newlocale() and uselocale() are POSIX.1-2008. */
#define _POSIX_C_SOURCE 200809L
#include "stats/report.h"

#include <locale.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "stats/output.h"

/* The words of the sum of squares: exact products need 128 bits. */
__extension__ typedef unsigned __int128 u128;

#define SQ_LO_BITS 32u
#define SQ_LO_MASK ((UINT64_C(1) << SQ_LO_BITS) - 1)

void insee_stat_add(insee_stat *s, uint64_t x)
{
    s->count++;
    s->sum += x;
    u128 sq = (u128)x * x + s->sq_lo;
    s->sq_lo = (uint64_t)sq & SQ_LO_MASK;
    s->sq_hi += (uint64_t)(sq >> SQ_LO_BITS);
    if (x > s->max)
        s->max = x;
}

void insee_stat_normalise(insee_stat *s)
{
    s->sq_hi += s->sq_lo >> SQ_LO_BITS;
    s->sq_lo &= SQ_LO_MASK;
}

double insee_stat_mean(const insee_stat *s)
{
    return s->count ? (double)s->sum / (double)s->count : 0.0;
}

double insee_stat_std(const insee_stat *s)
{
    if (s->count < 2)
        return 0.0;
    /* M2 = sum x^2 - S^2 / n with S = q n + r is sum x^2 - S q - S r / n;
       S r / n = q2 + r2 / n. Everything but r2 / n (below 1) is an exact
       integer, at least r2 / n since M2 >= 0, so nothing wraps. */
    u128 n = s->count, S = s->sum;
    u128 sq = ((u128)s->sq_hi << SQ_LO_BITS) + s->sq_lo;
    u128 q = S / n, r = S % n;
    u128 sr = S * r;
    u128 whole = sq - S * q - sr / n;
    long double m2 = (long double)whole - (long double)(sr % n) / (long double)n;
    return (double)sqrtl(m2 / (long double)(s->count - 1));
}

/* Student's t for a two-sided 95 % interval: the table for small samples,
   the Cornish-Fisher expansion around the normal quantile beyond (within
   1e-4 of the exact value from 30 degrees of freedom on). */
static double t95(uint32_t df)
{
    static const double table[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
                                   2.262,  2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
                                   2.110,  2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
                                   2.060,  2.056, 2.052, 2.048, 2.045, 2.042};
    if (df >= 1 && df <= G_N_ELEMENTS(table))
        return table[df - 1];
    double z = 1.959964, n = (double)df;
    return z + (z * z * z + z) / (4 * n) + (5 * pow(z, 5) + 16 * z * z * z + 3 * z) / (96 * n * n);
}

insee_estimate insee_estimate_values(const double *v, uint32_t n)
{
    insee_estimate e = {0};
    double sum = 0, sq = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (isnan(v[i]))
            continue;
        e.n++;
        sum += v[i];
    }
    e.mean = e.n ? sum / e.n : NAN;
    for (uint32_t i = 0; i < n; i++)
        if (!isnan(v[i]))
            sq += (v[i] - e.mean) * (v[i] - e.mean);
    e.std = e.n > 1 ? sqrt(sq / (e.n - 1)) : NAN;
    double half = e.n > 1 ? t95(e.n - 1) * e.std / sqrt((double)e.n) : NAN;
    e.ci_lo = e.mean - half;
    e.ci_hi = e.mean + half;
    return e;
}

insee_estimate insee_batch_estimate(const insee_report *r, size_t field)
{
    double *v = g_new(double, r->n_batches ? r->n_batches : 1);
    for (uint32_t b = 0; b < r->n_batches; b++)
        v[b] = *(const double *)((const char *)&r->batches[b] + field);
    insee_estimate e = insee_estimate_values(v, r->n_batches);
    g_free(v);
    return e;
}

void insee_report_set_figure(insee_report *r, const char *section, const char *name,
                             double value, const char *unit)
{
    insee_plugin_figure *f = NULL;
    for (uint32_t i = 0; i < r->n_figures && !f; i++)
        if (strcmp(r->figures[i].section, section) == 0 && strcmp(r->figures[i].name, name) == 0)
            f = &r->figures[i];
    if (!f) {
        r->figures = g_renew(insee_plugin_figure, r->figures, r->n_figures + 1);
        f = &r->figures[r->n_figures++];
        *f = (insee_plugin_figure){g_strdup(section), g_strdup(name), NULL, 0};
    }
    g_free(f->unit);
    f->unit = g_strdup(unit ? unit : "");
    f->value = value;
}

static void copy_figures(insee_plugin_figure *f, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        f[i] = (insee_plugin_figure){g_strdup(f[i].section), g_strdup(f[i].name), g_strdup(f[i].unit),
                              f[i].value};
}

static void sched_summary_free(insee_sched_summary *sum)
{
    if (!sum)
        return;
    g_free(sum->unit);
    g_free(sum->selection);
    g_free(sum->allocation);
    g_free(sum->series_at);
    g_free(sum->series_busy);
    g_free(sum);
}

static insee_sched_summary *sched_summary_copy(const insee_sched_summary *sum)
{
    if (!sum)
        return NULL;
    insee_sched_summary *c = g_memdup2(sum, sizeof *sum);
    c->unit = g_strdup(sum->unit);
    c->selection = g_strdup(sum->selection);
    c->allocation = g_strdup(sum->allocation);
    c->series_at = g_memdup2(sum->series_at, sizeof(double) * sum->n_series);
    c->series_busy = g_memdup2(sum->series_busy, sizeof(uint32_t) * sum->n_series);
    return c;
}

void insee_job_figures_of(const insee_app_report *ar, double bsld_min, insee_job_figures *f)
{
    f->wait = ar->job_start - ar->job_arrival;
    f->run = ar->job_end - ar->job_start;
    f->turnaround = ar->job_end - ar->job_arrival;
    f->slowdown = f->run > 0 ? f->turnaround / f->run : NAN;
    f->bounded_slowdown = MAX(1.0, f->turnaround / MAX(f->run, bsld_min));
    if (isnan(f->turnaround))
        f->bounded_slowdown = NAN;
}

void insee_report_clear(insee_report *r)
{
    for (uint32_t i = 0; i < r->n_figures; i++) {
        g_free(r->figures[i].section);
        g_free(r->figures[i].name);
        g_free(r->figures[i].unit);
    }
    g_free(r->figures);
    g_free(r->batches);
    g_free(r->params);
    for (uint32_t a = 0; a < r->n_apps; a++) {
        g_free(r->apps[a].name);
        g_free(r->apps[a].plugins);
        g_free(r->apps[a].job_node);
    }
    g_free(r->apps);
    sched_summary_free(r->sched);
    g_free(r->echo);
    g_free(r->plugins);
    memset(r, 0, sizeof *r);
}

insee_report insee_report_copy(const insee_report *r)
{
    insee_report c = *r;
    c.echo = g_strdup(r->echo);
    c.plugins = g_strdup(r->plugins);
    c.params = g_strdup(r->params);
    c.batches = g_memdup2(r->batches, sizeof *r->batches * r->n_batches);
    c.apps = g_memdup2(r->apps, sizeof *r->apps * r->n_apps);
    for (uint32_t a = 0; a < r->n_apps; a++) {
        c.apps[a].name = g_strdup(r->apps[a].name);
        c.apps[a].plugins = g_strdup(r->apps[a].plugins);
        c.apps[a].job_node = g_memdup2(r->apps[a].job_node, sizeof(uint32_t) * r->apps[a].job_nodes);
    }
    c.sched = sched_summary_copy(r->sched);
    c.figures = g_memdup2(r->figures, sizeof *r->figures * r->n_figures);
    copy_figures(c.figures, c.n_figures);
    return c;
}

/* Numbers are written with a decimal point whatever the caller's locale:
   files are read by programs, and a decimal comma would split a CSV field.
   uselocale() switches this thread only. */
typedef struct c_numbers {
    locale_t c, old;
} c_numbers;

static c_numbers c_numbers_begin(void)
{
    c_numbers n = {newlocale(LC_NUMERIC_MASK, "C", (locale_t)0), (locale_t)0};
    if (n.c)
        n.old = uselocale(n.c);
    return n;
}

static void c_numbers_end(c_numbers n)
{
    if (n.c) {
        uselocale(n.old);
        freelocale(n.c);
    }
}

static double per_packet(uint64_t total, uint64_t count)
{
    return count ? (double)total / (double)count : 0.0;
}

static void print_latency(FILE *out, const char *what, const insee_stat *s)
{
    fprintf(out, "%-28s mean %.3f  std %.3f  max %" G_GUINT64_FORMAT " cycles\n", what,
            insee_stat_mean(s), insee_stat_std(s), s->max);
}

static void print_percentiles(FILE *out, const char *what, const uint64_t q[4])
{
    if (!q[0])
        return;
    fprintf(out, "%-28s p50 %" G_GUINT64_FORMAT "  p90 %" G_GUINT64_FORMAT "  p99 %" G_GUINT64_FORMAT
            "  p99.9 %" G_GUINT64_FORMAT " cycles\n", what, q[0], q[1], q[2], q[3]);
}

/* How the window was chosen, and for batches their figures with a 95 %
   confidence interval. */
static void print_phases(const insee_report *r, FILE *out)
{
    if (!r->phases || strcmp(r->phases, "converge") != 0)
        return;
    fprintf(out, "%-28s %s after %" G_GUINT64_FORMAT " cycles (%" G_GUINT64_FORMAT
            " windows); %u batches of %" G_GUINT64_FORMAT " cycles\n", "steady state",
            r->converged     ? "converged"
            : r->interrupted ? "NOT converged (interrupted)"
                             : "NOT converged (cap reached)",
            r->convergence_cycles, r->convergence_windows, r->n_batches, r->batch_cycles);
    static const struct {
        const char *name;
        size_t field;
    } figures[] = {{"  accepted load", offsetof(insee_batch, accepted_load)},
                   {"  latency from generation", offsetof(insee_batch, latency_mean)},
                   {"  average hops", offsetof(insee_batch, avg_hops)}};
    for (size_t f = 0; f < G_N_ELEMENTS(figures); f++) {
        insee_estimate e = insee_batch_estimate(r, figures[f].field);
        fprintf(out, "%-28s mean %.4f  std %.4f  95%% CI [%.4f, %.4f] over %u batches\n",
                figures[f].name, e.mean, e.std, e.ci_lo, e.ci_hi, e.n);
    }
}

/* Whether the network drained, and when not, the advice that can help:
   none when the user stopped the run, more drain time only if packets were
   still moving at the end. */
static const char *drain_words(const insee_report *r)
{
    if (r->drained)
        return "drained";
    if (r->interrupted)
        return "NOT drained: the run was interrupted";
    if (r->stalled_cycles >= 1000)
        return "NOT drained: nothing moved in the last cycles, packets are stuck; set "
               "[simulation] deadlock_cycles to find the cycle of queues";
    return "NOT drained: raise [simulation] drain";
}

void insee_report_print_job(const insee_report *r, const insee_app_report *ar, int indent,
                            FILE *out)
{
    const char *u = r->sched->unit;
    int w = 28 - indent;
    insee_job_figures f;
    insee_job_figures_of(ar, r->sched->bsld_min, &f);
    fprintf(out, "%*s%-*s arrival %.10g, start %.10g, end %.10g %s\n", indent, "", w, "  job",
            ar->job_arrival, ar->job_start, ar->job_end, u);
    if (isinf(ar->job_estimate))
        fprintf(out, "%*s%-*s none\n", indent, "", w, "  estimated run time");
    else
        fprintf(out, "%*s%-*s %.10g %s\n", indent, "", w, "  estimated run time",
                ar->job_estimate, u);
    fprintf(out, "%*s%-*s wait %.10g, run %.10g, turnaround %.10g %s\n", indent, "", w,
            "  job times", f.wait, f.run, f.turnaround, u);
    fprintf(out, "%*s%-*s %.6g (bounded: %.6g)\n", indent, "", w, "  slowdown", f.slowdown,
            f.bounded_slowdown);
}

void insee_report_print_sched(const insee_report *r, FILE *out)
{
    const insee_sched_summary *s = r->sched;
    if (!s)
        return;
    fprintf(out, "# scheduler (selection %s, allocation %s)\n", s->selection, s->allocation);
    fprintf(out, "%-28s %u of %u completed on %u nodes\n", "  jobs", s->completed, s->jobs,
            s->nodes);
    fprintf(out, "%-28s %.10g %s (from the first arrival, %.10g)\n", "  makespan", s->makespan,
            s->unit, s->first_arrival);
    fprintf(out, "%-28s %.6g jobs/%s\n", "  throughput", s->throughput,
            strcmp(s->unit, "cycles") == 0 ? "cycle" : s->unit);
    fprintf(out, "%-28s %.6f (busy node-time %.10g)\n", "  utilisation", s->utilisation,
            s->busy_node_time);
    fprintf(out, "%-28s %.10g %s\n", "  mean wait", s->mean_wait, s->unit);
    fprintf(out, "%-28s %.10g %s\n", "  mean turnaround", s->mean_turnaround, s->unit);
    fprintf(out, "%-28s %.6g (bounded, floor %.10g %s: %.6g)\n", "  mean slowdown",
            s->mean_slowdown, s->bsld_min, s->unit, s->mean_bounded_slowdown);
}

/* Each application's own figures, when there is more than one or the
   workload is causal (a completion time to report). */
static void print_applications(const insee_report *r, FILE *out)
{
    if (r->n_apps < 2 && !r->causal)
        return;
    for (uint32_t a = 0; a < r->n_apps; a++) {
        const insee_app_report *ar = &r->apps[a];
        fprintf(out, "# application '%s' (%s): %u tasks on %u nodes\n", ar->name, ar->plugins,
                ar->tasks, ar->nodes);
        if (!ar->causal)
            fprintf(out, "%-28s open-ended\n", "  workload");
        else if (ar->completed)
            fprintf(out, "%-28s completed at cycle %" G_GUINT64_FORMAT "\n", "  workload",
                    ar->completion);
        else
            fprintf(out, "%-28s NOT completed\n", "  workload");
        if (ar->job)
            insee_report_print_job(r, ar, 0, out);
        fprintf(out, "%-28s %" G_GUINT64_FORMAT " (%" G_GUINT64_FORMAT " between tasks of one "
                "node)\n", "  messages delivered", ar->messages, ar->local_messages);
        fprintf(out, "%-28s generated %" G_GUINT64_FORMAT ", delivered %" G_GUINT64_FORMAT "\n",
                "  packets (measured)", ar->generated, ar->delivered);
        fprintf(out, "%-28s %.4f\n", "  average hops", per_packet(ar->hops, ar->delivered));
        print_latency(out, "  latency from generation", &ar->latency_gen);
        if (ar->offered_load >= 0)
            fprintf(out, "%-28s %.4f phits/task/cycle\n", "  offered load", ar->offered_load);
        fprintf(out, "%-28s %.4f phits/task/cycle\n", "  accepted load", ar->accepted_load);
    }
}

/* The plugins' own figures, each under its section. */
static void print_figures(const insee_report *r, FILE *out)
{
    if (r->n_figures)
        fprintf(out, "# plugins' figures\n");
    char **labels = g_new0(char *, r->n_figures + 1);
    int width = 28; /* the report's column, or wider to keep these aligned */
    for (uint32_t i = 0; i < r->n_figures; i++) {
        labels[i] = g_strdup_printf("  [%s] %s", r->figures[i].section, r->figures[i].name);
        width = MAX(width, (int)strlen(labels[i]));
    }
    for (uint32_t i = 0; i < r->n_figures; i++) {
        const insee_plugin_figure *f = &r->figures[i];
        fprintf(out, "%-*s %.10g%s%s\n", width, labels[i], f->value, *f->unit ? " " : "",
                f->unit);
    }
    g_strfreev(labels);
}

/* [network]'s timing, and the main figures in its units. */
static void print_units(const insee_report *r, FILE *out)
{
    const insee_report_units *u = &r->units;
    if (!u->given)
        return;
    if (u->longest_cable_cycles != u->shortest_cable_cycles)
        fprintf(out, "%-28s cables %u to %u cycles by dimension, routers %u cycles\n",
                "latencies", u->shortest_cable_cycles, u->longest_cable_cycles,
                u->router_cycles);
    else
        fprintf(out, "%-28s cables %u cycles, routers %u cycles\n", "latencies",
                u->longest_cable_cycles, u->router_cycles);
    if (u->node_cable_cycles)
        fprintf(out, "%-28s %u cycles each way\n", "nodes' links", u->node_cable_cycles);
    if (u->node_phit_cycles > 1)
        fprintf(out, "%-28s a phit every %u cycles\n", "nodes' links", u->node_phit_cycles);
    if (u->header_bytes)
        fprintf(out, "%-28s %u bytes a packet\n", "headers", u->header_bytes);
    if (u->variable_packets)
        fprintf(out, "%-28s up to %u bytes, a message's last one shorter\n", "packets",
                r->packet_phits * u->phit_bytes);
    if (u->buffer_bytes)
        fprintf(out, "%-28s %u bytes a VC, counted in phits\n", "buffers", u->buffer_bytes);
    if (u->output_buffer_bytes)
        fprintf(out, "%-28s %u bytes an output port, crossbar %u phit%s a cycle\n",
                "output buffers", u->output_buffer_bytes, u->crossbar_speedup,
                u->crossbar_speedup == 1 ? "" : "s");
    if (u->wormhole)
        fprintf(out, "%-28s wormhole: routing %u, VC allocation %u, switch allocation %u, "
                "switch %u, credits %u cycles\n", "flow control", u->stages.routing,
                u->stages.vc_alloc, u->stages.switch_alloc, u->stages.switch_traversal,
                u->stages.credit);
    if (u->send_overhead || u->recv_overhead)
        fprintf(out, "%-28s sending %u cycles, receiving %u cycles\n", "overhead per message",
                u->send_overhead, u->recv_overhead);
    if (u->nics > 1)
        fprintf(out, "%-28s %u a node, its messages in turn\n", "network interfaces", u->nics);
    if (u->copy_cycles_per_byte > 0)
        fprintf(out, "%-28s through the MPI buffer, %g cycles a byte at each end\n", "two-copy",
                u->copy_cycles_per_byte);
    if (u->cycle_ns <= 0)
        return;
    fprintf(out, "%-28s cycle %g ns, links %g GB/s, packets of %u bytes\n", "real units",
            u->cycle_ns, u->link_gbytes_s, r->packet_phits * u->phit_bytes);
    fprintf(out, "%-28s %.3f us simulated, accepted %.4f GB/s per node\n", "",
            (double)r->cycles * u->cycle_ns / 1e3, r->accepted_load * u->link_gbytes_s);
    fprintf(out, "%-28s from generation %.1f ns, from injection %.1f ns (means)\n", "",
            insee_stat_mean(&r->latency_gen) * u->cycle_ns,
            insee_stat_mean(&r->latency_inj) * u->cycle_ns);
}

void insee_report_print(const insee_report *r, FILE *out)
{
    c_numbers locale = c_numbers_begin();
    fprintf(out, "# insee report\n# parameters (this block is a config file that repeats the run)\n");
    fputs(r->echo ? r->echo : "", out);
    fprintf(out, "\n# results%s\n",
            r->interrupted ? " (INTERRUPTED: partial figures, nothing written)" : "");
    fprintf(out, "%-28s %u nodes, %u routers, packets of %u phits\n", "network", r->nodes,
            r->routers, r->packet_phits);
    print_units(r, out);
    fprintf(out, "%-28s %" G_GUINT64_FORMAT " (warm-up %" G_GUINT64_FORMAT ", convergence %"
            G_GUINT64_FORMAT ", measured %" G_GUINT64_FORMAT ", drain %" G_GUINT64_FORMAT ")\n",
            "simulated cycles", r->cycles, r->warmup_cycles, r->convergence_cycles,
            r->measure_cycles, r->drain_cycles);
    if (r->causal)
        fprintf(out, "%-28s %s%" G_GUINT64_FORMAT "\n", "workload",
                r->completed ? "completed at cycle " : "NOT completed; stopped at cycle ",
                r->cycles);
    print_phases(r, out);
    if (r->offered_load >= 0)
        fprintf(out, "%-28s %.4f phits/node/cycle\n", "offered load", r->offered_load);
    fprintf(out, "%-28s %.4f phits/node/cycle\n", "generated load", r->generated_load);
    fprintf(out, "%-28s %.4f phits/node/cycle\n", "accepted load", r->accepted_load);
    fprintf(out, "%-28s generated %" G_GUINT64_FORMAT ", injected %" G_GUINT64_FORMAT
            ", delivered %" G_GUINT64_FORMAT ", dropped %" G_GUINT64_FORMAT "\n",
            "packets (measured)", r->generated, r->injected, r->delivered, r->dropped);
    if (r->dropped)
        fprintf(out, "%-28s source full %" G_GUINT64_FORMAT ", by routers %" G_GUINT64_FORMAT
                ", unroutable %" G_GUINT64_FORMAT "\n", "dropped (measured)", r->dropped_source,
                r->dropped_router, r->dropped_unroutable);
    fprintf(out, "%-28s %.4f\n", "average hops", per_packet(r->hops, r->delivered));
    fprintf(out, "%-28s mean %.2f  max %" G_GUINT64_FORMAT " packets\n", "packets in the network",
            r->occupancy, r->occupancy_max);
    print_latency(out, "latency from generation", &r->latency_gen);
    print_percentiles(out, "", r->latency_gen_q);
    print_latency(out, "latency from injection", &r->latency_inj);
    print_percentiles(out, "", r->latency_inj_q);
    fprintf(out, "%-28s generated %" G_GUINT64_FORMAT ", delivered %" G_GUINT64_FORMAT
            ", dropped %" G_GUINT64_FORMAT ", in flight %" G_GUINT64_FORMAT " (%s)\n",
            "packets (whole run)", r->total_generated, r->total_delivered, r->total_dropped,
            r->total_in_flight, drain_words(r));
    if (r->total_dropped_network)
        fprintf(out, "%-28s %" G_GUINT64_FORMAT " packets\n", "dropped by routers",
                r->total_dropped_network);
    if (r->total_copies)
        fprintf(out, "%-28s %" G_GUINT64_FORMAT " (delivered and dropped count them too)\n",
                "multicast copies", r->total_copies);
    fprintf(out, "%-28s %" G_GUINT64_FORMAT " cycles\n", "source stalls", r->source_stalls);
    if (r->traced && r->trace_truncated)
        fprintf(out, "%-28s %" G_GUINT64_FORMAT " events, TRUNCATED at cycle %" G_GUINT64_FORMAT
                " ([stats] trace_max_mb reached)\n", "packet trace", r->trace_events,
                r->trace_truncated_at);
    else if (r->traced)
        fprintf(out, "%-28s %" G_GUINT64_FORMAT " events\n", "packet trace", r->trace_events);
    print_applications(r, out);
    insee_report_print_sched(r, out);
    print_figures(r, out);
    fprintf(out, "# speed (varies from run to run)\n");
    fprintf(out, "%-28s %.3f s\n", "set-up time", r->setup_seconds);
    fprintf(out, "%-28s %.3f s\n", "wall time", r->wall_seconds);
    fprintf(out, "%-28s %.0f simulated cycles/s, %.0f packet-hops/s\n", "simulator speed",
            r->cycles_per_second, r->packet_hops_per_second);
    fprintf(out, "%-28s %.1f MiB\n", "peak memory", (double)r->peak_rss_kib / 1024.0);
    if (r->parts > 1)
        fprintf(out, "%-28s %u, cutting %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
                " links, %" G_GUINT64_FORMAT " exchanges (at most %u cycles apart), %.1f us "
                "each (%s 0's, waiting included)\n",
                r->parts_on_threads ? "threads, as parts" : "mpirun ranks", r->parts,
                r->cut_links, r->links, r->exchanges, r->lookahead,
                r->exchanges ? r->exchange_seconds * 1e6 / (double)r->exchanges : 0.0,
                r->parts_on_threads ? "part" : "rank");
    c_numbers_end(locale);
}

static const char csv_header[] =
    "plugins,params,seed,nodes,packet_phits,phases,converged,warmup,measured,offered_load,"
    "generated_load,accepted_load,accepted_ci95,generated,injected,delivered,dropped,avg_hops,"
    "lat_gen_mean,lat_gen_std,lat_gen_max,lat_gen_p99,lat_gen_ci95,lat_inj_mean,lat_inj_std,"
    "lat_inj_max,cycles,drained,plugin_figures\n";

/* RFC 4180: a field holding a comma, a quote or a line break is quoted, its
   quotes doubled (plugin names come from third-party plugins). */
void insee_csv_field(GString *s, const char *v)
{
    if (!strpbrk(v, ",\"\r\n")) {
        g_string_append(s, v);
        return;
    }
    g_string_append_c(s, '"');
    for (; *v; v++) {
        if (*v == '"')
            g_string_append_c(s, '"');
        g_string_append_c(s, *v);
    }
    g_string_append_c(s, '"');
}

/* Half the width of a batch figure's 95 % interval; empty without batches. */
static void csv_ci(GString *s, const insee_report *r, size_t field)
{
    insee_estimate e = insee_batch_estimate(r, field);
    if (e.n > 1)
        g_string_append_printf(s, ",%.6f", (e.ci_hi - e.ci_lo) / 2);
    else
        g_string_append_c(s, ',');
}

void insee_report_sched_figures(const insee_report *r, GString *figures)
{
    if (r->sched)
        g_string_append_printf(figures, "%sscheduler.makespan=%.10g;scheduler.throughput=%.10g;"
                               "scheduler.utilisation=%.10g;scheduler.mean_wait=%.10g;"
                               "scheduler.mean_bounded_slowdown=%.10g", figures->len ? ";" : "",
                               r->sched->makespan, r->sched->throughput, r->sched->utilisation,
                               r->sched->mean_wait, r->sched->mean_bounded_slowdown);
}

static void csv_row(const insee_report *r, GString *s)
{
    insee_csv_field(s, r->plugins ? r->plugins : "");
    g_string_append_c(s, ',');
    insee_csv_field(s, r->params ? r->params : "");
    gboolean batches = r->phases && strcmp(r->phases, "converge") == 0;
    g_string_append_printf(s, ",%" G_GUINT64_FORMAT ",%u,%u,%s,%s,%" G_GUINT64_FORMAT
                           ",%" G_GUINT64_FORMAT ",%.6f,%.6f,%.6f",
                           r->seed, r->nodes, r->packet_phits, r->phases ? r->phases : "",
                           batches ? (r->converged ? "1" : "0") : "", r->warmup_cycles,
                           r->measure_cycles, r->offered_load, r->generated_load, r->accepted_load);
    csv_ci(s, r, offsetof(insee_batch, accepted_load));
    g_string_append_printf(
        s, ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT
        ",%.6f,%.6f,%.6f,%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT,
        r->generated, r->injected, r->delivered, r->dropped, per_packet(r->hops, r->delivered),
        insee_stat_mean(&r->latency_gen), insee_stat_std(&r->latency_gen), r->latency_gen.max,
        r->latency_gen_q[2]);
    csv_ci(s, r, offsetof(insee_batch, latency_mean));
    g_string_append_printf(s, ",%.6f,%.6f,%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%d,",
                           insee_stat_mean(&r->latency_inj), insee_stat_std(&r->latency_inj),
                           r->latency_inj.max, r->cycles, r->drained ? 1 : 0);
    GString *figures = g_string_new(NULL);
    for (uint32_t i = 0; i < r->n_figures; i++)
        g_string_append_printf(figures, "%s%s.%s=%.10g", i ? ";" : "", r->figures[i].section,
                               r->figures[i].name, r->figures[i].value);
    insee_report_sched_figures(r, figures);
    insee_csv_field(s, figures->str);
    g_string_free(figures, TRUE);
    g_string_append_c(s, '\n');
}

const char *insee_report_csv_header(void)
{
    return csv_header;
}

gboolean insee_report_check_csv(const char *path, GError **err)
{
    return insee_output_check_append(path, "[stats] csv", csv_header, err);
}

gboolean insee_report_append_csv(const insee_report *r, const char *path, GError **err)
{
    GString *row = g_string_new(NULL);
    c_numbers locale = c_numbers_begin();
    csv_row(r, row);
    c_numbers_end(locale);
    gboolean ok = insee_output_append(path, "[stats] csv", csv_header, row->str, err);
    g_string_free(row, TRUE);
    return ok;
}
