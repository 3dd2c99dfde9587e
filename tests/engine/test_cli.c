#define _POSIX_C_SOURCE 200809L
/* The `insee` program as a user meets it: exit codes, error messages that
 * name the file position and the fix, the plugin commands. */
#include <criterion/criterion.h>
#include <glib.h>
#include <insee/plugin.h>
#include <glib/gstdio.h>
#include <locale.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct result {
    int status;
    char *out;
    char *err;
} result;

/* Run the program in `cwd` (NULL: here). */
static result run_insee_in(const char *cwd, const char *const *args)
{
    GPtrArray *argv = g_ptr_array_new();
    g_ptr_array_add(argv, (char *)INSEE_TEST_BIN);
    for (; *args; args++)
        g_ptr_array_add(argv, (char *)*args);
    g_ptr_array_add(argv, NULL);
    result r = {0};
    GError *err = NULL;
    int wait = 0;
    cr_assert(g_spawn_sync(cwd, (char **)argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, &r.out,
                           &r.err, &wait, &err),
              "spawn: %s", err ? err->message : "?");
    r.status = WIFEXITED(wait) ? WEXITSTATUS(wait) : -1;
    g_ptr_array_free(argv, TRUE);
    return r;
}

static result run_insee(const char *const *args)
{
    return run_insee_in(NULL, args);
}

static void result_free(result *r)
{
    g_free(r->out);
    g_free(r->err);
}

static char *write_temp(const char *text)
{
    char *path = NULL;
    int fd = g_file_open_tmp("insee-cli-XXXXXX.toml", &path, NULL);
    cr_assert(fd >= 0);
    close(fd);
    cr_assert(g_file_set_contents(path, text, -1, NULL));
    return path;
}

Test(cli, version_names_the_abi)
{
    result r = run_insee((const char *[]){"--version", NULL});
    cr_assert_eq(r.status, 0);
    char *abi = g_strdup_printf("plugin ABI %u.%u", INSEE_ABI_MAJOR, INSEE_ABI_MINOR);
    cr_assert(strstr(r.out, abi), "got: %s", r.out);
    g_free(abi);
    result_free(&r);
}

Test(cli, default_experiment_runs)
{
    result r = run_insee((const char *[]){"run", "--set", "simulation.cycles=2000", NULL});
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    cr_assert(strstr(r.out, "accepted load"));
    cr_assert(strstr(r.out, "dims = [8, 8]"), "parameters are echoed: %s", r.out);
    result_free(&r);
}

Test(cli, typo_key_exit_2_with_position_and_suggestion)
{
    char *path = write_temp("[topology]\nplugin = \"torus\"\ndimz = [8, 8]\n");
    result r = run_insee((const char *[]){"run", path, NULL});
    cr_assert_eq(r.status, 2, "status %d, stderr: %s", r.status, r.err);
    char *pos = g_strdup_printf("%s:3:1", path);
    cr_assert(strstr(r.err, pos), "position %s in: %s", pos, r.err);
    cr_assert(strstr(r.err, "did you mean 'dims'"), "got: %s", r.err);
    cr_assert_str_empty(r.out, "no report on a config error");
    g_free(pos);
    result_free(&r);
    g_remove(path);
    g_free(path);
}

Test(cli, malformed_toml_exit_2)
{
    char *path = write_temp("[topology\nplugin = \"torus\"\n");
    result r = run_insee((const char *[]){"run", path, NULL});
    cr_assert_eq(r.status, 2, "stderr: %s", r.err);
    cr_assert(strstr(r.err, path), "names the file: %s", r.err);
    result_free(&r);
    g_remove(path);
    g_free(path);
}

Test(cli, bad_override_exit_2)
{
    result r = run_insee((const char *[]){"run", "--set", "traffic.load=7", NULL});
    cr_assert_eq(r.status, 2, "stderr: %s", r.err);
    cr_assert(strstr(r.err, "load"), "got: %s", r.err);
    result_free(&r);
}

Test(cli, unknown_plugin_exit_3)
{
    result r = run_insee((const char *[]){"run", "--set", "router.plugin=nosuch", NULL});
    cr_assert_eq(r.status, 3, "stderr: %s", r.err);
    cr_assert(strstr(r.err, "nosuch") && strstr(r.err, "dally"),
              "names it and what exists: %s", r.err);
    result_free(&r);
}

Test(cli, unwritable_csv_exit_2_before_the_run_and_no_file)
{
    result r = run_insee((const char *[]){"run", "--set", "simulation.cycles=1000", "--set",
                                          "stats.csv=/nonexistent-dir/x.csv", NULL});
    cr_assert_eq(r.status, 2, "a configuration error: %s", r.err);
    cr_assert(strstr(r.err, "/nonexistent-dir/x.csv:"), "got: %s", r.err);
    cr_assert_not(strstr(r.err, "x.csv."), "names no temporary file: %s", r.err);
    cr_assert_str_empty(r.out, "refused before the run");
    cr_assert_not(g_file_test("/nonexistent-dir/x.csv", G_FILE_TEST_EXISTS));
    result_free(&r);
}

Test(cli, plugins_list_and_info)
{
    result r = run_insee((const char *[]){"plugins", "list", NULL});
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    cr_assert(strstr(r.out, "torus") && strstr(r.out, "dally") && strstr(r.out, "uniform"));
    result_free(&r);
    r = run_insee((const char *[]){"plugins", "info", "torus", "--json", NULL});
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    cr_assert(strstr(r.out, "\"dims\""), "got: %s", r.out);
    result_free(&r);
    r = run_insee((const char *[]){"plugins", "info", "nosuch", NULL});
    cr_assert_eq(r.status, 3);
    result_free(&r);
}

Test(cli, unknown_command_exit_2)
{
    result r = run_insee((const char *[]){"frobnicate", NULL});
    cr_assert_eq(r.status, 2);
    result_free(&r);
}

/* The command line of `insee trace export`: the trace written where -o
   says, a usage error without -o, a refusal (exit 2) leaving no file. */
Test(cli, trace_export_writes_the_file_or_exits_2)
{
    char *dir = g_dir_make_tmp("insee-cli-export-XXXXXX", NULL);
    char *out = g_build_filename(dir, "stencil.fsin", NULL);
    char *stencil = g_build_filename(INSEE_TEST_SOURCE_DIR, "examples", "stencil.toml", NULL);
    result r = run_insee((const char *[]){"trace", "export", stencil, "-o", out, NULL});
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(g_file_test(out, G_FILE_TEST_IS_REGULAR));
    g_unlink(out);
    result_free(&r);
    r = run_insee((const char *[]){"trace", "export", stencil, NULL});
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "-o TRACE.fsin"), "%s", r.err);
    result_free(&r);
    r = run_insee((const char *[]){"trace", "export", stencil, "other", "-o", out, NULL});
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "no application is named 'other'"), "%s", r.err);
    cr_expect_not(g_file_test(out, G_FILE_TEST_EXISTS));
    result_free(&r);
    g_rmdir(dir);
    g_free(stencil);
    g_free(out);
    g_free(dir);
}

Test(cli, example_configs_run)
{
    char *dir = g_build_filename(INSEE_TEST_SOURCE_DIR, "examples", NULL);
    GDir *d = g_dir_open(dir, 0, NULL);
    cr_assert(d);
    int seen = 0;
    for (const char *name; (name = g_dir_read_name(d));) {
        /* bridge-*.toml wait for their clients: tests/bridge runs them. */
        if (!g_str_has_suffix(name, ".toml") || g_str_has_prefix(name, "bridge-"))
            continue;
        char *path = g_build_filename(dir, name, NULL);
        /* From the source tree, as the README runs them: examples name
           their data files relative to it. */
        /* A flow engine's example has no cycles to shorten (it refuses them);
           NSIM's all-to-all runs to its end, minutes at 2048 ranks: 16 of
           them here. */
        gboolean flow = g_str_has_prefix(name, "flow-");
        gboolean nsim = g_str_has_prefix(name, "nsim-alltoall");
        result r = run_insee_in(INSEE_TEST_SOURCE_DIR,
                                flow   ? (const char *[]){"run", path, NULL}
                                : nsim ? (const char *[]){"run", path, "--set", "traffic.tasks=16",
                                                          NULL}
                                       : (const char *[]){"run", path, "--set",
                                                          "simulation.cycles=2000", "--set",
                                                          "simulation.warmup=500", NULL});
        cr_assert_eq(r.status, 0, "%s: %s", name, r.err);
        seen++;
        result_free(&r);
        g_free(path);
    }
    g_dir_close(d);
    cr_assert_gt(seen, 0);
    g_free(dir);
}

Test(cli, refused_plugin_does_not_stop_the_run)
{
    /* The mixed fixture directory holds a plugin built for ABI 2.0 (and
       other broken ones) next to usable ones. */
    const char *dir = INSEE_TEST_FIXTURE_DIR "/mixed";
    result r = run_insee((const char *[]){"--plugin-dir", dir, "run", "--set",
                                          "simulation.cycles=1000", NULL});
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    char *theirs = g_strdup_printf("ABI %u.%u", INSEE_ABI_MAJOR + 1, INSEE_ABI_MINOR);
    char *ours = g_strdup_printf("ABI %u.%u", INSEE_ABI_MAJOR, INSEE_ABI_MINOR);
    cr_assert(strstr(r.err, "abi-major.so") && strstr(r.err, theirs) && strstr(r.err, ours),
              "the refusal names the file and both versions: %s", r.err);
    g_free(theirs);
    g_free(ours);
    cr_assert(strstr(r.out, "accepted load"));
    result_free(&r);
}

/* The report up to its speed section, which is the only part that may vary. */
static char *report_without_speed(const char *out)
{
    const char *speed = strstr(out, "# speed");
    cr_assert(speed, "the report has a speed section");
    return g_strndup(out, (gsize)(speed - out));
}

Test(cli, same_seed_same_report)
{
    const char *args[] = {"run", "--set", "simulation.cycles=3000", "--set",
                          "traffic.load=0.5", "--set", "simulation.seed=11", NULL};
    result a = run_insee(args), b = run_insee(args);
    cr_assert_eq(a.status, 0, "stderr: %s", a.err);
    char *ra = report_without_speed(a.out), *rb = report_without_speed(b.out);
    cr_assert_str_eq(ra, rb);
    cr_assert(strstr(ra, "seed = 11"), "the seed is echoed");
    g_free(ra);
    g_free(rb);
    result_free(&a);
    result_free(&b);
}

/* [simulation] threads above the cores the process may use splits the run
   all the same, with a notice saying why it is slower; as many as the
   cores, none. */
Test(cli, more_threads_than_cores_are_noticed)
{
    uint32_t cores = g_get_num_processors();
    for (uint32_t threads = cores; threads <= cores + 1; threads++) {
        char *set = g_strdup_printf("simulation.threads=%u", threads);
        const char *args[] = {"run", "--set", "simulation.cycles=200", "--set",
                              "simulation.warmup=0", "--set", set, NULL};
        result r = run_insee(args);
        cr_assert_eq(r.status, 0, "stderr: %s", r.err);
        gboolean noticed = strstr(r.err, "more parts than the") != NULL;
        cr_assert_eq(noticed, threads > cores, "%u threads on %u cores: %s", threads, cores,
                     r.err);
        cr_assert(threads < 2 || strstr(r.out, "threads, as parts"), "%s", r.out);
        result_free(&r);
        g_free(set);
    }
}

/* Several applications and a causal one among them: same seed, the same
   report byte for byte (each application's figures included). */
Test(cli, same_seed_same_report_with_several_applications)
{
    static const char *const files[] = {"examples/two-applications.toml",
                                        "examples/stencil.toml"};
    for (size_t i = 0; i < G_N_ELEMENTS(files); i++) {
        const char *args[] = {"run", files[i], "--set", "simulation.cycles=3000", NULL};
        result a = run_insee_in(INSEE_TEST_SOURCE_DIR, args);
        result b = run_insee_in(INSEE_TEST_SOURCE_DIR, args);
        cr_assert_eq(a.status, 0, "%s: %s", files[i], a.err);
        char *ra = report_without_speed(a.out), *rb = report_without_speed(b.out);
        cr_assert_str_eq(ra, rb);
        cr_assert(strstr(ra, "# application '"), "%s: per-application figures", files[i]);
        g_free(ra);
        g_free(rb);
        result_free(&a);
        result_free(&b);
    }
}

/* Workloads that cannot fit the experiment stop at load time with exit 2
   and what to change: a trace for 8 tasks on 4 nodes, a bit permutation on
   9 tasks, more tasks than nodes. */
Test(cli, workloads_that_do_not_fit_exit_2)
{
    static const struct { const char *set[6], *says; } cases[] = {
        {{"topology.dims=[2,2]", "traffic.plugin=trace",
          "traffic.file=\"examples/traces/ring.fsin\""}, "needs 8 tasks"},
        {{"topology.dims=[3,3]", "traffic.plugin=permutation", "traffic.pattern=bit-reversal",
          "traffic.load=0.1"}, "use 8 or 16 tasks"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        /* A file of its own: the embedded default sets a load, which trace refuses. */
        char *path = g_build_filename(g_get_tmp_dir(), "insee-cli-fit.toml", NULL);
        cr_assert(g_file_set_contents(path, "[simulation]\nseed = 1\n", -1, NULL));
        const char *args[16] = {"run", path};
        int n = 2;
        for (int k = 0; k < 6 && cases[i].set[k]; k++) {
            args[n++] = "--set";
            args[n++] = cases[i].set[k];
        }
        result r = run_insee_in(INSEE_TEST_SOURCE_DIR, args);
        cr_assert_eq(r.status, 2, "case %zu: status %d, stderr: %s", i, r.status, r.err);
        cr_assert(strstr(r.err, cases[i].says), "case %zu: %s", i, r.err);
        result_free(&r);
        g_unlink(path);
        g_free(path);
    }
    char *app = g_build_filename(g_get_tmp_dir(), "insee-cli-apps.toml", NULL);
    cr_assert(g_file_set_contents(app, "[[application]]\ntasks = 65\n", -1, NULL));
    result r = run_insee((const char *[]){"run", app, NULL});
    cr_assert_eq(r.status, 2, "stderr: %s", r.err);
    cr_assert(strstr(r.err, "needs 65 nodes"), "%s", r.err);
    result_free(&r);
    g_unlink(app);
    g_free(app);
}

Test(cli, topology_summary_matches_closed_forms)
{
    /* 5x4 torus: diameter 2 + 2; average distance over all ordered pairs
       (25-1)/20 + 4/4 = 2.2, over distinct pairs 2.2 * 20/19. */
    char *dot = g_build_filename(g_get_tmp_dir(), "insee-cli-test.dot", NULL);
    result r = run_insee((const char *[]){"topology", "--set", "topology.dims=[5,4]", "--dot",
                                          dot, NULL});
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    cr_assert(strstr(r.out, "routers                20"), "got: %s", r.out);
    cr_assert(strstr(r.out, "links                  40 (80 one-way"), "got: %s", r.out);
    cr_assert(strstr(r.out, "diameter               4\n"), "got: %s", r.out);
    char *avg = g_strdup_printf("%.6f", 2.2 * 20.0 / 19.0);
    cr_assert(strstr(r.out, avg), "average %s in: %s", avg, r.out);
    char *text = NULL;
    cr_assert(g_file_get_contents(dot, &text, NULL, NULL));
    cr_assert(g_str_has_prefix(text, "digraph insee {"));
    cr_assert(strstr(text, "r0 -> r1 [dir=none];"));
    g_free(text);
    g_free(avg);
    g_remove(dot);
    g_free(dot);
    result_free(&r);
}

/* A topology with a routing of its own: the ring of 6 routed clockwise
   only (fixtures) takes 1 .. 5 hops, 3 on average, where the shortest
   average is 9/5; a failed cable cuts the 15 clockwise routes across it;
   a fat tree's 8 switches (k = 4, n = 2, 16 interfaces) are counted. */
Test(cli, topology_summary_gives_switches_and_the_topology_s_own_routes)
{
    result r = run_insee((const char *[]){"topology", "--plugin-dir", INSEE_TEST_FIXTURE_PLUGIN_DIR,
                                          "--set", "topology.plugin=\"test-clockwise\"", NULL});
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    cr_assert(strstr(r.out, "average distance       1.800000 hops"), "got: %s", r.out);
    cr_assert(strstr(r.out, "own routes             3.000000 hops between nodes of different "
                            "routers, longest 5\n"), "got: %s", r.out);
    cr_assert_null(strstr(r.out, "switches"), "a ring has none: %s", r.out);
    result_free(&r);
    char *cables = g_build_filename(g_get_tmp_dir(), "insee-cli-cables.txt", NULL);
    cr_assert(g_file_set_contents(cables, "0 0\n", -1, NULL));
    char *key = g_strdup_printf("faults.file=\"%s\"", cables);
    r = run_insee((const char *[]){"topology", "--plugin-dir", INSEE_TEST_FIXTURE_PLUGIN_DIR,
                                   "--set", "topology.plugin=\"test-clockwise\"", "--set", key,
                                   NULL});
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    cr_assert(strstr(r.out, ", 15 pairs unroutable\n"), "got: %s", r.out);
    result_free(&r);
    g_free(key);
    g_unlink(cables);
    g_free(cables);
    r = run_insee((const char *[]){"topology", "--set", "topology.plugin=\"kary-ntree\"",
                                   "--set", "topology.k=4", "--set", "topology.n=2", NULL});
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    cr_assert(strstr(r.out, "switches               8 (routers hosting no node)\n"), "got: %s",
              r.out);
    cr_assert_null(strstr(r.out, "own routes"), "a fat tree has no routing of its own: %s", r.out);
    result_free(&r);
}

Test(cli, dally_refuses_a_graph_and_names_updown)
{
    result r = run_insee_in(INSEE_TEST_SOURCE_DIR,
                            (const char *[]){"run", "examples/graph-petersen-updown.toml", "--set",
                                             "router.plugin=dally", NULL});
    cr_assert_eq(r.status, 2, "stderr: %s", r.err);
    cr_assert(strstr(r.err, "not the link of a dimension") && strstr(r.err, "updown"),
              "got: %s", r.err);
    result_free(&r);
}

/* Dimension order on a 1-VC torus deadlocks at high load: the run ends with
   exit 1 and the ring of full queues, never a hang and never a report. */
Test(cli, deadlock_ends_the_run_with_the_cycle_of_queues)
{
    result r = run_insee((const char *[]){"run", "--set", "router.plugin=dally", "--set",
                                          "router.vcs=1", "--set", "router.allow_deadlock=true",
                                          "--set", "traffic.load=0.9", NULL});
    cr_assert_eq(r.status, 1, "stderr: %s", r.err);
    cr_assert(strstr(r.err, "deadlock") && strstr(r.err, "waits for the first"),
              "no diagnosis: %s", r.err);
    /* Found the cycle it happens, although the blocked heads sleep until
       they have room (engine.c): the clock does not jump past it. */
    cr_assert(strstr(r.err, "no packet has moved for 10000 cycles"), "got: %s", r.err);
    /* Every queue of the cycle is full and named by router, port and VC. */
    int queues = 0;
    for (const char *l = strstr(r.err, "\n  router "); l; l = strstr(l + 1, "\n  router ")) {
        cr_assert(strstr(l, " VC 0: 4 of 4 packets") < strchr(l + 1, '\n'), "not full: %s", l);
        queues++;
    }
    cr_assert_geq(queues, 2, "a cycle needs two queues at least: %s", r.err);
    cr_assert_null(strstr(r.out, "accepted load"), "no results from a deadlocked run");
    result_free(&r);
}

/* With detection off no phase spins for its whole budget: a deadlocked
   drain of 10^9 cycles still ends, after the stall limit; and a drain too
   short to reach it does not advise more drain, which could not help. */
Test(cli, no_phase_spins_without_progress)
{
    static const char *const deadlocking[] = {
        "--set", "router.plugin=dally", "--set", "router.vcs=1", "--set",
        "router.allow_deadlock=true", "--set", "traffic.load=0.9", "--set",
        "simulation.deadlock_cycles=0"};
    const char *args[16] = {"run"};
    memcpy(args + 1, deadlocking, sizeof deadlocking);
    args[11] = "--set";
    args[12] = "simulation.drain=1000000000";
    result r = run_insee(args);
    cr_assert_eq(r.status, 1, "stderr: %s", r.err);
    cr_assert(strstr(r.err, "deadlock") && strstr(r.err, "even with deadlock_cycles = 0"),
              "got: %s", r.err);
    result_free(&r);
    args[12] = "simulation.drain=20000";
    r = run_insee(args);
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    cr_assert(strstr(r.out, "NOT drained: nothing moved"), "got: %s", r.out);
    cr_assert_null(strstr(r.out, "raise [simulation] drain"));
    result_free(&r);
}

/* A corrupt SpiNNaker table: exit 2, the file and line, what is wrong. */
Test(cli, spinnaker_table_errors_name_the_line)
{
    static const struct { const char *text, *line, *what; } cases[] = {
        {"# ok\n0 0 0 2\n1 0 loca\n", ":3:", "local` or a port"},
        {"0 0 7\n", ":1:", "port number"},
        {"99 0 local\n", ":1:", "router number"},
        {"0 0\n", ":1:", "at least one output"},
        {"0 0 1 1\n", ":1:", "twice"},
        {"0 0 1\n0 0 2\n", "two entries", "merge"},
        {"0 0 1 ######\n1 0 loc\n", ":2:", "local"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        char *path = write_temp(cases[i].text);
        char *file = g_strdup_printf("router.file=%s", path);
        result r = run_insee((const char *[]){"run", "--set", "topology.dims=[4,4]", "--set",
                                              "router.plugin=spinnaker", "--set",
                                              "router.table=file", "--set", file, NULL});
        cr_assert_eq(r.status, 2, "case %zu: %s", i, r.err);
        cr_assert(strstr(r.err, path) && strstr(r.err, cases[i].line) &&
                      strstr(r.err, cases[i].what),
                  "case %zu: %s", i, r.err);
        cr_assert_null(strstr(r.out, "accepted load"));
        result_free(&r);
        g_remove(path);
        g_free(path);
        g_free(file);
    }
    /* A directory opens but cannot be read. */
    result r = run_insee((const char *[]){"run", "--set", "topology.dims=[4,4]", "--set",
                                          "router.plugin=spinnaker", "--set", "router.table=file",
                                          "--set", "router.file=/", NULL});
    cr_assert_eq(r.status, 2, "%s", r.err);
    cr_assert(strstr(r.err, "cannot open the table file '/': it is a directory"), "%s", r.err);
    result_free(&r);
}

/* A dragonfly's minimal paths go local, global, local: no dimension order,
   so dally would deadlock there; it says so and names what works. */
Test(cli, dally_refuses_a_dragonfly)
{
    result r = run_insee((const char *[]){"run", "--set", "topology.plugin=dragonfly", "--set",
                                          "router.plugin=dally", NULL});
    cr_assert_eq(r.status, 2, "stderr: %s", r.err);
    cr_assert(strstr(r.err, "dimension order") && strstr(r.err, "back to 0") &&
                  strstr(r.err, "updown"),
              "got: %s", r.err);
    result_free(&r);
}

Test(cli, topology_pairs_links_by_port)
{
    /* Two arcs 0 -> 1 and one 1 -> 0: the second arc has no reverse. */
    char *path = write_temp("routers 2\narc 0 1\narc 0 1\narc 1 0\n");
    char *file = g_strdup_printf("topology.file=%s", path);
    result r = run_insee((const char *[]){"topology", "--set", "topology.plugin=graph", "--set",
                                          file, NULL});
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    cr_assert(strstr(r.out, "links                  2 (3 one-way channels, 1 without a reverse)"),
              "got: %s", r.out);
    result_free(&r);
    g_remove(path);
    g_free(path);
    g_free(file);
}

Test(cli, lost_stdout_is_a_failure)
{
    char *cmd = g_strdup_printf("'%s' run --set simulation.cycles=1000 > /dev/full", INSEE_TEST_BIN);
    int wait = 0;
    char *err = NULL;
    cr_assert(g_spawn_sync(NULL, (char *[]){"/bin/sh", "-c", cmd, NULL}, NULL, G_SPAWN_DEFAULT,
                           NULL, NULL, NULL, &err, &wait, NULL));
    cr_assert(WIFEXITED(wait) && WEXITSTATUS(wait) == 1, "status %d, stderr: %s", wait, err);
    cr_assert(strstr(err, "could not write the output"), "got: %s", err);
    g_free(err);
    g_free(cmd);
}

Test(cli, graph_with_a_dangling_link_exit_2)
{
    char *path = write_temp("routers 3\nlink 0 1\nlink 1 7\n");
    char *file = g_strdup_printf("topology.file=%s", path);
    result r = run_insee((const char *[]){"topology", "--set", "topology.plugin=graph", "--set",
                                          file, NULL});
    cr_assert_eq(r.status, 2, "stderr: %s", r.err);
    char *where = g_strdup_printf("%s:3", path);
    cr_assert(strstr(r.err, where) && strstr(r.err, "7"), "names the line and the router: %s",
              r.err);
    g_free(where);
    result_free(&r);
    g_remove(path);
    g_free(path);
    g_free(file);
}

Test(cli, updown_refuses_one_way_links)
{
    result r = run_insee((const char *[]){"run", "--set", "router.plugin=updown", "--set",
                                          "topology.bidirectional=false", NULL});
    cr_assert_eq(r.status, 2, "stderr: %s", r.err);
    cr_assert(strstr(r.err, "needs links in both directions"), "got: %s", r.err);
    result_free(&r);
}

/* The tiny experiment of the CSV tests, appending to `csv`. */
static char **tiny_run_argv(const char *csv)
{
    char *set = g_strdup_printf("stats.csv=%s", csv);
    char **argv = g_strdupv((char *[]){(char *)INSEE_TEST_BIN, "run", "--set",
                                       "topology.dims=[4,4]", "--set", "simulation.warmup=0",
                                       "--set", "simulation.cycles=200", "--set", set, NULL});
    g_free(set);
    return argv;
}

static guint count_lines(const char *path)
{
    char *text = NULL;
    cr_assert(g_file_get_contents(path, &text, NULL, NULL), "%s exists", path);
    guint n = 0;
    for (const char *c = text; *c; c++)
        n += *c == '\n';
    g_free(text);
    return n;
}

Test(cli, parallel_runs_keep_every_csv_row)
{
    char *dir = g_dir_make_tmp("insee-cli-XXXXXX", NULL);
    char *csv = g_build_filename(dir, "runs.csv", NULL);
    char **argv = tiny_run_argv(csv);
    enum { RUNS = 8 };
    GPid pid[RUNS];
    for (int i = 0; i < RUNS; i++)
        cr_assert(g_spawn_async(NULL, argv, NULL,
                                G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL, NULL,
                                NULL, &pid[i], NULL));
    for (int i = 0; i < RUNS; i++) {
        int wait = 0;
        cr_assert_eq(waitpid(pid[i], &wait, 0), pid[i]);
        cr_assert(WIFEXITED(wait) && WEXITSTATUS(wait) == 0, "run %d: status %d", i, wait);
    }
    cr_assert_eq(count_lines(csv), 1 + RUNS, "the header and one row per run");
    g_strfreev(argv);
    g_remove(csv);
    g_rmdir(dir);
    g_free(csv);
    g_free(dir);
}

/* Fields of a CSV line, quoted fields (RFC 4180) counted once. */
static unsigned csv_fields(const char *line)
{
    unsigned n = 1;
    gboolean quoted = FALSE;
    for (; *line; line++) {
        if (*line == '"')
            quoted = !quoted;
        else if (*line == ',' && !quoted)
            n++;
    }
    return n;
}

Test(cli, decimal_comma_locale_changes_no_number)
{
    locale_t de = newlocale(LC_ALL_MASK, "de_DE.UTF-8", (locale_t)0);
    if (!de)
        cr_skip_test("no de_DE.UTF-8 locale here (.ci/deps generates it)");
    freelocale(de);
    char *dir = g_dir_make_tmp("insee-cli-XXXXXX", NULL);
    char *csv = g_build_filename(dir, "runs.csv", NULL);
    char **argv = tiny_run_argv(csv);
    char **env = g_environ_setenv(g_get_environ(), "LC_ALL", "de_DE.UTF-8", TRUE);
    char *out = NULL, *err = NULL;
    int wait = 0;
    cr_assert(g_spawn_sync(NULL, argv, env, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &wait, NULL));
    cr_assert(WIFEXITED(wait) && WEXITSTATUS(wait) == 0, "stderr: %s", err);
    cr_assert(strstr(out, "0.3000 phits/node/cycle"), "a decimal point: %s", out);
    cr_assert_not(strstr(out, "0,3000"), "got: %s", out);
    char *text = NULL;
    cr_assert(g_file_get_contents(csv, &text, NULL, NULL));
    char **lines = g_strsplit(text, "\n", -1);
    cr_assert_eq(g_strv_length(lines), 3, "header, row, final newline");
    cr_assert_eq(csv_fields(lines[1]), csv_fields(lines[0]), "row: %s", lines[1]);
    g_strfreev(lines);
    g_free(text);
    g_free(out);
    g_free(err);
    g_strfreev(env);
    g_strfreev(argv);
    g_remove(csv);
    g_rmdir(dir);
    g_free(csv);
    g_free(dir);
}

Test(cli, output_paths_that_are_no_regular_file_are_refused_untouched)
{
    char *dir = g_dir_make_tmp("insee-cli-XXXXXX", NULL);
    char *fifo = g_build_filename(dir, "fifo", NULL);
    char *target = g_build_filename(dir, "target.csv", NULL);
    char *link = g_build_filename(dir, "link.csv", NULL);
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    cr_assert(g_file_set_contents(target, "", 0, NULL));
    cr_assert_eq(symlink(target, link), 0);
    const char *csvs[] = {fifo, link};
    for (int i = 0; i < 2; i++) {
        char **argv = tiny_run_argv(csvs[i]);
        char *out = NULL, *err = NULL;
        int wait = 0;
        cr_assert(g_spawn_sync(NULL, argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &wait,
                               NULL));
        cr_assert(WIFEXITED(wait) && WEXITSTATUS(wait) == 2, "%s: status %d, %s", csvs[i], wait,
                  err);
        cr_assert(strstr(err, csvs[i]) && strstr(err, i ? "symbolic link" : "FIFO"), "got: %s",
                  err);
        cr_assert_str_empty(out, "refused before the run");
        g_free(out);
        g_free(err);
        g_strfreev(argv);
    }
    result r = run_insee((const char *[]){"topology", "--dot", fifo, NULL});
    cr_assert_eq(r.status, 2, "stderr: %s", r.err);
    cr_assert(strstr(r.err, fifo) && strstr(r.err, "--dot"), "got: %s", r.err);
    result_free(&r);
    struct stat st;
    cr_assert(lstat(fifo, &st) == 0 && S_ISFIFO(st.st_mode), "the FIFO is still one");
    cr_assert(lstat(link, &st) == 0 && S_ISLNK(st.st_mode), "the link is still one");
    cr_assert(stat(target, &st) == 0 && st.st_size == 0, "its target is untouched");
    g_remove(fifo);
    g_remove(link);
    g_remove(target);
    g_rmdir(dir);
    g_free(fifo);
    g_free(link);
    g_free(target);
    g_free(dir);
}

Test(cli, stale_csv_temporaries_are_removed)
{
    char *dir = g_dir_make_tmp("insee-cli-XXXXXX", NULL);
    char *csv = g_build_filename(dir, "runs.csv", NULL);
    /* A pid that no longer exists: a child already reaped. */
    GPid dead;
    cr_assert(g_spawn_async(NULL, (char *[]){"/bin/true", NULL}, NULL, G_SPAWN_DO_NOT_REAP_CHILD,
                            NULL, NULL, &dead, NULL));
    cr_assert_eq(waitpid(dead, NULL, 0), dead);
    char *name = g_strdup_printf(".runs.csv.insee-tmp-%d", (int)dead);
    char *stale = g_build_filename(dir, name, NULL);
    /* A live writer's (our own pid) is not ours to remove. */
    char *live_name = g_strdup_printf(".runs.csv.insee-tmp-%d", (int)getpid());
    char *live = g_build_filename(dir, live_name, NULL);
    cr_assert(g_file_set_contents(stale, "half a file", -1, NULL));
    cr_assert(g_file_set_contents(live, "being written", -1, NULL));
    char **argv = tiny_run_argv(csv);
    int wait = 0;
    cr_assert(g_spawn_sync(NULL, argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, NULL,
                           &wait, NULL));
    cr_assert(WIFEXITED(wait) && WEXITSTATUS(wait) == 0, "status %d", wait);
    cr_assert_not(g_file_test(stale, G_FILE_TEST_EXISTS), "%s is removed", stale);
    cr_assert(g_file_test(live, G_FILE_TEST_EXISTS), "%s is kept", live);
    cr_assert_eq(count_lines(csv), 2);
    g_strfreev(argv);
    g_remove(live);
    g_remove(csv);
    g_rmdir(dir);
    g_free(live);
    g_free(live_name);
    g_free(stale);
    g_free(name);
    g_free(csv);
    g_free(dir);
}

/* Everything a child writes to `fd`, which is closed. */
static GString *read_to_end(int fd)
{
    GString *text = g_string_new(NULL);
    char buf[4096];
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0)
        g_string_append_len(text, buf, n);
    close(fd);
    return text;
}

/* Run `insee run` with `args` (the options after "run") and its outputs
   in a fresh directory (CSV, JSON and, with `trace`, the packet trace), send `sig` after a second (past the
   set-up: the handler is in place), and check what every stopped run
   does: exit status 128 + the signal, the figures gathered so far marked
   interrupted, neither the CSV, the JSON nor the packet trace written, and
   no temporary left. Returns the report printed (g_string_free it). */
static GString *stop_run(int sig, const char *const *args, gboolean trace)
{
    char *dir = g_dir_make_tmp("insee-cli-XXXXXX", NULL);
    char *csv = g_strdup_printf("stats.csv=\"%s/runs.csv\"", dir);
    char *trace_key = g_strdup_printf("stats.trace=\"%s/run.t.gz\"", dir);
    char *json = g_strdup_printf("--json=%s/run.json", dir);
    GPtrArray *argv = g_ptr_array_new();
    g_ptr_array_add(argv, (char *)INSEE_TEST_BIN);
    g_ptr_array_add(argv, (char *)"run");
    for (const char *const *a = args; *a; a++)
        g_ptr_array_add(argv, (char *)*a);
    const char *outputs[] = {json, "--set", csv, "--set", trace_key, NULL};
    for (size_t a = 0; outputs[a] && (trace || a < 3); a++)
        g_ptr_array_add(argv, (char *)outputs[a]);
    g_ptr_array_add(argv, NULL);
    GPid pid;
    int out_fd;
    GError *err = NULL;
    cr_assert(g_spawn_async_with_pipes(NULL, (char **)argv->pdata, NULL, G_SPAWN_DO_NOT_REAP_CHILD,
                                       NULL, NULL, &pid, NULL, &out_fd, NULL, &err),
              "spawn: %s", err ? err->message : "?");
    g_usleep(1000000);
    kill(pid, sig);
    int status = 0;
    waitpid(pid, &status, 0);
    GString *out = read_to_end(out_fd);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 128 + sig, "signal %d: status %d", sig,
              status);
    cr_assert(strstr(out->str, "INTERRUPTED"), "%s", out->str);
    GDir *d = g_dir_open(dir, 0, NULL);
    const char *left = g_dir_read_name(d);
    cr_assert_null(left, "signal %d left behind: %s", sig, left);
    g_dir_close(d);
    g_rmdir(dir);
    g_ptr_array_free(argv, TRUE);
    g_free(csv);
    g_free(trace_key);
    g_free(json);
    g_free(dir);
    return out;
}

/* A stop signal during a long run (Ctrl-C, or TERM/HUP/QUIT from a batch
   system or a closing terminal): the packet engine's figures so far, with
   no advice that more drain time would help. No series: over 10^12 cycles
   it would not fit in memory. */
static void stop_long_run(int sig)
{
    const char *args[] = {"--set", "simulation.cycles=1000000000000", "--set", "stats.interval=0",
                          NULL};
    GString *out = stop_run(sig, args, TRUE);
    cr_assert(strstr(out->str, "accepted load"), "the figures so far: %s", out->str);
    cr_assert(strstr(out->str, "NOT drained: the run was interrupted"), "%s", out->str);
    cr_assert_null(strstr(out->str, "raise [simulation] drain"), "advice that does not fit");
    g_string_free(out, TRUE);
}

/* The dynamic flow engine stops the same way, between two instants: a
   stencil of 5 000 iterations (several seconds) stopped after a second prints
   the messages it delivered so far and writes nothing. */
Test(cli, sigint_stops_a_dynamic_run_with_partial_figures)
{
    const char *args[] = {"--set", "simulation.engine=\"dynamic\"", "--set",
                          "router.plugin=\"dally\"", "--set", "traffic.plugin=\"stencil\"",
                          "--set", "traffic.iterations=5000", NULL};
    GString *out = stop_run(SIGINT, args, FALSE);
    cr_assert(strstr(out->str, "messages "), "the figures so far: %s", out->str);
    g_string_free(out, TRUE);
}

Test(cli, sigint_prints_partial_figures_and_writes_nothing)
{
    stop_long_run(SIGINT);
}

Test(cli, sigterm_sighup_sigquit_stop_a_run_as_sigint_does)
{
    stop_long_run(SIGTERM);
    stop_long_run(SIGHUP);
    stop_long_run(SIGQUIT);
}

/* `insee run ... | head -0`: the report's reader is gone. The run says so
   and exits as SIGPIPE would have killed it, writing no file as if all had
   gone well. */
Test(cli, closed_standard_output_writes_no_file)
{
    char *dir = g_dir_make_tmp("insee-cli-XXXXXX", NULL);
    char *json = g_strdup_printf("--json=%s/run.json", dir);
    const char *argv[] = {INSEE_TEST_BIN, "run", "--set", "topology.dims=[4,4]", "--set",
                          "simulation.warmup=0", "--set", "simulation.cycles=200", json, NULL};
    int fds[2];
    cr_assert_eq(pipe(fds), 0);
    close(fds[0]); /* no reader */
    GPid pid;
    int err_fd;
    GError *err = NULL;
    cr_assert(g_spawn_async_with_pipes_and_fds(NULL, argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD, NULL,
                                               NULL, -1, fds[1], -1, NULL, NULL, 0, &pid, NULL,
                                               NULL, &err_fd, &err),
              "spawn: %s", err ? err->message : "?");
    close(fds[1]);
    GString *errs = read_to_end(err_fd);
    int status = 0;
    waitpid(pid, &status, 0);
    cr_assert(WIFEXITED(status), "not killed by SIGPIPE: %s", errs->str);
    cr_assert_eq(WEXITSTATUS(status), 128 + SIGPIPE, "%s", errs->str);
    cr_assert(strstr(errs->str, "standard output"), "%s", errs->str);
    GDir *d = g_dir_open(dir, 0, NULL);
    const char *left = g_dir_read_name(d);
    cr_assert_null(left, "left behind: %s", left);
    g_dir_close(d);
    g_rmdir(dir);
    g_string_free(errs, TRUE);
    g_free(json);
    g_free(dir);
}

/* On a terminal a long run shows its cycle, phase, packets in flight and
   the time left, and erases the line at the end. `script` (util-linux)
   gives the run a pseudo-terminal. The run lasts a few seconds, past the
   first line at half a second: a sanitized build is about seven times
   slower, so it runs fewer cycles. */
#ifdef INSEE_TEST_SANITIZED
#define PROGRESS_CYCLES "400000"
#else
#define PROGRESS_CYCLES "2500000"
#endif
Test(cli, progress_line_on_a_terminal)
{
    char *cmd = g_strdup_printf("%s run --set simulation.phases=fixed --set simulation.warmup=0 "
                                "--set simulation.cycles=" PROGRESS_CYCLES,
                                INSEE_TEST_BIN);
    const char *argv[] = {"script", "-qec", cmd, "/dev/null", NULL};
    char *out = NULL;
    int wait = 0;
    GError *err = NULL;
    cr_assert(g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out, NULL,
                           &wait, &err),
              "script (util-linux): %s", err ? err->message : "?");
    cr_assert(WIFEXITED(wait) && WEXITSTATUS(wait) == 0, "status %d: %s", wait, out);
    cr_assert(strstr(out, "\rinsee: cycle "), "no progress line: %s", out);
    cr_assert(strstr(out, " (measurement), "), "the phase: %s", out);
    cr_assert(strstr(out, " packets in flight, about "), "packets and time left: %s", out);
    cr_assert(strstr(out, "\r\033[K"), "the line is erased at the end");
    g_free(out);
    g_free(cmd);
}

/* A CSV with other columns (an older insee's) is refused before the run,
   not after it, and is left as it was. */
Test(cli, csv_with_other_columns_refused_before_the_run)
{
    const char old[] = "plugins,seed,nodes\ntorus/bubble,1,64\n";
    char *path = write_temp(old);
    char *set = g_strdup_printf("stats.csv=\"%s\"", path);
    result r = run_insee((const char *[]){"run", "--set", set, NULL});
    cr_assert_eq(r.status, 2, "a configuration error: %s", r.err);
    cr_assert(strstr(r.err, path) && strstr(r.err, "header line"), "got: %s", r.err);
    cr_assert_str_empty(r.out, "refused before the run");
    char *text = NULL;
    cr_assert(g_file_get_contents(path, &text, NULL, NULL));
    cr_assert_str_eq(text, old);
    g_free(text);
    result_free(&r);
    g_remove(path);
    g_free(path);
    g_free(set);
}
