/* ksp.c — the k shortest loop-free paths between two routers (Yen, 1971),
 * INRFlow §3.2's KSP routing for the flow engines, on any topology.
 *
 * Paths are ordered by hops, then by the lower port at the first router
 * where two differ, and a pair gets the first k in that order (fewer when
 * fewer exist). Yen's algorithm finds them in that order as long as each
 * spur search answers the first spur path in the same order, which both
 * searches below do: they take the lowest port among those that keep the
 * path shortest. A pair's paths are kept in a cache of recent pairs
 * (../common/paths.c); what it holds never changes an answer. */
#include <stdlib.h>
#include <string.h>

#include "paths.h"

enum { P_K, P_SPLIT, P_TABLE_MB, P_CACHE_MB };

/* The most hops a spur path is sought beyond the whole graph's distance by
   the depth-first search before a breadth-first one over the graph: the
   depth-first search costs little while the detour is short. */
enum { DEEPEST = 3 };

static const insee_param_def ksp_params[] = {
    [P_K] = {"k", INSEE_PARAM_INT, "4", 1, 256, NULL, "paths",
             "the k shortest loop-free paths of every pair of routers (fewer where fewer exist)"},
    [P_SPLIT] = ROUTING_SPLIT_PARAM,
    [P_TABLE_MB] = ROUTING_TABLE_MB_PARAM,
    [P_CACHE_MB] = ROUTING_CACHE_MB_PARAM,
    {0},
};

typedef struct ksp {
    routing_lister l;        /* its list: Yen's A, the shortest paths so far, in order */
    routing_graph *g;        /* l's */
    uint32_t k, routers;
    routing_list candidates; /* Yen's B: the spur paths not taken yet */
    uint32_t *route;         /* the routers of the last path found (routers + 1) */
    uint32_t *spur;          /* a spur path's ports (routers + DEEPEST) */
    uint32_t *removed;       /* the ports taken away at the spur router (k) */
    uint32_t *blocked;       /* per router: gen when on the root path */
    uint32_t *mark;          /* per router: gen when the first search failed there,
                                gen + 1 when the second has reached it */
    uint32_t *dist;          /* where marked: the slack the first search failed with,
                                the hops to the destination the second found */
    uint32_t *queue;         /* the second search's queue, the first's routers by depth
                                (routers + DEEPEST + 1) */
    uint32_t *at;            /* first search: the port to try next at each depth (as many) */
    uint32_t gen;            /* even; two stamps per spur search */
} ksp;

static void ksp_destroy(void *vself)
{
    ksp *s = vself;
    routing_lister_clear(&s->l);
    routing_list_free(&s->candidates);
    free(s->route);
    free(s->spur);
    free(s->removed);
    free(s->blocked);
    free(s->mark);
    free(s->dist);
    free(s->queue);
    free(s->at);
    free(s);
}

static void *ksp_create(const insee_host *host, const insee_value *params, insee_error *err)
{
    insee_shape shape;
    host->shape(host->kernel, &shape);
    ksp *s = calloc(1, sizeof *s);
    if (!s) {
        insee_error_set(err, INSEE_ERR_NOMEM, "ksp: out of memory");
        return NULL;
    }
    size_t n = (size_t)shape.routers + 1;
    s->k = (uint32_t)params[P_K].i;
    s->routers = shape.routers;
    if (!routing_lister_init(&s->l, "ksp", host, (int)params[P_SPLIT].i, params[P_TABLE_MB].d,
                             params[P_CACHE_MB].d, err)) {
        ksp_destroy(s);
        return NULL;
    }
    s->g = s->l.g;
    s->route = malloc(sizeof *s->route * n);
    /* A walk of the first search may come back to a router: up to
       routers - 1 + DEEPEST hops. */
    size_t walk = n + DEEPEST;
    s->spur = malloc(sizeof *s->spur * walk);
    s->removed = malloc(sizeof *s->removed * s->k);
    s->blocked = calloc(n, sizeof *s->blocked);
    s->mark = calloc(n, sizeof *s->mark);
    s->dist = malloc(sizeof *s->dist * n);
    s->queue = malloc(sizeof *s->queue * walk);
    s->at = malloc(sizeof *s->at * walk);
    if (!s->route || !s->spur || !s->removed || !s->blocked || !s->mark || !s->dist || !s->queue ||
        !s->at) {
        insee_error_set(err, INSEE_ERR_NOMEM, "ksp: out of memory");
        ksp_destroy(s);
        return NULL;
    }
    return s;
}

/* Fresh stamps for a spur search; every stamp cleared when they run out. */
static void next_search(ksp *s)
{
    s->gen += 2;
    if (s->gen > UINT32_MAX - 2) {
        memset(s->blocked, 0, sizeof *s->blocked * s->routers);
        memset(s->mark, 0, sizeof *s->mark * s->routers);
        s->gen = 2;
    }
}

static bool is_removed(const ksp *s, uint32_t removed, uint32_t port)
{
    for (uint32_t i = 0; i < removed; i++)
        if (s->removed[i] == port)
            return true;
    return false;
}

/* Whether the first search has found no way on from q with `slack` hops
   to spare or more. */
static bool failed(const ksp *s, uint32_t q, uint32_t slack)
{
    return s->mark[q] == s->gen && s->dist[q] >= slack;
}

/* The first spur path from `spur` at most `slack` hops longer than the
   whole graph's distance (full[spur]), into s->spur: depth first, lowest
   port first, around the root's routers, the spur router and the removed
   ports, over the links after which the destination can still be reached
   in time by the whole graph's distances. The walk may come back to a
   router, but the first one found at the lowest slack that finds one is a
   shortest path, so loop-free; and a router from which none leads on with
   some slack has none with less, whatever the way it was reached: it is
   marked failed for the rest of the spur search. Its hops, or UINT32_MAX
   when there is no path that short. */
static uint32_t bounded_spur(ksp *s, const uint32_t *full, uint32_t spur, uint32_t dst,
                             uint32_t removed, uint32_t slack)
{
    uint32_t *router = s->queue, d = 0, len = full[spur] + slack;
    router[0] = spur;
    s->at[0] = 0;
    while (router[d] != dst) {
        uint32_t r = router[d], p = s->at[d]++;
        if (p == routing_graph_ports(s->g, r)) {
            s->mark[r] = s->gen;
            s->dist[r] = len - d - full[r];
            if (d == 0)
                return UINT32_MAX;
            d--;
            continue;
        }
        uint32_t q = routing_graph_peer(s->g, r, p);
        if (q == ROUTING_UNREACHABLE || q == spur || full[q] == ROUTING_UNREACHABLE ||
            full[q] + d + 1 > len || s->blocked[q] == s->gen ||
            failed(s, q, len - d - 1 - full[q]) || (d == 0 && is_removed(s, removed, p)))
            continue;
        s->spur[d++] = p;
        router[d] = q;
        s->at[d] = 0;
    }
    return d;
}

/* The lowest port at `r` to a router the second search reached at `hops`
   from the destination (at the spur router: not a removed port), or
   UINT32_MAX. */
static uint32_t reached_port(const ksp *s, uint32_t r, uint32_t hops, bool at_spur,
                             uint32_t removed)
{
    for (uint32_t p = 0; p < routing_graph_ports(s->g, r); p++) {
        uint32_t q = routing_graph_peer(s->g, r, p);
        if (q != ROUTING_UNREACHABLE && s->mark[q] == s->gen + 1 && s->dist[q] == hops &&
            !(at_spur && is_removed(s, removed, p)))
            return p;
    }
    return UINT32_MAX;
}

/* The first spur path when it must be longer than the whole graph's
   distance: breadth first backwards from the destination over the graph
   without the root's routers and the spur router, level by level until a
   level reaches a router the spur router has a port to; then from the spur
   router the lowest port one hop closer at every router, into s->spur.
   Its hops, or UINT32_MAX when there is no path. */
static uint32_t detour_spur(ksp *s, uint32_t spur, uint32_t dst, uint32_t removed)
{
    uint32_t seen = s->gen + 1, head = 0, tail = 0, level = 0, first = UINT32_MAX;
    s->mark[dst] = seen;
    s->dist[dst] = 0;
    s->queue[tail++] = dst;
    for (;;) {
        first = reached_port(s, spur, level, true, removed);
        if (first != UINT32_MAX || head == tail)
            break;
        for (uint32_t end = tail; head < end; head++) {
            uint32_t r = s->queue[head], feeders;
            const uint32_t *from = routing_graph_feeders(s->g, r, &feeders);
            for (uint32_t i = 0; i < feeders; i++) {
                uint32_t q = from[i];
                if (q == spur || s->blocked[q] == s->gen || s->mark[q] == seen)
                    continue;
                s->mark[q] = seen;
                s->dist[q] = level + 1;
                s->queue[tail++] = q;
            }
        }
        level++;
    }
    if (first == UINT32_MAX)
        return UINT32_MAX;
    s->spur[0] = first;
    uint32_t r = routing_graph_peer(s->g, spur, first), hops = 1;
    for (; r != dst; hops++) {
        s->spur[hops] = reached_port(s, r, s->dist[r] - 1, false, 0);
        r = routing_graph_peer(s->g, r, s->spur[hops]);
    }
    return hops;
}

/* The candidate of most hops, the highest port first among equals. */
static uint32_t worst_candidate(const routing_list *b)
{
    uint32_t worst = 0;
    for (uint32_t j = 1; j < b->count; j++)
        if (routing_list_compare(b, j, b, worst) > 0)
            worst = j;
    return worst;
}

/* The spur paths of the last path found: for each router of it, the first
   path that follows it that far and then leaves it by a port no path found
   leaves that root by, kept as a candidate unless it is one already.
   Routers before the one where the path left the path it was spurred from
   are skipped (Lawler, 1972): their roots are that path's, and their next
   candidates were sought from it. Only as many candidates are kept as
   paths are still wanted, the best: a spur search stops at the hops of the
   worst of them when there are that many. */
static bool add_candidates(ksp *s, uint32_t src, uint32_t dst, const uint32_t *full)
{
    routing_list *a = &s->l.found, *b = &s->candidates;
    uint32_t last = a->count - 1, len = a->hops[last], wanted = s->k - a->count;
    const uint32_t *path = a->ports + a->first[last];
    s->route[0] = src;
    for (uint32_t i = 0; i < len; i++)
        s->route[i + 1] = routing_graph_peer(s->g, s->route[i], path[i]);
    for (uint32_t i = a->head[last]; i < len; i++) {
        uint32_t spur = s->route[i], most = UINT32_MAX; /* the slack worth seeking */
        if (b->count == wanted) {
            uint32_t limit = b->hops[worst_candidate(b)];
            if (i + full[spur] > limit)
                continue;
            most = limit - i - full[spur];
        }
        next_search(s);
        for (uint32_t j = 0; j < i; j++)
            s->blocked[s->route[j]] = s->gen;
        uint32_t removed = 0;
        for (uint32_t j = 0; j < a->count; j++) {
            const uint32_t *other = a->ports + a->first[j];
            if (a->hops[j] > i && memcmp(other, path, sizeof *path * i) == 0 &&
                !is_removed(s, removed, other[i]))
                s->removed[removed++] = other[i];
        }
        uint32_t hops = UINT32_MAX;
        for (uint32_t slack = 0; slack <= DEEPEST && slack <= most && hops == UINT32_MAX; slack++)
            hops = bounded_spur(s, full, spur, dst, removed, slack);
        if (hops == UINT32_MAX && most > DEEPEST)
            hops = detour_spur(s, spur, dst, removed);
        if (hops == UINT32_MAX || hops - full[spur] > most)
            continue;
        if (!routing_list_push(b, path, i, s->spur, hops))
            return false;
        for (uint32_t j = 0; j + 1 < b->count; j++) {
            if (routing_list_compare(b, j, b, b->count - 1) == 0) {
                routing_list_drop(b, b->count - 1);
                break;
            }
        }
        if (b->count > wanted)
            routing_list_drop(b, worst_candidate(b));
    }
    return true;
}

/* Yen's algorithm into s->l.found: the first path is the lowest shortest
   one; each next is the lowest candidate left. */
static bool shortest_paths(void *vself, uint32_t src, uint32_t dst, const uint32_t *full)
{
    ksp *s = vself;
    routing_list *a = &s->l.found, *b = &s->candidates;
    b->count = 0;
    b->used = 0;
    next_search(s);
    uint32_t hops = bounded_spur(s, full, src, dst, 0, 0);
    if (!routing_list_push(a, NULL, 0, s->spur, hops))
        return false;
    while (a->count < s->k) {
        if (!add_candidates(s, src, dst, full))
            return false;
        if (b->count == 0)
            break;
        uint32_t best = 0;
        for (uint32_t j = 1; j < b->count; j++)
            if (routing_list_compare(b, j, b, best) < 0)
                best = j;
        if (!routing_list_move(b, best, a))
            return false;
    }
    return true;
}

static bool ksp_paths(void *vself, uint32_t src, uint32_t dst, uint32_t salt,
                      void (*add)(void *ctx, const uint32_t *ports, uint32_t hops, double share),
                      void *ctx, insee_error *err)
{
    ksp *s = vself;
    return routing_lister_paths(&s->l, s, shortest_paths, src, dst, salt, add, ctx, err);
}

/* One path per pair is the lowest shortest one. */
static uint32_t ksp_properties(void *vself)
{
    const ksp *s = vself;
    return s->k == 1 ? INSEE_PATHS_MINIMAL : 0;
}

static const insee_routing_vtable ksp_vtable = {
    .size = sizeof(insee_routing_vtable),
    .create = ksp_create,
    .destroy = ksp_destroy,
    .paths = ksp_paths,
    .properties = ksp_properties,
};

static const insee_plugin_desc ksp_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_ROUTING,
    .name = "ksp",
    .version = "1.0.0",
    .summary = "the k shortest loop-free paths of every pair of routers (Yen), a flow split "
               "evenly over them or hashed onto one, on any topology",
    .reference = "INRFlow §3.2; Yen, Management Science 17(11), 1971",
    .params = ksp_params,
    .vtable = &ksp_vtable,
};

INSEE_PLUGIN_DEFINE(ksp_desc)
