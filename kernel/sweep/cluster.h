/* kernel/sweep/cluster.h — a sweep over a cluster: disjoint shards of its
 * runs, and the Slurm job array that runs them.
 *
 * Shard I of N (1 <= I <= N) holds the runs whose index (point * seeds +
 * seed - 1, grid order) is I - 1 modulo N: the shards are disjoint, cover
 * every run, spread each configuration's loads over all of them, and are
 * the same on every machine. Each shard writes its own results file;
 * `insee sweep --merge` gathers them into one, which is the file a sweep on
 * one machine writes, byte for byte (results.h: rows carry no speed figure
 * and are put in grid order).
 *
 * The Slurm script holds one array task per shard and, submitted with
 * `bash FILE` on the login node, submits itself as the array and then the
 * merge as a job that starts once every task has ended (afterany: the
 * merge names the runs a failed task left out). `sbatch FILE` submits the
 * array alone; `bash FILE merge` merges by hand.
 */
#ifndef INSEE_SWEEP_CLUSTER_H
#define INSEE_SWEEP_CLUSTER_H

#include <glib.h>

G_BEGIN_DECLS

/* "I/N" with 1 <= I <= N; FALSE with *err (G_OPTION_ERROR_BAD_VALUE). */
gboolean insee_sweep_shard_parse(const char *text, guint *index, guint *count, GError **err);
gboolean insee_sweep_shard_has(guint run, guint index, guint count);

/* The file of shard I of `output` ("runs.csv" -> "runs-shard-I.csv"), with I
   the text given (a number, or a shell expansion in the script). */
char *insee_sweep_shard_file(const char *output, const char *index);

/* The Slurm job array script. `sweep` is the command common to every task
   and the merge, each word as it is to be passed (they are quoted here):
   the insee program, its global options, `sweep`, the configuration, the
   grid and the seeds. `tasks` shards of `cpus` processors each; `dir` the
   directory the commands run in. */
char *insee_sweep_slurm_script(char *const *sweep, guint tasks, guint cpus, const char *dir,
                               const char *output, const char *summary);

G_END_DECLS
#endif
