/* limits.h — a topology's size against the kernel's limits (insee/topology.h:
 * at most INSEE_MAX_PORTS ports at a router, fewer than INSEE_MAX_QUEUES
 * ports and nodes in all), checked in create() from the parameters alone,
 * before any table is built: the refusal is immediate and names the
 * plugin's own parameters, where the kernel could only say "the topology".
 * Header-only: each topology that includes it compiles its own copy, like
 * everything but the entry hidden in its .so.
 */
#ifndef INSEE_PLUGIN_TOPOLOGY_LIMITS_H
#define INSEE_PLUGIN_TOPOLOGY_LIMITS_H

#include <insee/insee.h>

#include <inttypes.h>

/* `ports`: the most at one router; `all_ports`: the sum over routers (each
   port holds at least one VC queue, each node an injection queue). `fix`
   says which parameters to change. False with err set when over a limit. */
static inline bool topology_within_limits(const char *name, uint64_t routers, uint64_t nodes,
                                          uint64_t ports, uint64_t all_ports, const char *fix,
                                          insee_error *err)
{
    if (ports > INSEE_MAX_PORTS) {
        insee_error_set(err, INSEE_ERR_PARAM,
                        "%s: %" PRIu64 " ports per router; the kernel handles at most %u: %s",
                        name, ports, INSEE_MAX_PORTS, fix);
        return false;
    }
    if (all_ports + nodes >= INSEE_MAX_QUEUES) {
        insee_error_set(err, INSEE_ERR_PARAM,
                        "%s: %" PRIu64 " routers with %" PRIu64 " ports in all, and %" PRIu64
                        " nodes; the kernel numbers fewer than %u queues (one per port and "
                        "VC, one per node), so ports + nodes must stay below that: %s",
                        name, routers, all_ports, nodes, INSEE_MAX_QUEUES, fix);
        return false;
    }
    return true;
}

#endif
