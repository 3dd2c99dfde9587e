/* kernel/workload/workload.c — tasks, messages and packetization: the bridge
 * between the traffic plugin (which speaks in tasks and messages) and the
 * network (nodes, injection queues, packets). Contract in workload.h.
 *
 * Tasks of all applications share one id space: application a owns the ids
 * first_task .. first_task + tasks - 1, and its plugin sees them from 0.
 *
 * A due task is asked for a message; the message is cut into packets that
 * enter the injection queues of the task's node. A message between two
 * tasks of one node never enters the network: it is handed over after
 * packets x packet_phits cycles, the time its phits take through the node's
 * consumption port. When a queue is full the
 * task is throttled, as INSEE does: it keeps its message, is not asked again,
 * and resumes when a slot frees; its next due cycle is shifted by the time it
 * waited, so a Bernoulli source's gap starts after the stall (memoryless, as
 * drawing a die every cycle would). With `on_full = "drop"` the packets that
 * do not fit are dropped and counted instead.
 */
#include "workload/workload.h"

#include <math.h>
#include <string.h>

#include "engine/experiment.h"
#include "workload/message.h"
#include "workload/sched.h"

void insee_workload_fail(insee_workload *wl, const char *fmt, ...)
{
    if (wl->error)
        return;
    va_list ap;
    va_start(ap, fmt);
    wl->error = insee_simulation_error(wl->now, fmt, ap);
    va_end(ap);
}

static gboolean in_window(const insee_workload *wl)
{
    return wl->now >= wl->window_start && wl->now < wl->window_end;
}

void insee_workload_cycle(insee_workload *wl, uint64_t now, gboolean skip_draws)
{
    wl->now = now;
    wl->skip_draws = skip_draws;
}

void insee_workload_window(insee_workload *wl, uint64_t start, uint64_t end)
{
    wl->window_start = start;
    wl->window_end = end;
}

void insee_workload_init(insee_workload *wl, const insee_workload_env *env,
                         const uint32_t *task_node)
{
    uint32_t tasks = wl->tasks;
    wl->env = *env;
    wl->task_node = g_memdup2(task_node, sizeof(uint32_t) * tasks);
    wl->task_app = g_new(uint32_t, tasks);
    for (uint32_t a = 0; a < wl->n_apps; a++)
        for (uint32_t t = 0; t < wl->apps[a].tasks; t++)
            wl->task_app[wl->apps[a].first_task + t] = a;
    wl->task_rng = g_new(insee_rng, tasks);
    for (uint32_t t = 0; t < tasks; t++)
        insee_rng_init(&wl->task_rng[t], env->seed, (4ull << 40) + t);
    wl->task_due = g_new(uint64_t, tasks);
    wl->task_next = g_new(uint64_t, tasks);
    wl->task_msg = g_new(uint32_t, tasks);
    wl->task_blocked_at = g_new(uint64_t, tasks);
    wl->task_blocked_next = g_new(uint32_t, tasks);
    wl->task_wake = g_new(uint64_t, tasks);
    for (uint32_t t = 0; t < tasks; t++) {
        wl->task_wake[t] = INSEE_NEVER;
        wl->task_due[t] = INSEE_NEVER;
        wl->task_next[t] = INSEE_NEVER;
        wl->task_msg[t] = INSEE_NONE;
        wl->task_blocked_at[t] = INSEE_NEVER;
        wl->task_blocked_next[t] = INSEE_NONE;
    }
    uint32_t nodes = env->net->nodes;
    wl->node_rng = g_new(insee_rng, nodes);
    /* Stream ids are disjoint ranges per purpose (engine.c's prepare). */
    for (uint32_t n = 0; n < nodes; n++)
        insee_rng_init(&wl->node_rng[n], env->seed, (3ull << 40) + n);
    wl->node_blocked_head = g_new(uint32_t, nodes);
    wl->node_blocked_tail = g_new(uint32_t, nodes);
    memset(wl->node_blocked_head, 0xff, sizeof(uint32_t) * nodes);
    memset(wl->node_blocked_tail, 0xff, sizeof(uint32_t) * nodes);
    if (env->node_phit_cycles > 1)
        wl->nic_free = g_new0(uint64_t, (size_t)nodes * MAX(env->nics, 1u));
    if (env->nics > 1)
        wl->nic_next = g_new0(uint32_t, nodes);
    wl->msg_free = INSEE_NONE;
    /* A Bernoulli source at load 0.075 and 16 phits waits 213 cycles on
       average, longer than this span once in 120 gaps. */
    insee_calendar_init(&wl->due, 1024);
}

void insee_workload_clear(insee_workload *wl)
{
    g_free(wl->task_node);
    g_free(wl->nic_free);
    g_free(wl->nic_next);
    g_free(wl->task_app);
    insee_heap_clear(&wl->local);
    insee_heap_clear(&wl->sending);
    insee_heap_clear(&wl->receiving);
    insee_calendar_clear(&wl->due);
    g_free(wl->queued.v);
    if (wl->notices)
        g_array_free(wl->notices, TRUE);
    g_free(wl->announce.v);
    if (wl->rx)
        g_hash_table_destroy(wl->rx);
    g_clear_error(&wl->error);
    g_free(wl->task_rng);
    g_free(wl->node_rng);
    g_free(wl->task_due);
    g_free(wl->task_next);
    g_free(wl->task_msg);
    g_free(wl->task_blocked_at);
    g_free(wl->task_blocked_next);
    g_free(wl->task_wake);
    g_free(wl->node_blocked_head);
    g_free(wl->node_blocked_tail);
    g_free(wl->msg);
}

/* Count a task's due cycle `at` in the figures of its application a (+1)
   or take it out (-1): a task is due, or due when generation has stopped
   (late). */
static void count_due(const insee_workload *wl, insee_app *a, uint64_t at, int sign)
{
    if (at == INSEE_NEVER)
        return;
    a->due += (uint32_t)sign;
    if (at >= wl->window_end)
        a->late += (uint32_t)sign;
}

/* Set the due cycle of `task`, of application a. */
static void set_due(insee_workload *wl, insee_app *a, uint32_t task, uint64_t at)
{
    count_due(wl, a, wl->task_due[task], -1);
    count_due(wl, a, at, +1);
    wl->task_due[task] = at;
}

/* set_due(), and in the calendar if generation still runs then. */
static void schedule_task(insee_workload *wl, insee_app *a, uint32_t task, uint64_t at)
{
    set_due(wl, a, task, at);
    if (at != INSEE_NEVER && at < wl->window_end)
        insee_calendar_push(&wl->due, at, task);
}

/* A job's tasks start when the scheduler starts it (insee_workload_start_app). */
void insee_workload_start(insee_workload *wl)
{
    wl->now = 0;
    for (uint32_t t = 0; t < wl->tasks; t++) {
        insee_app *a = &wl->apps[wl->task_app[t]];
        if (a->job != INSEE_NONE)
            continue;
        /* Every task starts, so that the plugin is in the same state in
           every part; a partitioned run's part runs its own nodes' only.
           A plugin whose tasks' states are their own starts only those. */
        gboolean here = !wl->node_part || wl->node_part[wl->task_node[t]] == wl->part;
        if (!here && a->per_task)
            continue;
        uint64_t at = a->traffic->start(a->self, t - a->first_task, &wl->task_rng[t]);
        if (here) {
            schedule_task(wl, a, t, at);
            if (a->causal && wl->task_app[t] < 64)
                wl->apps_here |= UINT64_C(1) << wl->task_app[t];
        }
    }
}

/* A traffic's first due cycle counts from the job's start, as every
   later one counts from the cycle it is asked at. */
void insee_workload_start_app(insee_workload *wl, uint32_t app)
{
    insee_app *a = &wl->apps[app];
    if (a->runtime)
        a->stop = wl->now + a->runtime;
    for (uint32_t t = a->first_task; t < a->first_task + a->tasks; t++) {
        uint64_t at = a->traffic->start(a->self, t - a->first_task, &wl->task_rng[t]);
        schedule_task(wl, a, t, at == INSEE_NEVER ? at : wl->now + at);
    }
}

void insee_workload_sched(insee_workload *wl)
{
    GError *e = NULL;
    if (wl->sched && !insee_sched_step(wl->sched, (double)wl->now, &e)) {
        insee_workload_fail(wl, "%s", e->message);
        g_error_free(e);
    }
}

static gboolean job_running(const insee_workload *wl, const insee_app *a)
{
    return insee_sched_job(wl->sched, a->job)->state == INSEE_JOB_RUNNING;
}

uint64_t insee_workload_sched_next(insee_workload *wl)
{
    if (!wl->sched)
        return INSEE_NEVER;
    double at = insee_sched_next(wl->sched);
    uint64_t next = isinf(at) ? INSEE_NEVER : (uint64_t)ceil(at);
    for (uint32_t i = 0; i < wl->n_apps; i++) {
        const insee_app *a = &wl->apps[i];
        /* done once the cycle before `stop` is simulated (apps_done) */
        if (a->job != INSEE_NONE && a->stop != INSEE_NEVER && job_running(wl, a))
            next = MIN(next, a->stop - 1);
    }
    return next;
}

void insee_workload_wake(insee_workload *wl, uint32_t app, uint32_t local_task, uint64_t at)
{
    if (wl->flow_wake) {
        wl->flow_wake(wl->flow_ctx, app, local_task, at);
        return;
    }
    insee_app *a = &wl->apps[app];
    if (local_task >= a->tasks) {
        insee_workload_fail(wl, "traffic plugin '%s' (application '%s') woke task %u (its "
                          "application has %u tasks)", a->plugin, a->rep->name, local_task,
                          a->tasks);
        return;
    }
    uint32_t task = a->first_task + local_task;
    if (wl->node_part && wl->node_part[wl->task_node[task]] != wl->part) {
        insee_workload_fail(wl, "traffic plugin '%s' (application '%s') woke task %u, which runs "
                            "in another part of this split run: its tasks' states are not their "
                            "own; run it in one process ([simulation] threads = 1, no mpirun)",
                            a->plugin, a->rep->name, local_task);
        return;
    }
    if (at < wl->now + 1)
        at = wl->now + 1;
    if (wl->task_msg[task] != INSEE_NONE) {
        /* Still queuing a message: honour the wake once it is queued. */
        if (at < wl->task_wake[task])
            wl->task_wake[task] = at;
        return;
    }
    if (at < wl->task_due[task])
        schedule_task(wl, a, task, at);
}

/* The earliest valid calendar entry; entries superseded by an earlier wake
   are dropped here, so they neither run a task twice nor hold a finished
   workload open. */
static insee_due next_task_due(insee_workload *wl)
{
    insee_due d;
    while ((d = insee_calendar_first(&wl->due)).at != UINT64_MAX && wl->task_due[d.task] != d.at)
        insee_calendar_pop(&wl->due);
    return d;
}

uint64_t insee_workload_next_local(const insee_workload *wl)
{
    return MIN(insee_heap_top(&wl->local),
               MIN(insee_heap_top(&wl->sending), insee_heap_top(&wl->receiving)));
}

uint64_t insee_workload_next_due(insee_workload *wl)
{
    return MIN(next_task_due(wl).at, insee_workload_next_local(wl));
}

static insee_app *message_app(const insee_workload *wl, uint32_t m)
{
    return &wl->apps[wl->task_app[wl->msg[m].src_task]];
}

/* A new message record of `task`'s application: it counts as in flight for
   its application until message_free(). */
static uint32_t message_new(insee_workload *wl, uint32_t task)
{
    if (wl->msg_free == INSEE_NONE) {
        uint32_t old = wl->msg_cap;
        wl->msg_cap = old ? old * 2 : 256;
        wl->msg = g_renew(insee_message_rec, wl->msg, wl->msg_cap);
        for (uint32_t m = wl->msg_cap; m-- > old;) {
            wl->msg[m].next_free = wl->msg_free;
            wl->msg_free = m;
        }
    }
    uint32_t m = wl->msg_free;
    wl->msg_free = wl->msg[m].next_free;
    wl->apps[wl->task_app[task]].in_flight++;
    return m;
}

/* Back to the free list, not counted in flight (any more). */
static void message_release(insee_workload *wl, uint32_t m)
{
    wl->msg[m].next_free = wl->msg_free;
    wl->msg_free = m;
}

static void message_free(insee_workload *wl, uint32_t m)
{
    message_app(wl, m)->in_flight--;
    message_release(wl, m);
}

gboolean insee_workload_tells_deliveries(const insee_app *a)
{
    return a->causal || a->traffic->delivered;
}

/* A partitioned run: message m, this part's own, is handed to its task in
   its destination's part, which keeps a record of its own for it. */
static gboolean delivered_elsewhere(const insee_workload *wl, uint32_t m)
{
    const insee_app *a = message_app(wl, m);
    return wl->node_part && insee_workload_tells_deliveries(a) &&
           wl->node_part[wl->task_node[a->first_task + wl->msg[m].msg.dst]] != wl->part;
}

/* Of the injection queues `set` (n of them) of node, the one with most room;
   the first on a tie. */
static uint32_t roomiest(const insee_net *net, uint32_t node, const uint32_t *set, uint32_t n)
{
    uint32_t best = set[0];
    for (uint32_t i = 1; i < n; i++)
        if (insee_net_room(net, insee_net_inject_queue(net, node, set[i])) >
            insee_net_room(net, insee_net_inject_queue(net, node, best)))
            best = set[i];
    return best;
}

/* INSEE's injection policies (§2.3). An injection queue serves the
   directions whose output port is its index modulo the number of queues: with
   one queue per direction of a torus (2 per dimension), queue p feeds port p. */
static uint32_t policy_injector(insee_workload *wl, uint32_t node, uint32_t p)
{
    const insee_net *net = wl->env.net;
    uint32_t all[64], n = net->injectors;
    for (uint32_t j = 0; j < n; j++)
        all[j] = j;
    if (wl->env.injection == INSEE_INJECT_SHORTEST)
        return roomiest(net, node, all, n);
    const insee_packet *pk = &net->pkt[p];
    insee_hop hops[INSEE_MAX_CANDIDATES];
    uint32_t h = wl->env.topo->minimal_hops(wl->env.topo_self, net->node_router[node], pk->dst,
                                             pk->salt, hops, INSEE_MAX_CANDIDATES);
    h = insee_hops_one_per_dimension(hops, h);
    if (h == 0)
        return roomiest(net, node, all, n); /* to its own router */
    uint32_t dor = hops[0].port % n;
    switch (wl->env.injection) {
    case INSEE_INJECT_DOR:
        return dor;
    case INSEE_INJECT_DOR_SHORTEST:
        return insee_net_room(net, insee_net_inject_queue(net, node, dor)) > 0
                   ? dor
                   : roomiest(net, node, all, n);
    case INSEE_INJECT_SHORTEST_PROFITABLE: {
        uint32_t profitable[INSEE_MAX_CANDIDATES];
        for (uint32_t i = 0; i < h; i++)
            profitable[i] = hops[i].port % n;
        return roomiest(net, node, profitable, h);
    }
    default: { /* longest path: the direction with most hops to go */
        uint32_t longest = 0;
        for (uint32_t i = 1; i < h; i++)
            if (hops[i].dim_hops > hops[longest].dim_hops)
                longest = i;
        return hops[longest].port % n;
    }
    }
}

uint32_t insee_workload_injector(insee_workload *wl, uint32_t node, uint32_t p)
{
    const insee_net *net = wl->env.net;
    if (!wl->port.select_injector) /* one queue: what every policy picks */
        return net->injectors == 1 ? 0 : policy_injector(wl, node, p);
    uint32_t j = wl->port.select_injector(wl->port.ctx, node, p);
    if (j < net->injectors)
        return j;
    insee_workload_fail(wl, "router plugin chose injection queue %u of %u", j, net->injectors);
    return 0;
}

/* Packet pk, of an application reporting to ar, is generated. */
static void count_generated(insee_workload *wl, insee_app_report *ar, const insee_packet *pk)
{
    wl->env.report->total_generated++;
    wl->env.report->sum_generated_ids += pk->id;
    insee_stats_on_generated(wl->env.stats, pk, wl->now);
    if (in_window(wl)) {
        wl->env.report->generated++;
        wl->env.report->generated_phits += pk->phits;
        ar->generated++;
    }
}

/* The length of message msg's last packet: its header and the bytes the
   full packets before it left, in whole phits (packet_phits unless lengths
   are variable and the message is given in bytes). */
static uint32_t last_packet_phits(const insee_workload *wl, const insee_message *msg)
{
    uint64_t L = wl->env.packet_phits, phit = wl->env.phit_bytes;
    uint64_t payload = wl->env.payload_bytes, full = (uint64_t)(msg->packets - 1) * payload;
    if (!wl->env.variable_packets || msg->bytes <= full || msg->bytes - full >= payload)
        return (uint32_t)L;
    uint64_t bytes = L * phit - payload + (msg->bytes - full);
    return (uint32_t)((bytes + phit - 1) / phit);
}

/* The length of the next packet message m queues. */
static uint16_t next_packet_phits(const insee_workload *wl, uint32_t m)
{
    return (uint16_t)(wl->msg[m].to_queue == 1 ? wl->msg[m].last_phits : wl->env.packet_phits);
}

/* A new packet of message m from node to node dst; returns it, not yet
   queued and without an id (ids number queued packets only). */
static uint32_t packet_new(insee_workload *wl, uint32_t m, uint32_t node, uint32_t dst)
{
    insee_net *net = wl->env.net;
    uint32_t p = insee_net_packet_new(net);
    insee_packet *pk = &net->pkt[p];
    pk->phits = next_packet_phits(wl, m);
    pk->src = node;
    pk->dst = dst;
    pk->salt = (uint32_t)insee_rng_u64(&wl->node_rng[node]);
    pk->msg = m;
    pk->born = wl->now;
    pk->ready = wl->now + wl->env.source_cycles;
    return p;
}

static gboolean message_ended(insee_workload *wl, uint32_t m, gboolean dropped);

/* A message's last packet has a length; a proxy's record has none. */
static gboolean is_proxy(const insee_message_rec *rec)
{
    return rec->last_phits == 0;
}

/* One packet of message m will never be delivered: count it dropped, and
   forget the message once nothing of it is left in flight. A message that
   lost packets is never reported as delivered. */
void insee_workload_packet_dropped(insee_workload *wl, uint32_t m, uint64_t id)
{
    insee_report *rep = wl->env.report;
    const insee_app *a = message_app(wl, m);
    if (wl->node_part && a->causal)
        insee_workload_fail(wl, "a packet of application '%s' (%s) was dropped (at a failed "
                            "cable, [faults], or by its router): its message never arrives, so "
                            "the application cannot finish (one process runs on until it is "
                            "stuck); route around failed cables (updown, ecmp, bfs) or fail "
                            "fewer",
                            a->rep->name, a->plugin);
    else if (wl->node_part && insee_workload_tells_deliveries(a))
        insee_workload_fail(wl, "a packet of application '%s' (%s) was dropped: a split run "
                            "hands its messages over in their receivers' parts, which do not "
                            "learn of drops yet; run it in one process ([simulation] threads = "
                            "1, no mpirun)", a->rep->name, a->plugin);
    rep->total_dropped++;
    rep->sum_delivered_ids += id;
    if (in_window(wl))
        rep->dropped++;
    wl->msg[m].lost++;
    if (--wl->msg[m].to_deliver == 0)
        message_ended(wl, m, TRUE);
}

/* on_full = "drop": the packets of m, of application a, that do not fit
   are dropped at once; `pk` is the first of them, not in the pool. */
static void drop_rest(insee_workload *wl, uint32_t m, const insee_app *a, insee_packet *pk)
{
    for (; wl->msg[m].to_queue > 0; wl->msg[m].to_queue--) {
        pk->id = ++wl->serial;
        pk->phits = next_packet_phits(wl, m);
        count_generated(wl, a->rep, pk);
        insee_stats_on_dropped(wl->env.stats, INSEE_DROP_SOURCE_FULL, pk, INSEE_NONE, wl->now);
        insee_workload_packet_dropped(wl, m, pk->id);
    }
}

static void block(insee_workload *wl, uint32_t task, uint32_t node)
{
    if (wl->task_blocked_at[task] != INSEE_NEVER)
        return;
    wl->task_blocked_at[task] = wl->now;
    wl->task_blocked_next[task] = INSEE_NONE;
    if (wl->node_blocked_tail[node] == INSEE_NONE)
        wl->node_blocked_head[node] = task;
    else
        wl->task_blocked_next[wl->node_blocked_tail[node]] = task;
    wl->node_blocked_tail[node] = task;
}

/* Packet p crosses its node's slow link to the router after the packets
   before it: its head is there when it starts, its tail (L - 1) k cycles
   later (NSIM §3.1, a network interface slower than the switch). */
static void cross_node_link(insee_workload *wl, uint32_t nic, uint32_t p)
{
    insee_net *net = wl->env.net;
    uint64_t k = wl->env.node_phit_cycles, L = net->pkt[p].phits;
    uint64_t start = MAX(wl->now, wl->nic_free[nic]);
    wl->nic_free[nic] = start + L * k;
    net->tail[p] = start + (L - 1) * k;
    net->pkt[p].ready = MAX(net->pkt[p].ready, start + wl->env.source_cycles);
}

/* Queue what fits of the task's pending message. Returns FALSE when the
   task stays blocked. */
static gboolean queue_message(insee_workload *wl, uint32_t task)
{
    insee_net *net = wl->env.net;
    insee_app *a = &wl->apps[wl->task_app[task]]; /* the message's, as its sender's */
    uint32_t m = wl->task_msg[task];
    uint32_t node = wl->task_node[task], dst = wl->task_node[a->first_task + wl->msg[m].msg.dst];
    while (wl->msg[m].to_queue > 0) {
        uint32_t p = packet_new(wl, m, node, dst);
        uint32_t j = wl->nic_next ? wl->msg[m].nic : insee_workload_injector(wl, node, p);
        uint32_t q = insee_net_inject_queue(net, node, j);
        if (insee_net_room(net, q) < insee_net_units(net, p)) {
            insee_packet first = net->pkt[p];
            insee_net_packet_free(net, p);
            if (!a->drop_on_full) {
                block(wl, task, node);
                return FALSE;
            }
            drop_rest(wl, m, a, &first);
            break;
        }
        net->pkt[p].id = ++wl->serial;
        count_generated(wl, a->rep, &net->pkt[p]);
        wl->msg[m].to_queue--;
        if (wl->nic_free) /* each interface its own link; a node's injectors share its one */
            cross_node_link(wl, wl->env.nics > 1 ? q - net->transit_queues : node, p);
        insee_net_enqueue(net, q, p);
        insee_vec_push(&wl->queued, q);
    }
    wl->task_msg[task] = INSEE_NONE;
    uint64_t next = wl->task_next[task];
    if (wl->task_blocked_at[task] != INSEE_NEVER) {
        if (wl->record)
            wl->record(wl->record_ctx, task, NULL, wl->now);
        wl->env.report->source_stalls += wl->now - wl->task_blocked_at[task];
        if (next != INSEE_NEVER)
            next += wl->now - wl->task_blocked_at[task];
        wl->task_blocked_at[task] = INSEE_NEVER;
    }
    if (wl->task_wake[task] < next)
        next = wl->task_wake[task] > wl->now ? wl->task_wake[task] : wl->now + 1;
    wl->task_wake[task] = INSEE_NEVER;
    schedule_task(wl, a, task, next);
    return TRUE;
}

/* The cycles a two-copy transfer spends copying message msg at one end:
   its bytes at the memory's rate (0 with zero-copy), by the message's own
   mode or else the run's. */
static uint64_t copy_cycles(const insee_workload *wl, const insee_message *msg)
{
    double per_byte = msg->copy == INSEE_COPY_DEFAULT ? wl->env.copy_cycles_per_byte
                      : msg->copy == INSEE_COPY_TWO   ? wl->env.memory_cycles_per_byte
                                                      : 0;
    if (per_byte <= 0)
        return 0;
    uint64_t bytes = msg->bytes ? msg->bytes : (uint64_t)msg->packets * wl->env.payload_bytes;
    return (uint64_t)ceil((double)bytes * per_byte);
}

gboolean insee_workload_choices_ok(const insee_workload *wl, uint32_t nic, uint32_t copy,
                                   char *why, size_t len)
{
    uint32_t nics = MAX(wl->env.nics, 1u);
    if (nic > nics)
        g_snprintf(why, len, "by network interface %u (nic = %u), but [network] nics = %u: a "
                   "message names interface 1 to %u, or 0 for the node's turn", nic, nic, nics,
                   nics);
    else if (copy > INSEE_COPY_TWO)
        g_snprintf(why, len, "with copy mode %u; a message's copy is 0 (the run's), "
                   "INSEE_COPY_ZERO or INSEE_COPY_TWO", copy);
    else if (copy == INSEE_COPY_TWO && wl->env.memory_cycles_per_byte <= 0)
        g_snprintf(why, len, "as a two-copy transfer (copy = two), which copies at the memory's "
                   "rate: set [network] memory_bandwidth");
    else
        return TRUE;
    return FALSE;
}

/* The message's interface and copy mode as its plugin's minor lets the
   kernel read them, written back so that whoever reads the message later
   (the recording, delivered()) sees those; FALSE, with the run failed,
   for an interface the node lacks or a mode it cannot run. */
static gboolean read_choices(insee_workload *wl, const insee_app *a, uint32_t task,
                             insee_message *msg)
{
    uint32_t nic = insee_message_nic(msg, a->abi_minor);
    uint32_t copy = insee_message_copy(msg, a->abi_minor);
    msg->nic = (uint16_t)nic;
    msg->copy = (uint8_t)copy;
    char why[256];
    if (insee_workload_choices_ok(wl, nic, copy, why, sizeof why))
        return TRUE;
    insee_workload_fail(wl, "traffic plugin '%s' (application '%s') sent task %u's message %s",
                        a->plugin, a->rep->name, task - a->first_task, why);
    return FALSE;
}

/* A message between two tasks of one node: handed over after its phits
   would have crossed the consumption port, without touching the network.
   The heap orders by cycle, then message. */
static void send_local(insee_workload *wl, uint32_t m)
{
    wl->msg[m].to_queue = 0;
    insee_heap_push(&wl->local,
                    wl->now + wl->env.send_cycles + wl->env.recv_cycles +
                        2 * copy_cycles(wl, &wl->msg[m].msg) +
                        (uint64_t)(wl->msg[m].msg.packets - 1) * wl->env.packet_phits +
                        wl->msg[m].last_phits,
                    m);
}

/* The message is whole at its destination: tell its application. */
static void message_delivered(insee_workload *wl, uint32_t m)
{
    insee_app *a = message_app(wl, m);
    a->rep->messages++;
    if (a->traffic->delivered)
        a->traffic->delivered(a->self, wl->msg[m].src_task - a->first_task, &wl->msg[m].msg,
                              wl->now);
    message_free(wl, m);
}

/* A message's last packet has arrived: handed over now, or after the
   receiver's overhead (TRUE). */
static gboolean message_arrived(insee_workload *wl, uint32_t m)
{
    uint64_t recv = wl->env.recv_cycles + copy_cycles(wl, &wl->msg[m].msg);
    if (recv)
        insee_heap_push(&wl->receiving, wl->now + recv, m);
    else
        message_delivered(wl, m);
    return recv != 0;
}

/* Nothing of message m is left in flight, its last packet `dropped` or
   delivered. A proxy tells its part instead (insee_workload_notice()).
   Whether the message waits to be handed over here. A message that lost
   any packet is not handed over, whichever of its packets ended last:
   two may end in one cycle, in an order a split run's parts do not
   share. */
static gboolean message_ended(insee_workload *wl, uint32_t m, gboolean dropped)
{
    if (is_proxy(&wl->msg[m])) {
        insee_notice n = {wl->msg[m].proxy.part, wl->msg[m].proxy.msg, dropped,
                          !insee_workload_tells_deliveries(message_app(wl, m)), wl->now};
        if (!wl->notices)
            wl->notices = g_array_new(FALSE, FALSE, sizeof(insee_notice));
        g_array_append_val(wl->notices, n);
        message_free(wl, m);
    } else if (delivered_elsewhere(wl, m)) {
        message_release(wl, m); /* counted there since it was announced */
    } else if (wl->msg[m].lost > 0) {
        message_free(wl, m);
    } else {
        return message_arrived(wl, m);
    }
    return FALSE;
}

void insee_workload_local(insee_workload *wl)
{
    while (insee_heap_top(&wl->local) <= wl->now) {
        uint32_t m = insee_heap_pop(&wl->local).task;
        message_app(wl, m)->rep->local_messages++;
        message_delivered(wl, m);
    }
    while (insee_heap_top(&wl->sending) <= wl->now)
        queue_message(wl, insee_heap_pop(&wl->sending).task);
    while (insee_heap_top(&wl->receiving) <= wl->now)
        message_delivered(wl, insee_heap_pop(&wl->receiving).task);
}

/* The due task `task` is asked for a message. */
static void task_due(insee_workload *wl, uint32_t task)
{
    insee_app *a = &wl->apps[wl->task_app[task]];
    uint32_t local_task = task - a->first_task;
    insee_message msg = {0}; /* a plugin of an older minor leaves what it does not know 0 */
    uint64_t next = INSEE_NEVER;
    set_due(wl, a, task, INSEE_NEVER);
    if (wl->now >= a->stop)
        return; /* a job past its runtime: it only drains */
    gboolean sends = a->traffic->emit(a->self, local_task, wl->now, &wl->task_rng[task], &msg,
                                      &next);
    if (next <= wl->now) {
        insee_workload_fail(wl, "traffic plugin '%s' (application '%s') set task %u due again "
                          "at cycle %" G_GUINT64_FORMAT ", not after the current one", a->plugin,
                          a->rep->name, local_task, next);
        return;
    }
    if (!sends || wl->skip_draws) { /* INSEE's congestion control drops the draw */
        schedule_task(wl, a, task, next);
        return;
    }
    if (msg.dst >= a->tasks || msg.packets == 0) {
        insee_workload_fail(wl, "traffic plugin '%s' (application '%s') sent a message of %u "
                          "packets from task %u to task %u (its application has %u tasks)",
                          a->plugin, a->rep->name, msg.packets, local_task, msg.dst, a->tasks);
        return;
    }
    if (!read_choices(wl, a, task, &msg))
        return;
    if (a->io)
        msg.traffic_class = INSEE_TRAFFIC_IO;
    if (wl->record)
        wl->record(wl->record_ctx, task, &msg, wl->now);
    uint32_t m = message_new(wl, task);
    wl->msg[m] = (insee_message_rec){
        .src_task = task, .to_queue = msg.packets, .to_deliver = msg.packets, .msg = msg,
        .last_phits = (uint16_t)last_packet_phits(wl, &msg),
    };
    if (wl->nic_next && msg.nic) { /* its own choice: the turn stays where it was */
        wl->msg[m].nic = (uint16_t)(msg.nic - 1);
    } else if (wl->nic_next) {
        uint32_t node = wl->task_node[task];
        wl->msg[m].nic = (uint16_t)wl->nic_next[node];
        wl->nic_next[node] = (wl->nic_next[node] + 1) % wl->env.nics;
    }
    /* The sender is busy with the message's overhead (and copy) first. */
    uint64_t send = wl->env.send_cycles + copy_cycles(wl, &msg);
    if (next != INSEE_NEVER)
        next += send;
    if (wl->task_node[task] == wl->task_node[a->first_task + msg.dst]) {
        send_local(wl, m);
        schedule_task(wl, a, task, next);
        return;
    }
    if (delivered_elsewhere(wl, m))
        insee_vec_push(&wl->announce, m);
    wl->task_msg[task] = m;
    wl->task_next[task] = next;
    if (send)
        insee_heap_push(&wl->sending, wl->now + send, task);
    else
        queue_message(wl, task);
}

void insee_workload_generate(insee_workload *wl)
{
    for (insee_due d; (d = next_task_due(wl)).at <= wl->now;) {
        insee_calendar_pop(&wl->due);
        task_due(wl, d.task);
    }
}

void insee_workload_room(insee_workload *wl, uint32_t node)
{
    if (wl->now >= wl->window_end)
        return; /* generation has stopped: pending messages are abandoned */
    while (wl->node_blocked_head[node] != INSEE_NONE) {
        uint32_t task = wl->node_blocked_head[node];
        if (!queue_message(wl, task))
            return;
        wl->node_blocked_head[node] = wl->task_blocked_next[task];
        if (wl->node_blocked_head[node] == INSEE_NONE)
            wl->node_blocked_tail[node] = INSEE_NONE;
    }
}

/* Causal application i's plugin has finished (in a partitioned run: in
   every part, as of the last exchange). */
static gboolean app_finished(const insee_workload *wl, uint32_t i)
{
    const insee_app *a = &wl->apps[i];
    return wl->node_part ? (wl->whole.finished >> i & 1) : a->traffic->finished(a->self);
}

/* Nothing of application i is in flight (in a partitioned run: anywhere). */
static gboolean app_idle(const insee_workload *wl, uint32_t i)
{
    return wl->node_part ? (wl->whole.idle >> i & 1) : wl->apps[i].in_flight == 0;
}

/* None of application i's tasks is due before generation stops. */
static gboolean app_quiet(const insee_workload *wl, uint32_t i)
{
    const insee_app *a = &wl->apps[i];
    return wl->node_part ? (wl->whole.quiet >> i & 1) : a->due == a->late;
}

insee_app_states insee_workload_app_states(const insee_workload *wl)
{
    insee_app_states st = {0};
    for (uint32_t i = 0; i < wl->n_apps && i < 64; i++) {
        const insee_app *a = &wl->apps[i];
        uint64_t bit = UINT64_C(1) << i;
        if (!a->causal)
            continue;
        if (!(wl->apps_here & bit) || a->traffic->finished(a->self))
            st.finished |= bit;
        if (a->in_flight == 0)
            st.idle |= bit;
        if (a->due == a->late)
            st.quiet |= bit;
    }
    return st;
}

void insee_workload_set_states(insee_workload *wl, insee_app_states here,
                               insee_app_states whole)
{
    wl->here = here;
    wl->whole = whole;
}

/* Whether this part reports causal application i unfinished. In a
   partitioned run, the parts whose tasks of it wait do, each in its
   plugin's words; when its plugin has finished everywhere (what is left is
   in flight), every part with tasks of it does. Every other part ends
   without an error of its own, so that the run's error is one of theirs. */
static gboolean reports_here(const insee_workload *wl, uint32_t i)
{
    uint64_t bit = UINT64_C(1) << i;
    return !wl->node_part ||
           ((wl->apps_here & bit) && (!(wl->here.finished & bit) || (wl->whole.finished & bit)));
}

insee_app *insee_workload_stuck_app(insee_workload *wl)
{
    for (uint32_t i = 0; i < wl->n_apps; i++) {
        insee_app *a = &wl->apps[i];
        if (a->job != INSEE_NONE && !job_running(wl, a))
            continue; /* waiting for its nodes, or done */
        if (a->causal && !a->done && app_idle(wl, i) && app_quiet(wl, i) &&
            !app_finished(wl, i) && reports_here(wl, i))
            return a;
    }
    return NULL;
}

insee_app *insee_workload_unfinished(insee_workload *wl)
{
    for (uint32_t i = 0; i < wl->n_apps; i++)
        if (wl->apps[i].causal && !wl->apps[i].done && reports_here(wl, i))
            return &wl->apps[i];
    return NULL;
}

gboolean insee_workload_apps_done(insee_workload *wl)
{
    gboolean all = TRUE;
    for (uint32_t i = 0; i < wl->n_apps; i++) {
        insee_app *a = &wl->apps[i];
        gboolean job = a->job != INSEE_NONE;
        if ((!a->causal && !job) || a->done)
            continue;
        if (job && !job_running(wl, a)) {
            all = FALSE;
            continue;
        }
        /* A job of open-ended traffic is done once its runtime is over and
           what it sent has arrived. */
        gboolean over = a->causal ? app_finished(wl, i) : wl->now + 1 >= a->stop;
        if (app_idle(wl, i) && over) {
            a->done = TRUE;
            a->rep->completed = TRUE;
            a->rep->completion = wl->now + 1; /* the cycle just simulated counts */
            if (job)
                insee_sched_done(wl->sched, a->job, (double)(wl->now + 1));
        } else {
            all = FALSE;
        }
    }
    return all;
}

static gint64 rx_key(uint32_t part, uint32_t msg)
{
    return (gint64)((uint64_t)part << 32 | msg);
}

/* A packet of proxy m's message, announced to this part, was consumed: the
   message is whole here once its last packet is. */
static void receive_packet(insee_workload *wl, uint32_t m)
{
    gint64 key = rx_key(wl->msg[m].proxy.part, wl->msg[m].proxy.msg);
    gpointer r = wl->rx ? g_hash_table_lookup(wl->rx, &key) : NULL;
    if (!r) {
        insee_workload_fail(wl, "part %u's message %u reached part %u unannounced: are all "
                            "parts the same insee build?", wl->msg[m].proxy.part,
                            wl->msg[m].proxy.msg, wl->part);
        return;
    }
    uint32_t rec = GPOINTER_TO_UINT(r) - 1;
    if (--wl->msg[rec].to_deliver == 0) {
        g_hash_table_remove(wl->rx, &key);
        message_ended(wl, rec, FALSE);
    }
}

void insee_workload_receive(insee_workload *wl, uint32_t part, uint32_t msg, uint32_t src_task,
                            uint16_t last_phits, const insee_message *m)
{
    uint32_t rec = message_new(wl, src_task);
    wl->msg[rec] = (insee_message_rec){.src_task = src_task, .to_deliver = m->packets,
                                       .last_phits = last_phits, .msg = *m};
    if (!wl->rx)
        wl->rx = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    gint64 *key = g_new(gint64, 1);
    *key = rx_key(part, msg);
    g_hash_table_insert(wl->rx, key, GUINT_TO_POINTER(rec + 1));
}

void insee_workload_announced(insee_workload *wl)
{
    for (uint32_t i = 0; i < wl->announce.len; i++)
        message_app(wl, wl->announce.v[i])->in_flight--;
    wl->announce.len = 0;
}

void insee_workload_delivered(insee_workload *wl, uint32_t p)
{
    insee_net *net = wl->env.net;
    insee_packet *pk = &net->pkt[p];
    insee_report *rep = wl->env.report;
    rep->total_delivered++;
    rep->sum_delivered_ids += pk->id;
    uint32_t m = pk->msg;
    insee_stats_on_delivered(wl->env.stats, pk, wl->now);
    if (in_window(wl)) {
        rep->delivered++;
        rep->delivered_phits += pk->phits;
        rep->hops += pk->hops;
        insee_stat_add(&rep->latency_gen, wl->now - pk->born);
        insee_stat_add(&rep->latency_inj, wl->now - pk->injected);
        insee_app_report *ar = message_app(wl, m)->rep;
        ar->delivered++;
        ar->delivered_phits += pk->phits;
        ar->hops += pk->hops;
        insee_stat_add(&ar->latency_gen, wl->now - pk->born);
    }
    insee_net_packet_free(net, p);
    if (is_proxy(&wl->msg[m]) && insee_workload_tells_deliveries(message_app(wl, m)))
        receive_packet(wl, m);
    if (--wl->msg[m].to_deliver == 0)
        message_ended(wl, m, FALSE);
}

uint32_t insee_workload_adopt(insee_workload *wl, uint32_t src_task, uint32_t part, uint32_t msg)
{
    if (part == wl->part)
        return msg;
    uint32_t m = message_new(wl, src_task);
    wl->msg[m] = (insee_message_rec){.src_task = src_task, .to_deliver = 1,
                                     .proxy = {.part = part, .msg = msg}};
    return m;
}

void insee_workload_hand_off(insee_workload *wl, uint32_t m, uint32_t *part, uint32_t *msg)
{
    if (!is_proxy(&wl->msg[m])) {
        *part = wl->part;
        *msg = m;
        return;
    }
    *part = wl->msg[m].proxy.part;
    *msg = wl->msg[m].proxy.msg;
    message_free(wl, m);
}

gboolean insee_workload_notice(insee_workload *wl, uint32_t m, gboolean dropped)
{
    wl->msg[m].lost += dropped;
    return --wl->msg[m].to_deliver == 0 && message_ended(wl, m, dropped);
}

void insee_workload_packet_copied(insee_workload *wl, uint32_t m)
{
    wl->msg[m].to_deliver++;
}

/* Each job's allocation, for the Gantt chart of the HTML report: the
   scheduler keeps a job's nodes until it is destroyed. */
static void report_job_nodes(const insee_sched *s, insee_report *rep)
{
    for (uint32_t j = 0; j < insee_sched_jobs(s); j++) {
        const insee_job_rec *job = insee_sched_job(s, j);
        insee_app_report *ar = &rep->apps[job->app];
        g_free(ar->job_node);
        ar->job_nodes = job->node ? job->nodes : 0;
        ar->job_node = g_memdup2(job->node, sizeof(uint32_t) * ar->job_nodes);
    }
}

void insee_workload_report(insee_workload *wl)
{
    insee_report *rep = wl->env.report;
    if (wl->sched) {
        insee_sched_report(wl->sched, rep, "cycles", wl->bsld_min);
        report_job_nodes(wl->sched, rep);
    }
    for (uint32_t i = 0; i < wl->n_apps; i++) {
        insee_app_report *ar = wl->apps[i].rep;
        uint64_t measured = ar->completed ? ar->completion : rep->measure_cycles;
        if (ar->job) /* a job is measured while it runs */
            measured = ar->completed ? (uint64_t)(ar->job_end - ar->job_start) : 0;
        if (ar->tasks && measured)
            ar->accepted_load = (double)ar->delivered_phits / ((double)ar->tasks * measured);
    }
}
