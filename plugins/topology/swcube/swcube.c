/* swcube.c — SWCube (Dawei Li and Jie Wu, INFOCOM 2014; INRFlow's swcube):
 * the switches form a generalised hypercube (k dimensions of n, every
 * switch cabled to the n - 1 others of each dimension), and each of those
 * cables is replaced by one dual-port server, switch - server - switch.
 * Routing: INRFlow's dimension-order routing, lowest dimension first, which
 * is a shortest path between servers.
 *
 * Switch u (coordinates u_0 .. u_{k-1}, u = sum u_d n^d) is router S + u.
 * The server between the switches u and v that differ in dimension j only,
 * a = min(u_j, v_j) < b = max(u_j, v_j), is server (r k + j) C + rank(a, b):
 * C = n (n - 1) / 2 pairs, rank the pair's place in lexicographic order,
 * r the other k - 1 coordinates read as a number in base n (lowest
 * dimension lowest). Its port 0 goes to the switch with coordinate a, port
 * 1 to the one with b; switch u reaches it on port j (n - 1) + t, t = x or
 * x - 1 (x > u_j), x the coordinate of the switch across. */
#include "limits.h"
#include "srvnet.h"

#include <stdlib.h>

enum { P_K, P_N, P_TABLE_MB };

static const insee_param_def swcube_params[] = {
    [P_K] = {"k", INSEE_PARAM_INT, "2", 1, 65535, NULL, "dimensions",
             "dimensions of the generalised hypercube of switches"},
    [P_N] = {"n", INSEE_PARAM_INT, "4", 2, 65535, NULL, "switches",
             "switches along each dimension (a clique of n per dimension)"},
    [P_TABLE_MB] = ROUTING_TABLE_MB_PARAM,
    {0},
};

typedef struct swcube {
    srvnet net; /* first: the srvnet vtable entries take the instance */
    uint32_t k, n;
    uint32_t pairs; /* servers along one clique edge set: n (n - 1) / 2 */
} swcube;

/* A server as the routing sees it: the switch on its port 0, the dimension
   its two switches differ in and their coordinates there (a < b). */
typedef struct edge {
    uint32_t lo, dim, a, b;
} edge;

static uint32_t digit(const swcube *t, uint32_t u, uint32_t d)
{
    return u / srvnet_pow(t->n, d) % t->n;
}

static uint32_t pair_rank(const swcube *t, uint32_t a, uint32_t b)
{
    return a * (t->n - 1) - a * (a - 1) / 2 + (b - a - 1);
}

static edge server_edge(const swcube *t, uint32_t s)
{
    edge e;
    uint32_t q = s % t->pairs, rest = s / t->pairs;
    e.dim = rest % t->k;
    rest /= t->k;
    e.a = 0;
    while (q >= t->n - 1 - e.a) {
        q -= t->n - 1 - e.a;
        e.a++;
    }
    e.b = e.a + 1 + q;
    uint32_t below = srvnet_pow(t->n, e.dim);
    e.lo = rest % below + e.a * below + rest / below * below * t->n;
    return e;
}

/* The switch of edge e whose coordinate in e's dimension is x. */
static uint32_t edge_switch(const swcube *t, edge e, uint32_t x)
{
    return e.lo + (x - e.a) * srvnet_pow(t->n, e.dim);
}

/* The server between switch u and the switch whose coordinate d is x. */
static uint32_t server_toward(const swcube *t, uint32_t u, uint32_t d, uint32_t x)
{
    uint32_t ud = digit(t, u, d), a = ud < x ? ud : x, b = ud < x ? x : ud;
    uint32_t below = srvnet_pow(t->n, d), rest = u % below + u / (below * t->n) * below;
    return (rest * t->k + d) * t->pairs + pair_rank(t, a, b);
}

static uint32_t switch_port(const swcube *t, uint32_t u, uint32_t d, uint32_t x)
{
    return d * (t->n - 1) + (x > digit(t, u, d) ? x - 1 : x);
}

static void wire(swcube *t)
{
    srvnet *n = &t->net;
    for (uint32_t s = 0; s < n->servers; s++) {
        edge e = server_edge(t, s);
        uint32_t hi = edge_switch(t, e, e.b);
        srvnet_wire(n, s, 0, n->servers + e.lo, switch_port(t, e.lo, e.dim, e.b));
        srvnet_wire(n, s, 1, n->servers + hi, switch_port(t, hi, e.dim, e.a));
    }
}

/* The coordinates a server touches in dimension d: both ends in its own
   dimension, its switches' common one elsewhere. */
static uint32_t touches(const swcube *t, edge e, uint32_t d, uint32_t out[2])
{
    if (d == e.dim) {
        out[0] = e.a;
        out[1] = e.b;
        return 2;
    }
    out[0] = digit(t, e.lo, d);
    return 1;
}

/* The coordinates two servers both touch in dimension d: how many, the
   first in *common. */
static uint32_t shared(const swcube *t, edge x, edge y, uint32_t d, uint32_t *common)
{
    uint32_t cx[2], cy[2], nx = touches(t, x, d, cx), ny = touches(t, y, d, cy), count = 0;
    for (uint32_t i = 0; i < nx; i++)
        for (uint32_t j = 0; j < ny; j++)
            if (cx[i] == cy[j] && count++ == 0)
                *common = cx[i];
    return count;
}

/* INRFlow's routing between servers. For each dimension, lowest first, in
   which the source and the destination touch no common coordinate: leave
   the current server by its switch that already agrees with the
   destination in the current server's own dimension, to that switch's
   server toward the destination's coordinate (one of the two ends when the
   destination lies along this dimension); where no switch, or both, agree,
   a fixed choice by the source, the lower end when its pair ranks among
   the first floor(n (n - 1) / 4) (half of the servers leave low, half
   high). Last, from the server reached to the destination through the
   switch they share, if it is not the destination. */
static uint32_t route(const void *self, uint32_t src, uint32_t dst, uint32_t *walk)
{
    const swcube *t = self;
    uint32_t S = t->net.servers, len = 0, at = src, common;
    edge from = server_edge(t, src), to = server_edge(t, dst);
    bool low = pair_rank(t, from.a, from.b) < t->n * (t->n - 1) / 4;
    walk[len++] = src;
    for (uint32_t d = 0; d < t->k; d++) {
        if (shared(t, from, to, d, &common))
            continue;
        edge here = server_edge(t, at);
        uint32_t leave = low ? here.a : here.b;
        if (here.dim != d && shared(t, here, to, here.dim, &common) == 1)
            leave = common;
        uint32_t sw = edge_switch(t, here, leave);
        uint32_t x = to.dim == d ? (low ? to.a : to.b) : digit(t, to.lo, d);
        at = server_toward(t, sw, d, x);
        walk[len++] = S + sw;
        walk[len++] = at;
    }
    if (at != dst) {
        edge here = server_edge(t, at);
        uint32_t ends[2] = {here.lo, edge_switch(t, here, here.b)};
        uint32_t dends[2] = {to.lo, edge_switch(t, to, to.b)};
        /* INRFlow's order: port 0 of the server reached first, the
           destination's port 1 first */
        for (uint32_t i = 0, done = 0; i < 2 && !done; i++)
            for (uint32_t j = 2; j-- > 0 && !done;)
                if (ends[i] == dends[j]) {
                    walk[len++] = S + ends[i];
                    walk[len++] = dst;
                    done = 1;
                }
    }
    return len;
}

static uint32_t swcube_paths(void *self, uint32_t src, uint32_t dst, uint32_t salt,
                             void (*add)(void *ctx, const uint32_t *ports, uint32_t hops,
                                         double share),
                             void *ctx)
{
    (void)salt; /* one path per pair */
    const swcube *t = self;
    return srvnet_paths(&t->net, route, t, src, dst, add, ctx);
}

static void swcube_destroy(void *self)
{
    swcube *t = self;
    if (!t)
        return;
    srvnet_free(&t->net);
    free(t);
}

static void *swcube_create(const insee_host *host, const insee_value *params, insee_error *err)
{
    (void)host; /* the wiring is a pure function of the parameters */
    uint64_t k = (uint64_t)params[P_K].i, n = (uint64_t)params[P_N].i, switches = 1;
    for (uint64_t d = 0; d < k && switches <= UINT32_MAX; d++)
        switches *= n;
    uint64_t radix = k * (n - 1), servers = switches * radix / 2;
    if (k == 1 && n == 2) {
        insee_error_set(err, INSEE_ERR_PARAM,
                        "swcube: k = 1, n = 2 is one server between two switches: use n >= 3 "
                        "or k >= 2");
        return NULL;
    }
    if (switches > UINT32_MAX || servers + switches > UINT32_MAX / 2) {
        insee_error_set(err, INSEE_ERR_PARAM,
                        "swcube: n^k = %llu^%llu switches of k (n - 1) ports do not fit in 32 "
                        "bits: use a smaller k or n",
                        (unsigned long long)n, (unsigned long long)k);
        return NULL;
    }
    if (!topology_within_limits("swcube", servers + switches, servers, radix,
                                2 * servers + radix * switches, "use a smaller k or n", err))
        return NULL;
    swcube *t = calloc(1, sizeof *t);
    if (!t) {
        insee_error_set(err, INSEE_ERR_NOMEM, "swcube: out of memory");
        return NULL;
    }
    t->k = (uint32_t)k;
    t->n = (uint32_t)n;
    t->pairs = (uint32_t)(n * (n - 1) / 2);
    if (!srvnet_init(&t->net, "swcube", (uint32_t)servers, 2, (uint32_t)switches,
                     (uint32_t)radix, err)) {
        free(t);
        return NULL;
    }
    wire(t);
    /* A server route is at most the diameter; a switch stands for its
       server on port 0, which always touches coordinate 0 of dimension 0,
       so a route between two switches' servers corrects at most k - 1
       dimensions: 2 (k - 1) + 2 hops and the two switches, 2k + 2; from or
       to one switch, the diameter and one hop, 2k + 3 (2k + 1 when n = 2, 3
       when k = 1, n = 3, below the switch pairs' 2k + 2). */
    t->net.path_hops = n == 2 || (k == 1 && n == 3) ? 2 * t->k + 2 : 2 * t->k + 3;
    if (!srvnet_finish(&t->net, "swcube", params[P_TABLE_MB].d, err)) {
        swcube_destroy(t);
        return NULL;
    }
    /* Two servers are 2 + 2 D apart, D the dimensions in which they touch
       no common coordinate: all k when n >= 3 (k >= 2), none when k = 1,
       n = 3 (every two cables of a triangle share a switch), and with n = 2
       at most k - 1, as a server touches both coordinates of its own
       dimension. */
    t->net.diameter = n == 2 ? 2 * t->k : k == 1 && n == 3 ? 2 : 2 * t->k + 2;
    return t;
}

static const insee_topology_vtable swcube_vtable =
    SRVNET_VTABLE(swcube_create, swcube_destroy, swcube_paths);

static const insee_plugin_desc swcube_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_TOPOLOGY,
    .name = "swcube",
    .version = "1.0.0",
    .summary = "SWCube: a generalised hypercube of switches (k dimensions of n) with one "
               "dual-port server on every switch-switch cable, dimension-order routing",
    .reference = "Li and Wu, IEEE INFOCOM 2014; INRFlow §3.2",
    .params = swcube_params,
    .vtable = &swcube_vtable,
};

INSEE_PLUGIN_DEFINE(swcube_desc)
