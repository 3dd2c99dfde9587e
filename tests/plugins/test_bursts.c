/* test_bursts.c — bursty sources (INSEE §3.2.3) on the mock kernel loop of
 * causal_rig.c: exactly bursts x tasks x b packets delivered, no packet of
 * a burst sent before the previous burst has been delivered everywhere,
 * the exact emission times when every message takes the same delay, the
 * destinations of each pattern (hot spot, hot region and local by their
 * closed-form shares), and what a stuck barrier says. */
#include "causal_rig.h"

#include <criterion/criterion.h>
#include <string.h>

enum { UNIFORM, BIT_COMPLEMENT, BIT_REVERSAL, TORNADO = 6 };

static const char *const names[] = {"uniform", "bit-complement", "bit-reversal", "bit-transpose",
                                    "butterfly", "perfect-shuffle", "tornado"};

static void make(traffic_rig *r, int64_t packets, int64_t bursts, int pattern)
{
    insee_value params[4] = {value_int(packets), value_int(bursts),
                             value_enum(pattern, names[pattern]), value_int(1)};
    rig_params rp;
    rig_create(r, "bursts", rig_with(&rp, "bursts", params, 4));
}

/* What a run did, burst by burst. */
typedef struct watch {
    uint32_t tasks, packets;
    uint64_t delivered[64];     /* by burst */
    uint64_t sent[64];          /* by burst */
    uint64_t per_task[64][256]; /* [burst][task] */
    uint64_t first_emit[64];    /* cycle of the burst's first message */
    uint64_t last_delivery[64]; /* cycle of the burst's last delivery */
    int32_t dst_of[256];        /* a task's only destination, -1: none yet */
    bool fixed_dst;
    uint64_t self_sends;
} watch;

static void on_emit(void *user, uint32_t task, uint64_t now, const insee_message *m,
                    uint64_t next)
{
    (void)next;
    watch *w = user;
    if (!m)
        return;
    cr_assert_lt(m->tag, 64u);
    cr_assert_eq(m->packets, 1u);
    cr_assert_eq(m->bytes, 64u, "one packet of 16 phits of 4 bytes");
    if (m->tag > 0) /* the barrier: the whole previous burst is in */
        cr_assert_eq(w->delivered[m->tag - 1], (uint64_t)w->tasks * w->packets,
                     "burst %lu started at cycle %lu with %lu of the previous burst delivered",
                     (unsigned long)m->tag, (unsigned long)now,
                     (unsigned long)w->delivered[m->tag - 1]);
    if (w->sent[m->tag]++ == 0)
        w->first_emit[m->tag] = now;
    w->per_task[m->tag][task]++;
    w->self_sends += m->dst == task;
    if (w->fixed_dst) {
        if (w->dst_of[task] < 0)
            w->dst_of[task] = (int32_t)m->dst;
        cr_assert_eq(w->dst_of[task], (int32_t)m->dst, "task %u changed destination", task);
    }
}

static void on_delivered(void *user, uint32_t src, const insee_message *m, uint64_t now)
{
    (void)src;
    watch *w = user;
    w->delivered[m->tag]++;
    w->last_delivery[m->tag] = now;
}

static void watch_init(watch *w, uint32_t tasks, uint32_t packets, bool fixed_dst)
{
    memset(w, 0, sizeof *w);
    w->tasks = tasks;
    w->packets = packets;
    w->fixed_dst = fixed_dst;
    memset(w->dst_of, 0xff, sizeof w->dst_of);
}

/* Run b packets x n bursts of `pattern` on `tasks` tasks to the end, every
   message taking `delay` cycles plus up to `jitter` more, into *w (a
   message's barrier checked against `senders` tasks); asserts that the
   workload finished. Returns the cycle of the last event. */
static uint64_t run_all(watch *w, uint32_t tasks, uint32_t senders, uint32_t b, uint32_t n,
                        int pattern, uint64_t delay, uint64_t jitter)
{
    traffic_rig r;
    rig_tasks(&r, tasks, 16);
    make(&r, b, n, pattern);
    watch_init(w, senders, b, pattern != UNIFORM);
    causal_rig *c = causal_new(&r, delay, 0, &(causal_hooks){on_emit, on_delivered, w});
    if (jitter)
        causal_jitter(c, jitter);
    uint64_t end = causal_run(c, UINT64_MAX);
    cr_assert(r.vt->finished(r.self));
    for (uint32_t k = 0; k < n; k++)
        cr_assert_eq(w->delivered[k], (uint64_t)senders * b, "burst %u", k);
    cr_assert_eq(w->sent[n], 0u, "a burst after the last");
    cr_assert_eq(w->self_sends, 0u);
    causal_free(c);
    rig_free(&r);
    return end;
}

/* Every message takes d cycles: each task sends at cycles 0 .. b-1 of its
   burst, the burst's last packet lands b - 1 + d cycles after its start,
   and the next burst starts the cycle after: burst k starts at k (b + d). */
Test(bursts, exact_emission_times_and_counts)
{
    static const struct { uint32_t tasks, b, n, d; } cases[] = {
        {16, 1, 1, 5}, {16, 10, 3, 7}, {5, 4, 6, 1}, {64, 3, 2, 20},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        traffic_rig r;
        rig_tasks(&r, cases[i].tasks, 16);
        make(&r, cases[i].b, cases[i].n, UNIFORM);
        static watch w;
        watch_init(&w, cases[i].tasks, cases[i].b, false);
        causal_rig *c = causal_new(&r, cases[i].d, 0,
                                   &(causal_hooks){on_emit, on_delivered, &w});
        uint64_t period = cases[i].b + cases[i].d;
        for (uint32_t k = 0; k < cases[i].n; k++) {
            cr_assert(!r.vt->finished(r.self), "finished before burst %u", k);
            /* Run to just before the burst's last delivery: not finished. */
            causal_run(c, k * period + period - 1);
            cr_assert_eq(w.sent[k], (uint64_t)cases[i].tasks * cases[i].b);
            cr_assert_eq(w.first_emit[k], k * period, "case %zu burst %u", i, k);
            for (uint32_t t = 0; t < cases[i].tasks; t++)
                cr_assert_eq(w.per_task[k][t], cases[i].b, "task %u in burst %u", t, k);
        }
        uint64_t end = causal_run(c, UINT64_MAX);
        cr_assert_eq(end, cases[i].n * period - 1, "case %zu: last event at %lu", i,
                     (unsigned long)end);
        cr_assert(r.vt->finished(r.self));
        for (uint32_t k = 0; k < cases[i].n; k++) {
            cr_assert_eq(w.delivered[k], (uint64_t)cases[i].tasks * cases[i].b);
            cr_assert_eq(w.last_delivery[k], k * period + period - 1);
        }
        cr_assert_eq(w.sent[cases[i].n], 0u, "a burst after the last");
        cr_assert_eq(w.self_sends, 0u);
        char buf[256];
        cr_assert(!r.vt->describe_wait(r.self, buf, sizeof buf));
        causal_free(c);
        rig_free(&r);
    }
}

/* Messages of different delays overtake each other: the barrier still
   holds every burst back until the previous one is in (on_emit checks it at
   every message), and every burst is delivered whole. */
Test(bursts, barrier_with_uneven_delays)
{
    static watch w;
    run_all(&w, 32, 32, 7, 5, UNIFORM, 1, 40);
    for (uint32_t k = 1; k < 5; k++)
        cr_assert_gt(w.first_emit[k], w.last_delivery[k - 1]);
}

Test(bursts, uniform_destinations_are_even)
{
    traffic_rig r;
    rig_tasks(&r, 8, 16);
    make(&r, 7000, 1, UNIFORM);
    uint64_t per_dst[8] = {0};
    insee_rng rng;
    r.host.rng_seed(r.host.kernel, 3, &rng);
    uint64_t t = r.vt->start(r.self, 3, &rng), sent = 0;
    while (t != INSEE_NEVER) {
        insee_message m;
        cr_assert(r.vt->emit(r.self, 3, t, &rng, &m, &t));
        per_dst[m.dst]++;
        sent++;
    }
    cr_assert_eq(sent, 7000u);
    cr_assert_eq(per_dst[3], 0u);
    for (uint32_t d = 0; d < 8; d++)
        if (d != 3)
            rig_assert_binomial(per_dst[d], sent, 1.0 / 7, "one destination");
    rig_free(&r);
}

/* Bit complement on 16 tasks: task t always sends to 15 - t. */
Test(bursts, permutation_destinations)
{
    static watch w;
    run_all(&w, 16, 16, 3, 2, BIT_COMPLEMENT, 4, 0);
    for (uint32_t t = 0; t < 16; t++)
        cr_assert_eq(w.dst_of[t], (int32_t)(15 - t));
}

/* Bit reversal on 16 tasks leaves 0, 6, 9, 15 (palindromes on 4 bits)
   without a destination: they send nothing and the barrier counts only
   the other 12. */
Test(bursts, silent_tasks_are_not_waited_for)
{
    static watch w;
    cr_assert_eq(run_all(&w, 16, 12, 2, 3, BIT_REVERSAL, 3, 0), 3 * (2 + 3) - 1);
    static const uint32_t silent[] = {0, 6, 9, 15};
    for (size_t i = 0; i < 4; i++)
        cr_assert_eq(w.dst_of[silent[i]], -1, "task %u sent", silent[i]);
}

/* A packet that never arrives holds the barrier: the run stops with the
   workload unfinished and describe_wait() says which burst and why. */
Test(bursts, lost_packet_is_described)
{
    traffic_rig r;
    rig_tasks(&r, 4, 16);
    make(&r, 2, 2, UNIFORM);
    causal_rig *c = causal_new(&r, 3, 0, NULL);
    causal_lose_next(c);
    causal_run(c, UINT64_MAX);
    cr_assert_eq(causal_in_flight(c), 0u);
    cr_assert(!r.vt->finished(r.self));
    char buf[512];
    cr_assert(r.vt->describe_wait(r.self, buf, sizeof buf));
    cr_assert_not_null(strstr(buf, "burst 1 of 2"), "%s", buf);
    cr_assert_not_null(strstr(buf, "7 of its 8 packets delivered"), "%s", buf);
    cr_assert_not_null(strstr(buf, "on_full"), "%s", buf);
    causal_free(c);
    rig_free(&r);
}

Test(bursts, refuses_patterns_without_senders)
{
    traffic_rig r;
    rig_torus(&r, (const int64_t[]){2, 2}, 2, 16); /* tornado moves 0 on rings of 2 */
    insee_value params[4] = {value_int(1), value_int(1), value_enum(TORNADO, "tornado"),
                             value_int(1)};
    rig_params rp;
    insee_error err = {0};
    cr_assert_null(rig_try(&r, "bursts", rig_with(&rp, "bursts", params, 4), &err));
    cr_assert_not_null(strstr(err.message, "tornado"), "%s", err.message);
    rig_free(&r);

    rig_tasks(&r, 1, 16);
    params[2] = value_enum(UNIFORM, "uniform");
    err = (insee_error){0};
    cr_assert_null(rig_try(&r, "bursts", rig_with(&rp, "bursts", params, 4), &err));
    cr_assert_not_null(strstr(err.message, "at least 2 tasks"), "%s", err.message);
    rig_free(&r);
}

/* One burst of b packets from `task` under the pattern `name` (with the
   parameters already in rp), counted by destination. */
static uint64_t one_burst(traffic_rig *r, rig_params *rp, const char *name, uint32_t task,
                          uint64_t *per_dst)
{
    rig_set(rp, "packets", value_int(200000));
    rig_set_choice(rp, "pattern", name);
    rig_create(r, "bursts", rp->v);
    uint64_t sent = rig_run(r, task, UINT64_MAX, per_dst);
    cr_assert_eq(sent, 200000u, "a burst is b packets");
    return sent;
}

/* Hot spot as the hotspot plugin draws it: the hot task gets 2 % plus its
   uniform share, 0.02 + 0.98 / 63 from any other task on 64 tasks; hot
   region: the first 8 tasks get 25 % plus their uniform share. */
Test(bursts, hot_spot_and_hot_region_shares)
{
    traffic_rig r;
    rig_params rp;
    uint64_t per_dst[64] = {0};
    rig_tasks(&r, 64, 16);
    rig_defaults(&rp, "bursts");
    rig_set(&rp, "hot_node", value_int(5));
    uint64_t n = one_burst(&r, &rp, "hotspot", 9, per_dst);
    rig_assert_binomial(per_dst[5], n, 0.02 + 0.98 / 63, "to the hot task");
    rig_free(&r);

    memset(per_dst, 0, sizeof per_dst);
    rig_tasks(&r, 64, 16);
    rig_defaults(&rp, "bursts");
    n = one_burst(&r, &rp, "hot-region", 40, per_dst);
    uint64_t hot = 0;
    for (int t = 0; t < 8; t++)
        hot += per_dst[t];
    rig_assert_binomial(hot, n, 0.25 + 0.75 * 8 / 63, "into the first 8 tasks");
    rig_free(&r);
}

/* Local on a 16-ary 1-cube from node 0: offsets -1 and 1 each with 1/2 x
   1/3 (0 is drawn again), so 1/3 / (1 - p0) each, where p0 = 1/6 + 1/8 x
   1/16 is the chance of landing on the source. */
Test(bursts, local_draws_near_the_source)
{
    traffic_rig r;
    rig_params rp;
    uint64_t per_dst[16] = {0};
    rig_torus(&r, (const int64_t[]){16}, 1, 16);
    rig_defaults(&rp, "bursts");
    uint64_t n = one_burst(&r, &rp, "local", 0, per_dst);
    double p0 = 1 / 6.0 + 1 / 128.0;
    rig_assert_binomial(per_dst[1], n, (1 / 6.0 + 1 / 128.0) / (1 - p0), "to node 1");
    rig_assert_binomial(per_dst[15], n, (1 / 6.0 + 1 / 128.0) / (1 - p0), "to node 15");
    cr_assert_eq(per_dst[0], 0u);
    rig_free(&r);
}

Test(bursts, parameter_table)
{
    const insee_plugin_desc *d = load_plugin("traffic", "bursts");
    const insee_traffic_vtable *vt = d->vtable;
    cr_assert_not_null(vt->finished, "a causal workload: the kernel runs it to completion");
    cr_assert_str_eq(d->params[0].name, "packets");
    cr_assert_str_eq(d->params[1].name, "bursts");
    cr_assert_str_eq(d->params[2].name, "pattern");
    cr_assert_str_eq(d->params[2].default_value, "\"uniform\"");
    cr_assert_str_eq(d->params[3].name, "offset");
    cr_assert_str_eq(d->params[2].choices,
                     "uniform|bit-complement|bit-reversal|bit-transpose|butterfly|perfect-shuffle|"
                     "tornado|shift|neighbour|hotspot|hot-region|local");
    cr_assert_str_eq(d->params[4].name, "tornado");
    cr_assert_str_eq(d->params[5].name, "hot_node");
    cr_assert_str_eq(d->params[6].name, "hot_fraction");
    cr_assert_str_eq(d->params[6].default_value, "0.02");
    cr_assert_str_eq(d->params[7].name, "region");
    cr_assert_str_eq(d->params[8].name, "region_fraction");
    cr_assert_str_eq(d->params[8].default_value, "0.25");
    cr_assert_null(d->params[9].name);
    traffic_rig r;
    rig_tasks(&r, 4, 16);
    make(&r, 1, 1, UNIFORM);
    cr_assert_lt(r.vt->offered_load(r.self), 0.0, "bursts offer no load");
    rig_free(&r);
}
