/* kernel/net/memory.h — what a network will take and what the process may
 * still allocate, so that insee_net_build() refuses a network too large for
 * memory before it allocates any of it (a failed g_new() aborts the whole
 * program), naming the figure and the parameters to change.
 *
 * insee_net_memory_of() counts from the network's shape alone:
 *  - `setup`: the arrays network.c allocates, the engine's per-router,
 *    per-output and per-node arrays (insee_engine_prepare) and the
 *    workload's per-task ones, for one task per node;
 *  - `full`: what a run adds at worst, with every queue full: the packet
 *    pool (it doubles up to what the queues hold, network.h), the message
 *    records (one per packet, and one per task still queuing its message)
 *    and the engine's per-queue scratch (the active list, the deadlock
 *    check's wait-for graph). No traffic can make a run hold more packets: a source
 *    waits, or drops, when its injection queue is full.
 * Plugin state is counted as one INSEE_STATE_ALIGN block per router, per
 * output and per packet: the router and arbiter do not exist yet when the
 * network is built. The plugins' own tables are not counted; they are
 * small beside the network's arrays except updown's and ecmp's route
 * tables, 4 bytes per pair of routers hosting nodes and routers. These figures
 * follow the allocations they describe; tests/limits checks them against
 * what a build and a saturated run really take.
 *
 * insee_memory_available() is the tightest of the address-space limit
 * (RLIMIT_AS) less the address space in use, the data limit (RLIMIT_DATA)
 * less the data in use, the cgroup's limit less its usage (memory.max and
 * memory.current in v2, memory.limit_in_bytes and memory.usage_in_bytes in
 * v1, ours and every cgroup above it), and the system's MemAvailable (free physical memory when
 * /proc/meminfo cannot be read). `*limit` says which, for messages.
 */
#ifndef INSEE_KERNEL_NET_MEMORY_H
#define INSEE_KERNEL_NET_MEMORY_H

#include <glib.h>
#include <stdint.h>

#include "net/network.h"

G_BEGIN_DECLS

typedef struct insee_net_size {
    uint64_t routers, nodes;
    uint64_t ports;     /* global ports: the sum over routers of ports(r) */
    uint32_t max_ports; /* the largest ports(r) */
    uint32_t vcs, queue_packets, inject_packets, injectors;
    /* Candidates the engine keeps per waiting head: INSEE_ROUTE_CACHE
       (engine.h) at least, which is what insee_net_build() counts, as the
       router is not known yet; insee_tasks_memory_check() counts the
       router's own. */
    uint32_t kept;
} insee_net_size;

typedef struct insee_net_memory {
    uint64_t queues;  /* ports * vcs + nodes * injectors */
    uint64_t packets; /* packets alive when every queue is full */
    uint64_t setup;   /* bytes allocated before the first cycle */
    uint64_t full;    /* bytes a run adds at worst, every queue full */
} insee_net_memory;

insee_net_memory insee_net_memory_of(const insee_net_size *size);
/* The size of the built network `net`, its waiting heads keeping `kept`
   candidates each. */
insee_net_size insee_net_size_of(const insee_net *net, uint32_t kept);

/* Bytes the process may still allocate; *limit names the bound that says so. */
uint64_t insee_memory_available(const char **limit);

/* Refuse (FALSE, err in INSEE_EXPERIMENT_ERROR_SETUP) `tasks` tasks whose
   per-task arrays, with what the built network `net` may still take
   (`full`, its waiting heads keeping `kept` candidates each), exceed the
   memory available now. For applications with several tasks per node, and
   routers that keep more candidates than insee_net_build() counted. */
gboolean insee_tasks_memory_check(const insee_net *net, uint64_t tasks, uint32_t kept,
                                  GError **err);

/* Refuse (FALSE, err in INSEE_EXPERIMENT_ERROR_SETUP) a network whose
   setup + full exceeds `available`, with the figures and the parameters
   that would shrink it. */
gboolean insee_net_memory_check(const insee_net_size *size, uint64_t available, const char *limit,
                                GError **err);

G_END_DECLS
#endif
