/* profile.h — the free nodes over time that backfilling reasons with
 * (INRFlow §3.4): from now, the nodes free now plus those each running job
 * frees at its estimated end, less the reservations made so far. Compiled
 * into each selection plugin that includes it (docs/architecture.md §3). */
#ifndef INSEE_SCHED_PROFILE_H
#define INSEE_SCHED_PROFILE_H

#include <insee/insee.h>

#include <math.h>
#include <stdlib.h>

/* Over [at[k], at[k + 1]) `free[k]` nodes are free; the last step lasts for ever. */
typedef struct profile {
    double *at;
    int64_t *free;
    uint32_t len, cap;
} profile;

static int profile_by_end(const void *a, const void *b)
{
    const insee_running_job *x = a, *y = b;
    return x->end < y->end ? -1 : x->end > y->end;
}

static bool profile_grow(profile *p)
{
    if (p->len < p->cap)
        return true;
    uint32_t cap = p->cap ? 2 * p->cap : 16;
    double *at = realloc(p->at, sizeof *at * cap);
    if (at)
        p->at = at;
    int64_t *fr = realloc(p->free, sizeof *fr * cap);
    if (fr)
        p->free = fr;
    if (!at || !fr)
        return false;
    p->cap = cap;
    return true;
}

/* The step that holds time t, splitting one so that a step starts at t. */
static int64_t profile_split(profile *p, double t)
{
    uint32_t k = 0;
    while (k + 1 < p->len && p->at[k + 1] <= t)
        k++;
    if (p->at[k] == t)
        return k;
    if (!profile_grow(p))
        return -1;
    for (uint32_t j = p->len; j > k + 1; j--) {
        p->at[j] = p->at[j - 1];
        p->free[j] = p->free[j - 1];
    }
    p->at[k + 1] = t;
    p->free[k + 1] = p->free[k];
    p->len++;
    return k + 1;
}

/* A job past its estimate may end at any moment, but not before now: its
   nodes count from just after now. False when out of memory. */
static bool profile_init(profile *p, double now, uint32_t free_nodes,
                         const insee_running_job *running, uint32_t n_running)
{
    *p = (profile){0};
    insee_running_job *r = malloc(sizeof *r * (n_running + 1));
    if (!r || !profile_grow(p)) {
        free(r);
        return false;
    }
    for (uint32_t i = 0; i < n_running; i++)
        r[i] = running[i];
    qsort(r, n_running, sizeof *r, profile_by_end);
    p->at[0] = now;
    p->free[0] = free_nodes;
    p->len = 1;
    bool ok = true;
    for (uint32_t i = 0; ok && i < n_running && isfinite(r[i].end); i++) {
        double end = r[i].end > now ? r[i].end : nextafter(now, INFINITY);
        int64_t k = profile_split(p, end);
        ok = k >= 0;
        for (uint32_t j = (uint32_t)(ok ? k : 0); ok && j < p->len; j++)
            p->free[j] += r[i].nodes;
    }
    free(r);
    return ok;
}

static void profile_clear(profile *p)
{
    free(p->at);
    free(p->free);
}

/* The earliest step start t at which `nodes` stay free over [t, t + dur);
   INFINITY when never. */
static double profile_earliest(const profile *p, uint32_t nodes, double dur)
{
    for (uint32_t k = 0; k < p->len; k++) {
        double end = p->at[k] + dur;
        bool fits = true;
        for (uint32_t j = k; fits && j < p->len && p->at[j] < end; j++)
            fits = p->free[j] >= (int64_t)nodes;
        if (fits)
            return p->at[k];
    }
    return INFINITY;
}

/* Hold `nodes` over [t, t + dur). False when out of memory. */
static bool profile_reserve(profile *p, double t, double dur, uint32_t nodes)
{
    double end = t + dur;
    if (profile_split(p, t) < 0 || (isfinite(end) && profile_split(p, end) < 0))
        return false;
    for (uint32_t j = 0; j < p->len; j++)
        if (p->at[j] >= t && p->at[j] < end)
            p->free[j] -= nodes;
    return true;
}

/* Backfilling in queue order (EASY and conservative): a job starts now when
   the profile holds its nodes from now for its estimated run time; the
   first `reservations` jobs that cannot (all of them: conservative; one:
   EASY) hold their nodes at their earliest time. A job whose earliest time
   is unknown (running jobs without an estimate hold the nodes it needs)
   gets no reservation, and nothing after it starts: it could be delayed
   for ever. Returns the jobs started. */
static uint32_t profile_backfill(double now, uint32_t free_nodes, const insee_job *queue,
                                 uint32_t queued, const insee_running_job *running,
                                 uint32_t n_running, uint32_t reservations, uint32_t *start)
{
    profile p;
    uint32_t n = 0;
    if (!profile_init(&p, now, free_nodes, running, n_running))
        return 0;
    for (uint32_t q = 0; q < queued; q++) {
        double t = profile_earliest(&p, queue[q].nodes, queue[q].estimate);
        bool now_fits = t == now;
        if (isinf(t) && reservations > 0)
            break;
        if (!now_fits && reservations == 0)
            continue;
        if (!now_fits)
            reservations--;
        if (!profile_reserve(&p, t, queue[q].estimate, queue[q].nodes))
            break;
        if (now_fits)
            start[n++] = q;
    }
    profile_clear(&p);
    return n;
}

#endif
