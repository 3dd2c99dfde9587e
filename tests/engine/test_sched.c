/* Job scheduling (docs/scheduling.md) against schedules worked out by hand.
 * Every job runs uniform traffic at load 0 for its runtime: it sends
 * nothing, so it ends exactly `runtime` cycles after it starts, and a
 * schedule is a matter of the selection rule alone. The network is a
 * 4-node mesh. */
#include <criterion/criterion.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "run_helpers.h"

static const char net[] = "[topology]\nplugin = \"mesh\"\ndims = [4]\n"
                          "[router]\nplugin = \"dally\"\nvcs = 1\n";

/* A job of `tasks` tasks arriving at `arrival`, running `runtime` cycles,
   estimated at `estimate` (0: none). */
static char *job(const char *name, int tasks, int arrival, int runtime, int estimate)
{
    char *est = estimate ? g_strdup_printf("estimated_runtime = %d\n", estimate) : g_strdup("");
    char *s = g_strdup_printf("[[application]]\nname = \"%s\"\ntasks = %d\narrival = %d\n"
                              "runtime = %d\n%s[application.traffic]\nplugin = \"uniform\"\n"
                              "load = 0\n", name, tasks, arrival, runtime, est);
    g_free(est);
    return s;
}

/* Run the jobs (NULL-terminated, freed here) under `scheduler` keys. */
static insee_report run_jobs(const char *scheduler, char **jobs)
{
    char *toml = jobs_toml(net, scheduler, jobs);
    insee_report r = run_toml(toml);
    g_free(toml);
    return r;
}

static void assert_job(const insee_report *r, const char *name, double start, double end)
{
    const insee_app_report *a = report_app(r, name);
    cr_assert(a->job && a->completed, "%s", name);
    cr_expect_eq(a->job_start, start, "%s starts at %g, not %g", name, a->job_start, start);
    cr_expect_eq(a->job_end, end, "%s ends at %g, not %g", name, a->job_end, end);
}

/* The wide head waits for all 4 nodes; FCFS keeps the small job behind it
   although one node is free from cycle 0 to 100. */
Test(sched, fcfs_blocks_behind_a_wide_head)
{
    char *jobs[] = {job("a", 3, 0, 100, 100), job("head", 4, 10, 50, 50),
                    job("small", 1, 20, 30, 30), NULL};
    insee_report r = run_jobs("selection = \"fcfs\"", jobs);
    assert_job(&r, "a", 0, 100);
    assert_job(&r, "head", 100, 150);
    assert_job(&r, "small", 150, 180);
    cr_expect_eq(r.sched->makespan, 180);
    cr_expect_float_eq(r.sched->mean_wait, (0 + 90 + 130) / 3.0, 1e-9);
    /* busy node-time: 3 x 100 + 4 x 50 + 1 x 30 */
    cr_expect_eq(r.sched->busy_node_time, 530);
    cr_expect_float_eq(r.sched->utilisation, 530.0 / (4 * 180), 1e-12);
    insee_report_clear(&r);
}

/* EASY: the head's reservation is at 100 (a ends) and needs every node;
   the small job ends by its estimate (20 + 30 = 50) before it: it starts at
   once and the head still starts at 100. */
Test(sched, easy_backfills_a_short_job_without_delaying_the_head)
{
    char *jobs[] = {job("a", 3, 0, 100, 100), job("head", 4, 10, 50, 50),
                    job("small", 1, 20, 30, 30), NULL};
    insee_report r = run_jobs("selection = \"easy\"", jobs);
    assert_job(&r, "a", 0, 100);
    assert_job(&r, "small", 20, 50);
    assert_job(&r, "head", 100, 150);
    cr_expect_eq(r.sched->makespan, 150);
    insee_report_clear(&r);
}

/* The same job estimated at 200 would end at 220, past the reservation,
   on a node the head needs: EASY refuses it, it starts after the head. */
Test(sched, easy_refuses_a_job_that_would_delay_the_head)
{
    char *jobs[] = {job("a", 3, 0, 100, 100), job("head", 4, 10, 50, 50),
                    job("long", 1, 20, 30, 200), NULL};
    insee_report r = run_jobs("selection = \"easy\"", jobs);
    assert_job(&r, "head", 100, 150);
    assert_job(&r, "long", 150, 180);
    insee_report_clear(&r);
}

/* a holds 3 nodes until 100; b (2 nodes) is reserved [100, 150), c (all 4)
   [150, 200). d (1 node, 200 cycles) fits now and EASY starts it (a node
   b will not need), which pushes c to 203 when d ends. Conservative
   backfilling keeps c's reservation: d waits until 200. */
static char **four_jobs(void)
{
    static char *jobs[5];
    jobs[0] = job("a", 3, 0, 100, 100);
    jobs[1] = job("b", 2, 1, 50, 50);
    jobs[2] = job("c", 4, 2, 50, 50);
    jobs[3] = job("d", 1, 3, 200, 200);
    jobs[4] = NULL;
    return jobs;
}

Test(sched, easy_delays_a_later_reservation)
{
    insee_report r = run_jobs("selection = \"easy\"", four_jobs());
    assert_job(&r, "a", 0, 100);
    assert_job(&r, "d", 3, 203);
    assert_job(&r, "b", 100, 150);
    assert_job(&r, "c", 203, 253);
    insee_report_clear(&r);
}

Test(sched, conservative_never_delays_an_earlier_reservation)
{
    insee_report r = run_jobs("selection = \"conservative\"", four_jobs());
    assert_job(&r, "a", 0, 100);
    assert_job(&r, "b", 100, 150);
    assert_job(&r, "c", 150, 200);
    assert_job(&r, "d", 200, 400);
    insee_report_clear(&r);
}

/* Three whole-machine jobs queue behind a: SJF runs them shortest
   estimate first, FCFS in arrival order. */
Test(sched, sjf_runs_the_shortest_estimate_first)
{
    char *jobs[] = {job("a", 4, 0, 100, 100), job("x", 4, 1, 300, 300), job("y", 4, 2, 100, 100),
                    job("z", 4, 3, 200, 200), NULL};
    insee_report r = run_jobs("selection = \"sjf\"", jobs);
    assert_job(&r, "y", 100, 200);
    assert_job(&r, "z", 200, 400);
    assert_job(&r, "x", 400, 700);
    insee_report_clear(&r);
    char *again[] = {job("a", 4, 0, 100, 100), job("x", 4, 1, 300, 300),
                     job("y", 4, 2, 100, 100), job("z", 4, 3, 200, 200), NULL};
    r = run_jobs("selection = \"fcfs\"", again);
    assert_job(&r, "x", 100, 400);
    assert_job(&r, "y", 400, 500);
    assert_job(&r, "z", 500, 700);
    insee_report_clear(&r);
}

/* tests/engine/fixtures/sched.swf at 10 cycles a second: job 1 (3 procs,
   100 cycles) from 0, job 2 (4 procs, 50) from 10, job 3 (1 allocated
   proc, requested -1; 30) from 20: the schedules of the tests above. */
static insee_report run_log(const char *selection)
{
    char *toml = g_strdup_printf(
        "%s[scheduler]\nselection = \"%s\"\njobs = \"%s/tests/engine/fixtures/sched.swf\"\n"
        "time_scale = 10\n[scheduler.workload]\nplugin = \"uniform\"\nload = 0\n", net,
        selection, INSEE_TEST_SOURCE_DIR);
    insee_report r = run_toml(toml);
    g_free(toml);
    return r;
}

Test(sched, swf_log_replayed)
{
    insee_report r = run_log("fcfs");
    cr_assert_eq(r.n_apps, 3);
    assert_job(&r, "job1", 0, 100);
    assert_job(&r, "job2", 100, 150);
    assert_job(&r, "job3", 150, 180);
    cr_expect_eq(report_app(&r, "job3")->nodes, 1);
    cr_expect_eq(report_app(&r, "job2")->job_estimate, 50);
    cr_expect_eq(r.sched->makespan, 180);
    cr_expect_float_eq(r.sched->throughput, 3.0 / 180, 1e-12);
    /* waits 0, 90, 130; turnarounds 100, 140, 160; bounded slowdown with
       the 10 000-cycle floor: every job counts as 10 000 long, so 1 */
    cr_expect_float_eq(r.sched->mean_wait, 220.0 / 3, 1e-9);
    cr_expect_float_eq(r.sched->mean_turnaround, 400.0 / 3, 1e-9);
    cr_expect_float_eq(r.sched->mean_slowdown, (1.0 + 140.0 / 50 + 160.0 / 30) / 3, 1e-9);
    cr_expect_eq(r.sched->mean_bounded_slowdown, 1);
    insee_report_clear(&r);
    r = run_log("easy");
    assert_job(&r, "job3", 20, 50);
    assert_job(&r, "job2", 100, 150);
    insee_report_clear(&r);
}

/* The utilisation series integrated over the makespan is the busy
   node-time, and utilisation is that over nodes x makespan. */
Test(sched, utilisation_integral)
{
    insee_report r = run_jobs("selection = \"conservative\"", four_jobs());
    const insee_sched_summary *s = r.sched;
    double area = 0, busy = 0;
    double last = s->first_arrival + s->makespan;
    for (uint32_t i = 0; i < s->n_series; i++) {
        double to = i + 1 < s->n_series ? s->series_at[i + 1] : last;
        area += s->series_busy[i] * (to - s->series_at[i]);
    }
    for (uint32_t a = 0; a < r.n_apps; a++)
        busy += r.apps[a].nodes * (r.apps[a].job_end - r.apps[a].job_start);
    cr_expect_eq(s->series_busy[s->n_series - 1], 0);
    cr_expect_float_eq(area, busy, 1e-9);
    cr_expect_float_eq(s->busy_node_time, busy, 1e-9);
    cr_expect_float_eq(s->utilisation, busy / (4 * s->makespan), 1e-12);
    /* 3 x 100 + 2 x 50 + 4 x 50 + 1 x 200 over 4 x 400 */
    cr_expect_float_eq(s->utilisation, 800.0 / 1600, 1e-12);
    insee_report_clear(&r);
}

/* Jobs that send: where random allocation puts them changes their
   traffic, so their ends; the same seed gives the same run. */
static char *busy_jobs(int seed)
{
    GString *t = g_string_new(NULL);
    g_string_append_printf(t, "[simulation]\nseed = %d\n[topology]\nplugin = \"torus\"\n"
                           "dims = [4, 4]\n[router]\nplugin = \"bubble\"\n[scheduler]\n"
                           "selection = \"easy\"\nallocation = \"random\"\n", seed);
    for (int j = 0; j < 6; j++)
        g_string_append_printf(t, "[[application]]\ntasks = %d\narrival = %d\nruntime = %d\n"
                               "estimated_runtime = %d\n[application.traffic]\nplugin = "
                               "\"uniform\"\nload = 0.2\n", 4 + 2 * j, 40 * j, 300 + 50 * j,
                               400 + 50 * j);
    return g_string_free(t, FALSE);
}

/* The JSON of a run written to `path` (the same path for runs compared:
   the configuration echo holds it). */
static char *json_of(const char *toml, const char *path)
{
    char *full = g_strdup_printf("%s[stats]\njson = \"%s\"\n", toml, path);
    insee_config *cfg;
    insee_registry *reg;
    insee_experiment *exp = run_experiment(full, NULL, &cfg, &reg);
    /* the speed of the run varies: zero it, the rest must not */
    insee_report *rep = (insee_report *)insee_experiment_report(exp);
    rep->setup_seconds = rep->wall_seconds = rep->cycles_per_second = 0;
    rep->packet_hops_per_second = 0;
    rep->peak_rss_kib = 0;
    cr_assert(insee_experiment_write_outputs(exp, NULL));
    char *text = NULL;
    cr_assert(g_file_get_contents(path, &text, NULL, NULL));
    free_experiment(exp, cfg, reg);
    g_unlink(path);
    g_free(full);
    return text;
}

Test(sched, deterministic_with_several_jobs_and_seeds)
{
    char *first[3];
    char *dir = g_dir_make_tmp("insee-sched-XXXXXX", NULL);
    char *path = g_build_filename(dir, "run.json", NULL);
    for (int seed = 1; seed <= 3; seed++) {
        char *toml = busy_jobs(seed);
        first[seed - 1] = json_of(toml, path);
        char *again = json_of(toml, path);
        cr_expect_str_eq(first[seed - 1], again, "seed %d: two runs differ", seed);
        cr_expect(strstr(again, "\"scheduler\""));
        g_free(again);
        g_free(toml);
    }
    cr_expect(strcmp(first[0], first[1]) != 0 || strcmp(first[1], first[2]) != 0,
              "the seed changes nothing: random allocation is not drawn from it");
    for (int i = 0; i < 3; i++)
        g_free(first[i]);
    g_rmdir(dir);
    g_free(path);
    g_free(dir);
}

Test(sched, a_job_that_can_never_fit_is_refused)
{
    char *toml = g_strdup_printf("%s%s", net, "[[application]]\nname = \"huge\"\ntasks = 5\n"
                                 "arrival = 0\nruntime = 10\n[application.traffic]\n"
                                 "plugin = \"uniform\"\nload = 0\n");
    char *e = run_toml_error(toml);
    cr_expect(strstr(e, "job 'huge'") && strstr(e, "never start"), "%s", e);
    g_free(e);
    g_free(toml);
}

Test(sched, open_ended_job_without_runtime_is_refused)
{
    char *toml = g_strdup_printf("%s%s", net, "[[application]]\nname = \"forever\"\ntasks = 2\n"
                                 "arrival = 5\n[application.traffic]\nplugin = \"uniform\"\n");
    char *e = run_toml_error(toml);
    cr_expect(strstr(e, "job 'forever'") && strstr(e, "runtime"), "%s", e);
    g_free(e);
    g_free(toml);
}

Test(sched, bad_swf_names_file_line_and_field)
{
    char *dir = g_dir_make_tmp("insee-swf-XXXXXX", NULL);
    char *path = g_build_filename(dir, "bad.swf", NULL);
    cr_assert(g_file_set_contents(path, "; comment\n1 0 -1 10 -1 -1 -1 3 10 -1 1 1 1 1 1 1 -1 -1\n"
                                        "2 x -1 5 -1 -1 -1 4 5 -1 1 1 1 1 1 1 -1 -1\n", -1, NULL));
    char *toml = g_strdup_printf("%s[scheduler]\njobs = \"%s\"\n[scheduler.workload]\n"
                                 "plugin = \"uniform\"\nload = 0\n", net, path);
    char *e = run_toml_error(toml);
    cr_expect(strstr(e, "bad.swf:3") && strstr(e, "submit time"), "%s", e);
    g_free(e);
    g_free(toml);
    /* A log that cannot be read, a directory here, is named with its key. */
    toml = g_strdup_printf("%s[scheduler]\njobs = \"%s\"\n[scheduler.workload]\n"
                           "plugin = \"uniform\"\nload = 0\n", net, dir);
    e = run_toml_error(toml);
    cr_expect(strstr(e, "[scheduler] jobs = ") && strstr(e, "cannot be read: it is a directory"),
              "%s", e);
    g_free(e);
    g_free(toml);
    g_unlink(path);
    g_rmdir(dir);
    g_free(path);
    g_free(dir);
}
