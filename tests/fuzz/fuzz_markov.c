/* Fuzz target for the markov traffic's matrix string
 * (plugins/traffic/markov, parameter `matrix`): whatever the bytes, the
 * text is accepted as 4 rows of 4 probabilities that each sum to 1, or
 * refused with an error, never a crash or a read past the string. The
 * parser is static in the plugin, so the harness includes the plugin's
 * source. Built as a libFuzzer target with -DINSEE_FUZZ=ON (clang); always
 * built as a replay driver that runs the seed corpus (corpus-markov/) under
 * ctest. */
#include "markov.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1); /* the parameter arrives as a C string */
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    double m[PHASES][PHASES];
    insee_error err = {0};
    if (parse_matrix(m, text, &err)) {
        for (int a = 0; a < PHASES; a++) {
            double sum = 0;
            for (int b = 0; b < PHASES; b++) {
                if (!(m[a][b] >= 0 && m[a][b] <= 1))
                    abort();
                sum += m[a][b];
            }
            if (fabs(sum - 1) > 1e-9)
                abort();
        }
    } else if (!err.code) {
        abort();
    }
    free(text);
    return 0;
}
