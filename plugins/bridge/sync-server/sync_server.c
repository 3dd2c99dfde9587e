/* bridge/sync-server — the synchronisation server and traffic manager of a
 * full-system or execution-driven coupling (Ridruejo et al. §3-§5, §7.4;
 * README.md): outside programs connect over the bridge wire protocol
 * (docs/bridge-protocol.md), run in slices of `client_units` of their time
 * that the network simulates as `network_cycles` cycles, hand over
 * timestamped messages and get back the messages delivered to their nodes.
 *
 * Two models. lockstep: at boundary b the clients are released for slice k
 * with what arrived before b, and the server waits for their injections,
 * which enter the network at their exact cycles inside [b, b + F). parallel:
 * at boundary b the server first collects the injections of slice k - 1
 * (made while the network simulated it) and queues them all at b, then
 * releases slice k; the clients run while the network simulates.
 *
 * Every wait on a client has `timeout_ms`; handshakes are served side by
 * side, each with its own deadline, so a silent connection delays nobody.
 * Everything a client sends is parsed by wire.c, which accepts no length it
 * has not checked, and is printed escaped; any failure ends sync() with a
 * message naming the client. A run asked to stop (Ctrl-C) stops every wait
 * at once and ends as interrupted, blaming nobody.
 */
#define _GNU_SOURCE /* accept4 */
#include <arpa/inet.h>
#include <errno.h>
#include <insee/insee.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "wire.h"

enum { P_ADDRESS, P_PORT, P_SOCKET, P_LISTEN_ANY, P_CLIENTS, P_CLIENT_UNITS, P_NETWORK_CYCLES,
       P_MODEL, P_TIMEOUT, P_ON_DISCONNECT };
static const insee_param_def params[] = {
    {"address", INSEE_PARAM_STRING, "\"127.0.0.1\"", 1, 0, NULL, NULL,
     "TCP address to listen on; anything but loopback needs listen_any = true"},
    {"port", INSEE_PARAM_INT, "0", 0, 65535, NULL, NULL, "TCP port (0: no TCP listener)"},
    {"socket", INSEE_PARAM_STRING, "\"\"", 1, 0, NULL, NULL,
     "Unix socket path to listen on (empty: none); at least one of port and socket"},
    {"listen_any", INSEE_PARAM_BOOL, "false", 0, 0, NULL, NULL,
     "allow `address` to be other than loopback (the protocol has no authentication)"},
    {"clients", INSEE_PARAM_INT, "1", 1, 65536, NULL, NULL,
     "how many clients must connect before slice 0; no other is accepted"},
    {"client_units", INSEE_PARAM_INT, "10000", 1, 2147483647.0, NULL, "client time units",
     "S of the slice ratio S:F: a slice's length in the clients' time"},
    {"network_cycles", INSEE_PARAM_INT, "200", 1, 2147483647.0, NULL, "cycles",
     "F of the slice ratio S:F: the same slice in network cycles"},
    {"model", INSEE_PARAM_ENUM, "\"lockstep\"", 1, 0, "lockstep|parallel", NULL,
     "lockstep: clients run a slice, then the network, injections at their exact cycles; "
     "parallel: both run a slice at once, injections take effect at the next slice start"},
    {"timeout_ms", INSEE_PARAM_INT, "10000", 1, 86400000, NULL, "ms",
     "a client silent this long (handshake, slice) ends the run with an error naming it"},
    {"on_disconnect", INSEE_PARAM_ENUM, "\"error\"", 1, 0, "error|continue", NULL,
     "a client that disconnects without BYE: end the run with an error naming it, or go on "
     "without it (its pending deliveries dropped and counted)"},
    {0},
};

/* A message between its injection and its hand-over to the client. */
typedef struct msg_rec {
    uint32_t src, dst;
    uint64_t bytes, handle, timestamp, injected, arrival;
    uint8_t *payload;
    uint32_t payload_len;
    uint32_t next; /* free list, or the next delivery of the same client */
} msg_rec;

typedef enum client_state { C_LIVE, C_DONE, C_GONE } client_state;

typedef struct client {
    int fd;
    uint16_t version;   /* the protocol version it spoke in its HELLO, which it is answered in */
    char label[384];    /* "client 'name' (nodes 0, 1, 2)" for messages, the name escaped */
    client_state state;
    uint32_t first, last, count; /* its pending deliveries: a list of msg_rec */
} client;

typedef struct server {
    const insee_host *host;
    int tcp_fd, unix_fd;
    char *unix_path;
    uint32_t want, n_clients;
    client *clients;
    uint32_t nodes;
    int32_t *owner;      /* per node: the client that announced it, or -1 */
    uint64_t S, F;
    int model, timeout_ms;
    bool go_on;          /* on_disconnect = "continue" */
    msg_rec *msg;
    uint32_t n_msg, cap_msg, free_msg;
    wire_buf out;
    wire_cancel cancel;  /* every wait on a client: stops when the run is asked to */
    bool stopped;        /* a wait was cut short by that */
    /* figures */
    uint64_t slices, handed, wait_sum, wait_max, injected, late_sum, late_max, dropped;
    uint64_t in_flight;  /* injected, not yet at their destination */
    bool reported;
} server;

#define NO_MSG UINT32_MAX

static void log_info(const server *s, const char *text)
{
    s->host->log(s->host->kernel, INSEE_LOG_INFO, text);
}

/* A TCP listener on `address` (an IPv4 or IPv6 address) and port. */
static int listen_tcp(const char *address, int port, insee_error *err)
{
    struct sockaddr_storage ss = {0};
    socklen_t len;
    struct sockaddr_in *v4 = (struct sockaddr_in *)&ss;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&ss;
    if (inet_pton(AF_INET, address, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons((uint16_t)port);
        len = sizeof *v4;
    } else { /* IPv6: create() checked that it is one or the other */
        inet_pton(AF_INET6, address, &v6->sin6_addr);
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons((uint16_t)port);
        len = sizeof *v6;
    }
    int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
        bind(fd, (struct sockaddr *)&ss, len) != 0 || listen(fd, 64) != 0) {
        insee_error_set(err, INSEE_ERR_IO, "cannot listen on %s port %d: %s; choose another "
                        "[bridge] port", address, port, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return fd;
}

/* Whether `path` is a socket nobody listens on: what a run killed before
   it could remove its socket leaves behind. A live socket (another run's)
   and any other file are not. */
static bool stale_socket(const char *path)
{
    struct stat st;
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    if (lstat(path, &st) != 0 || !S_ISSOCK(st.st_mode) || strlen(path) >= sizeof sa.sun_path)
        return false;
    memcpy(sa.sun_path, path, strlen(path));
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    bool stale = fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0 &&
                 errno == ECONNREFUSED;
    if (fd >= 0)
        close(fd);
    return stale;
}

/* link() the listening socket at tmp to `path`, replacing a stale socket
   there (once: a file that comes back in between is someone else's). */
static bool link_socket(const insee_host *host, const char *tmp, const char *path)
{
    if (link(tmp, path) == 0)
        return true;
    if (errno != EEXIST || !stale_socket(path) || unlink(path) != 0) {
        errno = EEXIST;
        return false;
    }
    char line[200];
    snprintf(line, sizeof line, "replaced the stale socket %s (the run that made it is gone)",
             path);
    host->log(host->kernel, INSEE_LOG_INFO, line);
    return link(tmp, path) == 0;
}

/* The socket is made under a name of this process's own and linked to
   `path` once it listens: a client (or launcher) that sees the file can
   connect at once, instead of being refused in the moment between bind()
   and listen(); link() fails where a file is already there, so two runs
   never take over each other's socket. */
static int listen_unix(const insee_host *host, const char *path, insee_error *err)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    int len = snprintf(sa.sun_path, sizeof sa.sun_path, "%s.%d~", path, (int)getpid());
    if (len < 0 || (size_t)len >= sizeof sa.sun_path) {
        insee_error_set(err, INSEE_ERR_PARAM, "[bridge] socket = \"%s\" is too long: a Unix "
                        "socket path has at most %zu bytes, and the server needs %d more for a "
                        "temporary name", path, sizeof sa.sun_path - 1,
                        len - (int)strlen(path));
        return -1;
    }
    unlink(sa.sun_path); /* this process's own temporary name */
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    bool ok = fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0 && listen(fd, 64) == 0;
    if (ok && !link_socket(host, sa.sun_path, path)) {
        insee_error_set(err, INSEE_ERR_IO, "cannot listen on Unix socket %s: %s%s", path,
                        strerror(errno), errno == EEXIST ? " (a file that is not a stale "
                        "socket, or another run's live one: remove it, or choose another "
                        "[bridge] socket)" : "");
        ok = false;
    } else if (!ok) {
        insee_error_set(err, INSEE_ERR_IO, "cannot listen on Unix socket %s: %s", path,
                        strerror(errno));
    }
    unlink(sa.sun_path);
    if (!ok && fd >= 0)
        close(fd);
    return ok ? fd : -1;
}

/* 1: loopback (127.0.0.0/8 or ::1), 0: another address, -1: not an IPv4 or
   IPv6 address. */
static int loopback(const char *address)
{
    struct in_addr a4;
    struct in6_addr a6;
    if (inet_pton(AF_INET, address, &a4) == 1)
        return (ntohl(a4.s_addr) >> 24) == 127;
    if (inet_pton(AF_INET6, address, &a6) == 1)
        return IN6_IS_ADDR_LOOPBACK(&a6);
    return -1;
}

static void close_listeners(server *s)
{
    if (s->tcp_fd >= 0)
        close(s->tcp_fd);
    if (s->unix_fd >= 0) {
        close(s->unix_fd);
        unlink(s->unix_path);
    }
    s->tcp_fd = s->unix_fd = -1;
}

/* The run's figures of the slices (ABI 1.4): the artificial delay goes with
   the results, not only in the log. */
static void report_figures(const server *s, double wait_mean, double late_mean)
{
    const insee_host *h = s->host;
    if (!INSEE_HOST_HAS(h, report_figure))
        return;
    double unit = (double)s->S / (double)s->F;
    h->report_figure(h->kernel, "slices", (double)s->slices, NULL);
    h->report_figure(h->kernel, "deliveries", (double)s->handed, "messages");
    h->report_figure(h->kernel, "delivery_wait_mean", wait_mean, "cycles");
    h->report_figure(h->kernel, "delivery_wait_max", (double)s->wait_max, "cycles");
    h->report_figure(h->kernel, "delivery_wait_mean_client", wait_mean * unit, "client units");
    h->report_figure(h->kernel, "delivery_wait_max_client", (double)s->wait_max * unit,
                     "client units");
    h->report_figure(h->kernel, "deliveries_dropped", (double)s->dropped, "messages");
    if (s->model == WIRE_PARALLEL) {
        h->report_figure(h->kernel, "injection_wait_mean", late_mean, "cycles");
        h->report_figure(h->kernel, "injection_wait_max", (double)s->late_max, "cycles");
    }
}

static bool any_live(const server *s)
{
    for (uint32_t i = 0; i < s->n_clients; i++)
        if (s->clients[i].state == C_LIVE)
            return true;
    return false;
}

static void report(server *s)
{
    if (s->reported)
        return;
    s->reported = true;
    /* Once every client has left, what is still in the network can only be
       dropped when it arrives, after this report. */
    if (!any_live(s))
        s->dropped += s->in_flight;
    char line[640];
    double mean = s->handed ? (double)s->wait_sum / (double)s->handed : 0.0;
    double unit = (double)s->S / (double)s->F;
    snprintf(line, sizeof line,
             "%llu slices of %llu:%llu (%s); artificial delay of %llu deliveries waiting for "
             "their slice boundary: mean %.3f max %llu cycles (mean %.1f max %.1f client "
             "units); %llu deliveries dropped (client gone)",
             (unsigned long long)s->slices, (unsigned long long)s->S, (unsigned long long)s->F,
             s->model == WIRE_LOCKSTEP ? "lockstep" : "parallel",
             (unsigned long long)s->handed, mean, (unsigned long long)s->wait_max, mean * unit,
             (double)s->wait_max * unit, (unsigned long long)s->dropped);
    log_info(s, line);
    double late = s->injected ? (double)s->late_sum / (double)s->injected : 0.0;
    report_figures(s, mean, late);
    if (s->model == WIRE_PARALLEL) {
        snprintf(line, sizeof line,
                 "artificial delay of %llu injections waiting for the next slice start: mean "
                 "%.3f max %llu cycles", (unsigned long long)s->injected, late,
                 (unsigned long long)s->late_max);
        log_info(s, line);
    }
}

static bool asked_to_stop(void *data)
{
    const server *s = data;
    return s->host->stop_requested(s->host->kernel);
}

static void *ss_create(const insee_host *host, const insee_value *v, insee_error *err)
{
    const char *address = v[P_ADDRESS].s, *path = v[P_SOCKET].s;
    if (v[P_PORT].i == 0 && !*path) {
        insee_error_set(err, INSEE_ERR_PARAM, "[bridge] needs a port or a socket to listen on");
        return NULL;
    }
    if (v[P_PORT].i && loopback(address) < 0) {
        insee_error_set(err, INSEE_ERR_PARAM, "[bridge] address = \"%s\" is not an IPv4 or IPv6 "
                        "address (names are not resolved: write 127.0.0.1 or ::1)", address);
        return NULL;
    }
    if (v[P_PORT].i && loopback(address) == 0 && !v[P_LISTEN_ANY].b) {
        insee_error_set(err, INSEE_ERR_PARAM,
                        "[bridge] address = \"%s\" is not a loopback address: anyone who "
                        "reaches it could drive the run; set listen_any = true to allow it",
                        address);
        return NULL;
    }
    if (!INSEE_HOST_HAS(host, bridge_inject)) {
        insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                        "this kernel cannot inject a bridge's messages (ABI 1.3 needed)");
        return NULL;
    }
    insee_shape shape;
    host->shape(host->kernel, &shape);
    if ((uint64_t)v[P_CLIENTS].i > shape.tasks) {
        insee_error_set(err, INSEE_ERR_PARAM, "[bridge] clients = %lld, but a client serves at "
                        "least one node and the bridge serves %u ([bridge] nodes)",
                        (long long)v[P_CLIENTS].i, shape.tasks);
        return NULL;
    }
    server *s = calloc(1, sizeof *s);
    if (!s) {
        insee_error_set(err, INSEE_ERR_NOMEM, "out of memory");
        return NULL;
    }
    *s = (server){.host = host, .tcp_fd = -1, .unix_fd = -1, .want = (uint32_t)v[P_CLIENTS].i,
                  .nodes = shape.tasks, .S = (uint64_t)v[P_CLIENT_UNITS].i,
                  .F = (uint64_t)v[P_NETWORK_CYCLES].i, .model = (int)v[P_MODEL].i,
                  .timeout_ms = (int)v[P_TIMEOUT].i, .go_on = v[P_ON_DISCONNECT].i == 1,
                  .free_msg = NO_MSG};
    if (INSEE_HOST_HAS(host, stop_requested))
        s->cancel = (wire_cancel){.stop = asked_to_stop, .data = s};
    s->clients = calloc(s->want, sizeof *s->clients);
    s->owner = malloc(sizeof *s->owner * (s->nodes ? s->nodes : 1));
    s->unix_path = strdup(path);
    if (!s->clients || !s->owner || !s->unix_path) {
        free(s->clients);
        free(s->owner);
        free(s->unix_path);
        free(s);
        insee_error_set(err, INSEE_ERR_NOMEM, "out of memory");
        return NULL;
    }
    for (uint32_t n = 0; n < s->nodes; n++)
        s->owner[n] = -1;
    if ((v[P_PORT].i && (s->tcp_fd = listen_tcp(address, (int)v[P_PORT].i, err)) < 0) ||
        (*path && (s->unix_fd = listen_unix(host, path, err)) < 0)) {
        close_listeners(s);
        free(s->clients);
        free(s->owner);
        free(s->unix_path);
        free(s);
        return NULL;
    }
    return s;
}

static void msg_free(server *s, uint32_t m)
{
    free(s->msg[m].payload);
    s->msg[m].payload = NULL;
    s->msg[m].next = s->free_msg;
    s->free_msg = m;
}

/* Forget a client's pending deliveries, counting them dropped. */
static void drop_pending(server *s, client *c)
{
    for (uint32_t m = c->first; m != NO_MSG;) {
        uint32_t next = s->msg[m].next;
        msg_free(s, m);
        s->dropped++;
        m = next;
    }
    c->first = c->last = NO_MSG;
    c->count = 0;
}

/* Tell the clients still there that the run ends, and why. */
static void farewell(server *s, const char *why)
{
    for (uint32_t i = 0; i < s->n_clients; i++) {
        client *c = &s->clients[i];
        if (c->state != C_LIVE)
            continue;
        char ignored[64];
        wire_buf_reset(&s->out);
        wire_put_text(&s->out, c->version, WIRE_BYE, why);
        if (!s->out.failed)
            wire_write_all(c->fd, s->out.data, s->out.len, 100, NULL, ignored, sizeof ignored);
        c->state = C_DONE;
    }
}

static void ss_destroy(void *self)
{
    server *s = self;
    if (s->n_clients)
        report(s);
    farewell(s, "the simulation has ended");
    close_listeners(s);
    for (uint32_t i = 0; i < s->n_clients; i++) {
        drop_pending(s, &s->clients[i]);
        close(s->clients[i].fd);
    }
    for (uint32_t m = 0; m < s->n_msg; m++)
        free(s->msg[m].payload);
    free(s->msg);
    free(s->clients);
    free(s->owner);
    free(s->unix_path);
    wire_buf_free(&s->out);
    free(s);
}

/* Fail sync(): fill err, tell the others, return false. */
static bool fail(server *s, insee_error *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static bool fail(server *s, insee_error *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    err->code = INSEE_ERR_IO;
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    farewell(s, err->message);
    return false;
}

/* Refuse a connection in `version`: the one its HELLO spoke when this
   server speaks it too, so that the client can read why. */
static void refuse(server *s, int fd, uint16_t version, const char *why)
{
    char ignored[64];
    wire_buf_reset(&s->out);
    wire_put_text(&s->out, version, WIRE_REFUSE, why);
    if (!s->out.failed)
        wire_write_all(fd, s->out.data, s->out.len, s->timeout_ms, &s->cancel, ignored,
                       sizeof ignored);
    close(fd);
    char line[600];
    snprintf(line, sizeof line, "refused a client: %s", why);
    s->host->log(s->host->kernel, INSEE_LOG_WARNING, line);
}

static void unclaim(server *s, int32_t who)
{
    for (uint32_t n = 0; n < s->nodes; n++)
        if (s->owner[n] == who)
            s->owner[n] = -1;
}

/* Claim the hello's nodes for client `who`; false with why when one is out
   of range or taken (nothing claimed then). */
static bool claim(server *s, int32_t who, const wire_hello *h, char *label, size_t label_len,
                  char *why, size_t len)
{
    wire_reader ids = h->nodes;
    char name[WIRE_ESCAPED_NAME];
    wire_escape(h->name, name, sizeof name);
    int used = snprintf(label, label_len, "client '%s' (node%s", name, h->n_nodes > 1 ? "s" : "");
    for (uint32_t i = 0; i < h->n_nodes; i++) {
        uint32_t n = wire_u32(&ids);
        if (n >= s->nodes) {
            snprintf(why, len, "client '%.100s' announced node %u, but the bridge serves nodes "
                     "0..%u ([bridge] nodes)", name, n, s->nodes - 1);
            unclaim(s, who);
            return false;
        }
        if (s->owner[n] >= 0) {
            snprintf(why, len, "client '%.100s' announced node %u, already announced by %.250s",
                     name, n, s->owner[n] == who ? "itself" : s->clients[s->owner[n]].label);
            unclaim(s, who);
            return false;
        }
        s->owner[n] = who;
        if (i < 8 && used > 0 && (size_t)used < label_len)
            used += snprintf(label + used, label_len - (size_t)used, "%s %u", i ? "," : "", n);
    }
    if (used > 0 && (size_t)used < label_len)
        snprintf(label + used, label_len - (size_t)used, "%s)", h->n_nodes > 8 ? ", ..." : "");
    return true;
}

/* A connection's first frame: welcomed and kept, or refused with the
   reason and closed. */
static void admit(server *s, int fd, const wire_header *h, const uint8_t *p)
{
    char why[512];
    wire_hello hello;
    client *c = &s->clients[s->n_clients];
    int32_t who = (int32_t)s->n_clients;
    bool ok = false;
    bool known = h->version >= WIRE_VERSION_MIN && h->version <= WIRE_VERSION;
    if (!known)
        snprintf(why, sizeof why, "this client speaks bridge protocol version %u; this server "
                 "speaks versions %u to %u", h->version, WIRE_VERSION_MIN, WIRE_VERSION);
    else if (h->type != WIRE_HELLO)
        snprintf(why, sizeof why, "the first frame must be HELLO, not %s",
                 wire_type_name(h->type));
    else
        ok = wire_parse_hello(p, h->length, &hello, why, sizeof why) &&
             claim(s, who, &hello, c->label, sizeof c->label, why, sizeof why);
    if (!ok) {
        refuse(s, fd, known ? h->version : WIRE_VERSION, why);
        return;
    }
    wire_buf_reset(&s->out);
    wire_put_welcome(&s->out, h->version, &(wire_welcome){.client_units = (uint32_t)s->S,
                                              .network_cycles = (uint32_t)s->F,
                                              .model = (uint32_t)s->model, .nodes = s->nodes});
    if (s->out.failed || wire_write_all(fd, s->out.data, s->out.len, s->timeout_ms, &s->cancel,
                                        why, sizeof why) != 0) {
        unclaim(s, who);
        close(fd);
        return;
    }
    c->fd = fd;
    c->version = h->version;
    c->state = C_LIVE;
    c->first = c->last = NO_MSG;
    s->n_clients++;
}

/* A connection accepted, its HELLO not whole yet. */
typedef struct pending {
    int fd;
    int64_t deadline;
    wire_partial frame;
} pending;

/* At most this many handshakes at once: a flood of connections beyond it
   pushes out the oldest, so it cannot keep a real client waiting. */
#define MAX_PENDING 64

static void log_no_hello(server *s, const char *why)
{
    char line[600];
    snprintf(line, sizeof line, "a connection sent no HELLO: %s", why);
    s->host->log(s->host->kernel, INSEE_LOG_WARNING, line);
}

/* Forget pending handshake i (its fd is the caller's), keeping the others
   in order. */
static void pending_remove(pending *p, uint32_t *n, uint32_t i)
{
    wire_partial_clear(&p[i].frame);
    memmove(&p[i], &p[i + 1], (*n - i - 1) * sizeof *p);
    (*n)--;
}

/* Read what pending handshake i has sent; once it is over (welcomed,
   refused or given up) it is removed from p. */
static void pending_read(server *s, pending *p, uint32_t *n, uint32_t i)
{
    wire_header h;
    uint8_t *payload = NULL;
    char why[512];
    int rc = wire_partial_read(&p[i].frame, p[i].fd, &h, &payload, why, sizeof why);
    if (rc == WIRE_AGAIN)
        return;
    int fd = p[i].fd;
    if (rc == 0) {
        admit(s, fd, &h, payload);
    } else if (rc == 3) {
        refuse(s, fd, WIRE_VERSION, why);
    } else {
        log_no_hello(s, why);
        close(fd);
    }
    free(payload);
    pending_remove(p, n, i);
}
/* A wait cut short because the run was asked to stop: say so, tell the
   clients, and end sync() blaming nobody. */
static bool interrupted(server *s, const char *waiting_for)
{
    char line[448];
    snprintf(line, sizeof line, "the run was interrupted while waiting for %s", waiting_for);
    log_info(s, line);
    farewell(s, "the run was interrupted");
    s->stopped = true;
    return false;
}

/* Accept a connection on listener fd into the handshakes (the oldest given
   up on when they are full). */
static void accept_one(server *s, int fd, pending *p, uint32_t *n)
{
    int c = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
    if (c < 0)
        return;
    if (*n == MAX_PENDING) {
        log_no_hello(s, "it was the oldest of too many connections still in their handshake");
        close(p[0].fd);
        pending_remove(p, n, 0);
    }
    p[(*n)++] = (pending){.fd = c, .deadline = wire_deadline(s->timeout_ms)};
}

/* Give up on the handshakes past their deadline. */
static void expire(server *s, pending *p, uint32_t *n)
{
    for (uint32_t i = *n; i-- > 0;) {
        if (wire_left_ms(p[i].deadline) > 0)
            continue;
        char why[100];
        snprintf(why, sizeof why, "it sent no whole frame within %d ms", s->timeout_ms);
        log_no_hello(s, why);
        close(p[i].fd);
        pending_remove(p, n, i);
    }
}

/* Before slice 0: exactly `want` clients, then nobody else. The handshakes
   run side by side, each until its own deadline, so a silent connection
   costs the others nothing. Once timeout_ms has passed without a client
   welcomed no connection is taken, and the wait ends with the handshakes
   under way. */
static bool accept_all(server *s, insee_error *err)
{
    pending p[MAX_PENDING];
    uint32_t n = 0;
    int64_t deadline = wire_deadline(s->timeout_ms);
    bool ok = true;
    while (ok && s->n_clients < s->want) {
        bool late = wire_left_ms(deadline) == 0;
        if (late && n == 0) {
            ok = fail(s, err, "only %u of the %u clients ([bridge] clients) connected and "
                      "were welcomed within %d ms ([bridge] timeout_ms)", s->n_clients,
                      s->want, s->timeout_ms);
            break;
        }
        struct pollfd fds[2 + MAX_PENDING];
        nfds_t listeners = 0;
        if (s->tcp_fd >= 0 && !late)
            fds[listeners++] = (struct pollfd){.fd = s->tcp_fd, .events = POLLIN};
        if (s->unix_fd >= 0 && !late)
            fds[listeners++] = (struct pollfd){.fd = s->unix_fd, .events = POLLIN};
        int64_t next = late ? INT64_MAX : deadline;
        for (uint32_t i = 0; i < n; i++) {
            fds[listeners + i] = (struct pollfd){.fd = p[i].fd, .events = POLLIN};
            next = p[i].deadline < next ? p[i].deadline : next;
        }
        uint32_t welcomed = s->n_clients;
        int r = wire_poll(fds, listeners + n, next, &s->cancel);
        if (r == -2) {
            ok = interrupted(s, "clients");
            break;
        }
        if (r == -1) {
            ok = fail(s, err, "waiting for clients: poll failed: %s", strerror(errno));
            break;
        }
        /* From the last handshake back: a removal leaves the indices still
           to visit in place. */
        for (uint32_t i = n; i-- > 0 && s->n_clients < s->want;)
            if (fds[listeners + i].revents)
                pending_read(s, p, &n, i);
        expire(s, p, &n);
        for (nfds_t i = 0; i < listeners; i++)
            if (fds[i].revents & POLLIN)
                accept_one(s, fds[i].fd, p, &n);
        if (s->n_clients > welcomed)
            deadline = wire_deadline(s->timeout_ms);
    }
    while (n > 0) {
        close(p[0].fd);
        pending_remove(p, &n, 0);
    }
    close_listeners(s);
    return ok;
}

/* Client c broke off during slice k: gone (on_disconnect = "continue") or
   the run's end. */
static bool lost(server *s, client *c, uint64_t k, const char *why, insee_error *err)
{
    if (!s->go_on)
        return fail(s, err, "%s left during slice %llu without BYE: %s", c->label,
                    (unsigned long long)k, why);
    char line[900];
    snprintf(line, sizeof line, "%s left during slice %llu without BYE (%s); the run goes on "
             "without it ([bridge] on_disconnect)", c->label, (unsigned long long)k, why);
    s->host->log(s->host->kernel, INSEE_LOG_WARNING, line);
    c->state = C_GONE;
    drop_pending(s, c);
    close(c->fd);
    c->fd = -1;
    return true;
}

/* Release slice k at boundary `now`: SLICE_GO and the deliveries that
   arrived before now, to every client still running. */
static bool release(server *s, uint64_t k, uint64_t now, insee_error *err)
{
    for (uint32_t i = 0; i < s->n_clients; i++) {
        client *c = &s->clients[i];
        if (c->state != C_LIVE)
            continue;
        wire_buf_reset(&s->out);
        wire_put_slice_go(&s->out, c->version, &(wire_slice){.index = k, .start_cycle = now,
                                                 .end_cycle = now + s->F, .start_unit = k * s->S,
                                                 .end_unit = (k + 1) * s->S,
                                                 .deliveries = c->count});
        for (uint32_t m = c->first; m != NO_MSG; m = s->msg[m].next) {
            const msg_rec *r = &s->msg[m];
            wire_put_delivery(&s->out, c->version, &(wire_delivery){
                .src = r->src, .dst = r->dst, .bytes = r->bytes, .handle = r->handle,
                .timestamp = r->timestamp, .injected_cycle = r->injected,
                .arrival_cycle = r->arrival, .payload_len = r->payload_len,
                .payload = r->payload});
            /* Usable from the cycle after its last phit; handed over at now. */
            uint64_t wait = now - r->arrival - 1;
            s->handed++;
            s->wait_sum += wait;
            if (wait > s->wait_max)
                s->wait_max = wait;
        }
        for (uint32_t m = c->first; m != NO_MSG;) {
            uint32_t next = s->msg[m].next;
            msg_free(s, m);
            m = next;
        }
        c->first = c->last = NO_MSG;
        c->count = 0;
        char why[256];
        if (s->out.failed)
            return fail(s, err, "out of memory for the deliveries of %s", c->label);
        int rc = wire_write_all(c->fd, s->out.data, s->out.len, s->timeout_ms, &s->cancel, why,
                                sizeof why);
        if (rc == 4)
            return interrupted(s, c->label);
        if (rc == 2)
            return fail(s, err, "%s did not read slice %llu's start within %d ms ([bridge] "
                        "timeout_ms): it is stuck, or slower than the timeout allows", c->label,
                        (unsigned long long)k, s->timeout_ms);
        if (rc != 0 && !lost(s, c, k, why, err))
            return false;
    }
    return true;
}

static uint32_t msg_new(server *s)
{
    if (s->free_msg != NO_MSG) {
        uint32_t m = s->free_msg;
        s->free_msg = s->msg[m].next;
        return m;
    }
    if (s->n_msg == s->cap_msg) {
        uint32_t cap = s->cap_msg ? s->cap_msg * 2 : 256;
        msg_rec *grown = cap > s->cap_msg ? realloc(s->msg, cap * sizeof *grown) : NULL;
        if (!grown)
            return NO_MSG;
        s->msg = grown;
        s->cap_msg = cap;
    }
    return s->n_msg++;
}

/* One injection of client `who` made in slice j, queued at its exact cycle
   (lockstep) or at `now` (parallel). */
static bool inject(server *s, int32_t who, uint64_t j, uint64_t now, const wire_injection *in,
                   insee_error *err)
{
    const client *c = &s->clients[who];
    if (in->src >= s->nodes || s->owner[in->src] != who)
        return fail(s, err, "%s injected from node %u, which it did not announce", c->label,
                    in->src);
    if (in->dst >= s->nodes || s->owner[in->dst] < 0)
        return fail(s, err, "%s injected to node %u, which no client announced", c->label,
                    in->dst);
    if (in->timestamp < j * s->S || in->timestamp >= (j + 1) * s->S)
        return fail(s, err, "%s injected at time %llu, outside slice %llu ([%llu, %llu))",
                    c->label, (unsigned long long)in->timestamp, (unsigned long long)j,
                    (unsigned long long)(j * s->S), (unsigned long long)((j + 1) * s->S));
    if (in->bytes > WIRE_MAX_MESSAGE_BYTES)
        return fail(s, err, "%s injected a message of %llu bytes: a message is at most %llu "
                    "bytes long (its packets must fit a 32-bit count)", c->label,
                    (unsigned long long)in->bytes, WIRE_MAX_MESSAGE_BYTES);
    if (in->payload_len > WIRE_MAX_MESSAGE_PAYLOAD)
        return fail(s, err, "%s injected a payload of %u bytes: a message carries at most %u",
                    c->label, in->payload_len, WIRE_MAX_MESSAGE_PAYLOAD);
    uint64_t exact = j * s->F + (in->timestamp - j * s->S) * s->F / s->S;
    uint64_t at = s->model == WIRE_LOCKSTEP ? exact : now;
    uint32_t m = msg_new(s);
    uint8_t *copy = in->payload_len ? malloc(in->payload_len) : NULL;
    if (m == NO_MSG || (in->payload_len && !copy)) {
        free(copy);
        return fail(s, err, "out of memory for the messages of %s", c->label);
    }
    if (copy)
        memcpy(copy, in->payload, in->payload_len);
    s->msg[m] = (msg_rec){.src = in->src, .dst = in->dst, .bytes = in->bytes,
                          .handle = in->handle, .timestamp = in->timestamp, .injected = at,
                          .payload = copy, .payload_len = in->payload_len, .next = NO_MSG};
    insee_error e = {0};
    /* A kernel before 1.13 has no per-message choice: a client that made
       one is refused rather than simulated as another transfer. */
    bool with = INSEE_HOST_HAS(s->host, bridge_inject_with);
    if (!with && (in->nic || in->copy)) {
        msg_free(s, m);
        return fail(s, err, "%s chose network interface %u and copy mode %u for a message, "
                    "but this kernel (ABI 1.%u) cannot take a per-message choice (ABI 1.13 "
                    "needed)", c->label, in->nic, in->copy, s->host->abi_minor);
    }
    bool ok = with ? s->host->bridge_inject_with(s->host->kernel, in->src, in->dst, in->bytes, m,
                                                 at, in->nic, in->copy, &e)
                   : s->host->bridge_inject(s->host->kernel, in->src, in->dst, in->bytes, m,
                                            at, &e);
    if (!ok) {
        msg_free(s, m);
        return fail(s, err, "%s: %s", c->label, e.message);
    }
    s->injected++;
    s->in_flight++;
    s->late_sum += at - exact;
    if (at - exact > s->late_max)
        s->late_max = at - exact;
    return true;
}

/* Each client still running ends slice j: SLICE_DONE with its injections,
   or BYE. */
static bool collect(server *s, uint64_t j, uint64_t now, insee_error *err)
{
    for (uint32_t i = 0; i < s->n_clients; i++) {
        client *c = &s->clients[i];
        if (c->state != C_LIVE)
            continue;
        wire_header h;
        uint8_t *p = NULL;
        char why[400];
        int rc = wire_read_frame(c->fd, s->timeout_ms, &s->cancel, &h, &p, why, sizeof why);
        if (rc == 4)
            return interrupted(s, c->label);
        if (rc == 2)
            return fail(s, err, "%s sent nothing for %d ms during slice %llu ([bridge] "
                        "timeout_ms): it is stuck, or slower than the timeout allows",
                        c->label, s->timeout_ms, (unsigned long long)j);
        if (rc == 3)
            return fail(s, err, "%s sent a malformed frame: %s", c->label, why);
        if (rc != 0) {
            if (!lost(s, c, j, why, err))
                return false;
            continue;
        }
        bool ok = true;
        if (h.type == WIRE_BYE && h.length != 0) {
            ok = fail(s, err, "%s sent a BYE carrying %u bytes: a client's BYE is empty (a "
                      "protocol error)", c->label, h.length);
        } else if (h.type == WIRE_BYE) {
            c->state = C_DONE;
            drop_pending(s, c);
        } else if (h.version != c->version || h.type != WIRE_SLICE_DONE) {
            ok = fail(s, err, "%s sent a %s frame (version %u) where SLICE_DONE or BYE of "
                      "slice %llu was due", c->label, wire_type_name(h.type), h.version,
                      (unsigned long long)j);
        } else {
            uint64_t index;
            uint32_t count;
            wire_reader r;
            wire_injection in;
            ok = wire_parse_slice_done(p, h.length, c->version, &index, &count, &r, why, sizeof why);
            if (ok && index != j)
                ok = fail(s, err, "%s ended slice %llu while slice %llu was running", c->label,
                          (unsigned long long)index, (unsigned long long)j);
            else if (!ok)
                ok = fail(s, err, "%s sent a malformed frame: %s", c->label, why);
            for (uint32_t n = 0; ok && n < count; n++) {
                ok = wire_next_injection(&r, c->version, &in, why, sizeof why);
                if (!ok)
                    ok = fail(s, err, "%s sent a malformed frame: %s", c->label, why);
                else
                    ok = inject(s, (int32_t)i, j, now, &in, err);
            }
            if (ok && r.off != r.len)
                ok = fail(s, err, "%s sent a malformed frame: %zu bytes after its injections",
                          c->label, r.len - r.off);
        }
        free(p);
        if (!ok)
            return false;
    }
    return true;
}

static uint64_t ss_sync(void *self, uint64_t now, insee_error *err)
{
    server *s = self;
    if (s->n_clients == 0 && !accept_all(s, err))
        return INSEE_NEVER;
    uint64_t k = now / s->F;
    s->slices = k + 1;
    bool ok = s->model == WIRE_LOCKSTEP
                  ? release(s, k, now, err) && collect(s, k, now, err)
                  : (k == 0 || collect(s, k - 1, now, err)) && release(s, k, now, err);
    /* Interrupted: the kernel, asked to stop, ends the run as interrupted at
       its next cycle, which a later boundary leaves to come; INSEE_NEVER
       could let the run end there as finished, its partial figures written
       as whole. */
    if (!ok)
        return s->stopped ? now + 1 : INSEE_NEVER;
    if (!any_live(s)) {
        report(s);
        return INSEE_NEVER;
    }
    return now + s->F;
}

static void ss_deliver(void *self, const insee_bridge_msg *m, uint64_t cycle)
{
    server *s = self;
    uint32_t id = (uint32_t)m->handle;
    s->in_flight--;
    int32_t o = s->owner[m->dst_node];
    client *c = o >= 0 ? &s->clients[o] : NULL;
    if (!c || c->state != C_LIVE) {
        if (!s->reported)
            s->dropped++; /* after the report: counted there already */
        msg_free(s, id);
        return;
    }
    s->msg[id].arrival = cycle;
    s->msg[id].next = NO_MSG;
    if (c->last == NO_MSG)
        c->first = id;
    else
        s->msg[c->last].next = id;
    c->last = id;
    c->count++;
}

static const insee_bridge_vtable vtable = {
    .size = sizeof vtable,
    .create = ss_create,
    .destroy = ss_destroy,
    .sync = ss_sync,
    .deliver = ss_deliver,
};

static const insee_plugin_desc desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_BRIDGE,
    .name = "sync-server",
    .version = "1.0.0",
    .summary = "synchronisation server and traffic manager for outside simulators of the "
               "nodes, in lock-step or parallel slices",
    .reference = "Ridruejo et al., full-system simulation of interconnection networks, §3-§5, "
                 "§7.4",
    .params = params,
    .vtable = &vtable,
};

INSEE_PLUGIN_DEFINE(desc)
