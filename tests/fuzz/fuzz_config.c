/* Fuzz target for the configuration parser (docs/architecture.md §10:
 * every parser has one). The input is split at its first newline: the rest
 * is a TOML document, the first line a `--set` override. Whatever the bytes, loading, overriding,
 * validating and echoing must return a value or a GError — never crash or
 * leak. Built as a libFuzzer target with -DINSEE_FUZZ=ON (clang); always
 * built as a replay driver that runs the seed corpus under ctest. */
#include <glib.h>
#include <stdint.h>
#include <string.h>

#include "config/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const insee_param_def params[] = {
    {"seed", INSEE_PARAM_INT, "1", 0, 1e15, NULL, NULL, "seed"},
    {"load", INSEE_PARAM_DOUBLE, "0.1", 0, 1, NULL, NULL, "load"},
    {"dims", INSEE_PARAM_INT_LIST, "[8, 8]", 1, 65535, NULL, NULL, "sizes"},
    {"mode", INSEE_PARAM_ENUM, "\"basic\"", 1, 0, "trc|basic", NULL, "mode"},
    {"name", INSEE_PARAM_STRING, "\"\"", 1, 0, NULL, NULL, "name"},
    {"on", INSEE_PARAM_BOOL, "true", 1, 0, NULL, NULL, "flag"},
    {0},
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = g_strndup((const char *)data, size);
    char *newline = strchr(text, '\n');
    const char *doc = newline ? newline + 1 : "";
    if (newline)
        *newline = '\0';
    GError *err = NULL;
    insee_config *cfg = insee_config_load_string(doc, "<fuzz>", &err);
    if (cfg) {
        static const char *const known[] = {"a", "b", NULL};
        if (!insee_config_set(cfg, text, &err))
            g_clear_error(&err);
        if (!insee_config_check_sections(cfg, known, &err))
            g_clear_error(&err);
        for (int i = 0; known[i]; i++) {
            const char *plugin = NULL;
            insee_binding b = {params, "the fuzzer", NULL};
            if (!insee_config_plugin_name(cfg, known[i], "x", &plugin, &err) ||
                !insee_config_bind(cfg, known[i], &b, 1, &err))
                g_clear_error(&err);
        }
        g_free(insee_config_echo(cfg));
        insee_config_free(cfg);
    }
    g_clear_error(&err);
    g_free(text);
    return 0;
}
