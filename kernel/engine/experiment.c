/* kernel/engine/experiment.c — from a validated configuration to a running
 * engine: resolve each kind's plugin, bind its section (the kernel's keys,
 * then the plugin's), create the instances in dependency order, build the
 * network and place the tasks of every application.
 *
 * Applications: a file without [[application]] tables has one, from its
 * [traffic] and [placement] sections, with a task per node (every file
 * written before several applications existed). With [[application]]
 * tables each names its tasks, tasks_per_node, [application.traffic] and
 * [application.placement]; they take nodes in order, and [background]
 * traffic (if any) runs one task on each node left. */
#include "engine/experiment.h"
#include "engine/partition.h"

#include <math.h>
#include <string.h>

#include "engine/engine.h"
#include "engine/siblings.h"
#include "flow/output.h"
#include "flow/paths.h"
#include "workload/bridge.h"
#include "workload/sched.h"
#include "workload/swf.h"
#include "net/faults.h"
#include "net/memory.h"
#include "net/timing.h"
#include "stats/json.h"
#include "stats/output.h"
#include "stats/trace.h"

G_DEFINE_QUARK(insee-experiment-error-quark, insee_experiment_error)

GError *insee_simulation_error(uint64_t cycle, const char *fmt, va_list ap)
{
    char *msg = g_strdup_vprintf(fmt, ap);
    GError *e = g_error_new(INSEE_EXPERIMENT_ERROR, INSEE_EXPERIMENT_ERROR_SIMULATION,
                            "cycle %" G_GUINT64_FORMAT ": %s", cycle, msg);
    g_free(msg);
    return e;
}

/* Only what differs from the defaults, so that `--set topology.plugin=...`
   does not inherit keys the other plugin lacks. */
const char insee_default_experiment[] =
    "# The embedded default experiment: an 8x8 torus under uniform traffic.\n"
    "[simulation]\n"
    "seed = 1  # INSEE's run phases: warm-up, convergence, 10 batches of 1000 cycles\n"
    "[topology]\n"
    "plugin = \"torus\"  # its default dims: [8, 8]\n"
    "[router]\n"
    "plugin = \"bubble\"  # INSEE's default: smart mode, 2 VCs\n"
    "[traffic]\n"
    "plugin = \"uniform\"\n"
    "load = 0.3\n";

/* Kernel-owned keys, validated like any plugin's. */
enum { SIM_SEED, SIM_WARMUP, SIM_CYCLES, SIM_DRAIN, SIM_PACKET_PHITS, SIM_PHIT_BYTES,
       SIM_DEADLOCK, SIM_MAX_CYCLES, SIM_PHASES, SIM_CONV_WINDOW, SIM_CONV_PACKETS,
       SIM_CONV_TOLERANCE, SIM_CONV_MAX, SIM_BATCHES, SIM_BATCH_CYCLES, SIM_ENGINE, SIM_THREADS };
enum { ENGINE_PACKET, ENGINE_STATIC, ENGINE_DYNAMIC };
/* The keys every engine reads, shared by the packet engine's tables and the
   flow engines' (flow_tables). */
#define SEED_PARAM                                                                        \
    {"seed", INSEE_PARAM_INT, "1", 0, 9007199254740991.0, NULL, NULL,                     \
     "seed of every random stream; same seed and config, same results"}
#define ENGINE_PARAM                                                                      \
    {"engine", INSEE_PARAM_ENUM, "\"packet\"", 1, 0, "packet|static|dynamic", NULL,       \
     "packet: INSEE's cycle engine; static: every flow routed at once, link capacity "    \
     "shared equally (INRFlow's static engine); dynamic: flows with bytes over links "    \
     "with bandwidth, in time (docs/flow.md)"}
#define THREADS_PARAM                                                                     \
    {"threads", INSEE_PARAM_INT, "0", 0, 4096, NULL, NULL,                                \
     "threads a run may use (0: the cores the process may use); results are the same "    \
     "for any number. The static engine walks its flows on them when its router and "     \
     "topology allow it (docs/flow.md); the packet engine shares its routing decisions "   \
     "among them when the router is pure (docs/engine.md); the dynamic engine walks the "   \
     "paths of the messages that start together on them, on the same condition as the "   \
     "static one"}
/* The dynamic engine reads them too: a message given in packets is
   packets x packet_phits x phit_bytes bytes. */
#define PACKET_PHITS_PARAM                                                                \
    {"packet_phits", INSEE_PARAM_INT, "16", 1, 65535, NULL, "phits", "packet length"}
#define PHIT_BYTES_PARAM {"phit_bytes", INSEE_PARAM_INT, "4", 1, 1048576, NULL, "bytes", "phit size"}
#define VCS_PARAM {"vcs", INSEE_PARAM_INT, "2", 1, 64, NULL, NULL, "virtual channels per port"}
#define CSV_PARAM                                                                         \
    {"csv", INSEE_PARAM_STRING, "\"\"", 1, 0, NULL, NULL,                                  \
     "append one row per run to this CSV file (empty: none)"}
#define JSON_PARAM                                                                        \
    {"json", INSEE_PARAM_STRING, "\"\"", 1, 0, NULL, NULL,                                 \
     "write every figure of the run to this JSON file (docs/results.md; empty: none)"}

static const insee_param_def simulation_params[] = {
    SEED_PARAM,
    {"warmup", INSEE_PARAM_INT, "5000", 0, 1e15, NULL, "cycles", "cycles before measuring"},
    {"cycles", INSEE_PARAM_INT, "20000", 1, 1e15, NULL, "cycles", "measured cycles"},
    {"drain", INSEE_PARAM_INT, "200000", 0, 1e15, NULL, "cycles",
     "at most this many cycles to deliver what is in flight once generation stops"},
    PACKET_PHITS_PARAM,
    PHIT_BYTES_PARAM,
    {"deadlock_cycles", INSEE_PARAM_INT, "10000", 0, 1e15, NULL, "cycles",
     "end the run with a diagnosis when packets are in the network and none has moved "
     "for this long (0: only after 1000000 cycles, the longest any run waits)"},
    {"max_cycles", INSEE_PARAM_INT, "100000000", 1, 1e15, NULL, "cycles",
     "a causal workload (trace, application kernel) runs until it has finished, from cycle "
     "0, ignoring warmup and cycles; one not finished by this cycle ends with an error"},
    {"phases", INSEE_PARAM_ENUM, "\"converge\"", 1, 0, "converge|fixed", NULL,
     "converge: after warmup, check convergence every convergence_window cycles, then "
     "measure `batches` batches (INSEE's batch mode); fixed: measure `cycles` cycles after "
     "warmup. Setting `cycles` without `phases` selects fixed"},
    {"convergence_window", INSEE_PARAM_INT, "1000", 1, 1e15, NULL, "cycles",
     "converge: accepted load and latency are compared every this many cycles, or a "
     "multiple of it long enough to deliver convergence_packets"},
    {"convergence_packets", INSEE_PARAM_INT, "2000", 0, 1e12, NULL, "packets",
     "converge: a window lasts until the network has delivered this many packets in it "
     "(at most 100 convergence_window), so that its counting noise stays under the "
     "tolerance on a small network as on a large one; 0: windows of fixed length"},
    {"convergence_tolerance", INSEE_PARAM_DOUBLE, "0.05", 0, 1, NULL, NULL,
     "converge: relative difference under which two windows agree; three in a row converge"},
    {"convergence_max", INSEE_PARAM_INT, "25000", 1, 1e15, NULL, "cycles",
     "converge: measure anyway (reported as not converged) after this many cycles of "
     "convergence_window-long windows (convergence_max / convergence_window windows, "
     "however long each had to be)"},
    {"batches", INSEE_PARAM_INT, "10", 1, 1e6, NULL, NULL,
     "converge: batches measured; the report gives their mean and 95% confidence interval"},
    {"batch_cycles", INSEE_PARAM_INT, "1000", 1, 1e15, NULL, "cycles", "converge: batch length"},
    ENGINE_PARAM,
    THREADS_PARAM,
    {0},
};

enum { F_ROUNDS, F_LINK_GBPS, F_NODE_GBPS, F_DIM_GBPS, F_CYCLE_NS, F_SHARING, F_PRIORITY,
       F_APP_SHARE, F_MAX_OUTSTANDING, F_SERIES, F_BUSIEST, F_LINK_SERIES };
#define ROUNDS_PARAM                                                                      \
    {"rounds", INSEE_PARAM_INT, "1", 1, 1e6, NULL, NULL,                                  \
     "flow engines: how many times each task sends its traffic's round of flows (uniform " \
     "with rounds = F is INRFlow's random_F); dynamic: open-ended traffic only, all at "  \
     "time 0"}
static const insee_param_def flow_params[] = {
    ROUNDS_PARAM,
    {"link_gbps", INSEE_PARAM_DOUBLE, "100", 1e-6, 1e9, NULL, "Gb/s",
     "dynamic: bandwidth of every link between routers, each direction"},
    {"node_gbps", INSEE_PARAM_DOUBLE, "0", 0, 1e9, NULL, "Gb/s",
     "dynamic: bandwidth of each node's links to its router (0: link_gbps)"},
    {"dim_gbps", INSEE_PARAM_INT_LIST, "[]", 0, 1e9, NULL, "Gb/s",
     "dynamic: bandwidth of the links of each dimension or level, as the topology numbers "
     "them (a dragonfly's local then global links, a tree's levels from the leaves); 0 or "
     "absent: link_gbps"},
    {"cycle_ns", INSEE_PARAM_DOUBLE, "1", 0, 1e15, NULL, "ns",
     "dynamic: the length of one traffic cycle: compute phases of traces and application "
     "kernels, and due times, are read in these; 0: sends and computes take no time "
     "(INRFlow's model), every step a task can take before a delivery at one instant"},
    {"sharing", INSEE_PARAM_ENUM, "\"maxmin\"", 1, 0, "maxmin|equal", NULL,
     "dynamic: maxmin: max-min fair rates (progressive filling); equal: INRFlow's rule, "
     "each flow at the least over its links of capacity / flows, spare capacity unused"},
    {"priority", INSEE_PARAM_ENUM, "\"np\"", 1, 0, "np|ba|fp", NULL,
     "dynamic: application and I/O traffic: np: no priority; ba: each class gets its share "
     "of a link both cross (app_share); fp: application first, I/O takes what is left"},
    {"app_share", INSEE_PARAM_DOUBLE, "0.5", 0, 1, NULL, NULL,
     "dynamic, priority = \"ba\": the application class's share of a link"},
    {"max_outstanding", INSEE_PARAM_INT, "0", 0, 1e9, NULL, "messages",
     "dynamic: messages a task has in the network at most (INRFlow's injection mode); the "
     "next waits; 0: no limit"},
    {"series", INSEE_PARAM_INT, "100", 1, 1e6, NULL, NULL,
     "dynamic: spans of the link utilisation time series"},
    {"busiest", INSEE_PARAM_INT, "10", 0, 1e6, NULL, "links",
     "dynamic: links listed by utilisation"},
    {"link_series", INSEE_PARAM_INT, "0", 0, 4096, NULL, NULL,
     "dynamic: each busiest link's utilisation over time in at most this many spans (JSON; "
     "8 bytes per span and link while the run lasts); 0: none"},
    {0},
};

enum { R_VCS, R_QUEUE, R_INJECT, R_INJECTORS, R_INJECTION, R_CONSUMPTION, R_IPR, R_GCC,
       R_GCC_PERIOD, R_GCC_COUNT };
static const insee_param_def router_params[] = {
    VCS_PARAM,
    {"queue_packets", INSEE_PARAM_INT, "4", 1, 4096, NULL, "packets",
     "capacity of each transit queue (one per port and VC)"},
    {"inject_packets", INSEE_PARAM_INT, "4", 1, 4096, NULL, "packets",
     "capacity of each injection buffer; it feeds the router's injection port, a router "
     "input of queue_packets more"},
    {"injectors", INSEE_PARAM_INT, "1", 1, 64, NULL, NULL, "injection queues per node"},
    {"injection", INSEE_PARAM_ENUM, "\"shortest\"", 1, 0,
     "shortest|dor|dor-shortest|shortest-profitable|longest-path", NULL,
     "which injection queue a packet waits in, unless the router chooses (INSEE §2.3); queue "
     "j serves the output ports p with p mod injectors = j"},
    {"consumption", INSEE_PARAM_ENUM, "\"multiple\"", 1, 0, "multiple|single", NULL,
     "multiple: every input drains at once; single: one arbitrated consumption port"},
    {"ipr", INSEE_PARAM_DOUBLE, "0", 0, 1, NULL, NULL,
     "in-transit priority: in this fraction of arbitrations an injection input competes "
     "only when no transit input asks for the output (INSEE §2.2.5)"},
    {"gcc", INSEE_PARAM_DOUBLE, "0", 0, 1, NULL, NULL,
     "global congestion control: no injection while this fraction of the transit queue "
     "slots is in use (0: off; INSEE §2.2.5)"},
    {"gcc_period", INSEE_PARAM_INT, "100", 1, 1e9, NULL, "cycles",
     "how often global congestion control samples the network's occupancy"},
    {"gcc_count", INSEE_PARAM_ENUM, "\"transit\"", 1, 0, "transit|insee", NULL,
     "transit: the share of transit queue slots in use holds injection back (the paper); "
     "insee: INSEE's code, packets past their injection queue against twice the slots, "
     "the sample one period old, and the sources skip their draws meanwhile"},
    {0},
};

enum { T_ON_FULL, T_CLASS };
#define ON_FULL_PARAM                                                                     \
    {"on_full", INSEE_PARAM_ENUM, "\"throttle\"", 1, 0, "throttle|drop", NULL,            \
     "when the injection queue is full: the source waits, or the packet is dropped"}
static const insee_param_def traffic_params[] = {ON_FULL_PARAM, {0}};
/* [background]'s: its traffic may be a storage system's I/O as a whole. */
#define CLASS_PARAM                                                                       \
    {"class", INSEE_PARAM_ENUM, "\"app\"", 1, 0, "app|io", NULL,                            \
     "app: its messages are of the class the plugin gives them (application traffic "     \
     "unless it says I/O); io: every message is I/O, for the dynamic flow engine's "     \
     "priorities (docs/workloads.md)"}
static const insee_param_def background_params[] = {ON_FULL_PARAM, CLASS_PARAM, {0}};
/* What the dynamic engine reads of an application's traffic table. */
static const insee_param_def dynamic_background_params[] = {CLASS_PARAM, {0}};

enum { S_CSV, S_JSON, S_INTERVAL, S_LATENCY_HIST, S_DISTANCE_HIST, S_QUEUE_HIST, S_PORT_MAP,
       S_NODE_MAP, S_PAIR_MAP, S_DIRECTIONS, S_TRACE, S_TRACE_PACKETS, S_TRACE_FROM, S_TRACE_UNTIL,
       S_TRACE_MAX_MB };
static const insee_param_def stats_params[] = {
    CSV_PARAM,
    JSON_PARAM,
    {"interval", INSEE_PARAM_INT, "1000", 0, 1e15, NULL, "cycles",
     "time series: the summary figures of every interval of this many cycles (0: none)"},
    {"latency_histogram", INSEE_PARAM_BOOL, "true", 0, 0, NULL, NULL,
     "latency histograms and percentiles (p50, p90, p99, p99.9)"},
    {"distance_histograms", INSEE_PARAM_BOOL, "false", 0, 0, NULL, NULL,
     "histograms of the minimal distance of injected packets and of the hops of consumed ones"},
    {"queue_histograms", INSEE_PARAM_BOOL, "false", 0, 0, NULL, NULL,
     "time each transit and injection queue spends holding 0, 1, 2... packets"},
    {"port_map", INSEE_PARAM_BOOL, "false", 0, 0, NULL, NULL,
     "phits that crossed each output port and VC (where the bottleneck is)"},
    {"node_map", INSEE_PARAM_BOOL, "false", 0, 0, NULL, NULL,
     "phits each node injected and accepted"},
    {"pair_map", INSEE_PARAM_BOOL, "false", 0, 0, NULL, NULL,
     "packets of every source-destination pair at injection and consumption (nodes^2 "
     "memory: refused when it would not fit)"},
    {"direction_series", INSEE_PARAM_BOOL, "false", 0, 0, NULL, NULL,
     "time series: the links' throughput per dimension or level and direction in every "
     "interval (needs interval > 0 and ports with a dimension and a direction)"},
    {"trace", INSEE_PARAM_STRING, "\"\"", 1, 0, NULL, NULL,
     "write the packet evolution trace to this gzip file (docs/packet-trace.md; empty: none)"},
    {"trace_packets", INSEE_PARAM_INT_LIST, "[]", 1, 9007199254740991.0, NULL, NULL,
     "trace only these packet ids (empty: every packet of the window)"},
    {"trace_from", INSEE_PARAM_INT, "0", 0, 1e15, NULL, "cycles",
     "trace the packets generated from this cycle on"},
    {"trace_until", INSEE_PARAM_INT, "0", 0, 1e15, NULL, "cycles",
     "and before this one (0: no end); each traced packet's events are all written"},
    {"trace_max_mb", INSEE_PARAM_DOUBLE, "64", 0.001, 1e6, NULL, "MiB",
     "the trace stops, saying so, before its compressed file grows past this size"},
    {0},
};

enum { A_NAME, A_TASKS, A_TASKS_PER_NODE };
#define APPLICATION_PARAMS                                                                \
    {"name", INSEE_PARAM_STRING, "\"\"", 1, 0, NULL, NULL,                                 \
     "the application's name in the report (empty: app1, app2, ...)"},                    \
    {"tasks", INSEE_PARAM_INT, "0", 0, 4294967295.0, NULL, NULL,                          \
     "its tasks (0: one per node still free)"},                                           \
    {"tasks_per_node", INSEE_PARAM_INT, "1", 1, 65536, NULL, NULL,                        \
     "tasks sharing a node: tasks k n .. k n + k - 1 go to the n-th node its placement "  \
     "gives; messages between them never enter the network"}
static const insee_param_def application_params[] = {APPLICATION_PARAMS, {0}};

/* An application with these keys is a job (docs/scheduling.md); the table
   of an application without them stays application_params, so the echo of
   every file written before jobs is unchanged. */
enum { A_ARRIVAL = A_TASKS_PER_NODE + 1, A_ESTIMATE, A_RUNTIME };
#define JOB_PARAMS                                                                        \
    {"arrival", INSEE_PARAM_DOUBLE, "0", 0, 1e15, NULL, "cycles or s",                     \
     "the application is a job: it waits in [scheduler]'s queue from this time (cycles "  \
     "for the packet engine, seconds for the dynamic one) until it is given its nodes"},  \
    {"estimated_runtime", INSEE_PARAM_DOUBLE, "0", 0, 1e15, NULL, "cycles or s",           \
     "the user's estimate of the job's run time, which backfilling trusts (0: none, "     \
     "the job counts as never ending)"},                                                  \
    {"runtime", INSEE_PARAM_DOUBLE, "0", 0, 1e15, NULL, "cycles or s",                     \
     "a job of open-ended traffic generates for this long from its start (the dynamic "    \
     "engine: sends its rounds then and holds its nodes this long), then drains "         \
     "and ends (0: causal traffic, which ends on its own)"}
static const insee_param_def job_params[] = {APPLICATION_PARAMS, JOB_PARAMS, {0}};
/* [scheduler.workload]: the traffic of each job of a [scheduler] jobs log. */
static const insee_param_def workload_params[] = {ON_FULL_PARAM, {0}};

enum { SC_SELECTION, SC_ALLOCATION, SC_JOBS, SC_TIME_SCALE, SC_BSLD_MIN };
static const insee_param_def scheduler_params[] = {
    {"selection", INSEE_PARAM_STRING, "\"fcfs\"", 1, 0, NULL, NULL,
     "the selection plugin: which queued jobs start (fcfs, easy, conservative, sjf)"},
    {"allocation", INSEE_PARAM_STRING, "\"first-free\"", 1, 0, NULL, NULL,
     "the allocation plugin: which free nodes a job gets (first-free, random, contiguous, locality)"},
    {"jobs", INSEE_PARAM_PATH, "\"\"", 1, 0, NULL, NULL,
     "a job log in the Standard Workload Format: each job becomes an application with "
     "[scheduler.workload]'s traffic (empty: the [[application]] tables with an arrival)"},
    {"time_scale", INSEE_PARAM_DOUBLE, "1", 1e-12, 1e15, NULL, "cycles or s",
     "jobs log: the engine's time units per second of the log (packet engine: cycles per "
     "second; dynamic engine: 1)"},
    {"bounded_slowdown_min", INSEE_PARAM_DOUBLE, "0", 0, 1e15, NULL, "cycles or s",
     "bounded slowdown: run times shorter than this count as this long (0: 10000 cycles, "
     "or 10 s for the dynamic engine)"},
    {0},
};

enum { B_NODES, B_PER_NODE };
static const insee_param_def bridge_params[] = {
    {"nodes", INSEE_PARAM_INT, "0", 0, 2147483647.0, NULL, NULL,
     "the bridge serves endpoints 0 .. nodes-1 (0: ranks_per_node on every node); [background] "
     "traffic runs on the nodes they leave"},
    {"ranks_per_node", INSEE_PARAM_INT, "1", 1, 65536, NULL, NULL,
     "endpoints that share a network node: endpoint e runs on node e / ranks_per_node (their "
     "messages to each other stay in the node)"},
    {0},
};

static const insee_param_def plugins_params[] = {
    {"dirs", INSEE_PARAM_STRING, "\"\"", 1, 0, NULL, NULL,
     "extra plugin directories, ':'-separated, searched after --plugin-dir"},
    {0},
};

enum { FAULT_LINKS, FAULT_SEED, FAULT_FILE };
static const insee_param_def faults_params[] = {
    {"links", INSEE_PARAM_DOUBLE, "0", 0, 4294967295.0, NULL, NULL,
     "cables that fail: a fraction in (0, 1) of them, or a whole number of them, drawn "
     "uniformly without replacement (docs/flow.md, link failures); 0: none"},
    {"seed", INSEE_PARAM_INT, "0", 0, 9007199254740991.0, NULL, NULL,
     "seed of the draw (0: [simulation] seed); the draw has its own stream, so failures "
     "move no other draw"},
    {"file", INSEE_PARAM_PATH, "\"\"", 1, 0, NULL, NULL,
     "cables that fail, one per line as ROUTER PORT (either end), '#' comments; they fail "
     "before `links` more are drawn among the rest (empty: none)"},
    {0},
};

/* `insee sweep`'s table (kernel/sweep/sweep.h); a run validates it and
   leaves it to the sweep. In the order of experiment.h's INSEE_SWEEP_*. */
static const insee_param_def sweep_params[] = {
    {"vary", INSEE_PARAM_STRING, "\"\"", 1, 0, NULL, NULL,
     "the grid, as --vary: KEY=V1,V2,... or KEY=FROM:TO:STEP, several separated by ';'"},
    {"seeds", INSEE_PARAM_INT, "1", 1, 1e6, NULL, NULL, "runs per point, seeds 1..seeds"},
    {"jobs", INSEE_PARAM_INT, "0", 0, 4096, NULL, NULL,
     "runs at a time (0: the cores the sweep may use)"},
    {"output", INSEE_PARAM_STRING, "\"\"", 1, 0, NULL, NULL,
     "the results file, as -o (relative to the working directory)"},
    {"summary", INSEE_PARAM_STRING, "\"\"", 1, 0, NULL, NULL,
     "the summary file (empty: the results file less .csv plus -summary.csv)"},
    {"stop_at_saturation", INSEE_PARAM_BOOL, "false", 0, 0, NULL, NULL,
     "stop raising a configuration's load once it saturates"},
    {"saturation_tolerance", INSEE_PARAM_DOUBLE, "0.05", 0, 0.99, NULL, NULL,
     "saturated when the accepted load falls short of the offered by this fraction"},
    {"latency_bound", INSEE_PARAM_DOUBLE, "0", 0, 1e15, NULL, "cycles",
     "saturated too when the mean latency from generation passes this (0: no bound)"},
    {0},
};

typedef struct section {
    const char *name;
    insee_kind kind;             /* 0: kernel-only section */
    const char *default_plugin;
    const insee_param_def *kernel_params;
} section;

/* The network's sections, in creation order: the topology first (it shapes
   the network). The applications' sections follow (app_sections). */
static const section sections[] = {
    {"simulation", 0, NULL, simulation_params},
    {"stats", 0, NULL, stats_params},
    {"plugins", 0, NULL, plugins_params},
    {"sweep", 0, NULL, sweep_params},
    {"flow", 0, NULL, flow_params},
    {"faults", 0, NULL, faults_params},
    {"network", 0, NULL, insee_timing_params},
    {"storage", 0, NULL, insee_storage_params},
    {"topology", INSEE_KIND_TOPOLOGY, "torus", NULL},
    {"router", INSEE_KIND_ROUTER, "bubble", router_params},
    {"arbiter", INSEE_KIND_ARBITER, "round-robin", NULL},
    {"routing", INSEE_KIND_ROUTING, NULL, NULL},
};
#define N_SECTIONS G_N_ELEMENTS(sections)

/* What a flow engine reads of the kernel's keys. The others are refused
   when set (check_engine) and left out of the echo, so that the echo of a
   flow run repeats it (echo_flow_keys); the values of the full tables,
   defaults all, stay what the kernel reads. */
static const insee_param_def flow_simulation_params[] = {SEED_PARAM, ENGINE_PARAM, THREADS_PARAM,
                                                        {0}};
/* The dynamic engine sizes a message given in packets as the packet engine would. */
static const insee_param_def dynamic_simulation_params[] = {
    SEED_PARAM, ENGINE_PARAM, THREADS_PARAM, PACKET_PHITS_PARAM, PHIT_BYTES_PARAM, {0}};
static const insee_param_def flow_router_params[] = {VCS_PARAM, {0}};
static const insee_param_def flow_stats_params[] = {CSV_PARAM, JSON_PARAM, {0}};
static const insee_param_def static_flow_params[] = {ROUNDS_PARAM, {0}};
static const insee_param_def no_params[] = {{0}};
/* What each flow engine reads: [ENGINE_STATIC - 1] and [ENGINE_DYNAMIC - 1]. */
static const struct {
    const char *section;
    const insee_param_def *all, *read[2];
} flow_tables[] = {
    {"simulation", simulation_params, {flow_simulation_params, dynamic_simulation_params}},
    {"router", router_params, {flow_router_params, flow_router_params}},
    {"stats", stats_params, {flow_stats_params, flow_stats_params}},
    {"flow", flow_params, {static_flow_params, flow_params}},
};

/* One plugin instance of a section: what it was bound to and its host. */
typedef struct instance {
    const insee_plugin *plugin;
    const insee_value *values;   /* the plugin's bound parameters */
    const insee_value *kernel;   /* the kernel's keys of the section, or NULL */
    void *self;
    struct insee_kernel kctx;
    insee_host host;
} instance;

/* An application as configured: its placement places `slots` =
   ceil(tasks / tasks_per_node) slots, then its traffic starts. */
typedef struct application {
    char *name;
    char *traffic_section, *placement_section; /* NULL placement: the nodes left, in order */
    uint32_t tasks, tasks_per_node;
    gboolean bridge;                            /* `traffic` is the [bridge] plugin */
    gboolean background;                        /* `traffic` is [background] */
    instance traffic, placement;
    insee_shape shape;                          /* the network's, with its own task count */
    gboolean job;                               /* it has an arrival (docs/scheduling.md) */
    double arrival, estimate, runtime;          /* job: engine units; 0: none */
    char *origin;                               /* job of a log: "FILE:LINE", else NULL */
} application;

struct insee_experiment {
    insee_config *cfg;
    const insee_registry *reg;
    uint32_t cores; /* run_cores(), once looked at; 0 before */
    instance net[N_SECTIONS];
    GArray *apps;                               /* application */
    insee_shape shape;
    insee_engine eng;
    gboolean ran;
    insee_trace *trace;                         /* [stats] trace, during and after the run */
    int engine;                                 /* ENGINE_* */
    insee_flow_report flow;                     /* engine = "static": its figures */
    insee_flow_dyn_report dyn;                  /* engine = "dynamic": its figures */
    char *flow_plugins;                         /* and its topology/router/traffic names */
    instance sel, alloc;                        /* [scheduler]'s plugins, when it has jobs */
    const insee_value *sched;                   /* [scheduler]'s kernel keys, when bound */
    uint32_t *job_app;                          /* the application of each job */
    uint32_t buffer_phits;                      /* [network] vc_buffer_bytes in phits, or 0 */
    uint32_t output_phits, speedup;             /* [network] output buffers, or 0 */
    uint32_t nics;                              /* [network] nics: above 1, the injectors */
};

static int section_index(const char *name)
{
    for (guint i = 0; i < N_SECTIONS; i++)
        if (strcmp(sections[i].name, name) == 0)
            return (int)i;
    return -1;
}

static const insee_value *kernel_value(const insee_experiment *exp, const char *section,
                                       int key)
{
    return &exp->net[section_index(section)].kernel[key];
}

static application *app_at(const insee_experiment *exp, guint a)
{
    return &g_array_index(exp->apps, application, a);
}

/* Why no usable plugin of that kind and name: refused (with the reason), or
   absent (with the names there are). */
static void explain_missing(const insee_registry *reg, const char *section, insee_kind kind,
                            const char *name, GError **err)
{
    const GPtrArray *all = insee_registry_plugins(reg);
    GString *names = g_string_new(NULL);
    for (guint i = 0; i < all->len; i++) {
        const insee_plugin *p = g_ptr_array_index(all, i);
        if (p->refused && p->name && strcmp(p->name, name) == 0 && p->kind == kind) {
            g_set_error(err, INSEE_EXPERIMENT_ERROR, INSEE_EXPERIMENT_ERROR_PLUGIN,
                        "[%s] plugin = \"%s\": %s was refused: %s", section, name, p->path,
                        p->reason);
            g_string_free(names, TRUE);
            return;
        }
        if (!p->refused && p->kind == kind)
            g_string_append_printf(names, "%s%s", names->len ? ", " : "", p->name);
    }
    g_set_error(err, INSEE_EXPERIMENT_ERROR, INSEE_EXPERIMENT_ERROR_PLUGIN,
                "[%s] plugin = \"%s\": no %s plugin of that name was found (available: %s); "
                "add its directory with --plugin-dir or see `insee plugins list`",
                section, name, insee_kind_name(kind), names->len ? names->str : "none");
    g_string_free(names, TRUE);
}

/* Bind one section: the kernel's keys (when it has some), then, for a plugin
   kind, the keys of the plugin it names. */
static gboolean bind_section(insee_experiment *exp, const char *name, insee_kind kind,
                             const char *default_plugin, const insee_param_def *kernel_params,
                             instance *inst, GError **err)
{
    insee_binding b[2] = {{kernel_params, "the kernel", NULL}, {0}};
    size_t nb = kernel_params ? 1 : 0;
    char *owner = NULL;
    if (kind) {
        const char *plugin_name = NULL;
        if (!insee_config_plugin_name(exp->cfg, name, default_plugin, &plugin_name, err))
            return FALSE;
        inst->plugin = insee_registry_find(exp->reg, kind, plugin_name);
        if (!inst->plugin) {
            explain_missing(exp->reg, name, kind, plugin_name, err);
            return FALSE;
        }
        owner = g_strdup_printf("%s plugin '%s'", insee_kind_name(kind), plugin_name);
        b[nb++] = (insee_binding){inst->plugin->desc->params, owner, NULL};
    }
    gboolean ok = nb == 0 || insee_config_bind(exp->cfg, name, b, nb, err);
    g_free(owner);
    if (!ok)
        return FALSE;
    inst->kernel = kernel_params ? b[0].values : NULL;
    if (kind)
        inst->values = b[nb - 1].values;
    return TRUE;
}

/* The kernel's keys of an application's traffic section. */
static const insee_param_def *traffic_keys(const application *a)
{
    return a->background ? background_params : traffic_params;
}

/* Add an application and bind its traffic and placement sections (right
   after its own table, so the echo keeps each [application.traffic] under
   its [[application]]). */
static gboolean add_application(insee_experiment *exp, char *name, char *traffic,
                                char *placement, uint32_t tasks, uint32_t tasks_per_node,
                                GError **err)
{
    application app = {.name = name, .traffic_section = traffic, .placement_section = placement,
                       .tasks = tasks, .tasks_per_node = tasks_per_node,
                       .background = strcmp(traffic, "background") == 0};
    g_array_append_val(exp->apps, app);
    application *a = app_at(exp, exp->apps->len - 1);
    return bind_section(exp, a->traffic_section, INSEE_KIND_TRAFFIC, "uniform", traffic_keys(a),
                        &a->traffic, err) &&
           (!a->placement_section ||
            bind_section(exp, a->placement_section, INSEE_KIND_PLACEMENT, "consecutive", NULL,
                         &a->placement, err));
}

/* [background], when the file has one: the last application, one task on
   every node the others left. */
static gboolean add_background(insee_experiment *exp, GError **err)
{
    return !insee_config_has_section(exp->cfg, "background") ||
           add_application(exp, g_strdup("background"), g_strdup("background"), NULL, 0, 1, err);
}

/* [bridge]: the application it drives on its nodes, then [background]. */
static gboolean bind_bridge(insee_experiment *exp, GError **err)
{
    guint n = 0;
    if (!insee_config_array_len(exp->cfg, "application", &n, err))
        return FALSE;
    if (n || insee_config_has_section(exp->cfg, "traffic") ||
        insee_config_has_section(exp->cfg, "placement")) {
        g_set_error(err, INSEE_CONFIG_ERROR, INSEE_CONFIG_ERROR_INVALID,
                    "[bridge] drives the run's application on its nodes: remove [traffic], "
                    "[placement] and [[application]] (traffic for the other nodes goes in "
                    "[background])");
        return FALSE;
    }
    application app = {.name = g_strdup("bridge"), .traffic_section = g_strdup("bridge"),
                       .bridge = TRUE};
    g_array_append_val(exp->apps, app);
    application *a = app_at(exp, 0);
    if (!bind_section(exp, "bridge", INSEE_KIND_BRIDGE, "sync-server", bridge_params,
                      &a->traffic, err))
        return FALSE;
    /* An endpoint's tasks are consecutive, so a node's slot holds whole
       endpoints. */
    a->tasks_per_node = (uint32_t)a->traffic.kernel[B_PER_NODE].i * INSEE_BRIDGE_TASKS_PER_NODE;
    a->tasks = (uint32_t)a->traffic.kernel[B_NODES].i * INSEE_BRIDGE_TASKS_PER_NODE;
    return add_background(exp, err);
}

/* One application per job of [scheduler] jobs, its traffic from
   [scheduler.workload] (bound once: every job's instance reads the same
   values), placed in its allocation's node order. */
static gboolean add_log_jobs(insee_experiment *exp, const char *path, GError **err)
{
    GArray *log = insee_swf_read(path, err);
    if (!log)
        return FALSE;
    instance tmpl = {0};
    gboolean ok = bind_section(exp, "scheduler.workload", INSEE_KIND_TRAFFIC, "uniform",
                               workload_params, &tmpl, err);
    double scale = exp->sched[SC_TIME_SCALE].d;
    for (guint i = 0; ok && i < log->len; i++) {
        const insee_swf_job *j = &g_array_index(log, insee_swf_job, i);
        application app = {
            .name = g_strdup_printf("job%" G_GINT64_FORMAT, j->id),
            .traffic_section = g_strdup("scheduler.workload"), .tasks = j->procs,
            .tasks_per_node = 1, .traffic = tmpl, .job = TRUE, .arrival = j->submit * scale,
            .estimate = j->requested > 0 ? j->requested * scale : 0,
            .runtime = j->run > 0 ? j->run * scale : 0,
            .origin = g_strdup_printf("%s:%u", path, j->line),
        };
        g_array_append_val(exp->apps, app);
    }
    g_array_free(log, TRUE);
    return ok;
}

/* [scheduler]: its keys and its two plugins' (in the same table), when the
   file has jobs or a log of them; a file without either has no scheduler
   and runs as it always did. */
static gboolean bind_scheduler(insee_experiment *exp, GError **err)
{
    gboolean jobs = FALSE;
    for (guint a = 0; a < exp->apps->len; a++)
        jobs |= app_at(exp, a)->job;
    if (!jobs && !insee_config_has_section(exp->cfg, "scheduler"))
        return TRUE;
    const char *names[2];
    if (!insee_config_plugin_key(exp->cfg, "scheduler", "selection", "fcfs", &names[0], err) ||
        !insee_config_plugin_key(exp->cfg, "scheduler", "allocation", "first-free", &names[1],
                                 err))
        return FALSE;
    instance *inst[2] = {&exp->sel, &exp->alloc};
    static const insee_kind kinds[2] = {INSEE_KIND_SELECTION, INSEE_KIND_ALLOCATION};
    insee_binding b[3] = {{scheduler_params, "the kernel", NULL}};
    char *owner[2];
    for (int k = 0; k < 2; k++) {
        inst[k]->plugin = insee_registry_find(exp->reg, kinds[k], names[k]);
        if (!inst[k]->plugin) {
            explain_missing(exp->reg, "scheduler", kinds[k], names[k], err);
            return FALSE;
        }
        owner[k] = g_strdup_printf("%s plugin '%s'", insee_kind_name(kinds[k]), names[k]);
        b[k + 1] = (insee_binding){inst[k]->plugin->desc->params, owner[k], NULL};
    }
    static const char *const subtables[] = {"workload", NULL};
    gboolean ok = insee_config_bind(exp->cfg, "scheduler", b, 3, err) &&
                  insee_config_check_subtables(exp->cfg, "scheduler", subtables, err);
    g_free(owner[0]);
    g_free(owner[1]);
    if (!ok)
        return FALSE;
    exp->sched = b[0].values;
    exp->sel.values = b[1].values;
    exp->alloc.values = b[2].values;
    const char *log = exp->sched[SC_JOBS].s;
    if (log && *log) {
        if (exp->apps->len) {
            g_set_error(err, INSEE_CONFIG_ERROR, INSEE_CONFIG_ERROR_INVALID,
                        "[scheduler] jobs = \"%s\" gives the run its jobs: remove the "
                        "[[application]] tables, [traffic] and [background] (each job's "
                        "traffic is [scheduler.workload])", log);
            return FALSE;
        }
        return add_log_jobs(exp, log, err);
    }
    if (insee_config_has_section(exp->cfg, "scheduler.workload")) {
        g_set_error(err, INSEE_CONFIG_ERROR, INSEE_CONFIG_ERROR_INVALID,
                    "[scheduler.workload] is the traffic of the jobs of a log: set [scheduler] "
                    "jobs = \"FILE.swf\", or remove it");
        return FALSE;
    }
    for (guint a = 0; a < exp->apps->len; a++) {
        if (!app_at(exp, a)->job) {
            g_set_error(err, INSEE_CONFIG_ERROR, INSEE_CONFIG_ERROR_INVALID,
                        "application '%s' has no arrival while others are jobs: jobs share "
                        "the machine with nothing else; give it an arrival (0: from the "
                        "start)%s", app_at(exp, a)->name,
                        app_at(exp, a)->background ? " or remove [background]" : "");
            return FALSE;
        }
    }
    if (!jobs) {
        g_set_error(err, INSEE_CONFIG_ERROR, INSEE_CONFIG_ERROR_INVALID,
                    "[scheduler] schedules jobs, and this file has none: give an "
                    "[[application]] an arrival, set [scheduler] jobs = \"FILE.swf\", or "
                    "remove [scheduler]");
        return FALSE;
    }
    return TRUE;
}

/* The applications of the file, bound: [[application]] tables, or the
   [traffic] and [placement] of a single-application file; then [background]. */
static gboolean bind_applications(insee_experiment *exp, GError **err)
{
    if (insee_config_has_section(exp->cfg, "bridge"))
        return bind_bridge(exp, err);
    guint n;
    if (!insee_config_array_len(exp->cfg, "application", &n, err))
        return FALSE;
    if (n == 0 && insee_config_has_section(exp->cfg, "scheduler")) {
        /* a jobs log: its jobs are the applications */
        return bind_scheduler(exp, err);
    } else if (n == 0) {
        if (!add_application(exp, g_strdup("traffic"), g_strdup("traffic"), g_strdup("placement"), 0, 1,
                             err))
            return FALSE;
    } else if (insee_config_has_section(exp->cfg, "traffic") ||
               insee_config_has_section(exp->cfg, "placement")) {
        g_set_error(err, INSEE_CONFIG_ERROR, INSEE_CONFIG_ERROR_INVALID,
                    "this file has [[application]] tables and a top-level [traffic] or "
                    "[placement]: give each application its own [application.traffic] and "
                    "[application.placement], and put traffic for the nodes left over in "
                    "[background]");
        return FALSE;
    }
    static const char *const subtables[] = {"traffic", "placement", NULL};
    for (guint a = 0; a < n; a++) {
        char *section = g_strdup_printf("application[%u]", a);
        instance tmp = {0};
        gboolean job = FALSE;
        for (const insee_param_def *d = &job_params[A_ARRIVAL]; d->name; d++)
            job |= insee_config_has_key(exp->cfg, section, d->name);
        gboolean ok = bind_section(exp, section, 0, NULL, job ? job_params : application_params,
                                   &tmp, err) &&
                      insee_config_check_subtables(exp->cfg, section, subtables, err);
        if (ok && job && !insee_config_has_key(exp->cfg, section, "arrival")) {
            g_set_error(err, INSEE_CONFIG_ERROR, INSEE_CONFIG_ERROR_INVALID,
                        "[[application]] %u has estimated_runtime or runtime but no arrival: "
                        "those keys belong to a job; give it an arrival (0: from the start)",
                        a + 1);
            ok = FALSE;
        }
        if (ok) {
            const char *name = tmp.kernel[A_NAME].s;
            ok = add_application(
                exp, name && *name ? g_strdup(name) : g_strdup_printf("app%u", a + 1),
                g_strdup_printf("%s.traffic", section), g_strdup_printf("%s.placement", section),
                (uint32_t)tmp.kernel[A_TASKS].i, (uint32_t)tmp.kernel[A_TASKS_PER_NODE].i, err);
        }
        if (ok && job) {
            application *app = app_at(exp, exp->apps->len - 1);
            app->job = TRUE;
            app->arrival = tmp.kernel[A_ARRIVAL].d;
            app->estimate = tmp.kernel[A_ESTIMATE].d;
            app->runtime = tmp.kernel[A_RUNTIME].d;
        }
        g_free(section);
        if (!ok)
            return FALSE;
    }
    return add_background(exp, err) && bind_scheduler(exp, err);
}

/* Whether a path routing ([routing]) gives a flow engine its paths. */
static gboolean routed_by_table(const insee_experiment *exp)
{
    return exp->engine != ENGINE_PACKET && insee_config_has_section(exp->cfg, "routing");
}

/* The kind a section is bound as: [router] holds only the kernel's keys
   when a path routing replaces its plugin (which is then not created, and
   left out of the echo; the embedded default names one). */
static insee_kind router_kind(const insee_experiment *exp, const section *sec)
{
    return sec->kind == INSEE_KIND_ROUTER && routed_by_table(exp) ? 0 : sec->kind;
}

static gboolean reads_key(const insee_param_def *defs, const char *key)
{
    for (const insee_param_def *d = defs; d->name; d++)
        if (strcmp(d->name, key) == 0)
            return TRUE;
    return FALSE;
}

/* Every key of `all` set in `section` that `engine` does not read (`read`)
   is refused, naming the engine. */
static gboolean refuse_unread(const insee_experiment *exp, const char *section,
                              const insee_param_def *all, const insee_param_def *read,
                              const char *engine, GError **err)
{
    for (const insee_param_def *d = all; d->name; d++) {
        if (reads_key(read, d->name) || !insee_config_has_key(exp->cfg, section, d->name))
            continue;
        g_set_error(err, INSEE_CONFIG_ERROR, INSEE_CONFIG_ERROR_INVALID,
                    "[%s] %s means nothing to engine = \"%s\" (docs/flow.md says which keys "
                    "each engine reads); remove it, or choose the engine it belongs to",
                    section, d->name, engine);
        return FALSE;
    }
    return TRUE;
}

/* The kernel's keys of an application's traffic table a flow engine reads:
   the dynamic engine's priorities read [background]'s class. */
static const insee_param_def *flow_traffic_read(const insee_experiment *exp,
                                                const application *a)
{
    return exp->engine == ENGINE_DYNAMIC && a->background ? dynamic_background_params
                                                          : no_params;
}

static const char *engine_name(const insee_experiment *exp)
{
    static const char *const names[] = {"packet", "static", "dynamic"};
    return names[exp->engine];
}

/* The keys that make sense for the engine: the flow engines have no
   cycles, queues, arbiters, outside simulators or packet statistics; the
   packet engine no rounds of flows. */
static gboolean check_engine(const insee_experiment *exp, GError **err)
{
    if (exp->engine != ENGINE_DYNAMIC && insee_config_has_section(exp->cfg, "storage")) {
        g_set_error(err, INSEE_CONFIG_ERROR, INSEE_CONFIG_ERROR_INVALID,
                    "[storage] models storage devices as links of the dynamic flow engine "
                    "and means nothing to engine = \"%s\"; remove it, or set [simulation] "
                    "engine = \"dynamic\"", engine_name(exp));
        return FALSE;
    }
    if (exp->engine == ENGINE_PACKET) {
        if (insee_config_has_section(exp->cfg, "routing")) {
            g_set_error(err, INSEE_CONFIG_ERROR, INSEE_CONFIG_ERROR_INVALID,
                        "[routing] gives a flow engine its paths and means nothing to "
                        "engine = \"packet\" (packets are routed by [router]); remove it, or "
                        "set [simulation] engine = \"static\"");
            return FALSE;
        }
        return refuse_unread(exp, "flow", flow_params, no_params, "packet", err);
    }
    const char *name = engine_name(exp);
    if (insee_config_has_section(exp->cfg, "network")) {
        g_set_error(err, INSEE_CONFIG_ERROR, INSEE_CONFIG_ERROR_INVALID,
                    "[network] gives the packet engine's cycle, cables and router pipelines "
                    "and means nothing to engine = \"%s\"; remove it (the dynamic engine's "
                    "links take their bandwidth from [flow] link_gbps)", name);
        return FALSE;
    }
    static const char *const tables[] = {"arbiter", "bridge"};
    for (guint i = 0; i < G_N_ELEMENTS(tables); i++) {
        if (insee_config_has_section(exp->cfg, tables[i])) {
            g_set_error(err, INSEE_CONFIG_ERROR, INSEE_CONFIG_ERROR_INVALID,
                        "[%s] means nothing to engine = \"%s\" (flows are not arbitrated "
                        "or driven by an outside simulator); remove the table, or use "
                        "engine = \"packet\"", tables[i], name);
            return FALSE;
        }
    }
    for (guint i = 0; i < G_N_ELEMENTS(flow_tables); i++)
        if (!refuse_unread(exp, flow_tables[i].section, flow_tables[i].all,
                           flow_tables[i].read[exp->engine - 1], name, err))
            return FALSE;
    for (guint a = 0; a < exp->apps->len; a++)
        if (!refuse_unread(exp, app_at(exp, a)->traffic_section, traffic_keys(app_at(exp, a)),
                           flow_traffic_read(exp, app_at(exp, a)), name, err))
            return FALSE;
    return TRUE;
}

/* Bind again, for the echo alone, the sections of a flow run with only
   the keys it reads (a later bind replaces a section's echo). */
static gboolean echo_flow_keys(insee_experiment *exp, GError **err)
{
    instance scratch;
    for (guint i = 0; i < G_N_ELEMENTS(flow_tables); i++) {
        const section *sec = &sections[section_index(flow_tables[i].section)];
        scratch = (instance){0};
        if (!bind_section(exp, sec->name, router_kind(exp, sec), sec->default_plugin,
                          flow_tables[i].read[exp->engine - 1], &scratch, err))
            return FALSE;
    }
    for (guint a = 0; a < exp->apps->len; a++) {
        scratch = (instance){0};
        if (!bind_section(exp, app_at(exp, a)->traffic_section, INSEE_KIND_TRAFFIC, "uniform",
                          flow_traffic_read(exp, app_at(exp, a)), &scratch, err))
            return FALSE;
    }
    return TRUE;
}

static gboolean bind_sections(insee_experiment *exp, GError **err)
{
    const char *known[N_SECTIONS + 7];
    for (guint i = 0; i < N_SECTIONS; i++)
        known[i] = sections[i].name;
    known[N_SECTIONS] = "traffic";
    known[N_SECTIONS + 1] = "placement";
    known[N_SECTIONS + 2] = "application";
    known[N_SECTIONS + 3] = "background";
    known[N_SECTIONS + 4] = "bridge";
    known[N_SECTIONS + 5] = "scheduler";
    known[N_SECTIONS + 6] = NULL;
    if (!insee_config_check_sections(exp->cfg, known, err))
        return FALSE;
    /* `cycles` alone asks for a fixed window (every file written before the
       run phases existed); resolved here so that the echo says so. */
    if (insee_config_has_key(exp->cfg, "simulation", "cycles") &&
        !insee_config_has_key(exp->cfg, "simulation", "phases") &&
        !insee_config_set_string(exp->cfg, "simulation", "phases", "fixed",
                                 "[simulation] cycles without phases", err))
        return FALSE;

    for (guint i = 0; i < N_SECTIONS; i++) {
        const section *sec = &sections[i];
        if (sec->kernel_params == plugins_params)
            continue; /* bound before the registry scan: insee_experiment_plugin_dirs() */
        if ((sec->kernel_params == sweep_params || sec->kernel_params == faults_params ||
             sec->kernel_params == insee_storage_params ||
             sec->kernel_params == insee_timing_params) &&
            !insee_config_has_section(exp->cfg, sec->name))
            continue; /* a run's echo shows the table only where a file has one */
        /* [simulation] comes first and names the engine, which decides
           whether [arbiter] or [flow] has any meaning. */
        if ((sec->kind == INSEE_KIND_ARBITER && exp->engine != ENGINE_PACKET) ||
            (sec->kernel_params == flow_params && exp->engine == ENGINE_PACKET) ||
            (sec->kind == INSEE_KIND_ROUTING && !routed_by_table(exp)))
            continue;
        if (!bind_section(exp, sec->name, router_kind(exp, sec), sec->default_plugin,
                          sec->kernel_params, &exp->net[i], err))
            return FALSE;
        if (sec->kernel_params == simulation_params)
            exp->engine = (int)exp->net[i].kernel[SIM_ENGINE].i;
    }
    return bind_applications(exp, err) && check_engine(exp, err) &&
           (exp->engine == ENGINE_PACKET || echo_flow_keys(exp, err));
}

gboolean insee_experiment_plugin_dirs(insee_config *cfg, char ***dirs, GError **err)
{
    insee_binding b = {plugins_params, "the kernel", NULL};
    if (!insee_config_bind(cfg, "plugins", &b, 1, err))
        return FALSE;
    *dirs = g_strsplit(b.values[0].s ? b.values[0].s : "", ":", -1);
    return TRUE;
}

gboolean insee_experiment_sweep(insee_config *cfg, const insee_value **values, GError **err)
{
    insee_binding b = {sweep_params, "the kernel", NULL};
    if (!insee_config_bind(cfg, "sweep", &b, 1, err))
        return FALSE;
    *values = b.values;
    return TRUE;
}

/* Create one instance; `app` is the application a traffic or placement
   instance serves (its host's wake_task and streams are its own). */
static gboolean create_instance(insee_experiment *exp, const char *section, insee_kind kind,
                                uint32_t app, const insee_shape *shape, instance *inst,
                                GError **err)
{
    const insee_plugin *p = inst->plugin;
    inst->kctx = (struct insee_kernel){.eng = &exp->eng, .kind = kind, .app = app,
                                       .section = section, .shape = shape};
    insee_host_init(&inst->host, &inst->kctx);
    insee_error perr = {0};
    /* Every vtable starts with size then create: read create generically. */
    const insee_topology_vtable *generic = p->vtable;
    inst->self = generic->create(&inst->host, inst->values, &perr);
    if (!inst->self) {
        /* Routers that recognise the topology from its links see a
           network with cables missing: say so, the plugin cannot know. */
        const insee_net *net = &exp->eng.net;
        char *faults = kind == INSEE_KIND_ROUTER && net->failed
                           ? g_strdup_printf(" (if that is about the network's shape: it has "
                                             "%u failed cables, [faults], and a router that "
                                             "reads the shape from the links may not "
                                             "recognise it; updown and ecmp route any "
                                             "surviving graph)", net->failed_cables)
                           : g_strdup("");
        g_set_error(err, INSEE_EXPERIMENT_ERROR, INSEE_EXPERIMENT_ERROR_SETUP,
                    "[%s] plugin '%s' (%s) could not start: %s%s", section, p->name, p->path,
                    perr.code ? perr.message : "create() failed without a reason", faults);
        g_free(faults);
        return FALSE;
    }
    return TRUE;
}

static void destroy_instance(instance *inst)
{
    if (inst->self) {
        const insee_topology_vtable *generic = inst->plugin->vtable;
        generic->destroy(inst->self);
        inst->self = NULL;
    }
}

/* vc_buffer_bytes: the queues count phits from now. An injection queue
   holds inject_packets longest packets before its port's buffer; its count,
   like every queue's, must fit 16 bits. */
static gboolean count_phits(insee_experiment *exp, GError **err)
{
    insee_net *net = &exp->eng.net;
    uint64_t inject = (uint64_t)net->inject_packets * net->packet_phits + exp->buffer_phits;
    if (inject > UINT16_MAX) {
        g_set_error(err, INSEE_CONFIG_ERROR, INSEE_CONFIG_ERROR_INVALID,
                    "[network] vc_buffer_bytes with [router] inject_packets = %u makes injection "
                    "queues of %" G_GUINT64_FORMAT " phits; a queue holds at most %u: lower "
                    "them, or make phits larger",
                    net->inject_packets, inject, UINT16_MAX);
        return FALSE;
    }
    net->phit_queues = TRUE;
    net->queue_packets = exp->buffer_phits;
    net->inject_packets *= net->packet_phits;
    /* Packets of one phit could fill every queue. */
    uint64_t phits = (uint64_t)net->transit_queues * net->queue_packets +
                     (uint64_t)(net->queues - net->transit_queues) *
                         (net->inject_packets + net->queue_packets);
    net->pkt_bound = (uint32_t)insee_net_pool_cap(MIN(phits, (uint64_t)INSEE_NONE - 1));
    return TRUE;
}

static gboolean build_network(insee_experiment *exp, GError **err)
{
    insee_engine *eng = &exp->eng;
    const instance *topo = &exp->net[section_index("topology")];
    eng->topo = topo->plugin->vtable;
    eng->topo_self = topo->self;
    const insee_value *rv = exp->net[section_index("router")].kernel;
    /* A flow engine needs the graph, none of the packet engine's queues. */
    uint32_t queue_packets = exp->buffer_phits ? MAX(exp->buffer_phits / eng->packet_phits, 1u)
                                               : (uint32_t)rv[R_QUEUE].i;
    if (!(exp->engine == ENGINE_PACKET ? insee_net_build : insee_net_build_graph)(
            &eng->net, eng->topo, eng->topo_self, (uint32_t)rv[R_VCS].i, queue_packets,
            (uint32_t)rv[R_INJECT].i, exp->nics > 1 ? exp->nics : (uint32_t)rv[R_INJECTORS].i,
            err))
        return FALSE;
    eng->net.packet_phits = eng->packet_phits;
    if (exp->buffer_phits && !count_phits(exp, err))
        return FALSE;
    const insee_value *fv = exp->net[section_index("faults")].kernel;
    if (fv) {
        insee_faults_spec spec = {
            .links = fv[FAULT_LINKS].d, .file = fv[FAULT_FILE].s,
            .seed = fv[FAULT_SEED].i ? (uint64_t)fv[FAULT_SEED].i : eng->seed,
        };
        if (!insee_net_fail_cables(&eng->net, &spec, err))
            return FALSE;
    }
    insee_topology_info info = {0};
    eng->topo->info(eng->topo_self, &info);
    exp->shape = (insee_shape){
        .routers = eng->net.routers,
        .nodes = eng->net.nodes,
        .max_ports = info.max_ports,
        .dims = info.dims,
        .vcs = eng->net.vcs,
        .queue_packets = MAX(eng->net.queue_packets / insee_net_unit_packet(&eng->net), 1u),
        .inject_packets = eng->net.inject_packets / insee_net_unit_packet(&eng->net),
        .injectors = eng->net.injectors,
        .packet_phits = eng->packet_phits,
        .tasks = eng->net.nodes,
    };
    return TRUE;
}

/* [storage]'s figures, or NULL without the table. */
static const insee_storage_config *storage_config(const insee_experiment *exp,
                                                  insee_storage_config *c)
{
    const insee_value *v = exp->net[section_index("storage")].kernel;
    if (!v)
        return NULL;
    insee_storage_config_read(v, c);
    return c;
}

/* How many nodes each application takes, and its task count: an
   application without `tasks` takes every node still free. The [storage]
   servers, the network's last nodes, are never free. */
static gboolean size_applications(insee_experiment *exp, GError **err)
{
    insee_storage_config storage;
    uint64_t free_nodes = exp->eng.net.nodes;
    if (storage_config(exp, &storage)) {
        if (storage.servers >= free_nodes) {
            g_set_error(err, INSEE_CONFIG_ERROR, INSEE_CONFIG_ERROR_INVALID,
                        "[storage] storage_nodes = %u leaves none of the network's %u nodes "
                        "to compute; use fewer storage nodes or a larger topology",
                        storage.servers, exp->eng.net.nodes);
            return FALSE;
        }
        free_nodes -= storage.servers;
    }
    for (guint a = 0; a < exp->apps->len; a++) {
        application *app = app_at(exp, a);
        if (app->tasks == 0)
            app->tasks = (uint32_t)MIN(free_nodes * app->tasks_per_node, (uint64_t)UINT32_MAX);
        uint64_t slots = ((uint64_t)app->tasks + app->tasks_per_node - 1) / app->tasks_per_node;
        if (app->job) { /* a job takes its nodes when it starts, from all of them */
            if (slots > exp->eng.net.nodes) {
                g_set_error(err, INSEE_CONFIG_ERROR, INSEE_CONFIG_ERROR_INVALID,
                            "job '%s'%s%s%s needs %" G_GUINT64_FORMAT " nodes for %u tasks, "
                            "more than the network's %u: it could never start; lower its "
                            "tasks or use a larger topology", app->name,
                            app->origin ? " (" : "", app->origin ? app->origin : "",
                            app->origin ? ")" : "", slots, app->tasks, exp->eng.net.nodes);
                return FALSE;
            }
            app->shape = exp->shape;
            app->shape.tasks = app->tasks;
            continue;
        }
        if (app->tasks == 0) {
            g_set_error(err, INSEE_CONFIG_ERROR, INSEE_CONFIG_ERROR_INVALID,
                        "application '%s' has no node left: the applications before it take "
                        "all %u nodes; give them fewer tasks or drop it", app->name,
                        exp->eng.net.nodes);
            return FALSE;
        }
        if (slots > free_nodes) {
            g_set_error(err, INSEE_CONFIG_ERROR, INSEE_CONFIG_ERROR_INVALID,
                        "application '%s' needs %" G_GUINT64_FORMAT " nodes for %u tasks at %u "
                        "per node, but %" G_GUINT64_FORMAT " of the network's %u nodes are "
                        "free; lower its tasks, raise its tasks_per_node, or use a larger "
                        "topology", app->name, slots, app->tasks, app->tasks_per_node,
                        free_nodes, exp->eng.net.nodes);
            return FALSE;
        }
        free_nodes -= slots;
        app->shape = exp->shape;
        /* A bridge sees the nodes it serves, not the kernel's tasks for them. */
        app->shape.tasks = app->bridge ? app->tasks / INSEE_BRIDGE_TASKS_PER_NODE : app->tasks;
    }
    return TRUE;
}

/* Place application `a`'s slots on the nodes still available (consecutive
   order when it has no placement), and its tasks on its slots. */
static gboolean place_application(insee_experiment *exp, guint a, bool *available,
                                  uint32_t *task_node, GError **err)
{
    application *app = app_at(exp, a);
    uint32_t nodes = exp->eng.net.nodes;
    uint32_t slots = (app->tasks + app->tasks_per_node - 1) / app->tasks_per_node;
    /* Every slot starts as "no node": a plugin that leaves one unwritten
       is caught below instead of read uninitialised. */
    uint32_t *slot_node = g_new(uint32_t, slots);
    memset(slot_node, 0xff, sizeof *slot_node * slots);
    gboolean ok = TRUE;
    const char *who = "consecutive";
    if (!app->placement_section) {
        for (uint32_t n = 0, s = 0; n < nodes && s < slots; n++)
            if (available[n])
                slot_node[s++] = n;
    } else {
        const insee_placement_vtable *pv = app->placement.plugin->vtable;
        who = app->placement.plugin->name;
        insee_rng rng;
        insee_rng_init(&rng, exp->eng.seed, (5ull << 40) + a);
        insee_error perr = {0};
        ok = pv->place(app->placement.self, slots, available, nodes, slot_node, &rng, &perr);
        if (!ok)
            g_set_error(err, INSEE_EXPERIMENT_ERROR, INSEE_EXPERIMENT_ERROR_SETUP,
                        "[%s] plugin '%s' could not place %u tasks on %u nodes: %s",
                        app->placement_section, who, slots, nodes,
                        perr.code ? perr.message : "no reason");
    }
    /* A bijection onto available nodes is the contract: check it, since the
       engine indexes with these values. */
    for (uint32_t s = 0; ok && s < slots; s++) {
        if (slot_node[s] == UINT32_MAX) {
            g_set_error(err, INSEE_EXPERIMENT_ERROR, INSEE_EXPERIMENT_ERROR_SETUP,
                        "[%s] plugin '%s' said it placed %u tasks but left task %u without "
                        "a node", app->placement_section, who, slots, s);
            ok = FALSE;
            break;
        }
        if (slot_node[s] >= nodes || !available[slot_node[s]]) {
            g_set_error(err, INSEE_EXPERIMENT_ERROR, INSEE_EXPERIMENT_ERROR_SETUP,
                        "[%s] plugin '%s' put task %u on node %u, which is not an available "
                        "node (or used twice)", app->placement_section, who, s, slot_node[s]);
            ok = FALSE;
            break;
        }
        available[slot_node[s]] = false;
    }
    for (uint32_t t = 0; ok && t < app->tasks; t++)
        task_node[t] = slot_node[t / app->tasks_per_node];
    g_free(slot_node);
    return ok;
}

/* A job ends: a causal traffic on its own, an open-ended one after its
   runtime. The static engine has no time for jobs to arrive or end in, and
   [storage] picks each application's data nodes before the run, where a
   job has none yet. */
static gboolean job_fits_traffic(const insee_experiment *exp, const application *app,
                                 gboolean causal, GError **err)
{
    insee_storage_config storage;
    if (exp->engine == ENGINE_STATIC || storage_config(exp, &storage)) {
        g_set_error(err, INSEE_CONFIG_ERROR, INSEE_CONFIG_ERROR_INVALID, "job '%s': %s",
                    app->name,
                    exp->engine == ENGINE_STATIC
                        ? "jobs ([scheduler], an application's arrival) need time to arrive "
                          "and end in, and the static engine has none: it routes every flow "
                          "at once (docs/scheduling.md); use engine = \"dynamic\" or "
                          "\"packet\""
                        : "[storage] places each application's data before the run, and a "
                          "job has no nodes until it starts (docs/scheduling.md); remove "
                          "[storage] or the jobs");
        return FALSE;
    }
    if (!causal && app->runtime <= 0) {
        g_set_error(err, INSEE_CONFIG_ERROR, INSEE_CONFIG_ERROR_INVALID,
                    "job '%s'%s%s%s: its traffic '%s' is open-ended and would never end; give "
                    "the job a runtime (in a log: a run time, field 4), or a causal traffic "
                    "(a kernel, a trace)", app->name, app->origin ? " (" : "",
                    app->origin ? app->origin : "", app->origin ? ")" : "",
                    app->traffic.plugin->name);
        return FALSE;
    }
    if (causal && app->runtime > 0 && !app->origin) {
        g_set_error(err, INSEE_CONFIG_ERROR, INSEE_CONFIG_ERROR_INVALID,
                    "job '%s': runtime is for open-ended traffic, and '%s' ends on its own; "
                    "remove runtime", app->name, app->traffic.plugin->name);
        return FALSE;
    }
    return TRUE;
}

/* The scheduler calls this when it starts job `job` on `nodes`: the job's
   placement maps its tasks onto those nodes alone, then its tasks start. */
static gboolean start_job(void *ctx, uint32_t job, const uint32_t *nodes, GError **err)
{
    insee_experiment *exp = ctx;
    insee_engine *eng = &exp->eng;
    uint32_t a = exp->job_app[job];
    const application *app = app_at(exp, a);
    uint32_t slots = (app->tasks + app->tasks_per_node - 1) / app->tasks_per_node;
    bool *available = g_new0(bool, eng->net.nodes);
    for (uint32_t i = 0; i < slots; i++)
        available[nodes[i]] = true;
    insee_workload *wl = &exp->eng.wl;
    gboolean ok = place_application(exp, a, available, wl->task_node + wl->apps[a].first_task,
                                    err);
    g_free(available);
    if (ok && exp->engine == ENGINE_DYNAMIC)
        insee_flow_dynamic_start_app(wl->flow_ctx, a);
    else if (ok)
        insee_workload_start_app(wl, a);
    return ok;
}

/* [scheduler]'s plugins, and the queue of the `jobs` jobs. */
static gboolean start_scheduler(insee_experiment *exp, uint32_t jobs, GError **err)
{
    insee_engine *eng = &exp->eng;
    if (!create_instance(exp, "scheduler", INSEE_KIND_SELECTION, 0, &exp->shape, &exp->sel, err) ||
        !create_instance(exp, "scheduler", INSEE_KIND_ALLOCATION, 0, &exp->shape, &exp->alloc,
                         err))
        return FALSE;
    insee_job_rec *rec = g_new0(insee_job_rec, jobs);
    exp->job_app = g_new(uint32_t, jobs);
    for (uint32_t a = 0; a < eng->wl.n_apps; a++) {
        uint32_t j = eng->wl.apps[a].job;
        if (j == INSEE_NONE)
            continue;
        const application *app = app_at(exp, a);
        exp->job_app[j] = a;
        /* cycles are whole; the dynamic engine's seconds are not */
        gboolean whole = exp->engine == ENGINE_PACKET;
        rec[j] = (insee_job_rec){
            .app = a, .nodes = (app->tasks + app->tasks_per_node - 1) / app->tasks_per_node,
            .arrival = whole ? (double)llround(app->arrival) : app->arrival,
            .estimate = app->estimate <= 0 ? INFINITY
                        : whole            ? (double)llround(app->estimate)
                                           : app->estimate,
        };
    }
    insee_sched_plugins p = {
        .sel = exp->sel.plugin->vtable, .sel_self = exp->sel.self, .sel_name = exp->sel.plugin->name,
        .alloc = exp->alloc.plugin->vtable, .alloc_self = exp->alloc.self,
        .alloc_name = exp->alloc.plugin->name,
    };
    eng->wl.sched = insee_sched_new(&p, rec, jobs, eng->net.nodes, eng->seed, start_job, exp);
    g_free(rec);
    double bsld = exp->sched[SC_BSLD_MIN].d;
    eng->wl.bsld_min = bsld > 0 ? bsld : exp->engine == ENGINE_PACKET ? 10000.0 : 10.0;
    eng->causal = TRUE; /* the run lasts until every job is done */
    return TRUE;
}

/* Every application's placement and traffic, in order: placements take
   nodes in configuration order, so the first application chooses first. */
static gboolean start_applications(insee_experiment *exp, GError **err)
{
    insee_engine *eng = &exp->eng;
    if (!size_applications(exp, err))
        return FALSE;
    uint64_t tasks = 0;
    for (guint a = 0; a < exp->apps->len; a++)
        tasks += app_at(exp, a)->tasks;
    if (tasks > UINT32_MAX - 1) {
        g_set_error(err, INSEE_CONFIG_ERROR, INSEE_CONFIG_ERROR_INVALID,
                    "the applications have %" G_GUINT64_FORMAT " tasks in all, more than "
                    "the %u a run can hold; lower their tasks", tasks, UINT32_MAX - 1);
        return FALSE;
    }
    if (!insee_tasks_memory_check(&eng->net, tasks, insee_engine_kept_candidates(eng), err))
        return FALSE;
    uint32_t nodes = eng->net.nodes;
    bool *available = g_new(bool, nodes);
    insee_storage_config storage;
    uint32_t servers = storage_config(exp, &storage) ? storage.servers : 0;
    for (uint32_t n = 0; n < nodes; n++)
        available[n] = n < nodes - servers;
    uint32_t *task_node = g_new(uint32_t, tasks);
    insee_workload *wl = &eng->wl;
    wl->n_apps = exp->apps->len;
    wl->apps = g_new0(insee_app, wl->n_apps);
    eng->report.n_apps = wl->n_apps;
    eng->report.apps = g_new0(insee_app_report, wl->n_apps);
    gboolean ok = TRUE;
    uint32_t first = 0;
    uint32_t jobs = 0;
    for (guint a = 0; ok && a < exp->apps->len; a++) {
        application *app = app_at(exp, a);
        /* A job is placed when it starts, on the nodes it is given (start_job). */
        ok = (!app->placement_section ||
              create_instance(exp, app->placement_section, INSEE_KIND_PLACEMENT, a, &app->shape,
                              &app->placement, err)) &&
             (app->job || place_application(exp, a, available, task_node + first, err)) &&
             create_instance(exp, app->traffic_section,
                             app->bridge ? INSEE_KIND_BRIDGE : INSEE_KIND_TRAFFIC, a, &app->shape,
                             &app->traffic, err);
        if (!ok)
            break;
        if (app->job)
            memset(task_node + first, 0, sizeof *task_node * app->tasks);
        const insee_traffic_vtable *tv = app->traffic.plugin->vtable;
        void *self = app->traffic.self;
        uint32_t abi_minor = app->traffic.plugin->desc->abi_minor;
        if (app->bridge) {
            wl->bridge = insee_bridge_app_new(wl, a, app->shape.tasks,
                                              app->traffic.plugin->vtable, self,
                                              app->traffic.plugin->name);
            tv = &insee_bridge_traffic;
            self = wl->bridge;
            abi_minor = INSEE_ABI_MINOR; /* the kernel's own table */
        }
        insee_app_report *ar = &eng->report.apps[a];
        ar->name = g_strdup(app->name);
        ar->plugins = g_strdup_printf("%s/%s", app->placement_section
                                                   ? app->placement.plugin->name : "consecutive",
                                      app->traffic.plugin->name);
        ar->tasks = app->shape.tasks; /* as its plugin counts them */
        ar->nodes = (app->tasks + app->tasks_per_node - 1) / app->tasks_per_node;
        ar->causal = tv->finished && (!tv->causal || tv->causal(self));
        ar->offered_load = tv->offered_load ? tv->offered_load(self) : -1.0;
        wl->apps[a] = (insee_app){
            .traffic = tv, .self = self, .plugin = app->traffic.plugin->name,
            .abi_minor = abi_minor, .first_task = first, .tasks = app->tasks,
            .drop_on_full = !app->bridge && app->traffic.kernel[T_ON_FULL].i == 1,
            .io = app->background && app->traffic.kernel[T_CLASS].i == 1,
            .causal = ar->causal,
            .per_task = tv->properties && (tv->properties(self) & INSEE_TRAFFIC_PER_TASK),
            .rep = ar,
            .job = app->job ? jobs++ : INSEE_NONE,
            .runtime = (uint64_t)llround(app->runtime),
            .stop = INSEE_NEVER,
        };
        eng->causal |= ar->causal;
        first += app->tasks;
        ok = !app->job || job_fits_traffic(exp, app, ar->causal, err);
    }
    if (ok) {
        wl->tasks = (uint32_t)tasks;
        insee_workload_env env = {
            .net = &eng->net, .stats = &eng->stats, .report = &eng->report,
            .topo = eng->topo, .topo_self = eng->topo_self,
            .injection = (insee_injection)kernel_value(exp, "router", R_INJECTION)->i,
            .seed = eng->seed, .packet_phits = eng->packet_phits, .phit_bytes = eng->phit_bytes,
            .source_cycles = eng->node_cable_cycles + eng->router_cycles,
            .node_phit_cycles = eng->node_phit_cycles,
            .payload_bytes = eng->payload_bytes, .variable_packets = eng->variable_packets,
            .send_cycles = eng->report.units.send_overhead,
            .recv_cycles = eng->report.units.recv_overhead,
            .copy_cycles_per_byte = eng->report.units.copy_cycles_per_byte,
            .memory_cycles_per_byte = eng->memory_cycles_per_byte,
            .nics = exp->nics,
        };
        insee_workload_init(wl, &env, task_node);
        ok = !jobs || start_scheduler(exp, jobs, err);
    }
    g_free(available);
    g_free(task_node);
    return ok;
}

static void wire_network(insee_experiment *exp)
{
    insee_engine *eng = &exp->eng;
    const instance *r = &exp->net[section_index("router")];
    const instance *arb = &exp->net[section_index("arbiter")];
    if (r->plugin) { /* none when a [routing] gives a flow engine its paths */
        eng->router = r->plugin->vtable;
        eng->router_self = r->self;
    }
    if (arb->plugin) { /* none in a flow engine */
        eng->arbiter = arb->plugin->vtable;
        eng->arbiter_self = arb->self;
        eng->arb_stride = arb->plugin->desc->abi_minor >= 1 ? sizeof(insee_request)
                                                            : INSEE_REQUEST_SIZE_1_0;
    }
    /* Router and arbiter exist: size their state before any packet. */
    const insee_router_vtable *rv = eng->router;
    eng->net.pstate_size = insee_state_round(
        rv && rv->packet_state_size ? rv->packet_state_size(eng->router_self) : 0);
    eng->rstate_size = insee_state_round(
        rv && rv->router_state_size ? rv->router_state_size(eng->router_self) : 0);
    eng->astate_size = insee_state_round(
        eng->arbiter && eng->arbiter->state_size ? eng->arbiter->state_size(eng->arbiter_self)
                                                 : 0);
}

/* The router's properties() bits (insee/router.h), 0 when it has none. */
static uint32_t router_properties(const insee_engine *eng)
{
    return eng->router && eng->router->properties ? eng->router->properties(eng->router_self)
                                                  : 0;
}

uint32_t insee_experiment_cores_free(const char *loadavg, uint32_t cores)
{
    double l1, l5, l15;
    unsigned running;
    if (!loadavg || sscanf(loadavg, "%lf %lf %lf %u/", &l1, &l5, &l15, &running) != 4 ||
        running == 0)
        return cores;
    return running - 1 >= cores ? 1 : cores - (running - 1);
}

/* The cores a run may use by default: INSEE_CORES when set (a sweep sets
   its runs' share of the machine; a user may set it), else those the
   process may use less those other processes are running on as the run
   starts: parts of a run split over threads meet every cycle, and one
   that a busy machine sets aside holds up all (several times slower than
   one thread). The most cores free of three looks a millisecond apart,
   so that a passing process is not taken for a busy machine; looked at
   once per experiment. */
static uint32_t run_cores(insee_experiment *exp)
{
    if (exp->cores)
        return exp->cores;
    const char *v = g_getenv("INSEE_CORES");
    guint64 n = v ? g_ascii_strtoull(v, NULL, 10) : 0;
    if (n > 0 && n <= 4096)
        return exp->cores = (uint32_t)n;
    uint32_t cores = g_get_num_processors(), best = 1;
    for (int look = 0; look < 3 && best < cores; look++) {
        char *text = NULL;
        if (look)
            g_usleep(1000);
        g_file_get_contents("/proc/loadavg", &text, NULL, NULL);
        best = MAX(best, insee_experiment_cores_free(text, cores));
        g_free(text);
    }
    return exp->cores = best;
}

/* Networks with fewer routers than these run on one thread unless
   [simulation] threads asks for more: a cycle has too few heads to share.
   Parts share every phase and gain from 1 k routers (a 32x32 torus: 1.3
   to 1.5 times on 2 cores; a 16x16 one is slower); the crew shares only
   deciding. Wormhole flow control moves flits, a cycle's work many times
   a packet's, and gains from 64 (BookSim2's 8x8 torus: 1.3 times on 2
   cores, a 16x16 one 1.8 to 2.1, its 264-router dragonfly 1.8). */
#define PACKET_SPLIT_MIN_ROUTERS 1024u
#define WORMHOLE_SPLIT_MIN_ROUTERS 64u
#define PACKET_THREADS_MIN_ROUTERS 4096u
/* A decision names its worker in a byte (engine.h). */
#define PACKET_THREADS_MAX 255u

/* The packet engine's workers: [simulation] threads (0: the cores the
   process may use, on a network large enough to gain), when the router is
   pure and may be asked from several threads at once and the topology's
   queries are safe so too (engine.c shares only the request phase's
   decisions); else one. */
static uint32_t packet_threads(insee_experiment *exp)
{
    insee_engine *eng = &exp->eng;
    uint32_t props = router_properties(eng);
    insee_topology_info info = {0};
    eng->topo->info(eng->topo_self, &info);
    if (!(props & INSEE_ROUTE_PURE) || !(props & INSEE_ROUTE_CONCURRENT) ||
        (props & INSEE_ROUTE_MULTICAST) || !(info.flags & INSEE_TOPO_CONCURRENT) ||
        eng->wormhole)
        return 1;
    uint32_t asked = (uint32_t)kernel_value(exp, "simulation", SIM_THREADS)->i;
    if (!asked)
        asked = eng->net.routers >= PACKET_THREADS_MIN_ROUTERS ? run_cores(exp) : 1;
    return MIN(asked, PACKET_THREADS_MAX);
}

/* By default a split run holds at most this many routers' records in all
   (about a KiB each): each part holds the whole network's. */
#define SPLIT_MAX_ROUTER_COPIES (1u << 22)

/* How many more copies of the network (setup and full, net/memory.c) the
   memory available now holds: a part beyond the first is one. */
static uint64_t copies_that_fit(const insee_engine *eng)
{
    insee_net_size size = insee_net_size_of(&eng->net, insee_engine_kept_candidates(eng));
    insee_net_memory m = insee_net_memory_of(&size);
    const char *limit;
    return insee_memory_available(&limit) / MAX(m.setup + m.full, 1u);
}

static gboolean traced(const insee_experiment *exp)
{
    return *exp->net[section_index("stats")].kernel[S_TRACE].s != '\0';
}

/* The parts [simulation] threads splits the run into (1: none): the threads
   asked or, by default, the cores the process may use on a network large
   enough to gain, fewer on one whose copies would take too much memory;
   when the run can be split as mpirun's ranks split it
   (insee_partition_check), which shares every phase of the cycle. Else the
   crew (packet_threads()) shares what it can. */
static uint32_t split_parts(insee_experiment *exp)
{
    insee_engine *eng = &exp->eng;
    uint32_t asked = (uint32_t)kernel_value(exp, "simulation", SIM_THREADS)->i;
    uint32_t gains = eng->wormhole ? WORMHOLE_SPLIT_MIN_ROUTERS : PACKET_SPLIT_MIN_ROUTERS;
    if (!asked && eng->net.routers >= gains)
        asked = MIN(MIN(run_cores(exp), SPLIT_MAX_ROUTER_COPIES / eng->net.routers),
                    1 + copies_that_fit(eng));
    insee_transport probe = {.parts = asked};
    if (asked < 2 || traced(exp) ||
        !insee_partition_check(eng, router_properties(eng), &probe, NULL))
        return 1;
    return asked;
}

/* A multicast router serialises its heads itself and learns that one left
   only from forwarded() (router.h): a packet the kernel drops at a failed
   cable would hold its router for ever. */
static gboolean faults_fit_router(const insee_experiment *exp, GError **err)
{
    const insee_engine *eng = &exp->eng;
    uint32_t props = router_properties(eng);
    if (!eng->net.failed || !(props & INSEE_ROUTE_MULTICAST))
        return TRUE;
    g_set_error(err, INSEE_CONFIG_ERROR, INSEE_CONFIG_ERROR_INVALID,
                "[router] plugin '%s' routes multicast sets, which cannot avoid the %u failed "
                "cables of [faults] (a copy dropped there would hold its router); remove "
                "[faults] or use a unicast router",
                exp->net[section_index("router")].plugin->name, eng->net.failed_cables);
    return FALSE;
}

/* The kernel's own keys, into the engine. */
static void set_engine_params(insee_experiment *exp)
{
    insee_engine *eng = &exp->eng;
    const insee_value *sv = exp->net[section_index("simulation")].kernel;
    eng->seed = (uint64_t)sv[SIM_SEED].i;
    eng->packet_phits = (uint32_t)sv[SIM_PACKET_PHITS].i;
    eng->phit_bytes = (uint32_t)sv[SIM_PHIT_BYTES].i;
    eng->node_phit_cycles = 1; /* [network] may slow the nodes' links down */
    eng->payload_bytes = (uint64_t)eng->packet_phits * eng->phit_bytes; /* less a header */
    eng->phases = (insee_phases){
        .mode = sv[SIM_PHASES].i == 1 ? INSEE_RUN_FIXED : INSEE_RUN_CONVERGE,
        .warmup = (uint64_t)sv[SIM_WARMUP].i,
        .cycles = (uint64_t)sv[SIM_CYCLES].i,
        .window = (uint64_t)sv[SIM_CONV_WINDOW].i,
        .window_packets = (uint64_t)sv[SIM_CONV_PACKETS].i,
        .tolerance = sv[SIM_CONV_TOLERANCE].d,
        .needed = 3,
        .max = (uint64_t)sv[SIM_CONV_MAX].i,
        .batches = (uint32_t)sv[SIM_BATCHES].i,
        .batch_cycles = (uint64_t)sv[SIM_BATCH_CYCLES].i,
    };
    eng->drain = (uint64_t)sv[SIM_DRAIN].i;
    eng->max_cycles = (uint64_t)sv[SIM_MAX_CYCLES].i;
    eng->single_consumption = kernel_value(exp, "router", R_CONSUMPTION)->i == 1;
    eng->deadlock_cycles = (uint64_t)sv[SIM_DEADLOCK].i;
    eng->ipr = kernel_value(exp, "router", R_IPR)->d;
    eng->gcc = kernel_value(exp, "router", R_GCC)->d;
    eng->gcc_period = (uint64_t)kernel_value(exp, "router", R_GCC_PERIOD)->i;
    eng->gcc_insee = kernel_value(exp, "router", R_GCC_COUNT)->i == 1;
}

/* A key that a [network] size replaces, written with another value than
   the one the size gives and than its default (which the report's echo
   writes back, so that the echo runs again). */
static gboolean replaced_differs(const insee_experiment *exp, const char *section,
                                 const insee_param_def *def, int64_t value, int64_t given)
{
    return insee_config_has_key(exp->cfg, section, def->name) && value != given &&
           value != g_ascii_strtoll(def->default_value, NULL, 10);
}

/* [network] mtu_bytes and vc_buffer_bytes, before the plugins see the
   packets' length and the queues' size: a longest packet replacing
   [simulation] packet_phits, buffers in phits replacing [router]
   queue_packets. */
static gboolean set_packet_sizes(insee_experiment *exp, GError **err)
{
    insee_engine *eng = &exp->eng;
    const insee_value *v = exp->net[section_index("network")].kernel;
    insee_timing_sizes z;
    if (!v || exp->engine != ENGINE_PACKET)
        return TRUE; /* a flow engine refuses [network] on its own */
    if (!insee_timing_read_sizes(v, eng->phit_bytes, eng->packet_phits, &z, err))
        return FALSE;
    if (z.mtu_phits && replaced_differs(exp, "simulation", &simulation_params[SIM_PACKET_PHITS],
                                        eng->packet_phits, z.mtu_phits)) {
        g_set_error(err, INSEE_CONFIG_ERROR, INSEE_CONFIG_ERROR_INVALID,
                    "[network] mtu_bytes makes packets of up to %u phits, but [simulation] "
                    "packet_phits = %u: remove packet_phits (mtu_bytes replaces it)",
                    z.mtu_phits, eng->packet_phits);
        return FALSE;
    }
    if (z.mtu_phits) {
        eng->packet_phits = z.mtu_phits;
        eng->payload_bytes = (uint64_t)eng->packet_phits * eng->phit_bytes;
        eng->variable_packets = TRUE;
    }
    const insee_value *queue = kernel_value(exp, "router", R_QUEUE);
    if (z.buffer_phits && replaced_differs(exp, "router", &router_params[R_QUEUE], queue->i,
                                           MAX(z.buffer_phits / eng->packet_phits, 1u))) {
        g_set_error(err, INSEE_CONFIG_ERROR, INSEE_CONFIG_ERROR_INVALID,
                    "[network] vc_buffer_bytes and [router] queue_packets = %" G_GINT64_FORMAT
                    " both size the queues: remove queue_packets (vc_buffer_bytes replaces it)",
                    queue->i);
        return FALSE;
    }
    const insee_value *injectors = kernel_value(exp, "router", R_INJECTORS);
    if (z.nics > 1 && replaced_differs(exp, "router", &router_params[R_INJECTORS],
                                       injectors->i, z.nics)) {
        g_set_error(err, INSEE_CONFIG_ERROR, INSEE_CONFIG_ERROR_INVALID,
                    "[network] nics = %u gives each interface an injection queue, but [router] "
                    "injectors = %" G_GINT64_FORMAT ": remove injectors (nics sets it)",
                    z.nics, injectors->i);
        return FALSE;
    }
    exp->nics = z.nics;
    exp->buffer_phits = z.buffer_phits;
    exp->output_phits = z.output_phits;
    exp->speedup = z.speedup;
    /* Wormhole credits flits: its buffers count them, queue_packets
       packets' worth when no size is given. */
    if (z.wormhole && !exp->buffer_phits)
        exp->buffer_phits = (uint32_t)queue->i * eng->packet_phits;
    return TRUE;
}

/* What the topology says of global port gp: its dimension or level and
   direction (dim -1 when it says nothing). */
static insee_hop port_hop(const insee_engine *eng, uint32_t gp)
{
    uint32_t r = eng->net.port_router[gp];
    insee_hop hop = {.dim = -1};
    if (eng->topo->port_info)
        eng->topo->port_info(eng->topo_self, r, gp - eng->net.port_base[r], &hop);
    return hop;
}

/* The collector, with what [stats] asks for; the network tells it when a
   queue's count changes only when queue histograms are on. */
static gboolean start_stats(insee_experiment *exp, GError **err)
{
    insee_engine *eng = &exp->eng;
    const insee_value *v = exp->net[section_index("stats")].kernel;
    insee_stats_options opt = {
        .interval = (uint64_t)v[S_INTERVAL].i,
        .latency_histogram = v[S_LATENCY_HIST].b,
        .distance_histograms = v[S_DISTANCE_HIST].b,
        .queue_histograms = v[S_QUEUE_HIST].b,
        .port_map = v[S_PORT_MAP].b,
        .node_map = v[S_NODE_MAP].b,
        .pair_map = v[S_PAIR_MAP].b,
    };
    if (v[S_TRACE_UNTIL].i && v[S_TRACE_UNTIL].i <= v[S_TRACE_FROM].i) {
        g_set_error(err, INSEE_CONFIG_ERROR, INSEE_CONFIG_ERROR_INVALID,
                    "[stats] trace_until = %" G_GINT64_FORMAT " must be after trace_from = %"
                    G_GINT64_FORMAT " (or 0: no end)", v[S_TRACE_UNTIL].i, v[S_TRACE_FROM].i);
        return FALSE;
    }
    if (!insee_stats_init(&eng->stats, &opt, &eng->net, err))
        return FALSE;
    if (opt.queue_histograms) {
        eng->net.count_changes = insee_stats_on_queue;
        eng->net.count_ctx = &eng->stats;
    }
    if (!v[S_DIRECTIONS].b)
        return TRUE;
    const insee_net *net = &eng->net;
    int32_t *dim = g_new(int32_t, MAX(net->ports_total, 1));
    int32_t *dir = g_new(int32_t, MAX(net->ports_total, 1));
    for (uint32_t gp = 0; gp < net->ports_total; gp++) {
        insee_hop hop = port_hop(eng, gp);
        dim[gp] = hop.dim;
        dir[gp] = hop.dir;
    }
    gboolean ok = insee_stats_track_directions(&eng->stats, net, dim, dir, err);
    g_free(dim);
    g_free(dir);
    return ok;
}

static void application_clear(gpointer p)
{
    application *app = p;
    g_free(app->origin);
    g_free(app->name);
    g_free(app->traffic_section);
    g_free(app->placement_section);
}

/* Once the applications tell whether the run is causal, and so how long it
   may last. */
static gboolean series_fits(const insee_experiment *exp, GError **err)
{
    return insee_stats_series_fits(&exp->eng.stats, insee_phases_longest(&exp->eng), err);
}

/* Output buffers behind every router's crossbar: their counts, refused
   for multicast routers, whose copies leave their input buffer together. */
static gboolean use_output_buffers(insee_experiment *exp, GError **err)
{
    insee_engine *eng = &exp->eng;
    if (router_properties(eng) & INSEE_ROUTE_MULTICAST) {
        g_set_error(err, INSEE_CONFIG_ERROR, INSEE_CONFIG_ERROR_INVALID,
                    "[network] output_buffer_bytes, but [router] plugin '%s' routes multicast "
                    "sets, whose copies leave their input buffer together; remove it, or use a "
                    "unicast router", exp->net[section_index("router")].plugin->name);
        return FALSE;
    }
    eng->out_cap = exp->output_phits;
    eng->speedup = exp->speedup;
    eng->out_used = g_new0(uint32_t, MAX(eng->net.ports_total, 1));
    eng->out_leaving = g_new0(uint16_t, MAX(eng->net.ports_total, 1));
    eng->out_last = g_new0(uint32_t, MAX(eng->net.ovcs, 1));
    return TRUE;
}

/* The shortest and longest cables' latencies, for the report: over the
   ports when dimensions have their own, which may leave cable_cycles to
   none. */
static void cable_range(const insee_engine *eng, uint32_t *shortest, uint32_t *longest)
{
    *shortest = *longest = eng->cable && eng->net.ports_total ? eng->cable[0] : eng->cable_cycles;
    for (uint32_t gp = 0; eng->cable && gp < eng->net.ports_total; gp++) {
        *shortest = MIN(*shortest, eng->cable[gp]);
        *longest = MAX(*longest, eng->cable[gp]);
    }
}

/* What wormhole flow control does not take: multicast sets (a copy per
   output), links slower than the router, failed cables (a flit cannot be
   dropped), the phit trace (whose format is virtual cut-through's), and
   what arbitrates packets (its allocators are its own). */
static gboolean wormhole_fits(const insee_experiment *exp, gboolean slower, GError **err)
{
    const insee_engine *eng = &exp->eng;
    const char *why = (router_properties(eng) & INSEE_ROUTE_MULTICAST)
                          ? "[router] plugin routes multicast sets"
                      : slower                 ? "some links are slower than the router"
                      : eng->net.failed        ? "[faults] fails cables"
                      : *kernel_value(exp, "stats", S_TRACE)->s ? "[stats] trace is set"
                      : insee_config_has_section(exp->cfg, "arbiter")
                          ? "an [arbiter] plugin is chosen, but wormhole allocates VCs round "
                            "robin and the switch by iSLIP"
                      : eng->ipr > 0 ? "[router] ipr gives in-transit packets priority in "
                                       "arbitration, which wormhole does not have"
                                     : NULL;
    if (!why)
        return TRUE;
    g_set_error(err, INSEE_CONFIG_ERROR, INSEE_CONFIG_ERROR_INVALID,
                "[network] flow_control = \"wormhole\" cannot run here: %s; use \"vct\" or "
                "remove that", why);
    return FALSE;
}

/* [network]: the cycle's length, and what cables and routers add to a
   hop, per global port when a dimension or level has its own cables. */
static gboolean set_timing(insee_experiment *exp, GError **err)
{
    insee_engine *eng = &exp->eng;
    const insee_value *v = exp->net[section_index("network")].kernel;
    if (!v)
        return TRUE;
    insee_timing t;
    if (!insee_timing_read(&t, v, eng->phit_bytes, err))
        return FALSE;
    if (t.header_bytes >= eng->payload_bytes) {
        g_set_error(err, INSEE_CONFIG_ERROR, INSEE_CONFIG_ERROR_INVALID,
                    "[network] header_bytes = %u leaves no payload in packets of %" G_GUINT64_FORMAT
                    " bytes ([simulation] packet_phits x phit_bytes); lower it, or make packets "
                    "longer", t.header_bytes, eng->payload_bytes);
        insee_timing_clear(&t);
        return FALSE;
    }
    eng->payload_bytes -= t.header_bytes;
    eng->router_cycles = t.router_cycles;
    eng->cable_cycles = t.cable_cycles;
    eng->node_cable_cycles = t.node_cable_cycles;
    eng->node_phit_cycles = t.node_phit;
    insee_net *net = &eng->net;
    gboolean slower = t.node_phit > 1;
    if (t.dims || t.phit_dims) {
        eng->cable = g_new(uint32_t, MAX(net->ports_total, 1));
        eng->phit_cycles = g_new(uint16_t, MAX(net->ports_total, 1));
        for (uint32_t gp = 0; gp < net->ports_total; gp++) {
            int32_t dim = port_hop(eng, gp).dim;
            eng->cable[gp] = insee_timing_cable(&t, dim);
            eng->phit_cycles[gp] = (uint16_t)insee_timing_phit_cycles(&t, dim);
            slower |= eng->phit_cycles[gp] > 1;
        }
    }
    if ((eng->variable_packets || net->phit_queues) &&
        (router_properties(eng) & INSEE_ROUTE_MULTICAST)) {
        g_set_error(err, INSEE_CONFIG_ERROR, INSEE_CONFIG_ERROR_INVALID,
                    "[network] %s, but [router] plugin '%s' routes multicast sets, whose copies "
                    "count as whole packets; remove it, or use a unicast router",
                    eng->variable_packets ? "mtu_bytes makes packets' lengths vary"
                                          : "vc_buffer_bytes sizes queues in phits",
                    exp->net[section_index("router")].plugin->name);
        insee_timing_clear(&t);
        return FALSE;
    }
    if (slower && (router_properties(eng) & INSEE_ROUTE_MULTICAST)) {
        g_set_error(err, INSEE_CONFIG_ERROR, INSEE_CONFIG_ERROR_INVALID,
                    "[network] makes some links slower than the router, but [router] plugin "
                    "'%s' routes multicast sets, whose copies leave together at one rate; "
                    "remove dim_phit_cycles and node_phit_cycles, or use a unicast router",
                    exp->net[section_index("router")].plugin->name);
        insee_timing_clear(&t);
        return FALSE;
    }
    if (t.wormhole && !wormhole_fits(exp, slower, err)) {
        insee_timing_clear(&t);
        return FALSE;
    }
    if (exp->output_phits && !use_output_buffers(exp, err)) {
        insee_timing_clear(&t);
        return FALSE;
    }
    eng->wormhole = t.wormhole;
    eng->wh_params = t.stages;
    eng->memory_cycles_per_byte = t.memory_cycles_per_byte;
    /* A crossbar faster than the link must not outrun a tail still coming in. */
    net->track_tail = slower || eng->out_used;
    eng->timed = slower || eng->cable || t.cable_cycles || t.router_cycles ||
                 t.node_cable_cycles || eng->variable_packets || eng->out_used;
    eng->report.units = (insee_report_units){
        .given = TRUE, .cycle_ns = t.cycle_ns, .link_gbytes_s = t.link_gbytes_s,
        .phit_bytes = eng->phit_bytes, .cable_cycles = t.cable_cycles,
        .node_cable_cycles = t.node_cable_cycles,
        .router_cycles = t.router_cycles, .node_phit_cycles = t.node_phit,
        .send_overhead = t.send_overhead, .recv_overhead = t.recv_overhead,
        .header_bytes = t.header_bytes, .variable_packets = eng->variable_packets,
        .buffer_bytes = exp->buffer_phits * eng->phit_bytes, .wormhole = t.wormhole,
        .copy_cycles_per_byte = t.copy_cycles_per_byte, .nics = exp->nics,
        .output_buffer_bytes = exp->output_phits * eng->phit_bytes, .crossbar_speedup = exp->speedup,
        .stages = t.stages,
    };
    cable_range(eng, &eng->report.units.shortest_cable_cycles,
                &eng->report.units.longest_cable_cycles);
    insee_timing_clear(&t);
    return TRUE;
}

/* Bind everything, then create the plugins in order; with `topology_only`
   stop once the network is built (insee topology). */
static insee_experiment *experiment_new(insee_config *cfg, const insee_registry *reg,
                                        gboolean topology_only, GError **err)
{
    gint64 start = g_get_monotonic_time();
    insee_experiment *exp = g_new0(insee_experiment, 1);
    exp->cfg = cfg;
    exp->reg = reg;
    exp->apps = g_array_new(FALSE, TRUE, sizeof(application));
    g_array_set_clear_func(exp->apps, application_clear);
    insee_engine *eng = &exp->eng;
    if (!bind_sections(exp, err))
        goto fail;
    set_engine_params(exp);
    if (!set_packet_sizes(exp, err))
        goto fail;
    for (guint i = 0; i < N_SECTIONS; i++) {
        if (!sections[i].kind || !exp->net[i].plugin)
            continue; /* a kernel section, or [arbiter] in a flow engine */
        if (!create_instance(exp, sections[i].name, sections[i].kind, 0, &exp->shape,
                             &exp->net[i], err))
            goto fail;
        if (sections[i].kind == INSEE_KIND_TOPOLOGY) {
            if (!build_network(exp, err))
                goto fail;
            if (topology_only)
                return exp;
        }
    }
    wire_network(exp);
    if (!faults_fit_router(exp, err) || !set_timing(exp, err))
        goto fail;
    if (exp->engine != ENGINE_PACKET) {
        if (!start_applications(exp, err))
            goto fail;
        return exp;
    }
    if (!start_stats(exp, err) || !start_applications(exp, err) || !series_fits(exp, err))
        goto fail;
    eng->threads = packet_threads(exp);
    eng->split_parts = split_parts(exp);
    insee_engine_prepare(eng);
    eng->report.setup_seconds = (double)(g_get_monotonic_time() - start) / 1e6;
    return exp;
fail:
    insee_experiment_free(exp);
    return NULL;
}

static void fill_report_header(insee_experiment *exp)
{
    insee_report *rep = &exp->eng.report;
    rep->echo = insee_config_echo(exp->cfg);
    /* Where the figures go does not change them. */
    static const char *const outputs[] = {"stats", "plugins", "sweep", NULL};
    rep->params = insee_config_differs(exp->cfg, outputs);
    rep->seed = exp->eng.seed;
    GString *apps = g_string_new(NULL);
    for (uint32_t a = 0; a < rep->n_apps; a++)
        g_string_append_printf(apps, "%s%s", a ? "+" : "", rep->apps[a].plugins);
    rep->plugins = g_strdup_printf("%s/%s/%s/%s", exp->net[section_index("topology")].plugin->name,
                                   exp->net[section_index("router")].plugin->name,
                                   exp->net[section_index("arbiter")].plugin->name, apps->str);
    g_string_free(apps, TRUE);
    rep->nodes = exp->eng.net.nodes;
    rep->routers = exp->eng.net.routers;
    rep->packet_phits = exp->eng.packet_phits;
    /* The network's offered load: every application's, per node. */
    double offered = 0;
    for (uint32_t a = 0; a < rep->n_apps && offered >= 0; a++)
        offered = rep->apps[a].offered_load < 0
                      ? -1.0
                      : offered + rep->apps[a].offered_load * rep->apps[a].tasks;
    rep->offered_load = offered < 0 ? -1.0 : offered / rep->nodes;
}

/* An output path, checked before the run so a bad one costs no simulated
   time; a configuration error, like any other bad value. */
static gboolean check_output(const insee_experiment *exp, int key, const char *what, GError **err)
{
    const char *path = kernel_value(exp, "stats", key)->s;
    GError *e = NULL;
    if (!path || !*path ||
        (key == S_CSV ? insee_report_check_csv(path, &e) : insee_output_check(path, what, &e)))
        return TRUE;
    g_set_error_literal(err, INSEE_CONFIG_ERROR, INSEE_CONFIG_ERROR_INVALID, e->message);
    g_error_free(e);
    return FALSE;
}

static gboolean check_outputs(const insee_experiment *exp, GError **err)
{
    const char *csv = kernel_value(exp, "stats", S_CSV)->s;
    if (exp->engine == ENGINE_STATIC && *csv && !insee_flow_check_csv(csv, err))
        return FALSE;
    if (exp->engine == ENGINE_DYNAMIC && *csv && !insee_flow_dyn_check_csv(csv, err))
        return FALSE;
    return (exp->engine != ENGINE_PACKET || check_output(exp, S_CSV, "[stats] csv", err)) &&
           check_output(exp, S_JSON, "[stats] json", err) &&
           check_output(exp, S_TRACE, "[stats] trace", err);
}

/* Where the routers sit and where each port leads, for the JSON document:
   coordinates only for direct topologies (router r hosts node r). */
static insee_layout layout_of(const insee_experiment *exp)
{
    const insee_engine *eng = &exp->eng;
    const insee_net *net = &eng->net;
    insee_topology_info info = {0};
    eng->topo->info(eng->topo_self, &info);
    insee_layout lay = {.phit_bytes = eng->phit_bytes,
                        .ports = g_new0(insee_layout_port, net->ports_total)};
    if (info.dims && eng->topo->coords && !(info.flags & INSEE_TOPO_INDIRECT) &&
        net->routers == net->nodes) {
        lay.dims = info.dims;
        lay.router_coords = g_new0(int32_t, (size_t)net->routers * info.dims);
        for (uint32_t r = 0; r < net->routers; r++)
            eng->topo->coords(eng->topo_self, r, lay.router_coords + (size_t)r * info.dims,
                              info.dims);
    }
    for (uint32_t gp = 0; gp < net->ports_total; gp++) {
        insee_hop hop = port_hop(eng, gp);
        lay.ports[gp] = (insee_layout_port){.to = insee_net_next_router(net, gp), .dim = hop.dim,
                                            .dir = hop.dir,
                                            .wrap = (hop.flags & INSEE_HOP_WRAP) != 0};
    }
    return lay;
}

/* The trace's temporary is created when the run starts, so an experiment
   built but not run leaves nothing behind. */
static gboolean start_trace(insee_experiment *exp, GError **err)
{
    const insee_value *v = exp->net[section_index("stats")].kernel;
    if (!*v[S_TRACE].s)
        return TRUE;
    if (exp->eng.variable_packets) { /* its format gives every packet one length */
        g_set_error(err, INSEE_CONFIG_ERROR, INSEE_CONFIG_ERROR_INVALID,
                    "[stats] trace records packets of one length, but [network] mtu_bytes makes "
                    "their lengths vary: remove one of them");
        return FALSE;
    }
    if (exp->output_phits) { /* its phit view reads a packet in its input buffer to the end */
        g_set_error(err, INSEE_CONFIG_ERROR, INSEE_CONFIG_ERROR_INVALID,
                    "[stats] trace's phit view keeps a packet in its input buffer until its "
                    "link has carried it, but [network] output_buffer_bytes moves it on "
                    "sooner: remove one of them");
        return FALSE;
    }
    insee_trace_options opt = {
        .path = v[S_TRACE].s,
        .ids = v[S_TRACE_PACKETS].list,
        .n_ids = v[S_TRACE_PACKETS].list_len,
        .from = (uint64_t)v[S_TRACE_FROM].i,
        .until = (uint64_t)v[S_TRACE_UNTIL].i,
        .max_bytes = (uint64_t)(v[S_TRACE_MAX_MB].d * 1048576.0),
    };
    exp->trace = insee_trace_open(&opt, &exp->eng.net, exp->eng.packet_phits, err);
    exp->eng.stats.trace = exp->trace;
    return exp->trace != NULL;
}

/* What a flow engine borrows of what the experiment built: the network,
   the router or path routing, the placed tasks and their traffic. `apps`
   is the caller's to free. */
static insee_flow_setup flow_setup(insee_experiment *exp, insee_flow_app **apps)
{
    const insee_engine *eng = &exp->eng;
    const instance *routing = &exp->net[section_index("routing")];
    const instance *paths = routing->plugin ? routing : &exp->net[section_index("router")];
    const insee_workload *wl = &eng->wl;
    *apps = g_new(insee_flow_app, wl->n_apps);
    GString *names = g_string_new(NULL);
    g_string_printf(names, "%s/%s/", exp->net[section_index("topology")].plugin->name,
                    paths->plugin->name);
    for (uint32_t a = 0; a < wl->n_apps; a++) {
        (*apps)[a] = (insee_flow_app){.plugin = app_at(exp, a)->traffic.plugin->name,
                                      .traffic = wl->apps[a].traffic, .self = wl->apps[a].self,
                                      .first_task = wl->apps[a].first_task,
                                      .tasks = wl->apps[a].tasks,
                                      .causal = wl->apps[a].causal,
                                      .abi_minor = app_at(exp, a)->traffic.plugin->desc->abi_minor,
                                      .io = wl->apps[a].io, .job = wl->apps[a].job,
                                      .runtime = app_at(exp, a)->runtime};
        g_string_append_printf(names, "%s%s", a ? "+" : "", (*apps)[a].plugin);
    }
    exp->flow_plugins = g_string_free(names, FALSE);
    insee_topology_info info = {0};
    eng->topo->info(eng->topo_self, &info);
    uint32_t props = router_properties(eng);
    uint32_t threads = (uint32_t)kernel_value(exp, "simulation", SIM_THREADS)->i;
    return (insee_flow_setup){
        .net = &eng->net, .router_name = paths->plugin->name, .router = eng->router,
        .router_self = eng->router_self,
        .routing = routing->plugin ? routing->plugin->vtable : NULL,
        .routing_self = routing->self, .pstate_size = eng->net.pstate_size,
        .rstate_size = eng->rstate_size, .apps = *apps, .n_apps = wl->n_apps,
        .task_node = wl->task_node, .seed = eng->seed,
        .rounds = (uint32_t)kernel_value(exp, "flow", F_ROUNDS)->i, .sched = wl->sched,
        .threads = threads ? threads : run_cores(exp),
        .concurrent = !routing->plugin && (props & INSEE_ROUTE_CONCURRENT) &&
                      (info.flags & INSEE_TOPO_CONCURRENT),
    };
}

static gboolean run_static(insee_experiment *exp, GError **err)
{
    insee_flow_app *apps;
    insee_flow_setup setup = flow_setup(exp, &apps);
    gboolean ok = insee_flow_static_run(&setup, &exp->flow, err);
    exp->flow.failed_cables = exp->eng.net.failed_cables;
    exp->flow.connected_pairs = insee_net_connected_pairs(&exp->eng.net);
    g_free(apps);
    return ok;
}

/* [faults]' figures among the kernel's own: the printed report, the JSON
   figures and the CSV's plugin_figures field. */
static void report_faults(insee_experiment *exp)
{
    const insee_net *net = &exp->eng.net;
    insee_report *rep = &exp->eng.report;
    if (!net->failed)
        return;
    insee_report_set_figure(rep, "faults", "failed_cables", net->failed_cables, "cables");
    insee_report_set_figure(rep, "faults", "connected_pairs",
                            (double)insee_net_connected_pairs(net), "pairs");
    insee_report_set_figure(rep, "faults", "unroutable_packets", (double)exp->eng.dropped_failed,
                            "packets");
}

/* Bytes per second of every link the flow engines number (flow/paths.h):
   a network port's by its dimension or level when [flow] dim_gbps gives
   one, else link_gbps; a node's links node_gbps. */
static double *link_capacities(const insee_experiment *exp)
{
    const insee_engine *eng = &exp->eng;
    const insee_net *net = &eng->net;
    double link = kernel_value(exp, "flow", F_LINK_GBPS)->d * 1e9 / 8;
    double node = kernel_value(exp, "flow", F_NODE_GBPS)->d * 1e9 / 8;
    const insee_value *dims = kernel_value(exp, "flow", F_DIM_GBPS);
    double *cap = g_new(double, insee_flow_links(net));
    for (uint32_t gp = 0; gp < net->ports_total; gp++) {
        insee_hop hop = port_hop(eng, gp);
        cap[gp] = hop.dim >= 0 && (size_t)hop.dim < dims->list_len && dims->list[hop.dim] > 0
                      ? (double)dims->list[hop.dim] * 1e9 / 8
                      : link;
    }
    for (uint32_t l = net->ports_total; l < insee_flow_links(net); l++)
        cap[l] = node > 0 ? node : link;
    return cap;
}

static void dynamic_wake(void *ctx, uint32_t app, uint32_t task, uint64_t at)
{
    insee_flow_dynamic_wake(ctx, app, task, at);
}

static gboolean run_dynamic(insee_experiment *exp, GError **err)
{
    insee_engine *eng = &exp->eng;
    insee_flow_app *apps;
    insee_flow_setup setup = flow_setup(exp, &apps);
    double *capacity = link_capacities(exp);
    insee_flow_dyn_options opt = {
        .capacity = capacity,
        .cycle_s = kernel_value(exp, "flow", F_CYCLE_NS)->d * 1e-9,
        .max_outstanding = (uint32_t)kernel_value(exp, "flow", F_MAX_OUTSTANDING)->i,
        .rule = (insee_share_rule)kernel_value(exp, "flow", F_SHARING)->i,
        .policy = (insee_share_policy)kernel_value(exp, "flow", F_PRIORITY)->i,
        .app_share = kernel_value(exp, "flow", F_APP_SHARE)->d,
        .packet_bytes = (uint64_t)eng->packet_phits * eng->phit_bytes,
        .series = (uint32_t)kernel_value(exp, "flow", F_SERIES)->i,
        .busiest = (uint32_t)kernel_value(exp, "flow", F_BUSIEST)->i,
        .link_series = (uint32_t)kernel_value(exp, "flow", F_LINK_SERIES)->i,
        .stop = eng->stop,
    };
    insee_storage_config storage;
    opt.storage = storage_config(exp, &storage);
    insee_flow_dynamic *d = insee_flow_dynamic_new(&setup, &opt, err);
    gboolean ok = d != NULL;
    if (ok) {
        eng->wl.flow_wake = dynamic_wake;
        eng->wl.flow_ctx = d;
        ok = insee_flow_dynamic_run(d, &exp->dyn, err);
        if (ok && eng->wl.sched)
            insee_sched_report(eng->wl.sched, &eng->report, "s", eng->wl.bsld_min);
        exp->dyn.failed_cables = eng->net.failed_cables;
        exp->dyn.connected_pairs = insee_net_connected_pairs(&eng->net);
        eng->wl.flow_wake = NULL;
        eng->report.interrupted = exp->dyn.interrupted;
    }
    insee_flow_dynamic_free(d);
    g_free(capacity);
    g_free(apps);
    return ok;
}

/* A flow run's report; app_names (dynamic) is the caller's to free with
   g_free (the names are the experiment's). */
static insee_flow_run flow_run_of(const insee_experiment *exp, const char ***app_names)
{
    *app_names = g_new(const char *, exp->apps->len);
    for (guint a = 0; a < exp->apps->len; a++)
        (*app_names)[a] = app_at(exp, a)->name;
    return (insee_flow_run){
        .rep = &exp->flow, .dyn = &exp->dyn, .net = &exp->eng.net, .app_names = *app_names,
        .echo = exp->eng.report.echo, .plugins = exp->flow_plugins,
        .jobs = exp->eng.report.sched ? &exp->eng.report : NULL,
        .nodes = exp->eng.net.nodes, .routers = exp->eng.net.routers,
        .rounds = (uint32_t)kernel_value(exp, "flow", F_ROUNDS)->i, .seed = exp->eng.seed,
    };
}

void insee_experiment_print(const insee_experiment *exp, FILE *out)
{
    if (exp->engine == ENGINE_PACKET) {
        insee_report_print(&exp->eng.report, out);
        return;
    }
    const char **names;
    insee_flow_run run = flow_run_of(exp, &names);
    if (exp->engine == ENGINE_STATIC)
        insee_flow_print(&run, out);
    else
        insee_flow_dyn_print(&run, out);
    g_free(names);
}

/* A part of a run split over threads, besides the first (the caller's own
   experiment, on the calling thread). */
typedef struct split_part {
    insee_experiment *exp;
    insee_config *cfg;
    insee_transport t;
    GThread *thread;
    volatile gint *go;  /* 1: run, -1: the run was abandoned; 0 while parts start */
    gboolean ok;
    GError *err;
} split_part;

static gpointer split_part_main(gpointer data)
{
    split_part *sp = data;
    gint go;
    while ((go = g_atomic_int_get(sp->go)) == 0)
        g_thread_yield();
    if (go > 0)
        sp->ok = insee_engine_run(&sp->exp->eng, &sp->err);
    return NULL;
}

/* An experiment as one part of a split run: on its transport, one thread
   its own. */
static void set_split_part(insee_experiment *exp, split_part *sp)
{
    exp->eng.transport = &sp->t;
    exp->eng.threads = 1;
    exp->eng.report.parts_on_threads = TRUE; /* its messages speak of threads */
}

/* The run split into eng.split_parts parts, each a copy of the experiment
   built from a copy of its configuration, on threads of this process; the
   parts meet as mpirun's ranks do (partition.h), and this experiment,
   part 0, ends with every part's figures. No part starts before every
   thread has. */
static gboolean run_split(insee_experiment *exp, GError **err)
{
    gint64 start = g_get_monotonic_time();
    uint32_t parts = exp->eng.split_parts;
    insee_siblings *meet = insee_siblings_new(parts);
    split_part *sp = g_new0(split_part, parts);
    volatile gint go = 0;
    gboolean ok = TRUE;
    for (uint32_t p = 0; p < parts; p++) {
        sp[p].t = insee_siblings_transport(meet, p);
        sp[p].go = &go;
    }
    set_split_part(exp, &sp[0]);
    for (uint32_t p = 1; p < parts && ok; p++) {
        sp[p].cfg = insee_config_copy(exp->cfg);
        sp[p].exp = experiment_new(sp[p].cfg, exp->reg, FALSE, err);
        ok = sp[p].exp != NULL;
        if (ok) {
            fill_report_header(sp[p].exp);
            set_split_part(sp[p].exp, &sp[p]);
            /* The same document by construction; but what the caller bound
               in part 0's configuration alone ([plugins]) is echoed there
               only, and the parts' fingerprints compare echoes. */
            g_free(sp[p].exp->eng.report.echo);
            sp[p].exp->eng.report.echo = g_strdup(exp->eng.report.echo);
        }
    }
    for (uint32_t p = 1; p < parts && ok; p++) {
        sp[p].thread = g_thread_try_new("insee-part", split_part_main, &sp[p], err);
        ok = sp[p].thread != NULL;
    }
    exp->eng.report.setup_seconds += (double)(g_get_monotonic_time() - start) / 1e6;
    g_atomic_int_set(&go, ok ? 1 : -1);
    if (ok)
        ok = insee_engine_run(&exp->eng, err);
    /* Every part fails when one does, the others saying only that it
       failed: the run's error is the first failing part's own. */
    uint32_t first = insee_partition_first_failed(exp->eng.part);
    for (uint32_t p = 1; p < parts; p++) {
        if (sp[p].thread)
            g_thread_join(sp[p].thread);
        if (p == first && sp[p].err)
            g_clear_error(err);
        if ((p == first || ok) && sp[p].err && !(err && *err)) {
            g_propagate_prefixed_error(err, g_steal_pointer(&sp[p].err), "part %u of the run: ",
                                       p);
            ok = FALSE;
        }
        g_clear_error(&sp[p].err);
        insee_experiment_free(sp[p].exp);
        insee_config_free(sp[p].cfg);
    }
    exp->eng.transport = NULL; /* sp[0]'s, gone with the siblings */
    g_free(sp);
    insee_siblings_free(meet);
    return ok;
}

gboolean insee_experiment_run(insee_experiment *exp, GError **err)
{
    g_return_val_if_fail(!exp->ran && (exp->eng.router || exp->engine != ENGINE_PACKET), FALSE);
    if (!check_outputs(exp, err) || !start_trace(exp, err))
        return FALSE;
    exp->ran = TRUE;
    if (exp->engine != ENGINE_PACKET) {
        exp->eng.report.echo = insee_config_echo(exp->cfg);
        return exp->engine == ENGINE_STATIC ? run_static(exp, err) : run_dynamic(exp, err);
    }
    fill_report_header(exp);
    gboolean ok = exp->eng.split_parts > 1 && !exp->eng.transport ? run_split(exp, err)
                                                                   : insee_engine_run(&exp->eng, err);
    report_faults(exp);
    if (exp->trace) {
        insee_report *rep = &exp->eng.report;
        rep->traced = TRUE;
        rep->trace_events = insee_trace_events(exp->trace);
        rep->trace_truncated = insee_trace_truncated(exp->trace, &rep->trace_truncated_at);
    }
    return ok;
}

gboolean insee_experiment_packet_engine(const insee_experiment *exp)
{
    return exp->engine == ENGINE_PACKET;
}

gboolean insee_experiment_write_outputs(const insee_experiment *exp, GError **err)
{
    const insee_report *rep = &exp->eng.report;
    const char *csv = kernel_value(exp, "stats", S_CSV)->s;
    const char *json = kernel_value(exp, "stats", S_JSON)->s;
    if (rep->interrupted) {
        g_set_error(err, INSEE_EXPERIMENT_ERROR, INSEE_EXPERIMENT_ERROR_SIMULATION,
                    "the run was interrupted: its figures are partial, so no output file was "
                    "written");
        return FALSE;
    }
    if (exp->engine != ENGINE_PACKET) {
        const char **names;
        insee_flow_run run = flow_run_of(exp, &names);
        gboolean ok = exp->engine == ENGINE_STATIC
                          ? (!*csv || insee_flow_append_csv(&run, csv, err)) &&
                                (!*json || insee_flow_write_json(&run, json, err))
                          : (!*csv || insee_flow_dyn_append_csv(&run, csv, err)) &&
                                (!*json || insee_flow_dyn_write_json(&run, json, err));
        g_free(names);
        return ok;
    }
    /* The trace first: it took the whole run to write. */
    if (exp->trace && !insee_trace_commit(exp->trace, err))
        return FALSE;
    if (csv && *csv && !insee_report_append_csv(rep, csv, err))
        return FALSE;
    if (!json || !*json)
        return TRUE;
    insee_layout lay = layout_of(exp);
    gboolean ok = insee_json_write(json, rep, &exp->eng.stats, &exp->eng.net, &lay, err);
    g_free(lay.router_coords);
    g_free(lay.ports);
    return ok;
}

void insee_experiment_set_stop(insee_experiment *exp, const volatile int *stop)
{
    exp->eng.stop = stop;
}

gboolean insee_experiment_set_partition(insee_experiment *exp, const insee_transport *t,
                                        GError **err)
{
    if (exp->engine != ENGINE_PACKET) {
        g_set_error(err, INSEE_CONFIG_ERROR, INSEE_CONFIG_ERROR_INVALID,
                    "[simulation] engine: only the packet engine splits a run over mpirun's "
                    "ranks; run a flow engine without mpirun (insee run), or spread a sweep "
                    "of them (mpirun insee sweep)");
        return FALSE;
    }
    if (traced(exp)) {
        g_set_error(err, INSEE_CONFIG_ERROR, INSEE_CONFIG_ERROR_INVALID,
                    "[stats] trace: the packet trace is written by one process; run without "
                    "mpirun (insee run) to trace");
        return FALSE;
    }
    if (!insee_partition_check(&exp->eng, router_properties(&exp->eng), t, err))
        return FALSE;
    /* mpirun puts a rank on each core it is given: a rank's own crew would
       spin on cores its neighbours need. */
    if (kernel_value(exp, "simulation", SIM_THREADS)->i == 0)
        exp->eng.threads = 1;
    exp->eng.transport = t;
    return TRUE;
}

insee_experiment *insee_experiment_new(insee_config *cfg, const insee_registry *reg,
                                       GError **err)
{
    return experiment_new(cfg, reg, FALSE, err);
}

insee_experiment *insee_experiment_new_topology(insee_config *cfg, const insee_registry *reg,
                                                GError **err)
{
    return experiment_new(cfg, reg, TRUE, err);
}

const insee_net *insee_experiment_network(const insee_experiment *exp)
{
    return &exp->eng.net;
}

insee_engine *insee_experiment_engine(insee_experiment *exp)
{
    return &exp->eng;
}

insee_workload *insee_experiment_workload(insee_experiment *exp)
{
    return &exp->eng.wl;
}

const insee_topology_vtable *insee_experiment_topology(const insee_experiment *exp, void **self)
{
    *self = exp->eng.topo_self;
    return exp->eng.topo;
}

const insee_flow_report *insee_experiment_flow_report(const insee_experiment *exp)
{
    return exp->engine == ENGINE_STATIC ? &exp->flow : NULL;
}

const insee_flow_dyn_report *insee_experiment_dyn_report(const insee_experiment *exp)
{
    return exp->engine == ENGINE_DYNAMIC ? &exp->dyn : NULL;
}

const insee_report *insee_experiment_report(const insee_experiment *exp)
{
    return &exp->eng.report;
}

uint32_t insee_experiment_thread_parts(const insee_experiment *exp)
{
    return exp->eng.transport ? 1 : exp->eng.split_parts;
}

void insee_experiment_free(insee_experiment *exp)
{
    if (!exp)
        return;
    /* Destroy in reverse creation order: traffic may hold the placement's
       view, the router the topology's. */
    for (guint a = exp->apps->len; a-- > 0;) {
        destroy_instance(&app_at(exp, a)->traffic);
        destroy_instance(&app_at(exp, a)->placement);
    }
    insee_bridge_app_free(exp->eng.wl.bridge);
    insee_sched_free(exp->eng.wl.sched);
    g_free(exp->job_app);
    destroy_instance(&exp->alloc);
    destroy_instance(&exp->sel);
    for (guint i = N_SECTIONS; i-- > 0;)
        destroy_instance(&exp->net[i]);
    g_array_unref(exp->apps);
    insee_trace_free(exp->trace); /* removed unless the outputs were written */
    g_free(exp->eng.wl.apps);
    insee_flow_report_clear(&exp->flow);
    insee_flow_dyn_report_clear(&exp->dyn);
    g_free(exp->flow_plugins);
    insee_engine_clear(&exp->eng);
    insee_report_clear(&exp->eng.report);
    g_free(exp);
}
