/* jellyfish.c — Jellyfish (Singla, Hong, Popa, Godfrey, NSDI 2012; INRFlow
 * §3.2): a random regular graph of `routers` routers with `degree` network
 * ports each and p nodes per router, drawn from the experiment's seed
 * (host->rng_seed): the same seed gives the same graph.
 *
 * Construction (the paper's): join random pairs of routers that have free
 * ports and are not yet neighbours until no pair can be joined; then a
 * router left with two free ports takes a random link (x, y) apart and
 * joins x and y itself, and two routers left with one free port each take
 * one link apart between them. Components that come out disconnected are
 * merged by swapping the ends of two links that lie on cycles, which keeps
 * every router's degree. Minimal routing reads an all-pairs hop table built
 * once here by a bit-parallel breadth-first search (README: why a table, and
 * its limits). */
#include <insee/insee.h>

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

enum { P_ROUTERS, P_DEGREE, P_P };

/* The hop table takes routers^2 bytes: 64 MiB at the most. */
#define JF_MAX_ROUTERS 8192
/* routers^2 x degree bounds the search that fills the table (one or two
   seconds at this bound); beyond, create() refuses. */
#define JF_MAX_WORK (1ull << 34)
/* Hops are stored in a byte; 255 is never a distance. */
#define JF_MAX_DIAMETER 254
#define NONE UINT32_MAX

static const insee_param_def jellyfish_params[] = {
    [P_ROUTERS] = {"routers", INSEE_PARAM_INT, "32", 3, JF_MAX_ROUTERS, NULL, "routers",
                   "routers (switches); at most 8192: the hop table takes routers^2 bytes"},
    [P_DEGREE] = {"degree", INSEE_PARAM_INT, "4", 2, JF_MAX_ROUTERS - 1, NULL, "ports",
                  "network ports per router (r); routers * degree must be even, degree < "
                  "routers"},
    [P_P] = {"p", INSEE_PARAM_INT, "1", 1, 65535, NULL, "nodes",
             "nodes per router; node n attaches to router n / p"},
    {0},
};

typedef struct jellyfish {
    uint32_t n, r, p, nodes, diameter;
    uint32_t *adj;  /* adj[u * r + k]: the router port k of u leads to */
    uint16_t *back; /* back[u * r + k]: the port of that router leading back to u */
    uint8_t *dist;  /* dist[t * n + u] = dist[u * n + t]: hops between u and t */
} jellyfish;

/* The graph while it is built: adjacency lists filled from slot 0, their
   lengths, the routers with free ports, and an adjacency bit matrix so that
   "already neighbours?" costs O(1). */
typedef struct wiring {
    uint32_t n, r;
    uint32_t *adj, *deg;
    uint32_t *open, *open_at, open_len; /* open_at[u]: u's index in open, or NONE */
    uint64_t *bits;                     /* n x n bits */
    size_t words;                       /* per row of bits */
    insee_rng rng;
} wiring;

static void jellyfish_destroy(void *vself)
{
    jellyfish *jf = vself;
    if (!jf)
        return;
    free(jf->adj);
    free(jf->back);
    free(jf->dist);
    free(jf);
}

static bool linked(const wiring *w, uint32_t u, uint32_t v)
{
    return (w->bits[u * w->words + v / 64] >> (v % 64)) & 1u;
}

static void set_bit(wiring *w, uint32_t u, uint32_t v, bool on)
{
    uint64_t mask = 1ull << (v % 64);
    uint64_t *word = &w->bits[u * w->words + v / 64];
    *word = on ? *word | mask : *word & ~mask;
}

/* Record the link u-v in the bit matrix (both ways) or forget it. */
static void mark(wiring *w, uint32_t u, uint32_t v, bool on)
{
    set_bit(w, u, v, on);
    set_bit(w, v, u, on);
}

static void close_port(wiring *w, uint32_t u)
{
    if (++w->deg[u] < w->r)
        return;
    uint32_t at = w->open_at[u], last = w->open[--w->open_len];
    w->open[at] = last;
    w->open_at[last] = at;
    w->open_at[u] = NONE;
}

static void join(wiring *w, uint32_t u, uint32_t v)
{
    w->adj[u * w->r + w->deg[u]] = v;
    w->adj[v * w->r + w->deg[v]] = u;
    mark(w, u, v, true);
    close_port(w, u);
    close_port(w, v);
}

/* The slot of u's list that holds v. */
static uint32_t *slot(const wiring *w, uint32_t u, uint32_t v)
{
    uint32_t *a = &w->adj[u * w->r];
    while (*a != v)
        a++;
    return a;
}

/* Replace link x-y by x-u and y-v (u == v: u takes both ends). */
static void take_apart(wiring *w, uint32_t x, uint32_t y, uint32_t u, uint32_t v)
{
    *slot(w, x, y) = u;
    *slot(w, y, x) = v;
    mark(w, x, y, false);
    mark(w, x, u, true);
    mark(w, y, v, true);
    w->adj[u * w->r + w->deg[u]] = x;
    close_port(w, u);
    w->adj[v * w->r + w->deg[v]] = y;
    close_port(w, v);
}

/* A link x-y that u and v can take apart: x, y not in {u, v}, x not yet a
   neighbour of u, y not of v. Random tries first, then every link in order
   (a deterministic fallback, so the construction always ends). */
static bool find_swap(wiring *w, uint32_t u, uint32_t v, uint32_t *x, uint32_t *y)
{
    for (uint32_t tries = 0; tries < 64 * w->n; tries++) {
        uint32_t a = insee_rng_below(&w->rng, w->n);
        if (w->deg[a] == 0)
            continue;
        uint32_t b = w->adj[a * w->r + insee_rng_below(&w->rng, w->deg[a])];
        if (a != u && a != v && b != u && b != v && !linked(w, u, a) && !linked(w, v, b)) {
            *x = a;
            *y = b;
            return true;
        }
    }
    for (uint32_t a = 0; a < w->n; a++)
        for (uint32_t k = 0; k < w->deg[a]; k++) {
            uint32_t b = w->adj[a * w->r + k];
            if (a != u && a != v && b != u && b != v && !linked(w, u, a) && !linked(w, v, b)) {
                *x = a;
                *y = b;
                return true;
            }
        }
    return false;
}

/* Two routers with free ports that are not neighbours, in index order. */
static bool find_pair(const wiring *w, uint32_t *u, uint32_t *v)
{
    for (uint32_t i = 0; i < w->open_len; i++)
        for (uint32_t j = i + 1; j < w->open_len; j++)
            if (!linked(w, w->open[i], w->open[j])) {
                *u = w->open[i];
                *v = w->open[j];
                return true;
            }
    return false;
}

/* Random matching of free ports, then the fix-ups for stuck ones. */
static bool wire_random(wiring *w)
{
    uint32_t misses = 0;
    while (w->open_len >= 2) {
        uint32_t u = w->open[insee_rng_below(&w->rng, w->open_len)];
        uint32_t v = w->open[insee_rng_below(&w->rng, w->open_len)];
        if (u != v && !linked(w, u, v)) {
            join(w, u, v);
            misses = 0;
            continue;
        }
        /* Many misses in a row: the few routers left may all be neighbours
           already; look once at every pair before drawing again. */
        if (++misses < 4 * w->open_len + 16)
            continue;
        if (!find_pair(w, &u, &v))
            break;
        join(w, u, v);
        misses = 0;
    }
    uint32_t x, y;
    for (uint32_t u = 0; u < w->n; u++)
        while (w->deg[u] + 2 <= w->r) {
            if (!find_swap(w, u, u, &x, &y))
                return false;
            take_apart(w, x, y, u, u);
        }
    /* Left: routers with one free port each, an even number of them. */
    while (w->open_len >= 2) {
        uint32_t u = w->open[0], v = w->open[1];
        if (!linked(w, u, v))
            join(w, u, v);
        else if (find_swap(w, u, v, &x, &y))
            take_apart(w, x, y, u, v);
        else
            return false;
    }
    return true;
}

/* Merge the components into one. Each component has a link on a cycle (a
   non-tree link of its BFS: every router has degree >= 2); swapping the
   ends of such links x-y (main component) and c-d (another) into x-c, y-d
   joins them, keeps the graph simple and regular, and x-c lies on a cycle
   again for the next merge. */
static bool connect_components(wiring *w)
{
    uint32_t *comp = malloc(sizeof *comp * w->n), *parent = malloc(sizeof *parent * w->n);
    uint32_t *queue = malloc(sizeof *queue * w->n);
    if (!comp || !parent || !queue) {
        free(comp);
        free(parent);
        free(queue);
        return false;
    }
    for (uint32_t u = 0; u < w->n; u++)
        comp[u] = NONE;
    uint32_t count = 0, x = NONE, y = NONE;
    for (uint32_t root = 0; root < w->n; root++) {
        if (comp[root] != NONE)
            continue;
        uint32_t head = 0, tail = 0, c = NONE, d = NONE;
        comp[root] = count;
        parent[root] = NONE;
        queue[tail++] = root;
        while (head < tail) {
            uint32_t u = queue[head++];
            for (uint32_t k = 0; k < w->r; k++) {
                uint32_t v = w->adj[u * w->r + k];
                if (comp[v] == NONE) {
                    comp[v] = count;
                    parent[v] = u;
                    queue[tail++] = v;
                } else if (v != parent[u] && c == NONE) {
                    c = u;
                    d = v;
                }
            }
        }
        if (count++ == 0) {
            x = c;
            y = d;
            continue;
        }
        *slot(w, x, y) = c;
        *slot(w, c, d) = x;
        *slot(w, y, x) = d;
        *slot(w, d, c) = y;
        y = c;
    }
    free(comp);
    free(parent);
    free(queue);
    return true;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Port k of u leads to u's k-th neighbour by index; back[] holds the port
   of that neighbour leading back (binary search in its sorted list). */
static void number_ports(jellyfish *jf)
{
    uint32_t n = jf->n, r = jf->r;
    for (uint32_t u = 0; u < n; u++)
        qsort(&jf->adj[(size_t)u * r], r, sizeof(uint32_t), cmp_u32);
    for (uint32_t u = 0; u < n; u++)
        for (uint32_t k = 0; k < r; k++) {
            const uint32_t *list = &jf->adj[(size_t)jf->adj[(size_t)u * r + k] * r];
            uint32_t lo = 0, hi = r;
            while (lo < hi) {
                uint32_t mid = lo + (hi - lo) / 2;
                if (list[mid] < u)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            jf->back[(size_t)u * r + k] = (uint16_t)lo;
        }
}

/* All-pairs hops, 64 sources at a time (multi-source BFS): each router
   keeps a word of "reached from source b" bits, and a level ORs the
   neighbours' frontier words. n^2 r (diameter + 1) / 64 word operations.
   Returns the diameter, or 0 when a distance would not fit a byte. */
static uint32_t fill_distances(jellyfish *jf, uint64_t *seen, uint64_t *frontier, uint64_t *next)
{
    uint32_t n = jf->n, r = jf->r, diameter = 0;
    for (uint32_t batch = 0; batch < n; batch += 64) {
        uint32_t size = n - batch < 64 ? n - batch : 64;
        memset(seen, 0, sizeof *seen * n);
        for (uint32_t b = 0; b < size; b++) {
            seen[batch + b] = 1ull << b;
            jf->dist[(size_t)(batch + b) * n + batch + b] = 0;
        }
        memcpy(frontier, seen, sizeof *seen * n);
        for (uint32_t level = 1;; level++) {
            bool any = false;
            for (uint32_t u = 0; u < n; u++) {
                uint64_t reach = 0;
                for (uint32_t k = 0; k < r; k++)
                    reach |= frontier[jf->adj[(size_t)u * r + k]];
                next[u] = reach & ~seen[u];
                any |= next[u] != 0;
            }
            if (!any)
                break;
            if (level > JF_MAX_DIAMETER)
                return 0;
            if (level > diameter)
                diameter = level;
            for (uint32_t u = 0; u < n; u++) {
                seen[u] |= next[u];
                /* The table is symmetric: row u, the batch's columns, is
                   where these land contiguously. */
                for (uint64_t bits = next[u]; bits; bits &= bits - 1)
                    jf->dist[(size_t)u * n + batch + (uint32_t)__builtin_ctzll(bits)] =
                        (uint8_t)level;
            }
            uint64_t *swap = frontier;
            frontier = next;
            next = swap;
        }
    }
    return diameter;
}

/* Draw the graph into jf->adj; false with err set when it cannot be. */
static bool draw_graph(jellyfish *jf, const insee_host *host, insee_error *err)
{
    uint32_t n = jf->n;
    wiring w = {.n = n, .r = jf->r, .adj = jf->adj, .words = (n + 63) / 64};
    w.deg = calloc(n, sizeof *w.deg);
    w.open = malloc(sizeof *w.open * n);
    w.open_at = malloc(sizeof *w.open_at * n);
    w.bits = calloc((size_t)n * w.words, sizeof *w.bits);
    bool ok = false;
    if (!w.deg || !w.open || !w.open_at || !w.bits) {
        insee_error_set(err, INSEE_ERR_NOMEM, "jellyfish: out of memory for %u routers", n);
    } else {
        host->rng_seed(host->kernel, 0, &w.rng);
        for (uint32_t u = 0; u < n; u++)
            w.open[u] = w.open_at[u] = u;
        w.open_len = n;
        if (!wire_random(&w))
            insee_error_set(err, INSEE_ERR_PARAM,
                            "jellyfish: no simple %u-regular graph on %u routers came out of "
                            "the random construction; use a lower degree or more routers",
                            jf->r, n);
        else if (!connect_components(&w))
            insee_error_set(err, INSEE_ERR_NOMEM, "jellyfish: out of memory");
        else
            ok = true;
    }
    free(w.deg);
    free(w.open);
    free(w.open_at);
    free(w.bits);
    return ok;
}

static void *jellyfish_create(const insee_host *host, const insee_value *params,
                              insee_error *err)
{
    uint64_t n = (uint64_t)params[P_ROUTERS].i, r = (uint64_t)params[P_DEGREE].i;
    uint64_t p = (uint64_t)params[P_P].i;
    if (r >= n) {
        insee_error_set(err, INSEE_ERR_PARAM,
                        "jellyfish: degree = %" PRIu64 " >= routers = %" PRIu64
                        ": a router can link to at most routers - 1 others; use degree <= %"
                        PRIu64 " or more routers",
                        r, n, n - 1);
        return NULL;
    }
    if (n * r % 2 != 0) {
        insee_error_set(err, INSEE_ERR_PARAM,
                        "jellyfish: routers * degree = %" PRIu64 " * %" PRIu64
                        " is odd, but every link takes two ports; make routers or degree even",
                        n, r);
        return NULL;
    }
    if (n * n * r > JF_MAX_WORK) {
        insee_error_set(err, INSEE_ERR_PARAM,
                        "jellyfish: routers^2 * degree = %" PRIu64 " is more than %llu: the "
                        "all-pairs hop table would take too long to build; use fewer "
                        "routers or a lower degree",
                        n * n * r, JF_MAX_WORK);
        return NULL;
    }
    jellyfish *jf = calloc(1, sizeof *jf);
    if (!jf) {
        insee_error_set(err, INSEE_ERR_NOMEM, "jellyfish: out of memory");
        return NULL;
    }
    /* routers <= 8192 and p <= 65535: the node count fits 32 bits. */
    *jf = (jellyfish){.n = (uint32_t)n, .r = (uint32_t)r, .p = (uint32_t)p,
                      .nodes = (uint32_t)(n * p)};
    jf->adj = malloc(sizeof *jf->adj * n * r);
    jf->back = malloc(sizeof *jf->back * n * r);
    jf->dist = malloc(n * n);
    uint64_t *scratch = malloc(sizeof *scratch * 3 * n);
    if (!jf->adj || !jf->back || !jf->dist || !scratch) {
        free(scratch);
        jellyfish_destroy(jf);
        insee_error_set(err, INSEE_ERR_NOMEM,
                        "jellyfish: out of memory for %" PRIu64 " routers (%" PRIu64
                        " bytes of hop table)",
                        n, n * n);
        return NULL;
    }
    if (!draw_graph(jf, host, err)) {
        free(scratch);
        jellyfish_destroy(jf);
        return NULL;
    }
    number_ports(jf);
    jf->diameter = fill_distances(jf, scratch, scratch + n, scratch + 2 * n);
    free(scratch);
    if (jf->diameter == 0) {
        insee_error_set(err, INSEE_ERR_PARAM,
                        "jellyfish: the graph's diameter is more than %u hops, more than the "
                        "hop table holds (degree 2 makes a ring); use degree >= 3",
                        JF_MAX_DIAMETER);
        jellyfish_destroy(jf);
        return NULL;
    }
    return jf;
}

static void jellyfish_info(void *vself, insee_topology_info *out)
{
    const jellyfish *jf = vself;
    *out = (insee_topology_info){
        .routers = jf->n,
        .nodes = jf->nodes,
        .max_ports = jf->r,
        .dims = 0, /* a random graph has no coordinates */
        .flags = 0,
        .diameter = jf->diameter,
    };
}

static uint32_t jellyfish_ports(void *vself, uint32_t router)
{
    (void)router; /* regular: every router has `degree` ports, all plugged */
    const jellyfish *jf = vself;
    return jf->r;
}

static bool jellyfish_link(void *vself, uint32_t router, uint32_t port, insee_port_peer *out)
{
    const jellyfish *jf = vself;
    if (port >= jf->r)
        return false;
    size_t at = (size_t)router * jf->r + port;
    *out = (insee_port_peer){jf->adj[at], jf->back[at]};
    return true;
}

static uint32_t jellyfish_node_router(void *vself, uint32_t node)
{
    const jellyfish *jf = vself;
    return node / jf->p;
}

static uint32_t jellyfish_minimal_hops(void *vself, uint32_t router, uint32_t dst_node,
                                       uint32_t salt, insee_hop *out, uint32_t max)
{
    (void)salt; /* every minimal port is listed, in port order */
    const jellyfish *jf = vself;
    const uint8_t *to = &jf->dist[(size_t)(dst_node / jf->p) * jf->n];
    const uint32_t *adj = &jf->adj[(size_t)router * jf->r];
    uint32_t w = 0;
    if (to[router] == 0)
        return 0;
    for (uint32_t k = 0; k < jf->r && w < max; k++)
        if (to[adj[k]] + 1 == to[router])
            out[w++] = (insee_hop){.port = (uint16_t)k, .dim = -1};
    return w;
}

static uint32_t jellyfish_distance(void *vself, uint32_t router, uint32_t dst_node)
{
    const jellyfish *jf = vself;
    return jf->dist[(size_t)(dst_node / jf->p) * jf->n + router];
}

static const insee_topology_vtable jellyfish_vtable = {
    .size = sizeof(insee_topology_vtable),
    .create = jellyfish_create,
    .destroy = jellyfish_destroy,
    .info = jellyfish_info,
    .ports = jellyfish_ports,
    .link = jellyfish_link,
    .node_router = jellyfish_node_router,
    .minimal_hops = jellyfish_minimal_hops,
    /* port_info NULL: no dimension, no direction (the kernel's default);
       coords NULL: info.dims is 0 */
    .distance = jellyfish_distance,
};

static const insee_plugin_desc jellyfish_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_TOPOLOGY,
    .name = "jellyfish",
    .version = "1.0.0",
    .summary = "Jellyfish: random regular graph drawn from the experiment seed "
               "(same seed, same graph)",
    .reference = "INRFlow §3.2; Singla et al., Jellyfish, NSDI 2012",
    .params = jellyfish_params,
    .vtable = &jellyfish_vtable,
};

INSEE_PLUGIN_DEFINE(jellyfish_desc)
