/* kernel/cli/main.c — the `insee` command line.
 *
 * Commands: run [CONFIG] (the embedded default experiment without one),
 * topology [CONFIG] [--dot FILE], plugins list, plugins info NAME [--json],
 * report RUN.json -o FILE, plot FILE... -o FILE (kernel/report/),
 * trace phits TRACE.gz [--packet ID] (stats/trace.h), sweep [CONFIG] --vary ...
 * -o RESULTS (kernel/sweep/).
 * Global options may stand anywhere.
 * Exit codes are part of the interface (scripts and sweeps rely on them):
 * 0 success, 1 simulation error, 2 usage or configuration error, 3 plugin error,
 * 128 + N when signal N stopped a run.
 */
#include <errno.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "config/config.h"
#include "engine/experiment.h"
#include "plugin/describe.h"
#include "plugin/guard.h"
#include "plugin/registry.h"
#include "report/commands.h"
#include "stats/output.h"
#include "stats/topology_summary.h"
#include "stats/trace.h"
#include "workload/export.h"
#include "sweep/ranks.h"
#include "sweep/sweep.h"

enum { EXIT_OK = 0, EXIT_SIMULATION = 1, EXIT_USAGE = 2, EXIT_PLUGIN = 3 };

static char **opt_plugin_dirs;
static char **opt_set;
static gboolean opt_json;
static char *opt_json_file; /* run --json FILE */
static gboolean opt_version;
static char *opt_dot;
static char *opt_output;
static gint64 opt_packet = -1; /* trace phits --packet ID; -1: not given */

static gboolean on_json(const char *name, const char *value, gpointer data, GError **err)
{
    (void)name, (void)data, (void)err;
    opt_json = TRUE;
    g_free(opt_json_file);
    opt_json_file = g_strdup(value);
    return TRUE;
}

/* GOption gives an optional argument only as --json=FILE; a file name
   ending in .json after a bare --json is taken as its argument too, so
   `insee run --json out.json` reads as it looks. Both leave argv. */
static int take_json_argument(int argc, char **argv)
{
    for (int i = 1; i + 1 < argc; i++) {
        if (strcmp(argv[i], "--json") != 0 || argv[i + 1][0] == '-' ||
            !g_str_has_suffix(argv[i + 1], ".json"))
            continue;
        on_json("--json", argv[i + 1], NULL, NULL);
        memmove(&argv[i], &argv[i + 2], sizeof *argv * (size_t)(argc - i - 1));
        argc -= 2;
        i--;
    }
    return argc;
}

static const GOptionEntry entries[] = {
    {"plugin-dir", 'P', 0, G_OPTION_ARG_FILENAME_ARRAY, &opt_plugin_dirs,
     "Search DIR for plugins first (repeatable)", "DIR"},
    {"set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &opt_set,
     "Override a config value, e.g. --set traffic.load=0.3 (repeatable)", "KEY=VALUE"},
    {"json", 0, G_OPTION_FLAG_OPTIONAL_ARG | G_OPTION_FLAG_FILENAME, G_OPTION_ARG_CALLBACK,
     (gpointer)on_json,
     "run: write every figure of the run to FILE (as [stats] json); plugins info: print JSON",
     "FILE"},
    {"dot", 0, 0, G_OPTION_ARG_FILENAME, &opt_dot,
     "topology: also write the wiring as Graphviz DOT to FILE", "FILE"},
    {"output", 'o', 0, G_OPTION_ARG_FILENAME, &opt_output,
     "report, plot: write the page or the figure to FILE; sweep: the results; trace export: the "
     "trace", "FILE"},
    {"packet", 0, 0, G_OPTION_ARG_INT64, &opt_packet,
     "trace phits: only the packet with this id", "ID"},
    {"version", 'V', 0, G_OPTION_ARG_NONE, &opt_version, "Print the version and ABI", NULL},
    {0},
};

static const char summary[] =
    "Commands:\n"
    "  run [CONFIG.toml]        run an experiment (the embedded default: 8x8 torus,\n"
    "                           uniform traffic at 0.3 phits/node/cycle, when no file)\n"
    "  topology [CONFIG.toml]   routers, nodes, links, ports, diameter and average\n"
    "                           distance of the configured topology (--dot FILE: wiring)\n"
    "  plugins list             every plugin found, and those refused with the reason\n"
    "  plugins info NAME        a plugin's parameters (its manual); --json for tools\n"
    "  report RUN.json -o F     one self-contained HTML page of a run's JSON results\n"
    "  plot FILE... -o F.svg    latency and accepted load against offered load, a curve\n"
    "                           per configuration, from CSV files and run JSON files;\n"
    "                           -o F.png: a PNG; --latency p99: another statistic\n"
    "                           (mean, p50, p90, p99, p999, max); --log: log scale\n"
    "  sweep [CONFIG.toml] --vary KEY=V1,V2,... [--vary KEY=FROM:TO:STEP] [--seeds N]\n"
    "        [-j JOBS] [--stop-at-saturation] -o RESULTS.csv\n"
    "                           a run per point of the grid and seed, JOBS at a time,\n"
    "                           resumable; a summary per point (mean, std, 95 % CI);\n"
    "                           --shard I/N, --merge FILE, --slurm FILE: on a cluster\n"
    "  trace phits TRACE.gz     the phits of a packet trace ([stats] trace), hop by hop;\n"
    "                           --packet ID: one packet\n"
    "  trace export CONFIG.toml [APPLICATION] -o TRACE.fsin\n"
    "                           a causal application as an FSIN trace: its program (a\n"
    "                           trace, a kernel) or a run's sends (a Markov walk)\n";

static const char description[] =
    "Examples:\n"
    "  insee run\n"
    "  insee run examples/torus-8x8-uniform.toml --set traffic.load=0.3\n"
    "  insee --plugin-dir ~/my-plugins run my-experiment.toml\n"
    "  insee plugins info torus --json\n"
    "  insee topology --set topology.dims=[4,4] --dot torus.dot\n"
    "\n"
    "Plugins are searched in: every --plugin-dir, then INSEE_PLUGIN_PATH (':'-separated),\n"
    "then the config's [plugins] dirs, then the default directory. INSEE_DEBUG_PLUGINS=1\n"
    "traces every attempt.\n"
    "\n"
    "Exit status: 0 success, 1 simulation error, 2 usage or configuration error,\n"
    "3 plugin error (missing, refused or built for another ABI); 128 + N when signal N\n"
    "(SIGINT, SIGTERM, SIGHUP, SIGQUIT) stopped a run: its partial figures are printed and\n"
    "no output file is written.\n";

static int exit_code_for(const GError *e)
{
    if (e->domain == G_FILE_ERROR && e->code == G_FILE_ERROR_PIPE)
        return 128 + SIGPIPE; /* as if the signal had killed us, which it no longer does */
    if (e->domain == INSEE_CONFIG_ERROR)
        return EXIT_USAGE;
    if (e->domain == INSEE_EXPERIMENT_ERROR) {
        switch (e->code) {
        case INSEE_EXPERIMENT_ERROR_PLUGIN:
            return EXIT_PLUGIN;
        case INSEE_EXPERIMENT_ERROR_SETUP:
            return EXIT_USAGE;
        default:
            return EXIT_SIMULATION;
        }
    }
    return EXIT_SIMULATION;
}

static int report_error(GError *e)
{
    int code = exit_code_for(e);
    g_printerr("insee: error: %s\n", e->message);
    g_error_free(e);
    return code;
}

static void add_path_list(insee_registry *reg, char *const *dirs)
{
    for (; dirs && *dirs; dirs++)
        if (**dirs)
            insee_registry_add_dir(reg, *dirs);
}

/* Discovery order of docs/architecture.md §6. `cfg` may be NULL (plugins commands). */
static insee_registry *open_registry(insee_config *cfg, GError **err)
{
    char **config_dirs = NULL;
    if (cfg && !insee_experiment_plugin_dirs(cfg, &config_dirs, err))
        return NULL;
    insee_registry *reg = insee_registry_new();
    add_path_list(reg, opt_plugin_dirs);
    const char *env = g_getenv("INSEE_PLUGIN_PATH");
    if (env) {
        char **env_dirs = g_strsplit(env, G_SEARCHPATH_SEPARATOR_S, -1);
        add_path_list(reg, env_dirs);
        g_strfreev(env_dirs);
    }
    for (char **d = config_dirs; d && *d; d++)
        if (**d)
            insee_registry_add_dir(reg, insee_config_path(cfg, "plugins", "dirs", *d));
    g_strfreev(config_dirs);
    char *def = insee_registry_default_dir();
    insee_registry_add_dir(reg, def);
    g_free(def);
    insee_registry_scan(reg);
    const GPtrArray *notices = insee_registry_notices(reg);
    for (guint i = 0; i < notices->len; i++)
        g_printerr("insee: notice: %s\n", (const char *)g_ptr_array_index(notices, i));
    return reg;
}

/* The config of `run` and `topology`: the file, or the embedded default,
   with every --set applied. NULL after printing the error (*code set). */
static insee_config *load_config(const char *cmd, int argc, char **argv, int *code)
{
    if (argc > 1) {
        g_printerr("insee: error: %s takes at most one config file (got %d); see insee --help\n",
                   cmd, argc);
        *code = EXIT_USAGE;
        return NULL;
    }
    GError *err = NULL;
    insee_config *cfg = argc == 1
                            ? insee_config_load_file(argv[0], &err)
                            : insee_config_load_default(insee_default_experiment,
                                                        "<embedded default experiment>", &err);
    for (char **s = opt_set; cfg && s && *s; s++) {
        if (!insee_config_set(cfg, *s, &err)) {
            insee_config_free(cfg);
            cfg = NULL;
        }
    }
    if (cfg && opt_json_file &&
        !insee_config_set_string(cfg, "stats", "json", opt_json_file, "--json", &err)) {
        insee_config_free(cfg);
        cfg = NULL;
    }
    if (!cfg)
        *code = report_error(err);
    return cfg;
}

/* A stop request — Ctrl-C, SIGTERM, SIGHUP or SIGQUIT — ends the run at the
   next cycle with what it has gathered and writes no output file; a second
   one kills at once (the default action, restored). The handler is installed
   without SA_RESTART, so a plugin blocked in a wait (a bridge polling for its
   clients) gets EINTR and sees the request at once. `stop_signal` holds the
   signal's number: the exit status is 128 + it, as shells report a kill. */
static volatile int stop_signal;
static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

static void on_stop_signal(int sig)
{
    stop_signal = sig;
    signal(sig, SIG_DFL);
}

static void catch_stop_signals(gboolean on)
{
    struct sigaction sa = {.sa_handler = on ? on_stop_signal : SIG_DFL};
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < G_N_ELEMENTS(stop_signals); i++)
        sigaction(stop_signals[i], &sa, NULL);
    /* A reader that closed our standard output (`insee run | head`) makes a
       write fail with EPIPE instead of killing the run between its files. */
    signal(SIGPIPE, on ? SIG_IGN : SIG_DFL);
}

/* The report on standard output, and whether it all arrived there. */
static gboolean print_report(const insee_experiment *exp, GError **err)
{
    insee_experiment_print(exp, stdout);
    if (fflush(stdout) == 0 && !ferror(stdout))
        return TRUE;
    int e = errno;
    g_set_error(err, G_FILE_ERROR, g_file_error_from_errno(e),
                "could not write the report to standard output: %s; no output file was "
                "written", g_strerror(e));
    return FALSE;
}

/* Set in a sweep's run: mpirun's ranks share the sweep's runs, not split
   one (its environment says mpirun started the process all the same). */
static gboolean run_of_sweep;

/* Under mpirun with several ranks: split the run over them, so that only
   rank 0 writes the report and the files. *rank: this process's. */
static gboolean split_over_ranks(insee_experiment *exp, insee_transport *t, uint32_t *rank,
                                 GError **err)
{
    *rank = 0;
    if (run_of_sweep)
        return TRUE;
    if (!insee_ranks_run_join(t, err))
        return FALSE;
    if (!t->parts)
        return TRUE;
    *rank = t->part;
    const char *local = g_getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
    guint64 here = local ? g_ascii_strtoull(local, NULL, 10) : 1;
    if (*rank == 0 && here > g_get_num_processors())
        g_printerr("insee: notice: %" G_GUINT64_FORMAT " ranks share this machine's %u cores: "
                   "every exchange waits for the ranks the system has set aside, so the run is "
                   "slower than on %u ranks\n",
                   here, g_get_num_processors(), g_get_num_processors());
    return insee_experiment_set_partition(exp, t, err);
}

/* A run split over more threads than the process may use: its parts meet
   at every exchange, each waiting for the ones the system has set aside
   (tens of µs each time, against one or two), so the user hears why it
   is slow. */
static void notice_parts_beyond_cores(const insee_experiment *exp)
{
    uint32_t parts = insee_experiment_thread_parts(exp), cores = g_get_num_processors();
    if (parts > cores)
        g_printerr("insee: notice: [simulation] threads = %u splits the run into more parts "
                   "than the %u cores this process may use: every exchange waits for the parts "
                   "the system has set aside, so the run is slower than on %u threads\n",
                   parts, cores, cores);
}

static int cmd_run(int argc, char **argv)
{
    int code = EXIT_OK;
    insee_config *cfg = load_config("run", argc, argv, &code);
    if (!cfg)
        return code;
    GError *err = NULL;
    /* Caught from the start: the set-up may already make files (a bridge's
       socket) that a stop must not leave behind; the run then stops at its
       first cycle. */
    catch_stop_signals(TRUE);
    insee_registry *reg = open_registry(cfg, &err);
    insee_experiment *exp = reg ? insee_experiment_new(cfg, reg, &err) : NULL;
    if (exp)
        insee_experiment_set_stop(exp, &stop_signal);
    insee_transport ranks = {0};
    uint32_t rank = 0;
    gboolean joined = exp && split_over_ranks(exp, &ranks, &rank, &err);
    if (joined)
        notice_parts_beyond_cores(exp);
    if (!joined || !insee_experiment_run(exp, &err)) {
        code = report_error(err);
    } else if (rank == 0 && !print_report(exp, &err)) {
        /* The report first: a CSV that cannot be written must not hide it;
           and a report nobody received must not leave files as if all went
           well. Rank 0 alone writes what a split run measured. */
        code = report_error(err);
    } else if (rank == 0 && !insee_experiment_write_outputs(exp, &err)) {
        code = report_error(err);
    }
    if (exp && insee_experiment_report(exp)->interrupted)
        code = 128 + stop_signal;
    /* Still caught while the experiment removes its temporaries (a packet
       trace's): a stop request now must not kill the run halfway there. */
    insee_experiment_free(exp);
    if (ranks.parts)
        insee_sweep_ranks_leave();
    catch_stop_signals(FALSE);
    if (reg)
        insee_registry_free(reg);
    insee_config_free(cfg);
    return code;
}

/* One run of a sweep, in the child a sweep forked for it (sweep.h): `insee
   run` as if started with these --set values, the sweep's --plugin-dir
   values kept. */
static int sweep_run(const char *config, char **sets)
{
    opt_set = sets;
    run_of_sweep = TRUE;
    opt_json = FALSE;
    opt_json_file = NULL;
    char *argv[] = {(char *)config, NULL};
    return cmd_run(config ? 1 : 0, argv);
}

/* What a command that set up an experiment frees; each may be NULL. */
static void close_experiment(insee_experiment *exp, insee_registry *reg, insee_config *cfg)
{
    insee_experiment_free(exp);
    if (reg)
        insee_registry_free(reg);
    insee_config_free(cfg);
}

static int cmd_topology(int argc, char **argv)
{
    int code = EXIT_OK;
    insee_config *cfg = load_config("topology", argc, argv, &code);
    if (!cfg)
        return code;
    GError *err = NULL;
    /* Before the topology is built, which can take long. */
    if (opt_dot && !insee_output_check(opt_dot, "--dot", &err)) {
        insee_config_free(cfg);
        report_error(err);
        return EXIT_USAGE;
    }
    insee_registry *reg = open_registry(cfg, &err);
    gint64 start = g_get_monotonic_time();
    insee_experiment *exp = reg ? insee_experiment_new_topology(cfg, reg, &err) : NULL;
    double setup = (double)(g_get_monotonic_time() - start) / 1e6;
    if (exp) {
        const insee_net *net = insee_experiment_network(exp);
        GString *out = g_string_new(NULL);
        void *self;
        const insee_topology_vtable *topo = insee_experiment_topology(exp, &self);
        insee_topology_summary(net, topo, self, out);
        g_string_append_printf(out, "%-22s %.3f s\n", "set-up time", setup);
        fputs(out->str, stdout);
        g_string_free(out, TRUE);
        if (opt_dot && !insee_topology_write_dot(net, opt_dot, &err))
            code = report_error(err);
    } else {
        code = report_error(err);
    }
    close_experiment(exp, reg, cfg);
    return code;
}

static int cmd_plugins(int argc, char **argv)
{
    if (argc < 1 || (strcmp(argv[0], "list") != 0 && strcmp(argv[0], "info") != 0) ||
        (strcmp(argv[0], "info") == 0 && argc != 2) || (strcmp(argv[0], "list") == 0 && argc != 1)) {
        g_printerr("insee: error: use `insee plugins list` or `insee plugins info NAME`\n");
        return EXIT_USAGE;
    }
    GError *err = NULL;
    insee_registry *reg = open_registry(NULL, &err);
    GString *out = g_string_new(NULL);
    int code = EXIT_OK;
    if (strcmp(argv[0], "list") == 0) {
        insee_registry_describe_list(reg, out);
    } else {
        const insee_plugin *p = insee_registry_find_any(reg, argv[1]);
        if (p) {
            insee_plugin_describe(p, opt_json, out);
        } else {
            g_printerr("insee: error: no plugin named '%s'; see `insee plugins list`\n", argv[1]);
            code = EXIT_PLUGIN;
        }
    }
    fputs(out->str, stdout);
    g_string_free(out, TRUE);
    insee_registry_free(reg);
    return code;
}

/* insee trace export CONFIG [APPLICATION] -o FILE (workload/export.h). */
static int cmd_trace_export(int argc, char **argv)
{
    if (argc < 1 || argc > 2 || !opt_output) {
        g_printerr("insee: error: use `insee trace export CONFIG.toml [APPLICATION] -o "
                   "TRACE.fsin`\n");
        return EXIT_USAGE;
    }
    int code = EXIT_OK;
    insee_config *cfg = load_config("trace export", 1, argv, &code);
    if (!cfg)
        return code;
    GError *err = NULL;
    insee_registry *reg = open_registry(cfg, &err);
    insee_experiment *exp = reg ? insee_experiment_new(cfg, reg, &err) : NULL;
    if (!exp ||
        !insee_workload_export(exp, argc == 2 ? argv[1] : NULL, argv[0], opt_output, &err))
        code = report_error(err);
    close_experiment(exp, reg, cfg);
    return code;
}

static int cmd_trace(int argc, char **argv)
{
    if (argc >= 1 && strcmp(argv[0], "export") == 0)
        return cmd_trace_export(argc - 1, argv + 1);
    if (argc != 2 || strcmp(argv[0], "phits") != 0) {
        g_printerr("insee: error: use `insee trace phits TRACE.gz [--packet ID]` or `insee trace "
                   "export CONFIG.toml [APPLICATION] -o TRACE.fsin`\n");
        return EXIT_USAGE;
    }
    if (opt_output) {
        g_printerr("insee: error: trace phits writes to standard output; -o is for `insee trace "
                   "export`\n");
        return EXIT_USAGE;
    }
    if (opt_packet == 0 || opt_packet < -1) {
        g_printerr("insee: error: --packet %" G_GINT64_FORMAT ": packet ids start at 1\n",
                   opt_packet);
        return EXIT_USAGE;
    }
    GError *err = NULL;
    if (!insee_trace_phits(argv[1], opt_packet > 0 ? (uint64_t)opt_packet : 0, stdout, &err)) {
        g_printerr("insee: error: %s\n", err->message);
        g_error_free(err);
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

int main(int argc, char **argv)
{
    setlocale(LC_ALL, "");
    /* Messages in the user's language, numbers always with '.': the report
       and the CSV are read by programs, and config values are parsed. */
    setlocale(LC_NUMERIC, "C");
    /* A plugin that calls exit() must not pass for a successful run. */
    insee_guard_install("insee", EXIT_PLUGIN);
    GOptionContext *ctx = g_option_context_new("COMMAND [ARGS] — simulate interconnection networks");
    g_option_context_set_summary(ctx, summary);
    g_option_context_set_description(ctx, description);
    g_option_context_add_main_entries(ctx, entries, NULL);
    g_option_context_add_main_entries(ctx, insee_plot_entries, NULL);
    g_option_context_add_main_entries(ctx, insee_sweep_entries, NULL);
    GError *err = NULL;
    argc = take_json_argument(argc, argv);
    if (!g_option_context_parse(ctx, &argc, &argv, &err)) {
        g_printerr("insee: error: %s; see insee --help\n", err->message);
        g_error_free(err);
        g_option_context_free(ctx);
        return EXIT_USAGE;
    }
    int code;
    const char *cmd = argc >= 2 ? argv[1] : "";
    gboolean info = strcmp(cmd, "plugins") == 0 && argc >= 3 && strcmp(argv[2], "info") == 0;
    gboolean run = strcmp(cmd, "run") == 0;
    if ((opt_dot && strcmp(cmd, "topology") != 0) || (opt_json && !info && !run)) {
        g_printerr("insee: error: %s applies to `insee %s` only; see insee --help\n",
                   opt_dot ? "--dot" : "--json", opt_dot ? "topology" : "run` and `insee plugins info");
        code = EXIT_USAGE;
    } else if (opt_json && run != (opt_json_file != NULL)) {
        g_printerr("insee: error: %s\n", run ? "run --json needs a file: --json FILE.json or --json=FILE"
                                             : "plugins info --json takes no file");
        code = EXIT_USAGE;
    } else if (opt_packet != -1 && strcmp(cmd, "trace") != 0) {
        g_printerr("insee: error: --packet applies to `insee trace phits` only; see insee --help\n");
        code = EXIT_USAGE;
    } else if (insee_plot_options_given() && strcmp(cmd, "plot") != 0) {
        g_printerr("insee: error: --latency and --log apply to `insee plot` only; see insee --help\n");
        code = EXIT_USAGE;
    } else if (insee_sweep_options_given() && strcmp(cmd, "sweep") != 0) {
        g_printerr("insee: error: --vary, --seeds, -j and the other sweep options apply to `insee "
                   "sweep` only; see insee --help\n");
        code = EXIT_USAGE;
    } else if (opt_output && strcmp(cmd, "report") != 0 && strcmp(cmd, "plot") != 0 &&
               strcmp(cmd, "sweep") != 0 && strcmp(cmd, "trace") != 0) {
        g_printerr("insee: error: -o applies to `insee report`, `insee plot`, `insee sweep` and "
                   "`insee trace export` only; see insee --help\n");
        code = EXIT_USAGE;
    } else if (opt_version) {
        printf("insee %s (plugin ABI %u.%u)\n", INSEE_VERSION, INSEE_ABI_MAJOR, INSEE_ABI_MINOR);
        code = EXIT_OK;
    } else if (argc < 2) {
        char *help = g_option_context_get_help(ctx, TRUE, NULL);
        g_printerr("%s", help);
        g_free(help);
        code = EXIT_USAGE;
    } else if (strcmp(argv[1], "run") == 0) {
        code = cmd_run(argc - 2, argv + 2);
    } else if (strcmp(argv[1], "topology") == 0) {
        code = cmd_topology(argc - 2, argv + 2);
    } else if (strcmp(argv[1], "plugins") == 0) {
        code = cmd_plugins(argc - 2, argv + 2);
    } else if (strcmp(argv[1], "report") == 0) {
        code = insee_report_command(argc - 2, argv + 2, opt_output);
    } else if (strcmp(argv[1], "plot") == 0) {
        code = insee_plot_command(argc - 2, argv + 2, opt_output);
    } else if (strcmp(argv[1], "sweep") == 0) {
        code = insee_sweep_command(argc - 2, argv + 2, opt_output, opt_set, opt_plugin_dirs,
                                   sweep_run);
    } else if (strcmp(argv[1], "trace") == 0) {
        code = cmd_trace(argc - 2, argv + 2);
    } else {
        g_printerr("insee: error: unknown command '%s'; see insee --help\n", argv[1]);
        code = EXIT_USAGE;
    }
    /* A report lost to a full disk or a closed pipe is a failure too. */
    if (fflush(stdout) != 0 || ferror(stdout)) {
        g_printerr("insee: error: could not write the output to stdout\n");
        if (code == EXIT_OK)
            code = EXIT_SIMULATION;
    }
    g_option_context_free(ctx);
    g_strfreev(opt_plugin_dirs);
    g_strfreev(opt_set);
    g_free(opt_dot);
    g_free(opt_output);
    g_free(opt_json_file);
    return code;
}
