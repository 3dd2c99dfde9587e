/* sdk/conformance/check_routing.c — the path routing suite (ABI 1.7): paths()
 * asked for every ordered pair of routers of the mock network (a 4x4 torus,
 * connected), each answer checked against the graph the mock host shows
 * and against breadth-first distances computed here, independently of the
 * plugin's own tables.
 */
#include "conform.h"

#include <string.h>

#define SALTS 3u /* salts asked per pair: a hashing routing may answer each differently */

static conform_status check_create(conform_ctx *ctx, GString *detail)
{
    const insee_routing_vtable *vt = ctx->plugin->vtable;
    return conform_instances_setup(ctx, TRUE, FALSE, vt->create, vt->destroy, detail);
}

/* One answer of paths(): every path's ports, one after the other. */
typedef struct answer {
    GArray *ports;  /* uint32_t */
    GArray *hops;   /* uint32_t, per path */
    GArray *shares; /* double, per path */
} answer;

static void add_path(void *ctx, const uint32_t *ports, uint32_t hops, double share)
{
    answer *a = ctx;
    g_array_append_vals(a->ports, ports, hops);
    g_array_append_val(a->hops, hops);
    g_array_append_val(a->shares, share);
}

static answer answer_new(void)
{
    return (answer){g_array_new(FALSE, FALSE, sizeof(uint32_t)),
                    g_array_new(FALSE, FALSE, sizeof(uint32_t)),
                    g_array_new(FALSE, FALSE, sizeof(double))};
}

static void answer_free(answer *a)
{
    g_array_free(a->ports, TRUE);
    g_array_free(a->hops, TRUE);
    g_array_free(a->shares, TRUE);
}

static gboolean same_answer(const answer *a, const answer *b)
{
    return a->ports->len == b->ports->len && a->hops->len == b->hops->len &&
           memcmp(a->ports->data, b->ports->data, sizeof(uint32_t) * a->ports->len) == 0 &&
           memcmp(a->hops->data, b->hops->data, sizeof(uint32_t) * a->hops->len) == 0 &&
           memcmp(a->shares->data, b->shares->data, sizeof(double) * a->shares->len) == 0;
}

/* Hops from every router to dst, by breadth-first search over host->peer. */
static uint32_t *distances_to(const insee_host *h, uint32_t routers, uint32_t dst)
{
    uint32_t *dist = g_new(uint32_t, routers);
    memset(dist, 0xff, sizeof *dist * routers);
    dist[dst] = 0;
    for (gboolean changed = TRUE; changed;) { /* Bellman-Ford rounds: small networks */
        changed = FALSE;
        for (uint32_t r = 0; r < routers; r++) {
            for (uint32_t p = 0; p < h->ports(h->kernel, r); p++) {
                insee_port_peer to;
                if (h->peer(h->kernel, r, p, &to) && dist[to.router] != UINT32_MAX &&
                    dist[to.router] + 1 < dist[r]) {
                    dist[r] = dist[to.router] + 1;
                    changed = TRUE;
                }
            }
        }
    }
    return dist;
}

/* What is wrong with path i of `a` from src to dst, or NULL. */
static char *path_fault(const insee_host *h, uint32_t routers, const answer *a, guint first,
                        guint i, uint32_t src, uint32_t dst, const uint32_t *dist, gboolean minimal)
{
    uint32_t hops = g_array_index(a->hops, uint32_t, i);
    gboolean *seen = g_new0(gboolean, routers);
    uint32_t r = src;
    char *fault = NULL;
    for (uint32_t k = 0; k < hops && !fault; k++) {
        seen[r] = TRUE;
        uint32_t port = g_array_index(a->ports, uint32_t, first + k);
        insee_port_peer to;
        if (!h->peer(h->kernel, r, port, &to))
            fault = g_strdup_printf("hop %u leaves router %u by port %u, which leads nowhere", k,
                                    r, port);
        else if (seen[to.router])
            fault = g_strdup_printf("hop %u comes back to router %u", k, to.router);
        else
            r = to.router;
    }
    g_free(seen);
    if (!fault && r != dst)
        fault = g_strdup_printf("it ends at router %u", r);
    if (!fault && minimal && hops != dist[src])
        fault = g_strdup_printf("%u hops where the shortest is %u (declared minimal)", hops,
                                dist[src]);
    return fault;
}

/* Every path of one answer: a chain to dst, loop-free, minimal when
   declared; shares in (0, 1] summing to 1; at least one path. */
static void check_answer(const answer *a, const insee_host *h, uint32_t routers, uint32_t src,
                         uint32_t dst, const uint32_t *dist, gboolean minimal, const char *where,
                         conform_findings *f)
{
    if (a->hops->len == 0) {
        conform_note(f, where, "no path from router %u to router %u of a connected network",
                     src, dst);
        return;
    }
    double sum = 0;
    guint first = 0;
    for (guint i = 0; i < a->hops->len; i++) {
        double share = g_array_index(a->shares, double, i);
        sum += share;
        char *fault = path_fault(h, routers, a, first, i, src, dst, dist, minimal);
        if (!fault && !(share > 0 && share <= 1))
            fault = g_strdup_printf("its share is %g", share);
        if (fault) {
            conform_note(f, where, "path %u from router %u to router %u: %s", i, src, dst, fault);
            g_free(fault);
            return;
        }
        first += g_array_index(a->hops, uint32_t, i);
    }
    if (sum < 1 - 1e-9 || sum > 1 + 1e-9)
        conform_note(f, where, "the shares of the paths from router %u to router %u sum to %g",
                     src, dst, sum);
}

static void every_pair(const conform_ctx *ctx, const conform_instance *inst, conform_findings *f,
                       void *data)
{
    (void)data;
    const insee_routing_vtable *vt = ctx->plugin->vtable;
    const conform_instances *set = ctx->state;
    const insee_host *h = &set->mock.host;
    uint32_t routers = set->mock.shape.routers;
    gboolean minimal = vt->properties && (vt->properties(inst->self) & INSEE_PATHS_MINIMAL);
    const char *where = inst->setting->label;
    for (uint32_t dst = 0; dst < routers && f->count < 5; dst++) {
        uint32_t *dist = distances_to(h, routers, dst);
        for (uint32_t src = 0; src < routers && f->count < 5; src++) {
            for (uint32_t salt = 0; src != dst && salt < SALTS && f->count < 5; salt++) {
                answer a = answer_new(), b = answer_new();
                insee_error err = {0};
                if (!vt->paths(inst->self, src, dst, salt * 0x9e3779b9u, add_path, &a, &err) ||
                    !vt->paths(inst->self, src, dst, salt * 0x9e3779b9u, add_path, &b, &err))
                    conform_note(f, where, "paths() from router %u to router %u failed: %s",
                                 src, dst, err.message);
                else if (!same_answer(&a, &b))
                    conform_note(f, where, "paths() from router %u to router %u answered twice "
                                 "differently", src, dst);
                else
                    check_answer(&a, h, routers, src, dst, dist, minimal, where, f);
                answer_free(&a);
                answer_free(&b);
            }
        }
        g_free(dist);
    }
}

static conform_status check_paths(conform_ctx *ctx, GString *detail)
{
    return conform_each_instance(ctx, detail, every_pair, NULL);
}

static const conform_check routing_checks[] = {
    {"routing.create", CONFORM_ERROR,
     "create() succeeds at the defaults (and at every choice of its enums) on the mock network",
     "fill err with what is wrong; defaults must work", check_create},
    {"routing.paths", CONFORM_ERROR,
     "for every pair of routers of a connected network, paths() gives at least one path, each a "
     "chain of plugged links from the source to the destination that never comes back to a "
     "router, of shortest length when INSEE_PATHS_MINIMAL is declared, with shares in (0, 1] "
     "summing to 1, and the same paths when asked again",
     "ports[i] is the output port at the i-th router of the path, counted from the source; read "
     "the graph through host->ports() and host->peer()",
     check_paths},
};

const conform_suite conform_routing_suite =
    CONFORM_SUITE(INSEE_KIND_ROUTING, routing_checks, conform_validate_own, conform_instances_cleanup);
