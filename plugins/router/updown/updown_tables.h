/* updown_tables.h — shortest legal up*-down* routes on any bidirectional
 * topology, as tables built once at create(). Shared by the updown router
 * (its whole routing) and ecmp (its escape VC): compiled into both plugins,
 * as ../../topology/torus/kcube.c is into torus and mesh.
 *
 * Which way is up: the topology's own word when its ports say so (trees flag
 * hops INSEE_HOP_UP / INSEE_HOP_DOWN), else a BFS spanning tree from `root`:
 * a hop is up when it leads to a router nearer the root, or as near with a
 * lower index (a total order, so the up relation is acyclic). A legal route
 * is zero or more up hops then zero or more down hops.
 */
#ifndef INSEE_UPDOWN_TABLES_H
#define INSEE_UPDOWN_TABLES_H

#include <insee/insee.h>

typedef struct updown_tables {
    const insee_host *host;
    const char *who;           /* the plugin's name, first word of every error */
    uint32_t routers;
    uint32_t *port_base;       /* routers + 1 */
    uint32_t *peer;            /* per global port: router it leads to, or UINT32_MAX */
    uint8_t *up;               /* per global port: the hop is up */
    uint32_t *by_way;          /* per router from port_base: its plugged up ports,
                                  then its plugged down ports, each lowest first */
    uint32_t *down_from;       /* per router: where its down ports start in by_way */
    uint32_t *plugged_end;     /* per router: where its down ports end in by_way */
    uint32_t *dst_index;       /* per router: its row in the tables, or UINT32_MAX */
    uint32_t dsts;
    uint16_t *down;            /* [dst * routers + r]: hops by down hops only */
    uint16_t *legal;           /* [dst * routers + r]: hops by a legal route */
} updown_tables;

/* One hop of a shortest legal route. */
typedef struct updown_hop {
    uint16_t port;
    bool down; /* no up hop may follow it */
} updown_hop;

/* Read the graph through host->peer() and port_info() and build the tables
   toward every router that hosts a node. Every router hosting a node must
   reach every such router by a legal route; with `from_every_router`, every
   router must (a router whose packets may start a legal route anywhere).
   False with err set ("<who>: ...") when the network is refused: a link with
   no way back, disconnected, labels that are not an order, root out of
   range, too large. t is zeroed first; free it with updown_tables_free()
   either way. */
bool updown_tables_build(updown_tables *t, const insee_host *host, const char *who,
                         int64_t root, bool from_every_router, insee_error *err);
void updown_tables_free(updown_tables *t);

/* The ports at `router` on a shortest legal route to `dst_router` (a router
   hosting a node), lowest port first, at most `max`; a packet that has gone
   down (`gone_down`) is offered down hops only. 0 at the destination. */
uint32_t updown_tables_hops(const updown_tables *t, uint32_t router, uint32_t dst_router,
                            bool gone_down, updown_hop *out, uint32_t max);

#endif
