/* kernel/sweep/ranks.c — mpirun's ranks (ranks.h), through Open MPI when
 * insee was built with it. */
#include "sweep/ranks.h"

#ifdef INSEE_HAVE_MPI
#include <gmodule.h>
#include <mpi.h>

/* Open MPI's library is opened only by a sweep that mpirun started: linked
   into insee it was loaded by every process, each run a sweep starts
   included, 3 to 8 ms more per process against a run's 9 ms of start-up. */
static struct {
    int (*init)(int *, char ***);
    int (*rank)(MPI_Comm, int *);
    int (*size)(MPI_Comm, int *);
    int (*barrier)(MPI_Comm);
    int (*send)(const void *, int, MPI_Datatype, int, int, MPI_Comm);
    int (*recv)(void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Status *);
    int (*iprobe)(int, int, MPI_Comm, int *, MPI_Status *);
    int (*finalize)(void);
    MPI_Comm world;
    MPI_Datatype word; /* MPI_UNSIGNED */
} mpi;

/* The two messages of the hand-out: a rank asks rank 0 for a run, rank 0
   answers with one (G_MAXUINT: none is left). */
enum { TAG_ASK = 1, TAG_RUN = 2 };

/* Opened global (not G_MODULE_BIND_LOCAL): Open MPI's own components,
   which it opens in turn, look up its symbols. */
static gboolean open_mpi(GError **err)
{
    GModule *lib = g_module_open(INSEE_MPI_LIBRARY, 0);
    gpointer world = NULL, word = NULL;
    gboolean ok = lib && g_module_symbol(lib, "MPI_Init", (gpointer *)&mpi.init) &&
                  g_module_symbol(lib, "MPI_Comm_rank", (gpointer *)&mpi.rank) &&
                  g_module_symbol(lib, "MPI_Comm_size", (gpointer *)&mpi.size) &&
                  g_module_symbol(lib, "MPI_Barrier", (gpointer *)&mpi.barrier) &&
                  g_module_symbol(lib, "MPI_Send", (gpointer *)&mpi.send) &&
                  g_module_symbol(lib, "MPI_Recv", (gpointer *)&mpi.recv) &&
                  g_module_symbol(lib, "MPI_Iprobe", (gpointer *)&mpi.iprobe) &&
                  g_module_symbol(lib, "MPI_Finalize", (gpointer *)&mpi.finalize) &&
                  g_module_symbol(lib, "ompi_mpi_comm_world", &world) &&
                  g_module_symbol(lib, "ompi_mpi_unsigned", &word);
    if (!ok) {
        g_set_error(err, G_OPTION_ERROR, G_OPTION_ERROR_FAILED,
                    "sweep: started by mpirun, but Open MPI's library %s cannot be used (%s): "
                    "install the Open MPI insee was built with (libopenmpi-dev)",
                    INSEE_MPI_LIBRARY, g_module_error());
        return FALSE;
    }
    g_module_make_resident(lib);
    mpi.world = (MPI_Comm)world;
    mpi.word = (MPI_Datatype)word;
    return TRUE;
}
#endif

gboolean insee_sweep_ranks_join(guint *rank, guint *ranks, GError **err)
{
    *rank = *ranks = 0;
    if (!g_getenv("OMPI_COMM_WORLD_SIZE"))
        return TRUE;
#ifdef INSEE_HAVE_MPI
    /* MPI's default error handler aborts the job, so a failed call never
       returns here. */
    int r, n;
    if (!open_mpi(err))
        return FALSE;
    mpi.init(NULL, NULL);
    mpi.rank(mpi.world, &r);
    mpi.size(mpi.world, &n);
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
    mpi.barrier(mpi.world);
#endif
}

guint insee_sweep_ranks_ask(void)
{
#ifdef INSEE_HAVE_MPI
    unsigned ask = 0, run = G_MAXUINT;
    mpi.send(&ask, 1, mpi.word, 0, TAG_ASK, mpi.world);
    mpi.recv(&run, 1, mpi.word, 0, TAG_RUN, mpi.world, MPI_STATUS_IGNORE);
    return run;
#else
    return G_MAXUINT;
#endif
}

guint insee_sweep_ranks_serve(guint (*next)(void *ctx), void *ctx)
{
    guint told_none = 0;
#ifdef INSEE_HAVE_MPI
    for (;;) {
        int waiting = 0;
        MPI_Status from;
        mpi.iprobe(MPI_ANY_SOURCE, TAG_ASK, mpi.world, &waiting, &from);
        if (!waiting)
            break;
        unsigned ask, run;
        mpi.recv(&ask, 1, mpi.word, from.MPI_SOURCE, TAG_ASK, mpi.world, MPI_STATUS_IGNORE);
        run = next(ctx);
        mpi.send(&run, 1, mpi.word, from.MPI_SOURCE, TAG_RUN, mpi.world);
        told_none += run == G_MAXUINT;
    }
#else
    (void)next;
    (void)ctx;
#endif
    return told_none;
}

void insee_sweep_ranks_leave(guint ranks)
{
#ifdef INSEE_HAVE_MPI
    if (ranks)
        mpi.finalize();
#else
    (void)ranks;
#endif
}
