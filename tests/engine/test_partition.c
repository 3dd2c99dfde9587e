/* A run split into parts (kernel/engine/partition.h) in one process: each
 * part an experiment of its own on a thread of its own, the parts meeting
 * through the shared-memory transport of a run split over threads
 * (engine/siblings.h), so that the split is tested without Open MPI
 * (tests/partition runs it under mpirun). Every part's report must be the
 * single run's, byte for byte but for the speed lines. */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "engine/experiment.h"
#include "engine/partition.h"
#include "engine/siblings.h"
#include "run_helpers.h"

#define MAX_PARTS 4

/* The printed report less its speed lines, which vary. */
static char *results_of(insee_experiment *exp)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    insee_experiment_print(exp, f);
    fclose(f);
    char *speed = strstr(text, "# speed");
    cr_assert(speed, "%s", text);
    *speed = '\0';
    return text;
}

/* A part's run on its thread, and its error. */
typedef struct part_run {
    insee_experiment *exp;
    GError *err;
} part_run;

static gpointer run_part(gpointer data)
{
    part_run *pr = data;
    return GINT_TO_POINTER(insee_experiment_run(pr->exp, &pr->err));
}

/* Run the experiments of `toml[p]` as the `parts` parts of one run; their
   errors in err[p] (NULL when it ran). */
static void run_parts(const char *const *toml, uint32_t parts, insee_experiment **exp,
                      insee_config **cfg, insee_registry **reg, GError **err)
{
    insee_siblings *meet = insee_siblings_new(parts);
    insee_transport t[MAX_PARTS];
    part_run runs[MAX_PARTS];
    GThread *thread[MAX_PARTS];
    for (uint32_t p = 0; p < parts; p++) {
        GError *e = NULL;
        t[p] = insee_siblings_transport(meet, p);
        exp[p] = build_toml(toml[p], &cfg[p], &reg[p]);
        cr_assert(insee_experiment_set_partition(exp[p], &t[p], &e), "%s", e ? e->message : "?");
        runs[p] = (part_run){exp[p], NULL};
    }
    for (uint32_t p = 0; p < parts; p++)
        thread[p] = g_thread_new("part", run_part, &runs[p]);
    for (uint32_t p = 0; p < parts; p++) {
        gboolean ok = GPOINTER_TO_INT(g_thread_join(thread[p]));
        cr_assert_eq(ok, runs[p].err == NULL);
        err[p] = runs[p].err;
    }
    insee_siblings_free(meet);
}

/* The experiments of one `toml` as the `parts` parts of one run, which
   must all end without an error. */
static void run_split(const char *toml, uint32_t parts, insee_experiment **exp,
                      insee_config **cfg, insee_registry **reg)
{
    const char *tomls[MAX_PARTS] = {toml, toml, toml, toml};
    GError *err[MAX_PARTS];
    run_parts(tomls, parts, exp, cfg, reg, err);
    for (uint32_t p = 0; p < parts; p++)
        cr_assert_null(err[p], "part %u of %u: %s", p, parts, err[p] ? err[p]->message : "");
}

/* `toml` split into `parts`: every part's report against `whole`. */
static void check_split(const char *toml, uint32_t parts, const char *whole)
{
    insee_experiment *exp[MAX_PARTS];
    insee_config *cfg[MAX_PARTS];
    insee_registry *reg[MAX_PARTS];
    run_split(toml, parts, exp, cfg, reg);
    for (uint32_t p = 0; p < parts; p++) {
        char *text = results_of(exp[p]);
        cr_assert_str_eq(text, whole, "part %u of %u reports the single run", p, parts);
        free(text);
        free_experiment(exp[p], cfg[p], reg[p]);
    }
}

static void check_splits(const char *toml)
{
    insee_config *cfg;
    insee_registry *reg;
    insee_experiment *exp = run_experiment(toml, NULL, &cfg, &reg);
    char *whole = results_of(exp);
    cr_assert(strstr(whole, "in flight 0 (drained)"), "%s", whole);
    for (uint32_t parts = 2; parts <= MAX_PARTS; parts++)
        check_split(toml, parts, whole);
    free(whole);
    free_experiment(exp, cfg, reg);
}

Test(partition, a_split_torus_reports_what_one_process_does)
{
    check_splits("[simulation]\nphases = \"fixed\"\nwarmup = 300\ncycles = 1200\nseed = 5\n"
                 "[topology]\nplugin = \"torus\"\ndims = [6, 6]\n"
                 "[router]\nplugin = \"dally\"\nvcs = 2\n[arbiter]\nplugin = \"random\"\n"
                 "[traffic]\nplugin = \"uniform\"\nload = 0.6\n"
                 "[stats]\ninterval = 300\nnode_map = true\n");
}

/* Packets dropped at failed cables, their messages another part's. */
Test(partition, a_split_torus_with_failed_cables_drops_what_one_process_does)
{
    check_splits("[simulation]\nphases = \"fixed\"\nwarmup = 300\ncycles = 1200\nseed = 7\n"
                 "[topology]\nplugin = \"torus\"\ndims = [6, 6]\n[faults]\nlinks = 4\n"
                 "[router]\nplugin = \"dally\"\nvcs = 2\n"
                 "[traffic]\nplugin = \"uniform\"\nload = 0.5\nlength_dist = \"uniform\"\n");
}

Test(partition, a_split_tree_converges_where_one_process_does)
{
    check_splits("[simulation]\nwarmup = 200\nconvergence_window = 200\nbatch_cycles = 100\n"
                 "batches = 4\nseed = 2\n"
                 "[topology]\nplugin = \"kary-ntree\"\nk = 2\nn = 3\n"
                 "[router]\nplugin = \"updown\"\nselect = \"room\"\nvcs = 2\n"
                 "[traffic]\nplugin = \"permutation\"\nload = 0.5\n");
}

Test(partition, what_cannot_be_split_is_refused_naming_why)
{
    insee_config *cfg;
    insee_registry *reg;
    insee_experiment *exp = build_toml("[topology]\nplugin = \"mesh\"\ndims = [4, 4]\n"
                                       "[router]\nplugin = \"test-dor-v10\"\nvcs = 1\n",
                                       &cfg, &reg);
    insee_transport t = {.part = 0, .parts = 2};
    GError *err = NULL;
    cr_assert_not(insee_experiment_set_partition(exp, &t, &err));
    cr_assert(strstr(err->message, "none of INSEE_ROUTE_PURE"), "%s", err->message);
    g_error_free(err);
    free_experiment(exp, cfg, reg);
    /* a causal plugin whose tasks share state: master-worker */
    exp = build_toml("[topology]\nplugin = \"mesh\"\ndims = [4, 4]\n[traffic]\n"
                     "plugin = \"master-worker\"\n", &cfg, &reg);
    err = NULL;
    cr_assert_not(insee_experiment_set_partition(exp, &t, &err));
    cr_assert(strstr(err->message, "INSEE_TRAFFIC_PER_TASK") && strstr(err->message, "causal"),
              "%s", err->message);
    g_error_free(err);
    free_experiment(exp, cfg, reg);
    /* a causal application whose sources drop what does not fit */
    exp = build_toml("[topology]\nplugin = \"torus\"\ndims = [4, 4]\n"
                     "[traffic]\nplugin = \"stencil\"\non_full = \"drop\"\n", &cfg, &reg);
    err = NULL;
    cr_assert_not(insee_experiment_set_partition(exp, &t, &err));
    cr_assert(strstr(err->message, "on_full") && strstr(err->message, "drops"), "%s",
              err->message);
    g_error_free(err);
    free_experiment(exp, cfg, reg);
}

/* A router that claims INSEE_ROUTE_LOCAL but reads the next router: split
   over threads, a part ends the run the first time one of its routers
   reads another part's, and the message is that part's own, speaking of
   threads and saying what to set. */
Test(partition, a_router_that_reads_another_part_ends_a_threads_run_naming_it)
{
    insee_config *cfg;
    insee_registry *reg;
    insee_experiment *exp = build_toml("[simulation]\nthreads = 2\nwarmup = 0\ncycles = 500\n"
                                       "[topology]\nplugin = \"mesh\"\ndims = [8, 8]\n"
                                       "[router]\nplugin = \"test-nosy-local\"\nvcs = 1\n"
                                       "[traffic]\nplugin = \"uniform\"\nload = 0.3\n",
                                       &cfg, &reg);
    GError *err = NULL;
    cr_assert_not(insee_experiment_run(exp, &err), "the run did not fail");
    cr_assert(strstr(err->message, "part ") && strstr(err->message, "of the run"), "%s",
              err->message);
    cr_assert(strstr(err->message, "test-nosy-local") || strstr(err->message, "router plugin"),
              "%s", err->message);
    cr_assert(strstr(err->message, "thread's part of the run") &&
                  strstr(err->message, "threads = 1") && !strstr(err->message, "mpirun"),
              "%s", err->message);
    cr_assert(insee_experiment_report(exp)->parts_on_threads);
    g_error_free(err);
    free_experiment(exp, cfg, reg);
}

/* Ranks given different files: every one of them refuses before cycle 0. */
Test(partition, parts_that_run_different_experiments_are_refused)
{
    const char *tomls[2] = {"[topology]\nplugin = \"torus\"\ndims = [4, 4]\n"
                            "[router]\nplugin = \"dally\"\nvcs = 2\n[simulation]\nseed = 1\n",
                            "[topology]\nplugin = \"torus\"\ndims = [4, 4]\n"
                            "[router]\nplugin = \"dally\"\nvcs = 2\n[simulation]\nseed = 2\n"};
    insee_experiment *exp[2];
    insee_config *cfg[2];
    insee_registry *reg[2];
    GError *err[2];
    run_parts(tomls, 2, exp, cfg, reg, err);
    for (uint32_t p = 0; p < 2; p++) {
        cr_assert(err[p] && strstr(err[p]->message, "do not run the same experiment"), "part %u",
                  p);
        g_error_free(err[p]);
        free_experiment(exp[p], cfg[p], reg[p]);
    }
}

/* A part that fails mid-run (here every part finds the deadlock of one VC on a
   ring) ends every part at the same cycle with an error, none
   waiting for the others for ever. */
Test(partition, a_failure_in_one_part_ends_every_part)
{
    const char *toml = "[simulation]\nphases = \"fixed\"\nwarmup = 0\ncycles = 5000\n"
                       "deadlock_cycles = 300\n[topology]\nplugin = \"torus\"\ndims = [8]\n"
                       "[router]\nplugin = \"dally\"\nvcs = 1\nallow_deadlock = true\n"
                       "[traffic]\nplugin = \"uniform\"\nload = 1.0\n";
    const char *tomls[3] = {toml, toml, toml};
    insee_experiment *exp[3];
    insee_config *cfg[3];
    insee_registry *reg[3];
    GError *err[3];
    run_parts(tomls, 3, exp, cfg, reg, err);
    for (uint32_t p = 0; p < 3; p++) {
        cr_assert(err[p] && (strstr(err[p]->message, "deadlock") ||
                             strstr(err[p]->message, "failed")),
                  "part %u: %s", p, err[p] ? err[p]->message : "ran");
        g_error_free(err[p]);
        free_experiment(exp[p], cfg[p], reg[p]);
    }
}

/* Build and run `toml`, which must fail: its error, and the parts it was
   split into (0: none). */
static GError *failed_run(const char *toml, uint32_t *parts)
{
    insee_config *cfg;
    insee_registry *reg;
    insee_experiment *exp = build_toml(toml, &cfg, &reg);
    GError *err = NULL;
    cr_assert_not(insee_experiment_run(exp, &err), "the run did not fail: %s", toml);
    *parts = insee_experiment_report(exp)->parts;
    free_experiment(exp, cfg, reg);
    return err;
}

/* A part checks for a deadlock after the cycle's exchange, on the whole
   network's last move: split over 2 and 3 threads, `body` ends at the
   cycle, and after the stall, that one thread reports. */
static void check_deadlock_found(const char *body)
{
    char *first[4] = {NULL};
    for (uint32_t t = 1; t <= 3; t++) {
        char *toml = g_strdup_printf("[simulation]\nthreads = %u\nphases = \"fixed\"\n"
                                     "warmup = 0\n%s", t, body);
        uint32_t parts;
        GError *err = failed_run(toml, &parts);
        cr_assert_eq(parts, t > 1 ? t : 0);
        /* "cycle N: deadlock: no packet has moved for M cycles" */
        const char *end = strstr(err->message, " packets are in the network");
        cr_assert(g_str_has_prefix(err->message, "cycle ") && end, "%s", err->message);
        first[t] = g_strndup(err->message, (gsize)(end - err->message));
        cr_assert_str_eq(first[t], first[1], "%u threads", t);
        g_error_free(err);
        g_free(toml);
    }
    for (uint32_t t = 1; t <= 3; t++)
        g_free(first[t]);
}

/* A ring of one VC deadlocks, with and without cables (where the parts
   meet every 9 cycles at most). A packet that test-stuck never routes,
   queued into an empty network, is stuck from the cycle it was queued,
   not from the last move before it: the parts learn that the network was
   empty when they meet. A part names a cycle of its own queues only. */
Test(partition, a_split_run_finds_a_deadlock_at_the_cycle_one_thread_does)
{
    static const char ring[] = "cycles = 5000\ndeadlock_cycles = 300\n[topology]\n"
                               "plugin = \"torus\"\ndims = [8]\n[router]\nplugin = \"dally\"\n"
                               "vcs = 1\nallow_deadlock = true\n[traffic]\nplugin = \"uniform\"\n"
                               "load = 1.0\n";
    static const char stuck[] = "cycles = 20000\ndeadlock_cycles = 30\nseed = 2\n[topology]\n"
                                "plugin = \"mesh\"\ndims = [8, 8]\n[router]\n"
                                "plugin = \"test-stuck\"\nvcs = 1\n[traffic]\n"
                                "plugin = \"uniform\"\nload = 0.002\n";
    static const char cables[] = "[network]\ncable_cycles = 8\n";
    for (int with_cables = 0; with_cables <= 1; with_cables++) {
        char *a = g_strconcat(ring, with_cables ? cables : "", NULL);
        char *b = g_strconcat(stuck, with_cables ? cables : "", NULL);
        check_deadlock_found(a);
        check_deadlock_found(b);
        g_free(a);
        g_free(b);
    }
    /* no cycle: the message lists the heads that wait, all bound for the
       last node */
    char *toml = g_strdup_printf("[simulation]\nthreads = 1\nphases = \"fixed\"\nwarmup = 0\n%s",
                                 stuck);
    uint32_t parts;
    GError *err = failed_run(toml, &parts);
    cr_assert(strstr(err->message, "no candidate at all:\n  router ") &&
                  strstr(err->message, "head to node 63"),
              "%s", err->message);
    g_error_free(err);
    g_free(toml);
    /* split in two, the ring's cycle runs through both parts, and neither
       sees it whole: the message says so, and how to have it named */
    toml = g_strdup_printf("[simulation]\nthreads = 2\nphases = \"fixed\"\nwarmup = 0\n%s", ring);
    err = failed_run(toml, &parts);
    cr_assert(strstr(err->message, "No cycle of this part's queues") &&
                  strstr(err->message, "threads = 1") && !strstr(err->message, "no candidate"),
              "%s", err->message);
    g_error_free(err);
    g_free(toml);
}

/* The links `toml` split into `parts` cuts, of `links` between routers. */
static void check_cut(const char *toml, uint32_t parts, uint64_t cut, uint64_t links)
{
    insee_experiment *exp[MAX_PARTS];
    insee_config *cfg[MAX_PARTS];
    insee_registry *reg[MAX_PARTS];
    run_split(toml, parts, exp, cfg, reg);
    for (uint32_t p = 0; p < parts; p++) {
        const insee_report *r = insee_experiment_report(exp[p]);
        cr_assert_eq(r->links, links, "part %u of %u: %" G_GUINT64_FORMAT " links", p, parts,
                     r->links);
        cr_assert_eq(r->cut_links, cut, "part %u of %u cuts %" G_GUINT64_FORMAT " links, not %"
                     G_GUINT64_FORMAT, p, parts, r->cut_links, cut);
        free_experiment(exp[p], cfg[p], reg[p]);
    }
}

/* The parts follow the network's shape: a 6×6 torus in K slabs of rows
   cuts 2 × 6 links at each of its K boundaries; a 2-ary 3-tree (its 8
   interfaces routers too) in two keeps both halves' subtrees whole and
   cuts only half of the 16 links to and from its top switches, where
   ranges of router ids would put every switch in part 0. */
Test(partition, the_parts_follow_the_network_shape)
{
    const char *run = "[simulation]\nphases = \"fixed\"\nwarmup = 0\ncycles = 20\n"
                      "[traffic]\nplugin = \"uniform\"\nload = 0.1\n";
    char *torus = g_strconcat(run, "[topology]\nplugin = \"torus\"\ndims = [6, 6]\n"
                              "[router]\nplugin = \"dally\"\nvcs = 2\n", NULL);
    char *tree = g_strconcat(run, "[topology]\nplugin = \"kary-ntree\"\nk = 2\nn = 3\n"
                             "[router]\nplugin = \"updown\"\nselect = \"room\"\nvcs = 2\n", NULL);
    check_cut(torus, 2, 2 * 2 * 6, 6 * 6 * 4);
    check_cut(torus, 3, 3 * 2 * 6, 6 * 6 * 4);
    check_cut(tree, 2, 8, 2 * 2 * 8 + 2 * 8);
    g_free(torus);
    g_free(tree);
}

/* How a run was split: its parts (0: none), whether on threads, the most
   cycles its parts ran on their own, its exchanges and its cycles. */
typedef struct split_info {
    uint32_t parts, lookahead;
    gboolean on_threads;
    uint64_t exchanges, cycles;
} split_info;

/* The figures of the results file (docs/results.md) that a run's split
   must not change: from "run" up to "performance" (above: the
   configuration, which names the threads; below: the speed). */
static char *json_figures(const char *path)
{
    char *json = NULL;
    cr_assert(g_file_get_contents(path, &json, NULL, NULL), "%s", path);
    char *from = strstr(json, "\"run\":"), *to = strstr(json, ",\"performance\":");
    cr_assert(from && to && from < to, "%s", json);
    char *figures = g_strndup(from, (gsize)(to - from));
    g_free(json);
    return figures;
}

/* The results of a short run of `body` (the tables after [simulation]) on
   `threads` threads with `seed`: the report from "# results" to the speed
   lines (the echo above names the threads), then the figures of its
   results file (the histograms and maps the report does not print), and
   how it was split. */
static char *results_seeded(const char *body, uint32_t threads, uint32_t seed, split_info *split)
{
    char *path = NULL;
    int fd = g_file_open_tmp("insee-split-XXXXXX.json", &path, NULL);
    cr_assert(fd >= 0);
    close(fd);
    char *json = g_strdup_printf("[stats]\njson = \"%s\"\n", path);
    GString *tables = g_string_new(body);
    if (!g_string_replace(tables, "[stats]\n", json, 1))
        g_string_append(tables, json);
    char *text = g_strdup_printf("[simulation]\nthreads = %u\nphases = \"fixed\"\n"
                                 "warmup = 200\ncycles = 800\nseed = %u\n%s", threads, seed,
                                 tables->str);
    insee_config *cfg;
    insee_registry *reg;
    insee_experiment *exp = run_experiment(text, NULL, &cfg, &reg);
    GError *err = NULL;
    cr_assert(insee_experiment_write_outputs(exp, &err), "%s", err ? err->message : "?");
    char *all = results_of(exp);
    const char *from = strstr(all, "# results");
    cr_assert(from, "%s", all);
    char *figures = json_figures(path);
    char *results = g_strconcat(from, figures, NULL);
    const insee_report *rep = insee_experiment_report(exp);
    *split = (split_info){rep->parts, rep->lookahead, rep->parts_on_threads, rep->exchanges,
                          rep->cycles};
    free(all);
    g_free(figures);
    free_experiment(exp, cfg, reg);
    g_remove(path);
    g_free(path);
    g_free(json);
    g_string_free(tables, TRUE);
    g_free(text);
    return results;
}

/* `body` with `seed` on 2 and 3 threads reports what it does on one, split
   into as many parts when `splits` (else not split); one thread's report
   says it drained, and holds `expect` when given. With `lookahead` (0: not
   checked) the parts ran on their own that long at most, meeting in fewer
   exchanges than two in three cycles when longer than one. */
static void check_threads(const char *body, uint32_t seed, gboolean splits, const char *expect,
                          uint32_t lookahead)
{
    split_info split;
    char *one = results_seeded(body, 1, seed, &split);
    cr_assert_eq(split.parts, 0, "on one thread it was split: %s", body);
    cr_assert(strstr(one, "in flight 0 (drained)"), "%s", one);
    cr_assert(!expect || strstr(one, expect), "no \"%s\" in %s", expect, one);
    for (uint32_t t = 2; t <= 3; t++) {
        char *more = results_seeded(body, t, seed, &split);
        cr_assert_eq(split.parts, splits ? t : 0, "on %u threads: %u parts: %s", t, split.parts,
                     body);
        cr_assert_eq(split.on_threads, splits);
        cr_assert_str_eq(more, one, "on %u threads: %s", t, body);
        cr_assert(!lookahead || split.lookahead == lookahead, "on %u threads: lookahead %u: %s",
                  t, split.lookahead, body);
        cr_assert(lookahead < 2 || split.exchanges * 3 < split.cycles * 2,
                  "on %u threads: %" G_GUINT64_FORMAT " exchanges in %" G_GUINT64_FORMAT
                  " cycles", t, split.exchanges, split.cycles);
        g_free(more);
    }
    g_free(one);
}

/* A run to split, the lookahead its parts must meet at (0: not checked),
   and what one thread's report must hold (NULL: nothing more). */
typedef struct split_run {
    const char *body;
    uint32_t lookahead;
    const char *expect;
} split_run;

/* Each run with seed 5, split over 2 and 3 threads (check_threads()). */
static void check_split_runs(const split_run *runs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        check_threads(runs[i].body, 5, TRUE, runs[i].expect, runs[i].lookahead);
}

/* Where a window ends, split into 2, 3 and 4 parts as one process runs:
   a network all but idle, empty when generation ends, ends the cycle after
   the next one some part simulates, as one process does, not at a cycle
   no part simulated; and a window bound by the stall a deadlock is timed
   from ends at the same cycle in every part (the last move they agreed
   on, not one part's own moves since), under congestion control. */
Test(partition, windows_end_where_one_process_checks)
{
    check_splits("[simulation]\nphases = \"fixed\"\nwarmup = 0\ncycles = 1000\nseed = 33\n"
                 "[topology]\nplugin = \"torus\"\ndims = [8, 8]\n[router]\nplugin = \"dally\"\n"
                 "[network]\ncable_cycles = 4\n[traffic]\nplugin = \"uniform\"\nload = 0.002\n"
                 "[stats]\ninterval = 100\nqueue_histograms = true\n");
    check_splits("[simulation]\nphases = \"fixed\"\nwarmup = 0\ncycles = 1000\nseed = 3\n"
                 "deadlock_cycles = 10\n[topology]\nplugin = \"torus\"\ndims = [8, 8]\n"
                 "[router]\nplugin = \"dally\"\ngcc = 0.02\ngcc_period = 100\n"
                 "[network]\ncable_cycles = 10\nrouter_cycles = 20\n"
                 "[traffic]\nplugin = \"uniform\"\nload = 0.1\n");
}

/* With [network]'s latencies the parts run on their own for up to the
   lookahead, which a packet's crossing and the slot it frees upstream
   allow: a hop of a cycle on the link, the cable and the pipeline, and a
   shortest packet's phits at the crossbar's speedup. Split over 2 and 3
   threads, each run reports what one thread does, meeting at most every
   `lookahead` cycles and in fewer exchanges than two in three cycles:
   open-ended traffic, and MPI programs (whose applications complete at
   cycles within a window); but MPI programs beside open-ended traffic,
   whose generation ends the cycle they are done, meet every cycle. */
Test(partition, parts_meet_once_per_lookahead_when_links_have_latencies)
{
    static const split_run runs[] = {
        /* a 16-phit packet frees its slot 16 cycles after it started leaving */
        {"[topology]\nplugin = \"torus\"\ndims = [8, 8]\n[router]\nplugin = \"dally\"\n"
         "[network]\ncable_cycles = 10\nrouter_cycles = 20\n"
         "[traffic]\nplugin = \"uniform\"\nload = 0.6\n[stats]\ninterval = 150\n"
         "queue_histograms = true\nport_map = true\n", 16, NULL},
        /* through the crossbar into an output buffer at 2 phits a cycle */
        {"[topology]\nplugin = \"torus\"\ndims = [8, 8]\n[router]\nplugin = \"dally\"\n"
         "[network]\noutput_buffer_bytes = 512\ncrossbar_speedup = 2\ncable_cycles = 12\n"
         "[traffic]\nplugin = \"uniform\"\nload = 0.9\n", 8, NULL},
        /* a message's last packet: a 2-phit header and a phit of its bytes */
        {"[topology]\nplugin = \"torus\"\ndims = [8, 8]\n[router]\nplugin = \"dally\"\n"
         "mode = \"improved\"\nvc_choice = \"room\"\n[network]\nmtu_bytes = 64\n"
         "header_bytes = 8\nvc_buffer_bytes = 192\ndim_phit_cycles = [1, 3]\n"
         "cable_cycles = 4\n[traffic]\nplugin = \"uniform\"\nload = 0.4\n"
         "message_bytes = 150\n", 3, NULL},
        /* a cable of a cycle: a hop takes two; sources held by congestion control */
        {"[topology]\nplugin = \"kary-ntree\"\nk = 4\nn = 3\n[router]\nplugin = \"updown\"\n"
         "select = \"room\"\nvcs = 2\ngcc = 0.05\ngcc_period = 40\n[network]\n"
         "cable_cycles = 1\n[traffic]\nplugin = \"uniform\"\nload = 0.8\n", 2, NULL},
        /* a halo exchange with both overheads: a 9-phit last packet */
        {"[topology]\nplugin = \"torus\"\ndims = [8, 8]\n[router]\nplugin = \"dally\"\n"
         "[network]\nlink_bandwidth = \"4 GB/s\"\ncable_ns = 10\nrouter_ns = 40\n"
         "mtu_bytes = 256\nheader_bytes = 32\nsend_overhead_ns = 50\nrecv_overhead_ns = 60\n"
         "[traffic]\nplugin = \"stencil\"\ndims = 2\nbytes = 1000\niterations = 3\n"
         "compute = 200\n", 9, "completed at cycle"},
        /* an allreduce with two-copy messages */
        {"[topology]\nplugin = \"kary-ntree\"\nk = 4\nn = 2\n[router]\nplugin = \"updown\"\n"
         "select = \"room\"\nvcs = 2\n[network]\ncopy = \"two\"\nlink_bandwidth = \"4 GB/s\"\n"
         "memory_bandwidth = \"2 GB/s\"\ncable_cycles = 3\n[traffic]\nplugin = \"allreduce\"\n"
         "bytes = 512\niterations = 2\ncompute = 30\n", 4, "completed at cycle"},
        /* two programs sharing nodes, done at cycles of their own */
        {"[topology]\nplugin = \"torus\"\ndims = [8, 8]\n[router]\nplugin = \"dally\"\n"
         "[network]\ncable_cycles = 5\n"
         "[[application]]\nname = \"exchange\"\ntasks = 32\n[application.traffic]\n"
         "plugin = \"alltoall\"\nbytes = 128\n[application.placement]\nplugin = \"random\"\n"
         "[[application]]\nname = \"halo\"\ntasks = 32\ntasks_per_node = 2\n"
         "[application.traffic]\nplugin = \"stencil\"\ndims = 2\nbytes = 64\niterations = 2\n"
         "[application.placement]\nplugin = \"random\"\n", 6, "completed at cycle"},
        /* the same beside open-ended traffic */
        {"[topology]\nplugin = \"torus\"\ndims = [8, 8]\n[router]\nplugin = \"dally\"\n"
         "[network]\ncable_cycles = 5\n"
         "[[application]]\nname = \"exchange\"\ntasks = 32\n[application.traffic]\n"
         "plugin = \"alltoall\"\nbytes = 128\n[application.placement]\nplugin = \"random\"\n"
         "[background]\nplugin = \"uniform\"\nload = 0.1\n", 1, "completed at cycle"},
    };
    check_split_runs(runs, G_N_ELEMENTS(runs));
}

/* Wormhole flow control splits flit by flit: a flit, its credit and a
   packet whose head crosses a cut go to the other part, due there a
   flit's stages and cable, or a credit's delay and cable, later, the
   shorter of which is the lookahead. Buffers smaller than a packet spread
   packets over routers of both sides of a cut. Each run reports what one
   thread does: saturated and below on a torus with the dateline, updown by
   room on a fat tree with no cable latency (a credit back the next
   cycle), and halo exchanges; one with the queue histograms meets every
   cycle, since credits come back after its last delivery, the cycle that
   ends its measurement (met once per lookahead, its transit histogram
   counted the cycles after it in the parts that took those credits). A
   router that is only local meets every cycle too. */
Test(partition, wormhole_splits_flit_by_flit)
{
    static const split_run runs[] = {
        /* a flit 1 + 1 + 1 + 2 cycles on, a credit 2 + 2 back */
        {"[topology]\nplugin = \"torus\"\ndims = [8, 8]\n[router]\nplugin = \"dally\"\n"
         "mode = \"partition\"\n[network]\nflow_control = \"wormhole\"\nvc_buffer_bytes = 64\n"
         "credit_cycles = 2\ncable_cycles = 2\n[traffic]\nplugin = \"uniform\"\nload = 0.9\n",
         4, NULL},
        {"[topology]\nplugin = \"torus\"\ndims = [8, 8]\n[router]\nplugin = \"dally\"\n"
         "mode = \"partition\"\nvcs = 3\ninjectors = 2\n[network]\nflow_control = \"wormhole\"\n"
         "vc_buffer_bytes = 32\nswitch_cycles = 2\ncable_cycles = 5\nnode_cable_cycles = 2\n"
         "[traffic]\nplugin = \"uniform\"\nload = 0.2\n[stats]\nqueue_histograms = true\n",
         6, NULL},
        {"[topology]\nplugin = \"kary-ntree\"\nk = 4\nn = 3\n[router]\nplugin = \"updown\"\n"
         "select = \"room\"\nvcs = 2\n[network]\nflow_control = \"wormhole\"\n"
         "vc_buffer_bytes = 128\n[traffic]\nplugin = \"uniform\"\nload = 0.7\n",
         1, NULL},
        {"[topology]\nplugin = \"torus\"\ndims = [8, 8]\n[router]\nplugin = \"dally\"\n"
         "mode = \"partition\"\n[network]\nflow_control = \"wormhole\"\nvc_buffer_bytes = 128\n"
         "cable_cycles = 3\n[traffic]\nplugin = \"stencil\"\ndims = 2\nbytes = 512\n"
         "iterations = 3\ncompute = 40\n", 4, "completed at cycle"},
        {"[topology]\nplugin = \"mesh\"\ndims = [8, 8]\n[router]\nplugin = \"dally\"\n"
         "[network]\nflow_control = \"wormhole\"\nvc_buffer_bytes = 256\ncable_cycles = 8\n"
         "node_cable_cycles = 3\n[traffic]\nplugin = \"stencil\"\ndims = 2\nbytes = 64\n"
         "iterations = 3\ncompute = 50\n[stats]\nqueue_histograms = true\n",
         1, "completed at cycle"},
        /* routers that are only local, every cycle: bubble reads its own
           input queues' counts (kept across a cut from what crosses), UGAL
           its outputs' (BookSim2's dragonfly, 2 VCs a hop class) */
        {"[topology]\nplugin = \"torus\"\ndims = [8, 8]\n[router]\nplugin = \"bubble\"\n"
         "vcs = 3\n[network]\nflow_control = \"wormhole\"\nvc_buffer_bytes = 128\n"
         "cable_cycles = 2\n[traffic]\nplugin = \"uniform\"\nload = 0.8\n", 1, NULL},
        {"[topology]\nplugin = \"dragonfly\"\na = 4\np = 2\nh = 2\n[router]\n"
         "plugin = \"ugal\"\nintermediate = \"group\"\nvcs = 3\n[network]\nflow_control = \"wormhole\"\n"
         "vc_buffer_bytes = 128\ncable_cycles = 3\n[traffic]\nplugin = \"uniform\"\n"
         "load = 0.6\n", 1, NULL},
    };
    check_split_runs(runs, G_N_ELEMENTS(runs));
}

/* [simulation] threads splits a run that mpirun could split into as many
   parts on threads of one process, with the results of one thread; one
   that cannot be split (bubble) is not, and its results do not change. */
Test(partition, threads_split_the_run_into_parts)
{
    static const struct {
        const char *body;
        gboolean splits;
    } runs[] = {
        {"[topology]\nplugin = \"torus\"\ndims = [8, 8]\n[router]\nplugin = \"dally\"\n"
         "[traffic]\nplugin = \"uniform\"\nload = 0.7\n[stats]\nnode_map = true\n", TRUE},
        {"[topology]\nplugin = \"kary-ntree\"\nk = 4\nn = 2\n[router]\nplugin = \"updown\"\n"
         "select = \"room\"\nvcs = 2\n[traffic]\nplugin = \"uniform\"\nload = 1.0\n", TRUE},
        {"[topology]\nplugin = \"torus\"\ndims = [8, 8]\n[router]\nplugin = \"bubble\"\n"
         "vcs = 3\n[traffic]\nplugin = \"uniform\"\nload = 0.9\n", TRUE},
        {"[topology]\nplugin = \"torus\"\ndims = [8, 8]\n[router]\nplugin = \"bubble\"\n"
         "mode = \"random\"\n[traffic]\nplugin = \"uniform\"\nload = 0.6\n", TRUE},
        {"[topology]\nplugin = \"torus\"\ndims = [8, 8]\n[router]\nplugin = \"bubble\"\n"
         "mode = \"oblivious\"\nvcs = 3\n[traffic]\nplugin = \"uniform\"\nload = 0.8\n",
         TRUE},
        {"[topology]\nplugin = \"torus\"\ndims = [8, 8]\n[router]\nplugin = \"dally\"\n"
         "mode = \"improved\"\n[traffic]\nplugin = \"uniform\"\nload = 0.7\n", TRUE},
        {"[topology]\nplugin = \"dragonfly\"\na = 4\np = 2\nh = 2\n[router]\n"
         "plugin = \"ugal\"\nintermediate = \"group\"\nvcs = 3\n"
         "[traffic]\nplugin = \"uniform\"\nload = 0.6\n", TRUE},
        {"[topology]\nplugin = \"dragonfly\"\na = 4\np = 2\nh = 2\n[router]\n"
         "plugin = \"valiant\"\nvcs = 4\n[traffic]\nplugin = \"uniform\"\nload = 0.4\n",
         TRUE},
        {"[topology]\nplugin = \"mesh\"\ndims = [8, 8]\n[router]\n"
         "plugin = \"minimal-adaptive\"\n[traffic]\nplugin = \"uniform\"\nload = 0.5\n", TRUE},
        {"[topology]\nplugin = \"kary-ntree\"\nk = 4\nn = 2\n[router]\nplugin = \"multistage\"\n"
         "mode = \"adaptive\"\nvcs = 2\n[traffic]\nplugin = \"uniform\"\nload = 0.9\n", TRUE},
        {"[topology]\nplugin = \"mesh\"\ndims = [8, 8]\n[router]\n"
         "plugin = \"test-dor-v10\"\nvcs = 1\n[traffic]\nplugin = \"uniform\"\nload = 0.3\n",
         FALSE},

    };
    for (size_t i = 0; i < G_N_ELEMENTS(runs); i++)
        check_threads(runs[i].body, 3, runs[i].splits, NULL, 0);
}

/* A message is handed to its task after the receiver's overhead (and a
   two-copy message's copy) in its sender's part, which learns that its
   last packet arrived at the exchange closing that cycle. Split over
   threads the runs report what one thread does; on this 4-node ring the
   run's last message crosses parts and arrives when nothing else is left
   to do anywhere, so the run lasts until its hand-over (300 cycles later)
   only if the parts learn of it at that exchange. The last packets of a
   loaded torus, split into 2, 3 and 4 parts, are of a message cut short
   when generation ended, never handed over: the run ends after them, as
   one process's does, not a cycle later. */
Test(partition, a_receivers_overhead_splits_over_threads)
{
    static const struct {
        const char *body;
        uint32_t seed;
        const char *drain;
    } runs[] = {
        {"[topology]\nplugin = \"torus\"\ndims = [4]\n[router]\nplugin = \"dally\"\n"
         "[network]\nrecv_overhead_cycles = 300\nnode_cable_cycles = 3\n"
         "[traffic]\nplugin = \"uniform\"\nload = 0.02\n",
         7, "drain 308)"},
        {"[topology]\nplugin = \"torus\"\ndims = [8, 8]\n[router]\nplugin = \"dally\"\n"
         "[network]\nrecv_overhead_cycles = 37\nsend_overhead_cycles = 5\ncopy = \"two\"\n"
         "link_bandwidth = \"4 GB/s\"\nmemory_bandwidth = \"1 GB/s\"\n"
         "[traffic]\nplugin = \"uniform\"\nload = 0.4\nmessage_bytes = 200\n",
         3, NULL},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(runs); i++)
        check_threads(runs[i].body, runs[i].seed, TRUE, runs[i].drain, 0);
    check_splits("[simulation]\nphases = \"fixed\"\nwarmup = 0\ncycles = 2000\nseed = 5\n"
                 "[topology]\nplugin = \"torus\"\ndims = [8, 8]\n[router]\nplugin = \"dally\"\n"
                 "vcs = 2\n[network]\nmtu_bytes = 64\nheader_bytes = 8\n"
                 "recv_overhead_cycles = 3\n[traffic]\nplugin = \"uniform\"\nload = 0.9\n"
                 "message_bytes = 300\n");
}

/* With latencies the parts meet once per window of cycles, no longer than
   the receiver's overhead: a message handed over in its sender's part
   after its last packet arrived in another part is handed over after the
   meeting that tells it, and from that packet's cycle on the run is not
   over. On the 4-node ring the last message crosses parts when nothing
   else is left to do anywhere, the whole network empty within a window;
   the torus's windows are the overhead's 4 cycles (its links would allow
   7); the loaded torus's last packets are of messages cut short when
   generation ended, never handed over. Each reports what one thread
   does. */
Test(partition, a_receivers_overhead_bounds_the_windows_of_a_split_run)
{
    check_threads("[topology]\nplugin = \"torus\"\ndims = [4]\n[router]\nplugin = \"dally\"\n"
                  "[network]\nrecv_overhead_cycles = 300\nnode_cable_cycles = 3\n"
                  "cable_cycles = 4\nrouter_cycles = 2\n"
                  "[traffic]\nplugin = \"uniform\"\nload = 0.02\n",
                  7, TRUE, NULL, 7);
    check_threads("[topology]\nplugin = \"torus\"\ndims = [8, 8]\n[router]\nplugin = \"dally\"\n"
                  "[network]\nrecv_overhead_cycles = 4\ncable_cycles = 4\nrouter_cycles = 2\n"
                  "copy = \"two\"\nlink_bandwidth = \"4 GB/s\"\nmemory_bandwidth = \"1 GB/s\"\n"
                  "[traffic]\nplugin = \"uniform\"\nload = 0.4\nmessage_bytes = 200\n",
                  3, TRUE, NULL, 4);
    check_splits("[simulation]\nphases = \"fixed\"\nwarmup = 0\ncycles = 2000\nseed = 5\n"
                 "[topology]\nplugin = \"torus\"\ndims = [8, 8]\n[router]\nplugin = \"dally\"\n"
                 "vcs = 2\n[network]\nmtu_bytes = 64\nheader_bytes = 8\ncable_cycles = 3\n"
                 "recv_overhead_cycles = 3\n[traffic]\nplugin = \"uniform\"\nload = 0.9\n"
                 "message_bytes = 300\n");
}

/* A router that is only local may read the phit view of a queue across
   a cut, which both ends change: with latencies its parts meet every
   cycle, and a grant towards such a queue reaches the queue's part (a
   reserve) before its router next reads it. bubble reads its queues in
   phits: past saturation, with cables and pipelines, slow links, and
   output buffers that hold several packets granted towards a queue
   before the first starts across (without the reserve, split runs of
   these differ from one thread's). */
Test(partition, a_router_reading_phits_splits_with_latencies)
{
    static const char *const runs[] = {
        "[topology]\nplugin = \"torus\"\ndims = [8, 8]\n[router]\nplugin = \"bubble\"\n"
        "[network]\ncable_cycles = 2\n[traffic]\nplugin = \"uniform\"\nload = 0.5\n",
        "[topology]\nplugin = \"torus\"\ndims = [8, 8]\n[router]\nplugin = \"bubble\"\n"
        "vcs = 2\n[network]\ncable_cycles = 5\nrouter_cycles = 4\ndim_phit_cycles = [2, 3]\n"
        "output_buffer_bytes = 128\nvc_buffer_bytes = 256\n"
        "[traffic]\nplugin = \"uniform\"\nload = 0.6\nmessage_bytes = 40\n",
        "[topology]\nplugin = \"torus\"\ndims = [8, 8]\n[router]\nplugin = \"bubble\"\n"
        "vcs = 2\n[network]\ncable_cycles = 1\nrouter_cycles = 2\nnode_phit_cycles = 2\n"
        "output_buffer_bytes = 256\ncrossbar_speedup = 2\n"
        "[traffic]\nplugin = \"uniform\"\nload = 0.7\n",
        "[topology]\nplugin = \"torus\"\ndims = [8, 8]\n[router]\nplugin = \"bubble\"\n"
        "mode = \"oblivious\"\nvcs = 4\n[network]\ncable_cycles = 12\nrouter_cycles = 7\n"
        "dim_phit_cycles = [2, 3]\noutput_buffer_bytes = 128\n"
        "[traffic]\nplugin = \"uniform\"\nload = 0.8\n",
    };
    for (size_t i = 0; i < G_N_ELEMENTS(runs); i++)
        check_threads(runs[i], 3 + (uint32_t)i, TRUE, NULL, 1);
}

/* What the request phase changes in a queue's phit view shows from its
   end, in one process as in parts that learn of it after the cycle: a
   head dropped at a failed cable while its tail still arrives (its queue
   discards the rest), and a packet shorter than the longest consumed (its
   phits leave). bubble with short packets and failed cables, split on 2
   and 3 threads: the first run differs from one thread's when the
   consumption shows at once, the second and third when the cut does, and
   the fourth when the part feeding a queue that granted a packet towards
   it in the cycle of the cut then applies the cut after the grant. */
Test(partition, a_router_reading_phits_splits_where_packets_drop_or_are_short)
{
    static const char shortest[] =
        "[topology]\nplugin = \"torus\"\ndims = [8, 8]\n[faults]\nlinks = 2\n"
        "[router]\nplugin = \"bubble\"\nmode = \"shortest\"\nvcs = 3\n"
        "[network]\nrouter_cycles = 7\ndim_phit_cycles = [1, 3]\nmtu_bytes = 24\n"
        "header_bytes = 8\nsend_overhead_cycles = 20\nrecv_overhead_cycles = 30\n"
        "[traffic]\nplugin = \"uniform\"\nload = 0.9\nmessage_bytes = 100\n";
    static const struct {
        const char *body;
        uint32_t seed;
    } runs[] = {
        {shortest, 3},
        {shortest, 5},
        {"[topology]\nplugin = \"torus\"\ndims = [8, 8]\n[faults]\nlinks = 4\n"
         "[router]\nplugin = \"bubble\"\nmode = \"random\"\nvcs = 2\n"
         "[network]\ncable_cycles = 8\nrouter_cycles = 4\nnode_cable_cycles = 3\n"
         "output_buffer_bytes = 256\ncrossbar_speedup = 3\nmtu_bytes = 16\nheader_bytes = 8\n"
         "recv_overhead_cycles = 30\n"
         "[traffic]\nplugin = \"uniform\"\nload = 0.3\nmessage_bytes = 100\n",
         3},
        {"[topology]\nplugin = \"torus\"\ndims = [8, 8]\n[faults]\nlinks = 4\n"
         "[router]\nplugin = \"bubble\"\nmode = \"shortest\"\nvcs = 3\n"
         "[network]\ncable_cycles = 5\nrouter_cycles = 2\nnode_cable_cycles = 1\n"
         "output_buffer_bytes = 128\ncrossbar_speedup = 3\nmtu_bytes = 32\nheader_bytes = 4\n"
         "[traffic]\nplugin = \"uniform\"\nload = 0.9\n",
         3},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(runs); i++)
        check_threads(runs[i].body, runs[i].seed, TRUE, NULL, 1);
}

/* Output buffers behind the crossbar and links slower than the router:
   a packet crossing a cut carries the cycle its tail is in, from which the
   next router times its crossing and its consumption. Split over threads,
   each run reports what one thread does (without the tail, six of these
   seven differ). */
Test(partition, output_buffers_and_slow_links_split_over_threads)
{
    static const char *const runs[] = {
        "[topology]\nplugin = \"torus\"\ndims = [8, 8]\n[router]\nplugin = \"dally\"\n"
        "[network]\noutput_buffer_bytes = 256\n[traffic]\nplugin = \"uniform\"\nload = 0.5\n",
        "[topology]\nplugin = \"torus\"\ndims = [8, 8]\n[router]\nplugin = \"dally\"\n"
        "[network]\noutput_buffer_bytes = 512\ncrossbar_speedup = 2\ncable_cycles = 2\n"
        "router_cycles = 3\n[traffic]\nplugin = \"uniform\"\nload = 0.8\n",
        "[topology]\nplugin = \"torus\"\ndims = [8, 8]\n[router]\nplugin = \"dally\"\n"
        "[network]\ndim_phit_cycles = [1, 3]\nmtu_bytes = 64\nheader_bytes = 8\n"
        "vc_buffer_bytes = 192\n[traffic]\nplugin = \"uniform\"\nload = 0.4\n"
        "message_bytes = 150\n",
        "[topology]\nplugin = \"torus\"\ndims = [8, 8]\n[router]\nplugin = \"dally\"\n"
        "mode = \"improved\"\nvc_choice = \"room\"\n[network]\nnode_phit_cycles = 3\n"
        "output_buffer_bytes = 128\n[traffic]\nplugin = \"uniform\"\nload = 0.9\n",
        "[topology]\nplugin = \"kary-ntree\"\nk = 4\nn = 3\n[router]\nplugin = \"updown\"\n"
        "select = \"room\"\nvcs = 2\n[network]\ndim_phit_cycles = [1, 2, 4]\ncable_cycles = 1\n"
        "[traffic]\nplugin = \"uniform\"\nload = 0.7\n",
        "[topology]\nplugin = \"kary-ntree\"\nk = 4\nn = 3\n[router]\nplugin = \"updown\"\n"
        "select = \"room\"\nvcs = 2\n[network]\noutput_buffer_bytes = 256\n"
        "crossbar_speedup = 2\nnics = 2\n[traffic]\nplugin = \"uniform\"\nload = 1.0\n",
        "[topology]\nplugin = \"torus\"\ndims = [8, 8]\n[router]\nplugin = \"dally\"\n"
        "[network]\nlink_bandwidth = \"4 GB/s\"\nnode_bandwidth = \"2 GB/s\"\n"
        "output_buffer_bytes = 128\nrecv_overhead_ns = 20\n[faults]\nlinks = 3\n"
        "[traffic]\nplugin = \"uniform\"\nload = 0.6\nlength_dist = \"uniform\"\n",
    };
    for (size_t i = 0; i < G_N_ELEMENTS(runs); i++)
        check_threads(runs[i], 3, TRUE, NULL, 0);
}

/* Global congestion control samples the whole network: every part adds
   its share at the sample's cycle (a queue fed across a cut counted by its
   feeding part alone), so that the sources of every part stop and go as
   one thread's do, counting transit slots or INSEE's packets past their
   sources. Both runs stall their sources (a part's own share alone, or
   its count of the queues it drains across a cut, changes them). A stall
   while the sources are held and nothing is in transit is no deadlock in
   any part, though the last sample, before the stall, counted packets in
   transit. */
Test(partition, global_congestion_control_splits_over_threads)
{
    check_splits("[simulation]\nphases = \"fixed\"\nwarmup = 0\ncycles = 1000\nseed = 3\n"
                 "deadlock_cycles = 10\n[topology]\nplugin = \"torus\"\ndims = [8, 8]\n"
                 "[router]\nplugin = \"dally\"\nvcs = 2\ngcc = 0.02\ngcc_period = 100\n"
                 "[traffic]\nplugin = \"uniform\"\nload = 0.3\n");
    static const char *const runs[] = {
        "[topology]\nplugin = \"torus\"\ndims = [8, 8]\n[router]\nplugin = \"dally\"\n"
        "gcc = 0.15\ngcc_period = 50\n[traffic]\nplugin = \"uniform\"\nload = 0.9\n",
        "[topology]\nplugin = \"torus\"\ndims = [8, 8]\n[router]\nplugin = \"dally\"\n"
        "gcc = 0.05\ngcc_count = \"insee\"\ngcc_period = 40\n"
        "[traffic]\nplugin = \"uniform\"\nload = 0.9\n",
    };
    for (size_t i = 0; i < G_N_ELEMENTS(runs); i++)
        check_threads(runs[i], 3, TRUE, NULL, 0);
}

/* A message of a causal application, or of traffic that reacts to
   deliveries, is handed to its task in its receiver's part, whose instance
   of the plugin alone hears of it (the plugin declares
   INSEE_TRAFFIC_PER_TASK and starts only that part's tasks there); an
   application is done at the cycle every part says it is. Split over
   threads, each run reports what one thread does, its completion cycle
   included: the application kernels and a trace, with the sender's and
   the receiver's overheads, two applications sharing nodes, open-ended
   traffic beside a causal one. */
Test(partition, causal_workloads_split_over_threads)
{
    char *trace = g_strdup_printf("[topology]\nplugin = \"torus\"\ndims = [4, 2]\n[router]\n"
                                  "plugin = \"dally\"\n[traffic]\nplugin = \"trace\"\n"
                                  "file = \"%s/examples/traces/ring.fsin\"\nmode = \"causal\"\n"
                                  "cpu_scale = 2\n[network]\nrecv_overhead_cycles = 40\n",
                                  INSEE_TEST_SOURCE_DIR);
    const struct {
        const char *body, *expect;
    } runs[] = {
        {"[topology]\nplugin = \"torus\"\ndims = [8, 8]\n[router]\nplugin = \"dally\"\n"
         "[network]\nrecv_overhead_cycles = 25\nsend_overhead_cycles = 4\n"
         "[traffic]\nplugin = \"stencil\"\ndims = 2\nbytes = 256\niterations = 3\n"
         "compute = 40\n", "completed at cycle"},
        {"[topology]\nplugin = \"kary-ntree\"\nk = 4\nn = 2\n[router]\nplugin = \"updown\"\n"
         "select = \"room\"\nvcs = 2\n[network]\ncopy = \"two\"\nlink_bandwidth = \"4 GB/s\"\n"
         "memory_bandwidth = \"2 GB/s\"\n[traffic]\nplugin = \"allreduce\"\nbytes = 512\n"
         "iterations = 2\ncompute = 30\n", "completed at cycle"},
        {"[topology]\nplugin = \"torus\"\ndims = [8, 8]\n[router]\nplugin = \"dally\"\n"
         "[[application]]\nname = \"exchange\"\ntasks = 32\n[application.traffic]\n"
         "plugin = \"alltoall\"\nbytes = 128\n[application.placement]\nplugin = \"random\"\n"
         "[[application]]\nname = \"halo\"\ntasks = 32\ntasks_per_node = 2\n"
         "[application.traffic]\nplugin = \"stencil\"\ndims = 2\nbytes = 64\niterations = 2\n"
         "[application.placement]\nplugin = \"random\"\n"
         "[background]\nplugin = \"uniform\"\nload = 0.1\n", "completed at cycle"},
        {trace, "completed at cycle"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(runs); i++)
        check_threads(runs[i].body, 3, TRUE, runs[i].expect, 0);
    g_free(trace);
}

/* Plugins that react to deliveries without declaring their tasks' states
   their own are not split, and report what they do on one thread:
   master-worker's master keeps its workers' items, and reactive draws for
   each delivery from its receiver's stream, in the order a cycle's
   deliveries come. */
Test(partition, traffic_whose_tasks_share_state_is_not_split)
{
    check_threads("[topology]\nplugin = \"torus\"\ndims = [4, 4]\n[router]\nplugin = \"dally\"\n"
                  "[traffic]\nplugin = \"master-worker\"\nbytes = 256\niterations = 2\n"
                  "compute = 100\n",
                  3, FALSE, "completed at cycle", 0);
    check_threads("[topology]\nplugin = \"torus\"\ndims = [8, 8]\n[router]\nplugin = \"dally\"\n"
                  "[traffic]\nplugin = \"reactive\"\nload = 0.2\nprobability = 0.6\n"
                  "reply_max = 3\n",
                  3, FALSE, NULL, 0);
}

/* The message of a run of `body` on `threads` threads that fails, and the
   parts it was split into. */
static char *failure_on(const char *body, uint32_t threads, uint32_t *parts)
{
    char *toml = g_strdup_printf("[simulation]\nthreads = %u\n%s", threads, body);
    GError *err = failed_run(toml, parts);
    char *message = g_strdup(err->message);
    g_error_free(err);
    g_free(toml);
    return message;
}

/* A causal application on a network with failed cables splits: routed
   around them (updown), it runs as on one thread; routed into them
   (dally), a lost message means it cannot finish, and a split run ends at
   the drop saying so, where one thread runs on until it is stuck. */
Test(partition, a_causal_workload_splits_where_cables_failed)
{
    check_threads("[topology]\nplugin = \"torus\"\ndims = [8, 8]\n[faults]\nlinks = 3\n"
                  "[router]\nplugin = \"updown\"\nvcs = 2\n[network]\ncable_cycles = 2\n"
                  "[traffic]\nplugin = \"stencil\"\ndims = 2\nbytes = 256\niterations = 3\n"
                  "compute = 40\n",
                  3, TRUE, "completed at cycle", 0);
    static const char dally[] =
        "[topology]\nplugin = \"torus\"\ndims = [4, 4]\n"
        "[router]\nplugin = \"dally\"\n[faults]\nlinks = 0.25\n"
        "[traffic]\nplugin = \"stencil\"\ndims = 2\nbytes = 64\niterations = 4\n";
    uint32_t parts;
    char *one = failure_on(dally, 1, &parts);
    cr_assert(strstr(one, "stuck") && strstr(one, "dropped at failed cables"), "%s", one);
    char *split = failure_on(dally, 2, &parts);
    cr_assert_eq(parts, 2);
    cr_assert(strstr(split, "application 'traffic' (stencil)") && strstr(split, "cannot finish"), "%s",
              split);
    g_free(one);
    g_free(split);
}

/* A causal application that waits for ever, split: the part whose task
   waits ends the run, in its plugin's words, at the cycle one thread
   does; also when nothing at all is left to happen (no part meets the
   others again), when the task waiting is another part's than the first,
   and with cables, where the parts meet every 7 cycles. */
Test(partition, a_stuck_causal_workload_split_over_threads_names_its_task)
{
    static const char *const traces[] = {"s 0 5 1 64\nr 6 5 2 64\n", "r 6 5 2 64\n",
                                         "r 1 0 1 64\n", "s 0 5 1 64\nr 6 5 2 64\n"};
    static const char *const waits[] = {"task 5 waits", "task 5 waits", "task 0 waits",
                                        "task 5 waits"};
    static const char *const network[] = {"", "", "", "[network]\ncable_cycles = 6\n"};
    char *dir = g_dir_make_tmp("insee-stuck-XXXXXX", NULL);
    char *path = g_build_filename(dir, "stuck.fsin", NULL);
    for (size_t i = 0; i < G_N_ELEMENTS(traces); i++) {
        cr_assert(g_file_set_contents(path, traces[i], -1, NULL));
        char *body = g_strdup_printf("[topology]\nplugin = \"torus\"\ndims = [4, 2]\n"
                                     "[router]\nplugin = \"dally\"\n%s[traffic]\n"
                                     "plugin = \"trace\"\nfile = \"%s\"\nmode = \"causal\"\n",
                                     network[i], path);
        uint32_t parts;
        char *one = failure_on(body, 1, &parts), *split = failure_on(body, 3, &parts);
        cr_assert_eq(parts, 3);
        cr_assert(strstr(split, "stuck") && strstr(split, waits[i]), "%s: %s", traces[i], split);
        /* "[part 1 of the run: ]cycle N: the workload is stuck" */
        const char *at = strstr(split, "cycle ");
        cr_assert(at && g_str_has_prefix(one, "cycle "), "%s / %s", split, one);
        cr_assert(strncmp(at, one, strcspn(one, ":") + 1) == 0, "%s / %s", split, one);
        g_free(one);
        g_free(split);
        g_free(body);
    }
    g_unlink(path);
    g_rmdir(dir);
    g_free(path);
    g_free(dir);
}
