/* kernel/sweep/child.h — one run of a sweep in a process of its own.
 *
 * A run is `insee run` in a child process, its standard output discarded
 * and its standard error kept in a file, so that a plugin that crashes or
 * exits costs that run only and its last words can be reported. The child
 * is killed when the sweep dies (PR_SET_PDEATHSIG), so a killed sweep
 * leaves no run going on that a new sweep would start again.
 *
 * Two ways to start it: fork and exec of the insee program, or fork alone,
 * the child calling the run in the sweep's own process image. The second
 * skips loading and linking the program and its libraries again, most of
 * a short run's start-up; it is safe only while the sweep has one thread
 * (a lock another thread holds at the fork stays held in the child), so
 * never under mpirun, whose library runs threads of its own.
 */
#ifndef INSEE_SWEEP_CHILD_H
#define INSEE_SWEEP_CHILD_H

#include <glib.h>
#include <sys/types.h>

G_BEGIN_DECLS

/* Start `argv` (argv[0] a path), standard error to `log`. The pid, or -1
   with *err. */
pid_t insee_sweep_child_start(char *const *argv, const char *log, GError **err);

/* Whether this process has a single thread, so that
   insee_sweep_child_call() is safe. */
gboolean insee_sweep_child_can_fork(void);

/* Fork; the child calls body(ctx), standard error to `log`, and exits with
   what it returns. The pid, or -1 with *err. */
pid_t insee_sweep_child_call(int (*body)(void *ctx), void *ctx, const char *log, GError **err);

/* Why a run that ended with wait status `status` failed, in words: NULL
   when it succeeded (exit 0). The log's last line is quoted when there is
   one. g_free. */
char *insee_sweep_child_failure(int status, const char *log);

G_END_DECLS
#endif
