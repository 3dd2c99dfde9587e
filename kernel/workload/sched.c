/* kernel/workload/sched.c — the job queue, selection, allocation and the
 * figures of a stream of jobs (INRFlow §3.4; docs/scheduling.md).
 *
 * The scheduler keeps the jobs in arrival order (ties in configuration
 * order). At an instant with an arrival or a completion it asks the selection
 * plugin once which queued jobs start, checks that they fit, and has the
 * allocation plugin pick each one's nodes from those free, drawing from a
 * stream of the experiment's seed per job. Which engine runs the jobs, and in
 * which unit, is the caller's (sched.h). */
#include "workload/sched.h"

#include <math.h>
#include <string.h>

struct insee_sched {
    insee_sched_plugins p;
    insee_job_rec *jobs;
    uint32_t n, nodes;
    uint32_t *order;     /* jobs by arrival */
    uint32_t arrived;    /* of `order`, those queued or past */
    GArray *queue;       /* uint32_t jobs, arrival order */
    bool *free;
    uint32_t free_nodes;
    uint32_t running, done;
    gboolean dirty;      /* an arrival or a completion since the last selection */
    double dirty_at;
    uint64_t seed;
    insee_sched_start_fn start;
    void *ctx;
    GArray *series_at;   /* double: when the busy node count changed */
    GArray *series_busy; /* uint32_t: to this */
};

static int by_arrival(const void *a, const void *b, void *jobs)
{
    const insee_job_rec *j = jobs;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    if (j[x].arrival != j[y].arrival)
        return j[x].arrival < j[y].arrival ? -1 : 1;
    return x < y ? -1 : x > y;
}

insee_sched *insee_sched_new(const insee_sched_plugins *plugins, const insee_job_rec *jobs,
                             uint32_t n, uint32_t nodes, uint64_t seed,
                             insee_sched_start_fn start, void *ctx)
{
    insee_sched *s = g_new0(insee_sched, 1);
    s->p = *plugins;
    s->jobs = g_memdup2(jobs, sizeof *jobs * n);
    s->n = n;
    s->nodes = nodes;
    s->order = g_new(uint32_t, n);
    for (uint32_t j = 0; j < n; j++) {
        s->order[j] = j;
        s->jobs[j].state = INSEE_JOB_FUTURE;
        s->jobs[j].node = NULL;
    }
    g_qsort_with_data(s->order, (gint)n, sizeof *s->order, by_arrival, s->jobs);
    s->queue = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    s->free = g_new(bool, nodes);
    for (uint32_t v = 0; v < nodes; v++)
        s->free[v] = true;
    s->free_nodes = nodes;
    s->seed = seed;
    s->start = start;
    s->ctx = ctx;
    s->series_at = g_array_new(FALSE, FALSE, sizeof(double));
    s->series_busy = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    return s;
}

void insee_sched_free(insee_sched *s)
{
    if (!s)
        return;
    for (uint32_t j = 0; j < s->n; j++)
        g_free(s->jobs[j].node);
    g_free(s->jobs);
    g_free(s->order);
    g_array_free(s->queue, TRUE);
    g_free(s->free);
    g_array_free(s->series_at, TRUE);
    g_array_free(s->series_busy, TRUE);
    g_free(s);
}

double insee_sched_next(const insee_sched *s)
{
    double next = s->arrived < s->n ? s->jobs[s->order[s->arrived]].arrival : INFINITY;
    return s->dirty ? MIN(next, s->dirty_at) : next;
}

static void mark(insee_sched *s, double at)
{
    if (!s->dirty || at < s->dirty_at)
        s->dirty_at = at;
    s->dirty = TRUE;
}

/* The busy node count changed at `at`: a step of the utilisation series. */
static void record_busy(insee_sched *s, double at)
{
    uint32_t busy = s->nodes - s->free_nodes;
    guint len = s->series_at->len;
    if (len && g_array_index(s->series_at, double, len - 1) == at) {
        g_array_index(s->series_busy, uint32_t, len - 1) = busy;
        return;
    }
    g_array_append_val(s->series_at, at);
    g_array_append_val(s->series_busy, busy);
}

/* Allocate job j's nodes and start it. */
static gboolean start_job(insee_sched *s, uint32_t j, double now, GError **err)
{
    insee_job_rec *job = &s->jobs[j];
    uint32_t *out = g_new(uint32_t, job->nodes);
    memset(out, 0xff, sizeof *out * job->nodes);
    insee_rng rng;
    insee_rng_init(&rng, s->seed, (33ull << 40) + j);
    insee_error perr = {0};
    if (!s->p.alloc->allocate(s->p.alloc_self, job->nodes, s->free, s->nodes, out, &rng, &perr)) {
        g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_FAILED,
                    "[scheduler] allocation '%s' gave no %u nodes to a job with %u of %u nodes "
                    "free: %s", s->p.alloc_name, job->nodes, s->free_nodes, s->nodes,
                    perr.code ? perr.message : "no reason");
        g_free(out);
        return FALSE;
    }
    for (uint32_t i = 0; i < job->nodes; i++) {
        if (out[i] >= s->nodes || !s->free[out[i]]) {
            g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_FAILED,
                        "[scheduler] allocation '%s' gave a job node %u, which is not free "
                        "(or given twice)", s->p.alloc_name, out[i]);
            for (uint32_t k = 0; k < i; k++)
                s->free[out[k]] = true;
            g_free(out);
            return FALSE;
        }
        s->free[out[i]] = false;
    }
    s->free_nodes -= job->nodes;
    job->node = out;
    job->start = now;
    job->state = INSEE_JOB_RUNNING;
    s->running++;
    record_busy(s, now);
    return s->start(s->ctx, j, out, err);
}

/* One selection: which queued jobs start now. */
static gboolean select_jobs(insee_sched *s, double now, GError **err)
{
    uint32_t queued = s->queue->len;
    insee_job *view = g_new(insee_job, queued);
    for (uint32_t q = 0; q < queued; q++) {
        const insee_job_rec *job = &s->jobs[g_array_index(s->queue, uint32_t, q)];
        view[q] = (insee_job){job->nodes, job->arrival, job->estimate};
    }
    insee_running_job *run = g_new(insee_running_job, s->running + 1);
    uint32_t r = 0;
    for (uint32_t j = 0; j < s->n; j++) {
        const insee_job_rec *job = &s->jobs[j];
        if (job->state == INSEE_JOB_RUNNING)
            run[r++] = (insee_running_job){job->nodes, MAX(job->start + job->estimate, now)};
    }
    uint32_t *pick = g_new(uint32_t, queued + 1);
    uint32_t n = s->p.sel->select(s->p.sel_self, now, s->free_nodes, s->nodes, view, queued, run,
                                  r, pick);
    gboolean ok = n <= queued;
    bool *taken = g_new0(bool, queued + 1);
    uint64_t want = 0;
    for (uint32_t i = 0; ok && i < n; i++) {
        ok = pick[i] < queued && !taken[pick[i]];
        if (ok) {
            taken[pick[i]] = true;
            want += view[pick[i]].nodes;
        }
    }
    if (!ok || want > s->free_nodes)
        g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_FAILED,
                    "[scheduler] selection '%s' started %u jobs of a queue of %u that need %"
                    G_GUINT64_FORMAT " nodes, with %u free (or named a job twice or outside "
                    "the queue)", s->p.sel_name, n, queued, want, s->free_nodes);
    uint32_t *started = g_new(uint32_t, n + 1);
    for (uint32_t i = 0; i < n; i++)
        started[i] = g_array_index(s->queue, uint32_t, ok ? pick[i] : 0);
    if (ok && want <= s->free_nodes) {
        GArray *rest = g_array_new(FALSE, FALSE, sizeof(uint32_t));
        for (uint32_t q = 0; q < queued; q++)
            if (!taken[q])
                g_array_append_val(rest, g_array_index(s->queue, uint32_t, q));
        g_array_free(s->queue, TRUE);
        s->queue = rest;
        for (uint32_t i = 0; ok && i < n; i++)
            ok = start_job(s, started[i], now, err);
    } else {
        ok = FALSE;
    }
    if (ok && s->running == 0 && s->queue->len) {
        g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_FAILED,
                    "[scheduler] selection '%s' started none of %u queued jobs on an idle "
                    "machine: they would wait for ever", s->p.sel_name, s->queue->len);
        ok = FALSE;
    }
    g_free(view);
    g_free(run);
    g_free(pick);
    g_free(taken);
    g_free(started);
    return ok;
}

gboolean insee_sched_step(insee_sched *s, double now, GError **err)
{
    while (s->arrived < s->n && s->jobs[s->order[s->arrived]].arrival <= now) {
        uint32_t j = s->order[s->arrived++];
        s->jobs[j].state = INSEE_JOB_QUEUED;
        g_array_append_val(s->queue, j);
        mark(s, now);
    }
    if (!s->dirty || s->dirty_at > now)
        return TRUE;
    s->dirty = FALSE;
    return s->queue->len == 0 || select_jobs(s, now, err);
}

void insee_sched_done(insee_sched *s, uint32_t j, double end)
{
    insee_job_rec *job = &s->jobs[j];
    for (uint32_t i = 0; i < job->nodes; i++)
        s->free[job->node[i]] = true;
    s->free_nodes += job->nodes;
    job->end = end;
    job->state = INSEE_JOB_DONE;
    s->running--;
    s->done++;
    record_busy(s, end);
    mark(s, end);
}

const insee_job_rec *insee_sched_job(const insee_sched *s, uint32_t job)
{
    return &s->jobs[job];
}

uint32_t insee_sched_jobs(const insee_sched *s)
{
    return s->n;
}

gboolean insee_sched_all_done(const insee_sched *s)
{
    return s->done == s->n;
}

void insee_sched_report(const insee_sched *s, insee_report *rep, const char *unit,
                        double bsld_min)
{
    insee_sched_summary *sum = g_new0(insee_sched_summary, 1);
    sum->unit = g_strdup(unit);
    sum->selection = g_strdup(s->p.sel_name);
    sum->allocation = g_strdup(s->p.alloc_name);
    sum->jobs = s->n;
    sum->completed = s->done;
    sum->nodes = s->nodes;
    sum->bsld_min = bsld_min;
    double first = INFINITY, last = -INFINITY, busy = 0;
    uint32_t timed = 0; /* jobs with a run > 0, whose slowdown exists */
    for (uint32_t j = 0; j < s->n; j++) {
        const insee_job_rec *job = &s->jobs[j];
        insee_app_report *ar = &rep->apps[job->app];
        ar->job = TRUE;
        ar->job_arrival = job->arrival;
        ar->job_estimate = job->estimate;
        ar->job_start = job->state >= INSEE_JOB_RUNNING ? job->start : NAN;
        ar->job_end = job->state == INSEE_JOB_DONE ? job->end : NAN;
        first = MIN(first, job->arrival);
        if (job->state != INSEE_JOB_DONE)
            continue;
        last = MAX(last, job->end);
        busy += (job->end - job->start) * job->nodes;
        insee_job_figures f;
        insee_job_figures_of(ar, bsld_min, &f);
        sum->mean_wait += f.wait;
        sum->mean_turnaround += f.turnaround;
        if (!isnan(f.slowdown)) {
            sum->mean_slowdown += f.slowdown;
            timed++;
        }
        sum->mean_bounded_slowdown += f.bounded_slowdown;
    }
    if (s->done) {
        sum->mean_wait /= s->done;
        sum->mean_turnaround /= s->done;
        sum->mean_slowdown = timed ? sum->mean_slowdown / timed : NAN;
        sum->mean_bounded_slowdown /= s->done;
    }
    sum->first_arrival = first;
    sum->makespan = s->done ? last - first : 0;
    sum->busy_node_time = busy;
    sum->throughput = sum->makespan > 0 ? s->done / sum->makespan : 0;
    sum->utilisation = sum->makespan > 0 ? busy / (s->nodes * sum->makespan) : 0;
    sum->n_series = s->series_at->len;
    sum->series_at = g_memdup2(s->series_at->data, sizeof(double) * sum->n_series);
    sum->series_busy = g_memdup2(s->series_busy->data, sizeof(uint32_t) * sum->n_series);
    rep->sched = sum;
}
