/* sdk/trace/insee-trace.c — insee-trace: run an unmodified Open MPI program
 * under mpirun with libinsee-trace preloaded into its ranks, and leave one
 * FSIN trace of its messages (docs/trace-capture.md).
 *
 *   insee-trace [-o FILE] [--compute wall|cpu|none] [--scale F] -n N
 *               [-- MPIRUN-OPTIONS] -- PROGRAM [ARGS]
 *
 * mpirun is $MPIRUN, else the one on PATH; the library is
 * $INSEE_TRACE_LIBRARY, else the one installed beside this program (or
 * built beside it). The ranks write FILE.rankR.part, rank 0 merges them
 * into FILE.tmp and renames it FILE at MPI_Finalize, so FILE exists only
 * when the capture finished; the launcher removes FILE before it starts
 * and what a failed run left after it. Exit status: mpirun's when it
 * failed, 1 when no trace was written, 3 when the trace is incomplete
 * (the program made calls the capture cannot turn into messages; they are
 * named on stderr and in the trace), 2 for bad usage, 0 otherwise. */
#define _GNU_SOURCE /* asprintf */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct options {
    const char *out, *compute, *scale;
    long n;
    char **mpirun_opts, **program;
    int n_mpirun_opts;
} options;

static int usage(const char *why, const char *what)
{
    fprintf(stderr,
            "insee-trace: %s%s\nusage: insee-trace [-o FILE] [--compute wall|cpu|none] "
            "[--scale F] -n N [-- MPIRUN-OPTIONS] -- PROGRAM [ARGS...]\n",
            why, what);
    return 2;
}

static int parse(int argc, char **argv, options *o)
{
    *o = (options){.out = "insee-trace.fsin", .compute = "wall", .scale = "1"};
    int i = 1;
    for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
        const char *opt = argv[i];
        if (i + 1 >= argc)
            return usage("missing the value of ", opt);
        const char *value = argv[++i];
        char *end;
        if (!strcmp(opt, "-o"))
            o->out = value;
        else if (!strcmp(opt, "--compute")) {
            if (strcmp(value, "wall") && strcmp(value, "cpu") && strcmp(value, "none"))
                return usage("--compute is wall, cpu or none, not ", value);
            o->compute = value;
        } else if (!strcmp(opt, "--scale")) {
            double f = strtod(value, &end);
            if (*end || !*value || !(f >= 0) || f > 1e18)
                return usage("--scale is a non-negative number, not ", value);
            o->scale = value;
        } else if (!strcmp(opt, "-n")) {
            o->n = strtol(value, &end, 10);
            if (*end || o->n < 1 || o->n > 1 << 20)
                return usage("-n is a number of ranks (1 or more), not ", value);
        } else
            return usage("unknown option ", opt);
    }
    if (o->n < 1)
        return usage("-n N is required", "");
    if (i >= argc)
        return usage("no program: give it after --", "");
    /* [-- MPIRUN-OPTIONS] -- PROGRAM: a second -- ends mpirun's options */
    int first = ++i, second = -1;
    for (int j = first; j < argc && second < 0; j++)
        if (!strcmp(argv[j], "--"))
            second = j;
    if (second >= 0) {
        o->mpirun_opts = argv + first;
        o->n_mpirun_opts = second - first;
        first = second + 1;
    }
    if (first >= argc)
        return usage("no program: give it after --", "");
    o->program = argv + first;
    return 0;
}

/* The library: installed (INSEE_TRACE_LIB_FROM_BIN from the program's
   directory) or in the build tree (INSEE_TRACE_LIB_FROM_BUILD). */
static char *find_library(void)
{
    const char *env = getenv("INSEE_TRACE_LIBRARY");
    if (env && *env)
        return strdup(env);
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return NULL;
    self[n] = '\0';
    *strrchr(self, '/') = '\0';
    const char *ways[] = {INSEE_TRACE_LIB_FROM_BIN, INSEE_TRACE_LIB_FROM_BUILD};
    for (size_t i = 0; i < sizeof ways / sizeof *ways; i++) {
        char *path;
        if (asprintf(&path, "%s/%s/libinsee-trace.so", self, ways[i]) < 0)
            return NULL;
        char *real = realpath(path, NULL);
        free(path);
        if (real)
            return real;
    }
    return NULL;
}

/* The path as the ranks will see it, whatever their working directory. */
static char *absolute(const char *path)
{
    char cwd[PATH_MAX], *abs;
    if (path[0] == '/')
        return strdup(path);
    if (!getcwd(cwd, sizeof cwd) || asprintf(&abs, "%s/%s", cwd, path) < 0)
        return NULL;
    return abs;
}

static void remove_parts(const char *out, long n)
{
    char *path;
    for (long r = 0; r < n; r++)
        if (asprintf(&path, "%s.rank%ld.part", out, r) >= 0)
            unlink(path), free(path);
    if (asprintf(&path, "%s.tmp", out) >= 0)
        unlink(path), free(path);
}

/* Whether the trace says it is incomplete (its header's status line). */
static bool incomplete(const char *out)
{
    char line[4096];
    bool found = false;
    FILE *f = fopen(out, "r");
    while (f && !found && fgets(line, sizeof line, f) && line[0] == '#')
        found = !strncmp(line, "# status: INCOMPLETE", 20);
    if (f)
        fclose(f);
    return found;
}

static pid_t child;

static void forward(int sig)
{
    if (child > 0)
        kill(child, sig);
}

static int run(const options *o, const char *lib, const char *out)
{
    const char *mpirun = getenv("MPIRUN") && *getenv("MPIRUN") ? getenv("MPIRUN") : "mpirun";
    const char *preload = getenv("LD_PRELOAD");
    char n[32], *vars[4];
    /* a preloaded sanitizer runtime must stay first */
    if (asprintf(&vars[0], "LD_PRELOAD=%s%s%s", preload && *preload ? preload : "",
                 preload && *preload ? ":" : "", lib) < 0 ||
        asprintf(&vars[1], "INSEE_TRACE_OUT=%s", out) < 0 ||
        asprintf(&vars[2], "INSEE_TRACE_COMPUTE=%s", o->compute) < 0 ||
        asprintf(&vars[3], "INSEE_TRACE_SCALE=%s", o->scale) < 0)
        return 1;
    snprintf(n, sizeof n, "%ld", o->n);
    int n_program = 0;
    while (o->program[n_program])
        n_program++;
    char **argv = calloc((size_t)(3 + 2 * 5 + o->n_mpirun_opts + n_program + 1), sizeof *argv);
    if (!argv)
        return 1;
    int a = 0;
    argv[a++] = (char *)mpirun;
    argv[a++] = "-n";
    argv[a++] = n;
    for (int i = 0; i < 4; i++)
        argv[a++] = "-x", argv[a++] = vars[i];
    /* libinsee-mpi's choice of alltoall, which the capture follows */
    if (getenv("INSEE_MPI_ALLTOALL"))
        argv[a++] = "-x", argv[a++] = "INSEE_MPI_ALLTOALL";
    for (int i = 0; i < o->n_mpirun_opts; i++)
        argv[a++] = o->mpirun_opts[i];
    for (int i = 0; i < n_program; i++)
        argv[a++] = o->program[i];

    struct sigaction sa = {.sa_handler = forward};
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    child = fork();
    if (child == 0) {
        execvp(mpirun, argv);
        fprintf(stderr, "insee-trace: cannot run %s: %s; install Open MPI's mpirun or set MPIRUN\n",
                mpirun, strerror(errno));
        _exit(127);
    }
    int status = 0;
    while (child > 0 && waitpid(child, &status, 0) < 0 && errno == EINTR)
        ;
    free(argv);
    for (int i = 0; i < 4; i++)
        free(vars[i]);
    if (child < 0) {
        fprintf(stderr, "insee-trace: cannot start %s: %s\n", mpirun, strerror(errno));
        return 1;
    }
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return WEXITSTATUS(status);
}

int main(int argc, char **argv)
{
    options o;
    int rc = parse(argc, argv, &o);
    if (rc)
        return rc;
    char *lib = find_library(), *out = absolute(o.out);
    if (!lib || !out) {
        fprintf(stderr, "insee-trace: libinsee-trace.so not found beside %s; "
                        "set INSEE_TRACE_LIBRARY to its path\n", argv[0]);
        return 1;
    }
    if (unlink(out) != 0 && errno != ENOENT) {
        fprintf(stderr, "insee-trace: cannot replace %s: %s\n", out, strerror(errno));
        return 1;
    }
    rc = run(&o, lib, out);
    remove_parts(out, o.n);
    if (rc == 0 && access(out, F_OK) != 0) {
        fprintf(stderr, "insee-trace: no trace written to %s (the ranks say why above; the "
                        "program must call MPI_Init and MPI_Finalize)\n", out);
        rc = 1;
    } else if (rc != 0) {
        unlink(out);
        fprintf(stderr, "insee-trace: %s failed (exit status %d): no trace written\n",
                getenv("MPIRUN") && *getenv("MPIRUN") ? getenv("MPIRUN") : "mpirun", rc);
    } else if (incomplete(out))
        rc = 3;
    free(lib), free(out);
    return rc;
}
