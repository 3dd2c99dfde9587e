/* kernel/flow/flow.h — the flow engines' room: a message is one flow that
 * follows a whole path, not packets in the cycle loop (docs/flow.md).
 *
 * Contract
 * --------
 * The experiment builds the network (net/), creates the router, places the
 * tasks and creates every application's traffic exactly as for the packet
 * engine, then hands this room an insee_flow_setup that borrows all of it.
 * The room never touches the packet engine's state: it owns only its own
 * counters, so the packet time loop (engine/) carries nothing for it.
 *
 * Workload: every application's traffic gives its flows through the
 * traffic entry round() (insee/traffic.h, ABI 1.7), asked `rounds` times
 * per task with the task's own stream; a traffic without it is refused.
 * Paths: a path routing's paths() (insee/routing.h) when the experiment has
 * a [routing] table, else the router walked hop by hop (walk.h).
 *
 * insee_flow_static_run() is INRFlow's static engine (its §3.1 and §4):
 * all flows routed at once, each directed link's capacity shared equally
 * by the flows crossing it; it fills an insee_flow_report.
 *
 * The dynamic engine (insee_flow_dynamic_*) gives flows bytes and links
 * bandwidth: a causal application runs as in the packet engine (start(),
 * emit(), delivered(), finished()), with its cycles read as
 * insee_flow_dyn_options.cycle_s seconds each; an open-ended one sends
 * `rounds` rounds of its pattern at time 0. Link bandwidth is shared by
 * share.h's rule. While it runs, the kernel's wake_task() must reach
 * insee_flow_dynamic_wake(). It fills an insee_flow_dyn_report. With
 * insee_flow_dyn_options.storage, storage.h's devices are links after the
 * network's and a task's storage accesses are flows over them.
 *
 * Jobs (setup->sched, docs/scheduling.md): an application with a job waits
 * until the scheduler starts it. The engine wakes at every arrival, runs
 * insee_sched_step() at every instant with an arrival or a completion, and
 * the scheduler's start callback places the job's tasks (writing the
 * setup's task_node) and calls insee_flow_dynamic_start_app(). A causal
 * job completes when its traffic has finished and its last message is
 * delivered; an open-ended one at start + runtime, or at its last delivery
 * when later. Times are seconds.
 *
 * Errors are GErrors in INSEE_FLOW_ERROR that name the plugin and what to
 * change.
 */
#ifndef INSEE_KERNEL_FLOW_H
#define INSEE_KERNEL_FLOW_H

#include <glib.h>
#include <insee/insee.h>

#include "flow/share.h"
#include "flow/storage.h"
#include "net/network.h"
#include "workload/sched.h"

G_BEGIN_DECLS

#define INSEE_FLOW_ERROR (insee_flow_error_quark())
GQuark insee_flow_error_quark(void);
typedef enum {
    INSEE_FLOW_ERROR_UNSUPPORTED, /* a plugin cannot serve a flow engine */
    INSEE_FLOW_ERROR_PLUGIN,      /* a plugin misbehaved (a bad destination, a looping path) */
    INSEE_FLOW_ERROR_LIMIT,       /* a count past what the engine holds */
    INSEE_FLOW_ERROR_STUCK,       /* a causal workload waits for what never comes */
} InseeFlowError;

/* One application's traffic: its local tasks are first_task .. +tasks. */
typedef struct insee_flow_app {
    const char *plugin; /* the traffic plugin's name, for messages */
    const insee_traffic_vtable *traffic;
    void *self;
    uint32_t first_task, tasks;
    gboolean causal; /* runs through start()/emit()/delivered() (dynamic engine) */
    uint32_t abi_minor; /* the traffic plugin's: whether its messages give bytes and class */
    gboolean io;        /* every message of it is I/O ([background] class = "io") */
    uint32_t job;       /* dynamic: its job in `sched`, or INSEE_NONE */
    double runtime;     /* dynamic, open-ended job: seconds it holds its nodes at least */
} insee_flow_app;

typedef struct insee_flow_setup {
    const insee_net *net;
    const char *router_name;          /* router or routing: the one that gives paths */
    const insee_router_vtable *router; /* NULL when `routing` gives the paths */
    void *router_self;
    const insee_routing_vtable *routing;
    void *routing_self;
    size_t pstate_size, rstate_size; /* the router's per-packet and per-router blocks */
    const insee_flow_app *apps;
    uint32_t n_apps;
    const uint32_t *task_node; /* every application's tasks, first_task-indexed */
    uint64_t seed;
    uint32_t rounds;
    insee_sched *sched;  /* dynamic: the jobs' scheduler (workload/sched.h), or NULL */
    uint64_t keep_bytes; /* the most the first pass keeps of paths for the second;
                            0: a quarter of the memory available (figures never
                            depend on it, only the time: flows past it are routed
                            again) */
    uint32_t threads;    /* threads it may walk flows on (>= 1) */
    gboolean concurrent; /* the router and topology may be asked from several threads
                            at once (INSEE_ROUTE_CONCURRENT, INSEE_TOPO_CONCURRENT) */
} insee_flow_setup;

/* The static engine's figures (docs/flow.md §3). Links are every directed
   link a flow may cross: the plugged network links, then each node's link
   into its router and out of it. */
typedef struct insee_flow_report {
    uint64_t flows;      /* F: routed flows between two different nodes */
    uint64_t self_flows; /* source and destination on one node: no link, counted apart */
    uint64_t unroutable; /* flows the router dropped (INSEE_PORT_DROP), sent out by a
                            failed cable, or given no path by a path routing: not in F */
    uint64_t links;      /* directed links counted */
    uint64_t ports;      /* router ports: plugged network ports + one per node */
    /* Flows per link; a flow split over several paths counts its share on
       each. load_max is B. */
    double load_min, load_max, load_mean, load_std, load_median;
    uint64_t *load_hist; /* load_hist[k]: links whose load is in [k, k + 1), k = 0 .. floor(B) */
    double hops_mean;    /* router-to-router links per flow; links per flow = hops + 2 */
    uint32_t hops_max;
    double *hops_hist;   /* hops_hist[h]: flows (shares) of h router hops, h = 0 .. hops_max */
    double restricted;      /* F / B */
    double non_restricted;  /* sum over flows of 1 / (max load on the flow's links) */
    /* [faults] (net/faults.h), filled by the experiment: failed links are
       unplugged, so neither counted in `links` nor crossed by a flow. */
    uint32_t failed_cables;
    uint64_t connected_pairs; /* ordered pairs of distinct nodes the surviving graph joins */
    uint32_t threads;         /* the threads the flows were walked on (no figure depends
                                 on it, so it is not reported) */
} insee_flow_report;

gboolean insee_flow_static_run(const insee_flow_setup *setup, insee_flow_report *rep,
                               GError **err);
void insee_flow_report_clear(insee_flow_report *rep);

/* What the dynamic engine reads besides the setup. */
typedef struct insee_flow_dyn_options {
    const double *capacity;   /* bytes per second of every link (paths.h numbers them) */
    double cycle_s;           /* seconds of one traffic cycle (compute phases, due times) */
    uint32_t max_outstanding; /* messages a task has in the network at most; 0: no limit */
    insee_share_rule rule;
    insee_share_policy policy;
    double app_share;         /* BA: the application class's share of a link */
    uint64_t packet_bytes;    /* a message's bytes per packet, when it gives no bytes */
    uint32_t series;          /* buckets of the utilisation time series */
    uint32_t busiest;         /* links listed by utilisation */
    uint32_t link_series;     /* spans of each link's own series; 0: none */
    const volatile int *stop; /* non-zero: the run ends where it is, interrupted; may be NULL */
    const insee_storage_config *storage; /* [storage] (storage.h); NULL: none */
    uint32_t min_walks; /* walks at once below which the caller walks alone (0: the
                           engine's own); results never depend on it */
} insee_flow_dyn_options;

typedef struct insee_flow_dyn_report {
    double makespan;          /* s: when the last application completed */
    uint64_t messages;        /* messages sent between two nodes (each one flow) */
    uint64_t self_messages;   /* between tasks of one node: no link, delivered at once */
    uint64_t unroutable;      /* dropped: no path (not in messages) */
    uint64_t subflows;        /* paths carried (a multipath flow has several) */
    uint64_t bytes_sent, bytes_delivered; /* of messages (self ones included) */
    double fct_mean, fct_p50, fct_p99, fct_max;                 /* s, network messages */
    double slowdown_mean, slowdown_p50, slowdown_p99, slowdown_max; /* against alone */
    uint32_t n_apps;
    double *app_completion;   /* s, per application */
    uint64_t *app_messages;   /* per application */
    double utilisation;       /* mean over links of bytes / (capacity x makespan) */
    uint32_t n_busiest;
    uint32_t *busiest_link;   /* links (paths.h numbering), busiest first */
    double *busiest_util;
    uint32_t n_series;
    double *series;           /* mean link utilisation in each of n_series equal spans */
    uint32_t n_link_series;   /* [flow] link_series: spans of the busiest links' series */
    double link_series_span;  /* s, each */
    double *link_series;      /* n_busiest rows of n_link_series utilisations */
    uint64_t instants;        /* times at which flows started or ended */
    uint64_t rate_changes;    /* flows given a new rate */
    uint32_t failed_cables;   /* [faults] */
    uint64_t connected_pairs; /* ordered pairs of distinct nodes the surviving graph joins */
    gboolean interrupted;     /* `stop` ended the run: the figures are partial */
    uint32_t threads;         /* the threads paths were walked on, and the walks shared
                                 by them (no figure depends on either) */
    uint64_t shared_walks;
} insee_flow_dyn_report;

typedef struct insee_flow_dynamic insee_flow_dynamic;

/* Borrows setup and opt until freed. */
insee_flow_dynamic *insee_flow_dynamic_new(const insee_flow_setup *setup,
                                           const insee_flow_dyn_options *opt, GError **err);
/* Start application `app`, a job the scheduler starts now (from within
   insee_sched_step()'s start callback, while the run is under way). */
void insee_flow_dynamic_start_app(insee_flow_dynamic *d, uint32_t app);
/* The kernel's wake_task() for application `app`'s task `task`. */
void insee_flow_dynamic_wake(insee_flow_dynamic *d, uint32_t app, uint32_t task, uint64_t at);
gboolean insee_flow_dynamic_run(insee_flow_dynamic *d, insee_flow_dyn_report *rep,
                                GError **err);
void insee_flow_dynamic_free(insee_flow_dynamic *d);
void insee_flow_dyn_report_clear(insee_flow_dyn_report *rep);

G_END_DECLS
#endif
