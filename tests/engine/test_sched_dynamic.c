/* Job scheduling (docs/scheduling.md) on the dynamic flow engine, in
 * seconds, against schedules worked out by hand. The network is a 4-node
 * line (mesh) whose links carry 1e9 bytes/s; causal jobs run all-to-one
 * with root 0 and messages of 1e9 bytes: the k - 1 senders share the
 * root's node link, so a job of k tasks on k nodes lasts (k - 1) s. A job
 * whose two tasks share a node sends only between them (no link) and
 * lasts its runtime. The same shapes as tests/engine/test_sched.c. */
#include <criterion/criterion.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "run_helpers.h"

static const char net[] = "[simulation]\nengine = \"dynamic\"\n"
                          "[topology]\nplugin = \"mesh\"\ndims = [4]\n"
                          "[router]\nplugin = \"dally\"\nvcs = 1\n"
                          "[flow]\nlink_gbps = 8\ncycle_ns = 0\n";

/* A causal job of `tasks` tasks on as many nodes: (tasks - 1) s alone. */
static char *causal(const char *name, int tasks, double arrival, double estimate)
{
    return g_strdup_printf("[[application]]\nname = \"%s\"\ntasks = %d\narrival = %.17g\n"
                           "estimated_runtime = %.17g\n[application.traffic]\n"
                           "plugin = \"all-to-one\"\nroot = 0\nmessage_bytes = 1000000000\n",
                           name, tasks, arrival, estimate);
}

/* An open-ended job on one node for `runtime` s. */
static char *one_node(const char *name, double arrival, double runtime, double estimate)
{
    return g_strdup_printf("[[application]]\nname = \"%s\"\ntasks = 2\ntasks_per_node = 2\n"
                           "arrival = %.17g\nruntime = %.17g\nestimated_runtime = %.17g\n"
                           "[application.traffic]\nplugin = \"uniform\"\n",
                           name, arrival, runtime, estimate);
}

/* The run of `toml`: its report (the jobs' figures and the scheduler's),
   its printed text when `text` is not NULL (free()). */
static insee_report run_report(const char *toml, char **text)
{
    insee_config *cfg;
    insee_registry *reg;
    insee_experiment *exp = run_experiment(toml, text, &cfg, &reg);
    cr_assert(insee_experiment_dyn_report(exp));
    insee_report r = insee_report_copy(insee_experiment_report(exp));
    free_experiment(exp, cfg, reg);
    cr_assert(r.sched, "the run has no scheduler figures");
    return r;
}

/* Run the jobs (NULL-terminated, freed here) under `scheduler` keys. */
static insee_report run_jobs(const char *scheduler, char **jobs)
{
    char *toml = jobs_toml(net, scheduler, jobs);
    insee_report r = run_report(toml, NULL);
    g_free(toml);
    return r;
}

/* Rates of a third of a link leave the last bits of a time inexact. */
static void assert_job(const insee_report *r, const char *name, double start, double end)
{
    const insee_app_report *a = report_app(r, name);
    cr_assert(a->job, "%s", name);
    cr_expect(fabs(a->job_start - start) < 1e-9, "%s starts at %.17g s, not %g", name,
              a->job_start, start);
    cr_expect(fabs(a->job_end - end) < 1e-9, "%s ends at %.17g s, not %g", name, a->job_end,
              end);
}

/* A one-task all-to-one job sends nothing: it ends as it starts, a run of
   0 whose slowdown does not exist and stays out of the mean. */
Test(sched_dynamic, causal_job_lasts_its_bytes_over_the_bandwidth)
{
    char *jobs[] = {causal("pair", 2, 0.5, 0), causal("idle", 1, 0.75, 0), NULL};
    insee_report r = run_jobs("", jobs);
    assert_job(&r, "pair", 0.5, 1.5); /* 1e9 bytes at 1e9 bytes/s */
    assert_job(&r, "idle", 0.75, 0.75);
    cr_expect_eq(r.sched->completed, 2);
    cr_expect(fabs(r.sched->makespan - 1) < 1e-12);
    cr_expect(fabs(r.sched->first_arrival - 0.5) < 1e-12);
    cr_expect_float_eq(r.sched->mean_slowdown, 1, 1e-12);
    cr_expect_float_eq(r.sched->mean_bounded_slowdown, 1, 1e-12);
    insee_report_clear(&r);
}

/* a (3 nodes, 2 s) runs first; the head needs all 4 nodes and waits for
   it; the one-node job (0.3 s) arrives last, estimated at `estimate`. */
static insee_report three_jobs(const char *scheduler, const char *last, double estimate)
{
    char *jobs[] = {causal("a", 3, 0, 2), causal("head", 4, 0.1, 3),
                    one_node(last, 0.2, 0.3, estimate), NULL};
    return run_jobs(scheduler, jobs);
}

/* FCFS keeps the one-node job behind the head although node 3 is free
   until 2 s. */
Test(sched_dynamic, fcfs_blocks_behind_a_wide_head)
{
    insee_report r = three_jobs("selection = \"fcfs\"\nbounded_slowdown_min = 1", "small", 0.3);
    assert_job(&r, "a", 0, 2);
    assert_job(&r, "head", 2, 5);
    assert_job(&r, "small", 5, 5.3);
    const insee_sched_summary *s = r.sched;
    cr_expect_str_eq(s->unit, "s");
    cr_expect_float_eq(s->makespan, 5.3, 1e-9);
    cr_expect_float_eq(s->throughput, 3 / 5.3, 1e-9);
    cr_expect_float_eq(s->mean_wait, (0 + 1.9 + 4.8) / 3, 1e-9);
    cr_expect_float_eq(s->mean_turnaround, (2 + 4.9 + 5.1) / 3, 1e-9);
    /* busy node-time 3 x 2 + 4 x 3 + 1 x 0.3 */
    cr_expect_float_eq(s->busy_node_time, 18.3, 1e-9);
    cr_expect_float_eq(s->utilisation, 18.3 / (4 * 5.3), 1e-9);
    cr_expect_float_eq(s->mean_slowdown, (1 + 4.9 / 3 + 5.1 / 0.3) / 3, 1e-9);
    /* floor 1 s: small's 0.3 s counts as 1 s */
    cr_expect_eq(s->bsld_min, 1);
    cr_expect_float_eq(s->mean_bounded_slowdown, (1 + 4.9 / 3 + 5.1) / 3, 1e-9);
    insee_report_clear(&r);
}

/* EASY: the head's reservation is at 2 s (a's estimated end); the small
   job ends by its estimate at 0.5 s, before it, and its tasks share node 3,
   off a's links: it starts at once and a and the head keep their times. */
Test(sched_dynamic, easy_backfills_a_short_job_without_delaying_the_head)
{
    insee_report r = three_jobs("selection = \"easy\"", "small", 0.3);
    assert_job(&r, "a", 0, 2);
    assert_job(&r, "small", 0.2, 0.5);
    assert_job(&r, "head", 2, 5);
    cr_expect_float_eq(r.sched->makespan, 5, 1e-9);
    insee_report_clear(&r);
}

/* Estimated at 3 s the small job would end at 3.2 s, past the reservation,
   on a node the head needs: EASY leaves it behind the head. */
Test(sched_dynamic, easy_refuses_a_job_that_would_delay_the_head)
{
    insee_report r = three_jobs("selection = \"easy\"", "long", 3);
    assert_job(&r, "head", 2, 5);
    assert_job(&r, "long", 5, 5.3);
    insee_report_clear(&r);
}

/* An open-ended job's two tasks on two nodes send each other 1e9 bytes at
   its start (one round), 1 s over links of opposite directions. It ends at
   start + runtime, or at its last delivery when that is later. */
Test(sched_dynamic, open_ended_job_ends_at_its_runtime_or_its_last_delivery)
{
    const double runtimes[] = {0.25, 1.5}, ends[] = {2, 2.5};
    for (int i = 0; i < 2; i++) {
        char *toml = g_strdup_printf(
            "%s[[application]]\nname = \"talk\"\ntasks = 2\narrival = 1\nruntime = %g\n"
            "[application.traffic]\nplugin = \"uniform\"\nmessage_bytes = 1000000000\n", net,
            runtimes[i]);
        insee_report r = run_report(toml, NULL);
        assert_job(&r, "talk", 1, ends[i]);
        insee_report_clear(&r);
        g_free(toml);
    }
}

/* tests/engine/fixtures/sched.swf in seconds (time_scale 1): job 1 (3
   procs, 10 s) from 0, job 2 (4 procs, 5 s) from 1, job 3 (1 proc, 3 s)
   from 2, each task sending one 64-byte message (64 ns, or none when it
   draws itself: job 3 has one task). */
static insee_report run_log(const char *selection, char **text)
{
    char *toml = g_strdup_printf(
        "%s[scheduler]\nselection = \"%s\"\njobs = \"%s/tests/engine/fixtures/sched.swf\"\n"
        "[scheduler.workload]\nplugin = \"uniform\"\nself = true\n", net, selection, INSEE_TEST_SOURCE_DIR);
    insee_report r = run_report(toml, text);
    g_free(toml);
    return r;
}

Test(sched_dynamic, swf_log_replayed_in_seconds)
{
    char *text;
    insee_report r = run_log("fcfs", &text);
    cr_assert_eq(r.n_apps, 3);
    assert_job(&r, "job1", 0, 10);
    assert_job(&r, "job2", 10, 15);
    assert_job(&r, "job3", 15, 18);
    const insee_sched_summary *s = r.sched;
    cr_expect_float_eq(s->makespan, 18, 1e-9);
    cr_expect_float_eq(s->throughput, 3.0 / 18, 1e-12);
    cr_expect_float_eq(s->mean_wait, (0 + 9 + 13) / 3.0, 1e-9);
    cr_expect_float_eq(s->mean_turnaround, (10 + 14 + 16) / 3.0, 1e-9);
    cr_expect_float_eq(s->mean_slowdown, (1 + 14.0 / 5 + 16.0 / 3) / 3, 1e-9);
    /* the 10 s floor: 10 / 10, 14 / 10, 16 / 10 */
    cr_expect_eq(s->bsld_min, 10);
    cr_expect_float_eq(s->mean_bounded_slowdown, (1 + 1.4 + 1.6) / 3, 1e-9);
    cr_expect_float_eq(s->busy_node_time, 3 * 10 + 4 * 5 + 1 * 3, 1e-9);
    cr_expect(strstr(text, "# scheduler (selection fcfs, allocation first-free)") &&
                  strstr(text, "floor 10 s") && strstr(text, "start 10, end 15 s"),
              "%s", text);
    free(text);
    insee_report_clear(&r);
    r = run_log("easy", NULL);
    assert_job(&r, "job3", 2, 5);
    assert_job(&r, "job2", 10, 15);
    insee_report_clear(&r);
}

/* Causal jobs that contend for links: where random allocation puts them
   changes their run times. */
static char *busy_jobs(int seed, const char *outputs)
{
    GString *t = g_string_new(NULL);
    g_string_append_printf(t, "[simulation]\nengine = \"dynamic\"\nseed = %d\n[topology]\n"
                           "plugin = \"torus\"\ndims = [4, 4]\n[router]\nplugin = \"dally\"\n"
                           "[flow]\nlink_gbps = 8\ncycle_ns = 0\n[scheduler]\n"
                           "selection = \"easy\"\nallocation = \"random\"\n%s", seed, outputs);
    for (int j = 0; j < 6; j++)
        g_string_append_printf(t, "[[application]]\ntasks = %d\narrival = %g\n"
                               "estimated_runtime = %d\n[application.traffic]\nplugin = "
                               "\"all-to-all\"\nmessage_bytes = 100000000\n", 4 + 2 * j,
                               0.5 * j, 2 + j);
    return g_string_free(t, FALSE);
}

/* The JSON and CSV of a run of `toml` (the same paths for runs compared:
   the configuration echo holds them). */
static char *outputs_of(int seed, const char *json, const char *csv, char **csv_text)
{
    char *keys = g_strdup_printf("[stats]\njson = \"%s\"\ncsv = \"%s\"\n", json, csv);
    char *toml = busy_jobs(seed, keys);
    run_writing_outputs(toml);
    char *text = NULL;
    cr_assert(g_file_get_contents(json, &text, NULL, NULL));
    cr_assert(g_file_get_contents(csv, csv_text, NULL, NULL));
    g_unlink(json);
    g_unlink(csv);
    g_free(toml);
    g_free(keys);
    return text;
}

Test(sched_dynamic, deterministic_outputs_with_the_jobs_figures)
{
    char *dir = g_dir_make_tmp("insee-dynsched-XXXXXX", NULL);
    char *json = g_build_filename(dir, "run.json", NULL);
    char *csv = g_build_filename(dir, "runs.csv", NULL);
    char *first[3];
    for (int seed = 1; seed <= 3; seed++) {
        char *csv1, *csv2;
        first[seed - 1] = outputs_of(seed, json, csv, &csv1);
        char *again = outputs_of(seed, json, csv, &csv2);
        cr_expect_str_eq(first[seed - 1], again, "seed %d: two runs differ", seed);
        cr_expect_str_eq(csv1, csv2);
        cr_expect(strstr(again, "\"scheduler\"") && strstr(again, "\"unit\":\"s\"") &&
                      strstr(again, "\"job\"") && strstr(again, "\"busy_nodes\""), "%s", again);
        cr_expect(strstr(csv1, ",plugin_figures\n") && strstr(csv1, "scheduler.makespan="),
                  "%s", csv1);
        g_free(again);
        g_free(csv1);
        g_free(csv2);
    }
    cr_expect(strcmp(first[0], first[1]) != 0 || strcmp(first[1], first[2]) != 0,
              "the seed changes nothing: random allocation is not drawn from it");
    for (int i = 0; i < 3; i++)
        g_free(first[i]);
    g_rmdir(dir);
    g_free(json);
    g_free(csv);
    g_free(dir);
}

/* Every job completes once, its nodes held from its start to its end: the
   utilisation series integrates to the busy node-time. */
Test(sched_dynamic, utilisation_series_integrates_to_the_busy_node_time)
{
    char *toml = busy_jobs(7, "");
    insee_report r = run_report(toml, NULL);
    const insee_sched_summary *s = r.sched;
    cr_expect_eq(s->completed, 6);
    double area = 0, busy = 0, last = s->first_arrival + s->makespan;
    for (uint32_t i = 0; i < s->n_series; i++) {
        double to = i + 1 < s->n_series ? s->series_at[i + 1] : last;
        area += s->series_busy[i] * (to - s->series_at[i]);
    }
    for (uint32_t a = 0; a < r.n_apps; a++) {
        cr_expect(r.apps[a].job_start >= r.apps[a].job_arrival);
        cr_expect(r.apps[a].job_end > r.apps[a].job_start);
        busy += r.apps[a].nodes * (r.apps[a].job_end - r.apps[a].job_start);
    }
    cr_expect_eq(s->series_busy[s->n_series - 1], 0);
    cr_expect_float_eq(area, busy, 1e-9);
    cr_expect_float_eq(s->busy_node_time, busy, 1e-9);
    insee_report_clear(&r);
    g_free(toml);
}

Test(sched_dynamic, static_engine_and_storage_refuse_jobs)
{
    char *job = causal("j", 2, 0, 0);
    char *toml = g_strdup_printf("%s%s", net, job);
    char *stat = g_strdup_printf("[simulation]\nengine = \"static\"\n[topology]\n"
                                 "plugin = \"mesh\"\ndims = [4]\n[router]\nplugin = \"dally\"\n"
                                 "vcs = 1\n%s", job);
    char *e = run_toml_error(stat);
    cr_expect(strstr(e, "job 'j'") && strstr(e, "static engine has none"), "%s", e);
    g_free(e);
    char *storage = g_strdup_printf("%s[storage]\n", toml);
    e = run_toml_error(storage);
    cr_expect(strstr(e, "job 'j'") && strstr(e, "[storage]"), "%s", e);
    g_free(e);
    g_free(storage);
    g_free(stat);
    g_free(toml);
    g_free(job);
}
