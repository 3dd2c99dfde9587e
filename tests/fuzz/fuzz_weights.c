/* Fuzz target for the distribution plugin's file parser
 * (plugins/traffic/distribution/weights.c): whatever the bytes, the lines
 * are accepted or refused with an error naming a line, never a crash, a
 * read out of bounds or a leak. The first byte picks the format (odd, as
 * "1": population); the rest is split into lines as the plugin reads them. A
 * distribution it accepts is drawn from: every draw is another task with
 * a positive weight. Built as a libFuzzer target with -DINSEE_FUZZ=ON
 * (clang); always built as a replay driver that runs the seed corpus
 * (corpus-weights/) under ctest. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "weights.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_TASKS 64u

/* Draw from every task that sends; abort on a draw the contract forbids. */
static void draw_all(const weights *wt)
{
    insee_rng rng;
    insee_rng_init(&rng, 1, 2);
    for (uint32_t src = 0; src < FUZZ_TASKS; src++) {
        if (weights_silent(wt, src))
            continue;
        for (int i = 0; i < 16; i++) {
            uint32_t d = weights_draw(wt, src, &rng);
            if (d >= FUZZ_TASKS || d == src || !(wt->w[d] > 0))
                abort();
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    weights wt;
    insee_error err = {0};
    if (!weights_init(&wt, "fuzz", FUZZ_TASKS, data[0] & 1, &err))
        abort();
    const char *text = (const char *)data + 1;
    size_t len = size - 1, start = 0;
    uint32_t line = 0;
    bool ok = true;
    while (ok && start < len) {
        const char *nl = memchr(text + start, '\n', len - start);
        size_t end = nl ? (size_t)(nl - text) : len;
        ok = end - start <= WEIGHTS_MAX_LINE &&
             weights_line(&wt, text + start, end - start, ++line, &err);
        start = end + 1;
    }
    if (ok && weights_end(&wt, line, &err))
        draw_all(&wt);
    else if (ok && !err.code)
        abort(); /* refused without saying why */
    weights_free(&wt);
    return 0;
}
