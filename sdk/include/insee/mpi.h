/* insee/mpi.h — libinsee-mpi: an MPI-like API for ordinary C programs whose
 * messages travel through insee's simulated network (execution-driven
 * simulation). Each process is one rank, on network node `rank`; it talks to
 * the sync-server bridge through libinsee-client. docs/mpi.md has the time
 * model and the launcher (insee-mpirun) in full.
 *
 * Contract
 *  - insee_mpi_init() first (the launcher's environment says where the
 *    server is and which rank this is), insee_mpi_finalize() last; every
 *    other call in between, from one thread.
 *  - Every rank has a simulated clock in client units (the server's S:F
 *    slice ratio converts them into network cycles). Only
 *    insee_mpi_compute() and waiting for a message move it.
 *  - Sends are eager: the payload is copied and injected at the sender's
 *    clock; isend/send complete at once.
 *  - A receive matches (source or INSEE_MPI_ANY_SOURCE, tag or
 *    INSEE_MPI_ANY_TAG) against messages in their order of arrival; two
 *    messages of one source match in the order they were sent. Completing it
 *    moves the clock to max(clock, the slice start at which the message was
 *    handed over).
 *  - Collectives (barrier, bcast, reduce, allreduce) are built on
 *    point-to-point messages with tags of their own, which
 *    INSEE_MPI_ANY_TAG never matches; every rank must call them in the same
 *    order.
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

typedef struct insee_mpi_request insee_mpi_request; /* opaque */

typedef struct insee_mpi_status {
    int source;      /* the sender's rank */
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

/* Advance this rank's clock by `units` client units of computation. */
INSEE_MPI_API int insee_mpi_compute(uint64_t units);
/* This rank's simulated clock, in client units. */
INSEE_MPI_API uint64_t insee_mpi_wtime(void);

INSEE_MPI_API int insee_mpi_isend(const void *buf, size_t bytes, int dest, int tag,
                                  insee_mpi_request **req);
/* Receive at most `capacity` bytes; a longer message is an error. */
INSEE_MPI_API int insee_mpi_irecv(void *buf, size_t capacity, int source, int tag,
                                  insee_mpi_request **req);
/* Complete *req (freed, *req set to NULL); `status` may be NULL. */
INSEE_MPI_API int insee_mpi_wait(insee_mpi_request **req, insee_mpi_status *status);
/* Complete n requests; `statuses` (n of them) may be NULL. */
INSEE_MPI_API int insee_mpi_waitall(size_t n, insee_mpi_request **reqs,
                                    insee_mpi_status *statuses);
INSEE_MPI_API int insee_mpi_send(const void *buf, size_t bytes, int dest, int tag);
INSEE_MPI_API int insee_mpi_recv(void *buf, size_t capacity, int source, int tag,
                                 insee_mpi_status *status);

INSEE_MPI_API int insee_mpi_barrier(void);
INSEE_MPI_API int insee_mpi_bcast(void *buf, size_t bytes, int root);
/* Element-wise sum of `count` values of `type` over all ranks, into `out`
   at `root` (reduce) or at every rank (allreduce). `out` may not alias
   `in`. */
INSEE_MPI_API int insee_mpi_reduce(const void *in, void *out, size_t count, insee_mpi_type type,
                                   int root);
INSEE_MPI_API int insee_mpi_allreduce(const void *in, void *out, size_t count,
                                      insee_mpi_type type);

/* Record this rank's finalize time (its clock) for the launcher, hand the
   last slice's messages to the network and leave the simulation. */
INSEE_MPI_API int insee_mpi_finalize(void);

/* Why the last call that returned -1 failed. */
INSEE_MPI_API const char *insee_mpi_error(void);

#ifdef __cplusplus
}
#endif
#endif
