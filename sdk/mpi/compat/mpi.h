/* mpi.h — the MPI standard's C bindings for the subset insee simulates, over
 * libinsee-mpi (<insee/mpi.h>): an unmodified MPI program compiled with
 * insee-mpicc runs its ranks through insee's simulated network under
 * insee-mpirun. docs/mpi.md ("Your MPI program on insee") lists the subset,
 * the time model and the collectives' algorithms.
 *
 * Contract
 *  - Found as <mpi.h> only through insee-mpicc's include path (it never
 *    shadows a real MPI's); implemented by libinsee-mpi-compat, which
 *    insee-mpicc links. A call outside the subset is not declared here, so
 *    a program using one fails to compile, naming it.
 *  - Semantics are MPI-3.1's for what is declared, with these limits: one
 *    thread (MPI_THREAD_SINGLE is what MPI_Init_thread provides); sends are
 *    eager (MPI_Send, MPI_Ssend and MPI_Isend complete at once, their buffer
 *    copied); no derived datatypes (counts of the basic types below); no
 *    intercommunicators; MPI_IN_PLACE where noted in docs/mpi.md.
 *  - Handles are small integers (MPI_Comm, MPI_Datatype, MPI_Op,
 *    MPI_Errhandler) or pointers (MPI_Request) owned by the library; a value
 *    that is not a live handle is an error of the handle's class
 *    (MPI_ERR_COMM, MPI_ERR_TYPE, MPI_ERR_OP, MPI_ERR_REQUEST).
 *  - Errors: a call returns MPI_SUCCESS or an error class. With the default
 *    handler MPI_ERRORS_ARE_FATAL the call first prints a line naming
 *    itself and the error on stderr and ends the process with status 1 (as
 *    MPI_Abort does: insee-mpirun then stops the run);
 *    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN) makes the calls on
 *    comm return the class instead, and MPI_Error_string() of it gives that
 *    line.
 *  - Time: the real time a rank spends between two MPI calls is its
 *    computation, added to its simulated clock times INSEE_MPI_COMPUTE_SCALE;
 *    MPI_Wtime() is the simulated clock in seconds, one client unit being
 *    one nanosecond (docs/mpi.md).
 */
#ifndef INSEE_MPI_COMPAT_MPI_H
#define INSEE_MPI_COMPAT_MPI_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef INSEE_MPI_COMPAT_API
#define INSEE_MPI_COMPAT_API
#endif

#define MPI_VERSION 3
#define MPI_SUBVERSION 1

typedef int MPI_Comm;
typedef int MPI_Datatype;
typedef int MPI_Op;
typedef int MPI_Errhandler;
typedef struct insee_mpi_compat_request *MPI_Request;
typedef ptrdiff_t MPI_Aint;

typedef struct MPI_Status {
    int MPI_SOURCE;
    int MPI_TAG;
    int MPI_ERROR;
    size_t insee_bytes; /* received bytes, for MPI_Get_count */
} MPI_Status;

/* Error classes (the values a call returns). */
#define MPI_SUCCESS 0
#define MPI_ERR_BUFFER 1
#define MPI_ERR_COUNT 2
#define MPI_ERR_TYPE 3
#define MPI_ERR_TAG 4
#define MPI_ERR_COMM 5
#define MPI_ERR_RANK 6
#define MPI_ERR_REQUEST 7
#define MPI_ERR_ROOT 8
#define MPI_ERR_OP 9
#define MPI_ERR_ARG 10
#define MPI_ERR_TRUNCATE 11
#define MPI_ERR_OTHER 12
#define MPI_ERR_INTERN 13
#define MPI_ERR_IN_STATUS 14
#define MPI_ERR_PENDING 15
#define MPI_ERR_UNKNOWN 16
#define MPI_ERR_LASTCODE 16

#define MPI_COMM_NULL ((MPI_Comm)0)
#define MPI_COMM_WORLD ((MPI_Comm)1)
#define MPI_COMM_SELF ((MPI_Comm)2)

#define MPI_ERRHANDLER_NULL ((MPI_Errhandler)0)
#define MPI_ERRORS_ARE_FATAL ((MPI_Errhandler)1)
#define MPI_ERRORS_RETURN ((MPI_Errhandler)2)

#define MPI_DATATYPE_NULL ((MPI_Datatype)0)
#define MPI_CHAR ((MPI_Datatype)1)
#define MPI_SIGNED_CHAR ((MPI_Datatype)2)
#define MPI_UNSIGNED_CHAR ((MPI_Datatype)3)
#define MPI_BYTE ((MPI_Datatype)4)
#define MPI_SHORT ((MPI_Datatype)5)
#define MPI_UNSIGNED_SHORT ((MPI_Datatype)6)
#define MPI_INT ((MPI_Datatype)7)
#define MPI_UNSIGNED ((MPI_Datatype)8)
#define MPI_LONG ((MPI_Datatype)9)
#define MPI_UNSIGNED_LONG ((MPI_Datatype)10)
#define MPI_LONG_LONG ((MPI_Datatype)11)
#define MPI_LONG_LONG_INT MPI_LONG_LONG
#define MPI_UNSIGNED_LONG_LONG ((MPI_Datatype)12)
#define MPI_FLOAT ((MPI_Datatype)13)
#define MPI_DOUBLE ((MPI_Datatype)14)
#define MPI_LONG_DOUBLE ((MPI_Datatype)15)
#define MPI_INT8_T ((MPI_Datatype)16)
#define MPI_INT16_T ((MPI_Datatype)17)
#define MPI_INT32_T ((MPI_Datatype)18)
#define MPI_INT64_T ((MPI_Datatype)19)
#define MPI_UINT8_T ((MPI_Datatype)20)
#define MPI_UINT16_T ((MPI_Datatype)21)
#define MPI_UINT32_T ((MPI_Datatype)22)
#define MPI_UINT64_T ((MPI_Datatype)23)
#define MPI_C_BOOL ((MPI_Datatype)24)
#define MPI_WCHAR ((MPI_Datatype)25)
/* Value-index pairs, for MPI_MINLOC and MPI_MAXLOC. */
#define MPI_FLOAT_INT ((MPI_Datatype)26)
#define MPI_DOUBLE_INT ((MPI_Datatype)27)
#define MPI_LONG_INT ((MPI_Datatype)28)
#define MPI_2INT ((MPI_Datatype)29)
#define MPI_SHORT_INT ((MPI_Datatype)30)
#define MPI_LONG_DOUBLE_INT ((MPI_Datatype)31)

#define MPI_OP_NULL ((MPI_Op)0)
#define MPI_MAX ((MPI_Op)1)
#define MPI_MIN ((MPI_Op)2)
#define MPI_SUM ((MPI_Op)3)
#define MPI_PROD ((MPI_Op)4)
#define MPI_LAND ((MPI_Op)5)
#define MPI_BAND ((MPI_Op)6)
#define MPI_LOR ((MPI_Op)7)
#define MPI_BOR ((MPI_Op)8)
#define MPI_LXOR ((MPI_Op)9)
#define MPI_BXOR ((MPI_Op)10)
#define MPI_MINLOC ((MPI_Op)11)
#define MPI_MAXLOC ((MPI_Op)12)

#define MPI_REQUEST_NULL ((MPI_Request)0)
#define MPI_STATUS_IGNORE ((MPI_Status *)0)
#define MPI_STATUSES_IGNORE ((MPI_Status *)0)
#define MPI_IN_PLACE ((void *)1)

#define MPI_ANY_SOURCE (-1)
#define MPI_ANY_TAG (-1)
#define MPI_PROC_NULL (-2)
#define MPI_UNDEFINED (-32766)
#define MPI_TAG_UB_VALUE 0x7fffffff

#define MPI_THREAD_SINGLE 0
#define MPI_THREAD_FUNNELED 1
#define MPI_THREAD_SERIALIZED 2
#define MPI_THREAD_MULTIPLE 3

#define MPI_MAX_PROCESSOR_NAME 256
#define MPI_MAX_ERROR_STRING 512

/* Environment */
INSEE_MPI_COMPAT_API int MPI_Init(int *argc, char ***argv);
INSEE_MPI_COMPAT_API int MPI_Init_thread(int *argc, char ***argv, int required, int *provided);
INSEE_MPI_COMPAT_API int MPI_Initialized(int *flag);
INSEE_MPI_COMPAT_API int MPI_Finalize(void);
INSEE_MPI_COMPAT_API int MPI_Finalized(int *flag);
INSEE_MPI_COMPAT_API int MPI_Abort(MPI_Comm comm, int errorcode);
INSEE_MPI_COMPAT_API double MPI_Wtime(void);
INSEE_MPI_COMPAT_API double MPI_Wtick(void);
INSEE_MPI_COMPAT_API int MPI_Get_processor_name(char *name, int *resultlen);
INSEE_MPI_COMPAT_API int MPI_Error_string(int errorcode, char *string, int *resultlen);
INSEE_MPI_COMPAT_API int MPI_Error_class(int errorcode, int *errorclass);
INSEE_MPI_COMPAT_API int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler);
INSEE_MPI_COMPAT_API int MPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler);
INSEE_MPI_COMPAT_API int MPI_Type_size(MPI_Datatype datatype, int *size);

/* Communicators */
INSEE_MPI_COMPAT_API int MPI_Comm_rank(MPI_Comm comm, int *rank);
INSEE_MPI_COMPAT_API int MPI_Comm_size(MPI_Comm comm, int *size);
INSEE_MPI_COMPAT_API int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm);
INSEE_MPI_COMPAT_API int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm);
INSEE_MPI_COMPAT_API int MPI_Comm_free(MPI_Comm *comm);

/* Point-to-point */
INSEE_MPI_COMPAT_API int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest,
                                  int tag, MPI_Comm comm);
INSEE_MPI_COMPAT_API int MPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest,
                                   int tag, MPI_Comm comm);
INSEE_MPI_COMPAT_API int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source,
                                  int tag, MPI_Comm comm, MPI_Status *status);
INSEE_MPI_COMPAT_API int MPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest,
                                   int tag, MPI_Comm comm, MPI_Request *request);
INSEE_MPI_COMPAT_API int MPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source,
                                   int tag, MPI_Comm comm, MPI_Request *request);
INSEE_MPI_COMPAT_API int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                      int dest, int sendtag, void *recvbuf, int recvcount,
                                      MPI_Datatype recvtype, int source, int recvtag,
                                      MPI_Comm comm, MPI_Status *status);
INSEE_MPI_COMPAT_API int MPI_Wait(MPI_Request *request, MPI_Status *status);
INSEE_MPI_COMPAT_API int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]);
INSEE_MPI_COMPAT_API int MPI_Waitany(int count, MPI_Request requests[], int *index,
                                     MPI_Status *status);
INSEE_MPI_COMPAT_API int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status);
INSEE_MPI_COMPAT_API int MPI_Testall(int count, MPI_Request requests[], int *flag,
                                     MPI_Status statuses[]);
INSEE_MPI_COMPAT_API int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status);
INSEE_MPI_COMPAT_API int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag,
                                    MPI_Status *status);
INSEE_MPI_COMPAT_API int MPI_Get_count(const MPI_Status *status, MPI_Datatype datatype,
                                       int *count);

/* Collectives */
INSEE_MPI_COMPAT_API int MPI_Barrier(MPI_Comm comm);
INSEE_MPI_COMPAT_API int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root,
                                   MPI_Comm comm);
INSEE_MPI_COMPAT_API int MPI_Reduce(const void *sendbuf, void *recvbuf, int count,
                                    MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm);
INSEE_MPI_COMPAT_API int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count,
                                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
INSEE_MPI_COMPAT_API int MPI_Scan(const void *sendbuf, void *recvbuf, int count,
                                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
INSEE_MPI_COMPAT_API int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                    void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                                    MPI_Comm comm);
INSEE_MPI_COMPAT_API int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                     void *recvbuf, const int recvcounts[], const int displs[],
                                     MPI_Datatype recvtype, int root, MPI_Comm comm);
INSEE_MPI_COMPAT_API int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                     void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                     int root, MPI_Comm comm);
INSEE_MPI_COMPAT_API int MPI_Scatterv(const void *sendbuf, const int sendcounts[],
                                      const int displs[], MPI_Datatype sendtype, void *recvbuf,
                                      int recvcount, MPI_Datatype recvtype, int root,
                                      MPI_Comm comm);
INSEE_MPI_COMPAT_API int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                       void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                       MPI_Comm comm);
INSEE_MPI_COMPAT_API int MPI_Allgatherv(const void *sendbuf, int sendcount,
                                        MPI_Datatype sendtype, void *recvbuf,
                                        const int recvcounts[], const int displs[],
                                        MPI_Datatype recvtype, MPI_Comm comm);
INSEE_MPI_COMPAT_API int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                      void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                      MPI_Comm comm);
INSEE_MPI_COMPAT_API int MPI_Alltoallv(const void *sendbuf, const int sendcounts[],
                                       const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                       const int recvcounts[], const int rdispls[],
                                       MPI_Datatype recvtype, MPI_Comm comm);
INSEE_MPI_COMPAT_API int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf,
                                                  int recvcount, MPI_Datatype datatype,
                                                  MPI_Op op, MPI_Comm comm);

#ifdef __cplusplus
}
#endif
#endif
