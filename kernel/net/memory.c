/* kernel/net/memory.c — the memory a network takes, from its shape, and the
 * memory the process may still allocate. See memory.h for what is counted. */
#define _GNU_SOURCE /* RLIMIT_* on every libc */
#include "net/memory.h"

#include <inttypes.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "engine/engine.h"
#include "engine/experiment.h"

/* Bytes per router, port, output VC, node and queue of the arrays allocated
   before the first cycle; the comments name where. */
enum {
    PER_ROUTER = sizeof(uint32_t)         /* net: port_base */
                 + INSEE_STATE_ALIGN      /* engine: rstate */
                 + 3 * sizeof(insee_rng), /* engine: router_rng, arb_rng, ipr_rng */
    PER_PORT = 2 * sizeof(uint32_t)       /* net: port_router, peer_queue */
               + sizeof(insee_link),      /* net: link */
    PER_OVC = sizeof(insee_ovc) /* net: ovc */
              + INSEE_STATE_ALIGN + sizeof(uint32_t), /* engine: astate, out_req */
    PER_NODE = sizeof(uint32_t) + sizeof(insee_link) /* net: node_router, link */
               + INSEE_STATE_ALIGN + sizeof(uint32_t) /* engine: astate, out_req (consumption) */
               + sizeof(insee_rng)                    /* workload: node_rng */
               + 2 * sizeof(uint32_t),                /* workload: node_blocked_head, _tail */
    PER_TASK = sizeof(insee_rng) + 4 * sizeof(uint64_t) + 4 * sizeof(uint32_t) /* workload */
               + 2 * sizeof(insee_due) /* workload: its entry in the due heap, doubled */
               + sizeof(uint32_t)      /* experiment: its node, while the workload starts */
               + 2 * sizeof(insee_message_rec), /* the message it queues, doubled */
    PER_QUEUE = sizeof(insee_queue)    /* net: q */
                + sizeof(insee_queue_at) /* net: q_at */
                + 3 * sizeof(uint32_t), /* engine: wait_first (twice for a bounded
                                           router), head_wait */
    /* With every queue full: each head in the active list with its cached
       candidates, a request record, its waits while it sleeps (the pool
       doubled), and the deadlock check's wait-for graph (its index, two
       edges, colour, path, next and cycle entries). */
    PER_BUSY_QUEUE = sizeof(uint32_t) + 1 /* and its kept candidates */
                     + sizeof(insee_request_rec) + 2 * INSEE_WAITS_PER_QUEUE * sizeof(insee_wait)
                     + 3 * sizeof(uint32_t) + 1 + 3 * sizeof(uint32_t),
    PER_PACKET = sizeof(insee_packet) + INSEE_STATE_ALIGN,
};

/* The active list and the request records grow by doubling. */
static uint64_t doubled(uint64_t n)
{
    uint64_t cap = 256;
    while (cap < n)
        cap *= 2;
    return cap;
}

insee_net_memory insee_net_memory_of(const insee_net_size *s)
{
    insee_net_memory m = {0};
    uint64_t ovcs = s->ports * s->vcs, injection = s->nodes * s->injectors;
    m.queues = ovcs + injection;
    m.packets = ovcs * s->queue_packets +
                injection * ((uint64_t)s->inject_packets + s->queue_packets);
    m.setup = s->routers * PER_ROUTER + s->ports * PER_PORT + ovcs * PER_OVC +
              s->nodes * (PER_NODE + PER_TASK) + m.queues * PER_QUEUE;
    /* A message is alive while a packet of it is, or while its task still
       queues it (counted in PER_TASK): at most one per packet. */
    uint64_t busy = PER_BUSY_QUEUE + MAX(s->kept, INSEE_ROUTE_CACHE) * sizeof(insee_candidate);
    m.full = insee_net_pool_cap(m.packets) * PER_PACKET + doubled(m.queues) * busy +
             doubled(m.packets) * sizeof(insee_message_rec);
    return m;
}

/* Field `field` (0-based) of /proc/self/statm, in bytes; 0 when unknown. */
static uint64_t statm_bytes(int field)
{
    char *text = NULL;
    uint64_t bytes = 0;
    if (g_file_get_contents("/proc/self/statm", &text, NULL, NULL)) {
        char **f = g_strsplit(text, " ", -1);
        if (g_strv_length(f) > (guint)field)
            bytes = g_ascii_strtoull(f[field], NULL, 10) * (uint64_t)sysconf(_SC_PAGESIZE);
        g_strfreev(f);
    }
    g_free(text);
    return bytes;
}

/* A number read from a small file; FALSE when absent or not a number
   (memory.max says "max" when unlimited). */
static gboolean file_number(const char *path, uint64_t *out)
{
    char *text = NULL, *end = NULL;
    if (!g_file_get_contents(path, &text, NULL, NULL))
        return FALSE;
    *out = g_ascii_strtoull(text, &end, 10);
    gboolean ok = end != text;
    g_free(text);
    return ok;
}

typedef struct bound {
    uint64_t bytes;
    const char *limit;
} bound;

static void tighten(bound *b, uint64_t limit, uint64_t used, const char *what)
{
    uint64_t left = limit > used ? limit - used : 0;
    if (left < b->bytes)
        *b = (bound){left, what};
}

/* The limit and usage files of our cgroup and of every one above it, up to
   the root of the mounted hierarchy (in a container, /proc/self/cgroup may
   name a path the container's mount does not have). */
static void cgroup_walk(bound *b, const char *mount, const char *path, const char *max_file,
                        const char *used_file, const char *what)
{
    char *dir = g_strdup(path);
    for (char *slash = dir + strlen(dir); slash; slash = strrchr(dir, '/')) {
        *slash = '\0';
        char *max = g_strdup_printf("%s%s/%s", mount, dir, max_file);
        char *cur = g_strdup_printf("%s%s/%s", mount, dir, used_file);
        uint64_t limit, used;
        if (file_number(max, &limit) && file_number(cur, &used))
            tighten(b, limit, used, what);
        g_free(max);
        g_free(cur);
        if (!*dir)
            break;
    }
    g_free(dir);
}

/* Our cgroup's memory limits: memory.max (cgroup v2, the line "0::PATH" of
   /proc/self/cgroup) or memory.limit_in_bytes (v1, "N:memory:PATH"). */
static void cgroup_bound(bound *b)
{
    char *text = NULL;
    if (!g_file_get_contents("/proc/self/cgroup", &text, NULL, NULL))
        return;
    char **lines = g_strsplit(text, "\n", -1);
    for (char **line = lines; *line; line++) {
        char **f = g_strsplit(*line, ":", 3);
        if (g_strv_length(f) == 3 && f[2][0] == '/') {
            char **controllers = g_strsplit(f[1], ",", -1);
            if (strcmp(f[0], "0") == 0 && !f[1][0])
                cgroup_walk(b, "/sys/fs/cgroup", f[2], "memory.max", "memory.current",
                            "the cgroup's memory.max");
            else if (g_strv_contains((const char *const *)controllers, "memory"))
                cgroup_walk(b, "/sys/fs/cgroup/memory", f[2], "memory.limit_in_bytes",
                            "memory.usage_in_bytes", "the cgroup's memory.limit_in_bytes");
            g_strfreev(controllers);
        }
        g_strfreev(f);
    }
    g_strfreev(lines);
    g_free(text);
}

/* MemAvailable of /proc/meminfo, in bytes; FALSE when absent. */
static gboolean mem_available(uint64_t *out)
{
    char *text = NULL;
    if (!g_file_get_contents("/proc/meminfo", &text, NULL, NULL))
        return FALSE;
    const char *at = strstr(text, "MemAvailable:");
    if (at)
        *out = g_ascii_strtoull(at + strlen("MemAvailable:"), NULL, 10) * 1024;
    g_free(text);
    return at != NULL;
}

uint64_t insee_memory_available(const char **limit)
{
    bound b = {UINT64_MAX, NULL};
    uint64_t avail;
    if (mem_available(&avail))
        tighten(&b, avail, 0, "MemAvailable in /proc/meminfo");
    else
        tighten(&b, (uint64_t)sysconf(_SC_AVPHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE), 0,
                "free physical memory");
    cgroup_bound(&b);
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
        tighten(&b, rl.rlim_cur, statm_bytes(0), "the address-space limit, ulimit -v");
    if (getrlimit(RLIMIT_DATA, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
        tighten(&b, rl.rlim_cur, statm_bytes(5), "the data limit, ulimit -d");
    *limit = b.limit;
    return b.bytes;
}

gboolean insee_net_memory_check(const insee_net_size *s, uint64_t available, const char *limit,
                                GError **err)
{
    insee_net_memory m = insee_net_memory_of(s);
    if (m.setup + m.full <= available)
        return TRUE;
    char *total = g_format_size_full(m.setup + m.full, G_FORMAT_SIZE_IEC_UNITS);
    char *setup = g_format_size_full(m.setup, G_FORMAT_SIZE_IEC_UNITS);
    char *full = g_format_size_full(m.full, G_FORMAT_SIZE_IEC_UNITS);
    char *have = g_format_size_full(available, G_FORMAT_SIZE_IEC_UNITS);
    g_set_error(err, INSEE_EXPERIMENT_ERROR, INSEE_EXPERIMENT_ERROR_SETUP,
                "topology: this network needs %s of memory: %s for %" PRIu64 " routers, %" PRIu64
                " ports and %" PRIu64 " nodes with %" PRIu64 " queues ([router] vcs = %u, "
                "injectors = %u), and %s more when its queues are full, %" PRIu64 " packets "
                "([router] queue_packets = %u, inject_packets = %u); only %s is available (%s). "
                "Use a smaller topology (its [topology] parameters), or lower [router] vcs, "
                "queue_packets or inject_packets",
                total, setup, s->routers, s->ports, s->nodes, m.queues, s->vcs, s->injectors, full,
                m.packets, s->queue_packets, s->inject_packets, have, limit);
    g_free(total);
    g_free(setup);
    g_free(full);
    g_free(have);
    return FALSE;
}

insee_net_size insee_net_size_of(const insee_net *net, uint32_t kept)
{
    return (insee_net_size){.routers = net->routers, .nodes = net->nodes,
                            .ports = net->ports_total, .max_ports = net->max_ports, .kept = kept,
                            .vcs = net->vcs, .queue_packets = net->queue_packets,
                            .inject_packets = net->inject_packets, .injectors = net->injectors};
}

gboolean insee_tasks_memory_check(const insee_net *net, uint64_t tasks, uint32_t kept,
                                  GError **err)
{
    insee_net_size s = insee_net_size_of(net, kept);
    /* The graph alone (a flow engine) never holds a packet. */
    uint64_t need = tasks * PER_TASK, still = net->queues ? insee_net_memory_of(&s).full : 0;
    const char *limit;
    uint64_t available = insee_memory_available(&limit);
    if (need + still <= available)
        return TRUE;
    char *task = g_format_size_full(need, G_FORMAT_SIZE_IEC_UNITS);
    char *run = g_format_size_full(still, G_FORMAT_SIZE_IEC_UNITS);
    char *have = g_format_size_full(available, G_FORMAT_SIZE_IEC_UNITS);
    g_set_error(err, INSEE_EXPERIMENT_ERROR, INSEE_EXPERIMENT_ERROR_SETUP,
                "the applications have %" PRIu64 " tasks in all, which need %s, besides the %s "
                "the network may still take when its queues are full; only %s is available "
                "(%s). Lower tasks or tasks_per_node in [[application]]",
                tasks, task, run, have, limit);
    g_free(task);
    g_free(run);
    g_free(have);
    return FALSE;
}
