/* Fuzz target for the SpiNNaker router's table files
 * (plugins/router/spinnaker): whatever the bytes, a table is read into
 * sorted entries that name existing routers, sources and ports, or refused
 * with an error, never a crash, a read out of bounds or a leak. The reader
 * is static in the plugin, so the harness includes the plugin's source; the
 * network is a fixed small one (8 routers of 7 ports, 8 nodes). Built as a
 * libFuzzer target with -DINSEE_FUZZ=ON (clang); always built as a replay
 * driver that runs the seed corpus (corpus-spinnaker/) under ctest. */
#define _POSIX_C_SOURCE 200809L /* fmemopen */
#include "spinnaker.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { FUZZ_ROUTERS = 8, FUZZ_PORTS = 7 };

static uint32_t fuzz_ports(insee_kernel *k, uint32_t router)
{
    (void)k;
    if (router >= FUZZ_ROUTERS)
        abort(); /* the reader asked about a router it should have refused */
    return FUZZ_PORTS;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) /* fmemopen refuses an empty buffer */
        return 0;
    FILE *f = fmemopen((void *)data, size, "r");
    if (!f)
        return 0;
    const insee_host host = {.size = sizeof host, .ports = fuzz_ports};
    const insee_shape shape = {.routers = FUZZ_ROUTERS, .nodes = FUZZ_ROUTERS};
    spinnaker self = {.host = &host};
    insee_error err = {0};
    if (read_entries(&self, f, "fuzz", &shape, &err)) {
        for (size_t i = 0; i < self.nentries; i++) {
            const entry *e = &self.entries[i];
            if ((i && e->key <= self.entries[i - 1].key) || e->n == 0 ||
                e->first + e->n > self.nports)
                abort();
            for (uint32_t j = 0; j < e->n; j++)
                if (self.ports[e->first + j] >= FUZZ_PORTS &&
                    self.ports[e->first + j] != INSEE_PORT_LOCAL)
                    abort();
        }
    } else if (!err.code) {
        abort();
    }
    fclose(f);
    free(self.entries);
    free(self.ports);
    return 0;
}
