/* kernel/sweep/ranks.h — a sweep started by Open MPI's mpirun: each rank a
 * shard of the runs (cluster.h), rank 0 the merge.
 *
 * `mpirun -n K insee sweep ...` starts K copies of the same command. Rank R
 * runs shard R + 1 of K into its own file (RESULTS-shard-(R+1).csv), with
 * -j JOBS runs at a time (1 unless -j is given: the ranks share the
 * machines' cores); once every rank has ended its shard (a barrier), rank 0
 * merges the shards into RESULTS and writes the summary, as
 * `insee sweep --merge` does, so the results are those of a sweep on one
 * machine byte for byte. A rank's shard file keeps each run it finished, so
 * a rank that dies (and mpirun then stopping the others) loses only the
 * runs it was running, and the same command again runs only what is left.
 *
 * Whether Open MPI is there is decided when insee is built (pkg-config
 * ompi-c); its library is opened by insee_sweep_ranks_join() under mpirun
 * only, never linked, so that other processes do not load it. Without
 * it a sweep started by mpirun (OMPI_COMM_WORLD_SIZE set) is refused with
 * an error that says so, rather than every rank running the whole sweep.
 */
#ifndef INSEE_SWEEP_RANKS_H
#define INSEE_SWEEP_RANKS_H

#include <glib.h>

G_BEGIN_DECLS

/* Join mpirun's ranks when mpirun started this process: *rank of *ranks;
   *ranks 0 when it did not. FALSE with *err (G_OPTION_ERROR_FAILED) when it
   did and insee was built without Open MPI. */
gboolean insee_sweep_ranks_join(guint *rank, guint *ranks, GError **err);
/* Wait until every rank has come here. */
void insee_sweep_ranks_wait(void);
/* Leave the ranks (nothing when *ranks was 0). */
void insee_sweep_ranks_leave(guint ranks);

G_END_DECLS
#endif
