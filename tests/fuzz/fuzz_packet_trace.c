/* Fuzz target for the packet trace reader behind `insee trace phits`
 * (kernel/stats/trace.c; docs/packet-trace.md). The input is the file, plain
 * text or gzip (zlib reads both); it is read once for every packet and once
 * for packet 7. Whatever the bytes, the reader must print or return an error
 * naming the line, never crash or leak. */
#define _GNU_SOURCE
#include <glib.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "stats/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int fd = memfd_create("packet-trace", MFD_CLOEXEC);
    if (fd < 0)
        return 0;
    FILE *out = fopen("/dev/null", "w");
    if (out && write(fd, data, size) == (ssize_t)size) {
        char *path = g_strdup_printf("/proc/self/fd/%d", fd);
        const uint64_t only[] = {0, 7};
        for (size_t i = 0; i < G_N_ELEMENTS(only); i++) {
            GError *err = NULL;
            if (!insee_trace_phits(path, only[i], out, &err))
                g_clear_error(&err);
        }
        g_free(path);
    }
    if (out)
        fclose(out);
    close(fd);
    return 0;
}
