/* sdk/conformance/check_selection.c — the selection suite: select() on a
 * machine of 16 nodes (the mock host's 4x4 torus) with queues and running
 * jobs made up to cover the cases a scheduler meets: an idle machine, a
 * wide head that does not fit, running jobs with and without estimates,
 * more small jobs than free nodes, and an empty queue.
 */
#include <math.h>
#include <string.h>

#include "conform.h"

#define NODES CONFORM_MOCK_NODES
#define MAX_QUEUE 24
#define MAX_RUNNING 4
#define UNSET UINT32_MAX

/* A machine at one instant: the queue in arrival order and the running jobs. */
typedef struct scenario {
    const char *what;
    double now;
    uint32_t free_nodes;
    uint32_t queued;
    insee_job queue[MAX_QUEUE];
    uint32_t n_running;
    insee_running_job running[MAX_RUNNING];
} scenario;

#define J(N, A, E) {.nodes = (N), .arrival = (A), .estimate = (E)}
#define R(N, E) {.nodes = (N), .end = (E)}

/* Nothing runs: every job fits the machine (the kernel refuses wider ones). */
static const scenario idle[] = {
    {"idle, queue 4 8 2 16", 0, NODES, 4, {J(4, 0, 50), J(8, 1, 20), J(2, 2, 10), J(16, 3, 5)}, 0, {{0}}},
    {"idle, a 16-node head without estimate", 100, NODES, 2, {J(16, 0, INFINITY), J(1, 50, 10)}, 0,
     {{0}}},
    {"idle, one 1-node job", 7, NODES, 1, {J(1, 7, 3)}, 0, {{0}}},
};

static const scenario busy[] = {
    {"wide head 10 on 6 free nodes", 0, 6, 3, {J(10, 0, 100), J(2, 1, 10), J(3, 2, 500)}, 1,
     {R(10, 100)}},
    {"20 one-node jobs on 5 free nodes, a running job without estimate", 40, 5, 20,
     {J(1, 0, 1), J(1, 1, 2), J(1, 2, 3), J(1, 3, 4), J(1, 4, 5), J(1, 5, 6), J(1, 6, 7),
      J(1, 7, 8), J(1, 8, 9), J(1, 9, 10), J(1, 10, 11), J(1, 11, 12), J(1, 12, 13),
      J(1, 13, 14), J(1, 14, 15), J(1, 15, 16), J(1, 16, 17), J(1, 17, 18), J(1, 18, 19),
      J(1, 19, INFINITY)},
     1, {R(11, INFINITY)}},
    {"head 16 behind three running jobs, small jobs behind it", 10, 4, 4,
     {J(16, 0, 30), J(1, 2, 5), J(4, 3, 100), J(2, 4, INFINITY)}, 3,
     {R(6, 20), R(4, 10), R(2, 60)}},
    {"nothing free", 5, 0, 3, {J(1, 0, 1), J(2, 1, 1), J(3, 2, 1)}, 2, {R(8, 9), R(8, INFINITY)}},
    {"queue that fits exactly, no estimates", 3, 9, 3,
     {J(4, 0, INFINITY), J(3, 1, INFINITY), J(2, 2, INFINITY)}, 1, {R(7, 3)}},
};

/* Every scenario with a queue: what the structural checks scan. */
static const scenario *all_scenarios(size_t i)
{
    return i < G_N_ELEMENTS(idle) ? &idle[i] : i < G_N_ELEMENTS(idle) + G_N_ELEMENTS(busy)
                                                   ? &busy[i - G_N_ELEMENTS(idle)]
                                                   : NULL;
}

static conform_status check_create(conform_ctx *ctx, GString *detail)
{
    const insee_selection_vtable *vt = ctx->plugin->vtable;
    return conform_instances_setup(ctx, TRUE, FALSE, vt->create, vt->destroy, detail);
}

/* select() on a scenario; start[] has room for the queue and is preset UNSET. */
static uint32_t run(const conform_ctx *ctx, const conform_instance *inst, const scenario *sc,
                    uint32_t *start)
{
    const insee_selection_vtable *vt = ctx->plugin->vtable;
    for (uint32_t q = 0; q <= MAX_QUEUE; q++)
        start[q] = UNSET;
    /* The kernel hands no array at all for an empty queue or no running job. */
    return vt->select(inst->self, sc->now, sc->free_nodes, NODES, sc->queued ? sc->queue : NULL,
                      sc->queued, sc->n_running ? sc->running : NULL, sc->n_running, start);
}

/* Each scenario's answer, to `judge` with the scenario, its start[] and
   count, the findings and a label naming the setting. */
typedef void (*answer_fn)(const scenario *sc, const uint32_t *start, uint32_t n,
                          conform_findings *f, const char *setting);

static void each_answer(const conform_ctx *ctx, const conform_instance *inst,
                       conform_findings *f, answer_fn judge)
{
    for (size_t i = 0; all_scenarios(i); i++) {
        uint32_t start[MAX_QUEUE + 1];
        uint32_t n = run(ctx, inst, all_scenarios(i), start);
        judge(all_scenarios(i), start, n, f, inst->setting->label);
    }
}

static void fits(const scenario *sc, const uint32_t *start, uint32_t n, conform_findings *f,
                 const char *setting)
{
    char *where = g_strdup_printf("%s, %s", setting, sc->what);
    uint64_t want = 0;
    if (n > sc->queued)
        conform_note(f, where, "select() started %u jobs of a queue of %u", n, sc->queued);
    for (uint32_t k = 0; k < n && k < sc->queued; k++) {
        if (start[k] >= sc->queued)
            conform_note(f, where, "start[%u] is %u, outside the queue of %u", k, start[k],
                         sc->queued);
        else
            want += sc->queue[start[k]].nodes;
    }
    if (want > sc->free_nodes)
        conform_note(f, where, "the %u jobs started need %" G_GUINT64_FORMAT " nodes, %u are free",
                     n, want, sc->free_nodes);
    g_free(where);
}

static void fits_on(const conform_ctx *ctx, const conform_instance *inst, conform_findings *f,
                    void *data)
{
    (void)data;
    each_answer(ctx, inst, f, fits);
}

static conform_status check_fits(conform_ctx *ctx, GString *detail)
{
    return conform_each_instance(ctx, detail, fits_on, NULL);
}

static void once(const scenario *sc, const uint32_t *start, uint32_t n, conform_findings *f,
                 const char *setting)
{
    bool seen[MAX_QUEUE] = {false};
    for (uint32_t k = 0; k < n && k < sc->queued; k++) {
        if (start[k] >= sc->queued)
            continue; /* select.fits reports it */
        if (seen[start[k]])
            conform_note(f, setting, "%s: job %u started twice", sc->what, start[k]);
        seen[start[k]] = true;
    }
}

static void once_on(const conform_ctx *ctx, const conform_instance *inst, conform_findings *f,
                    void *data)
{
    (void)data;
    each_answer(ctx, inst, f, once);
}

static conform_status check_once(conform_ctx *ctx, GString *detail)
{
    return conform_each_instance(ctx, detail, once_on, NULL);
}

/* Each scenario twice, the others in between: state kept from one call to
   the next shows as a different answer. */
static void deterministic_on(const conform_ctx *ctx, const conform_instance *inst,
                             conform_findings *f, void *data)
{
    (void)data;
    enum { N = G_N_ELEMENTS(idle) + G_N_ELEMENTS(busy) };
    uint32_t first[N][MAX_QUEUE + 1], count[N];
    for (size_t i = 0; i < N; i++)
        count[i] = run(ctx, inst, all_scenarios(i), first[i]);
    for (size_t i = 0; i < N; i++) {
        uint32_t again[MAX_QUEUE + 1];
        uint32_t n = run(ctx, inst, all_scenarios(i), again);
        if (n != count[i] || memcmp(again, first[i], sizeof again) != 0)
            conform_note(f, inst->setting->label,
                         "%s: the same queue and state started %u jobs, then %u (or other ones)",
                         all_scenarios(i)->what, count[i], n);
    }
}

static conform_status check_deterministic(conform_ctx *ctx, GString *detail)
{
    return conform_each_instance(ctx, detail, deterministic_on, NULL);
}

static void idle_on(const conform_ctx *ctx, const conform_instance *inst, conform_findings *f,
                    void *data)
{
    (void)data;
    for (size_t i = 0; i < G_N_ELEMENTS(idle); i++) {
        uint32_t start[MAX_QUEUE + 1];
        if (run(ctx, inst, &idle[i], start) == 0)
            conform_note(f, inst->setting->label, "%s: select() started nothing", idle[i].what);
    }
}

static conform_status check_idle(conform_ctx *ctx, GString *detail)
{
    return conform_each_instance(ctx, detail, idle_on, NULL);
}

static void empty_on(const conform_ctx *ctx, const conform_instance *inst, conform_findings *f,
                     void *data)
{
    (void)data;
    static const scenario empty[] = {
        {"empty queue, idle machine", 0, NODES, 0, {{0}}, 0, {{0}}},
        {"empty queue, two running jobs", 9, 4, 0, {{0}}, 2, {R(8, 20), R(4, INFINITY)}},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(empty); i++) {
        uint32_t start[MAX_QUEUE + 1];
        uint32_t n = run(ctx, inst, &empty[i], start);
        if (n != 0)
            conform_note(f, inst->setting->label, "%s: select() started %u jobs", empty[i].what, n);
    }
}

static conform_status check_empty(conform_ctx *ctx, GString *detail)
{
    return conform_each_instance(ctx, detail, empty_on, NULL);
}

static const conform_check selection_checks[] = {
    {"select.create", CONFORM_ERROR, "create() succeeds at the defaults (and at every choice of its enums)",
     "fill err with what is wrong; defaults must work", check_create},
    {"select.fits", CONFORM_ERROR,
     "select() names only queued jobs, and the jobs it starts fit the free nodes (idle machine, "
     "wide head, running jobs with and without estimates, nothing free)",
     "subtract each started job's nodes from free_nodes before starting the next; start[] holds "
     "queue indices", check_fits},
    {"select.once", CONFORM_ERROR, "select() names no job twice in one answer",
     "mark the jobs already started, e.g. when a second pass over the queue backfills", check_once},
    {"select.deterministic", CONFORM_ERROR,
     "the same queue, running jobs and time give the same jobs, whatever was asked before",
     "keep no state between calls and draw nothing random: the answer must follow from the arguments",
     check_deterministic},
    {"select.idle-start", CONFORM_ERROR,
     "on an idle machine (nothing running, every queued job fits) select() starts a job",
     "the kernel ends the run when select() starts nothing on an idle machine: the queue would "
     "wait for ever; start at least the head", check_idle},
    {"select.empty-queue", CONFORM_WARNING,
     "with an empty queue (NULL queue, queued = 0) select() starts nothing",
     "return 0 when queued is 0 (the kernel does not call it so, other drivers may)", check_empty},
};

const conform_suite conform_selection_suite =
    CONFORM_SUITE(INSEE_KIND_SELECTION, selection_checks, conform_validate_own, conform_instances_cleanup);
