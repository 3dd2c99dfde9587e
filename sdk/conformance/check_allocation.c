/* sdk/conformance/check_allocation.c — the allocation suite: allocate() on
 * the mock host's 16 nodes (a 4x4 torus, coordinates and distances
 * available), with every node free, with some held by running jobs, and
 * with fewer free nodes than the job asks for.
 */
#include <string.h>

#include "conform.h"

#define NODES CONFORM_MOCK_NODES
#define UNSET UINT32_MAX

/* A machine: which nodes are free, and how many nodes a job asks for. */
typedef struct scenario {
    const char *what;
    uint32_t count;
    uint32_t taken; /* bit n: node n is held by a running job */
} scenario;

static const scenario fitting[] = {
    {"16 nodes of 16 free", 16, 0},
    {"4 nodes, the odd nodes taken", 4, 0xaaaa},
    {"5 nodes, every third taken", 5, 0x9249},
    {"1 node of 16 free", 1, 0},
    {"4 nodes, a 2x2 block and row 3 taken", 4, 0xf033},
    {"3 nodes, all but 3 taken", 3, 0xfffe & ~0x0420u},
};

static const scenario too_few[] = {
    {"17 nodes of 16 free", 17, 0},
    {"9 nodes, the odd nodes taken", 9, 0xaaaa},
    {"1 node, none free", 1, 0xffff},
};

static conform_status check_create(conform_ctx *ctx, GString *detail)
{
    const insee_allocation_vtable *vt = ctx->plugin->vtable;
    return conform_instances_setup(ctx, TRUE, FALSE, vt->create, vt->destroy, detail);
}

/* allocate() on a scenario with the rng stream of job `job`; out[] has room
   for NODES + 1 and is preset UNSET, so a write past out[count - 1] shows. */
static bool run(const conform_ctx *ctx, const conform_instance *inst, const scenario *sc,
                uint64_t job, bool *free_nodes, uint32_t *out, insee_error *err)
{
    const insee_allocation_vtable *vt = ctx->plugin->vtable;
    for (uint32_t n = 0; n < NODES; n++)
        free_nodes[n] = !(sc->taken >> n & 1);
    for (uint32_t i = 0; i <= NODES; i++)
        out[i] = UNSET;
    insee_rng rng;
    insee_rng_init(&rng, CONFORM_SEED, job);
    *err = (insee_error){0};
    return vt->allocate(inst->self, sc->count, free_nodes, NODES, out, &rng, err);
}

/* What a check does with one instance on one fitting scenario, given what
   allocate() wrote. */
typedef void (*fitting_fn)(const scenario *sc, const bool *free_nodes, const uint32_t *out,
                           const char *where, conform_findings *f);

static void each_fitting(const conform_ctx *ctx, const conform_instance *inst, conform_findings *f,
                         void *data)
{
    fitting_fn visit = *(const fitting_fn *)data;
    for (size_t s = 0; s < G_N_ELEMENTS(fitting); s++) {
        const scenario *sc = &fitting[s];
        bool free_nodes[NODES];
        uint32_t out[NODES + 1];
        insee_error err;
        char *where = g_strdup_printf("%s, %s", inst->setting->label, sc->what);
        if (run(ctx, inst, sc, 1, free_nodes, out, &err))
            visit(sc, free_nodes, out, where, f);
        else
            conform_note(f, where, "allocate() failed: %s", err.message);
        g_free(where);
    }
}

static void count_on(const scenario *sc, const bool *free_nodes, const uint32_t *out,
                     const char *where, conform_findings *f)
{
    (void)free_nodes;
    for (uint32_t i = 0; i < sc->count; i++)
        if (out[i] == UNSET)
            conform_note(f, where, "out[%u] of %u was left unwritten", i, sc->count);
    if (out[sc->count] != UNSET)
        conform_note(f, where, "out[%u] was written: %u nodes were asked", sc->count, sc->count);
}

static conform_status check_count(conform_ctx *ctx, GString *detail)
{
    static const fitting_fn visit = count_on;
    return conform_each_instance(ctx, detail, each_fitting, (void *)&visit);
}

static void free_distinct_on(const scenario *sc, const bool *free_nodes, const uint32_t *out,
                             const char *where, conform_findings *f)
{
    bool given[NODES] = {false};
    for (uint32_t i = 0; i < sc->count; i++) {
        uint32_t n = out[i];
        if (n == UNSET)
            continue; /* alloc.count reports it */
        if (n >= NODES)
            conform_note(f, where, "out[%u] is node %u, of %u", i, n, NODES);
        else if (!free_nodes[n])
            conform_note(f, where, "out[%u] is node %u, which is not free", i, n);
        else if (given[n])
            conform_note(f, where, "node %u was given twice", n);
        else
            given[n] = true;
    }
}

static conform_status check_free_distinct(conform_ctx *ctx, GString *detail)
{
    static const fitting_fn visit = free_distinct_on;
    return conform_each_instance(ctx, detail, each_fitting, (void *)&visit);
}

static void too_few_on(const conform_ctx *ctx, const conform_instance *inst, conform_findings *f,
                       void *data)
{
    (void)data;
    for (size_t s = 0; s < G_N_ELEMENTS(too_few); s++) {
        bool free_nodes[NODES];
        uint32_t out[NODES + 1];
        insee_error err;
        /* 17 nodes do not fit out[]: allocate() may write none of them. */
        if (run(ctx, inst, &too_few[s], 1, free_nodes, out, &err))
            conform_note(f, inst->setting->label, "%s: allocate() returned true", too_few[s].what);
        else if (err.code == INSEE_ERR_NONE || !err.message[0])
            conform_note(f, inst->setting->label, "%s: allocate() returned false without filling err",
                         too_few[s].what);
    }
}

static conform_status check_too_few(conform_ctx *ctx, GString *detail)
{
    return conform_each_instance(ctx, detail, too_few_on, NULL);
}

/* Every scenario with the streams of jobs 1 and 2, then again in the same
   order: the same stream must give the same nodes. */
static void deterministic_on(const conform_ctx *ctx, const conform_instance *inst,
                             conform_findings *f, void *data)
{
    (void)data;
    enum { N = G_N_ELEMENTS(fitting) };
    uint32_t first[2][N][NODES + 1];
    bool free_nodes[NODES];
    insee_error err;
    for (int pass = 0; pass < 2; pass++)
        for (uint64_t job = 1; job <= 2; job++)
            for (size_t s = 0; s < N; s++) {
                uint32_t out[NODES + 1];
                run(ctx, inst, &fitting[s], job, free_nodes, out, &err);
                if (pass == 0)
                    memcpy(first[job - 1][s], out, sizeof out);
                else if (memcmp(first[job - 1][s], out, sizeof out) != 0)
                    conform_note(f, inst->setting->label,
                                 "%s: the same rng stream (job %" G_GUINT64_FORMAT
                                 ") gave other nodes the second time",
                                 fitting[s].what, job);
            }
}

static conform_status check_deterministic(conform_ctx *ctx, GString *detail)
{
    return conform_each_instance(ctx, detail, deterministic_on, NULL);
}

static const conform_check allocation_checks[] = {
    {"alloc.create", CONFORM_ERROR, "create() succeeds at the defaults (and at every choice of its enums)",
     "fill err with what is wrong; defaults must work", check_create},
    {"alloc.count", CONFORM_ERROR,
     "allocate() writes exactly the count of nodes asked into out[], none past it",
     "out[] has room for count nodes only (the kernel's buffer): write out[0] to out[count - 1]",
     check_count},
    {"alloc.free-distinct", CONFORM_ERROR,
     "the nodes allocate() gives are free and distinct (all free, some taken, fewer asked than free)",
     "skip nodes whose free[] is false, and never give a node twice", check_free_distinct},
    {"alloc.too-few", CONFORM_ERROR,
     "with fewer free nodes than asked allocate() returns false and fills err",
     "count the free nodes first and fail with a message saying how many are missing", check_too_few},
    {"alloc.deterministic", CONFORM_ERROR, "the same free nodes and rng stream give the same nodes",
     "draw randomness only from the rng argument; keep no state between calls", check_deterministic},
};

const conform_suite conform_allocation_suite =
    CONFORM_SUITE(INSEE_KIND_ALLOCATION, allocation_checks, conform_validate_own, conform_instances_cleanup);
