/* kernel/sweep/results.h — a sweep's results file: one CSV row per finished
 * run, appended as runs end, so that a sweep stopped in any way keeps every
 * run it finished and a new sweep with the same command skips them.
 *
 * The columns are `sweep` (the fingerprint of the configuration the run
 * belongs to), `vary` (its point's key, grid.h), then the row `insee run`
 * writes with [stats] csv: no speed figure, so a run's row is the same
 * whichever process, order or machine ran it. Rows are appended with
 * insee_output_append() (atomic, under flock: a killed sweep leaves whole
 * rows only); a file holding a row of another fingerprint is refused, never
 * mixed into. insee_sweep_results_rewrite() puts the rows in a given order
 * once the sweep is complete, so the file is the same whether the sweep ran
 * at once or was stopped and resumed.
 */
#ifndef INSEE_SWEEP_RESULTS_H
#define INSEE_SWEEP_RESULTS_H

#include <glib.h>

G_BEGIN_DECLS

typedef struct insee_sweep_results insee_sweep_results;

/* A file named after the results file `output`: its name less .csv, then
   `suffix` ("runs.csv", "-summary.csv" -> "runs-summary.csv"). */
char *insee_sweep_results_sibling(const char *output, const char *suffix);

/* The rows already in `path` (none when it is absent or empty). NULL with
   *err when it is not a sweep's results file or holds a row of another
   fingerprint, naming the file and the line. */
insee_sweep_results *insee_sweep_results_open(const char *path, const char *fingerprint,
                                              GError **err);
void insee_sweep_results_free(insee_sweep_results *r);

guint insee_sweep_results_rows(const insee_sweep_results *r);
const char *insee_sweep_results_vary(const insee_sweep_results *r, guint row);
guint64 insee_sweep_results_seed(const insee_sweep_results *r, guint row);
/* A field of the run's own row by its [stats] csv column name ("accepted_load"),
   or NULL for an unknown column. */
const char *insee_sweep_results_field(const insee_sweep_results *r, guint row,
                                      const char *column);
/* A numeric field, NAN when empty or not a number. */
double insee_sweep_results_number(const insee_sweep_results *r, guint row, const char *column);

/* Add the run whose [stats] csv file (header and one row) is `run_csv`,
   at point `vary`, to the rows above; insee_sweep_results_save() appends
   every row added since the last save to the file in one write, so runs
   that end together cost one wait for the disk. */
gboolean insee_sweep_results_add(insee_sweep_results *r, const char *vary, const char *run_csv,
                                 GError **err);
gboolean insee_sweep_results_save(insee_sweep_results *r, GError **err);
/* Add `from`'s row (another file of the same sweep: a shard's) to the rows
   above, as insee_sweep_results_add() does. */
void insee_sweep_results_take(insee_sweep_results *r, const insee_sweep_results *from, guint row);

/* Rewrite the file with its rows sorted by `rank(row)` (ties keep their
   order), atomically. */
gboolean insee_sweep_results_rewrite(insee_sweep_results *r,
                                     guint (*rank)(const insee_sweep_results *r, guint row,
                                                   gpointer data),
                                     gpointer data, GError **err);

G_END_DECLS
#endif
