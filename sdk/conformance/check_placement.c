/* sdk/conformance/check_placement.c — the placement suite: place() on the
 * mock host's 16 nodes (a 4x4 torus, coordinates available), with every node
 * available, with some taken by another application, and with more tasks
 * than free nodes.
 */
#include <string.h>

#include "conform.h"

#define NODES CONFORM_MOCK_NODES
#define UNSET UINT32_MAX

/* A machine: which nodes are free, and how many tasks ask for them. */
typedef struct scenario {
    const char *what;
    uint32_t tasks;
    uint32_t taken_every; /* node n is taken when n % taken_every == 0; 0: all free */
    uint32_t taken_from;  /* ... and n % taken_every is compared with this */
} scenario;

static const scenario fitting[] = {
    {"16 tasks on 16 free nodes", 16, 0, 0},
    {"8 tasks on the 8 even nodes", 8, 2, 1},
    {"5 tasks on 10 free nodes (every third taken)", 5, 3, 0},
    {"1 task on 16 free nodes", 1, 0, 0},
};

static const scenario overfull[] = {
    {"17 tasks on 16 free nodes", 17, 0, 0},
    {"9 tasks on the 8 even nodes", 9, 2, 1},
};

/* What a check does with one instance on one scenario. */
typedef void (*scenario_fn)(const insee_placement_vtable *vt, const conform_instance *inst,
                            const scenario *sc, conform_findings *f);

/* The scenarios a check puts every instance through, and what it does on each. */
typedef struct scenario_plan {
    const scenario *list;
    size_t n;
    scenario_fn visit;
} scenario_plan;

static conform_status check_create(conform_ctx *ctx, GString *detail)
{
    const insee_placement_vtable *vt = ctx->plugin->vtable;
    return conform_instances_setup(ctx, TRUE, FALSE, vt->create, vt->destroy, detail);
}

static void each_scenario(const conform_ctx *ctx, const conform_instance *inst, conform_findings *f,
                          void *data)
{
    const scenario_plan *plan = data;
    for (size_t s = 0; s < plan->n; s++)
        plan->visit(ctx->plugin->vtable, inst, &plan->list[s], f);
}

/* Put every instance through the `n` scenarios of `list`. */
static conform_status check_scenarios(const conform_ctx *ctx, GString *detail,
                                      const scenario *list, size_t n, scenario_fn visit)
{
    scenario_plan plan = {list, n, visit};
    return conform_each_instance(ctx, detail, each_scenario, &plan);
}

/* Run place() on a scenario; task_node has room for sc->tasks, preset UNSET. */
static bool run(const insee_placement_vtable *vt, const conform_instance *inst, const scenario *sc,
                bool *available, uint32_t *task_node, insee_error *err)
{
    for (uint32_t n = 0; n < NODES; n++)
        available[n] = !(sc->taken_every && n % sc->taken_every == sc->taken_from);
    for (uint32_t t = 0; t < sc->tasks; t++)
        task_node[t] = UNSET;
    insee_rng rng;
    insee_rng_init(&rng, CONFORM_SEED, 1);
    *err = (insee_error){0};
    return vt->place(inst->self, sc->tasks, available, NODES, task_node, &rng, err);
}

static void bijection_on(const insee_placement_vtable *vt, const conform_instance *inst,
                         const scenario *sc, conform_findings *f)
{
    bool available[NODES];
    uint32_t task_node[NODES];
    insee_error err;
    char *where = g_strdup_printf("%s, %s", inst->setting->label, sc->what);
    if (!run(vt, inst, sc, available, task_node, &err)) {
        conform_note(f, where, "place() failed: %s", err.message);
        g_free(where);
        return;
    }
    uint32_t owner[NODES];
    memset(owner, 0xff, sizeof owner);
    for (uint32_t t = 0; t < sc->tasks; t++) {
        uint32_t n = task_node[t];
        if (n >= NODES)
            conform_note(f, where, "task %u was put on node %u (of %u)", t, n, NODES);
        else if (!available[n])
            conform_note(f, where, "task %u was put on node %u, which is not available", t, n);
        else if (owner[n] != UNSET)
            conform_note(f, where, "tasks %u and %u were both put on node %u", owner[n], t, n);
        else
            owner[n] = t;
    }
    g_free(where);
}

static conform_status check_bijection(conform_ctx *ctx, GString *detail)
{
    return check_scenarios(ctx, detail, fitting, G_N_ELEMENTS(fitting), bijection_on);
}

static void too_many_on(const insee_placement_vtable *vt, const conform_instance *inst,
                        const scenario *sc, conform_findings *f)
{
    bool available[NODES];
    uint32_t task_node[NODES + 1];
    insee_error err;
    if (run(vt, inst, sc, available, task_node, &err))
        conform_note(f, inst->setting->label, "%s: place() returned true", sc->what);
    else if (err.code == INSEE_ERR_NONE || !err.message[0])
        conform_note(f, inst->setting->label, "%s: place() returned false without filling err",
                     sc->what);
}

static conform_status check_too_many(conform_ctx *ctx, GString *detail)
{
    return check_scenarios(ctx, detail, overfull, G_N_ELEMENTS(overfull), too_many_on);
}

static void deterministic_on(const insee_placement_vtable *vt, const conform_instance *inst,
                             const scenario *sc, conform_findings *f)
{
    bool available[NODES];
    uint32_t a[NODES], b[NODES];
    insee_error err;
    bool ok_a = run(vt, inst, sc, available, a, &err);
    bool ok_b = run(vt, inst, sc, available, b, &err);
    if (ok_a != ok_b || memcmp(a, b, sizeof(uint32_t) * sc->tasks) != 0)
        conform_note(f, inst->setting->label,
                     "%s: two calls with the same rng stream placed the tasks differently", sc->what);
}

static conform_status check_deterministic(conform_ctx *ctx, GString *detail)
{
    return check_scenarios(ctx, detail, fitting, G_N_ELEMENTS(fitting), deterministic_on);
}

static const conform_check placement_checks[] = {
    {"place.create", CONFORM_ERROR, "create() succeeds at the defaults (and at every choice of its enums)",
     "fill err with what is wrong; defaults must work", check_create},
    {"place.bijection", CONFORM_ERROR,
     "place() puts each task on its own available node (all free, half taken, fewer tasks than nodes)",
     "skip nodes whose available[] is false, and never reuse a node", check_bijection},
    {"place.too-many", CONFORM_ERROR,
     "with more tasks than available nodes place() returns false and fills err",
     "count the available nodes first and fail with a message saying how many are missing",
     check_too_many},
    {"place.deterministic", CONFORM_ERROR, "the same rng stream gives the same placement",
     "draw randomness only from the rng argument; keep no state between calls", check_deterministic},
};

const conform_suite conform_placement_suite =
    CONFORM_SUITE(INSEE_KIND_PLACEMENT, placement_checks, conform_validate_own, conform_instances_cleanup);
