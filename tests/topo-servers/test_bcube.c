/* test_bcube.c — the bcube plugin against the closed forms of Guo et al.
 * (SIGCOMM 2009) and a BFS: n^(k+1) servers with k + 1 ports, (k + 1) n^k
 * switches with n ports, (k + 1) n^(k+1) cables, diameter 2 (k + 1), the
 * sum of all router-pair distances; digit correction in hops = 2 x
 * differing digits, highest level first; BuildPathSet's k + 1 paths, each
 * starting at its own level, of 2h hops where the digit differs and
 * 2 (h + 2) where it agrees, sharing no router but the ends; the salt's
 * pick among them; sizes that do not fit refused. */
#include "families.h"

#include <criterion/criterion.h>
#include <string.h>

static const char *routings[] = {"digit", "parallel"}, *splits[] = {"even", "hash"};

/* The parameters in table order: n, k, routing, split (indices of the
   choices above). */
#define BCUBE_PARAMS(n, k, routing, split)                                                 \
    (insee_value[4])                                                                       \
    {                                                                                      \
        value_int(n), value_int(k), value_enum(routing, routings[routing]),                \
            value_enum(split, splits[split])                                               \
    }

static void *try_bcube(int64_t n, int64_t k, int routing, int split, insee_error *err)
{
    return fam_try("bcube", BCUBE_PARAMS(n, k, routing, split), 1, err);
}

static void make_bcube(fam *t, int64_t n, int64_t k, int routing, int split)
{
    fam_make(t, "bcube", BCUBE_PARAMS(n, k, routing, split), 1);
}

static uint64_t ipow(uint64_t n, uint64_t e)
{
    uint64_t p = 1;
    while (e--)
        p *= n;
    return p;
}

/* Digit l of server a, independently of the plugin. */
static uint32_t dig(uint32_t n, uint32_t a, uint32_t l)
{
    return (uint32_t)(a / ipow(n, l) % n);
}

static uint32_t hamming(uint32_t n, uint32_t levels, uint32_t a, uint32_t b)
{
    uint32_t h = 0;
    for (uint32_t l = 0; l < levels; l++)
        h += dig(n, a, l) != dig(n, b, l);
    return h;
}

/* The sum of the distances over ordered pairs of servers: 2h, h
   differing digits, n^(2L) (n - 1) / n pairs differing in each of the L
   digits. */
static uint64_t server_sum(uint64_t n, uint64_t L)
{
    uint64_t N = ipow(n, L);
    return 2 * L * N * (N / n) * (n - 1);
}

/* The sum of the distances over ordered pairs of routers, from the paper's
   distances: 2h between servers; 1 + 2h' from a level-l switch to a server
   (h' over the other k digits); 2 + 2h'' between switches, over the digits
   both have. With N = n^L servers, L = k + 1 levels, M = n^k switches per
   level, the mean number of differing digits among d is d (n - 1) / n. */
static uint64_t pair_sum(uint64_t n, uint64_t L)
{
    uint64_t N = ipow(n, L), M = N / n;
    uint64_t servers = server_sum(n, L);
    uint64_t to_switch = 2 * L * M * (N + 2 * (L - 1) * (N / n) * (n - 1));
    uint64_t same_level = L * (2 * M * M + 2 * (L - 1) * M * (M / n) * (n - 1) - 2 * M);
    uint64_t other_level = L * (L - 1) * (2 * M * M + (L > 1 ? 2 * (L - 2) * M * (M / n) * (n - 1) : 0));
    return servers + to_switch + same_level + other_level;
}

static void check_counts(uint32_t n, uint32_t k)
{
    fam t;
    make_bcube(&t, n, k, 0, 0);
    uint64_t L = k + 1, N = ipow(n, L), W = L * ipow(n, k);
    cr_assert_eq(t.info.nodes, N);
    cr_assert_eq(t.info.routers, N + W, "n %u k %u: %u routers", n, k, t.info.routers);
    cr_assert_eq(t.info.flags, INSEE_TOPO_INDIRECT);
    cr_assert_eq(t.info.diameter, 2 * L);
    cr_assert_eq(t.info.max_ports, n > L ? n : L);
    for (uint32_t r = 0; r < t.info.routers; r++) {
        cr_assert_eq(t.vt->ports(t.self, r), r < N ? L : n, "router %u", r);
        if (r < N)
            cr_assert_eq(t.vt->node_router(t.self, r), r);
    }
    /* (k + 1) n^(k+1) cables: every server port is one, every switch port
       the other end of one; each is a channel both ways. */
    cr_assert_eq(fam_channels(&t), 2 * L * N);
    cr_assert_eq(fam_check_all(&t), server_sum(n, L), "n %u k %u", n, k);
    for (uint32_t a = 0; a < N; a++) {
        int32_t c[8];
        cr_assert_eq(t.vt->coords(t.self, a, c, 8), L);
        for (uint32_t l = 0; l < L; l++)
            cr_assert_eq((uint32_t)c[l], dig(n, a, l));
    }
    fam_free(&t);
}

Test(bcube, counts_and_distances)
{
    for (uint32_t n = 2; n <= 4; n++)
        for (uint32_t k = 0; k <= 2; k++)
            check_counts(n, k);
    check_counts(5, 1);
}

/* The servers a path passes from src (every other router is a switch):
   into seen[], the path's routers in order; returns how many. */
static uint32_t walk(const fam *t, uint32_t src, const uint32_t *ports, uint32_t hops,
                     uint32_t *seen)
{
    uint32_t at = src;
    for (uint32_t i = 0; i < hops; i++) {
        insee_port_peer peer;
        cr_assert(t->vt->link(t->self, at, ports[i], &peer));
        seen[i] = at = peer.router;
    }
    return hops;
}

static void check_digit(uint32_t n, uint32_t k)
{
    fam t;
    make_bcube(&t, n, k, 0, 0);
    uint32_t L = k + 1, N = (uint32_t)ipow(n, L);
    cr_assert_eq(t.vt->path_hops(t.self), 2 * L);
    /* Every digit path is shortest, also those from and to switches. */
    cr_assert_float_eq(fam_check_paths(&t, true), (double)pair_sum(n, L), 1e-6);
    for (uint32_t a = 0; a < N; a++)
        for (uint32_t b = 0; b < N; b++) {
            if (a == b)
                continue;
            fam_paths g = {0};
            cr_assert_eq(t.vt->paths(t.self, a, b, a * 31 + b, fam_keep_path, &g), 1u);
            cr_assert_eq(g.hops[0], 2 * hamming(n, L, a, b));
            cr_assert_float_eq(g.share[0], 1.0, 1e-12);
            /* At each server the port of the level corrected, the
               differing digits from the highest down; at its switch, the
               destination's digit. */
            uint32_t hop = 0;
            for (uint32_t l = L; l-- > 0;)
                if (dig(n, a, l) != dig(n, b, l)) {
                    cr_assert_eq(g.ports[0][hop], l, "%u -> %u hop %u", a, b, hop);
                    cr_assert_eq(g.ports[0][hop + 1], dig(n, b, l));
                    hop += 2;
                }
        }
    fam_free(&t);
}

Test(bcube, digit_routing)
{
    for (uint32_t n = 2; n <= 4; n++)
        for (uint32_t k = 0; k <= 2; k++)
            check_digit(n, k);
}

static void check_parallel(uint32_t n, uint32_t k)
{
    fam even, hash;
    make_bcube(&even, n, k, 1, 0);
    make_bcube(&hash, n, k, 1, 1);
    uint32_t L = k + 1, N = (uint32_t)ipow(n, L), longest = 0;
    uint32_t bound = k == 0 ? 2 : 2 * (L + 1);
    cr_assert_eq(even.vt->path_hops(even.self), bound);
    cr_assert_eq(hash.vt->path_hops(hash.self), bound);
    fam_check_paths(&even, true);
    fam_check_paths(&hash, true);
    uint32_t *mark = calloc(even.info.routers, sizeof *mark), seen[64];
    for (uint32_t a = 0; a < N; a++)
        for (uint32_t b = 0; b < N; b++) {
            if (a == b)
                continue;
            uint32_t h = hamming(n, L, a, b);
            fam_paths g = {0};
            cr_assert_eq(even.vt->paths(even.self, a, b, 0, fam_keep_path, &g), L);
            /* Path p starts at level k - p; 2h hops where that digit
               differs, 2 (h + 2) where it agrees (the detour through a
               neighbour); no router but the ends on two paths. */
            for (uint32_t p = 0; p < L; p++) {
                uint32_t i = L - 1 - p;
                cr_assert_eq(g.ports[p][0], i, "%u -> %u path %u", a, b, p);
                cr_assert_eq(g.hops[p], dig(n, a, i) != dig(n, b, i) ? 2 * h : 2 * (h + 2),
                             "%u -> %u path %u", a, b, p);
                cr_assert_float_eq(g.share[p], 1.0 / L, 1e-12);
                longest = g.hops[p] > longest ? g.hops[p] : longest;
                uint32_t len = walk(&even, a, g.ports[p], g.hops[p], seen);
                for (uint32_t s = 0; s + 1 < len; s++) {
                    cr_assert_neq(mark[seen[s]], a * N + b + 1,
                                  "%u -> %u: router %u on two paths", a, b, seen[s]);
                    mark[seen[s]] = a * N + b + 1;
                }
            }
            /* split = hash: one of those, whole, picked by the salt; L
               consecutive salts pick each once. */
            uint32_t picked = 0;
            for (uint32_t salt = 0; salt < L; salt++) {
                fam_paths one = {0};
                cr_assert_eq(hash.vt->paths(hash.self, a, b, salt, fam_keep_path, &one), 1u);
                cr_assert_float_eq(one.share[0], 1.0, 1e-12);
                uint32_t p = L - 1 - one.ports[0][0];
                cr_assert_eq(one.hops[0], g.hops[p]);
                cr_assert_eq(memcmp(one.ports[0], g.ports[p], g.hops[p] * sizeof(uint32_t)), 0);
                picked |= 1u << p;
            }
            cr_assert_eq(picked, (1u << L) - 1);
        }
    /* path_hops is reached: with k >= 1 some pair agrees in one digit and
       differs in the other k. */
    cr_assert_eq(longest, bound, "n %u k %u", n, k);
    free(mark);
    fam_free(&even);
    fam_free(&hash);
}

Test(bcube, parallel_paths)
{
    for (uint32_t n = 2; n <= 4; n++)
        for (uint32_t k = 0; k <= 2; k++)
            check_parallel(n, k);
}

Test(bcube, refuses_sizes_that_do_not_fit)
{
    insee_error err;
    cr_assert_null(try_bcube(2, 31, 0, 0, &err));
    cr_assert(strstr(err.message, "n^(k+1)") && strstr(err.message, "smaller n or k"), "%s",
              err.message);
    /* 2^31 servers fit 32 bits, but not with 31 x 2^30 switches. */
    cr_assert_null(try_bcube(2, 30, 0, 0, &err));
    cr_assert(strstr(err.message, "routers (servers and switches)") &&
                  strstr(err.message, "smaller n or k"),
              "%s", err.message);
    /* 2^27 servers with 27 ports each: more queues than the kernel numbers. */
    cr_assert_null(try_bcube(2, 26, 0, 0, &err));
    cr_assert(strstr(err.message, "bcube") && strstr(err.message, "ports + nodes") &&
                  strstr(err.message, "smaller n or k"),
              "%s", err.message);
    /* 65535 ports at a switch: beyond the kernel's ports per router. */
    cr_assert_null(try_bcube(65535, 0, 0, 0, &err));
    cr_assert(strstr(err.message, "65535 ports per router"), "%s", err.message);
}
