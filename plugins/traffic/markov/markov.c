/* markov.c — the Markov-chain application model of INRFlow §3.3.4: every
 * task walks a chain over the phases compute, communicate, read and write,
 * one phase per step, with a transition matrix, for `steps` steps. A
 * matrix of 36 numbers is INRFlow's six states: init and end around the
 * four, rows and columns each summing to 1; the walk starts in init and
 * a task is done when it reaches end (or has taken `steps` phases).
 *
 *  compute      holds the task for 1 + a geometric number of cycles, of
 *               mean compute_mean (the discrete exponential);
 *  communicate  sends message_bytes to a compute task drawn uniformly
 *               among the others, and waits until it is delivered;
 *  write        sends io_bytes to a storage task drawn uniformly, and
 *               waits until it is delivered;
 *  read         sends a one-packet request to a storage task drawn
 *               uniformly, which answers with io_bytes; the task waits for
 *               the answer.
 * The last `storage` tasks are the storage: they run no chain and serve
 * read requests in arrival order. With six states and storage = 0, a read
 * or a write is a storage access for the kernel's [storage] model: an I/O
 * message of io_bytes the task addresses to itself, the tag odd for a
 * read and even for a write (docs/storage.md). A task starts in compute (the paper's
 * first phase after Init); the workload has finished when every compute
 * task has taken its steps and the last one has ended.
 *
 * Each phase is one emit(): it starts when the previous one ends (the
 * compute time is over, or delivered() woke the task), draws the next phase
 * from the matrix row of the phase just ended, and carries it out. Message
 * tags name the phase, so a reader of the messages sees the walk.
 */
#include "bernoulli.h"
#include "packet_bytes.h"
#include "perm.h"
#include "ring.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { P_MATRIX, P_STEPS, P_COMPUTE_MEAN, P_MESSAGE_BYTES, P_IO_BYTES, P_STORAGE, P_COMM,
       P_OFFSET };

/* Phases, in the six-state matrix's order (a matrix of 16 numbers gives
   compute .. write alone), and the tags of their messages. */
enum { INIT, COMPUTE, COMMUNICATE, READ, WRITE, END, STATES };
#define PHASES 4 /* compute, communicate, read, write */
enum { TAG_COMMUNICATE = 1, TAG_READ_REQUEST = 2, TAG_WRITE = 3, TAG_READ_DATA = 4,
       TAG_STORAGE_READ = 5, TAG_STORAGE_WRITE = 6 /* odd: read, even: write */ };

static const char *const phase_name[STATES] = {"init",  "compute", "communicate",
                                               "read", "write",   "end"};

static const insee_param_def markov_params[] = {
    [P_MATRIX] = {"matrix", INSEE_PARAM_STRING,
                  "\"0.2 0.5 0.15 0.15; 0.5 0.3 0.1 0.1; 0.6 0.2 0.1 0.1; 0.6 0.2 0.1 0.1\"",
                  1, 0, NULL, NULL,
                  "16 transition probabilities, row by row (from compute, communicate, read, "
                  "write to the same), each row summing to 1; or 36 over INRFlow's six states "
                  "(init, compute, communicate, read, write, end), rows and columns summing "
                  "to 1"},
    [P_STEPS] = {"steps", INSEE_PARAM_INT, "100", 1, 1e9, NULL, NULL,
                 "phases every compute task goes through, the first a compute"},
    [P_COMPUTE_MEAN] = {"compute_mean", INSEE_PARAM_DOUBLE, "100", 1, 1e12, NULL, "cycles",
                        "mean length of a compute phase (exponential, in whole cycles >= 1)"},
    [P_MESSAGE_BYTES] = {"message_bytes", INSEE_PARAM_INT, "1024", 0, 2147483648.0, NULL,
                         "bytes", "a communicate phase's message"},
    [P_IO_BYTES] = {"io_bytes", INSEE_PARAM_INT, "4096", 0, 2147483648.0, NULL, "bytes",
                    "what a read or write phase moves to or from storage"},
    [P_STORAGE] = {"storage", INSEE_PARAM_INT, "1", 0, 4294967295.0, NULL, "tasks",
                   "the last this many tasks are storage, serving reads and writes"},
    [P_COMM] = {"comm", INSEE_PARAM_ENUM, "\"uniform\"", 1, 0, "uniform|" TRAFFIC_PERM_CHOICES,
                NULL,
                "a communicate phase's destination: uniform (any other compute task) or a "
                "permutation (INSEE Table 2, plus shift and neighbour)"},
    [P_OFFSET] = TRAFFIC_PERM_OFFSET_PARAM,
    {0},
};

typedef struct walker {
    uint8_t phase;    /* the phase under way */
    bool waiting;     /* for a delivery (communicate, read, write) */
    uint32_t peer;    /* who that delivery involves, for describe_wait */
    uint64_t taken;   /* phases started */
} walker;

typedef struct markov {
    const insee_host *host;
    double m[STATES][STATES];
    uint8_t first;           /* the walk's first phase: compute, or init (six states) */
    bool kernel_storage;     /* reads and writes are [storage] accesses */
    uint64_t steps;
    double p_end;            /* a compute phase ends after each cycle with this chance */
    uint32_t message_packets, io_packets;
    uint64_t message_bytes, io_bytes, packet_bytes; /* a read request is one packet */
    uint32_t tasks, workers; /* tasks 0 .. workers-1 walk; the rest are storage */
    uint32_t done;           /* walkers that have taken every step */
    traffic_perm *perm;      /* the communicate phases' permutation; NULL: uniform */
    walker *w;               /* per walker */
    traffic_ring *requests;  /* per storage task: readers to answer, in order */
} markov;

/* A number in plain decimal notation (digits, an optional fraction and
   exponent), read the same in any locale; false when there is none or it
   is too large for a double. */
static bool read_number(const char **p, double *out)
{
    const char *s = *p;
    double v = 0;
    int digits = 0, scale = 0;
    for (; *s >= '0' && *s <= '9'; s++, digits++)
        v = v * 10 + (*s - '0');
    if (*s == '.')
        for (s++; *s >= '0' && *s <= '9'; s++, digits++, scale--)
            v = v * 10 + (*s - '0');
    if (digits == 0)
        return false;
    if (*s == 'e' || *s == 'E') {
        const char *e = s + 1;
        int sign = *e == '-' ? -1 : 1, x = 0;
        e += *e == '-' || *e == '+';
        if (*e < '0' || *e > '9')
            return false;
        for (; *e >= '0' && *e <= '9' && x < 1000; e++)
            x = x * 10 + (*e - '0');
        scale += sign * x;
        s = e;
    }
    /* 0 times an exponent too large for a double ("0e999") is 0, not NaN;
       400 digits times 1e-400 is infinity times 0, which is no number. */
    *out = v == 0 ? 0 : v * pow(10, scale);
    if (!isfinite(*out))
        return false;
    *p = s;
    return true;
}

static bool is_separator(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == ',' || c == ';';
}

/* The name of row or column i of a matrix of n states: six states are
   init .. end, four are compute .. write. */
static const char *state_name(int n, int i)
{
    return phase_name[n == STATES ? i : i + COMPUTE];
}

/* Whether every row (columns = false) or column of the n x n matrix v sums
   to 1; false with err naming the first that does not. */
static bool sums_to_one(const double *v, int n, bool columns, insee_error *err)
{
    for (int a = 0; a < n; a++) {
        double sum = 0;
        for (int b = 0; b < n; b++)
            sum += columns ? v[b * n + a] : v[a * n + b];
        if (fabs(sum - 1) > 1e-9) {
            if (columns)
                insee_error_set(err, INSEE_ERR_PARAM,
                                "markov: matrix column %d (into %s) sums to %.10g; INRFlow's "
                                "six-state matrix is doubly stochastic: every column, like "
                                "every row, must sum to 1",
                                a + 1, state_name(n, a), sum);
            else
                insee_error_set(err, INSEE_ERR_PARAM,
                                "markov: matrix row %d (from %s) sums to %.10g; every row's "
                                "probabilities must sum to 1",
                                a + 1, state_name(n, a), sum);
            return false;
        }
    }
    return true;
}

/* Parse `text` into m: 16 numbers (4 phases: compute .. write, each row
   summing to 1) or 36 (six states: init .. end, rows and columns summing
   to 1) in [0, 1], separated by spaces, commas or semicolons; *states gets
   4 or 6. m is in the six-state layout either way, a four-phase matrix in
   rows and columns compute .. write and zeros elsewhere. False with err
   filled. */
static bool parse_matrix(double m[STATES][STATES], int *states, const char *text,
                         insee_error *err)
{
    /* The words first: their count says the matrix's size, so a number
       past 1 can name its row and column. */
    int words = 0;
    for (const char *p = text; *p; p++)
        words += !is_separator(*p) && (p == text || is_separator(p[-1]));
    if (words > STATES * STATES) {
        insee_error_set(err, INSEE_ERR_PARAM,
                        "markov: matrix has more than 36 numbers; it is 4 rows of 4 (compute, "
                        "communicate, read, write) or 6 rows of 6 (init, compute, "
                        "communicate, read, write, end)");
        return false;
    }
    if (words != PHASES * PHASES && words != STATES * STATES) {
        insee_error_set(err, INSEE_ERR_PARAM,
                        words > PHASES * PHASES
                            ? "markov: matrix has more than 16 numbers (%d) but not 36; it is "
                              "4 rows of 4 (compute, communicate, read, write) or 6 rows of 6 "
                              "(init, compute, communicate, read, write, end)"
                            : "markov: matrix has %d numbers, it needs 16: 4 rows of 4 (from "
                              "compute, communicate, read, write to the same), or 36 over "
                              "INRFlow's six states (init, compute, communicate, read, write, "
                              "end)",
                        words);
        return false;
    }
    int n = words == STATES * STATES ? STATES : PHASES, count = 0;
    double v[STATES * STATES];
    const char *p = text;
    for (;;) {
        while (is_separator(*p))
            p++;
        if (!*p)
            break;
        const char *at = p;
        if (count == n * n || !read_number(&p, &v[count])) {
            insee_error_set(err, INSEE_ERR_PARAM,
                            "markov: matrix: '%.20s' is not a probability; write %d numbers "
                            "such as 0.25, row by row, separated by spaces, commas or "
                            "semicolons",
                            at, n * n);
            return false;
        }
        if (v[count] > 1) {
            insee_error_set(err, INSEE_ERR_PARAM,
                            "markov: matrix: %g (row %s, column %s) is not a probability "
                            "(0 to 1)",
                            v[count], state_name(n, count / n), state_name(n, count % n));
            return false;
        }
        count++;
    }
    if (!sums_to_one(v, n, false, err) || (n == STATES && !sums_to_one(v, n, true, err)))
        return false;
    memset(m, 0, sizeof(double) * STATES * STATES);
    int offset = n == STATES ? 0 : COMPUTE;
    for (int i = 0; i < n * n; i++)
        m[offset + i / n][offset + i % n] = v[i];
    *states = n;
    return true;
}

/* The phases a walk from its first phase can reach. */
static void reachable(const markov *mk, bool out[STATES])
{
    memset(out, 0, sizeof(bool) * STATES);
    out[mk->first] = true;
    for (int round = 0; round < STATES; round++)
        for (int a = 0; a < STATES; a++)
            for (int b = 0; out[a] && b < STATES; b++)
                out[b] |= mk->m[a][b] > 0;
}

/* Whether the tasks can carry out every phase the walk reaches. */
static bool check_roles(markov *mk, uint32_t storage, insee_error *err)
{
    bool reach[STATES];
    reachable(mk, reach);
    if (storage >= mk->tasks) {
        insee_error_set(err, INSEE_ERR_PARAM,
                        "markov: storage = %u leaves none of the %u tasks to compute; use "
                        "fewer storage tasks",
                        storage, mk->tasks);
        return false;
    }
    if (reach[COMMUNICATE] && mk->workers < 2) {
        insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                        "markov: the walk reaches communicate, which needs 2 compute tasks; "
                        "there is %u (tasks %u, storage %u)",
                        mk->workers, mk->tasks, storage);
        return false;
    }
    if ((reach[READ] || reach[WRITE]) && storage == 0 && !mk->kernel_storage) {
        insee_error_set(err, INSEE_ERR_PARAM,
                        "markov: the walk reaches %s but storage = 0; set storage >= 1, or "
                        "give read and write probability 0",
                        reach[READ] ? "read" : "write");
        return false;
    }
    return true;
}

static void markov_destroy(void *vself)
{
    markov *mk = vself;
    for (uint32_t s = 0; mk->requests && s < mk->tasks - mk->workers; s++)
        traffic_ring_free(&mk->requests[s]);
    free(mk->requests);
    free(mk->w);
    traffic_perm_destroy(mk->perm);
    free(mk);
}

static void *markov_create(const insee_host *host, const insee_value *params, insee_error *err)
{
    insee_shape shape;
    host->shape(host->kernel, &shape);
    markov *mk = calloc(1, sizeof *mk);
    if (!mk) {
        insee_error_set(err, INSEE_ERR_NOMEM, "markov: out of memory");
        return NULL;
    }
    uint32_t storage = params[P_STORAGE].i > shape.tasks ? shape.tasks : (uint32_t)params[P_STORAGE].i;
    mk->host = host;
    mk->tasks = shape.tasks;
    mk->workers = shape.tasks - storage;
    mk->steps = (uint64_t)params[P_STEPS].i;
    mk->p_end = 1 / params[P_COMPUTE_MEAN].d;
    if (!INSEE_HOST_HAS(host, message_packets) || !INSEE_HOST_HAS(host, wake_task)) {
        insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                        "markov: the host lacks message_packets or wake_task (ABI 1.2); run it "
                        "in a kernel of ABI 1.2 or later");
        markov_destroy(mk);
        return NULL;
    }
    int states = PHASES;
    if (!parse_matrix(mk->m, &states, params[P_MATRIX].s, err)) {
        markov_destroy(mk);
        return NULL;
    }
    mk->first = states == STATES ? INIT : COMPUTE;
    mk->kernel_storage = states == STATES && storage == 0;
    if (!check_roles(mk, storage, err)) {
        markov_destroy(mk);
        return NULL;
    }
    if (params[P_COMM].i > 0 &&
        !(mk->perm = traffic_perm_create("markov", (traffic_perm_pattern)(params[P_COMM].i - 1),
                                         params[P_COMM].s, params[P_OFFSET].i,
                                         TRAFFIC_TORNADO_PER_DIMENSION, host, err))) {
        markov_destroy(mk);
        return NULL;
    }
    mk->message_packets = host->message_packets(host->kernel, (uint64_t)params[P_MESSAGE_BYTES].i);
    mk->io_packets = host->message_packets(host->kernel, (uint64_t)params[P_IO_BYTES].i);
    mk->packet_bytes = traffic_packet_bytes(host);
    mk->message_bytes =
        traffic_message_bytes((uint64_t)params[P_MESSAGE_BYTES].i, mk->packet_bytes);
    mk->io_bytes = traffic_message_bytes((uint64_t)params[P_IO_BYTES].i, mk->packet_bytes);
    mk->w = calloc(mk->workers, sizeof *mk->w);
    mk->requests = calloc(storage ? storage : 1, sizeof *mk->requests);
    if (!mk->w || !mk->requests) {
        markov_destroy(mk);
        insee_error_set(err, INSEE_ERR_NOMEM, "markov: out of memory");
        return NULL;
    }
    return mk;
}

static uint64_t markov_start(void *vself, uint32_t task, insee_rng *rng)
{
    (void)rng;
    const markov *mk = vself;
    return task < mk->workers ? 0 : INSEE_NEVER; /* storage waits for requests */
}

/* The phase after `from`, drawn from its row. */
static uint8_t next_phase(const markov *mk, uint8_t from, insee_rng *rng)
{
    double u = insee_rng_double(rng), acc = 0;
    uint8_t last = from;
    for (uint8_t b = 0; b < STATES; b++) {
        if (mk->m[from][b] <= 0)
            continue;
        acc += mk->m[from][b];
        last = b;
        if (u < acc)
            return b;
    }
    return last; /* u beyond a sum rounded below 1 */
}

/* A communicate phase's destination into *peer; false when the task has
   none (its image under the permutation is itself or a storage task): the
   phase then takes no time. */
static bool comm_peer(const markov *mk, uint32_t task, insee_rng *rng, uint32_t *peer)
{
    if (!mk->perm) {
        *peer = traffic_other_task(rng, mk->workers, task);
        return true;
    }
    if (traffic_perm_silent(mk->perm, task))
        return false;
    *peer = traffic_perm_dst(mk->perm, task, rng);
    return *peer < mk->workers;
}

static uint32_t storage_task(const markov *mk, insee_rng *rng)
{
    return mk->workers + insee_rng_below(rng, mk->tasks - mk->workers);
}

/* A storage task answers its oldest read request. */
static bool serve(markov *mk, uint32_t task, uint64_t now, insee_message *msg, uint64_t *next)
{
    traffic_ring *q = &mk->requests[task - mk->workers];
    *next = INSEE_NEVER;
    if (!q->len)
        return false;
    *msg = (insee_message){.dst = (uint32_t)traffic_ring_pop(q), .packets = mk->io_packets,
                           .tag = TAG_READ_DATA, .bytes = mk->io_bytes,
                           .traffic_class = INSEE_TRAFFIC_IO};
    if (q->len)
        *next = now + 1;
    return true;
}

static bool markov_emit(void *vself, uint32_t task, uint64_t now, insee_rng *rng,
                        insee_message *msg, uint64_t *next)
{
    markov *mk = vself;
    if (task >= mk->workers)
        return serve(mk, task, now, msg, next);
    walker *w = &mk->w[task];
    *next = INSEE_NEVER;
    if (w->waiting || w->taken > mk->steps)
        return false; /* woken early, or done */
    /* Init and end take no time, nor a communicate phase without a
       destination: the walk goes on through them at once. */
    do {
        if (w->taken == mk->steps || (w->taken && w->phase == END)) { /* done */
            w->taken = mk->steps + 1;
            mk->done++;
            return false;
        }
        w->phase = w->taken++ ? next_phase(mk, w->phase, rng) : mk->first;
    } while (w->phase == INIT || w->phase == END ||
             (w->phase == COMMUNICATE && !comm_peer(mk, task, rng, &w->peer)));
    if (mk->kernel_storage && (w->phase == READ || w->phase == WRITE)) {
        w->peer = task;
        *msg = (insee_message){.dst = task, .packets = mk->io_packets,
                               .tag = w->phase == READ ? TAG_STORAGE_READ : TAG_STORAGE_WRITE,
                               .bytes = mk->io_bytes, .traffic_class = INSEE_TRAFFIC_IO};
        w->waiting = true;
        return true;
    }
    switch (w->phase) {
    case COMPUTE:
        *next = now + 1 + insee_rng_geometric(rng, mk->p_end);
        return false;
    case COMMUNICATE:
        *msg = (insee_message){.dst = w->peer, .packets = mk->message_packets,
                               .tag = TAG_COMMUNICATE, .bytes = mk->message_bytes};
        break;
    case READ:
        w->peer = storage_task(mk, rng);
        *msg = (insee_message){.dst = w->peer, .packets = 1, .tag = TAG_READ_REQUEST,
                               .bytes = mk->packet_bytes, .traffic_class = INSEE_TRAFFIC_IO};
        break;
    default: /* WRITE */
        w->peer = storage_task(mk, rng);
        *msg = (insee_message){.dst = w->peer, .packets = mk->io_packets, .tag = TAG_WRITE,
                               .bytes = mk->io_bytes, .traffic_class = INSEE_TRAFFIC_IO};
        break;
    }
    w->waiting = true;
    return true;
}

static void markov_delivered(void *vself, uint32_t src_task, const insee_message *msg,
                             uint64_t now)
{
    markov *mk = vself;
    uint32_t ended; /* the walker whose phase the delivery ends */
    if (msg->tag == TAG_READ_REQUEST) {
        if (!traffic_ring_push(&mk->requests[msg->dst - mk->workers], src_task)) {
            mk->host->log(mk->host->kernel, INSEE_LOG_ERROR,
                          "markov: out of memory queuing a read request; it is not served");
            return;
        }
        mk->host->wake_task(mk->host->kernel, msg->dst, now + 1);
        return;
    }
    ended = msg->tag == TAG_READ_DATA ? msg->dst : src_task;
    mk->w[ended].waiting = false;
    mk->host->wake_task(mk->host->kernel, ended, now + 1);
}

static bool markov_finished(void *vself)
{
    const markov *mk = vself;
    return mk->done == mk->workers;
}

static bool markov_describe_wait(void *vself, char *buf, size_t len)
{
    const markov *mk = vself;
    for (uint32_t t = 0; t < mk->workers; t++) {
        const walker *w = &mk->w[t];
        if (w->taken > mk->steps)
            continue;
        if (!w->waiting) {
            snprintf(buf, len, "task %u is at step %llu of %llu (%s)", t,
                     (unsigned long long)w->taken, (unsigned long long)mk->steps,
                     phase_name[w->phase]);
            return true;
        }
        if (mk->kernel_storage && w->phase != COMMUNICATE) {
            snprintf(buf, len,
                     "task %u, at step %llu of %llu (%s), waits for its %s of [storage] (a "
                     "storage access with no [storage] table is delivered at once; one that "
                     "is unroutable never ends)",
                     t, (unsigned long long)w->taken, (unsigned long long)mk->steps,
                     phase_name[w->phase], w->phase == READ ? "read" : "write");
            return true;
        }
        const char *what = w->phase == COMMUNICATE ? "its message to task"
                           : w->phase == WRITE     ? "its write to storage task"
                                                   : "the data of its read from storage task";
        snprintf(buf, len,
                 "task %u, at step %llu of %llu (%s), waits for %s %u (a lost or dropped "
                 "message never arrives: markov needs [traffic] on_full = \"throttle\")",
                 t, (unsigned long long)w->taken, (unsigned long long)mk->steps,
                 phase_name[w->phase], what, w->peer);
        return true;
    }
    return false;
}

static const insee_traffic_vtable markov_vtable = {
    .size = sizeof(insee_traffic_vtable),
    .create = markov_create,
    .destroy = markov_destroy,
    .start = markov_start,
    .emit = markov_emit,
    .delivered = markov_delivered,
    .finished = markov_finished,
    .describe_wait = markov_describe_wait,
};

static const insee_plugin_desc markov_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_TRAFFIC,
    .name = "markov",
    .version = "1.0.0",
    .summary = "a Markov chain per task over compute, communicate, read and write phases, "
               "with exponential compute times and storage tasks",
    .reference = "INRFlow §3.3.4",
    .params = markov_params,
    .vtable = &markov_vtable,
};

INSEE_PLUGIN_DEFINE(markov_desc)
