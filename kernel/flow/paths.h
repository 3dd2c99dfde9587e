/* kernel/flow/paths.h — the paths a flow follows, from whichever source
 * the experiment has: a path routing ([routing], insee/routing.h) or the
 * router walked hop by hop (walk.h). Both flow engines route through it.
 *
 * Contract
 * --------
 * Links are numbered for every flow engine alike: the plugged network
 * ports as the network numbers its global ports, then each node's link
 * into its router (insee_flow_link_in), then each node's link out of its
 * router to it (insee_flow_link_out). A path is given as the global ports
 * it leaves by, router after router; the node links at both ends are the
 * caller's to add. insee_flow_paths_route() calls take() once per path
 * with the share of the flow it carries (shares sum to 1; a flow between
 * two nodes of one router has one path of no hop) and says how many paths
 * it gave: none means the flow is unroutable. The path array is only
 * valid during take(). Errors name the plugin that misbehaved.
 */
#ifndef INSEE_KERNEL_FLOW_PATHS_H
#define INSEE_KERNEL_FLOW_PATHS_H

#include "flow/flow.h"

G_BEGIN_DECLS

static inline uint32_t insee_flow_link_in(const insee_net *net, uint32_t node)
{
    return net->ports_total + node;
}

static inline uint32_t insee_flow_link_out(const insee_net *net, uint32_t node)
{
    return net->ports_total + net->nodes + node;
}

static inline uint32_t insee_flow_links(const insee_net *net)
{
    return net->ports_total + 2 * net->nodes;
}

/* The threads a flow engine walks paths on: [simulation] threads where the
   router and topology allow several, else one; a path routing's tables are
   its own, so it keeps one. */
static inline uint32_t insee_flow_threads(const insee_flow_setup *s)
{
    return s->concurrent && !s->routing ? MAX(s->threads, 1u) : 1u;
}

typedef struct insee_flow_paths insee_flow_paths;
typedef void (*insee_flow_take)(void *ctx, const uint32_t *ports, uint32_t hops, double share);

insee_flow_paths *insee_flow_paths_new(const insee_flow_setup *setup, GError **err);
void insee_flow_paths_free(insee_flow_paths *p);
gboolean insee_flow_paths_route(insee_flow_paths *p, uint32_t src_node, uint32_t dst_node,
                                uint32_t salt, insee_flow_take take, void *ctx, uint32_t *paths,
                                GError **err);

G_END_DECLS
#endif
