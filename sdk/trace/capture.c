/* libinsee-trace's core: the rank's part of the trace, compute time between
 * MPI calls, the communicators' records, and at MPI_Finalize the merge of
 * every rank's part into one FSIN trace (docs/trace-capture.md). */
#define _GNU_SOURCE /* strdup, clock_gettime */
#include "capture.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

cap_state cap;

enum compute_mode { COMPUTE_WALL, COMPUTE_CPU, COMPUTE_NONE };

/* Per-rank counters, gathered by rank 0 for the trace's header. */
enum { N_CALLS, N_SENT, N_SENT_BYTES, N_RECEIVED, N_RECEIVED_BYTES, N_COMPUTES, N_COUNTERS };

static struct {
    char *out;          /* the trace's final name */
    char *part;         /* this rank's part */
    FILE *file;         /* NULL once the capture failed or ended */
    char why[256];      /* why the capture failed, "" while it has not */
    enum compute_mode mode;
    double scale;
    double left_ns;     /* when the last MPI call returned */
    double carried;     /* compute units not written yet (a fraction) */
    uint64_t counters[N_COUNTERS];
    uint64_t calls[CAP_CALLS];
    cap_comm_rec *comms;
    uint64_t next_id;   /* above every id of this rank's communicators */
} st;

#define CAP_NAME_CALL(name) #name,
#define CAP_NAME_PROBLEM(id, text) text,
static const char *const call_names[CAP_CALLS] = {
    CAP_SUPPORTED(CAP_NAME_CALL) "",
#define X(group, name, params, args) #name " (" #group ")",
#include "unsupported.def"
#undef X
    "", CAP_PROBLEMS(CAP_NAME_PROBLEM)};

static void fail(const char *what, const char *path)
{
    if (!st.why[0])
        snprintf(st.why, sizeof st.why, "rank %d: %s '%s': %s", cap.rank, what, path,
                 strerror(errno));
}

static double clock_ns(void)
{
    struct timespec t;
    clock_gettime(st.mode == COMPUTE_CPU ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* One event line: its letter and n numbers. By hand rather than fprintf,
   which was a third of a traced ping-pong's time. */
static void write_event(char kind, int n, const uint64_t *v)
{
    char line[4 + 5 * 21], *p = line;
    *p++ = kind;
    for (int i = 0; i < n; i++) {
        char digits[20];
        int k = 0;
        uint64_t x = v[i];
        do
            digits[k++] = (char)('0' + x % 10);
        while ((x /= 10) > 0);
        *p++ = ' ';
        while (k > 0)
            *p++ = digits[--k];
    }
    *p++ = '\n';
    fwrite(line, 1, (size_t)(p - line), st.file);
}

void cap_enter(cap_call call)
{
    if (!cap.on)
        return;
    st.calls[call]++;
    st.counters[N_CALLS]++;
    if (st.mode == COMPUTE_NONE || !st.file)
        return;
    /* the fractions of a unit carry over, so that the computes add up to
       the time measured, within one unit */
    st.carried += (clock_ns() - st.left_ns) * st.scale;
    double units = floor(st.carried);
    if (units >= 1) {
        write_event('c', 2, (uint64_t[]){(uint64_t)cap.rank,
                                         units < 0x1p64 ? (uint64_t)units : UINT64_MAX});
        st.counters[N_COMPUTES]++;
        st.carried -= units;
    }
}

void cap_leave(void)
{
    if (cap.on && st.mode != COMPUTE_NONE)
        st.left_ns = clock_ns();
}

void cap_problem(cap_call problem)
{
    if (cap.on)
        st.calls[problem]++;
}

void cap_message(bool send, int peer, uint64_t tag, uint64_t bytes)
{
    if (!cap.on || peer < 0)
        return;
    st.counters[send ? N_SENT : N_RECEIVED]++;
    st.counters[send ? N_SENT_BYTES : N_RECEIVED_BYTES] += bytes;
    if (st.file)
        write_event(send ? 's' : 'r', 4,
                    (uint64_t[]){(uint64_t)(send ? cap.rank : peer),
                                 (uint64_t)(send ? peer : cap.rank), tag, bytes});
}

void cap_recv_status(const cap_comm_rec *c, const MPI_Status *status)
{
    if (!cap.on || status->MPI_SOURCE == MPI_PROC_NULL)
        return;
    int cancelled = 0, bytes = 0;
    PMPI_Test_cancelled(status, &cancelled);
    if (cancelled)
        return;
    if (!c) {
        cap_problem(C_P_UNKNOWN_COMM);
        return;
    }
    PMPI_Get_count(status, MPI_BYTE, &bytes);
    cap_message(false, cap_world_peer(c, status->MPI_SOURCE), cap_p2p_tag(c, status->MPI_TAG),
                (uint64_t)bytes);
}

uint64_t cap_bytes(int count, MPI_Datatype type)
{
    int size = 0;
    if (count <= 0 || type == MPI_DATATYPE_NULL)
        return 0;
    PMPI_Type_size(type, &size);
    return (uint64_t)count * (uint64_t)size;
}

uint64_t cap_p2p_tag(const cap_comm_rec *c, int tag)
{
    return c->id << 32 | (uint32_t)tag;
}

/* ---- communicators ---- */

cap_comm_rec *cap_comm(MPI_Comm comm)
{
    for (cap_comm_rec *c = st.comms; c; c = c->next)
        if (c->comm == comm)
            return c;
    return NULL;
}

int cap_world_peer(const cap_comm_rec *c, int rank)
{
    int n = c->inter ? c->remote_size : c->size;
    const int *map = c->inter ? c->remote : c->world;
    return rank >= 0 && rank < n ? map[rank] : -1;
}

/* The world ranks of `group`'s members, in its rank order. */
static int *world_ranks(MPI_Group group, int *n)
{
    MPI_Group world;
    PMPI_Group_size(group, n);
    int *from = malloc(sizeof *from * (size_t)*n), *to = malloc(sizeof *to * (size_t)*n);
    if (!from || !to) {
        free(from), free(to);
        return NULL;
    }
    for (int i = 0; i < *n; i++)
        from[i] = i;
    PMPI_Comm_group(MPI_COMM_WORLD, &world);
    PMPI_Group_translate_ranks(group, *n, from, world, to);
    PMPI_Group_free(&world);
    free(from);
    return to;
}

static void add_comm(MPI_Comm comm, uint64_t id)
{
    cap_comm_rec *c = calloc(1, sizeof *c);
    MPI_Group group;
    int inter = 0;
    if (!c)
        return;
    PMPI_Comm_test_inter(comm, &inter);
    PMPI_Comm_group(comm, &group);
    c->world = world_ranks(group, &c->size);
    PMPI_Group_free(&group);
    if (inter) {
        PMPI_Comm_remote_group(comm, &group);
        c->remote = world_ranks(group, &c->remote_size);
        PMPI_Group_free(&group);
    }
    if (!c->world || (inter && !c->remote)) {
        free(c->world), free(c->remote), free(c);
        return;
    }
    c->comm = comm, c->id = id, c->inter = inter, c->refs = 1;
    c->next = st.comms, st.comms = c;
    if (id >= st.next_id)
        st.next_id = id + 1;
}

/* Every member proposes the id above its own communicators' and takes the
   largest proposal: so no two communicators of one member share an id, and
   a pair of ranks tells its messages on different communicators apart. An
   intercommunicator's allreduce gives each group the other's largest, and a
   second one gives each group its own. */
void cap_comm_created(MPI_Comm comm)
{
    if (!cap.on || comm == MPI_COMM_NULL)
        return;
    uint64_t mine = st.next_id, other = 0, own = 0;
    int inter = 0;
    PMPI_Allreduce(&mine, &other, 1, MPI_UINT64_T, MPI_MAX, comm);
    PMPI_Comm_test_inter(comm, &inter);
    if (inter)
        PMPI_Allreduce(&other, &own, 1, MPI_UINT64_T, MPI_MAX, comm);
    add_comm(comm, other > own ? other : own);
}

void cap_comm_hold(cap_comm_rec *c)
{
    if (c)
        c->refs++;
}

void cap_comm_release(cap_comm_rec *c)
{
    if (!c || --c->refs > 0)
        return;
    for (cap_comm_rec **p = &st.comms; *p; p = &(*p)->next)
        if (*p == c) {
            *p = c->next;
            break;
        }
    free(c->world), free(c->remote), free(c);
}

void cap_comm_freed(MPI_Comm comm)
{
    cap_comm_rec *c = cap_comm(comm);
    if (c && c->id > 1) {
        c->comm = MPI_COMM_NULL;
        cap_comm_release(c);
    }
}

/* ---- start ---- */

static void configure(void)
{
    const char *out = getenv("INSEE_TRACE_OUT"), *mode = getenv("INSEE_TRACE_COMPUTE"),
               *scale = getenv("INSEE_TRACE_SCALE"), *alltoall = getenv("INSEE_MPI_ALLTOALL");
    st.scale = 1;
    if (mode && !strcmp(mode, "cpu"))
        st.mode = COMPUTE_CPU;
    else if (mode && !strcmp(mode, "none"))
        st.mode = COMPUTE_NONE;
    else if (mode && *mode && strcmp(mode, "wall"))
        snprintf(st.why, sizeof st.why, "INSEE_TRACE_COMPUTE is '%s'; give wall, cpu or none",
                 mode);
    if (scale && *scale) {
        char *end;
        st.scale = strtod(scale, &end);
        if (*end || !(st.scale >= 0) || isinf(st.scale))
            snprintf(st.why, sizeof st.why,
                     "INSEE_TRACE_SCALE is '%s'; give a non-negative number", scale);
    }
    cap.bruck = alltoall && !strcmp(alltoall, "bruck");
    st.out = strdup(out && *out ? out : "insee-trace.fsin");
    size_t n = strlen(st.out) + 32;
    st.part = malloc(n);
    if (!st.out || !st.part) {
        snprintf(st.why, sizeof st.why, "out of memory");
        return;
    }
    snprintf(st.part, n, "%s.rank%d.part", st.out, cap.rank);
}

int cap_init(int rc)
{
    if (rc != MPI_SUCCESS)
        return rc;
    PMPI_Comm_rank(MPI_COMM_WORLD, &cap.rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &cap.size);
    configure();
    if (!st.why[0]) {
        st.file = fopen(st.part, "w");
        if (!st.file)
            fail("cannot write the trace's part", st.part);
        else
            setvbuf(st.file, NULL, _IOFBF, 1 << 20);
    }
    cap.on = true;
    st.next_id = 2;
    add_comm(MPI_COMM_WORLD, 0);
    add_comm(MPI_COMM_SELF, 1);
    cap_leave();
    return rc;
}

int MPI_Init(int *argc, char ***argv)
{
    return cap_init(PMPI_Init(argc, argv));
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = cap_init(PMPI_Init_thread(argc, argv, required, provided));
    if (rc == MPI_SUCCESS && *provided == MPI_THREAD_MULTIPLE)
        cap_problem(C_P_THREAD_MULTIPLE);
    return rc;
}

/* ---- the end: one trace from every rank's part ---- */

/* The program's command line, from /proc (the same as its argv). */
static void write_command(FILE *f)
{
    char buf[4096];
    FILE *in = fopen("/proc/self/cmdline", "r");
    size_t n = in ? fread(buf, 1, sizeof buf - 1, in) : 0;
    if (in)
        fclose(in);
    fputs("# program:", f);
    for (size_t i = 0; i < n; i += strlen(buf + i) + 1) {
        buf[n] = '\0';
        fprintf(f, " %s", buf + i);
    }
    fputc('\n', f);
}

static uint64_t unsupported_total(const uint64_t *calls)
{
    uint64_t n = 0;
    for (int i = CAP_FIRST_UNSUPPORTED + 1; i < CAP_CALLS; i++)
        n += i == CAP_FIRST_PROBLEM ? 0 : calls[i];
    return n;
}

/* A line `prefix label NAME COUNT, ...` of the calls in [from, to) that
   happened; none when none did. */
static void write_calls(FILE *f, const char *prefix, const char *label, const uint64_t *calls,
                        int from, int to)
{
    bool any = false;
    for (int i = from; i < to; i++)
        if (calls[i] && call_names[i][0]) {
            if (!any)
                fprintf(f, "%s%s", prefix, label);
            fprintf(f, "%s%s %" PRIu64, any ? ", " : "", call_names[i], calls[i]);
            any = true;
        }
    if (any)
        fputc('\n', f);
}

/* Whether the trace is complete, and if not the calls that made it so:
   lines starting with `prefix`, in the header and on stderr alike. */
static void write_status(FILE *f, const char *prefix, const uint64_t *calls)
{
    uint64_t bad = unsupported_total(calls);
    if (!bad) {
        fprintf(f, "%sstatus: complete\n", prefix);
        return;
    }
    fprintf(f,
            "%sstatus: INCOMPLETE, %" PRIu64
            " unsupported call(s) passed through without their messages\n",
            prefix, bad);
    write_calls(f, prefix, "unsupported: ", calls, CAP_FIRST_UNSUPPORTED + 1, CAP_CALLS);
}

static void write_header(FILE *f, const uint64_t *per_rank, const uint64_t *calls)
{
    static const char *const modes[] = {"wall", "cpu", "none"};
    uint64_t total[N_COUNTERS] = {0};
    fputs("# FSIN trace of an Open MPI program, captured by libinsee-trace "
          "(docs/trace-capture.md)\n",
          f);
    write_command(f);
    fprintf(f, "# ranks: %d\n", cap.size);
    if (st.mode == COMPUTE_NONE)
        fputs("# compute: none\n", f);
    else
        fprintf(f, "# compute: %s, c time = nanoseconds x %g\n", modes[st.mode], st.scale);
    fprintf(f, "# alltoall: %s\n", cap.bruck ? "bruck" : "pairwise");
    fputs("# tags: point-to-point communicator << 32 | tag; collectives communicator << 32 | "
          "2^31 | schedule << 24 | call mod 2^24\n",
          f);
    for (int r = 0; r < cap.size; r++) {
        const uint64_t *c = per_rank + (size_t)r * N_COUNTERS;
        fprintf(f,
                "# rank %d: calls %" PRIu64 ", sent %" PRIu64 " messages %" PRIu64
                " bytes, received %" PRIu64 " messages %" PRIu64 " bytes, computes %" PRIu64 "\n",
                r, c[N_CALLS], c[N_SENT], c[N_SENT_BYTES], c[N_RECEIVED], c[N_RECEIVED_BYTES],
                c[N_COMPUTES]);
        for (int k = 0; k < N_COUNTERS; k++)
            total[k] += c[k];
    }
    fprintf(f,
            "# total: calls %" PRIu64 ", messages %" PRIu64 ", bytes %" PRIu64
            ", received %" PRIu64 " messages %" PRIu64 " bytes\n",
            total[N_CALLS], total[N_SENT], total[N_SENT_BYTES], total[N_RECEIVED],
            total[N_RECEIVED_BYTES]);
    write_calls(f, "# ", "calls: ", calls, 0, CAP_FIRST_UNSUPPORTED);
    write_status(f, "# ", calls);
}

/* Rank 0: the header, then every rank's part in rank order, under a
   temporary name renamed to the trace's at the end. */
static void merge(const uint64_t *per_rank, const uint64_t *calls)
{
    size_t n = strlen(st.out) + 8;
    char *tmp = malloc(n), *part = malloc(n + 32), buf[1 << 16];
    FILE *f = tmp ? (snprintf(tmp, n, "%s.tmp", st.out), fopen(tmp, "w")) : NULL;
    if (!f || !part) {
        fail("cannot write the trace", tmp ? tmp : st.out);
        free(tmp), free(part);
        return;
    }
    write_header(f, per_rank, calls);
    for (int r = 0; r < cap.size && !ferror(f); r++) {
        snprintf(part, n + 32, "%s.rank%d.part", st.out, r);
        FILE *in = fopen(part, "r");
        size_t got;
        if (!in) {
            fail("cannot read the trace's part", part);
            break;
        }
        while ((got = fread(buf, 1, sizeof buf, in)) > 0)
            fwrite(buf, 1, got, f);
        fclose(in);
        unlink(part);
    }
    if (fclose(f) != 0 && !st.why[0])
        fail("cannot write the trace", tmp);
    if (!st.why[0] && rename(tmp, st.out) != 0)
        fail("cannot rename the trace to", st.out);
    if (st.why[0])
        unlink(tmp);
    free(tmp), free(part);
}

static void report(const uint64_t *per_rank, const uint64_t *calls)
{
    uint64_t messages = 0, bytes = 0;
    if (st.why[0]) {
        fprintf(stderr, "insee-trace: no trace written: %s\n", st.why);
        return;
    }
    for (int r = 0; r < cap.size; r++)
        messages += per_rank[(size_t)r * N_COUNTERS + N_SENT],
            bytes += per_rank[(size_t)r * N_COUNTERS + N_SENT_BYTES];
    fprintf(stderr, "insee-trace: wrote %s: %d ranks, %" PRIu64 " messages, %" PRIu64 " bytes\n",
            st.out, cap.size, messages, bytes);
    write_status(stderr, "insee-trace: ", calls);
}

int cap_finalize(void)
{
    cap_enter(C_MPI_Finalize);
    if (st.file) {
        if (fclose(st.file) != 0)
            fail("cannot write the trace's part", st.part);
        st.file = NULL;
    }
    cap.on = false;
    int failed = st.why[0] != '\0', any = 0;
    uint64_t *per_rank = cap.rank == 0 ? calloc((size_t)cap.size, sizeof(uint64_t) * N_COUNTERS)
                                       : NULL;
    uint64_t calls[CAP_CALLS] = {0};
    PMPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    PMPI_Gather(st.counters, N_COUNTERS, MPI_UINT64_T, per_rank, N_COUNTERS, MPI_UINT64_T, 0,
                MPI_COMM_WORLD);
    PMPI_Reduce(st.calls, calls, CAP_CALLS, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    if (any)
        unlink(st.part);
    if (failed && cap.rank != 0)
        fprintf(stderr, "insee-trace: %s\n", st.why);
    if (cap.rank == 0) {
        if (any && !st.why[0])
            snprintf(st.why, sizeof st.why, "another rank could not write its part");
        if (!per_rank && !st.why[0])
            snprintf(st.why, sizeof st.why, "out of memory");
        if (!st.why[0])
            merge(per_rank, calls);
        report(per_rank, calls);
    }
    free(per_rank);
    while (st.comms) {
        cap_comm_rec *c = st.comms;
        st.comms = c->next;
        free(c->world), free(c->remote), free(c);
    }
    free(st.out), free(st.part);
    return PMPI_Finalize();
}

int MPI_Finalize(void)
{
    return cap_finalize();
}
