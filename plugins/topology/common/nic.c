/* nic.c — a network interface and a link in front of every node of an
 * indirect topology (the model of nic.h): tables of where each node's link
 * lands, and the topology entries that add the NICs to the inner switches. */
#include "nic.h"

#include "limits.h"

#include <inttypes.h>
#include <stdlib.h>

struct topo_nic {
    const insee_topology_vtable *vt; /* the inner topology */
    void *inner;
    bool on;
    uint32_t switches, nodes;
    uint32_t *home;  /* per node: its switch */
    uint32_t *port;  /* per node: the switch port its link lands on */
    uint32_t *first; /* per switch + 1: its hosted nodes are hosted[first[r] .. first[r+1]) */
    uint32_t *hosted;
    uint32_t *own;   /* per switch: its inner ports (appended ones follow) */
    bool appended;   /* links land on ports appended to the switches' own */
    bool labelled;   /* the switches' links are labelled up or down (a tree) */
};

void topo_nic_destroy(void *self)
{
    topo_nic *t = self;
    if (!t)
        return;
    t->vt->destroy(t->inner);
    free(t->home);
    free(t->port);
    free(t->first);
    free(t->hosted);
    free(t->own);
    free(t);
}

/* Nodes grouped by switch, in node order within each (a counting sort), and
   the port each one's link lands on: the one port_of names, or the next
   appended after the switch's own. `rank` counts the nodes placed so far at
   each switch. */
static void place_links(topo_nic *t, topo_nic_port_fn port_of, uint32_t *rank)
{
    for (uint32_t y = 0; y < t->nodes; y++)
        t->first[t->home[y] + 1]++;
    for (uint32_t r = 0; r < t->switches; r++)
        t->first[r + 1] += t->first[r];
    for (uint32_t y = 0; y < t->nodes; y++) {
        uint32_t r = t->home[y];
        t->hosted[t->first[r] + rank[r]] = y;
        t->port[y] = port_of ? port_of(t->inner, y) : t->own[r] + rank[r];
        rank[r]++;
    }
}

/* Whether the inner topology labels its ports up or down, as trees do (all
   or none: updown refuses a mix), judged by router 0's port 0, plugged or
   not (a one-switch tree has no link). */
static bool labels_links(const topo_nic *t)
{
    if (!t->vt->port_info || t->own[0] == 0)
        return false;
    insee_hop info;
    t->vt->port_info(t->inner, 0, 0, &info);
    return info.flags & (INSEE_HOP_UP | INSEE_HOP_DOWN);
}

static bool fail_nomem(const char *name, topo_nic *t, insee_error *err)
{
    insee_error_set(err, INSEE_ERR_NOMEM, "%s: out of memory for the network interfaces of %" PRIu32
                    " nodes", name, t->nodes);
    return false;
}

static bool build(const char *name, topo_nic *t, topo_nic_port_fn port_of, insee_error *err)
{
    insee_topology_info info;
    t->vt->info(t->inner, &info);
    t->switches = info.routers;
    t->nodes = info.nodes;
    if (!t->on)
        return true;
    if (!t->vt->distance) {
        insee_error_set(err, INSEE_ERR_UNSUPPORTED, "%s: nic = true needs the topology's "
                        "distances; use nic = false", name);
        return false;
    }
    uint64_t ports = 0;
    t->own = malloc(sizeof *t->own * t->switches);
    if (!t->own)
        return fail_nomem(name, t, err);
    for (uint32_t r = 0; r < t->switches; r++)
        ports += t->own[r] = t->vt->ports(t->inner, r);
    /* One NIC port per node, and one more switch port each when appended. */
    uint64_t added = port_of ? t->nodes : 2ull * t->nodes;
    if (!topology_within_limits(name, (uint64_t)t->switches + t->nodes, t->nodes,
                                info.max_ports + (port_of ? 0u : t->nodes), ports + added,
                                "each node adds a network interface: use a smaller topology "
                                "or nic = false", err))
        return false;
    t->home = malloc(sizeof *t->home * t->nodes);
    t->port = malloc(sizeof *t->port * t->nodes);
    t->first = calloc((size_t)t->switches + 1, sizeof *t->first);
    t->hosted = malloc(sizeof *t->hosted * t->nodes);
    if (!t->home || !t->port || !t->first || !t->hosted)
        return fail_nomem(name, t, err);
    uint32_t *rank = calloc(t->switches, sizeof *rank);
    if (!rank)
        return fail_nomem(name, t, err);
    for (uint32_t y = 0; y < t->nodes; y++)
        t->home[y] = t->vt->node_router(t->inner, y);
    t->appended = !port_of;
    t->labelled = labels_links(t);
    place_links(t, port_of, rank);
    free(rank);
    return true;
}

topo_nic *topo_nic_wrap(const char *name, const insee_topology_vtable *vt, void *inner,
                        topo_nic_port_fn port_of, bool on, insee_error *err)
{
    topo_nic *t = calloc(1, sizeof *t);
    if (!t) {
        vt->destroy(inner);
        insee_error_set(err, INSEE_ERR_NOMEM, "%s: out of memory", name);
        return NULL;
    }
    *t = (topo_nic){.vt = vt, .inner = inner, .on = on};
    if (!build(name, t, port_of, err)) {
        topo_nic_destroy(t);
        return NULL;
    }
    return t;
}

/* The switch port that node y's link lands on, if `port` at switch r is one;
   else the node count. Linear in the nodes r hosts: build time only. */
static uint32_t node_at(const topo_nic *t, uint32_t r, uint32_t port)
{
    for (uint32_t i = t->first[r]; i < t->first[r + 1]; i++)
        if (t->port[t->hosted[i]] == port)
            return t->hosted[i];
    return t->nodes;
}

void topo_nic_info(void *self, insee_topology_info *out)
{
    const topo_nic *t = self;
    t->vt->info(t->inner, out);
    if (!t->on)
        return;
    out->routers = t->switches + t->nodes;
    for (uint32_t r = 0; r < t->switches; r++) {
        uint32_t ports = topo_nic_ports(self, r);
        if (ports > out->max_ports)
            out->max_ports = ports;
    }
    if (out->diameter || t->switches == 1) /* 0 means unknown, but for one switch */
        out->diameter += 2;
    out->flags |= INSEE_TOPO_INDIRECT;
}

uint32_t topo_nic_ports(void *self, uint32_t router)
{
    const topo_nic *t = self;
    if (!t->on)
        return t->vt->ports(t->inner, router);
    if (router >= t->switches)
        return 1;
    uint32_t hosted = t->first[router + 1] - t->first[router];
    return t->own[router] + (t->appended ? hosted : 0);
}

bool topo_nic_link(void *self, uint32_t router, uint32_t port, insee_port_peer *out)
{
    const topo_nic *t = self;
    if (!t->on)
        return t->vt->link(t->inner, router, port, out);
    if (router >= t->switches) {
        uint32_t y = router - t->switches;
        *out = (insee_port_peer){.router = t->home[y], .port = t->port[y]};
        return true;
    }
    uint32_t y = node_at(t, router, port);
    if (y < t->nodes) {
        *out = (insee_port_peer){.router = t->switches + y, .port = 0};
        return true;
    }
    return t->vt->link(t->inner, router, port, out);
}

uint32_t topo_nic_node_router(void *self, uint32_t node)
{
    const topo_nic *t = self;
    return t->on ? t->switches + node : t->vt->node_router(t->inner, node);
}

/* The NIC's link, seen from the NIC (toward the network, up) or from the
   switch (toward the node, down), flagged so only where the switches' links
   are labelled too; no dimension. */
static insee_hop nic_hop(const topo_nic *t, uint32_t port, bool up, uint16_t dim_hops)
{
    uint8_t flags = !t->labelled ? 0 : up ? INSEE_HOP_UP : INSEE_HOP_DOWN;
    return (insee_hop){.port = (uint16_t)port, .dir = (int8_t)(up ? +1 : -1), .flags = flags,
                       .dim = -1, .dim_hops = dim_hops};
}

uint32_t topo_nic_minimal_hops(void *self, uint32_t router, uint32_t dst_node, uint32_t salt,
                               insee_hop *out, uint32_t max)
{
    const topo_nic *t = self;
    if (!t->on)
        return t->vt->minimal_hops(t->inner, router, dst_node, salt, out, max);
    if (max == 0)
        return 0;
    if (router >= t->switches) {
        if (router - t->switches == dst_node)
            return 0;
        out[0] = nic_hop(t, 0, true, 1);
        return 1;
    }
    if (t->home[dst_node] == router) {
        out[0] = nic_hop(t, t->port[dst_node], false, 1);
        return 1;
    }
    return t->vt->minimal_hops(t->inner, router, dst_node, salt, out, max);
}

void topo_nic_port_info(void *self, uint32_t router, uint32_t port, insee_hop *out)
{
    const topo_nic *t = self;
    if (t->on && router >= t->switches) {
        *out = nic_hop(t, port, true, 0);
        return;
    }
    if (t->on && node_at(t, router, port) < t->nodes) {
        *out = nic_hop(t, port, false, 0);
        return;
    }
    if (t->vt->port_info)
        t->vt->port_info(t->inner, router, port, out);
    else
        *out = (insee_hop){.port = (uint16_t)port, .dim = -1};
}

uint32_t topo_nic_distance(void *self, uint32_t router, uint32_t dst_node)
{
    const topo_nic *t = self;
    if (!t->on)
        return t->vt->distance(t->inner, router, dst_node);
    if (router >= t->switches) {
        uint32_t y = router - t->switches;
        return y == dst_node ? 0 : 2 + t->vt->distance(t->inner, t->home[y], dst_node);
    }
    return 1 + t->vt->distance(t->inner, router, dst_node);
}

uint32_t topo_nic_coords(void *self, uint32_t node, int32_t *out, uint32_t max)
{
    const topo_nic *t = self;
    return t->vt->coords ? t->vt->coords(t->inner, node, out, max) : 0;
}
