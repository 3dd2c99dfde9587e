/* The script runner (plugins/traffic/common/script_runner.c) on the mock
 * host: eager sends, receives matched by source, tag and length, early
 * arrivals kept, exact compute times, inject at will, what a stuck
 * workload says, and a workload of thousands of tasks with a million
 * messages waiting at once. The runner is compiled into this test (it is
 * hidden in the .so files that use it). */
#include <criterion/criterion.h>
#include <string.h>

#include "harness.h"
#include "script.h"

#define MAX_TASKS 4096

typedef struct rig {
    insee_kernel k;
    insee_host host;
    uint64_t wake_at[MAX_TASKS];
} rig;

/* A mock of `tasks` tasks, packets of 16 phits of 4 bytes (64 bytes). */
static void rig_init(rig *g, uint32_t tasks)
{
    memset(g, 0, sizeof *g);
    g->k.shape = (insee_shape){.nodes = tasks, .packet_phits = 16, .tasks = tasks};
    g->k.wake_at = g->wake_at;
    for (uint32_t t = 0; t < MAX_TASKS; t++)
        g->wake_at[t] = INSEE_NEVER;
    g->host = mock_host(&g->k);
}

static script_runner *runner(rig *g, script *s, bool causal, double cpu_scale)
{
    insee_error err = {0};
    script_runner *r = script_runner_new(s, &g->host, causal, "t.fsin", cpu_scale, &err);
    cr_assert_not_null(r, "script_runner_new: %s", err.message);
    return r;
}

/* emit() must send to dst with `packets` and set next. */
static insee_message expect_send(script_runner *r, uint32_t task, uint64_t now, uint32_t dst,
                                 uint32_t packets, uint64_t next)
{
    insee_message msg = {0};
    uint64_t n = 0;
    cr_assert(script_runner_emit(r, task, now, &msg, &n), "task %u sent nothing at %lu", task,
              (unsigned long)now);
    cr_assert_eq(msg.dst, dst);
    cr_assert_eq(msg.packets, packets);
    cr_assert_eq(n, next, "task %u at %lu: next %lu, expected %lu", task, (unsigned long)now,
                 (unsigned long)n, (unsigned long)next);
    return msg;
}

/* emit() must send nothing and set next. */
static void expect_quiet(script_runner *r, uint32_t task, uint64_t now, uint64_t next)
{
    insee_message msg = {0};
    uint64_t n = 0;
    cr_assert_not(script_runner_emit(r, task, now, &msg, &n), "task %u sent at %lu", task,
                  (unsigned long)now);
    cr_assert_eq(n, next, "task %u at %lu: next %lu, expected %lu", task, (unsigned long)now,
                 (unsigned long)n, (unsigned long)next);
}

Test(script_runner, sends_are_eager_and_cut_by_bytes)
{
    rig g;
    rig_init(&g, 3);
    script *s = script_new(3);
    script_send(s, 0, 1, 5, 65); /* 2 packets of 64 bytes */
    script_send(s, 0, 2, 6, 0);  /* an empty message still takes a packet */
    script_runner *r = runner(&g, s, true, 1.0);
    cr_assert_eq(script_runner_start(r, 0), 0);
    cr_assert_eq(script_runner_start(r, 1), INSEE_NEVER, "a task with no events never runs");
    cr_assert_eq(script_runner_start(r, 7), INSEE_NEVER, "a task beyond the script is idle");
    cr_assert_not(script_runner_finished(r));
    insee_message a = expect_send(r, 0, 0, 1, 2, 1);
    insee_message b = expect_send(r, 0, 1, 2, 1, INSEE_NEVER);
    /* A message carries its send's tag and exact length, the key of the
       receive it matches; 0 bytes (the kernel counts its packet). */
    cr_assert(a.tag == 5 && a.bytes == 65, "tag %lu, %lu bytes", (unsigned long)a.tag,
              (unsigned long)a.bytes);
    cr_assert(b.tag == 6 && b.bytes == 0, "tag %lu, %lu bytes", (unsigned long)b.tag,
              (unsigned long)b.bytes);
    cr_assert(script_runner_finished(r), "done once the last message is handed over");
    char buf[64];
    cr_assert_not(script_runner_describe_wait(r, buf, sizeof buf));
    script_runner_free(r);
}

/* A receive blocks; the delivery of its message at d wakes the task for
   d + 1, where the task goes on. */
Test(script_runner, receive_waits_and_is_woken)
{
    rig g;
    rig_init(&g, 2);
    script *s = script_new(2);
    script_send(s, 0, 1, 7, 64);
    script_recv(s, 1, 0, 7, 64);
    script_send(s, 1, 0, 8, 64);
    script_runner *r = runner(&g, s, true, 1.0);
    expect_quiet(r, 1, 0, INSEE_NEVER);
    insee_message m = expect_send(r, 0, 0, 1, 1, INSEE_NEVER);
    cr_assert_eq(g.wake_at[1], INSEE_NEVER);
    script_runner_delivered(r, 0, &m, 50);
    cr_assert_eq(g.wake_at[1], 51);
    expect_send(r, 1, 51, 0, 1, INSEE_NEVER);
    cr_assert(script_runner_finished(r));
    script_runner_free(r);
}

/* Only the same source, tag and byte length match (60 and 64 bytes are one
   packet each, yet differ); messages that arrive before their receive, in
   any order, are kept and taken when asked for. */
Test(script_runner, matches_source_tag_and_length)
{
    rig g;
    rig_init(&g, 3);
    script *s = script_new(3);
    script_send(s, 0, 2, 8, 64);
    script_send(s, 0, 2, 7, 60);
    script_send(s, 0, 2, 7, 64);
    script_send(s, 1, 2, 7, 64);
    script_recv(s, 2, 0, 7, 64);
    script_recv(s, 2, 1, 7, 64);
    script_recv(s, 2, 0, 7, 60);
    script_recv(s, 2, 0, 8, 64);
    script_runner *r = runner(&g, s, true, 1.0);
    insee_message m8 = expect_send(r, 0, 0, 2, 1, 1);
    insee_message m60 = expect_send(r, 0, 1, 2, 1, 2);
    insee_message m64 = expect_send(r, 0, 2, 2, 1, INSEE_NEVER);
    insee_message m1 = expect_send(r, 1, 0, 2, 1, INSEE_NEVER);
    expect_quiet(r, 2, 0, INSEE_NEVER);
    script_runner_delivered(r, 1, &m1, 10);
    script_runner_delivered(r, 0, &m8, 11);
    script_runner_delivered(r, 0, &m60, 12);
    cr_assert_eq(g.wake_at[2], INSEE_NEVER, "a near miss must not wake the receiver");
    script_runner_delivered(r, 0, &m64, 13);
    cr_assert_eq(g.wake_at[2], 14);
    expect_quiet(r, 2, 14, INSEE_NEVER); /* all four receives at once: done */
    cr_assert(script_runner_finished(r));
    script_runner_free(r);
}

/* A message delivered in the cycle a task reaches its receive completes it
   the next cycle, as if the task had been waiting: the timing does not
   depend on the order of deliveries and emits within a cycle. */
Test(script_runner, arrival_counts_from_the_next_cycle)
{
    rig g;
    rig_init(&g, 2);
    script *s = script_new(2);
    script_send(s, 0, 1, 0, 64);
    script_send(s, 0, 1, 0, 64);
    script_compute(s, 1, 10);
    script_recv(s, 1, 0, 0, 64);
    script_recv(s, 1, 0, 0, 64);
    script_send(s, 1, 0, 0, 64);
    script_runner *r = runner(&g, s, true, 1.0);
    insee_message a = expect_send(r, 0, 0, 1, 1, 1);
    insee_message b = expect_send(r, 0, 1, 1, 1, INSEE_NEVER);
    expect_quiet(r, 1, 0, 10);
    script_runner_delivered(r, 0, &a, 9);
    script_runner_delivered(r, 0, &b, 10);
    /* At 10 the first is usable, the second only from 11. */
    expect_quiet(r, 1, 10, 11);
    cr_assert_eq(g.wake_at[1], INSEE_NEVER, "a running task is not woken");
    expect_send(r, 1, 11, 0, 1, INSEE_NEVER);
    script_runner_free(r);
}

/* A compute of c holds the task round(c x cpu_scale) cycles; zero-length
   computes take no time. */
Test(script_runner, compute_times_are_exact)
{
    rig g;
    rig_init(&g, 2);
    script *s = script_new(2);
    script_compute(s, 0, 10); /* 25 cycles */
    script_send(s, 0, 1, 0, 64);
    script_compute(s, 0, 0);
    script_compute(s, 0, 3); /* 7.5: 8 cycles */
    script_send(s, 0, 1, 1, 64);
    script_compute(s, 0, 1); /* 2.5: 3 cycles, then done */
    script_runner *r = runner(&g, s, true, 2.5);
    cr_assert_eq(script_runner_start(r, 0), 0);
    expect_quiet(r, 0, 0, 25);
    expect_send(r, 0, 25, 1, 1, 26);
    expect_quiet(r, 0, 26, 34);
    expect_send(r, 0, 34, 1, 1, 35);
    expect_quiet(r, 0, 35, 38);
    cr_assert_not(script_runner_finished(r), "the last compute is still running");
    expect_quiet(r, 0, 38, INSEE_NEVER);
    cr_assert(script_runner_finished(r));
    script_runner_free(r);
}

/* Inject at will: the sends only, one per cycle, receives and computes
   ignored (and deliveries wake nobody). */
Test(script_runner, at_will_sends_only)
{
    rig g;
    rig_init(&g, 3);
    script *s = script_new(3);
    script_recv(s, 0, 1, 0, 64);
    script_compute(s, 0, 100);
    script_send(s, 0, 1, 0, 64);
    script_recv(s, 0, 2, 0, 64);
    script_compute(s, 0, 100);
    script_send(s, 0, 2, 0, 200);
    script_recv(s, 0, 1, 9, 64);
    script_recv(s, 1, 0, 0, 64);
    script_compute(s, 2, 5);
    script_runner *r = runner(&g, s, false, 1.0);
    cr_assert_eq(script_runner_start(r, 0), 0);
    cr_assert_eq(script_runner_start(r, 1), INSEE_NEVER, "no sends: nothing to do");
    cr_assert_eq(script_runner_start(r, 2), INSEE_NEVER);
    insee_message m = expect_send(r, 0, 0, 1, 1, 1);
    expect_send(r, 0, 1, 2, 4, INSEE_NEVER);
    script_runner_delivered(r, 0, &m, 5);
    cr_assert_eq(g.wake_at[1], INSEE_NEVER);
    cr_assert(script_runner_finished(r));
    script_runner_free(r);
}

/* describe_wait names the first task waiting at a receive, where (file and
   line, or the event in a generated program), for what, and what arrived
   from that source instead. */
Test(script_runner, describe_wait_names_the_task)
{
    rig g;
    rig_init(&g, 4);
    script *s = script_new(4);
    script_add(s, 1, &(script_event){.op = SCRIPT_SEND, .peer = 3, .tag = 7, .bytes = 32, .line = 3});
    script_add(s, 3, &(script_event){.op = SCRIPT_COMPUTE, .cycles = 0, .line = 11});
    script_add(s, 3, &(script_event){.op = SCRIPT_RECV, .peer = 1, .tag = 7, .bytes = 64, .line = 12});
    script_add(s, 2, &(script_event){.op = SCRIPT_RECV, .peer = 0, .tag = 1, .bytes = 8, .line = 13});
    script_runner *r = runner(&g, s, true, 1.0);
    insee_message m = expect_send(r, 1, 0, 3, 1, INSEE_NEVER);
    script_runner_delivered(r, 1, &m, 20);
    expect_quiet(r, 3, 0, INSEE_NEVER);
    char buf[512];
    cr_assert(script_runner_describe_wait(r, buf, sizeof buf));
    /* Task 2 has not run yet (it is due): task 3 is the first that waits. */
    cr_assert_str_eq(buf, "task 3 waits at t.fsin:12, its event 2 of 2, for a message from task 1 "
                          "(tag 7, 64 bytes); one from task 1 with tag 7 and 32 bytes has "
                          "arrived; 1 of 4 tasks wait at a receive, 2 have finished");
    expect_quiet(r, 2, 0, INSEE_NEVER);
    cr_assert(script_runner_describe_wait(r, buf, 40));
    cr_assert_eq(strlen(buf), 39, "cut to the buffer, still a string");
    cr_assert(!strncmp(buf, "task 2 waits at t.fsin:13, its event 1 o", 39));
    script_runner_free(r);

    /* A generated program (no lines) is named by its events. */
    s = script_new(2);
    script_recv(s, 1, 0, 4, 16);
    insee_error err = {0};
    r = script_runner_new(s, &g.host, true, "alltoall", 1.0, &err);
    cr_assert_not_null(r);
    expect_quiet(r, 1, 0, INSEE_NEVER);
    cr_assert(script_runner_describe_wait(r, buf, sizeof buf));
    cr_assert_str_eq(buf, "task 1 waits at its event 1 of 1 in alltoall, for a message from "
                          "task 0 (tag 4, 16 bytes); 1 of 2 tasks wait at a receive, 1 have "
                          "finished");
    script_runner_free(r);
}

/* A task computing or due (a run cut at max_cycles) is described by its
   next event. */
Test(script_runner, describe_wait_of_a_running_task)
{
    rig g;
    rig_init(&g, 1);
    script *s = script_new(1);
    script_add(s, 0, &(script_event){.op = SCRIPT_COMPUTE, .cycles = 1000, .line = 2});
    script_add(s, 0, &(script_event){.op = SCRIPT_COMPUTE, .cycles = 5, .line = 3});
    script_runner *r = runner(&g, s, true, 1.0);
    expect_quiet(r, 0, 0, 1000);
    char buf[256];
    cr_assert(script_runner_describe_wait(r, buf, sizeof buf));
    cr_assert_str_eq(buf, "task 0 is due at cycle 1000 at t.fsin:3, its event 2 of 2; 0 of 1 "
                          "tasks wait at a receive, 0 have finished");
    expect_quiet(r, 0, 1000, 1005);
    cr_assert(script_runner_describe_wait(r, buf, sizeof buf));
    cr_assert_str_eq(buf, "task 0 ends its last compute at cycle 1005; 0 of 1 tasks wait at a "
                          "receive, 0 have finished");
    script_runner_free(r);
}

Test(script_runner, refuses_what_cannot_run)
{
    rig g;
    rig_init(&g, 4);
    insee_error err = {0};
    script *s = script_new(6);
    script_add(s, 0, &(script_event){.op = SCRIPT_SEND, .peer = 5, .line = 9});
    script_add(s, 5, &(script_event){.op = SCRIPT_RECV, .peer = 0, .line = 4});
    cr_assert_null(script_runner_new(s, &g.host, true, "big.fsin", 1.0, &err));
    cr_assert_str_eq(err.message,
                     "big.fsin needs 6 tasks (task 5 at line 4), the application has 4; run it "
                     "on a network of at least 6 nodes, or give its [[application]] tasks = 6 "
                     "(tasks_per_node puts several on a node)");

    s = script_new(2);
    script_send(s, 0, 3, 0, 1); /* a generator's bug: a peer beyond the script */
    cr_assert_null(script_runner_new(s, &g.host, true, "gen", 1.0, &err));
    cr_assert_str_eq(err.message, "task 0 at its event 1 of 1 in gen names task 3, but gen has "
                                  "2 tasks");

    s = script_new(1);
    script_compute(s, 0, UINT64_C(1) << 61);
    cr_assert_null(script_runner_new(s, &g.host, true, "t", 2.0, &err));
    cr_assert(strstr(err.message, "longer than 2^62 cycles"), "%s", err.message);
    s = script_new(1);
    script_compute(s, 0, (UINT64_C(1) << 62) - 1);
    script_runner *r = script_runner_new(s, &g.host, true, "t", 1.0, &err);
    cr_assert_not_null(r, "the longest compute is accepted: %s", err.message);
    expect_quiet(r, 0, 0, (UINT64_C(1) << 62) - 1);
    script_runner_free(r);

    s = script_new(2);
    script_send(s, 0, 1, 0, UINT64_C(64) << 32); /* 2^32 packets */
    cr_assert_null(script_runner_new(s, &g.host, true, "t", 1.0, &err));
    cr_assert(strstr(err.message, "more packets than the kernel counts"), "%s", err.message);
}

/* 4096 tasks each send 256 messages, one per cycle, to the next 256 tasks,
   then receive theirs in the reverse order. With a latency longer than the
   sends, every task is waiting when the first message lands: about a
   million messages wait in the table at once and leave it in an order
   unrelated to their arrival. Task t's first receive wants the last
   message of its farthest sender, so each task is woken exactly once, the
   cycle after that message, and then takes all of them at once. */
Test(script_runner, thousands_of_tasks_complete)
{
    enum { N = 4096, M = 256, LATENCY = 1000 };
    static rig g;
    rig_init(&g, N);
    script *s = script_new(N);
    for (uint32_t t = 0; t < N; t++) {
        for (uint32_t j = 0; j < M; j++)
            script_send(s, t, (t + 1 + j) % N, j, 100);
        for (uint32_t j = M; j-- > 0;)
            script_recv(s, t, (t + N - 1 - j) % N, j, 100);
    }
    script_runner *r = runner(&g, s, true, 1.0);
    insee_message *sent = malloc(sizeof *sent * N * M);
    cr_assert_not_null(sent);
    for (uint32_t j = 0; j < M; j++)
        for (uint32_t t = 0; t < N; t++)
            sent[(size_t)j * N + t] = expect_send(r, t, j, (t + 1 + j) % N, 2, j + 1);
    for (uint32_t t = 0; t < N; t++)
        expect_quiet(r, t, M, INSEE_NEVER);
    for (uint32_t j = 0; j < M; j++)
        for (uint32_t t = 0; t < N; t++) {
            script_runner_delivered(r, t, &sent[(size_t)j * N + t], j + LATENCY);
            uint32_t dst = sent[(size_t)j * N + t].dst;
            cr_assert_eq(g.wake_at[dst], j == M - 1 ? M + LATENCY : INSEE_NEVER,
                         "task %u woken at %lu after message %u", dst,
                         (unsigned long)g.wake_at[dst], j);
        }
    cr_assert_not(script_runner_finished(r));
    for (uint32_t t = 0; t < N; t++)
        expect_quiet(r, t, M + LATENCY, INSEE_NEVER);
    cr_assert(script_runner_finished(r));
    free(sent);
    script_runner_free(r);
}
