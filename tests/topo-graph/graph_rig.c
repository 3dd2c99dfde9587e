/* graph_rig.c — the graph plugin on the mock host, fed from files. */
#define _POSIX_C_SOURCE 200809L /* mkstemp, unlink */
#include "graph_rig.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const formats[] = {"insee", "edges"};

void rig_open(graph_rig *g)
{
    memset(g, 0, sizeof *g);
    g->k.seed = 1;
    g->host = mock_host(&g->k);
    g->vt = load_plugin("topology", "graph")->vtable;
}

void *rig_file(graph_rig *g, const char *path, int format, insee_error *err)
{
    insee_value params[2] = {
        {.type = INSEE_PARAM_STRING, .s = path},
        value_enum(format, formats[format]),
    };
    *err = (insee_error){0};
    return g->vt->create(&g->host, params, err);
}

void *rig_text(graph_rig *g, const char *text, size_t len, int format, insee_error *err)
{
    if (!g->path[0]) {
        snprintf(g->path, sizeof g->path, "/tmp/insee-graph-XXXXXX");
        int fd = mkstemp(g->path);
        if (fd < 0) {
            perror("mkstemp");
            abort();
        }
        close(fd);
    }
    FILE *f = fopen(g->path, "wb");
    if (!f || fwrite(text, 1, len, f) != len || fclose(f) != 0) {
        perror(g->path);
        abort();
    }
    return rig_file(g, g->path, format, err);
}

void rig_close(graph_rig *g)
{
    if (g->path[0])
        unlink(g->path);
    g->path[0] = '\0';
}
