/* perm.c — permutation destinations (INSEE §3.2.1, Table 2); see perm.h. */
#include "perm.h"
#include "grid.h"

#include <stdio.h>
#include <stdlib.h>

/* image[] of a task with no destination. */
#define SILENT UINT32_MAX

struct traffic_perm {
    uint32_t *image;     /* image[task]: its destination or SILENT; NULL for neighbour */
    traffic_grid *grid;  /* tornado and neighbour */
    uint32_t *live;      /* neighbour: the dimensions with k >= 2 (the others have none) */
    uint32_t n_live;
    uint32_t senders;
};

/* s with its l low bits rotated left by r (0 <= r < l): d_i = s_{(i-r) mod l}. */
static uint64_t rotate_left(uint64_t s, unsigned r, unsigned l)
{
    uint64_t mask = (UINT64_C(1) << l) - 1;
    return r == 0 ? s : ((s << r) | (s >> (l - r))) & mask;
}

/* The image of s (< 2^l) under a bit permutation of Table 2; s_i is bit i,
   bit 0 the least significant. */
static uint64_t bit_image(traffic_perm_pattern p, uint64_t s, unsigned l)
{
    uint64_t mask = (UINT64_C(1) << l) - 1;
    switch (p) {
    case TRAFFIC_PERM_BIT_COMPLEMENT: /* d_i = ~s_i */
        return ~s & mask;
    case TRAFFIC_PERM_BIT_REVERSAL: { /* d_i = s_{l-1-i} */
        uint64_t d = 0;
        for (unsigned i = 0; i < l; i++)
            d |= (s >> i & 1) << (l - 1 - i);
        return d;
    }
    case TRAFFIC_PERM_BIT_TRANSPOSE: /* d_i = s_{(i + floor(l/2)) mod l}: the halves swapped */
        return rotate_left(s, (l - l / 2) % l, l);
    case TRAFFIC_PERM_BUTTERFLY: { /* d_{l-1} = s_0, d_0 = s_{l-1}, the other bits kept */
        uint64_t low = s & 1, high = s >> (l - 1) & 1;
        return (s & ~(UINT64_C(1) | UINT64_C(1) << (l - 1))) | low << (l - 1) | high;
    }
    default: /* PERFECT_SHUFFLE: d_i = s_{(i-1) mod l} */
        return rotate_left(s, 1 % l, l);
    }
}

/* Task t's image under tornado's definition `def` (perm.h). */
static uint32_t tornado_image(const traffic_grid *g, traffic_perm_tornado def, uint32_t t)
{
    if (def == TRAFFIC_TORNADO_INSEE)
        return (uint32_t)((t + (uint64_t)(g->k[0] - 1) / 2) % g->nodes);
    if (def == TRAFFIC_TORNADO_TABLE2)
        return g->node[traffic_grid_move(g, g->pos[t], 0, g->k[0] / 2)];
    uint32_t pos = g->pos[t];
    for (uint32_t dim = 0; dim < g->n; dim++)
        pos = traffic_grid_move(g, pos, dim, (g->k[dim] + 1) / 2 - 1);
    return g->node[pos];
}

/* Fill p->image for every pattern but neighbour; false with err filled. */
static bool fill_images(traffic_perm *p, traffic_perm_pattern pat, int64_t offset,
                        traffic_perm_tornado tornado, uint32_t tasks, const char *who,
                        const insee_host *host, insee_error *err)
{
    if (pat == TRAFFIC_PERM_TORNADO) {
        p->grid = traffic_grid_create(who, host, err);
        if (!p->grid)
            return false;
    }
    unsigned l = 0;
    while (l < 32 && (UINT64_C(1) << l) < tasks)
        l++;
    if (pat < TRAFFIC_PERM_TORNADO && (UINT64_C(1) << l) != tasks) {
        /* On l bits some images would be tasks that do not exist. */
        insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                        "%s permutes the bits of the task number and needs a power-of-two "
                        "number of tasks, but there are %u; use %llu or %llu tasks (the nodes "
                        "of the topology, e.g. its dims), or a pattern for any number of tasks "
                        "(shift, tornado, neighbour)",
                        who, tasks, (unsigned long long)(UINT64_C(1) << (l - 1)),
                        (unsigned long long)(UINT64_C(1) << l));
        return false;
    }
    for (uint32_t t = 0; t < tasks; t++) {
        uint64_t d;
        if (pat == TRAFFIC_PERM_SHIFT) {
            d = (uint64_t)(((int64_t)t + offset % tasks + tasks) % tasks);
        } else if (pat == TRAFFIC_PERM_TORNADO) {
            d = tornado_image(p->grid, tornado, t);
        } else if (l == 0) {
            d = t; /* one task: no bits to permute */
        } else {
            d = bit_image(pat, t, l);
        }
        p->image[t] = d == t ? SILENT : (uint32_t)d;
    }
    return true;
}

/* neighbour: the dimensions along which a node has neighbours. */
static bool find_live_dims(traffic_perm *p, const char *who, const insee_host *host,
                           insee_error *err)
{
    p->grid = traffic_grid_create(who, host, err);
    if (!p->grid)
        return false;
    p->live = malloc(sizeof *p->live * p->grid->n);
    if (!p->live) {
        insee_error_set(err, INSEE_ERR_NOMEM, "%s: out of memory", who);
        return false;
    }
    for (uint32_t d = 0; d < p->grid->n; d++)
        if (p->grid->k[d] >= 2)
            p->live[p->n_live++] = d;
    return true;
}

bool traffic_perm_silent(const traffic_perm *p, uint32_t task)
{
    /* neighbour: only a grid of one node leaves a task without one. */
    return p->image ? p->image[task] == SILENT : p->n_live == 0;
}

void traffic_perm_destroy(traffic_perm *p)
{
    if (!p)
        return;
    free(p->image);
    free(p->live);
    traffic_grid_destroy(p->grid);
    free(p);
}

traffic_perm *traffic_perm_create(const char *who, traffic_perm_pattern pattern,
                                  const char *name, int64_t offset,
                                  traffic_perm_tornado tornado, const insee_host *host,
                                  insee_error *err)
{
    insee_shape shape;
    host->shape(host->kernel, &shape);
    char what[160]; /* names the pattern in the grid's messages */
    snprintf(what, sizeof what, "%s: pattern '%s'", who, name);
    traffic_perm *p = calloc(1, sizeof *p);
    if (!p) {
        insee_error_set(err, INSEE_ERR_NOMEM, "%s: out of memory", who);
        return NULL;
    }
    bool ok;
    if (pattern == TRAFFIC_PERM_NEIGHBOUR) {
        ok = find_live_dims(p, what, host, err);
    } else {
        p->image = malloc(sizeof *p->image * shape.tasks); /* the kernel has >= 1 node */
        if (!p->image)
            insee_error_set(err, INSEE_ERR_NOMEM, "%s: out of memory", who);
        ok = p->image && fill_images(p, pattern, offset, tornado, shape.tasks, what, host, err);
    }
    if (!ok) {
        traffic_perm_destroy(p);
        return NULL;
    }
    for (uint32_t t = 0; t < shape.tasks; t++)
        p->senders += !traffic_perm_silent(p, t);
    if (p->senders < shape.tasks) {
        char line[400];
        snprintf(line, sizeof line,
                 "%s: %u of %u tasks are their own image and send nothing", what,
                 shape.tasks - p->senders, shape.tasks);
        host->log(host->kernel, INSEE_LOG_INFO, line);
    }
    return p;
}

uint32_t traffic_perm_senders(const traffic_perm *p)
{
    return p->senders;
}

uint32_t traffic_perm_dst(const traffic_perm *p, uint32_t task, insee_rng *rng)
{
    if (p->image)
        return p->image[task];
    /* One of the 2 x n_live directions, each as likely. */
    uint32_t r = insee_rng_below(rng, 2 * p->n_live);
    uint32_t pos =
        traffic_grid_move(p->grid, p->grid->pos[task], p->live[r / 2], r % 2 ? -1 : 1);
    return p->grid->node[pos];
}
