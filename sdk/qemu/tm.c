/* insee-qemu-tm — the traffic manager between QEMU guests and insee's
 * simulated network (README.md beside this file).
 *
 * Guest i (0 .. N-1) is node i. It connects its NIC to DIR/guest-i.sock
 * (QEMU's `-netdev stream,server=off,addr.type=unix`): every Ethernet frame
 * travels as a 4-byte big-endian length and the frame. Each frame becomes a
 * libinsee-client message carrying the frame as payload, to the guest whose
 * source MAC address it was last seen with, or to every other guest for a
 * broadcast, multicast or not yet learnt address. Frames delivered by the
 * network are written to the destination guest's stream.
 *
 * Free-running (default): the manager ends a slice every --slice-us
 * microseconds of wall time, whatever the guests did.
 * Lock-step (--lockstep): each guest also runs our TCG plugin
 * (insee-icount.so, sock=DIR/guest-i.clock), which blocks the guest every
 * `slice` instructions and sends one byte; the manager ends the network's
 * slice when every guest has reached the boundary, and releases them all
 * with one byte each.
 */
#define _GNU_SOURCE
#include <insee/client.h>

#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define MAX_FRAME 65536u

typedef struct guest {
    int stream, clock;         /* -1 once closed */
    uint8_t buf[4 + MAX_FRAME];
    size_t have;
    uint8_t mac[6];
    bool mac_known;
    bool at_boundary;          /* lock-step: waiting for release */
} guest;

typedef struct manager {
    insee_client *client;
    insee_client_slice slice;
    guest *g;
    uint32_t n;
    uint64_t frames_in, frames_out, slices;
} manager;

static int listen_unix(const char *path)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof a.sun_path) {
        fprintf(stderr, "insee-qemu-tm: socket path too long: %s\n", path);
        return -1;
    }
    strcpy(a.sun_path, path);
    unlink(path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 1) != 0) {
        fprintf(stderr, "insee-qemu-tm: cannot listen on %s: %s\n", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return fd;
}

/* Accept one connection on each listener of `l` (n of them) into `out`. */
static bool accept_all(int *l, int *out, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        out[i] = accept4(l[i], NULL, NULL, SOCK_CLOEXEC);
        if (out[i] < 0) {
            fprintf(stderr, "insee-qemu-tm: accept: %s\n", strerror(errno));
            return false;
        }
        close(l[i]);
    }
    return true;
}

static bool write_all(int fd, const void *p, size_t len)
{
    const uint8_t *b = p;
    while (len) {
        ssize_t w = write(fd, b, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        b += w;
        len -= (size_t)w;
    }
    return true;
}

static bool is_group(const uint8_t *mac) { return mac[0] & 1; }

static bool inject(manager *t, uint32_t src, uint32_t dst, const uint8_t *frame, uint32_t len)
{
    insee_client_error err;
    /* The frame left during the slice; its exact instruction is unknown, so
       it enters the network at the slice's last unit (never before it was
       sent). */
    if (!insee_client_inject(t->client, src, dst, len, t->slice.end_unit - 1, 0, frame, len, &err)) {
        fprintf(stderr, "insee-qemu-tm: %s\n", err.message);
        return false;
    }
    return true;
}

/* One frame from guest `src`: learn its source address, send it on. */
static bool route(manager *t, uint32_t src, const uint8_t *frame, uint32_t len)
{
    if (len < 14)
        return true; /* not Ethernet: nothing to route by */
    guest *g = &t->g[src];
    memcpy(g->mac, frame + 6, 6);
    g->mac_known = true;
    t->frames_in++;
    if (!is_group(frame))
        for (uint32_t d = 0; d < t->n; d++)
            if (d != src && t->g[d].mac_known && memcmp(t->g[d].mac, frame, 6) == 0)
                return inject(t, src, d, frame, len);
    for (uint32_t d = 0; d < t->n; d++)
        if (d != src && t->g[d].stream >= 0 && !inject(t, src, d, frame, len))
            return false;
    return true;
}

static void close_guest(guest *g)
{
    if (g->stream >= 0)
        close(g->stream);
    if (g->clock >= 0)
        close(g->clock);
    g->stream = g->clock = -1;
}

/* Read what guest i's stream has and route its complete frames. */
static bool read_stream(manager *t, uint32_t i)
{
    guest *g = &t->g[i];
    ssize_t r = read(g->stream, g->buf + g->have, sizeof g->buf - g->have);
    if (r < 0 && (errno == EINTR || errno == EAGAIN))
        return true;
    if (r <= 0) {
        close_guest(g); /* QEMU quit: the guest powered off */
        return true;
    }
    g->have += (size_t)r;
    size_t at = 0;
    while (g->have - at >= 4) {
        const uint8_t *p = g->buf + at;
        uint32_t len = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
        if (len > MAX_FRAME) {
            fprintf(stderr, "insee-qemu-tm: guest %u sent a %u-byte frame (at most %u)\n", i, len,
                    MAX_FRAME);
            return false;
        }
        if (g->have - at - 4 < len)
            break;
        if (!route(t, i, p + 4, len))
            return false;
        at += 4 + len;
    }
    memmove(g->buf, g->buf + at, g->have - at);
    g->have -= at;
    return true;
}

static uint32_t live(const manager *t)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < t->n; i++)
        n += t->g[i].stream >= 0;
    return n;
}

static int64_t now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* Serve the guests' streams (and clocks in lock-step) until `deadline_us`
   (free-running) or until every live guest is at its slice boundary
   (lock-step; deadline_us < 0). */
static bool serve(manager *t, int64_t deadline_us)
{
    struct pollfd p[2 * t->n];
    for (;;) {
        bool waiting = false;
        for (uint32_t i = 0; i < t->n; i++)
            waiting |= t->g[i].stream >= 0 && !t->g[i].at_boundary;
        int timeout = 0;
        if (deadline_us >= 0) {
            int64_t left = deadline_us - now_us();
            if (left <= 0)
                return true;
            timeout = (int)((left + 999) / 1000);
        } else if (!waiting) {
            timeout = 0; /* drain what is already there, then end the slice */
        } else {
            timeout = -1;
        }
        for (uint32_t i = 0; i < t->n; i++) {
            p[2 * i] = (struct pollfd){.fd = t->g[i].stream, .events = POLLIN};
            p[2 * i + 1] = (struct pollfd){
                .fd = t->g[i].at_boundary ? -1 : t->g[i].clock, .events = POLLIN};
        }
        int r = poll(p, 2 * t->n, timeout);
        if (r < 0 && errno != EINTR) {
            perror("insee-qemu-tm: poll");
            return false;
        }
        if (r == 0 && timeout == 0)
            return true;
        for (uint32_t i = 0; r > 0 && i < t->n; i++) {
            if (p[2 * i].revents && t->g[i].stream >= 0 && !read_stream(t, i))
                return false;
            if (p[2 * i + 1].revents && t->g[i].clock >= 0) {
                uint8_t b;
                if (read(t->g[i].clock, &b, 1) == 1)
                    t->g[i].at_boundary = true;
                else
                    close_guest(&t->g[i]);
            }
        }
    }
}

/* Hand the network this slice's frames, take the next slice's deliveries to
   the guests and (lock-step) release them. */
static bool next_slice(manager *t)
{
    const insee_client_delivery *d;
    size_t n;
    insee_client_error err;
    if (!insee_client_end_slice(t->client, &t->slice, &d, &n, &err)) {
        fprintf(stderr, "insee-qemu-tm: %s\n", err.message);
        return false;
    }
    t->slices++;
    for (size_t k = 0; k < n; k++) {
        guest *g = &t->g[d[k].dst];
        uint8_t len[4] = {(uint8_t)(d[k].payload_len >> 24), (uint8_t)(d[k].payload_len >> 16),
                          (uint8_t)(d[k].payload_len >> 8), (uint8_t)d[k].payload_len};
        if (g->stream < 0)
            continue;
        if (!write_all(g->stream, len, 4) || !write_all(g->stream, d[k].payload, d[k].payload_len))
            close_guest(g);
        else
            t->frames_out++;
    }
    for (uint32_t i = 0; i < t->n; i++) {
        guest *g = &t->g[i];
        if (g->at_boundary && g->clock >= 0 && !write_all(g->clock, "g", 1))
            close_guest(g);
        g->at_boundary = false;
    }
    return true;
}

static int usage(void)
{
    fprintf(stderr, "usage: insee-qemu-tm --insee ADDRESS --dir DIR --guests N "
                    "[--lockstep | --slice-us US]\n");
    return 2;
}

int main(int argc, char **argv)
{
    const char *address = NULL, *dir = NULL;
    long n = 0, slice_us = 1000;
    bool lockstep = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--lockstep"))
            lockstep = true;
        else if (i + 1 >= argc)
            return usage();
        else if (!strcmp(argv[i], "--insee"))
            address = argv[++i];
        else if (!strcmp(argv[i], "--dir"))
            dir = argv[++i];
        else if (!strcmp(argv[i], "--guests"))
            n = strtol(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--slice-us"))
            slice_us = strtol(argv[++i], NULL, 10);
        else
            return usage();
    }
    if (!address || !dir || n < 1 || n > 1024 || slice_us < 1)
        return usage();
    /* A guest that powers off closes its stream: a frame still owed to it
       must fail that write, not kill the manager (and the run). */
    signal(SIGPIPE, SIG_IGN);

    manager t = {.n = (uint32_t)n, .g = calloc((size_t)n, sizeof(guest))};
    int *ls = calloc(2 * (size_t)n, sizeof *ls), *fds = calloc(2 * (size_t)n, sizeof *fds);
    uint32_t *nodes = calloc((size_t)n, sizeof *nodes);
    if (!t.g || !ls || !fds || !nodes)
        return 1;
    /* Listen on every socket first, so that the guests can start now. */
    uint32_t kinds = lockstep ? 2 : 1;
    for (uint32_t k = 0; k < kinds; k++)
        for (uint32_t i = 0; i < t.n; i++) {
            char path[4096];
            snprintf(path, sizeof path, "%s/guest-%u.%s", dir, i, k ? "clock" : "sock");
            if ((ls[k * t.n + i] = listen_unix(path)) < 0)
                return 1;
        }
    for (uint32_t k = 0; k < kinds; k++)
        if (!accept_all(ls + k * t.n, fds + k * t.n, t.n))
            return 1;
    for (uint32_t i = 0; i < t.n; i++) {
        t.g[i].stream = fds[i];
        t.g[i].clock = lockstep ? fds[t.n + i] : -1;
        nodes[i] = i;
    }
    insee_client_error err;
    t.client = insee_client_connect(address, "qemu-tm", nodes, t.n, &err);
    if (!t.client) {
        fprintf(stderr, "insee-qemu-tm: %s\n", err.message);
        return 1;
    }
    int64_t start = now_us();
    bool ok = next_slice(&t);
    while (ok && live(&t) > 0)
        ok = serve(&t, lockstep ? -1 : now_us() + slice_us) && next_slice(&t);
    double wall = (double)(now_us() - start) / 1e6;
    printf("insee-qemu-tm: %s, %u guests, %llu slices in %.2f s (%.0f slices/s), "
           "frames %llu in, %llu out, simulated %llu client units\n",
           lockstep ? "lock-step" : "free-running", t.n, (unsigned long long)t.slices, wall,
           wall > 0 ? (double)t.slices / wall : 0.0, (unsigned long long)t.frames_in,
           (unsigned long long)t.frames_out, (unsigned long long)t.slice.end_unit);
    insee_client_close(t.client);
    for (uint32_t i = 0; i < t.n; i++)
        close_guest(&t.g[i]);
    free(t.g);
    free(ls);
    free(fds);
    free(nodes);
    return ok ? 0 : 1;
}
