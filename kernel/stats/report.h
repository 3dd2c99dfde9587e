/* kernel/stats/report.h — what a run measured, and how it is written.
 *
 * The engine fills an insee_report; insee_report_print() writes the human
 * report (parameters echoed first, so the run can be repeated), and
 * insee_report_append_csv() appends one row (header on a new file) by writing
 * a complete new file next to the target and renaming it over, under a lock
 * so parallel runs keep every row (stats/output.h), and a failure never
 * leaves a half-written file. Numbers use '.' whatever the locale. Loads are in phits/node/cycle; the
 * "measured" counters cover the measurement window only, the "total" ones the
 * whole run including warm-up and drain.
 */
#ifndef INSEE_KERNEL_REPORT_H
#define INSEE_KERNEL_REPORT_H

#include <glib.h>
#include <stdint.h>
#include <stdio.h>

#include "net/timing.h"

G_BEGIN_DECLS

/* A running statistic kept as exact integer sums, so that its bits do not
   depend on the order the samples came in, and the parts of a partitioned
   run add up to the single process's figures (stats/merge.h). The sum of
   squares is sq_hi * 2^32 + sq_lo with sq_lo below 2^32 after every add:
   parts' words summed field by field then normalised once stay exact (up
   to 2^32 parts). Exact while the sum of squares stays below 2^96, e.g.
   2^32 samples below 2^32 cycles. */
typedef struct insee_stat {
    uint64_t count;
    uint64_t sum;
    uint64_t sq_hi, sq_lo;
    uint64_t max;
} insee_stat;

void insee_stat_add(insee_stat *s, uint64_t x);
/* Carry sq_lo's bits from 2^32 on into sq_hi, after adding parts' words. */
void insee_stat_normalise(insee_stat *s);
/* sum / count; 0 when empty, as the human report and the CSV print it. */
double insee_stat_mean(const insee_stat *s);
/* The sample standard deviation (n - 1); 0 below two samples. */
double insee_stat_std(const insee_stat *s);

/* One batch of a converged run (INSEE §3.2.1): its own figures. */
typedef struct insee_batch {
    double accepted_load, generated_load; /* phits/node/cycle */
    double latency_mean;                  /* NAN when it delivered nothing */
    double avg_hops;
} insee_batch;

/* mean, sample standard deviation and 95 % confidence interval (Student's
   t, n - 1 degrees of freedom) of n values; NAN values are skipped. */
typedef struct insee_estimate {
    uint32_t n;
    double mean, std, ci_lo, ci_hi;
} insee_estimate;


/* One application's figures (several applications share a run). */
typedef struct insee_app_report {
    char *name;
    char *plugins;          /* "placement/traffic" */
    uint32_t tasks;
    uint32_t nodes;         /* nodes its tasks occupy */
    gboolean causal;
    gboolean completed;     /* causal: it finished */
    uint64_t completion;    /* causal: cycles until its last message was delivered */
    double offered_load;    /* its traffic's, phits/task/cycle; < 0 when none */
    double accepted_load;   /* consumed, phits/task/cycle over its measured cycles */
    uint64_t messages;      /* delivered whole, network and local */
    uint64_t local_messages;/* of those, between two tasks of one node */
    uint64_t generated, delivered; /* its packets, measurement window */
    uint64_t delivered_phits;      /* their phits */
    uint64_t hops;
    insee_stat latency_gen;
    /* A job ([[application]] arrival, docs/scheduling.md), in the engine's
       unit (cycles or seconds); start and end NAN until they happen. */
    gboolean job;
    double job_arrival, job_estimate, job_start, job_end; /* estimate INFINITY: none given */
    uint32_t *job_node;     /* the nodes its allocation gave it, in allocation order */
    uint32_t job_nodes;     /* how many; 0 until it starts */
} insee_app_report;

/* A job's figures (docs/scheduling.md): NAN while it has not ended. */
typedef struct insee_job_figures {
    double wait, run, turnaround, slowdown, bounded_slowdown;
} insee_job_figures;
void insee_job_figures_of(const insee_app_report *ar, double bsld_min, insee_job_figures *f);

/* The scheduler's figures for the whole system. */
typedef struct insee_sched_summary {
    char *unit;             /* "cycles" or "s" */
    char *selection, *allocation;
    uint32_t jobs, completed, nodes;
    double bsld_min;        /* bounded slowdown's floor on the run time */
    double first_arrival, makespan, busy_node_time, throughput, utilisation;
    double mean_wait, mean_turnaround, mean_slowdown, mean_bounded_slowdown;
    double *series_at;      /* utilisation over time: from series_at[i] on, */
    uint32_t *series_busy;  /* series_busy[i] nodes are held by jobs */
    uint32_t n_series;
} insee_sched_summary;

/* A figure a plugin reported through host->report_figure(). */
typedef struct insee_plugin_figure {
    char *section;          /* the plugin's configuration section, e.g. "bridge" */
    char *name;
    char *unit;             /* "" when none */
    double value;
} insee_plugin_figure;

/* [network]'s timing (net/timing.h), for the figures in real units. */
typedef struct insee_report_units {
    gboolean given;         /* the run has a [network] table */
    double cycle_ns;        /* 0: the cycle has no length in seconds */
    double link_gbytes_s;   /* a link's bandwidth, GB/s (0 with cycle_ns) */
    uint32_t phit_bytes;
    uint32_t cable_cycles;  /* every cable's, but where a dimension has its own */
    uint32_t shortest_cable_cycles; /* the shortest cable's, dimensions' own included */
    uint32_t longest_cable_cycles;  /* and the longest's */
    uint32_t output_buffer_bytes;  /* each output port's buffer behind the crossbar; 0: none */
    uint32_t crossbar_speedup;
    uint32_t node_cable_cycles; /* a node's link to its router */
    uint32_t router_cycles;
    uint32_t node_phit_cycles; /* cycles a phit takes on a node's link */
    uint32_t send_overhead, recv_overhead; /* cycles per message at each end */
    uint32_t header_bytes;  /* of every packet */
    gboolean variable_packets; /* mtu_bytes: a message's last packet may be shorter */
    uint32_t buffer_bytes;  /* vc_buffer_bytes: queues count phits (0: packets) */
    double copy_cycles_per_byte; /* copy = "two": a byte's copy at each end (0: zero-copy) */
    uint32_t nics;          /* network interfaces per node (0 or 1: one) */
    gboolean wormhole;      /* flow_control = "wormhole", with its router's stages */
    insee_wormhole_stages stages;
} insee_report_units;

typedef struct insee_report {
    char *echo;             /* the configuration actually used, as TOML */
    char *plugins;          /* "topology/router/arbiter/placement/traffic" plugin names */
    uint64_t seed;
    uint32_t nodes;
    uint32_t routers;
    uint32_t packet_phits;
    insee_report_units units;

    uint64_t warmup_cycles;
    uint64_t measure_cycles;
    uint64_t drain_cycles;  /* cycles the drain took */
    uint64_t cycles;        /* simulated cycles in all */
    gboolean drained;       /* the network emptied before the drain limit */
    uint64_t stalled_cycles;/* not drained: cycles since a packet last moved */
    gboolean causal;        /* the traffic says when it has finished (traces, kernels) */
    gboolean completed;     /* causal: it finished; `cycles` is its completion time */
    uint64_t completion;    /* causal: the cycles until every causal application was done */

    const char *phases;     /* "fixed", "converge" or "causal" (a static string) */
    gboolean converged;     /* converge: three windows in a row agreed */
    uint64_t convergence_cycles; /* converge: from warm-up's end to measurement */
    uint64_t convergence_windows;/* converge: windows compared in that time */
    uint64_t batch_cycles;
    insee_batch *batches;   /* converge: one per batch measured */
    uint32_t n_batches;
    gboolean interrupted;   /* stopped by the user (SIGINT): figures are partial */
    char *params;           /* parameters not at their defaults, "a.b=v;c.d=w" */

    double offered_load;    /* configured, from the traffic plugin; < 0 when none */
    double generated_load;  /* measured entering injection queues */
    double accepted_load;   /* measured consumed */

    /* measurement window */
    uint64_t generated, injected, delivered, dropped;
    uint64_t generated_phits, delivered_phits; /* of those packets */
    uint64_t hops;          /* summed over delivered packets */
    uint64_t packet_hops;   /* links crossed by any packet */
    uint64_t dropped_source, dropped_router, dropped_unroutable; /* dropped, by reason */
    double occupancy;       /* mean packets in the network */
    uint64_t occupancy_max;
    insee_stat latency_gen; /* tail consumed - entered its injection queue */
    insee_stat latency_inj; /* tail consumed - head left the injection queue */
    /* percentiles p50, p90, p99, p99.9 (0 without the latency histogram) */
    uint64_t latency_gen_q[4], latency_inj_q[4];

    /* whole run */
    uint64_t total_generated, total_delivered, total_dropped, total_in_flight;
    uint64_t total_copies;  /* extra copies multicast routers made */
    uint64_t total_dropped_network; /* of total_dropped: by a router, not at the source */
    uint64_t total_packet_hops;
    uint64_t source_stalls; /* cycles a source waited for injection room */
    /* Sums of packet ids generated, and delivered or dropped: equal sums with
       equal counts show every packet ended exactly once. */
    uint64_t sum_generated_ids, sum_delivered_ids;
    /* [stats] trace: whether one was written, its lines of events, and the
       cycle trace_max_mb stopped it. */
    gboolean traced;
    uint64_t trace_events;
    gboolean trace_truncated;
    uint64_t trace_truncated_at;

    double setup_seconds;   /* plugins created, network built, tasks placed */
    double wall_seconds;    /* the time loop */
    double cycles_per_second;
    double packet_hops_per_second;
    uint64_t peak_rss_kib;  /* peak resident memory of the process so far */
    /* A run split over mpirun's ranks or threads: how many, the links between
       routers and those whose ends are in different ranks, how many
       exchanges they made (one per window of cycles they ran on their own,
       at most `lookahead` long), and the seconds this rank spent in them,
       waiting for the others included. */
    uint32_t parts;
    uint32_t lookahead;
    gboolean parts_on_threads; /* [simulation] threads split it, not mpirun */
    uint64_t links, cut_links;
    uint64_t exchanges;
    double exchange_seconds;

    insee_app_report *apps; /* one per application, configuration order */
    uint32_t n_apps;
    insee_sched_summary *sched; /* jobs ([scheduler]): their system figures; NULL when none */

    insee_plugin_figure *figures;  /* plugins' own figures, in the order first reported */
    uint32_t n_figures;
} insee_report;

/* The estimate over `n` values (a sweep's seeds). */
insee_estimate insee_estimate_values(const double *v, uint32_t n);
/* The estimate of one batch figure, named by its offset in insee_batch
   (offsetof(insee_batch, accepted_load)). */
insee_estimate insee_batch_estimate(const insee_report *r, size_t field);

/* Set section.name to value (copying the strings): a new figure goes last,
   one already there keeps its place and takes the new value and unit. */
void insee_report_set_figure(insee_report *r, const char *section, const char *name,
                             double value, const char *unit);

void insee_report_clear(insee_report *r);
/* A deep copy, released with insee_report_clear(). */
insee_report insee_report_copy(const insee_report *r);
void insee_report_print(const insee_report *r, FILE *out);
/* Jobs (r->sched set), for every engine that runs them: a job's lines in
   its application's block, in the scheduler's unit, `indent` spaces further
   in than the packet engine's; the "# scheduler"
   block (nothing without jobs); the scheduler's figures appended to a CSV
   plugin_figures field `figures` ("section.name=value", ';' between). */
void insee_report_print_job(const insee_report *r, const insee_app_report *ar, int indent,
                            FILE *out);
void insee_report_print_sched(const insee_report *r, FILE *out);
void insee_report_sched_figures(const insee_report *r, GString *figures);
gboolean insee_report_append_csv(const insee_report *r, const char *path, GError **err);
/* Before a run: whether `path` can take a row (stats/output.h), its header
   this version's when the file is not empty. */
gboolean insee_report_check_csv(const char *path, GError **err);
/* The header line of those rows (with its line break): a sweep's results
   prefix it with their own columns. */
const char *insee_report_csv_header(void);
/* Append `v` to `s` as one CSV field (RFC 4180: quoted when it holds a
   comma, a quote or a line break, its quotes doubled). */
void insee_csv_field(GString *s, const char *v);

G_END_DECLS
#endif
