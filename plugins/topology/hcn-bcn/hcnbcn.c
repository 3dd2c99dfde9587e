/* hcnbcn.c — HCN(n, h) and BCN(alpha, beta, h, gamma); see hcnbcn.h and the
 * README for the numbering.
 *
 * Within one copy of HCN(a + b, h): a^h switches, switch w = x_1 + x_2 a +
 * ... + x_h a^(h-1) (digits x_i < a); a leaders per switch, leader
 * x_0 + a w (its digits x_0 .. x_h); b followers per switch, follower
 * a^(h+1) + b w + j. The coordinate 0 of a server tells its place at the
 * switch (x_0 for a leader, a + j for a follower), coordinate i >= 1 is the
 * switch's digit x_i. */
#include "hcnbcn.h"
#include "limits.h"

#include <stdlib.h>

/* Server x router distances a BFS diameter may cost (about a second). */
#define HCNBCN_BFS_BUDGET (1ull << 26)

typedef struct hcnbcn {
    srvnet net; /* first: the srvnet vtable entries take the instance */
    uint32_t a, b, h, c, r;
    bool bcn;
    uint32_t copies;       /* U: a^c b + 1 copies of HCN(a + b, h) in a BCN, else 1 */
    uint32_t hcn_switches; /* a^h */
    uint32_t hcn_leaders;  /* a^(h+1) */
    uint32_t hcn_servers;  /* a^h (a + b) */
    uint32_t unit;         /* followers of one HCN(a + b, c): a^c b */
} hcnbcn;

/* Local index (within its copy) -> the switch it hangs from, in that copy. */
static uint32_t switch_of(const hcnbcn *t, uint32_t q)
{
    return q < t->hcn_leaders ? q / t->a : (q - t->hcn_leaders) / t->b;
}

static uint32_t coord(const hcnbcn *t, uint32_t q, uint32_t i)
{
    if (i == 0)
        return q < t->hcn_leaders ? q % t->a : t->a + (q - t->hcn_leaders) % t->b;
    return switch_of(t, q) / srvnet_pow(t->a, i - 1) % t->a;
}

/* The leader a level-(flip + 1) cable joins to leader l: with x_0 = .. =
   x_flip = x and x_{flip+1} = y != x, the one with x_0 = .. = x_flip = y
   and x_{flip+1} = x; none (ROUTING_UNREACHABLE) when all digits agree. */
static uint32_t leader_peer(const hcnbcn *t, uint32_t l)
{
    uint32_t x = l % t->a, flip = 0, ap = t->a; /* ap = a^(flip + 1) */
    while (flip < t->h && l / ap % t->a == x) {
        flip++;
        ap *= t->a;
    }
    if (flip == t->h)
        return ROUTING_UNREACHABLE;
    uint32_t y = l / ap % t->a, low = 0;
    for (uint32_t i = 0, p = 1; i <= flip; i++, p *= t->a)
        low += y * p;
    return l - l % (ap * t->a) + x * ap + low;
}

/* Follower s of its HCN(a + b, c) in copy u: the copy and follower its
   BCN cable reaches (the rules of bcn's README). */
static void follower_peer(const hcnbcn *t, uint32_t u, uint32_t s, uint32_t *pu, uint32_t *ps)
{
    if (t->r == 0) { /* DCell: [u, s] with u <= s joins [s + 1, u] */
        *pu = u <= s ? s + 1 : s;
        *ps = u <= s ? u : u - 1;
    } else {
        *pu = (u + s + 1) % t->copies;
        *ps = t->copies - 2 - s;
    }
}

static void wire(hcnbcn *t)
{
    srvnet *n = &t->net;
    uint32_t a = t->a, b = t->b;
    for (uint32_t u = 0; u < t->copies; u++) {
        uint32_t base = u * t->hcn_servers, sw = n->servers + u * t->hcn_switches;
        for (uint32_t w = 0; w < t->hcn_switches; w++) {
            for (uint32_t x = 0; x < a; x++)
                srvnet_wire(n, base + w * a + x, 0, sw + w, x);
            for (uint32_t j = 0; j < b; j++)
                srvnet_wire(n, base + t->hcn_leaders + w * b + j, 0, sw + w, a + j);
        }
        for (uint32_t l = 0; l < t->hcn_leaders; l++) {
            uint32_t m = leader_peer(t, l);
            if (m != ROUTING_UNREACHABLE && l < m)
                srvnet_wire(n, base + l, 1, base + m, 1);
        }
        if (!t->bcn)
            continue;
        for (uint32_t f = 0; f < t->hcn_switches * b; f++) {
            uint32_t pu, ps, v = f / t->unit;
            follower_peer(t, u, f % t->unit, &pu, &ps);
            if (u < pu)
                srvnet_wire(n, base + t->hcn_leaders + f, 1,
                            pu * t->hcn_servers + t->hcn_leaders + v * t->unit + ps, 1);
        }
    }
}

/* A walk under construction: routers appended in order. */
typedef struct walk {
    uint32_t *r;
    uint32_t len;
} walk;

/* FdimRouting (Guo et al. §4.1) in copy `u` from local server sq (already
   on the walk) to dq, the two agreeing above coordinate lvl: across the
   switch when they share it, else through the level-m cable between their
   HCN(n, m - 1)s, m the highest coordinate where they differ, routing
   recursively on each side. */
static void fdim_route(const hcnbcn *t, walk *w, uint32_t u, uint32_t sq, uint32_t dq, uint32_t lvl)
{
    uint32_t base = u * t->hcn_servers;
    if (sq == dq)
        return;
    uint32_t m = lvl;
    while (m > 0 && coord(t, sq, m) == coord(t, dq, m))
        m--;
    if (m == 0) {
        w->r[w->len++] = t->net.servers + u * t->hcn_switches + switch_of(t, sq);
        w->r[w->len++] = base + dq;
        return;
    }
    uint32_t sm = coord(t, sq, m), dm = coord(t, dq, m), am = srvnet_pow(t->a, m);
    uint32_t high = switch_of(t, sq) * t->a / (am * t->a) * (am * t->a), rs = 0, rd = 0;
    for (uint32_t i = 0, p = 1; i < m; i++, p *= t->a) {
        rs += dm * p;
        rd += sm * p;
    }
    uint32_t from = high + sm * am + rs, to = high + dm * am + rd;
    fdim_route(t, w, u, sq, from, m - 1);
    w->r[w->len++] = base + to;
    fdim_route(t, w, u, to, dq, m - 1);
}

/* BdimRouting (Guo et al. §4.2) between servers: FdimRouting when both are
   in one copy, else to the follower of the source's HCN(n, c) cabled to the
   destination's copy, across, and FdimRouting on from its peer. */
static uint32_t bdim_route(const void *self, uint32_t src, uint32_t dst, uint32_t *r)
{
    const hcnbcn *t = self;
    walk on = {.r = r, .len = 0}, *w = &on;
    uint32_t us = src / t->hcn_servers, ud = dst / t->hcn_servers;
    uint32_t sq = src % t->hcn_servers, dq = dst % t->hcn_servers;
    w->r[w->len++] = src;
    if (us == ud) {
        fdim_route(t, w, us, sq, dq, t->h);
        return w->len;
    }
    uint32_t s = t->r == 0 ? (us < ud ? ud - 1 : ud) : (ud + t->copies - us - 1) % t->copies;
    uint32_t v = switch_of(t, sq) / srvnet_pow(t->a, t->c);
    uint32_t pu, ps;
    follower_peer(t, us, s, &pu, &ps);
    uint32_t fb = t->hcn_leaders + v * t->unit + ps;
    fdim_route(t, w, us, sq, t->hcn_leaders + v * t->unit + s, t->h);
    w->r[w->len++] = ud * t->hcn_servers + fb;
    fdim_route(t, w, ud, fb, dq, t->h);
    return w->len;
}

uint32_t hcnbcn_paths(void *self, uint32_t src, uint32_t dst, uint32_t salt,
                      void (*add)(void *ctx, const uint32_t *ports, uint32_t hops, double share),
                      void *ctx)
{
    (void)salt; /* one path per pair */
    const hcnbcn *t = self;
    return srvnet_paths(&t->net, bdim_route, t, src, dst, add, ctx);
}

void hcnbcn_destroy(void *self)
{
    hcnbcn *t = self;
    if (!t)
        return;
    srvnet_free(&t->net);
    free(t);
}

void *hcnbcn_create(const char *who, uint32_t a, uint32_t b, uint32_t h, uint32_t c,
                    uint32_t r, double table_mb, insee_error *err)
{
    bool bcn = c <= h;
    uint64_t ah = 1;
    for (uint32_t i = 0; i < h && ah <= UINT32_MAX; i++)
        ah *= a;
    uint64_t copies = 1;
    if (bcn) {
        uint64_t ac = 1;
        for (uint32_t i = 0; i < c; i++)
            ac *= a;
        copies = ac * b + 1;
    }
    uint64_t switches = ah * copies, servers = switches * (a + b);
    if (ah > UINT32_MAX || servers + switches > UINT32_MAX / 2 ||
        !topology_within_limits(who, servers + switches, servers, a + b,
                                2 * servers + (a + b) * switches,
                                bcn ? "use a smaller a, b, h or c" : "use a smaller a, b or h",
                                err)) {
        if (!err->code)
            insee_error_set(err, INSEE_ERR_PARAM,
                            "%s: %u^%u x (a + b) servers do not fit in 32 bits: use a smaller "
                            "a, b or h",
                            who, a, h);
        return NULL;
    }
    hcnbcn *t = calloc(1, sizeof *t);
    if (!t) {
        insee_error_set(err, INSEE_ERR_NOMEM, "%s: out of memory", who);
        return NULL;
    }
    *t = (hcnbcn){.a = a, .b = b, .h = h, .c = c, .r = r, .bcn = bcn,
                  .copies = (uint32_t)copies, .hcn_switches = (uint32_t)ah,
                  .hcn_leaders = (uint32_t)ah * a, .hcn_servers = (uint32_t)ah * (a + b),
                  .unit = bcn ? srvnet_pow(a, c) * b : 0};
    if (!srvnet_init(&t->net, who, (uint32_t)servers, 2, (uint32_t)switches, a + b, err)) {
        free(t);
        return NULL;
    }
    wire(t);
    /* FdimRouting crosses 2^m switches and 2^m - 1 level cables in an
       HCN(n, m): 3 x 2^m - 1 hops; BdimRouting one within an HCN(n, c), the
       BCN cable, one within an HCN(n, h). */
    t->net.path_hops = 3 * (1u << h) - 1 + (bcn ? 3 * (1u << c) : 0);
    if (!srvnet_finish(&t->net, who, table_mb, err)) {
        hcnbcn_destroy(t);
        return NULL;
    }
    /* FdimRouting and BdimRouting are as long as the longest shortest path
       under DCell's rule (checked by BFS in the tests); beta-DCell's rule
       brings some pairs closer, with no closed form: measured when cheap. */
    t->net.diameter = r == 0 ? t->net.path_hops : srvnet_bfs_diameter(&t->net, HCNBCN_BFS_BUDGET);
    return t;
}
