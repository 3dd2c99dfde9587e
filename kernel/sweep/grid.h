/* kernel/sweep/grid.h — the points of a sweep: the Cartesian product of its
 * --vary axes.
 *
 * An axis is KEY=V1,V2,... (values as --set takes them; a comma inside
 * brackets or quotes belongs to the value, so topology.dims=[4,4],[8,8] is
 * two values) or KEY=FROM:TO:STEP (FROM, FROM + STEP, ... up to TO, STEP > 0).
 * Points are numbered with the first axis outermost; a point's key is its
 * assignments joined by ';' ("router.plugin=dally;traffic.load=0.2"). The
 * load axis is the first whose key ends in ".load": a point's configuration
 * is the point less its load, and the loads of a configuration are in the
 * order the axis gives them.
 */
#ifndef INSEE_SWEEP_GRID_H
#define INSEE_SWEEP_GRID_H

#include <glib.h>

G_BEGIN_DECLS

typedef struct insee_sweep_grid insee_sweep_grid;

/* The grid of `specs` (NULL-terminated; none: one point with no key).
   NULL with *err (G_OPTION_ERROR_BAD_VALUE) naming the --vary and what is
   wrong. */
insee_sweep_grid *insee_sweep_grid_new(char *const *specs, GError **err);
void insee_sweep_grid_free(insee_sweep_grid *g);

guint insee_sweep_grid_points(const insee_sweep_grid *g);
/* The point's key ("" for a grid without axes). */
const char *insee_sweep_grid_key(const insee_sweep_grid *g, guint point);
/* The point whose key is `key`, or -1. */
gint insee_sweep_grid_find(const insee_sweep_grid *g, const char *key);
/* The point's assignments, KEY=VALUE, for --set (owned by the grid). */
const char *const *insee_sweep_grid_assignments(const insee_sweep_grid *g, guint point);

/* Whether an axis varies a load; the point's configuration (0 .. points
   / loads - 1) and the rank of its load on the axis (0 first). Without a
   load axis every point is its own configuration at rank 0. */
gboolean insee_sweep_grid_has_load(const insee_sweep_grid *g);
guint insee_sweep_grid_configuration(const insee_sweep_grid *g, guint point);
guint insee_sweep_grid_load_rank(const insee_sweep_grid *g, guint point);

G_END_DECLS
#endif
