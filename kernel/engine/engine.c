/* kernel/engine/engine.c — the time loop (DESIGN §5).
 *
 * Packets, not phits, move: a packet granted an output at cycle t has its
 * head at the next router at t + 1 (routable there at once: cut-through), its
 * tail leaves the queue it came from at t + L - 1, and that slot and the link
 * are free again at t + L. That is the timing INSEE's phit-by-phit engine
 * gives under the same rules (one phit per link per cycle, one packet per
 * link at a time, whole-packet room reserved downstream), at one event per
 * packet-hop instead of L.
 *
 * A cycle: (1) the wheel's events for this cycle (heads becoming routable,
 * slots freeing, tails consumed); (2) due traffic sources generate; (3) every
 * active head asks its router plugin for candidates and requests the first
 * admissible one (state read as it was at the start of the phase); (4) one
 * arbitration per requested output; winners move, losers ask again next
 * cycle. Idle stretches are skipped: with no event and no active head the
 * clock jumps to the next due source.
 */
#define _XOPEN_SOURCE 700 /* getrusage */
#include "engine/engine.h"

#include <string.h>
#include <sys/resource.h>

#include "engine/experiment.h"

void insee_engine_fail(insee_engine *eng, const char *fmt, ...)
{
    if (eng->error)
        return;
    va_list ap;
    va_start(ap, fmt);
    char *msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    eng->error = g_error_new(INSEE_EXPERIMENT_ERROR, INSEE_EXPERIMENT_ERROR_SIMULATION,
                             "cycle %" G_GUINT64_FORMAT ": %s", eng->now, msg);
    g_free(msg);
}

void insee_engine_prepare(insee_engine *eng)
{
    insee_net *net = &eng->net;
    eng->rstate = g_malloc0(eng->rstate_size * net->routers + 1);
    eng->astate = g_malloc0(eng->astate_size * net->outputs + 1);
    eng->router_rng = g_new(insee_rng, net->routers);
    eng->arb_rng = g_new(insee_rng, net->routers);
    eng->node_rng = g_new(insee_rng, net->nodes);
    /* Stream ids are disjoint ranges per purpose so that adding a purpose
       never shifts the numbers another one draws. */
    for (uint32_t r = 0; r < net->routers; r++) {
        insee_rng_init(&eng->router_rng[r], eng->seed, (1ull << 40) + r);
        insee_rng_init(&eng->arb_rng[r], eng->seed, (2ull << 40) + r);
    }
    for (uint32_t n = 0; n < net->nodes; n++)
        insee_rng_init(&eng->node_rng[n], eng->seed, (3ull << 40) + n);
    eng->out_req = g_new(uint32_t, net->outputs);
    memset(eng->out_req, 0xff, sizeof(uint32_t) * net->outputs);
    insee_wheel_init(&eng->wheel, eng->packet_phits + 1);
}

void insee_engine_clear(insee_engine *eng)
{
    g_free(eng->rstate);
    g_free(eng->astate);
    g_free(eng->router_rng);
    g_free(eng->arb_rng);
    g_free(eng->node_rng);
    g_free(eng->out_req);
    g_free(eng->req);
    g_free(eng->active.v);
    g_free(eng->touched.v);
    insee_wheel_clear(&eng->wheel);
    insee_heap_clear(&eng->due);
    insee_workload_clear(eng);
    insee_net_clear(&eng->net);
    g_clear_error(&eng->error);
}

static uint32_t queue_router(const insee_net *net, uint32_t q)
{
    if (q < net->transit_queues)
        return net->port_router[q / net->vcs];
    return net->node_router[(q - net->transit_queues) / net->injectors];
}

void insee_engine_route_ctx(insee_engine *eng, uint32_t q, uint32_t p, insee_route_ctx *ctx)
{
    const insee_net *net = &eng->net;
    const insee_packet *pk = &net->pkt[p];
    uint32_t r = queue_router(net, q);
    ctx->size = sizeof *ctx;
    ctx->router = r;
    if (q < net->transit_queues) {
        ctx->in_port = q / net->vcs - net->port_base[r];
        ctx->in_vc = q % net->vcs;
    } else {
        ctx->in_port = INSEE_PORT_INJECTION;
        ctx->in_vc = (q - net->transit_queues) % net->injectors;
    }
    ctx->src_node = pk->src;
    ctx->dst_node = pk->dst;
    ctx->salt = pk->salt;
    ctx->hops = pk->hops;
    ctx->now = eng->now;
    ctx->born = pk->born;
    ctx->packet_state = insee_net_packet_state(net, p);
    ctx->router_state = eng->rstate_size ? eng->rstate + eng->rstate_size * r : NULL;
    ctx->rng = &eng->router_rng[r];
}

/* Index of input queue q among its router's inputs (arbiter contract). */
static uint32_t input_index(const insee_net *net, uint32_t q, uint32_t r)
{
    if (q < net->transit_queues)
        return q - net->port_base[r] * net->vcs;
    uint32_t node = (q - net->transit_queues) / net->injectors;
    uint32_t j = (q - net->transit_queues) % net->injectors;
    uint32_t ports = net->port_base[r + 1] - net->port_base[r];
    return ports * net->vcs + net->node_slot[node] * net->injectors + j;
}

static void schedule(insee_engine *eng, uint64_t at, uint32_t ev)
{
    insee_wheel_add(&eng->wheel, at, ev);
}

void insee_engine_queue_wake(insee_engine *eng, uint32_t q)
{
    insee_net *net = &eng->net;
    uint32_t p = net->q_head[q];
    if (p == INSEE_NONE || (net->q_flags[q] & (INSEE_Q_DEPARTING | INSEE_Q_ACTIVE)))
        return;
    net->q_flags[q] |= INSEE_Q_ACTIVE;
    net->pkt[p].since = INSEE_NEVER;
    if (net->pkt[p].ready <= eng->now)
        insee_vec_push(&eng->active, q);
    else
        schedule(eng, net->pkt[p].ready, insee_event(INSEE_EV_HEAD_READY, q));
}

static void release(insee_engine *eng, uint32_t q)
{
    insee_net *net = &eng->net;
    insee_net_release_slot(net, q);
    net->q_flags[q] &= (uint8_t)~INSEE_Q_DEPARTING;
    insee_engine_queue_wake(eng, q);
    if (q >= net->transit_queues)
        insee_workload_room(eng, (q - net->transit_queues) / net->injectors);
}

static void process_events(insee_engine *eng)
{
    insee_vec *b = &eng->wheel.bucket[eng->now & eng->wheel.mask];
    for (uint32_t i = 0; i < b->len; i++) {
        uint32_t ev = b->v[i];
        uint32_t id = insee_event_id(ev);
        switch (insee_event_kind_of(ev)) {
        case INSEE_EV_HEAD_READY:
            insee_vec_push(&eng->active, id);
            break;
        case INSEE_EV_RELEASE:
            release(eng, id);
            break;
        case INSEE_EV_DELIVER:
            insee_workload_delivered(eng, id);
            break;
        }
    }
    eng->wheel.pending -= b->len;
    b->len = 0;
}

static void add_request(insee_engine *eng, uint32_t q, uint32_t out, uint32_t r,
                        const insee_candidate *cand)
{
    if (eng->req_len == eng->req_cap) {
        eng->req_cap = eng->req_cap ? eng->req_cap * 2 : 256;
        eng->req = g_renew(insee_request_rec, eng->req, eng->req_cap);
    }
    insee_request_rec *rq = &eng->req[eng->req_len];
    rq->queue = q;
    rq->out = out;
    rq->input = input_index(&eng->net, q, r);
    rq->cand = *cand;
    rq->next = eng->out_req[out];
    if (rq->next == INSEE_NONE)
        insee_vec_push(&eng->touched, out);
    eng->out_req[out] = eng->req_len++;
}

/* The candidate the head of q requests, or FALSE when none is admissible. */
static gboolean choose_candidate(insee_engine *eng, uint32_t q, uint32_t p, uint32_t r,
                                 insee_candidate *chosen, uint32_t *out)
{
    insee_net *net = &eng->net;
    insee_route_ctx ctx;
    insee_candidate cand[INSEE_MAX_CANDIDATES];
    insee_engine_route_ctx(eng, q, p, &ctx);
    uint32_t n = eng->router->route(eng->router_self, &ctx, cand, INSEE_MAX_CANDIDATES);
    uint32_t ports = net->port_base[r + 1] - net->port_base[r];
    if (n > INSEE_MAX_CANDIDATES) {
        insee_engine_fail(eng, "router plugin returned %u candidates (at most %u)", n,
                          INSEE_MAX_CANDIDATES);
        return FALSE;
    }
    for (uint32_t i = 0; i < n; i++) {
        const insee_candidate *c = &cand[i];
        if (c->port == INSEE_PORT_DROP) {
            *chosen = *c;
            return TRUE;
        }
        uint32_t gp = net->port_base[r] + c->port;
        if (c->port >= ports || c->vc >= net->vcs || net->peer_queue[gp] == INSEE_NONE) {
            insee_engine_fail(eng,
                              "router plugin chose port %u VC %u at router %u, which has %u "
                              "ports and %u VCs%s",
                              c->port, c->vc, r, ports, net->vcs,
                              c->port < ports ? " (that port is unplugged)" : "");
            return FALSE;
        }
        if (net->link_free_at[gp] > eng->now)
            continue;
        uint32_t need = c->room > 1 ? c->room : 1;
        if (insee_net_room(net, net->peer_queue[gp] + c->vc) < need)
            continue;
        *chosen = *c;
        *out = gp;
        return TRUE;
    }
    return FALSE;
}

static void drop_head(insee_engine *eng, uint32_t q)
{
    insee_net *net = &eng->net;
    uint32_t p = insee_net_unlink_head(net, q);
    net->q_flags[q] = (uint8_t)((net->q_flags[q] & ~INSEE_Q_ACTIVE) | INSEE_Q_DEPARTING);
    schedule(eng, eng->now + 1, insee_event(INSEE_EV_RELEASE, q));
    eng->report.total_dropped++;
    eng->report.sum_delivered_ids += net->pkt[p].id;
    if (insee_engine_in_window(eng, eng->now))
        eng->report.dropped++;
    eng->in_flight--;
    insee_net_packet_free(net, p);
}

static void grant(insee_engine *eng, const insee_request_rec *rq);

/* Phase 3: every active head requests one output. */
static void request_phase(insee_engine *eng)
{
    insee_net *net = &eng->net;
    for (uint32_t i = 0; i < eng->active.len; i++) {
        uint32_t q = eng->active.v[i];
        uint32_t p = net->q_head[q];
        insee_packet *pk = &net->pkt[p];
        uint32_t r = queue_router(net, q);
        if (pk->since == INSEE_NEVER)
            pk->since = eng->now;
        if (net->node_router[pk->dst] == r) {
            /* Consumption. `multiple` drains every input at once, so it needs
               no arbitration and touches nothing another request reads. */
            insee_request_rec consume = {.queue = q, .out = net->ports_total + pk->dst};
            if (!eng->single_consumption)
                grant(eng, &consume);
            else if (net->link_free_at[consume.out] <= eng->now)
                add_request(eng, q, consume.out, r, &consume.cand);
            continue;
        }
        insee_candidate cand;
        uint32_t out = INSEE_NONE;
        if (!choose_candidate(eng, q, p, r, &cand, &out))
            continue;
        if (cand.port == INSEE_PORT_DROP)
            drop_head(eng, q);
        else
            add_request(eng, q, out, r, &cand);
    }
}

static void grant(insee_engine *eng, const insee_request_rec *rq)
{
    insee_net *net = &eng->net;
    uint32_t q = rq->queue;
    uint32_t L = eng->packet_phits;
    uint32_t p = net->q_head[q];
    insee_packet *pk = &net->pkt[p];

    if (rq->out < net->ports_total && eng->router->forwarded) {
        insee_route_ctx ctx;
        insee_engine_route_ctx(eng, q, p, &ctx);
        eng->router->forwarded(eng->router_self, &ctx, &rq->cand);
    }
    insee_net_unlink_head(net, q);
    net->q_flags[q] = (uint8_t)((net->q_flags[q] & ~INSEE_Q_ACTIVE) | INSEE_Q_DEPARTING);
    schedule(eng, eng->now + L, insee_event(INSEE_EV_RELEASE, q));
    if (q >= net->transit_queues) {
        pk->injected = eng->now;
        if (insee_engine_in_window(eng, eng->now))
            eng->report.injected++;
    }

    if (rq->out >= net->ports_total) {
        /* Consumption: the tail is consumed L - 1 cycles after the head. */
        if (eng->single_consumption)
            net->link_free_at[rq->out] = eng->now + L;
        if (L == 1)
            insee_workload_delivered(eng, p);
        else
            schedule(eng, eng->now + L - 1, insee_event(INSEE_EV_DELIVER, p));
        return;
    }
    net->link_free_at[rq->out] = eng->now + L;
    pk->hops++;
    pk->ready = eng->now + 1;
    eng->report.total_packet_hops++;
    uint32_t dq = net->peer_queue[rq->out] + rq->cand.vc;
    insee_net_enqueue(net, dq, p);
    insee_engine_queue_wake(eng, dq);
}

static int by_input(const void *a, const void *b)
{
    const insee_request *x = a, *y = b;
    return (x->input > y->input) - (x->input < y->input);
}

/* Phase 4: one arbitration per requested output, in output order. */
static void arbitrate_phase(insee_engine *eng)
{
    insee_net *net = &eng->net;
    insee_request reqs[INSEE_MAX_CANDIDATES * 4];
    uint32_t rec_of[G_N_ELEMENTS(reqs)];
    for (uint32_t t = 0; t < eng->touched.len; t++) {
        uint32_t out = eng->touched.v[t];
        uint32_t n = 0;
        for (uint32_t i = eng->out_req[out]; i != INSEE_NONE && n < G_N_ELEMENTS(reqs);
             i = eng->req[i].next) {
            const insee_request_rec *rq = &eng->req[i];
            const insee_packet *pk = &net->pkt[net->q_head[rq->queue]];
            reqs[n] = (insee_request){
                .input = rq->input,
                .occupancy = net->q_count[rq->queue],
                .since = pk->since,
                .born = pk->born,
                .transit = rq->queue < net->transit_queues,
            };
            rec_of[n] = i;
            n++;
        }
        eng->out_req[out] = INSEE_NONE;
        /* Requests were chained newest first; the contract sorts by input.
           Inputs are unique per output, so the order is total. */
        for (uint32_t i = 1; i < n; i++) {
            for (uint32_t j = i; j > 0 && by_input(&reqs[j - 1], &reqs[j]) > 0; j--) {
                insee_request tr = reqs[j];
                reqs[j] = reqs[j - 1];
                reqs[j - 1] = tr;
                uint32_t ti = rec_of[j];
                rec_of[j] = rec_of[j - 1];
                rec_of[j - 1] = ti;
            }
        }
        uint32_t router = out < net->ports_total ? net->port_router[out]
                                                 : net->node_router[out - net->ports_total];
        void *state = eng->astate_size ? eng->astate + eng->astate_size * out : NULL;
        uint32_t w = eng->arbiter->pick(eng->arbiter_self, state, reqs, n, eng->now,
                                        &eng->arb_rng[router]);
        if (w >= n) {
            insee_engine_fail(eng, "arbiter plugin picked request %u of %u at output %u", w, n,
                              out);
            break;
        }
        grant(eng, &eng->req[rec_of[w]]);
    }
    eng->touched.len = 0;
    eng->req_len = 0;
}

/* Keep the heads that were not granted: they ask again next cycle. */
static void compact_active(insee_engine *eng)
{
    insee_net *net = &eng->net;
    uint32_t kept = 0;
    for (uint32_t i = 0; i < eng->active.len; i++) {
        uint32_t q = eng->active.v[i];
        if ((net->q_flags[q] & INSEE_Q_ACTIVE) && !(net->q_flags[q] & INSEE_Q_DEPARTING))
            eng->active.v[kept++] = q;
    }
    eng->active.len = kept;
}

static void step(insee_engine *eng)
{
    process_events(eng);
    if (eng->now < eng->window_end) {
        while (insee_heap_top(&eng->due) <= eng->now) {
            insee_due d = insee_heap_pop(&eng->due);
            if (eng->task_due[d.task] == d.at)
                insee_workload_due(eng, d.task);
        }
    }
    request_phase(eng);
    arbitrate_phase(eng);
    compact_active(eng);
}

/* The next cycle with something to do. */
static uint64_t next_cycle(const insee_engine *eng)
{
    if (eng->active.len || eng->wheel.pending)
        return eng->now + 1;
    uint64_t next = insee_heap_top(&eng->due);
    if (next > eng->window_end)
        next = eng->window_end;
    return next > eng->now + 1 ? next : eng->now + 1;
}

static gboolean finished(insee_engine *eng)
{
    if (eng->in_flight != 0)
        return FALSE;
    if (eng->now >= eng->window_end)
        return TRUE;
    return eng->traffic->finished && eng->traffic->finished(eng->traffic_self) &&
           insee_workload_idle(eng);
}

gboolean insee_engine_run(insee_engine *eng, GError **err)
{
    insee_report *rep = &eng->report;
    gint64 start = g_get_monotonic_time();
    eng->now = 0;
    insee_workload_start(eng);
    while (!eng->error && !finished(eng) && eng->now < eng->drain_limit) {
        step(eng);
        eng->now = next_cycle(eng);
    }
    if (eng->now > eng->drain_limit)
        eng->now = eng->drain_limit;
    if (eng->error) {
        g_propagate_error(err, eng->error);
        eng->error = NULL;
        return FALSE;
    }
    rep->cycles = eng->now;
    rep->drained = eng->in_flight == 0;
    rep->drain_cycles = eng->now > eng->window_end ? eng->now - eng->window_end : 0;
    rep->total_in_flight = eng->in_flight;
    rep->wall_seconds = (double)(g_get_monotonic_time() - start) / 1e6;
    double wall = rep->wall_seconds > 1e-9 ? rep->wall_seconds : 1e-9;
    rep->cycles_per_second = (double)rep->cycles / wall;
    rep->packet_hops_per_second = (double)rep->total_packet_hops / wall;
    struct rusage usage;
    if (getrusage(RUSAGE_SELF, &usage) == 0)
        rep->peak_rss_kib = (uint64_t)usage.ru_maxrss; /* Linux: KiB */
    double phits = (double)eng->packet_phits;
    double denom = (double)eng->net.nodes * (double)rep->measure_cycles;
    if (denom > 0) {
        rep->generated_load = (double)rep->generated * phits / denom;
        rep->accepted_load = (double)rep->delivered * phits / denom;
    }
    return TRUE;
}
