/* kernel/stats/merge.h — one report from a partitioned run's parts.
 *
 * A run split over several parts (MPI ranks, each owning some routers and
 * nodes) must report what the single process reports, byte for byte. Every
 * part holds the whole collector and report, set up alike (same options,
 * same network), but counts only the packets its own routers and nodes
 * saw. At the end of the run, after insee_stats_finish() and before
 * insee_stats_close_last(), every part calls
 * insee_stats_merge() and insee_report_merge(): they make the same calls
 * in the same order on every part (collective), and leave every part with
 * the whole run's figures.
 *
 * What is summed over the parts (the partitioned counters): packets
 * generated, injected, delivered and dropped, their phits and hops, every
 * total_* counter but total_in_flight, the drop reasons, the packet id
 * sums, source stalls, the insee_stat running statistics (count, sum and
 * the words of the sum of squares summed then normalised, max by maximum),
 * every histogram (each part grown to the longest first), the port, node
 * and pair maps, the direction counters and their series, and the summed
 * fields of every insee_window: the totals, the marks and every point of
 * the series (the parts have the same points, at the same cycles). The
 * same for each application's counters.
 *
 * What is left as it is, being the same on every part already (replicated):
 * the clock, the window and phase boundaries, cycles and completion (the
 * run's and each application's), configuration, names, plugin lists, the
 * scheduler and jobs, and the occupancy figures (occupancy_area of the
 * collector and of every insee_window, occupancy_max, the report's
 * occupancy and total_in_flight): the engine counts the whole network's
 * packets in flight on every part. Wall time, speed and resident memory
 * stay each part's own; plugins' figures too.
 *
 * What the merge does not compute: the report's figures derived from the
 * counters, which the engine fills after merging as it does in a single
 * process — generated_load and accepted_load (the run's and each
 * application's), the latency percentiles, and the drop reasons and
 * occupancy_max it copies from the collector (so insee_stats_merge() comes
 * first). The converge phases' batches and window decisions read the
 * collector during the run: the engine sums those windows itself.
 *
 * The queue histograms add up when each part times only the queues whose
 * count it holds exactly (q_counted). Not mergeable: the packet trace; the
 * engine refuses [stats] trace in a partitioned run.
 */
#ifndef INSEE_KERNEL_MERGE_H
#define INSEE_KERNEL_MERGE_H

#include <stddef.h>
#include <stdint.h>

#include "stats/collect.h"
#include "stats/report.h"

G_BEGIN_DECLS

/* How a partitioned run combines its parts' figures: each callback replaces
   v[0..n) in place with the sum (or maximum) of that array over every part,
   the same result on every part (an MPI_Allreduce in the engine). Never
   called with n = 0. */
typedef struct insee_merge_ops {
    void (*sum)(void *ctx, uint64_t *v, size_t n);
    void (*max)(void *ctx, uint64_t *v, size_t n);
    void *ctx;
} insee_merge_ops;

void insee_stats_merge(insee_stats *st, const insee_merge_ops *ops);
void insee_report_merge(insee_report *rep, const insee_merge_ops *ops);

G_END_DECLS
#endif
