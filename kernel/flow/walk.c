/* kernel/flow/walk.c — walking a deterministic router; see walk.h. */
#include "flow/walk.h"

#include <string.h>

struct insee_flow_walker {
    const insee_flow_setup *s;
    void *pstate, *rstate; /* one packet's state, one router's (zeroed per hop) */
    insee_rng rng;         /* route()'s stream: a deterministic router draws nothing */
    uint32_t *visited;     /* per router: the walk that last passed there */
    uint32_t walk;         /* this walk's number, from 1 */
};

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
    insee_flow_walker *w = g_new0(insee_flow_walker, 1);
    w->s = setup;
    w->pstate = setup->pstate_size ? g_malloc0(setup->pstate_size) : NULL;
    w->rstate = setup->rstate_size ? g_malloc0(setup->rstate_size) : NULL;
    w->visited = g_new0(uint32_t, setup->net->routers);
    insee_rng_init(&w->rng, setup->seed, 7ull << 40);
    return w;
}

void insee_flow_walker_free(insee_flow_walker *w)
{
    if (!w)
        return;
    g_free(w->pstate);
    g_free(w->rstate);
    g_free(w->visited);
    g_free(w);
}

/* The first candidate's port, the one a packet alone in the network takes,
   or INSEE_NONE (with the error) when there is none. */
static uint32_t first_port(const insee_flow_walker *w, const insee_route_ctx *ctx,
                           const insee_candidate *cand, uint32_t n, GError **err)
{
    if (n > 0)
        return cand[0].port;
    g_set_error(err, INSEE_FLOW_ERROR, INSEE_FLOW_ERROR_PLUGIN,
                "[router] plugin '%s' gave no candidate at router %u for a flow from node %u to "
                "node %u in an empty network; a flow engine needs a router that always routes",
                w->s->router_name, ctx->router, ctx->src_node, ctx->dst_node);
    return INSEE_NONE;
}

gboolean insee_flow_walk(insee_flow_walker *w, uint32_t src_node, uint32_t dst_node,
                         uint32_t salt, GArray *path, gboolean *routable, GError **err)
{
    const insee_flow_setup *s = w->s;
    const insee_net *net = s->net;
    uint32_t dst_router = net->node_router[dst_node];
    insee_candidate cand[INSEE_MAX_CANDIDATES];
    if (w->pstate)
        memset(w->pstate, 0, s->pstate_size);
    insee_route_ctx ctx = {
        .size = sizeof ctx, .router = net->node_router[src_node],
        .in_port = INSEE_PORT_INJECTION, .src_node = src_node, .dst_node = dst_node,
        .salt = salt, .packet_state = w->pstate, .router_state = w->rstate, .rng = &w->rng,
    };
    g_array_set_size(path, 0);
    *routable = TRUE;
    if (++w->walk == 0) { /* the stamps wrapped: start them afresh */
        memset(w->visited, 0, sizeof *w->visited * net->routers);
        w->walk = 1;
    }
    while (ctx.router != dst_router) {
        if (w->visited[ctx.router] == w->walk) {
            g_set_error(err, INSEE_FLOW_ERROR, INSEE_FLOW_ERROR_PLUGIN,
                        "[router] plugin '%s' brought a flow from node %u to node %u back to "
                        "router %u after %u hops: its path loops",
                        s->router_name, src_node, dst_node, ctx.router, ctx.hops);
            return FALSE;
        }
        w->visited[ctx.router] = w->walk;
        if (w->rstate)
            memset(w->rstate, 0, s->rstate_size);
        uint32_t n = s->router->route(s->router_self, &ctx, cand, INSEE_MAX_CANDIDATES);
        uint32_t port = first_port(w, &ctx, cand, MIN(n, INSEE_MAX_CANDIDATES), err);
        if (port == INSEE_NONE)
            return FALSE;
        if (port == INSEE_PORT_DROP) {
            *routable = FALSE;
            return TRUE;
        }
        uint32_t gp = net->port_base[ctx.router] + port;
        gboolean real = port < net->port_base[ctx.router + 1] - net->port_base[ctx.router];
        if (real && net->failed && net->failed[gp]) {
            *routable = FALSE;
            return TRUE;
        }
        uint32_t next = real ? insee_net_next_router(net, gp) : INSEE_NONE;
        if (next == INSEE_NONE) {
            g_set_error(err, INSEE_FLOW_ERROR, INSEE_FLOW_ERROR_PLUGIN,
                        "[router] plugin '%s' sent a flow from node %u to node %u out of port "
                        "%u of router %u, which leads nowhere",
                        s->router_name, src_node, dst_node, port, ctx.router);
            return FALSE;
        }
        if (s->router->forwarded)
            s->router->forwarded(s->router_self, &ctx, &cand[0]);
        g_array_append_val(path, gp);
        ctx.in_port = net->peer_queue[gp] / net->vcs - net->port_base[next];
        ctx.in_vc = cand[0].vc;
        ctx.router = next;
        ctx.hops++;
    }
    return TRUE;
}
