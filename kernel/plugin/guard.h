/* kernel/plugin/guard.h — which plugin was running when the process ended
 * or crashed.
 *
 * Contract
 * --------
 * The registry tells the guard the address range of every plugin it loads
 * into the process (insee_guard_add, insee_guard_remove before unloading)
 * and which plugin is being loaded while its constructors and entry function
 * run (insee_guard_loading), so that a frame of the stack can be traced to a
 * plugin. That bookkeeping is all a library user gets.
 *
 * A program opts in with insee_guard_install(), once, early. From then on:
 *  - exit() called from a plugin's code (its create(), a constructor, any
 *    entry) writes "PROGRAM: error: <kind> plugin '<name>' (<path>) called
 *    exit() ..." on stderr and ends the process with `exit_status`, never
 *    with the status the plugin chose: an exit(0) must not pass for a run
 *    that succeeded;
 *  - a fatal signal (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) raised in a
 *    plugin's code writes "... crashed (signal N)" and then takes its course
 *    as before the install: the previous handler (AddressSanitizer's, say)
 *    or the default action, so the exit status still says "signal".
 * An exit() or crash elsewhere is left alone. The stack is read with
 * backtrace(), and the handlers only read a fixed table and write(2), so
 * they work inside a signal handler. Not thread-aware: the kernel loads and
 * calls plugins from one thread.
 */
#ifndef INSEE_KERNEL_GUARD_H
#define INSEE_KERNEL_GUARD_H

#include <glib.h>

G_BEGIN_DECLS

/* `label` names the plugin in messages, e.g. "router plugin 'dally' (/x.so)". */
void insee_guard_add(const char *path, const char *label);
void insee_guard_remove(const char *path);
/* The plugin being loaded (NULL: none), blamed for what happens meanwhile. */
void insee_guard_loading(const char *label);

void insee_guard_install(const char *program, int exit_status);

G_END_DECLS
#endif
