/* kernel/sweep/sweep.c — `insee sweep` (sweep.h): the schedule of runs. */
#define _GNU_SOURCE /* sched_getaffinity */
#include "sweep/sweep.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config/config.h"
#include "engine/experiment.h"
#include "stats/output.h"
#include "sweep/child.h"
#include "sweep/cluster.h"
#include "sweep/grid.h"
#include "sweep/results.h"
#include "sweep/ranks.h"
#include "sweep/summary.h"

enum { EXIT_OK = 0, EXIT_FAILED = 1, EXIT_USAGE = 2 };

static char **opt_vary;
static gint opt_seeds;
static gint opt_jobs;
static gboolean opt_saturation;
static gdouble opt_tolerance = -1;
static gdouble opt_latency_bound = -1;
static char *opt_summary;
static char *opt_shard;
static char **opt_merge;
static char *opt_slurm;
static gint opt_array;

const GOptionEntry insee_sweep_entries[] = {
    {"vary", 0, 0, G_OPTION_ARG_STRING_ARRAY, &opt_vary,
     "sweep: a key's values, KEY=V1,V2,... or KEY=FROM:TO:STEP (repeatable: a grid)",
     "KEY=VALUES"},
    {"seeds", 0, 0, G_OPTION_ARG_INT, &opt_seeds, "sweep: runs per point, seeds 1..N (1)", "N"},
    {"jobs", 'j', 0, G_OPTION_ARG_INT, &opt_jobs,
     "sweep: runs at a time (default: the cores this process may use)", "JOBS"},
    {"stop-at-saturation", 0, 0, G_OPTION_ARG_NONE, &opt_saturation,
     "sweep: stop raising a configuration's load once it saturates", NULL},
    {"saturation-tolerance", 0, 0, G_OPTION_ARG_DOUBLE, &opt_tolerance,
     "sweep: saturated when accepted < offered by this fraction (0.05)", "FRACTION"},
    {"latency-bound", 0, 0, G_OPTION_ARG_DOUBLE, &opt_latency_bound,
     "sweep: saturated too when the mean latency passes this (0: no bound)", "CYCLES"},
    {"summary", 0, 0, G_OPTION_ARG_FILENAME, &opt_summary,
     "sweep: the summary file (default: RESULTS less .csv plus -summary.csv)", "FILE"},
    {"shard", 0, 0, G_OPTION_ARG_STRING, &opt_shard,
     "sweep: run only the I-th of N disjoint shards of the runs", "I/N"},
    {"merge", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &opt_merge,
     "sweep: gather a shard's results into -o, running nothing (repeatable)", "FILE"},
    {"slurm", 0, 0, G_OPTION_ARG_FILENAME, &opt_slurm,
     "sweep: write a Slurm job array script running the sweep in shards, and stop", "FILE"},
    {"array", 0, 0, G_OPTION_ARG_INT, &opt_array,
     "sweep --slurm: the shards (array tasks; default: one per run, at most 100)", "N"},
    {0},
};

gboolean insee_sweep_options_given(void)
{
    return opt_vary || opt_seeds || opt_jobs || opt_saturation || opt_tolerance >= 0 ||
           opt_latency_bound >= 0 || opt_summary || opt_shard || opt_merge || opt_slurm ||
           opt_array;
}

/* ELSEWHERE: a run of another shard, or under mpirun of another rank. */
typedef enum { PENDING, RUNNING, DONE, FAILED, SKIPPED, ELSEWHERE } run_state;

typedef struct {
    pid_t pid;
    guint run;
} child;

/* What the options and the [sweep] table decide, the options first. */
typedef struct {
    char **vary;
    guint seeds, jobs;
    gboolean saturation;
    double tolerance, latency_bound; /* bound 0: none */
    char *output, *summary;
    guint shard, shards; /* shard of shards; 0 of 0: every run */
} settings;

typedef struct {
    const char *config; /* NULL: the embedded default */
    settings set;
    char *const *sets, *const *plugin_dirs;
    char **merge; /* the shards' results to gather; NULL: run */
    char *exe, *tmpdir, *fingerprint;
    insee_sweep_grid *grid;
    insee_sweep_results *results;
    guint seeds, runs, jobs;
    run_state *state;
    gint *row_of_run;
    guint *points_by_load; /* [configuration * loads + rank] -> point */
    guint loads;
    GArray *children; /* of child */
    guint counts[ELSEWHERE + 1];
    guint done_here; /* runs finished by this process, for the time left */
    gint64 started;
    guint rank, ranks;  /* under mpirun (ranks.h); ranks 0 otherwise */
    gboolean exhausted; /* a rank but 0: rank 0 said no run is left */
    guint ranks_told;   /* rank 0: the other ranks told that none is left */
    insee_sweep_runner runner; /* a run in a forked child, when fork_runs */
    gboolean fork_runs;
} sweep;

static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
    stop_signal = sig;
}

/* Without SA_RESTART: the wait for a run returns at once. */
static void catch_stop_signals(gboolean on)
{
    static const int signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
    struct sigaction sa = {.sa_handler = on ? on_stop : SIG_DFL};
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < G_N_ELEMENTS(signals); i++)
        sigaction(signals[i], &sa, NULL);
}

static int fail(GError *e, int code)
{
    g_printerr("insee: error: %s\n", e->message);
    g_error_free(e);
    return code;
}

static guint default_jobs(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return (guint)CPU_COUNT(&set);
    return g_get_num_processors();
}

/* What decides a run's figures besides its point and seed: the experiment
   file (or the embedded default), every --set and the plugin directories. */
static char *fingerprint(const char *config, char *const *sets, char *const *dirs, GError **err)
{
    char *text = NULL;
    if (config && !g_file_get_contents(config, &text, NULL, err))
        return NULL;
    GChecksum *sum = g_checksum_new(G_CHECKSUM_SHA256);
    const char *base = config ? text : insee_default_experiment;
    g_checksum_update(sum, (const guchar *)base, (gssize)strlen(base) + 1);
    for (char *const *s = sets; s && *s; s++)
        g_checksum_update(sum, (const guchar *)*s, (gssize)strlen(*s) + 1);
    g_checksum_update(sum, (const guchar *)"\n", 1);
    for (char *const *d = dirs; d && *d; d++)
        g_checksum_update(sum, (const guchar *)*d, (gssize)strlen(*d) + 1);
    char *fp = g_strndup(g_checksum_get_string(sum), 16);
    g_checksum_free(sum);
    g_free(text);
    return fp;
}

static insee_config *load_config(const char *config, char *const *sets, GError **err)
{
    insee_config *cfg = config ? insee_config_load_file(config, err)
                               : insee_config_load_default(insee_default_experiment,
                                                           "<embedded default experiment>", err);
    for (char *const *a = sets; cfg && a && *a; a++)
        if (!insee_config_set(cfg, *a, err)) {
            insee_config_free(cfg);
            cfg = NULL;
        }
    return cfg;
}

/* Every point's assignments parse: a typo is told now, not once per run.
   Whether the keys exist each run tells. */
static gboolean check_assignments(const sweep *s, insee_config *cfg, GError **err)
{
    gboolean ok = TRUE;
    for (guint p = 0; ok && p < insee_sweep_grid_points(s->grid); p++)
        for (const char *const *a = insee_sweep_grid_assignments(s->grid, p); ok && *a; a++)
            ok = insee_config_set(cfg, *a, err);
    return ok;
}

/* A row's run, or G_MAXUINT for a row of a point or seed not in this grid. */
static guint run_of_row(const insee_sweep_results *r, guint row, gpointer data)
{
    const sweep *s = data;
    gint point = insee_sweep_grid_find(s->grid, insee_sweep_results_vary(r, row));
    guint64 seed = insee_sweep_results_seed(r, row);
    if (point < 0 || seed < 1 || seed > s->seeds)
        return G_MAXUINT;
    return (guint)point * s->seeds + (guint)(seed - 1);
}

static void set_state(sweep *s, guint run, run_state st)
{
    s->counts[s->state[run]]--;
    s->state[run] = st;
    s->counts[st]++;
}

static void take_finished_rows(sweep *s)
{
    for (guint row = 0; row < insee_sweep_results_rows(s->results); row++) {
        guint run = run_of_row(s->results, row, s);
        if (run != G_MAXUINT && s->row_of_run[run] < 0) {
            s->row_of_run[run] = (gint)row;
            set_state(s, run, DONE);
        }
    }
}

static void index_loads(sweep *s)
{
    guint points = insee_sweep_grid_points(s->grid);
    s->loads = 1;
    for (guint p = 0; p < points; p++)
        s->loads = MAX(s->loads, insee_sweep_grid_load_rank(s->grid, p) + 1);
    s->points_by_load = g_new(guint, points);
    for (guint p = 0; p < points; p++)
        s->points_by_load[insee_sweep_grid_configuration(s->grid, p) * s->loads +
                          insee_sweep_grid_load_rank(s->grid, p)] = p;
}

static gboolean saturated(const sweep *s, guint point)
{
    guint *rows = g_new(guint, s->seeds), n = 0;
    for (guint k = 0; k < s->seeds; k++)
        if (s->row_of_run[point * s->seeds + k] >= 0)
            rows[n++] = (guint)s->row_of_run[point * s->seeds + k];
    double offered = insee_sweep_estimate(s->results, rows, n, "offered_load").mean;
    double accepted = insee_sweep_estimate(s->results, rows, n, "accepted_load").mean;
    double latency = insee_sweep_estimate(s->results, rows, n, "lat_gen_mean").mean;
    g_free(rows);
    return accepted < offered * (1 - s->set.tolerance) ||
           (s->set.latency_bound > 0 && latency > s->set.latency_bound);
}

/* Under --stop-at-saturation: whether a pending run may start now, must
   wait for the load below it, or is skipped (that load saturated, failed or
   was skipped). */
typedef enum { GO, WAIT, SKIP } verdict;

static verdict load_verdict(const sweep *s, guint run)
{
    guint point = run / s->seeds;
    guint rank = insee_sweep_grid_load_rank(s->grid, point);
    if (!s->set.saturation || rank == 0)
        return GO;
    guint below = s->points_by_load[insee_sweep_grid_configuration(s->grid, point) * s->loads +
                                    rank - 1];
    gboolean failed = FALSE;
    for (guint k = 0; k < s->seeds; k++) {
        run_state st = s->state[below * s->seeds + k];
        if (st == SKIPPED)
            return SKIP;
        if (st == PENDING || st == RUNNING)
            return WAIT;
        failed = failed || st == FAILED;
    }
    return failed || saturated(s, below) ? SKIP : GO;
}

/* The next run of this process's to start (marking those found skipped),
   or G_MAXUINT. */
static guint next_pending(sweep *s)
{
    for (guint run = 0; run < s->runs; run++) {
        if (s->state[run] != PENDING)
            continue;
        verdict v = load_verdict(s, run);
        if (v == GO)
            return run;
        if (v == SKIP)
            set_state(s, run, SKIPPED);
    }
    return G_MAXUINT;
}

/* Rank 0 hands a pending run to another rank: it is that rank's now. */
static guint hand_out(void *ctx)
{
    sweep *s = ctx;
    guint run = next_pending(s);
    if (run != G_MAXUINT)
        set_state(s, run, ELSEWHERE);
    return run;
}

/* The next run to start: rank 0's to hand out, under mpirun for ranks
   but 0; G_MAXUINT when none is left. */
static guint next_run(sweep *s)
{
    if (!s->ranks || s->rank == 0)
        return next_pending(s);
    if (s->exhausted)
        return G_MAXUINT;
    guint run = insee_sweep_ranks_ask();
    if (run >= s->runs || s->state[run] != ELSEWHERE) {
        s->exhausted = TRUE;
        return G_MAXUINT;
    }
    set_state(s, run, PENDING);
    return run;
}

static char *run_file(const sweep *s, guint run, const char *ext)
{
    char *name = g_strdup_printf("run-%u.%s", run, ext);
    char *path = g_build_filename(s->tmpdir, name, NULL);
    g_free(name);
    return path;
}

/* The words of an insee `command` of this sweep, up to its configuration:
   the program, the plugin directories, the command, the file. */
static GPtrArray *command_words(const sweep *s, const char *command)
{
    GPtrArray *a = g_ptr_array_new_with_free_func(g_free);
    g_ptr_array_add(a, g_strdup(s->exe));
    for (char *const *d = s->plugin_dirs; d && *d; d++) {
        g_ptr_array_add(a, g_strdup("--plugin-dir"));
        g_ptr_array_add(a, g_strdup(*d));
    }
    g_ptr_array_add(a, g_strdup(command));
    if (s->config)
        g_ptr_array_add(a, g_strdup(s->config));
    return a;
}

/* The --set values of a run: the sweep's, its point's, its seed, and its
   CSV row into the sweep's scratch directory. NULL-terminated; g_strfreev. */
static char **run_sets(const sweep *s, guint run)
{
    GPtrArray *sets = g_ptr_array_new_with_free_func(g_free);
    for (char *const *x = s->sets; x && *x; x++)
        g_ptr_array_add(sets, g_strdup(*x));
    for (const char *const *x = insee_sweep_grid_assignments(s->grid, run / s->seeds); *x; x++)
        g_ptr_array_add(sets, g_strdup(*x));
    g_ptr_array_add(sets, g_strdup_printf("simulation.seed=%u", run % s->seeds + 1));
    char *csv = run_file(s, run, "csv");
    /* The run's row only: files of the experiment's own would be written by
       every run over each other. */
    g_ptr_array_add(sets, g_strdup_printf("stats.csv=\"%s\"", csv));
    g_ptr_array_add(sets, g_strdup("stats.json=\"\""));
    g_ptr_array_add(sets, g_strdup("stats.trace=\"\""));
    g_free(csv);
    g_ptr_array_add(sets, NULL);
    return (char **)g_ptr_array_free(sets, FALSE);
}

static char **run_argv(const sweep *s, char *const *sets)
{
    GPtrArray *a = command_words(s, "run");
    for (char *const *x = sets; *x; x++) {
        g_ptr_array_add(a, g_strdup("--set"));
        g_ptr_array_add(a, g_strdup(*x));
    }
    g_ptr_array_add(a, NULL);
    return (char **)g_ptr_array_free(a, FALSE);
}

/* What a forked child runs: the sweep's runner on its own run. */
typedef struct {
    const sweep *s;
    char **sets;
} in_process;

static int run_in_process(void *ctx)
{
    const in_process *r = ctx;
    return r->s->runner(r->s->config, r->sets);
}

static gboolean start_run(sweep *s, guint run, GError **err)
{
    char **sets = run_sets(s, run);
    char *log = run_file(s, run, "log");
    pid_t pid;
    if (s->fork_runs) {
        in_process r = {s, sets};
        pid = insee_sweep_child_call(run_in_process, &r, log, err);
    } else {
        char **argv = run_argv(s, sets);
        pid = insee_sweep_child_start(argv, log, err);
        g_strfreev(argv);
    }
    g_free(log);
    g_strfreev(sets);
    if (pid < 0)
        return FALSE;
    child c = {pid, run};
    g_array_append_val(s->children, c);
    set_state(s, run, RUNNING);
    return TRUE;
}

static const char *point_name(const sweep *s, guint run)
{
    const char *key = insee_sweep_grid_key(s->grid, run / s->seeds);
    return *key ? key : "the configuration";
}

static void clear_progress(void)
{
    if (isatty(STDERR_FILENO))
        fputs("\r\033[K", stderr);
}

/* A run has ended: its row appended, or its failure told. A run stopped by
   the sweep's own stop request is neither: it is pending again. */
static gboolean finish_run(sweep *s, guint run, int status, GError **err)
{
    char *csv = run_file(s, run, "csv"), *log = run_file(s, run, "log");
    char *why = insee_sweep_child_failure(status, log);
    char *text = NULL;
    gboolean ok = TRUE;
    if (!why && g_file_get_contents(csv, &text, NULL, err)) {
        ok = insee_sweep_results_add(s->results, insee_sweep_grid_key(s->grid, run / s->seeds),
                                     text, err);
        if (ok) {
            s->row_of_run[run] = (gint)insee_sweep_results_rows(s->results) - 1;
            set_state(s, run, DONE);
            s->done_here++;
        }
    } else if (!why) {
        ok = FALSE;
    } else if (stop_signal) {
        set_state(s, run, PENDING);
    } else {
        set_state(s, run, FAILED);
        clear_progress();
        g_printerr("insee: run failed: %s, seed %u: %s\n", point_name(s, run),
                   run % s->seeds + 1, why);
    }
    g_free(text);
    g_free(why);
    g_unlink(csv);
    g_unlink(log);
    g_free(csv);
    g_free(log);
    return ok;
}

static void show_progress(const sweep *s)
{
    if (!isatty(STDERR_FILENO))
        return;
    guint left = s->counts[PENDING] + s->counts[RUNNING];
    double elapsed = (double)(g_get_monotonic_time() - s->started) / 1e6;
    fprintf(stderr, "\r\033[Ksweep: %u/%u done, %u running, %u failed, %u skipped", s->counts[DONE],
            s->runs - s->counts[ELSEWHERE], s->counts[RUNNING], s->counts[FAILED],
            s->counts[SKIPPED]);
    if (s->done_here)
        fprintf(stderr, ", about %.0f s left", elapsed / s->done_here * left);
}

/* Wait for one run to end (`block`) or take one that has ended, and take
   it in; *none when there was none. */
static gboolean reap_one(sweep *s, gboolean block, gboolean *none, GError **err)
{
    int status;
    pid_t pid = waitpid(-1, &status, block ? 0 : WNOHANG);
    *none = pid <= 0;
    if (pid < 0)
        return errno == EINTR || errno == ECHILD;
    for (guint i = 0; i < s->children->len; i++) {
        child c = g_array_index(s->children, child, i);
        if (c.pid == pid) {
            g_array_remove_index_fast(s->children, i);
            return finish_run(s, c.run, status, err);
        }
    }
    return TRUE;
}

/* Rank 0 under mpirun, between its own runs: answer the other ranks'
   requests until one of its runs ends, or, with none going, until every
   rank has been told that none is left. Polled: a blocking wait for a run
   could not answer, and the ranks' requests are few. */
static gboolean serve_ranks(sweep *s, GError **err)
{
    gboolean none = TRUE, ok = TRUE;
    for (;;) {
        s->ranks_told += insee_sweep_ranks_serve(hand_out, s);
        if (s->children->len)
            ok = reap_one(s, FALSE, &none, err);
        if (!ok || !none || stop_signal || (!s->children->len && s->ranks_told + 1 >= s->ranks))
            return ok;
        g_usleep(1000);
    }
}

/* Runs side by side share the machine: each run's threads default to its
   share of the cores (INSEE_CORES, docs/engine.md), unless the user
   chose. A run split over more threads than it has cores would wait at
   every cycle for the ones set aside. */
static void share_cores(guint jobs)
{
    if (jobs < 2 || g_getenv("INSEE_CORES"))
        return;
    char *share = g_strdup_printf("%u", MAX(1u, default_jobs() / jobs));
    g_setenv("INSEE_CORES", share, TRUE);
    g_free(share);
}

/* The schedule: as many runs going as -j allows, until none is left or a
   stop is requested (then the runs going are stopped and waited for). The
   rows of the runs that ended are saved once their successors have
   started, so the processors never wait for the disk. Rank 0 under mpirun
   serves the other ranks meanwhile, and goes on until all are served. */
static gboolean run_all(sweep *s, GError **err)
{
    gboolean ok = TRUE, none = FALSE, serving = s->ranks > 1 && s->rank == 0;
    share_cores(s->jobs);
    while (ok && !stop_signal) {
        guint run = 0;
        while (ok && s->children->len < s->jobs && (run = next_run(s)) != G_MAXUINT)
            ok = start_run(s, run, err);
        ok = ok && insee_sweep_results_save(s->results, err);
        show_progress(s);
        if (!s->children->len && (!serving || s->ranks_told + 1 >= s->ranks))
            break;
        if (serving)
            ok = ok && serve_ranks(s, err);
        else
            ok = ok && reap_one(s, TRUE, &none, err);
        while (ok && !none && s->children->len)
            ok = reap_one(s, FALSE, &none, err);
    }
    for (guint i = 0; i < s->children->len; i++)
        kill(g_array_index(s->children, child, i).pid, SIGTERM);
    while (s->children->len)
        reap_one(s, TRUE, &none, NULL);
    clear_progress();
    return insee_sweep_results_save(s->results, ok ? err : NULL) && ok;
}

/* The end of a sweep that was not stopped: rows in grid order, summary. */
static gboolean conclude(sweep *s, GError **err)
{
    if (!insee_sweep_results_rewrite(s->results, run_of_row, s, err))
        return FALSE;
    for (guint run = 0; run < s->runs; run++)
        s->row_of_run[run] = -1;
    for (guint row = 0; row < insee_sweep_results_rows(s->results); row++) {
        guint run = run_of_row(s->results, row, s);
        if (run != G_MAXUINT && s->row_of_run[run] < 0)
            s->row_of_run[run] = (gint)row;
    }
    if (s->set.shards)
        return TRUE; /* a shard's summary would be a part's: the merge writes it */
    char *text = insee_sweep_summary(s->results, s->grid, s->seeds, s->row_of_run);
    gboolean ok = insee_output_replace(s->set.summary, "--summary", text, err);
    g_free(text);
    if (ok)
        insee_sweep_summary_print(s->results, s->grid, s->seeds, s->row_of_run, stdout);
    return ok;
}

static gboolean usage(GError **err, const char *why)
{
    g_set_error(err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "sweep %s; usage: insee sweep [CONFIG.toml] --vary KEY=V1,V2,... [--seeds N] "
                "[-j JOBS] -o RESULTS.csv (or the same in a [sweep] table)",
                why);
    return FALSE;
}

/* [sweep] vary: the --vary specifications separated by ';'. */
static char **table_vary(const char *text)
{
    char **parts = g_strsplit(text ? text : "", ";", -1);
    GPtrArray *specs = g_ptr_array_new();
    for (char **p = parts; *p; p++)
        if (*g_strstrip(*p))
            g_ptr_array_add(specs, g_strdup(*p));
    g_ptr_array_add(specs, NULL);
    g_strfreev(parts);
    return (char **)g_ptr_array_free(specs, FALSE);
}

static char *text_or(const char *option, const char *table)
{
    return g_strdup(option ? option : table && *table ? table : NULL);
}

/* The options over the [sweep] table of cfg. */
static gboolean decide(settings *set, insee_config *cfg, const char *output, GError **err)
{
    const insee_value *t;
    if (!insee_experiment_sweep(cfg, &t, err))
        return FALSE;
    if (opt_seeds < 0 || opt_jobs < 0)
        return usage(err, opt_seeds < 0 ? "--seeds needs N >= 1" : "-j needs JOBS >= 1");
    if (opt_tolerance >= 1)
        return usage(err, "--saturation-tolerance is a fraction below 1");
    set->vary = opt_vary ? g_strdupv(opt_vary) : table_vary(t[INSEE_SWEEP_VARY].s);
    set->seeds = opt_seeds ? (guint)opt_seeds : (guint)t[INSEE_SWEEP_SEEDS].i;
    set->jobs = opt_jobs ? (guint)opt_jobs : (guint)t[INSEE_SWEEP_JOBS].i;
    set->jobs = set->jobs ? set->jobs : default_jobs();
    set->saturation = opt_saturation || t[INSEE_SWEEP_STOP_AT_SATURATION].b;
    set->tolerance = opt_tolerance >= 0 ? opt_tolerance : t[INSEE_SWEEP_SATURATION_TOLERANCE].d;
    set->latency_bound = opt_latency_bound >= 0 ? opt_latency_bound : t[INSEE_SWEEP_LATENCY_BOUND].d;
    set->output = text_or(output, t[INSEE_SWEEP_OUTPUT].s);
    set->summary = text_or(opt_summary, t[INSEE_SWEEP_SUMMARY].s);
    if (!set->output)
        return usage(err, "needs -o RESULTS.csv");
    if (!set->summary)
        set->summary = insee_sweep_results_sibling(set->output, "-summary.csv");
    if ((opt_tolerance >= 0 || opt_latency_bound >= 0) && !set->saturation)
        return usage(err, "--saturation-tolerance and --latency-bound go with --stop-at-saturation");
    if (opt_shard && !insee_sweep_shard_parse(opt_shard, &set->shard, &set->shards, err))
        return FALSE;
    if ((opt_shard != NULL) + (opt_merge != NULL) + (opt_slurm != NULL) > 1)
        return usage(err, "takes one of --shard, --merge and --slurm");
    if (set->saturation && (opt_shard || opt_merge || opt_slurm))
        return usage(err, "cannot stop at saturation in shards: a shard does not see the "
                          "other shards' runs of a load. Sweep on one machine, or leave out "
                          "--stop-at-saturation");
    if (opt_array && !opt_slurm)
        return usage(err, opt_array < 0 ? "--array needs N >= 1" : "--array goes with --slurm");
    return TRUE;
}

/* Where the runs write their rows for the sweep to take: a RAM file system
   when there is one, since each run's file is synced to disk when written
   and on a disk busy with other work that wait was most of a short run's
   time (a sweep of 40 short runs took 1.8 times a shell loop's wall time
   with -j 1, for 1.16 times its CPU time). */
static char *scratch_dir(GError **err)
{
    const char *runtime = g_getenv("XDG_RUNTIME_DIR");
    const char *ram = runtime && g_file_test(runtime, G_FILE_TEST_IS_DIR) ? runtime
                      : access("/dev/shm", W_OK) == 0                    ? "/dev/shm"
                                                                        : g_get_tmp_dir();
    char *tmpl = g_build_filename(ram, "insee-sweep-XXXXXX", NULL);
    char *dir = g_mkdtemp(tmpl);
    if (!dir) {
        int e = errno;
        g_set_error(err, G_FILE_ERROR, g_file_error_from_errno(e),
                    "cannot make a scratch directory in %s: %s", ram, g_strerror(e));
        g_free(tmpl);
    }
    return dir;
}

/* What every mode needs: the settings, the grid, the fingerprint. */
static gboolean prepare(sweep *s, const char *output, GError **err)
{
    insee_config *cfg = load_config(s->config, s->sets, err);
    gboolean ok = cfg && decide(&s->set, cfg, output, err);
    s->grid = ok ? insee_sweep_grid_new(s->set.vary, err) : NULL;
    ok = s->grid && check_assignments(s, cfg, err);
    if (cfg)
        insee_config_free(cfg);
    if (!ok)
        return FALSE;
    if (s->set.saturation && !insee_sweep_grid_has_load(s->grid)) {
        g_set_error(err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "--stop-at-saturation needs a --vary of a load (a key ending in .load, "
                    "e.g. --vary traffic.load=0.1:1:0.1)");
        return FALSE;
    }
    s->seeds = s->set.seeds;
    s->jobs = s->set.jobs;
    s->runs = insee_sweep_grid_points(s->grid) * s->seeds;
    s->fingerprint = fingerprint(s->config, s->sets, s->plugin_dirs, err);
    s->exe = s->fingerprint ? g_file_read_link("/proc/self/exe", err) : NULL;
    return s->exe && insee_output_check(s->set.summary, "--summary", err);
}

/* The results file read and each run's state: done, to do, or another
   shard's. */
static gboolean open_results(sweep *s, GError **err)
{
    s->results = insee_sweep_results_open(s->set.output, s->fingerprint, err);
    s->tmpdir = s->results ? scratch_dir(err) : NULL;
    if (!s->tmpdir)
        return FALSE;
    s->state = g_new0(run_state, s->runs);
    s->counts[PENDING] = s->runs;
    s->row_of_run = g_new(gint, s->runs);
    for (guint run = 0; run < s->runs; run++)
        s->row_of_run[run] = -1;
    take_finished_rows(s);
    for (guint run = 0; s->set.shards && !s->ranks && run < s->runs; run++)
        if (s->state[run] == PENDING && !insee_sweep_shard_has(run, s->set.shard, s->set.shards))
            set_state(s, run, ELSEWHERE);
    index_loads(s);
    s->children = g_array_new(FALSE, FALSE, sizeof(child));
    return TRUE;
}

/* --slurm: the job array script; nothing runs. */
static int write_slurm(sweep *s)
{
    GPtrArray *a = command_words(s, "sweep");
    for (char *const *x = s->sets; x && *x; x++) {
        g_ptr_array_add(a, g_strdup("--set"));
        g_ptr_array_add(a, g_strdup(*x));
    }
    for (char *const *v = s->set.vary; *v; v++) {
        g_ptr_array_add(a, g_strdup("--vary"));
        g_ptr_array_add(a, g_strdup(*v));
    }
    g_ptr_array_add(a, g_strdup("--seeds"));
    g_ptr_array_add(a, g_strdup_printf("%u", s->seeds));
    g_ptr_array_add(a, NULL);
    if (strpbrk(s->set.output, " \t\n%")) {
        GError *e = NULL;
        usage(&e, "--slurm: the results file's name goes into #SBATCH lines, which cannot "
                  "hold a blank or a '%'; name it without");
        g_ptr_array_free(a, TRUE);
        return fail(e, EXIT_USAGE);
    }
    guint tasks = opt_array ? (guint)opt_array : MIN(s->runs, 100);
    char *dir = g_get_current_dir();
    char *text = insee_sweep_slurm_script((char *const *)a->pdata, tasks, opt_jobs ? (guint)opt_jobs : 1,
                                          dir, s->set.output, s->set.summary);
    GError *err = NULL;
    gboolean ok = insee_output_replace(opt_slurm, "--slurm", text, &err);
    g_free(text);
    g_free(dir);
    g_ptr_array_free(a, TRUE);
    if (!ok)
        return fail(err, EXIT_FAILED);
    printf("%s: the %u runs in %u shards; submit them and the merge with: bash %s\n", opt_slurm,
           s->runs, tasks, opt_slurm);
    return EXIT_OK;
}

/* --merge: every shard's rows of this sweep that the results lack. */
static gboolean merge(sweep *s, GError **err)
{
    for (char **f = s->merge; *f; f++) {
        if (!g_file_test(*f, G_FILE_TEST_EXISTS))
            g_printerr("insee: notice: --merge %s: no such file; its shard's runs are missing\n",
                       *f);
        insee_sweep_results *part = insee_sweep_results_open(*f, s->fingerprint, err);
        if (!part)
            return FALSE;
        for (guint row = 0; row < insee_sweep_results_rows(part); row++) {
            guint run = run_of_row(part, row, s);
            if (run == G_MAXUINT || s->row_of_run[run] >= 0)
                continue;
            insee_sweep_results_take(s->results, part, row);
            s->row_of_run[run] = (gint)insee_sweep_results_rows(s->results) - 1;
            set_state(s, run, DONE);
        }
        insee_sweep_results_free(part);
    }
    return insee_sweep_results_save(s->results, err);
}

static void sweep_clear(sweep *s)
{
    g_free(s->fingerprint);
    g_strfreev(s->merge);
    g_strfreev(s->set.vary);
    g_free(s->set.output);
    g_free(s->set.summary);
    if (s->tmpdir)
        g_rmdir(s->tmpdir);
    g_free(s->tmpdir);
    g_free(s->exe);
    insee_sweep_grid_free(s->grid);
    insee_sweep_results_free(s->results);
    g_free(s->state);
    g_free(s->row_of_run);
    g_free(s->points_by_load);
    if (s->children)
        g_array_free(s->children, TRUE);
}

/* Run what is left of the sweep (or take it from the shards) and conclude. */
static int sweep_all(sweep *s)
{
    GError *err = NULL;
    int code = EXIT_OK;
    catch_stop_signals(TRUE);
    gboolean ok = s->merge ? merge(s, &err) : run_all(s, &err);
    catch_stop_signals(FALSE);
    if (!ok)
        code = fail(err, EXIT_FAILED);
    else if (stop_signal)
        code = 128 + stop_signal;
    else if (!conclude(s, &err))
        code = fail(err, EXIT_FAILED);
    else if (s->counts[FAILED] || s->counts[PENDING])
        code = EXIT_FAILED;
    g_printerr("insee: sweep: %u of %u runs done, %u failed, %u skipped", s->counts[DONE],
               s->runs - s->counts[ELSEWHERE], s->counts[FAILED], s->counts[SKIPPED]);
    if (s->counts[FAILED])
        g_printerr("; run the same command again to retry the failed");
    if (s->merge && s->counts[PENDING])
        g_printerr("; %u missing from the shards: run the sweep without --merge to run them",
                   s->counts[PENDING]);
    g_printerr("\n");
    return code;
}

/* RESULTS-shard-1.csv ... RESULTS-shard-N.csv, NULL-terminated. */
static char **shard_files(const char *output, guint shards)
{
    char **files = g_new0(char *, shards + 1);
    for (guint i = 0; i < shards; i++) {
        char *index = g_strdup_printf("%u", i + 1);
        files[i] = insee_sweep_shard_file(output, index);
        g_free(index);
    }
    return files;
}

/* The runs another file of the sweep holds (another rank's, or the merged
   results of a sweep run before, whose rank files are gone) are done, not
   this rank's. A file not there holds none. */
static gboolean skip_held(sweep *s, const char *path, GError **err)
{
    if (!g_file_test(path, G_FILE_TEST_EXISTS))
        return TRUE;
    insee_sweep_results *held = insee_sweep_results_open(path, s->fingerprint, err);
    if (!held)
        return FALSE;
    for (guint row = 0; row < insee_sweep_results_rows(held); row++) {
        guint run = run_of_row(held, row, s);
        if (run != G_MAXUINT && s->state[run] == PENDING)
            set_state(s, run, ELSEWHERE);
    }
    insee_sweep_results_free(held);
    return TRUE;
}

/* Rank `shard` - 1 of `shards` under mpirun: its runs into its own file.
   Rank 0 holds every run that no file holds yet, to run or hand out; the
   others wait to be handed theirs. */
static gboolean open_rank(sweep *s, guint shard, guint shards, GError **err)
{
    if (s->set.saturation)
        return usage(err, "cannot stop at saturation under mpirun: a rank does not see the "
                          "other ranks' runs of a load. Sweep on one machine, or leave out "
                          "--stop-at-saturation");
    char *merged = s->set.output;
    char **files = shard_files(merged, shards);
    s->set.output = g_strdup(files[shard - 1]);
    s->set.shard = shard;
    s->set.shards = shards;
    s->jobs = opt_jobs ? (guint)opt_jobs : 1;
    gboolean ok = open_results(s, err);
    for (guint run = 0; ok && shard > 1 && run < s->runs; run++)
        if (s->state[run] == PENDING)
            set_state(s, run, ELSEWHERE);
    ok = ok && (shard > 1 || skip_held(s, merged, err));
    for (guint i = 0; ok && shard == 1 && i < shards; i++)
        ok = i == shard - 1 || skip_held(s, files[i], err);
    g_strfreev(files);
    g_free(merged);
    return ok;
}

/* A sweep, or a part of it under mpirun: rank `shard` - 1 of `shards`
   runs its shard, `shard` 0 of `shards` merges theirs. */
static int sweep_part(sweep *s, const char *output, guint shard, guint shards)
{
    GError *err = NULL;
    if (!prepare(s, output, &err))
        return fail(err, EXIT_USAGE);
    if (opt_slurm)
        return write_slurm(s);
    s->merge = shards && !shard ? shard_files(s->set.output, shards) : g_strdupv(opt_merge);
    gboolean ok = shard ? open_rank(s, shard, shards, &err) : open_results(s, &err);
    if (!ok)
        return fail(err, EXIT_USAGE);
    return sweep_all(s);
}

/* Under mpirun (ranks.h): rank R runs what it is handed into file R + 1,
   rank 0 then merges. */
static int sweep_ranks(const sweep *base, const char *output, guint rank, guint ranks)
{
    if (opt_shard || opt_merge || opt_slurm) {
        GError *err = NULL;
        usage(&err, "under mpirun shares the runs among the ranks itself: leave out --shard, "
                    "--merge and --slurm");
        return fail(err, EXIT_USAGE);
    }
    sweep s = *base;
    s.rank = rank;
    s.ranks = ranks;
    int code = sweep_part(&s, output, rank + 1, ranks);
    sweep_clear(&s);
    if (stop_signal)
        return code; /* mpirun is stopping every rank: no merge to wait for */
    insee_sweep_ranks_wait();
    if (rank == 0 && code != EXIT_USAGE) {
        sweep m = *base;
        int merged = sweep_part(&m, output, 0, ranks);
        code = merged ? merged : code;
        sweep_clear(&m);
    }
    return code;
}

int insee_sweep_command(int argc, char **argv, const char *output, char *const *sets,
                        char *const *plugin_dirs, insee_sweep_runner runner)
{
    GError *err = NULL;
    if (argc > 1) {
        usage(&err, "takes at most one config file");
        return fail(err, EXIT_USAGE);
    }
    guint rank, ranks;
    if (!insee_sweep_ranks_join(&rank, &ranks, &err))
        return fail(err, EXIT_USAGE);
    sweep s = {.config = argc ? argv[0] : NULL, .sets = sets, .plugin_dirs = plugin_dirs,
               .started = g_get_monotonic_time(), .runner = runner,
               .fork_runs = runner && insee_sweep_child_can_fork()};
    int code;
    if (ranks) {
        code = sweep_ranks(&s, output, rank, ranks);
    } else {
        code = sweep_part(&s, output, 0, 0);
        sweep_clear(&s);
    }
    insee_sweep_ranks_leave();
    return code;
}
