/* kernel/flow/walk.c — walking a deterministic router; see walk.h.
 *
 * A hop reads where its port leads, a cache miss on a large network, and
 * the next hop cannot start before it arrives. So the walker keeps
 * INSEE_FLOW_LANES flows of a batch walking side by side: each round moves
 * every lane one hop, asking for the next link's line first and reading it
 * only once every lane has asked, so the misses overlap; a lane whose flow
 * arrives takes the batch's next flow. Paths and errors are per flow, in
 * batch order, so the result does not depend on the interleaving. */
#include "flow/walk.h"

#include <string.h>

#include "flow/table.h"

/* Where a global output port leads: the next router and the input port
   there, side by side so that a hop reads one cache line; and the static
   engine's count of the flows leaving by it, on the line the walk read. */
typedef struct link_end {
    uint32_t router; /* INSEE_NONE when unplugged */
    uint32_t port;
    uint32_t load;
} link_end;

/* Hops after which a flow's path is first searched for a router it
   visited twice, then again at each doubling: a loop is found, exactly, at
   a cost of a few lookups per hop of the rare long path, and no table of
   every router is read on each hop. */
#define FIRST_LOOP_CHECK 64u

/* One flow of the batch. */
typedef struct flow {
    insee_route_ctx ctx;
    uint32_t dst_router;
    uint32_t gp, vc;     /* the hop just chosen */
    uint32_t *path, len, cap;
    uint32_t check;      /* the hop count of the next loop check */
    gboolean routable;
    GError *error;
} flow;

struct insee_flow_walker {
    const insee_flow_setup *s;
    link_end *next;        /* per global port */
    gboolean owns_next;    /* else the first walker's, shared */
    uint8_t *pstate;       /* one packet state block per flow of the batch */
    void *rstate;          /* one router's (zeroed per hop) */
    insee_rng rng;         /* route()'s stream: a deterministic router draws nothing */
    flow flows[INSEE_FLOW_BATCH];
};

/* A walker with its own state per flow and router, reading `next` (NULL:
   its own, filled here). */
static insee_flow_walker *walker_alloc(const insee_flow_setup *setup, link_end *next,
                                       GError **err)
{
    insee_flow_walker *w = g_new0(insee_flow_walker, 1);
    w->s = setup;
    w->pstate = setup->pstate_size ? g_malloc0(setup->pstate_size * INSEE_FLOW_BATCH) : NULL;
    w->rstate = setup->rstate_size ? g_malloc0(setup->rstate_size) : NULL;
    const insee_net *net = setup->net;
    w->owns_next = next == NULL;
    w->next = next ? next : insee_flow_table_new0(sizeof(link_end) * net->ports_total);
    if (!w->next) {
        g_set_error(err, INSEE_FLOW_ERROR, INSEE_FLOW_ERROR_LIMIT,
                    "out of memory for the walker's table of %u ports; use a smaller topology",
                    net->ports_total);
        insee_flow_walker_free(w);
        return NULL;
    }
    for (uint32_t gp = 0; w->owns_next && gp < net->ports_total; gp++) {
        uint32_t r = insee_net_next_router(net, gp);
        w->next[gp] = (link_end){
            .router = r,
            .port = r == INSEE_NONE ? 0 : net->peer_queue[gp] / net->vcs - net->port_base[r],
            .load = 0};
    }
    insee_rng_init(&w->rng, setup->seed, 7ull << 40);
    return w;
}

insee_flow_walker *insee_flow_walker_new(const insee_flow_setup *setup, GError **err)
{
    const insee_router_vtable *rv = setup->router;
    uint32_t props = rv->properties ? rv->properties(setup->router_self) : 0;
    if (props & INSEE_ROUTE_MULTICAST) {
        g_set_error(err, INSEE_FLOW_ERROR, INSEE_FLOW_ERROR_UNSUPPORTED,
                    "[router] plugin '%s' routes multicast sets, which a flow engine cannot "
                    "follow as one path; use a unicast deterministic router or a path routing",
                    setup->router_name);
        return NULL;
    }
    if (!(props & INSEE_ROUTE_PURE)) {
        g_set_error(err, INSEE_FLOW_ERROR, INSEE_FLOW_ERROR_UNSUPPORTED,
                    "[router] plugin '%s' is adaptive as configured (it does not declare "
                    "INSEE_ROUTE_PURE: its choice may depend on the network's state, the time or "
                    "a random draw), so a flow engine cannot follow one path per flow; choose "
                    "a deterministic mode of it (docs/flow.md lists them) or a path routing",
                    setup->router_name);
        return NULL;
    }
    return walker_alloc(setup, NULL, err);
}

insee_flow_walker *insee_flow_walker_new_beside(const insee_flow_walker *first, GError **err)
{
    return walker_alloc(first->s, first->next, err);
}

void insee_flow_walker_free(insee_flow_walker *w)
{
    if (!w)
        return;
    for (uint32_t i = 0; i < INSEE_FLOW_BATCH; i++)
        g_free(w->flows[i].path);
    g_free(w->pstate);
    g_free(w->rstate);
    if (w->owns_next)
        insee_flow_table_free(w->next, sizeof(link_end) * w->s->net->ports_total);
    g_free(w);
}

/* Flow i set at its source's router, its state zeroed. */
static void start(insee_flow_walker *w, uint32_t i, uint32_t src_node, uint32_t dst_node,
                  uint32_t salt)
{
    const insee_flow_setup *s = w->s;
    flow *f = &w->flows[i];
    void *pstate = w->pstate ? w->pstate + (size_t)i * s->pstate_size : NULL;
    if (pstate)
        memset(pstate, 0, s->pstate_size);
    f->ctx = (insee_route_ctx){
        .size = sizeof f->ctx, .router = s->net->node_router[src_node],
        .in_port = INSEE_PORT_INJECTION, .src_node = src_node, .dst_node = dst_node,
        .salt = salt, .packet_state = pstate, .router_state = w->rstate, .rng = &w->rng,
    };
    f->dst_router = s->net->node_router[dst_node];
    f->len = 0;
    f->check = FIRST_LOOP_CHECK;
    f->routable = TRUE;
    f->error = NULL;
}

static gboolean dead_end(const insee_flow_walker *w, flow *f, uint32_t port)
{
    g_set_error(&f->error, INSEE_FLOW_ERROR, INSEE_FLOW_ERROR_PLUGIN,
                "[router] plugin '%s' sent a flow from node %u to node %u out of port %u of "
                "router %u, which leads nowhere", w->s->router_name, f->ctx.src_node,
                f->ctx.dst_node, port, f->ctx.router);
    return FALSE;
}

/* The hop count at which the flow's path first came back to a router it
   had passed (that router in *router), or -1 when it never did. */
static int64_t first_return(const insee_flow_walker *w, const flow *f, uint32_t *router)
{
    GHashTable *passed = g_hash_table_new(NULL, NULL); /* router + 1 */
    uint32_t r = w->s->net->node_router[f->ctx.src_node];
    int64_t at = -1;
    for (uint32_t k = 0;; k++) {
        if (!g_hash_table_add(passed, GUINT_TO_POINTER(r + 1))) {
            at = k;
            *router = r;
            break;
        }
        if (k == f->len)
            break;
        r = w->next[f->path[k]].router;
    }
    g_hash_table_destroy(passed);
    return at;
}

/* Flow i chooses its next hop at its router: FALSE when its walk ends there
   (dropped, or an error). The port's link is asked for, not read. */
static gboolean choose(insee_flow_walker *w, uint32_t i)
{
    const insee_flow_setup *s = w->s;
    const insee_net *net = s->net;
    flow *f = &w->flows[i];
    insee_route_ctx *ctx = &f->ctx;
    if (f->len == f->check) {
        uint32_t r;
        int64_t at = first_return(w, f, &r);
        if (at >= 0) {
            g_set_error(&f->error, INSEE_FLOW_ERROR, INSEE_FLOW_ERROR_PLUGIN,
                        "[router] plugin '%s' brought a flow from node %u to node %u back to "
                        "router %u after %" G_GINT64_FORMAT " hops: its path loops",
                        s->router_name, ctx->src_node, ctx->dst_node, r, at);
            return FALSE;
        }
        f->check = f->check <= UINT32_MAX / 2 ? 2 * f->check : UINT32_MAX;
    }
    if (w->rstate)
        memset(w->rstate, 0, s->rstate_size);
    insee_candidate cand[INSEE_MAX_CANDIDATES];
    uint32_t n = s->router->route(s->router_self, ctx, cand, INSEE_MAX_CANDIDATES);
    if (n == 0) {
        g_set_error(&f->error, INSEE_FLOW_ERROR, INSEE_FLOW_ERROR_PLUGIN,
                    "[router] plugin '%s' gave no candidate at router %u for a flow from node "
                    "%u to node %u in an empty network; a flow engine needs a router that "
                    "always routes", s->router_name, ctx->router, ctx->src_node, ctx->dst_node);
        return FALSE;
    }
    uint32_t port = cand[0].port; /* the one a packet alone in the network takes */
    if (port == INSEE_PORT_DROP) {
        f->routable = FALSE;
        return FALSE;
    }
    uint32_t base = net->port_base[ctx->router];
    if (port >= net->port_base[ctx->router + 1] - base)
        return dead_end(w, f, port);
    f->gp = base + port;
    if (net->failed && net->failed[f->gp]) { /* a failed cable (net/faults.h): dropped */
        f->routable = FALSE;
        return FALSE;
    }
    f->vc = cand[0].vc;
    __builtin_prefetch(&w->next[f->gp]);
    if (s->router->forwarded)
        s->router->forwarded(s->router_self, ctx, &cand[0]);
    if (f->len == f->cap) {
        f->cap = f->cap ? 2 * f->cap : 64;
        f->path = g_renew(uint32_t, f->path, f->cap);
    }
    f->path[f->len++] = f->gp;
    return TRUE;
}

/* Flow i crosses the link it chose: FALSE when it arrives (or the link
   leads nowhere). The next router's lines are asked for. */
static gboolean cross(insee_flow_walker *w, uint32_t i)
{
    flow *f = &w->flows[i];
    insee_route_ctx *ctx = &f->ctx;
    link_end next = w->next[f->gp];
    if (next.router == INSEE_NONE)
        return dead_end(w, f, f->gp - w->s->net->port_base[ctx->router]);
    ctx->in_port = next.port;
    ctx->in_vc = f->vc;
    ctx->router = next.router;
    ctx->hops++;
    if (next.router == f->dst_router)
        return FALSE;
    __builtin_prefetch(&w->s->net->port_base[next.router]);
    return TRUE;
}

gboolean insee_flow_walk(insee_flow_walker *w, uint32_t n, const uint32_t *src,
                         const uint32_t *dst, const uint32_t *salt, GError **err)
{
    g_assert(n <= INSEE_FLOW_BATCH);
    uint32_t lane[INSEE_FLOW_LANES], lanes = 0, started = 0;
    while (lanes > 0 || started < n) {
        /* Fill the free lanes with the batch's next flows. */
        while (lanes < INSEE_FLOW_LANES && started < n) {
            uint32_t i = started++;
            start(w, i, src[i], dst[i], salt[i]);
            if (w->flows[i].ctx.router != w->flows[i].dst_router)
                lane[lanes++] = i;
        }
        uint32_t kept = 0;
        for (uint32_t l = 0; l < lanes; l++)
            if (choose(w, lane[l]))
                lane[kept++] = lane[l];
        lanes = kept;
        kept = 0;
        for (uint32_t l = 0; l < lanes; l++)
            if (cross(w, lane[l]))
                lane[kept++] = lane[l];
        lanes = kept;
    }
    gboolean ok = TRUE;
    for (uint32_t i = 0; i < n; i++) {
        if (w->flows[i].error && ok) {
            g_propagate_error(err, w->flows[i].error);
            ok = FALSE;
        } else if (w->flows[i].error) {
            g_error_free(w->flows[i].error);
        }
        w->flows[i].error = NULL;
    }
    return ok;
}

uint32_t *insee_flow_walker_loads(insee_flow_walker *w, size_t *stride)
{
    *stride = sizeof(link_end) / sizeof(uint32_t);
    return &w->next[0].load;
}

const uint32_t *insee_flow_walk_path(const insee_flow_walker *w, uint32_t i, uint32_t *hops,
                                     gboolean *routable)
{
    *hops = w->flows[i].len;
    *routable = w->flows[i].routable;
    return w->flows[i].path;
}
