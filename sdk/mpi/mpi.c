/* sdk/mpi/mpi.c — libinsee-mpi (contract in insee/mpi.h, time model in
 * docs/mpi.md). One rank per process, so the state is the process's. */
#include <insee/client.h>
#include <insee/mpi.h>

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Tags of the collectives: negative, so INSEE_MPI_ANY_TAG never takes them. */
enum { TAG_BARRIER = -2, TAG_BCAST = -3, TAG_REDUCE = -4 };

/* Every payload starts with this envelope (same host, native byte order);
   the simulated message length is the user's bytes alone. */
typedef struct envelope {
    int32_t tag;
    uint32_t seq; /* per (source, destination): restores the send order */
} envelope;

typedef struct msg {
    struct msg *next;
    int src, tag;
    uint32_t seq;
    uint64_t time; /* the slice start at which it was handed over */
    size_t len;
    uint8_t data[];
} msg;

struct insee_mpi_request {
    insee_mpi_request *next; /* posted receives, in posting order */
    bool recv, done, too_long;
    void *buf;
    size_t cap;
    int src, tag;
    insee_mpi_status st;
};

static struct {
    insee_client *c;
    int rank, size, report_fd;
    uint64_t clock;
    insee_client_slice slice;
    uint32_t *send_seq, *recv_seq;
    msg *unexpected, *held;      /* arrived and unmatched; arrived ahead of its turn */
    insee_mpi_request *posted;
    uint64_t sent, got;          /* messages injected, and handed over to this rank */
    char err[600];
} M = {.report_fd = -1};

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(M.err, sizeof M.err, fmt, ap);
    va_end(ap);
    return -1;
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

uint64_t insee_mpi_wtime(void)
{
    return M.clock;
}

static bool matches(int want_src, int want_tag, int src, int tag)
{
    return (want_src == INSEE_MPI_ANY_SOURCE || want_src == src) &&
           (want_tag == INSEE_MPI_ANY_TAG ? tag >= 0 : want_tag == tag);
}

static void complete(insee_mpi_request *r, const msg *m)
{
    r->done = true;
    r->too_long = m->len > r->cap;
    if (!r->too_long && m->len)
        memcpy(r->buf, m->data, m->len);
    r->st = (insee_mpi_status){.source = m->src, .tag = m->tag, .bytes = m->len,
                               .time = m->time};
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
        if (matches(r->src, r->tag, m->src, m->tag)) {
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
    if (d->payload_len < sizeof e || d->src >= (uint32_t)M.size)
        return fail("rank %d: a message from node %u without an insee-mpi envelope", M.rank,
                    d->src);
    msg *m = malloc(sizeof *m + d->payload_len - sizeof e);
    if (!m)
        return fail("rank %d: out of memory for a message of %u bytes", M.rank, d->payload_len);
    memcpy(&e, d->payload, sizeof e);
    M.got++;
    m->src = (int)d->src;
    m->tag = e.tag;
    m->seq = e.seq;
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
    if (!M.send_seq || !M.recv_seq)
        return fail("insee_mpi_init(): out of memory for %ld ranks", size);
    char name[32];
    snprintf(name, sizeof name, "rank %d", M.rank);
    uint32_t node = (uint32_t)rank;
    insee_client_error e;
    M.c = insee_client_connect(address, name, &node, 1, &e);
    if (!M.c)
        return fail("rank %d: %s", M.rank, e.message);
    if (insee_client_get_info(M.c)->nodes < (uint32_t)size)
        return fail("rank %d: the bridge serves %u nodes, fewer than the %d ranks", M.rank,
                    insee_client_get_info(M.c)->nodes, M.size);
    return end_slice();
}

int insee_mpi_compute(uint64_t units)
{
    if (units > UINT64_MAX - M.clock)
        return fail("rank %d: insee_mpi_compute(%llu) overflows the clock", M.rank,
                    (unsigned long long)units);
    M.clock += units;
    return 0;
}

static int check_peer(const char *fn, int peer, bool any)
{
    if ((peer >= 0 && peer < M.size) || (any && peer == INSEE_MPI_ANY_SOURCE))
        return 0;
    return fail("rank %d: %s(): rank %d is not in 0..%d", M.rank, fn, peer, M.size - 1);
}

/* Send without the user-tag check (collectives use negative tags). */
static int post_send(const void *buf, size_t bytes, int dest, int tag)
{
    if (bytes > INSEE_CLIENT_MAX_PAYLOAD - sizeof(envelope))
        return fail("rank %d: a message of %zu bytes is longer than the %zu bytes a message "
                    "may carry", M.rank, bytes, INSEE_CLIENT_MAX_PAYLOAD - sizeof(envelope));
    if (catch_up() < 0)
        return -1;
    envelope e = {.tag = tag, .seq = M.send_seq[dest]};
    uint8_t *p = malloc(sizeof e + bytes);
    if (!p)
        return fail("rank %d: out of memory for a message of %zu bytes", M.rank, bytes);
    memcpy(p, &e, sizeof e);
    if (bytes)
        memcpy(p + sizeof e, buf, bytes);
    insee_client_error err;
    bool ok = insee_client_inject(M.c, (uint32_t)M.rank, (uint32_t)dest, bytes, M.clock, e.seq, p,
                                  (uint32_t)(sizeof e + bytes), &err);
    free(p);
    if (!ok)
        return fail("rank %d: %s", M.rank, err.message);
    M.send_seq[dest]++;
    M.sent++;
    return 0;
}

int insee_mpi_isend(const void *buf, size_t bytes, int dest, int tag, insee_mpi_request **req)
{
    *req = NULL;
    if (check_peer("insee_mpi_isend", dest, false) < 0)
        return -1;
    if (tag < 0)
        return fail("rank %d: insee_mpi_isend(): tag %d is negative", M.rank, tag);
    insee_mpi_request *r = calloc(1, sizeof *r);
    if (!r)
        return fail("rank %d: out of memory for a request", M.rank);
    if (post_send(buf, bytes, dest, tag) < 0) {
        free(r);
        return -1;
    }
    r->done = true;
    r->st = (insee_mpi_status){.source = M.rank, .tag = tag, .bytes = bytes, .time = M.clock};
    *req = r;
    return 0;
}

static int post_recv(void *buf, size_t cap, int source, int tag, insee_mpi_request **req)
{
    insee_mpi_request *r = calloc(1, sizeof *r);
    if (!r)
        return fail("rank %d: out of memory for a request", M.rank);
    *r = (insee_mpi_request){.recv = true, .buf = buf, .cap = cap, .src = source, .tag = tag};
    *req = r;
    for (msg **p = &M.unexpected; *p; p = &(*p)->next) {
        msg *m = *p;
        if (matches(source, tag, m->src, m->tag)) {
            *p = m->next;
            complete(r, m);
            free(m);
            return 0;
        }
    }
    insee_mpi_request **end = &M.posted;
    while (*end)
        end = &(*end)->next;
    *end = r;
    return 0;
}

int insee_mpi_irecv(void *buf, size_t capacity, int source, int tag, insee_mpi_request **req)
{
    *req = NULL;
    if (check_peer("insee_mpi_irecv", source, true) < 0)
        return -1;
    if (tag < 0 && tag != INSEE_MPI_ANY_TAG)
        return fail("rank %d: insee_mpi_irecv(): tag %d is negative", M.rank, tag);
    return post_recv(buf, capacity, source, tag, req);
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

/* "wait RANK SENT GOT what it waits for" before a receive blocks. */
static int report_wait(const insee_mpi_request *r)
{
    char from[32], tag[32];
    snprintf(from, sizeof from, r->src < 0 ? "any rank" : "rank %d", r->src);
    snprintf(tag, sizeof tag, r->tag < 0 ? "any tag" : "tag %d", r->tag);
    return report("wait %d %llu %llu a message from %s (%s)\n", M.rank,
                  (unsigned long long)M.sent, (unsigned long long)M.got, from, tag);
}

int insee_mpi_wait(insee_mpi_request **req, insee_mpi_status *status)
{
    insee_mpi_request *r = *req;
    if (!r)
        return fail("rank %d: insee_mpi_wait() on no request", M.rank);
    /* Take what was handed over up to the clock; then wait slice by slice,
       the clock following the slice starts, until the message is there. */
    int rc = catch_up();
    bool blocked = rc == 0 && !r->done;
    if (blocked)
        rc = report_wait(r);
    while (rc == 0 && !r->done) {
        uint64_t got = M.got;
        rc = end_slice();
        if (rc == 0 && M.slice.start_unit > M.clock)
            M.clock = M.slice.start_unit;
        /* A message that is not the awaited one: still waiting, with one
           more handed over (the launcher balances sends against these). */
        if (rc == 0 && !r->done && M.got != got)
            rc = report_wait(r);
    }
    if (rc == 0 && blocked)
        rc = report("run %d\n", M.rank);
    if (rc < 0)
        return -1;
    if (r->st.time > M.clock)
        M.clock = r->st.time;
    r->st.time = M.clock;
    if (status)
        *status = r->st;
    insee_mpi_request done = *r;
    *req = NULL;
    free(r);
    if (done.too_long)
        return fail("rank %d: a message of %zu bytes from rank %d (tag %d) does not fit the "
                    "receive buffer of %zu bytes", M.rank, done.st.bytes, done.st.source,
                    done.st.tag, done.cap);
    return 0;
}

int insee_mpi_waitall(size_t n, insee_mpi_request **reqs, insee_mpi_status *statuses)
{
    for (size_t i = 0; i < n; i++)
        if (insee_mpi_wait(&reqs[i], statuses ? &statuses[i] : NULL) < 0)
            return -1;
    return 0;
}

int insee_mpi_send(const void *buf, size_t bytes, int dest, int tag)
{
    insee_mpi_request *r;
    return insee_mpi_isend(buf, bytes, dest, tag, &r) < 0 ? -1 : insee_mpi_wait(&r, NULL);
}

int insee_mpi_recv(void *buf, size_t capacity, int source, int tag, insee_mpi_status *status)
{
    insee_mpi_request *r;
    return insee_mpi_irecv(buf, capacity, source, tag, &r) < 0 ? -1 : insee_mpi_wait(&r, status);
}

/* Blocking receive of exactly `bytes` for the collectives. */
static int coll_recv(void *buf, size_t bytes, int source, int tag)
{
    insee_mpi_request *r;
    insee_mpi_status st;
    if (post_recv(buf, bytes, source, tag, &r) < 0 || insee_mpi_wait(&r, &st) < 0)
        return -1;
    if (st.bytes != bytes)
        return fail("rank %d: a collective got %zu bytes from rank %d where %zu were due; do "
                    "all ranks call the same collectives with the same sizes?", M.rank, st.bytes,
                    source, bytes);
    return 0;
}

/* Dissemination: in round k every rank signals rank + 2^k and waits for
   rank - 2^k; ceil(log2 size) rounds. */
int insee_mpi_barrier(void)
{
    for (int k = 1; k < M.size; k <<= 1)
        if (post_send(NULL, 0, (M.rank + k) % M.size, TAG_BARRIER) < 0 ||
            coll_recv(NULL, 0, (M.rank - k + M.size) % M.size, TAG_BARRIER) < 0)
            return -1;
    return 0;
}

/* Binomial tree rooted at `root`, ranks renumbered relative to it. */
static int tree_bcast(void *buf, size_t bytes, int root, int tag)
{
    int vr = (M.rank - root + M.size) % M.size, mask = 1;
    for (; mask < M.size; mask <<= 1)
        if (vr & mask) {
            if (coll_recv(buf, bytes, (vr - mask + root) % M.size, tag) < 0)
                return -1;
            break;
        }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (vr + mask < M.size && post_send(buf, bytes, (vr + mask + root) % M.size, tag) < 0)
            return -1;
    return 0;
}

int insee_mpi_bcast(void *buf, size_t bytes, int root)
{
    if (check_peer("insee_mpi_bcast", root, false) < 0)
        return -1;
    return tree_bcast(buf, bytes, root, TAG_BCAST);
}

static void add(void *acc, const void *more, size_t count, insee_mpi_type type)
{
    for (size_t i = 0; i < count; i++)
        if (type == INSEE_MPI_DOUBLE)
            ((double *)acc)[i] += ((const double *)more)[i];
        else
            ((int64_t *)acc)[i] += ((const int64_t *)more)[i];
}

/* Binomial tree towards `root`: a rank adds its children's partial sums in
   increasing distance, then sends its own to its parent. */
int insee_mpi_reduce(const void *in, void *out, size_t count, insee_mpi_type type, int root)
{
    if (check_peer("insee_mpi_reduce", root, false) < 0)
        return -1;
    if (type != INSEE_MPI_DOUBLE && type != INSEE_MPI_INT64)
        return fail("rank %d: insee_mpi_reduce(): unknown type %d", M.rank, (int)type);
    size_t bytes = count * 8;
    uint8_t *acc = malloc(bytes ? bytes : 1), *more = malloc(bytes ? bytes : 1);
    int rc = acc && more ? 0 : fail("rank %d: out of memory for a reduction", M.rank);
    if (rc == 0 && bytes)
        memcpy(acc, in, bytes);
    int vr = (M.rank - root + M.size) % M.size;
    for (int mask = 1; rc == 0 && mask < M.size; mask <<= 1) {
        if (vr & mask) {
            rc = post_send(acc, bytes, (vr - mask + root) % M.size, TAG_REDUCE);
            break;
        }
        if (vr + mask < M.size) {
            rc = coll_recv(more, bytes, (vr + mask + root) % M.size, TAG_REDUCE);
            if (rc == 0)
                add(acc, more, count, type);
        }
    }
    if (rc == 0 && vr == 0 && bytes)
        memcpy(out, acc, bytes);
    free(acc);
    free(more);
    return rc;
}

int insee_mpi_allreduce(const void *in, void *out, size_t count, insee_mpi_type type)
{
    if (insee_mpi_reduce(in, out, count, type, 0) < 0)
        return -1;
    return tree_bcast(out, count * 8, 0, TAG_BCAST);
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
    M.unexpected = M.held = NULL;
    M.posted = NULL;
    M.send_seq = M.recv_seq = NULL;
    return rc;
}
