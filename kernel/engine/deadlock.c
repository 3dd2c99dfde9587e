/* kernel/engine/deadlock.c — when nothing moves: find the queues that wait on
 * each other in a cycle and end the run with them, instead of spinning until
 * the drain limit.
 *
 * A head waits for room in the downstream queue of each of its router's
 * candidates. Once no packet has moved for deadlock_cycles, no link is busy
 * and no output VC is held, so those waits are the whole story: a cycle in
 * the graph "queue -> queue its head waits for" is the deadlock. The graph
 * is built only then, from fresh route() calls; the run is over anyway.
 */
#include "engine/engine.h"
#include "engine/partition.h"

#include <string.h>

/* Edges of the wait-for graph in compressed rows: queue q waits for
   to[first[q] .. first[q + 1]). */
typedef struct wait_graph {
    uint32_t *first;
    uint32_t *to;
} wait_graph;

/* The queues the head of q needs room in, or none when q is empty, its head
   is consumed here, or its router has no candidate for it. */
static uint32_t waits_for(insee_engine *eng, uint32_t q, uint32_t *out)
{
    const insee_net *net = &eng->net;
    uint32_t p = net->q[q].head;
    uint32_t r = net->q_at[q].router;
    if (p == INSEE_NONE || net->node_router[net->pkt[p].dst] == r)
        return 0;
    insee_route_ctx ctx;
    insee_rng draws;
    insee_engine_route_ctx(eng, q, p, INSEE_DRAW_CHECK, &draws, &ctx);
    insee_candidate cand[INSEE_MAX_CANDIDATES];
    uint32_t n = eng->router->route(eng->router_self, &ctx, cand, INSEE_MAX_CANDIDATES);
    uint32_t ports = net->port_base[r + 1] - net->port_base[r], w = 0;
    for (uint32_t c = 0; c < n && c < INSEE_MAX_CANDIDATES; c++) {
        if (cand[c].port >= ports || cand[c].vc >= net->vcs)
            continue;
        uint32_t down = net->peer_queue[net->port_base[r] + cand[c].port];
        if (down != INSEE_NONE)
            out[w++] = down + cand[c].vc;
    }
    return w;
}

static wait_graph build_graph(insee_engine *eng)
{
    const insee_net *net = &eng->net;
    wait_graph g = {g_new(uint32_t, (size_t)net->queues + 1), NULL};
    GArray *to = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    uint32_t edges[INSEE_MAX_CANDIDATES];
    for (uint32_t q = 0; q < net->queues; q++) {
        g.first[q] = to->len;
        g_array_append_vals(to, edges, waits_for(eng, q, edges));
    }
    g.first[net->queues] = to->len;
    g.to = (uint32_t *)(void *)g_array_free(to, FALSE);
    return g;
}

/* A cycle of the graph, depth first from every queue in turn; writes it to
   `cycle` (room for every queue) and returns its length, or 0. */
static uint32_t find_cycle(const insee_net *net, const wait_graph *g, uint32_t *cycle)
{
    enum { WHITE, ON_PATH, DONE };
    uint8_t *colour = g_new0(uint8_t, net->queues);
    uint32_t *path = g_new(uint32_t, net->queues), *next = g_new(uint32_t, net->queues);
    uint32_t len = 0;
    for (uint32_t root = 0; root < net->queues && len == 0; root++) {
        if (colour[root] != WHITE)
            continue;
        uint32_t depth = 0;
        path[depth] = root, next[depth] = g->first[root], colour[root] = ON_PATH;
        while (depth != UINT32_MAX && len == 0) {
            uint32_t q = path[depth];
            if (next[depth] == g->first[q + 1]) {
                colour[q] = DONE;
                depth--; /* wraps to UINT32_MAX after the root */
                continue;
            }
            uint32_t d = g->to[next[depth]++];
            if (colour[d] == WHITE) {
                depth++;
                path[depth] = d, next[depth] = g->first[d], colour[d] = ON_PATH;
            } else if (colour[d] == ON_PATH) {
                uint32_t from = depth;
                while (path[from] != d)
                    from--;
                len = depth - from + 1;
                memcpy(cycle, &path[from], len * sizeof *cycle);
            }
        }
    }
    g_free(colour);
    g_free(path);
    g_free(next);
    return len;
}

/* "router 5 input port 2 (dimension 1, -) VC 0: 4 of 4 packets, head to node 9" */
static void describe_queue(insee_engine *eng, uint32_t q, GString *out)
{
    const insee_net *net = &eng->net;
    uint32_t r = net->q_at[q].router;
    if (q >= net->transit_queues) {
        g_string_append_printf(out, "router %u injection queue %u", r, net->q_at[q].vc);
    } else {
        insee_hop info = {.port = net->q_at[q].port, .dim = -1};
        if (eng->topo->port_info)
            eng->topo->port_info(eng->topo_self, r, net->q_at[q].port, &info);
        g_string_append_printf(out, "router %u input port %u", r, net->q_at[q].port);
        if (info.dim >= 0)
            g_string_append_printf(out, " (on the %s side of dimension %d)",
                                   info.dir > 0 ? "+" : info.dir < 0 ? "-" : "undirected", info.dim);
        g_string_append_printf(out, " VC %u", net->q_at[q].vc);
    }
    g_string_append_printf(out, ": %u of %u %s", net->q[q].count,
                           insee_net_queue_capacity(net, q),
                           net->phit_queues ? "phits" : "packets");
    if (net->q[q].head != INSEE_NONE)
        g_string_append_printf(out, ", head to node %u", net->pkt[net->q[q].head].dst);
}

/* The queues whose heads wait, this part's in a split run: at most 8 of
   them, one a line, so that the message says where to look. */
static void list_waiting_heads(insee_engine *eng, GString *out)
{
    const insee_net *net = &eng->net;
    uint32_t listed = 0, more = 0;
    for (uint32_t q = 0; q < net->queues; q++) {
        if (net->q[q].head == INSEE_NONE ||
            (eng->part && !insee_partition_owns(eng->part, net->q_at[q].router)))
            continue;
        if (listed == 8) {
            more++;
            continue;
        }
        g_string_append(out, "\n  ");
        describe_queue(eng, q, out);
        listed++;
    }
    if (more)
        g_string_append_printf(out, "\n  and %u more", more);
}

void insee_deadlock_check(insee_engine *eng)
{
    /* last_move may lie ahead while a long packet's phits still flow. A
       part of a split run checks after the parts met, on the whole
       network's packets in flight, transit and last move at the last cycle
       simulated, as every part does. */
    uint64_t limit = eng->deadlock_cycles ? eng->deadlock_cycles : INSEE_STALL_LIMIT;
    if (!insee_engine_in_flight(eng) || eng->now <= eng->last_move || eng->now - eng->last_move < limit)
        return;
    /* With global congestion control holding injection back and nothing
       in transit, the sources wait for the next sample, not for each
       other. The count is the live one: the last sample's may predate the
       stall. */
    uint64_t transit = eng->part ? insee_partition_transit(eng->part) : eng->net.transit_used;
    if (eng->gcc_stop && transit == 0)
        return;
    const insee_net *net = &eng->net;
    wait_graph g = build_graph(eng);
    uint32_t *cycle = g_new(uint32_t, net->queues);
    uint32_t len = find_cycle(net, &g, cycle);
    GString *msg = g_string_new(NULL);
    g_string_append_printf(msg,
                           "deadlock: no packet has moved for %" G_GUINT64_FORMAT " cycles "
                           "(%s) and %" G_GUINT64_FORMAT " packets are in the network.",
                           eng->now - eng->last_move,
                           eng->deadlock_cycles ? "[simulation] deadlock_cycles"
                                                : "the longest any run waits, even with "
                                                  "deadlock_cycles = 0",
                           insee_engine_in_flight(eng));
    if (len) {
        g_string_append_printf(msg, " These %u queues wait for room in each other in a cycle:",
                               len);
        for (uint32_t i = 0; i < len; i++) {
            g_string_append(msg, "\n  ");
            describe_queue(eng, cycle[i], msg);
            g_string_append(msg, i + 1 < len ? ", waits for" : ", waits for the first.");
        }
    } else if (eng->part) {
        /* a cycle may run through other parts' queues, which this one
           does not see: run it on one thread to have it named */
        g_string_append(msg, " No cycle of this part's queues waiting for room was found (one "
                             "may cross other parts: run it with [simulation] threads = 1 and "
                             "without mpirun to have it named); its queues whose heads wait:");
        list_waiting_heads(eng, msg);
    } else {
        g_string_append(msg, " No cycle of queues waiting for room was found: the router "
                             "offers these heads no candidate at all:");
        list_waiting_heads(eng, msg);
    }
    g_string_append(msg, "\nThe router model is not deadlock free with these settings: add "
                         "virtual channels, or use a deadlock-free router (bubble, dally with "
                         "2 VCs on tori, updown).");
    insee_engine_fail(eng, "%s", msg->str);
    g_string_free(msg, TRUE);
    g_free(cycle);
    g_free(g.first);
    g_free(g.to);
}
