/* kernel/scanner/main.c — insee-scan, the plugin scanner helper.
 *
 *   insee-scan -- FILE...
 *
 * Loads each file in turn, the way the kernel does, and prints what it
 * found as a registry record (kernel/plugin/probe.h) on its standard output.
 * It is a process of its own because loading runs the plugin's code: a
 * constructor or entry function that crashes, calls exit() or never returns
 * ends or stalls this process, not the program that asked, which then knows
 * which file did it (the first without a record) and starts another scanner
 * for the rest. Not meant to be run by hand, but harmless: it only loads the
 * files and prints.
 *
 * A plugin's own output goes to stderr: standard output carries the records
 * and nothing else.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plugin/registry.h"

static int records = -1;          /* the original stdout */
static volatile sig_atomic_t loading; /* a plugin's code may be running */

static gboolean write_all(const char *s, size_t len)
{
    while (len > 0) {
        ssize_t n = write(records, s, len);
        if (n <= 0)
            return FALSE;
        s += n;
        len -= (size_t)n;
    }
    return TRUE;
}

/* exit() from a constructor or entry function: say so, and end without the
   rest of the exit handlers (a sanitizer's leak check would blame this
   program for what the interrupted load had in hand). */
static void on_exit_while_loading(void)
{
    if (!loading)
        return;
    write_all(INSEE_SCANNER_EXITED, strlen(INSEE_SCANNER_EXITED));
    _exit(0);
}

int main(int argc, char **argv)
{
    records = dup(STDOUT_FILENO);
    if (records < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
        return 1;
    int first = argc > 1 && strcmp(argv[1], "--") == 0 ? 2 : 1;
    if (atexit(on_exit_while_loading) != 0 ||
        !write_all(INSEE_SCANNER_HELLO, strlen(INSEE_SCANNER_HELLO)))
        return 1;
    for (int i = first; i < argc; i++) {
        insee_plugin_facts f;
        loading = 1;
        insee_plugin_inspect(argv[i], &f);
        loading = 0;
        GString *out = g_string_new(NULL);
        insee_record_append(out, argv[i], NULL, &f);
        gboolean sent = write_all(out->str, out->len);
        g_string_free(out, TRUE);
        insee_plugin_facts_clear(&f);
        if (!sent)
            return 1; /* the asker is gone */
    }
    return 0;
}
