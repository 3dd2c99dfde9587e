/* weights.h — a destination distribution given as a weight per task: its
 * text (a histogram or a population, README.md gives the format), read a
 * line at a time, and draws from it with the source's own weight left out.
 * Kept apart from the plugin so that the unit tests and the fuzz target
 * drive it on bytes in memory.
 *
 * Contract: weights_init(), then weights_line() for each line in order
 * (text[0..len), no newline; any bytes), then weights_end(); every failure
 * fills err with "name:line: what is wrong; what to do" and leaves the
 * weights to weights_free() only. weights_free() is safe on a zeroed or
 * failed struct.
 *
 * The weights become integers (units) summing to about 2^52, so a draw is
 * exact integer arithmetic: a task's share is its weight over the total to
 * within 2^-52. A positive weight too small to get a unit is refused.
 */
#ifndef INSEE_TRAFFIC_WEIGHTS_H
#define INSEE_TRAFFIC_WEIGHTS_H

#include <insee/insee.h>

#define WEIGHTS_MAX_LINE 4096u /* characters in a line, its newline excluded */

typedef struct weights {
    const char *name; /* the file, for messages; not owned */
    uint32_t tasks;
    bool population;  /* one task per line, each line one draw's worth */
    bool distances;   /* the entries are hop distances, 0 .. tasks-1, not tasks (the
                         caller sets it after weights_init(); only messages differ) */
    double *w;        /* w[task] as read */
    uint32_t *line;   /* histogram: the line that gave a task its weight; 0: none */
    uint64_t *cum;    /* after weights_end(): units of tasks 0 .. i-1, tasks + 1 entries */
} weights;

/* For `tasks` tasks (>= 1); false (out of memory) with err filled. */
bool weights_init(weights *wt, const char *name, uint32_t tasks, bool population,
                  insee_error *err);
bool weights_line(weights *wt, const char *text, size_t len, uint32_t line, insee_error *err);
/* After the last of `lines` lines: refuses a distribution without a
   positive weight, and tabulates the units. */
bool weights_end(weights *wt, uint32_t lines, insee_error *err);
void weights_free(weights *wt);

/* Whether every weight but `src`'s is zero: the task sends nothing (with
   distances, src = 0 leaves the source itself out). */
bool weights_silent(const weights *wt, uint32_t src);
/* A task other than src (not silent), drawn with probability its weight
   over the total of every task but src. */
uint32_t weights_draw(const weights *wt, uint32_t src, insee_rng *rng);

#endif
