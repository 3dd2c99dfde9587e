/* kernel/report/csv.h — reading CSV text (RFC 4180: fields with a comma, a
 * quote or a line break are quoted, their quotes doubled), as the kernel
 * writes with [stats] csv.
 *
 * insee_csv_read() returns every record as a NULL-terminated string vector
 * (a GPtrArray of GStrv, freed with the array), with the line each record
 * starts on in `lines` (a GArray of guint). An unterminated quote is an error
 * naming `name` and its line (INSEE_REPORT_ERROR_INPUT).
 */
#ifndef INSEE_REPORT_CSV_H
#define INSEE_REPORT_CSV_H

#include <glib.h>

G_BEGIN_DECLS

GPtrArray *insee_csv_read(const char *text, const char *name, GArray **lines, GError **err);

G_END_DECLS
#endif
