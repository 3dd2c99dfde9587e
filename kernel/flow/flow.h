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
 * by the flows crossing it; it fills an insee_flow_report. Errors are
 * GErrors in INSEE_FLOW_ERROR that name the plugin and what to change.
 */
#ifndef INSEE_KERNEL_FLOW_H
#define INSEE_KERNEL_FLOW_H

#include <glib.h>
#include <insee/insee.h>

#include "net/network.h"

G_BEGIN_DECLS

#define INSEE_FLOW_ERROR (insee_flow_error_quark())
GQuark insee_flow_error_quark(void);
typedef enum {
    INSEE_FLOW_ERROR_UNSUPPORTED, /* a plugin cannot serve a flow engine */
    INSEE_FLOW_ERROR_PLUGIN,      /* a plugin misbehaved (a bad destination, a looping path) */
    INSEE_FLOW_ERROR_LIMIT,       /* a count past what the engine holds */
} InseeFlowError;

/* One application's traffic: its local tasks are first_task .. +tasks. */
typedef struct insee_flow_app {
    const char *plugin; /* the traffic plugin's name, for messages */
    const insee_traffic_vtable *traffic;
    void *self;
    uint32_t first_task, tasks;
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
} insee_flow_setup;

/* The static engine's figures (docs/flow.md §3). Links are every directed
   link a flow may cross: the plugged network links, then each node's link
   into its router and out of it. */
typedef struct insee_flow_report {
    uint64_t flows;      /* F: routed flows between two different nodes */
    uint64_t self_flows; /* source and destination on one node: no link, counted apart */
    uint64_t unroutable; /* flows the router dropped (INSEE_PORT_DROP): not in F */
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
} insee_flow_report;

gboolean insee_flow_static_run(const insee_flow_setup *setup, insee_flow_report *rep,
                               GError **err);
void insee_flow_report_clear(insee_flow_report *rep);

G_END_DECLS
#endif
