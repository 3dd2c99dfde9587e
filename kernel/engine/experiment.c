/* kernel/engine/experiment.c — from a validated configuration to a running
 * engine: resolve each kind's plugin, bind its section (the kernel's keys,
 * then the plugin's), create the instances in dependency order, build the
 * network and place the tasks. */
#include "engine/experiment.h"

#include <string.h>

#include "engine/engine.h"
#include "stats/output.h"

G_DEFINE_QUARK(insee-experiment-error-quark, insee_experiment_error)

/* Only what differs from the defaults, so that `--set topology.plugin=...`
   does not inherit keys the other plugin lacks. */
const char insee_default_experiment[] =
    "# The embedded default experiment: an 8x8 torus under uniform traffic.\n"
    "[simulation]\n"
    "seed = 1\n"
    "warmup = 5000\n"
    "cycles = 20000\n"
    "[topology]\n"
    "plugin = \"torus\"  # its default dims: [8, 8]\n"
    "[router]\n"
    "plugin = \"bubble\"  # INSEE's default: smart mode, 2 VCs\n"
    "[traffic]\n"
    "plugin = \"uniform\"\n"
    "load = 0.3\n";

/* Kernel-owned keys, validated like any plugin's. */
enum { SIM_SEED, SIM_WARMUP, SIM_CYCLES, SIM_DRAIN, SIM_PACKET_PHITS, SIM_PHIT_BYTES,
       SIM_DEADLOCK };
static const insee_param_def simulation_params[] = {
    {"seed", INSEE_PARAM_INT, "1", 0, 9007199254740991.0, NULL, NULL,
     "seed of every random stream; same seed and config, same results"},
    {"warmup", INSEE_PARAM_INT, "5000", 0, 1e15, NULL, "cycles", "cycles before measuring"},
    {"cycles", INSEE_PARAM_INT, "20000", 1, 1e15, NULL, "cycles", "measured cycles"},
    {"drain", INSEE_PARAM_INT, "200000", 0, 1e15, NULL, "cycles",
     "at most this many cycles to deliver what is in flight once generation stops"},
    {"packet_phits", INSEE_PARAM_INT, "16", 1, 65535, NULL, "phits", "packet length"},
    {"phit_bytes", INSEE_PARAM_INT, "4", 1, 1048576, NULL, "bytes", "phit size"},
    {"deadlock_cycles", INSEE_PARAM_INT, "10000", 0, 1e15, NULL, "cycles",
     "end the run with a diagnosis when packets are in the network and none has moved "
     "for this long (0: never)"},
    {0},
};

enum { R_VCS, R_QUEUE, R_INJECT, R_INJECTORS, R_INJECTION, R_CONSUMPTION, R_IPR, R_GCC,
       R_GCC_PERIOD };
static const insee_param_def router_params[] = {
    {"vcs", INSEE_PARAM_INT, "2", 1, 64, NULL, NULL, "virtual channels per port"},
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
    {0},
};

enum { T_ON_FULL };
static const insee_param_def traffic_params[] = {
    {"on_full", INSEE_PARAM_ENUM, "\"throttle\"", 1, 0, "throttle|drop", NULL,
     "when the injection queue is full: the source waits, or the packet is dropped"},
    {0},
};

enum { S_CSV };
static const insee_param_def stats_params[] = {
    {"csv", INSEE_PARAM_STRING, "\"\"", 1, 0, NULL, NULL,
     "append one row per run to this CSV file (empty: none)"},
    {0},
};

static const insee_param_def plugins_params[] = {
    {"dirs", INSEE_PARAM_STRING, "\"\"", 1, 0, NULL, NULL,
     "extra plugin directories, ':'-separated, searched after --plugin-dir"},
    {0},
};

typedef struct section {
    const char *name;
    insee_kind kind;             /* 0: kernel-only section */
    const char *default_plugin;
    const insee_param_def *kernel_params;
} section;

/* In creation order: the topology first (it shapes the network), traffic
   last (it may ask for the shape and the placement). */
static const section sections[] = {
    {"simulation", 0, NULL, simulation_params},
    {"stats", 0, NULL, stats_params},
    {"plugins", 0, NULL, plugins_params},
    {"topology", INSEE_KIND_TOPOLOGY, "torus", NULL},
    {"router", INSEE_KIND_ROUTER, "bubble", router_params},
    {"arbiter", INSEE_KIND_ARBITER, "round-robin", NULL},
    {"placement", INSEE_KIND_PLACEMENT, "consecutive", NULL},
    {"traffic", INSEE_KIND_TRAFFIC, "uniform", traffic_params},
};
#define N_SECTIONS G_N_ELEMENTS(sections)

struct insee_experiment {
    insee_config *cfg;
    const insee_registry *reg;
    insee_value *kernel_values[N_SECTIONS];
    const insee_plugin *plugin[N_SECTIONS];
    const insee_value *values[N_SECTIONS]; /* the plugin's bound parameters */
    void *self[N_SECTIONS];
    struct insee_kernel kctx[N_SECTIONS];
    insee_host host[N_SECTIONS];
    insee_shape shape;
    insee_engine eng;
    gboolean ran;
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
    return &exp->kernel_values[section_index(section)][key];
}

/* Why no usable plugin of that kind and name: refused (with the reason), or
   absent (with the names there are). */
static void explain_missing(const insee_registry *reg, const section *sec, const char *name,
                            GError **err)
{
    const GPtrArray *all = insee_registry_plugins(reg);
    GString *names = g_string_new(NULL);
    for (guint i = 0; i < all->len; i++) {
        const insee_plugin *p = g_ptr_array_index(all, i);
        if (p->refused && p->name && strcmp(p->name, name) == 0 && p->kind == sec->kind) {
            g_set_error(err, INSEE_EXPERIMENT_ERROR, INSEE_EXPERIMENT_ERROR_PLUGIN,
                        "[%s] plugin = \"%s\": %s was refused: %s", sec->name, name, p->path,
                        p->reason);
            g_string_free(names, TRUE);
            return;
        }
        if (!p->refused && p->kind == sec->kind)
            g_string_append_printf(names, "%s%s", names->len ? ", " : "", p->name);
    }
    g_set_error(err, INSEE_EXPERIMENT_ERROR, INSEE_EXPERIMENT_ERROR_PLUGIN,
                "[%s] plugin = \"%s\": no %s plugin of that name was found (available: %s); "
                "add its directory with --plugin-dir or see `insee plugins list`",
                sec->name, name, insee_kind_name(sec->kind), names->len ? names->str : "none");
    g_string_free(names, TRUE);
}

static gboolean bind_sections(insee_experiment *exp, GError **err)
{
    const char *known[N_SECTIONS + 1];
    for (guint i = 0; i < N_SECTIONS; i++)
        known[i] = sections[i].name;
    known[N_SECTIONS] = NULL;
    if (!insee_config_check_sections(exp->cfg, known, err))
        return FALSE;

    for (guint i = 0; i < N_SECTIONS; i++) {
        const section *sec = &sections[i];
        if (sec->kernel_params == plugins_params)
            continue; /* bound before the registry scan: insee_experiment_plugin_dirs() */
        insee_binding b[2] = {{sec->kernel_params, "the kernel", NULL}, {0}};
        size_t nb = sec->kernel_params ? 1 : 0;
        char *owner = NULL;
        if (sec->kind) {
            const char *name = NULL;
            if (!insee_config_plugin_name(exp->cfg, sec->name, sec->default_plugin, &name, err))
                return FALSE;
            exp->plugin[i] = insee_registry_find(exp->reg, sec->kind, name);
            if (!exp->plugin[i]) {
                explain_missing(exp->reg, sec, name, err);
                return FALSE;
            }
            owner = g_strdup_printf("%s plugin '%s'", sec->name, name);
            b[nb++] = (insee_binding){exp->plugin[i]->desc->params, owner, NULL};
        }
        gboolean ok = nb == 0 || insee_config_bind(exp->cfg, sec->name, b, nb, err);
        g_free(owner);
        if (!ok)
            return FALSE;
        exp->kernel_values[i] = sec->kernel_params ? b[0].values : NULL;
        if (sec->kind)
            exp->values[i] = b[nb - 1].values;
    }
    return TRUE;
}

gboolean insee_experiment_plugin_dirs(insee_config *cfg, char ***dirs, GError **err)
{
    insee_binding b = {plugins_params, "the kernel", NULL};
    if (!insee_config_bind(cfg, "plugins", &b, 1, err))
        return FALSE;
    *dirs = g_strsplit(b.values[0].s ? b.values[0].s : "", ":", -1);
    return TRUE;
}

static gboolean create_one(insee_experiment *exp, guint i, GError **err)
{
    const insee_plugin *p = exp->plugin[i];
    exp->kctx[i] = (struct insee_kernel){.eng = &exp->eng, .kind = sections[i].kind,
                                         .shape = &exp->shape};
    insee_host_init(&exp->host[i], &exp->kctx[i]);
    insee_error perr = {0};
    /* Every vtable starts with size then create: read create generically. */
    const insee_topology_vtable *generic = p->vtable;
    exp->self[i] = generic->create(&exp->host[i], exp->values[i], &perr);
    if (!exp->self[i]) {
        g_set_error(err, INSEE_EXPERIMENT_ERROR, INSEE_EXPERIMENT_ERROR_SETUP,
                    "[%s] plugin '%s' (%s) could not start: %s", sections[i].name, p->name,
                    p->path, perr.code ? perr.message : "create() failed without a reason");
        return FALSE;
    }
    return TRUE;
}

static gboolean build_network(insee_experiment *exp, GError **err)
{
    int ti = section_index("topology");
    insee_engine *eng = &exp->eng;
    eng->topo = exp->plugin[ti]->vtable;
    eng->topo_self = exp->self[ti];
    const insee_value *rv = exp->kernel_values[section_index("router")];
    if (!insee_net_build(&eng->net, eng->topo, eng->topo_self, (uint32_t)rv[R_VCS].i,
                         (uint32_t)rv[R_QUEUE].i, (uint32_t)rv[R_INJECT].i,
                         (uint32_t)rv[R_INJECTORS].i, err))
        return FALSE;
    insee_topology_info info = {0};
    eng->topo->info(eng->topo_self, &info);
    exp->shape = (insee_shape){
        .routers = eng->net.routers,
        .nodes = eng->net.nodes,
        .max_ports = info.max_ports,
        .dims = info.dims,
        .vcs = eng->net.vcs,
        .queue_packets = eng->net.queue_packets,
        .inject_packets = eng->net.inject_packets,
        .injectors = eng->net.injectors,
        .packet_phits = eng->packet_phits,
        .tasks = eng->net.nodes,
    };
    return TRUE;
}

static gboolean place_tasks(insee_experiment *exp, GError **err)
{
    int pi = section_index("placement");
    insee_engine *eng = &exp->eng;
    const insee_placement_vtable *pv = exp->plugin[pi]->vtable;
    uint32_t nodes = eng->net.nodes, tasks = exp->shape.tasks;
    bool *available = g_new(bool, nodes);
    for (uint32_t n = 0; n < nodes; n++)
        available[n] = true;
    uint32_t *task_node = g_new(uint32_t, tasks);
    insee_rng rng;
    insee_rng_init(&rng, eng->seed, 5ull << 40);
    insee_error perr = {0};
    gboolean ok = pv->place(exp->self[pi], tasks, available, nodes, task_node, &rng, &perr);
    if (!ok) {
        g_set_error(err, INSEE_EXPERIMENT_ERROR, INSEE_EXPERIMENT_ERROR_SETUP,
                    "[placement] plugin '%s' could not place %u tasks on %u nodes: %s",
                    exp->plugin[pi]->name, tasks, nodes, perr.code ? perr.message : "no reason");
    }
    /* A bijection onto available nodes is the contract: check it, since the
       engine indexes with these values. */
    for (uint32_t t = 0; ok && t < tasks; t++) {
        if (task_node[t] >= nodes || !available[task_node[t]]) {
            g_set_error(err, INSEE_EXPERIMENT_ERROR, INSEE_EXPERIMENT_ERROR_SETUP,
                        "[placement] plugin '%s' put task %u on node %u, which is not an "
                        "available node (or used twice)", exp->plugin[pi]->name, t, task_node[t]);
            ok = FALSE;
            break;
        }
        available[task_node[t]] = false;
    }
    if (ok) {
        eng->tasks = tasks;
        insee_workload_init(eng, task_node);
    }
    g_free(available);
    g_free(task_node);
    return ok;
}

static void wire_engine(insee_experiment *exp)
{
    insee_engine *eng = &exp->eng;
    int ri = section_index("router"), ai = section_index("arbiter"), ti = section_index("traffic");
    eng->router = exp->plugin[ri]->vtable;
    eng->router_self = exp->self[ri];
    eng->arbiter = exp->plugin[ai]->vtable;
    eng->arbiter_self = exp->self[ai];
    eng->arb_stride = exp->plugin[ai]->desc->abi_minor >= 1 ? sizeof(insee_request)
                                                            : INSEE_REQUEST_SIZE_1_0;
    eng->traffic = exp->plugin[ti]->vtable;
    eng->traffic_self = exp->self[ti];
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
    insee_engine *eng = &exp->eng;
    if (!bind_sections(exp, err))
        goto fail;

    const insee_value *sv = exp->kernel_values[section_index("simulation")];
    eng->seed = (uint64_t)sv[SIM_SEED].i;
    eng->packet_phits = (uint32_t)sv[SIM_PACKET_PHITS].i;
    eng->phit_bytes = (uint32_t)sv[SIM_PHIT_BYTES].i;
    eng->window_start = (uint64_t)sv[SIM_WARMUP].i;
    eng->window_end = eng->window_start + (uint64_t)sv[SIM_CYCLES].i;
    eng->drain_limit = eng->window_end + (uint64_t)sv[SIM_DRAIN].i;
    eng->single_consumption = kernel_value(exp, "router", R_CONSUMPTION)->i == 1;
    eng->drop_on_full = kernel_value(exp, "traffic", T_ON_FULL)->i == 1;
    eng->injection = (insee_injection)kernel_value(exp, "router", R_INJECTION)->i;
    eng->deadlock_cycles = (uint64_t)sv[SIM_DEADLOCK].i;
    eng->ipr = kernel_value(exp, "router", R_IPR)->d;
    eng->gcc = kernel_value(exp, "router", R_GCC)->d;
    eng->gcc_period = (uint64_t)kernel_value(exp, "router", R_GCC_PERIOD)->i;

    for (guint i = 0; i < N_SECTIONS; i++) {
        if (!sections[i].kind)
            continue;
        if (!create_one(exp, i, err))
            goto fail;
        if (sections[i].kind == INSEE_KIND_TOPOLOGY) {
            if (!build_network(exp, err))
                goto fail;
            if (topology_only)
                return exp;
        }
        if (sections[i].kind == INSEE_KIND_ARBITER) {
            /* Router and arbiter exist: size their state before any packet. */
            wire_engine(exp);
            const insee_router_vtable *rv = eng->router;
            eng->net.pstate_size = insee_state_round(
                rv->packet_state_size ? rv->packet_state_size(eng->router_self) : 0);
            eng->rstate_size = insee_state_round(
                rv->router_state_size ? rv->router_state_size(eng->router_self) : 0);
            eng->astate_size = insee_state_round(
                eng->arbiter->state_size ? eng->arbiter->state_size(eng->arbiter_self) : 0);
        }
        if (sections[i].kind == INSEE_KIND_PLACEMENT && !place_tasks(exp, err))
            goto fail;
    }
    wire_engine(exp);
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
    rep->seed = exp->eng.seed;
    rep->plugins = g_strdup_printf("%s/%s/%s/%s/%s", exp->plugin[section_index("topology")]->name,
                                   exp->plugin[section_index("router")]->name,
                                   exp->plugin[section_index("arbiter")]->name,
                                   exp->plugin[section_index("placement")]->name,
                                   exp->plugin[section_index("traffic")]->name);
    rep->nodes = exp->eng.net.nodes;
    rep->routers = exp->eng.net.routers;
    rep->packet_phits = exp->eng.packet_phits;
    rep->warmup_cycles = exp->eng.window_start;
    rep->measure_cycles = exp->eng.window_end - exp->eng.window_start;
    const insee_traffic_vtable *tv = exp->eng.traffic;
    rep->offered_load = tv->offered_load ? tv->offered_load(exp->eng.traffic_self) : -1.0;
}

/* The output paths, checked before the run so a bad one costs no simulated
   time; a configuration error, like any other bad value. */
static gboolean check_outputs(const insee_experiment *exp, GError **err)
{
    const char *csv = kernel_value(exp, "stats", S_CSV)->s;
    GError *e = NULL;
    if (!csv || !*csv || insee_output_check(csv, "[stats] csv", &e))
        return TRUE;
    g_set_error_literal(err, INSEE_CONFIG_ERROR, INSEE_CONFIG_ERROR_INVALID, e->message);
    g_error_free(e);
    return FALSE;
}

gboolean insee_experiment_run(insee_experiment *exp, GError **err)
{
    g_return_val_if_fail(!exp->ran && exp->eng.router, FALSE);
    if (!check_outputs(exp, err))
        return FALSE;
    exp->ran = TRUE;
    fill_report_header(exp);
    return insee_engine_run(&exp->eng, err);
}

gboolean insee_experiment_write_outputs(const insee_experiment *exp, GError **err)
{
    const char *csv = kernel_value(exp, "stats", S_CSV)->s;
    return !csv || !*csv || insee_report_append_csv(&exp->eng.report, csv, err);
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

uint32_t insee_experiment_claimed_diameter(const insee_experiment *exp)
{
    insee_topology_info info = {0};
    exp->eng.topo->info(exp->eng.topo_self, &info);
    return info.diameter;
}

const insee_report *insee_experiment_report(const insee_experiment *exp)
{
    return &exp->eng.report;
}

void insee_experiment_free(insee_experiment *exp)
{
    if (!exp)
        return;
    /* Destroy in reverse creation order: traffic may hold the placement's
       view, the router the topology's. */
    for (guint i = N_SECTIONS; i-- > 0;) {
        if (exp->self[i]) {
            const insee_topology_vtable *generic = exp->plugin[i]->vtable;
            generic->destroy(exp->self[i]);
        }
    }
    insee_engine_clear(&exp->eng);
    insee_report_clear(&exp->eng.report);
    g_free(exp);
}
