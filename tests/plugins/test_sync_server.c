/* Unit tests of the sync-server bridge (plugins/bridge/sync-server) on the
 * mock host: what create() refuses, and one lock-step session with a client
 * in a forked process, where the mock records the injections, so the
 * conversion of client timestamps to network cycles is seen exactly: slice
 * k of S client units is F cycles, a timestamp t of slice k is cycle
 * k F + floor((t - k S) F / S). With S:F = 1000:30 a cycle is 33.3 units. */
#include <criterion/criterion.h>
#include <glib.h>
#include <insee/client.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

enum { P_ADDRESS, P_PORT, P_SOCKET, P_LISTEN_ANY, P_CLIENTS, P_CLIENT_UNITS, P_NETWORK_CYCLES,
       P_MODEL, P_TIMEOUT, P_ON_DISCONNECT, N_PARAMS };

static const insee_bridge_vtable *vtable(void)
{
    return load_plugin("bridge", "sync-server")->vtable;
}

/* The defaults, on a Unix socket at `path` (NULL: none). */
static void defaults(insee_value *v, const char *path)
{
    v[P_ADDRESS] = value_string("127.0.0.1");
    v[P_PORT] = value_int(0);
    v[P_SOCKET] = value_string(path ? path : "");
    v[P_LISTEN_ANY] = value_bool(false);
    v[P_CLIENTS] = value_int(1);
    v[P_CLIENT_UNITS] = value_int(10000);
    v[P_NETWORK_CYCLES] = value_int(200);
    v[P_MODEL] = value_enum(0, "lockstep");
    v[P_TIMEOUT] = value_int(10000);
    v[P_ON_DISCONNECT] = value_enum(0, "error");
}

static char *socket_path(void)
{
    char *p = g_strdup_printf("%s/insee-sync-server-%d.sock", g_get_tmp_dir(), (int)getpid());
    unlink(p);
    return p;
}

Test(sync_server, refused_by_a_kernel_without_bridge_inject)
{
    insee_kernel k = {.shape = {.tasks = 16, .nodes = 16}};
    insee_host host = mock_host(&k);
    host.size = offsetof(insee_host, bridge_inject); /* a 1.2 kernel's table */
    char *path = socket_path();
    insee_value v[N_PARAMS];
    defaults(v, path);
    insee_error err = {0};
    cr_assert_null(vtable()->create(&host, v, &err));
    cr_assert(strstr(err.message, "ABI 1.3"), "%s", err.message);
    cr_assert_neq(access(path, F_OK), 0, "nothing left listening");
    g_free(path);
}

Test(sync_server, needs_somewhere_to_listen_and_loopback)
{
    insee_kernel k = {.shape = {.tasks = 16, .nodes = 16}};
    insee_host host = mock_host(&k);
    insee_value v[N_PARAMS];
    defaults(v, NULL);
    insee_error err = {0};
    cr_assert_null(vtable()->create(&host, v, &err));
    cr_assert(strstr(err.message, "needs a port or a socket"), "%s", err.message);
    v[P_PORT] = value_int(7411);
    v[P_ADDRESS] = value_string("192.0.2.1");
    err = (insee_error){0};
    cr_assert_null(vtable()->create(&host, v, &err));
    cr_assert(strstr(err.message, "not a loopback address") && strstr(err.message, "listen_any"),
              "%s", err.message);
    v[P_ADDRESS] = value_string("localhost");
    err = (insee_error){0};
    cr_assert_null(vtable()->create(&host, v, &err));
    cr_assert(strstr(err.message, "not an IPv4 or IPv6 address"), "%s", err.message);
}

/* The client: in slice 0 node 0 sends to node 1 at the timestamps below,
   then it reports what slice 1 brought back and leaves. */
static const uint64_t stamps[] = {0, 33, 34, 999};

static void client(const char *address, FILE *out)
{
    uint32_t nodes[] = {0, 1};
    insee_client_error err = {0};
    insee_client *c = insee_client_connect(address, "unit", nodes, 2, &err);
    insee_client_slice sl;
    const insee_client_delivery *d;
    size_t n;
    bool ok = c && insee_client_end_slice(c, &sl, &d, &n, &err);
    for (size_t i = 0; ok && i < G_N_ELEMENTS(stamps); i++)
        ok = insee_client_inject(c, 0, 1, 64, stamps[i], 100 + i, NULL, 0, &err);
    ok = ok && insee_client_end_slice(c, &sl, &d, &n, &err);
    if (!ok)
        fprintf(out, "E %s\n", err.message);
    for (size_t i = 0; ok && i < n; i++)
        fprintf(out, "%llu %llu %llu\n", (unsigned long long)d[i].handle,
                (unsigned long long)d[i].arrival_cycle, (unsigned long long)sl.start_cycle);
    insee_client_close(c);
}

Test(sync_server, lockstep_timestamps_become_exact_cycles)
{
    insee_bridge_msg injected[8];
    insee_kernel k = {.shape = {.tasks = 16, .nodes = 16}, .injected = injected,
                      .max_injected = 8};
    insee_host host = mock_host(&k);
    char *path = socket_path();
    insee_value v[N_PARAMS];
    defaults(v, path);
    v[P_CLIENT_UNITS] = value_int(1000);
    v[P_NETWORK_CYCLES] = value_int(30);
    insee_error err = {0};
    const insee_bridge_vtable *vt = vtable();
    void *self = vt->create(&host, v, &err);
    cr_assert_not_null(self, "%s", err.message);
    char *out_path = g_strdup_printf("%s.out", path);
    char *address = g_strdup_printf("unix:%s", path);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        FILE *out = fopen(out_path, "w");
        if (out) {
            client(address, out);
            fclose(out);
        }
        _exit(0);
    }
    cr_assert_eq(vt->sync(self, 0, &err), 30, "%s", err.message);
    cr_assert_eq(k.n_injected, G_N_ELEMENTS(stamps));
    static const uint64_t cycles[] = {0, 0, 1, 29}; /* floor(t x 30 / 1000) */
    for (uint32_t i = 0; i < k.n_injected; i++) {
        cr_assert_eq(injected[i].at_cycle, cycles[i], "timestamp %llu at cycle %llu, not %llu",
                     (unsigned long long)stamps[i], (unsigned long long)injected[i].at_cycle,
                     (unsigned long long)cycles[i]);
        cr_assert(injected[i].src_node == 0 && injected[i].dst_node == 1 &&
                  injected[i].bytes == 64);
        vt->deliver(self, &injected[i], cycles[i]); /* before the boundary, as the kernel does */
    }
    cr_assert_eq(vt->sync(self, 30, &err), INSEE_NEVER, "the client left: %s", err.message);
    cr_assert_eq(err.code, 0, "%s", err.message);
    int status;
    waitpid(pid, &status, 0);
    char *text = NULL;
    cr_assert(g_file_get_contents(out_path, &text, NULL, NULL));
    cr_assert_str_eq(text, "100 0 30\n101 0 30\n102 1 30\n103 29 30\n",
                     "handle, arrival, slice start of each delivery: %s", text);
    vt->destroy(self);
    cr_assert_neq(access(path, F_OK), 0, "the socket file is removed");
    unlink(out_path);
    g_free(text);
    g_free(address);
    g_free(out_path);
    g_free(path);
}
