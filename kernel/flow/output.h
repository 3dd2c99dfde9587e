/* kernel/flow/output.h — the static engine's report: the printed text, the
 * JSON document and the CSV row (docs/flow.md §4 lists every field).
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

G_BEGIN_DECLS

typedef struct insee_flow_run {
    const insee_flow_report *rep;
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

G_END_DECLS
#endif
