/* sdk/mpi/mpirun.c — insee-mpirun: run N processes of an insee-mpi program
 * through a simulated network (docs/mpi.md).
 *
 *   insee-mpirun [--insee PATH] [-n N] [--map FILE | --ranks-per-node K]
 *                [--trace FILE] [--set SECTION.KEY=VALUE ...] CONFIG.toml -- PROGRAM [ARGS]
 *
 * It starts `insee run CONFIG` with the [bridge] sync-server listening on a
 * Unix socket in a private temporary directory for N clients, rank r on
 * node r, on node r / K, or on the node line r of the rank map says, then
 * rank r of the program with INSEE_MPI_ADDRESS, INSEE_MPI_RANK,
 * INSEE_MPI_SIZE, INSEE_MPI_NODES (unless rank r is endpoint r: a file of
 * every rank's bridge endpoint, one a line), INSEE_MPI_TRACE (with
 * --trace: where each rank writes its part of the recorded trace, which the
 * launcher joins into FILE once every rank has finalized)
 * and INSEE_MPI_REPORT_FD (a pipe where the library says
 * when the rank blocks in a receive and when it finalizes). It waits for
 * all of them and prints the simulated completion time, the largest
 * finalize time. A rank that ends without finalizing, or fails, a
 * simulation that fails, and a deadlock (every rank still running blocks
 * in a receive and no message is on its way) end the run at once: the
 * launcher names the culprit, stops the other processes it started and
 * exits 1. SIGINT, SIGTERM or SIGHUP to the launcher stop the ranks and the
 * simulation alike, and it exits 128 + the signal. Exit status 2: bad
 * usage. In every case it reaps what it started and removes its directory. */
#define _GNU_SOURCE /* pipe2, mkdtemp, qsort_r */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Ranks that share a node are the bridge's endpoints of that node
   ([bridge] ranks_per_node = the most ranks a node runs, K): the i-th rank
   of node m is endpoint m K + i; endpoints no rank takes stay idle. */
typedef struct launch {
    const char *insee, *config, *map, *trace;
    long n;
    long per_node;           /* --ranks-per-node (0: not given) */
    unsigned long *node;     /* per rank: its node, then its endpoint (NULL: rank r is r) */
    unsigned long nodes;     /* the bridge serves endpoints 0 .. nodes-1 */
    unsigned long endpoints; /* K */
    char **sets;
    int n_sets;
    char **program;
} launch;

static int usage(const char *why)
{
    fprintf(stderr, "insee-mpirun: %s\nusage: insee-mpirun [--insee PATH] [-n N] [--map FILE | "
            "--ranks-per-node K] [--trace FILE] [--set SECTION.KEY=VALUE ...] CONFIG.toml -- "
            "PROGRAM [ARGS...]\n", why);
    return 2;
}

static int map_error(const launch *l, long line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int map_error(const launch *l, long line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (line)
        fprintf(stderr, "insee-mpirun: %s:%ld: ", l->map, line);
    else
        fprintf(stderr, "insee-mpirun: %s: ", l->map);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 2;
}

/* The rank map: line r (blank lines and `#` comments aside) is the node
   rank r runs on; a node may run several. */
static int read_map(launch *l)
{
    FILE *f = fopen(l->map, "r");
    if (!f) {
        fprintf(stderr, "insee-mpirun: cannot read the rank map %s: %s\n", l->map,
                strerror(errno));
        return 2;
    }
    char text[256];
    long line = 0, ranks = 0, cap = 0, *at_line = NULL;
    int rc = 0;
    unsigned long max = 0;
    while (rc == 0 && fgets(text, sizeof text, f)) {
        line++;
        text[strcspn(text, "#\n")] = '\0';
        char *p = text, *end;
        while (*p == ' ' || *p == '\t' || *p == '\r')
            p++;
        if (!*p)
            continue;
        errno = 0;
        unsigned long node = strtoul(p, &end, 10);
        while (*end == ' ' || *end == '\t' || *end == '\r')
            end++;
        if (*p == '-' || *end || errno || node > 0xFFFFFFFEul) {
            rc = map_error(l, line, "'%s' is not a node number (one node a line: the node rank "
                           "%ld runs on)", p, ranks);
            break;
        }
        if (ranks == cap) {
            cap = cap ? 2 * cap : 64;
            unsigned long *n = realloc(l->node, sizeof *n * (size_t)cap);
            long *a = n ? realloc(at_line, sizeof *a * (size_t)cap) : NULL;
            if (n)
                l->node = n;
            if (!n || !a) {
                rc = map_error(l, 0, "out of memory");
                break;
            }
            at_line = a;
        }
        l->node[ranks] = node;
        at_line[ranks++] = line;
        max = node > max ? node : max;
    }
    if (rc == 0 && ferror(f))
        rc = map_error(l, 0, "cannot read it: %s", strerror(errno));
    else if (rc == 0 && ranks == 0)
        rc = map_error(l, 0, "no rank in it (one node a line: the node rank r runs on)");
    else if (rc == 0 && l->n && ranks != l->n)
        rc = map_error(l, 0, "%ld ranks, but -n says %ld", ranks, l->n);
    else if (rc == 0 && ranks > 65536)
        rc = map_error(l, line, "%ld ranks, more than 65536", ranks);
    fclose(f);
    free(at_line);
    l->n = ranks;
    l->nodes = max + 1;
    return rc;
}

/* qsort_r's order of ranks: by node, then by rank. */
static int by_node(const void *a, const void *b, void *nodes)
{
    long x = *(const long *)a, y = *(const long *)b;
    unsigned long nx = ((const unsigned long *)nodes)[x], ny = ((const unsigned long *)nodes)[y];
    return nx != ny ? (nx > ny) - (nx < ny) : (x > y) - (x < y);
}

/* Nodes to endpoints (see launch): K the most ranks of one node. */
static int number_endpoints(launch *l)
{
    long *order = malloc(sizeof *order * (size_t)l->n);
    unsigned long *place = malloc(sizeof *place * (size_t)l->n); /* among its node's ranks */
    if (!order || !place) {
        free(order);
        free(place);
        return usage("out of memory");
    }
    for (long r = 0; r < l->n; r++)
        order[r] = r;
    qsort_r(order, (size_t)l->n, sizeof *order, by_node, l->node);
    unsigned long k = 1, max = 0;
    for (long i = 0; i < l->n; i++) {
        unsigned long node = l->node[order[i]];
        place[order[i]] = i && node == l->node[order[i - 1]] ? place[order[i - 1]] + 1 : 0;
        k = place[order[i]] + 1 > k ? place[order[i]] + 1 : k;
        max = node > max ? node : max;
    }
    int rc = (max + 1) * k > 0x7FFFFFFFul
        ? usage("the rank map's nodes times its ranks per node exceed 2^31 endpoints") : 0;
    for (long r = 0; rc == 0 && r < l->n; r++)
        l->node[r] = l->node[r] * k + place[r];
    free(order);
    free(place);
    l->endpoints = k;
    l->nodes = (max + 1) * k;
    return rc;
}

static int parse(int argc, char **argv, launch *l)
{
    *l = (launch){.insee = getenv("INSEE") ? getenv("INSEE") : "insee"};
    l->sets = calloc((size_t)argc, sizeof *l->sets);
    if (!l->sets)
        return usage("out of memory");
    int i = 1;
    for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
        bool has_value = i + 1 < argc;
        if (strcmp(argv[i], "-n") == 0 && has_value) {
            char *end;
            l->n = strtol(argv[++i], &end, 10);
            if (*end || l->n < 1 || l->n > 65536)
                return usage("-n takes a number of ranks in 1..65536");
        } else if (strcmp(argv[i], "--set") == 0 && has_value) {
            l->sets[l->n_sets++] = argv[++i];
        } else if (strcmp(argv[i], "--insee") == 0 && has_value) {
            l->insee = argv[++i];
        } else if (strcmp(argv[i], "--map") == 0 && has_value) {
            l->map = argv[++i];
        } else if (strcmp(argv[i], "--trace") == 0 && has_value) {
            l->trace = argv[++i];
        } else if (strcmp(argv[i], "--ranks-per-node") == 0 && has_value) {
            char *end;
            l->per_node = strtol(argv[++i], &end, 10);
            if (*end || l->per_node < 1 || l->per_node > 65536)
                return usage("--ranks-per-node takes a number of ranks in 1..65536");
        } else if (argv[i][0] != '-' && !l->config) {
            l->config = argv[i];
        } else {
            fprintf(stderr, "insee-mpirun: unexpected argument '%s'\n", argv[i]);
            return usage("see the usage below");
        }
    }
    if ((l->n == 0 && !l->map) || !l->config || i + 1 >= argc)
        return usage("-n N or --map FILE, a configuration and '-- PROGRAM' are required");
    if (l->map && l->per_node)
        return usage("--map and --ranks-per-node both place the ranks: give one");
    l->program = argv + i + 1;
    l->nodes = (unsigned long)l->n;
    l->endpoints = 1;
    if (l->map) {
        int rc = read_map(l);
        return rc ? rc : number_endpoints(l);
    }
    if (l->per_node > 1) {
        l->node = malloc(sizeof *l->node * (size_t)l->n);
        if (!l->node)
            return usage("out of memory");
        for (long r = 0; r < l->n; r++)
            l->node[r] = (unsigned long)(r / l->per_node);
        return number_endpoints(l);
    }
    return 0;
}

/* Each live child: the simulation (index 0) and the ranks (1..n). */
static pid_t *pids;
static long n_pids;

/* The first of SIGINT, SIGTERM, SIGHUP received; 0 while none has come. */
static volatile sig_atomic_t stop_signal;

/* The first signal stops the run; a second one, while the simulation is
   given time to end cleanly, kills it at once (as a second Ctrl-C does to
   insee). */
static void on_stop_signal(int sig)
{
    if (!stop_signal)
        stop_signal = sig;
    else if (pids && pids[0] > 0)
        kill(pids[0], SIGKILL);
}

/* No SA_RESTART: the waits of the main loop return at once with EINTR. */
static void catch_stop_signals(void)
{
    struct sigaction sa = {.sa_handler = on_stop_signal};
    sigemptyset(&sa.sa_mask);
    const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
        sigaction(sigs[i], &sa, NULL);
}

static pid_t reap(pid_t pid, int options)
{
    pid_t got;
    while ((got = waitpid(pid, NULL, options)) < 0 && errno == EINTR)
        ;
    return got;
}

/* Ranks first, with SIGKILL: a rank that ignores SIGTERM must not hold the
   launcher. The simulation then sees its clients gone and ends by itself,
   removing what it had started to write (a packet trace). When it has not
   within two seconds (it waits for a rank that never connected, up to
   [bridge] timeout_ms), or when the launcher was itself stopped by a
   signal, it gets SIGINT, insee's request to end the run and clean up. */
static void stop_all(void)
{
    for (long i = 1; i < n_pids; i++)
        if (pids[i] > 0)
            kill(pids[i], SIGKILL);
    for (long i = 1; i < n_pids; i++)
        if (pids[i] > 0)
            reap(pids[i], 0);
    for (int tries = 0; pids[0] > 0 && !stop_signal && tries < 200; tries++) {
        if (reap(pids[0], WNOHANG) == pids[0])
            pids[0] = 0;
        else
            nanosleep(&(struct timespec){.tv_nsec = 10000000}, NULL);
    }
    if (pids[0] > 0) {
        kill(pids[0], SIGINT);
        reap(pids[0], 0);
        pids[0] = 0;
    }
}

static void describe(int status, char *buf, size_t size)
{
    if (WIFSIGNALED(status))
        snprintf(buf, size, "was killed by signal %d (%s)", WTERMSIG(status),
                 strsignal(WTERMSIG(status)));
    else
        snprintf(buf, size, "exited with status %d", WEXITSTATUS(status));
}

/* What the ranks said through the report pipe (sdk/mpi/mpi.c): the last
   line of each. */
typedef struct rank_state {
    bool finalized, waiting;
    unsigned long long at;          /* finalize time */
    unsigned long long sent, got;   /* messages, as of its last wait or finalize */
    char what[160];                 /* waiting: what for */
} rank_state;

static void take_line(const char *line, rank_state *ranks, long n)
{
    long r;
    unsigned long long t, sent, got;
    int used = 0;
    if (sscanf(line, "finalize %ld %llu %llu %llu", &r, &t, &sent, &got) == 4 && r >= 0 &&
        r < n) {
        ranks[r] = (rank_state){.finalized = true, .at = t, .sent = sent, .got = got};
    } else if (sscanf(line, "wait %ld %llu %llu %n", &r, &sent, &got, &used) == 3 && used &&
               r >= 0 && r < n) {
        ranks[r].waiting = true;
        ranks[r].sent = sent;
        ranks[r].got = got;
        snprintf(ranks[r].what, sizeof ranks[r].what, "%.*s", (int)strcspn(line + used, "\n"),
                 line + used);
    } else if (sscanf(line, "run %ld", &r) == 1 && r >= 0 && r < n) {
        ranks[r].waiting = false;
    }
}

/* Every line written to the pipe so far; false once every rank has closed
   it. */
static bool read_reports(int fd, rank_state *ranks, long n)
{
    static char pending[4096];
    static size_t len;
    ssize_t got;
    while ((got = read(fd, pending + len, sizeof pending - 1 - len)) > 0) {
        len += (size_t)got;
        pending[len] = '\0';
        char *line = pending, *nl;
        while ((nl = strchr(line, '\n'))) {
            take_line(line, ranks, n);
            line = nl + 1;
        }
        len = strlen(line);
        memmove(pending, line, len + 1);
        if (len == sizeof pending - 1)
            len = 0; /* no line is this long: not the library's, dropped */
    }
    return got != 0;
}

/* A deadlock: every rank not finalized blocks in a receive, and every
   message sent has been handed over (none on its way could wake one).
   Sound despite the pipe's delay: a rank leaves a wait only for a message
   whose sender counted it in a line written before, or was running. */
static bool deadlocked(const rank_state *ranks, long n)
{
    unsigned long long sent = 0, got = 0;
    bool anyone = false;
    for (long r = 0; r < n; r++) {
        if (!ranks[r].finalized && !ranks[r].waiting)
            return false;
        anyone |= !ranks[r].finalized;
        sent += ranks[r].sent;
        got += ranks[r].got;
    }
    return anyone && sent == got;
}

/* A group of its own (own_group) keeps a terminal's Ctrl-C, which reaches
   the launcher's group, from the simulation: it gets one SIGINT, from the
   launcher, and ends cleanly; a second would kill it. */
static pid_t spawn(char **argv, const char *const *env, int keep_fd, bool own_group)
{
    pid_t pid = fork();
    if (pid != 0)
        return pid;
    if (own_group)
        setpgid(0, 0);
    for (; env && env[0]; env += 2)
        setenv(env[0], env[1], 1);
    if (keep_fd >= 0)
        fcntl(keep_fd, F_SETFD, 0);
    execvp(argv[0], argv);
    fprintf(stderr, "insee-mpirun: cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
}

/* The ranks' parts of the recorded trace (sdk/mpi/mpi.c), one after the
   other under a header, into a temporary beside FILE renamed over it: a
   failed run leaves no trace that looks whole. */
static int join_trace(const launch *l, const char *dir)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.insee-tmp-%ld", l->trace, (long)getpid());
    FILE *out = fopen(tmp, "w");
    bool ok = out && fprintf(out, "# FSIN trace of an insee-mpi program, recorded by insee-mpirun "
                             "--trace (docs/mpi.md)\n# ranks: %ld\n# tags: point-to-point "
                             "communicator << 32 | tag; collectives communicator << 32 | 2^31 | "
                             "schedule << 24 | call mod 2^24\n", l->n) > 0;
    for (long r = 0; ok && r < l->n; r++) {
        char part[4200], buf[65536];
        snprintf(part, sizeof part, "%s/trace.%ld", dir, r);
        FILE *in = fopen(part, "r");
        size_t k;
        ok = in != NULL;
        while (ok && (k = fread(buf, 1, sizeof buf, in)) > 0)
            ok = fwrite(buf, 1, k, out) == k;
        if (in) {
            ok = ok && !ferror(in);
            fclose(in);
        }
    }
    if (out && fclose(out) != 0)
        ok = false;
    if (ok && rename(tmp, l->trace) == 0)
        return 0;
    fprintf(stderr, "insee-mpirun: cannot write the trace %s: %s\n", l->trace, strerror(errno));
    unlink(tmp);
    return 1;
}

static int run(const launch *l, const char *dir)
{
    char sock[4200], nodes[64], clients[64], per_node[64];
    int rc = 0;
    snprintf(sock, sizeof sock, "bridge.socket=\"%s/bridge.sock\"", dir);
    snprintf(clients, sizeof clients, "bridge.clients=%ld", l->n);
    snprintf(nodes, sizeof nodes, "bridge.nodes=%lu", l->nodes);
    snprintf(per_node, sizeof per_node, "bridge.ranks_per_node=%lu", l->endpoints);
    char **argv = calloc((size_t)(2 * l->n_sets + 12), sizeof *argv);
    int report[2];
    pids = calloc((size_t)l->n + 1, sizeof *pids);
    rank_state *ranks = calloc((size_t)l->n, sizeof *ranks);
    if (!argv || !pids || !ranks || pipe2(report, O_CLOEXEC) != 0) {
        fprintf(stderr, "insee-mpirun: out of resources: %s\n", strerror(errno));
        return 1;
    }
    fcntl(report[0], F_SETFL, O_NONBLOCK);
    int a = 0;
    argv[a++] = (char *)l->insee;
    argv[a++] = "run";
    argv[a++] = (char *)l->config;
    /* The user's settings first: the launcher's own three win. */
    for (int i = 0; i < l->n_sets; i++) {
        argv[a++] = "--set";
        argv[a++] = l->sets[i];
    }
    char *ours[] = {sock, clients, nodes, per_node};
    for (int i = 0; i < 4; i++) {
        argv[a++] = "--set";
        argv[a++] = ours[i];
    }
    n_pids = 1;
    pids[0] = spawn(argv, NULL, -1, true);
    if (pids[0] < 0) {
        fprintf(stderr, "insee-mpirun: cannot start %s: %s\n", l->insee, strerror(errno));
        rc = 1;
    }
    /* Ranks start once the server listens (it does before the run starts),
       or not at all when the simulation ends first. */
    char path[4200];
    snprintf(path, sizeof path, "%s/bridge.sock", dir);
    struct stat st;
    int status;
    while (rc == 0 && !stop_signal && stat(path, &st) != 0) {
        if (waitpid(pids[0], &status, WNOHANG) == pids[0]) {
            pids[0] = 0;
            char how[128];
            describe(status, how, sizeof how);
            fprintf(stderr, "insee-mpirun: the simulation %s before it listened for ranks\n", how);
            rc = 1;
            break;
        }
        nanosleep(&(struct timespec){.tv_nsec = 10000000}, NULL);
    }
    /* Every rank's endpoint, for the library. */
    char node_file[4200];
    snprintf(node_file, sizeof node_file, "%s/nodes", dir);
    FILE *nf = l->node && rc == 0 ? fopen(node_file, "w") : NULL;
    for (long r = 0; nf && r < l->n; r++)
        fprintf(nf, "%lu\n", l->node[r]);
    if (l->node && rc == 0 && (!nf || fclose(nf) != 0)) {
        fprintf(stderr, "insee-mpirun: cannot write %s: %s\n", node_file, strerror(errno));
        rc = 1;
    }
    char address[4210], rank[32], size[32], fd[32];
    snprintf(address, sizeof address, "unix:%s", path);
    snprintf(size, sizeof size, "%ld", l->n);
    snprintf(fd, sizeof fd, "%d", report[1]);
    char trace_parts[4200];
    snprintf(trace_parts, sizeof trace_parts, "%s/trace", dir);
    for (long r = 0; rc == 0 && !stop_signal && r < l->n; r++) {
        snprintf(rank, sizeof rank, "%ld", r);
        const char *env[13] = {"INSEE_MPI_ADDRESS", address, "INSEE_MPI_RANK", rank,
                               "INSEE_MPI_SIZE", size, "INSEE_MPI_REPORT_FD", fd};
        int e = 8;
        if (l->node) {
            env[e++] = "INSEE_MPI_NODES";
            env[e++] = node_file;
        }
        if (l->trace) {
            env[e++] = "INSEE_MPI_TRACE";
            env[e++] = trace_parts;
        }
        pids[n_pids] = spawn(l->program, env, report[1], false);
        if (pids[n_pids++] < 0) {
            fprintf(stderr, "insee-mpirun: cannot start rank %ld: %s\n", r, strerror(errno));
            rc = 1;
        }
    }
    close(report[1]);
    /* While ranks may still report: a look at the pipe every 100 ms at most;
       then only the processes. */
    bool reading = true;
    for (long live = rc == 0 ? n_pids : 0; live > 0 && rc == 0 && !stop_signal;) {
        if (reading)
            poll(&(struct pollfd){.fd = report[0], .events = POLLIN}, 1, 100);
        pid_t pid = waitpid(-1, &status, reading ? WNOHANG : 0);
        if (pid < 0 && errno == EINTR)
            continue;
        if (pid < 0)
            break;
        if (reading)
            reading = read_reports(report[0], ranks, l->n);
        if (pid == 0) {
            if (deadlocked(ranks, l->n)) {
                fprintf(stderr, "insee-mpirun: deadlock: every rank still running waits for a "
                        "message, and none is on its way:\n");
                for (long r = 0; r < l->n; r++)
                    if (!ranks[r].finalized)
                        fprintf(stderr, "  rank %ld waits for %s\n", r, ranks[r].what);
                rc = 1;
            }
            continue;
        }
        long who = 0;
        while (who < n_pids && pids[who] != pid)
            who++;
        if (who == n_pids)
            continue;
        live--;
        pids[who] = 0;
        bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
        char how[128];
        describe(status, how, sizeof how);
        if (who == 0 && !ok) {
            fprintf(stderr, "insee-mpirun: the simulation %s (its message above says why)\n",
                    how);
            rc = 1;
        } else if (who > 0 && (!ok || !ranks[who - 1].finalized)) {
            fprintf(stderr, "insee-mpirun: rank %ld %s%s\n", who - 1, how,
                    ranks[who - 1].finalized ? "" : " without calling insee_mpi_finalize()");
            rc = 1;
        }
    }
    stop_all();
    if (stop_signal) {
        fprintf(stderr, "insee-mpirun: stopped by signal %d (%s); the ranks and the simulation "
                "were stopped\n", (int)stop_signal, strsignal(stop_signal));
        rc = 128 + stop_signal;
    } else if (rc == 0 && l->trace && (rc = join_trace(l, dir)) != 0) {
        /* said by join_trace() */
    } else if (rc == 0) {
        long last = 0;
        for (long r = 1; r < l->n; r++)
            if (ranks[r].at > ranks[last].at)
                last = r;
        printf("simulated completion time: %llu client units (rank %ld finalized last, "
               "%ld ranks)\n", ranks[last].at, last, l->n);
    }
    close(report[0]);
    free(ranks);
    free(pids);
    pids = NULL; /* the signal handler reads it */
    free(argv);
    return rc;
}

int main(int argc, char **argv)
{
    launch l;
    int rc = parse(argc, argv, &l);
    if (rc != 0) {
        free(l.sets);
        free(l.node);
        return rc;
    }
    /* stdout goes to the same place as the simulation's report: flush before
       forking so nothing is printed twice. */
    fflush(stdout);
    /* Before the directory exists, so that no signal leaves it behind. */
    catch_stop_signals();
    char dir[4096];
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(dir, sizeof dir, "%s/insee-mpirun-XXXXXX", tmp);
    if (!mkdtemp(dir)) {
        fprintf(stderr, "insee-mpirun: cannot create a directory in %s: %s\n", tmp,
                strerror(errno));
        free(l.sets);
        free(l.node);
        return 1;
    }
    rc = run(&l, dir);
    char path[4200];
    snprintf(path, sizeof path, "%s/bridge.sock", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/nodes", dir);
    unlink(path);
    for (long r = 0; l.trace && r < l.n; r++) {
        snprintf(path, sizeof path, "%s/trace.%ld", dir, r);
        unlink(path);
    }
    rmdir(dir);
    free(l.sets);
    free(l.node);
    return rc;
}
