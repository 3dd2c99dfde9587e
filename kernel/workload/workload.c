/* kernel/workload/workload.c — tasks, messages and packetization: the bridge
 * between the traffic plugin (which speaks in tasks and messages) and the
 * network (nodes, injection queues, packets).
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
#include <string.h>

#include <math.h>

#include "engine/engine.h"
#include "workload/sched.h"

void insee_workload_init(insee_engine *eng, const uint32_t *task_node)
{
    uint32_t tasks = eng->tasks;
    eng->task_node = g_memdup2(task_node, sizeof(uint32_t) * tasks);
    eng->task_app = g_new(uint32_t, tasks);
    for (uint32_t a = 0; a < eng->n_apps; a++)
        for (uint32_t t = 0; t < eng->apps[a].tasks; t++)
            eng->task_app[eng->apps[a].first_task + t] = a;
    eng->task_rng = g_new(insee_rng, tasks);
    for (uint32_t t = 0; t < tasks; t++)
        insee_rng_init(&eng->task_rng[t], eng->seed, (4ull << 40) + t);
    eng->task_due = g_new(uint64_t, tasks);
    eng->task_next = g_new(uint64_t, tasks);
    eng->task_msg = g_new(uint32_t, tasks);
    eng->task_blocked_at = g_new(uint64_t, tasks);
    eng->task_blocked_next = g_new(uint32_t, tasks);
    eng->task_wake = g_new(uint64_t, tasks);
    for (uint32_t t = 0; t < tasks; t++) {
        eng->task_wake[t] = INSEE_NEVER;
        eng->task_due[t] = INSEE_NEVER;
        eng->task_next[t] = INSEE_NEVER;
        eng->task_msg[t] = INSEE_NONE;
        eng->task_blocked_at[t] = INSEE_NEVER;
        eng->task_blocked_next[t] = INSEE_NONE;
    }
    eng->node_blocked_head = g_new(uint32_t, eng->net.nodes);
    eng->node_blocked_tail = g_new(uint32_t, eng->net.nodes);
    memset(eng->node_blocked_head, 0xff, sizeof(uint32_t) * eng->net.nodes);
    memset(eng->node_blocked_tail, 0xff, sizeof(uint32_t) * eng->net.nodes);
    eng->msg_free = INSEE_NONE;
}

void insee_workload_clear(insee_engine *eng)
{
    g_free(eng->task_node);
    g_free(eng->task_app);
    insee_heap_clear(&eng->local);
    g_free(eng->task_rng);
    g_free(eng->task_due);
    g_free(eng->task_next);
    g_free(eng->task_msg);
    g_free(eng->task_blocked_at);
    g_free(eng->task_blocked_next);
    g_free(eng->task_wake);
    g_free(eng->node_blocked_head);
    g_free(eng->node_blocked_tail);
    g_free(eng->msg);
}

/* Count `task`'s due cycle `at` in its application's figures (+1) or take
   it out (-1): a task is due, or due when generation has stopped (late). */
static void count_due(insee_engine *eng, uint32_t task, uint64_t at, int sign)
{
    if (at == INSEE_NEVER)
        return;
    insee_app *a = &eng->apps[eng->task_app[task]];
    a->due += (uint32_t)sign;
    if (at >= eng->window_end)
        a->late += (uint32_t)sign;
}

/* Set `task`'s due cycle; on the heap if generation still runs then. */
static void set_due(insee_engine *eng, uint32_t task, uint64_t at)
{
    count_due(eng, task, eng->task_due[task], -1);
    count_due(eng, task, at, +1);
    eng->task_due[task] = at;
}

static void schedule_task(insee_engine *eng, uint32_t task, uint64_t at)
{
    set_due(eng, task, at);
    if (at != INSEE_NEVER && at < eng->window_end)
        insee_heap_push(&eng->due, at, task);
}

/* A job's tasks start when the scheduler starts it (insee_workload_start_app). */
void insee_workload_start(insee_engine *eng)
{
    for (uint32_t t = 0; t < eng->tasks; t++) {
        const insee_app *a = &eng->apps[eng->task_app[t]];
        if (a->job == INSEE_NONE)
            schedule_task(eng, t, a->traffic->start(a->self, t - a->first_task, &eng->task_rng[t]));
    }
}

/* A traffic's first due cycle counts from the job's start, as every
   later one counts from the cycle it is asked at. */
void insee_workload_start_app(insee_engine *eng, uint32_t app)
{
    insee_app *a = &eng->apps[app];
    if (a->runtime)
        a->stop = eng->now + a->runtime;
    for (uint32_t t = a->first_task; t < a->first_task + a->tasks; t++) {
        uint64_t at = a->traffic->start(a->self, t - a->first_task, &eng->task_rng[t]);
        schedule_task(eng, t, at == INSEE_NEVER ? at : eng->now + at);
    }
}

void insee_workload_sched(insee_engine *eng)
{
    GError *e = NULL;
    if (!insee_sched_step(eng->sched, (double)eng->now, &e)) {
        insee_engine_fail(eng, "%s", e->message);
        g_error_free(e);
    }
}

static gboolean job_running(const insee_engine *eng, const insee_app *a)
{
    return insee_sched_job(eng->sched, a->job)->state == INSEE_JOB_RUNNING;
}

uint64_t insee_workload_sched_next(insee_engine *eng)
{
    if (!eng->sched)
        return INSEE_NEVER;
    double at = insee_sched_next(eng->sched);
    uint64_t next = isinf(at) ? INSEE_NEVER : (uint64_t)ceil(at);
    for (uint32_t i = 0; i < eng->n_apps; i++) {
        const insee_app *a = &eng->apps[i];
        /* done once the cycle before `stop` is simulated (apps_done) */
        if (a->job != INSEE_NONE && a->stop != INSEE_NEVER && job_running(eng, a))
            next = MIN(next, a->stop - 1);
    }
    return next;
}

void insee_workload_wake(insee_engine *eng, uint32_t app, uint32_t local_task, uint64_t at)
{
    const insee_app *a = &eng->apps[app];
    if (local_task >= a->tasks) {
        insee_engine_fail(eng, "traffic plugin '%s' woke task %u (its application has %u tasks)",
                          a->rep->name, local_task, a->tasks);
        return;
    }
    uint32_t task = a->first_task + local_task;
    if (at < eng->now + 1)
        at = eng->now + 1;
    if (eng->task_msg[task] != INSEE_NONE) {
        /* Still queuing a message: honour the wake once it is queued. */
        if (at < eng->task_wake[task])
            eng->task_wake[task] = at;
        return;
    }
    if (at < eng->task_due[task])
        schedule_task(eng, task, at);
}

/* The earliest valid heap entry; entries superseded by an earlier wake are
   dropped here, so they neither run a task twice nor hold a finished
   workload open. */
static uint64_t next_task_due(insee_engine *eng)
{
    while (eng->due.len && eng->task_due[eng->due.v[0].task] != eng->due.v[0].at)
        insee_heap_pop(&eng->due);
    return insee_heap_top(&eng->due);
}

static uint64_t next_local(const insee_engine *eng)
{
    return insee_heap_top(&eng->local);
}

uint64_t insee_workload_next_due(insee_engine *eng)
{
    return MIN(next_task_due(eng), next_local(eng));
}

static insee_app *message_app(const insee_engine *eng, uint32_t m)
{
    return &eng->apps[eng->task_app[eng->msg[m].src_task]];
}

/* A new message record of `task`'s application: it counts as in flight for
   its application until message_free(). */
static uint32_t message_new(insee_engine *eng, uint32_t task)
{
    if (eng->msg_free == INSEE_NONE) {
        uint32_t old = eng->msg_cap;
        eng->msg_cap = old ? old * 2 : 256;
        eng->msg = g_renew(insee_message_rec, eng->msg, eng->msg_cap);
        for (uint32_t m = eng->msg_cap; m-- > old;) {
            eng->msg[m].next_free = eng->msg_free;
            eng->msg_free = m;
        }
    }
    uint32_t m = eng->msg_free;
    eng->msg_free = eng->msg[m].next_free;
    eng->apps[eng->task_app[task]].in_flight++;
    return m;
}

static void message_free(insee_engine *eng, uint32_t m)
{
    message_app(eng, m)->in_flight--;
    eng->msg[m].next_free = eng->msg_free;
    eng->msg_free = m;
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
static uint32_t policy_injector(insee_engine *eng, uint32_t node, uint32_t p)
{
    const insee_net *net = &eng->net;
    uint32_t all[64], n = net->injectors;
    for (uint32_t j = 0; j < n; j++)
        all[j] = j;
    if (eng->injection == INSEE_INJECT_SHORTEST)
        return roomiest(net, node, all, n);
    const insee_packet *pk = &net->pkt[p];
    insee_hop hops[INSEE_MAX_CANDIDATES];
    uint32_t h = eng->topo->minimal_hops(eng->topo_self, net->node_router[node], pk->dst, pk->salt,
                                         hops, INSEE_MAX_CANDIDATES);
    h = insee_hops_one_per_dimension(hops, h);
    if (h == 0)
        return roomiest(net, node, all, n); /* to its own router */
    uint32_t dor = hops[0].port % n;
    switch (eng->injection) {
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

uint32_t insee_workload_injector(insee_engine *eng, uint32_t node, uint32_t p)
{
    insee_net *net = &eng->net;
    if (!eng->router->select_injector)
        return policy_injector(eng, node, p);
    insee_route_ctx ctx;
    insee_engine_route_ctx(eng, insee_net_inject_queue(net, node, 0), p, &ctx);
    uint32_t j = eng->router->select_injector(eng->router_self, &ctx, net->injectors);
    if (j < net->injectors)
        return j;
    insee_engine_fail(eng, "router plugin chose injection queue %u of %u", j, net->injectors);
    return 0;
}

static void count_generated(insee_engine *eng, uint32_t m, const insee_packet *pk)
{
    eng->report.total_generated++;
    eng->report.sum_generated_ids += pk->id;
    insee_stats_on_generated(&eng->stats, pk, eng->now);
    if (insee_engine_in_window(eng, eng->now)) {
        eng->report.generated++;
        message_app(eng, m)->rep->generated++;
    }
}

/* A new packet of message m at the source; returns it, not yet queued and
   without an id (ids number queued packets only). */
static uint32_t packet_new(insee_engine *eng, uint32_t m, uint32_t node)
{
    insee_net *net = &eng->net;
    uint32_t p = insee_net_packet_new(net);
    insee_packet *pk = &net->pkt[p];
    pk->src = node;
    pk->dst = eng->task_node[message_app(eng, m)->first_task + eng->msg[m].msg.dst];
    pk->salt = (uint32_t)insee_rng_u64(&eng->node_rng[node]);
    pk->msg = m;
    pk->born = eng->now;
    pk->ready = eng->now;
    return p;
}

/* One packet of message m will never be delivered: count it dropped, and
   forget the message once nothing of it is left in flight. A message that
   lost packets is never reported as delivered. */
void insee_workload_packet_dropped(insee_engine *eng, uint32_t m, uint64_t id)
{
    insee_report *rep = &eng->report;
    rep->total_dropped++;
    rep->sum_delivered_ids += id;
    if (insee_engine_in_window(eng, eng->now))
        rep->dropped++;
    eng->msg[m].lost++;
    if (--eng->msg[m].to_deliver == 0)
        message_free(eng, m);
}

/* on_full = "drop": the packets of m that do not fit are dropped at once;
   `pk` is the first of them, not in the pool. */
static void drop_rest(insee_engine *eng, uint32_t m, insee_packet *pk)
{
    for (; eng->msg[m].to_queue > 0; eng->msg[m].to_queue--) {
        pk->id = ++eng->serial;
        count_generated(eng, m, pk);
        insee_stats_on_dropped(&eng->stats, INSEE_DROP_SOURCE_FULL, pk, INSEE_NONE, eng->now);
        insee_workload_packet_dropped(eng, m, pk->id);
    }
}

static void block(insee_engine *eng, uint32_t task, uint32_t node)
{
    if (eng->task_blocked_at[task] != INSEE_NEVER)
        return;
    eng->task_blocked_at[task] = eng->now;
    eng->task_blocked_next[task] = INSEE_NONE;
    if (eng->node_blocked_tail[node] == INSEE_NONE)
        eng->node_blocked_head[node] = task;
    else
        eng->task_blocked_next[eng->node_blocked_tail[node]] = task;
    eng->node_blocked_tail[node] = task;
}

/* Queue what fits of the task's pending message. Returns FALSE when the
   task stays blocked. */
static gboolean queue_message(insee_engine *eng, uint32_t task)
{
    insee_net *net = &eng->net;
    uint32_t m = eng->task_msg[task];
    uint32_t node = eng->task_node[task];
    while (eng->msg[m].to_queue > 0) {
        uint32_t p = packet_new(eng, m, node);
        uint32_t q = insee_net_inject_queue(net, node, insee_workload_injector(eng, node, p));
        if (insee_net_room(net, q) == 0) {
            insee_packet first = net->pkt[p];
            insee_net_packet_free(net, p);
            if (!message_app(eng, m)->drop_on_full) {
                block(eng, task, node);
                return FALSE;
            }
            drop_rest(eng, m, &first);
            break;
        }
        net->pkt[p].id = ++eng->serial;
        count_generated(eng, m, &net->pkt[p]);
        if (eng->in_flight++ == 0)
            eng->last_move = eng->now; /* a deadlock needs packets inside */
        eng->msg[m].to_queue--;
        insee_net_enqueue(net, q, p);
        insee_engine_queue_wake(eng, q);
    }
    eng->task_msg[task] = INSEE_NONE;
    uint64_t next = eng->task_next[task];
    if (eng->task_blocked_at[task] != INSEE_NEVER) {
        if (eng->record)
            eng->record(eng->record_ctx, task, NULL);
        eng->report.source_stalls += eng->now - eng->task_blocked_at[task];
        if (next != INSEE_NEVER)
            next += eng->now - eng->task_blocked_at[task];
        eng->task_blocked_at[task] = INSEE_NEVER;
    }
    if (eng->task_wake[task] < next)
        next = eng->task_wake[task] > eng->now ? eng->task_wake[task] : eng->now + 1;
    eng->task_wake[task] = INSEE_NEVER;
    schedule_task(eng, task, next);
    return TRUE;
}

/* A message between two tasks of one node: handed over after its phits
   would have crossed the consumption port, without touching the network.
   The heap orders by cycle, then message. */
static void send_local(insee_engine *eng, uint32_t m)
{
    eng->msg[m].to_queue = 0;
    insee_heap_push(&eng->local, eng->now + (uint64_t)eng->msg[m].msg.packets * eng->packet_phits,
                    m);
}

/* The message is whole at its destination: tell its application. */
static void message_delivered(insee_engine *eng, uint32_t m)
{
    insee_app *a = message_app(eng, m);
    a->rep->messages++;
    if (a->traffic->delivered && eng->msg[m].lost == 0)
        a->traffic->delivered(a->self, eng->msg[m].src_task - a->first_task, &eng->msg[m].msg,
                              eng->now);
    message_free(eng, m);
}

void insee_workload_local(insee_engine *eng)
{
    while (next_local(eng) <= eng->now) {
        uint32_t m = insee_heap_pop(&eng->local).task;
        message_app(eng, m)->rep->local_messages++;
        message_delivered(eng, m);
    }
}

void insee_workload_due(insee_engine *eng, uint32_t task)
{
    insee_app *a = &eng->apps[eng->task_app[task]];
    uint32_t local_task = task - a->first_task;
    insee_message msg = {0}; /* a plugin of an older minor leaves what it does not know 0 */
    uint64_t next = INSEE_NEVER;
    set_due(eng, task, INSEE_NEVER);
    if (eng->now >= a->stop)
        return; /* a job past its runtime: it only drains */
    gboolean sends = a->traffic->emit(a->self, local_task, eng->now, &eng->task_rng[task], &msg,
                                      &next);
    if (next <= eng->now) {
        insee_engine_fail(eng, "traffic plugin '%s' set task %u due again at cycle %"
                          G_GUINT64_FORMAT ", not after the current one", a->rep->name,
                          local_task, next);
        return;
    }
    if (!sends || eng->gcc_skip) { /* gcc_skip: INSEE's congestion control drops the draw */
        schedule_task(eng, task, next);
        return;
    }
    if (msg.dst >= a->tasks || msg.packets == 0) {
        insee_engine_fail(eng, "traffic plugin '%s' sent a message of %u packets from task %u "
                          "to task %u (its application has %u tasks)", a->rep->name,
                          msg.packets, local_task, msg.dst, a->tasks);
        return;
    }
    if (a->io)
        msg.traffic_class = INSEE_TRAFFIC_IO;
    if (eng->record)
        eng->record(eng->record_ctx, task, &msg);
    uint32_t m = message_new(eng, task);
    eng->msg[m] = (insee_message_rec){
        .src_task = task, .to_queue = msg.packets, .to_deliver = msg.packets, .msg = msg,
    };
    if (eng->task_node[task] == eng->task_node[a->first_task + msg.dst]) {
        send_local(eng, m);
        schedule_task(eng, task, next);
        return;
    }
    eng->task_msg[task] = m;
    eng->task_next[task] = next;
    queue_message(eng, task);
}

void insee_workload_room(insee_engine *eng, uint32_t node)
{
    if (eng->now >= eng->window_end)
        return; /* generation has stopped: pending messages are abandoned */
    while (eng->node_blocked_head[node] != INSEE_NONE) {
        uint32_t task = eng->node_blocked_head[node];
        if (!queue_message(eng, task))
            return;
        eng->node_blocked_head[node] = eng->task_blocked_next[task];
        if (eng->node_blocked_head[node] == INSEE_NONE)
            eng->node_blocked_tail[node] = INSEE_NONE;
    }
}

gboolean insee_workload_idle(insee_engine *eng)
{
    return insee_workload_next_due(eng) == INSEE_NEVER && eng->in_flight == 0;
}

insee_app *insee_workload_stuck_app(insee_engine *eng)
{
    for (uint32_t i = 0; i < eng->n_apps; i++) {
        insee_app *a = &eng->apps[i];
        if (a->job != INSEE_NONE && !job_running(eng, a))
            continue; /* waiting for its nodes, or done */
        if (a->causal && !a->done && a->in_flight == 0 && a->due == a->late &&
            !a->traffic->finished(a->self))
            return a;
    }
    return NULL;
}

gboolean insee_workload_apps_done(insee_engine *eng)
{
    gboolean all = TRUE;
    for (uint32_t i = 0; i < eng->n_apps; i++) {
        insee_app *a = &eng->apps[i];
        gboolean job = a->job != INSEE_NONE;
        if ((!a->causal && !job) || a->done)
            continue;
        if (job && !job_running(eng, a)) {
            all = FALSE;
            continue;
        }
        /* A job of open-ended traffic is done once its runtime is over and
           what it sent has arrived. */
        gboolean over = a->causal ? a->traffic->finished(a->self) : eng->now + 1 >= a->stop;
        if (a->in_flight == 0 && over) {
            a->done = TRUE;
            a->rep->completed = TRUE;
            a->rep->completion = eng->now + 1; /* the cycle just simulated counts */
            if (job)
                insee_sched_done(eng->sched, a->job, (double)(eng->now + 1));
        } else {
            all = FALSE;
        }
    }
    return all;
}

void insee_workload_delivered(insee_engine *eng, uint32_t p)
{
    insee_net *net = &eng->net;
    insee_packet *pk = &net->pkt[p];
    insee_report *rep = &eng->report;
    rep->total_delivered++;
    rep->sum_delivered_ids += pk->id;
    uint32_t m = pk->msg;
    insee_stats_on_delivered(&eng->stats, pk, eng->now);
    if (insee_engine_in_window(eng, eng->now)) {
        rep->delivered++;
        rep->hops += pk->hops;
        insee_stat_add(&rep->latency_gen, eng->now - pk->born);
        insee_stat_add(&rep->latency_inj, eng->now - pk->injected);
        insee_app_report *ar = message_app(eng, m)->rep;
        ar->delivered++;
        ar->hops += pk->hops;
        insee_stat_add(&ar->latency_gen, eng->now - pk->born);
    }
    eng->in_flight--;
    insee_net_packet_free(net, p);
    if (--eng->msg[m].to_deliver == 0)
        message_delivered(eng, m);
}
