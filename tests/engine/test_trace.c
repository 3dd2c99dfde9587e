/* The trace plugin through the kernel: hand-written traces whose
 * completion time follows from the zero-load closed form (a message of P
 * packets sent at t over h free hops is consumed at t + h + P L - 1, its
 * receive completes the cycle after), the example ring, inject at will,
 * and traces that cannot finish ending with an error that names the task,
 * the line and what it waits for. */
#include <criterion/criterion.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "run_helpers.h"

#define L 16
#define PACKET_BYTES (L * 4) /* phit_bytes = 4 */

static char *trace_file(const char *text)
{
    char *path = NULL;
    int fd = g_file_open_tmp("insee-trace-XXXXXX.fsin", &path, NULL);
    cr_assert_geq(fd, 0);
    close(fd);
    cr_assert(g_file_set_contents(path, text, -1, NULL));
    return path;
}

/* A 4 x 4 mesh (node x + 4 y) with dimension-order routing, the trace at
   `path`, and extra [simulation] and [traffic] lines. */
static char *mesh_run(const char *path, const char *simulation, const char *traffic)
{
    return g_strdup_printf("[simulation]\npacket_phits = %d\n%s\n"
                           "[topology]\nplugin = \"mesh\"\ndims = [4, 4]\n"
                           "[router]\nplugin = \"dally\"\nvcs = 1\n"
                           "[traffic]\nplugin = \"trace\"\nfile = \"%s\"\n%s\n",
                           L, simulation, path, traffic);
}

/* Cycle at which a message sent at t, P packets over h free hops, is
   consumed. */
static uint64_t consumed(uint64_t t, uint64_t packets, uint64_t h)
{
    return t + h + packets * L - 1;
}

/* With cpu_scale = 2:
   - task 0 computes 50 (100 cycles), sends 4 packets to task 15 (6 hops:
     +X along row 0, then +Y up column 3), waits for task 15's answer, then
     for task 12's message (which is already there), computes 10;
   - task 15 waits, computes 20 (40 cycles), answers with 1 packet (6 hops,
     -X along row 3, -Y down column 0);
   - task 3 sends 10 packets to task 12 at once (6 hops: -X along row 0, +Y
     up column 0; more than its 8 packets of source buffers, so it is
     throttled); task 12 computes 30, receives them, sends 1 packet to task
     0 (3 hops down column 0), long before task 15's answer takes those
     links.
   No two messages share a link or a consumption port at the same time, so
   every message takes the closed form. */
static const char critical_path[] = "# the critical path runs 0 -> 15 -> 0\n"
                                    "c 0 50\n"
                                    "s 0 15 1 256\n"
                                    "r 15 0 2 64\n"
                                    "r 12 0 5 64\n"
                                    "c 0 10\n"
                                    "r 0 15 1 256\n"
                                    "c 15 20\n"
                                    "s 15 0 2 64\n"
                                    "# a side branch 3 -> 12 -> 0\n"
                                    "s 3 12 4 640\n"
                                    "c 12 30\n"
                                    "r 3 12 4 640\n"
                                    "s 12 0 5 64\n";

Test(trace, critical_path_completion_is_exact)
{
    char *path = trace_file(critical_path);
    char *toml = mesh_run(path, "", "cpu_scale = 2");
    insee_report r = run_toml(toml);
    uint64_t to15 = consumed(2 * 50, 256 / PACKET_BYTES, 6);
    uint64_t to0 = consumed(to15 + 1 + 2 * 20, 1, 6);
    uint64_t to12 = consumed(0, 640 / PACKET_BYTES, 6);
    uint64_t from12 = consumed(MAX(2 * 30, to12 + 1), 1, 3);
    cr_assert_lt(from12, to0, "task 12's message waits for its receive");
    uint64_t done = MAX(to0, from12) + 1 + 2 * 10; /* task 0's last event */
    cr_assert(r.causal && r.completed);
    cr_assert_eq(r.completion, done + 1, "completed after %" G_GUINT64_FORMAT
                 " cycles, closed form %" G_GUINT64_FORMAT, r.completion, done + 1);
    cr_assert_eq(r.cycles, r.completion);
    cr_assert_eq(r.total_delivered, 4 + 1 + 10 + 1);
    cr_assert_eq(r.hops, 4 * 6 + 1 * 6 + 10 * 6 + 1 * 3, "minimal paths");
    cr_assert_gt(r.source_stalls, 0, "task 3 was throttled");
    assert_all_delivered(&r);
    insee_report_clear(&r);
    g_free(toml);
    g_remove(path);
    g_free(path);
}

/* At will, the receives and computes are skipped: task 0's three messages
   of 2 packets to its neighbour leave at cycles 0, 1, 2 and follow each
   other over the link, so the last packet is consumed at 1 + 6 L - 1. */
Test(trace, at_will_ignores_receives_and_computes)
{
    char *path = trace_file("c 0 1000\ns 0 1 0 128\nr 1 0 9 64\ns 0 1 1 128\nc 0 500\n"
                            "s 0 1 2 128\nr 1 0 8 64\nc 1 7\n");
    char *toml = mesh_run(path, "", "mode = \"at-will\"");
    insee_report r = run_toml(toml);
    cr_assert(r.completed);
    cr_assert_eq(r.completion, consumed(0, 6, 1) + 1);
    cr_assert_eq(r.total_delivered, 6);
    assert_all_delivered(&r);
    insee_report_clear(&r);
    g_free(toml);
    g_remove(path);
    g_free(path);
}

/* The example shipped in examples/: a token twice around 8 tasks on a 4 x 2
   torus, 16-packet messages, each task computing 100 x 2 cycles before it
   passes the token on. Ring neighbours are 1 hop apart, except 3 -> 4 and
   7 -> 0 (2 hops). */
Test(trace, example_ring_completes_at_its_closed_form)
{
    char *text = NULL;
    cr_assert(g_file_get_contents(INSEE_TEST_SOURCE_DIR "/examples/trace-ring.toml", &text,
                                  NULL, NULL));
    char **parts = g_strsplit(text, "file = \"", 2);
    cr_assert_not_null(parts[1], "the example names its trace with file = \"...\"");
    char *toml = g_strconcat(parts[0], "file = \"" INSEE_TEST_SOURCE_DIR "/examples/", parts[1], NULL);
    insee_report r = run_toml(toml);
    uint64_t t = 200; /* task 0's first compute */
    for (int link = 0; link < 16; link++) {
        int from = link % 8;
        uint64_t h = from == 3 || from == 7 ? 2 : 1;
        uint64_t d = consumed(t, 1024 / PACKET_BYTES, h);
        t = d + 1 + (link < 15 ? 200 : 0); /* the next sender computes, then sends */
    }
    cr_assert(r.completed);
    cr_assert_eq(r.completion, t + 1, "completed after %" G_GUINT64_FORMAT
                 " cycles, closed form %" G_GUINT64_FORMAT, r.completion, t + 1);
    cr_assert_eq(r.total_delivered, 16 * 16);
    assert_all_delivered(&r);
    insee_report_clear(&r);
    g_free(toml);
    g_strfreev(parts);
    g_free(text);
}

/* Run `text` as a trace on the mesh with [simulation] `simulation`: the run
   must fail with a message containing `want` (its %s replaced by the
   trace's path) and `also`. */
static void expect_error(const char *text, const char *simulation, const char *want,
                         const char *also)
{
    char *path = trace_file(text);
    char *toml = mesh_run(path, simulation, "");
    char *msg = run_toml_error(toml);
    char *full = g_strdup_printf(want, path);
    cr_assert(strstr(msg, full), "%s\nshould contain\n%s", msg, full);
    cr_assert(strstr(msg, also), "%s\nshould contain\n%s", msg, also);
    g_free(full);
    g_free(msg);
    g_free(toml);
    g_remove(path);
    g_free(path);
}

/* Two tasks that each wait for the other first: nothing can happen, and
   the error names the first waiting task, its line and its message. */
Test(trace, deadlock_names_the_task_and_its_line)
{
    expect_error("# each waits for the other\nr 1 0 0 8\ns 0 1 0 8\nr 0 1 0 8\ns 1 0 0 8\n", "",
                 "task 0 waits at %s:2, its event 1 of 2, for a message from task 1 (tag 0, 8 "
                 "bytes); 2 of 2 tasks wait at a receive, 0 have finished",
                 "stuck");
}

/* A receive whose length differs from the message sent is never matched:
   the run ends once everything else is done, and says what did arrive. */
Test(trace, unmatched_receive_says_what_arrived)
{
    expect_error("s 0 5 3 100\nc 5 40\nr 0 5 3 64\n", "",
                 "task 5 waits at %s:3, its event 2 of 2, for a message from task 0 (tag 3, 64 "
                 "bytes); one from task 0 with tag 3 and 100 bytes has arrived; 1 of 6 tasks "
                 "wait at a receive, 5 have finished",
                 "stuck");
}

Test(trace, a_long_compute_stops_at_max_cycles)
{
    expect_error("c 0 1000000\n", "max_cycles = 1000",
                 "task 0 ends its last compute at cycle 1000000", "max_cycles = 1000");
}

/* The example ring gzipped (two members, as `cat a.gz b.gz` makes) runs as
   the plain one does; a gzip file cut short fails at load, saying so. */
Test(trace, a_gzipped_trace_runs_as_the_plain_one)
{
    char *text = NULL;
    size_t len = 0;
    cr_assert(g_file_get_contents(INSEE_TEST_SOURCE_DIR "/examples/traces/ring.fsin", &text, &len,
                                  NULL));
    char *gz = trace_file(""), *cut = trace_file("");
    gzFile f = gzopen(gz, "wb");
    cr_assert(f && gzwrite(f, text, (unsigned)(len / 2)) == (int)(len / 2) && gzclose(f) == Z_OK);
    f = gzopen(gz, "ab");
    cr_assert(f && gzwrite(f, text + len / 2, (unsigned)(len - len / 2)) == (int)(len - len / 2) &&
              gzclose(f) == Z_OK);
    char *plain = g_strdup(INSEE_TEST_SOURCE_DIR "/examples/traces/ring.fsin");
    char *a_toml = mesh_run(plain, "", ""), *b_toml = mesh_run(gz, "", "");
    insee_report a = run_toml(a_toml), b = run_toml(b_toml);
    cr_assert(a.completed && b.completed);
    cr_expect_eq(b.completion, a.completion);
    cr_expect_eq(b.total_delivered, a.total_delivered);
    char *bytes = NULL;
    size_t n = 0;
    cr_assert(g_file_get_contents(gz, &bytes, &n, NULL));
    cr_assert(g_file_set_contents(cut, bytes, (gssize)(n / 3), NULL));
    char *c_toml = mesh_run(cut, "", ""), *msg = run_toml_error(c_toml);
    cr_expect(strstr(msg, "its gzip data ends early"), "%s", msg);
    insee_report_clear(&a);
    insee_report_clear(&b);
    g_remove(gz), g_remove(cut);
    g_free(msg), g_free(c_toml), g_free(bytes), g_free(a_toml), g_free(b_toml), g_free(plain);
    g_free(gz), g_free(cut), g_free(text);
}

/* Bad files fail before the run, with the file and line. */
Test(trace, corrupt_trace_fails_at_load)
{
    expect_error("c 0 10\ns 0 1 2\n", "",
                 "%s:2: 's' needs 4 numbers ('s src dst tag bytes'), found 3", "");
    expect_error("c 16 1\n", "",
                 "%s needs 17 tasks (task 16 at line 1), the application has 16", "");
    expect_error("s 0 1 0 64 nic=2\ns 0 1 1 64 copy=three\n", "",
                 "%s:2: 'copy=three' is not a copy mode", "copy=zero or copy=two");
    expect_error("c 0 10\n\ns 0 1 1 64 nic=one\n", "", "%s:3: nic is not a number ('one')",
                 "nic=K");
    expect_error("s 0 1 1 64 nic=1 two\n", "", "%s:1: extra field 'two'",
                 "nic=K (its node's interface K, from 1) and copy=zero or copy=two");
}
