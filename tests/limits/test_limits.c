#define _GNU_SOURCE /* mallinfo2, RLIMIT_* */
/* Resource limits are errors, not aborts.
 *
 * The network's memory estimate (kernel/net/memory.h): its queue and packet
 * counts against closed forms, its refusal message, the available memory it
 * reads from RLIMIT_AS and RLIMIT_DATA, and its figures against what a
 * build allocates and a saturated run takes. Then the `insee` program as a
 * user meets the limits: too large networks refused at once with exit
 * status 2, the parameter and the figure (under a memory limit set with
 * setrlimit in the spawned child: no abort, no signal), reasonable networks
 * still running under the same limit, and configurations that are devices
 * or too large refused after reading at most the cap.
 *
 * Under the sanitizers the program cannot start with an address-space limit
 * (the shadow memory is reserved up front) and RSS is the sanitizer's: the
 * cases that need either are skipped there; the rest run.
 */
#include <criterion/criterion.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config/config.h"
#include "engine/engine.h"
#include "engine/experiment.h"
#include "net/memory.h"
#include "net/network.h"
#include "plugin/registry.h"

#define MiB (1ull << 20)
#define GiB (1ull << 30)

#ifdef INSEE_TEST_SANITIZED
#define SKIP_UNDER_SANITIZERS(why) cr_skip_test(why)
#else
#define SKIP_UNDER_SANITIZERS(why) ((void)0)
#endif

/* Field `field` of /proc/self/statm, in bytes. */
static uint64_t statm(int field)
{
    FILE *f = fopen("/proc/self/statm", "r");
    cr_assert_not_null(f);
    unsigned long v[7] = {0};
    cr_assert_eq(fscanf(f, "%lu %lu %lu %lu %lu %lu %lu", &v[0], &v[1], &v[2], &v[3], &v[4],
                        &v[5], &v[6]),
                 7);
    fclose(f);
    return (uint64_t)v[field] * (uint64_t)sysconf(_SC_PAGESIZE);
}

/* An 8x8 torus's 256 ports with 3 VCs and 2 injectors per node. */
Test(estimate, queues_and_packets_are_the_closed_forms)
{
    insee_net_size s = {.routers = 64, .nodes = 64, .ports = 256, .vcs = 3,
                        .queue_packets = 5, .inject_packets = 7, .injectors = 2};
    insee_net_memory m = insee_net_memory_of(&s);
    cr_assert_eq(m.queues, 256 * 3 + 64 * 2);
    cr_assert_eq(m.packets, 256 * 3 * 5 + 64 * 2 * (7 + 5));
    /* At least a head, tail, count and two cycle stamps per queue, and a
       packet record per packet. */
    cr_assert_geq(m.setup, m.queues * (4 + 4 + 2 + 8 + 8));
    cr_assert_geq(m.full, m.packets * sizeof(insee_packet));
}

/* The set-up figure is linear in the network, with no constant: twice the
   routers, ports and nodes, twice the bytes. */
Test(estimate, setup_is_linear_in_the_network)
{
    insee_net_size s = {.routers = 1000, .nodes = 3000, .ports = 7000, .vcs = 2,
                        .queue_packets = 4, .inject_packets = 4, .injectors = 1};
    insee_net_size twice = s;
    twice.routers *= 2;
    twice.nodes *= 2;
    twice.ports *= 2;
    cr_assert_eq(insee_net_memory_of(&twice).setup, 2 * insee_net_memory_of(&s).setup);
    s.vcs = 4;
    cr_assert_gt(insee_net_memory_of(&s).setup, insee_net_memory_of(&twice).setup / 2,
                 "more VCs, more bytes");
}

/* A 1000 x 1000 torus: 4000000 ports x 2 VCs + 1000000 injection queues,
   holding 8000000 x 4 + 1000000 x (4 + 4) packets when full. */
Test(estimate, refusal_gives_the_figures_and_the_parameters)
{
    insee_net_size s = {.routers = 1000000, .nodes = 1000000, .ports = 4000000, .max_ports = 4,
                        .vcs = 2,
                        .queue_packets = 4, .inject_packets = 4, .injectors = 1};
    insee_net_memory m = insee_net_memory_of(&s);
    GError *err = NULL;
    cr_assert(insee_net_memory_check(&s, m.setup + m.full, "enough", &err), "exactly enough");
    cr_assert_not(insee_net_memory_check(&s, m.setup + m.full - 1, "the test's limit", &err));
    cr_assert_eq(err->domain, INSEE_EXPERIMENT_ERROR);
    cr_assert_eq(err->code, INSEE_EXPERIMENT_ERROR_SETUP);
    const char *msg = err->message;
    cr_assert(strstr(msg, "1000000 routers, 4000000 ports and 1000000 nodes with 9000000 queues"),
              "%s", msg);
    cr_assert(strstr(msg, "40000000 packets"), "%s", msg);
    cr_assert(strstr(msg, "vcs = 2") && strstr(msg, "queue_packets = 4"), "%s", msg);
    cr_assert(strstr(msg, "is available (the test's limit)"), "%s", msg);
    cr_assert(strstr(msg, "Use a smaller topology"), "%s", msg);
    /* The figure it gives is the estimate, in GiB to one decimal. */
    double gib = 0;
    const char *needs = strstr(msg, "needs ");
    cr_assert(needs && sscanf(needs, "needs %lf GiB", &gib) == 1, "%s", msg);
    cr_assert_lt(fabs(gib - (double)(m.setup + m.full) / GiB), 0.05, "%s", msg);
    g_error_free(err);
}

static void available_under(int resource, const char *says)
{
    SKIP_UNDER_SANITIZERS("the sanitizers reserve their shadow memory up front");
    uint64_t used = statm(resource == RLIMIT_AS ? 0 : 5);
    struct rlimit rl;
    cr_assert_eq(getrlimit(resource, &rl), 0);
    rl.rlim_cur = used + 256 * MiB;
    cr_assert_eq(setrlimit(resource, &rl), 0);
    const char *limit = NULL;
    uint64_t left = insee_memory_available(&limit);
    /* The limit less what is in use (a few pages more by now). */
    cr_assert_leq(left, 256 * MiB);
    cr_assert_geq(left, 250 * MiB);
    cr_assert(limit && strstr(limit, says), "%s", limit ? limit : "(none)");
}

Test(available, is_the_address_space_limit_less_the_address_space_used)
{
    available_under(RLIMIT_AS, "ulimit -v");
}

Test(available, is_the_data_limit_less_the_data_used)
{
    available_under(RLIMIT_DATA, "ulimit -d");
}

Test(available, is_at_most_the_physical_memory)
{
    const char *limit = NULL;
    uint64_t left = insee_memory_available(&limit);
    cr_assert_not_null(limit);
    cr_assert_gt(left, 0);
    cr_assert_leq(left, (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE));
}

static uint64_t allocated(void)
{
    struct mallinfo2 mi = mallinfo2();
    return mi.uordblks + mi.hblkhd;
}

/* A 32 x 32 torus (INSEE's default router) at saturation for 500 cycles,
   when most of its queues are full. The set-up figure is what building
   the experiment allocates, within 10% below and 25% above (the kernel's
   arrays are nearly all of it; the plugins' own tables are the rest). The
   whole figure bounds what the run allocates (the pools never shrink, so
   after the run they are at their peak) and the growth of the peak RSS, and
   is within 3 times that growth: a worst case, every queue full, that a
   saturated network nearly reaches. On one thread: parts would be copies. */
Test(estimate, within_a_factor_of_what_a_saturated_run_takes)
{
    SKIP_UNDER_SANITIZERS("RSS and malloc figures are the sanitizers', not ours");
    insee_registry *reg = insee_registry_new();
    insee_registry_add_dir(reg, INSEE_TEST_PLUGIN_DIR);
    insee_registry_scan(reg);
    GError *err = NULL;
    insee_config *cfg = insee_config_load_string("[simulation]\nwarmup = 0\ncycles = 500\n"
                                                 "drain = 0\nthreads = 1\n"
                                                 "[topology]\ndims = [32, 32]\n"
                                                 "[traffic]\nload = 1.0\n",
                                                 "saturated", &err);
    cr_assert_not_null(cfg);
    uint64_t rss0 = statm(1), alloc0 = allocated();
    insee_experiment *exp = insee_experiment_new(cfg, reg, &err);
    cr_assert_not_null(exp, "%s", err ? err->message : "");
    uint64_t built = allocated() - alloc0;
    const insee_net *net = insee_experiment_network(exp);
    insee_net_size s =
        insee_net_size_of(net, insee_engine_kept_candidates(insee_experiment_engine(exp)));
    insee_net_memory m = insee_net_memory_of(&s);
    cr_assert_geq((double)m.setup, 0.9 * (double)built, "setup %lu, built %lu",
                  (unsigned long)m.setup, (unsigned long)built);
    cr_assert_leq((double)m.setup, 1.25 * (double)built, "setup %lu, built %lu",
                  (unsigned long)m.setup, (unsigned long)built);
    cr_assert(insee_experiment_run(exp, &err), "%s", err ? err->message : "");
    uint64_t ran = allocated() - alloc0;
    struct rusage ru;
    cr_assert_eq(getrusage(RUSAGE_SELF, &ru), 0);
    uint64_t peak = (uint64_t)ru.ru_maxrss * 1024 - rss0;
    uint64_t total = m.setup + m.full;
    cr_assert_geq(total, ran, "estimate %lu, allocated %lu", (unsigned long)total,
                  (unsigned long)ran);
    cr_assert_geq(total, peak, "estimate %lu, peak RSS growth %lu", (unsigned long)total,
                  (unsigned long)peak);
    cr_assert_leq(total, 3 * peak, "estimate %lu, peak RSS growth %lu", (unsigned long)total,
                  (unsigned long)peak);
    /* Saturated indeed: the pool holds more than a quarter of what the
       queues can hold, so `full` was not measured against an idle run. */
    cr_assert_gt(net->pkt_cap, m.packets / 4);
    insee_experiment_free(exp);
    insee_registry_free(reg);
    insee_config_free(cfg);
}

/* The candidates a waiting head keeps are counted as the router keeps
   them: 8 for INSEE's default router (bubble keeps its bound, twice the
   least cache);
   updown's whole set (a steady router) on 32-port switches: 16 down, 16
   up, one VC. */
Test(estimate, counts_the_candidates_a_router_keeps)
{
    static const struct {
        const char *toml;
        uint32_t kept;
    } runs[] = {
        {"[topology]\ndims = [8, 8]\n", 2 * INSEE_ROUTE_CACHE},
        {"[topology]\nplugin = \"kary-ntree\"\nk = 16\nn = 2\n"
         "[router]\nplugin = \"updown\"\nvcs = 1\n", 32},
    };
    insee_registry *reg = insee_registry_new();
    insee_registry_add_dir(reg, INSEE_TEST_PLUGIN_DIR);
    insee_registry_scan(reg);
    for (size_t i = 0; i < G_N_ELEMENTS(runs); i++) {
        GError *err = NULL;
        insee_config *cfg = insee_config_load_string(runs[i].toml, "kept", &err);
        cr_assert_not_null(cfg);
        insee_experiment *exp = insee_experiment_new(cfg, reg, &err);
        cr_assert_not_null(exp, "%s", err ? err->message : "");
        const insee_net *net = insee_experiment_network(exp);
        uint32_t kept = insee_engine_kept_candidates(insee_experiment_engine(exp));
        cr_assert_eq(kept, runs[i].kept, "%s: %u kept", runs[i].toml, kept);
        insee_net_size s = insee_net_size_of(net, INSEE_ROUTE_CACHE);
        uint64_t least = insee_net_memory_of(&s).full;
        s.kept = kept;
        uint64_t counted = insee_net_memory_of(&s).full;
        cr_assert_geq(counted - least,
                      (uint64_t)net->queues * (kept - INSEE_ROUTE_CACHE) * sizeof(insee_candidate),
                      "%s", runs[i].toml);
        insee_experiment_free(exp);
        insee_config_free(cfg);
    }
    insee_registry_free(reg);
}

/* --- the program under a memory limit --- */

typedef struct result {
    int status; /* exit status, or -1 when killed by a signal */
    char *out, *err;
} result;

static void limit_address_space(gpointer bytes)
{
    struct rlimit rl = {*(rlim_t *)bytes, *(rlim_t *)bytes};
    if (setrlimit(RLIMIT_AS, &rl) != 0)
        _exit(126);
}

#define ARGS(...) ((const char *const[]){__VA_ARGS__, NULL})
#define INSEE(...) ARGS(INSEE_TEST_BIN, __VA_ARGS__)

/* `argv`, e.g. INSEE("run", ...), under an address-space limit of `bytes`
   (0: none). */
static result run_insee(rlim_t bytes, const char *const *argv)
{
    result r = {0};
    GError *err = NULL;
    int wait = 0;
    cr_assert(g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_DEFAULT,
                           bytes ? limit_address_space : NULL, &bytes, &r.out, &r.err, &wait,
                           &err),
              "spawn: %s", err ? err->message : "?");
    r.status = WIFEXITED(wait) ? WEXITSTATUS(wait) : -1;
    return r;
}

static void result_free(result *r)
{
    g_free(r->out);
    g_free(r->err);
}

/* Exit status 2 (a configuration error, no signal) with every `says`. */
static void assert_refused(const result *r, const char *const *says)
{
    cr_assert_eq(r->status, 2, "status %d, stderr: %s", r->status, r->err);
    for (; *says; says++)
        cr_assert(strstr(r->err, *says), "wanted \"%s\" in: %s", *says, r->err);
}

static void refused(result *r, const char *const *says)
{
    assert_refused(r, says);
    result_free(r);
}

/* Once an abort in GLib after 6 GB; now the torus refuses from its dims,
   before any table: 20000^2 routers with 4 ports each and a node are more
   queues than the kernel numbers. */
Test(program, torus_20000_squared_is_refused_at_once)
{
    result r = run_insee(0, INSEE("run", "--set", "topology.dims=[20000, 20000]"));
    refused(&r, ARGS("torus: 400000000 routers with 1600000000 ports in all",
                     "fewer than 1073741824 queues", "use smaller dims"));
}

/* A network the kernel could number but memory cannot hold: refused before
   it is allocated, with the figure and the limit, under 1 GiB of address
   space. */
Test(program, too_large_for_memory_is_refused_with_the_figure)
{
    SKIP_UNDER_SANITIZERS("the sanitizers cannot start under an address-space limit");
    result r = run_insee(GiB, INSEE("run", "--set", "topology.dims=[1000, 1000]"));
    assert_refused(&r, ARGS("1000000 routers, 4000000 ports and 1000000 nodes with 9000000 queues",
                            "the address-space limit, ulimit -v", "Use a smaller topology",
                            "lower [router] vcs, queue_packets or inject_packets"));
    double need = 0, have = 0;
    const char *needs = strstr(r.err, "needs "), *only = strstr(r.err, "only ");
    cr_assert(needs && sscanf(needs, "needs %lf GiB", &need) == 1, "%s", r.err);
    cr_assert(only && sscanf(only, "only %lf MiB is available", &have) == 1, "%s", r.err);
    /* 9000000 queues of 38 bytes are 0.32 GiB alone; it cannot fit in 1 GiB
       of which the program itself takes some. */
    cr_assert_gt(need, 1.0, "%s", r.err);
    cr_assert_lt(have, 1024.0, "%s", r.err);
    result_free(&r);
}

/* Deep queues on a small network: the packets a full network holds. */
Test(program, deep_queues_are_covered_by_the_estimate)
{
    SKIP_UNDER_SANITIZERS("the sanitizers cannot start under an address-space limit");
    result r = run_insee(GiB, INSEE("run", "--set", "router.plugin=\"dally\"", "--set",
                                   "router.vcs=64", "--set", "router.queue_packets=4096"));
    refused(&r, ARGS("64 routers, 256 ports and 64 nodes with 16448 queues", "vcs = 64",
                     "([router] queue_packets = 4096, inject_packets = 4)"));
}

/* The estimate refuses no reasonable network: the 64x32x32 torus (about
   100 MiB at INSEE's defaults) runs under 1 GiB, and so does the 8x8 torus
   with deep queues (every queue full would be 640 KiB of packets). With
   two cores to take, the torus is not split into two parts by default:
   its worst case fits the limit once, not twice. */
Test(program, reasonable_networks_still_run_under_a_limit)
{
    SKIP_UNDER_SANITIZERS("the sanitizers cannot start under an address-space limit");
    g_setenv("INSEE_CORES", "2", TRUE);
    result r = run_insee(GiB, INSEE("run", "--set", "topology.dims=[64, 32, 32]", "--set",
                                   "simulation.warmup=0", "--set", "simulation.cycles=20"));
    g_unsetenv("INSEE_CORES");
    cr_assert_eq(r.status, 0, "status %d, stderr: %s", r.status, r.err);
    cr_assert(strstr(r.out, "65536 nodes"), "%s", r.out);
    cr_assert_null(strstr(r.out, "as parts"), "%s", r.out);
    result_free(&r);
    r = run_insee(GiB, INSEE("run", "--set", "router.queue_packets=64", "--set",
                            "simulation.cycles=1000"));
    cr_assert_eq(r.status, 0, "status %d, stderr: %s", r.status, r.err);
    result_free(&r);
}

/* A time series of every cycle over 10^8 cycles once ran the whole
   simulation and then failed to allocate 2 GiB for its points, writing
   nothing. Now it is refused before the run, naming the key; a series of a
   reasonable length still runs under the same limit, JSON included. */
Test(program, a_series_too_long_for_memory_is_refused_before_the_run)
{
    SKIP_UNDER_SANITIZERS("the sanitizers cannot start under an address-space limit");
    char *dir = g_dir_make_tmp("insee-limits-XXXXXX", NULL);
    char *json = g_strdup_printf("--json=%s/run.json", dir);
    result r = run_insee(GiB, INSEE("run", "--set", "simulation.cycles=100000000", "--set",
                                   "stats.interval=1", json));
    assert_refused(&r, ARGS("[stats] interval = 1", "100205002 points",
                            "raise interval", "the address-space limit, ulimit -v"));
    cr_assert_null(strstr(r.out, "# results"), "refused before the run: %s", r.out);
    result_free(&r);
    r = run_insee(GiB, INSEE("run", "--set", "simulation.cycles=100000", "--set",
                            "stats.interval=10", json));
    cr_assert_eq(r.status, 0, "status %d, stderr: %s", r.status, r.err);
    result_free(&r);
    char *written = g_strdup_printf("%s/run.json", dir);
    g_remove(written);
    g_rmdir(dir);
    g_free(written);
    g_free(json);
    g_free(dir);
}

/* Once 16 s and 8 GB before a message naming no parameter: now the range. */
Test(program, hypercube_31_is_refused_by_its_range)
{
    result r = run_insee(0, INSEE("run", "--set", "topology.plugin=\"hypercube\"", "--set",
                                 "topology.n=31"));
    refused(&r, ARGS("topology.n (topology plugin 'hypercube') is 31, outside [1, 25]"));
}

/* Once accepted by hyperx and refused by the kernel: 65535 ports at a
   router, two more than the kernel's port numbers hold. */
Test(program, hyperx_trunking_past_the_ports_is_refused_by_the_plugin)
{
    result r = run_insee(0, INSEE("run", "--set", "topology.plugin=\"hyperx\"", "--set",
                                 "topology.dims=[2]", "--set", "topology.trunking=65535"));
    refused(&r, ARGS("[topology] plugin 'hyperx'", "65535 ports per router",
                     "the kernel handles at most 65533", "use less trunking"));
}

/* A configuration too large is refused after reading at most the cap; one
   of exactly the cap is read; a device is refused unread; a pipe still
   works. */
Test(program, configuration_is_capped)
{
    result r = run_insee(0, INSEE("run", "/dev/zero"));
    refused(&r, ARGS("cannot read the configuration /dev/zero: it is a device"));

    char *path = NULL;
    int fd = g_file_open_tmp("insee-limits-XXXXXX.toml", &path, NULL);
    cr_assert_geq(fd, 0);
    /* A valid experiment padded with a comment to exactly the cap. */
    const char *head = "[simulation]\ncycles = 100\n#";
    char *text = g_malloc(INSEE_CONFIG_MAX_BYTES);
    memset(text, ' ', INSEE_CONFIG_MAX_BYTES);
    memcpy(text, head, strlen(head));
    text[INSEE_CONFIG_MAX_BYTES - 1] = '\n';
    cr_assert_eq(write(fd, text, INSEE_CONFIG_MAX_BYTES), (ssize_t)INSEE_CONFIG_MAX_BYTES);
    g_free(text);
    r = run_insee(0, INSEE("run", path));
    cr_assert_eq(r.status, 0, "exactly the cap: status %d, %s", r.status, r.err);
    cr_assert(strstr(r.out, "cycles = 100"), "%s", r.out);
    result_free(&r);
    /* One byte more: refused from its size. */
    cr_assert_eq(ftruncate(fd, INSEE_CONFIG_MAX_BYTES + 1), 0);
    r = run_insee(0, INSEE("run", path));
    refused(&r, ARGS("it is larger than 16 MiB, the most a configuration may hold"));
    close(fd);
    g_remove(path);
    g_free(path);

    char *cmd = g_strdup_printf("printf '[simulation]\\ncycles = 100\\n' | '%s' run /dev/stdin",
                                INSEE_TEST_BIN);
    int wait = 0;
    char *out = NULL, *err = NULL;
    cr_assert(g_spawn_sync(NULL, (char *[]){"/bin/sh", "-c", cmd, NULL}, NULL, G_SPAWN_DEFAULT,
                           NULL, NULL, &out, &err, &wait, NULL));
    cr_assert(WIFEXITED(wait) && WEXITSTATUS(wait) == 0, "a pipe: %s", err);
    cr_assert(strstr(out, "cycles = 100"), "%s", out);
    g_free(out);
    g_free(err);
    g_free(cmd);
}

/* `insee` run by /bin/sh with `input` piped into its stdin; its stderr. */
static char *piped(const char *input, const char *args, int *status)
{
    char *cmd = g_strdup_printf("%s | '%s' run %s", input, INSEE_TEST_BIN, args);
    int wait = 0;
    char *err = NULL;
    cr_assert(g_spawn_sync(NULL, (char *[]){"/bin/sh", "-c", cmd, NULL}, NULL,
                           G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &err, &wait, NULL));
    *status = WIFEXITED(wait) ? WEXITSTATUS(wait) : -1;
    g_free(cmd);
    return err;
}

/* A SpiNNaker table that never ends: entries stop at one per (router,
   source) pair, 16 x 16 on a 4 x 4 torus, so entry 257 is refused at its
   line; comments, which take no memory, stop at 256 MiB. */
Test(program, endless_spinnaker_tables_stop)
{
    const char *args = "--set topology.dims=[4,4] --set router.plugin=spinnaker "
                       "--set router.table=file --set router.file=/dev/stdin";
    int status = 0;
    char *err = piped("yes '0 0 local'", args, &status);
    cr_assert_eq(status, 2, "%s", err);
    cr_assert(strstr(err, "/dev/stdin:257: more entries than (router, source) pairs"), "%s",
              err);
    g_free(err);
    /* Comment lines of 4095 bytes, the longest a line may be: 65552 of them
       stay below 2^28 bytes, the 65553rd goes past. */
    err = piped("yes \"#$(printf '%4093s')\"", args, &status);
    cr_assert_eq(status, 2, "%s", err);
    cr_assert(strstr(err, "/dev/stdin:65553: the file goes on past 256 MiB"), "%s", err);
    g_free(err);
}

/* A placement file that never ends is read up to the cap, no further; a
   device is refused unread. */
Test(program, endless_placement_file_stops)
{
    result r = run_insee(0, INSEE("run", "--set", "placement.plugin=file", "--set",
                                  "placement.path=/dev/zero"));
    refused(&r, ARGS("'/dev/zero': it is a device"));
    int status = 0;
    char *err = piped("yes '0 0'", "--set placement.plugin=file --set placement.path=/dev/stdin",
                      &status);
    cr_assert_eq(status, 2, "%s", err);
    cr_assert(strstr(err, "'/dev/stdin' goes on past 256 MiB"), "%s", err);
    g_free(err);
}

/* Once an abort in GLib: 64 x 64 nodes x 65536 tasks each is 2^28 tasks,
   whose per-task state the kernel now weighs before allocating it. */
Test(program, too_many_tasks_for_memory_are_refused)
{
    SKIP_UNDER_SANITIZERS("the sanitizers cannot start under an address-space limit");
    char *path = NULL;
    int fd = g_file_open_tmp("insee-limits-XXXXXX.toml", &path, NULL);
    cr_assert_geq(fd, 0);
    close(fd);
    cr_assert(g_file_set_contents(path, "[topology]\ndims = [64, 64]\n[[application]]\n"
                                        "name = \"many\"\ntasks_per_node = 65536\n"
                                        "[application.traffic]\nplugin = \"uniform\"\n",
                                  -1, NULL));
    result r = run_insee(GiB, INSEE("run", path));
    refused(&r, ARGS("the applications have 268435456 tasks in all",
                     "the address-space limit, ulimit -v",
                     "Lower tasks or tasks_per_node in [[application]]"));
    g_remove(path);
    g_free(path);
}
