/* gdc.h — the recursive server-centric networks of the DCell family, shared
 * by the dcell, ficonn and gdcficonn plugins (compiled into each .so,
 * hidden like everything but the entry).
 *
 * A level-0 cell is one n-port switch with n servers. A level-m cell is
 * g_m level-(m-1) cells joined pairwise by one link each (the level-m
 * bridges), g_m and which servers the bridge of cells a and b joins given by
 * the connection rule: DCell's own (Guo et al., SIGCOMM 2008, called alpha
 * by Kliegl et al.), Kliegl et al.'s beta, or FiConn's (Li et al., INFOCOM
 * 2009), the three that the generalised DCell/FiConn of Erickson, Kiasari,
 * Navaridas and Stewart routes (INRFlow's gdcficonn). Routers 0..S-1 are the
 * servers in the order of their labels (server u sits in cell
 * u / t_m of each level m, at u mod t_m inside it), routers S..S+S/n-1 the
 * switches, switch s holding servers s n .. s n + n - 1 on its ports 0..n-1.
 * Port 0 of a server goes to its switch; DCell's rules put the level-l
 * bridge on port l (k + 1 ports), FiConn's on the one backup port 1 (two
 * ports, the backup unplugged on the servers no level uses).
 *
 * Routing (paths): dimensional — from the lowest level m whose cell holds
 * both servers, route to the level-m bridge between their two sub-cells,
 * cross it, route on (DCellRouting, FiConn's TOR); or proxy — at the levels
 * asked for, also every route through a third sub-cell c whose bridge is
 * near the source or the destination (within its level-`tightness` cell),
 * the shortest kept, ties broken by the salt. Switch ends: README.md.
 * minimal_hops() and distance() read BFS tables over the links
 * (../../routing/common/shortest.h).
 */
#ifndef INSEE_PLUGIN_GDC_H
#define INSEE_PLUGIN_GDC_H

#include <insee/insee.h>

/* Levels above the top cell: k <= 8 (DCell with n = 2 passes 2^32 servers
   at k = 5 already; FiConn with n = 2 doubles per level). */
#define GDC_MAX_LEVELS 8u

typedef enum gdc_rule { GDC_ALPHA, GDC_BETA, GDC_FICONN } gdc_rule;

typedef struct gdc_params {
    int64_t n, k;
    gdc_rule rule;
    bool proxy;                   /* proxy routing, else dimensional */
    int64_t tightness;            /* proxy: candidates' bridge within a level-t cell */
    const int64_t *proxy_levels;  /* proxy: the levels that try proxies; none: all */
    size_t proxy_levels_len;
} gdc_params;

/* Build the network; `name` prefixes error messages, which name the
 * parameters n, k, tightness and proxy_levels. Refuses a network past 2^32
 * routers or the kernel's limits (../common/limits.h) before building any
 * table. */
void *gdc_create(const char *name, const gdc_params *p, insee_error *err);

void gdc_destroy(void *self);
void gdc_info(void *self, insee_topology_info *out);
uint32_t gdc_ports(void *self, uint32_t router);
bool gdc_link(void *self, uint32_t router, uint32_t port, insee_port_peer *out);
uint32_t gdc_node_router(void *self, uint32_t node);
uint32_t gdc_minimal_hops(void *self, uint32_t router, uint32_t dst_node, uint32_t salt,
                          insee_hop *out, uint32_t max);
uint32_t gdc_distance(void *self, uint32_t router, uint32_t dst_node);
uint32_t gdc_paths(void *self, uint32_t src_router, uint32_t dst_router, uint32_t salt,
                   void (*add)(void *ctx, const uint32_t *ports, uint32_t hops, double share),
                   void *ctx);
uint32_t gdc_path_hops(void *self);

#define GDC_VTABLE(CREATE)                                                   \
    {                                                                        \
        .size = sizeof(insee_topology_vtable),                               \
        .create = (CREATE),                                                  \
        .destroy = gdc_destroy,                                              \
        .info = gdc_info,                                                    \
        .ports = gdc_ports,                                                  \
        .link = gdc_link,                                                    \
        .node_router = gdc_node_router,                                      \
        .minimal_hops = gdc_minimal_hops,                                    \
        .distance = gdc_distance,                                            \
        .paths = gdc_paths,                                                  \
        .path_hops = gdc_path_hops,                                          \
    }

#endif
