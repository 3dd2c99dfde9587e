/* kernel/sweep/ranks.c — mpirun's ranks (ranks.h), through Open MPI when
 * insee was built with it. */
#include "sweep/ranks.h"

#ifdef INSEE_HAVE_MPI
#include <mpi.h>
#endif

gboolean insee_sweep_ranks_join(guint *rank, guint *ranks, GError **err)
{
    *rank = *ranks = 0;
    if (!g_getenv("OMPI_COMM_WORLD_SIZE"))
        return TRUE;
#ifdef INSEE_HAVE_MPI
    /* MPI's default error handler aborts the job, so a failed call never
       returns here. */
    (void)err;
    int r, n;
    MPI_Init(NULL, NULL);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    *rank = (guint)r;
    *ranks = (guint)n;
    return TRUE;
#else
    g_set_error(err, G_OPTION_ERROR, G_OPTION_ERROR_FAILED,
                "sweep: started by mpirun, but this insee was built without Open MPI, so its "
                "ranks cannot share the runs. Rebuild insee with libopenmpi-dev installed, or "
                "run one insee sweep --shard I/N per machine and merge them with --merge");
    return FALSE;
#endif
}

void insee_sweep_ranks_wait(void)
{
#ifdef INSEE_HAVE_MPI
    MPI_Barrier(MPI_COMM_WORLD);
#endif
}

void insee_sweep_ranks_leave(guint ranks)
{
#ifdef INSEE_HAVE_MPI
    if (ranks)
        MPI_Finalize();
#else
    (void)ranks;
#endif
}
