/* insee/mpi.h — libinsee-mpi: an MPI-like API for ordinary C programs whose
 * messages travel through insee's simulated network (execution-driven
 * simulation). Each process is one rank, on the network node the launcher
 * gives it (node `rank` unless a rank map says otherwise; one rank a node);
 * it talks to the sync-server bridge through libinsee-client. docs/mpi.md has the time model, the collectives'
 * algorithms and the launcher (insee-mpirun) in full.
 *
 * Contract
 *  - insee_mpi_init() first (the launcher's environment says where the
 *    server is, which rank this is and its node), insee_mpi_finalize()
 *    last; every other call in between, from one thread.
 *  - Every rank has a simulated clock in client units (the server's S:F
 *    slice ratio converts them into network cycles). Only
 *    insee_mpi_compute() and waiting for a message (wait, probe, a
 *    collective) move it; test and iprobe never do.
 *  - Communicators: insee_mpi_comm_world() holds every rank (rank = world
 *    rank) and lives from init to finalize. split and dup make new ones
 *    (the caller owns them: insee_mpi_comm_free()); they are collective
 *    over the parent. Ranks in a call on a communicator are its ranks;
 *    statuses give sources in its ranks. Messages of different
 *    communicators never match each other. The calls without `_on` or
 *    `comm` are the world's.
 *  - Sends are eager: the payload is copied and injected at the sender's
 *    clock; isend/send complete at once.
 *  - A receive matches (source or INSEE_MPI_ANY_SOURCE, tag or
 *    INSEE_MPI_ANY_TAG, on its communicator) against messages in their
 *    order of arrival; two messages of one source match in the order they
 *    were sent. Completing it moves the clock to max(clock, the slice
 *    start at which the message was handed over).
 *  - Collectives are built on point-to-point messages with tags of their
 *    own, which INSEE_MPI_ANY_TAG never matches; every rank of the
 *    communicator must call them in the same order with matching sizes.
 *    Each runs one schedule of sdk/mpi/coll.h (named at each call below);
 *    its buffers may overlap (the data goes through a work buffer).
 *  - Errors are values: a call that fails returns -1 and
 *    insee_mpi_error() says why (a complete sentence); the rank should then
 *    leave (exit non-zero), its run is over.
 */
#ifndef INSEE_MPI_H
#define INSEE_MPI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef INSEE_MPI_API
#define INSEE_MPI_API
#endif

#define INSEE_MPI_ANY_SOURCE (-1)
#define INSEE_MPI_ANY_TAG (-1) /* user tags are >= 0 */
#define INSEE_MPI_UNDEFINED (-32766) /* insee_mpi_comm_split(): in no new communicator */

typedef struct insee_mpi_request insee_mpi_request; /* opaque */
typedef struct insee_mpi_comm insee_mpi_comm;       /* opaque */

typedef struct insee_mpi_status {
    int source;      /* the sender's rank (in the receive's communicator) */
    int tag;
    size_t bytes;    /* payload bytes received */
    uint64_t time;   /* simulated time the operation completed (client units) */
} insee_mpi_status;

typedef enum insee_mpi_type { INSEE_MPI_DOUBLE, INSEE_MPI_INT64 } insee_mpi_type;

/* Connect to the simulation: reads INSEE_MPI_ADDRESS, INSEE_MPI_RANK and
   INSEE_MPI_SIZE (set by insee-mpirun); argc/argv may be NULL and are left
   as they are. The clock starts at 0. */
INSEE_MPI_API int insee_mpi_init(int *argc, char ***argv);
INSEE_MPI_API int insee_mpi_rank(void);
INSEE_MPI_API int insee_mpi_size(void);
/* The network node this rank runs on (bridge node id). */
INSEE_MPI_API uint32_t insee_mpi_node(void);

/* Advance this rank's clock by `units` client units of computation. */
INSEE_MPI_API int insee_mpi_compute(uint64_t units);
/* This rank's simulated clock, in client units. */
INSEE_MPI_API uint64_t insee_mpi_wtime(void);

INSEE_MPI_API int insee_mpi_isend(const void *buf, size_t bytes, int dest, int tag,
                                  insee_mpi_request **req);
/* insee_mpi_isend() choosing the transfer, as NSIM's LMGEN_Isend(...,
   &info, zero_copy) does with info.SrcNIC and its last argument: `nic` 0
   takes the node's interfaces in turn, k >= 1 its interface k - 1 (at
   most [network] nics, or the run ends naming this rank); `zero_copy` 1
   is a zero-copy transfer, 0 a two-copy one through the MPI buffer (a
   copy at [network] memory_bandwidth at each end, which the run must
   set). insee_mpi_isend() leaves both to the run: the turn and [network]
   copy. */
INSEE_MPI_API int insee_mpi_isend_nic(const void *buf, size_t bytes, int dest, int tag, int nic,
                                      int zero_copy, insee_mpi_request **req);
/* Receive at most `capacity` bytes; a longer message is an error. */
INSEE_MPI_API int insee_mpi_irecv(void *buf, size_t capacity, int source, int tag,
                                  insee_mpi_request **req);
/* Complete *req (freed, *req set to NULL); `status` may be NULL. */
INSEE_MPI_API int insee_mpi_wait(insee_mpi_request **req, insee_mpi_status *status);
/* Complete n requests; `statuses` (n of them) may be NULL. */
INSEE_MPI_API int insee_mpi_waitall(size_t n, insee_mpi_request **reqs,
                                    insee_mpi_status *statuses);
/* Complete the request among reqs[0..n) (NULL entries skipped) whose
   message was handed over first, the lowest index among those handed over
   at once: *index is its index (n when every entry is NULL: nothing
   waited for), it is freed and set to NULL, its status in `status` (may be
   NULL). Blocks as wait() does, and the launcher sees the rank waiting. */
INSEE_MPI_API int insee_mpi_waitany(size_t n, insee_mpi_request **reqs, size_t *index,
                                    insee_mpi_status *status);
INSEE_MPI_API int insee_mpi_send(const void *buf, size_t bytes, int dest, int tag);
INSEE_MPI_API int insee_mpi_recv(void *buf, size_t capacity, int source, int tag,
                                 insee_mpi_status *status);

/* *done = 1 and *req completed as wait() does when its message was handed
   over by the clock (a send always is); else *done = 0 and *req is kept.
   The clock does not move: a loop of tests must compute between them. */
INSEE_MPI_API int insee_mpi_test(insee_mpi_request **req, int *done, insee_mpi_status *status);

/* Communicators. The world: every rank, rank = world rank; not freed. */
INSEE_MPI_API insee_mpi_comm *insee_mpi_comm_world(void);
INSEE_MPI_API int insee_mpi_comm_rank(const insee_mpi_comm *comm);
INSEE_MPI_API int insee_mpi_comm_size(const insee_mpi_comm *comm);
/* The world rank of `comm`'s rank `rank`, or -1 when it is out of range. */
INSEE_MPI_API int insee_mpi_comm_world_rank(const insee_mpi_comm *comm, int rank);
/* Collective over `comm`: the ranks that give one `color` (>= 0) form a new
   communicator, ranked by `key`, ties by their rank in `comm`; color
   INSEE_MPI_UNDEFINED gives *out = NULL. Costs one ALLGATHER_RING of 12
   bytes on `comm`. */
INSEE_MPI_API int insee_mpi_comm_split(insee_mpi_comm *comm, int color, int key,
                                       insee_mpi_comm **out);
/* Collective: the same ranks in a new communicator (as split, one color). */
INSEE_MPI_API int insee_mpi_comm_dup(insee_mpi_comm *comm, insee_mpi_comm **out);
/* Free *comm (a split or dup one) and set it to NULL; NULL and the world
   are refused. Messages of it not yet received are dropped. */
INSEE_MPI_API int insee_mpi_comm_free(insee_mpi_comm **comm);

/* Point-to-point on a communicator: ranks are `comm`'s. */
INSEE_MPI_API int insee_mpi_isend_on(insee_mpi_comm *comm, const void *buf, size_t bytes,
                                     int dest, int tag, insee_mpi_request **req);
INSEE_MPI_API int insee_mpi_isend_nic_on(insee_mpi_comm *comm, const void *buf, size_t bytes,
                                         int dest, int tag, int nic, int zero_copy,
                                         insee_mpi_request **req);
INSEE_MPI_API int insee_mpi_irecv_on(insee_mpi_comm *comm, void *buf, size_t capacity,
                                     int source, int tag, insee_mpi_request **req);
INSEE_MPI_API int insee_mpi_send_on(insee_mpi_comm *comm, const void *buf, size_t bytes,
                                    int dest, int tag);
INSEE_MPI_API int insee_mpi_recv_on(insee_mpi_comm *comm, void *buf, size_t capacity,
                                    int source, int tag, insee_mpi_status *status);
/* A message a receive of (source, tag) on `comm` would take, left in
   place: *found and `status` (its source, tag, bytes; time = the clock).
   iprobe looks at what was handed over by the clock; probe waits as a
   receive does. */
INSEE_MPI_API int insee_mpi_iprobe(insee_mpi_comm *comm, int source, int tag, int *found,
                                   insee_mpi_status *status);
INSEE_MPI_API int insee_mpi_probe(insee_mpi_comm *comm, int source, int tag,
                                  insee_mpi_status *status);

/* A reduction: `fn` combines `count` elements of `more` into `acc`
   (acc[i] = acc[i] op more[i]); it must be associative and commutative
   (the schedule decides the order). `user` is passed through. */
typedef void insee_mpi_combine(void *acc, const void *more, size_t count, void *user);
typedef struct insee_mpi_reduction {
    size_t elem_bytes; /* > 0 */
    insee_mpi_combine *fn;
    void *user;
} insee_mpi_reduction;

typedef enum insee_mpi_alltoall_algo {
    INSEE_MPI_ALLTOALL_PAIRWISE, /* n - 1 rounds of one message of b bytes */
    INSEE_MPI_ALLTOALL_BRUCK,    /* ceil(log2 n) rounds, blocks forwarded */
} insee_mpi_alltoall_algo;

/* Collectives on a communicator. Sizes in bytes (b) or elements (count of
   red->elem_bytes each); a buffer only the root reads or writes may be
   NULL elsewhere. n = insee_mpi_comm_size(comm). */
/* BARRIER (dissemination). */
INSEE_MPI_API int insee_mpi_coll_barrier(insee_mpi_comm *comm);
/* BCAST (binomial tree): root's buf to every rank's. */
INSEE_MPI_API int insee_mpi_coll_bcast(insee_mpi_comm *comm, void *buf, size_t bytes, int root);
/* REDUCE (binomial tree): `out` at root = the combination of every rank's
   `in`. */
INSEE_MPI_API int insee_mpi_coll_reduce(insee_mpi_comm *comm, const void *in, void *out,
                                        size_t count, const insee_mpi_reduction *red, int root);
/* ALLREDUCE_DOUBLING (recursive doubling): `out` everywhere. */
INSEE_MPI_API int insee_mpi_coll_allreduce(insee_mpi_comm *comm, const void *in, void *out,
                                           size_t count, const insee_mpi_reduction *red);
/* SCAN_LINEAR (a chain): `out` at rank r = the combination of the `in` of
   ranks 0 .. r. */
INSEE_MPI_API int insee_mpi_coll_scan(insee_mpi_comm *comm, const void *in, void *out,
                                      size_t count, const insee_mpi_reduction *red);
/* GATHER (binomial tree): root's recv (n b) = every rank's b bytes in rank
   order. */
INSEE_MPI_API int insee_mpi_coll_gather(insee_mpi_comm *comm, const void *send, void *recv,
                                        size_t bytes, int root);
/* SCATTER (binomial tree): rank r's recv = root's send block r (of n b). */
INSEE_MPI_API int insee_mpi_coll_scatter(insee_mpi_comm *comm, const void *send, void *recv,
                                         size_t bytes, int root);
/* ALLGATHER_RING: every rank's recv (n b) = every rank's b bytes in rank
   order. */
INSEE_MPI_API int insee_mpi_coll_allgather(insee_mpi_comm *comm, const void *send, void *recv,
                                           size_t bytes);
/* ALLTOALL_PAIRWISE or _BRUCK: rank r's recv block s = rank s's send block
   r (blocks of b bytes, n of them each way). */
INSEE_MPI_API int insee_mpi_coll_alltoall(insee_mpi_comm *comm, const void *send, void *recv,
                                          size_t bytes, insee_mpi_alltoall_algo algo);
/* ALLTOALLV_PAIRWISE: rank r sends sbytes[s] at send + sdispl[s] to rank s,
   and receives rbytes[s] at recv + rdispl[s] from it (n entries each; byte
   counts and displacements). */
INSEE_MPI_API int insee_mpi_coll_alltoallv(insee_mpi_comm *comm, const void *send,
                                           const size_t *sbytes, const size_t *sdispl,
                                           void *recv, const size_t *rbytes,
                                           const size_t *rdispl);
/* REDUCE_SCATTER_PAIRWISE: `in` holds n blocks of count_per_rank
   elements; rank r's `out` = the combination of every rank's block r. */
INSEE_MPI_API int insee_mpi_coll_reduce_scatter(insee_mpi_comm *comm, const void *in, void *out,
                                                size_t count_per_rank,
                                                const insee_mpi_reduction *red);
/* GATHERV_LINEAR: root's recv + rdispl[r] = rank r's sbytes bytes
   (rbytes[r] of them; rbytes, rdispl read at root only). */
INSEE_MPI_API int insee_mpi_coll_gatherv(insee_mpi_comm *comm, const void *send, size_t sbytes,
                                         void *recv, const size_t *rbytes, const size_t *rdispl,
                                         int root);
/* SCATTERV_LINEAR: rank r's recv (rbytes bytes) = root's sbytes[r] at
   send + sdispl[r] (sbytes, sdispl read at root only). */
INSEE_MPI_API int insee_mpi_coll_scatterv(insee_mpi_comm *comm, const void *send,
                                          const size_t *sbytes, const size_t *sdispl,
                                          void *recv, size_t rbytes, int root);
/* ALLGATHERV_RING: every rank's recv + rdispl[r] = rank r's sbytes bytes
   (rbytes[r] of them). */
INSEE_MPI_API int insee_mpi_coll_allgatherv(insee_mpi_comm *comm, const void *send,
                                            size_t sbytes, void *recv, const size_t *rbytes,
                                            const size_t *rdispl);

/* The world's collectives of the first versions, kept: BARRIER, BCAST,
   REDUCE and ALLREDUCE_TREE (reduce to rank 0, then bcast) with an
   element-wise sum. */
INSEE_MPI_API int insee_mpi_barrier(void);
INSEE_MPI_API int insee_mpi_bcast(void *buf, size_t bytes, int root);
/* Element-wise sum of `count` values of `type` over all ranks, into `out`
   at `root` (reduce) or at every rank (allreduce). */
INSEE_MPI_API int insee_mpi_reduce(const void *in, void *out, size_t count, insee_mpi_type type,
                                   int root);
INSEE_MPI_API int insee_mpi_allreduce(const void *in, void *out, size_t count,
                                      insee_mpi_type type);

/* Record this rank's finalize time (its clock) for the launcher, hand the
   last slice's messages to the network and leave the simulation. */
INSEE_MPI_API int insee_mpi_finalize(void);

/* What kind of failure the last call that returned -1 had: a message
   longer than its receive buffer, or anything else. */
typedef enum insee_mpi_error_kind {
    INSEE_MPI_ERR_OTHER = 1,
    INSEE_MPI_ERR_TRUNCATE = 2,
} insee_mpi_error_kind;
INSEE_MPI_API insee_mpi_error_kind insee_mpi_error_class(void);

/* Why the last call that returned -1 failed. */
INSEE_MPI_API const char *insee_mpi_error(void);

#ifdef __cplusplus
}
#endif
#endif
