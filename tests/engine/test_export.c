/* insee trace export (kernel/workload/export.h): every application kernel,
 * written as an FSIN trace and replayed by the `trace` plugin on the same
 * network, completes at the same cycle with the same messages and packets;
 * a trace exported again gives its own events back; a workload with no
 * fixed program is recorded from a run, whose replay sends the same
 * packets at the same cycles; what is open-ended or ambiguous is refused
 * by name and leaves no file. */
#include <criterion/criterion.h>
#include <glib/gstdio.h>
#include <string.h>

#include "run_helpers.h"
#include "workload/export.h"

static const char network[] = "[simulation]\npacket_phits = 16\nphit_bytes = 4\n"
                              "[topology]\nplugin = \"torus\"\ndims = [8, 8]\n";

static char *dir;

static void make_dir(void)
{
    dir = g_dir_make_tmp("insee-export-XXXXXX", NULL);
    cr_assert_not_null(dir);
}

static void remove_dir(void)
{
    GDir *d = g_dir_open(dir, 0, NULL);
    for (const char *f; d && (f = g_dir_read_name(d));) {
        char *p = g_build_filename(dir, f, NULL);
        g_unlink(p);
        g_free(p);
    }
    if (d)
        g_dir_close(d);
    g_rmdir(dir);
    g_free(dir);
}

/* Export the experiment `toml` (application `name`, NULL: the causal one)
   to `path`: TRUE, or FALSE with *message set (g_free). */
static gboolean export(const char *toml, const char *name, const char *path, char **message)
{
    insee_config *cfg;
    insee_registry *reg;
    insee_experiment *exp = build_toml(toml, &cfg, &reg);
    GError *err = NULL;
    gboolean ok = insee_workload_export(exp, name, "test", path, &err);
    if (message)
        *message = ok ? NULL : g_strdup(err->message);
    g_clear_error(&err);
    insee_experiment_free(exp);
    insee_registry_free(reg);
    insee_config_free(cfg);
    return ok;
}

static char *replay_toml(const char *path, const char *extra)
{
    return g_strdup_printf("%s[traffic]\nplugin = \"trace\"\nfile = \"%s\"\n%s", network, path,
                           extra);
}

/* Run `traffic`, export it, replay the trace: the same run. */
static void same_run(const char *traffic)
{
    char *toml = g_strdup_printf("%s[traffic]\n%s", network, traffic);
    char *path = g_build_filename(dir, "kernel.fsin", NULL);
    char *why = NULL;
    cr_assert(export(toml, NULL, path, &why), "%s: %s", traffic, why);
    insee_report a = run_toml(toml);
    char *replay = replay_toml(path, "");
    insee_report b = run_toml(replay);
    cr_assert(a.completed && b.completed, "%s", traffic);
    cr_expect_eq(b.completion, a.completion, "%s: replay completes at %llu, the kernel at %llu",
                 traffic, (unsigned long long)b.completion, (unsigned long long)a.completion);
    cr_expect_eq(b.apps[0].messages, a.apps[0].messages, "%s", traffic);
    cr_expect_eq(b.total_delivered, a.total_delivered, "%s", traffic);
    cr_expect_eq(b.hops, a.hops, "%s", traffic);
    insee_report_clear(&a);
    insee_report_clear(&b);
    g_free(replay);
    g_free(path);
    g_free(toml);
}

Test(export, every_kernel_replays_as_it_ran, .init = make_dir, .fini = remove_dir)
{
    static const char *const kernels[] = {
        "plugin = \"alltoall\"\niterations = 2\ncompute = 30\n",
        "plugin = \"broadcast\"\nroot = 9\niterations = 3\ncompute = 10\n",
        "plugin = \"reduce\"\nroot = 63\niterations = 3\n",
        "plugin = \"allreduce\"\ntasks = 48\nbytes = 1000\n",
        "plugin = \"butterfly\"\niterations = 2\n",
        "plugin = \"stencil\"\nperiodic = true\niterations = 3\ncompute = 200\nbytes = 300\n",
        "plugin = \"wavefront\"\ndims = 3\ngrid = [2, 4, 8]\n",
        "plugin = \"nbody\"\ntasks = 16\ncompute = 7\n",
        "plugin = \"mapreduce\"\n",
        "plugin = \"graph\"\ndegree = 5\niterations = 3\n",
    };
    for (size_t i = 0; i < G_N_ELEMENTS(kernels); i++)
        same_run(kernels[i]);
}

/* A Markov walk and the master-worker kernel (a worker's next item depends
   on who finished first) play no fixed program: recorded, their replay on
   the same network sends every packet at its cycle, so every packet takes
   the same time and the same hops. */
Test(export, a_run_dependent_workload_is_recorded_from_a_run, .init = make_dir,
     .fini = remove_dir)
{
    static const char *const traffics[] = {
        "plugin = \"markov\"\nsteps = 40\nmessage_bytes = 200\n",
        "plugin = \"master-worker\"\niterations = 3\ncompute = 50\n",
    };
    for (size_t i = 0; i < G_N_ELEMENTS(traffics); i++) {
        char *toml = g_strdup_printf("%s[traffic]\n%s", network, traffics[i]);
        char *path = g_build_filename(dir, "run.fsin", NULL), *why = NULL;
        cr_assert(export(toml, NULL, path, &why), "%s: %s", traffics[i], why);
        insee_report a = run_toml(toml);
        char *replay = replay_toml(path, "");
        insee_report b = run_toml(replay);
        cr_assert(a.completed && b.completed, "%s", traffics[i]);
        cr_expect_eq(b.apps[0].messages, a.apps[0].messages, "%s", traffics[i]);
        cr_expect_eq(b.total_delivered, a.total_delivered, "%s", traffics[i]);
        cr_expect_eq(b.hops, a.hops, "%s", traffics[i]);
        cr_expect_eq(b.latency_gen.max, a.latency_gen.max, "%s", traffics[i]);
        cr_expect_eq(b.latency_gen.count, a.latency_gen.count, "%s", traffics[i]);
        cr_expect_eq(insee_stat_mean(&b.latency_gen), insee_stat_mean(&a.latency_gen),
                     "%s: the packets' latencies differ", traffics[i]);
        cr_expect_leq(b.completion, a.completion, "%s", traffics[i]);
        insee_report_clear(&a);
        insee_report_clear(&b);
        g_unlink(path);
        g_free(replay), g_free(path), g_free(toml);
    }
}

/* A trace's own lines, comments and blank lines left out, grouped by the
   task that plays each (s: src, r: dst, c: task), in file order. */
static char *events_by_task(const char *text)
{
    GPtrArray *tasks = g_ptr_array_new();
    char **lines = g_strsplit(text, "\n", -1);
    for (char **l = lines; *l; l++) {
        char op;
        unsigned a, b;
        if (**l == '#' || !**l || sscanf(*l, "%c %u %u", &op, &a, &b) < 2)
            continue;
        unsigned task = op == 'r' ? b : a;
        while (tasks->len <= task)
            g_ptr_array_add(tasks, g_string_new(NULL));
        g_string_append_printf(g_ptr_array_index(tasks, task), "%s\n", *l);
    }
    GString *all = g_string_new(NULL);
    for (guint t = 0; t < tasks->len; t++) {
        g_string_append(all, ((GString *)g_ptr_array_index(tasks, t))->str);
        g_string_free(g_ptr_array_index(tasks, t), TRUE);
    }
    g_strfreev(lines);
    g_ptr_array_free(tasks, TRUE);
    return g_string_free(all, FALSE);
}

Test(export, a_trace_exports_its_own_events, .init = make_dir, .fini = remove_dir)
{
    char *ring = g_build_filename(INSEE_TEST_SOURCE_DIR, "examples", "traces", "ring.fsin", NULL);
    char *path = g_build_filename(dir, "again.fsin", NULL);
    char *toml = replay_toml(ring, "");
    cr_assert(export(toml, NULL, path, NULL));
    char *in, *out;
    cr_assert(g_file_get_contents(ring, &in, NULL, NULL));
    cr_assert(g_file_get_contents(path, &out, NULL, NULL));
    char *want = events_by_task(in), *got = events_by_task(out);
    cr_expect_str_eq(got, want);
    g_free(want);
    g_free(got);
    g_free(in);
    g_free(out);
    g_free(toml);
    g_free(path);
    g_free(ring);
}

/* A send's interface and copy mode survive an export, and so does the
   run: the exported trace replays at the same cycle. */
Test(export, a_send_keeps_its_interface_and_copy, .init = make_dir, .fini = remove_dir)
{
    static const char trace[] = "s 0 1 0 640 nic=2 copy=two\n"
                                "r 0 1 0 640\n"
                                "s 1 0 1 640 nic=1\n"
                                "r 1 0 1 640\n"
                                "s 2 3 2 64 copy=zero\n"
                                "r 2 3 2 64\n";
    static const char timing[] = "[network]\nnics = 2\nnode_phit_cycles = 2\n"
                                 "cycle_ns = 1\nmemory_bandwidth = \"1 GB/s\"\n";
    char *in = g_build_filename(dir, "in.fsin", NULL);
    char *out = g_build_filename(dir, "out.fsin", NULL);
    cr_assert(g_file_set_contents(in, trace, -1, NULL));
    char *toml = replay_toml(in, timing), *again = replay_toml(out, timing);
    char *why = NULL;
    cr_assert(export(toml, NULL, out, &why), "%s", why);
    char *text;
    cr_assert(g_file_get_contents(out, &text, NULL, NULL));
    char *want = events_by_task(trace), *got = events_by_task(text);
    cr_expect_str_eq(got, want);
    insee_report a = run_toml(toml), b = run_toml(again);
    cr_assert(a.completed && b.completed);
    cr_expect_eq(b.completion, a.completion);
    insee_report_clear(&a);
    insee_report_clear(&b);
    g_free(want), g_free(got), g_free(text), g_free(toml), g_free(again), g_free(why);
    g_free(in), g_free(out);
}

/* Each refusal names what is wrong, and no file is left. */
static void refused(const char *toml, const char *name, const char *expected)
{
    char *path = g_build_filename(dir, "refused.fsin", NULL);
    char *why = NULL;
    cr_assert_not(export(toml, name, path, &why), "exported: %s", toml);
    cr_expect(strstr(why, expected), "'%s' does not say '%s'", why, expected);
    cr_expect_not(g_file_test(path, G_FILE_TEST_EXISTS), "a file was left after: %s", why);
    GDir *d = g_dir_open(dir, 0, NULL);
    cr_expect_null(g_dir_read_name(d), "a temporary was left after: %s", why);
    g_dir_close(d);
    g_free(why);
    g_free(path);
}

Test(export, what_cannot_be_exported_is_refused_by_name, .init = make_dir, .fini = remove_dir)
{
    char *open_ended = g_strdup_printf("%s[traffic]\nplugin = \"uniform\"\nload = 0.1\n", network);
    refused(open_ended, NULL, "has no causal application");
    refused(open_ended, "traffic", "is open-ended");
    refused(open_ended, "nope", "no application is named 'nope'");
    char *markov = g_strdup_printf("[simulation]\nengine = \"dynamic\"\n%s[traffic]\n"
                                   "plugin = \"markov\"\n",
                                   network + strlen("[simulation]\n"));
    refused(markov, NULL, "recorded from a run of the packet engine");
    char *two = g_strdup_printf("%s[[application]]\nname = \"a\"\ntasks = 32\n"
                                "[application.traffic]\nplugin = \"alltoall\"\n"
                                "[[application]]\nname = \"b\"\ntasks = 32\n"
                                "[application.traffic]\nplugin = \"butterfly\"\n",
                                network);
    refused(two, NULL, "2 causal applications ('a', 'b')");
    char *path = g_build_filename(dir, "b.fsin", NULL);
    cr_expect(export(two, "b", path, NULL), "a named application is exported");
    g_unlink(path);
    g_free(path);
    g_free(two);
    g_free(markov);
    g_free(open_ended);
}
