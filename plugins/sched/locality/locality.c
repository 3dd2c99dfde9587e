/* locality.c — topology-aware allocation (INRFlow §3.4, "contiguous /
 * locality-aware": a sub-mesh or sub-torus on direct networks, the fewest
 * pods or groups on trees and dragonflies).
 *
 * A network whose node coordinates form a full grid and whose distances are
 * a mesh's or a torus's (checked at create() against the topology's own
 * distances, dimension by dimension, wrap-around found by distance) is a
 * grid: a job gets a box of exactly its size, the most compact shape first
 * (the smallest diameter, then the fewest dimensions spread), the first box
 * of that shape whose nodes are all free, its corner in node order; boxes
 * wrap round a torus. When no box fits (or the size has no box shape), the
 * fewest runs of consecutive free nodes.
 *
 * Any other network is grouped by distance: nodes on one router first, then
 * consecutive groups merged while every two of their routers are within
 * distance 1, 2, ... (a dragonfly's groups at 1, a tree's leaf switches and
 * then its pods at 2, 4, ...), up to the whole machine. A job goes into the
 * smallest group that holds it (best fit: the one with the fewest free
 * nodes), and inside it, level by level, into one subgroup when one holds
 * it, else into the subgroups with the most free nodes, whole, first. */
#include <insee/insee.h>

#include <stdlib.h>
#include <string.h>

#include "../common/instance.h"
#include "../jobs-common/runs.h"
#include "../jobs-common/too_few.h"

#define MAX_DIMS 8
/* The prefix sums of the doubled grid stay below this many cells. */
#define MAX_CELLS (1u << 24)
#define NONE UINT32_MAX

/* One level of the grouping: segment i holds nodes [first[i], first[i + 1])
   and, above level 0, the subgroups [child[i], child[i + 1]) of the level below. */
typedef struct level {
    uint32_t n;
    uint32_t *first; /* n + 1 */
    uint32_t *child; /* n + 1; NULL at level 0 */
} level;

typedef struct locality {
    uint32_t nodes;
    /* grid: dims > 0 */
    uint32_t dims;
    uint32_t k[MAX_DIMS];
    bool wrap[MAX_DIMS];
    uint32_t *cell_node; /* cell (dimension 0 fastest) -> node */
    uint32_t *node_cell;
    uint32_t cells;      /* of the prefix sums */
    /* grouping: n_levels > 0 */
    uint32_t n_levels;
    level *levels;
} locality;

static void locality_destroy(void *self)
{
    locality *l = self;
    if (!l)
        return;
    free(l->cell_node);
    free(l->node_cell);
    for (uint32_t i = 0; i < l->n_levels; i++) {
        free(l->levels[i].first);
        free(l->levels[i].child);
    }
    free(l->levels);
    free(l);
}

/* Distance along one dimension from coordinate 0. */
static uint32_t axis(const locality *l, uint32_t d, uint32_t c)
{
    return l->wrap[d] && l->k[d] - c < c ? l->k[d] - c : c;
}

/* Whether the nodes' coordinates are a full grid with a mesh's or torus's
   distances; fills the grid fields (dims stays 0 otherwise). */
static bool read_grid(locality *l, const insee_host *h, int32_t *c, uint32_t dims)
{
    uint64_t cells = 1, ext = 1;
    for (uint32_t d = 0; d < dims; d++)
        l->k[d] = 0;
    for (uint32_t v = 0; v < l->nodes; v++) {
        if (h->coords(h->kernel, v, c + (size_t)v * dims, dims) != dims)
            return false;
        for (uint32_t d = 0; d < dims; d++) {
            int32_t x = c[(size_t)v * dims + d];
            if (x < 0 || (uint32_t)x >= l->nodes)
                return false;
            if ((uint32_t)x + 1 > l->k[d])
                l->k[d] = (uint32_t)x + 1;
        }
    }
    for (uint32_t d = 0; d < dims; d++)
        cells *= l->k[d];
    if (cells != l->nodes)
        return false;
    l->cell_node = malloc(sizeof *l->cell_node * l->nodes);
    l->node_cell = malloc(sizeof *l->node_cell * l->nodes);
    if (!l->cell_node || !l->node_cell)
        return false;
    memset(l->cell_node, 0xff, sizeof *l->cell_node * l->nodes);
    for (uint32_t v = 0; v < l->nodes; v++) {
        uint32_t cell = 0, stride = 1;
        for (uint32_t d = 0; d < dims; d++) {
            cell += (uint32_t)c[(size_t)v * dims + d] * stride;
            stride *= l->k[d];
        }
        if (l->cell_node[cell] != NONE)
            return false;
        l->cell_node[cell] = v;
        l->node_cell[v] = cell;
    }
    uint32_t origin = h->node_router(h->kernel, l->cell_node[0]), stride = 1;
    for (uint32_t d = 0; d < dims; d++) {
        l->wrap[d] = l->k[d] > 2 &&
                     h->distance(h->kernel, origin, l->cell_node[(l->k[d] - 1) * stride]) == 1;
        stride *= l->k[d];
        ext *= (l->wrap[d] ? 2 * l->k[d] : l->k[d]) + 1;
    }
    if (ext > MAX_CELLS)
        return false;
    l->cells = (uint32_t)ext;
    for (uint32_t v = 0; v < l->nodes; v++) {
        uint32_t want = 0;
        for (uint32_t d = 0; d < dims; d++)
            want += axis(l, d, (uint32_t)c[(size_t)v * dims + d]);
        if (h->distance(h->kernel, origin, v) != want)
            return false;
    }
    l->dims = dims;
    return true;
}

/* Router distance between level-0 segments a and b (their first nodes). */
static uint32_t seg_distance(const insee_host *h, const level *base, uint32_t a, uint32_t b)
{
    return h->distance(h->kernel, h->node_router(h->kernel, base->first[a]), base->first[b]);
}

static bool add_level(locality *l, uint32_t n)
{
    level *lv = realloc(l->levels, sizeof *lv * (l->n_levels + 1));
    if (!lv)
        return false;
    l->levels = lv;
    lv = &l->levels[l->n_levels++];
    *lv = (level){n, malloc(sizeof *lv->first * (n + 1)), NULL};
    return lv->first != NULL;
}

/* Level 0: runs of nodes on one router; then the merges at growing distances. */
static bool build_levels(locality *l, const insee_host *h)
{
    uint32_t runs = 0;
    for (uint32_t v = 0; v < l->nodes; v++)
        runs += v == 0 || h->node_router(h->kernel, v) != h->node_router(h->kernel, v - 1);
    if (!add_level(l, runs))
        return false;
    level *base = &l->levels[0];
    for (uint32_t v = 0, s = 0; v < l->nodes; v++)
        if (v == 0 || h->node_router(h->kernel, v) != h->node_router(h->kernel, v - 1))
            base->first[s++] = v;
    base->first[runs] = l->nodes;
    /* start[i]: the first level-0 segment of the current level's group i */
    uint32_t *start = malloc(sizeof *start * (runs + 1)), *next = malloc(sizeof *next * (runs + 1));
    bool ok = start && next;
    uint32_t groups = runs;
    for (uint32_t i = 0; ok && i <= runs; i++)
        start[i] = i;
    for (uint32_t reach = 1; ok && groups > 1; reach++) {
        uint32_t merged = 0;
        next[0] = 0;
        for (uint32_t g = 0; g < groups; g++) {
            /* join group g to the group being built when every pair is within reach */
            bool join = g > 0;
            for (uint32_t a = next[merged]; join && a < start[g]; a++)
                for (uint32_t b = start[g]; join && b < start[g + 1]; b++)
                    join = seg_distance(h, &l->levels[0], a, b) <= reach;
            if (!join && g > 0)
                next[++merged] = start[g];
        }
        next[++merged] = runs;
        /* past every distance a connected network has, the rest is one group */
        if (reach > l->nodes && merged > 1) {
            merged = 1;
            next[1] = runs;
        }
        if (merged == groups)
            continue;
        ok = add_level(l, merged);
        level *up = &l->levels[l->n_levels - 1], *below = &l->levels[l->n_levels - 2];
        ok = ok && (up->child = malloc(sizeof *up->child * (merged + 1)));
        /* the children of group i: the segments of the level below it spans */
        for (uint32_t i = 0, j = 0; ok && i <= merged; i++) {
            uint32_t node = next[i] < runs ? l->levels[0].first[next[i]] : l->nodes;
            up->first[i] = node;
            while (j < below->n && below->first[j] < node)
                j++;
            up->child[i] = j;
        }
        memcpy(start, next, sizeof *start * (merged + 1));
        groups = merged;
    }
    free(start);
    free(next);
    return ok;
}

static void *locality_create(const insee_host *host, const insee_value *params, insee_error *err)
{
    (void)params; /* no parameters */
    locality *l = sched_alloc(sizeof *l, "locality", err);
    if (!l)
        return NULL;
    *l = (locality){0};
    insee_shape shape;
    host->shape(host->kernel, &shape);
    l->nodes = shape.nodes;
    bool grid = false;
    if (shape.dims > 0 && shape.dims <= MAX_DIMS && host->coords && l->nodes > 0) {
        int32_t *c = malloc(sizeof *c * shape.dims * l->nodes);
        grid = c && read_grid(l, host, c, shape.dims);
        free(c);
    }
    if (!grid) {
        l->dims = 0;
        free(l->cell_node);
        free(l->node_cell);
        l->cell_node = l->node_cell = NULL;
        if (l->nodes > 0 && !build_levels(l, host)) {
            locality_destroy(l);
            insee_error_set(err, INSEE_ERR_NOMEM, "locality: out of memory");
            return NULL;
        }
    }
    return l;
}

/* ---- boxes of a grid ---------------------------------------------------- */

typedef struct shape {
    uint32_t a[MAX_DIMS];
    uint32_t diameter, spread, order;
} shape;

typedef struct shapes {
    shape *s;
    uint32_t n, cap;
    bool failed;
} shapes;

/* Every shape of `left` nodes over dimensions d... (a[d] <= k[d]). */
static void gather(const locality *l, shapes *out, shape *cur, uint32_t d, uint32_t left)
{
    if (d == l->dims) {
        if (left != 1)
            return;
        if (out->n == out->cap) {
            uint32_t cap = out->cap ? 2 * out->cap : 32;
            shape *s = realloc(out->s, sizeof *s * cap);
            if (!s) {
                out->failed = true;
                return;
            }
            out->s = s;
            out->cap = cap;
        }
        cur->diameter = cur->spread = 0;
        for (uint32_t e = 0; e < l->dims; e++) {
            cur->diameter += cur->a[e] == l->k[e] && l->wrap[e] ? l->k[e] / 2 : cur->a[e] - 1;
            cur->spread += cur->a[e] > 1;
        }
        cur->order = out->n;
        out->s[out->n++] = *cur;
        return;
    }
    for (uint32_t a = 1; a <= l->k[d] && a <= left; a++)
        if (left % a == 0) {
            cur->a[d] = a;
            gather(l, out, cur, d + 1, left / a);
        }
}

static int most_compact(const void *x, const void *y)
{
    const shape *a = x, *b = y;
    if (a->diameter != b->diameter)
        return a->diameter < b->diameter ? -1 : 1;
    if (a->spread != b->spread)
        return a->spread < b->spread ? -1 : 1;
    return a->order < b->order ? -1 : 1;
}

/* Free nodes in the box [lo, lo + a) of the doubled grid, from prefix sums
   `p` whose dimension d has extent ext[d] + 1. */
static uint32_t box_free(const locality *l, const uint32_t *p, const uint32_t *pstride,
                         const uint32_t *lo, const uint32_t *a)
{
    int64_t sum = 0;
    for (uint32_t corner = 0; corner < 1u << l->dims; corner++) {
        uint32_t idx = 0, low = 0;
        for (uint32_t d = 0; d < l->dims; d++) {
            bool high = corner >> d & 1;
            idx += (lo[d] + (high ? a[d] : 0)) * pstride[d];
            low += !high;
        }
        sum += low % 2 ? -(int64_t)p[idx] : p[idx];
    }
    return (uint32_t)sum;
}

/* The prefix sums of free nodes over the grid doubled along its rings (so
   that a box may wrap): p[x + 1] counts the free cells <= x. */
static uint32_t *prefix_sums(const locality *l, const bool *free_nodes, uint32_t *pstride,
                             uint32_t *ext)
{
    uint32_t *p = calloc(l->cells, sizeof *p);
    if (!p)
        return NULL;
    uint32_t s = 1;
    for (uint32_t d = 0; d < l->dims; d++) {
        ext[d] = l->wrap[d] ? 2 * l->k[d] : l->k[d];
        pstride[d] = s;
        s *= ext[d] + 1;
    }
    for (uint32_t i = 0; i < l->cells; i++) {
        uint32_t rest = i, cell = 0, stride = 1;
        bool edge = false;
        for (uint32_t d = 0; d < l->dims; d++) {
            uint32_t x = rest % (ext[d] + 1);
            rest /= ext[d] + 1;
            edge |= x == 0;
            cell += (x == 0 ? 0 : (x - 1) % l->k[d]) * stride;
            stride *= l->k[d];
        }
        p[i] = !edge && free_nodes[l->cell_node[cell]];
    }
    for (uint32_t d = 0; d < l->dims; d++)
        for (uint32_t i = 0; i < l->cells; i++)
            if (i / pstride[d] % (ext[d] + 1) > 0)
                p[i] += p[i - pstride[d]];
    return p;
}

/* A box of exactly `count` free nodes into out[]; 0 when none fits, -1 out of memory. */
static int box_allocate(const locality *l, uint32_t count, const bool *free_nodes, uint32_t *out)
{
    shapes all = {0};
    shape cur = {0};
    gather(l, &all, &cur, 0, count);
    if (all.failed || all.n == 0) {
        free(all.s);
        return all.failed ? -1 : 0;
    }
    uint32_t pstride[MAX_DIMS], ext[MAX_DIMS];
    uint32_t *p = prefix_sums(l, free_nodes, pstride, ext);
    if (!p) {
        free(all.s);
        return -1;
    }
    qsort(all.s, all.n, sizeof *all.s, most_compact);
    int found = 0;
    for (uint32_t s = 0; !found && s < all.n; s++) {
        const uint32_t *a = all.s[s].a;
        for (uint32_t v = 0; !found && v < l->nodes; v++) {
            uint32_t lo[MAX_DIMS], rest = l->node_cell[v];
            bool fits = true;
            for (uint32_t d = 0; d < l->dims; d++) {
                lo[d] = rest % l->k[d];
                rest /= l->k[d];
                /* a whole ring from 0 only; a mesh's box inside the mesh */
                fits &= a[d] == l->k[d] ? lo[d] == 0 : l->wrap[d] || lo[d] + a[d] <= l->k[d];
            }
            if (!fits || box_free(l, p, pstride, lo, a) != count)
                continue;
            for (uint32_t i = 0; i < count; i++) {
                uint32_t off = i, cell = 0, stride = 1;
                for (uint32_t d = 0; d < l->dims; d++) {
                    cell += (lo[d] + off % a[d]) % l->k[d] * stride;
                    off /= a[d];
                    stride *= l->k[d];
                }
                out[i] = l->cell_node[cell];
            }
            found = 1;
        }
    }
    free(p);
    free(all.s);
    return found;
}

/* ---- groups ------------------------------------------------------------- */

/* Free nodes of segment i of level lv, from the running count `before`
   (before[v]: free nodes below v). */
static uint32_t seg_free(const level *lv, uint32_t i, const uint32_t *before)
{
    return before[lv->first[i + 1]] - before[lv->first[i]];
}

/* `need` of the free nodes of segment i at level `at` into out[], at most
   all of them; returns how many were written. */
static uint32_t fill(const locality *l, uint32_t at, uint32_t i, uint32_t need, const bool *free_nodes,
                     const uint32_t *before, uint32_t *out)
{
    const level *lv = &l->levels[at];
    uint32_t n = 0;
    if (at == 0) {
        for (uint32_t v = lv->first[i]; v < lv->first[i + 1] && n < need; v++)
            if (free_nodes[v])
                out[n++] = v;
        return n;
    }
    const level *below = &l->levels[at - 1];
    uint32_t lo = lv->child[i], hi = lv->child[i + 1];
    int64_t best = -1;
    for (uint32_t c = lo; c < hi; c++) {
        uint32_t f = seg_free(below, c, before);
        if (f >= need && (best < 0 || f < seg_free(below, (uint32_t)best, before)))
            best = c;
    }
    if (best >= 0)
        return fill(l, at - 1, (uint32_t)best, need, free_nodes, before, out);
    /* no subgroup holds it: the fullest-free subgroups whole, the fewest of them */
    uint32_t last_f = UINT32_MAX, last_c = 0;
    while (n < need) {
        int64_t pick = -1;
        uint32_t pf = 0;
        for (uint32_t c = lo; c < hi; c++) {
            uint32_t f = seg_free(below, c, before);
            /* the next in (free nodes descending, index ascending) order */
            bool after = f < last_f || (f == last_f && c > last_c);
            if (after && (pick < 0 || f > pf))
                pick = c, pf = f;
        }
        if (pick < 0 || pf == 0)
            break;
        n += fill(l, at - 1, (uint32_t)pick, need - n, free_nodes, before, out + n);
        last_f = pf;
        last_c = (uint32_t)pick;
    }
    return n;
}

static bool group_allocate(const locality *l, uint32_t count, const bool *free_nodes, uint32_t *out,
                           insee_error *err)
{
    uint32_t *before = malloc(sizeof *before * (l->nodes + 1));
    if (!before) {
        insee_error_set(err, INSEE_ERR_NOMEM, "locality: out of memory");
        return false;
    }
    before[0] = 0;
    for (uint32_t v = 0; v < l->nodes; v++)
        before[v + 1] = before[v] + free_nodes[v];
    uint32_t n = 0;
    for (uint32_t at = 0; at < l->n_levels && n == 0; at++) {
        const level *lv = &l->levels[at];
        int64_t best = -1;
        for (uint32_t i = 0; i < lv->n; i++) {
            uint32_t f = seg_free(lv, i, before);
            if (f >= count && (best < 0 || f < seg_free(lv, (uint32_t)best, before)))
                best = i;
        }
        if (best >= 0)
            n = fill(l, at, (uint32_t)best, count, free_nodes, before, out);
    }
    free(before);
    return n == count;
}

static bool locality_allocate(void *self, uint32_t count, const bool *free_nodes, uint32_t nodes,
                              uint32_t *out, insee_rng *rng, insee_error *err)
{
    const locality *l = self;
    (void)rng; /* deterministic */
    if (too_few(count, free_nodes, nodes, "locality", err))
        return false;
    if (nodes != l->nodes) {
        insee_error_set(err, INSEE_ERR_UNSUPPORTED, "locality: %u nodes, the network has %u", nodes,
                        l->nodes);
        return false;
    }
    if (l->dims == 0)
        return group_allocate(l, count, free_nodes, out, err);
    int box = box_allocate(l, count, free_nodes, out);
    if (box < 0) {
        insee_error_set(err, INSEE_ERR_NOMEM, "locality: out of memory");
        return false;
    }
    return box > 0 || fewest_runs(count, free_nodes, nodes, out, "locality", err);
}

static const insee_allocation_vtable locality_vtable = {
    .size = sizeof(insee_allocation_vtable),
    .create = locality_create,
    .destroy = locality_destroy,
    .allocate = locality_allocate,
};

static const insee_plugin_desc locality_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_ALLOCATION,
    .name = "locality",
    .version = "1.0.0",
    .summary = "a free sub-mesh or sub-torus on grids, the fewest groups (routers, pods, dragonfly groups) elsewhere",
    .reference = "INRFlow §3.4",
    .params = NULL,
    .vtable = &locality_vtable,
};

INSEE_PLUGIN_DEFINE(locality_desc)
