/* kernel/stats/trace.h — the packet evolution trace (INSEE §2.4.2) and the
 * phit view derived from it; the format is in docs/packet-trace.md.
 *
 * Writing: the experiment opens the trace before the run when [stats]
 * trace names a file; the collector's hooks (stats/collect.h) hand every
 * packet event to it, and it writes the events of the selected packets as
 * text lines into a gzip stream. A packet is selected when it was generated
 * in [from, until) and, if a list of ids is given, its id is listed; every
 * event of a selected packet is written, even after `until`, so each story
 * is whole. Each hook costs one branch when tracing is off; when on, the
 * selection is a window compare and a binary search among the listed ids.
 * The stream goes to a temporary beside the target (stats/output.h) and is
 * renamed over it by insee_trace_commit() once the run has completed;
 * insee_trace_free() of a trace not committed removes the temporary, so an
 * interrupted or failed run leaves no file that looks complete. When the
 * compressed file reaches `max_bytes` (checked as it grows; see
 * docs/packet-trace.md), tracing stops, and the file ends with a line
 * saying at which cycle.
 *
 * Reading: insee_trace_phits() streams a trace (gzip, or plain text) and
 * prints each packet's phits: phit k of L crosses each hop k cycles after
 * the head and is consumed k - (L - 1) cycles after the tail's "con".
 * Memory: the packets whose story has not ended yet. Errors name file:line.
 */
#ifndef INSEE_KERNEL_TRACE_H
#define INSEE_KERNEL_TRACE_H

#include <glib.h>
#include <stdint.h>
#include <stdio.h>

#include "net/network.h"
#include "stats/collect.h"

G_BEGIN_DECLS

#define INSEE_TRACE_FORMAT 1

typedef struct insee_trace_options {
    const char *path;        /* the file to write at the end */
    const int64_t *ids;      /* packets to trace (ids from 1); NULL or none: every one */
    size_t n_ids;
    uint64_t from, until;    /* generated in [from, until); until 0: no end */
    uint64_t max_bytes;      /* cap on the compressed file */
} insee_trace_options;

/* Creates the temporary and writes the header. NULL with a G_FILE_ERROR
   naming the path when it cannot. `net` must outlive the trace. */
insee_trace *insee_trace_open(const insee_trace_options *opt, const insee_net *net,
                              uint32_t packet_phits, GError **err);

/* The events (insee_trace_generated() ... insee_trace_dropped()) are
   declared in stats/collect.h, whose hooks call them. */

/* Lines of events written so far. */
uint64_t insee_trace_events(const insee_trace *t);
/* TRUE when the cap stopped the trace, with the cycle it stopped at. */
gboolean insee_trace_truncated(const insee_trace *t, uint64_t *cycle);

/* Finish the stream and rename it over the target. FALSE (G_FILE_ERROR,
   "[stats] trace: PATH: ...") when a write failed, during the run or now;
   the temporary is then removed. */
gboolean insee_trace_commit(insee_trace *t, GError **err);
/* Removes the temporary unless committed. NULL is fine. */
void insee_trace_free(insee_trace *t);

/* The phit view of the trace at `path` on `out`, of packet `only` (0:
   every packet). FALSE on a missing, corrupt or truncated file, with an
   error "PATH:LINE: what is wrong" (G_FILE_ERROR). */
gboolean insee_trace_phits(const char *path, uint64_t only, FILE *out, GError **err);

G_END_DECLS
#endif
