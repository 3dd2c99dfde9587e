/* test_reactive.c — reactive traffic (INSEE §3.2.2): a delivery of an
 * independent message is answered with probability q (binomial bound), by
 * a reply to its sender whose length is uniform in [a, b] (each length's
 * count binomial); replies answer nothing unless cascade is set; on the
 * mock kernel loop every reply answers an earlier delivery from the task it
 * goes to, and the independent part keeps its Bernoulli rate. */
#include "causal_rig.h"

#include <criterion/criterion.h>
#include <string.h>

enum { TAG_INDEPENDENT = 0, TAG_REPLY = 1 }; /* the tags the README documents */

/* replies = "extra" or "instead", reply_to = "sender" or "pattern". */
static void make_as(traffic_rig *r, double load, double q, int64_t a, int64_t b, bool cascade,
                    bool instead, bool pattern)
{
    insee_value params[7] = {value_double(load), value_double(q), value_int(a), value_int(b),
                             value_bool(cascade),
                             value_enum(instead, instead ? "instead" : "extra"),
                             value_enum(pattern, pattern ? "pattern" : "sender")};
    rig_create(r, "reactive", params);
}

static void make(traffic_rig *r, double load, double q, int64_t a, int64_t b, bool cascade)
{
    make_as(r, load, q, a, b, cascade, false, false);
}

/* Deliver to task 0, n times, a message tagged `tag` from task 1 + i % 3,
   and after each let task 0 send what it queued (load 0: nothing else is
   due). Counts the replies, checks each goes to the sender just delivered
   from, and counts them by length into by_len[packets]. */
static uint64_t answer(traffic_rig *r, uint64_t n, uint64_t tag, uint64_t *by_len, size_t max_len)
{
    insee_rng rng;
    r->host.rng_seed(r->host.kernel, 0, &rng);
    cr_assert_eq(r->vt->start(r->self, 0, &rng), INSEE_NEVER, "load 0 sends nothing");
    uint64_t replies = 0, now = 0;
    for (uint64_t i = 0; i < n; i++) {
        uint32_t src = 1 + (uint32_t)(i % 3);
        insee_message in = {.dst = 0, .packets = 1, .tag = tag};
        r->k.wake_at[0] = INSEE_NEVER;
        r->vt->delivered(r->self, src, &in, now);
        if (r->k.wake_at[0] == INSEE_NEVER)
            continue; /* no reply: nothing to wake for */
        cr_assert_eq(r->k.wake_at[0], now + 1, "a reply is sent the next cycle");
        insee_message m;
        uint64_t next;
        cr_assert(r->vt->emit(r->self, 0, now + 1, &rng, &m, &next));
        cr_assert_eq(next, INSEE_NEVER, "one reply per delivery, then nothing");
        cr_assert_eq(m.tag, TAG_REPLY);
        cr_assert_eq(m.dst, src, "the reply goes to the sender");
        cr_assert_lt(m.packets, max_len);
        by_len[m.packets]++;
        replies++;
        now += 2;
    }
    return replies;
}

Test(reactive, reply_rate_lengths_and_destination)
{
    static const struct { double q; int64_t a, b; } cases[] = {
        {0.5, 1, 1}, {0.1, 2, 6}, {0.9, 3, 4}, {1.0, 5, 5},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        traffic_rig r;
        rig_tasks(&r, 4, 16);
        uint64_t wake[4];
        r.k.wake_at = wake;
        make(&r, 0.0, cases[i].q, cases[i].a, cases[i].b, false);
        uint64_t by_len[8] = {0}, n = 20000;
        uint64_t replies = answer(&r, n, TAG_INDEPENDENT, by_len, 8);
        rig_assert_binomial(replies, n, cases[i].q, "replies per delivery");
        double share = 1.0 / (double)(cases[i].b - cases[i].a + 1);
        for (int64_t len = 0; len < 8; len++) {
            if (len < cases[i].a || len > cases[i].b)
                cr_assert_eq(by_len[len], 0u, "a reply of %lld packets", (long long)len);
            else
                rig_assert_binomial(by_len[len], replies, share, "one reply length");
        }
        rig_free(&r);
    }
}

Test(reactive, replies_answer_nothing_unless_cascade)
{
    for (int cascade = 0; cascade <= 1; cascade++) {
        traffic_rig r;
        rig_tasks(&r, 4, 16);
        uint64_t wake[4];
        r.k.wake_at = wake;
        make(&r, 0.0, 0.5, 2, 3, cascade);
        uint64_t by_len[8] = {0};
        uint64_t replies = answer(&r, 10000, TAG_REPLY, by_len, 8);
        if (cascade)
            rig_assert_binomial(replies, 10000, 0.5, "replies to replies");
        else
            cr_assert_eq(replies, 0u, "a reply triggered a reply");
        rig_free(&r);
    }
}

/* What a run on the mock kernel loop did. */
typedef struct log {
    uint64_t independent_sent, independent_delivered, replies_sent, reply_packets;
    uint64_t late_deliveries;       /* independent ones in the last cycles */
    uint64_t answerable[16][16];    /* [receiver][sender]: independent deliveries */
    uint64_t limit;
} log_t;

static void on_emit(void *user, uint32_t task, uint64_t now, const insee_message *m,
                    uint64_t next)
{
    (void)next;
    (void)now;
    log_t *l = user;
    if (!m)
        return;
    cr_assert_neq(m->dst, task);
    /* Lengths are in packets: bytes are packets x 16 (4 phits of 4 bytes). */
    cr_assert_eq(m->bytes, (uint64_t)m->packets * 16u);
    if (m->tag == TAG_INDEPENDENT) {
        cr_assert_eq(m->packets, 1u);
        l->independent_sent++;
        return;
    }
    cr_assert_eq(m->tag, TAG_REPLY);
    /* Every reply answers a distinct earlier delivery from its destination. */
    cr_assert_gt(l->answerable[task][m->dst], 0u, "task %u replied to %u unasked", task, m->dst);
    l->answerable[task][m->dst]--;
    cr_assert(m->packets >= 2 && m->packets <= 4);
    l->replies_sent++;
    l->reply_packets += m->packets;
}

static void on_delivered(void *user, uint32_t src, const insee_message *m, uint64_t now)
{
    log_t *l = user;
    if (m->tag != TAG_INDEPENDENT)
        return;
    l->independent_delivered++;
    l->answerable[m->dst][src]++;
    l->late_deliveries += now + 20 >= l->limit;
}

Test(reactive, replies_on_the_mock_kernel)
{
    traffic_rig r;
    rig_tasks(&r, 16, 4);
    make(&r, 0.2, 0.3, 2, 4, false); /* 0.05 independent messages per task per cycle */
    static log_t l;
    memset(&l, 0, sizeof l);
    l.limit = 40000;
    causal_rig *c = causal_new(&r, 10, 1, &(causal_hooks){on_emit, on_delivered, &l});
    causal_run(c, l.limit);
    rig_assert_binomial(l.independent_sent, 16 * l.limit, 0.05, "independent messages");
    /* The deliveries of the last cycles may not have been answered yet. */
    uint64_t answered = l.independent_delivered - l.late_deliveries;
    rig_assert_binomial(l.replies_sent, answered, 0.3, "replies");
    cr_assert_float_eq((double)l.reply_packets / (double)l.replies_sent, 3.0, 0.05);
    cr_assert_float_eq(r.vt->offered_load(r.self), 0.2 * (1 + 0.3 * 3), 1e-12);
    causal_free(c);
    rig_free(&r);
}

Test(reactive, offered_load_with_cascade)
{
    traffic_rig r;
    rig_tasks(&r, 8, 16);
    make(&r, 0.1, 0.5, 1, 3, true);
    /* Each message is answered with probability 1/2 by 2 packets on average,
       replies too: 1 + 2 (1/2 + 1/4 + ...) = 3 packets per independent one. */
    cr_assert_float_eq(r.vt->offered_load(r.self), 0.3, 1e-12);
    rig_free(&r);
}

/* INSEE's own reactive traffic (replies = "instead", reply_to = "pattern",
   cascade): each delivered packet triggers, with probability q, a packet
   to a drawn destination, sent in place of that cycle's Bernoulli draw.
   Per task and cycle the independent draws succeed p (1 - R) times and
   the triggered packets R = q g times, g = their sum: g = p / (1 - q (1 -
   p)). With p = 0.1 and q = 0.5, g = 0.1 / 0.55 and the independent part
   p (1 - q g) = 0.1 / 1.1, where replies = "extra" keeps 0.1 and offers
   0.2: the offered load is 2 L p / (1 + p), INSEE's 2 load / (1 + load /
   L) (about 2 load (1 - load / L)). The loop delivers before it emits in
   a cycle, as the kernel does: a reply triggered in a cycle must still
   wait for the next, or it takes a draw due in that cycle twice as often. */
static void count_insee(void *user, uint32_t task, uint64_t now, const insee_message *m,
                        uint64_t next)
{
    (void)now;
    (void)next;
    uint64_t *sent = user;
    if (!m)
        return;
    cr_assert_neq(m->dst, task);
    cr_assert_eq(m->packets, 1u);
    sent[m->tag == TAG_REPLY]++;
}

Test(reactive, insee_sends_triggered_packets_instead_of_a_draw)
{
    traffic_rig r;
    rig_tasks(&r, 16, 4);
    make_as(&r, 0.4, 0.5, 1, 1, true, true, true); /* p = 0.4 / 4 = 0.1 */
    double p = 0.1, g = p / (1 - 0.5 * (1 - p));
    cr_assert_float_eq(r.vt->offered_load(r.self), 4 * g, 1e-12);
    cr_assert_float_eq(r.vt->offered_load(r.self), 2 * 0.4 / (1 + 0.4 / 4), 1e-12);
    static uint64_t sent[2];
    memset(sent, 0, sizeof sent);
    const uint64_t cycles = 40000;
    causal_rig *c = causal_new(&r, 10, 1, &(causal_hooks){count_insee, NULL, sent});
    causal_run(c, cycles);
    double independent = (double)sent[0] / (16.0 * cycles), all = (double)(sent[0] + sent[1]) /
                                                                   (16.0 * cycles);
    cr_assert(fabs(independent - p * (1 - 0.5 * g)) < 0.03 * p, "independent %.5f per cycle, "
              "closed form %.5f; all %.5f, closed form %.5f", independent, p * (1 - 0.5 * g), all, g);
    cr_assert(fabs(all - g) < 0.03 * g, "%.5f messages per cycle, closed form %.5f", all, g);
    causal_free(c);
    rig_free(&r);
}

Test(reactive, refuses_impossible_parameters)
{
    static const struct {
        double q;
        int64_t a, b;
        bool cascade, pattern;
        uint32_t tasks;
        const char *says;
    } cases[] = {
        {0.5, 4, 2, false, false, 8, "reply_min = 4 is above reply_max = 2"},
        {1.0, 1, 1, true, false, 8, "forever"},
        /* pattern: 0.5 x 2 one-packet replies per message trigger as many */
        {0.5, 2, 2, true, true, 8, "forever"},
        {0.5, 1, 1, false, false, 1, "at least 2 tasks"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        traffic_rig r;
        rig_tasks(&r, cases[i].tasks, 16);
        insee_value params[7] = {value_double(0.1), value_double(cases[i].q),
                                 value_int(cases[i].a), value_int(cases[i].b),
                                 value_bool(cases[i].cascade), value_enum(0, "extra"),
                                 value_enum(cases[i].pattern, cases[i].pattern ? "pattern"
                                                                               : "sender")};
        insee_error err = {0};
        cr_assert_null(rig_try(&r, "reactive", params, &err));
        cr_assert_not_null(strstr(err.message, cases[i].says), "%s", err.message);
        rig_free(&r);
    }
}
