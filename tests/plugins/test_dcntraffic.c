/* test_dcntraffic.c — datacentre flows (INRFlow §3.3.3) on the mock kernel
 * loop: every task starts exactly `flows` flows, each exactly short_bytes or
 * long_bytes long (in packets), long ones within a binomial bound of
 * long_share; flows start at load / (L x mean packets) per cycle; the
 * workload finishes with the last delivery and not before. */
#include "causal_rig.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#define TASKS 16

static void make(traffic_rig *r, double load, int64_t flows, int64_t short_bytes,
                 int64_t long_bytes, double share)
{
    insee_value params[5] = {value_double(load), value_int(flows), value_int(short_bytes),
                             value_int(long_bytes), value_double(share)};
    rig_create(r, "dcntraffic", params);
}

typedef struct tally {
    traffic_rig *r;
    uint32_t short_packets, long_packets;
    uint64_t started[TASKS], shorts, longs, delivered, total;
    uint64_t started_before; /* flows started before cycle `window` */
    uint64_t window;
} tally;

static void on_emit(void *user, uint32_t task, uint64_t now, const insee_message *m,
                    uint64_t next)
{
    (void)next;
    tally *t = user;
    cr_assert_not_null(m, "task %u due for nothing", task);
    cr_assert_neq(m->dst, task);
    cr_assert(m->packets == t->short_packets || m->packets == t->long_packets,
              "a flow of %u packets", m->packets);
    t->shorts += m->packets == t->short_packets;
    t->longs += m->packets == t->long_packets;
    t->started[task]++;
    t->started_before += now < t->window;
}

static void on_delivered(void *user, uint32_t src, const insee_message *m, uint64_t now)
{
    (void)src;
    (void)m;
    (void)now;
    tally *t = user;
    t->delivered++;
    cr_assert_eq(t->r->vt->finished(t->r->self), t->delivered == t->total,
                 "finished() after %lu of %lu flows", (unsigned long)t->delivered,
                 (unsigned long)t->total);
}

/* Run `flows` flows per task (L-phit packets, phit_bytes bytes per phit)
   to the end, every message taking `delay` cycles plus one per packet,
   tallied into *t: each flow short_packets or long_packets long, every task
   starting exactly `flows`, finished() with the last delivery. */
static void run_flows(tally *t, uint32_t L, uint32_t phit_bytes, double load, int64_t flows,
                      int64_t short_bytes, int64_t long_bytes, double share, uint64_t delay)
{
    traffic_rig r;
    rig_tasks(&r, TASKS, L);
    r.k.phit_bytes = phit_bytes;
    make(&r, load, flows, short_bytes, long_bytes, share);
    cr_assert_float_eq(r.vt->offered_load(r.self), load, 1e-12);
    t->r = &r;
    t->total = TASKS * (uint64_t)flows;
    causal_rig *c = causal_new(&r, delay, 1, &(causal_hooks){on_emit, on_delivered, t});
    causal_run(c, UINT64_MAX);
    cr_assert(r.vt->finished(r.self));
    cr_assert_eq(t->delivered, t->total);
    cr_assert_eq(t->shorts + t->longs, t->total);
    for (uint32_t k = 0; k < TASKS; k++)
        cr_assert_eq(t->started[k], (uint64_t)flows, "task %u started %lu flows", k,
                     (unsigned long)t->started[k]);
    char buf[256], want[64];
    cr_assert(r.vt->describe_wait(r.self, buf, sizeof buf));
    snprintf(want, sizeof want, "%lu of %lu flows delivered", (unsigned long)t->total,
             (unsigned long)t->total);
    cr_assert_not_null(strstr(buf, want), "%s", buf);
    causal_free(c);
    rig_free(&r);
}

/* 16 tasks x 400 flows; packets of 16 phits x 4 bytes = 64 bytes: 1000
   bytes are 16 packets, 10 000 bytes 157; 0.8 x 16 + 0.2 x 157 = 44.2
   packets per flow on average, so at load 0.5 a flow starts with
   probability 0.5 / (16 x 44.2) per cycle. */
Test(dcntraffic, flows_shares_sizes_and_rate)
{
    static tally t = {.short_packets = 16, .long_packets = 157,
                      .window = 100000}; /* about 70 flows per task: none has run out */
    run_flows(&t, 16, 4, 0.5, 400, 1000, 10000, 0.2, 30);
    rig_assert_binomial(t.longs, t.total, 0.2, "long flows");
    rig_assert_binomial(t.started_before, TASKS * t.window, 0.5 / (16 * 44.2),
                        "flows started per cycle");
}

/* Bytes follow [simulation] phit_bytes through the host: with 8 bytes per
   phit a 64-phit packet carries 512 bytes, so 5000 bytes are 10 packets;
   a short flow of 0 bytes is one packet. */
Test(dcntraffic, sizes_follow_phit_bytes)
{
    static tally t = {.short_packets = 1, .long_packets = 10};
    run_flows(&t, 64, 8, 0.3, 50, 0, 5000, 0.5, 5);
    rig_assert_binomial(t.longs, t.total, 0.5, "long flows");
}

Test(dcntraffic, a_lost_flow_is_described)
{
    traffic_rig r;
    rig_tasks(&r, 4, 16);
    make(&r, 0.5, 3, 64, 128, 0.2);
    causal_rig *c = causal_new(&r, 5, 0, NULL);
    causal_lose_next(c);
    causal_run(c, UINT64_MAX);
    cr_assert(!r.vt->finished(r.self));
    char buf[256];
    cr_assert(r.vt->describe_wait(r.self, buf, sizeof buf));
    cr_assert_not_null(strstr(buf, "11 of 12 flows delivered, 12 started"), "%s", buf);
    causal_free(c);
    rig_free(&r);
}

Test(dcntraffic, refuses_what_never_finishes)
{
    static const struct { double load; uint32_t tasks; const char *says; } cases[] = {
        {0.0, 8, "load = 0 never starts a flow"},
        {0.5, 1, "at least 2 tasks"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        traffic_rig r;
        rig_tasks(&r, cases[i].tasks, 16);
        insee_value params[5] = {value_double(cases[i].load), value_int(10), value_int(64),
                                 value_int(640), value_double(0.2)};
        insee_error err = {0};
        cr_assert_null(rig_try(&r, "dcntraffic", params, &err));
        cr_assert_not_null(strstr(err.message, cases[i].says), "%s", err.message);
        rig_free(&r);
    }
}
