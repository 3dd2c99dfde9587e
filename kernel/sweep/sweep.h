/* kernel/sweep/sweep.h — `insee sweep`: many ordinary runs over a grid of
 * parameters and seeds, in parallel processes, resumable.
 *
 * insee sweep [CONFIG] --vary KEY=V1,V2,... [--vary KEY=FROM:TO:STEP ...]
 *             [--seeds N] [-j JOBS] [--stop-at-saturation] -o RESULTS.csv
 *
 * Each (point, seed) is `insee run CONFIG --set ...` in a process of its own
 * (child.h) with seed 1..N; its [stats] csv row is appended to RESULTS as
 * it ends (results.h), and a rerun of the same command runs only what is
 * missing. When all is run the rows are put in grid order, the summary per
 * point (summary.h) written to --summary FILE (default RESULTS less .csv
 * plus -summary.csv) and shown on standard output.
 *
 * With --stop-at-saturation, a configuration's loads (grid.h) are run in
 * order, each once the one before it has finished, and the loads past the
 * first whose accepted load falls short of the offered load by more than
 * --saturation-tolerance (a fraction, 0.05) or whose latency from
 * generation passes --latency-bound (cycles, 0: none) are not run.
 *
 * On a cluster (cluster.h): --shard I/N runs one of N disjoint shards of
 * the runs, --merge FILE... gathers shards' results and runs nothing,
 * --slurm FILE [--array N] writes a Slurm job array script and runs nothing.
 * Started by mpirun, each rank runs a shard and rank 0 merges (ranks.h).
 *
 * A [sweep] table in the experiment file may hold the same settings
 * (experiment.h's INSEE_SWEEP_*; vary holds the specifications separated by
 * ';'); an option given on the command line wins.
 *
 * Exit status: 0 every run succeeded, 1 a run failed (each is named with
 * its reason on standard error; a rerun tries it again), 2 usage or
 * configuration error, 128 + N when signal N stopped the sweep (the
 * finished runs are kept).
 */
#ifndef INSEE_SWEEP_SWEEP_H
#define INSEE_SWEEP_SWEEP_H

#include <glib.h>

G_BEGIN_DECLS

/* The options of `insee sweep`, for the command line's main group; and
   whether any was given (they apply to sweep only). */
extern const GOptionEntry insee_sweep_entries[];
gboolean insee_sweep_options_given(void);

/* `insee run CONFIG` (NULL: the embedded default) with these --set values
   (NULL-terminated), in the process it is called in; its exit status. */
typedef int (*insee_sweep_runner)(const char *config, char **sets);

/* The command: its positional arguments, -o, and the global --set and
   --plugin-dir values, handed on to every run. Each run calls `runner` in
   a forked child when it can (child.h), else starts the insee program
   anew. */
int insee_sweep_command(int argc, char **argv, const char *output, char *const *sets,
                        char *const *plugin_dirs, insee_sweep_runner runner);

G_END_DECLS
#endif
