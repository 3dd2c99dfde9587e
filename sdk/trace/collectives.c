/* libinsee-trace: collectives and communicators. A collective is written
 * as the messages of its schedule in sdk/mpi/coll.h (the one libinsee-mpi
 * runs), whatever algorithm Open MPI chose for the real call: per round the
 * sends, then the receives, a message of several segments as one event.
 * Communicator constructors record the new communicator (capture.c). */
#include "capture.h"
#include "coll.h"

#include <stdlib.h>

/* 2^31 is above every user tag (MPI_TAG_UB < 2^31). */
static uint64_t coll_tag(cap_comm_rec *c, insee_coll_op op)
{
    return c->id << 32 | UINT64_C(1) << 31 | (uint64_t)op << 24 | (c->colls++ & 0xffffff);
}

static void write_round(const insee_coll_plan *plan, size_t from, size_t to, bool sends,
                        const cap_comm_rec *c, uint64_t tag)
{
    uint64_t bytes = 0;
    for (size_t i = from; i < to; i++) {
        const insee_coll_step *s = &plan->steps[i];
        if ((s->kind == INSEE_COLL_SEND) != sends)
            continue;
        bytes += s->bytes;
        if (s->more)
            continue;
        cap_message(sends, c->world[s->peer], tag, bytes);
        bytes = 0;
    }
}

/* The messages of `a` (its op, root, block and V lengths; size and rank
   are the communicator's) on comm. */
static void schedule(insee_coll_args a, MPI_Comm comm)
{
    static insee_coll_plan plan;
    if (!cap.on)
        return;
    cap_comm_rec *c = cap_comm(comm);
    if (!c || c->inter) {
        cap_problem(c ? C_P_INTERCOMM_COLL : C_P_UNKNOWN_COMM);
        return;
    }
    a.size = c->size;
    PMPI_Comm_rank(comm, &a.rank);
    if (insee_coll_plan_make(&a, &plan)) {
        cap_problem(C_P_SCHEDULE);
        return;
    }
    uint64_t tag = coll_tag(c, a.op);
    for (size_t from = 0, to; from < plan.n; from = to) {
        for (to = from; to < plan.n && !plan.steps[to].round_end; to++)
            ;
        to = to < plan.n ? to + 1 : to;
        write_round(&plan, from, to, true, c, tag);
        write_round(&plan, from, to, false, c, tag);
    }
}

static int comm_rank(MPI_Comm comm)
{
    int rank = 0;
    PMPI_Comm_rank(comm, &rank);
    return rank;
}

int MPI_Barrier(MPI_Comm comm)
{
    cap_enter(C_MPI_Barrier);
    schedule((insee_coll_args){.op = INSEE_COLL_BARRIER}, comm);
    int rc = PMPI_Barrier(comm);
    cap_leave();
    return rc;
}

int MPI_Bcast(void *buffer, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    cap_enter(C_MPI_Bcast);
    schedule((insee_coll_args){.op = INSEE_COLL_BCAST, .root = root,
                               .block = cap_bytes(count, type)},
             comm);
    int rc = PMPI_Bcast(buffer, count, type, root, comm);
    cap_leave();
    return rc;
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
               int root, MPI_Comm comm)
{
    cap_enter(C_MPI_Reduce);
    schedule((insee_coll_args){.op = INSEE_COLL_REDUCE, .root = root,
                               .block = cap_bytes(count, type)},
             comm);
    int rc = PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm);
    cap_leave();
    return rc;
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm)
{
    cap_enter(C_MPI_Allreduce);
    schedule((insee_coll_args){.op = INSEE_COLL_ALLREDUCE_DOUBLING,
                               .block = cap_bytes(count, type)},
             comm);
    int rc = PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm);
    cap_leave();
    return rc;
}

int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                             MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    cap_enter(C_MPI_Reduce_scatter_block);
    schedule((insee_coll_args){.op = INSEE_COLL_REDUCE_SCATTER_PAIRWISE,
                               .block = cap_bytes(recvcount, type)},
             comm);
    int rc = PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm);
    cap_leave();
    return rc;
}

int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
             MPI_Comm comm)
{
    cap_enter(C_MPI_Scan);
    schedule((insee_coll_args){.op = INSEE_COLL_SCAN_LINEAR, .block = cap_bytes(count, type)},
             comm);
    int rc = PMPI_Scan(sendbuf, recvbuf, count, type, op, comm);
    cap_leave();
    return rc;
}

/* A rank's block of a gather-like call: what it sends, or with MPI_IN_PLACE
   (its data already in the receive buffer) what it receives per rank. */
static uint64_t own_block(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                          int recvcount, MPI_Datatype recvtype)
{
    return sendbuf == MPI_IN_PLACE ? cap_bytes(recvcount, recvtype)
                                   : cap_bytes(sendcount, sendtype);
}

int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    cap_enter(C_MPI_Gather);
    schedule((insee_coll_args){.op = INSEE_COLL_GATHER, .root = root,
                               .block = own_block(sendbuf, sendcount, sendtype, recvcount,
                                                  recvtype)},
             comm);
    int rc = PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
    cap_leave();
    return rc;
}

int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    cap_enter(C_MPI_Scatter);
    /* the root's send block is every rank's receive block */
    uint64_t block = cap.on && comm_rank(comm) == root ? cap_bytes(sendcount, sendtype)
                                                         : cap_bytes(recvcount, recvtype);
    schedule((insee_coll_args){.op = INSEE_COLL_SCATTER, .root = root, .block = block}, comm);
    int rc = PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
    cap_leave();
    return rc;
}

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    cap_enter(C_MPI_Allgather);
    schedule((insee_coll_args){.op = INSEE_COLL_ALLGATHER_RING,
                               .block = own_block(sendbuf, sendcount, sendtype, recvcount,
                                                  recvtype)},
             comm);
    int rc = PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    cap_leave();
    return rc;
}

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    cap_enter(C_MPI_Alltoall);
    schedule((insee_coll_args){.op = cap.bruck ? INSEE_COLL_ALLTOALL_BRUCK
                                               : INSEE_COLL_ALLTOALL_PAIRWISE,
                               .block = own_block(sendbuf, sendcount, sendtype, recvcount,
                                                  recvtype)},
             comm);
    int rc = PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    cap_leave();
    return rc;
}

/* The V collectives' per-rank lengths (count x type size) laid out one
   after the other: the schedule reads the lengths, the offsets only place
   bytes the capture does not move. */
typedef struct lengths {
    size_t *bytes, *offsets;
} lengths;

static bool lengths_of(lengths *l, const int *counts, MPI_Datatype type, MPI_Comm comm)
{
    int n = 0;
    PMPI_Comm_size(comm, &n);
    l->bytes = calloc((size_t)n + 1, sizeof *l->bytes);
    l->offsets = calloc((size_t)n + 1, sizeof *l->offsets);
    if (!l->bytes || !l->offsets)
        return false;
    for (int i = 0; i < n; i++) {
        l->bytes[i] = cap_bytes(counts[i], type);
        l->offsets[i + 1] = l->offsets[i] + l->bytes[i];
    }
    return true;
}

static void lengths_free(lengths *l)
{
    free(l->bytes), free(l->offsets);
    *l = (lengths){0};
}

/* The V collectives: `send` and `recv` the lengths the rank gives (their
   bytes NULL where the call does not read them). */
static void schedule_v(insee_coll_args a, const lengths *send, const lengths *recv,
                       MPI_Comm comm, bool ok)
{
    if (!ok) {
        cap_problem(C_P_SCHEDULE);
        return;
    }
    a.send_bytes = send->bytes, a.send_offsets = send->offsets;
    a.recv_bytes = recv->bytes, a.recv_offsets = recv->offsets;
    schedule(a, comm);
}

int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                  const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    lengths send = {0}, recv = {0};
    cap_enter(C_MPI_Alltoallv);
    if (cap.on) {
        bool ok = lengths_of(&recv, recvcounts, recvtype, comm) &&
                  (sendbuf == MPI_IN_PLACE ? lengths_of(&send, recvcounts, recvtype, comm)
                                           : lengths_of(&send, sendcounts, sendtype, comm));
        schedule_v((insee_coll_args){.op = INSEE_COLL_ALLTOALLV_PAIRWISE}, &send, &recv, comm,
                   ok);
    }
    int rc = PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                            recvtype, comm);
    lengths_free(&send), lengths_free(&recv);
    cap_leave();
    return rc;
}

int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                MPI_Comm comm)
{
    lengths none = {0}, recv = {0};
    cap_enter(C_MPI_Gatherv);
    if (cap.on) {
        bool root_here = comm_rank(comm) == root;
        bool ok = !root_here || lengths_of(&recv, recvcounts, recvtype, comm);
        schedule_v((insee_coll_args){.op = INSEE_COLL_GATHERV_LINEAR, .root = root,
                                     .block = sendbuf == MPI_IN_PLACE
                                                  ? 0
                                                  : cap_bytes(sendcount, sendtype)},
                   &none, &recv, comm, ok);
    }
    int rc = PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                          root, comm);
    lengths_free(&recv);
    cap_leave();
    return rc;
}

int MPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                 MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root, MPI_Comm comm)
{
    lengths send = {0}, none = {0};
    cap_enter(C_MPI_Scatterv);
    if (cap.on) {
        bool root_here = comm_rank(comm) == root;
        bool ok = !root_here || lengths_of(&send, sendcounts, sendtype, comm);
        schedule_v((insee_coll_args){.op = INSEE_COLL_SCATTERV_LINEAR, .root = root,
                                     .block = recvbuf == MPI_IN_PLACE
                                                  ? 0
                                                  : cap_bytes(recvcount, recvtype)},
                   &send, &none, comm, ok);
    }
    int rc = PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype,
                           root, comm);
    lengths_free(&send);
    cap_leave();
    return rc;
}

int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                   MPI_Comm comm)
{
    lengths none = {0}, recv = {0};
    cap_enter(C_MPI_Allgatherv);
    if (cap.on)
        schedule_v((insee_coll_args){.op = INSEE_COLL_ALLGATHERV_RING}, &none, &recv, comm,
                   lengths_of(&recv, recvcounts, recvtype, comm));
    int rc = PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                             recvtype, comm);
    lengths_free(&recv);
    cap_leave();
    return rc;
}

/* ---- communicators ---- */

#define CONSTRUCTOR(name, params, args, result)                                            \
    int name params                                                                         \
    {                                                                                       \
        cap_enter(C_##name);                                                                \
        int rc = P##name args;                                                              \
        if (rc == MPI_SUCCESS)                                                              \
            cap_comm_created(*(result));                                                    \
        cap_leave();                                                                        \
        return rc;                                                                          \
    }
CONSTRUCTOR(MPI_Comm_split, (MPI_Comm comm, int color, int key, MPI_Comm *newcomm),
            (comm, color, key, newcomm), newcomm)
CONSTRUCTOR(MPI_Comm_split_type,
            (MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm),
            (comm, split_type, key, info, newcomm), newcomm)
CONSTRUCTOR(MPI_Comm_dup, (MPI_Comm comm, MPI_Comm *newcomm), (comm, newcomm), newcomm)
CONSTRUCTOR(MPI_Comm_dup_with_info, (MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm),
            (comm, info, newcomm), newcomm)
CONSTRUCTOR(MPI_Comm_create, (MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm),
            (comm, group, newcomm), newcomm)
CONSTRUCTOR(MPI_Comm_create_group, (MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm),
            (comm, group, tag, newcomm), newcomm)
CONSTRUCTOR(MPI_Cart_create,
            (MPI_Comm old_comm, int ndims, const int dims[], const int periods[], int reorder,
             MPI_Comm *comm_cart),
            (old_comm, ndims, dims, periods, reorder, comm_cart), comm_cart)
CONSTRUCTOR(MPI_Cart_sub, (MPI_Comm comm, const int remain_dims[], MPI_Comm *new_comm),
            (comm, remain_dims, new_comm), new_comm)
CONSTRUCTOR(MPI_Graph_create,
            (MPI_Comm comm_old, int nnodes, const int index[], const int edges[], int reorder,
             MPI_Comm *comm_graph),
            (comm_old, nnodes, index, edges, reorder, comm_graph), comm_graph)
CONSTRUCTOR(MPI_Dist_graph_create,
            (MPI_Comm comm_old, int n, const int nodes[], const int degrees[],
             const int targets[], const int weights[], MPI_Info info, int reorder,
             MPI_Comm *newcomm),
            (comm_old, n, nodes, degrees, targets, weights, info, reorder, newcomm), newcomm)
CONSTRUCTOR(MPI_Dist_graph_create_adjacent,
            (MPI_Comm comm_old, int indegree, const int sources[], const int sourceweights[],
             int outdegree, const int destinations[], const int destweights[], MPI_Info info,
             int reorder, MPI_Comm *comm_dist_graph),
            (comm_old, indegree, sources, sourceweights, outdegree, destinations, destweights,
             info, reorder, comm_dist_graph),
            comm_dist_graph)
CONSTRUCTOR(MPI_Intercomm_create,
            (MPI_Comm local_comm, int local_leader, MPI_Comm bridge_comm, int remote_leader,
             int tag, MPI_Comm *newintercomm),
            (local_comm, local_leader, bridge_comm, remote_leader, tag, newintercomm),
            newintercomm)
CONSTRUCTOR(MPI_Intercomm_merge, (MPI_Comm intercomm, int high, MPI_Comm *newintracomm),
            (intercomm, high, newintracomm), newintracomm)

int MPI_Comm_free(MPI_Comm *comm)
{
    cap_enter(C_MPI_Comm_free);
    cap_comm_freed(*comm);
    int rc = PMPI_Comm_free(comm);
    cap_leave();
    return rc;
}
