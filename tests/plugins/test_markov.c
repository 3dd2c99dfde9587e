/* test_markov.c — the Markov-chain application model (INRFlow §3.3.4) on the
 * mock kernel loop: every compute task takes exactly `steps` phases, the
 * first a compute; the transitions out of each phase are binomial in the
 * matrix's row and the visit frequencies match the chain's stationary
 * distribution (computed here by power iteration) within a stated
 * tolerance; compute phases last compute_mean on average; reads are
 * answered by storage to the reader; message lengths follow the bytes, in
 * packets and in bytes, and reads and writes are I/O (ABI 1.8); a
 * bad matrix or role is refused with a message that says what to change. */
#include "causal_rig.h"

#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

enum { COMPUTE, COMMUNICATE, READ, WRITE, PHASES };
/* The tags the README documents. */
enum { TAG_COMMUNICATE = 1, TAG_READ_REQUEST = 2, TAG_WRITE = 3, TAG_READ_DATA = 4 };

#define MAX_TASKS 16

typedef struct walk {
    uint32_t workers;
    int last[MAX_TASKS];                  /* phase under way, -1 before the first */
    uint64_t visits[MAX_TASKS];
    uint64_t by_phase[PHASES];
    uint64_t moves[PHASES][PHASES];
    uint64_t done[MAX_TASKS];             /* emits after the last phase */
    uint64_t compute_cycles, computes;
    uint64_t reads_asked[MAX_TASKS], reads_answered[MAX_TASKS];
    uint32_t comm_packets, io_packets;    /* expected lengths */
    uint64_t comm_bytes, io_bytes;        /* ... in bytes; a read request is one packet, 64 */
} walk;

static void visit(walk *w, uint32_t task, int phase)
{
    if (w->last[task] < 0)
        cr_assert_eq(phase, COMPUTE, "task %u started in phase %d", task, phase);
    else
        w->moves[w->last[task]][phase]++;
    w->last[task] = phase;
    w->visits[task]++;
    w->by_phase[phase]++;
}

static void on_emit(void *user, uint32_t task, uint64_t now, const insee_message *m,
                    uint64_t next)
{
    walk *w = user;
    if (task >= w->workers) { /* storage: only answers */
        cr_assert_not_null(m, "storage task %u woken for nothing", task);
        cr_assert_eq(m->tag, TAG_READ_DATA);
        cr_assert_eq(m->packets, w->io_packets);
        cr_assert_eq(m->bytes, w->io_bytes);
        cr_assert_eq(m->traffic_class, INSEE_TRAFFIC_IO);
        w->reads_answered[m->dst]++;
        cr_assert_leq(w->reads_answered[m->dst], w->reads_asked[m->dst]);
        return;
    }
    if (!m && next == INSEE_NEVER) {
        w->done[task]++;
        return;
    }
    if (!m) {
        visit(w, task, COMPUTE);
        w->compute_cycles += next - now;
        w->computes++;
        return;
    }
    cr_assert_eq(next, INSEE_NEVER, "a task waits for its message");
    switch (m->tag) {
    case TAG_COMMUNICATE:
        cr_assert_lt(m->dst, w->workers, "communicate goes to a compute task");
        cr_assert_neq(m->dst, task);
        cr_assert_eq(m->packets, w->comm_packets);
        cr_assert_eq(m->bytes, w->comm_bytes);
        cr_assert_eq(m->traffic_class, INSEE_TRAFFIC_APP);
        visit(w, task, COMMUNICATE);
        break;
    case TAG_READ_REQUEST:
        cr_assert_geq(m->dst, w->workers, "a read asks storage");
        cr_assert_eq(m->packets, 1u);
        cr_assert_eq(m->bytes, 64u);
        cr_assert_eq(m->traffic_class, INSEE_TRAFFIC_IO);
        w->reads_asked[task]++;
        visit(w, task, READ);
        break;
    default:
        cr_assert_eq(m->tag, TAG_WRITE);
        cr_assert_geq(m->dst, w->workers, "a write goes to storage");
        cr_assert_eq(m->packets, w->io_packets);
        cr_assert_eq(m->bytes, w->io_bytes);
        cr_assert_eq(m->traffic_class, INSEE_TRAFFIC_IO);
        visit(w, task, WRITE);
    }
}

static void make(traffic_rig *r, const char *matrix, int64_t steps, double compute_mean,
                 int64_t message_bytes, int64_t io_bytes, int64_t storage)
{
    insee_value params[8] = {
        {.type = INSEE_PARAM_STRING, .s = matrix}, value_int(steps), value_double(compute_mean),
        value_int(message_bytes), value_int(io_bytes), value_int(storage),
        {.type = INSEE_PARAM_ENUM, .i = 0, .s = "uniform"}, value_int(1),
    };
    rig_create(r, "markov", params);
}

/* The stationary distribution of m, by power iteration from uniform. */
static void stationary(const double m[PHASES][PHASES], double pi[PHASES])
{
    for (int a = 0; a < PHASES; a++)
        pi[a] = 1.0 / PHASES;
    for (int it = 0; it < 10000; it++) {
        double n[PHASES] = {0};
        for (int a = 0; a < PHASES; a++)
            for (int b = 0; b < PHASES; b++)
                n[b] += pi[a] * m[a][b];
        memcpy(pi, n, sizeof n);
    }
}

/* A walk of `steps` on `tasks` tasks, the last `storage` of them storage,
   run to the end with every message taking `delay` cycles plus one per
   packet, into *w (which holds the expected lengths); asserts that every
   compute task took exactly `steps` phases, ended once, had every read
   answered, and that the workload finished. Returns the last event's
   cycle. */
static uint64_t run_walk(walk *w, uint32_t tasks, const char *matrix, uint64_t steps,
                         double compute_mean, int64_t message_bytes, int64_t io_bytes,
                         uint32_t storage, uint64_t delay)
{
    traffic_rig r;
    rig_tasks(&r, tasks, 16);
    make(&r, matrix, (int64_t)steps, compute_mean, message_bytes, io_bytes, storage);
    w->workers = tasks - storage;
    memset(w->last, 0xff, sizeof w->last);
    causal_rig *c = causal_new(&r, delay, 1, &(causal_hooks){on_emit, NULL, w});
    uint64_t end = causal_run(c, UINT64_MAX);
    cr_assert(r.vt->finished(r.self));
    cr_assert_eq(causal_in_flight(c), 0u);
    for (uint32_t t = 0; t < w->workers; t++) {
        cr_assert_eq(w->visits[t], steps, "task %u took %lu steps", t,
                     (unsigned long)w->visits[t]);
        cr_assert_eq(w->done[t], 1u);
        cr_assert_eq(w->reads_answered[t], w->reads_asked[t]);
    }
    causal_free(c);
    rig_free(&r);
    return end;
}

/* 6 compute tasks and 2 storage tasks walk 20 000 steps each; packets of
   16 phits of 4 bytes: 1000 bytes are 16 packets, 3000 bytes 47. */
Test(markov, walks_follow_the_chain)
{
    static const double m[PHASES][PHASES] = {
        {0.3, 0.4, 0.2, 0.1}, {0.5, 0.2, 0.1, 0.2}, {0.7, 0.1, 0.1, 0.1}, {0.2, 0.6, 0.2, 0.0},
    };
    const char *text = "0.3 0.4 0.2 0.1; 0.5 0.2 0.1 0.2; 0.7, 0.1, 0.1, 0.1;\n0.2 0.6 0.2 0";
    const uint64_t steps = 20000;
    static walk w = {.comm_packets = 16, .io_packets = 47, .comm_bytes = 1000, .io_bytes = 3000};
    run_walk(&w, 8, text, steps, 7.0, 1000, 3000, 2, 9);
    /* Each move out of a phase is an independent draw from its row. */
    for (int a = 0; a < PHASES; a++) {
        uint64_t out = 0;
        for (int b = 0; b < PHASES; b++)
            out += w.moves[a][b];
        for (int b = 0; b < PHASES; b++)
            rig_assert_binomial(w.moves[a][b], out, m[a][b], "moves out of a phase");
    }
    /* Visits: within 0.01 of the stationary distribution (120 000 steps of
       a chain that mixes in a few; the standard error is near 0.002). */
    double pi[PHASES];
    stationary(m, pi);
    for (int a = 0; a < PHASES; a++) {
        double f = (double)w.by_phase[a] / (double)(6 * steps);
        cr_assert(fabs(f - pi[a]) < 0.01, "phase %d: visited %.4f, stationary %.4f", a, f,
                  pi[a]);
    }
    /* Compute phases: 1 + geometric, mean 7, standard deviation sqrt(42). */
    double mean = (double)w.compute_cycles / (double)w.computes;
    cr_assert(fabs(mean - 7.0) < 5 * sqrt(42.0 / (double)w.computes), "mean compute %.4f",
              mean);
}

/* With only compute -> communicate -> communicate ..., every task sends
   exactly steps - 1 messages. A compute mean of 1 makes the first phase one
   cycle; each message takes d cycles and the next one leaves the cycle
   after it lands, so phase k >= 2 starts at 1 + (k - 2) (d + 1) and the
   task ends (its last emit) at 1 + (steps - 1) (d + 1). */
Test(markov, exact_steps_and_timing_of_a_fixed_walk)
{
    static walk w = {.comm_packets = 1, .comm_bytes = 64}; /* 0 bytes: one packet */
    uint64_t end = run_walk(&w, 5, "0 1 0 0  0 1 0 0  1 0 0 0  1 0 0 0", 12, 1.0, 0, 0, 0, 4);
    cr_assert_eq(w.by_phase[COMMUNICATE], 5u * 11u);
    cr_assert_eq(w.by_phase[COMPUTE], 5u);
    cr_assert_eq(end, 1 + 11 * (4 + 1), "last event at %lu", (unsigned long)end);
}

Test(markov, a_lost_message_is_described)
{
    traffic_rig r;
    rig_tasks(&r, 4, 16);
    make(&r, "0 0 0 1  0 0 0 1  0 0 0 1  1 0 0 0", 5, 1.0, 0, 64, 1);
    causal_rig *c = causal_new(&r, 3, 0, NULL);
    causal_run(c, 1); /* cycle 0: every task computes for one cycle */
    causal_lose_next(c); /* cycle 1: task 0's write is the first message */
    causal_run(c, UINT64_MAX);
    cr_assert(!r.vt->finished(r.self));
    char buf[512];
    cr_assert(r.vt->describe_wait(r.self, buf, sizeof buf));
    cr_assert_not_null(strstr(buf, "task 0, at step 2 of 5 (write), waits for its write to "
                                   "storage task 3"),
                       "%s", buf);
    causal_free(c);
    rig_free(&r);
}

Test(markov, refuses_bad_matrices_and_roles)
{
    static const struct { const char *matrix; int64_t storage; uint32_t tasks; const char *says; }
        cases[] = {
            {"0.5 0.5 0 0  1 0 0 0  1 0 0 0", 1, 8, "has 12 numbers, it needs 16"},
            {"0.5 0.5 0 0  1 0 0 0  1 0 0 0  1 0 0 0  1", 1, 8, "more than 16 numbers"},
            {"0.5 0.4 0 0  1 0 0 0  1 0 0 0  1 0 0 0", 1, 8, "row 1 (from compute) sums to 0.9"},
            {"0.5 0.5 0 0  1 0 0 0  1 0 0 0  1 0 0.5 0", 1, 8, "row 4 (from write) sums to 1.5"},
            {"0.5 0.5 0 0  1 0 0 0  1 0 0 0  1 0 x 0", 1, 8, "'x 0' is not a probability"},
            {"0.5 0.5 0 0  1 0 0 0  1 0 0 0  -1 2 0 0", 1, 8, "'-1 2 0 0' is not a probability"},
            {"0.5 0.5 0 0  1 0 0 0  2 -1 0 0  1 0 0 0", 1, 8, "2 (row read, column compute)"},
            {"0.5 0 0.5 0  1 0 0 0  1 0 0 0  1 0 0 0", 0, 8, "reaches read but storage = 0"},
            {"0.5 0.5 0 0  1 0 0 0  1 0 0 0  1 0 0 0", 7, 8, "needs 2 compute tasks"},
            {"1 0 0 0  1 0 0 0  1 0 0 0  1 0 0 0", 8, 8, "leaves none of the 8 tasks"},
        };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        traffic_rig r;
        rig_tasks(&r, cases[i].tasks, 16);
        insee_value params[8] = {
            {.type = INSEE_PARAM_STRING, .s = cases[i].matrix}, value_int(10), value_double(10),
            value_int(0), value_int(0), value_int(cases[i].storage),
            {.type = INSEE_PARAM_ENUM, .i = 0, .s = "uniform"}, value_int(1),
        };
        insee_error err = {0};
        cr_assert_null(rig_try(&r, "markov", params, &err), "case %zu accepted", i);
        cr_assert_not_null(strstr(err.message, cases[i].says), "case %zu: %s", i, err.message);
        rig_free(&r);
    }
}

/* Phases the walk never reaches need no task: a walk that never leaves
   compute needs neither storage nor a second compute task. */
Test(markov, unreachable_phases_need_no_tasks)
{
    static walk w;
    run_walk(&w, 1, "1 0 0 0  0 0.5 0.5 0  0 0 1 0  0 0 0 1", 3, 2.0, 0, 0, 0, 1);
    cr_assert_eq(w.by_phase[COMPUTE], 3u);
}

Test(markov, numbers_in_any_notation)
{
    traffic_rig r;
    rig_tasks(&r, 4, 16);
    make(&r, ".25 2.5e-1 25e-2 0.25E0; 1 0 0 0; 1.0 0 0 0; 1 0 0 0", 3, 2.0, 0, 0, 1);
    rig_free(&r);
}
