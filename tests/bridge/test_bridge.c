/* The bridge end to end (plugins/bridge/sync-server, kernel/workload/bridge.c,
 * libinsee-client): client processes forked from the test exchange messages
 * through a 4 x 4 torus run by the kernel.
 *
 * Timing closed forms. Node x + 4 y sends to its tornado partner
 * (x + 1, y + 1): two hops, over links no other message uses, so a
 * one-packet message queued at cycle c has its tail consumed at c + h + L - 1
 * (h = 2, L = 16 phits) and a two-packet one (72 bytes: 2 packets of 64)
 * L cycles later. The lock-step model queues a message at its exact cycle
 * (timestamp x F / S) and hands it over at the first boundary after its
 * arrival; the parallel model queues it at the start of the next slice. */
#define _DEFAULT_SOURCE /* S_ISSOCK */
#include <criterion/criterion.h>
#include <insee/client.h>
#include <json-glib/json-glib.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run_helpers.h"

#ifndef INSEE_TEST_BIN
#error "INSEE_TEST_BIN: the insee program"
#endif

#define L 16u
#define HOPS 2u
#define NODES 16u

static uint32_t tornado(uint32_t n)
{
    return (n % 4 + 1) % 4 + 4 * ((n / 4 + 1) % 4);
}

/* What the clients send: message i from src to dst, `bytes` long, at client
   time `timestamp`; handle i, payload "m<i>". Set before the fork. */
typedef struct plan_msg {
    uint32_t src, dst;
    uint64_t bytes, timestamp;
} plan_msg;
static plan_msg plan[64];
/* Message i's choices for insee_client_inject_nic(): 0 and 0 are
   insee_client_inject()'s. */
static uint16_t plan_nic[64];
static uint8_t plan_copy[64];
static uint32_t n_plan;
/* The nodes the bridge serves ([bridge] nodes), shared by the clients. */
static uint32_t served = NODES;
/* The protocol version peer_plan() announces. */
static uint16_t peer_version = INSEE_CLIENT_PROTOCOL;

/* What a client recorded of one delivery. */
typedef struct got {
    uint32_t src, dst;
    uint64_t handle, bytes, injected, arrival, handed;
    char payload[16];
} got;

static char *temp_path(const char *what)
{
    char *p = g_strdup_printf("%s/insee-bridge-%d-%s", g_get_tmp_dir(), (int)getpid(), what);
    unlink(p);
    return p;
}

/* A client of nodes [lo, hi): runs slices until it has received every
   message of the plan addressed to it and sent all of its own, writing each
   delivery (or its error) as a line of `out`. */
static void peer_plan(const char *address, uint32_t lo, uint32_t hi, FILE *out)
{
    uint32_t nodes[NODES], n = 0, expected = 0, received = 0, sent = 0, to_send = 0;
    for (uint32_t v = lo; v < hi; v++)
        nodes[n++] = v;
    for (uint32_t i = 0; i < n_plan; i++) {
        expected += plan[i].dst >= lo && plan[i].dst < hi;
        to_send += plan[i].src >= lo && plan[i].src < hi;
    }
    char name[32];
    snprintf(name, sizeof name, "peer%u", lo);
    insee_client_error err = {0};
    insee_client *c = insee_client_connect_version(address, name, nodes, n, peer_version, &err);
    if (!c) {
        fprintf(out, "E %s\n", err.message);
        return;
    }
    while (received < expected || sent < to_send) {
        insee_client_slice sl;
        const insee_client_delivery *d;
        size_t nd;
        if (!insee_client_end_slice(c, &sl, &d, &nd, &err)) {
            fprintf(out, "E %s\n", err.message);
            break;
        }
        for (size_t k = 0; k < nd; k++, received++)
            fprintf(out, "D %u %u %llu %llu %llu %llu %llu %.*s\n", d[k].src, d[k].dst,
                    (unsigned long long)d[k].handle, (unsigned long long)d[k].bytes,
                    (unsigned long long)d[k].injected_cycle,
                    (unsigned long long)d[k].arrival_cycle, (unsigned long long)sl.start_cycle,
                    (int)d[k].payload_len, d[k].payload ? (const char *)d[k].payload : "");
        for (uint32_t i = 0; i < n_plan; i++) {
            const plan_msg *m = &plan[i];
            if (m->src < lo || m->src >= hi || m->timestamp < sl.start_unit ||
                m->timestamp >= sl.end_unit)
                continue;
            char payload[16];
            int len = snprintf(payload, sizeof payload, "m%u", i);
            if (!insee_client_inject_nic(c, m->src, m->dst, m->bytes, m->timestamp, i, payload,
                                         (uint32_t)len, plan_nic[i], plan_copy[i], &err))
                fprintf(out, "E %s\n", err.message);
            sent++;
        }
    }
    insee_client_close(c);
}

typedef struct peer {
    pid_t pid;
    char *out;
} peer;

typedef void (*peer_fn)(const char *address, uint32_t lo, uint32_t hi, FILE *out);

static peer spawn(peer_fn fn, const char *address, uint32_t lo, uint32_t hi)
{
    char what[32];
    snprintf(what, sizeof what, "peer%u", lo);
    peer p = {.out = temp_path(what)};
    fflush(NULL);
    p.pid = fork();
    cr_assert(p.pid >= 0);
    if (p.pid == 0) {
        FILE *f = fopen(p.out, "w");
        if (f) {
            fn(address, lo, hi, f);
            fclose(f);
        }
        _exit(0);
    }
    return p;
}

static char *reap(peer *p)
{
    int status;
    waitpid(p->pid, &status, 0);
    char *text = NULL;
    g_file_get_contents(p->out, &text, NULL, NULL);
    unlink(p->out);
    g_free(p->out);
    return text ? text : g_strdup("");
}

/* The run's stderr (where plugins log), captured around the call. */
typedef struct capture {
    int saved;
    char *path;
} capture;

static capture capture_start(void)
{
    capture c = {.path = temp_path("stderr")};
    fflush(stderr);
    c.saved = dup(STDERR_FILENO);
    FILE *f = fopen(c.path, "w");
    cr_assert(f);
    dup2(fileno(f), STDERR_FILENO);
    fclose(f);
    return c;
}

static char *capture_end(capture *c)
{
    fflush(stderr);
    dup2(c->saved, STDERR_FILENO);
    close(c->saved);
    char *text = NULL;
    g_file_get_contents(c->path, &text, NULL, NULL);
    unlink(c->path);
    g_free(c->path);
    return text ? text : g_strdup("");
}

static char *config(const char *bridge)
{
    return g_strdup_printf("[simulation]\nseed = 1\npacket_phits = %u\nphit_bytes = 4\n"
                           "[topology]\nplugin = \"torus\"\ndims = [4, 4]\n"
                           "[router]\nplugin = \"bubble\"\n"
                           "[bridge]\nplugin = \"sync-server\"\n%s\n", L, bridge);
}

/* Build, start `clients` peers of served / clients nodes each, run. Returns
   the run's result; the peers' outputs and the log go to *outs and *log. */
static gboolean run_with_peers(const char *toml, peer_fn fn, const char *address,
                               uint32_t clients, char **outs, char **log, GError **err)
{
    insee_config *cfg;
    insee_registry *reg;
    insee_experiment *exp = build_toml(toml, &cfg, &reg);
    peer peers[4];
    for (uint32_t i = 0; i < clients; i++)
        peers[i] = spawn(fn, address, i * served / clients, (i + 1) * served / clients);
    capture cap = capture_start();
    gboolean ok = insee_experiment_run(exp, err) && insee_experiment_write_outputs(exp, err);
    insee_report_print(insee_experiment_report(exp), stderr);
    insee_experiment_free(exp);
    *log = capture_end(&cap);
    for (uint32_t i = 0; i < clients; i++)
        outs[i] = reap(&peers[i]);
    insee_registry_free(reg);
    insee_config_free(cfg);
    return ok;
}

/* Every planned message delivered once, to the right node, with its
   handle, bytes and payload; returns the deliveries by handle. */
static void check_once(char **outs, uint32_t clients, got *by_handle)
{
    bool seen[64] = {0};
    for (uint32_t i = 0; i < clients; i++) {
        char **lines = g_strsplit(outs[i], "\n", -1);
        for (char **l = lines; *l && **l; l++) {
            cr_assert(**l == 'D', "peer %u: %s", i, *l);
            got g = {0};
            unsigned long long h, b, inj, arr, hand;
            cr_assert_eq(sscanf(*l, "D %u %u %llu %llu %llu %llu %llu %15s", &g.src, &g.dst, &h,
                                &b, &inj, &arr, &hand, g.payload), 8, "%s", *l);
            cr_assert(h < n_plan && !seen[h], "handle %llu delivered twice or unknown", h);
            seen[h] = true;
            g.handle = h, g.bytes = b, g.injected = inj, g.arrival = arr, g.handed = hand;
            const plan_msg *m = &plan[h];
            cr_assert(g.src == m->src && g.dst == m->dst && g.bytes == m->bytes,
                      "message %llu: %u -> %u, %llu bytes", h, g.src, g.dst, b);
            cr_assert(g.dst >= i * served / clients && g.dst < (i + 1) * served / clients,
                      "message %llu reached the client of another node", h);
            char want[16];
            snprintf(want, sizeof want, "m%llu", h);
            cr_assert_str_eq(g.payload, want);
            by_handle[h] = g;
        }
        g_strfreev(lines);
    }
    for (uint32_t h = 0; h < n_plan; h++)
        cr_assert(seen[h], "message %u (%u -> %u) never delivered", h, plan[h].src, plan[h].dst);
}

/* Each node sends a 64-byte message (one packet) to its tornado partner at
   cycle n of slice 0, then a 72-byte one (two packets) at cycle n of slice 1. */
static void plan_tornado(uint64_t S, uint64_t F)
{
    n_plan = 0;
    for (uint32_t n = 0; n < NODES; n++) {
        plan[n_plan++] = (plan_msg){n, tornado(n), 64, n * S / F};
        plan[n_plan++] = (plan_msg){n, tornado(n), 72, S + n * S / F};
    }
}

/* Zero load: the last packet of a message queued at `queued` is consumed. */
static uint64_t arrival_of(uint64_t queued, uint64_t bytes)
{
    uint64_t packets = bytes <= 64 ? 1 : 2;
    return queued + HOPS + L - 1 + (packets - 1) * L;
}

static uint64_t next_boundary(uint64_t arrival, uint64_t F)
{
    return (arrival / F + 1) * F;
}

/* A figure the bridge reported, read from the printed report's
   "[bridge] name  value" line. */
static double bridge_figure(const char *log, const char *name)
{
    char *label = g_strdup_printf("[bridge] %s ", name);
    const char *p = strstr(log, label);
    cr_assert(p, "no '%s' in the report:\n%s", label, log);
    double v = g_ascii_strtod(p + strlen(label), NULL);
    g_free(label);
    return v;
}

/* A run on a fresh Unix socket with `peers` peers running fn and these
   [bridge] keys besides socket: its result, the peers' outputs and the
   log. */
static gboolean session(const char *keys, peer_fn fn, uint32_t peers, char **outs, char **log,
                        GError **err)
{
    char *sock = temp_path("sock");
    char *address = g_strdup_printf("unix:%s", sock);
    char *bridge = g_strdup_printf("socket = \"%s\"\n%s", sock, keys);
    char *toml = config(bridge);
    gboolean ok = run_with_peers(toml, fn, address, peers, outs, log, err);
    g_free(toml);
    g_free(bridge);
    g_free(address);
    g_free(sock);
    return ok;
}

/* The plan through a run that must succeed: the deliveries by handle and
   the log. */
static char *run_plan(const char *keys, uint32_t clients, got *g)
{
    char *outs[4], *log, *more = g_strdup_printf("clients = %u\n%s", clients, keys);
    GError *err = NULL;
    cr_assert(session(more, peer_plan, clients, outs, &log, &err), "run: %s",
              err ? err->message : "");
    check_once(outs, clients, g);
    for (uint32_t i = 0; i < clients; i++)
        g_free(outs[i]);
    g_free(more);
    return log;
}

/* Message h was queued at `queued`, consumed at its zero-load closed form
   and handed over at the next boundary; returns its arrival. */
static uint64_t check_timing(const got *g, uint32_t h, uint64_t queued, uint64_t F)
{
    cr_assert_eq(g[h].injected, queued, "message %u queued at %llu, not %llu", h,
                 (unsigned long long)g[h].injected, (unsigned long long)queued);
    uint64_t arrival = arrival_of(queued, plan[h].bytes);
    cr_assert_eq(g[h].arrival, arrival, "message %u (%llu bytes) arrived at %llu, closed form "
                 "%llu", h, (unsigned long long)plan[h].bytes,
                 (unsigned long long)g[h].arrival, (unsigned long long)arrival);
    cr_assert_eq(g[h].handed, next_boundary(arrival, F));
    return arrival;
}

static char *ratio_keys(uint64_t S, uint64_t F, const char *model)
{
    return g_strdup_printf("client_units = %llu\nnetwork_cycles = %llu\nmodel = \"%s\"\n",
                           (unsigned long long)S, (unsigned long long)F, model);
}

Test(bridge, lockstep_four_clients_exact_timing)
{
    const uint64_t S = 1000, F = 100;
    plan_tornado(S, F);
    char *keys = ratio_keys(S, F, "lockstep");
    got g[64];
    char *log = run_plan(keys, 4, g);
    double wait_sum = 0, wait_max = 0;
    for (uint32_t h = 0; h < n_plan; h++) {
        uint64_t arrival = check_timing(g, h, plan[h].timestamp * F / S, F);
        double wait = (double)(next_boundary(arrival, F) - arrival - 1);
        wait_sum += wait;
        wait_max = wait > wait_max ? wait : wait_max;
    }
    cr_assert_float_eq(bridge_figure(log, "deliveries"), n_plan, 1e-9, "%s", log);
    cr_assert_float_eq(bridge_figure(log, "delivery_wait_mean"), wait_sum / n_plan, 1e-6, "%s",
                       log);
    cr_assert_float_eq(bridge_figure(log, "delivery_wait_max"), wait_max, 1e-9, "%s", log);
    cr_assert_float_eq(bridge_figure(log, "delivery_wait_mean_client"),
                       wait_sum / n_plan * (double)S / (double)F, 1e-6, "%s", log);
    g_free(log);
    g_free(keys);
}

/* Parallel model: a message sent during slice j enters the network at the
   start of slice j + 1, whatever its timestamp. */
Test(bridge, parallel_injects_at_the_next_slice_start)
{
    const uint64_t S = 1000, F = 100;
    plan_tornado(S, F);
    char *keys = ratio_keys(S, F, "parallel");
    got g[64];
    char *log = run_plan(keys, 2, g);
    uint64_t late_max = 0, late_sum = 0;
    for (uint32_t h = 0; h < n_plan; h++) {
        uint64_t slice = plan[h].timestamp / S;
        check_timing(g, h, (slice + 1) * F, F);
        uint64_t late = (slice + 1) * F - plan[h].timestamp * F / S;
        late_max = late > late_max ? late : late_max;
        late_sum += late;
    }
    cr_assert_float_eq(bridge_figure(log, "injection_wait_mean"), (double)late_sum / n_plan,
                       1e-6, "%s", log);
    cr_assert_float_eq(bridge_figure(log, "injection_wait_max"), (double)late_max, 1e-9, "%s",
                       log);
    g_free(log);
    g_free(keys);
}

/* Two messages of node 1 queued for the same cycle leave in the order they
   were injected, whatever records the kernel gives them: the slice before
   frees record 0 (2 -> 3, one hop) then record 1 (4 -> 6, two hops), so
   the later of the two gets the lower record. One hop each to node 0: the
   first is consumed at q + 1 + L - 1, the second L cycles later. */
Test(bridge, same_cycle_messages_of_a_node_keep_their_order)
{
    const uint64_t S = 1000, F = 100;
    n_plan = 0;
    plan[n_plan++] = (plan_msg){2, 3, 64, 0};
    plan[n_plan++] = (plan_msg){4, 6, 64, 0};
    plan[n_plan++] = (plan_msg){1, 0, 64, S};
    plan[n_plan++] = (plan_msg){1, 0, 64, S};
    char *keys = ratio_keys(S, F, "lockstep");
    got g[4];
    char *log = run_plan(keys, 1, g);
    cr_assert_lt(g[0].arrival, g[1].arrival, "record 0 is freed first");
    cr_assert_eq(g[2].arrival, F + 1 + L - 1, "the first injected leaves first");
    cr_assert_eq(g[3].arrival, F + 1 + L - 1 + L);
    g_free(log);
    g_free(keys);
}

/* The CSV row and the JSON document carry the bridge's figures too: the
   worst-case delay in client units is `worst` in both. */
static void check_outputs_name_the_delay(const char *csv, const char *json, double worst)
{
    char *text = NULL;
    cr_assert(g_file_get_contents(csv, &text, NULL, NULL));
    char *want = g_strdup_printf("bridge.delivery_wait_max_client=%g", worst);
    cr_assert(strstr(text, ",plugin_figures\n") && strstr(text, want), "%s", text);
    g_free(want);
    g_free(text);
    JsonParser *parser = json_parser_new();
    cr_assert(json_parser_load_from_file(parser, json, NULL));
    JsonArray *figs = json_object_get_array_member(json_node_get_object(json_parser_get_root(parser)),
                                                    "plugin_figures");
    gboolean found = FALSE;
    for (guint i = 0; i < json_array_get_length(figs); i++) {
        JsonObject *f = json_array_get_object_element(figs, i);
        if (strcmp(json_object_get_string_member(f, "name"), "delivery_wait_max_client") == 0) {
            cr_assert_str_eq(json_object_get_string_member(f, "section"), "bridge");
            cr_assert_str_eq(json_object_get_string_member(f, "unit"), "client units");
            cr_assert_float_eq(json_object_get_double_member(f, "value"), worst, 1e-9);
            found = TRUE;
        }
    }
    cr_assert(found, "no delivery_wait_max_client in %s", json);
    g_object_unref(parser);
    unlink(csv);
    unlink(json);
}

/* 001 §6 and §7.4: the slice ratio sets the link's bandwidth, and the
   report's worst-case artificial delay: a delivery consumed in the first
   cycle of a slice waits F - 1 cycles for its boundary, S - S/F client units
   (9950 at 10000:200, 950 at 1000:20). The paper counts the client cycle
   the message arrived in and gives S - 1 (9999, 999); here arrivals are
   known to the network cycle, S/F client units, hence the bound below. */
Test(bridge, slice_ratio_bandwidth_and_worst_case_delay)
{
    cr_assert_float_eq(insee_client_link_mbps(10000, 200, 5.0, 32), 128.0, 1e-9);
    cr_assert_float_eq(insee_client_link_mbps(1000, 20, 5.0, 32), 128.0, 1e-9);
    cr_assert_float_eq(insee_client_link_mbps(10000, 2000, 5.0, 32), 1280.0, 1e-9);
    static const uint64_t ratio[2][2] = {{10000, 200}, {1000, 20}};
    for (int r = 0; r < 2; r++) {
        uint64_t S = ratio[r][0], F = ratio[r][1];
        /* Queued at F - (h + L - 1): consumed at cycle F exactly. */
        n_plan = 1;
        plan[0] = (plan_msg){0, tornado(0), 64, (F - (HOPS + L - 1)) * S / F};
        char *csv = temp_path("csv"), *json = temp_path("json"), *ratio = ratio_keys(S, F, "lockstep");
        char *keys = g_strdup_printf("%s[stats]\ncsv = \"%s\"\njson = \"%s\"\n", ratio, csv, json);
        got g[1];
        char *log = run_plan(keys, 1, g);
        cr_assert_eq(g[0].arrival, F);
        cr_assert_eq(g[0].handed, 2 * F);
        cr_assert_float_eq(bridge_figure(log, "delivery_wait_max"), (double)(F - 1), 1e-9,
                           "%s", log);
        double worst = bridge_figure(log, "delivery_wait_max_client");
        cr_assert_float_eq(worst, (double)(S - S / F), 1e-6, "%s", log);
        cr_assert(worst <= (double)(S - 1), "the paper's bound: less than one slice");
        check_outputs_name_the_delay(csv, json, (double)(S - S / F));
        g_free(log);
        g_free(keys);
        g_free(ratio);
        g_free(csv);
        g_free(json);
    }
}

/* A run expected to fail, with `clients` peers running fn; returns the
   error and the peers' outputs. The server waits a second for a client: a
   forked peer connects well within it even on a loaded machine, and a run
   that fails for want of clients ends that much later. */
static char *run_failing(const char *keys, peer_fn fn, uint32_t clients, char **outs)
{
    char *log, *more = g_strdup_printf("timeout_ms = 1000\n%s", keys);
    GError *err = NULL;
    cr_assert_not(session(more, fn, clients, outs, &log, &err),
                  "the run should have failed; log:\n%s", log);
    char *msg = g_strdup(err->message);
    g_error_free(err);
    g_free(log);
    g_free(more);
    return msg;
}

static void peer_wrong_version(const char *address, uint32_t lo, uint32_t hi, FILE *out)
{
    (void)hi;
    insee_client_error err = {0};
    insee_client *c = insee_client_connect_version(address, "future", &lo, 1, 3, &err);
    fprintf(out, "%d %s\n", err.code, c ? "welcomed" : err.message);
    insee_client_close(c);
}

Test(bridge, wrong_version_refused_naming_both)
{
    char *outs[1];
    char *msg = run_failing("", peer_wrong_version, 1, outs);
    cr_assert(strstr(outs[0], "version 3") && strstr(outs[0], "versions 1 to 2"), "%s",
              outs[0]);
    cr_assert_eq(atoi(outs[0]), INSEE_CLIENT_ERR_REFUSED, "%s", outs[0]);
    cr_assert(strstr(msg, "only 0 of the 1 clients"), "%s", msg);
    g_free(outs[0]);
    g_free(msg);
}

/* One process: a client of nodes 0-3 is welcomed; one announcing node 3
   again and one announcing node 99 are refused. */
static void peer_claims(const char *address, uint32_t lo, uint32_t hi, FILE *out)
{
    (void)lo;
    (void)hi;
    insee_client_error err = {0};
    uint32_t first[] = {0, 1, 2, 3}, again[] = {4, 3}, unknown[] = {99};
    insee_client *a = insee_client_connect(address, "a", first, 4, &err);
    fprintf(out, "a %s\n", a ? "welcomed" : err.message);
    insee_client *b = insee_client_connect(address, "b", again, 2, &err);
    fprintf(out, "b %s\n", b ? "welcomed" : err.message);
    insee_client *c = insee_client_connect(address, "c", unknown, 1, &err);
    fprintf(out, "c %s\n", c ? "welcomed" : err.message);
    insee_client_close(c);
    insee_client_close(b);
    insee_client_close(a);
}

Test(bridge, duplicate_and_unknown_nodes_refused)
{
    char *outs[1];
    char *msg = run_failing("clients = 2\n", peer_claims, 1, outs);
    cr_assert(strstr(outs[0], "a welcomed"), "%s", outs[0]);
    cr_assert(strstr(outs[0], "node 3, already announced by client 'a'"), "%s", outs[0]);
    cr_assert(strstr(outs[0], "node 99, but the bridge serves nodes 0..15"), "%s", outs[0]);
    cr_assert(strstr(msg, "only 1 of the 2 clients"), "%s", msg);
    g_free(outs[0]);
    g_free(msg);
}

/* Receives slice 0, then the process ends without BYE. */
static void peer_vanishes(const char *address, uint32_t lo, uint32_t hi, FILE *out)
{
    uint32_t nodes[NODES], n = 0;
    for (uint32_t v = lo; v < hi; v++)
        nodes[n++] = v;
    insee_client_error err = {0};
    insee_client *c = insee_client_connect(address, lo ? "stays" : "vanishes", nodes, n, &err);
    insee_client_slice sl;
    const insee_client_delivery *d;
    size_t nd;
    if (!c || !insee_client_end_slice(c, &sl, &d, &nd, &err)) {
        fprintf(out, "E %s\n", err.message);
        return;
    }
    if (lo == 0) {
        fclose(out);
        _exit(0); /* the socket closes with the process: no BYE */
    }
    /* The other client: a message to the vanished node 0, one to itself. */
    insee_client_inject(c, lo, 0, 64, sl.start_unit, 0, NULL, 0, &err);
    insee_client_inject(c, lo, lo + 1, 64, sl.start_unit, 1, NULL, 0, &err);
    bool ok;
    while ((ok = insee_client_end_slice(c, &sl, &d, &nd, &err)) && nd == 0)
        ;
    if (ok)
        fprintf(out, "%zu %llu\n", nd, (unsigned long long)d[0].handle);
    else
        fprintf(out, "E %s\n", err.message);
    insee_client_close(c);
}

Test(bridge, disconnect_mid_slice_ends_the_run_naming_the_client)
{
    char *outs[2];
    char *msg = run_failing("clients = 2\n", peer_vanishes, 2, outs);
    cr_assert(strstr(msg, "client 'vanishes' (nodes 0, 1, 2, 3, 4, 5, 6, 7) left during slice 0 "
                          "without BYE"), "%s", msg);
    cr_assert(strstr(outs[1], "E the server ended the run: client 'vanishes'"), "%s", outs[1]);
    g_free(outs[0]);
    g_free(outs[1]);
    g_free(msg);
}

Test(bridge, disconnect_with_continue_goes_on_without_it)
{
    char *outs[2], *log;
    GError *err = NULL;
    cr_assert(session("clients = 2\non_disconnect = \"continue\"\n", peer_vanishes, 2, outs, &log, &err),
              "run: %s", err ? err->message : "");
    cr_assert_str_eq(outs[1], "1 1\n", "the message to itself, once: %s", outs[1]);
    cr_assert(strstr(log, "client 'vanishes' (nodes 0, 1, 2, 3, 4, 5, 6, 7) left during slice 0"),
              "%s", log);
    cr_assert(strstr(log, "1 deliveries dropped (client gone)"), "%s", log);
    g_free(outs[0]);
    g_free(outs[1]);
    g_free(log);
}

/* Welcomed, receives slice 0 and never ends it. */
static void peer_mute(const char *address, uint32_t lo, uint32_t hi, FILE *out)
{
    (void)hi;
    insee_client_error err = {0};
    insee_client *c = insee_client_connect(address, "mute", &lo, 1, &err);
    insee_client_slice sl;
    const insee_client_delivery *d;
    size_t nd;
    if (!c || !insee_client_end_slice(c, &sl, &d, &nd, &err)) {
        fprintf(out, "E %s\n", err.message);
        return;
    }
    fputs("in slice 0\n", out);
    fflush(out);
    pause(); /* killed by the test once the run has ended */
}

Test(bridge, silent_client_times_out_naming_it)
{
    char *sock = temp_path("sock");
    char *address = g_strdup_printf("unix:%s", sock);
    char *bridge = g_strdup_printf("socket = \"%s\"\ntimeout_ms = 1000\n", sock);
    char *toml = config(bridge);
    insee_config *cfg;
    insee_registry *reg;
    insee_experiment *exp = build_toml(toml, &cfg, &reg);
    peer p = spawn(peer_mute, address, 0, 1);
    GError *err = NULL;
    capture cap = capture_start();
    gboolean ok = insee_experiment_run(exp, &err);
    g_free(capture_end(&cap));
    kill(p.pid, SIGKILL);
    g_free(reap(&p));
    cr_assert_not(ok);
    cr_assert(strstr(err->message, "client 'mute' (node 0) sent nothing for 1000 ms during slice 0"),
              "%s", err->message);
    g_error_free(err);
    insee_experiment_free(exp);
    insee_registry_free(reg);
    insee_config_free(cfg);
    g_free(toml);
    g_free(bridge);
    g_free(address);
    g_free(sock);
}

/* A TCP port free right now on loopback. */
static int free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof sa;
    cr_assert(bind(fd, (struct sockaddr *)&sa, len) == 0 &&
              getsockname(fd, (struct sockaddr *)&sa, &len) == 0);
    close(fd);
    return ntohs(sa.sin_port);
}

/* The local addresses listening on TCP `port` (IPv4 and IPv6), as
   /proc/net/tcp{,6} spell them. */
static char *listeners(int port)
{
    GString *found = g_string_new(NULL);
    const char *files[] = {"/proc/net/tcp", "/proc/net/tcp6"};
    for (int f = 0; f < 2; f++) {
        char *text = NULL;
        if (!g_file_get_contents(files[f], &text, NULL, NULL))
            continue;
        char **lines = g_strsplit(text, "\n", -1);
        for (char **l = lines + 1; *l && **l; l++) {
            char local[64], remote[64], state[8];
            if (sscanf(*l, " %*s %63s %63s %7s", local, remote, state) != 3)
                continue;
            char *colon = strrchr(local, ':');
            if (colon && strtol(colon + 1, NULL, 16) == port && strcmp(state, "0A") == 0)
                g_string_append_printf(found, "%.*s ", (int)(colon - local), local);
        }
        g_strfreev(lines);
        g_free(text);
    }
    return g_string_free(found, FALSE);
}

Test(bridge, listens_on_loopback_only)
{
    int port = free_port();
    char *bridge = g_strdup_printf("port = %d\n", port);
    char *toml = config(bridge);
    insee_config *cfg;
    insee_registry *reg;
    insee_experiment *exp = build_toml(toml, &cfg, &reg);
    char *who = listeners(port);
    cr_assert_str_eq(who, "0100007F ", "listening on port %d: %s", port, who);
    insee_experiment_free(exp);
    insee_registry_free(reg);
    insee_config_free(cfg);
    g_free(who);
    g_free(toml);
    g_free(bridge);

    bridge = g_strdup_printf("port = %d\naddress = \"0.0.0.0\"\n", port);
    toml = config(bridge);
    char *msg = run_toml_error(toml);
    cr_assert(strstr(msg, "not a loopback address") && strstr(msg, "listen_any = true"), "%s",
              msg);
    who = listeners(port);
    cr_assert_str_eq(who, "", "%s", who);
    g_free(who);
    g_free(msg);
    g_free(toml);
    g_free(bridge);
}

/* examples/bridge-*.toml with two examples/bridge_client processes playing
   ping-pong between nodes 0 and 5 (2 hops): a ping sent at the start of a
   slice arrives h + L - 1 = 17 cycles later, inside a slice of F = 20.
   Lock-step: handed over at the next boundary, answered there: a round
   trip is 2 slices. Parallel: each message also waits a slice to enter the
   network: 4 slices. */
static void run_example(const char *file, const char *from, const char *address,
                        uint64_t round_units)
{
    char *path = g_build_filename(INSEE_TEST_SOURCE_DIR, "examples", file, NULL);
    char *text = NULL;
    cr_assert(g_file_get_contents(path, &text, NULL, NULL));
    /* Listen where this test chose, not where the example says. */
    char *sock = temp_path("sock");
    char *to = strncmp(address, "unix:", 5) == 0 ? g_strdup_printf("socket = \"%s\"", sock)
                                                   : g_strdup_printf("port = %s",
                                                                     strrchr(address, ':') + 1);
    char **parts = g_strsplit(text, from, 2);
    cr_assert(parts[0] && parts[1], "%s has no '%s'", file, from);
    char *toml = g_strconcat(parts[0], to, parts[1], NULL);
    char *where = strncmp(address, "unix:", 5) == 0 ? g_strdup_printf("unix:%s", sock)
                                                    : g_strdup(address);
    insee_config *cfg;
    insee_registry *reg;
    insee_experiment *exp = build_toml(toml, &cfg, &reg);
    GPid pid[2];
    int out[2];
    const char *roles[2][2] = {{"0", "5"}, {"5", "0"}};
    for (int i = 0; i < 2; i++) {
        char *argv[] = {INSEE_TEST_EXAMPLE_CLIENT, where, (char *)roles[i][0],
                        (char *)roles[i][1], "10", NULL};
        cr_assert(g_spawn_async_with_pipes(NULL, argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL,
                                           &pid[i], NULL, &out[i], NULL, NULL));
    }
    GError *err = NULL;
    capture cap = capture_start();
    gboolean ok = insee_experiment_run(exp, &err);
    g_free(capture_end(&cap));
    cr_assert(ok, "%s: %s", file, err ? err->message : "");
    for (int i = 0; i < 2; i++) {
        int status;
        waitpid(pid[i], &status, 0);
        cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s: client %d failed", file, i);
    }
    FILE *f = fdopen(out[0], "r");
    char line[128];
    int rounds = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned long n;
        unsigned long long units;
        cr_assert_eq(sscanf(line, "round %lu: %llu client units", &n, &units), 2, "%s", line);
        cr_assert_eq(units, round_units, "%s round %lu: %llu client units", file, n, units);
        rounds++;
    }
    fclose(f);
    close(out[1]);
    cr_assert_eq(rounds, 10, "%s: %d rounds", file, rounds);
    insee_experiment_free(exp);
    insee_registry_free(reg);
    insee_config_free(cfg);
    g_strfreev(parts);
    g_free(where);
    g_free(toml);
    g_free(to);
    g_free(sock);
    g_free(text);
    g_free(path);
}

Test(bridge, examples_ping_pong)
{
    run_example("bridge-lockstep.toml", "socket = \"/tmp/insee-bridge.sock\"", "unix:", 2000);
    char *address = g_strdup_printf("127.0.0.1:%d", free_port());
    run_example("bridge-parallel.toml", "port = 7411", address, 4000);
    g_free(address);
}

/* A bridge built for ABI 1.0 loads and runs: sync() is called at exactly
   the boundaries it returned (the fixture fails the run otherwise), and a
   run whose last boundary is 200 is complete at 200: sync(200) runs in
   cycle 199, which counts. */
Test(bridge, abi_1_0_bridge_synced_at_its_boundaries)
{
    insee_report r = run_toml("[topology]\nplugin = \"torus\"\ndims = [4, 4]\n"
                              "[bridge]\nplugin = \"test-v10\"\nevery = 50\nuntil = 200\n");
    cr_assert(r.completed);
    cr_assert_eq(r.completion, 200);
    insee_report_clear(&r);
}

Test(bridge, bridge_with_traffic_refused)
{
    char *msg = run_toml_error("[topology]\nplugin = \"torus\"\ndims = [4, 4]\n"
                               "[traffic]\nplugin = \"uniform\"\n"
                               "[bridge]\nplugin = \"test-v10\"\n");
    cr_assert(strstr(msg, "[bridge] drives the run's application") &&
              strstr(msg, "[background]"), "%s", msg);
    g_free(msg);
}

/* [bridge] nodes = 8: the bridge serves nodes 0..7 and background traffic
   runs on the other 8; every message still arrives once, at its node. */
Test(bridge, serves_its_nodes_beside_background_traffic)
{
    served = 8;
    n_plan = 0;
    for (uint32_t n = 0; n < served; n++)
        plan[n_plan++] = (plan_msg){n, (n + 3) % served, 64 + 8 * n, 100 * n};
    got g[8];
    char *log = run_plan("nodes = 8\n[background]\nplugin = \"uniform\"\nload = 0.3\n", 2, g);
    for (uint32_t h = 0; h < n_plan; h++)
        cr_assert_geq(g[h].arrival, g[h].injected + HOPS);
    g_free(log);
}

/* From the command line: a bridge failure is a simulation error, exit 1,
   with the message naming what failed. */
Test(bridge, cli_exits_1_when_no_client_comes)
{
    char *sock = temp_path("sock");
    char *bridge = g_strdup_printf("socket = \"%s\"\ntimeout_ms = 200\n", sock);
    char *toml = config(bridge);
    char *file = temp_path("exp.toml");
    cr_assert(g_file_set_contents(file, toml, -1, NULL));
    char *argv[] = {INSEE_TEST_BIN, "--plugin-dir", INSEE_TEST_PLUGIN_DIR, "run", file, NULL};
    char *err = NULL;
    int status = 0;
    cr_assert(g_spawn_sync(NULL, argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL, &err, &status,
                           NULL));
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 1, "status %d: %s", status, err);
    cr_assert(strstr(err, "bridge 'sync-server' failed at cycle 0: only 0 of the 1 clients"),
              "%s", err);
    cr_assert(access(sock, F_OK) != 0, "the failed run left its socket %s", sock);
    unlink(file);
    g_free(err);
    g_free(file);
    g_free(toml);
    g_free(bridge);
    g_free(sock);
}

/* Node 0 queues 12 messages of 4 packets 5 cycles before a boundary: its
   injection queue (4 packets) stays full for hundreds of cycles, and the
   boundaries still come on time: every delivery is handed over at the
   first boundary after its arrival, which a late sync() would break. */
Test(bridge, full_injection_queue_delays_no_boundary)
{
    const uint64_t S = 1000, F = 100;
    served = NODES;
    n_plan = 0;
    for (uint32_t i = 0; i < 12; i++)
        plan[n_plan++] = (plan_msg){0, 1 + i % 15, 256, (F - 5) * S / F};
    got g[12];
    char *keys = ratio_keys(S, F, "lockstep");
    char *log = run_plan(keys, 2, g);
    uint64_t last = 0;
    for (uint32_t h = 0; h < n_plan; h++) {
        cr_assert_eq(g[h].injected, F - 5);
        cr_assert_eq(g[h].handed, next_boundary(g[h].arrival, F), "message %u arrived at %llu, "
                     "handed at %llu", h, (unsigned long long)g[h].arrival,
                     (unsigned long long)g[h].handed);
        last = g[h].arrival > last ? g[h].arrival : last;
    }
    cr_assert_gt(last, 4 * F, "the queue should have held node 0 back for slices");
    g_free(log);
    g_free(keys);
}

/* A connection to a "unix:" address without the library, or -1. */
static int raw_connect(const char *address)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    g_strlcpy(sa.sun_path, address + strlen("unix:"), sizeof sa.sun_path);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

/* Connects without the library and sends a HELLO of 1000 bytes, a byte
   every 50 ms, until the server hangs up. */
static void peer_trickles(const char *address, uint32_t lo, uint32_t hi, FILE *out)
{
    (void)lo;
    (void)hi;
    (void)out;
    int fd = raw_connect(address);
    if (fd < 0)
        return;
    static const uint8_t header[] = {0x49, 0x53, 0x45, 0x42, 1, 0, 1, 0, 0xe8, 0x03, 0, 0};
    for (size_t i = 0;; i++) {
        uint8_t byte = i < sizeof header ? header[i] : 0;
        if (send(fd, &byte, 1, MSG_NOSIGNAL) != 1)
            return;
        g_usleep(50000);
    }
}

/* A peer that never completes a frame is given up on after timeout_ms for
   the whole frame, however often a byte comes: the run ends. */
Test(bridge, trickling_peer_does_not_hold_the_server)
{
    char *outs[1], *log;
    GError *err = NULL;
    cr_assert_not(session("timeout_ms = 1000\n", peer_trickles, 1, outs, &log, &err));
    cr_assert(strstr(err->message, "only 0 of the 1 clients"), "%s", err->message);
    cr_assert(strstr(log, "a connection sent no HELLO: it sent no whole frame within 1000 ms"),
              "%s", log);
    g_error_free(err);
    g_free(outs[0]);
    g_free(log);
}

/* What peer_raw() sends after its HELLO, and the version of both; set
   before the fork. */
static uint8_t raw_after[128];
static size_t raw_after_len;
static uint16_t raw_version = 1;

/* Without the library: a valid HELLO for node 0 (name "g"), then
   raw_after where SLICE_DONE is due; waits for the server to hang up. */
static void peer_raw(const char *address, G_GNUC_UNUSED uint32_t lo, G_GNUC_UNUSED uint32_t hi,
                     G_GNUC_UNUSED FILE *out)
{
    uint8_t hello[] = {0x49, 0x53, 0x45, 0x42, (uint8_t)raw_version, 0, 1, 0, 11, 0, 0, 0,
                       1, 0, 'g', 1, 0, 0, 0, 0, 0, 0, 0};
    int fd = raw_connect(address);
    if (fd >= 0 && send(fd, hello, sizeof hello, MSG_NOSIGNAL) == sizeof hello &&
        send(fd, raw_after, raw_after_len, MSG_NOSIGNAL) == (ssize_t)raw_after_len) {
        char sink[256];
        while (read(fd, sink, sizeof sink) > 0)
            ;
    }
    if (fd >= 0)
        close(fd);
}

/* Append v to raw_after, little-endian, in `bytes` bytes. */
static void raw_put(uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        raw_after[raw_after_len++] = (uint8_t)(v >> (8 * i));
}

/* A frame header of `type` for a payload of `length` bytes. */
static void raw_header(uint16_t type, uint32_t length)
{
    raw_put(0x42455349u, 4);
    raw_put(raw_version, 2);
    raw_put(type, 2);
    raw_put(length, 4);
}

/* SLICE_DONE of slice 0 with one injection from node 0 to node 0 of
   `bytes`, in raw_version's layout: version 2 adds nic 1, copy 0 and
   `reserved`. */
static void raw_injection(uint64_t bytes, uint8_t reserved)
{
    raw_header(5, 12 + (raw_version >= 2 ? 40 : 36));
    raw_put(0, 8); /* index */
    raw_put(1, 4); /* count */
    raw_put(0, 4); /* src */
    raw_put(0, 4); /* dst */
    raw_put(bytes, 8);
    raw_put(0, 8); /* timestamp */
    raw_put(7, 8); /* handle */
    if (raw_version >= 2) {
        raw_put(1, 2); /* nic */
        raw_put(0, 1); /* copy */
        raw_put(reserved, 1);
    }
    raw_put(0, 4); /* payload_len */
}

/* A malformed frame is a broken protocol, not a departure: the run ends
   naming the client even with on_disconnect = "continue". */
Test(bridge, malformed_frame_ends_the_run_even_when_departures_do_not)
{
    served = 1;
    memcpy(raw_after, "GARBAGEBYTES", 12);
    raw_after_len = 12;
    char *outs[1];
    char *msg = run_failing("clients = 1\nnodes = 1\non_disconnect = \"continue\"\n",
                            peer_raw, 1, outs);
    cr_assert(strstr(msg, "client 'g' (node 0) sent a malformed frame: not an insee bridge frame"),
              "%s", msg);
    g_free(msg);
    g_free(outs[0]);
}

/* Sends five messages from node 0 to node 15 in slice 0 and leaves at
   slice 1 (cycle 10), long before they arrive. */
static void peer_leaves_early(const char *address, uint32_t lo, uint32_t hi, FILE *out)
{
    uint32_t nodes[NODES], n = 0;
    for (uint32_t v = lo; v < hi; v++)
        nodes[n++] = v;
    insee_client_error err = {0};
    insee_client *c = insee_client_connect(address, "early", nodes, n, &err);
    insee_client_slice sl;
    const insee_client_delivery *d;
    size_t nd;
    bool ok = c && insee_client_end_slice(c, &sl, &d, &nd, &err);
    for (uint64_t h = 0; ok && h < 5; h++)
        ok = insee_client_inject(c, 0, 15, 64, sl.start_unit, h, NULL, 0, &err);
    if (!ok || !insee_client_end_slice(c, &sl, &d, &nd, &err))
        fprintf(out, "E %s\n", err.message);
    insee_client_close(c);
}

/* Messages still in the network when the last client leaves can only be
   dropped when they arrive, after the report: it counts them. */
Test(bridge, messages_in_flight_when_all_leave_are_reported_dropped)
{
    char *outs[1], *log;
    GError *err = NULL;
    cr_assert(session("clients = 1\nclient_units = 1000\nnetwork_cycles = 10\n",
                      peer_leaves_early, 1, outs, &log, &err), "%s", err ? err->message : "");
    cr_assert_str_eq(outs[0], "", "%s", outs[0]);
    cr_assert_float_eq(bridge_figure(log, "deliveries"), 0, 0, "%s", log);
    cr_assert_float_eq(bridge_figure(log, "deliveries_dropped"), 5, 0, "%s", log);
    g_free(outs[0]);
    g_free(log);
}

/* More clients than nodes can never all be welcomed: refused at once, not
   after timeout_ms of waiting. */
Test(bridge, more_clients_than_nodes_refused)
{
    char *toml = config("socket = \"/tmp/insee-never.sock\"\nnodes = 2\nclients = 3\n");
    char *msg = run_toml_error(toml);
    cr_assert(strstr(msg, "[bridge] clients = 3") && strstr(msg, "serves 2"), "%s", msg);
    g_free(msg);
    g_free(toml);
}

/* A file already at the socket path (a stale socket, another run's) is
   left alone and the run refused, naming it. */
Test(bridge, socket_path_taken_refused_and_left_alone)
{
    char *path = temp_path("taken");
    cr_assert(g_file_set_contents(path, "someone else's", -1, NULL));
    char *bridge = g_strdup_printf("socket = \"%s\"\nclients = 1\n", path);
    char *toml = config(bridge);
    char *msg = run_toml_error(toml);
    cr_assert(strstr(msg, path) && strstr(msg, "a file that is not a stale socket"), "%s", msg);
    char *text = NULL;
    cr_assert(g_file_get_contents(path, &text, NULL, NULL) && strcmp(text, "someone else's") == 0);
    unlink(path);
    g_free(text);
    g_free(msg);
    g_free(toml);
    g_free(bridge);
    g_free(path);
}

/* A message too long for its packets to be counted is refused at once,
   naming the client and the limit, not clamped and simulated. */
Test(bridge, message_longer_than_the_limit_refused_naming_the_client)
{
    served = 1;
    raw_after_len = 0;
    raw_injection(1ull << 40, 0);
    char *outs[1];
    char *msg = run_failing("clients = 1\nnodes = 1\n", peer_raw, 1, outs);
    cr_assert(strstr(msg, "client 'g' (node 0) injected a message of 1099511627776 bytes: a "
                          "message is at most 4294967295 bytes"), "%s", msg);
    g_free(msg);
    g_free(outs[0]);
}

/* A client's BYE is empty: one with a payload is a protocol error naming
   the client, not a departure. */
Test(bridge, bye_with_a_payload_refused_naming_the_client)
{
    served = 1;
    raw_after_len = 0;
    raw_header(7, 1);
    raw_put('x', 1);
    char *outs[1];
    char *msg = run_failing("clients = 1\nnodes = 1\n", peer_raw, 1, outs);
    cr_assert(strstr(msg, "client 'g' (node 0) sent a BYE carrying 1 bytes"), "%s", msg);
    g_free(msg);
    g_free(outs[0]);
}

/* A name full of terminal escapes, announcing a node the bridge lacks. */
#define EVIL_NAME "evil\033]0;owned\a\033[2J"

static void peer_evil_name(const char *address, uint32_t lo, uint32_t hi, FILE *out)
{
    (void)lo;
    (void)hi;
    insee_client_error err = {0};
    uint32_t node = 99;
    insee_client *c = insee_client_connect(address, EVIL_NAME, &node, 1, &err);
    fprintf(out, "%s\n", c ? "welcomed" : err.message);
    insee_client_close(c);
}

/* What a client names itself reaches the log (and the client's own error)
   escaped: no byte of it can drive a terminal. */
Test(bridge, client_names_printed_escaped)
{
    char *outs[1], *log;
    GError *err = NULL;
    cr_assert_not(session("timeout_ms = 1000\n", peer_evil_name, 1, outs, &log, &err));
    const char *shown = "client 'evil\\x1b]0;owned\\x07\\x1b[2J' announced node 99";
    cr_assert(strstr(log, shown), "%s", log);
    cr_assert_null(strchr(log, '\033'), "a raw escape reached the log:\n%s", log);
    cr_assert(strstr(outs[0], shown), "%s", outs[0]);
    cr_assert_null(strchr(outs[0], '\033'), "%s", outs[0]);
    g_error_free(err);
    g_free(outs[0]);
    g_free(log);
}

/* Runs slice 0 and leaves (BYE); writes the error, if any. */
static void peer_one_slice(const char *address, uint32_t lo, uint32_t hi, FILE *out)
{
    (void)hi;
    insee_client_error err = {0};
    insee_client *c = insee_client_connect(address, "one", &lo, 1, &err);
    insee_client_slice sl;
    const insee_client_delivery *d;
    size_t nd;
    if (!c || !insee_client_end_slice(c, &sl, &d, &nd, &err))
        fprintf(out, "E %s\n", err.message);
    insee_client_close(c);
}

/* Three connections that never say HELLO, then a real client. */
static void peer_behind_silent_ones(const char *address, uint32_t lo, uint32_t hi, FILE *out)
{
    int silent[3];
    for (int i = 0; i < 3; i++)
        silent[i] = raw_connect(address);
    peer_one_slice(address, lo, hi, out);
    for (int i = 0; i < 3; i++)
        if (silent[i] >= 0)
            close(silent[i]);
}

/* Handshakes are served side by side: the real client is welcomed while
   the silent connections before it are still waited for, so none of them
   is ever timed out (served one at a time, each would hold it timeout_ms). */
Test(bridge, silent_connections_do_not_delay_a_client)
{
    char *outs[1], *log;
    GError *err = NULL;
    cr_assert(session("timeout_ms = 1000\n", peer_behind_silent_ones, 1, outs, &log, &err),
              "%s", err ? err->message : "");
    cr_assert_str_eq(outs[0], "", "%s", outs[0]);
    cr_assert_null(strstr(log, "sent no HELLO"), "a silent connection was waited out:\n%s", log);
    g_free(outs[0]);
    g_free(log);
}

/* A socket left at the path by a run that died (nobody listens: connect()
   is refused) is replaced; a live one is refused and left alone. */
Test(bridge, stale_socket_replaced_live_one_refused)
{
    char *path = temp_path("stale");
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    g_strlcpy(sa.sun_path, path, sizeof sa.sun_path);
    int dead = socket(AF_UNIX, SOCK_STREAM, 0);
    cr_assert(bind(dead, (struct sockaddr *)&sa, sizeof sa) == 0);
    close(dead); /* the file stays, its owner is gone */

    char *address = g_strdup_printf("unix:%s", path);
    char *bridge = g_strdup_printf("socket = \"%s\"\n", path);
    char *toml = config(bridge);
    char *outs[1], *log;
    GError *err = NULL;
    /* The run listened at the path and served its client there. */
    cr_assert(run_with_peers(toml, peer_one_slice, address, 1, outs, &log, &err), "%s",
              err ? err->message : "");
    cr_assert_str_eq(outs[0], "", "%s", outs[0]);
    cr_assert(access(path, F_OK) != 0, "the run left its socket behind");

    int live = socket(AF_UNIX, SOCK_STREAM, 0);
    cr_assert(bind(live, (struct sockaddr *)&sa, sizeof sa) == 0 && listen(live, 1) == 0);
    char *msg = run_toml_error(toml);
    cr_assert(strstr(msg, path) && strstr(msg, "another run's live one"), "%s", msg);
    struct stat st;
    cr_assert(stat(path, &st) == 0 && S_ISSOCK(st.st_mode), "the live socket was removed");
    close(live);
    unlink(path);
    g_free(msg);
    g_free(outs[0]);
    g_free(log);
    g_free(toml);
    g_free(bridge);
    g_free(address);
    g_free(path);
}

/* `insee run` of `toml` in the background, its stderr into *err_path. */
static pid_t start_cli(const char *toml, char **file, char **err_path)
{
    *file = temp_path("exp.toml");
    *err_path = temp_path("cli-stderr");
    cr_assert(g_file_set_contents(*file, toml, -1, NULL));
    fflush(NULL);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        FILE *e = fopen(*err_path, "w");
        if (e)
            dup2(fileno(e), STDERR_FILENO);
        execl(INSEE_TEST_BIN, INSEE_TEST_BIN, "--plugin-dir", INSEE_TEST_PLUGIN_DIR, "run", *file,
              (char *)NULL);
        _exit(127);
    }
    return pid;
}

/* Until `path` exists (a socket) or has content (a file); false if `pid`
   ended first. */
static gboolean wait_for_file(const char *path, pid_t pid)
{
    struct stat st;
    while (stat(path, &st) != 0 || (S_ISREG(st.st_mode) && st.st_size == 0)) {
        if (waitpid(pid, NULL, WNOHANG) != 0)
            return FALSE;
        g_usleep(10000);
    }
    return TRUE;
}

/* A stop signal to `insee run` (timeout_ms = 60000) waiting on a client:
   it stops at once, exits 128 + the signal and leaves no socket; the client
   is not blamed. The peer p (NULL: none) is killed before anything is
   asserted, so that a failure leaves no process behind. */
static void interrupt_and_check(pid_t pid, int sig, peer *p, const char *sock, char *file,
                                char *err_path)
{
    gint64 start = g_get_monotonic_time();
    kill(pid, sig);
    int status = 0;
    pid_t ended = waitpid(pid, &status, 0);
    double waited_ms = (double)(g_get_monotonic_time() - start) / 1000.0;
    char *said = NULL;
    if (p) {
        kill(p->pid, SIGKILL);
        said = reap(p);
    }
    cr_assert(ended == pid);
    cr_assert(!p || strstr(said, "in slice 0"), "%s", said);
    g_free(said);
    char *text = NULL;
    g_file_get_contents(err_path, &text, NULL, NULL);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 128 + sig, "signal %d: status %d: %s",
              sig, status, text);
    cr_assert_lt(waited_ms, 60000.0, "it waited out timeout_ms: %s", text);
    cr_assert(strstr(text, "the run was interrupted while waiting for"), "%s", text);
    cr_assert_null(strstr(text, "failed"), "%s", text);
    cr_assert(access(sock, F_OK) != 0, "the interrupted run left its socket %s", sock);
    unlink(file);
    unlink(err_path);
    g_free(text);
    g_free(file);
    g_free(err_path);
}

static void stop_while_waiting_for_clients(int sig)
{
    char *sock = temp_path("sock");
    char *bridge = g_strdup_printf("socket = \"%s\"\ntimeout_ms = 60000\n", sock);
    char *toml = config(bridge);
    char *file, *err_path;
    pid_t pid = start_cli(toml, &file, &err_path);
    cr_assert(wait_for_file(sock, pid), "the run ended before listening");
    g_usleep(500000); /* into the wait for clients */
    interrupt_and_check(pid, sig, NULL, sock, file, err_path);
    g_free(toml);
    g_free(bridge);
    g_free(sock);
}

Test(bridge, sigint_while_waiting_for_clients_exits_130)
{
    stop_while_waiting_for_clients(SIGINT);
}

/* TERM and HUP (a batch system, a closed terminal) once killed the run and
   left its socket, which the next run refused until removed by hand. */
Test(bridge, sigterm_and_sighup_while_waiting_remove_the_socket)
{
    stop_while_waiting_for_clients(SIGTERM);
    stop_while_waiting_for_clients(SIGHUP);
}

Test(bridge, sigint_while_a_slice_waits_exits_130)
{
    char *sock = temp_path("sock");
    char *address = g_strdup_printf("unix:%s", sock);
    char *bridge = g_strdup_printf("socket = \"%s\"\ntimeout_ms = 60000\n", sock);
    char *toml = config(bridge);
    char *file, *err_path;
    pid_t pid = start_cli(toml, &file, &err_path);
    cr_assert(wait_for_file(sock, pid), "the run ended before listening");
    peer p = spawn(peer_mute, address, 0, 1);
    cr_assert(wait_for_file(p.out, pid), "the run ended before slice 0");
    interrupt_and_check(pid, SIGINT, &p, sock, file, err_path);
    g_free(toml);
    g_free(bridge);
    g_free(address);
    g_free(sock);
}

/* Bridge protocol version 1, what clients built before version 2 speak:
   served as before, its injections the node's turn and the run's copy,
   with the exact timing of lockstep_four_clients_exact_timing. */
Test(bridge, version_1_client_keeps_its_timing)
{
    const uint64_t S = 1000, F = 100;
    plan_tornado(S, F);
    peer_version = 1;
    char *keys = ratio_keys(S, F, "lockstep");
    got g[64];
    char *log = run_plan(keys, 2, g);
    for (uint32_t h = 0; h < n_plan; h++)
        check_timing(g, h, plan[h].timestamp * F / S, F);
    g_free(log);
    g_free(keys);
}

/* The latest of the deliveries' arrivals. */
static uint64_t last_arrival(const got *g)
{
    uint64_t last = 0;
    for (uint32_t h = 0; h < n_plan; h++)
        last = g[h].arrival > last ? g[h].arrival : last;
    return last;
}

/* Node 0 sends four one-packet messages to its four neighbours at client
   time 0, each choosing interface `nic` (0: the node's turn), over node
   links of a phit every 4 cycles and four interfaces: the last arrival. */
static uint64_t four_by_nic(uint16_t nic)
{
    static const uint32_t to[] = {1, 4, 3, 12};
    n_plan = 0;
    for (uint32_t i = 0; i < 4; i++) {
        plan_nic[n_plan] = nic;
        plan[n_plan++] = (plan_msg){0, to[i], 64, 0};
    }
    char *keys = g_strdup_printf("client_units = 1000\nnetwork_cycles = 100\n"
                                 "[network]\nnode_phit_cycles = 4\nnics = 4\n");
    got g[4];
    char *log = run_plan(keys, 1, g);
    g_free(log);
    g_free(keys);
    return last_arrival(g);
}

/* NSIM's LMGEN_Isend SrcNIC through the bridge: four messages left to the
   node's turn leave side by side, one interface each; all naming
   interface 1 they cross its one node link one after another, L x 4
   cycles each (the bridge queues one message of a node a cycle, so the
   turn's i-th starts i cycles late: 3 of the difference are that). */
Test(bridge, a_message_names_its_interface)
{
    enum { LK = L * 4 };
    uint64_t side = four_by_nic(0), queued = four_by_nic(1);
    cr_assert(side > LK && side < LK + 16, "in turn: last arrival %llu",
              (unsigned long long)side);
    cr_assert_eq(queued - side, 3u * LK - 3u, "interface 1: %llu, in turn: %llu",
                 (unsigned long long)queued, (unsigned long long)side);
}

/* NSIM's zero-copy switch through the bridge, in a run of copy = "zero"
   with memory_bandwidth: a two-copy message of B bytes arrives 2 ceil(B c)
   cycles after its zero-copy twin on a link of the same length (c = half a
   cycle a byte: 4-byte phits at 4 GB/s, memory at 2 GB/s), one of the
   default copy with the zero-copy one. */
Test(bridge, a_message_chooses_its_copy)
{
    enum { B = 1001 };
    n_plan = 0;
    static const uint8_t copy[] = {INSEE_CLIENT_COPY_TWO, INSEE_CLIENT_COPY_ZERO,
                                   INSEE_CLIENT_COPY_DEFAULT};
    for (uint32_t i = 0; i < 3; i++) {
        plan_copy[n_plan] = copy[i];
        plan[n_plan++] = (plan_msg){5 * i, 5 * i + 1, B, 0};
    }
    const char *keys = "client_units = 1000\nnetwork_cycles = 100\n[network]\n"
                       "link_bandwidth = \"4 GB/s\"\ncopy = \"zero\"\n"
                       "memory_bandwidth = \"2 GB/s\"\n";
    got g[3];
    char *log = run_plan(keys, 1, g);
    cr_assert_eq(g[0].arrival - g[1].arrival, 2u * 501u, "two-copy %llu, zero-copy %llu",
                 (unsigned long long)g[0].arrival, (unsigned long long)g[1].arrival);
    cr_assert_eq(g[2].arrival, g[1].arrival, "copy = \"zero\" decides the default");
    g_free(log);
}

/* Choices the run cannot make end it naming the client and the setting;
   a version-1 connection cannot carry them at all. */
static void peer_bad_choice(const char *address, uint32_t lo, uint32_t hi, FILE *out)
{
    (void)hi;
    insee_client_error err = {0};
    insee_client *old = insee_client_connect_version(address, "old", &lo, 1, 1, &err);
    insee_client_slice sl;
    const insee_client_delivery *d;
    size_t nd;
    bool ok = old && insee_client_end_slice(old, &sl, &d, &nd, &err);
    if (ok && !insee_client_inject_nic(old, lo, lo, 64, 0, 0, NULL, 0, 1, 0, &err))
        fprintf(out, "%d %s\n", err.code, err.message);
    if (ok)
        insee_client_end_slice(old, &sl, &d, &nd, &err);
    insee_client_close(old);
}

Test(bridge, a_version_1_client_cannot_choose)
{
    served = 1;
    char *outs[1], *log;
    GError *err = NULL;
    cr_assert(session("clients = 1\nnodes = 1\n", peer_bad_choice, 1, outs, &log, &err), "%s",
              err ? err->message : "");
    cr_assert(atoi(outs[0]) == INSEE_CLIENT_ERR_ARGUMENT &&
                  strstr(outs[0], "protocol version 1") && strstr(outs[0], "nic 1"),
              "%s", outs[0]);
    g_free(outs[0]);
    g_free(log);
}

Test(bridge, an_interface_beyond_nics_refused_naming_the_client)
{
    n_plan = 1;
    plan[0] = (plan_msg){0, 1, 64, 0};
    plan_nic[0] = 5;
    char *outs[1];
    char *msg = run_failing("clients = 1\n[network]\nnics = 4\n", peer_plan, 1, outs);
    cr_assert(strstr(msg, "client 'peer0'") && strstr(msg, "interface 5") &&
                  strstr(msg, "nics = 4"), "%s", msg);
    g_free(msg);
    g_free(outs[0]);
    n_plan = 1;
    plan[0] = (plan_msg){0, 1, 64, 0};
    plan_nic[0] = 0;
    plan_copy[0] = INSEE_CLIENT_COPY_TWO;
    msg = run_failing("clients = 1\n", peer_plan, 1, outs);
    cr_assert(strstr(msg, "client 'peer0'") && strstr(msg, "two-copy") &&
                  strstr(msg, "memory_bandwidth"), "%s", msg);
    g_free(msg);
    g_free(outs[0]);
}

/* A version-2 injection whose reserved byte is not 0 is a malformed frame
   naming the client, and nothing of it is simulated. */
Test(bridge, a_reserved_byte_refused_naming_the_client)
{
    served = 1;
    raw_version = 2;
    raw_after_len = 0;
    raw_injection(64, 9);
    char *outs[1];
    char *msg = run_failing("clients = 1\nnodes = 1\n", peer_raw, 1, outs);
    cr_assert(strstr(msg, "client 'g' (node 0) sent a malformed frame: an injection's reserved "
                          "byte is 9; it must be 0"), "%s", msg);
    g_free(msg);
    g_free(outs[0]);
}
