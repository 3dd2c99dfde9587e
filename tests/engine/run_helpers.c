/* open_memstream() is POSIX.1-2008. */
#define _POSIX_C_SOURCE 200809L
#include "run_helpers.h"

#include <criterion/criterion.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>

insee_experiment *build_toml(const char *toml, insee_config **cfg, insee_registry **reg)
{
    GError *err = NULL;
    *cfg = insee_config_load_string(toml, "<test>", &err);
    cr_assert(*cfg, "config: %s", err ? err->message : "?");
    *reg = insee_registry_new();
    insee_registry_add_dir(*reg, INSEE_TEST_PLUGIN_DIR);
    insee_registry_add_dir(*reg, INSEE_TEST_FIXTURE_PLUGIN_DIR);
    insee_registry_scan(*reg);
    insee_experiment *exp = insee_experiment_new(*cfg, *reg, &err);
    cr_assert(exp, "experiment: %s", err ? err->message : "?");
    return exp;
}

insee_report run_toml(const char *toml)
{
    GError *err = NULL;
    insee_config *cfg;
    insee_registry *reg;
    insee_experiment *exp = build_toml(toml, &cfg, &reg);
    cr_assert(insee_experiment_run(exp, &err), "run: %s", err ? err->message : "?");
    cr_assert(insee_experiment_write_outputs(exp, &err), "outputs: %s", err ? err->message : "?");
    insee_report r = insee_report_copy(insee_experiment_report(exp));
    insee_experiment_free(exp);
    insee_registry_free(reg);
    insee_config_free(cfg);
    return r;
}

void run_writing_outputs(const char *toml)
{
    insee_config *cfg;
    insee_registry *reg;
    insee_experiment *exp = run_experiment(toml, NULL, &cfg, &reg);
    GError *err = NULL;
    cr_assert(insee_experiment_write_outputs(exp, &err), "%s", err ? err->message : "?");
    free_experiment(exp, cfg, reg);
}

char *jobs_toml(const char *head, const char *scheduler, char **jobs)
{
    GString *t = g_string_new(head);
    g_string_append_printf(t, "[scheduler]\n%s\n", scheduler);
    for (char **j = jobs; *j; j++) {
        g_string_append(t, *j);
        g_free(*j);
    }
    return g_string_free(t, FALSE);
}

const insee_app_report *report_app(const insee_report *r, const char *name)
{
    for (uint32_t a = 0; a < r->n_apps; a++)
        if (strcmp(r->apps[a].name, name) == 0)
            return &r->apps[a];
    cr_assert_fail("no application %s", name);
    return NULL;
}

/* Mean over all ordered pairs (self included) is the sum of the per-ring
   means; excluding self scales by N / (N - 1). Ring of k, bidirectional:
   k/4 for even k, (k^2 - 1) / (4k) for odd k. Line of k: (k^2 - 1) / (3k). */
static double scale_distinct(double mean_all, const int *k, int n)
{
    double nodes = 1;
    for (int d = 0; d < n; d++)
        nodes *= k[d];
    return mean_all * nodes / (nodes - 1);
}

double torus_avg_distance(const int *k, int n)
{
    double sum = 0;
    for (int d = 0; d < n; d++)
        sum += k[d] % 2 == 0 ? k[d] / 4.0 : (k[d] * (double)k[d] - 1) / (4.0 * k[d]);
    return scale_distinct(sum, k, n);
}

double mesh_avg_distance(const int *k, int n)
{
    double sum = 0;
    for (int d = 0; d < n; d++)
        sum += (k[d] * (double)k[d] - 1) / (3.0 * k[d]);
    return scale_distinct(sum, k, n);
}

void assert_all_delivered(const insee_report *r)
{
    cr_assert(r->drained, "the network did not drain (%" G_GUINT64_FORMAT " in flight)",
              r->total_in_flight);
    cr_assert_eq(r->total_in_flight, 0);
    cr_assert_eq(r->total_generated, r->total_delivered + r->total_dropped,
                 "generated %" G_GUINT64_FORMAT " != delivered %" G_GUINT64_FORMAT
                 " + dropped %" G_GUINT64_FORMAT,
                 r->total_generated, r->total_delivered, r->total_dropped);
    /* Ids are 1..n (in a split run, each part's 1..n of its own): equal
       sums with equal counts rule out a duplicate masking a loss. */
    cr_assert_eq(r->sum_generated_ids, r->sum_delivered_ids);
    cr_assert(r->parts > 1 ||
                  r->sum_generated_ids == r->total_generated * (r->total_generated + 1) / 2,
              "generated ids sum to %" G_GUINT64_FORMAT " for %" G_GUINT64_FORMAT " packets",
              r->sum_generated_ids, r->total_generated);
}

char *run_toml_error(const char *toml)
{
    GError *err = NULL;
    insee_config *cfg = insee_config_load_string(toml, "<test>", &err);
    insee_registry *reg = insee_registry_new();
    insee_registry_add_dir(reg, INSEE_TEST_PLUGIN_DIR);
    insee_registry_add_dir(reg, INSEE_TEST_FIXTURE_PLUGIN_DIR);
    insee_registry_scan(reg);
    insee_experiment *exp = cfg ? insee_experiment_new(cfg, reg, &err) : NULL;
    gboolean ran = exp && insee_experiment_run(exp, &err);
    cr_assert(!ran, "the experiment ran although it should have failed");
    char *msg = g_strdup(err ? err->message : "");
    g_clear_error(&err);
    insee_experiment_free(exp);
    insee_registry_free(reg);
    if (cfg)
        insee_config_free(cfg);
    return msg;
}

insee_experiment *run_experiment(const char *toml, char **text, insee_config **cfg,
                                 insee_registry **reg)
{
    GError *err = NULL;
    insee_experiment *exp = build_toml(toml, cfg, reg);
    cr_assert(insee_experiment_run(exp, &err), "run: %s", err ? err->message : "?");
    if (text) {
        size_t len;
        FILE *f = open_memstream(text, &len);
        insee_experiment_print(exp, f);
        fclose(f);
    }
    return exp;
}

void free_experiment(insee_experiment *exp, insee_config *cfg, insee_registry *reg)
{
    insee_experiment_free(exp);
    insee_registry_free(reg);
    insee_config_free(cfg);
}

insee_flow_report run_static_toml(const char *toml, char **text)
{
    insee_config *cfg;
    insee_registry *reg;
    insee_experiment *exp = run_experiment(toml, text, &cfg, &reg);
    const insee_flow_report *r = insee_experiment_flow_report(exp);
    cr_assert(r);
    insee_flow_report copy = *r;
    copy.load_hist = g_memdup2(r->load_hist, sizeof(uint64_t) * ((gsize)r->load_max + 1));
    copy.hops_hist = r->flows ? g_memdup2(r->hops_hist, sizeof(double) * (r->hops_max + 1))
                              : NULL;
    free_experiment(exp, cfg, reg);
    return copy;
}

char *cable_file_new(const char *text)
{
    char *dir = g_dir_make_tmp("insee-faults-XXXXXX", NULL);
    cr_assert(dir);
    char *path = g_build_filename(dir, "cables.txt", NULL);
    cr_assert(g_file_set_contents(path, text, -1, NULL));
    g_free(dir);
    return path;
}

char *sends_file_new(uint32_t n, const uint32_t *dst, uint32_t ndst, uint64_t bytes)
{
    GString *trace = g_string_new(NULL);
    for (uint32_t i = 0; i < n; i++)
        g_string_append_printf(trace, "s 0 %u %u %" G_GUINT64_FORMAT "\n", dst[i % ndst], i,
                               bytes);
    char *path = cable_file_new(trace->str);
    g_string_free(trace, TRUE);
    return path;
}

void cable_file_remove(char *path)
{
    char *dir = g_path_get_dirname(path);
    g_unlink(path);
    g_rmdir(dir);
    g_free(dir);
    g_free(path);
}
