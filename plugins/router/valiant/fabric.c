/* fabric.c — the survey of fabric.h: one pass over the ports for what kind
 * of links they are, then the check of the family they point to. Each
 * check is what the routers' deadlock arguments rely on, verified link by
 * link, so a new topology with the same structure is accepted and one that
 * only looks alike is not. */
#include "fabric.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

typedef enum fit { FIT_NO, FIT_YES, FIT_NOMEM } fit;

static void rule_out(fabric *f, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void rule_out(fabric *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->why, sizeof f->why, fmt, ap);
    va_end(ap);
    f->kind = FABRIC_OTHER;
}

static uint32_t *array_of_none(size_t n)
{
    uint32_t *a = malloc(sizeof *a * (n ? n : 1));
    if (a)
        memset(a, 0xff, sizeof *a * n);
    return a;
}

/* Every port is a dimension's link, none wraps around or climbs a tree;
   *line when they have a direction (a mesh), else they are full
   connections. False (f->why set) otherwise. */
static bool scan_ports(const insee_host *host, fabric *f, int32_t *max_dim, bool *line)
{
    bool full = false;
    *line = false;
    *max_dim = -1;
    for (uint32_t r = 0; r < f->routers; r++) {
        uint32_t ports = host->ports(host->kernel, r);
        for (uint32_t p = 0; p < ports; p++) {
            insee_hop h;
            host->port_info(host->kernel, r, p, &h);
            if (h.flags & (INSEE_HOP_UP | INSEE_HOP_DOWN)) {
                rule_out(f, "port %u of router %u goes up or down a tree", p, r);
                return false;
            }
            if (h.dim < 0) {
                rule_out(f, "port %u of router %u is not the link of a dimension (a graph)", p, r);
                return false;
            }
            if (h.flags & (INSEE_HOP_WRAP | INSEE_HOP_WRAP_AHEAD)) {
                rule_out(f, "port %u of router %u wraps around a ring (a torus)", p, r);
                return false;
            }
            *line |= h.dir != 0;
            full |= h.dir == 0;
            *max_dim = h.dim > *max_dim ? h.dim : *max_dim;
            if (*line && full) {
                rule_out(f, "some dimensions have a direction and some do not (port %u of "
                            "router %u)", p, r);
                return false;
            }
        }
    }
    return true;
}

/* node_of[]: the lowest node of each router; false (f->why set) when a
   router has none (trees: a switch cannot be an intermediate). */
static bool nodes_everywhere(const insee_host *host, fabric *f, uint32_t nodes)
{
    for (uint32_t n = nodes; n-- > 0;) {
        uint32_t r = host->node_router(host->kernel, n);
        if (r < f->routers)
            f->node_of[r] = n;
    }
    for (uint32_t r = 0; r < f->routers; r++)
        if (f->node_of[r] == NONE) {
            rule_out(f, "router %u hosts no node (an indirect network)", r);
            return false;
        }
    return true;
}

/* A Hamming graph: the routers' coordinates (those of their lowest node;
   a slot coordinate is then 0 everywhere) are every combination of values
   0..size_d - 1, each link changes exactly its dimension's coordinate, and
   every router reaches the size_d - 1 other values of coordinate d through
   its dimension-d ports. */
static fit is_hamming(const insee_host *host, fabric *f, uint32_t n)
{
    if (n == 0) {
        rule_out(f, "the topology gives no coordinates");
        return FIT_NO;
    }
    int32_t *c = malloc(sizeof *c * 2 * n);
    uint32_t *size = calloc(n, sizeof *size), *base = calloc(n, sizeof *base);
    uint32_t *count = calloc(n, sizeof *count), *seen = NULL;
    fit result = FIT_NOMEM;
    if (!c || !size || !base || !count)
        goto done;
    int32_t *c2 = c + n;
    result = FIT_NO;
    for (uint32_t r = 0; r < f->routers; r++) {
        if (host->coords(host->kernel, f->node_of[r], c, n) != n) {
            rule_out(f, "router %u has fewer than %u coordinates", r, n);
            goto done;
        }
        for (uint32_t d = 0; d < n; d++) {
            if (c[d] < 0) {
                rule_out(f, "router %u has a negative coordinate", r);
                goto done;
            }
            size[d] = (uint32_t)c[d] + 1 > size[d] ? (uint32_t)c[d] + 1 : size[d];
        }
    }
    uint64_t combinations = 1, values = 0;
    for (uint32_t d = 0; d < n && combinations <= f->routers; d++) {
        combinations *= size[d];
        base[d] = (uint32_t)values;
        values += size[d];
    }
    if (combinations != f->routers) {
        rule_out(f, "the routers' coordinates are not every combination of their values");
        goto done;
    }
    /* values <= routers + n: the sizes multiply to the router count */
    seen = array_of_none(values);
    if (!seen) {
        result = FIT_NOMEM;
        goto done;
    }
    for (uint32_t r = 0; r < f->routers; r++) {
        host->coords(host->kernel, f->node_of[r], c, n);
        memset(count, 0, sizeof *count * n);
        uint32_t ports = host->ports(host->kernel, r);
        for (uint32_t p = 0; p < ports; p++) {
            insee_hop h;
            insee_port_peer to;
            host->port_info(host->kernel, r, p, &h);
            if (!host->peer(host->kernel, r, p, &to))
                continue;
            if ((uint32_t)h.dim >= n) {
                rule_out(f, "port %u of router %u is in dimension %d, beyond the %u coordinates",
                         p, r, h.dim, n);
                goto done;
            }
            host->coords(host->kernel, f->node_of[to.router], c2, n);
            for (uint32_t e = 0; e < n; e++)
                if ((c2[e] != c[e]) != (e == (uint32_t)h.dim)) {
                    rule_out(f, "port %u of router %u (dimension %d) changes other coordinates",
                             p, r, h.dim);
                    goto done;
                }
            /* Parallel links (trunking) reach the same value: count it once. */
            uint32_t *v = &seen[base[h.dim] + (uint32_t)c2[h.dim]];
            if (*v != r) {
                *v = r;
                count[h.dim]++;
            }
        }
        for (uint32_t d = 0; d < n; d++)
            if (count[d] + 1 != size[d]) {
                rule_out(f, "router %u reaches %u of the %u other values of coordinate %u in one "
                            "hop (not fully connected)",
                         r, count[d], size[d] - 1, d);
                goto done;
            }
    }
    result = FIT_YES;
done:
    free(c);
    free(size);
    free(base);
    free(count);
    free(seen);
    return result;
}

/* Groups: the components of the dimension-0 links are cliques, and the
   dimension-1 links join every pair of them. Fills f->group_of, groups. */
static fit is_groups(const insee_host *host, fabric *f, int32_t max_dim)
{
    if (max_dim > 1) {
        rule_out(f, "links of %d dimensions, not a local and a global one", max_dim + 1);
        return FIT_NO;
    }
    uint32_t R = f->routers;
    uint32_t *stack = malloc(sizeof *stack * (R ? R : 1));
    uint32_t *size = calloc(R ? R : 1, sizeof *size), *start = calloc(R + 1, sizeof *start);
    uint32_t *member = malloc(sizeof *member * (R ? R : 1)), *seen = array_of_none(R);
    f->group_of = array_of_none(R);
    fit result = FIT_NOMEM;
    if (!stack || !size || !start || !member || !seen || !f->group_of)
        goto done;
    result = FIT_NO;
    for (uint32_t r = 0; r < R; r++) {
        if (f->group_of[r] != NONE)
            continue;
        uint32_t g = f->groups++, top = 0;
        f->group_of[r] = g;
        stack[top++] = r;
        while (top > 0) {
            uint32_t x = stack[--top], ports = host->ports(host->kernel, x);
            size[g]++;
            for (uint32_t p = 0; p < ports; p++) {
                insee_hop h;
                insee_port_peer to;
                host->port_info(host->kernel, x, p, &h);
                if (h.dim == 0 && host->peer(host->kernel, x, p, &to) &&
                    f->group_of[to.router] == NONE) {
                    f->group_of[to.router] = g;
                    stack[top++] = to.router;
                }
            }
        }
    }
    for (uint32_t r = 0; r < R; r++) {
        uint32_t ports = host->ports(host->kernel, r), count = 0;
        for (uint32_t p = 0; p < ports; p++) {
            insee_hop h;
            insee_port_peer to;
            host->port_info(host->kernel, r, p, &h);
            if (h.dim == 0 && host->peer(host->kernel, r, p, &to) && seen[to.router] != r) {
                seen[to.router] = r;
                count++;
            }
        }
        uint32_t others = size[f->group_of[r]] - 1;
        if (count != others) {
            rule_out(f, "router %u reaches %u of the %u other routers of its group in one hop "
                        "(groups are not cliques)",
                     r, count, others);
            goto done;
        }
    }
    /* Routers by group (counting sort), to visit each group's global links. */
    for (uint32_t r = 0; r < R; r++)
        start[f->group_of[r] + 1]++;
    for (uint32_t g = 0; g < f->groups; g++)
        start[g + 1] += start[g];
    for (uint32_t r = 0; r < R; r++)
        member[start[f->group_of[r]] + --size[f->group_of[r]]] = r;
    memset(seen, 0xff, sizeof *seen * R);
    for (uint32_t g = 0; g < f->groups; g++) {
        uint32_t reached = 0;
        for (uint32_t i = start[g]; i < start[g + 1]; i++) {
            uint32_t r = member[i], ports = host->ports(host->kernel, r);
            for (uint32_t p = 0; p < ports; p++) {
                insee_hop h;
                insee_port_peer to;
                host->port_info(host->kernel, r, p, &h);
                if (h.dim != 1 || !host->peer(host->kernel, r, p, &to))
                    continue;
                uint32_t g2 = f->group_of[to.router];
                if (g2 != g && seen[g2] != g) {
                    seen[g2] = g;
                    reached++;
                }
            }
        }
        if (reached + 1 != f->groups) {
            rule_out(f, "group %u has links to %u of the %u other groups", g, reached,
                     f->groups - 1);
            goto done;
        }
    }
    result = FIT_YES;
done:
    free(stack);
    free(size);
    free(start);
    free(member);
    free(seen);
    if (result != FIT_YES) {
        free(f->group_of);
        f->group_of = NULL;
        f->groups = 0;
    }
    return result;
}

bool fabric_survey(const insee_host *host, const char *plugin, fabric *f, insee_error *err)
{
    insee_shape shape;
    host->shape(host->kernel, &shape);
    *f = (fabric){.kind = FABRIC_OTHER, .routers = shape.routers};
    int32_t max_dim;
    bool line;
    if (!scan_ports(host, f, &max_dim, &line))
        return true;
    f->node_of = array_of_none(shape.routers);
    if (!f->node_of)
        goto nomem;
    if (!nodes_everywhere(host, f, shape.nodes))
        return true;
    if (line) {
        f->kind = FABRIC_MESH;
        return true;
    }
    fit hamming = is_hamming(host, f, shape.dims);
    if (hamming == FIT_YES) {
        f->kind = FABRIC_HAMMING;
        return true;
    }
    char not_hamming[sizeof f->why];
    memcpy(not_hamming, f->why, sizeof not_hamming);
    fit groups = hamming == FIT_NOMEM ? FIT_NOMEM : is_groups(host, f, max_dim);
    if (groups == FIT_YES) {
        f->kind = FABRIC_GROUPS;
        return true;
    }
    if (groups == FIT_NOMEM)
        goto nomem;
    char not_groups[sizeof f->why];
    memcpy(not_groups, f->why, sizeof not_groups);
    rule_out(f, "not a HyperX (%.120s), nor a dragonfly (%.120s)", not_hamming, not_groups);
    return true;
nomem:
    fabric_free(f);
    insee_error_set(err, INSEE_ERR_NOMEM, "%s: out of memory surveying %u routers", plugin,
                    shape.routers);
    return false;
}

void fabric_free(fabric *f)
{
    free(f->node_of);
    free(f->group_of);
    f->node_of = f->group_of = NULL;
}
