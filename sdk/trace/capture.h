/* sdk/trace/capture.h — what the PMPI wrappers of libinsee-trace share: the
 * rank's trace file, its counters, its communicators and its requests
 * (docs/trace-capture.md).
 *
 * Contract
 *  - The wrappers (p2p.c, collectives.c, unsupported.c) call cap_enter() on
 *    entry and cap_leave() before returning, so that the time between two
 *    MPI calls becomes one compute event; everything else here is called
 *    between the two. One thread calls MPI at a time (MPI_THREAD_MULTIPLE
 *    is reported as unsupported).
 *  - Before MPI_Init and after MPI_Finalize (and when the capture is off
 *    because the trace file could not be opened) cap.on is false and the
 *    wrappers only pass the call through.
 *  - Communicators: cap_comm() gives the record of a communicator that the
 *    wrappers saw created (or MPI_COMM_WORLD, MPI_COMM_SELF), NULL for any
 *    other. Records are owned here; a request that refers to one holds a
 *    reference (cap_comm_hold / cap_comm_release), so a record outlives
 *    MPI_Comm_free while a receive on it is pending.
 *  - Everything is static to the library but the MPI_* symbols, which
 *    Open MPI's mpi.h declares with default visibility.
 */
#ifndef INSEE_TRACE_CAPTURE_H
#define INSEE_TRACE_CAPTURE_H

#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>

/* The calls the capture counts, supported ones then unsupported.def's. */
#define CAP_SUPPORTED(X)                                                                 \
    X(MPI_Send) X(MPI_Ssend) X(MPI_Bsend) X(MPI_Rsend) X(MPI_Isend) X(MPI_Issend)        \
    X(MPI_Ibsend) X(MPI_Irsend) X(MPI_Send_init) X(MPI_Ssend_init) X(MPI_Bsend_init)     \
    X(MPI_Rsend_init) X(MPI_Recv_init) X(MPI_Start) X(MPI_Startall) X(MPI_Recv)          \
    X(MPI_Irecv) X(MPI_Mrecv) X(MPI_Imrecv) X(MPI_Sendrecv) X(MPI_Sendrecv_replace)      \
    X(MPI_Probe) X(MPI_Iprobe) X(MPI_Mprobe) X(MPI_Improbe)                              \
    X(MPI_Wait) X(MPI_Waitall) X(MPI_Waitany) X(MPI_Waitsome) X(MPI_Test)                \
    X(MPI_Testall) X(MPI_Testany) X(MPI_Testsome) X(MPI_Request_free) X(MPI_Cancel)      \
    X(MPI_Barrier) X(MPI_Bcast) X(MPI_Reduce) X(MPI_Allreduce) X(MPI_Gather)             \
    X(MPI_Scatter) X(MPI_Allgather) X(MPI_Alltoall) X(MPI_Alltoallv)                     \
    X(MPI_Reduce_scatter_block) X(MPI_Scan) X(MPI_Gatherv) X(MPI_Scatterv) X(MPI_Allgatherv)         \
    X(MPI_Comm_split) X(MPI_Comm_split_type) X(MPI_Comm_dup) X(MPI_Comm_dup_with_info)   \
    X(MPI_Comm_create) X(MPI_Comm_create_group) X(MPI_Cart_create) X(MPI_Cart_sub)       \
    X(MPI_Graph_create) X(MPI_Dist_graph_create) X(MPI_Dist_graph_create_adjacent)       \
    X(MPI_Intercomm_create) X(MPI_Intercomm_merge) X(MPI_Comm_free) X(MPI_Finalize)

/* What the capture cannot turn into messages, beyond unsupported.def's
   calls: a count and a sentence each. */
#define CAP_PROBLEMS(X)                                                                  \
    X(P_INTERCOMM_COLL, "collectives on an intercommunicator")                           \
    X(P_UNKNOWN_COMM, "messages on a communicator made by a call the capture does not follow") \
    X(P_SCHEDULE, "collectives whose schedule could not be made (out of memory, bad root)") \
    X(P_CANCEL_SEND, "MPI_Cancel of a request not known as a receive (a send stays in the trace)") \
    X(P_FREED_RECV, "MPI_Request_free of a pending receive (its message is not in the trace)") \
    X(P_THREAD_MULTIPLE, "MPI_Init_thread with MPI_THREAD_MULTIPLE (the capture is not thread-safe)")

#define CAP_ENUM_CALL(name) C_##name,
#define CAP_ENUM_PROBLEM(id, text) C_##id,
typedef enum cap_call {
    CAP_SUPPORTED(CAP_ENUM_CALL)
    CAP_FIRST_UNSUPPORTED,
#define X(group, name, params, args) C_##name,
#include "unsupported.def"
#undef X
    CAP_FIRST_PROBLEM,
    CAP_PROBLEMS(CAP_ENUM_PROBLEM)
    CAP_CALLS
} cap_call;
#undef CAP_ENUM_CALL
#undef CAP_ENUM_PROBLEM

typedef struct cap_comm_rec {
    MPI_Comm comm;  /* MPI_COMM_NULL once freed */
    uint64_t id;    /* the same at every member (capture.c), world 0 */
    bool inter;
    int size;       /* of the local group */
    int *world;     /* the local group's ranks in MPI_COMM_WORLD */
    int remote_size;
    int *remote;    /* an intercommunicator's remote group's, else NULL */
    uint64_t colls; /* collectives called on it so far */
    int refs;       /* 1 while not freed, plus one per pending request */
    struct cap_comm_rec *next;
} cap_comm_rec;

typedef struct cap_state {
    bool on;
    int rank, size;
    bool bruck; /* INSEE_MPI_ALLTOALL=bruck */
} cap_state;

extern cap_state cap;

void cap_enter(cap_call call);
void cap_leave(void);
/* A problem counted as if it were a call of its own. */
void cap_problem(cap_call problem);

cap_comm_rec *cap_comm(MPI_Comm comm);
/* Records `comm`, just created by a call that every member makes (a
   collective over the new communicator); MPI_COMM_NULL records nothing. */
void cap_comm_created(MPI_Comm comm);
void cap_comm_freed(MPI_Comm comm);
void cap_comm_hold(cap_comm_rec *c);
void cap_comm_release(cap_comm_rec *c);
/* The world rank of `rank` in c's group of destinations (the remote group
   of an intercommunicator); -1 for MPI_PROC_NULL or out of range. */
int cap_world_peer(const cap_comm_rec *c, int rank);

/* Bytes of count elements of type (MPI_Type_size). */
uint64_t cap_bytes(int count, MPI_Datatype type);
/* Point-to-point tags: the communicator in the high 32 bits, the user's
   tag (0 .. MPI_TAG_UB < 2^31) in the low ones. */
uint64_t cap_p2p_tag(const cap_comm_rec *c, int tag);

/* A message this rank sends to, or receives from, world rank peer (none
   when peer < 0). */
void cap_message(bool send, int peer, uint64_t tag, uint64_t bytes);
/* A receive that completed with `status` on c (NULL: not followed). */
void cap_recv_status(const cap_comm_rec *c, const MPI_Status *status);

int cap_init(int rc);
int cap_finalize(void);

#endif
