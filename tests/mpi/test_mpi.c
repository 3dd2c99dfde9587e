/* libinsee-mpi through insee-mpirun, end to end: the examples and fixture
 * programs run as ranks through real simulations.
 *
 * Timing closed forms (docs/mpi.md, "Time"). A message sent at client time
 * t is queued at network cycle q = floor(t F / S); at zero contention its
 * last packet is consumed at a = q + h + L - 1 + (p - 1) L (h hops, p
 * packets of L = 16 phits: 64 bytes each); it is handed over at the first
 * boundary after a, cycle (floor(a / F) + 1) F, which is client time
 * (floor(a / F) + 1) S; a receiver waiting for it has its clock moved
 * there. The parallel model queues it at the next slice start instead,
 * q = (floor(t / S) + 1) F. */
#include <criterion/criterion.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define L 16u

typedef struct result {
    int status; /* exit status, or 128 + signal */
    char *out, *err;
} result;

/* The rank map insee-mpirun gets (--map), when not NULL, and its
   --ranks-per-node, when not 0. */
static const char *rank_map;
static int ranks_per_node;
/* insee-mpirun's --trace FILE, when not NULL. */
static const char *trace_to;

/* insee-mpirun -n N [--map M] [--set S ...] examples/mpi/CONFIG -- PROGRAM ARGS... */
static GPtrArray *mpirun_argv(int n, const char *config, const char *const *sets,
                              const char *program, const char *const *args)
{
    GPtrArray *argv = g_ptr_array_new_with_free_func(g_free);
    g_ptr_array_add(argv, g_strdup(INSEE_TEST_MPIRUN));
    g_ptr_array_add(argv, g_strdup("--insee"));
    g_ptr_array_add(argv, g_strdup(INSEE_TEST_BIN));
    g_ptr_array_add(argv, g_strdup("-n"));
    g_ptr_array_add(argv, g_strdup_printf("%d", n));
    if (rank_map) {
        g_ptr_array_add(argv, g_strdup("--map"));
        g_ptr_array_add(argv, g_strdup(rank_map));
    }
    if (trace_to) {
        g_ptr_array_add(argv, g_strdup("--trace"));
        g_ptr_array_add(argv, g_strdup(trace_to));
    }
    if (ranks_per_node) {
        g_ptr_array_add(argv, g_strdup("--ranks-per-node"));
        g_ptr_array_add(argv, g_strdup_printf("%d", ranks_per_node));
    }
    for (; sets && *sets; sets++) {
        g_ptr_array_add(argv, g_strdup("--set"));
        g_ptr_array_add(argv, g_strdup(*sets));
    }
    g_ptr_array_add(argv, g_build_filename(INSEE_TEST_SOURCE_DIR, "examples", "mpi", config, NULL));
    g_ptr_array_add(argv, g_strdup("--"));
    g_ptr_array_add(argv, g_strdup(program));
    for (; args && *args; args++)
        g_ptr_array_add(argv, g_strdup(*args));
    g_ptr_array_add(argv, NULL);
    return argv;
}

static result mpirun(int n, const char *config, const char *const *sets, const char *program,
                     const char *const *args)
{
    GPtrArray *argv = mpirun_argv(n, config, sets, program, args);
    result r = {0};
    GError *e = NULL;
    int wait;
    cr_assert(g_spawn_sync(NULL, (char **)argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, &r.out,
                           &r.err, &wait, &e), "%s", e ? e->message : "");
    r.status = WIFEXITED(wait) ? WEXITSTATUS(wait) : 128 + WTERMSIG(wait);
    g_ptr_array_free(argv, TRUE);
    return r;
}

static void result_free(result *r)
{
    g_free(r->out);
    g_free(r->err);
}

static uint64_t completion(const result *r)
{
    cr_assert_eq(r->status, 0, "insee-mpirun failed (%d):\n%s\n%s", r->status, r->err, r->out);
    const char *p = strstr(r->out, "simulated completion time: ");
    cr_assert(p, "no completion time in:\n%s", r->out);
    return g_ascii_strtoull(p + strlen("simulated completion time: "), NULL, 10);
}

/* When the receiver of a message sent at client time t gets it. */
static uint64_t handed_over_in(bool parallel, uint64_t t, uint64_t hops, uint64_t packets,
                               uint64_t S, uint64_t F)
{
    uint64_t queued = parallel ? (t / S + 1) * F : t * F / S;
    uint64_t arrival = queued + hops + L - 1 + (packets - 1) * L;
    return (arrival / F + 1) * S;
}

static uint64_t handed_over(uint64_t t, uint64_t hops, uint64_t packets, uint64_t S, uint64_t F)
{
    return handed_over_in(false, t, hops, packets, S, F);
}

/* examples/mpi/ring.toml: a ring of 8 nodes, 1000 client units = 10 cycles. */
static void ring(int n, uint64_t compute)
{
    const uint64_t S = 1000, F = 10, NODES = 8;
    uint64_t t = 0;
    for (int r = 0; r < n; r++) {
        uint64_t d = (uint64_t)abs((r + 1) % n - r), hops = d < NODES - d ? d : NODES - d;
        t = handed_over(t + compute, hops, 1, S, F);
    }
    char *c = g_strdup_printf("%llu", (unsigned long long)compute);
    result res = mpirun(n, "ring.toml", NULL, INSEE_TEST_RING, (const char *const[]){c, NULL});
    cr_assert_eq(completion(&res), t, "ring of %d, compute %s: %llu, closed form %llu\n%s", n, c,
                 (unsigned long long)completion(&res), (unsigned long long)t, res.out);
    char *back = g_strdup_printf("token back at %llu client units after %d ranks",
                                 (unsigned long long)t, n);
    cr_assert(strstr(res.out, back), "no '%s' in:\n%s", back, res.out);
    g_free(back);
    g_free(c);
    result_free(&res);
}

Test(mpi, ring_completion_has_its_closed_form)
{
    ring(8, 300); /* every step 1 hop: 300 -> cycle 3, consumed at 19, handed at 20: 2000 */
    ring(8, 950); /* cycle 9, consumed at 25, handed at 30: 3000 per step */
    ring(5, 0);   /* the way back from rank 4 to rank 0 is 4 hops */
    ring(2, 0);
}

/* One broadcast from rank 0 over examples/mpi/ring.toml: each rank sends to
   its children farthest first, at one clock reading, so each message queues
   behind the packets sent before it at the node (docs/mpi.md). */
Test(mpi, bcast_children_queue_farthest_first)
{
    const uint64_t S = 1000, F = 10;
    uint64_t at[8] = {0};
    /* Parent, child, hops, packets ahead of it at the parent. */
    const int tree[][4] = {{0, 4, 4, 0}, {0, 2, 2, 1}, {0, 1, 1, 2}, {4, 6, 2, 0},
                           {4, 5, 1, 1}, {2, 3, 1, 0}, {6, 7, 1, 0}};
    for (size_t i = 0; i < G_N_ELEMENTS(tree); i++) {
        uint64_t q = at[tree[i][0]] * F / S + (uint64_t)tree[i][3] * L;
        at[tree[i][1]] = ((q + (uint64_t)tree[i][2] + L - 1) / F + 1) * S;
    }
    result res = mpirun(8, "ring.toml", NULL, INSEE_TEST_BCAST, NULL);
    cr_assert_eq(completion(&res), 6000, "%s", res.out);
    for (int r = 0; r < 8; r++) {
        char *line = g_strdup_printf("rank %d has it at %llu\n", r, (unsigned long long)at[r]);
        cr_assert(strstr(res.out, line), "no '%s' in:\n%s", line, res.out);
        g_free(line);
    }
    result_free(&res);
}

static void ping_pong(const char *model, const char *rounds, const char *bytes, uint64_t packets)
{
    const uint64_t S = 1000, F = 20;
    bool parallel = strcmp(model, "parallel") == 0;
    /* Nodes 0 and 1: 1 hop. */
    uint64_t trip = 2 * handed_over_in(parallel, 0, 1, packets, S, F);
    char *set = g_strdup_printf("bridge.model=%s", model);
    result res = mpirun(2, "ping-pong.toml", (const char *const[]){set, NULL}, INSEE_TEST_PING_PONG,
                        (const char *const[]){rounds, bytes, NULL});
    uint64_t n = g_ascii_strtoull(rounds, NULL, 10);
    cr_assert_eq(completion(&res), n * trip, "%s bytes: %llu, closed form %llu x %llu\n%s", bytes,
                 (unsigned long long)completion(&res), (unsigned long long)n,
                 (unsigned long long)trip, res.out);
    for (uint64_t i = 1; i <= n; i++) {
        char *line = g_strdup_printf("round %llu: %llu client units\n", (unsigned long long)i,
                                     (unsigned long long)trip);
        cr_assert(strstr(res.out, line), "no '%s' in:\n%s", line, res.out);
        g_free(line);
    }
    g_free(set);
    result_free(&res);
}

Test(mpi, ping_pong_round_trip_has_its_closed_form)
{
    /* Consumed 16 cycles after its slice start: 1 slice each way. */
    ping_pong("lockstep", "5", "64", 1);
    /* 4 packets: consumed at 64, handed at 80: 4 slices each way. */
    ping_pong("lockstep", "3", "200", 4);
    ping_pong("lockstep", "2", "0", 1); /* an empty message is one packet */
    /* Each message first waits for the next slice: 2 slices each way. */
    ping_pong("parallel", "3", "64", 1);
}

/* Items per worker (index 1..4) of a master-worker run with 5 ranks. */
static void master_worker(const char *load, long *items)
{
    char *set = g_strdup_printf("background.load=%s", load);
    result res = mpirun(5, "master-worker.toml", (const char *const[]){set, NULL},
                        INSEE_TEST_MASTER_WORKER, NULL);
    completion(&res);
    long total = 0;
    for (int w = 1; w <= 4; w++) {
        char *tag = g_strdup_printf("worker %d: ", w);
        const char *p = strstr(res.out, tag);
        cr_assert(p, "no '%s' in:\n%s", tag, res.out);
        items[w] = strtol(p + strlen(tag), NULL, 10);
        total += items[w];
        g_free(tag);
    }
    cr_assert_eq(total, 200, "load %s: %ld items done:\n%s", load, total, res.out);
    g_free(set);
    result_free(&res);
}

/* Idle network: every round trip takes the same slices, so the master
   serves the workers in turn and each does a quarter. Background traffic
   into node 5 (the neighbour of workers 1 and 4) delays some of their
   messages by whole slices: the shares change. */
Test(mpi, master_worker_shares_follow_congestion)
{
    long idle[5], busy[5];
    master_worker("0", idle);
    master_worker("0.5", busy);
    bool differ = false;
    for (int w = 1; w <= 4; w++) {
        cr_assert_eq(idle[w], 50, "idle network: worker %d did %ld items", w, idle[w]);
        differ |= busy[w] != idle[w];
    }
    cr_assert(differ, "congested network: the same shares %ld %ld %ld %ld", busy[1], busy[2],
              busy[3], busy[4]);
}

/* The report without what varies from run to run: its "# speed" lines and
   the socket insee-mpirun made for the run. */
static char *without_speed(const char *out)
{
    GString *kept = g_string_new(NULL);
    char **lines = g_strsplit(out, "\n", -1);
    bool speed = false;
    for (char **l = lines; *l; l++) {
        if (g_str_has_prefix(*l, "#"))
            speed = g_str_has_prefix(*l, "# speed");
        if (!speed && !g_str_has_prefix(*l, "socket = "))
            g_string_append_printf(kept, "%s\n", *l);
    }
    g_strfreev(lines);
    return g_string_free(kept, FALSE);
}

/* Same program, configuration and seed: the same simulation, whichever rank
   happens to connect first (8 ranks race to the server each time). */
Test(mpi, runs_repeat_exactly)
{
    char *first = NULL;
    for (int run = 0; run < 3; run++) {
        result res = mpirun(8, "master-worker.toml", NULL, INSEE_TEST_MASTER_WORKER, NULL);
        completion(&res);
        char *report = without_speed(res.out);
        if (first)
            cr_assert_str_eq(report, first, "run %d differs from run 0", run);
        else
            first = g_strdup(report);
        g_free(report);
        result_free(&res);
    }
    g_free(first);
}

Test(mpi, api_semantics_inside_runs)
{
    for (int n = 1; n <= 8; n += n < 3 ? 1 : 3) {
        result res = mpirun(n, "ping-pong.toml", NULL, INSEE_TEST_CHECKS, NULL);
        completion(&res);
        for (int r = 0; r < n; r++) {
            char *ok = g_strdup_printf("rank %d ok\n", r);
            cr_assert(strstr(res.out, ok), "%d ranks: no '%s' in:\n%s\n%s", n, ok, res.out,
                      res.err);
            g_free(ok);
        }
        result_free(&res);
    }
}

/* DIR holds nothing (a temporary left behind, say); it is removed. */
static void assert_left_nothing(char *dir, const char *run)
{
    GDir *d = g_dir_open(dir, 0, NULL);
    cr_assert(d, "%s: %s is gone", run, dir);
    const char *left = g_dir_read_name(d);
    cr_assert_null(left, "%s: %s left in %s", run, left, dir);
    g_dir_close(d);
    g_rmdir(dir);
    g_free(dir);
}

/* A rank that leaves without insee_mpi_finalize(), crashes, or leaves
   before connecting, while the others wait for it: the run ends, exit
   status 1, the rank named, and nothing is left of the packet trace the
   simulation was writing (when a rank never connects, the simulation waits
   for it and has to be told to stop). */
Test(mpi, rank_leaving_early_is_named)
{
    const char *how[] = {"exit", "abort", "early"};
    for (int i = 0; i < 3; i++) {
        char *dir = g_dir_make_tmp("insee-mpi-XXXXXX", NULL);
        cr_assert(dir);
        char *trace = g_strdup_printf("stats.trace=\"%s/t.gz\"", dir),
             *messages = g_strdup_printf("%s/messages.fsin", dir);
        trace_to = messages;
        result res = mpirun(4, "ping-pong.toml", (const char *const[]){trace, NULL},
                            INSEE_TEST_QUITTER, (const char *const[]){"2", how[i], NULL});
        trace_to = NULL;
        g_free(trace);
        g_free(messages);
        /* neither the packet trace nor the recorded one (--trace) */
        assert_left_nothing(dir, how[i]);
        cr_assert_eq(res.status, 1, "%s: status %d\n%s", how[i], res.status, res.err);
        cr_assert(strstr(res.err, "rank 2"), "%s: rank 2 not named:\n%s", how[i], res.err);
        cr_assert(!strstr(res.out, "simulated completion time"), "%s", res.out);
        result_free(&res);
    }
}

/* A deadlock ends the run at once, naming what each rank still running
   waits for; max_cycles (200000 slices) bounds a run where it is missed. */
static const char *const bounded[] = {"simulation.max_cycles=2000000", NULL};

Test(mpi, deadlock_is_found_and_explained)
{
    /* The run stopped leaves nothing of the trace it was writing. */
    char *dir = g_dir_make_tmp("insee-mpi-XXXXXX", NULL);
    cr_assert(dir);
    char *trace = g_strdup_printf("stats.trace=\"%s/t.gz\"", dir);
    result res = mpirun(4, "ring.toml", (const char *const[]){bounded[0], trace, NULL},
                        INSEE_TEST_DEADLOCK, (const char *const[]){"cycle", NULL});
    g_free(trace);
    assert_left_nothing(dir, "deadlock");
    cr_assert_eq(res.status, 1, "%s\n%s", res.out, res.err);
    cr_assert(strstr(res.err, "insee-mpirun: deadlock:"), "%s", res.err);
    for (int r = 0; r < 4; r++) {
        char *want = g_strdup_printf("rank %d waits for a message from rank %d (tag 7)", r,
                                     (r + 1) % 4);
        cr_assert(strstr(res.err, want), "no '%s' in:\n%s", want, res.err);
        g_free(want);
    }
    result_free(&res);

    res = mpirun(3, "ring.toml", bounded, INSEE_TEST_DEADLOCK,
                 (const char *const[]){"finalized", NULL});
    cr_assert_eq(res.status, 1, "%s\n%s", res.out, res.err);
    cr_assert(strstr(res.err, "rank 1 waits for a message from rank 0 (any tag)") &&
              strstr(res.err, "rank 2 waits for a message from rank 0 (any tag)") &&
              !strstr(res.err, "rank 0 waits"), "%s", res.err);
    result_free(&res);

    /* The stray message is handed over while rank 1 already waits. */
    res = mpirun(2, "ring.toml", bounded, INSEE_TEST_DEADLOCK,
                 (const char *const[]){"mismatch", NULL});
    cr_assert_eq(res.status, 1, "%s\n%s", res.out, res.err);
    cr_assert(strstr(res.err, "rank 0 waits for a message from rank 1 (tag 7)") &&
              strstr(res.err, "rank 1 waits for a message from rank 0 (tag 7)"), "%s", res.err);
    result_free(&res);
}

/* The processes whose parent is PID, from /proc. */
static GArray *children_of(GPid pid)
{
    GArray *kids = g_array_new(FALSE, FALSE, sizeof(GPid));
    GDir *proc = g_dir_open("/proc", 0, NULL);
    cr_assert(proc);
    for (const char *name; (name = g_dir_read_name(proc));) {
        char *path = g_build_filename("/proc", name, "stat", NULL), *stat = NULL;
        /* pid (comm) state ppid ...: comm may hold spaces and parentheses. */
        const char *end = g_file_get_contents(path, &stat, NULL, NULL) ? strrchr(stat, ')') : NULL;
        int ppid;
        if (end && sscanf(end + 1, " %*c %d", &ppid) == 1 && ppid == pid) {
            GPid kid = atoi(name);
            g_array_append_val(kids, kid);
        }
        g_free(stat);
        g_free(path);
    }
    g_dir_close(proc);
    return kids;
}

/* SIGNAL to insee-mpirun while N endless ranks run: it exits with 128 +
   SIGNAL, and leaves no process it started (the simulation, the ranks), no
   directory of its own in its TMPDIR and nothing of the simulation's packet
   trace. */
static void stopped_by(int sig, int n)
{
    char *base = g_dir_make_tmp("insee-mpi-XXXXXX", NULL);
    cr_assert(base);
    char *tmp = g_build_filename(base, "tmp", NULL), *pids = g_build_filename(base, "pids", NULL),
         *traces = g_build_filename(base, "trace", NULL);
    cr_assert(g_mkdir(tmp, 0700) == 0 && g_mkdir(pids, 0700) == 0 && g_mkdir(traces, 0700) == 0);
    char *trace = g_strdup_printf("stats.trace=\"%s/t.gz\"", traces);
    GPtrArray *argv = mpirun_argv(n, "ping-pong.toml", (const char *const[]){trace, NULL},
                                  INSEE_TEST_ENDLESS, (const char *const[]){pids, NULL});
    char **env = g_environ_setenv(g_get_environ(), "TMPDIR", tmp, TRUE);
    GPid launcher;
    GError *e = NULL;
    cr_assert(g_spawn_async(NULL, (char **)argv->pdata, env,
                            G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL |
                                G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &launcher, &e),
              "%s", e ? e->message : "");
    /* Every rank has connected and written its pid. */
    for (;;) {
        GDir *d = g_dir_open(pids, 0, NULL);
        int written = 0;
        for (const char *name; (name = g_dir_read_name(d));)
            written += !g_str_has_suffix(name, ".part");
        g_dir_close(d);
        if (written == n)
            break;
        int status;
        cr_assert_eq(waitpid(launcher, &status, WNOHANG), 0, "insee-mpirun ended before the "
                     "ranks ran (status %d)", status);
        g_usleep(10000);
    }
    GArray *kids = children_of(launcher);
    cr_assert_eq(kids->len, (guint)n + 1, "%u processes under insee-mpirun, not the simulation "
                 "and %d ranks", kids->len, n);
    cr_assert_eq(kill(launcher, sig), 0);
    int status;
    cr_assert_eq(waitpid(launcher, &status, 0), launcher);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 128 + sig,
              "signal %d: insee-mpirun %s %d, not exit status %d", sig,
              WIFEXITED(status) ? "exited with status" : "was killed by signal",
              WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), 128 + sig);
    for (guint i = 0; i < kids->len; i++) {
        GPid kid = g_array_index(kids, GPid, i);
        cr_assert(kill(kid, 0) != 0 && errno == ESRCH, "signal %d: process %d is left", sig, kid);
    }
    assert_left_nothing(tmp, "insee-mpirun's TMPDIR");
    assert_left_nothing(traces, "the simulation's trace directory");
    char *cmd = g_strdup_printf("rm -r '%s'", base);
    cr_assert_eq(system(cmd), 0);
    g_free(cmd);
    g_array_free(kids, TRUE);
    g_strfreev(env);
    g_ptr_array_free(argv, TRUE);
    g_free(trace);
    g_free(pids);
    g_free(base);
}

Test(mpi, signal_stops_ranks_and_simulation)
{
    stopped_by(SIGTERM, 4);
    stopped_by(SIGINT, 3);
    stopped_by(SIGHUP, 2);
}

Test(mpi, launcher_usage)
{
    char *argv[] = {INSEE_TEST_MPIRUN, "-n", "2", "x.toml", NULL};
    int wait;
    char *err = NULL;
    cr_assert(g_spawn_sync(NULL, argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &err,
                           &wait, NULL));
    cr_assert(WIFEXITED(wait) && WEXITSTATUS(wait) == 2);
    cr_assert(strstr(err, "'-- PROGRAM' are required"), "%s", err);
    g_free(err);
}

/* The largest number of set bits among 0 .. n-1: the depth of a binomial
   tree of n ranks (vr hears from vr - its lowest set bit). */
static uint64_t tree_depth(uint64_t n)
{
    uint64_t depth = 0;
    for (uint64_t v = 0; v < n; v++)
        depth = MAX(depth, (uint64_t)__builtin_popcountll(v));
    return depth;
}

static uint64_t ceil_log2(uint64_t n)
{
    uint64_t k = 0;
    while ((1ull << k) < n)
        k++;
    return k;
}

/* One collective of insee/mpi.h on N ranks over ring.toml with slices of
   1000 client units = 1000 cycles: every message of a round is sent at a
   slice start and, small (one packet) and few, consumed within that
   slice, so it is handed over one slice later. A rank's round thus ends
   one slice after the latest send it waits for, and the completion time
   is 1000 x the rounds on the longest chain of messages. The message
   count is the bridge's deliveries. */
static void collective(int n, const char *op, uint64_t rounds, uint64_t messages)
{
    result res = mpirun(n, "ring.toml", (const char *const[]){"bridge.network_cycles=1000", NULL},
                        INSEE_TEST_COLLECTIVES, (const char *const[]){"time", op, NULL});
    cr_assert_eq(completion(&res), rounds * 1000, "%s on %d ranks: %llu, closed form %llu x 1000\n%s",
                 op, n, (unsigned long long)completion(&res), (unsigned long long)rounds, res.out);
    char *line = g_strdup_printf("[bridge] deliveries                %llu messages\n",
                                 (unsigned long long)messages);
    cr_assert(strstr(res.out, line), "%s on %d ranks: no '%s' in:\n%s", op, n, line, res.out);
    g_free(line);
    result_free(&res);
}

Test(mpi, collectives_rounds_and_messages_have_their_closed_forms)
{
    for (uint64_t n = 5; n <= 8; n += 3) {
        uint64_t log = ceil_log2(n), depth = tree_depth(n), all = n * (n - 1);
        /* Dissemination: ceil(log2 n) rounds of one message per rank. */
        collective((int)n, "barrier", log, n * log);
        /* Binomial trees: one message per rank but the root, the chain as
           deep as the tree; the tree allreduce is a reduce, then a bcast. */
        collective((int)n, "bcast", depth, n - 1);
        collective((int)n, "reduce", depth, n - 1);
        collective((int)n, "gather", depth, n - 1);
        collective((int)n, "scatter", depth, n - 1);
        collective((int)n, "allreduce_tree", 2 * depth, 2 * (n - 1));
        /* Rings and pairwise exchanges: n - 1 rounds, a message per rank
           each. */
        collective((int)n, "allgather", n - 1, all);
        collective((int)n, "allgatherv", n - 1, all);
        collective((int)n, "alltoall", n - 1, all);
        collective((int)n, "alltoallv", n - 1, all);
        collective((int)n, "reduce_scatter", n - 1, all);
        /* The linear scan: a chain of n - 1 messages, one a round. */
        collective((int)n, "scan", n - 1, n - 1);
        /* Bruck: ceil(log2 n) rounds of one message per rank. */
        collective((int)n, "bruck", log, n * log);
        /* Linear: the root's n - 1 messages in one round. */
        collective((int)n, "gatherv", 1, n - 1);
        collective((int)n, "scatterv", 1, n - 1);
    }
    /* Recursive doubling, 8 ranks: 3 exchanges. 5 ranks (p = 4): ranks 0
       and 1 fold (rank 1 has rank 0's data at 1000) while 2, 3 and 4
       exchange from 0; rank 1's first exchange with rank 2 (sent at 0)
       ends at 1000, its second with rank 3 (sent at 1000) at 2000, its
       result reaches rank 0 at 3000; rank 4's second exchange with rank 2
       (which waited for rank 1's, sent at 1000, until 2000) ends at 3000.
       Messages: p log2 p exchanges, plus 2 (n - p) to fold and unfold. */
    collective(8, "allreduce", 3, 8 * 3);
    collective(5, "allreduce", 3, 4 * 2 + 2 * 1);
    /* Split (an allgather of 8 ranks: 7 rounds, 56 messages), then the
       halves' allgathers side by side (3 rounds, 12 messages each). */
    collective(8, "halves", 7 + 3, 56 + 2 * 12);
}

Test(mpi, collectives_give_what_their_definitions_say)
{
    for (int n = 1; n <= 8; n += n < 2 ? 1 : 3) {
        for (int mode = 0; mode < 2; mode++) {
            const char *what = mode ? "split" : "data";
            result res = mpirun(n, "ring.toml", NULL, INSEE_TEST_COLLECTIVES,
                                (const char *const[]){what, NULL});
            completion(&res);
            for (int r = 0; r < n; r++) {
                char *ok = g_strdup_printf("rank %d ok\n", r);
                cr_assert(strstr(res.out, ok), "%s, %d ranks: no '%s' in:\n%s\n%s", what, n, ok,
                          res.out, res.err);
                g_free(ok);
            }
            result_free(&res);
        }
    }
}

/* A rank map file with `text`; its path is rank_map until map_done(). */
static void map_file(const char *text)
{
    GError *e = NULL;
    int fd = g_file_open_tmp("insee-mpi-map-XXXXXX", (char **)&rank_map, &e);
    cr_assert(fd >= 0, "%s", e ? e->message : "");
    close(fd);
    cr_assert(g_file_set_contents(rank_map, text, -1, NULL));
}

static void map_done(void)
{
    g_unlink(rank_map);
    g_free((char *)rank_map);
    rank_map = NULL;
}

/* The token ring with ranks 0..3 on nodes 0, 4, 1 and 5 of the 8-node
   ring: hops 4, 3, 4 and 3. With COMPUTE 100 each message is queued at
   cycle 1 of its slice: 4 hops are consumed at 20 (handed over two slices
   on, 3000 units), 3 hops at 19 (2000 units): the token is back at
   3000 + 2000 + 3000 + 2000 = 10000, not the 2000 x 3 + 3000 of ranks on
   nodes 0..3. */
Test(mpi, rank_map_puts_ranks_on_its_nodes)
{
    const uint64_t S = 1000, F = 10, hops[] = {4, 3, 4, 3};
    uint64_t t = 0;
    for (int r = 0; r < 4; r++)
        t = handed_over(t + 100, hops[r], 1, S, F);
    map_file("# rank map: one node a line\n0\n4   # rank 1\n\n1\n5\n");
    result res = mpirun(4, "ring.toml", NULL, INSEE_TEST_RING, (const char *const[]){"100", NULL});
    map_done();
    cr_assert_eq(t, 10000);
    cr_assert_eq(completion(&res), t, "%s", res.out);
    result_free(&res);
}

/* Ranks that share a node: the token ring of 8 ranks two a node (ranks 2m
   and 2m + 1 on node m), and a map with three, one and two ranks on nodes
   0, 1 and 2. A message between two ranks of a node stays in it (the report
   counts it) and is consumed as a one-hop message is, L cycles after it is
   queued; the others take their hops. */
static void shared_ring(const uint64_t *hops, int n, const char *local)
{
    const uint64_t S = 1000, F = 10;
    uint64_t t = 0;
    for (int r = 0; r < n; r++)
        t = handed_over(t + 300, hops[r], 1, S, F);
    result res = mpirun(n, "ring.toml", NULL, INSEE_TEST_RING, (const char *const[]){"300", NULL});
    cr_expect_eq(completion(&res), t, "%s", res.out);
    cr_expect(strstr(res.out, local), "no '%s' in:\n%s", local, res.out);
    result_free(&res);
}

Test(mpi, ranks_share_nodes)
{
    ranks_per_node = 2;
    shared_ring((const uint64_t[]){1, 1, 1, 1, 1, 1, 1, 3}, 8,
                "messages delivered         8 (4 between tasks of one node)");
    ranks_per_node = 0;
    map_file("0\n0\n0\n1\n2\n2\n");
    shared_ring((const uint64_t[]){1, 1, 1, 1, 1, 2}, 6,
                "messages delivered         6 (3 between tasks of one node)");
    map_done();
    map_file("0\n1\n");
    ranks_per_node = 2;
    result res = mpirun(2, "ring.toml", NULL, INSEE_TEST_RING, NULL);
    ranks_per_node = 0;
    map_done();
    cr_expect_eq(res.status, 2);
    cr_expect(strstr(res.err, "--map and --ranks-per-node both place the ranks"), "%s", res.err);
    result_free(&res);
}

/* A bad map is refused before anything starts: exit status 2, the file
   and line named. */
Test(mpi, bad_rank_maps_are_refused_with_file_and_line)
{
    const char *maps[][2] = {
        {"0\n1\n2x\n3\n", ":3: '2x' is not a node number"},
        {"0\n# two\n5\n-1\n3\n", ":4: '-1' is not a node number"},
        {"0\n1\n2\n", ": 3 ranks, but -n says 4"},
        {"# nothing\n", ": no rank in it"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(maps); i++) {
        map_file(maps[i][0]);
        char *want = g_strdup_printf("insee-mpirun: %s%s", rank_map, maps[i][1]);
        result res = mpirun(4, "ring.toml", NULL, INSEE_TEST_RING, NULL);
        map_done();
        cr_assert_eq(res.status, 2, "map %zu: status %d\n%s", i, res.status, res.err);
        cr_assert(strstr(res.err, want), "map %zu: no '%s' in:\n%s", i, want, res.err);
        g_free(want);
        result_free(&res);
    }
}

/* insee_mpi_isend_nic(), NSIM's LMGEN_Isend: rank 0's four messages at
   once over node links of a phit every 4 cycles and four interfaces. All
   on interface 1 they cross its one link one after another (L x 4 cycles
   each), later than left to the node's turn, which sends them side by
   side; zero_copy 0 without memory_bandwidth, and an interface beyond
   nics, end the run naming the setting. */
static result nics_run(const char *nic, const char *zero_copy, const char *extra)
{
    const char *sets[] = {"network.nics=4", "network.node_phit_cycles=4", extra, NULL};
    return mpirun(5, "ring.toml", sets, INSEE_TEST_NICS,
                  (const char *const[]){nic, zero_copy, NULL});
}

Test(mpi, isend_nic_chooses_interface_and_copy)
{
    result turn = nics_run("0", "1", NULL), one = nics_run("1", "1", NULL);
    uint64_t side = completion(&turn), queued = completion(&one);
    cr_assert_gt(queued, side, "interface 1: %llu, in turn: %llu", (unsigned long long)queued,
                 (unsigned long long)side);
    result_free(&turn);
    result_free(&one);
    result two = nics_run("0", "0", NULL);
    cr_assert_neq(two.status, 0);
    cr_assert(strstr(two.err, "two-copy") && strstr(two.err, "memory_bandwidth"), "%s", two.err);
    result_free(&two);
    result far = nics_run("5", "1", NULL);
    cr_assert_neq(far.status, 0);
    cr_assert(strstr(far.err, "interface 5") && strstr(far.err, "nics = 4"), "%s", far.err);
    result_free(&far);
}
