/* Fuzz target for the results reader of `insee report` (kernel/report/
 * results.c): the input is a run JSON file. Whatever the bytes,
 * insee_results_parse() returns a reader or an error naming the file (the
 * nesting and size limits before json-glib parses), never crashes or
 * leaks; the reader then answers queries of every kind, on keys that are
 * there and keys that are not, with a value or its first error. The page
 * and its figures run gnuplot and are not fuzzed. */
#include <glib.h>
#include <stdint.h>

#include "report/results.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void query(insee_results *r)
{
    double v;
    (void)insee_results_str(r, "plugins");
    (void)insee_results_num(r, "summary.latency.p99");
    (void)insee_results_num_or_null(r, "summary.offered_load", &v);
    (void)insee_results_bool(r, "run.converged");
    (void)insee_results_is_null(r, "series");
    (void)insee_results_has(r, "plugin_figures");
    JsonArray *phase = insee_results_array(r, "series.phase");
    for (guint i = 0; phase && i < json_array_get_length(phase) && i < 64; i++)
        (void)insee_results_member_str(r, phase, i, "series.phase", NULL);
    JsonArray *ports = insee_results_array(r, "network.ports");
    for (guint i = 0; ports && i < json_array_get_length(ports) && i < 64; i++) {
        (void)insee_results_member_num_or_null(r, ports, i, "network.ports", "to", &v);
        (void)insee_results_member_bool(r, ports, i, "network.ports", "wrap");
        (void)insee_results_elem_array(r, ports, i, "network.ports");
    }
    JsonArray *bins = insee_results_array(r, "histograms.latency");
    for (guint i = 0; bins && i < json_array_get_length(bins) && i < 64; i++)
        (void)insee_results_member_num(r, bins, i, "histograms.latency", "count");
    (void)insee_results_elem_num(r, bins, 0, "histograms.latency");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    GError *err = NULL;
    insee_results *r = insee_results_parse("<fuzz>", (const char *)data, size, &err);
    if (r) {
        query(r);
        if (!insee_results_ok(r, &err))
            g_clear_error(&err);
        insee_results_free(r);
    }
    g_clear_error(&err);
    return 0;
}
