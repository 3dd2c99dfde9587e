/* sdk/client/wire.c — frames of the bridge wire protocol (contract in wire.h). */
#define _GNU_SOURCE /* MSG_NOSIGNAL */
#include "wire.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static bool fail(char *why, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static bool fail(char *why, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, len, fmt, ap);
    va_end(ap);
    return false;
}

void wire_buf_reset(wire_buf *b)
{
    b->len = 0;
    b->failed = false;
}

void wire_buf_free(wire_buf *b)
{
    free(b->data);
    *b = (wire_buf){0};
}

void wire_put_bytes(wire_buf *b, const void *p, size_t n)
{
    if (b->failed || n == 0)
        return;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n)
            cap *= 2;
        uint8_t *data = realloc(b->data, cap);
        if (!data) {
            b->failed = true;
            return;
        }
        b->data = data;
        b->cap = cap;
    }
    memcpy(b->data + b->len, p, n);
    b->len += n;
}

static void put_le(wire_buf *b, uint64_t v, int bytes)
{
    uint8_t x[8];
    for (int i = 0; i < bytes; i++)
        x[i] = (uint8_t)(v >> (8 * i));
    wire_put_bytes(b, x, (size_t)bytes);
}

void wire_put_u16(wire_buf *b, uint16_t v) { put_le(b, v, 2); }
void wire_put_u32(wire_buf *b, uint32_t v) { put_le(b, v, 4); }
void wire_put_u64(wire_buf *b, uint64_t v) { put_le(b, v, 8); }

void wire_begin(wire_buf *b, wire_type type, uint16_t version)
{
    wire_put_u32(b, WIRE_MAGIC);
    wire_put_u16(b, version);
    wire_put_u16(b, (uint16_t)type);
    wire_put_u32(b, 0);
}

void wire_end(wire_buf *b, size_t frame_start)
{
    if (b->failed)
        return;
    uint32_t n = (uint32_t)(b->len - frame_start - WIRE_HEADER_BYTES);
    for (int i = 0; i < 4; i++)
        b->data[frame_start + 8 + (size_t)i] = (uint8_t)(n >> (8 * i));
}

static uint64_t get_le(wire_reader *r, int bytes)
{
    if (r->bad || r->len - r->off < (size_t)bytes) {
        r->bad = true;
        return 0;
    }
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++)
        v |= (uint64_t)r->p[r->off + (size_t)i] << (8 * i);
    r->off += (size_t)bytes;
    return v;
}

static uint16_t wire_u16(wire_reader *r) { return (uint16_t)get_le(r, 2); }
uint32_t wire_u32(wire_reader *r) { return (uint32_t)get_le(r, 4); }
uint64_t wire_u64(wire_reader *r) { return get_le(r, 8); }

/* n bytes of r, or NULL (r->bad) when fewer are left. */
static const uint8_t *get_bytes(wire_reader *r, size_t n)
{
    if (r->bad || r->len - r->off < n) {
        r->bad = true;
        return NULL;
    }
    const uint8_t *p = r->p + r->off;
    r->off += n;
    return p;
}

const char *wire_type_name(uint16_t type)
{
    static const char *const names[] = {NULL, "HELLO", "WELCOME", "REFUSE", "SLICE_GO",
                                        "SLICE_DONE", "DELIVER", "BYE"};
    return type >= 1 && type <= WIRE_BYE ? names[type] : "unknown";
}

void wire_put_hello(wire_buf *b, uint16_t version, const char *name, const uint32_t *nodes,
                    uint32_t n)
{
    size_t start = b->len;
    size_t name_len = strlen(name);
    if (name_len > WIRE_MAX_NAME)
        name_len = WIRE_MAX_NAME;
    wire_begin(b, WIRE_HELLO, version);
    wire_put_u16(b, (uint16_t)name_len);
    wire_put_bytes(b, name, name_len);
    wire_put_u32(b, n);
    for (uint32_t i = 0; i < n; i++)
        wire_put_u32(b, nodes[i]);
    wire_end(b, start);
}

void wire_put_welcome(wire_buf *b, uint16_t version, const wire_welcome *w)
{
    size_t start = b->len;
    wire_begin(b, WIRE_WELCOME, version);
    wire_put_u32(b, w->client_units);
    wire_put_u32(b, w->network_cycles);
    wire_put_u32(b, w->model);
    wire_put_u32(b, w->nodes);
    wire_end(b, start);
}

void wire_put_text(wire_buf *b, uint16_t version, wire_type type, const char *text)
{
    size_t start = b->len;
    wire_begin(b, type, version);
    wire_put_bytes(b, text, strlen(text));
    wire_end(b, start);
}

void wire_put_slice_go(wire_buf *b, uint16_t version, const wire_slice *s)
{
    size_t start = b->len;
    wire_begin(b, WIRE_SLICE_GO, version);
    wire_put_u64(b, s->index);
    wire_put_u64(b, s->start_cycle);
    wire_put_u64(b, s->end_cycle);
    wire_put_u64(b, s->start_unit);
    wire_put_u64(b, s->end_unit);
    wire_put_u32(b, s->deliveries);
    wire_end(b, start);
}

size_t wire_begin_slice_done(wire_buf *b, uint16_t version, uint64_t index)
{
    size_t start = b->len;
    wire_begin(b, WIRE_SLICE_DONE, version);
    wire_put_u64(b, index);
    wire_put_u32(b, 0);
    return start;
}

size_t wire_injection_fixed(uint16_t version)
{
    return version >= 2 ? WIRE_INJECTION_FIXED_V2 : WIRE_INJECTION_FIXED;
}

void wire_put_injection(wire_buf *b, uint16_t version, const wire_injection *in)
{
    wire_put_u32(b, in->src);
    wire_put_u32(b, in->dst);
    wire_put_u64(b, in->bytes);
    wire_put_u64(b, in->timestamp);
    wire_put_u64(b, in->handle);
    if (version >= 2) {
        wire_put_u16(b, in->nic);
        uint8_t copy_reserved[2] = {in->copy, 0};
        wire_put_bytes(b, copy_reserved, sizeof copy_reserved);
    }
    wire_put_u32(b, in->payload_len);
    wire_put_bytes(b, in->payload, in->payload_len);
}

void wire_end_slice_done(wire_buf *b, size_t frame_start, uint32_t count)
{
    if (b->failed)
        return;
    for (int i = 0; i < 4; i++)
        b->data[frame_start + WIRE_HEADER_BYTES + 8 + (size_t)i] = (uint8_t)(count >> (8 * i));
    wire_end(b, frame_start);
}

void wire_put_delivery(wire_buf *b, uint16_t version, const wire_delivery *d)
{
    size_t start = b->len;
    wire_begin(b, WIRE_DELIVER, version);
    wire_put_u32(b, d->src);
    wire_put_u32(b, d->dst);
    wire_put_u64(b, d->bytes);
    wire_put_u64(b, d->handle);
    wire_put_u64(b, d->timestamp);
    wire_put_u64(b, d->injected_cycle);
    wire_put_u64(b, d->arrival_cycle);
    wire_put_u32(b, d->payload_len);
    wire_put_bytes(b, d->payload, d->payload_len);
    wire_end(b, start);
}

bool wire_parse_header(const uint8_t *h, wire_header *out, char *why, size_t len)
{
    wire_reader r = {.p = h, .len = WIRE_HEADER_BYTES};
    out->magic = wire_u32(&r);
    out->version = wire_u16(&r);
    out->type = wire_u16(&r);
    out->length = wire_u32(&r);
    if (out->magic != WIRE_MAGIC)
        return fail(why, len, "not an insee bridge frame (magic 0x%08x, expected 0x%08x)",
                    out->magic, WIRE_MAGIC);
    if (out->length > WIRE_MAX_PAYLOAD)
        return fail(why, len, "a %s frame of %u bytes, more than the %u a frame may carry",
                    wire_type_name(out->type), out->length, WIRE_MAX_PAYLOAD);
    if (out->type < WIRE_HELLO || out->type > WIRE_BYE)
        return fail(why, len, "unknown frame type %u", out->type);
    return true;
}

/* The reader consumed exactly the payload. */
static bool whole(const wire_reader *r, const char *what, char *why, size_t len)
{
    if (r->bad)
        return fail(why, len, "%s frame shorter than its fields", what);
    if (r->off != r->len)
        return fail(why, len, "%s frame has %zu bytes after its fields", what, r->len - r->off);
    return true;
}

bool wire_parse_hello(const uint8_t *p, size_t n, wire_hello *out, char *why, size_t len)
{
    wire_reader r = {.p = p, .len = n};
    uint16_t name_len = wire_u16(&r);
    const uint8_t *name = get_bytes(&r, name_len);
    if (name_len > WIRE_MAX_NAME || !name)
        return fail(why, len, "HELLO frame with a bad name length (%u)", name_len);
    memcpy(out->name, name, name_len);
    out->name[name_len] = '\0';
    if (memchr(out->name, '\0', name_len))
        return fail(why, len, "HELLO frame with a NUL byte in its name");
    out->n_nodes = wire_u32(&r);
    const uint8_t *ids = get_bytes(&r, (size_t)out->n_nodes * 4);
    if (!ids || out->n_nodes == 0)
        return fail(why, len, "HELLO frame announcing %u nodes, not followed by as many ids",
                    out->n_nodes);
    out->nodes = (wire_reader){.p = ids, .len = (size_t)out->n_nodes * 4};
    return whole(&r, "HELLO", why, len);
}

bool wire_parse_welcome(const uint8_t *p, size_t n, wire_welcome *out, char *why, size_t len)
{
    wire_reader r = {.p = p, .len = n};
    out->client_units = wire_u32(&r);
    out->network_cycles = wire_u32(&r);
    out->model = wire_u32(&r);
    out->nodes = wire_u32(&r);
    return whole(&r, "WELCOME", why, len);
}

bool wire_parse_slice_go(const uint8_t *p, size_t n, wire_slice *out, char *why, size_t len)
{
    wire_reader r = {.p = p, .len = n};
    out->index = wire_u64(&r);
    out->start_cycle = wire_u64(&r);
    out->end_cycle = wire_u64(&r);
    out->start_unit = wire_u64(&r);
    out->end_unit = wire_u64(&r);
    out->deliveries = wire_u32(&r);
    return whole(&r, "SLICE_GO", why, len);
}

bool wire_parse_delivery(const uint8_t *p, size_t n, wire_delivery *out, char *why, size_t len)
{
    wire_reader r = {.p = p, .len = n};
    out->src = wire_u32(&r);
    out->dst = wire_u32(&r);
    out->bytes = wire_u64(&r);
    out->handle = wire_u64(&r);
    out->timestamp = wire_u64(&r);
    out->injected_cycle = wire_u64(&r);
    out->arrival_cycle = wire_u64(&r);
    out->payload_len = wire_u32(&r);
    out->payload = get_bytes(&r, out->payload_len);
    return whole(&r, "DELIVER", why, len);
}

bool wire_parse_slice_done(const uint8_t *p, size_t n, uint16_t version, uint64_t *index,
                           uint32_t *count, wire_reader *r, char *why, size_t len)
{
    *r = (wire_reader){.p = p, .len = n};
    *index = wire_u64(r);
    *count = wire_u32(r);
    if (r->bad)
        return fail(why, len, "SLICE_DONE frame shorter than its fields");
    /* Each injection takes at least its fixed fields: a count beyond that is a lie. */
    if (*count > (r->len - r->off) / wire_injection_fixed(version))
        return fail(why, len, "SLICE_DONE frame announcing %u injections in %zu bytes", *count,
                    r->len - r->off);
    return true;
}

bool wire_next_injection(wire_reader *r, uint16_t version, wire_injection *out, char *why,
                         size_t len)
{
    out->src = wire_u32(r);
    out->dst = wire_u32(r);
    out->bytes = wire_u64(r);
    out->timestamp = wire_u64(r);
    out->handle = wire_u64(r);
    out->nic = 0;
    out->copy = 0;
    uint8_t reserved = 0;
    if (version >= 2) {
        out->nic = wire_u16(r);
        out->copy = (uint8_t)get_le(r, 1);
        reserved = (uint8_t)get_le(r, 1);
    }
    out->payload_len = wire_u32(r);
    out->payload = get_bytes(r, out->payload_len);
    if (r->bad)
        return fail(why, len, "SLICE_DONE frame shorter than its injections");
    /* Refused rather than ignored, so that a later version may give it a
       meaning without old servers silently dropping it. */
    if (reserved)
        return fail(why, len, "an injection's reserved byte is %u; it must be 0", reserved);
    return true;
}

int64_t wire_deadline(int timeout_ms)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return timeout_ms < 0 ? -1 : (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000 + timeout_ms;
}

int wire_left_ms(int64_t deadline)
{
    if (deadline < 0)
        return -1;
    int64_t left = deadline - wire_deadline(0);
    return left > 0 ? (left < INT32_MAX ? (int)left : INT32_MAX) : 0;
}

int wire_poll(struct pollfd *p, nfds_t n, int64_t deadline, const wire_cancel *cancel)
{
    for (;;) {
        bool cancellable = cancel && cancel->stop;
        if (cancellable && cancel->stop(cancel->data))
            return -2;
        int ms = wire_left_ms(deadline);
        bool sliced = cancellable && (ms < 0 || ms > WIRE_CANCEL_POLL_MS);
        int ready = poll(p, n, sliced ? WIRE_CANCEL_POLL_MS : ms);
        if (ready > 0 || (ready == 0 && !sliced))
            return ready;
        if (ready < 0 && errno != EINTR)
            return -1;
    }
}

/* Wait until fd is ready for `events`: 1 ready, 0 timed out, -1 error (why
   filled), -2 cancelled. */
static int wait_fd(int fd, short events, int64_t deadline, int timeout_ms,
                   const wire_cancel *cancel, char *why, size_t len)
{
    struct pollfd pfd = {.fd = fd, .events = events};
    int ready = wire_poll(&pfd, 1, deadline, cancel);
    if (ready == 0)
        fail(why, len, "it %s within %d ms",
             events == POLLOUT ? "did not read what was sent" : "sent no whole frame",
             timeout_ms);
    else if (ready == -1)
        fail(why, len, "poll failed: %s", strerror(errno));
    else if (ready == -2)
        fail(why, len, "the run was asked to stop");
    return ready;
}

/* wait_fd()'s answer as a return code of wire_read_frame() / wire_write_all(). */
static int wait_rc(int ready)
{
    return ready == 0 ? 2 : ready == -2 ? 4 : -1;
}

int wire_write_all(int fd, const void *p, size_t n, int timeout_ms, const wire_cancel *cancel,
                   char *why, size_t len)
{
    const uint8_t *c = p;
    int64_t deadline = wire_deadline(timeout_ms);
    while (n > 0) {
        int ready = wait_fd(fd, POLLOUT, deadline, timeout_ms, cancel, why, len);
        if (ready <= 0)
            return wait_rc(ready);
        ssize_t w = send(fd, c, n, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
            continue;
        if (w < 0) {
            fail(why, len, "the connection broke (%s)", strerror(errno));
            return -1;
        }
        c += w;
        n -= (size_t)w;
    }
    return 0;
}

void wire_partial_clear(wire_partial *f)
{
    free(f->payload);
    *f = (wire_partial){0};
}

/* The frame's header is whole: check it and make room for its payload. */
static int partial_header(wire_partial *f, char *why, size_t len)
{
    if (!wire_parse_header(f->head, &f->h, why, len))
        return 3;
    if (f->h.length && !(f->payload = malloc(f->h.length))) {
        fail(why, len, "out of memory for a %u-byte frame", f->h.length);
        return -1;
    }
    return 0;
}

int wire_partial_read(wire_partial *f, int fd, wire_header *h, uint8_t **payload, char *why,
                      size_t len)
{
    *payload = NULL;
    for (;;) {
        bool in_head = f->got < WIRE_HEADER_BYTES;
        size_t want = in_head ? WIRE_HEADER_BYTES - f->got
                              : WIRE_HEADER_BYTES + f->h.length - f->got;
        if (want == 0) {
            *h = f->h;
            *payload = f->payload;
            f->payload = NULL;
            wire_partial_clear(f);
            return 0;
        }
        uint8_t *to = in_head ? f->head + f->got : f->payload + (f->got - WIRE_HEADER_BYTES);
        ssize_t r = recv(fd, to, want, MSG_DONTWAIT);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return WIRE_AGAIN;
        int rc = 0;
        if (r == 0 && f->got == 0) {
            fail(why, len, "the connection closed");
            rc = 1;
        } else if (r == 0) {
            fail(why, len, "the connection closed in the middle of a frame");
            rc = -1;
        } else if (r < 0) {
            fail(why, len, "the connection broke (%s)", strerror(errno));
            rc = -1;
        } else {
            f->got += (size_t)r;
            if (f->got == WIRE_HEADER_BYTES)
                rc = partial_header(f, why, len);
        }
        if (rc != 0) {
            wire_partial_clear(f);
            return rc;
        }
    }
}

int wire_read_frame(int fd, int timeout_ms, const wire_cancel *cancel, wire_header *h,
                    uint8_t **payload, char *why, size_t len)
{
    wire_partial f = {0};
    int64_t deadline = wire_deadline(timeout_ms);
    for (;;) {
        int rc = wire_partial_read(&f, fd, h, payload, why, len);
        if (rc != WIRE_AGAIN)
            return rc;
        int ready = wait_fd(fd, POLLIN, deadline, timeout_ms, cancel, why, len);
        if (ready <= 0) {
            wire_partial_clear(&f);
            return wait_rc(ready);
        }
    }
}

const char *wire_escape(const char *text, char *out, size_t len)
{
    size_t n = 0;
    for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
        bool plain = *c >= 0x20 && *c < 0x7f;
        size_t need = plain ? 1 : 4;
        if (n + need >= len)
            break;
        if (plain)
            out[n++] = (char)*c;
        else
            n += (size_t)snprintf(out + n, len - n, "\\x%02x", *c);
    }
    out[n] = '\0';
    return out;
}
