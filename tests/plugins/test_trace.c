/* The trace plugin: its parser (trace_parse.c, compiled in) on text in
 * memory — a good file event by event, and every kind of corruption with
 * its line — and the .so on files (missing, a directory, too many tasks,
 * the example ring) through its vtable on the mock host. */
#include <criterion/criterion.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "trace_parse.h"

static script *parse(const char *text, uint32_t max_tasks, insee_error *err)
{
    return trace_parse(text, strlen(text), "t.fsin", max_tasks, err);
}

static void assert_event(const script *s, uint32_t task, size_t i, script_event want)
{
    cr_assert_lt(i, script_length(s, task), "task %u has %zu events", task,
                 script_length(s, task));
    const script_event *e = &script_events(s, task)[i];
    cr_assert(e->op == want.op && e->peer == want.peer && e->line == want.line &&
                  e->tag == want.tag && e->bytes == want.bytes && e->cycles == want.cycles,
              "task %u event %zu: op %u peer %u line %u tag %lu bytes %lu cycles %lu", task, i,
              e->op, e->peer, e->line, (unsigned long)e->tag, (unsigned long)e->bytes,
              (unsigned long)e->cycles);
}

Test(trace_parse, good_file_event_by_event)
{
    const char *text = "# a comment line\n"
                       "\n"
                       "s 0 2 7 100\n"
                       "  r 0 2 7 100   # a comment after an event\n"
                       "c 2 50\r\n"
                       "\tc\t0\t5\n"
                       "s 2 0 18446744073709551615 0#tight comment\n"
                       "r 2 0 18446744073709551615 0"; /* no final newline */
    insee_error err = {0};
    script *s = parse(text, 3, &err);
    cr_assert_not_null(s, "%s", err.message);
    cr_assert_eq(script_tasks(s), 3, "1 + the largest task id");
    cr_assert_eq(script_length(s, 0), 3);
    cr_assert_eq(script_length(s, 1), 0, "a task the trace never names is idle");
    cr_assert_eq(script_length(s, 2), 3);
    cr_assert_eq(script_messages(s), 2);
    assert_event(s, 0, 0, (script_event){.op = SCRIPT_SEND, .peer = 2, .line = 3, .tag = 7, .bytes = 100});
    assert_event(s, 0, 1, (script_event){.op = SCRIPT_COMPUTE, .line = 6, .cycles = 5});
    assert_event(s, 0, 2, (script_event){.op = SCRIPT_RECV, .peer = 2, .line = 8, .tag = UINT64_MAX});
    assert_event(s, 2, 0, (script_event){.op = SCRIPT_RECV, .peer = 0, .line = 4, .tag = 7, .bytes = 100});
    assert_event(s, 2, 1, (script_event){.op = SCRIPT_COMPUTE, .line = 5, .cycles = 50});
    assert_event(s, 2, 2, (script_event){.op = SCRIPT_SEND, .peer = 0, .line = 7, .tag = UINT64_MAX});
    script_free(s);
}

/* A send's trailing nic= and copy= in either order, after blanks or right
   before a comment; a send without them leaves both to the kernel. */
Test(trace_parse, a_send_names_its_interface_and_copy)
{
    const char *text = "s 0 1 7 100 nic=2 copy=two\n"
                       "s 0 1 8 100\tcopy=zero   nic=65535#interface and copy\n"
                       "s 1 0 9 100 copy=two\n"
                       "s 1 0 9 100\n";
    insee_error err = {0};
    script *s = parse(text, 2, &err);
    cr_assert_not_null(s, "%s", err.message);
    const script_event *a = script_events(s, 0), *b = script_events(s, 1);
    cr_assert(a[0].nic == 2 && a[0].copy == INSEE_COPY_TWO);
    cr_assert(a[1].nic == 65535 && a[1].copy == INSEE_COPY_ZERO);
    cr_assert(b[0].nic == 0 && b[0].copy == INSEE_COPY_TWO);
    cr_assert(b[1].nic == 0 && b[1].copy == INSEE_COPY_DEFAULT);
    assert_event(s, 0, 1, (script_event){.op = SCRIPT_SEND, .peer = 1, .line = 2, .tag = 8, .bytes = 100});
    script_free(s);
}

typedef struct bad_case {
    const char *text;
    const char *message; /* the whole error */
} bad_case;

static const bad_case bad[] = {
    {"s 0 1 2 3\nx 1 2\n",
     "t.fsin:2: unknown event 'x'; a line is 's src dst tag bytes', 'r src dst tag bytes', "
     "'c task time', blank, or a '#' comment"},
    {"send 0 1 2 3\n",
     "t.fsin:1: unknown event 'send'; a line is 's src dst tag bytes', 'r src dst tag bytes', "
     "'c task time', blank, or a '#' comment"},
    {"\n\nc 0\n", "t.fsin:3: 'c' needs 2 numbers ('c task time'), found 1"},
    {"r 0 1 2 # bytes forgotten\n", "t.fsin:1: 'r' needs 4 numbers ('r src dst tag bytes'), found 3"},
    {"s\n", "t.fsin:1: 's' needs 4 numbers ('s src dst tag bytes'), found 0"},
    {"c 0 1\ns 0 1 2 3 4\n",
     "t.fsin:2: extra field '4' after 's src dst tag bytes'; a send may end with nic=K (its "
     "node's interface K, from 1) and copy=zero or copy=two, one event per line"},
    {"s 0 1 2 3 nic=x\n",
     "t.fsin:1: nic is not a number ('x'); write a non-negative decimal integer ('s src dst tag "
     "bytes nic=K')"},
    {"s 0 1 2 3 nic=\n",
     "t.fsin:1: 'nic=' names no interface; write nic=K with K from 1 to 65535, the sending "
     "node's interface K (without nic=, the node's turn)"},
    {"s 0 1 2 3 nic=0\n",
     "t.fsin:1: 'nic=0' names no interface; write nic=K with K from 1 to 65535, the sending "
     "node's interface K (without nic=, the node's turn)"},
    {"s 0 1 2 3 nic=65536\n",
     "t.fsin:1: 'nic=65536' names no interface; write nic=K with K from 1 to 65535, the sending "
     "node's interface K (without nic=, the node's turn)"},
    {"s 0 1 2 3 nic=1 nic=2\n",
     "t.fsin:1: nic given twice ('nic=2'); a send leaves by one interface"},
    {"s 0 1 2 3 copy=three\n",
     "t.fsin:1: 'copy=three' is not a copy mode; write copy=zero or copy=two"},
    {"s 0 1 2 3 copy=two copy=zero\n",
     "t.fsin:1: copy given twice ('copy=zero'); a send has one copy mode"},
    {"s 0 1 2 3 nic=1 zero\n",
     "t.fsin:1: extra field 'zero' after 's src dst tag bytes'; a send may end with nic=K (its "
     "node's interface K, from 1) and copy=zero or copy=two, one event per line"},
    {"r 0 1 2 3 nic=1\n",
     "t.fsin:1: extra field 'nic=1' after 'r src dst tag bytes'; one event per line"},
    {"c 0 1 c 1 2\n", "t.fsin:1: extra field 'c' after 'c task time'; one event per line"},
    {"r 0 a 1 1\n",
     "t.fsin:1: dst is not a number ('a'); write a non-negative decimal integer ('r src dst tag "
     "bytes')"},
    {"c 0 12abc\n",
     "t.fsin:1: time is not a number ('12abc'); write a non-negative decimal integer ('c task "
     "time')"},
    {"c 0 1.5\n",
     "t.fsin:1: time is not a number ('1.5'); write a non-negative decimal integer ('c task "
     "time')"},
    {"c 0 -5\n",
     "t.fsin:1: time is negative ('-5'); ids, tags, lengths and times are non-negative integers"},
    {"s -1 0 0 0\n",
     "t.fsin:1: src is negative ('-1'); ids, tags, lengths and times are non-negative integers"},
    {"s 0 1 2 18446744073709551616\n",
     "t.fsin:1: bytes is too large ('18446744073709551616'; at most 18446744073709551615)"},
    {"s 0 1 99999999999999999999999999999 1\n",
     "t.fsin:1: tag is too large ('999999999999999999999999...'; at most 18446744073709551615)"},
    {"c 4294967295 1\n", "t.fsin:1: task 4294967295 is too large (tasks are numbered from 0 to "
                         "4294967294)"},
    {"c 0 1\nc\x01 2\n",
     "t.fsin:2: unknown event 'c?'; a line is 's src dst tag bytes', 'r src dst tag bytes', "
     "'c task time', blank, or a '#' comment"},
    {"", "t.fsin: no events in 0 line(s); a trace needs at least one 's', 'r' or 'c' line"},
    {"# only\n\n   \n# comments\n",
     "t.fsin: no events in 4 line(s); a trace needs at least one 's', 'r' or 'c' line"},
    {"c 0 1\nc 7 1\ns 2 7 0 0\ns 1 5 0 0\n",
     "t.fsin needs 8 tasks (task 7 at line 2), the application has 4; run it on a network of at "
     "least 8 nodes, or give its [[application]] tasks = 8 (tasks_per_node puts several on a "
     "node)"},
};

Test(trace_parse, each_corruption_names_its_line)
{
    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        insee_error err = {0};
        script *s = parse(bad[i].text, 4, &err);
        cr_assert_null(s, "case %zu parsed", i);
        cr_assert_str_eq(err.message, bad[i].message, "case %zu", i);
        cr_assert_neq(err.code, 0);
    }
}

/* NUL bytes are bytes like any other: the text is taken by length. */
Test(trace_parse, nul_bytes_and_long_lines)
{
    insee_error err = {0};
    static const char nul[] = "c 0 1\nc 0 \0\n";
    cr_assert_null(trace_parse(nul, sizeof nul - 1, "t.fsin", 4, &err));
    cr_assert_str_eq(err.message, "t.fsin:2: time is not a number ('?'); write a non-negative "
                                  "decimal integer ('c task time')");

    /* A line of exactly TRACE_MAX_LINE characters is read; one more is not. */
    GString *text = g_string_new("c 0 1\nc 0 ");
    while (text->len < 6 + TRACE_MAX_LINE)
        g_string_append_c(text, '1');
    g_string_truncate(text, 6 + TRACE_MAX_LINE - 1);
    g_string_append(text, " \n");
    cr_assert_null(trace_parse(text->str, text->len, "t.fsin", 4, &err),
                   "a number of 4000 digits is too large, but the line is read");
    cr_assert(strstr(err.message, "t.fsin:2: time is too large"), "%s", err.message);
    g_string_truncate(text, 6 + TRACE_MAX_LINE);
    g_string_append(text, "1\n");
    cr_assert_null(trace_parse(text->str, text->len, "t.fsin", 4, &err));
    cr_assert_str_eq(err.message, "t.fsin:2: line longer than 4096 characters; is this an FSIN "
                                  "trace?");
    g_string_free(text, TRUE);
}

/* ---- the plugin ---------------------------------------------------------- */

typedef struct plugin_rig {
    insee_kernel k;
    insee_host host;
    uint64_t wake_at[16];
    const insee_traffic_vtable *vt;
} plugin_rig;

static void plugin_rig_init(plugin_rig *g, uint32_t tasks)
{
    memset(g, 0, sizeof *g);
    g->k.shape = (insee_shape){.nodes = tasks, .packet_phits = 16, .tasks = tasks};
    for (size_t t = 0; t < G_N_ELEMENTS(g->wake_at); t++)
        g->wake_at[t] = INSEE_NEVER;
    g->k.wake_at = g->wake_at;
    g->host = mock_host(&g->k);
    g->vt = load_plugin("traffic", "trace")->vtable;
}

static void *create(plugin_rig *g, const char *path, int mode, double cpu_scale,
                    insee_error *err)
{
    insee_value params[3] = {
        {.type = INSEE_PARAM_STRING, .s = path},
        value_enum(mode, mode ? "at-will" : "causal"),
        value_double(cpu_scale),
    };
    return g->vt->create(&g->host, params, err);
}

static char *temp_file(const char *text)
{
    char *path = NULL;
    int fd = g_file_open_tmp("trace-XXXXXX.fsin", &path, NULL);
    cr_assert_geq(fd, 0);
    close(fd);
    cr_assert(g_file_set_contents(path, text, -1, NULL));
    return path;
}

Test(trace_plugin, bad_files_fail_in_create)
{
    plugin_rig g;
    plugin_rig_init(&g, 4);
    insee_error err = {0};
    cr_assert_null(create(&g, "/nonexistent/t.fsin", 0, 1, &err));
    cr_assert_str_eq(err.message, "trace: cannot read '/nonexistent/t.fsin': No such file or "
                                  "directory; check the traffic's file parameter (a relative "
                                  "path in an experiment file is read from that file's "
                                  "directory)");
    char *dir = g_dir_make_tmp("trace-XXXXXX", NULL);
    cr_assert_null(create(&g, dir, 0, 1, &err));
    cr_assert(strstr(err.message, "': it is a directory;"), "%s", err.message);
    cr_assert_null(create(&g, "/dev/null", 0, 1, &err));
    cr_assert(strstr(err.message, "'/dev/null': it is a device or a socket, not a regular file"), "%s", err.message);
    g_rmdir(dir);
    g_free(dir);

    char *path = temp_file("c 0 10\n\nr 1 0 0 x\n");
    cr_assert_null(create(&g, path, 0, 1, &err));
    char *want = g_strdup_printf("%s:3: bytes is not a number ('x'); write a non-negative "
                                 "decimal integer ('r src dst tag bytes')", path);
    cr_assert_str_eq(err.message, want);
    g_free(want);
    cr_assert(g_file_set_contents(path, "s 0 15 0 64\n", -1, NULL));
    cr_assert_null(create(&g, path, 1, 1, &err));
    want = g_strdup_printf("%s needs 16 tasks (task 15 at line 1), the application has 4; run "
                           "it on a network of at least 16 nodes, or give its [[application]] "
                           "tasks = 16 (tasks_per_node puts several on a node)", path);
    cr_assert_str_eq(err.message, want);
    g_free(want);
    g_remove(path);
    g_free(path);
}

/* Through the vtable: fewer tasks than the application (the others idle),
   cpu_scale, a send's interface and copy, matching and wake-up, finished,
   describe_wait with the file's line. */
Test(trace_plugin, plays_a_file_through_its_vtable)
{
    plugin_rig g;
    plugin_rig_init(&g, 4);
    char *path = temp_file("c 0 3\n"
                           "s 0 1 9 200 copy=two nic=3\n"
                           "r 0 1 9 200\n"
                           "r 0 1 1 1   # never sent\n");
    insee_error err = {0};
    void *self = create(&g, path, 0, 4, &err);
    cr_assert_not_null(self, "%s", err.message);
    insee_rng rng;
    insee_rng_init(&rng, 1, 0);
    cr_assert_eq(g.vt->start(self, 0, &rng), 0);
    cr_assert_eq(g.vt->start(self, 1, &rng), 0);
    cr_assert_eq(g.vt->start(self, 2, &rng), INSEE_NEVER, "beyond the trace's 2 tasks: idle");
    insee_message msg;
    uint64_t next;
    cr_assert_not(g.vt->emit(self, 0, 0, &rng, &msg, &next));
    cr_assert_eq(next, 12, "3 time units x cpu_scale 4");
    cr_assert_not(g.vt->emit(self, 1, 0, &rng, &msg, &next));
    cr_assert_eq(next, INSEE_NEVER);
    cr_assert(g.vt->emit(self, 0, 12, &rng, &msg, &next));
    cr_assert_eq(msg.dst, 1);
    cr_assert_eq(msg.packets, 4, "200 bytes in packets of 64");
    cr_assert(msg.nic == 3 && msg.copy == INSEE_COPY_TWO, "the send's own interface and copy");
    cr_assert_eq(next, INSEE_NEVER);
    g.vt->delivered(self, 0, &msg, 80);
    cr_assert_eq(g.wake_at[1], 81);
    cr_assert_not(g.vt->emit(self, 1, 81, &rng, &msg, &next));
    cr_assert_not(g.vt->finished(self));
    char buf[256];
    cr_assert(g.vt->describe_wait(self, buf, sizeof buf));
    char *want = g_strdup_printf("task 1 waits at %s:4, its event 2 of 2, for a message from "
                                 "task 0 (tag 1, 1 bytes); 1 of 2 tasks wait at a receive, 1 "
                                 "have finished", path);
    cr_assert_str_eq(buf, want);
    g_free(want);
    g.vt->destroy(self);
    g_remove(path);
    g_free(path);
}

/* The example shipped with the repository parses and fits 8 tasks. */
Test(trace_plugin, example_ring)
{
    plugin_rig g;
    plugin_rig_init(&g, 8);
    insee_error err = {0};
    void *self = create(&g, INSEE_TEST_SOURCE_DIR "/examples/traces/ring.fsin", 0, 1, &err);
    cr_assert_not_null(self, "%s", err.message);
    g.vt->destroy(self);
    plugin_rig_init(&g, 7);
    cr_assert_null(create(&g, INSEE_TEST_SOURCE_DIR "/examples/traces/ring.fsin", 0, 1, &err));
    cr_assert(strstr(err.message, "needs 8 tasks"), "%s", err.message);
}
