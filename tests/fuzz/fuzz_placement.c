/* Fuzz target for the file placement's parser (plugins/sched/file): whatever
 * the bytes, the lines are accepted or refused with an error, never a crash,
 * a read out of bounds or a leak. The first byte picks the layout (odd:
 * INSEE's "node task application", even: "task node") and, in its next two
 * bits, the application placed; the rest is the file. The parser is static
 * in the plugin, so the harness includes the plugin's source rather than
 * widen its interface. Built as a libFuzzer target with -DINSEE_FUZZ=ON
 * (clang); always built as a replay driver that runs the seed corpus
 * (corpus-placement/) under ctest. */
#include "file.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    file_map m = {.path = "fuzz", .layout = &file_layouts[data[0] & 1], .app = data[0] >> 1 & 3};
    insee_error err = {0};
    if (file_parse(&m, (const char *)data + 1, size - 1, &err)) {
        if (m.mine == 0 || m.mine > m.n)
            abort(); /* accepted without a line of the application */
        for (uint32_t i = 0; i < m.n; i++)
            if (m.pairs[i].line == 0 || m.pairs[i].line > m.lines ||
                (m.layout->columns == 2 && m.pairs[i].app != 0))
                abort();
    } else if (!err.code) {
        abort(); /* refused without saying why */
    }
    free(m.pairs);
    return 0;
}
