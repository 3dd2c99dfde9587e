/* knkstar.c — GQ*, the stellar transformation of the generalised
 * hypercube (Erickson, Kiasari, Navaridas and Stewart, Computer Networks
 * 2017; INRFlow's knkstar): the switches form a generalised hypercube (k
 * dimensions of n, every switch cabled to the n - 1 others of each
 * dimension), and each of those cables is replaced by two servers in
 * series, switch - server = server - switch. Routing: INRFlow's
 * dimension-order routing, lowest dimension first.
 *
 * Switch u (coordinates u_0 .. u_{k-1}, u = sum u_d n^d) is router S + u.
 * Its server toward the switch whose coordinate d is x (x != u_d) is
 * server u k (n - 1) + d (n - 1) + t, t = x or x - 1 (x > u_d), on switch
 * port d (n - 1) + t; the server's port 0 is that cable, port 1 the cable to
 * its twin at the other switch. */
#include "limits.h"
#include "srvnet.h"

#include <stdlib.h>

enum { P_K, P_N, P_TABLE_MB };

static const insee_param_def knkstar_params[] = {
    [P_K] = {"k", INSEE_PARAM_INT, "2", 1, 65535, NULL, "dimensions",
             "dimensions of the generalised hypercube of switches"},
    [P_N] = {"n", INSEE_PARAM_INT, "4", 2, 65535, NULL, "switches",
             "switches along each dimension (a clique of n per dimension)"},
    [P_TABLE_MB] = ROUTING_TABLE_MB_PARAM,
    {0},
};

typedef struct knkstar {
    srvnet net; /* first: the srvnet vtable entries take the instance */
    uint32_t k, n;
    uint32_t radix; /* servers per switch: k (n - 1) */
} knkstar;

static uint32_t digit(const knkstar *t, uint32_t u, uint32_t d)
{
    return u / srvnet_pow(t->n, d) % t->n;
}

/* The server of switch u on dimension d toward coordinate x (x != u_d). */
static uint32_t server_toward(const knkstar *t, uint32_t u, uint32_t d, uint32_t x)
{
    return u * t->radix + d * (t->n - 1) + (x > digit(t, u, d) ? x - 1 : x);
}

/* The dimension a server's twin cable runs along, and the coordinate it
   reaches there. */
static void server_dim(const knkstar *t, uint32_t s, uint32_t *d, uint32_t *x)
{
    uint32_t u = s / t->radix, q = s % t->radix;
    *d = q / (t->n - 1);
    *x = q % (t->n - 1);
    if (*x >= digit(t, u, *d))
        (*x)++;
}

static void wire(knkstar *t)
{
    srvnet *n = &t->net;
    for (uint32_t s = 0; s < n->servers; s++) {
        uint32_t u = s / t->radix, d, x;
        srvnet_wire(n, s, 0, n->servers + u, s % t->radix);
        server_dim(t, s, &d, &x);
        uint32_t v = u + (x - digit(t, u, d)) * srvnet_pow(t->n, d); /* wraps mod 2^32 when x < u_d */
        uint32_t twin = server_toward(t, v, d, digit(t, u, d));
        if (s < twin)
            srvnet_wire(n, s, 1, twin, 1);
    }
}

/* INRFlow's routing between servers: for each dimension where the switches
   differ, lowest first, from switch u to the server toward the
   destination's coordinate, across to its twin, to the next switch; when
   the source's own twin cable already leads that way, it starts on it. */
static uint32_t route(const void *self, uint32_t src, uint32_t dst, uint32_t *walk)
{
    const knkstar *t = self;
    uint32_t len = 0, S = t->net.servers, at = src, v = dst / t->radix;
    walk[len++] = src;
    for (uint32_t d = 0; d < t->k; d++) {
        uint32_t u = at / t->radix, sd, sx;
        if (digit(t, u, d) == digit(t, v, d))
            continue;
        server_dim(t, at, &sd, &sx);
        if (!(at == src && sd == d && sx == digit(t, v, d))) {
            walk[len++] = S + u;
            at = server_toward(t, u, d, digit(t, v, d));
            walk[len++] = at;
        }
        insee_port_peer twin;
        srvnet_link((void *)&t->net, at, 1, &twin);
        at = twin.router;
        walk[len++] = at;
    }
    if (at != dst) {
        walk[len++] = S + v;
        walk[len++] = dst;
    }
    return len;
}

static uint32_t knkstar_paths(void *self, uint32_t src, uint32_t dst, uint32_t salt,
                              void (*add)(void *ctx, const uint32_t *ports, uint32_t hops,
                                          double share),
                              void *ctx)
{
    (void)salt; /* one path per pair */
    const knkstar *t = self;
    return srvnet_paths(&t->net, route, t, src, dst, add, ctx);
}

static void knkstar_destroy(void *self)
{
    knkstar *t = self;
    if (!t)
        return;
    srvnet_free(&t->net);
    free(t);
}

static void *knkstar_create(const insee_host *host, const insee_value *params, insee_error *err)
{
    (void)host; /* the wiring is a pure function of the parameters */
    uint64_t k = (uint64_t)params[P_K].i, n = (uint64_t)params[P_N].i, switches = 1;
    for (uint64_t d = 0; d < k && switches <= UINT32_MAX; d++)
        switches *= n;
    uint64_t radix = k * (n - 1), servers = switches * radix;
    if (k == 1 && n == 2) {
        insee_error_set(err, INSEE_ERR_PARAM,
                        "knkstar: k = 1, n = 2 is two servers cabled to each other: use n >= 3 "
                        "or k >= 2");
        return NULL;
    }
    if (switches > UINT32_MAX || servers + switches > UINT32_MAX / 2) {
        insee_error_set(err, INSEE_ERR_PARAM,
                        "knkstar: n^k = %llu^%llu switches of k (n - 1) servers do not fit in 32 "
                        "bits: use a smaller k or n",
                        (unsigned long long)n, (unsigned long long)k);
        return NULL;
    }
    if (!topology_within_limits("knkstar", servers + switches, servers, radix,
                                2 * servers + radix * switches, "use a smaller k or n", err))
        return NULL;
    knkstar *t = calloc(1, sizeof *t);
    if (!t) {
        insee_error_set(err, INSEE_ERR_NOMEM, "knkstar: out of memory");
        return NULL;
    }
    t->k = (uint32_t)k;
    t->n = (uint32_t)n;
    t->radix = (uint32_t)radix;
    if (!srvnet_init(&t->net, "knkstar", (uint32_t)servers, 2, (uint32_t)switches,
                     (uint32_t)radix, err)) {
        free(t);
        return NULL;
    }
    wire(t);
    /* to the switch, three hops per differing dimension, from the switch */
    t->net.path_hops = 3 * t->k + 2;
    if (!srvnet_finish(&t->net, "knkstar", params[P_TABLE_MB].d, err)) {
        knkstar_destroy(t);
        return NULL;
    }
    /* Two servers whose switches differ in every dimension, each twin cable
       leading elsewhere, are 3k + 2 apart; with n = 2 a twin cable always
       leads the right way (3k), and with k = 1, n = 3 one of the two ends
       does (4). */
    t->net.diameter = n == 2 ? 3 * t->k : k == 1 && n == 3 ? 4 : 3 * t->k + 2;
    return t;
}

static const insee_topology_vtable knkstar_vtable =
    SRVNET_VTABLE(knkstar_create, knkstar_destroy, knkstar_paths);

static const insee_plugin_desc knkstar_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_TOPOLOGY,
    .name = "knkstar",
    .version = "1.0.0",
    .summary = "GQ*: the stellar transformation of the generalised hypercube (k dimensions of "
               "n switches, two servers on every switch-switch cable), dimension-order routing",
    .reference = "Erickson et al., Computer Networks 113, 2017; INRFlow §3.2",
    .params = knkstar_params,
    .vtable = &knkstar_vtable,
};

INSEE_PLUGIN_DEFINE(knkstar_desc)
