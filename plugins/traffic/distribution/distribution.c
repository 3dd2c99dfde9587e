/* distribution.c — destinations drawn from a user-defined distribution
 * (INSEE §3.2.1: "TrGen can read and follow user-defined distributions ...
 * introduced as a histogram or as a population"): a weight per destination
 * task read from a file, each message of a task going to another task with
 * probability its weight over the weights of all the others. A task that
 * only its own weight points at sends nothing. The tasks send at the
 * offered load with the process and lengths of ../common/source.c.
 *
 * With entries = "distances" the file weighs hop distances instead, as
 * INSEE's code reads its population: each message draws a distance r and
 * then a destination r hops from its own source on the k-ary n-cube grid
 * (at_distance()), so the distribution of destinations depends on the
 * origin, as Table 1 says of user-defined distributions.
 *
 * The file is read at create() a line at a time (weights.c parses it and
 * draws), so a wrong file fails before the run with file:line.
 */
#define _POSIX_C_SOURCE 200809L /* getline, fstat, fileno, insee/input.h */

#include "grid.h"
#include "source.h"
#include "weights.h"

#include <insee/input.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { P_LOAD, P_FILE, P_FORMAT, P_ENTRIES, P_SOURCE };

static const insee_param_def distribution_params[] = {
    [P_LOAD] = TRAFFIC_LOAD_PARAM,
    [P_FILE] = {"file", INSEE_PARAM_PATH, NULL, 1, 0, NULL, NULL,
                "the distribution file (README.md); a relative path in an experiment file is "
                "read from that file's directory"},
    [P_FORMAT] = {"format", INSEE_PARAM_ENUM, "\"histogram\"", 1, 0, "histogram|population",
                  NULL,
                  "histogram: '<task> <weight>' lines; population: '<task>' lines, one per "
                  "sample"},
    [P_ENTRIES] = {"entries", INSEE_PARAM_ENUM, "\"tasks\"", 1, 0, "tasks|distances", NULL,
                   "what the file weighs: destination tasks, or hop distances from the "
                   "source (INSEE's population, origin-dependent; k-ary n-cube grids only)"},
    TRAFFIC_SOURCE_PARAMS,
    {0},
};

typedef struct distribution {
    traffic_source *source;
    weights wt;
    traffic_grid *grid; /* entries = "distances": the grid the hops are taken on */
    double offered; /* load averaged over every task, silent ones included */
} distribution;

static void distribution_destroy(void *vself)
{
    distribution *d = vself;
    traffic_source_destroy(d->source);
    traffic_grid_destroy(d->grid);
    weights_free(&d->wt);
    free(d);
}

/* Read `path` into d->wt; false with err filled. A device or a pipe
   (/dev/zero) is refused: it could be read until memory runs out. */
static bool read_file(distribution *d, const char *path, insee_error *err)
{
    const char *why = NULL;
    FILE *f = insee_input_open(path, &why);
    struct stat st;
    if (!f || fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        insee_error_set(err, INSEE_ERR_IO,
                        "distribution: cannot read '%s': %s; check traffic.file (a relative "
                        "path in an experiment file is read from that file's directory)",
                        path, !f ? why : "it is not a regular file");
        if (f)
            fclose(f);
        return false;
    }
    char *text = NULL;
    size_t cap = 0;
    uint32_t line = 0;
    bool ok = true;
    for (ssize_t n; ok && (n = getline(&text, &cap, f)) >= 0;) {
        size_t len = (size_t)n - (n > 0 && text[n - 1] == '\n');
        if (++line == UINT32_MAX || len > WEIGHTS_MAX_LINE) {
            insee_error_set(err, INSEE_ERR_IO, "%s:%u: the line is longer than %u characters",
                            path, line, WEIGHTS_MAX_LINE);
            ok = false;
        } else {
            ok = weights_line(&d->wt, text, len, line, err);
        }
    }
    if (ok && ferror(f)) {
        insee_error_set(err, INSEE_ERR_IO, "distribution: cannot read '%s': %s", path,
                        strerror(errno));
        ok = false;
    }
    free(text);
    fclose(f);
    return ok && weights_end(&d->wt, line, err);
}

/* The hops between the farthest nodes of the grid's rings: sum of floor(k/2). */
static uint32_t grid_diameter(const traffic_grid *g)
{
    uint32_t D = 0;
    for (uint32_t i = 0; i < g->n; i++)
        D += g->k[i] / 2;
    return D;
}

/* Whether `task` sends nothing: weight only on itself, or on distance 0. */
static bool silent(const distribution *d, uint32_t task)
{
    return weights_silent(&d->wt, d->grid ? 0 : task);
}

/* A node r hops from `task` as INSEE's code draws it for its population:
   from the last dimension down to dimension 1 an offset uniform in 0 .. r,
   capped at floor(k/2), is taken from r; dimension 0 takes what is left,
   capped likewise; each offset gets a sign by a fair coin. A cap makes the
   node nearer than r. A draw that lands on the source (possible only where
   a ring has one node) is drawn again. */
static uint32_t at_distance(const traffic_grid *g, uint32_t task, uint32_t r,
                            insee_rng *rng)
{
    uint32_t dst;
    do {
        uint32_t pos = g->pos[task], left = r;
        for (uint32_t dim = g->n; dim-- > 0;) {
            uint32_t o = dim == 0 ? left : insee_rng_below(rng, left + 1);
            if (o > g->k[dim] / 2)
                o = g->k[dim] / 2;
            left -= o;
            pos = traffic_grid_move(g, pos, dim,
                                    insee_rng_below(rng, 2) ? -(int64_t)o : (int64_t)o);
        }
        dst = g->node[pos];
    } while (dst == task);
    return dst;
}

static void *distribution_create(const insee_host *host, const insee_value *params,
                                 insee_error *err)
{
    insee_shape shape;
    host->shape(host->kernel, &shape);
    distribution *d = calloc(1, sizeof *d);
    if (!d) {
        insee_error_set(err, INSEE_ERR_NOMEM, "distribution: out of memory");
        return NULL;
    }
    const char *path = params[P_FILE].s;
    bool distances = params[P_ENTRIES].i == 1;
    d->source = traffic_source_create("distribution", host, params[P_LOAD].d,
                                      params + P_SOURCE, err);
    uint32_t entries = shape.tasks;
    if (d->source && distances) {
        d->grid = traffic_grid_create("distribution: entries = \"distances\"", host, err);
        entries = d->grid ? grid_diameter(d->grid) + 1 : 0;
    }
    bool ok = d->source && entries &&
              weights_init(&d->wt, path, entries, params[P_FORMAT].i == 1, err);
    if (ok) {
        d->wt.distances = distances;
        ok = read_file(d, path, err);
    }
    if (!ok) {
        distribution_destroy(d);
        return NULL;
    }
    uint32_t senders = 0;
    for (uint32_t t = 0; t < shape.tasks; t++)
        senders += !silent(d, t);
    if (senders < shape.tasks) {
        char line[200];
        snprintf(line, sizeof line,
                 "distribution: %u of %u tasks have weight only on themselves and send nothing",
                 shape.tasks - senders, shape.tasks);
        host->log(host->kernel, INSEE_LOG_INFO, line);
    }
    d->offered = params[P_LOAD].d * senders / shape.tasks;
    return d;
}

static uint64_t distribution_start(void *vself, uint32_t task, insee_rng *rng)
{
    distribution *d = vself;
    return silent(d, task) ? INSEE_NEVER : traffic_source_start(d->source, task, rng);
}

static bool distribution_emit(void *vself, uint32_t task, uint64_t now, insee_rng *rng,
                              insee_message *msg, uint64_t *next)
{
    distribution *d = vself;
    uint32_t dst = d->grid ? at_distance(d->grid, task, weights_draw(&d->wt, 0, rng), rng)
                           : weights_draw(&d->wt, task, rng);
    traffic_source_message(d->source, dst, rng, msg);
    *next = traffic_source_next(d->source, task, now, rng);
    return true;
}

static double distribution_offered_load(void *vself)
{
    const distribution *d = vself;
    return d->offered;
}

static const insee_traffic_vtable distribution_vtable = {
    .size = sizeof(insee_traffic_vtable),
    .create = distribution_create,
    .destroy = distribution_destroy,
    .start = distribution_start,
    .emit = distribution_emit,
    .offered_load = distribution_offered_load,
};

static const insee_plugin_desc distribution_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_TRAFFIC,
    .name = "distribution",
    .version = "1.1.0",
    .summary = "destinations drawn from a weight per task, or per hop distance from the "
               "source, read from a histogram or population file, sources at a given load",
    .reference = "INSEE §3.2.1",
    .params = distribution_params,
    .vtable = &distribution_vtable,
};

INSEE_PLUGIN_DEFINE(distribution_desc)
