/* kernel/flow/output.h — the flow engines' reports: the printed text, the
 * JSON document and the CSV row (docs/flow.md lists every field). output.c
 * writes the static engine's, dynamic_output.c the dynamic engine's.
 *
 * Contract
 * --------
 * Every figure follows from the configuration and the seed: the same run
 * gives the same bytes, in any locale (numbers always with '.'). `echo` is
 * the configuration that repeats the run, `plugins` the
 * topology/router/traffic names. The files are replaced whole or appended
 * to under a lock as stats/output.h does; a CSV file must be empty, absent
 * or begin with this engine's header.
 */
#ifndef INSEE_KERNEL_FLOW_OUTPUT_H
#define INSEE_KERNEL_FLOW_OUTPUT_H

#include <stdio.h>

#include "flow/flow.h"
#include "stats/json_writer.h"

G_BEGIN_DECLS

typedef struct insee_flow_run {
    const insee_flow_report *rep;         /* static */
    const insee_flow_dyn_report *dyn;     /* dynamic */
    const insee_net *net;                 /* dynamic: names the busiest links */
    const char *const *app_names;         /* dynamic: n_apps names */
    const insee_report *jobs;             /* dynamic with jobs: their figures (rep->sched
                                             and each job's application); else NULL */
    const char *echo;
    const char *plugins;
    uint32_t nodes, routers, rounds;
    uint64_t seed;
} insee_flow_run;

void insee_flow_print(const insee_flow_run *run, FILE *out);
gboolean insee_flow_write_json(const insee_flow_run *run, const char *path, GError **err);
gboolean insee_flow_append_csv(const insee_flow_run *run, const char *path, GError **err);
/* Before the run: whether `path` can take a row. */
gboolean insee_flow_check_csv(const char *path, GError **err);

/* Shared by both engines' JSON writers: a writer on `path` with the object
   opened and the run's common members (NULL with the error when the file
   cannot be written). */
insee_jw *insee_flow_json_begin(const insee_flow_run *run, const char *engine, const char *path,
                                GError **err);
void insee_flow_json_int(insee_jw *b, const char *name, gint64 v);
void insee_flow_json_double(insee_jw *b, const char *name, double v);

/* The "link failures" line, when [faults] failed cables. */
void insee_flow_print_faults(const insee_flow_run *run, uint32_t failed_cables,
                             uint64_t connected_pairs, FILE *out);

void insee_flow_dyn_print(const insee_flow_run *run, FILE *out);
gboolean insee_flow_dyn_write_json(const insee_flow_run *run, const char *path, GError **err);
gboolean insee_flow_dyn_append_csv(const insee_flow_run *run, const char *path, GError **err);
gboolean insee_flow_dyn_check_csv(const char *path, GError **err);

G_END_DECLS
#endif
