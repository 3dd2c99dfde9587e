/* The storage model of the dynamic flow engine (kernel/flow/storage.c,
 * docs/storage.md) against closed forms: a read or a write limited by the
 * NVM device or by the PCIe link completes at bytes / bandwidth; an
 * internal store shared by every task divides its device; the external
 * placement's reads cross the network and slow an application's message
 * under no priority but not under application-first; the cache serves
 * reads at once; the communicate phase follows the permutation it is
 * given; a six-state matrix that is not doubly stochastic is
 * refused naming its column; a [storage] table that no access uses
 * changes no figure; the same seed gives the same JSON, byte for byte. */
#include <criterion/criterion.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "flow/flow.h"
#include "run_helpers.h"

/* INRFlow's six states: init, compute, communicate, read, write, end.
   Permutation matrices are doubly stochastic: init -> read -> end (one
   read per task), init -> write -> end (one write), init -> communicate
   -> end (one message). */
#define READ_ONCE "0 0 0 1 0 0; 0 0 1 0 0 0; 0 0 0 0 1 0; 0 0 0 0 0 1; 0 1 0 0 0 0; 1 0 0 0 0 0"
#define WRITE_ONCE "0 0 0 0 1 0; 0 0 1 0 0 0; 0 0 0 1 0 0; 0 1 0 0 0 0; 0 0 0 0 0 1; 1 0 0 0 0 0"
#define COMM_ONCE "0 0 1 0 0 0; 0 0 0 1 0 0; 0 0 0 0 0 1; 0 0 0 0 1 0; 0 1 0 0 0 0; 1 0 0 0 0 0"

/* 51.2 Gb/s is 6.4 bytes per ns; 8 Gb/s is 1 byte per ns. */
#define NET "[simulation]\nengine = \"dynamic\"\nseed = 3\n" \
            "[topology]\nplugin = \"mesh\"\ndims = [4]\n"     \
            "[router]\nplugin = \"dally\"\nmode = \"basic\"\n" \
            "[flow]\nlink_gbps = 51.2\ncycle_ns = 0\n"

typedef struct run {
    double makespan, app[2];
    uint64_t messages, self_messages, bytes;
    double fct_mean;
} run;

static run run_of(const char *toml)
{
    insee_config *cfg;
    insee_registry *reg;
    insee_experiment *exp = run_experiment(toml, NULL, &cfg, &reg);
    const insee_flow_dyn_report *r = insee_experiment_dyn_report(exp);
    cr_assert(r);
    cr_assert_eq(r->bytes_delivered, r->bytes_sent);
    cr_assert_eq(r->unroutable, 0);
    run out = {.makespan = r->makespan, .messages = r->messages,
               .self_messages = r->self_messages, .bytes = r->bytes_sent,
               .fct_mean = r->fct_mean};
    for (uint32_t a = 0; a < r->n_apps && a < 2; a++)
        out.app[a] = r->app_completion[a];
    free_experiment(exp, cfg, reg);
    return out;
}

/* Every task of a markov application on the 4 nodes reads (or writes)
   `bytes` once under `storage`. */
static run one_access(const char *matrix, const char *storage, int bytes)
{
    char *toml = g_strdup_printf(NET "[storage]\n%s\n"
                                     "[traffic]\nplugin = \"markov\"\nstorage = 0\n"
                                     "matrix = \"%s\"\nio_bytes = %d\n",
                                 storage, matrix, bytes);
    run r = run_of(toml);
    g_free(toml);
    return r;
}

/* Local: each task's own device, 64 000 bytes at the slower of the NVM
   device and the PCIe link. */
Test(storage, a_local_access_completes_at_its_size_over_the_slower_of_device_and_pcie)
{
    static const struct {
        const char *storage;
        double Bps;
    } cases[] = {
        {"nvm_gbps = 8\npcie_gbps = 32", 1e9},  /* the device limits */
        {"nvm_gbps = 32\npcie_gbps = 8", 1e9},  /* PCIe limits */
        {"nvm_gbps = 16\npcie_gbps = 64", 2e9},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        for (int write = 0; write < 2; write++) {
            run r = one_access(write ? WRITE_ONCE : READ_ONCE, cases[i].storage, 64000);
            cr_assert_float_eq(r.makespan, 64000 / cases[i].Bps, 1e-15, "%s, %s",
                               cases[i].storage, write ? "write" : "read");
            cr_assert_eq(r.messages, 4, "every access a flow, none between nodes");
            cr_assert_eq(r.bytes, 4 * 64000);
        }
    }
}

/* Internal with internal_fraction = 1/4: the first node's device holds
   every task's data, so 4 reads share it: 4 x 64 000 bytes at 1 byte/ns,
   and the reads of the 3 other nodes cross the network (at 6.4 bytes/ns,
   never the bottleneck). External: the same through the one server. */
Test(storage, one_store_for_every_task_divides_its_device)
{
    run internal = one_access(READ_ONCE,
                              "placement = \"internal\"\ninternal_fraction = 0.25\n"
                              "nvm_gbps = 8",
                              64000);
    cr_assert_float_eq(internal.makespan, 4 * 64000 / 1e9, 1e-15);
    cr_assert_float_eq(internal.fct_mean, 4 * 64000 / 1e9, 1e-15, "all end together");
    /* The server is node 3: the application has the 3 others. */
    run external = one_access(READ_ONCE,
                              "placement = \"external\"\nstorage_nodes = 1\nserver_gbps = 8",
                              64000);
    cr_assert_float_eq(external.makespan, 3 * 64000 / 1e9, 1e-15);
    cr_assert_eq(external.messages, 3);
}

/* A line of 4 routers, node 3 the storage server (its device at 1000
   Gb/s, never the bottleneck). The reader, on node 0, reads R bytes from
   it: router 3 -> 2 -> 1 -> 0. The application, on nodes 1 and 2, sends
   M bytes from node 2 to node 1 across the link 2 -> 1 the read crosses
   too. Alone it takes M / bw. No priority: the two share the link, and
   the application takes 2 M / bw; application first: M / bw as alone;
   bandwidth apportionment at 3/4: M / (0.75 bw). The link never idles,
   so the read ends at (M + R) / bw under every policy. */
Test(storage, external_reads_cross_the_network_and_slow_an_application_unless_it_comes_first)
{
    const double bw = 6.4e9, M = 64000, R = 640000;
    char *dir = g_dir_make_tmp("insee-storage-XXXXXX", NULL);
    char *trace = g_build_filename(dir, "app.trc", NULL);
    cr_assert(g_file_set_contents(trace, "s 1 0 0 64000\nr 1 0 0 64000\n", -1, NULL));
    const char *policy[] = {"priority = \"np\"", "priority = \"fp\"",
                            "priority = \"ba\"\napp_share = 0.75"};
    const double slower[] = {2, 1, 1 / 0.75}; /* the application's time over M / bw */
    for (size_t i = 0; i < G_N_ELEMENTS(policy); i++) {
        for (int reads = 0; reads < 2; reads++) {
            char *toml = g_strdup_printf(
                NET "%s\n"
                    "[storage]\nplacement = \"external\"\nstorage_nodes = 1\n"
                    "server_gbps = 1000\n"
                    "[[application]]\nname = \"reader\"\ntasks = 1\n"
                    "[application.traffic]\nplugin = \"markov\"\nstorage = 0\n"
                    "matrix = \"%s\"\nio_bytes = %d\n"
                    "[[application]]\nname = \"app\"\ntasks = 2\n"
                    "[application.traffic]\nplugin = \"trace\"\nfile = \"%s\"\n",
                policy[i], reads ? READ_ONCE : "1 0 0 0 0 0; 0 1 0 0 0 0; 0 0 1 0 0 0; "
                                                   "0 0 0 1 0 0; 0 0 0 0 1 0; 0 0 0 0 0 1",
                (int)R, trace);
            run r = run_of(toml);
            double expect = (reads ? slower[i] : 1) * M / bw;
            cr_assert_float_eq(r.app[1], expect, 1e-15, "%s, %s: %.15g s", policy[i],
                               reads ? "with the reads" : "alone", r.app[1]);
            if (reads)
                cr_assert_float_eq(r.app[0], (M + R) / bw, 1e-15, "%s: the read", policy[i]);
            g_free(toml);
        }
    }
    g_unlink(trace);
    g_rmdir(dir);
    g_free(trace);
    g_free(dir);
}

/* cache_hit = 1: every read is served from memory at once; writes still
   reach the device. */
Test(storage, the_cache_serves_reads_at_once_and_never_writes)
{
    run reads = one_access(READ_ONCE, "cache_hit = 1\nnvm_gbps = 8", 64000);
    cr_assert_eq(reads.makespan, 0);
    cr_assert_eq(reads.messages, 0);
    cr_assert_eq(reads.self_messages, 4);
    run writes = one_access(WRITE_ONCE, "cache_hit = 1\nnvm_gbps = 8", 64000);
    cr_assert_float_eq(writes.makespan, 64000 / 1e9, 1e-15);
}

/* A [storage] table with no storage access in the workload changes no
   figure: the same messages, completion and flow times as without it. */
Test(storage, a_storage_table_without_accesses_changes_nothing)
{
    const char *traffic = "[traffic]\nplugin = \"uniform\"\nmessage_bytes = 4096\n";
    char *with = g_strdup_printf(NET "%s[storage]\nnvm_gbps = 1\n", traffic);
    char *without = g_strdup_printf(NET "%s", traffic);
    run a = run_of(with), b = run_of(without);
    cr_assert_eq(a.makespan, b.makespan);
    cr_assert_eq(a.messages, b.messages);
    cr_assert_eq(a.self_messages, b.self_messages);
    cr_assert_eq(a.fct_mean, b.fct_mean);
    cr_assert_gt(b.messages, 0);
    g_free(with);
    g_free(without);
}

/* Init -> communicate -> end on a line of 4 nodes, M bytes each: with
   comm = "shift" (t to t + 1 mod 4) no two messages share a link, M / bw;
   with "bit-complement" (t to 3 - t) 0 -> 3 and 1 -> 2 share the link
   1 -> 2 (and 3 -> 0, 2 -> 1 the link 2 -> 1), 2 M / bw. */
Test(storage, the_communicate_phase_follows_its_pattern)
{
    static const struct {
        const char *comm;
        double times;
    } cases[] = {{"shift", 1}, {"bit-complement", 2}};
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        char *toml = g_strdup_printf(NET "[traffic]\nplugin = \"markov\"\nstorage = 0\n"
                                         "matrix = \"" COMM_ONCE "\"\ncomm = \"%s\"\n"
                                         "message_bytes = 64000\n",
                                     cases[i].comm);
        run r = run_of(toml);
        cr_assert_eq(r.messages, 4, "%s", cases[i].comm);
        cr_assert_float_eq(r.makespan, cases[i].times * 64000 / 6.4e9, 1e-15, "%s",
                           cases[i].comm);
        g_free(toml);
    }
}

/* A six-state matrix whose rows sum to 1 but whose second column does
   not: refused, naming the column and its state. */
Test(storage, a_matrix_that_is_not_doubly_stochastic_is_refused_naming_the_column)
{
    char *msg = run_toml_error(NET "[traffic]\nplugin = \"markov\"\nstorage = 0\n"
                                   "matrix = \"0 1 0 0 0 0; 0 1 0 0 0 0; 0 0 0 0 1 0; "
                                   "0 0 0 0 0 1; 0 0 1 0 0 0; 1 0 0 0 0 0\"\n");
    cr_assert_not_null(strstr(msg, "column 2 (into compute) sums to 2"), "%s", msg);
    g_free(msg);
    msg = run_toml_error(NET "[traffic]\nplugin = \"markov\"\nstorage = 0\n"
                             "matrix = \"0 0 0 1 0 0; 0 0 1 0 0 0; 0 0 0 0 1 0; 0 0 0 0 0 1; "
                             "0 1 0 0 0 0; 1 0 0 0 0 0.5\"\n");
    cr_assert_not_null(strstr(msg, "row 6 (from end) sums to 1.5"), "%s", msg);
    g_free(msg);
    msg = run_toml_error(NET "[storage]\nplacement = \"external\"\n"
                             "[traffic]\nplugin = \"markov\"\nstorage = 0\n"
                             "matrix = \"" READ_ONCE "\"\n");
    cr_assert_not_null(strstr(msg, "storage_nodes = 0"), "%s", msg);
    g_free(msg);
}

/* The JSON of a run with random choices (internal stores, the cache, the
   walk): byte for byte the same for the same seed, not for another. */
Test(storage, same_seed_same_json)
{
    char *dir = g_dir_make_tmp("insee-storage-XXXXXX", NULL);
    char *text[3];
    for (int i = 0; i < 3; i++) {
        char *json = g_build_filename(dir, "run.json", NULL);
        char *toml = g_strdup_printf(
            "[simulation]\nengine = \"dynamic\"\nseed = %d\n"
            "[topology]\nplugin = \"mesh\"\ndims = [4, 4]\n"
            "[router]\nplugin = \"dally\"\nmode = \"basic\"\n"
            "[stats]\njson = \"%s\"\n"
            "[storage]\nplacement = \"internal\"\ncache_hit = 0.5\n"
            "[traffic]\nplugin = \"markov\"\nstorage = 0\nsteps = 30\n"
            "matrix = \"0 0.6 0.1 0.3 0 0; 0 0.2 0.5 0.1 0.1 0.1; 0 0.1 0.3 0.2 0.3 0.1; "
            "0 0.1 0.1 0.3 0.4 0.1; 0 0 0 0.1 0.2 0.7; 1 0 0 0 0 0\"\n",
            i < 2 ? 5 : 6, json);
        insee_config *cfg;
        insee_registry *reg;
        insee_experiment *exp = run_experiment(toml, NULL, &cfg, &reg);
        GError *err = NULL;
        cr_assert(insee_experiment_write_outputs(exp, &err), "%s", err ? err->message : "");
        free_experiment(exp, cfg, reg);
        cr_assert(g_file_get_contents(json, &text[i], NULL, NULL));
        g_unlink(json);
        g_free(json);
        g_free(toml);
    }
    cr_assert_str_eq(text[0], text[1]);
    cr_assert_str_neq(text[0], text[2]);
    for (int i = 0; i < 3; i++)
        g_free(text[i]);
    g_rmdir(dir);
    g_free(dir);
}
