/* kernel/engine/experiment.h — one experiment: plugins instantiated from a
 * configuration, the network built, the time loop run, the report filled.
 *
 * Contract
 * --------
 * insee_experiment_new() resolves every section's plugin in the registry,
 * validates each section against the kernel's keys and the plugin's table,
 * creates the instances (topology first, then router, arbiter, placement,
 * traffic) and builds the network. insee_experiment_run() runs warm-up,
 * measurement and drain and fills the report. The experiment borrows the
 * config and the registry (both must outlive it) and owns everything else.
 * Errors are GErrors in INSEE_EXPERIMENT_ERROR, or INSEE_CONFIG_ERROR for
 * configuration problems found while binding.
 */
#ifndef INSEE_KERNEL_EXPERIMENT_H
#define INSEE_KERNEL_EXPERIMENT_H

#include <glib.h>
#include <stdio.h>

#include "config/config.h"
#include "net/network.h"
#include "plugin/registry.h"
#include "stats/report.h"

G_BEGIN_DECLS

#define INSEE_EXPERIMENT_ERROR (insee_experiment_error_quark())
GQuark insee_experiment_error_quark(void);
typedef enum {
    INSEE_EXPERIMENT_ERROR_PLUGIN,     /* a configured plugin is missing or refused */
    INSEE_EXPERIMENT_ERROR_SETUP,      /* a plugin's create() failed, or plugins do not fit */
    INSEE_EXPERIMENT_ERROR_SIMULATION, /* a plugin misbehaved while running */
} InseeExperimentError;

/* A run's simulation error, as the engine and the workload record it:
   "cycle N: " and the message (printf-style, from `ap`). */
GError *insee_simulation_error(uint64_t cycle, const char *fmt, va_list ap)
    G_GNUC_PRINTF(2, 0);

typedef struct insee_experiment insee_experiment;

insee_experiment *insee_experiment_new(insee_config *cfg, const insee_registry *reg,
                                       GError **err);
gboolean insee_experiment_run(insee_experiment *exp, GError **err);
/* Only the topology: bind the whole config, create the topology plugin and
   build the network, nothing else (insee topology). Not runnable. */
insee_experiment *insee_experiment_new_topology(insee_config *cfg, const insee_registry *reg,
                                                GError **err);
/* The network built from the topology (valid until insee_experiment_free). */
const insee_net *insee_experiment_network(const insee_experiment *exp);
/* The engine, before or after the run (valid until insee_experiment_free):
   for tests that drive one room of the kernel directly. */
struct insee_engine *insee_experiment_engine(insee_experiment *exp);
/* Its workload room (valid until insee_experiment_free), for insee trace
   export, which records a run's messages and names its applications. */
struct insee_workload *insee_experiment_workload(insee_experiment *exp);
/* The topology plugin's table and instance (valid until insee_experiment_free),
   for what `insee topology` asks it: its claimed diameter, its own routes. */
const insee_topology_vtable *insee_experiment_topology(const insee_experiment *exp, void **self);
/* The files the configuration asks for ([stats] trace, csv and json), from the
   report of a successful run; each is replaced whole or left as it was.
   Separate from the run so that a failed output never hides the report. An
   interrupted run writes nothing and says so. */
gboolean insee_experiment_write_outputs(const insee_experiment *exp, GError **err);
/* While *stop is non-zero the run stops at the next cycle, its report
   marked interrupted (the CLI's SIGINT handler sets it). NULL: never. */
void insee_experiment_set_stop(insee_experiment *exp, const volatile int *stop);
/* Split the run over mpirun's ranks (engine/partition.h), `t` outliving
   the run: FALSE (nothing changed) when it is not a packet-engine run
   that can be split, saying why. */
struct insee_transport;
gboolean insee_experiment_set_partition(insee_experiment *exp, const struct insee_transport *t,
                                        GError **err);
/* The human report of a successful run: the packet engine's
   (insee_report_print) or a flow engine's (flow/output.h). */
void insee_experiment_print(const insee_experiment *exp, FILE *out);
/* The static flow engine's figures, valid after a successful run of
   engine = "static"; NULL for another engine. */
const struct insee_flow_report *insee_experiment_flow_report(const insee_experiment *exp);
/* The same for engine = "dynamic". */
const struct insee_flow_dyn_report *insee_experiment_dyn_report(const insee_experiment *exp);
/* Whether it runs the packet engine ([simulation] engine = "packet"). */
gboolean insee_experiment_packet_engine(const insee_experiment *exp);
/* Valid after a successful run; owned by the experiment. */
const insee_report *insee_experiment_report(const insee_experiment *exp);
/* The parts [simulation] threads splits the run into, each on a thread of
   this process (1: not split so; a run over mpirun's ranks is not). */
uint32_t insee_experiment_thread_parts(const insee_experiment *exp);
void insee_experiment_free(insee_experiment *exp);

/* Of `cores`, those no other process is running on now, by `loadavg`
   (the text of /proc/loadavg: its fourth field counts the tasks running,
   the caller among them); at least 1, and all of them when the text says
   nothing. What [simulation] threads = 0 takes without INSEE_CORES. */
uint32_t insee_experiment_cores_free(const char *loadavg, uint32_t cores);

/* The [plugins] dirs of a configuration (validated), for the discovery order;
   *dirs is a NULL-terminated g_strfreev() list; callers skip empty entries. */
gboolean insee_experiment_plugin_dirs(insee_config *cfg, char ***dirs, GError **err);

/* The [sweep] table of a configuration (validated, defaults applied) for
   `insee sweep`: one value per key, in this order; owned by cfg. */
enum { INSEE_SWEEP_VARY, INSEE_SWEEP_SEEDS, INSEE_SWEEP_JOBS, INSEE_SWEEP_OUTPUT,
       INSEE_SWEEP_SUMMARY, INSEE_SWEEP_STOP_AT_SATURATION, INSEE_SWEEP_SATURATION_TOLERANCE,
       INSEE_SWEEP_LATENCY_BOUND };
gboolean insee_experiment_sweep(insee_config *cfg, const insee_value **values, GError **err);

/* The embedded default experiment (8x8 torus, uniform traffic). */
extern const char insee_default_experiment[];

G_END_DECLS
#endif
