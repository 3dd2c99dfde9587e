/* sdk/mpi/mpi.c — libinsee-mpi (contract in insee/mpi.h, time model in
 * docs/mpi.md). One rank per process, so the state is the process's. */
#include "coll.h"

#include <insee/client.h>
#include <insee/mpi.h>

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A collective's messages carry tag -2 - its insee_coll_op: negative, so
   INSEE_MPI_ANY_TAG never takes them. */
static int coll_tag(insee_coll_op op)
{
    return -2 - (int)op;
}

/* Every payload starts with this envelope (same host, native byte order);
   the simulated message length is the user's bytes alone. Ranks, not
   nodes: with a rank map, rank and node differ. */
typedef struct envelope {
    int32_t tag;
    uint32_t seq;  /* per (source, destination): restores the send order */
    uint32_t ctx;  /* the communicator's context: no two sharing a rank have one */
    int32_t src, dst; /* world ranks */
} envelope;

typedef struct msg {
    struct msg *next;
    int src, tag;
    uint32_t seq, ctx;
    uint64_t time; /* the slice start at which it was handed over */
    size_t len;
    uint8_t data[];
} msg;

struct insee_mpi_comm {
    uint32_t ctx;
    uint32_t calls; /* collectives it has run: the recorded trace's tags */
    int rank, size;
    int *world;    /* this communicator's rank -> world rank */
    int *of_world; /* world rank -> this communicator's rank, or -1 */
};

struct insee_mpi_request {
    insee_mpi_request *next; /* posted receives, in posting order */
    bool recv, done, too_long;
    void *buf;
    size_t cap;
    int src, tag; /* src: a world rank or INSEE_MPI_ANY_SOURCE */
    const insee_mpi_comm *comm;
    insee_mpi_status st;
};

static struct {
    insee_client *c;
    int rank, size, report_fd;
    uint32_t *node;              /* per world rank: its network node */
    uint64_t clock;
    insee_client_slice slice;
    uint32_t *send_seq, *recv_seq;
    msg *unexpected, *held;      /* arrived and unmatched; arrived ahead of its turn */
    insee_mpi_request *posted;
    uint64_t sent, got;          /* messages injected, and handed over to this rank */
    insee_mpi_comm world;
    uint32_t next_ctx;           /* above every context of a communicator holding this rank */
    insee_coll_plan plan;
    FILE *trace;                 /* INSEE_MPI_TRACE: this rank's events (NULL: none) */
    insee_mpi_error_kind err_class;
    char err[600];
} M = {.report_fd = -1};

/* ---- the recorded trace (INSEE_MPI_TRACE, docs/mpi.md) -------------------
 * Each message as the FSIN trace event libinsee-trace writes for the same
 * call under Open MPI: a send when posted, a receive when it completes, a
 * compute when the clock moves; tags as it encodes them, communicator
 * context << 32 | the tag, a collective's 2^31 | its schedule << 24 | its
 * number among the communicator's collectives. */
static uint64_t trace_tag(const insee_mpi_comm *c, int tag)
{
    uint64_t high = (uint64_t)c->ctx << 32;
    if (tag >= 0)
        return high | (uint64_t)tag;
    return high | 1ull << 31 | (uint64_t)(-2 - tag) << 24 | (c->calls & 0xFFFFFFu);
}

static void record_message(char kind, int peer, const insee_mpi_comm *c, int tag, size_t bytes)
{
    if (M.trace)
        fprintf(M.trace, "%c %d %d %llu %zu\n", kind, kind == 's' ? M.rank : peer,
                kind == 's' ? peer : M.rank, (unsigned long long)trace_tag(c, tag), bytes);
}

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...)
{
    M.err_class = INSEE_MPI_ERR_OTHER;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(M.err, sizeof M.err, fmt, ap);
    va_end(ap);
    return -1;
}

insee_mpi_error_kind insee_mpi_error_class(void)
{
    return M.err_class;
}

const char *insee_mpi_error(void)
{
    return M.err;
}

int insee_mpi_rank(void)
{
    return M.rank;
}

int insee_mpi_size(void)
{
    return M.size;
}

uint32_t insee_mpi_node(void)
{
    return M.node ? M.node[M.rank] : 0;
}

uint64_t insee_mpi_wtime(void)
{
    return M.clock;
}

static bool matches(const insee_mpi_request *r, const msg *m)
{
    return r->comm->ctx == m->ctx && (r->src == INSEE_MPI_ANY_SOURCE || r->src == m->src) &&
           (r->tag == INSEE_MPI_ANY_TAG ? m->tag >= 0 : r->tag == m->tag);
}

static insee_mpi_status status_of(const insee_mpi_comm *c, const msg *m)
{
    return (insee_mpi_status){.source = c->of_world[m->src], .tag = m->tag, .bytes = m->len,
                              .time = m->time};
}

static void complete(insee_mpi_request *r, const msg *m)
{
    r->done = true;
    r->too_long = m->len > r->cap;
    if (!r->too_long && m->len)
        memcpy(r->buf, m->data, m->len);
    r->st = status_of(r->comm, m);
}

static void append(msg **list, msg *m)
{
    while (*list)
        list = &(*list)->next;
    m->next = NULL;
    *list = m;
}

/* A message in its source's order: to the first posted receive it matches,
   or to the unexpected queue. */
static void accept(msg *m)
{
    M.recv_seq[m->src]++;
    for (insee_mpi_request **p = &M.posted; *p; p = &(*p)->next) {
        insee_mpi_request *r = *p;
        if (matches(r, m)) {
            *p = r->next;
            complete(r, m);
            free(m);
            return;
        }
    }
    append(&M.unexpected, m);
}

/* Messages that overtook an earlier one of their source wait for it. */
static void accept_held(void)
{
    for (bool again = true; again;) {
        again = false;
        for (msg **p = &M.held; *p; p = &(*p)->next) {
            msg *m = *p;
            if (m->seq == M.recv_seq[m->src]) {
                *p = m->next;
                accept(m);
                again = true;
                break;
            }
        }
    }
}

static int take_delivery(const insee_client_delivery *d)
{
    envelope e;
    if (d->payload_len < sizeof e)
        return fail("rank %d: a message from node %u without an insee-mpi envelope", M.rank,
                    d->src);
    memcpy(&e, d->payload, sizeof e);
    if (e.dst != M.rank || e.src < 0 || e.src >= M.size || M.node[e.src] != d->src)
        return fail("rank %d: a message from node %u for rank %d claims to come from rank %d, "
                    "which does not run there", M.rank, d->src, e.dst, e.src);
    msg *m = malloc(sizeof *m + d->payload_len - sizeof e);
    if (!m)
        return fail("rank %d: out of memory for a message of %u bytes", M.rank, d->payload_len);
    M.got++;
    m->src = e.src;
    m->tag = e.tag;
    m->seq = e.seq;
    m->ctx = e.ctx;
    m->time = M.slice.start_unit;
    m->len = d->payload_len - sizeof e;
    memcpy(m->data, d->payload + sizeof e, m->len);
    if (m->seq == M.recv_seq[m->src]) {
        accept(m);
        accept_held();
    } else {
        append(&M.held, m);
    }
    return 0;
}

/* End the running slice, wait for the next and take its deliveries. */
static int end_slice(void)
{
    const insee_client_delivery *d;
    size_t n;
    insee_client_error e;
    if (!insee_client_end_slice(M.c, &M.slice, &d, &n, &e))
        return fail("rank %d: %s", M.rank, e.message);
    for (size_t i = 0; i < n; i++)
        if (take_delivery(&d[i]) < 0)
            return -1;
    return 0;
}

/* Run slices until the one holding the clock. */
static int catch_up(void)
{
    while (M.clock >= M.slice.end_unit)
        if (end_slice() < 0)
            return -1;
    return 0;
}

static int env_int(const char *name, long lo, long hi, long *out)
{
    const char *s = getenv(name);
    char *end;
    errno = 0;
    long v = s ? strtol(s, &end, 10) : 0;
    if (!s || !*s || *end || errno || v < lo || v > hi)
        return fail("insee_mpi_init(): %s is %s%s%s, not a number in %ld..%ld; start the program "
                    "with insee-mpirun", name, s ? "'" : "unset", s ? s : "", s ? "'" : "", lo,
                    hi);
    *out = v;
    return 0;
}

/* Every rank's node: INSEE_MPI_NODES names a file of one node a line (the
   launcher writes it from its rank map), rank r on node r without it. */
static int read_nodes(void)
{
    const char *path = getenv("INSEE_MPI_NODES");
    for (int r = 0; r < M.size; r++)
        M.node[r] = (uint32_t)r;
    if (!path)
        return 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return fail("insee_mpi_init(): cannot read INSEE_MPI_NODES '%s': %s", path,
                    strerror(errno));
    int r = 0;
    for (unsigned long v; r < M.size && fscanf(f, "%lu", &v) == 1 && v <= UINT32_MAX; r++)
        M.node[r] = (uint32_t)v;
    fclose(f);
    if (r < M.size)
        return fail("insee_mpi_init(): INSEE_MPI_NODES '%s' gives the nodes of %d ranks, not "
                    "%d; start the program with insee-mpirun", path, r, M.size);
    return 0;
}

static int *identity(int n)
{
    int *a = malloc(sizeof *a * (size_t)n);
    for (int i = 0; a && i < n; i++)
        a[i] = i;
    return a;
}

int insee_mpi_init(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    if (M.c)
        return fail("insee_mpi_init() was already called");
    long size, rank, fd = -1;
    const char *address = getenv("INSEE_MPI_ADDRESS");
    if (!address)
        return fail("insee_mpi_init(): INSEE_MPI_ADDRESS is unset; start the program with "
                    "insee-mpirun");
    if (env_int("INSEE_MPI_SIZE", 1, 65536, &size) < 0 ||
        env_int("INSEE_MPI_RANK", 0, size - 1, &rank) < 0 ||
        (getenv("INSEE_MPI_REPORT_FD") && env_int("INSEE_MPI_REPORT_FD", 0, 65535, &fd) < 0))
        return -1;
    M.rank = (int)rank;
    M.size = (int)size;
    M.report_fd = (int)fd;
    M.send_seq = calloc((size_t)size, sizeof *M.send_seq);
    M.recv_seq = calloc((size_t)size, sizeof *M.recv_seq);
    M.node = calloc((size_t)size, sizeof *M.node);
    M.world = (insee_mpi_comm){.ctx = 0, .rank = M.rank, .size = M.size,
                               .world = identity(M.size), .of_world = identity(M.size)};
    M.next_ctx = 1;
    if (!M.send_seq || !M.recv_seq || !M.node || !M.world.world || !M.world.of_world)
        return fail("insee_mpi_init(): out of memory for %ld ranks", size);
    if (read_nodes() < 0)
        return -1;
    const char *trace = getenv("INSEE_MPI_TRACE");
    if (trace) {
        char path[4200];
        snprintf(path, sizeof path, "%s.%d", trace, M.rank);
        if (!(M.trace = fopen(path, "w")))
            return fail("rank %d: cannot write its trace %s: %s", M.rank, path, strerror(errno));
    }
    char name[32];
    snprintf(name, sizeof name, "rank %d", M.rank);
    insee_client_error e;
    M.c = insee_client_connect(address, name, &M.node[M.rank], 1, &e);
    if (!M.c)
        return fail("rank %d: %s", M.rank, e.message);
    uint32_t nodes = insee_client_get_info(M.c)->nodes;
    for (int r = 0; r < M.size; r++)
        if (M.node[r] >= nodes)
            return fail("rank %d: rank %d runs on node %u, but the bridge serves nodes 0..%u",
                        M.rank, r, M.node[r], nodes - 1);
    return end_slice();
}

int insee_mpi_compute(uint64_t units)
{
    if (units > UINT64_MAX - M.clock)
        return fail("rank %d: insee_mpi_compute(%llu) overflows the clock", M.rank,
                    (unsigned long long)units);
    M.clock += units;
    if (M.trace && units)
        fprintf(M.trace, "c %d %llu\n", M.rank, (unsigned long long)units);
    return 0;
}

static int check_comm(const char *fn, const insee_mpi_comm *c)
{
    return c ? 0 : fail("rank %d: %s(): no communicator", M.rank, fn);
}

/* `peer` of `c` as a world rank in *world (ANY_SOURCE kept when `any`). */
static int check_peer(const char *fn, const insee_mpi_comm *c, int peer, bool any, int *world)
{
    if (check_comm(fn, c) < 0)
        return -1;
    if (peer >= 0 && peer < c->size) {
        *world = c->world[peer];
        return 0;
    }
    if (any && peer == INSEE_MPI_ANY_SOURCE) {
        *world = peer;
        return 0;
    }
    return fail("rank %d: %s(): rank %d is not in 0..%d", M.rank, fn, peer, c->size - 1);
}

/* Send without the user-tag check (collectives use negative tags), by
   interface choice `nic` with copy mode `copy` (insee_client_inject_nic()). */
static int post_send(const insee_mpi_comm *c, const void *buf, size_t bytes, int dest, int tag,
                     uint16_t nic, uint8_t copy)
{
    if (bytes > INSEE_CLIENT_MAX_PAYLOAD - sizeof(envelope))
        return fail("rank %d: a message of %zu bytes is longer than the %zu bytes a message "
                    "may carry", M.rank, bytes, INSEE_CLIENT_MAX_PAYLOAD - sizeof(envelope));
    if (catch_up() < 0)
        return -1;
    envelope e = {.tag = tag, .seq = M.send_seq[dest], .ctx = c->ctx, .src = M.rank, .dst = dest};
    uint8_t *p = malloc(sizeof e + bytes);
    if (!p)
        return fail("rank %d: out of memory for a message of %zu bytes", M.rank, bytes);
    memcpy(p, &e, sizeof e);
    if (bytes)
        memcpy(p + sizeof e, buf, bytes);
    insee_client_error err;
    bool ok = insee_client_inject_nic(M.c, M.node[M.rank], M.node[dest], bytes, M.clock, e.seq,
                                      p, (uint32_t)(sizeof e + bytes), nic, copy, &err);
    free(p);
    if (!ok)
        return fail("rank %d: %s", M.rank, err.message);
    M.send_seq[dest]++;
    M.sent++;
    record_message('s', dest, c, tag, bytes);
    return 0;
}

/* An isend named `fn` with its transfer's choices. */
static int isend_with(const char *fn, insee_mpi_comm *comm, const void *buf, size_t bytes,
                      int dest, int tag, uint16_t nic, uint8_t copy, insee_mpi_request **req)
{
    *req = NULL;
    int to = 0;
    if (check_peer(fn, comm, dest, false, &to) < 0)
        return -1;
    if (tag < 0)
        return fail("rank %d: %s(): tag %d is negative", M.rank, fn, tag);
    insee_mpi_request *r = calloc(1, sizeof *r);
    if (!r)
        return fail("rank %d: out of memory for a request", M.rank);
    if (post_send(comm, buf, bytes, to, tag, nic, copy) < 0) {
        free(r);
        return -1;
    }
    r->done = true;
    r->comm = comm;
    r->st = (insee_mpi_status){.source = comm->rank, .tag = tag, .bytes = bytes,
                               .time = M.clock};
    *req = r;
    return 0;
}

int insee_mpi_isend_on(insee_mpi_comm *comm, const void *buf, size_t bytes, int dest, int tag,
                       insee_mpi_request **req)
{
    return isend_with("insee_mpi_isend", comm, buf, bytes, dest, tag, 0,
                      INSEE_CLIENT_COPY_DEFAULT, req);
}

int insee_mpi_isend(const void *buf, size_t bytes, int dest, int tag, insee_mpi_request **req)
{
    return insee_mpi_isend_on(&M.world, buf, bytes, dest, tag, req);
}

int insee_mpi_isend_nic_on(insee_mpi_comm *comm, const void *buf, size_t bytes, int dest,
                           int tag, int nic, int zero_copy, insee_mpi_request **req)
{
    *req = NULL;
    /* The interface's upper bound is the run's [network] nics, which only
       the kernel knows: it ends the run naming this rank's client. */
    if (nic < 0 || nic > UINT16_MAX)
        return fail("rank %d: insee_mpi_isend_nic(): interface %d; nic is 0 (the node's turn) "
                    "or an interface from 1", M.rank, nic);
    if (zero_copy != 0 && zero_copy != 1)
        return fail("rank %d: insee_mpi_isend_nic(): zero_copy is %d, not 1 (zero-copy) or 0 "
                    "(two-copy)", M.rank, zero_copy);
    return isend_with("insee_mpi_isend_nic", comm, buf, bytes, dest, tag, (uint16_t)nic,
                      zero_copy ? INSEE_CLIENT_COPY_ZERO : INSEE_CLIENT_COPY_TWO, req);
}

int insee_mpi_isend_nic(const void *buf, size_t bytes, int dest, int tag, int nic,
                        int zero_copy, insee_mpi_request **req)
{
    return insee_mpi_isend_nic_on(&M.world, buf, bytes, dest, tag, nic, zero_copy, req);
}

/* The first unexpected message `r` would take, by its link. */
static msg **unexpected_for(const insee_mpi_request *r)
{
    msg **p = &M.unexpected;
    while (*p && !matches(r, *p))
        p = &(*p)->next;
    return *p ? p : NULL;
}

static int post_recv(const insee_mpi_comm *c, void *buf, size_t cap, int source, int tag,
                     insee_mpi_request **req)
{
    insee_mpi_request *r = calloc(1, sizeof *r);
    if (!r)
        return fail("rank %d: out of memory for a request", M.rank);
    *r = (insee_mpi_request){.recv = true, .buf = buf, .cap = cap, .src = source, .tag = tag,
                             .comm = c};
    *req = r;
    msg **p = unexpected_for(r);
    if (p) {
        msg *m = *p;
        *p = m->next;
        complete(r, m);
        free(m);
        return 0;
    }
    insee_mpi_request **end = &M.posted;
    while (*end)
        end = &(*end)->next;
    *end = r;
    return 0;
}

int insee_mpi_irecv_on(insee_mpi_comm *comm, void *buf, size_t capacity, int source, int tag,
                       insee_mpi_request **req)
{
    *req = NULL;
    int from = INSEE_MPI_ANY_SOURCE;
    if (check_peer("insee_mpi_irecv", comm, source, true, &from) < 0)
        return -1;
    if (tag < 0 && tag != INSEE_MPI_ANY_TAG)
        return fail("rank %d: insee_mpi_irecv(): tag %d is negative", M.rank, tag);
    return post_recv(comm, buf, capacity, from, tag, req);
}

int insee_mpi_irecv(void *buf, size_t capacity, int source, int tag, insee_mpi_request **req)
{
    return insee_mpi_irecv_on(&M.world, buf, capacity, source, tag, req);
}

/* A line to insee-mpirun, when it started this rank (docs/mpi.md): it
   finds deadlocks from what every rank waits for and the messages sent and
   handed over. */
static int report(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int report(const char *fmt, ...)
{
    if (M.report_fd < 0)
        return 0;
    char line[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    ssize_t w;
    do
        w = n < 0 || (size_t)n >= sizeof line ? -1 : write(M.report_fd, line, (size_t)n);
    while (w < 0 && errno == EINTR);
    if (w != n)
        return fail("rank %d: cannot report to the launcher: %s", M.rank, strerror(errno));
    return 0;
}

/* "wait RANK SENT GOT what it waits for" before a receive blocks; ranks
   are world ranks. */
static int report_wait(const insee_mpi_request *r)
{
    char from[32], tag[48];
    snprintf(from, sizeof from, r->src < 0 ? "any rank" : "rank %d", r->src);
    if (r->tag < INSEE_MPI_ANY_TAG)
        snprintf(tag, sizeof tag, "a collective");
    else
        snprintf(tag, sizeof tag, r->tag < 0 ? "any tag" : "tag %d", r->tag);
    return report("wait %d %llu %llu a message from %s (%s)\n", M.rank,
                  (unsigned long long)M.sent, (unsigned long long)M.got, from, tag);
}

/* Take what was handed over up to the clock; then, until one of r[0..n)
   is done (or, for a probe, a message it would take is there), wait slice
   by slice, the clock following the slice starts. NULL entries are
   skipped; the launcher is told about the first of the others. */
static bool ready(const insee_mpi_request *r, bool probe)
{
    return r && (probe ? unexpected_for(r) != NULL : r->done);
}

static bool any_ready(insee_mpi_request *const *r, size_t n, bool probe)
{
    for (size_t i = 0; i < n; i++)
        if (ready(r[i], probe))
            return true;
    return false;
}

static int block_on(insee_mpi_request *const *r, size_t n, bool probe)
{
    const insee_mpi_request *first = NULL;
    for (size_t i = 0; i < n && !first; i++)
        first = r[i];
    int rc = catch_up();
    bool blocked = rc == 0 && !any_ready(r, n, probe);
    if (blocked)
        rc = report_wait(first);
    while (rc == 0 && !any_ready(r, n, probe)) {
        uint64_t got = M.got;
        rc = end_slice();
        if (rc == 0 && M.slice.start_unit > M.clock)
            M.clock = M.slice.start_unit;
        /* A message that is not the awaited one: still waiting, with one
           more handed over (the launcher balances sends against these). */
        if (rc == 0 && !any_ready(r, n, probe) && M.got != got)
            rc = report_wait(first);
    }
    if (rc == 0 && blocked)
        rc = report("run %d\n", M.rank);
    return rc;
}

/* A done request: its status (time = the clock), freed. */
static int finish(insee_mpi_request **req, insee_mpi_status *status)
{
    insee_mpi_request *r = *req;
    if (r->st.time > M.clock)
        M.clock = r->st.time;
    r->st.time = M.clock;
    if (status)
        *status = r->st;
    insee_mpi_request done = *r;
    *req = NULL;
    free(r);
    if (done.recv && !done.too_long)
        record_message('r', done.comm->world[done.st.source], done.comm, done.st.tag,
                       done.st.bytes);
    if (!done.too_long)
        return 0;
    fail("rank %d: a message of %zu bytes from rank %d (tag %d) does not fit the receive buffer "
         "of %zu bytes", M.rank, done.st.bytes, done.st.source, done.st.tag, done.cap);
    M.err_class = INSEE_MPI_ERR_TRUNCATE;
    return -1;
}

int insee_mpi_wait(insee_mpi_request **req, insee_mpi_status *status)
{
    if (!*req)
        return fail("rank %d: insee_mpi_wait() on no request", M.rank);
    return block_on(req, 1, false) < 0 ? -1 : finish(req, status);
}

int insee_mpi_waitany(size_t n, insee_mpi_request **reqs, size_t *index,
                      insee_mpi_status *status)
{
    *index = n;
    bool any = false;
    for (size_t i = 0; i < n; i++)
        any |= reqs[i] != NULL;
    if (!any || block_on(reqs, n, false) < 0)
        return any ? -1 : 0;
    for (size_t i = 0; i < n; i++)
        if (ready(reqs[i], false) && (*index == n || reqs[i]->st.time < reqs[*index]->st.time))
            *index = i;
    return finish(&reqs[*index], status);
}

int insee_mpi_test(insee_mpi_request **req, int *done, insee_mpi_status *status)
{
    *done = 0;
    if (!*req)
        return fail("rank %d: insee_mpi_test() on no request", M.rank);
    if (catch_up() < 0)
        return -1;
    if (!(*req)->done)
        return 0;
    *done = 1;
    return finish(req, status);
}

int insee_mpi_waitall(size_t n, insee_mpi_request **reqs, insee_mpi_status *statuses)
{
    for (size_t i = 0; i < n; i++)
        if (insee_mpi_wait(&reqs[i], statuses ? &statuses[i] : NULL) < 0)
            return -1;
    return 0;
}

int insee_mpi_send_on(insee_mpi_comm *comm, const void *buf, size_t bytes, int dest, int tag)
{
    insee_mpi_request *r;
    return insee_mpi_isend_on(comm, buf, bytes, dest, tag, &r) < 0 ? -1
                                                                    : insee_mpi_wait(&r, NULL);
}

int insee_mpi_recv_on(insee_mpi_comm *comm, void *buf, size_t capacity, int source, int tag,
                      insee_mpi_status *status)
{
    insee_mpi_request *r;
    return insee_mpi_irecv_on(comm, buf, capacity, source, tag, &r) < 0
               ? -1
               : insee_mpi_wait(&r, status);
}

int insee_mpi_send(const void *buf, size_t bytes, int dest, int tag)
{
    return insee_mpi_send_on(&M.world, buf, bytes, dest, tag);
}

int insee_mpi_recv(void *buf, size_t capacity, int source, int tag, insee_mpi_status *status)
{
    return insee_mpi_recv_on(&M.world, buf, capacity, source, tag, status);
}

static int probe(const char *fn, insee_mpi_comm *comm, int source, int tag, bool wait,
                 int *found, insee_mpi_status *status)
{
    int from = INSEE_MPI_ANY_SOURCE;
    if (check_peer(fn, comm, source, true, &from) < 0)
        return -1;
    if (tag < 0 && tag != INSEE_MPI_ANY_TAG)
        return fail("rank %d: %s(): tag %d is negative", M.rank, fn, tag);
    insee_mpi_request want = {.recv = true, .src = from, .tag = tag, .comm = comm};
    insee_mpi_request *wanted = &want;
    if ((wait ? block_on(&wanted, 1, true) : catch_up()) < 0)
        return -1;
    msg **p = unexpected_for(&want);
    *found = p != NULL;
    if (p && status) {
        *status = status_of(comm, *p);
        status->time = M.clock;
    }
    return 0;
}

int insee_mpi_iprobe(insee_mpi_comm *comm, int source, int tag, int *found,
                     insee_mpi_status *status)
{
    return probe("insee_mpi_iprobe", comm, source, tag, false, found, status);
}

int insee_mpi_probe(insee_mpi_comm *comm, int source, int tag, insee_mpi_status *status)
{
    int found;
    return probe("insee_mpi_probe", comm, source, tag, true, &found, status);
}

/* Drop a posted receive that will not be waited for. */
static void cancel(insee_mpi_request *r)
{
    for (insee_mpi_request **p = &M.posted; *p; p = &(*p)->next)
        if (*p == r) {
            *p = r->next;
            break;
        }
    free(r);
}

/* A receive of a running round: its first step, its bytes and where they
   land until the round ends. */
typedef struct incoming {
    size_t step, bytes;
    uint8_t *buf;
    insee_mpi_request *req;
} incoming;

/* The message starting at step i: its last step in *last, its bytes. */
static size_t message(const insee_coll_plan *p, size_t i, size_t *last)
{
    size_t bytes = p->steps[i].bytes;
    while (p->steps[i].more && i + 1 < p->n)
        bytes += p->steps[++i].bytes;
    *last = i;
    return bytes;
}

/* Post the messages of the round starting at step *i (sends eager from
   `work`, receives into buffers of their own, in `in`, *n of them); *i
   moves past the round. */
static int post_round(const insee_mpi_comm *c, int tag, const insee_coll_plan *p, size_t *i,
                      const uint8_t *work, incoming *in, size_t *n)
{
    for (bool end = false; !end && *i < p->n;) {
        const insee_coll_step *s = &p->steps[*i];
        size_t last, bytes = message(p, *i, &last);
        /* A send of one segment goes straight from `work`. */
        bool direct = s->kind == INSEE_COLL_SEND && last == *i;
        uint8_t *buf = direct ? NULL : malloc(bytes ? bytes : 1);
        if (!direct && !buf)
            return fail("rank %d: out of memory for a collective's message of %zu bytes",
                        M.rank, bytes);
        int peer = c->world[s->peer];
        if (s->kind == INSEE_COLL_SEND) {
            for (size_t k = *i, at = 0; !direct && k <= last; at += p->steps[k++].bytes)
                memcpy(buf + at, work + p->steps[k].offset, p->steps[k].bytes);
            int rc = post_send(c, direct ? work + s->offset : buf, bytes, peer, tag, 0,
                               INSEE_CLIENT_COPY_DEFAULT);
            free(buf);
            if (rc < 0)
                return -1;
        } else {
            in[*n] = (incoming){.step = *i, .bytes = bytes, .buf = buf};
            if (post_recv(c, buf, bytes, peer, tag, &in[*n].req) < 0) {
                free(buf);
                return -1;
            }
            ++*n;
        }
        end = p->steps[last].round_end;
        *i = last + 1;
    }
    return 0;
}

/* Wait for a round's receives, then unpack them into `work` (combining
   the RECV_REDUCE ones with `red`) in step order. Frees them all. */
static int end_round(const insee_coll_plan *p, uint8_t *work, const insee_mpi_reduction *red,
                     incoming *in, size_t n)
{
    int rc = 0;
    for (size_t k = 0; k < n; k++) {
        insee_mpi_status st;
        if (rc < 0) {
            cancel(in[k].req);
        } else if ((rc = insee_mpi_wait(&in[k].req, &st)) < 0) {
            cancel(in[k].req);
        } else if (st.bytes != in[k].bytes) {
            rc = fail("rank %d: a collective got %zu bytes from rank %d where %zu were due; do "
                      "all ranks call the same collectives with the same sizes?", M.rank,
                      st.bytes, p->steps[in[k].step].peer, in[k].bytes);
        }
    }
    for (size_t k = 0; k < n; k++) {
        const insee_coll_step *s = &p->steps[in[k].step];
        if (rc == 0 && s->kind == INSEE_COLL_RECV_REDUCE) {
            red->fn(work + s->offset, in[k].buf, s->bytes / red->elem_bytes, red->user);
        } else if (rc == 0) {
            for (size_t j = in[k].step, at = 0;; at += p->steps[j++].bytes) {
                memcpy(work + p->steps[j].offset, in[k].buf + at, p->steps[j].bytes);
                if (!p->steps[j].more)
                    break;
            }
        }
        free(in[k].buf);
    }
    return rc;
}

/* Run this rank's schedule `p` of a collective on `c` (the rules at the
   top of coll.h), round after round, over `work`. */
static int run_plan(insee_mpi_comm *c, insee_coll_op op, const insee_coll_plan *p,
                    uint8_t *work, const insee_mpi_reduction *red)
{
    incoming *in = malloc(sizeof *in * (p->n ? p->n : 1));
    if (!in)
        return fail("rank %d: out of memory for a collective of %zu steps", M.rank, p->n);
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < p->n;) {
        size_t n = 0;
        rc = post_round(c, coll_tag(op), p, &i, work, in, &n);
        int ended = end_round(p, work, red, in, n);
        rc = rc < 0 ? rc : ended;
    }
    free(in);
    c->calls++;
    return rc;
}

/* A collective's work buffer (zeroed), with this rank's plan of `a` made
   in M.plan; NULL when `a` is wrong (the reason in insee_mpi_error()). */
static uint8_t *coll_begin(const char *fn, const insee_mpi_comm *c, insee_coll_args *a)
{
    if (check_comm(fn, c) < 0)
        return NULL;
    a->size = c->size;
    a->rank = c->rank;
    const char *why = insee_coll_plan_make(a, &M.plan);
    if (why) {
        fail("rank %d: %s(): %s", M.rank, fn, why);
        return NULL;
    }
    uint8_t *work = calloc(1, M.plan.work_bytes ? M.plan.work_bytes : 1);
    if (!work)
        fail("rank %d: %s(): out of memory for %zu bytes of work", M.rank, fn,
             M.plan.work_bytes);
    return work;
}

static int coll_run(insee_mpi_comm *c, insee_coll_op op, uint8_t *work,
                    const insee_mpi_reduction *red)
{
    return run_plan(c, op, &M.plan, work, red);
}

static int check_root(const char *fn, const insee_mpi_comm *c, int root)
{
    int world = 0;
    return check_peer(fn, c, root, false, &world);
}

/* The bytes of `count` elements of `red`, in *bytes. */
static int check_reduction(const char *fn, const insee_mpi_reduction *red, size_t count,
                           size_t *bytes)
{
    if (!red || !red->fn || !red->elem_bytes)
        return fail("rank %d: %s(): the reduction needs a function and an element size", M.rank,
                    fn);
    if (count > SIZE_MAX / red->elem_bytes)
        return fail("rank %d: %s(): %zu elements of %zu bytes overflow", M.rank, fn, count,
                    red->elem_bytes);
    *bytes = count * red->elem_bytes;
    return 0;
}

int insee_mpi_coll_barrier(insee_mpi_comm *comm)
{
    insee_coll_args a = {.op = INSEE_COLL_BARRIER};
    uint8_t *work = coll_begin("insee_mpi_coll_barrier", comm, &a);
    int rc = work ? coll_run(comm, a.op, work, NULL) : -1;
    free(work);
    return rc;
}

int insee_mpi_coll_bcast(insee_mpi_comm *comm, void *buf, size_t bytes, int root)
{
    if (check_root("insee_mpi_coll_bcast", comm, root) < 0)
        return -1;
    insee_coll_args a = {.op = INSEE_COLL_BCAST, .root = root, .block = bytes};
    uint8_t *work = coll_begin("insee_mpi_coll_bcast", comm, &a);
    if (!work)
        return -1;
    if (comm->rank == root && bytes)
        memcpy(work, buf, bytes);
    int rc = coll_run(comm, a.op, work, NULL);
    if (rc == 0 && bytes)
        memcpy(buf, work, bytes);
    free(work);
    return rc;
}

/* REDUCE, ALLREDUCE_TREE, ALLREDUCE_DOUBLING or SCAN_LINEAR: work [b], in
   and out. */
static int reduction(const char *fn, insee_mpi_comm *comm, insee_coll_op op, const void *in,
                     void *out, size_t count, const insee_mpi_reduction *red, int root)
{
    size_t bytes = 0;
    if (check_reduction(fn, red, count, &bytes) < 0 ||
        (op == INSEE_COLL_REDUCE && check_root(fn, comm, root) < 0))
        return -1;
    insee_coll_args a = {.op = op, .root = root, .block = bytes};
    uint8_t *work = coll_begin(fn, comm, &a);
    if (!work)
        return -1;
    if (bytes)
        memcpy(work, in, bytes);
    int rc = coll_run(comm, op, work, red);
    if (rc == 0 && bytes && (op != INSEE_COLL_REDUCE || comm->rank == root))
        memcpy(out, work, bytes);
    free(work);
    return rc;
}

int insee_mpi_coll_reduce(insee_mpi_comm *comm, const void *in, void *out, size_t count,
                          const insee_mpi_reduction *red, int root)
{
    return reduction("insee_mpi_coll_reduce", comm, INSEE_COLL_REDUCE, in, out, count, red, root);
}

int insee_mpi_coll_allreduce(insee_mpi_comm *comm, const void *in, void *out, size_t count,
                             const insee_mpi_reduction *red)
{
    return reduction("insee_mpi_coll_allreduce", comm, INSEE_COLL_ALLREDUCE_DOUBLING, in, out,
                     count, red, 0);
}

int insee_mpi_coll_scan(insee_mpi_comm *comm, const void *in, void *out, size_t count,
                        const insee_mpi_reduction *red)
{
    return reduction("insee_mpi_coll_scan", comm, INSEE_COLL_SCAN_LINEAR, in, out, count, red, 0);
}

/* GATHER and SCATTER: n blocks in virtual-rank order, block i rank
   (i + root) % n's. */
static int rooted(const char *fn, insee_mpi_comm *comm, insee_coll_op op, const void *send,
                  void *recv, size_t bytes, int root)
{
    if (check_root(fn, comm, root) < 0)
        return -1;
    insee_coll_args a = {.op = op, .root = root, .block = bytes};
    uint8_t *work = coll_begin(fn, comm, &a);
    if (!work)
        return -1;
    int n = comm->size, vr = (comm->rank - root + n) % n;
    bool gather = op == INSEE_COLL_GATHER, at_root = comm->rank == root;
    if (gather)
        memcpy(work + (size_t)vr * bytes, send, bytes);
    else if (at_root)
        for (int i = 0; i < n; i++)
            memcpy(work + (size_t)i * bytes, (const uint8_t *)send + (size_t)((i + root) % n) * bytes,
                   bytes);
    int rc = coll_run(comm, op, work, NULL);
    if (rc == 0 && gather && at_root)
        for (int i = 0; i < n; i++)
            memcpy((uint8_t *)recv + (size_t)((i + root) % n) * bytes, work + (size_t)i * bytes,
                   bytes);
    else if (rc == 0 && !gather)
        memcpy(recv, work + (size_t)vr * bytes, bytes);
    free(work);
    return rc;
}

int insee_mpi_coll_gather(insee_mpi_comm *comm, const void *send, void *recv, size_t bytes,
                          int root)
{
    return rooted("insee_mpi_coll_gather", comm, INSEE_COLL_GATHER, send, recv, bytes, root);
}

int insee_mpi_coll_scatter(insee_mpi_comm *comm, const void *send, void *recv, size_t bytes,
                           int root)
{
    return rooted("insee_mpi_coll_scatter", comm, INSEE_COLL_SCATTER, send, recv, bytes, root);
}

int insee_mpi_coll_allgather(insee_mpi_comm *comm, const void *send, void *recv, size_t bytes)
{
    insee_coll_args a = {.op = INSEE_COLL_ALLGATHER_RING, .block = bytes};
    uint8_t *work = coll_begin("insee_mpi_coll_allgather", comm, &a);
    if (!work)
        return -1;
    size_t all = (size_t)comm->size * bytes;
    if (bytes)
        memcpy(work + (size_t)comm->rank * bytes, send, bytes);
    int rc = coll_run(comm, a.op, work, NULL);
    if (rc == 0 && all)
        memcpy(recv, work, all);
    free(work);
    return rc;
}

int insee_mpi_coll_alltoall(insee_mpi_comm *comm, const void *send, void *recv, size_t bytes,
                            insee_mpi_alltoall_algo algo)
{
    const char *fn = "insee_mpi_coll_alltoall";
    if (algo != INSEE_MPI_ALLTOALL_PAIRWISE && algo != INSEE_MPI_ALLTOALL_BRUCK)
        return fail("rank %d: %s(): unknown algorithm %d", M.rank, fn, (int)algo);
    bool bruck = algo == INSEE_MPI_ALLTOALL_BRUCK;
    insee_coll_args a = {.op = bruck ? INSEE_COLL_ALLTOALL_BRUCK : INSEE_COLL_ALLTOALL_PAIRWISE,
                         .block = bytes};
    uint8_t *work = coll_begin(fn, comm, &a);
    if (!work)
        return -1;
    int n = comm->size, me = comm->rank;
    const uint8_t *in = send;
    uint8_t *out = recv;
    size_t all = (size_t)n * bytes;
    /* Bruck's block i is for (and, at the end, from) the rank i ahead
       (behind); pairwise keeps rank order and leaves the own block to us. */
    for (int i = 0; bruck && bytes && i < n; i++)
        memcpy(work + (size_t)i * bytes, in + (size_t)((me + i) % n) * bytes, bytes);
    if (!bruck && bytes) {
        memcpy(work, in, all);
        memcpy(work + all + (size_t)me * bytes, in + (size_t)me * bytes, bytes);
    }
    int rc = coll_run(comm, a.op, work, NULL);
    for (int j = 0; rc == 0 && bruck && bytes && j < n; j++)
        memcpy(out + (size_t)j * bytes, work + (size_t)((me - j + n) % n) * bytes, bytes);
    if (rc == 0 && !bruck && bytes)
        memcpy(out, work + all, all);
    free(work);
    return rc;
}

/* The end of the farthest of n blocks. */
static size_t extent(int n, const size_t *bytes, const size_t *displ)
{
    size_t end = 0;
    for (int i = 0; i < n; i++)
        if (bytes[i] && displ[i] + bytes[i] > end)
            end = displ[i] + bytes[i];
    return end;
}

/* Copy n blocks (bytes[i] at displ[i]) from `from` + `from_at` to `to` +
   `to_at`, block `skip` aside. */
static void copy_blocks(int n, const size_t *bytes, const size_t *displ, int skip, uint8_t *to,
                        size_t to_at, const uint8_t *from, size_t from_at)
{
    for (int i = 0; i < n; i++)
        if (i != skip && bytes[i])
            memcpy(to + to_at + displ[i], from + from_at + displ[i], bytes[i]);
}

int insee_mpi_coll_alltoallv(insee_mpi_comm *comm, const void *send, const size_t *sbytes,
                             const size_t *sdispl, void *recv, const size_t *rbytes,
                             const size_t *rdispl)
{
    const char *fn = "insee_mpi_coll_alltoallv";
    if (check_comm(fn, comm) < 0)
        return -1;
    int n = comm->size, me = comm->rank;
    if (sbytes[me] != rbytes[me])
        return fail("rank %d: %s(): it sends itself %zu bytes but receives %zu", M.rank, fn,
                    sbytes[me], rbytes[me]);
    /* Work: the send layout, then the receive layout. */
    size_t base = extent(n, sbytes, sdispl);
    size_t *roff = malloc(sizeof *roff * (size_t)n);
    if (!roff)
        return fail("rank %d: %s(): out of memory", M.rank, fn);
    for (int i = 0; i < n; i++)
        roff[i] = base + rdispl[i];
    insee_coll_args a = {.op = INSEE_COLL_ALLTOALLV_PAIRWISE, .send_bytes = sbytes,
                         .send_offsets = sdispl, .recv_bytes = rbytes, .recv_offsets = roff};
    uint8_t *work = coll_begin(fn, comm, &a);
    int rc = -1;
    if (work) {
        copy_blocks(n, sbytes, sdispl, -1, work, 0, send, 0);
        if (rbytes[me])
            memcpy((uint8_t *)recv + rdispl[me], (const uint8_t *)send + sdispl[me], rbytes[me]);
        rc = coll_run(comm, a.op, work, NULL);
        if (rc == 0)
            copy_blocks(n, rbytes, rdispl, me, recv, 0, work, base);
    }
    free(work);
    free(roff);
    return rc;
}

int insee_mpi_coll_reduce_scatter(insee_mpi_comm *comm, const void *in, void *out,
                                  size_t count_per_rank, const insee_mpi_reduction *red)
{
    const char *fn = "insee_mpi_coll_reduce_scatter";
    size_t bytes = 0;
    if (check_comm(fn, comm) < 0 || check_reduction(fn, red, count_per_rank, &bytes) < 0)
        return -1;
    insee_coll_args a = {.op = INSEE_COLL_REDUCE_SCATTER_PAIRWISE, .block = bytes};
    uint8_t *work = coll_begin(fn, comm, &a);
    if (!work)
        return -1;
    size_t all = (size_t)comm->size * bytes;
    if (bytes) {
        memcpy(work, in, all);
        memcpy(work + all, work + (size_t)comm->rank * bytes, bytes);
    }
    int rc = coll_run(comm, a.op, work, red);
    if (rc == 0 && bytes)
        memcpy(out, work + all, bytes);
    free(work);
    return rc;
}

int insee_mpi_coll_gatherv(insee_mpi_comm *comm, const void *send, size_t sbytes, void *recv,
                           const size_t *rbytes, const size_t *rdispl, int root)
{
    const char *fn = "insee_mpi_coll_gatherv";
    if (check_root(fn, comm, root) < 0)
        return -1;
    bool at_root = comm->rank == root;
    if (at_root && sbytes != rbytes[root])
        return fail("rank %d: %s(): the root sends itself %zu bytes but receives %zu", M.rank,
                    fn, sbytes, rbytes[root]);
    insee_coll_args a = {.op = INSEE_COLL_GATHERV_LINEAR, .root = root, .block = sbytes,
                         .recv_bytes = at_root ? rbytes : NULL,
                         .recv_offsets = at_root ? rdispl : NULL};
    uint8_t *work = coll_begin(fn, comm, &a);
    if (!work)
        return -1;
    if (sbytes)
        memcpy(work + (at_root ? rdispl[root] : 0), send, sbytes);
    int rc = coll_run(comm, a.op, work, NULL);
    if (rc == 0 && at_root)
        copy_blocks(comm->size, rbytes, rdispl, -1, recv, 0, work, 0);
    free(work);
    return rc;
}

int insee_mpi_coll_scatterv(insee_mpi_comm *comm, const void *send, const size_t *sbytes,
                            const size_t *sdispl, void *recv, size_t rbytes, int root)
{
    const char *fn = "insee_mpi_coll_scatterv";
    if (check_root(fn, comm, root) < 0)
        return -1;
    bool at_root = comm->rank == root;
    if (at_root && sbytes[root] != rbytes)
        return fail("rank %d: %s(): the root sends itself %zu bytes but receives %zu", M.rank,
                    fn, sbytes[root], rbytes);
    insee_coll_args a = {.op = INSEE_COLL_SCATTERV_LINEAR, .root = root, .block = rbytes,
                         .send_bytes = at_root ? sbytes : NULL,
                         .send_offsets = at_root ? sdispl : NULL};
    uint8_t *work = coll_begin(fn, comm, &a);
    if (!work)
        return -1;
    if (at_root)
        copy_blocks(comm->size, sbytes, sdispl, -1, work, 0, send, 0);
    int rc = coll_run(comm, a.op, work, NULL);
    if (rc == 0 && rbytes)
        memcpy(recv, work + (at_root ? sdispl[root] : 0), rbytes);
    free(work);
    return rc;
}

int insee_mpi_coll_allgatherv(insee_mpi_comm *comm, const void *send, size_t sbytes,
                              void *recv, const size_t *rbytes, const size_t *rdispl)
{
    const char *fn = "insee_mpi_coll_allgatherv";
    if (check_comm(fn, comm) < 0)
        return -1;
    if (sbytes != rbytes[comm->rank])
        return fail("rank %d: %s(): it sends %zu bytes but its block is %zu", M.rank, fn,
                    sbytes, rbytes[comm->rank]);
    insee_coll_args a = {.op = INSEE_COLL_ALLGATHERV_RING, .block = sbytes,
                         .recv_bytes = rbytes, .recv_offsets = rdispl};
    uint8_t *work = coll_begin(fn, comm, &a);
    if (!work)
        return -1;
    if (sbytes)
        memcpy(work + rdispl[comm->rank], send, sbytes);
    int rc = coll_run(comm, a.op, work, NULL);
    if (rc == 0)
        copy_blocks(comm->size, rbytes, rdispl, -1, recv, 0, work, 0);
    free(work);
    return rc;
}

insee_mpi_comm *insee_mpi_comm_world(void)
{
    return &M.world;
}

int insee_mpi_comm_rank(const insee_mpi_comm *comm)
{
    return comm ? comm->rank : -1;
}

int insee_mpi_comm_size(const insee_mpi_comm *comm)
{
    return comm ? comm->size : -1;
}

int insee_mpi_comm_world_rank(const insee_mpi_comm *comm, int rank)
{
    return comm && rank >= 0 && rank < comm->size ? comm->world[rank] : -1;
}

/* What each rank of the parent says in a split. */
typedef struct split_entry {
    int32_t color, key;
    uint32_t next_ctx;
} split_entry;

/* The new communicator's members: the parent's ranks of `color`, by key,
   ties by parent rank. */
static int by_key(const void *a, const void *b)
{
    const int32_t *x = a, *y = b; /* key, parent rank */
    return x[0] != y[0] ? (x[0] < y[0] ? -1 : 1) : (x[1] > y[1]) - (x[1] < y[1]);
}

int insee_mpi_comm_split(insee_mpi_comm *comm, int color, int key, insee_mpi_comm **out)
{
    const char *fn = "insee_mpi_comm_split";
    *out = NULL;
    if (check_comm(fn, comm) < 0)
        return -1;
    if (color < 0 && color != INSEE_MPI_UNDEFINED)
        return fail("rank %d: %s(): color %d is negative", M.rank, fn, color);
    int n = comm->size;
    split_entry mine = {.color = color, .key = key, .next_ctx = M.next_ctx};
    split_entry *all = malloc(sizeof *all * (size_t)n);
    int32_t *members = malloc(sizeof *members * 2 * (size_t)n);
    insee_mpi_comm *c = calloc(1, sizeof *c);
    int rc = all && members && c ? 0 : fail("rank %d: %s(): out of memory", M.rank, fn);
    if (rc == 0)
        rc = insee_mpi_coll_allgather(comm, &mine, all, sizeof mine);
    /* A context above every one any member holds: each of them takes it. */
    uint32_t ctx = 0;
    int size = 0;
    for (int r = 0; rc == 0 && r < n; r++) {
        ctx = all[r].next_ctx > ctx ? all[r].next_ctx : ctx;
        if (all[r].color == color && color != INSEE_MPI_UNDEFINED) {
            members[2 * size] = all[r].key;
            members[2 * size++ + 1] = r;
        }
    }
    if (rc == 0)
        M.next_ctx = ctx + 1;
    if (rc == 0 && color != INSEE_MPI_UNDEFINED) {
        qsort(members, (size_t)size, 2 * sizeof *members, by_key);
        *c = (insee_mpi_comm){.ctx = ctx, .size = size,
                              .world = malloc(sizeof *c->world * (size_t)size),
                              .of_world = malloc(sizeof *c->of_world * (size_t)M.size)};
        if (!c->world || !c->of_world)
            rc = fail("rank %d: %s(): out of memory", M.rank, fn);
        for (int w = 0; rc == 0 && w < M.size; w++)
            c->of_world[w] = -1;
        for (int i = 0; rc == 0 && i < size; i++) {
            c->world[i] = comm->world[members[2 * i + 1]];
            c->of_world[c->world[i]] = i;
        }
        if (rc == 0) {
            c->rank = c->of_world[M.rank];
            *out = c;
            c = NULL;
        }
    }
    if (c) {
        free(c->world);
        free(c->of_world);
        free(c);
    }
    free(all);
    free(members);
    return rc;
}

int insee_mpi_comm_dup(insee_mpi_comm *comm, insee_mpi_comm **out)
{
    *out = NULL;
    return check_comm("insee_mpi_comm_dup", comm) < 0
               ? -1
               : insee_mpi_comm_split(comm, 0, comm->rank, out);
}

int insee_mpi_comm_free(insee_mpi_comm **comm)
{
    insee_mpi_comm *c = comm ? *comm : NULL;
    if (!c || c == &M.world)
        return fail("rank %d: insee_mpi_comm_free(): %s", M.rank,
                    c ? "the world is not freed" : "no communicator");
    for (const insee_mpi_request *r = M.posted; r; r = r->next)
        if (r->comm == c)
            return fail("rank %d: insee_mpi_comm_free(): a receive on it is still posted; wait "
                        "for it first", M.rank);
    for (msg **p = &M.unexpected; *p;) {
        msg *m = *p;
        if (m->ctx == c->ctx) {
            *p = m->next;
            free(m);
        } else {
            p = &m->next;
        }
    }
    free(c->world);
    free(c->of_world);
    free(c);
    *comm = NULL;
    return 0;
}

int insee_mpi_barrier(void)
{
    return insee_mpi_coll_barrier(&M.world);
}

int insee_mpi_bcast(void *buf, size_t bytes, int root)
{
    return insee_mpi_coll_bcast(&M.world, buf, bytes, root);
}

static void add(void *acc, const void *more, size_t count, void *user)
{
    insee_mpi_type type = *(const insee_mpi_type *)user;
    for (size_t i = 0; i < count; i++)
        if (type == INSEE_MPI_DOUBLE)
            ((double *)acc)[i] += ((const double *)more)[i];
        else
            ((int64_t *)acc)[i] += ((const int64_t *)more)[i];
}

static int sum(const char *fn, insee_coll_op op, const void *in, void *out, size_t count,
               insee_mpi_type type, int root)
{
    if (type != INSEE_MPI_DOUBLE && type != INSEE_MPI_INT64)
        return fail("rank %d: %s(): unknown type %d", M.rank, fn, (int)type);
    insee_mpi_reduction red = {.elem_bytes = 8, .fn = add, .user = &type};
    return reduction(fn, &M.world, op, in, out, count, &red, root);
}

int insee_mpi_reduce(const void *in, void *out, size_t count, insee_mpi_type type, int root)
{
    return sum("insee_mpi_reduce", INSEE_COLL_REDUCE, in, out, count, type, root);
}

int insee_mpi_allreduce(const void *in, void *out, size_t count, insee_mpi_type type)
{
    return sum("insee_mpi_allreduce", INSEE_COLL_ALLREDUCE_TREE, in, out, count, type, 0);
}

int insee_mpi_finalize(void)
{
    if (!M.c)
        return fail("insee_mpi_finalize() without insee_mpi_init()");
    uint64_t at = M.clock;
    /* The running slice's messages reach the network only with its end. */
    int rc = catch_up() < 0 || end_slice() < 0 ? -1 : 0;
    if (rc == 0)
        rc = report("finalize %d %llu %llu %llu\n", M.rank, (unsigned long long)at,
                    (unsigned long long)M.sent, (unsigned long long)M.got);
    insee_client_close(M.c);
    M.c = NULL;
    if (M.trace && (ferror(M.trace) | fclose(M.trace)) && rc == 0)
        rc = fail("rank %d: its trace could not be written: %s", M.rank, strerror(errno));
    M.trace = NULL;
    for (msg *lists[2] = {M.unexpected, M.held}, **l = lists; l < lists + 2; l++)
        for (msg *m = *l, *next; m; m = next) {
            next = m->next;
            free(m);
        }
    for (insee_mpi_request *r = M.posted, *next; r; r = next) {
        next = r->next;
        free(r);
    }
    free(M.send_seq);
    free(M.recv_seq);
    free(M.node);
    free(M.world.world);
    free(M.world.of_world);
    insee_coll_plan_clear(&M.plan);
    M.unexpected = M.held = NULL;
    M.posted = NULL;
    M.send_seq = M.recv_seq = NULL;
    M.node = NULL;
    M.world = (insee_mpi_comm){0};
    return rc;
}
