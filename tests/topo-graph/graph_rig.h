/* graph_rig.h — what the graph plugin's unit tests and its fuzz target
 * share: the plugin loaded through the plugin test harness (../plugins),
 * network text written to a temporary file, and create() called on a file
 * through the mock host, the way the kernel calls it. */
#ifndef INSEE_TEST_TOPO_GRAPH_RIG_H
#define INSEE_TEST_TOPO_GRAPH_RIG_H

#include "../plugins/harness.h"

enum { FORMAT_INSEE, FORMAT_EDGES }; /* the choices of the `format` parameter */

typedef struct graph_rig {
    insee_kernel k;
    insee_host host;
    const insee_topology_vtable *vt;
    char path[64]; /* the temporary file; "" until rig_text writes one */
} graph_rig;

/* Load the graph plugin and set up the mock host. */
void rig_open(graph_rig *g);

/* create() on `path` in `format`: the instance, or NULL with err filled. */
void *rig_file(graph_rig *g, const char *path, int format, insee_error *err);

/* Write `len` bytes of `text` to the rig's temporary file, then rig_file. */
void *rig_text(graph_rig *g, const char *text, size_t len, int format, insee_error *err);

/* Remove the temporary file. */
void rig_close(graph_rig *g);

#endif
