/* permutation.c — permutation traffic from independent Bernoulli sources
 * (INSEE §3.2.1, Table 2): every task sends all its packets to one fixed
 * destination, its image under the chosen permutation, at load/L packets
 * per cycle (the timing of ../common/bernoulli.c).
 *
 * The bit permutations act on the l = ceil(log2 N) bits of the task index
 * (N tasks) exactly as Table 2 writes them; tornado and shift move the
 * index or the coordinates; nearest neighbour draws one of the 2n
 * neighbours of a k-ary n-cube per packet. A task whose image is itself, or
 * (N not a power of two) a number >= N, has no destination and sends
 * nothing: its start() is INSEE_NEVER.
 *
 * Images are computed once at create() into a table, so a packet costs one
 * read (nearest neighbour: one draw and one move on the grid).
 */
#include "bernoulli.h"
#include "grid.h"

#include <stdlib.h>

enum { P_LOAD, P_PATTERN, P_OFFSET };

/* In the order of the choices below. */
typedef enum pattern {
    BIT_COMPLEMENT,
    BIT_REVERSAL,
    BIT_TRANSPOSE,
    BUTTERFLY,
    PERFECT_SHUFFLE,
    TORNADO,
    SHIFT,
    NEIGHBOUR,
} pattern;

static const insee_param_def permutation_params[] = {
    [P_LOAD] = TRAFFIC_LOAD_PARAM,
    [P_PATTERN] = {"pattern", INSEE_PARAM_ENUM, "\"bit-complement\"", 1, 0,
                   "bit-complement|bit-reversal|bit-transpose|butterfly|perfect-shuffle|"
                   "tornado|shift|neighbour",
                   NULL, "the destination of each task (INSEE Table 2, plus shift and neighbour)"},
    [P_OFFSET] = {"offset", INSEE_PARAM_INT, "1", -2147483648.0, 2147483647.0, NULL, "tasks",
                  "shift only: task t sends to (t + offset) mod N"},
    {0},
};

/* image[] of a task with no destination. */
#define SILENT UINT32_MAX

typedef struct permutation {
    traffic_bernoulli rate;
    double offered;      /* load averaged over every task, silent ones included */
    uint32_t *image;     /* image[task]: its destination or SILENT; NULL for neighbour */
    traffic_grid *grid;  /* tornado and neighbour */
    uint32_t *live;      /* neighbour: the dimensions with k >= 2 (the others have none) */
    uint32_t n_live;
} permutation;

/* s with its l low bits rotated left by r (0 <= r < l): d_i = s_{(i-r) mod l}. */
static uint64_t rotate_left(uint64_t s, unsigned r, unsigned l)
{
    uint64_t mask = (UINT64_C(1) << l) - 1;
    return r == 0 ? s : ((s << r) | (s >> (l - r))) & mask;
}

/* The image of s (< 2^l) under a bit permutation of Table 2; s_i is bit i,
   bit 0 the least significant. */
static uint64_t bit_image(pattern p, uint64_t s, unsigned l)
{
    uint64_t mask = (UINT64_C(1) << l) - 1;
    switch (p) {
    case BIT_COMPLEMENT: /* d_i = ~s_i */
        return ~s & mask;
    case BIT_REVERSAL: { /* d_i = s_{l-1-i} */
        uint64_t d = 0;
        for (unsigned i = 0; i < l; i++)
            d |= (s >> i & 1) << (l - 1 - i);
        return d;
    }
    case BIT_TRANSPOSE: /* d_i = s_{(i + floor(l/2)) mod l}: the halves swapped */
        return rotate_left(s, (l - l / 2) % l, l);
    case BUTTERFLY: { /* d_{l-1} = s_0, d_0 = s_{l-1}, the other bits kept */
        uint64_t low = s & 1, high = s >> (l - 1) & 1;
        return (s & ~(UINT64_C(1) | UINT64_C(1) << (l - 1))) | low << (l - 1) | high;
    }
    default: /* PERFECT_SHUFFLE: d_i = s_{(i-1) mod l} */
        return rotate_left(s, 1 % l, l);
    }
}

/* Fill p->image for every pattern but neighbour; false with err filled. */
static bool fill_images(permutation *p, pattern pat, int64_t offset, uint32_t tasks,
                        const insee_host *host, insee_error *err)
{
    if (pat == TORNADO) {
        p->grid = traffic_grid_create("permutation: pattern 'tornado'", host, err);
        if (!p->grid)
            return false;
    }
    unsigned l = 0;
    while (l < 32 && (UINT64_C(1) << l) < tasks)
        l++;
    for (uint32_t t = 0; t < tasks; t++) {
        uint64_t d;
        if (pat == SHIFT) {
            d = (uint64_t)(((int64_t)t + offset % tasks + tasks) % tasks);
        } else if (pat == TORNADO) {
            /* Each coordinate moves ceil(k/2) - 1 along its ring (Towles and Dally). */
            uint32_t pos = p->grid->pos[t];
            for (uint32_t dim = 0; dim < p->grid->n; dim++)
                pos = traffic_grid_move(p->grid, pos, dim, (p->grid->k[dim] + 1) / 2 - 1);
            d = p->grid->node[pos];
        } else if (l == 0) {
            d = t; /* one task: no bits to permute */
        } else {
            d = bit_image(pat, t, l);
        }
        p->image[t] = d == t || d >= tasks ? SILENT : (uint32_t)d;
    }
    return true;
}

/* neighbour: the dimensions along which a node has neighbours. */
static bool find_live_dims(permutation *p, const insee_host *host, insee_error *err)
{
    p->grid = traffic_grid_create("permutation: pattern 'neighbour'", host, err);
    if (!p->grid)
        return false;
    p->live = malloc(sizeof *p->live * p->grid->n);
    if (!p->live) {
        insee_error_set(err, INSEE_ERR_NOMEM, "permutation: out of memory");
        return false;
    }
    for (uint32_t d = 0; d < p->grid->n; d++)
        if (p->grid->k[d] >= 2)
            p->live[p->n_live++] = d;
    return true;
}

/* A task with no destination: its own image or one >= N, or (neighbour)
   a grid of one node. */
static bool silent(const permutation *p, uint32_t task)
{
    return p->image ? p->image[task] == SILENT : p->n_live == 0;
}

static void permutation_destroy(void *vself)
{
    permutation *p = vself;
    free(p->image);
    free(p->live);
    traffic_grid_destroy(p->grid);
    free(p);
}

static void *permutation_create(const insee_host *host, const insee_value *params,
                                insee_error *err)
{
    insee_shape shape;
    host->shape(host->kernel, &shape);
    pattern pat = (pattern)params[P_PATTERN].i;
    permutation *p = calloc(1, sizeof *p);
    if (!p) {
        insee_error_set(err, INSEE_ERR_NOMEM, "permutation: out of memory");
        return NULL;
    }
    bool ok = traffic_bernoulli_init(&p->rate, "permutation", &shape, params[P_LOAD].d, err);
    if (ok && pat == NEIGHBOUR) {
        ok = find_live_dims(p, host, err);
    } else if (ok) {
        p->image = malloc(sizeof *p->image * shape.tasks); /* the kernel has >= 1 node */
        if (!p->image)
            insee_error_set(err, INSEE_ERR_NOMEM, "permutation: out of memory");
        ok = p->image && fill_images(p, pat, params[P_OFFSET].i, shape.tasks, host, err);
    }
    if (!ok) {
        permutation_destroy(p);
        return NULL;
    }
    uint32_t sending = 0;
    for (uint32_t t = 0; t < shape.tasks; t++)
        sending += !silent(p, t);
    if (sending < shape.tasks) {
        char line[200];
        snprintf(line, sizeof line,
                 "permutation: pattern '%s': %u of %u tasks are their own image (or have "
                 "an image >= %u) and send nothing",
                 params[P_PATTERN].s, shape.tasks - sending, shape.tasks, shape.tasks);
        host->log(host->kernel, INSEE_LOG_INFO, line);
    }
    /* What the network is offered per node, averaged over all of them: the
       measured load agrees with it, and the report shows the silent tasks. */
    p->offered = p->rate.load * sending / shape.tasks;
    return p;
}

static uint64_t permutation_start(void *vself, uint32_t task, insee_rng *rng)
{
    const permutation *p = vself;
    return silent(p, task) ? INSEE_NEVER : traffic_bernoulli_start(&p->rate, rng);
}

static bool permutation_emit(void *vself, uint32_t task, uint64_t now, insee_rng *rng,
                             insee_message *msg, uint64_t *next)
{
    const permutation *p = vself;
    uint32_t dst;
    if (p->image) {
        dst = p->image[task];
    } else {
        /* One of the 2 x n_live directions, each as likely. */
        uint32_t r = insee_rng_below(rng, 2 * p->n_live);
        uint32_t pos = traffic_grid_move(p->grid, p->grid->pos[task], p->live[r / 2],
                                         r % 2 ? -1 : 1);
        dst = p->grid->node[pos];
    }
    *msg = (insee_message){.dst = dst, .packets = 1, .tag = 0};
    *next = traffic_bernoulli_next(&p->rate, now, rng);
    return true;
}

static double permutation_offered_load(void *vself)
{
    const permutation *p = vself;
    return p->offered;
}

static const insee_traffic_vtable permutation_vtable = {
    .size = sizeof(insee_traffic_vtable),
    .create = permutation_create,
    .destroy = permutation_destroy,
    .start = permutation_start,
    .emit = permutation_emit,
    .offered_load = permutation_offered_load,
};

static const insee_plugin_desc permutation_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_TRAFFIC,
    .name = "permutation",
    .version = "1.0.0",
    .summary = "a fixed destination per task (bit permutations, tornado, shift) or a random "
               "nearest neighbour, Bernoulli sources at a given load",
    .reference = "INSEE §3.2.1, Table 2",
    .params = permutation_params,
    .vtable = &permutation_vtable,
};

INSEE_PLUGIN_DEFINE(permutation_desc)
