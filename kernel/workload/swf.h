/* kernel/workload/swf.h — a job log in the Standard Workload Format of the
 * Parallel Workloads Archive (docs/scheduling.md): ';' comment lines, then
 * one job a line, 18 whitespace-separated numbers, -1 for unknown.
 *
 * Contract: insee_swf_read() reads the whole file and returns its jobs in
 * file order (a new GArray of insee_swf_job the caller frees), or NULL with
 * a GError naming file:line and the field when a line is not a job. */
#ifndef INSEE_KERNEL_SWF_H
#define INSEE_KERNEL_SWF_H

#include <glib.h>
#include <stdint.h>

G_BEGIN_DECLS

typedef struct insee_swf_job {
    int64_t id;        /* field 1 */
    double submit;     /* field 2, seconds */
    double run;        /* field 4, seconds; < 0: unknown */
    uint32_t procs;    /* field 8, requested processors, or field 5 (allocated) when -1 */
    double requested;  /* field 9, the requested time, seconds; < 0: none */
    uint32_t line;     /* where it is in the file */
} insee_swf_job;

GArray *insee_swf_read(const char *path, GError **err);

G_END_DECLS
#endif
