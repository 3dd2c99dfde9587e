/* kernel/stats/collect.h — the figures a run gathers beyond its summary
 * (INSEE §2.4): histograms, maps, per-interval series and per-window sums
 * for the run phases.
 *
 * Who calls what: the experiment sets the options and calls
 * insee_stats_init() once the network exists; the engine calls the
 * insee_stats_on_*() hooks at the points where it already counts a packet
 * (each O(1), nothing allocated but an occasional growth of a histogram),
 * insee_stats_advance() at the top of every simulated cycle, and
 * insee_stats_finish() then insee_stats_close_last() once at the end. The
 * report writers read the struct.
 *
 * Memory is linear in the network (ports, nodes) and in the number of
 * intervals; the pair-to-pair maps (nodes²) only when asked, and refused
 * by insee_stats_init() when they would not fit, as a series too long for
 * memory is by insee_stats_series_fits() once the run's length is known.
 *
 * Every figure but the series counts the measurement window only.
 */
#ifndef INSEE_KERNEL_COLLECT_H
#define INSEE_KERNEL_COLLECT_H

#include <glib.h>
#include <stdint.h>

#include "net/network.h"

G_BEGIN_DECLS

/* Why a packet ended without delivery. */
typedef enum insee_drop_reason {
    INSEE_DROP_SOURCE_FULL, /* on_full = "drop" and its injection queue was full */
    INSEE_DROP_ROUTER,      /* a router discarded it (INSEE_PORT_DROP) */
    INSEE_DROP_UNROUTABLE,  /* discarded where no minimal path leads to its destination */
    INSEE_DROP_REASONS
} insee_drop_reason;

/* The packet trace (stats/trace.h): the collector hands it every packet
   event when [stats] trace is set. */
typedef struct insee_trace insee_trace;
void insee_trace_generated(insee_trace *t, const insee_packet *pk, uint64_t now);
void insee_trace_injected(insee_trace *t, const insee_packet *pk, uint64_t now);
void insee_trace_hop(insee_trace *t, const insee_packet *pk, uint32_t ovc, uint64_t now);
void insee_trace_consumed(insee_trace *t, const insee_packet *pk, uint64_t now);
/* `q`: the queue a router dropped the packet from; INSEE_NONE at the source. */
void insee_trace_dropped(insee_trace *t, const insee_packet *pk, insee_drop_reason why,
                         uint32_t q, uint64_t now);

/* Counters indexed by a small integer, grown on demand. */
typedef struct insee_counts {
    uint64_t *v;
    uint32_t len;
} insee_counts;

void insee_counts_grow(insee_counts *c, uint32_t i);
static inline void insee_counts_add(insee_counts *c, uint32_t i, uint64_t n)
{
    if (G_UNLIKELY(i >= c->len))
        insee_counts_grow(c, i);
    c->v[i] += n;
}
uint64_t insee_counts_total(const insee_counts *c);

/* Latency histogram: one bin per cycle below INSEE_LAT_EXACT, then 128 bins
   per power of two (each within 0.8 % of its value), so memory is bounded by
   the largest latency's logarithm, not by the run's length. */
#define INSEE_LAT_EXACT 1024u
typedef struct insee_lat_hist {
    insee_counts bins;
} insee_lat_hist;

void insee_lat_hist_add_wide(insee_lat_hist *h, uint64_t cycles);
/* Count one latency: inline for the exact range, where nearly all fall. */
static inline void insee_lat_hist_add(insee_lat_hist *h, uint64_t cycles)
{
    if (G_LIKELY(cycles < h->bins.len && cycles < INSEE_LAT_EXACT))
        h->bins.v[cycles]++;
    else
        insee_lat_hist_add_wide(h, cycles);
}
/* The range of cycles bin b holds, both ends inclusive. */
void insee_lat_hist_bin(uint32_t b, uint64_t *lo, uint64_t *hi);
/* The smallest latency at or below which a fraction q of the samples lie
   (the upper end of its bin); 0 when empty. */
uint64_t insee_lat_hist_quantile(const insee_lat_hist *h, double q);

/* What a stretch of cycles saw. The collector keeps the totals since cycle
   0; an interval of the series or a window of the run phases is the
   difference between the totals at its end and at its start. */
typedef struct insee_window {
    uint64_t generated, delivered, dropped; /* packets */
    uint64_t generated_phits, delivered_phits;
    uint64_t hops;                          /* of the delivered ones */
    uint64_t latency_sum;                   /* generation latency of the delivered ones */
    uint64_t occupancy_area;                /* packets in the network × cycles */
} insee_window;

/* `to` minus `from`: what happened between two snapshots of the totals. */
insee_window insee_window_between(const insee_window *from, const insee_window *to);

/* One point of the time series: the interval ending at `cycle`. */
typedef struct insee_series_point {
    uint64_t cycle;
    uint32_t phase;                         /* insee_phase of its last cycle */
    insee_window w;
} insee_series_point;

typedef enum insee_phase {
    INSEE_PHASE_WARMUP,
    INSEE_PHASE_CONVERGE,
    INSEE_PHASE_MEASURE,
    INSEE_PHASE_DRAIN,
} insee_phase;

const char *insee_phase_name(insee_phase phase);

typedef struct insee_stats_options {
    uint64_t interval;           /* series period in cycles; 0: no series */
    gboolean latency_histogram;  /* and the percentiles */
    gboolean distance_histograms;
    gboolean queue_histograms;
    gboolean port_map;
    gboolean node_map;
    gboolean pair_map;
} insee_stats_options;

/* Link throughput per dimension and direction over time (NSIM's Fig. 8):
   a class per (dimension or level, direction) the topology gives its
   ports, + then -, counted per interval of the series. */
typedef struct insee_directions {
    uint32_t classes;       /* 2 per dimension or level */
    uint32_t vcs;
    uint16_t *port_class;   /* per global port: its class, or UINT16_MAX; NULL: off */
    uint32_t *links;        /* per class: the links in it */
    uint64_t *phits;        /* per class: phits that started crossing since cycle 0 */
    uint64_t *mark;         /* per class: phits where the current interval began */
    GArray *series;         /* uint64_t: `classes` per point of the series */
} insee_directions;

typedef struct insee_stats {
    insee_stats_options opt;
    uint32_t nodes, queues, transit_queues;
    uint32_t ovcs;                       /* port_phits' length */

    uint64_t dropped[INSEE_DROP_REASONS];
    uint64_t occupancy_area;     /* packets in the network × measured cycles */
    uint64_t occupancy_max;

    insee_lat_hist latency, latency_inj;
    insee_counts dist_inj, dist_cons;    /* minimal distance at injection; hops at consumption */
    insee_counts occ_transit, occ_inject;/* queue-cycles spent holding k packets */
    uint64_t *q_since;                   /* per queue: cycle its count last changed */
    const uint8_t *q_counted;            /* per queue: this process's to histogram (a
                                            split run: its count is exact here), or
                                            NULL: every queue; not owned */
    uint64_t *port_phits;                /* per output VC: phits that crossed */
    uint64_t *node_inj, *node_acc;       /* per node: phits injected, consumed */
    uint64_t *pair_inj, *pair_cons;      /* nodes × nodes packets, [src * nodes + dst] */
    insee_directions dir;                /* zeroed unless tracked */

    insee_window total;                  /* since cycle 0 */
    /* The series: the totals where the current interval began, its end,
       and the intervals done. */
    insee_window series_mark;
    uint64_t series_end;                 /* first cycle after the current interval */
    GArray *series;                      /* insee_series_point */
    insee_window phase_mark;             /* the totals where the run phases' window began */

    /* Time the last advance reached, and the first cycle after it where an
       interval or the measurement window begins or ends. */
    uint64_t clock, next_split;
    uint64_t window_start, window_end;   /* measured cycles [start, end) */

    insee_trace *trace;                  /* NULL: no packet trace */
} insee_stats;

/* Allocate what the options ask for. FALSE (INSEE_EXPERIMENT_ERROR_SETUP)
   when the pair-to-pair maps would take more memory than the process may
   use, with the figure and the key to turn off. */
gboolean insee_stats_init(insee_stats *st, const insee_stats_options *opt, const insee_net *net,
                          GError **err);

/* Whether the series of a run of at most `longest` cycles fits in memory
   (its JSON text goes to the file as it is written), so that a run is
   refused at once rather than failing to allocate at its end. */
gboolean insee_stats_series_fits(const insee_stats *st, uint64_t longest,
                                 GError **err);

void insee_stats_clear(insee_stats *st);

/* Count the series' link throughput per dimension and direction; `dim` and
   `dir` give each global port's (topology.h's insee_hop). FALSE
   (INSEE_CONFIG_ERROR_INVALID, naming [stats] direction_series) without a
   series or when no port has a dimension and a direction. */
gboolean insee_stats_track_directions(insee_stats *st, const insee_net *net, const int32_t *dim,
                                      const int32_t *dir, GError **err);

/* Measurement window [start, end); the end may be moved later (run phases
   decide it as they go). Queue histograms restart their clocks at start. */
void insee_stats_set_window(insee_stats *st, uint64_t start, uint64_t end);

static inline gboolean insee_stats_measuring(const insee_stats *st, uint64_t t)
{
    return t >= st->window_start && t < st->window_end;
}

/* Time moves on to `now` with `in_network` packets inside since the last
   call; closes the intervals that ended. `phase` labels them. Called every
   simulated cycle: the common case, no boundary crossed, is inline. */
void insee_stats_advance_split(insee_stats *st, uint64_t now, uint64_t in_network,
                               insee_phase phase);
static inline void insee_stats_advance(insee_stats *st, uint64_t now, uint64_t in_network,
                                       insee_phase phase)
{
    if (G_UNLIKELY(now >= st->next_split)) {
        insee_stats_advance_split(st, now, in_network, phase);
        return;
    }
    uint64_t area = in_network * (now - st->clock);
    st->total.occupancy_area += area;
    if (st->clock >= st->window_start && st->clock < st->window_end) {
        st->occupancy_area += area;
        st->occupancy_max = MAX(st->occupancy_max, in_network);
    }
    st->clock = now;
}
/* A split run's part accounts its own cycles with no packets in the
   network and learns the whole network's count only when the parts meet:
   it then adds it for the `cycles` cycles from `at`, which the clock has
   passed and which cross no boundary of the window or the series. */
void insee_stats_occupancy(insee_stats *st, uint64_t at, uint64_t in_network, uint64_t cycles);
/* Close the queue histograms, and the series' intervals that end by
   `now`. */
void insee_stats_finish(insee_stats *st, const insee_net *net, uint64_t now, insee_phase phase);
/* Then close the series' last, partial interval at `now`, when anything
   happened in it. A split run's parts call it after insee_stats_merge():
   they decide on the whole network's figures, so they all keep the point
   or none does, as one process does. */
void insee_stats_close_last(insee_stats *st, uint64_t now, insee_phase phase);

/* Whether insee_stats_on_injected() has anything to count. */
static inline gboolean insee_stats_per_injection(const insee_stats *st)
{
    return st->opt.distance_histograms || st->node_inj || st->pair_inj;
}

/* A packet entered its injection queue (counted in the series and phases). */
static inline void insee_stats_on_generated(insee_stats *st, const insee_packet *pk,
                                            uint64_t now)
{
    st->total.generated++;
    st->total.generated_phits += pk->phits;
    if (G_UNLIKELY(st->trace))
        insee_trace_generated(st->trace, pk, now);
}

/* What the run phases' window has seen so far, and its restart. */
static inline insee_window insee_stats_phase_window(const insee_stats *st)
{
    return insee_window_between(&st->phase_mark, &st->total);
}

static inline void insee_stats_restart_phase_window(insee_stats *st)
{
    st->phase_mark = st->total;
}
/* Packet pk's head left its injection queue, at any time: for the trace.
   Measured injections then go to insee_stats_on_injected(). */
static inline void insee_stats_on_leaving_source(insee_stats *st, const insee_packet *pk,
                                                 uint64_t now)
{
    if (G_UNLIKELY(st->trace))
        insee_trace_injected(st->trace, pk, now);
}
/* Packet pk's head left its injection queue in the measurement window;
   `distance` is its minimal router-to-router distance (read only with
   distance histograms on). */
void insee_stats_on_injected(insee_stats *st, const insee_packet *pk, uint32_t distance,
                             uint64_t now);
/* Packet pk started crossing output VC ovc (at any time). */
static inline void insee_stats_on_hop(insee_stats *st, const insee_packet *pk, uint32_t ovc,
                                      uint64_t now)
{
    if (G_UNLIKELY(st->trace))
        insee_trace_hop(st->trace, pk, ovc, now);
    if (st->port_phits && insee_stats_measuring(st, now))
        st->port_phits[ovc] += pk->phits;
    if (st->dir.port_class) {
        uint16_t c = st->dir.port_class[ovc / st->dir.vcs];
        if (c != UINT16_MAX)
            st->dir.phits[c] += pk->phits;
    }
}
void insee_stats_on_delivered(insee_stats *st, const insee_packet *pk, uint64_t now);
/* Packet pk ends undelivered: from queue q of a router, or at its source
   (q = INSEE_NONE; pk then lives only for the call). */
void insee_stats_on_dropped(insee_stats *st, insee_drop_reason why, const insee_packet *pk,
                            uint32_t q, uint64_t now);
/* Queue q held `count` slots (insee_net's q[].count) until the cycle of the
   last advance: called by the network just before the count changes. */
void insee_stats_on_queue(void *stats, uint32_t q, uint32_t count);

/* packets of L phits over `cycles` cycles of `nodes` nodes, in
   phits/node/cycle (0 for an empty stretch). */
double insee_load(uint64_t phits, uint32_t nodes, uint64_t cycles);
/* Mean generation latency of what the window delivered; NAN when nothing. */
double insee_window_latency(const insee_window *w);

G_END_DECLS
#endif
