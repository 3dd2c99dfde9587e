/* hypercube.c — the binary n-cube: HyperX with every size 2, one link per
 * pair and one node per router. The arithmetic lives in ../hyperx/hamming.c,
 * shared with the hyperx plugin. */
#include "hamming.h"

enum { P_N };

/* 2^25 routers with 25 ports and a node each is the largest binary n-cube
   below the kernel's INSEE_MAX_QUEUES (2^26 x 27 is past 2^30), so the
   range refuses a larger n before any work. */
#define HYPERCUBE_MAX_DIMS 25

static const insee_param_def hypercube_params[] = {
    [P_N] = {"n", INSEE_PARAM_INT, "4", 1, HYPERCUBE_MAX_DIMS, NULL, "dimensions",
             "dimensions: 2^n routers, one node each; port d flips bit d of the router "
             "index; at most 25, the kernel's limit on ports and nodes"},
    {0},
};

static void *hypercube_create(const insee_host *host, const insee_value *params,
                              insee_error *err)
{
    (void)host; /* the wiring is a pure function of the parameters */
    int64_t twos[HYPERCUBE_MAX_DIMS];
    size_t n = (size_t)params[P_N].i;
    for (size_t d = 0; d < n; d++)
        twos[d] = 2;
    return hamming_create("hypercube", twos, n, 1, 1, "use a smaller n", err);
}

static const insee_topology_vtable hypercube_vtable = HAMMING_VTABLE(hypercube_create);

static const insee_plugin_desc hypercube_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_TOPOLOGY,
    .name = "hypercube",
    .version = "1.0.0",
    .summary = "binary n-cube (HyperX with every size 2): 2^n routers, n ports each",
    .reference = "INRFlow §3.2; the binary case of HyperX (Ahn et al., SC 2009)",
    .params = hypercube_params,
    .vtable = &hypercube_vtable,
};

INSEE_PLUGIN_DEFINE(hypercube_desc)
