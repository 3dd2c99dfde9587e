/* graph.h — what the graph plugin's two sources share: the network as read
 * from the file (graph_file.c parses both formats into a graph_spec) and the
 * error helper that prefixes every message with the file and line. graph.c
 * turns the spec into ports, checks it and tables the distances. Everything
 * here is hidden like all but the plugin's entry.
 */
#ifndef INSEE_PLUGIN_GRAPH_H
#define INSEE_PLUGIN_GRAPH_H

#include <insee/insee.h>

#define GRAPH_NONE UINT32_MAX
/* Distances are 16-bit (a path of 65535 routers has 65534 hops) and router
   ids must fit the same bound. */
#define GRAPH_MAX_ROUTERS 65535u
/* Per-node arrays stay within a few MiB whatever the file says; 16 times the
   largest reference experiment (a 64x32x32 torus). */
#define GRAPH_MAX_NODES (1u << 20)
/* The kernel's limit: port numbers stop below its pseudo-ports (host.h). */
#define GRAPH_MAX_PORTS INSEE_MAX_PORTS
/* A network file is read whole: a larger one is refused before reading (a
   link line takes a few bytes, so this is tens of millions of links, more
   than the kernel could hold in memory on most machines). */
#define GRAPH_MAX_FILE (256u << 20)

enum { GRAPH_FORMAT_INSEE, GRAPH_FORMAT_EDGES };

/* One `link` (both ways) or `arc` (a -> b only), with the ports it takes at
   each end once graph.c has numbered them. */
typedef struct graph_link {
    uint32_t a, b;
    uint32_t line;
    bool arc;
    uint16_t port_a, port_b;
} graph_link;

typedef struct graph_spec {
    const char *path;
    int format;
    uint32_t routers, nodes;
    /* Lines that explain the counts in messages: where `routers` and `nodes`
       were declared (insee format), or where the largest id of an edge list
       was read; 0 when implicit. */
    uint32_t routers_line, nodes_line;
    graph_link *links;
    size_t n_links;
    /* node -> router from `node` lines; NULL: nodes spread evenly, nodes /
       routers consecutive nodes per router. */
    uint32_t *node_router;
} graph_spec;

/* Read and parse `path` in `format`; false with err filled (file, line, what
   is wrong, what to do). On success the caller frees with graph_spec_free. */
bool graph_spec_read(graph_spec *spec, const char *path, int format, insee_error *err);
void graph_spec_free(graph_spec *spec);

/* Set err to "graph: PATH:LINE: message" (no line part when line is 0);
   returns false so callers can `return graph_fail(...)`. */
bool graph_fail(insee_error *err, int code, const char *path, uint32_t line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

#endif
