/* weights.c — a destination distribution per task from its text; see
 * weights.h. */
#include "weights.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

bool weights_init(weights *wt, const char *name, uint32_t tasks, bool population,
                  insee_error *err)
{
    *wt = (weights){.name = name, .tasks = tasks, .population = population};
    wt->w = calloc(tasks, sizeof *wt->w);
    wt->line = calloc(tasks, sizeof *wt->line);
    if (!wt->w || !wt->line) {
        insee_error_set(err, INSEE_ERR_NOMEM, "%s: out of memory", name);
        return false;
    }
    return true;
}

void weights_free(weights *wt)
{
    free(wt->w);
    free(wt->line);
    free(wt->cum);
    *wt = (weights){0};
}

static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* The token at text[*i..) up to a blank, '#' or the end; *i moves past it. */
static size_t token(const char *text, size_t len, size_t *i)
{
    size_t start = *i;
    while (*i < len && !is_blank(text[*i]) && text[*i] != '#')
        (*i)++;
    return *i - start;
}

/* A character in a message: itself when printable, else '?'. */
static char shown(char c)
{
    return c >= 0x20 && c < 0x7f ? c : '?';
}

/* The task number text[0..n) into *task; false with err filled. */
static bool read_task(const weights *wt, const char *text, size_t n, uint32_t line,
                      uint32_t *task, insee_error *err)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (text[i] < '0' || text[i] > '9') {
            const char *key = wt->distances ? "distance" : "task";
            insee_error_set(err, INSEE_ERR_IO,
                            "%s:%u: '%c' in a %s number; a line starts with the %s, a "
                            "number from 0 to %u",
                            wt->name, line, shown(text[i]), key, key, wt->tasks - 1);
            return false;
        }
        v = v * 10 + (uint64_t)(text[i] - '0');
        if (v >= wt->tasks && wt->distances) {
            insee_error_set(err, INSEE_ERR_IO,
                            "%s:%u: distance %.*s is out of range: the farthest nodes of the "
                            "grid are %u hops apart",
                            wt->name, line, (int)(n < 20 ? n : 20), text, wt->tasks - 1);
            return false;
        }
        if (v >= wt->tasks) {
            insee_error_set(err, INSEE_ERR_IO,
                            "%s:%u: task %.*s is out of range: the experiment has %u tasks, "
                            "0 to %u",
                            wt->name, line, (int)(n < 20 ? n : 20), text, wt->tasks,
                            wt->tasks - 1);
            return false;
        }
    }
    *task = (uint32_t)v;
    return true;
}

/* The weight text[0..n) into *w; false with err filled. */
static bool read_weight(const weights *wt, const char *text, size_t n, uint32_t line,
                        double *w, insee_error *err)
{
    char buf[64];
    char *end = buf;
    if (n < sizeof buf) {
        memcpy(buf, text, n);
        buf[n] = '\0';
        *w = strtod(buf, &end);
    }
    if (n >= sizeof buf || end != buf + n || !isfinite(*w) || *w < 0 ||
        memchr(buf, 'x', n) || memchr(buf, 'X', n)) {
        insee_error_set(err, INSEE_ERR_IO,
                        "%s:%u: weight '%.*s' is not a non-negative decimal number (such as 3, "
                        "0.25 or 1e-3)",
                        wt->name, line, (int)(n < 40 ? n : 40), text);
        return false;
    }
    return true;
}

bool weights_line(weights *wt, const char *text, size_t len, uint32_t line, insee_error *err)
{
    const char *form = wt->population ? "'<task>'" : "'<task> <weight>'";
    size_t i = 0, n;
    const char *field[3];
    size_t size[3];
    int fields = 0;
    for (;;) {
        while (i < len && is_blank(text[i]))
            i++;
        if (i == len || text[i] == '#')
            break;
        field[fields < 2 ? fields : 2] = text + i;
        n = token(text, len, &i);
        size[fields < 2 ? fields : 2] = n;
        if (++fields > (wt->population ? 1 : 2)) {
            insee_error_set(err, INSEE_ERR_IO,
                            "%s:%u: more than a task%s on the line; write %s, or a '#' comment",
                            wt->name, line, wt->population ? "" : " and its weight", form);
            return false;
        }
    }
    if (fields == 0)
        return true;
    uint32_t task;
    if (!read_task(wt, field[0], size[0], line, &task, err))
        return false;
    if (wt->population) {
        wt->w[task] += 1;
        return true;
    }
    if (fields < 2) {
        insee_error_set(err, INSEE_ERR_IO, "%s:%u: %s %u has no weight; write %s", wt->name,
                        line, wt->distances ? "distance" : "task", task, form);
        return false;
    }
    if (wt->line[task]) {
        insee_error_set(err, INSEE_ERR_IO,
                        "%s:%u: %s %u has a weight already, from line %u; give each %s one "
                        "line",
                        wt->name, line, wt->distances ? "distance" : "task", task,
                        wt->line[task], wt->distances ? "distance" : "task");
        return false;
    }
    wt->line[task] = line;
    return read_weight(wt, field[1], size[1], line, &wt->w[task], err);
}

bool weights_end(weights *wt, uint32_t lines, insee_error *err)
{
    double total = 0;
    for (uint32_t t = 0; t < wt->tasks; t++)
        total += wt->w[t];
    if (!(total > 0)) {
        insee_error_set(err, INSEE_ERR_IO,
                        "%s:%u: no task has a positive weight; give at least one %s line",
                        wt->name, lines ? lines : 1,
                        wt->population ? "'<task>'" : "'<task> <weight>' with a weight above 0");
        return false;
    }
    wt->cum = malloc(sizeof *wt->cum * ((size_t)wt->tasks + 1));
    if (!wt->cum) {
        insee_error_set(err, INSEE_ERR_NOMEM, "%s: out of memory", wt->name);
        return false;
    }
    wt->cum[0] = 0;
    for (uint32_t t = 0; t < wt->tasks; t++) {
        /* The share first: 2^52 / total overflows when the total is tiny. */
        uint64_t units = (uint64_t)llround(ldexp(wt->w[t] / total, 52));
        if (units == 0 && wt->w[t] > 0) {
            insee_error_set(err, INSEE_ERR_IO,
                            "%s:%u: the weight of task %u is too small next to the total, %g: "
                            "below 2^-53 of it, it would never be drawn; raise it, or leave "
                            "the task out",
                            wt->name, wt->line[t], t, total);
            return false;
        }
        wt->cum[t + 1] = wt->cum[t] + units;
    }
    return true;
}

static uint64_t units_of(const weights *wt, uint32_t t)
{
    return wt->cum[t + 1] - wt->cum[t];
}

bool weights_silent(const weights *wt, uint32_t src)
{
    return units_of(wt, src) == wt->cum[wt->tasks];
}

/* Uniform in [0, n), n >= 1: the smallest power of two covering n, and
   draws above n - 1 drawn again (fewer than 2 draws on average). */
static uint64_t below64(insee_rng *rng, uint64_t n)
{
    uint64_t mask = n - 1;
    for (unsigned s = 1; s < 64; s *= 2)
        mask |= mask >> s;
    uint64_t x;
    do
        x = insee_rng_u64(rng) & mask;
    while (x >= n);
    return x;
}

uint32_t weights_draw(const weights *wt, uint32_t src, insee_rng *rng)
{
    /* A unit among all but src's, then the task whose units hold it:
       the largest t with cum[t] <= u (its units are then not empty). */
    uint64_t u = below64(rng, wt->cum[wt->tasks] - units_of(wt, src));
    if (u >= wt->cum[src])
        u += units_of(wt, src);
    uint32_t lo = 0, hi = wt->tasks; /* cum[lo] <= u < cum[hi] */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (wt->cum[mid] <= u)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}
