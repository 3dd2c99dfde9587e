/* sdk/client/client.c — libinsee-client (contract in insee/client.h). */
#define _GNU_SOURCE /* getaddrinfo, SOCK_CLOEXEC */
#include <insee/client.h>

#include <errno.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "wire.h"

struct insee_client {
    int fd;
    uint16_t version;          /* what it announced: every frame it sends says so */
    insee_client_info info;
    uint32_t *nodes;
    size_t n_nodes;
    bool running;              /* a slice has been released and not ended */
    insee_client_slice slice;
    wire_buf out;              /* the SLICE_DONE being built */
    size_t done_start;
    uint32_t injections;
    insee_client_delivery *deliv;
    size_t n_deliv, cap_deliv;
    uint8_t **frames;          /* the DELIVER payloads the deliveries point into */
};

static bool set_error(insee_client_error *err, insee_client_status code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static bool set_error(insee_client_error *err, insee_client_status code, const char *fmt, ...)
{
    if (!err)
        return false;
    va_list ap;
    va_start(ap, fmt);
    err->code = code;
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    return false;
}

/* A connected socket to `address`, or -1 with err filled. */
static int open_socket(const char *address, insee_client_error *err)
{
    if (strncmp(address, "unix:", 5) == 0) {
        struct sockaddr_un sa = {.sun_family = AF_UNIX};
        if (strlen(address + 5) >= sizeof sa.sun_path) {
            set_error(err, INSEE_CLIENT_ERR_ARGUMENT, "Unix socket path '%s' is longer than %zu "
                      "bytes", address + 5, sizeof sa.sun_path - 1);
            return -1;
        }
        strcpy(sa.sun_path, address + 5);
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0)
            return fd;
        set_error(err, INSEE_CLIENT_ERR_CONNECT, "cannot connect to %s: %s", address,
                  strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    char host[256];
    const char *colon = strrchr(address, ':');
    size_t host_len = colon ? (size_t)(colon - address) : 0;
    if (!colon || host_len == 0 || host_len >= sizeof host || !colon[1]) {
        set_error(err, INSEE_CLIENT_ERR_ARGUMENT,
                  "address '%s' is neither HOST:PORT nor unix:PATH", address);
        return -1;
    }
    memcpy(host, address, host_len);
    host[host_len] = '\0';
    if (host[0] == '[' && host[host_len - 1] == ']') {
        memmove(host, host + 1, host_len - 2);
        host[host_len - 2] = '\0';
    }
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res = NULL;
    int rc = getaddrinfo(host, colon + 1, &hints, &res);
    if (rc != 0) {
        set_error(err, INSEE_CLIENT_ERR_CONNECT, "cannot resolve %s: %s", address,
                  gai_strerror(rc));
        return -1;
    }
    int fd = -1;
    for (struct addrinfo *ai = res; ai && fd < 0; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd >= 0 && connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
            set_error(err, INSEE_CLIENT_ERR_CONNECT, "cannot connect to %s: %s", address,
                      strerror(errno));
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    return fd;
}

/* The next frame from the server, waiting at most timeout_ms (< 0: no
   limit); a BYE, a REFUSE or a malformed frame is an error. */
static bool read_frame(insee_client *c, int timeout_ms, wire_header *h, uint8_t **payload,
                       insee_client_error *err)
{
    char why[256];
    int rc = wire_read_frame(c->fd, timeout_ms, NULL, h, payload, why, sizeof why);
    if (rc == 1)
        return set_error(err, INSEE_CLIENT_ERR_CLOSED, "the server closed the connection");
    if (rc == 3)
        return set_error(err, INSEE_CLIENT_ERR_PROTOCOL, "the server sent a bad frame: %s", why);
    if (rc != 0) /* broken, or (with a timeout) silent: the run is over for us */
        return set_error(err, INSEE_CLIENT_ERR_CLOSED, "reading from the server: %s", why);
    if (h->type == WIRE_BYE || h->type == WIRE_REFUSE) {
        /* The server's words go into messages an application prints. */
        char text[sizeof err->message], shown[sizeof err->message];
        size_t n = !*payload ? 0 : h->length < sizeof text ? h->length : sizeof text - 1;
        if (n)
            memcpy(text, *payload, n);
        text[n] = '\0';
        set_error(err, h->type == WIRE_BYE ? INSEE_CLIENT_ERR_CLOSED : INSEE_CLIENT_ERR_REFUSED,
                  "the server %s: %s", h->type == WIRE_BYE ? "ended the run" : "refused us",
                  wire_escape(text, shown, sizeof shown));
        free(*payload);
        *payload = NULL;
        return false;
    }
    return true;
}

/* A send that fails because the server closed: its BYE, already received,
   says why better than the broken pipe. */
static bool send_buf(insee_client *c, insee_client_error *err)
{
    char why[256];
    if (c->out.failed)
        return set_error(err, INSEE_CLIENT_ERR_NOMEM, "out of memory for a frame");
    if (wire_write_all(c->fd, c->out.data, c->out.len, -1, NULL, why, sizeof why) != 0) {
        wire_header h = {0};
        uint8_t *payload = NULL;
        insee_client_error bye = {0};
        if (read_frame(c, 0, &h, &payload, &bye))
            free(payload);
        else if (h.type == WIRE_BYE) {
            if (err)
                *err = bye;
            return false;
        }
        return set_error(err, INSEE_CLIENT_ERR_CLOSED, "cannot send to the server: %s", why);
    }
    wire_buf_reset(&c->out);
    return true;
}

static void free_frames(insee_client *c)
{
    for (size_t i = 0; i < c->n_deliv; i++)
        free(c->frames[i]);
    c->n_deliv = 0;
}

void insee_client_close(insee_client *c)
{
    if (!c)
        return;
    if (c->fd >= 0) {
        char why[64];
        wire_buf_reset(&c->out);
        wire_put_text(&c->out, c->version, WIRE_BYE, "");
        if (!c->out.failed)
            wire_write_all(c->fd, c->out.data, c->out.len, 1000, NULL, why, sizeof why);
        close(c->fd);
    }
    free_frames(c);
    free(c->frames);
    free(c->deliv);
    free(c->nodes);
    wire_buf_free(&c->out);
    free(c);
}

insee_client *insee_client_connect_version(const char *address, const char *name,
                                           const uint32_t *nodes, size_t n, uint16_t version,
                                           insee_client_error *err)
{
    if (!address || !name || !nodes || n == 0 || n > UINT32_MAX / 4) {
        set_error(err, INSEE_CLIENT_ERR_ARGUMENT,
                  "insee_client_connect() needs an address, a name and at least one node");
        return NULL;
    }
    insee_client *c = calloc(1, sizeof *c);
    if (!c || !(c->nodes = malloc(n * sizeof *nodes))) {
        free(c);
        set_error(err, INSEE_CLIENT_ERR_NOMEM, "out of memory for a client");
        return NULL;
    }
    memcpy(c->nodes, nodes, n * sizeof *nodes);
    c->n_nodes = n;
    c->version = version;
    c->fd = open_socket(address, err);
    if (c->fd < 0) {
        insee_client_close(c);
        return NULL;
    }
    wire_put_hello(&c->out, version, name, nodes, (uint32_t)n);
    wire_header h;
    uint8_t *payload = NULL;
    char why[256];
    bool ok = send_buf(c, err) && read_frame(c, -1, &h, &payload, err);
    if (ok && (h.type != WIRE_WELCOME ||
               !wire_parse_welcome(payload, h.length, &(wire_welcome){0}, why, sizeof why)))
        ok = set_error(err, INSEE_CLIENT_ERR_PROTOCOL,
                       "the server answered the handshake with a %s frame, not a WELCOME",
                       wire_type_name(h.type));
    if (ok) {
        wire_welcome w;
        wire_parse_welcome(payload, h.length, &w, why, sizeof why);
        c->info = (insee_client_info){.client_units = w.client_units,
                                      .network_cycles = w.network_cycles,
                                      .parallel = w.model == WIRE_PARALLEL, .nodes = w.nodes};
    }
    free(payload);
    if (!ok) {
        insee_client_close(c);
        return NULL;
    }
    return c;
}

insee_client *insee_client_connect(const char *address, const char *name, const uint32_t *nodes,
                                   size_t n, insee_client_error *err)
{
    return insee_client_connect_version(address, name, nodes, n, INSEE_CLIENT_PROTOCOL, err);
}

const insee_client_info *insee_client_get_info(const insee_client *c)
{
    return &c->info;
}

static bool own_node(const insee_client *c, uint32_t node)
{
    for (size_t i = 0; i < c->n_nodes; i++)
        if (c->nodes[i] == node)
            return true;
    return false;
}

_Static_assert(INSEE_CLIENT_MAX_PAYLOAD == WIRE_MAX_MESSAGE_PAYLOAD,
               "client.h's payload limit is the protocol's");
_Static_assert(INSEE_CLIENT_MAX_BYTES == WIRE_MAX_MESSAGE_BYTES,
               "client.h's message limit is the protocol's");

bool insee_client_inject_nic(insee_client *c, uint32_t src, uint32_t dst, uint64_t bytes,
                             uint64_t timestamp, uint64_t handle, const void *payload,
                             uint32_t payload_len, uint16_t nic, uint8_t copy,
                             insee_client_error *err)
{
    if (!c->running)
        return set_error(err, INSEE_CLIENT_ERR_ARGUMENT,
                         "no slice is running: call insee_client_end_slice() first");
    if (!own_node(c, src))
        return set_error(err, INSEE_CLIENT_ERR_ARGUMENT,
                         "node %u is not one of the nodes this client announced", src);
    if (dst >= c->info.nodes)
        return set_error(err, INSEE_CLIENT_ERR_ARGUMENT,
                         "destination node %u is not among the bridge's nodes 0..%u", dst,
                         c->info.nodes - 1);
    if (timestamp < c->slice.start_unit || timestamp >= c->slice.end_unit)
        return set_error(err, INSEE_CLIENT_ERR_ARGUMENT,
                         "timestamp %llu is outside slice %llu ([%llu, %llu))",
                         (unsigned long long)timestamp, (unsigned long long)c->slice.index,
                         (unsigned long long)c->slice.start_unit,
                         (unsigned long long)c->slice.end_unit);
    if (bytes > WIRE_MAX_MESSAGE_BYTES)
        return set_error(err, INSEE_CLIENT_ERR_ARGUMENT,
                         "a message of %llu bytes: a message is at most %llu bytes long",
                         (unsigned long long)bytes, WIRE_MAX_MESSAGE_BYTES);
    if (payload_len && !payload)
        return set_error(err, INSEE_CLIENT_ERR_ARGUMENT,
                         "payload_len is %u but payload is NULL", payload_len);
    if (payload_len > WIRE_MAX_MESSAGE_PAYLOAD)
        return set_error(err, INSEE_CLIENT_ERR_ARGUMENT,
                         "a payload of %u bytes: a message carries at most %u", payload_len,
                         WIRE_MAX_MESSAGE_PAYLOAD);
    if (copy > INSEE_CLIENT_COPY_TWO)
        return set_error(err, INSEE_CLIENT_ERR_ARGUMENT,
                         "copy mode %u: a message's copy is INSEE_CLIENT_COPY_DEFAULT, _ZERO "
                         "or _TWO", copy);
    /* A version-1 record has no room for them: dropping them silently
       would simulate another transfer than the one asked for. */
    if (c->version < 2 && (nic || copy))
        return set_error(err, INSEE_CLIENT_ERR_ARGUMENT,
                         "this connection speaks bridge protocol version %u, whose injections "
                         "carry no interface (nic %u) nor copy mode (%u)", c->version, nic,
                         copy);
    if ((uint64_t)WIRE_SLICE_DONE_FIXED + c->out.len + wire_injection_fixed(c->version) +
            payload_len > WIRE_MAX_PAYLOAD)
        return set_error(err, INSEE_CLIENT_ERR_ARGUMENT,
                         "this slice's injections would exceed the %u bytes a frame may carry; "
                         "end the slice sooner", WIRE_MAX_PAYLOAD);
    wire_put_injection(&c->out, c->version,
                       &(wire_injection){.src = src, .dst = dst, .bytes = bytes,
                                         .timestamp = timestamp, .handle = handle, .nic = nic,
                                         .copy = copy, .payload_len = payload_len,
                                         .payload = payload});
    if (c->out.failed)
        return set_error(err, INSEE_CLIENT_ERR_NOMEM, "out of memory for an injection");
    c->injections++;
    return true;
}

bool insee_client_inject(insee_client *c, uint32_t src, uint32_t dst, uint64_t bytes,
                         uint64_t timestamp, uint64_t handle, const void *payload,
                         uint32_t payload_len, insee_client_error *err)
{
    return insee_client_inject_nic(c, src, dst, bytes, timestamp, handle, payload, payload_len,
                                   0, INSEE_CLIENT_COPY_DEFAULT, err);
}

/* Read the `count` DELIVER frames that follow a SLICE_GO. */
static bool read_deliveries(insee_client *c, uint32_t count, insee_client_error *err)
{
    if (count > c->cap_deliv) {
        insee_client_delivery *d = realloc(c->deliv, count * sizeof *d);
        uint8_t **f = d ? realloc(c->frames, count * sizeof *f) : NULL;
        if (d)
            c->deliv = d;
        if (!f)
            return set_error(err, INSEE_CLIENT_ERR_NOMEM, "out of memory for %u deliveries",
                             count);
        c->frames = f;
        c->cap_deliv = count;
    }
    for (uint32_t i = 0; i < count; i++) {
        wire_header h;
        uint8_t *payload;
        char why[256];
        if (!read_frame(c, -1, &h, &payload, err))
            return false;
        c->frames[c->n_deliv++] = payload;
        wire_delivery d;
        if (h.type != WIRE_DELIVER || !wire_parse_delivery(payload, h.length, &d, why, sizeof why))
            return set_error(err, INSEE_CLIENT_ERR_PROTOCOL,
                             "the server sent a %s frame where delivery %u of %u was due",
                             wire_type_name(h.type), i + 1, count);
        c->deliv[i] = (insee_client_delivery){
            .src = d.src, .dst = d.dst, .bytes = d.bytes, .handle = d.handle,
            .timestamp = d.timestamp, .injected_cycle = d.injected_cycle,
            .arrival_cycle = d.arrival_cycle, .payload = d.payload_len ? d.payload : NULL,
            .payload_len = d.payload_len};
    }
    return true;
}

bool insee_client_end_slice(insee_client *c, insee_client_slice *slice,
                            const insee_client_delivery **deliveries, size_t *n,
                            insee_client_error *err)
{
    free_frames(c);
    *deliveries = NULL;
    *n = 0;
    if (c->running) {
        wire_buf body = c->out;
        c->out = (wire_buf){0};
        size_t start = wire_begin_slice_done(&c->out, c->version, c->slice.index);
        wire_put_bytes(&c->out, body.data, body.len);
        wire_end_slice_done(&c->out, start, c->injections);
        wire_buf_free(&body);
        c->injections = 0;
        c->running = false;
        if (!send_buf(c, err))
            return false;
    }
    wire_header h;
    uint8_t *payload = NULL;
    char why[256];
    wire_slice s;
    if (!read_frame(c, -1, &h, &payload, err))
        return false;
    bool ok = h.type == WIRE_SLICE_GO && wire_parse_slice_go(payload, h.length, &s, why, sizeof why);
    free(payload);
    if (!ok)
        return set_error(err, INSEE_CLIENT_ERR_PROTOCOL,
                         "the server sent a %s frame where a SLICE_GO was due",
                         wire_type_name(h.type));
    if (!read_deliveries(c, s.deliveries, err))
        return false;
    c->slice = (insee_client_slice){.index = s.index, .start_unit = s.start_unit,
                                    .end_unit = s.end_unit, .start_cycle = s.start_cycle,
                                    .end_cycle = s.end_cycle};
    c->running = true;
    *slice = c->slice;
    *deliveries = c->deliv;
    *n = s.deliveries;
    return true;
}
