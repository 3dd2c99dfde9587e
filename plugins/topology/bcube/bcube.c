/* bcube.c — BCube(n, k) of Guo et al. (SIGCOMM 2009): n^(k+1) servers with
 * k + 1 ports each and k + 1 levels of n^k switches with n ports; the
 * level-l switch links the n servers whose addresses (k + 1 base-n digits)
 * differ only in digit l. Its own routing is the paper's digit correction
 * (BCubeRouting) or the k + 1 parallel paths of BuildPathSet (§4). Every
 * query is arithmetic on the digits; nothing is tabulated. See README.md
 * for the numbering. */
#include "../common/limits.h"

#include <insee/insee.h>

#include <stdlib.h>

enum { P_N, P_K, P_ROUTING, P_SPLIT };
enum { ROUTE_DIGIT, ROUTE_PARALLEL };
enum { SPLIT_EVEN, SPLIT_HASH };

static const insee_param_def bcube_params[] = {
    [P_N] = {"n", INSEE_PARAM_INT, "4", 2, 65535, NULL, "ports",
             "switch ports: servers per switch, and the base of server addresses"},
    [P_K] = {"k", INSEE_PARAM_INT, "1", 0, 31, NULL, "levels",
             "levels - 1: a server has k + 1 ports and an address of k + 1 digits"},
    [P_ROUTING] = {"routing", INSEE_PARAM_ENUM, "\"digit\"", 1, 0, "digit|parallel", NULL,
                   "paths(): digit correction from the highest level down (one path), or "
                   "BuildPathSet's k + 1 parallel paths"},
    [P_SPLIT] = {"split", INSEE_PARAM_ENUM, "\"even\"", 1, 0, "even|hash", NULL,
                 "routing = parallel: every path with share 1/(k + 1), or one picked by the "
                 "flow's salt"},
    {0},
};

#define MAX_LEVELS 32

typedef struct bcube {
    uint32_t n, levels; /* levels = k + 1 */
    uint32_t servers;   /* n^levels, routers 0 .. servers - 1 */
    uint32_t per_level; /* n^k switches per level */
    uint32_t routers;
    int routing, split;
    uint32_t pow[MAX_LEVELS + 1]; /* n^i for i <= levels */
} bcube;

static uint32_t digit(const bcube *b, uint32_t server, uint32_t l)
{
    return server / b->pow[l] % b->n;
}

static uint32_t with_digit(const bcube *b, uint32_t server, uint32_t l, uint32_t v)
{
    return server - digit(b, server, l) * b->pow[l] + v * b->pow[l];
}

/* The level-l switch of `server`: its address with digit l dropped. */
static uint32_t switch_of(const bcube *b, uint32_t server, uint32_t l)
{
    return b->servers + l * b->per_level + server / b->pow[l + 1] * b->pow[l] +
           server % b->pow[l];
}

static uint32_t level_of(const bcube *b, uint32_t sw)
{
    return (sw - b->servers) / b->per_level;
}

/* The server on port j of switch `sw`: digit `level` set to j. */
static uint32_t server_at(const bcube *b, uint32_t sw, uint32_t j)
{
    uint32_t l = level_of(b, sw), idx = (sw - b->servers) % b->per_level;
    return idx / b->pow[l] * b->pow[l + 1] + j * b->pow[l] + idx % b->pow[l];
}

static void *bcube_create(const insee_host *host, const insee_value *params, insee_error *err)
{
    (void)host; /* the wiring is a pure function of the parameters */
    uint32_t n = (uint32_t)params[P_N].i, levels = (uint32_t)params[P_K].i + 1;
    uint64_t servers = 1;
    for (uint32_t l = 0; l < levels; l++) {
        servers *= n;
        if (servers > UINT32_MAX) {
            insee_error_set(err, INSEE_ERR_PARAM,
                            "bcube: n = %u, k = %u give n^(k+1) > %u servers; use a smaller n "
                            "or k",
                            n, levels - 1, UINT32_MAX);
            return NULL;
        }
    }
    uint64_t switches = (uint64_t)levels * (servers / n);
    if (servers + switches > UINT32_MAX) {
        insee_error_set(err, INSEE_ERR_PARAM,
                        "bcube: n = %u, k = %u give %" PRIu64 " routers (servers and "
                        "switches), more than %u; use a smaller n or k",
                        n, levels - 1, servers + switches, UINT32_MAX);
        return NULL;
    }
    /* Servers have k + 1 ports and switches n: 2 (k + 1) n^(k+1) in all. */
    if (!topology_within_limits("bcube", servers + switches, servers, n > levels ? n : levels,
                                2 * levels * servers, "use a smaller n or k", err))
        return NULL;
    bcube *b = calloc(1, sizeof *b);
    if (!b) {
        insee_error_set(err, INSEE_ERR_NOMEM, "bcube: out of memory");
        return NULL;
    }
    *b = (bcube){
        .n = n,
        .levels = levels,
        .servers = (uint32_t)servers,
        .per_level = (uint32_t)(servers / n),
        .routers = (uint32_t)(servers + switches),
        .routing = (int)params[P_ROUTING].i,
        .split = (int)params[P_SPLIT].i,
    };
    b->pow[0] = 1;
    for (uint32_t l = 1; l <= levels; l++)
        b->pow[l] = b->pow[l - 1] * n;
    return b;
}

static void bcube_destroy(void *self)
{
    free(self);
}

static void bcube_info(void *self, insee_topology_info *out)
{
    const bcube *b = self;
    *out = (insee_topology_info){
        .routers = b->routers,
        .nodes = b->servers,
        .max_ports = b->n > b->levels ? b->n : b->levels,
        .dims = b->levels,
        .flags = INSEE_TOPO_INDIRECT,
        /* Two servers differing in every digit, or two switches of one
           level whose addresses differ in all k digits they have: both
           2 (k + 1) hops apart. */
        .diameter = 2 * b->levels,
    };
}

static uint32_t bcube_ports(void *self, uint32_t router)
{
    const bcube *b = self;
    return router < b->servers ? b->levels : b->n;
}

static bool bcube_link(void *self, uint32_t router, uint32_t port, insee_port_peer *out)
{
    const bcube *b = self;
    if (port >= bcube_ports(self, router))
        return false;
    if (router < b->servers)
        *out = (insee_port_peer){switch_of(b, router, port), digit(b, router, port)};
    else
        *out = (insee_port_peer){server_at(b, router, port), level_of(b, router)};
    return true;
}

static uint32_t bcube_node_router(void *self, uint32_t node)
{
    (void)self; /* router r hosts node r */
    return node;
}

/* Digits in which servers a and c differ, digit `skip` left out (levels:
   none). */
static uint32_t differing(const bcube *b, uint32_t a, uint32_t c, uint32_t skip)
{
    uint32_t h = 0;
    for (uint32_t l = 0; l < b->levels; l++)
        h += l != skip && digit(b, a, l) != digit(b, c, l);
    return h;
}

static uint32_t bcube_minimal_hops(void *self, uint32_t router, uint32_t dst_node,
                                   uint32_t salt, insee_hop *out, uint32_t max)
{
    (void)salt; /* no two minimal ports tie in a way a direction could settle */
    const bcube *b = self;
    uint32_t w = 0;
    if (router == dst_node)
        return 0;
    if (router >= b->servers) {
        /* Only the server that already has the destination's digit l is
           nearer; every other one still has digit l to correct. */
        uint32_t l = level_of(b, router);
        if (max > 0)
            out[w++] = (insee_hop){.port = (uint16_t)digit(b, dst_node, l),
                                   .dim = (int16_t)l,
                                   .dim_hops = 1};
        return w;
    }
    for (uint32_t l = 0; l < b->levels && w < max; l++)
        if (digit(b, router, l) != digit(b, dst_node, l))
            out[w++] = (insee_hop){.port = (uint16_t)l, .dim = (int16_t)l, .dim_hops = 2};
    return w;
}

static void bcube_port_info(void *self, uint32_t router, uint32_t port, insee_hop *out)
{
    const bcube *b = self;
    /* A port's dimension is the level it corrects: the port number at a
       server, the switch's level at a switch. */
    *out = (insee_hop){.port = (uint16_t)port,
                       .dim = (int16_t)(router < b->servers ? port : level_of(b, router))};
}

static uint32_t bcube_distance(void *self, uint32_t router, uint32_t dst_node)
{
    const bcube *b = self;
    if (router < b->servers)
        return 2 * differing(b, router, dst_node, b->levels);
    /* To the attached server with the destination's digit l, then on. */
    return 1 + 2 * differing(b, server_at(b, router, digit(b, dst_node, level_of(b, router))),
                             dst_node, b->levels);
}

static uint32_t bcube_coords(void *self, uint32_t node, int32_t *out, uint32_t max)
{
    const bcube *b = self;
    uint32_t w = 0;
    for (uint32_t l = 0; l < b->levels && w < max; l++)
        out[w++] = (int32_t)digit(b, node, l);
    return w;
}

/* A path being built: the output ports, and the server it has reached. */
typedef struct route {
    uint32_t ports[2 * (MAX_LEVELS + 2)];
    uint32_t hops, at;
} route;

/* Through the level-l switch of r->at to its neighbour with digit l = v. */
static void hop_level(const bcube *b, route *r, uint32_t l, uint32_t v)
{
    r->ports[r->hops++] = l;
    r->ports[r->hops++] = v;
    r->at = with_digit(b, r->at, l, v);
}

/* DCRouting(A, B, i) of the paper: correct the digits that differ from
   `dst` in the order i, i - 1, ..., 0, k, ..., i + 1. */
static void correct_from(const bcube *b, route *r, uint32_t dst, uint32_t i)
{
    for (uint32_t t = 0; t < b->levels; t++) {
        uint32_t l = (i + b->levels - t) % b->levels;
        if (digit(b, r->at, l) != digit(b, dst, l))
            hop_level(b, r, l, digit(b, dst, l));
    }
}

/* The servers a path between two routers runs between: a router's own
   server, or for a switch the attached server that keeps the digits the
   other end fixes, so that the server-to-server part never crosses the
   switches at the ends and the whole path is shortest. */
static uint32_t entry_server(const bcube *b, uint32_t src, uint32_t dst)
{
    if (src < b->servers)
        return src;
    uint32_t l = level_of(b, src);
    if (dst < b->servers)
        return server_at(b, src, digit(b, dst, l));
    if (level_of(b, dst) == l) /* neither switch has a digit l */
        return server_at(b, src, 0);
    return server_at(b, src, digit(b, server_at(b, dst, 0), l));
}

static uint32_t exit_server(const bcube *b, uint32_t from, uint32_t dst)
{
    return dst < b->servers ? dst : server_at(b, dst, digit(b, from, level_of(b, dst)));
}

typedef void (*path_fn)(void *ctx, const uint32_t *ports, uint32_t hops, double share);

/* Path `i` of BuildPathSet from server a to server c: DCRouting starting at
   digit i where the digits differ; where they agree, AltDCRouting: first
   to the level-i neighbour with digit i one higher (mod n), then DCRouting
   from i - 1, which corrects digit i last. */
static void parallel_path(const bcube *b, route *r, uint32_t c, uint32_t i)
{
    if (digit(b, r->at, i) != digit(b, c, i)) {
        correct_from(b, r, c, i);
        return;
    }
    hop_level(b, r, i, (digit(b, r->at, i) + 1) % b->n);
    correct_from(b, r, c, (i + b->levels - 1) % b->levels);
}

static uint32_t bcube_paths(void *self, uint32_t src, uint32_t dst, uint32_t salt,
                            path_fn add, void *ctx)
{
    const bcube *b = self;
    if (b->routing == ROUTE_PARALLEL && src < b->servers && dst < b->servers) {
        uint32_t first = 0, last = b->levels;
        if (b->split == SPLIT_HASH) {
            first = salt % b->levels;
            last = first + 1;
        }
        for (uint32_t i = first; i < last; i++) {
            route r = {.at = src};
            parallel_path(b, &r, dst, b->levels - 1 - i);
            add(ctx, r.ports, r.hops, 1.0 / (last - first));
        }
        return last - first;
    }
    uint32_t a = entry_server(b, src, dst), c = exit_server(b, a, dst);
    route r = {.at = a};
    if (src >= b->servers)
        r.ports[r.hops++] = digit(b, a, level_of(b, src));
    correct_from(b, &r, c, b->levels - 1);
    if (dst >= b->servers)
        r.ports[r.hops++] = level_of(b, dst);
    add(ctx, r.ports, r.hops, 1.0);
    return 1;
}

static uint32_t bcube_path_hops(void *self)
{
    const bcube *b = self;
    /* Digit correction: at most k + 1 digits, two hops each (also between
       switches of one level). A detour of BuildPathSet adds two hops to at
       most k differing digits; with k = 0 there is none. */
    if (b->routing == ROUTE_PARALLEL && b->levels > 1)
        return 2 * (b->levels + 1);
    return 2 * b->levels;
}

static const insee_topology_vtable bcube_vtable = {
    .size = sizeof(insee_topology_vtable),
    .create = bcube_create,
    .destroy = bcube_destroy,
    .info = bcube_info,
    .ports = bcube_ports,
    .link = bcube_link,
    .node_router = bcube_node_router,
    .minimal_hops = bcube_minimal_hops,
    .port_info = bcube_port_info,
    .distance = bcube_distance,
    .coords = bcube_coords,
    .paths = bcube_paths,
    .path_hops = bcube_path_hops,
};

static const insee_plugin_desc bcube_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_TOPOLOGY,
    .name = "bcube",
    .version = "1.0.0",
    .summary = "BCube(n, k): server-centric, n^(k+1) servers with k + 1 ports, k + 1 levels "
               "of n-port switches; digit-correcting and parallel-path routing",
    .reference = "Guo et al., BCube, SIGCOMM 2009 §3-4; INRFlow §3.2",
    .params = bcube_params,
    .vtable = &bcube_vtable,
};

INSEE_PLUGIN_DEFINE(bcube_desc)
