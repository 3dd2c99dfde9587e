/* harness.h — what the plugin unit tests share: load a built plugin .so with
 * dlopen, build parameter values by hand, and a mock kernel behind an
 * insee_host table (shape, seeded streams, topology queries forwarded to a
 * topology instance, fixed output room). No kernel library is involved. */
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

insee_value value_bool(bool b);
insee_value value_double(double d);
insee_value value_enum(int64_t index, const char *s);
insee_value value_int_list(const int64_t *list, size_t n);

#endif
