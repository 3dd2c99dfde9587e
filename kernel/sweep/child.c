/* kernel/sweep/child.c — one run of a sweep in a process of its own (child.h). */
#define _DEFAULT_SOURCE
#include "sweep/child.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* The child's first steps: killed with the sweep, standard input and
   output to /dev/null, standard error to `log`. Only async-signal-safe
   calls: the parent may hold locks (malloc's) that the child would wait on
   forever. */
static void child_begin(const char *log, pid_t parent)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(127); /* the sweep died before the line above */
    int null = open("/dev/null", O_RDWR);
    int err = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (null < 0 || err < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 || dup2(err, 2) < 0)
        _exit(127);
}

static pid_t fork_failed(GError **err)
{
    int e = errno;
    g_set_error(err, G_FILE_ERROR, g_file_error_from_errno(e),
                "could not start a run (fork: %s)", g_strerror(e));
    return -1;
}

pid_t insee_sweep_child_start(char *const *argv, const char *log, GError **err)
{
    /* A run of a sweep that mpirun started is one process, not one of
       mpirun's ranks splitting a run (engine/partition.h): it is not told
       how many ranks there are. Made before the fork, which allows only
       async-signal-safe calls. */
    char **env = g_environ_unsetenv(g_get_environ(), "OMPI_COMM_WORLD_SIZE");
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        child_begin(log, parent);
        execve(argv[0], argv, env);
        _exit(127);
    }
    g_strfreev(env);
    return pid < 0 ? fork_failed(err) : pid;
}

gboolean insee_sweep_child_can_fork(void)
{
    GDir *tasks = g_dir_open("/proc/self/task", 0, NULL);
    guint threads = 0;
    while (tasks && g_dir_read_name(tasks))
        threads++;
    if (tasks)
        g_dir_close(tasks);
    return threads == 1;
}

pid_t insee_sweep_child_call(int (*body)(void *ctx), void *ctx, const char *log, GError **err)
{
    pid_t parent = getpid();
    fflush(NULL); /* nothing of the sweep's buffered output twice */
    pid_t pid = fork();
    if (pid == 0) {
        child_begin(log, parent);
        /* The sweep's handlers would keep the run going on a stop. */
        static const int stops[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
        for (size_t i = 0; i < G_N_ELEMENTS(stops); i++)
            signal(stops[i], SIG_DFL);
        int code = body(ctx);
        fflush(NULL);
        _exit(code & 0xff);
    }
    return pid < 0 ? fork_failed(err) : pid;
}

/* The log's last non-empty line, or NULL. */
static char *last_line(const char *log)
{
    char *text = NULL;
    if (!g_file_get_contents(log, &text, NULL, NULL))
        return NULL;
    char **lines = g_strsplit(g_strchomp(text), "\n", -1);
    guint n = g_strv_length(lines);
    char *last = n && *lines[n - 1] ? g_strdup(lines[n - 1]) : NULL;
    g_strfreev(lines);
    g_free(text);
    return last;
}

char *insee_sweep_child_failure(int status, const char *log)
{
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return NULL;
    char *why = WIFSIGNALED(status)
                    ? g_strdup_printf("killed by signal %d (%s)", WTERMSIG(status),
                                      g_strsignal(WTERMSIG(status)))
                    : WEXITSTATUS(status) == 127
                          ? g_strdup("exit status 127 (insee could not be started)")
                          : g_strdup_printf("exit status %d", WEXITSTATUS(status));
    char *words = last_line(log);
    char *out = words ? g_strdup_printf("%s: %s", why, words) : g_strdup(why);
    g_free(words);
    g_free(why);
    return out;
}
