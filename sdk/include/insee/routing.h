/* insee/routing.h — the path routing contract (ABI 1.7): the whole paths a
 * flow follows in the flow engines ([routing] table, docs/flow.md §3).
 *
 * A path routing is for the flow engines only: it never routes packets. It
 * answers, for a flow between two different routers, one or several paths
 * and the share of the flow each carries, on any topology, from the graph
 * the kernel shows it (host->ports and host->peer at create()).
 *
 * Who calls what
 *  - create() once the network is built: host->shape(), ports() and
 *    peer() are valid; build what is cheap here, and tables per
 *    destination on demand, within a memory cap the plugin documents
 *    (never an all-pairs table that grows with routers^2).
 *  - paths(src_router, dst_router, salt, add, ctx) for every flow, src and
 *    dst different: call add(ctx, ports, hops, share) once per path, where
 *    ports[i] is the output port taken at the i-th router of the path (the
 *    first at src_router; following host->peer from it ends at dst_router)
 *    and share > 0 the fraction of the flow it carries (the shares of one
 *    flow sum to 1). Adding no path says the flow is unroutable (the
 *    routers are not connected). `salt` is a word fixed per flow, for a
 *    routing that picks one path per flow (hashing). Deterministic: the same
 *    arguments always give the same paths. False with err filled only for a
 *    failure (out of memory, a table that cannot fit its cap).
 *  - properties(): INSEE_PATHS_* bits; NULL: none. insee-conform checks
 *    every path is a chain of plugged links from src to dst that never
 *    visits a router twice, and of minimal length when INSEE_PATHS_MINIMAL.
 */
#ifndef INSEE_ROUTING_H
#define INSEE_ROUTING_H

#include <insee/host.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
    INSEE_PATHS_MINIMAL = 1u << 0, /* every path is a shortest one */
};

typedef struct insee_routing_vtable {
    uint32_t size; /* sizeof(insee_routing_vtable) as built */

    /* minor 7 — required */
    void *(*create)(const insee_host *host, const insee_value *params, insee_error *err);
    void (*destroy)(void *self);
    bool (*paths)(void *self, uint32_t src_router, uint32_t dst_router, uint32_t salt,
                  void (*add)(void *ctx, const uint32_t *ports, uint32_t hops, double share),
                  void *ctx, insee_error *err);

    /* minor 7 — optional */
    uint32_t (*properties)(void *self);
} insee_routing_vtable;

#ifdef __cplusplus
}
#endif
#endif
