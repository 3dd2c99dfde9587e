/* Fuzz target for what `insee sweep` reads from its user (kernel/sweep/):
 * the input's lines up to the first empty one are --vary specifications
 * (the first also read as --shard I/N), the rest is an existing results
 * file. Whatever the bytes, the grid is
 * built or refused with an error, every point's key is found again and its
 * configuration and load rank lie within the grid; the results file is
 * taken (its rows' fields then read) or refused with an error naming it,
 * never a crash or a leak. */
#include <glib.h>
#include <glib/gstdio.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "sweep/cluster.h"
#include "sweep/grid.h"
#include "sweep/results.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void walk_grid(const insee_sweep_grid *g)
{
    guint points = insee_sweep_grid_points(g);
    for (guint p = 0; p < points && p < 4096; p++) {
        if (insee_sweep_grid_find(g, insee_sweep_grid_key(g, p)) != (gint)p)
            g_error("point %u is not found by its key", p);
        if (insee_sweep_grid_configuration(g, p) >= points || insee_sweep_grid_load_rank(g, p) >= points)
            g_error("point %u: configuration or load rank outside the grid", p);
        (void)insee_sweep_grid_assignments(g, p);
    }
}

static void read_results(const char *text, gsize len)
{
    static char *path;
    if (!path) {
        int fd = g_file_open_tmp("fuzz-sweep-XXXXXX.csv", &path, NULL);
        if (fd < 0)
            g_error("no temporary file");
        close(fd);
    }
    if (!g_file_set_contents(path, text, (gssize)len, NULL))
        return;
    GError *err = NULL;
    insee_sweep_results *r = insee_sweep_results_open(path, "0123456789abcdef", &err);
    if (!r) {
        if (!err || !strstr(err->message, path))
            g_error("a refusal that does not name the file");
        g_error_free(err);
        return;
    }
    for (guint i = 0; i < insee_sweep_results_rows(r); i++) {
        (void)insee_sweep_results_vary(r, i);
        (void)insee_sweep_results_seed(r, i);
        (void)insee_sweep_results_number(r, i, "accepted_load");
        (void)insee_sweep_results_field(r, i, "no such column");
    }
    insee_sweep_results_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = g_strndup((const char *)data, size);
    char *rest = strstr(text, "\n\n");
    if (rest)
        *rest = 0;
    char **specs = g_strsplit(text, "\n", 5);
    GError *err = NULL;
    guint shard, shards;
    if (specs[0] && insee_sweep_shard_parse(specs[0], &shard, &shards, &err) &&
        (shard < 1 || shard > shards))
        g_error("--shard %s taken as %u/%u", specs[0], shard, shards);
    g_clear_error(&err);
    insee_sweep_grid *g = insee_sweep_grid_new(specs, &err);
    if (g)
        walk_grid(g);
    else if (!err || !g_str_has_prefix(err->message, "--vary"))
        g_error("a refused grid without a --vary error");
    g_clear_error(&err);
    insee_sweep_grid_free(g);
    g_strfreev(specs);
    if (rest)
        read_results((const char *)data + (rest - text) + 2, size - (gsize)(rest - text) - 2);
    g_free(text);
    return 0;
}
