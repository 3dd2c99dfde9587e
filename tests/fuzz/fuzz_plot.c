/* Fuzz target for the readers of `insee plot` (kernel/report/curves.c,
 * csv.c, results.c): the input is one file, a CSV file or (when it starts
 * with '{') a run JSON file. Whatever the bytes, insee_plot_script() returns
 * a gnuplot script or an error naming the file, never crashes or leaks; and
 * a script it returns hands gnuplot nothing it could evaluate: outside its
 * single-quoted strings there is no backquote or macro (@), and no string
 * holds a line break. gnuplot itself is not run. */
#include <glib.h>
#include <stdint.h>
#include <stdlib.h>

#include "report/curves.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_script(const char *s)
{
    gboolean quoted = FALSE;
    for (const char *p = s; *p; p++) {
        if (*p == '\'' && quoted && p[1] == '\'')
            p++;
        else if (*p == '\'')
            quoted = !quoted;
        else if (quoted && *p == '\n')
            abort();
        else if (!quoted && (*p == '`' || *p == '@'))
            abort();
    }
    if (quoted)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = g_strndup((const char *)data, size);
    const char *name = "<fuzz>";
    const insee_plot_options options[] = {{.latency = "mean"}, {.latency = "p99", .log = TRUE}};
    for (size_t i = 0; i < G_N_ELEMENTS(options); i++) {
        GError *err = NULL;
        const char *texts[] = {text};
        char *script = insee_plot_script(&name, texts, &size, 1, &options[i], &err);
        if (script)
            check_script(script);
        g_free(script);
        g_clear_error(&err);
    }
    g_free(text);
    return 0;
}
