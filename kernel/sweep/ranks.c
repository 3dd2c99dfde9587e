/* kernel/sweep/ranks.c — mpirun's ranks (ranks.h): through a Unix socket
 * of rank 0's when every rank is on one machine, else through Open MPI
 * when insee was built with it. */
#define _GNU_SOURCE /* accept4 */
#include "sweep/ranks.h"

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* How the ranks talk: chosen once, by insee_sweep_ranks_join(). */
static enum { VIA_NONE, VIA_SOCKET, VIA_MPI } via;

/* ---- one machine: a Unix socket in mpirun's session directory -----------
 * Open MPI's start-up (MPI_Init) costs about 0.6 s on a busy 2-core machine,
 * more than a sweep of short runs takes; ranks that share a machine need
 * none of it. Rank 0 listens on a socket in the job's own session
 * directory (which mpirun makes for the job and removes after it); the
 * others connect. Every message is one native 32-bit word: a request (ASK,
 * or WAIT at the barrier), or rank 0's answer (a run, G_MAXUINT, or the
 * barrier's release). */
enum { ASK = 0, WAIT = 1 };

static struct {
    char *path;     /* the socket */
    int fd;         /* rank 0: listening; the others: connected to rank 0 */
    GArray *peers;  /* rank 0: the connected ranks (peer) */
    guint ranks;
} sock = {.fd = -1};

/* A rank connected to rank 0. A rank told that no run is left goes to the
   barrier at once, so its WAIT may come while rank 0 still serves others. */
typedef struct peer {
    int fd;
    gboolean waiting; /* its WAIT has come */
} peer;

#define PEER(i) g_array_index(sock.peers, peer, i)

static gboolean put_word(int fd, guint32 w)
{
    ssize_t n;
    do
        n = send(fd, &w, sizeof w, MSG_NOSIGNAL);
    while (n < 0 && errno == EINTR);
    return n == (ssize_t)sizeof w;
}

/* FALSE when the other end is gone. */
static gboolean get_word(int fd, guint32 *w)
{
    ssize_t n;
    do
        n = recv(fd, w, sizeof *w, MSG_WAITALL);
    while (n < 0 && errno == EINTR);
    return n == (ssize_t)sizeof *w;
}

/* The socket's path, or NULL when mpirun gives no session directory (not
   Open MPI 4's mpirun) or it is too long for a socket's address. */
static char *socket_path(void)
{
    const char *proc = g_getenv("OMPI_FILE_LOCATION"); /* SESSION/JOB/RANK */
    if (!proc)
        return NULL;
    char *job = g_path_get_dirname(proc);
    char *path = g_build_filename(job, "insee-sweep.sock", NULL);
    g_free(job);
    if (strlen(path) >= sizeof(((struct sockaddr_un *)NULL)->sun_path)) {
        g_free(path);
        return NULL;
    }
    return path;
}

static gboolean socket_join(guint rank, guint ranks, GError **err)
{
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    g_strlcpy(addr.sun_path, sock.path, sizeof addr.sun_path);
    sock.ranks = ranks;
    sock.fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | (rank ? 0 : SOCK_NONBLOCK), 0);
    if (sock.fd >= 0 && rank == 0) {
        unlink(sock.path);
        sock.peers = g_array_new(FALSE, FALSE, sizeof(peer));
        if (bind(sock.fd, (struct sockaddr *)&addr, sizeof addr) == 0 &&
            listen(sock.fd, (int)MIN(ranks, 4096u)) == 0)
            return TRUE;
    } else if (sock.fd >= 0) {
        /* Rank 0 may not listen yet: try for a minute. */
        for (int tries = 0; tries < 60000; tries++) {
            if (connect(sock.fd, (struct sockaddr *)&addr, sizeof addr) == 0)
                return TRUE;
            if (errno != ENOENT && errno != ECONNREFUSED && errno != EINTR)
                break;
            g_usleep(1000);
        }
    }
    g_set_error(err, G_OPTION_ERROR, G_OPTION_ERROR_FAILED,
                "sweep: rank %u cannot reach rank 0 through %s: %s; set INSEE_SWEEP_RANKS=mpi "
                "to use Open MPI instead",
                rank, sock.path, g_strerror(errno));
    return FALSE;
}

/* Rank 0: take the ranks that connected since (non-blocking). */
static void socket_accept(void)
{
    peer p = {0};
    while ((p.fd = accept4(sock.fd, NULL, NULL, SOCK_CLOEXEC)) >= 0)
        g_array_append_val(sock.peers, p);
}

static void socket_drop(guint i)
{
    close(PEER(i).fd);
    g_array_remove_index(sock.peers, i);
}

static guint socket_serve(guint (*next)(void *ctx), void *ctx)
{
    guint told_none = 0;
    socket_accept();
    for (gboolean asked = TRUE; asked;) {
        asked = FALSE;
        for (guint i = 0; i < sock.peers->len; i++) {
            struct pollfd p = {.fd = PEER(i).fd, .events = POLLIN};
            guint32 word;
            if (PEER(i).waiting || poll(&p, 1, 0) <= 0)
                continue;
            asked = TRUE;
            if (!get_word(p.fd, &word) || (word != ASK && word != WAIT)) {
                /* A rank that is gone asks no more: count it as told. */
                socket_drop(i--);
                told_none++;
                continue;
            }
            if (word == WAIT) {
                PEER(i).waiting = TRUE;
                continue;
            }
            guint32 run = next(ctx);
            told_none += run == G_MAXUINT;
            if (!put_word(p.fd, run)) {
                socket_drop(i--);
                told_none += run != G_MAXUINT;
            }
        }
    }
    return told_none;
}

/* Rank 0 releases the others once every connected one has come. */
static void socket_wait(guint rank)
{
    guint32 word = WAIT;
    if (rank) {
        if (put_word(sock.fd, word))
            get_word(sock.fd, &word);
        return;
    }
    for (guint i = 0; i < sock.peers->len; i++)
        if (!PEER(i).waiting && !get_word(PEER(i).fd, &word))
            socket_drop(i--);
    for (guint i = 0; i < sock.peers->len; i++)
        put_word(PEER(i).fd, WAIT);
}

static void socket_leave(guint rank)
{
    for (guint i = 0; sock.peers && i < sock.peers->len; i++)
        close(PEER(i).fd);
    if (sock.peers)
        g_array_free(sock.peers, TRUE);
    if (sock.fd >= 0)
        close(sock.fd);
    if (rank == 0)
        unlink(sock.path);
    g_free(sock.path);
    sock.path = NULL;
    sock.peers = NULL;
    sock.fd = -1;
}

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
    /* the collectives of a partitioned run (insee_ranks_run_join) */
    int (*alltoall)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, MPI_Comm);
    int (*alltoallv)(const void *, const int *, const int *, MPI_Datatype, void *, const int *,
                     const int *, MPI_Datatype, MPI_Comm);
    int (*allreduce)(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm);
    MPI_Comm world;
    MPI_Datatype word;  /* MPI_UNSIGNED */
    MPI_Datatype byte;  /* MPI_BYTE */
    MPI_Datatype u64;   /* MPI_UINT64_T */
    MPI_Op sum, max;
} mpi;

/* The two messages of the hand-out: a rank asks rank 0 for a run, rank 0
   answers with one (G_MAXUINT: none is left). */
enum { TAG_ASK = 1, TAG_RUN = 2 };

/* Opened global (not G_MODULE_BIND_LOCAL): Open MPI's own components,
   which it opens in turn, look up its symbols. */
static gboolean open_mpi(GError **err)
{
    GModule *lib = g_module_open(INSEE_MPI_LIBRARY, 0);
    gpointer world = NULL, word = NULL, byte = NULL, u64 = NULL, sum = NULL, max = NULL;
    gboolean ok = lib && g_module_symbol(lib, "MPI_Init", (gpointer *)&mpi.init) &&
                  g_module_symbol(lib, "MPI_Comm_rank", (gpointer *)&mpi.rank) &&
                  g_module_symbol(lib, "MPI_Comm_size", (gpointer *)&mpi.size) &&
                  g_module_symbol(lib, "MPI_Barrier", (gpointer *)&mpi.barrier) &&
                  g_module_symbol(lib, "MPI_Send", (gpointer *)&mpi.send) &&
                  g_module_symbol(lib, "MPI_Recv", (gpointer *)&mpi.recv) &&
                  g_module_symbol(lib, "MPI_Iprobe", (gpointer *)&mpi.iprobe) &&
                  g_module_symbol(lib, "MPI_Finalize", (gpointer *)&mpi.finalize) &&
                  g_module_symbol(lib, "MPI_Alltoall", (gpointer *)&mpi.alltoall) &&
                  g_module_symbol(lib, "MPI_Alltoallv", (gpointer *)&mpi.alltoallv) &&
                  g_module_symbol(lib, "MPI_Allreduce", (gpointer *)&mpi.allreduce) &&
                  g_module_symbol(lib, "ompi_mpi_comm_world", &world) &&
                  g_module_symbol(lib, "ompi_mpi_unsigned", &word) &&
                  g_module_symbol(lib, "ompi_mpi_byte", &byte) &&
                  g_module_symbol(lib, "ompi_mpi_uint64_t", &u64) &&
                  g_module_symbol(lib, "ompi_mpi_op_sum", &sum) &&
                  g_module_symbol(lib, "ompi_mpi_op_max", &max);
    if (!ok) {
        g_set_error(err, G_OPTION_ERROR, G_OPTION_ERROR_FAILED,
                    "started by mpirun, but Open MPI's library %s cannot be used (%s): "
                    "install the Open MPI insee was built with (libopenmpi-dev)",
                    INSEE_MPI_LIBRARY, g_module_error());
        return FALSE;
    }
    g_module_make_resident(lib);
    mpi.world = (MPI_Comm)world;
    mpi.word = (MPI_Datatype)word;
    mpi.byte = (MPI_Datatype)byte;
    mpi.u64 = (MPI_Datatype)u64;
    mpi.sum = (MPI_Op)sum;
    mpi.max = (MPI_Op)max;
    return TRUE;
}
#endif

static guint my_rank, my_ranks;

#ifdef INSEE_HAVE_MPI
/* Join through Open MPI. Its default error handler aborts the job, so a
   failed call never returns here. */
static gboolean mpi_join(GError **err)
{
    int r, n;
    if (!open_mpi(err))
        return FALSE;
    via = VIA_MPI;
    mpi.init(NULL, NULL);
    mpi.rank(mpi.world, &r);
    mpi.size(mpi.world, &n);
    my_rank = (guint)r;
    my_ranks = (guint)n;
    return TRUE;
}
#endif

/* Under mpirun: the socket when every rank shares this machine (unless
   INSEE_SWEEP_RANKS=mpi), else Open MPI. */
gboolean insee_sweep_ranks_join(guint *rank, guint *ranks, GError **err)
{
    *rank = *ranks = 0;
    const char *size = g_getenv("OMPI_COMM_WORLD_SIZE");
    if (!size)
        return TRUE;
    const char *local = g_getenv("OMPI_COMM_WORLD_LOCAL_SIZE"), *me = g_getenv("OMPI_COMM_WORLD_RANK");
    if (g_strcmp0(g_getenv("INSEE_SWEEP_RANKS"), "mpi") != 0 && g_strcmp0(local, size) == 0 && me &&
        (sock.path = socket_path())) {
        via = VIA_SOCKET;
        my_rank = *rank = (guint)g_ascii_strtoull(me, NULL, 10);
        *ranks = (guint)g_ascii_strtoull(size, NULL, 10);
        return socket_join(*rank, *ranks, err);
    }
#ifdef INSEE_HAVE_MPI
    if (!mpi_join(err))
        return FALSE;
    *rank = my_rank;
    *ranks = my_ranks;
    return TRUE;
#else
    g_set_error(err, G_OPTION_ERROR, G_OPTION_ERROR_FAILED,
                "sweep: started by mpirun over several machines (or with INSEE_SWEEP_RANKS=mpi), "
                "but this insee was built without Open MPI, so its ranks cannot share the runs. "
                "Rebuild insee with libopenmpi-dev installed, or run one insee sweep --shard I/N "
                "per machine and merge them with --merge");
    return FALSE;
#endif
}

void insee_sweep_ranks_wait(void)
{
    if (via == VIA_SOCKET)
        socket_wait(my_rank);
#ifdef INSEE_HAVE_MPI
    if (via == VIA_MPI)
        mpi.barrier(mpi.world);
#endif
}

guint insee_sweep_ranks_ask(void)
{
    guint32 run = G_MAXUINT;
    if (via == VIA_SOCKET && !(put_word(sock.fd, ASK) && get_word(sock.fd, &run)))
        run = G_MAXUINT; /* rank 0 is gone */
#ifdef INSEE_HAVE_MPI
    if (via == VIA_MPI) {
        unsigned ask = 0;
        mpi.send(&ask, 1, mpi.word, 0, TAG_ASK, mpi.world);
        mpi.recv(&run, 1, mpi.word, 0, TAG_RUN, mpi.world, MPI_STATUS_IGNORE);
    }
#endif
    return run;
}

guint insee_sweep_ranks_serve(guint (*next)(void *ctx), void *ctx)
{
    if (via == VIA_SOCKET)
        return socket_serve(next, ctx);
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
#endif
    return told_none;
}

void insee_sweep_ranks_leave(void)
{
    if (via == VIA_SOCKET)
        socket_leave(my_rank);
#ifdef INSEE_HAVE_MPI
    if (via == VIA_MPI)
        mpi.finalize();
#endif
    via = VIA_NONE;
}

/* ---- one run split over the ranks (engine/partition.h) ------------------ */

#ifdef INSEE_HAVE_MPI
static void mpi_alltoall(void *ctx, const void *send, void *recv, size_t each)
{
    (void)ctx;
    mpi.alltoall(send, (int)each, mpi.byte, recv, (int)each, mpi.byte, mpi.world);
}

static void mpi_alltoallv(void *ctx, const void *send, const int *scount, const int *sdispl,
                          void *recv, const int *rcount, const int *rdispl)
{
    (void)ctx;
    mpi.alltoallv(send, scount, sdispl, mpi.byte, recv, rcount, rdispl, mpi.byte, mpi.world);
}

static void mpi_allreduce(void *ctx, uint64_t *v, size_t n, insee_reduce_op op)
{
    (void)ctx;
    mpi.allreduce(MPI_IN_PLACE, v, (int)n, mpi.u64, op == INSEE_REDUCE_SUM ? mpi.sum : mpi.max,
                  mpi.world);
}
#endif

gboolean insee_ranks_run_join(insee_transport *t, GError **err)
{
    const char *size = g_getenv("OMPI_COMM_WORLD_SIZE");
    t->parts = 0;
    if (!size || g_ascii_strtoull(size, NULL, 10) < 2)
        return TRUE;
#ifdef INSEE_HAVE_MPI
    if (!mpi_join(err))
        return FALSE;
    *t = (insee_transport){.part = my_rank, .parts = my_ranks, .alltoall = mpi_alltoall,
                           .alltoallv = mpi_alltoallv, .allreduce = mpi_allreduce};
    return TRUE;
#else
    g_set_error(err, G_OPTION_ERROR, G_OPTION_ERROR_FAILED,
                "run: started by mpirun with %s ranks, but this insee was built without Open "
                "MPI, so they cannot share one run. Rebuild insee with libopenmpi-dev "
                "installed, or run it without mpirun",
                size);
    return FALSE;
#endif
}
