/* Replays every file of the given directories through a fuzz target, so the
 * seed corpus (and any crash a fuzzer found, once added to it) runs in every
 * ctest, sanitizers included. */
#include <glib.h>
#include <stdint.h>
#include <stdio.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
    int files = 0;
    for (int a = 1; a < argc; a++) {
        GDir *dir = g_dir_open(argv[a], 0, NULL);
        if (!dir) {
            fprintf(stderr, "replay: cannot open %s\n", argv[a]);
            return 2;
        }
        for (const char *name; (name = g_dir_read_name(dir));) {
            char *path = g_build_filename(argv[a], name, NULL);
            char *data = NULL;
            gsize len = 0;
            if (g_file_get_contents(path, &data, &len, NULL)) {
                LLVMFuzzerTestOneInput((const uint8_t *)data, len);
                files++;
            }
            g_free(data);
            g_free(path);
        }
        g_dir_close(dir);
    }
    printf("replayed %d inputs\n", files);
    return files > 0 ? 0 : 1;
}
