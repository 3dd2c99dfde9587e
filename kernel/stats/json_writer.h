/* kernel/stats/json_writer.h — a JSON document written as it is built.
 *
 * The results of a run on a large network list every port and router
 * (network.ports, the maps): built as a json-glib tree they took about
 * twenty times their text in memory and most of the run's time. This
 * writer keeps no tree: each value goes into a buffer as text, and a
 * writer opened on a file hands the buffer to it a MiB at a time
 * (stats/output.h: a temporary beside the file, renamed over it when
 * complete, so a reader never sees half a document).
 *
 * The calls mirror json-glib's JsonBuilder: open an object or an array,
 * name each member of an object with insee_jw_key() before its value, close
 * what was opened. The text is compact and as json-glib's generator writes
 * it (a double with 17 significant digits, and ".0" when that reads as an
 * integer), so that documents read the same whichever wrote them; a double
 * that is not finite is written null, as JSON has no NaN. Nesting is at
 * most 64 deep. A writer is used by one thread.
 */
#ifndef INSEE_KERNEL_JSON_WRITER_H
#define INSEE_KERNEL_JSON_WRITER_H

#include <glib.h>
#include <stdint.h>

G_BEGIN_DECLS

typedef struct insee_jw insee_jw;

/* A writer into memory (insee_jw_take() ends it). */
insee_jw *insee_jw_new(void);
/* A writer into the file `path` (insee_jw_close() ends it), `what` naming
   it in errors ("[stats] json"); NULL with the error when the file cannot
   be written. */
insee_jw *insee_jw_open(const char *path, const char *what, GError **err);

void insee_jw_begin_object(insee_jw *w);
void insee_jw_end_object(insee_jw *w);
void insee_jw_begin_array(insee_jw *w);
void insee_jw_end_array(insee_jw *w);
/* The name of the object member whose value comes next. */
void insee_jw_key(insee_jw *w, const char *name);
void insee_jw_int(insee_jw *w, int64_t v);
void insee_jw_double(insee_jw *w, double v);
void insee_jw_bool(insee_jw *w, gboolean v);
/* A string value (UTF-8); NULL writes null. */
void insee_jw_string(insee_jw *w, const char *v);
void insee_jw_null(insee_jw *w);

/* The document written, for a writer into memory; the writer is freed. */
char *insee_jw_take(insee_jw *w);
/* Completes the file (FALSE with the error, and no file left that looks
   complete, when it could not be written); the writer is freed. */
gboolean insee_jw_close(insee_jw *w, GError **err);

G_END_DECLS
#endif
