/* kernel/flow/paths.c — a flow's paths from the path routing or the
 * walked router; see paths.h. */
#include "flow/paths.h"

#include "flow/walk.h"

struct insee_flow_paths {
    const insee_flow_setup *s;
    insee_flow_walker *walker; /* NULL when a path routing gives the paths */
    GArray *path;              /* uint32_t: global ports of the path being given */
    /* The flow being routed, for the routing's callback. */
    uint32_t from, to, given;
    insee_flow_take take;
    void *ctx;
    GError *error;
};

insee_flow_paths *insee_flow_paths_new(const insee_flow_setup *setup, GError **err)
{
    insee_flow_walker *walker = NULL;
    if (!setup->routing && !(walker = insee_flow_walker_new(setup, err)))
        return NULL;
    insee_flow_paths *p = g_new0(insee_flow_paths, 1);
    p->s = setup;
    p->walker = walker;
    p->path = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    return p;
}

void insee_flow_paths_free(insee_flow_paths *p)
{
    if (!p)
        return;
    insee_flow_walker_free(p->walker);
    g_array_unref(p->path);
    g_free(p);
}

/* A path routing's path, in ports of successive routers, as global ports;
   refused when it leaves by a port that leads nowhere or ends elsewhere. */
static void add_routed_path(void *ctx, const uint32_t *ports, uint32_t hops, double share)
{
    insee_flow_paths *p = ctx;
    const insee_net *net = p->s->net;
    if (p->error)
        return;
    uint32_t r = p->from;
    g_array_set_size(p->path, 0);
    for (uint32_t i = 0; i < hops && r != INSEE_NONE; i++) {
        uint32_t gp = net->port_base[r] + ports[i];
        r = ports[i] < net->port_base[r + 1] - net->port_base[r] ? insee_net_next_router(net, gp)
                                                                  : INSEE_NONE;
        g_array_append_val(p->path, gp);
    }
    if (r != p->to || !(share > 0 && share <= 1)) {
        g_set_error(&p->error, INSEE_FLOW_ERROR, INSEE_FLOW_ERROR_PLUGIN,
                    "[routing] plugin '%s' gave a flow from router %u to router %u a path of "
                    "%u hops that does not lead there through plugged links, or a share %g "
                    "outside (0, 1]", p->s->router_name, p->from, p->to, hops, share);
        return;
    }
    p->given++;
    p->take(p->ctx, (const uint32_t *)p->path->data, p->path->len, share);
}

gboolean insee_flow_paths_route(insee_flow_paths *p, uint32_t src_node, uint32_t dst_node,
                                uint32_t salt, insee_flow_take take, void *ctx, uint32_t *paths,
                                GError **err)
{
    const insee_flow_setup *s = p->s;
    p->from = s->net->node_router[src_node];
    p->to = s->net->node_router[dst_node];
    p->given = 0;
    p->take = take;
    p->ctx = ctx;
    if (p->from == p->to) {
        p->given = 1;
        take(ctx, NULL, 0, 1.0);
    } else if (s->routing) {
        insee_error perr = {0};
        if (!s->routing->paths(s->routing_self, p->from, p->to, salt, add_routed_path, p,
                               &perr) &&
            !p->error)
            g_set_error(&p->error, INSEE_FLOW_ERROR, INSEE_FLOW_ERROR_PLUGIN,
                        "[routing] plugin '%s' failed: %s", s->router_name,
                        perr.code ? perr.message : "no reason given");
    } else {
        uint32_t hops;
        gboolean routable;
        if (!insee_flow_walk(p->walker, 1, &src_node, &dst_node, &salt, err))
            return FALSE;
        const uint32_t *ports = insee_flow_walk_path(p->walker, 0, &hops, &routable);
        if (routable) {
            p->given = 1;
            take(ctx, ports, hops, 1.0);
        }
    }
    if (p->error) {
        g_propagate_error(err, p->error);
        p->error = NULL;
        return FALSE;
    }
    *paths = p->given;
    return TRUE;
}
