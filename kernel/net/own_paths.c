/* kernel/net/own_paths.c — a topology's own paths, checked against the
 * built network (own_paths.h). */
#include "net/own_paths.h"

/* One call of insee_net_own_paths(): the first pass sums the shares of the
   paths that survive the check, the second passes them on scaled. */
typedef struct own_paths {
    const insee_net *net;
    uint32_t src, dst, max_hops;
    uint32_t given;
    double kept; /* first pass: the surviving shares' sum; second: its inverse */
    gboolean passing_on;
    insee_own_path_fn add;
    void *ctx;
} own_paths;

/* Where output `port` of `router` leads, or INSEE_NONE when it is not a
   port of the router or is unplugged (failed cables are). */
static uint32_t next_router(const insee_net *net, uint32_t router, uint32_t port)
{
    if (port >= net->port_base[router + 1] - net->port_base[router])
        return INSEE_NONE;
    return insee_net_next_router(net, net->port_base[router] + port);
}

static void take(void *ctx, const uint32_t *ports, uint32_t hops, double share)
{
    own_paths *o = ctx;
    uint32_t at = o->src;
    if (!hops || hops > o->max_hops || !(share > 0))
        return;
    for (uint32_t i = 0; i < hops && at != INSEE_NONE; i++)
        at = next_router(o->net, at, ports[i]);
    if (at != o->dst)
        return;
    if (!o->passing_on) {
        o->kept += share;
        return;
    }
    o->given++;
    o->add(o->ctx, ports, hops, share * o->kept);
}

uint32_t insee_net_own_path_hops(const insee_topology_vtable *topo, void *self)
{
    return topo->paths && topo->path_hops ? topo->path_hops(self) : 0;
}

uint32_t insee_net_own_paths(const insee_net *net, const insee_topology_vtable *topo, void *self,
                             uint32_t src, uint32_t dst, uint32_t salt, insee_own_path_fn add,
                             void *ctx)
{
    uint32_t max_hops = insee_net_own_path_hops(topo, self);
    if (!max_hops || !add || src == dst || src >= net->routers || dst >= net->routers)
        return 0;
    own_paths o = {.net = net, .src = src, .dst = dst, .max_hops = max_hops, .add = add,
                   .ctx = ctx};
    topo->paths(self, src, dst, salt, take, &o);
    if (!(o.kept > 0))
        return 0;
    o.kept = 1.0 / o.kept;
    o.passing_on = TRUE;
    topo->paths(self, src, dst, salt, take, &o);
    return o.given;
}
