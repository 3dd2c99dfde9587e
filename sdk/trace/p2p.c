/* libinsee-trace: point-to-point calls. A send is an `s` event when it is
 * posted; a receive an `r` event when it completes, with the source, tag
 * and length its status gives, so that the trace player's blocking receive
 * waits where the program did. Pending receives, persistent requests and
 * matched-probe messages are kept in a table keyed by their handle. */
#include "capture.h"

#include <stdlib.h>
#include <string.h>

typedef enum { RECV, PERSISTENT_RECV, PERSISTENT_SEND, MESSAGE } pending_kind;

typedef struct pending {
    const void *key; /* the request or message handle; NULL: a free slot */
    pending_kind kind;
    bool active;     /* a persistent request between MPI_Start and completion */
    cap_comm_rec *comm;
    int dst;         /* PERSISTENT_SEND: its world destination, tag and bytes */
    uint64_t tag, bytes;
} pending;

/* Open addressing with linear probing; deletion shifts the run back. */
static struct {
    pending *slots;
    size_t cap, n;
} table;

static size_t slot_of(const void *key)
{
    uintptr_t h = (uintptr_t)key;
    h ^= h >> 17;
    h *= 0x9e3779b97f4a7c15u;
    return (size_t)(h >> 7) & (table.cap - 1);
}

static pending *find(const void *key)
{
    if (!table.n || !key)
        return NULL;
    for (size_t i = slot_of(key);; i = (i + 1) & (table.cap - 1)) {
        if (table.slots[i].key == key)
            return &table.slots[i];
        if (!table.slots[i].key)
            return NULL;
    }
}

static void put(pending p)
{
    if (!p.key)
        return;
    if (2 * (table.n + 1) > table.cap) {
        size_t old = table.cap, cap = old ? 2 * old : 64;
        pending *prev = table.slots, *slots = calloc(cap, sizeof *slots);
        if (!slots)
            return;
        table.slots = slots, table.cap = cap, table.n = 0;
        for (size_t i = 0; i < old; i++)
            if (prev[i].key)
                put(prev[i]);
        free(prev);
    }
    size_t i = slot_of(p.key);
    while (table.slots[i].key && table.slots[i].key != p.key)
        i = (i + 1) & (table.cap - 1);
    if (!table.slots[i].key)
        table.n++;
    else
        cap_comm_release(table.slots[i].comm);
    table.slots[i] = p;
    cap_comm_hold(p.comm);
}

static void drop(pending *p)
{
    size_t i = (size_t)(p - table.slots), j = i;
    cap_comm_release(p->comm);
    table.slots[i].key = NULL;
    table.n--;
    for (;;) {
        j = (j + 1) & (table.cap - 1);
        if (!table.slots[j].key)
            return;
        size_t home = slot_of(table.slots[j].key);
        /* j's entry may move to i unless its home lies cyclically in (i, j] */
        if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
            table.slots[i] = table.slots[j];
            table.slots[j].key = NULL;
            i = j;
        }
    }
}

/* ---- sends ---- */

static void posted(int dest, int tag, int count, MPI_Datatype type, MPI_Comm comm)
{
    if (dest == MPI_PROC_NULL || !cap.on)
        return;
    cap_comm_rec *c = cap_comm(comm);
    if (!c) {
        cap_problem(C_P_UNKNOWN_COMM);
        return;
    }
    cap_message(true, cap_world_peer(c, dest), cap_p2p_tag(c, tag), cap_bytes(count, type));
}

#define BLOCKING_SEND(name)                                                                 \
    int name(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) \
    {                                                                                       \
        cap_enter(C_##name);                                                                \
        posted(dest, tag, count, type, comm);                                               \
        int rc = P##name(buf, count, type, dest, tag, comm);                                \
        cap_leave();                                                                        \
        return rc;                                                                          \
    }
BLOCKING_SEND(MPI_Send)
BLOCKING_SEND(MPI_Ssend)
BLOCKING_SEND(MPI_Bsend)
BLOCKING_SEND(MPI_Rsend)

#define NONBLOCKING_SEND(name)                                                              \
    int name(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, \
             MPI_Request *request)                                                          \
    {                                                                                       \
        cap_enter(C_##name);                                                                \
        posted(dest, tag, count, type, comm);                                               \
        int rc = P##name(buf, count, type, dest, tag, comm, request);                       \
        cap_leave();                                                                        \
        return rc;                                                                          \
    }
NONBLOCKING_SEND(MPI_Isend)
NONBLOCKING_SEND(MPI_Issend)
NONBLOCKING_SEND(MPI_Ibsend)
NONBLOCKING_SEND(MPI_Irsend)

/* A persistent send keeps its message, written at every MPI_Start. */
#define PERSISTENT_SEND_INIT(name)                                                          \
    int name(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, \
             MPI_Request *request)                                                          \
    {                                                                                       \
        cap_enter(C_##name);                                                                \
        int rc = P##name(buf, count, type, dest, tag, comm, request);                       \
        cap_comm_rec *c = cap_comm(comm);                                                   \
        if (rc == MPI_SUCCESS && cap.on && dest != MPI_PROC_NULL && !c)                    \
            cap_problem(C_P_UNKNOWN_COMM);                                                  \
        else if (rc == MPI_SUCCESS && cap.on && dest != MPI_PROC_NULL)                     \
            put((pending){*request, PERSISTENT_SEND, false, c, cap_world_peer(c, dest),     \
                          cap_p2p_tag(c, tag), cap_bytes(count, type)});                    \
        cap_leave();                                                                        \
        return rc;                                                                          \
    }
PERSISTENT_SEND_INIT(MPI_Send_init)
PERSISTENT_SEND_INIT(MPI_Ssend_init)
PERSISTENT_SEND_INIT(MPI_Bsend_init)
PERSISTENT_SEND_INIT(MPI_Rsend_init)

/* ---- receives ---- */

static void received(MPI_Comm comm, const MPI_Status *status)
{
    if (cap.on)
        cap_recv_status(cap_comm(comm), status);
}

int MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
             MPI_Status *status)
{
    MPI_Status own;
    cap_enter(C_MPI_Recv);
    if (status == MPI_STATUS_IGNORE)
        status = &own;
    int rc = PMPI_Recv(buf, count, type, source, tag, comm, status);
    if (rc == MPI_SUCCESS)
        received(comm, status);
    cap_leave();
    return rc;
}

int MPI_Irecv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
              MPI_Request *request)
{
    cap_enter(C_MPI_Irecv);
    int rc = PMPI_Irecv(buf, count, type, source, tag, comm, request);
    if (rc == MPI_SUCCESS && cap.on && source != MPI_PROC_NULL)
        put((pending){*request, RECV, true, cap_comm(comm), 0, 0, 0});
    cap_leave();
    return rc;
}

int MPI_Recv_init(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                  MPI_Request *request)
{
    cap_enter(C_MPI_Recv_init);
    int rc = PMPI_Recv_init(buf, count, type, source, tag, comm, request);
    if (rc == MPI_SUCCESS && cap.on && source != MPI_PROC_NULL)
        put((pending){*request, PERSISTENT_RECV, false, cap_comm(comm), 0, 0, 0});
    cap_leave();
    return rc;
}

int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                 int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype, int source,
                 int recvtag, MPI_Comm comm, MPI_Status *status)
{
    MPI_Status own;
    cap_enter(C_MPI_Sendrecv);
    if (status == MPI_STATUS_IGNORE)
        status = &own;
    posted(dest, sendtag, sendcount, sendtype, comm);
    int rc = PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                           recvtype, source, recvtag, comm, status);
    if (rc == MPI_SUCCESS)
        received(comm, status);
    cap_leave();
    return rc;
}

int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype type, int dest, int sendtag,
                         int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    MPI_Status own;
    cap_enter(C_MPI_Sendrecv_replace);
    if (status == MPI_STATUS_IGNORE)
        status = &own;
    posted(dest, sendtag, count, type, comm);
    int rc = PMPI_Sendrecv_replace(buf, count, type, dest, sendtag, source, recvtag, comm, status);
    if (rc == MPI_SUCCESS)
        received(comm, status);
    cap_leave();
    return rc;
}

/* Probes are no messages, but time spent in them is not computation. */
int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    cap_enter(C_MPI_Probe);
    int rc = PMPI_Probe(source, tag, comm, status);
    cap_leave();
    return rc;
}

int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    cap_enter(C_MPI_Iprobe);
    int rc = PMPI_Iprobe(source, tag, comm, flag, status);
    cap_leave();
    return rc;
}

/* A matched probe's message is received later by MPI_Mrecv or MPI_Imrecv,
   which do not name the communicator: the probe's is kept. */
int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status)
{
    cap_enter(C_MPI_Mprobe);
    int rc = PMPI_Mprobe(source, tag, comm, message, status);
    if (rc == MPI_SUCCESS && cap.on && *message != MPI_MESSAGE_NO_PROC)
        put((pending){*message, MESSAGE, false, cap_comm(comm), 0, 0, 0});
    cap_leave();
    return rc;
}

int MPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                MPI_Status *status)
{
    cap_enter(C_MPI_Improbe);
    int rc = PMPI_Improbe(source, tag, comm, flag, message, status);
    if (rc == MPI_SUCCESS && cap.on && *flag && *message != MPI_MESSAGE_NO_PROC)
        put((pending){*message, MESSAGE, false, cap_comm(comm), 0, 0, 0});
    cap_leave();
    return rc;
}

int MPI_Mrecv(void *buf, int count, MPI_Datatype type, MPI_Message *message, MPI_Status *status)
{
    MPI_Status own;
    cap_enter(C_MPI_Mrecv);
    pending *p = find(*message);
    cap_comm_rec *c = p ? p->comm : NULL;
    cap_comm_hold(c);
    if (p)
        drop(p);
    if (status == MPI_STATUS_IGNORE)
        status = &own;
    int rc = PMPI_Mrecv(buf, count, type, message, status);
    if (rc == MPI_SUCCESS && cap.on)
        cap_recv_status(c, status);
    cap_comm_release(c);
    cap_leave();
    return rc;
}

int MPI_Imrecv(void *buf, int count, MPI_Datatype type, MPI_Message *message,
               MPI_Request *request)
{
    cap_enter(C_MPI_Imrecv);
    pending *p = find(*message);
    cap_comm_rec *c = p ? p->comm : NULL;
    cap_comm_hold(c);
    if (p)
        drop(p);
    int rc = PMPI_Imrecv(buf, count, type, message, request);
    if (rc == MPI_SUCCESS && cap.on)
        put((pending){*request, RECV, true, c, 0, 0, 0});
    cap_comm_release(c);
    cap_leave();
    return rc;
}

/* ---- starts and completions ---- */

static void start(MPI_Request request)
{
    pending *p = find(request);
    if (!p)
        return;
    p->active = true;
    if (p->kind == PERSISTENT_SEND)
        cap_message(true, p->dst, p->tag, p->bytes);
}

int MPI_Start(MPI_Request *request)
{
    cap_enter(C_MPI_Start);
    start(*request);
    int rc = PMPI_Start(request);
    cap_leave();
    return rc;
}

int MPI_Startall(int count, MPI_Request requests[])
{
    cap_enter(C_MPI_Startall);
    for (int i = 0; i < count; i++)
        start(requests[i]);
    int rc = PMPI_Startall(count, requests);
    cap_leave();
    return rc;
}

/* The request that was `request` before a completion call completed with
   `status`. */
static void completed(MPI_Request request, const MPI_Status *status)
{
    pending *p = find(request);
    if (!p || !p->active)
        return;
    if (p->kind == RECV || p->kind == PERSISTENT_RECV)
        cap_recv_status(p->comm, status);
    p->active = false;
    if (p->kind == RECV)
        drop(p);
}

/* Completion calls overwrite the handles and may be given no statuses:
   the handles are copied first and statuses lent, when a receive may be
   among them. */
static struct {
    MPI_Request *requests;
    MPI_Status *statuses;
    size_t cap;
} scratch;

static bool lend(int count)
{
    if (count <= 0)
        return false;
    if ((size_t)count > scratch.cap) {
        MPI_Request *r = realloc(scratch.requests, sizeof *r * (size_t)count);
        if (r)
            scratch.requests = r;
        MPI_Status *s = realloc(scratch.statuses, sizeof *s * (size_t)count);
        if (s)
            scratch.statuses = s;
        if (!r || !s)
            return false;
        scratch.cap = (size_t)count;
    }
    return true;
}

/* Whether completions of these requests need watching (and the copies made). */
static bool watch(int count, const MPI_Request requests[])
{
    if (!cap.on || !table.n || !lend(count))
        return false;
    memcpy(scratch.requests, requests, sizeof *requests * (size_t)count);
    return true;
}

int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    MPI_Status own;
    MPI_Request was = *request;
    cap_enter(C_MPI_Wait);
    if (status == MPI_STATUS_IGNORE)
        status = &own;
    int rc = PMPI_Wait(request, status);
    if (rc == MPI_SUCCESS && cap.on)
        completed(was, status);
    cap_leave();
    return rc;
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    MPI_Status own;
    MPI_Request was = *request;
    cap_enter(C_MPI_Test);
    if (status == MPI_STATUS_IGNORE)
        status = &own;
    int rc = PMPI_Test(request, flag, status);
    if (rc == MPI_SUCCESS && cap.on && *flag)
        completed(was, status);
    cap_leave();
    return rc;
}

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[])
{
    cap_enter(C_MPI_Waitall);
    bool watched = watch(count, requests);
    if (watched && statuses == MPI_STATUSES_IGNORE)
        statuses = scratch.statuses;
    int rc = PMPI_Waitall(count, requests, statuses);
    for (int i = 0; watched && rc == MPI_SUCCESS && i < count; i++)
        completed(scratch.requests[i], &statuses[i]);
    cap_leave();
    return rc;
}

int MPI_Testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[])
{
    cap_enter(C_MPI_Testall);
    bool watched = watch(count, requests);
    if (watched && statuses == MPI_STATUSES_IGNORE)
        statuses = scratch.statuses;
    int rc = PMPI_Testall(count, requests, flag, statuses);
    for (int i = 0; watched && rc == MPI_SUCCESS && *flag && i < count; i++)
        completed(scratch.requests[i], &statuses[i]);
    cap_leave();
    return rc;
}

int MPI_Waitany(int count, MPI_Request requests[], int *index, MPI_Status *status)
{
    MPI_Status own;
    cap_enter(C_MPI_Waitany);
    bool watched = watch(count, requests);
    if (status == MPI_STATUS_IGNORE)
        status = &own;
    int rc = PMPI_Waitany(count, requests, index, status);
    if (watched && rc == MPI_SUCCESS && *index != MPI_UNDEFINED)
        completed(scratch.requests[*index], status);
    cap_leave();
    return rc;
}

int MPI_Testany(int count, MPI_Request requests[], int *index, int *flag, MPI_Status *status)
{
    MPI_Status own;
    cap_enter(C_MPI_Testany);
    bool watched = watch(count, requests);
    if (status == MPI_STATUS_IGNORE)
        status = &own;
    int rc = PMPI_Testany(count, requests, index, flag, status);
    if (watched && rc == MPI_SUCCESS && *flag && *index != MPI_UNDEFINED)
        completed(scratch.requests[*index], status);
    cap_leave();
    return rc;
}

#define SOME(name)                                                                          \
    int name(int incount, MPI_Request requests[], int *outcount, int indices[],            \
             MPI_Status statuses[])                                                         \
    {                                                                                       \
        cap_enter(C_##name);                                                                \
        bool watched = watch(incount, requests);                                            \
        if (watched && statuses == MPI_STATUSES_IGNORE)                                     \
            statuses = scratch.statuses;                                                    \
        int rc = P##name(incount, requests, outcount, indices, statuses);                   \
        for (int i = 0; watched && rc == MPI_SUCCESS && *outcount != MPI_UNDEFINED &&      \
                        i < *outcount;                                                      \
             i++)                                                                           \
            completed(scratch.requests[indices[i]], &statuses[i]);                          \
        cap_leave();                                                                        \
        return rc;                                                                          \
    }
SOME(MPI_Waitsome)
SOME(MPI_Testsome)

int MPI_Request_free(MPI_Request *request)
{
    cap_enter(C_MPI_Request_free);
    pending *p = find(*request);
    if (p && p->kind == RECV)
        cap_problem(C_P_FREED_RECV);
    if (p)
        drop(p);
    int rc = PMPI_Request_free(request);
    cap_leave();
    return rc;
}

int MPI_Cancel(MPI_Request *request)
{
    cap_enter(C_MPI_Cancel);
    pending *p = find(*request);
    if (cap.on && (!p || p->kind == PERSISTENT_SEND))
        cap_problem(C_P_CANCEL_SEND);
    int rc = PMPI_Cancel(request);
    cap_leave();
    return rc;
}
