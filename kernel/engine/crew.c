/* kernel/engine/crew.c — see crew.h. */
#include "engine/crew.h"

#include "engine/spin.h"

struct insee_crew {
    uint32_t workers, min_items, spins;
    GThread **threads;
    /* The current job, published by bumping `generation`. */
    insee_crew_fn fn;
    void *ctx;
    uint32_t n;
    gint generation;
    gint done;     /* workers (besides the caller) that finished this job */
    gint quit;
    uint64_t shared; /* jobs run by the whole crew */
    /* Sleeping workers wait here for the next generation. */
    GMutex lock;
    GCond wake;
    gint sleepers;
};

typedef struct worker_arg {
    insee_crew *crew;
    uint32_t index;
} worker_arg;

static void run_chunk(insee_crew *c, uint32_t w)
{
    uint64_t n = c->n;
    uint32_t from = (uint32_t)(n * w / c->workers), to = (uint32_t)(n * (w + 1) / c->workers);
    if (from < to)
        c->fn(c->ctx, w, from, to);
}

/* The generation after `seen`, once published: spinning, then asleep. */
static gint next_job(insee_crew *c, gint seen)
{
    for (uint32_t spin = 0; spin < c->spins; spin++) {
        gint g = g_atomic_int_get(&c->generation);
        if (g != seen)
            return g;
        insee_spin_pause(spin);
    }
    g_mutex_lock(&c->lock);
    g_atomic_int_inc(&c->sleepers); /* atomic as well: read by publish() */
    gint g;
    while ((g = g_atomic_int_get(&c->generation)) == seen)
        g_cond_wait(&c->wake, &c->lock);
    g_atomic_int_add(&c->sleepers, -1);
    g_mutex_unlock(&c->lock);
    return g;
}

static gpointer worker_main(gpointer data)
{
    worker_arg *arg = data;
    insee_crew *c = arg->crew;
    uint32_t w = arg->index;
    g_free(arg);
    for (gint seen = 0;;) {
        seen = next_job(c, seen);
        if (g_atomic_int_get(&c->quit))
            return NULL;
        run_chunk(c, w);
        g_atomic_int_inc(&c->done);
    }
}

/* Publish the next generation and wake the sleepers. */
static void publish(insee_crew *c)
{
    g_atomic_int_inc(&c->generation);
    g_mutex_lock(&c->lock);
    if (g_atomic_int_get(&c->sleepers))
        g_cond_broadcast(&c->wake);
    g_mutex_unlock(&c->lock);
}

insee_crew *insee_crew_new(uint32_t workers, uint32_t min_items, uint32_t spins, GError **err)
{
    g_return_val_if_fail(workers >= 2, NULL);
    insee_crew *c = g_new0(insee_crew, 1);
    c->workers = workers;
    c->min_items = min_items;
    c->spins = spins;
    c->threads = g_new0(GThread *, workers);
    g_mutex_init(&c->lock);
    g_cond_init(&c->wake);
    for (uint32_t w = 1; w < workers; w++) {
        worker_arg *arg = g_new(worker_arg, 1);
        *arg = (worker_arg){c, w};
        c->threads[w] = g_thread_try_new("insee-crew", worker_main, arg, err);
        if (!c->threads[w]) {
            g_free(arg);
            insee_crew_free(c);
            return NULL;
        }
    }
    return c;
}

uint64_t insee_crew_shared(const insee_crew *crew)
{
    return crew->shared;
}

void insee_crew_run(insee_crew *c, insee_crew_fn fn, void *ctx, uint32_t n)
{
    if (n < c->min_items) {
        if (n)
            fn(ctx, 0, 0, n);
        return;
    }
    c->fn = fn;
    c->ctx = ctx;
    c->n = n;
    c->shared++;
    g_atomic_int_set(&c->done, 0);
    publish(c);
    run_chunk(c, 0);
    for (uint32_t spin = 0; (uint32_t)g_atomic_int_get(&c->done) < c->workers - 1; spin++)
        insee_spin_pause(spin);
}

void insee_crew_free(insee_crew *c)
{
    if (!c)
        return;
    g_atomic_int_set(&c->quit, 1);
    publish(c);
    for (uint32_t w = 1; w < c->workers; w++)
        if (c->threads[w])
            g_thread_join(c->threads[w]);
    g_mutex_clear(&c->lock);
    g_cond_clear(&c->wake);
    g_free(c->threads);
    g_free(c);
}
