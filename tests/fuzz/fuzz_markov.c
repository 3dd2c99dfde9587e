/* Fuzz target for the markov traffic's matrix string
 * (plugins/traffic/markov, parameter `matrix`): whatever the bytes, the
 * text is accepted as 4 rows of 4 probabilities whose rows each sum to 1,
 * or 6 rows of 6 whose rows and columns do, or refused with an error, never a crash or a read past the string. The
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
    double m[STATES][STATES];
    int states;
    insee_error err = {0};
    if (parse_matrix(m, &states, text, &err)) {
        int first = states == STATES ? INIT : COMPUTE;
        for (int a = first; a < first + states; a++) {
            double row = 0, column = 0;
            for (int b = first; b < first + states; b++) {
                if (!(m[a][b] >= 0 && m[a][b] <= 1))
                    abort();
                row += m[a][b];
                column += m[b][a];
            }
            if (fabs(row - 1) > 1e-9 || (states == STATES && fabs(column - 1) > 1e-9))
                abort();
        }
    } else if (!err.code) {
        abort();
    }
    free(text);
    return 0;
}
