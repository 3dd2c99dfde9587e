/* insee-trace and libinsee-trace end to end (docs/trace-capture.md).
 *
 * programs: MPI programs with known messages (fixture.c) under insee-trace
 * give exactly the events their definitions give: a ring, a ping-pong,
 * a binomial broadcast and a dissemination barrier, pairwise and Bruck
 * alltoalls, a split communicator, persistent requests and matched
 * probes; unsupported calls mark the trace
 * incomplete; a rank that dies or a file that cannot be written leaves no
 * trace. The expected events are written here from the algorithms'
 * definitions, not by sdk/mpi/coll.c.
 *
 * hpcc and lammps: real programs captured and replayed in insee by the
 * packet engine and the dynamic flow engine: the replay completes (every
 * receive matched) and its messages and bytes are the capture's counters
 * in the trace's header. */
#include <criterion/criterion.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "coll.h"

#define N 4 /* ranks */

typedef struct result {
    int status;
    char *out, *err;
} result;

static void skip_without_capture(void)
{
#if !INSEE_TEST_HAVE_TRACE
    cr_skip_test("not tested: insee was built without Open MPI's development files (libopenmpi-dev, "
                 "pkg-config ompi-c): no libinsee-trace to test");
#endif
    char *mpirun = g_find_program_in_path("mpirun");
    if (!mpirun)
        cr_skip_test("not tested: no mpirun on PATH (Debian's openmpi-bin)");
    g_free(mpirun);
}

static result spawn(const char *dir, char **argv, char **envp)
{
    result r = {0};
    GError *e = NULL;
    int wait;
    cr_assert(g_spawn_sync(dir, argv, envp, G_SPAWN_SEARCH_PATH, NULL, NULL, &r.out, &r.err, &wait,
                           &e),
              "%s: %s", argv[0], e ? e->message : "");
    r.status = WIFEXITED(wait) ? WEXITSTATUS(wait) : 128 + WTERMSIG(wait);
    return r;
}

static void result_free(result *r)
{
    g_free(r->out);
    g_free(r->err);
}

/* insee-trace -o OUT [options] -n N -- mpirun's options -- program, in dir. */
static result capture(const char *dir, const char *out, const char *const *options,
                      const char *const *program, char **envp)
{
    GPtrArray *argv = g_ptr_array_new();
    g_ptr_array_add(argv, INSEE_TEST_TRACE);
    g_ptr_array_add(argv, "-o");
    g_ptr_array_add(argv, (char *)out);
    for (; options && *options; options++)
        g_ptr_array_add(argv, (char *)*options);
    g_ptr_array_add(argv, "-n");
    g_ptr_array_add(argv, G_STRINGIFY(N));
    g_ptr_array_add(argv, "--");
    g_ptr_array_add(argv, "--oversubscribe");
    /* containers often forbid the cross-memory attach of large messages */
    g_ptr_array_add(argv, "--mca");
    g_ptr_array_add(argv, "btl_vader_single_copy_mechanism");
    g_ptr_array_add(argv, "none");
    if (geteuid() == 0)
        g_ptr_array_add(argv, "--allow-run-as-root");
    g_ptr_array_add(argv, "--");
    for (; *program; program++)
        g_ptr_array_add(argv, (char *)*program);
    g_ptr_array_add(argv, NULL);
    result r = spawn(dir, (char **)argv->pdata, envp);
    g_ptr_array_free(argv, TRUE);
    return r;
}

static char *read_text(const char *path)
{
    char *text = NULL;
    GError *e = NULL;
    cr_assert(g_file_get_contents(path, &text, NULL, &e), "%s", e ? e->message : "");
    return text;
}

/* The trace's events (its lines but comments), one per line. Lines are
   found with memchr: g_strsplit's strstr costs a strlen of the rest of the
   text per line under AddressSanitizer. */
static char *events_of(const char *text)
{
    GString *s = g_string_new(NULL);
    const char *end = text + strlen(text);
    for (const char *l = text, *nl; l < end; l = nl + 1) {
        nl = memchr(l, '\n', (size_t)(end - l));
        nl = nl ? nl : end;
        if (nl > l && *l != '#')
            g_string_append_c(g_string_append_len(s, l, nl - l), '\n');
    }
    return g_string_free(s, FALSE);
}

/* A number after `key` in the header line starting with `line`. */
static uint64_t header_number(const char *text, const char *line, const char *key)
{
    const char *l = strstr(text, line);
    cr_assert(l, "no '%s' line in the trace's header", line);
    const char *end = strchr(l, '\n'), *k = g_strstr_len(l, end - l, key);
    cr_assert(k, "no '%s' in the header's '%s' line", key, line);
    return g_ascii_strtoull(k + strlen(key), NULL, 10);
}

typedef struct messages {
    uint64_t count, bytes, zeros;
    uint64_t packets; /* of 1 MiB: max(1, ceil(bytes / 2^20)) a message */
} messages;

/* The sends of a trace's events ("s src dst tag bytes" lines). */
static messages sends_of(const char *events)
{
    messages m = {0};
    for (const char *l = events; *l; l = strchr(l, '\n') + 1) {
        if (*l != 's')
            continue;
        const char *bytes = l;
        for (int field = 0; field < 4; field++)
            bytes = strchr(bytes, ' ') + 1;
        uint64_t b = g_ascii_strtoull(bytes, NULL, 10);
        m.count++, m.bytes += b, m.zeros += b == 0;
        m.packets += b ? (b + (UINT64_C(1) << 20) - 1) >> 20 : 1;
    }
    return m;
}

/* The trace's header counts every message and byte the events hold, once
   sent and once received. */
static void check_header(const char *text, const char *events)
{
    messages m = sends_of(events);
    cr_assert_eq(header_number(text, "# total:", "messages "), m.count);
    cr_assert_eq(header_number(text, "# total:", "bytes "), m.bytes);
    cr_assert_eq(header_number(text, "# total:", "received "), m.count);
}

/* ---- programs with known messages ---- */

typedef struct run {
    char *dir, *trace, *text, *events;
    result r;
} run;

static run capture_fixture(const char *mode, const char *const *options, char **envp)
{
    run c = {.dir = g_dir_make_tmp("insee-trace-XXXXXX", NULL)};
    cr_assert(c.dir);
    c.trace = g_build_filename(c.dir, "t.fsin", NULL);
    const char *const none[] = {"--compute", "none", NULL};
    c.r = capture(c.dir, c.trace, options ? options : none,
                  (const char *const[]){INSEE_TEST_FIXTURE, mode, NULL}, envp);
    if (g_file_test(c.trace, G_FILE_TEST_EXISTS)) {
        c.text = read_text(c.trace);
        c.events = events_of(c.text);
    }
    return c;
}

/* Nothing but the trace (if any) is left in the run's directory. */
static void run_free(run *c)
{
    GDir *d = g_dir_open(c->dir, 0, NULL);
    for (const char *name; d && (name = g_dir_read_name(d));) {
        cr_expect(!strcmp(name, "t.fsin"), "left behind: %s", name);
        char *path = g_build_filename(c->dir, name, NULL);
        g_unlink(path);
        g_free(path);
    }
    if (d)
        g_dir_close(d);
    g_rmdir(c->dir);
    result_free(&c->r);
    g_free(c->dir), g_free(c->trace), g_free(c->text), g_free(c->events);
}

/* The fixture in `mode` (with the environment envp, NULL: the test's)
   gives exactly the events `expected`, which the function frees. */
static void expect_events(const char *mode, GString *expected, char **envp)
{
    run c = capture_fixture(mode, NULL, envp);
    cr_assert_eq(c.r.status, 0, "insee-trace failed (%d):\n%s", c.r.status, c.r.err);
    cr_assert(c.text, "no trace written:\n%s", c.r.err);
    cr_assert_str_eq(c.events, expected->str);
    cr_assert(strstr(c.text, "\n# status: complete\n"));
    cr_assert(strstr(c.text, "\n# ranks: 4\n"));
    cr_assert(strstr(c.text, envp ? "\n# alltoall: bruck\n" : "\n# alltoall: pairwise\n"));
    check_header(c.text, c.events);
    g_string_free(expected, TRUE);
    run_free(&c);
}

static void add(GString *s, char kind, int src, int dst, uint64_t tag, uint64_t bytes)
{
    g_string_append_printf(s, "%c %d %d %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT "\n", kind, src,
                           dst, tag, bytes);
}

/* The tag of the seq-th collective of communicator comm (docs/trace-capture.md). */
static uint64_t coll_tag(uint64_t comm, insee_coll_op op, uint64_t seq)
{
    return comm << 32 | UINT64_C(1) << 31 | (uint64_t)op << 24 | seq;
}

TestSuite(programs, .timeout = 60);

Test(programs, ring)
{
    skip_without_capture();
    GString *x = g_string_new(NULL);
    add(x, 's', 0, 1, 7, 8);
    add(x, 'r', N - 1, 0, 7, 8);
    for (int r = 1; r < N; r++) {
        add(x, 'r', r - 1, r, 7, 8);
        add(x, 's', r, (r + 1) % N, 7, 8);
    }
    expect_events("ring", x, NULL);
}

Test(programs, ping_pong)
{
    skip_without_capture();
    const uint64_t lengths[] = {1, 100, 10000};
    GString *x = g_string_new(NULL);
    for (int i = 0; i < 3; i++) {
        add(x, 's', 0, 1, (uint64_t)i, lengths[i]);
        add(x, 'r', 1, 0, (uint64_t)i, lengths[i]);
    }
    for (int i = 0; i < 3; i++) {
        add(x, 'r', 0, 1, (uint64_t)i, lengths[i]);
        add(x, 's', 1, 0, (uint64_t)i, lengths[i]);
    }
    expect_events("ping-pong", x, NULL);
}

/* Binomial broadcast from root 1: virtual rank v = (rank - 1) mod N
   receives from v minus its lowest bit, then sends to v + 2^k for every
   2^k below that bit (every 2^k < N at the root), farthest first; then a
   dissemination barrier: round k sends to rank + 2^k and receives from
   rank - 2^k; then a linear scan of 8 bytes: from rank - 1, to rank + 1. */
Test(programs, bcast_barrier_and_scan)
{
    skip_without_capture();
    const int root = 1;
    const uint64_t bcast = coll_tag(0, INSEE_COLL_BCAST, 0),
                   barrier = coll_tag(0, INSEE_COLL_BARRIER, 1),
                   scan = coll_tag(0, INSEE_COLL_SCAN_LINEAR, 2);
    GString *x = g_string_new(NULL);
    for (int r = 0; r < N; r++) {
        int v = (r - root + N) % N, low = v ? v & -v : N;
        if (v)
            add(x, 'r', (v - low + root) % N, r, bcast, 800);
        for (int k = low / 2; k >= 1; k /= 2)
            if (v + k < N)
                add(x, 's', r, (v + k + root) % N, bcast, 800);
        for (int k = 1; k < N; k *= 2) {
            add(x, 's', r, (r + k) % N, barrier, 0);
            add(x, 'r', (r - k + N) % N, r, barrier, 0);
        }
        if (r > 0)
            add(x, 'r', r - 1, r, scan, 8);
        if (r + 1 < N)
            add(x, 's', r, r + 1, scan, 8);
    }
    expect_events("bcast", x, NULL);
}

/* Pairwise exchange: round k = 1 .. N-1 sends rank + k its 12 bytes and
   receives rank - k's. */
Test(programs, alltoall_pairwise)
{
    skip_without_capture();
    const uint64_t tag = coll_tag(0, INSEE_COLL_ALLTOALL_PAIRWISE, 0);
    GString *x = g_string_new(NULL);
    for (int r = 0; r < N; r++)
        for (int k = 1; k < N; k++) {
            add(x, 's', r, (r + k) % N, tag, 12);
            add(x, 'r', (r - k + N) % N, r, tag, 12);
        }
    expect_events("alltoall", x, NULL);
}

/* Bruck, chosen as libinsee-mpi chooses it: for k = 1, 2, 4 .. < N one
   message to rank + k of the blocks whose index has bit k. */
Test(programs, alltoall_bruck)
{
    skip_without_capture();
    const uint64_t tag = coll_tag(0, INSEE_COLL_ALLTOALL_BRUCK, 0);
    GString *x = g_string_new(NULL);
    for (int r = 0; r < N; r++)
        for (int k = 1; k < N; k *= 2) {
            uint64_t blocks = 0;
            for (int i = 0; i < N; i++)
                blocks += (i & k) != 0;
            add(x, 's', r, (r + k) % N, tag, 12 * blocks);
            add(x, 'r', (r - k + N) % N, r, tag, 12 * blocks);
        }
    char **env = g_environ_setenv(g_get_environ(), "INSEE_MPI_ALLTOALL", "bruck", TRUE);
    expect_events("alltoall", x, env);
    g_strfreev(env);
}

/* Even and odd ranks split in reverse order: half rank 0 is the larger
   world rank. Both halves are the first communicator after world (0) and
   self (1): number 2 in the tags' high bits. Half rank 0 sends half rank 1
   tag 5, an allreduce of 2 ranks is one exchange, and world rank 0's tag 5
   to rank 1 stays apart from the halves'. */
Test(programs, split_communicator)
{
    skip_without_capture();
    const uint64_t p2p = UINT64_C(2) << 32 | 5,
                   allreduce = coll_tag(2, INSEE_COLL_ALLREDUCE_DOUBLING, 0);
    GString *x = g_string_new(NULL);
    for (int r = 0; r < N; r++) {
        int other = r < 2 ? r + 2 : r - 2, first = r >= 2; /* half rank 0 */
        if (first)
            add(x, 's', r, other, p2p, 4);
        else
            add(x, 'r', other, r, p2p, 4);
        add(x, 's', r, other, allreduce, 4);
        add(x, 'r', other, r, allreduce, 4);
        if (r == 0)
            add(x, 's', 0, 1, 5, 4);
        if (r == 1)
            add(x, 'r', 0, 1, 5, 4);
    }
    expect_events("split", x, NULL);
}

/* Persistent requests, MPI_PROC_NULL, MPI_Sendrecv_replace, matched probes
   and a receive from any source completed by MPI_Testany: a send is
   written when it starts, a receive when a wait or test completes it. */
Test(programs, requests)
{
    skip_without_capture();
    GString *x = g_string_new(NULL);
    for (int i = 0; i < 2; i++) {
        add(x, 's', 0, 1, 3, 16);
        add(x, 'r', 1, 0, 4, 16);
    }
    add(x, 's', 0, 1, 6, 8);
    add(x, 'r', 1, 0, 6, 8);
    add(x, 's', 0, 1, 9, 24);
    add(x, 's', 0, 1, 10, 32);
    add(x, 'r', 1, 0, 11, 40);
    for (int i = 0; i < 2; i++) {
        add(x, 'r', 0, 1, 3, 16);
        add(x, 's', 1, 0, 4, 16);
    }
    add(x, 's', 1, 0, 6, 8);
    add(x, 'r', 0, 1, 6, 8);
    add(x, 'r', 0, 1, 9, 24);
    add(x, 'r', 0, 1, 10, 32);
    add(x, 's', 1, 0, 11, 40);
    expect_events("requests", x, NULL);
}

/* Two MPI_Exscan and an MPI_Ibarrier per rank: no messages, the trace and
   stderr name them with their counts, the launcher exits 3. */
Test(programs, unsupported_calls_mark_the_trace_incomplete)
{
    skip_without_capture();
    run c = capture_fixture("unsupported", NULL, NULL);
    cr_assert_eq(c.r.status, 3, "exit status %d:\n%s", c.r.status, c.r.err);
    cr_assert(c.text, "the incomplete trace is written");
    cr_assert_str_eq(c.events, "");
    cr_assert(strstr(c.text, "\n# status: INCOMPLETE, 12 unsupported call(s)"), "%s", c.text);
    cr_assert(strstr(c.text, "MPI_Ibarrier (nonblocking_collective) 4"), "%s", c.text);
    cr_assert(strstr(c.text, "MPI_Exscan (unmapped_collective) 8"), "%s", c.text);
    cr_assert(strstr(c.r.err, "INCOMPLETE") && strstr(c.r.err, "MPI_Exscan (unmapped_collective) 8"),
              "%s", c.r.err);
    run_free(&c);
}

/* 30 ms of wall time between the barriers, in microseconds (--scale
   0.001): one compute of at least 30 000 units per rank between them. */
Test(programs, compute_time_between_calls)
{
    skip_without_capture();
    const char *const options[] = {"--compute", "wall", "--scale", "0.001", NULL};
    run c = capture_fixture("compute", options, NULL);
    cr_assert_eq(c.r.status, 0, "%s", c.r.err);
    cr_assert(strstr(c.text, "\n# compute: wall, c time = nanoseconds x 0.001\n"));
    for (int r = 0; r < N; r++) {
        /* the compute just before the second barrier's first send */
        char *pattern = g_strdup_printf("c %d (\\d+)\ns %d %d %" G_GUINT64_FORMAT " 0\n", r, r,
                                        (r + 1) % N, coll_tag(0, INSEE_COLL_BARRIER, 1));
        GMatchInfo *m;
        GRegex *re = g_regex_new(pattern, 0, 0, NULL);
        cr_assert(g_regex_match(re, c.events, 0, &m), "rank %d: no compute before %s in\n%s", r,
                  pattern, c.events);
        char *units = g_match_info_fetch(m, 1);
        cr_assert_geq(g_ascii_strtoull(units, NULL, 10), 30000, "rank %d computed %s us", r, units);
        g_free(units);
        g_match_info_free(m);
        g_regex_unref(re);
        g_free(pattern);
    }
    run_free(&c);
}

Test(programs, a_rank_that_dies_leaves_no_trace)
{
    skip_without_capture();
    run c = capture_fixture("die", NULL, NULL);
    cr_assert_neq(c.r.status, 0);
    cr_assert_null(c.text, "a trace was left");
    cr_assert(strstr(c.r.err, "no trace written"), "%s", c.r.err);
    run_free(&c);
}

Test(programs, an_unwritable_trace_is_an_error)
{
    skip_without_capture();
    run c = {.dir = g_dir_make_tmp("insee-trace-XXXXXX", NULL)};
    char *out = g_build_filename(c.dir, "missing", "t.fsin", NULL);
    c.r = capture(c.dir, out, NULL, (const char *const[]){INSEE_TEST_FIXTURE, "ring", NULL}, NULL);
    cr_assert_neq(c.r.status, 0);
    cr_assert(strstr(c.r.err, "cannot write the trace's part") && strstr(c.r.err, "missing"),
              "%s", c.r.err);
    cr_assert(!g_file_test(out, G_FILE_TEST_EXISTS));
    g_free(out);
    run_free(&c);
}

/* Bad usage: exit status 2 and what to give, before mpirun starts. */
Test(programs, usage_errors)
{
    skip_without_capture();
    static const struct {
        const char *args[8], *says;
    } cases[] = {
        {{"-n", "0", "--", "prog"}, "-n is a number of ranks"},
        {{"-n", "2", "--compute", "gpu", "--", "prog"}, "--compute is wall, cpu or none"},
        {{"-n", "2", "--scale", "-1", "--", "prog"}, "--scale is a non-negative number"},
        {{"--", "prog"}, "-n N is required"},
        {{"-n", "2", "--", "--oversubscribe", "--"}, "no program"},
        {{"-n", "2", "--frobnicate", "1", "--", "prog"}, "unknown option --frobnicate"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        char *argv[10] = {INSEE_TEST_TRACE};
        memcpy(argv + 1, cases[i].args, sizeof cases[i].args);
        result r = spawn(NULL, argv, NULL);
        cr_assert_eq(r.status, 2, "case %zu: exit status %d", i, r.status);
        cr_assert(strstr(r.err, cases[i].says) && strstr(r.err, "usage: insee-trace"),
                  "case %zu: %s", i, r.err);
        result_free(&r);
    }
}

/* ---- real programs, captured and replayed ---- */

static JsonObject *replay(const char *dir, const char *trace, const char *engine,
                          JsonParser *parser)
{
    char *config = g_build_filename(dir, "replay.toml", NULL),
         *json = g_build_filename(dir, "replay.json", NULL);
    /* 1 MiB packets keep megabytes of messages quick to simulate */
    char *toml = g_strdup_printf("[simulation]\nengine = \"%s\"\nphit_bytes = 65536\n"
                                 "packet_phits = 16\n\n[topology]\nplugin = \"torus\"\n"
                                 "dims = [2, 2]\n\n[router]\nplugin = \"dally\"\n\n"
                                 "[traffic]\nplugin = \"trace\"\nfile = \"%s\"\n"
                                 "cpu_scale = 0.001\n\n[stats]\njson = \"%s\"\n",
                                 engine, trace, json);
    cr_assert(g_file_set_contents(config, toml, -1, NULL));
    result r = spawn(dir, (char *[]){INSEE_TEST_BIN, "run", config, NULL}, NULL);
    cr_assert_eq(r.status, 0, "the %s engine's replay failed:\n%s", engine, r.err);
    GError *e = NULL;
    cr_assert(json_parser_load_from_file(parser, json, &e), "%s", e ? e->message : "");
    result_free(&r);
    g_free(config), g_free(json), g_free(toml);
    return json_node_get_object(json_parser_get_root(parser));
}

/* The capture of `program` in dir replays to completion in both engines,
   with the header's messages and bytes. */
static void capture_and_replay(const char *dir, const char *const *program, int status)
{
    char *trace = g_build_filename(dir, "t.fsin", NULL);
    result r = capture(dir, trace, NULL, program, NULL);
    cr_assert_eq(r.status, status, "insee-trace exit status %d:\n%s", r.status, r.err);
    char *text = read_text(trace), *events = events_of(text);
    check_header(text, events);
    messages m = sends_of(events);
    cr_assert_gt(m.count, 0);

    JsonParser *parser = json_parser_new();
    JsonObject *packet = replay(dir, trace, "packet", parser);
    JsonObject *app = json_array_get_object_element(
        json_object_get_array_member(packet, "applications"), 0);
    cr_assert(json_object_get_boolean_member(app, "completed"));
    cr_assert_eq((uint64_t)json_object_get_int_member(app, "messages"), m.count);
    cr_assert_eq((uint64_t)json_object_get_int_member(app, "generated"), m.packets);

    JsonObject *flow = replay(dir, trace, "dynamic", parser);
    cr_assert_eq((uint64_t)(json_object_get_int_member(flow, "messages") +
                            json_object_get_int_member(flow, "self_messages")),
                 m.count);
    /* a message of 0 bytes counts as one packet's 1 MiB */
    cr_assert_eq((uint64_t)json_object_get_int_member(flow, "bytes_sent"),
                 m.bytes + (m.zeros << 20));
    cr_assert_eq(json_object_get_int_member(flow, "unroutable"), 0);
    g_object_unref(parser);
    result_free(&r);
    g_free(trace), g_free(text), g_free(events);
}

static void remove_tree(const char *dir)
{
    GDir *d = g_dir_open(dir, 0, NULL);
    for (const char *name; d && (name = g_dir_read_name(d));) {
        char *path = g_build_filename(dir, name, NULL);
        g_unlink(path);
        g_free(path);
    }
    if (d)
        g_dir_close(d);
    g_rmdir(dir);
}

/* hpcc runs every HPC Challenge benchmark; the smallest inputs (matrices of
   64, blocks of 16, the least memory) keep it to a few seconds, the random
   ring and ping-pong of its LatencyBandwidth part included. */
Test(hpcc, random_ring_and_ping_pong, .timeout = 120)
{
    skip_without_capture();
    char *hpcc = g_find_program_in_path("hpcc");
    if (!hpcc)
        cr_skip_test("not tested: no hpcc on PATH (Debian's hpcc)");
    char *dir = g_dir_make_tmp("insee-trace-hpcc-XXXXXX", NULL), *inf = NULL,
         *path = g_build_filename(dir, "hpccinf.txt", NULL),
         *mem = g_build_filename(dir, "hpccmemf.txt", NULL);
    cr_assert(g_file_get_contents(INSEE_TEST_SOURCE_DIR "/tests/trace-capture/hpccinf.txt", &inf,
                                  NULL, NULL));
    cr_assert(g_file_set_contents(path, inf, -1, NULL));
    cr_assert(g_file_set_contents(mem, "Process=1\n", -1, NULL));
    capture_and_replay(dir, (const char *const[]){hpcc, NULL}, 0);
    remove_tree(dir);
    g_free(hpcc), g_free(dir), g_free(inf), g_free(path), g_free(mem);
}

/* LAMMPS's 3d Lennard-Jones melt, 20 steps instead of 250: every call it
   makes has a schedule (its MPI_Scan the linear one), so the trace is
   complete. */
Test(lammps, melt, .timeout = 120)
{
    skip_without_capture();
    char *lmp = g_find_program_in_path("lmp"), *in = NULL;
    if (!lmp)
        cr_skip_test("not tested: no lmp on PATH (Debian's lammps)");
    if (!g_file_get_contents("/usr/share/lammps/examples/melt/in.melt", &in, NULL, NULL))
        cr_skip_test("not tested: no /usr/share/lammps/examples/melt/in.melt (Debian's lammps-examples)");
    char *dir = g_dir_make_tmp("insee-trace-lammps-XXXXXX", NULL),
         *path = g_build_filename(dir, "in.melt", NULL);
    GRegex *run = g_regex_new("^run\\s+\\d+", G_REGEX_MULTILINE, 0, NULL);
    char *short_run = g_regex_replace_literal(run, in, -1, 0, "run 20", 0, NULL);
    cr_assert(strstr(short_run, "\nrun 20"));
    cr_assert(g_file_set_contents(path, short_run, -1, NULL));
    capture_and_replay(dir,
                       (const char *const[]){lmp, "-in", "in.melt", "-log", "none", "-screen",
                                             "none", NULL},
                       0);
    remove_tree(dir);
    g_regex_unref(run);
    g_free(lmp), g_free(in), g_free(dir), g_free(path), g_free(short_run);
}

/* ---- one program, simulated and traced ---- */

/* The events task t plays (its sends, receives and computes), in order. */
static char *events_of_task(const char *events, int t)
{
    GString *s = g_string_new(NULL);
    const char *end = events + strlen(events);
    for (const char *l = events, *nl; l < end; l = nl + 1) {
        nl = memchr(l, '\n', (size_t)(end - l));
        nl = nl ? nl : end;
        char kind;
        int a, b;
        if (sscanf(l, "%c %d %d", &kind, &a, &b) >= 2 && (kind == 'r' ? b : a) == t)
            g_string_append_c(g_string_append_len(s, l, nl - l), '\n');
    }
    return g_string_free(s, FALSE);
}

static int64_t replayed_completion(const char *dir, const char *trace)
{
    JsonParser *parser = json_parser_new();
    JsonObject *run = json_object_get_object_member(replay(dir, trace, "packet", parser), "run");
    cr_assert(json_object_get_boolean_member(run, "drained"));
    int64_t completion = json_object_get_int_member(run, "completion");
    g_object_unref(parser);
    return completion;
}

/* HPCC's ring (examples/mpi/hpcc_ring.c) compiled by insee-mpicc and run
   by insee-mpirun --trace with no computation, and compiled by Open MPI's
   mpicc and captured by insee-trace --compute none: every rank's events
   are the same, tags included, so both replays complete at one cycle. */
Test(compat, simulated_and_traced_programs_give_the_same_messages, .timeout = 120)
{
    skip_without_capture();
    if (!g_file_test(INSEE_TEST_REAL_RING, G_FILE_TEST_IS_EXECUTABLE))
        cr_skip_test("not tested: no %s (Open MPI's mpicc was not found)", INSEE_TEST_REAL_RING);
    char *dir = g_dir_make_tmp("insee-trace-compat-XXXXXX", NULL),
         *simulated = g_build_filename(dir, "simulated.fsin", NULL),
         *traced = g_build_filename(dir, "traced.fsin", NULL),
         *config = g_build_filename(INSEE_TEST_SOURCE_DIR, "examples", "mpi", "hpcc-ring.toml",
                                    NULL);
    char **env = g_environ_setenv(g_get_environ(), "INSEE_MPI_COMPUTE_SCALE", "0", TRUE);
    result sim = spawn(dir,
                       (char *[]){INSEE_TEST_MPIRUN, "--insee", INSEE_TEST_BIN, "-n",
                                  G_STRINGIFY(N), "--trace", simulated, config, "--",
                                  INSEE_TEST_SIM_RING, NULL},
                       env);
    cr_assert_eq(sim.status, 0, "insee-mpirun --trace:\n%s", sim.err);
    result real = capture(dir, traced, (const char *const[]){"--compute", "none", NULL},
                          (const char *const[]){INSEE_TEST_REAL_RING, NULL}, NULL);
    cr_assert_eq(real.status, 0, "insee-trace:\n%s", real.err);
    char *a = read_text(simulated), *b = read_text(traced);
    char *ea = events_of(a), *eb = events_of(b);
    cr_assert_gt(strlen(ea), 0);
    for (int t = 0; t < N; t++) {
        char *ta = events_of_task(ea, t), *tb = events_of_task(eb, t);
        cr_expect_str_eq(ta, tb, "rank %d's events differ", t);
        g_free(ta), g_free(tb);
    }
    cr_expect_eq(replayed_completion(dir, simulated), replayed_completion(dir, traced));
    result_free(&sim), result_free(&real);
    remove_tree(dir);
    g_strfreev(env);
    g_free(a), g_free(b), g_free(ea), g_free(eb);
    g_free(dir), g_free(simulated), g_free(traced), g_free(config);
}
