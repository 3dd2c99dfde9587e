/* kernel/report/results.h — reading a run's JSON results file
 * (`insee run --json`, docs/results.md) for `insee report` and `insee plot`.
 *
 * The reader keeps the first error it meets and answers every later query
 * with a neutral value (0, "", NULL), so callers read many keys in a row and
 * check insee_results_ok() once. Keys are dotted paths from the root
 * ("summary.latency.p99"); the error names the file and that path and is in
 * INSEE_REPORT_ERROR with code INSEE_REPORT_ERROR_INPUT. A key that is
 * present but null is not an error for the *_or_null and array queries (the
 * run did not record it); anywhere else it is.
 */
#ifndef INSEE_REPORT_RESULTS_H
#define INSEE_REPORT_RESULTS_H

#include <glib.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define INSEE_REPORT_ERROR (insee_report_error_quark())
GQuark insee_report_error_quark(void);
enum {
    INSEE_REPORT_ERROR_INPUT,   /* bad file or argument: exit status 2 */
    INSEE_REPORT_ERROR_TOOL,    /* gnuplot missing: exit status 2 */
    INSEE_REPORT_ERROR_RUNTIME, /* gnuplot failed: exit status 1 */
};

/* Limits on an input file, checked before it is read or parsed: 512 MiB
   (a run of a 32x32x32 torus recording every map is a few tens of MiB) and
   64 levels of arrays and objects (a results file has fewer than 10; the
   JSON parser recurses once per level and would overflow the stack). */
#define INSEE_REPORT_MAX_BYTES (512u << 20)
#define INSEE_RESULTS_MAX_DEPTH 64u

typedef struct insee_results insee_results;

/* The text of an input file (a results file or a CSV file), refused
   without reading it when it is over INSEE_REPORT_MAX_BYTES. */
gboolean insee_report_read(const char *path, char **text, gsize *len, GError **err);

/* Reads `path` and parses it (insee_results_parse). */
insee_results *insee_results_load(const char *path, GError **err);
/* Parses `text` (named `path` in errors) and checks "format" and
   "format_version". NULL with *err set when it is too large or too deeply
   nested, is not JSON or is not a results file. */
insee_results *insee_results_parse(const char *path, const char *text, gsize len,
                                   GError **err);
void insee_results_free(insee_results *r);
const char *insee_results_path(const insee_results *r);

/* Hands the first error over to the caller (FALSE) or returns TRUE. */
gboolean insee_results_ok(insee_results *r, GError **err);

/* Whether the document has this top-level member: for members added to
   the format after files were written (they are then optional). */
gboolean insee_results_has(const insee_results *r, const char *member);
gboolean insee_results_is_null(insee_results *r, const char *path);
double insee_results_num(insee_results *r, const char *path);
/* FALSE when the value is null; *out is then left alone. */
gboolean insee_results_num_or_null(insee_results *r, const char *path, double *out);
const char *insee_results_str(insee_results *r, const char *path);
gboolean insee_results_bool(insee_results *r, const char *path);
/* NULL when null (or on an error). */
JsonArray *insee_results_array(insee_results *r, const char *path);

/* Element `i` of an array read at `path` (named in errors as path[i]). */
double insee_results_elem_num(insee_results *r, JsonArray *a, guint i, const char *path);
gboolean insee_results_elem_num_or_null(insee_results *r, JsonArray *a, guint i,
                                        const char *path, double *out);
JsonArray *insee_results_elem_array(insee_results *r, JsonArray *a, guint i, const char *path);
/* Member `key` of the object at element `i` (named as path[i].key). */
double insee_results_member_num(insee_results *r, JsonArray *a, guint i, const char *path,
                                const char *key);
gboolean insee_results_member_num_or_null(insee_results *r, JsonArray *a, guint i,
                                          const char *path, const char *key, double *out);
const char *insee_results_member_str(insee_results *r, JsonArray *a, guint i,
                                     const char *path, const char *key);
/* The array at member `key` (NULL when null or on an error). */
JsonArray *insee_results_member_array(insee_results *r, JsonArray *a, guint i, const char *path,
                                      const char *key);
/* Whether element `i` has member `key` (not null); no error when it has not. */
gboolean insee_results_member_has(insee_results *r, JsonArray *a, guint i, const char *key);
gboolean insee_results_member_bool(insee_results *r, JsonArray *a, guint i, const char *path,
                                   const char *key);

G_END_DECLS
#endif
