/* Run an experiment from TOML text against the in-tree plugins; the report
 * is copied out so tests can compare runs. */
#ifndef INSEE_TEST_RUN_HELPERS_H
#define INSEE_TEST_RUN_HELPERS_H

#include "engine/experiment.h"
#include "flow/flow.h"

/* Fails the test (criterion assert) when the experiment cannot run. The
   caller frees with insee_report_clear(). */
insee_report run_toml(const char *toml);
/* An experiment built from TOML text but not run, for tests that drive the
   engine directly; free with insee_experiment_free(), then
   insee_registry_free(*reg) and insee_config_free(*cfg). */
insee_experiment *build_toml(const char *toml, insee_config **cfg, insee_registry **reg);
/* Run `toml` with a flow engine (engine = "static") and hand back a copy
   of its figures (histograms copied too; insee_flow_report_clear() it) and,
   when `text` is not NULL, its printed report (g_free() it). */
insee_flow_report run_static_toml(const char *toml, char **text);
/* An experiment of `toml` that ran (criterion asserts it), its printed
   report in *text (free()) when text is not NULL; free_experiment() frees
   the three. */
insee_experiment *run_experiment(const char *toml, char **text, insee_config **cfg,
                                 insee_registry **reg);
void free_experiment(insee_experiment *exp, insee_config *cfg, insee_registry *reg);
/* Run `toml` and write its outputs ([stats] json, csv); criterion asserts
   both. */
void run_writing_outputs(const char *toml);
/* Jobs (docs/scheduling.md): the text of `head`, a [scheduler] table of
   `scheduler` keys and the jobs' [[application]] tables (NULL-terminated,
   each freed here); g_free() it. */
char *jobs_toml(const char *head, const char *scheduler, char **jobs);
/* The application called `name` (criterion fails the test when none). */
const insee_app_report *report_app(const insee_report *r, const char *name);
/* Every packet generated ended exactly once (delivered or dropped) and the
   network drained (criterion asserts). */
void assert_all_delivered(const insee_report *r);
/* Run an experiment that must fail (at load or while running): its error
   message, g_free() it. */
char *run_toml_error(const char *toml);
/* A file of `text` (a [faults] file of cables, "ROUTER PORT" a line; a trace) in a
   fresh directory: its path, which cable_file_remove() deletes with the
   directory and frees. */
char *cable_file_new(const char *text);
void cable_file_remove(char *path);
/* A trace (in such a file) where task 0 sends n messages of `bytes`, the
   i-th to dst[i % ndst] with tag i, and receives nothing. */
char *sends_file_new(uint32_t n, const uint32_t *dst, uint32_t ndst, uint64_t bytes);
/* Average distance between distinct nodes of a k-ary n-cube, closed form. */
double torus_avg_distance(const int *k, int n);
double mesh_avg_distance(const int *k, int n);

#endif
