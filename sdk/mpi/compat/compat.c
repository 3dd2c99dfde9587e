/* sdk/mpi/compat/compat.c — libinsee-mpi-compat: MPI's C bindings (mpi.h
 * here) translated into libinsee-mpi's calls (<insee/mpi.h>): handles,
 * datatypes, operations, statuses and error classes. The matching, the
 * collectives' schedules and the time model are libinsee-mpi's; what is
 * added here is the computation's time, measured between MPI calls. One
 * rank per process, one thread, so the state is the process's. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <mpi.h>

#include <insee/mpi.h>

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* MPI's value-index pairs, laid out as the standard defines them. */
typedef struct { float v; int i; } float_int;
typedef struct { double v; int i; } double_int;
typedef struct { long v; int i; } long_int;
typedef struct { int v; int i; } int_int;
typedef struct { short v; int i; } short_int;
typedef struct { long double v; int i; } long_double_int;

/* What a datatype may be combined with: MPI-3.1 §5.9.2's groups. */
enum group { G_INT, G_FLOAT, G_BOOL, G_BYTE, G_CHAR, G_PAIR };

static const struct {
    const char *name;
    size_t size;
    enum group group;
} TYPES[] = {
    [MPI_CHAR] = {"MPI_CHAR", sizeof(char), G_CHAR},
    [MPI_SIGNED_CHAR] = {"MPI_SIGNED_CHAR", sizeof(signed char), G_INT},
    [MPI_UNSIGNED_CHAR] = {"MPI_UNSIGNED_CHAR", sizeof(unsigned char), G_INT},
    [MPI_BYTE] = {"MPI_BYTE", 1, G_BYTE},
    [MPI_SHORT] = {"MPI_SHORT", sizeof(short), G_INT},
    [MPI_UNSIGNED_SHORT] = {"MPI_UNSIGNED_SHORT", sizeof(unsigned short), G_INT},
    [MPI_INT] = {"MPI_INT", sizeof(int), G_INT},
    [MPI_UNSIGNED] = {"MPI_UNSIGNED", sizeof(unsigned), G_INT},
    [MPI_LONG] = {"MPI_LONG", sizeof(long), G_INT},
    [MPI_UNSIGNED_LONG] = {"MPI_UNSIGNED_LONG", sizeof(unsigned long), G_INT},
    [MPI_LONG_LONG] = {"MPI_LONG_LONG", sizeof(long long), G_INT},
    [MPI_UNSIGNED_LONG_LONG] = {"MPI_UNSIGNED_LONG_LONG", sizeof(unsigned long long), G_INT},
    [MPI_FLOAT] = {"MPI_FLOAT", sizeof(float), G_FLOAT},
    [MPI_DOUBLE] = {"MPI_DOUBLE", sizeof(double), G_FLOAT},
    [MPI_LONG_DOUBLE] = {"MPI_LONG_DOUBLE", sizeof(long double), G_FLOAT},
    [MPI_INT8_T] = {"MPI_INT8_T", 1, G_INT},
    [MPI_INT16_T] = {"MPI_INT16_T", 2, G_INT},
    [MPI_INT32_T] = {"MPI_INT32_T", 4, G_INT},
    [MPI_INT64_T] = {"MPI_INT64_T", 8, G_INT},
    [MPI_UINT8_T] = {"MPI_UINT8_T", 1, G_INT},
    [MPI_UINT16_T] = {"MPI_UINT16_T", 2, G_INT},
    [MPI_UINT32_T] = {"MPI_UINT32_T", 4, G_INT},
    [MPI_UINT64_T] = {"MPI_UINT64_T", 8, G_INT},
    [MPI_C_BOOL] = {"MPI_C_BOOL", sizeof(_Bool), G_BOOL},
    [MPI_WCHAR] = {"MPI_WCHAR", sizeof(wchar_t), G_CHAR},
    [MPI_FLOAT_INT] = {"MPI_FLOAT_INT", sizeof(float_int), G_PAIR},
    [MPI_DOUBLE_INT] = {"MPI_DOUBLE_INT", sizeof(double_int), G_PAIR},
    [MPI_LONG_INT] = {"MPI_LONG_INT", sizeof(long_int), G_PAIR},
    [MPI_2INT] = {"MPI_2INT", sizeof(int_int), G_PAIR},
    [MPI_SHORT_INT] = {"MPI_SHORT_INT", sizeof(short_int), G_PAIR},
    [MPI_LONG_DOUBLE_INT] = {"MPI_LONG_DOUBLE_INT", sizeof(long_double_int), G_PAIR},
};
#define N_TYPES ((int)(sizeof TYPES / sizeof *TYPES))

static const char *const OPS[] = {
    [MPI_MAX] = "MPI_MAX",   [MPI_MIN] = "MPI_MIN",   [MPI_SUM] = "MPI_SUM",
    [MPI_PROD] = "MPI_PROD", [MPI_LAND] = "MPI_LAND", [MPI_BAND] = "MPI_BAND",
    [MPI_LOR] = "MPI_LOR",   [MPI_BOR] = "MPI_BOR",   [MPI_LXOR] = "MPI_LXOR",
    [MPI_BXOR] = "MPI_BXOR", [MPI_MINLOC] = "MPI_MINLOC", [MPI_MAXLOC] = "MPI_MAXLOC",
};
#define N_OPS ((int)(sizeof OPS / sizeof *OPS))

static const char *const CLASSES[] = {
    [MPI_SUCCESS] = "MPI_SUCCESS: no error",
    [MPI_ERR_BUFFER] = "MPI_ERR_BUFFER: invalid buffer pointer",
    [MPI_ERR_COUNT] = "MPI_ERR_COUNT: invalid count argument",
    [MPI_ERR_TYPE] = "MPI_ERR_TYPE: invalid datatype",
    [MPI_ERR_TAG] = "MPI_ERR_TAG: invalid tag",
    [MPI_ERR_COMM] = "MPI_ERR_COMM: invalid communicator",
    [MPI_ERR_RANK] = "MPI_ERR_RANK: invalid rank",
    [MPI_ERR_REQUEST] = "MPI_ERR_REQUEST: invalid request",
    [MPI_ERR_ROOT] = "MPI_ERR_ROOT: invalid root",
    [MPI_ERR_OP] = "MPI_ERR_OP: invalid reduce operation",
    [MPI_ERR_ARG] = "MPI_ERR_ARG: invalid argument of some other kind",
    [MPI_ERR_TRUNCATE] = "MPI_ERR_TRUNCATE: message truncated",
    [MPI_ERR_OTHER] = "MPI_ERR_OTHER: known error not in this list",
    [MPI_ERR_INTERN] = "MPI_ERR_INTERN: internal error",
    [MPI_ERR_IN_STATUS] = "MPI_ERR_IN_STATUS: error code is in status",
    [MPI_ERR_PENDING] = "MPI_ERR_PENDING: pending request",
    [MPI_ERR_UNKNOWN] = "MPI_ERR_UNKNOWN: unknown error",
};

/* A communicator handle: libinsee-mpi's, or a one-rank "self" one, which
   libinsee-mpi has no message channel for (its collectives copy locally). */
typedef struct comm_slot {
    bool live, self;
    insee_mpi_comm *c;
    MPI_Errhandler eh;
} comm_slot;

struct insee_mpi_compat_request {
    insee_mpi_request *r; /* NULL once libinsee-mpi completed it */
    insee_mpi_status st;  /* its status, kept until MPI completes it */
    bool proc_null;       /* to or from MPI_PROC_NULL: complete, empty */
    MPI_Comm comm;
};

static struct {
    bool initialized, finalized;
    comm_slot *comms;
    int n_comms;
    insee_mpi_alltoall_algo alltoall;
    clockid_t clock;
    double scale, carry;     /* client units per ns measured; fraction owed */
    double read_ns;          /* what reading the clock costs, not computation */
    struct timespec left;    /* when the last MPI call returned */
    const char *call;        /* the MPI call running, for messages */
    MPI_Comm call_comm;      /* its communicator, for the error handler */
    int last_class;
    char last[MPI_MAX_ERROR_STRING];
} S = {.alltoall = INSEE_MPI_ALLTOALL_PAIRWISE, .clock = CLOCK_PROCESS_CPUTIME_ID, .scale = 1};

static comm_slot *slot(MPI_Comm comm)
{
    return comm > 0 && comm < S.n_comms && S.comms[comm].live ? &S.comms[comm] : NULL;
}

static void stamp(void)
{
    clock_gettime(S.clock, &S.left);
}

static double since(const struct timespec *then, const struct timespec *now)
{
    return (double)(now->tv_sec - then->tv_sec) * 1e9 + (double)(now->tv_nsec - then->tv_nsec);
}

/* Two back-to-back readings of the clock are apart by the cost of one
   (under a microsecond for the CPU clock, a system call): that much of
   every interval between two calls is the measurement's, not the
   program's. The least of a few tries. */
static void calibrate(void)
{
    S.read_ns = INFINITY;
    for (int i = 0; i < 16; i++) {
        struct timespec a, b;
        clock_gettime(S.clock, &a);
        clock_gettime(S.clock, &b);
        S.read_ns = fmin(S.read_ns, since(&a, &b));
    }
}

/* The end of every call: the computation to be measured starts now. */
static int leave(int rc)
{
    stamp();
    return rc;
}

/* An error of `class` in the running call: the comm's handler decides. */
static int fail(int class, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(int class, const char *fmt, ...)
{
    int n = snprintf(S.last, sizeof S.last, "%s: ", S.call);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(S.last + n, sizeof S.last - (size_t)n, fmt, ap);
    va_end(ap);
    S.last_class = class;
    const comm_slot *s = slot(S.call_comm);
    if (!s)
        s = slot(MPI_COMM_WORLD);
    if (!s || s->eh == MPI_ERRORS_ARE_FATAL) {
        fflush(stdout);
        if (S.initialized)
            fprintf(stderr, "rank %d: ", insee_mpi_rank());
        fprintf(stderr, "%s (%s)\n", S.last, CLASSES[class]);
        exit(1); /* MPI_ERRORS_ARE_FATAL: the program ends, as with MPI_Abort */
    }
    return leave(class);
}

/* libinsee-mpi's answer: 0, or -1 with its sentence. */
static int done(int rc)
{
    if (rc >= 0)
        return leave(MPI_SUCCESS);
    return fail(insee_mpi_error_class() == INSEE_MPI_ERR_TRUNCATE ? MPI_ERR_TRUNCATE
                                                                   : MPI_ERR_OTHER,
                "%s", insee_mpi_error());
}

/* The start of every call after MPI_Init: the time since the last call
   returned was the program's computation. */
static int enter(const char *call, MPI_Comm comm)
{
    S.call = call;
    S.call_comm = comm;
    if (!S.initialized || S.finalized)
        return fail(MPI_ERR_OTHER, "called %s MPI_Init", S.finalized ? "after MPI_Finalize and"
                                                                      : "before");
    struct timespec now;
    clock_gettime(S.clock, &now);
    double units = S.carry + fmax(since(&S.left, &now) - S.read_ns, 0) * S.scale;
    uint64_t whole = (uint64_t)floor(units);
    S.carry = units - (double)whole;
    return whole && insee_mpi_compute(whole) < 0 ? done(-1) : MPI_SUCCESS;
}

#define ENTER(call, comm)                                                                          \
    do {                                                                                           \
        int rc_ = enter(call, comm);                                                               \
        if (rc_ != MPI_SUCCESS)                                                                    \
            return rc_;                                                                            \
    } while (0)

/* ENTER, then the communicator `comm` as the comm_ref `c` (declared). */
#define ENTER_ON(call, comm, c)                                                                    \
    comm_ref c = {0};                                                                              \
    ENTER(call, comm);                                                                             \
    TRY(resolve(comm, &c))

#define TRY(expr)                                                                                  \
    do {                                                                                           \
        int rc_ = (expr);                                                                          \
        if (rc_ != MPI_SUCCESS)                                                                    \
            return rc_;                                                                            \
    } while (0)

/* The communicator behind a handle, its size and this rank's rank in it. */
typedef struct comm_ref {
    insee_mpi_comm *c; /* NULL for a self communicator */
    int size, rank;
} comm_ref;

static int resolve(MPI_Comm comm, comm_ref *out)
{
    const comm_slot *s = slot(comm);
    if (!s)
        return fail(MPI_ERR_COMM, comm == MPI_COMM_NULL ? "MPI_COMM_NULL is not a communicator"
                                                        : "%d is not a communicator handle",
                    comm);
    *out = s->self ? (comm_ref){NULL, 1, 0}
                   : (comm_ref){s->c, insee_mpi_comm_size(s->c), insee_mpi_comm_rank(s->c)};
    return MPI_SUCCESS;
}

static int type_size(MPI_Datatype type, size_t *size)
{
    if (type <= 0 || type >= N_TYPES)
        return fail(MPI_ERR_TYPE, "%d is not a datatype handle (derived datatypes are outside "
                    "insee's subset)", type);
    *size = TYPES[type].size;
    return MPI_SUCCESS;
}

/* count elements of type: their bytes. */
static int extent(int count, MPI_Datatype type, size_t *bytes)
{
    size_t size = 0;
    TRY(type_size(type, &size));
    if (count < 0)
        return fail(MPI_ERR_COUNT, "count %d is negative", count);
    *bytes = (size_t)count * size;
    return MPI_SUCCESS;
}

static int peer_ok(const comm_ref *c, int peer, bool any, const char *what)
{
    if ((peer >= 0 && peer < c->size) || peer == MPI_PROC_NULL || (any && peer == MPI_ANY_SOURCE))
        return MPI_SUCCESS;
    return fail(MPI_ERR_RANK, "%s %d is not a rank of a communicator of %d", what, peer, c->size);
}

static int tag_ok(int tag, bool any)
{
    if (tag >= 0 || (any && tag == MPI_ANY_TAG))
        return MPI_SUCCESS;
    return fail(MPI_ERR_TAG, "tag %d is negative", tag);
}

static int root_ok(const comm_ref *c, int root)
{
    return root >= 0 && root < c->size
               ? MPI_SUCCESS
               : fail(MPI_ERR_ROOT, "root %d is not a rank of a communicator of %d", root,
                      c->size);
}

/* Point-to-point on a self communicator has no channel in libinsee-mpi. */
static int no_self(const comm_ref *c, int peer)
{
    return c->c || peer == MPI_PROC_NULL
               ? MPI_SUCCESS
               : fail(MPI_ERR_COMM, "point-to-point on MPI_COMM_SELF is outside insee's subset");
}

static void to_status(const insee_mpi_status *st, MPI_Status *out)
{
    if (out)
        *out = (MPI_Status){.MPI_SOURCE = st->source, .MPI_TAG = st->tag,
                            .MPI_ERROR = MPI_SUCCESS, .insee_bytes = st->bytes};
}

static void empty_status(int source, MPI_Status *out)
{
    if (out)
        *out = (MPI_Status){.MPI_SOURCE = source, .MPI_TAG = MPI_ANY_TAG};
}

/* ---- environment ---------------------------------------------------- */

static int read_env(void)
{
    const char *s = getenv("INSEE_MPI_COMPUTE_SCALE");
    if (s) {
        char *end;
        errno = 0;
        S.scale = strtod(s, &end);
        if (!*s || *end || errno || !(S.scale >= 0) || isinf(S.scale))
            return fail(MPI_ERR_ARG, "INSEE_MPI_COMPUTE_SCALE is '%s', not a number >= 0 (client "
                        "units per nanosecond of computation; 0: communication only)", s);
    }
    s = getenv("INSEE_MPI_COMPUTE_CLOCK");
    if (s && strcmp(s, "wall") == 0)
        S.clock = CLOCK_MONOTONIC;
    else if (s && strcmp(s, "cpu") != 0)
        return fail(MPI_ERR_ARG, "INSEE_MPI_COMPUTE_CLOCK is '%s', not 'cpu' or 'wall'", s);
    s = getenv("INSEE_MPI_ALLTOALL");
    if (s && strcmp(s, "bruck") == 0)
        S.alltoall = INSEE_MPI_ALLTOALL_BRUCK;
    else if (s && strcmp(s, "pairwise") != 0)
        return fail(MPI_ERR_ARG, "INSEE_MPI_ALLTOALL is '%s', not 'pairwise' or 'bruck'", s);
    return MPI_SUCCESS;
}

int MPI_Init(int *argc, char ***argv)
{
    S.call = "MPI_Init";
    S.call_comm = MPI_COMM_NULL;
    if (S.initialized)
        return fail(MPI_ERR_OTHER, "MPI_Init was already called");
    TRY(read_env());
    S.comms = calloc(3, sizeof *S.comms);
    if (!S.comms)
        return fail(MPI_ERR_INTERN, "out of memory");
    if (insee_mpi_init(argc, argv) < 0)
        return fail(MPI_ERR_OTHER, "%s", insee_mpi_error());
    S.n_comms = 3;
    S.comms[MPI_COMM_WORLD] = (comm_slot){.live = true, .c = insee_mpi_comm_world(),
                                          .eh = MPI_ERRORS_ARE_FATAL};
    S.comms[MPI_COMM_SELF] = (comm_slot){.live = true, .self = true, .eh = MPI_ERRORS_ARE_FATAL};
    S.initialized = true;
    calibrate();
    return leave(MPI_SUCCESS);
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    (void)required;
    *provided = MPI_THREAD_SINGLE;
    return MPI_Init(argc, argv);
}

int MPI_Initialized(int *flag)
{
    *flag = S.initialized;
    return MPI_SUCCESS;
}

int MPI_Finalized(int *flag)
{
    *flag = S.finalized;
    return MPI_SUCCESS;
}

int MPI_Finalize(void)
{
    ENTER("MPI_Finalize", MPI_COMM_WORLD);
    int rc = insee_mpi_finalize();
    S.finalized = true;
    for (int i = 3; i < S.n_comms; i++)
        if (S.comms[i].live && S.comms[i].c)
            insee_mpi_comm_free(&S.comms[i].c);
    free(S.comms);
    S.comms = NULL;
    S.n_comms = 0;
    return rc < 0 ? fail(MPI_ERR_OTHER, "%s", insee_mpi_error()) : MPI_SUCCESS;
}

int MPI_Abort(MPI_Comm comm, int errorcode)
{
    (void)comm;
    fflush(stdout);
    if (S.initialized)
        fprintf(stderr, "rank %d: ", insee_mpi_rank());
    fprintf(stderr, "MPI_Abort with error code %d\n", errorcode);
    exit(errorcode); /* what MPI_Abort is for; insee-mpirun then stops the run */
}

double MPI_Wtime(void)
{
    if (enter("MPI_Wtime", MPI_COMM_WORLD) != MPI_SUCCESS)
        return 0;
    double t = (double)insee_mpi_wtime() * 1e-9;
    leave(MPI_SUCCESS);
    return t;
}

double MPI_Wtick(void)
{
    return 1e-9; /* one client unit */
}

int MPI_Get_processor_name(char *name, int *resultlen)
{
    ENTER("MPI_Get_processor_name", MPI_COMM_WORLD);
    *resultlen = snprintf(name, MPI_MAX_PROCESSOR_NAME, "insee-node-%u", insee_mpi_node());
    return leave(MPI_SUCCESS);
}

int MPI_Error_class(int errorcode, int *errorclass)
{
    *errorclass = errorcode >= 0 && errorcode <= MPI_ERR_LASTCODE ? errorcode : MPI_ERR_UNKNOWN;
    return MPI_SUCCESS;
}

/* The class's description, or for the class of the last error returned,
   that error's line (naming its call). */
int MPI_Error_string(int errorcode, char *string, int *resultlen)
{
    int class;
    MPI_Error_class(errorcode, &class);
    const char *text = class != MPI_SUCCESS && class == S.last_class ? S.last : CLASSES[class];
    *resultlen = snprintf(string, MPI_MAX_ERROR_STRING, "%s", text);
    if (*resultlen >= MPI_MAX_ERROR_STRING)
        *resultlen = MPI_MAX_ERROR_STRING - 1;
    return MPI_SUCCESS;
}

int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    ENTER_ON("MPI_Comm_set_errhandler", comm, c);
    if (errhandler != MPI_ERRORS_ARE_FATAL && errhandler != MPI_ERRORS_RETURN)
        return fail(MPI_ERR_ARG, "%d is not MPI_ERRORS_ARE_FATAL or MPI_ERRORS_RETURN",
                    errhandler);
    slot(comm)->eh = errhandler;
    return leave(MPI_SUCCESS);
}

int MPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    ENTER_ON("MPI_Comm_get_errhandler", comm, c);
    *errhandler = slot(comm)->eh;
    return leave(MPI_SUCCESS);
}

int MPI_Type_size(MPI_Datatype datatype, int *size)
{
    ENTER("MPI_Type_size", MPI_COMM_WORLD);
    size_t s = 0;
    TRY(type_size(datatype, &s));
    *size = (int)s;
    return leave(MPI_SUCCESS);
}

/* ---- communicators -------------------------------------------------- */

int MPI_Comm_rank(MPI_Comm comm, int *rank)
{
    ENTER_ON("MPI_Comm_rank", comm, c);
    *rank = c.rank;
    return leave(MPI_SUCCESS);
}

int MPI_Comm_size(MPI_Comm comm, int *size)
{
    ENTER_ON("MPI_Comm_size", comm, c);
    *size = c.size;
    return leave(MPI_SUCCESS);
}

/* A new handle for `made` (NULL with self: a self communicator). */
static int new_handle(insee_mpi_comm *made, bool self, MPI_Errhandler eh, MPI_Comm *out)
{
    comm_slot *more = realloc(S.comms, (size_t)(S.n_comms + 1) * sizeof *more);
    if (!more) {
        if (made)
            insee_mpi_comm_free(&made);
        return fail(MPI_ERR_INTERN, "out of memory for a communicator");
    }
    S.comms = more;
    S.comms[S.n_comms] = (comm_slot){.live = true, .self = self, .c = made, .eh = eh};
    *out = S.n_comms++;
    return leave(MPI_SUCCESS);
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    ENTER_ON("MPI_Comm_split", comm, c);
    if (color < 0 && color != MPI_UNDEFINED)
        return fail(MPI_ERR_ARG, "color %d is negative and not MPI_UNDEFINED", color);
    *newcomm = MPI_COMM_NULL;
    MPI_Errhandler eh = slot(comm)->eh;
    if (!c.c)
        return color == MPI_UNDEFINED ? leave(MPI_SUCCESS) : new_handle(NULL, true, eh, newcomm);
    insee_mpi_comm *made;
    if (insee_mpi_comm_split(c.c, color == MPI_UNDEFINED ? INSEE_MPI_UNDEFINED : color, key,
                             &made) < 0)
        return done(-1);
    return made ? new_handle(made, false, eh, newcomm) : leave(MPI_SUCCESS);
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    ENTER_ON("MPI_Comm_dup", comm, c);
    insee_mpi_comm *made = NULL;
    if (c.c && insee_mpi_comm_dup(c.c, &made) < 0)
        return done(-1);
    return new_handle(made, !c.c, slot(comm)->eh, newcomm);
}

int MPI_Comm_free(MPI_Comm *comm)
{
    ENTER_ON("MPI_Comm_free", *comm, c);
    if (*comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF)
        return fail(MPI_ERR_COMM, "MPI_COMM_WORLD and MPI_COMM_SELF are not freed");
    comm_slot *s = slot(*comm);
    if (s->c && insee_mpi_comm_free(&s->c) < 0)
        return done(-1);
    s->live = false;
    *comm = MPI_COMM_NULL;
    return leave(MPI_SUCCESS);
}

/* ---- point-to-point ------------------------------------------------- */

/* The checks every send makes; *bytes its length. */
static int send_args(int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, comm_ref *c,
                     size_t *bytes)
{
    TRY(resolve(comm, c));
    TRY(extent(count, type, bytes));
    TRY(peer_ok(c, dest, false, "destination"));
    TRY(tag_ok(tag, false));
    return no_self(c, dest);
}

static int recv_args(int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                     comm_ref *c, size_t *bytes)
{
    TRY(resolve(comm, c));
    TRY(extent(count, type, bytes));
    TRY(peer_ok(c, source, true, "source"));
    TRY(tag_ok(tag, true));
    return no_self(c, source);
}

static int send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    comm_ref c = {0};
    size_t bytes = 0;
    TRY(send_args(count, type, dest, tag, comm, &c, &bytes));
    return dest == MPI_PROC_NULL ? leave(MPI_SUCCESS)
                                 : done(insee_mpi_send_on(c.c, buf, bytes, dest, tag));
}

int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    ENTER("MPI_Send", comm);
    return send(buf, count, datatype, dest, tag, comm);
}

/* Sends are eager in libinsee-mpi: a synchronous send times as MPI_Send. */
int MPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    ENTER("MPI_Ssend", comm);
    return send(buf, count, datatype, dest, tag, comm);
}

static int recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                MPI_Status *status)
{
    comm_ref c = {0};
    size_t bytes = 0;
    TRY(recv_args(count, type, source, tag, comm, &c, &bytes));
    if (source == MPI_PROC_NULL) {
        empty_status(MPI_PROC_NULL, status);
        return leave(MPI_SUCCESS);
    }
    insee_mpi_status st;
    if (insee_mpi_recv_on(c.c, buf, bytes, source, tag, &st) < 0)
        return done(-1);
    to_status(&st, status);
    return leave(MPI_SUCCESS);
}

int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
             MPI_Status *status)
{
    ENTER("MPI_Recv", comm);
    return recv(buf, count, datatype, source, tag, comm, status);
}

static int new_request(MPI_Comm comm, bool proc_null, MPI_Request *request)
{
    *request = calloc(1, sizeof **request);
    if (!*request)
        return fail(MPI_ERR_INTERN, "out of memory for a request");
    (*request)->comm = comm;
    (*request)->proc_null = proc_null;
    return MPI_SUCCESS;
}

/* A request new_request() made, once libinsee-mpi was asked to post it
   (rc its answer): freed again when that failed. */
static int posted(MPI_Request *request, int rc)
{
    if (rc >= 0)
        return leave(MPI_SUCCESS);
    free(*request);
    *request = MPI_REQUEST_NULL;
    return done(-1);
}

int MPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
              MPI_Request *request)
{
    ENTER("MPI_Isend", comm);
    *request = MPI_REQUEST_NULL;
    comm_ref c = {0};
    size_t bytes = 0;
    TRY(send_args(count, datatype, dest, tag, comm, &c, &bytes));
    TRY(new_request(comm, dest == MPI_PROC_NULL, request));
    return posted(request, dest == MPI_PROC_NULL ? 0
                                                 : insee_mpi_isend_on(c.c, buf, bytes, dest, tag,
                                                                      &(*request)->r));
}

int MPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Request *request)
{
    ENTER("MPI_Irecv", comm);
    *request = MPI_REQUEST_NULL;
    comm_ref c = {0};
    size_t bytes = 0;
    TRY(recv_args(count, datatype, source, tag, comm, &c, &bytes));
    TRY(new_request(comm, source == MPI_PROC_NULL, request));
    return posted(request, source == MPI_PROC_NULL
                               ? 0
                               : insee_mpi_irecv_on(c.c, buf, bytes, source, tag, &(*request)->r));
}

int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                 MPI_Comm comm, MPI_Status *status)
{
    ENTER("MPI_Sendrecv", comm);
    TRY(send(sendbuf, sendcount, sendtype, dest, sendtag, comm));
    return recv(recvbuf, recvcount, recvtype, source, recvtag, comm, status);
}

/* Complete `req` in libinsee-mpi if it is done by the clock (blocking:
   wait until it is), keeping its status. *complete says whether it is. */
static int progress(MPI_Request req, bool block, bool *complete)
{
    int flag = 1;
    if (req->r && (block ? insee_mpi_wait(&req->r, &req->st)
                         : insee_mpi_test(&req->r, &flag, &req->st)) < 0) {
        S.call_comm = req->comm;
        return done(-1);
    }
    *complete = flag;
    return MPI_SUCCESS;
}

/* A poll that found nothing lets one client unit pass, so a loop of polls
   moves the simulated time as a wait would, even when computation is not
   measured (INSEE_MPI_COMPUTE_SCALE=0): libinsee-mpi's test and iprobe
   never move the clock themselves. */
static int idle(void)
{
    return insee_mpi_compute(1) < 0 ? done(-1) : MPI_SUCCESS;
}

/* Hand a complete request's status over and free it. */
static void release(MPI_Request *request, MPI_Status *status)
{
    MPI_Request req = *request;
    if (req->proc_null)
        empty_status(MPI_PROC_NULL, status);
    else
        to_status(&req->st, status);
    free(req);
    *request = MPI_REQUEST_NULL;
}

int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    ENTER("MPI_Wait", MPI_COMM_WORLD);
    bool complete = false;
    if (!*request) {
        empty_status(MPI_ANY_SOURCE, status);
        return leave(MPI_SUCCESS);
    }
    TRY(progress(*request, true, &complete));
    release(request, status);
    return leave(MPI_SUCCESS);
}

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[])
{
    ENTER("MPI_Waitall", MPI_COMM_WORLD);
    for (int i = 0; i < count; i++) {
        bool complete = false;
        MPI_Status *st = statuses ? &statuses[i] : NULL;
        if (!requests[i]) {
            empty_status(MPI_ANY_SOURCE, st);
            continue;
        }
        TRY(progress(requests[i], true, &complete));
        release(&requests[i], st);
    }
    return leave(MPI_SUCCESS);
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    ENTER("MPI_Test", MPI_COMM_WORLD);
    bool complete = true;
    if (*request)
        TRY(progress(*request, false, &complete));
    *flag = complete;
    if (!*request)
        empty_status(MPI_ANY_SOURCE, status);
    else if (complete)
        release(request, status);
    else
        TRY(idle());
    return leave(MPI_SUCCESS);
}

int MPI_Testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[])
{
    ENTER("MPI_Testall", MPI_COMM_WORLD);
    bool all = true;
    for (int i = 0; i < count; i++) {
        bool complete = true;
        if (requests[i])
            TRY(progress(requests[i], false, &complete));
        all = all && complete;
    }
    *flag = all;
    if (!all)
        TRY(idle());
    for (int i = 0; all && i < count; i++)
        if (requests[i])
            release(&requests[i], statuses ? &statuses[i] : NULL);
        else
            empty_status(MPI_ANY_SOURCE, statuses ? &statuses[i] : NULL);
    return leave(MPI_SUCCESS);
}

/* libinsee-mpi waits for one request only: test them all, idle one client
   unit, test again; the first to complete is the one the simulated time
   says. */
/* A request already complete (to or from MPI_PROC_NULL, or completed by a
   test) goes first; else libinsee-mpi waits for the one handed over
   first, so the launcher sees the rank waiting. */
int MPI_Waitany(int count, MPI_Request requests[], int *index, MPI_Status *status)
{
    ENTER("MPI_Waitany", MPI_COMM_WORLD);
    *index = MPI_UNDEFINED;
    insee_mpi_request **pending = malloc(sizeof *pending * (size_t)(count > 0 ? count : 1));
    if (!pending)
        return fail(MPI_ERR_OTHER, "out of memory for %d requests", count);
    bool active = false;
    for (int i = 0; i < count; i++) {
        pending[i] = requests[i] ? requests[i]->r : NULL;
        if (requests[i] && !requests[i]->r && *index == MPI_UNDEFINED)
            *index = i;
        active |= requests[i] != NULL;
    }
    size_t k = (size_t)count;
    insee_mpi_status st;
    int rc = active && *index == MPI_UNDEFINED
                 ? insee_mpi_waitany((size_t)count, pending, &k, &st)
                 : 0;
    free(pending);
    if (rc < 0) {
        if (k < (size_t)count)
            requests[k]->r = NULL; /* completed, with the error */
        return done(-1);
    }
    if (*index == MPI_UNDEFINED && k < (size_t)count) {
        *index = (int)k;
        requests[k]->r = NULL;
        requests[k]->st = st;
    }
    if (*index == MPI_UNDEFINED) {
        empty_status(MPI_ANY_SOURCE, status);
        return leave(MPI_SUCCESS);
    }
    release(&requests[*index], status);
    return leave(MPI_SUCCESS);
}

int MPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    ENTER("MPI_Get_count", MPI_COMM_WORLD);
    size_t size = 0;
    TRY(type_size(datatype, &size));
    *count = status->insee_bytes % size ? MPI_UNDEFINED : (int)(status->insee_bytes / size);
    return leave(MPI_SUCCESS);
}

static int probe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    comm_ref c = {0};
    TRY(resolve(comm, &c));
    TRY(peer_ok(&c, source, true, "source"));
    TRY(tag_ok(tag, true));
    TRY(no_self(&c, source));
    if (source == MPI_PROC_NULL) {
        if (flag)
            *flag = 1;
        empty_status(MPI_PROC_NULL, status);
        return leave(MPI_SUCCESS);
    }
    insee_mpi_status st;
    if ((flag ? insee_mpi_iprobe(c.c, source, tag, flag, &st)
              : insee_mpi_probe(c.c, source, tag, &st)) < 0)
        return done(-1);
    if (!flag || *flag)
        to_status(&st, status);
    else
        TRY(idle());
    return leave(MPI_SUCCESS);
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    ENTER("MPI_Probe", comm);
    return probe(source, tag, comm, NULL, status);
}

int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    ENTER("MPI_Iprobe", comm);
    return probe(source, tag, comm, flag, status);
}

/* ---- reductions ----------------------------------------------------- */

typedef struct reduction {
    MPI_Datatype type;
    MPI_Op op;
} reduction;

#define EACH(T, E)                                                                                 \
    do {                                                                                           \
        T *a = acc;                                                                                \
        const T *b = more;                                                                         \
        for (size_t i = 0; i < n; i++)                                                             \
            a[i] = (E);                                                                            \
    } while (0);                                                                                   \
    return
#define ARITH(T)                                                                                   \
    case MPI_SUM: EACH(T, a[i] + b[i]);                                                            \
    case MPI_PROD: EACH(T, a[i] * b[i]);                                                           \
    case MPI_MAX: EACH(T, a[i] > b[i] ? a[i] : b[i]);                                              \
    case MPI_MIN: EACH(T, a[i] < b[i] ? a[i] : b[i]);
#define LOGIC(T)                                                                                   \
    case MPI_LAND: EACH(T, a[i] && b[i]);                                                          \
    case MPI_LOR: EACH(T, a[i] || b[i]);                                                           \
    case MPI_LXOR: EACH(T, !a[i] != !b[i]);
#define BITS(T)                                                                                    \
    case MPI_BAND: EACH(T, a[i] & b[i]);                                                           \
    case MPI_BOR: EACH(T, a[i] | b[i]);                                                            \
    case MPI_BXOR: EACH(T, a[i] ^ b[i]);
#define INTEGER(ID, T)                                                                             \
    case ID:                                                                                       \
        switch (r->op) { ARITH(T) LOGIC(T) BITS(T) }                                               \
        return;
#define BOOLEAN(ID, T)                                                                             \
    case ID:                                                                                       \
        switch (r->op) { LOGIC(T) }                                                                \
        return;
#define BYTES(ID, T)                                                                               \
    case ID:                                                                                       \
        switch (r->op) { BITS(T) }                                                                 \
        return;
#define FLOATING(ID, T)                                                                            \
    case ID:                                                                                       \
        switch (r->op) { ARITH(T) }                                                                \
        return;
/* MINLOC and MAXLOC: the extreme value, and of equal ones the least index. */
#define PAIR(ID, T)                                                                                \
    case ID: {                                                                                     \
        T *a = acc;                                                                                \
        const T *b = more;                                                                         \
        for (size_t i = 0; i < n; i++)                                                             \
            if (r->op == MPI_MAXLOC ? b[i].v > a[i].v : b[i].v < a[i].v)                            \
                a[i] = b[i];                                                                       \
            else if (b[i].v == a[i].v && b[i].i < a[i].i)                                          \
                a[i].i = b[i].i;                                                                   \
        return;                                                                                    \
    }

/* libinsee-mpi's combine function for every (datatype, operation) pair
   fits() accepts. */
static void combine(void *acc, const void *more, size_t n, void *user)
{
    const reduction *r = user;
    switch (r->type) {
        INTEGER(MPI_SIGNED_CHAR, signed char)
        INTEGER(MPI_UNSIGNED_CHAR, unsigned char)
        BYTES(MPI_BYTE, unsigned char)
        INTEGER(MPI_SHORT, short)
        INTEGER(MPI_UNSIGNED_SHORT, unsigned short)
        INTEGER(MPI_INT, int)
        INTEGER(MPI_UNSIGNED, unsigned)
        INTEGER(MPI_LONG, long)
        INTEGER(MPI_UNSIGNED_LONG, unsigned long)
        INTEGER(MPI_LONG_LONG, long long)
        INTEGER(MPI_UNSIGNED_LONG_LONG, unsigned long long)
        INTEGER(MPI_INT8_T, int8_t)
        INTEGER(MPI_INT16_T, int16_t)
        INTEGER(MPI_INT32_T, int32_t)
        INTEGER(MPI_INT64_T, int64_t)
        INTEGER(MPI_UINT8_T, uint8_t)
        INTEGER(MPI_UINT16_T, uint16_t)
        INTEGER(MPI_UINT32_T, uint32_t)
        INTEGER(MPI_UINT64_T, uint64_t)
        BOOLEAN(MPI_C_BOOL, _Bool)
        FLOATING(MPI_FLOAT, float)
        FLOATING(MPI_DOUBLE, double)
        FLOATING(MPI_LONG_DOUBLE, long double)
        PAIR(MPI_FLOAT_INT, float_int)
        PAIR(MPI_DOUBLE_INT, double_int)
        PAIR(MPI_LONG_INT, long_int)
        PAIR(MPI_2INT, int_int)
        PAIR(MPI_SHORT_INT, short_int)
        PAIR(MPI_LONG_DOUBLE_INT, long_double_int)
    }
}

/* Whether MPI-3.1 §5.9.2 allows `op` on `type`'s group. */
static bool fits(MPI_Op op, enum group g)
{
    switch (op) {
    case MPI_MAX:
    case MPI_MIN:
    case MPI_SUM:
    case MPI_PROD:
        return g == G_INT || g == G_FLOAT;
    case MPI_LAND:
    case MPI_LOR:
    case MPI_LXOR:
        return g == G_INT || g == G_BOOL;
    case MPI_BAND:
    case MPI_BOR:
    case MPI_BXOR:
        return g == G_INT || g == G_BYTE;
    default:
        return g == G_PAIR;
    }
}

/* The reduction of `count` elements of `type` with `op`; *bytes their
   length. `desc` holds what the combine function reads. */
static int reduction_of(int count, MPI_Datatype type, MPI_Op op, reduction *desc,
                        insee_mpi_reduction *red, size_t *bytes)
{
    TRY(extent(count, type, bytes));
    if (op <= 0 || op >= N_OPS)
        return fail(MPI_ERR_OP, "%d is not an operation handle (user operations are outside "
                    "insee's subset)", op);
    if (!fits(op, TYPES[type].group))
        return fail(MPI_ERR_OP, "%s does not apply to %s", OPS[op], TYPES[type].name);
    *desc = (reduction){type, op};
    *red = (insee_mpi_reduction){.elem_bytes = TYPES[type].size, .fn = combine, .user = desc};
    return MPI_SUCCESS;
}

/* ---- collectives ---------------------------------------------------- */

/* A collective on a self communicator: its one rank's data to itself. */
static int on_self(void *to, const void *from, size_t bytes)
{
    if (to && from && to != from && bytes)
        memmove(to, from, bytes);
    return leave(MPI_SUCCESS);
}

static const void *in_place(const void *sendbuf, const void *instead)
{
    return sendbuf == MPI_IN_PLACE ? instead : sendbuf;
}

int MPI_Barrier(MPI_Comm comm)
{
    ENTER_ON("MPI_Barrier", comm, c);
    return c.c ? done(insee_mpi_coll_barrier(c.c)) : leave(MPI_SUCCESS);
}

int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    ENTER_ON("MPI_Bcast", comm, c);
    size_t bytes = 0;
    TRY(extent(count, datatype, &bytes));
    TRY(root_ok(&c, root));
    return c.c ? done(insee_mpi_coll_bcast(c.c, buffer, bytes, root)) : leave(MPI_SUCCESS);
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               int root, MPI_Comm comm)
{
    ENTER_ON("MPI_Reduce", comm, c);
    reduction desc;
    insee_mpi_reduction red;
    size_t bytes = 0;
    TRY(reduction_of(count, datatype, op, &desc, &red, &bytes));
    TRY(root_ok(&c, root));
    const void *in = in_place(sendbuf, recvbuf);
    if (!c.c)
        return on_self(recvbuf, in, bytes);
    return done(insee_mpi_coll_reduce(c.c, in, c.rank == root ? recvbuf : NULL, (size_t)count,
                                      &red, root));
}

typedef int everywhere_fn(insee_mpi_comm *comm, const void *in, void *out, size_t count,
                          const insee_mpi_reduction *red);

/* Allreduce, Scan and Reduce_scatter_block: a reduction of `count`
   elements whose result every rank gets (its own part of it). */
static int reduce_everywhere(const char *call, everywhere_fn *fn, const void *sendbuf,
                             void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                             MPI_Comm comm)
{
    ENTER_ON(call, comm, c);
    reduction desc;
    insee_mpi_reduction red;
    size_t bytes = 0;
    TRY(reduction_of(count, datatype, op, &desc, &red, &bytes));
    const void *in = in_place(sendbuf, recvbuf);
    if (!c.c)
        return on_self(recvbuf, in, bytes);
    return done(fn(c.c, in, recvbuf, (size_t)count, &red));
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm)
{
    return reduce_everywhere("MPI_Allreduce", insee_mpi_coll_allreduce, sendbuf, recvbuf, count,
                             datatype, op, comm);
}

int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm)
{
    return reduce_everywhere("MPI_Scan", insee_mpi_coll_scan, sendbuf, recvbuf, count, datatype,
                             op, comm);
}

int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return reduce_everywhere("MPI_Reduce_scatter_block", insee_mpi_coll_reduce_scatter, sendbuf,
                             recvbuf, recvcount, datatype, op, comm);
}

/* The bytes per rank a block collective moves: side a (count, type) and
   side b, each where it is significant (not MPI_IN_PLACE, not a root's
   argument elsewhere); where both are, they must agree. */
static int block_bytes(int acount, MPI_Datatype atype, bool a_used, int bcount,
                       MPI_Datatype btype, bool b_used, size_t *bytes)
{
    size_t a = 0, b = 0;
    if (a_used)
        TRY(extent(acount, atype, &a));
    if (b_used)
        TRY(extent(bcount, btype, &b));
    if (a_used && b_used && a != b)
        return fail(MPI_ERR_COUNT, "the send side gives %zu bytes per rank, the receive side %zu",
                    a, b);
    *bytes = a_used ? a : b;
    return MPI_SUCCESS;
}

int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    ENTER_ON("MPI_Gather", comm, c);
    size_t bytes = 0;
    TRY(root_ok(&c, root));
    bool at_root = c.rank == root;
    TRY(block_bytes(sendcount, sendtype, !(at_root && sendbuf == MPI_IN_PLACE), recvcount,
                    recvtype, at_root, &bytes));
    const void *in = in_place(sendbuf, (char *)recvbuf + (size_t)root * bytes);
    if (!c.c)
        return on_self(recvbuf, in, bytes);
    return done(insee_mpi_coll_gather(c.c, in, at_root ? recvbuf : NULL, bytes, root));
}

int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    ENTER_ON("MPI_Scatter", comm, c);
    size_t bytes = 0;
    TRY(root_ok(&c, root));
    bool at_root = c.rank == root;
    TRY(block_bytes(sendcount, sendtype, at_root, recvcount, recvtype,
                    !(at_root && recvbuf == MPI_IN_PLACE), &bytes));
    void *out = recvbuf == MPI_IN_PLACE ? (char *)sendbuf + (size_t)root * bytes : recvbuf;
    if (!c.c)
        return on_self(out, sendbuf, bytes);
    return done(insee_mpi_coll_scatter(c.c, at_root ? sendbuf : NULL, out, bytes, root));
}

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    ENTER_ON("MPI_Allgather", comm, c);
    size_t bytes = 0;
    TRY(block_bytes(sendcount, sendtype, sendbuf != MPI_IN_PLACE, recvcount, recvtype, true,
                    &bytes));
    const void *in = in_place(sendbuf, (char *)recvbuf + (size_t)c.rank * bytes);
    if (!c.c)
        return on_self(recvbuf, in, bytes);
    return done(insee_mpi_coll_allgather(c.c, in, recvbuf, bytes));
}

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    ENTER_ON("MPI_Alltoall", comm, c);
    size_t bytes = 0;
    TRY(block_bytes(sendcount, sendtype, sendbuf != MPI_IN_PLACE, recvcount, recvtype, true,
                    &bytes));
    const void *in = in_place(sendbuf, recvbuf);
    if (!c.c)
        return on_self(recvbuf, in, bytes);
    return done(insee_mpi_coll_alltoall(c.c, in, recvbuf, bytes, S.alltoall));
}

/* A v-collective's counts and displacements (in elements of `type`, one
   per rank of c) as bytes, in a new array: the counts, then the
   displacements. *out is NULL where they are not significant (!used). */
static int v_bytes(const comm_ref *c, bool used, const int *counts, const int *displs,
                   MPI_Datatype type, size_t **out)
{
    *out = NULL;
    if (!used)
        return MPI_SUCCESS;
    size_t size = 0;
    TRY(type_size(type, &size));
    for (int i = 0; i < c->size; i++)
        if (counts[i] < 0 || displs[i] < 0)
            return fail(counts[i] < 0 ? MPI_ERR_COUNT : MPI_ERR_ARG,
                        "rank %d's count %d or displacement %d is negative", i, counts[i],
                        displs[i]);
    *out = malloc((size_t)(2 * c->size) * sizeof **out);
    if (!*out)
        return fail(MPI_ERR_INTERN, "out of memory for %d ranks", c->size);
    for (int i = 0; i < c->size; i++) {
        (*out)[i] = (size_t)counts[i] * size;
        (*out)[c->size + i] = (size_t)displs[i] * size;
    }
    return MPI_SUCCESS;
}

/* The bytes of the side given as one count: a v-side's own entry `at`
   when the buffer is MPI_IN_PLACE, else count elements of type. */
static int one_side(bool in_place, const size_t *v, int at, int count, MPI_Datatype type,
                    size_t *bytes)
{
    if (!in_place)
        return extent(count, type, bytes);
    *bytes = v[at];
    return MPI_SUCCESS;
}

int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                MPI_Comm comm)
{
    ENTER_ON("MPI_Gatherv", comm, c);
    size_t *v, bytes = 0;
    TRY(root_ok(&c, root));
    bool at_root = c.rank == root, same = at_root && sendbuf == MPI_IN_PLACE;
    TRY(v_bytes(&c, at_root, recvcounts, displs, recvtype, &v));
    const void *in = same ? (char *)recvbuf + v[c.size + root] : sendbuf;
    int rc = one_side(same, v, root, sendcount, sendtype, &bytes);
    if (rc == MPI_SUCCESS)
        rc = c.c ? done(insee_mpi_coll_gatherv(c.c, in, bytes, at_root ? recvbuf : NULL, v,
                                               v ? v + c.size : NULL, root))
                 : on_self((char *)recvbuf + v[c.size], in, bytes);
    free(v);
    return rc;
}

int MPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                 MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root, MPI_Comm comm)
{
    ENTER_ON("MPI_Scatterv", comm, c);
    size_t *v, bytes = 0;
    TRY(root_ok(&c, root));
    bool at_root = c.rank == root, same = at_root && recvbuf == MPI_IN_PLACE;
    TRY(v_bytes(&c, at_root, sendcounts, displs, sendtype, &v));
    void *out = same ? (char *)sendbuf + v[c.size + root] : recvbuf;
    int rc = one_side(same, v, root, recvcount, recvtype, &bytes);
    if (rc == MPI_SUCCESS)
        rc = c.c ? done(insee_mpi_coll_scatterv(c.c, at_root ? sendbuf : NULL, v,
                                                v ? v + c.size : NULL, out, bytes, root))
                 : on_self(out, (const char *)sendbuf + v[c.size], bytes);
    free(v);
    return rc;
}

int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                   MPI_Comm comm)
{
    ENTER_ON("MPI_Allgatherv", comm, c);
    size_t *v, bytes = 0;
    bool same = sendbuf == MPI_IN_PLACE;
    TRY(v_bytes(&c, true, recvcounts, displs, recvtype, &v));
    const void *in = same ? (char *)recvbuf + v[c.size + c.rank] : sendbuf;
    int rc = one_side(same, v, c.rank, sendcount, sendtype, &bytes);
    if (rc == MPI_SUCCESS)
        rc = c.c ? done(insee_mpi_coll_allgatherv(c.c, in, bytes, recvbuf, v, v + c.size))
                 : on_self((char *)recvbuf + v[c.size], in, bytes);
    free(v);
    return rc;
}

int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                  const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    ENTER_ON("MPI_Alltoallv", comm, c);
    size_t *sv, *rv;
    bool same = sendbuf == MPI_IN_PLACE;
    TRY(v_bytes(&c, true, recvcounts, rdispls, recvtype, &rv));
    int rc = v_bytes(&c, !same, sendcounts, sdispls, sendtype, &sv);
    const size_t *s = same ? rv : sv;
    const void *in = in_place(sendbuf, recvbuf);
    if (rc == MPI_SUCCESS)
        rc = c.c ? done(insee_mpi_coll_alltoallv(c.c, in, s, s + c.size, recvbuf, rv,
                                                 rv + c.size))
                 : on_self((char *)recvbuf + rv[1], (const char *)in + s[1], s[0]);
    free(sv);
    free(rv);
    return rc;
}
