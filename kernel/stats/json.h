/* kernel/stats/json.h — the whole result of a run as one JSON document
 * ([stats] json, `insee run --json FILE`); the schema is docs/results.md and
 * docs/results.schema.json.
 *
 * The experiment describes the network's layout (insee_layout, which it
 * owns) and calls insee_json_write() after a complete run. The file is
 * written whole beside the target and renamed over it (stats/output.h), so
 * a reader never sees half a document. Everything but the "performance"
 * object is a function of the configuration and the seed: two runs give
 * byte-identical documents apart from it. Values that do not exist (a mean
 * over nothing, a statistic not asked for) are null.
 */
#ifndef INSEE_KERNEL_JSON_H
#define INSEE_KERNEL_JSON_H

#include <glib.h>

#include "net/network.h"
#include "stats/json_writer.h"
#include "stats/collect.h"
#include "stats/report.h"

G_BEGIN_DECLS

#define INSEE_RESULTS_FORMAT "insee-results"
#define INSEE_RESULTS_VERSION 1

/* One global port: where it leads and its direction. */
typedef struct insee_layout_port {
    uint32_t to;      /* router it feeds, INSEE_NONE when unplugged */
    int32_t dim;      /* -1 when the topology gives none */
    int32_t dir;      /* +1, -1, 0 */
    gboolean wrap;    /* a wrap-around link */
} insee_layout_port;

typedef struct insee_layout {
    uint32_t phit_bytes;
    uint32_t dims;             /* coordinates per router; 0: none */
    int32_t *router_coords;    /* routers × dims, or NULL */
    insee_layout_port *ports;  /* net->ports_total */
} insee_layout;

gboolean insee_json_write(const char *path, const insee_report *r, const insee_stats *st,
                          const insee_net *net, const insee_layout *layout, GError **err);

/* Jobs (docs/scheduling.md), for every engine that runs them, into a
   writer with an object open: the member "job"
   of an application's object; the member "scheduler" with the system
   figures and the utilisation over time (nothing without r->sched). */
void insee_json_job(insee_jw *b, const insee_report *r, const insee_app_report *ar);
void insee_json_scheduler(insee_jw *b, const insee_report *r);

G_END_DECLS
#endif
