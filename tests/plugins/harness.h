/* harness.h — what the plugin unit tests share: load a built plugin .so with
 * dlopen, build parameter values by hand, a mock kernel behind an
 * insee_host table (shape, seeded streams, topology queries forwarded to a
 * topology instance, fixed output room), and a packet carried through a
 * router model on it. No kernel library is involved. */
#ifndef INSEE_TEST_PLUGINS_HARNESS_H
#define INSEE_TEST_PLUGINS_HARNESS_H

#include <insee/insee.h>

/* The mock kernel behind the host table; tests fill the fields they need. */
struct insee_kernel {
    insee_shape shape;
    uint64_t seed;
    const insee_topology_vtable *topo; /* topology queries go here */
    void *topo_self;
    uint32_t room[4]; /* output_room() by VC, whatever the router and port */
    uint32_t phit_bytes; /* message_packets(); 0 counts as the default 4 */
    uint64_t *wake_at;   /* wake_task(t, at) keeps the earliest at in wake_at[t]; NULL: ignored */
    /* bridge_inject() appends to injected (room for max_injected), refusing
       nodes from shape.tasks on; NULL: every call refused. */
    insee_bridge_msg *injected;
    uint32_t n_injected, max_injected;
};

/* dlopen <kind>-<name>.so from the build tree and check its descriptor. */
const insee_plugin_desc *load_plugin(const char *kind, const char *name);

/* A host table whose calls reach `k`. */
insee_host mock_host(insee_kernel *k);

/* Create a torus (bidirectional or not) or mesh instance on `k` and point
   the mock's topology queries and shape at it. */
void mock_topology(insee_kernel *k, const char *name, const int64_t *dims, size_t n,
                   bool bidirectional);
void mock_topology_free(insee_kernel *k);

/* One hop of a packet's path: where it was and the output and VC it took. */
typedef struct route_step {
    uint32_t router, port;
    uint16_t vc;
} route_step;

/* Carry one packet from node src to node dst of a direct topology (node n
   on router n) through router model `vt` instance `router` on `k`, the way
   the kernel would: route(), take the first candidate (a VC below
   shape.vcs, at most one packet of room), forwarded(), follow k's link().
   Records each hop in path (room for max_steps); asserts that the packet
   arrives within max_steps hops, in exactly distance() hops. Returns the
   hops. */
uint32_t route_walk(const insee_kernel *k, const insee_router_vtable *vt, void *router,
                    uint32_t src, uint32_t dst, uint32_t salt, route_step *path,
                    uint32_t max_steps);

insee_value value_bool(bool b);
insee_value value_double(double d);
insee_value value_int(int64_t i);
insee_value value_enum(int64_t index, const char *s);
insee_value value_int_list(const int64_t *list, size_t n);
insee_value value_string(const char *s);

#endif
