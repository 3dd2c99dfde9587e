/* sdk/conformance/check_placement.c — the placement suite: place() on the
 * mock host's 16 nodes (a 4x4 torus, coordinates available), with every node
 * available, with some taken by another application, and with more tasks
 * than free nodes.
 */
#include <string.h>

#include "conform.h"

#define NODES CONFORM_MOCK_NODES
#define UNSET UINT32_MAX

typedef struct place_state {
    conform_mock mock;
    const insee_placement_vtable *vt;
    GPtrArray *settings;
    GPtrArray *instances;
} place_state;

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

static void place_cleanup(conform_ctx *ctx)
{
    place_state *st = ctx->state;
    if (!st)
        return;
    conform_instances_free(st->instances, st->vt->destroy);
    g_ptr_array_free(st->settings, TRUE);
    g_free(st);
    ctx->state = NULL;
}

static conform_status check_create(conform_ctx *ctx, GString *detail)
{
    place_state *st = g_new0(place_state, 1);
    ctx->state = st;
    st->vt = ctx->plugin->vtable;
    conform_mock_init(&st->mock, TRUE);
    st->settings = conform_settings(ctx, FALSE);
    st->instances = g_ptr_array_new();
    return conform_create_all(ctx, st->settings, &st->mock.host, st->vt->create, st->instances,
                              detail);
}

static place_state *state(conform_ctx *ctx, GString *detail)
{
    place_state *st = ctx->state;
    if (st && st->instances->len > 0)
        return st;
    g_string_assign(detail, "no instance to check (see place.create)");
    return NULL;
}

/* Run place() on a scenario; task_node has room for sc->tasks, preset UNSET. */
static bool run(const place_state *st, const conform_instance *inst, const scenario *sc,
                bool *available, uint32_t *task_node, insee_error *err)
{
    for (uint32_t n = 0; n < NODES; n++)
        available[n] = !(sc->taken_every && n % sc->taken_every == sc->taken_from);
    for (uint32_t t = 0; t < sc->tasks; t++)
        task_node[t] = UNSET;
    insee_rng rng;
    insee_rng_init(&rng, CONFORM_SEED, 1);
    *err = (insee_error){0};
    return st->vt->place(inst->self, sc->tasks, available, NODES, task_node, &rng, err);
}

static conform_status check_bijection(conform_ctx *ctx, GString *detail)
{
    place_state *st = state(ctx, detail);
    if (!st)
        return CONFORM_SKIP;
    conform_findings f = {detail, 0};
    for (guint i = 0; i < st->instances->len; i++) {
        const conform_instance *inst = st->instances->pdata[i];
        for (size_t s = 0; s < G_N_ELEMENTS(fitting); s++) {
            const scenario *sc = &fitting[s];
            bool available[NODES];
            uint32_t task_node[NODES];
            insee_error err;
            char *where = g_strdup_printf("%s, %s", inst->setting->label, sc->what);
            if (!run(st, inst, sc, available, task_node, &err)) {
                conform_note(&f, where, "place() failed: %s", err.message);
                g_free(where);
                continue;
            }
            uint32_t owner[NODES];
            memset(owner, 0xff, sizeof owner);
            for (uint32_t t = 0; t < sc->tasks; t++) {
                uint32_t n = task_node[t];
                if (n >= NODES)
                    conform_note(&f, where, "task %u was put on node %u (of %u)", t, n, NODES);
                else if (!available[n])
                    conform_note(&f, where, "task %u was put on node %u, which is not available", t, n);
                else if (owner[n] != UNSET)
                    conform_note(&f, where, "tasks %u and %u were both put on node %u", owner[n], t, n);
                else
                    owner[n] = t;
            }
            g_free(where);
        }
    }
    return conform_verdict(&f);
}

static conform_status check_too_many(conform_ctx *ctx, GString *detail)
{
    place_state *st = state(ctx, detail);
    if (!st)
        return CONFORM_SKIP;
    conform_findings f = {detail, 0};
    for (guint i = 0; i < st->instances->len; i++) {
        const conform_instance *inst = st->instances->pdata[i];
        for (size_t s = 0; s < G_N_ELEMENTS(overfull); s++) {
            const scenario *sc = &overfull[s];
            bool available[NODES];
            uint32_t task_node[NODES + 1];
            insee_error err;
            if (run(st, inst, sc, available, task_node, &err))
                conform_note(&f, inst->setting->label, "%s: place() returned true", sc->what);
            else if (err.code == INSEE_ERR_NONE || !err.message[0])
                conform_note(&f, inst->setting->label,
                             "%s: place() returned false without filling err", sc->what);
        }
    }
    return conform_verdict(&f);
}

static conform_status check_deterministic(conform_ctx *ctx, GString *detail)
{
    place_state *st = state(ctx, detail);
    if (!st)
        return CONFORM_SKIP;
    conform_findings f = {detail, 0};
    for (guint i = 0; i < st->instances->len; i++) {
        const conform_instance *inst = st->instances->pdata[i];
        for (size_t s = 0; s < G_N_ELEMENTS(fitting); s++) {
            bool available[NODES];
            uint32_t a[NODES], b[NODES];
            insee_error err;
            bool ok_a = run(st, inst, &fitting[s], available, a, &err);
            bool ok_b = run(st, inst, &fitting[s], available, b, &err);
            if (ok_a != ok_b || memcmp(a, b, sizeof(uint32_t) * fitting[s].tasks) != 0)
                conform_note(&f, inst->setting->label,
                             "%s: two calls with the same rng stream placed the tasks differently",
                             fitting[s].what);
        }
    }
    return conform_verdict(&f);
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

const conform_suite conform_placement_suite = {
    .kind = INSEE_KIND_PLACEMENT,
    .checks = placement_checks,
    .n_checks = G_N_ELEMENTS(placement_checks),
    .cleanup = place_cleanup,
};
