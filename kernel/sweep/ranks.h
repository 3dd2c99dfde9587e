/* kernel/sweep/ranks.h — a sweep started by Open MPI's mpirun: rank 0
 * hands out the runs as ranks become free, and merges.
 *
 * The ranks talk through a Unix socket of rank 0's in the job's session
 * directory when mpirun put them all on this machine (no MPI start-up, which
 * costs more than a sweep of short runs), and through Open MPI otherwise
 * (INSEE_SWEEP_RANKS=mpi: always). The hand-out is the same either way.
 *
 * `mpirun -n K insee sweep ...` starts K copies of the same command. Each
 * rank R keeps the runs it finishes in its own file (RESULTS-shard-(R+1).csv)
 * and runs -j JOBS at a time (1 unless -j is given: the ranks share the
 * machines' cores). Rank 0 knows which runs every file and the merged
 * results already hold; it runs runs too, and between them answers the
 * other ranks' requests for the next run (insee_sweep_ranks_serve(); a rank
 * asks with insee_sweep_ranks_ask() whenever it has room for one more), so
 * a rank given slow runs takes fewer. Once every rank is told that none is
 * left and has ended its runs (a barrier), rank 0 merges the files into
 * RESULTS and writes the summary, as `insee sweep --merge` does: the
 * results are those of a sweep on one machine byte for byte, whichever rank
 * ran which run. A rank that dies (and mpirun then stopping the others)
 * loses only the runs it was running; the same command again runs only
 * what no file holds.
 *
 * Whether Open MPI is there is decided when insee is built (pkg-config
 * ompi-c); its library is opened by insee_sweep_ranks_join() under mpirun
 * over several machines only, never linked, so that other processes do not
 * load it. Without it such a sweep (OMPI_COMM_WORLD_SIZE set, ranks on
 * several machines) is refused with an error that says so, rather than
 * every rank running the whole sweep.
 */
#ifndef INSEE_SWEEP_RANKS_H
#define INSEE_SWEEP_RANKS_H

#include <glib.h>

#include "engine/partition.h"

G_BEGIN_DECLS

/* Join mpirun's ranks when mpirun started this process: *rank of *ranks;
   *ranks 0 when it did not. FALSE with *err (G_OPTION_ERROR_FAILED) when it
   did and insee was built without Open MPI. */
gboolean insee_sweep_ranks_join(guint *rank, guint *ranks, GError **err);
/* Wait until every rank has come here. */
void insee_sweep_ranks_wait(void);
/* A rank other than 0: the next run rank 0 hands it, G_MAXUINT when none
   is left (then it asks no more). */
guint insee_sweep_ranks_ask(void);
/* Rank 0: answer every request waiting now with next(ctx) (G_MAXUINT:
   none left), without waiting for more. Returns how many were told none. */
guint insee_sweep_ranks_serve(guint (*next)(void *ctx), void *ctx);
/* Leave the ranks (nothing when join found none). */
void insee_sweep_ranks_leave(void);

/* `mpirun -n K insee run`: join the K ranks through Open MPI (no socket:
   the ranks of one run meet every cycle) and fill *t with its collectives,
   t->parts 0 when mpirun did not start this process or started one rank.
   FALSE with *err when it did and insee was built without Open MPI. Leave
   with insee_sweep_ranks_leave(). */
gboolean insee_ranks_run_join(insee_transport *t, GError **err);

G_END_DECLS
#endif
