/* Fuzz target for the graph topology's file reader (docs/architecture.md
 * §10: every parser has one). The input is written as a network file and
 * handed to the plugin's create() through the mock host, once per format; whatever the
 * bytes, it must return an instance or an error message naming the file —
 * never crash or leak. A network it accepts is then queried (info, ports,
 * links, minimal hops and distances from a few routers) the way the kernel
 * would. Built as a libFuzzer target with -DINSEE_FUZZ=ON (clang); always
 * built with ../fuzz/replay.c as a driver that runs the corpus under ctest. */
#include <stdlib.h>
#include <string.h>

#include "graph_rig.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The kernel's queries on an accepted network, bounded so that a large
   network from a small input stays quick. */
static void query(const insee_topology_vtable *vt, void *self)
{
    insee_topology_info info;
    vt->info(self, &info);
    if (info.routers == 0 || info.nodes == 0)
        abort();
    insee_hop *out = malloc(sizeof *out * (info.max_ports + 1));
    for (uint32_t r = 0; r < info.routers && r < 16; r++) {
        uint32_t ports = vt->ports(self, r);
        if (ports > info.max_ports)
            abort();
        for (uint32_t p = 0; p < ports; p++) {
            insee_port_peer q;
            if (vt->link(self, r, p, &q) &&
                (q.router >= info.routers || q.port >= vt->ports(self, q.router)))
                abort();
        }
        for (uint32_t n = 0; n < info.nodes && n < 16; n++) {
            uint32_t d = vt->distance(self, r, n);
            uint32_t w = vt->minimal_hops(self, r, n, r * 31u + n, out, info.max_ports + 1);
            if ((d == 0) != (w == 0) || w > ports || vt->node_router(self, n) >= info.routers)
                abort();
        }
    }
    free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static graph_rig rig;
    if (!rig.vt)
        rig_open(&rig);
    for (int format = FORMAT_INSEE; format <= FORMAT_EDGES; format++) {
        insee_error err;
        void *self = rig_text(&rig, (const char *)data, size, format, &err);
        if (self) {
            query(rig.vt, self);
            rig.vt->destroy(self);
        } else if (err.code == INSEE_ERR_NONE || strncmp(err.message, "graph: ", 7) != 0) {
            abort(); /* a refusal must say why */
        }
    }
    rig_close(&rig);
    return 0;
}
