/* test_source.c — the temporal side every independent-source pattern shares
 * (plugins/traffic/common/source.c, length.c), driven through `uniform`:
 *  - bursty (on/off): on and off periods of mean burst_on and burst_off,
 *    geometric (a share 1/burst_on of the on periods last one cycle); the
 *    long-run message rate equals the Bernoulli one within 5 standard
 *    deviations of the on/off count (closed form below); impossible on-loads
 *    refused; a stall delays the whole schedule;
 *  - message lengths: fixed bytes cut into exactly ceil(bytes / (L x
 *    phit_bytes)) packets; uniform, exponential and bimodal means and shares
 *    against sums and closed forms computed here; the load stays in phits:
 *    packets per cycle = load / L whatever the lengths; every message gives
 *    its bytes (ABI 1.8), of which its packets are the ceiling, with the
 *    distribution's mean;
 *  - the same seed gives the same stream; bad length settings are refused.
 */
#include "traffic_rig.h"

#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

/* uniform on `tasks` tasks of L phits, load `load`, with p's other values. */
static void make(traffic_rig *r, rig_params *p, uint32_t tasks, uint32_t L, double load)
{
    rig_tasks(r, tasks, L);
    r->long_ok = true;
    rig_set(p, "load", value_double(load));
    rig_create(r, "uniform", p->v);
}

static void bursty(rig_params *p, double on, double off)
{
    rig_defaults(p, "uniform");
    rig_set_choice(p, "process", "bursty");
    rig_set(p, "burst_on", value_double(on));
    rig_set(p, "burst_off", value_double(off));
}

/* Runs of consecutive sending cycles of one task. */
typedef struct runs {
    uint64_t last, length;
    uint64_t runs, total, ones; /* finished runs, their cycles, runs of 1 */
    uint64_t gaps, gap_total;   /* idle stretches between runs */
} runs;

static void watch_runs(void *user, uint32_t task, uint64_t cycle, const insee_message *m)
{
    (void)task;
    (void)m;
    runs *w = user;
    if (w->length > 0 && cycle == w->last + 1) {
        w->length++;
    } else {
        if (w->length > 0) {
            w->runs++;
            w->total += w->length;
            w->ones += w->length == 1;
            w->gaps++;
            w->gap_total += cycle - w->last - 1;
        }
        w->length = 1;
    }
    w->last = cycle;
}

/* At load = burst_on / (burst_on + burst_off) and L = 1 a task sends in
   every cycle it is on: its runs of sending cycles are its on periods and
   the stretches between them its off periods. */
Test(source, bursty_periods_have_their_means)
{
    const double on = 20, off = 60;
    rig_params p;
    bursty(&p, on, off);
    traffic_rig r;
    make(&r, &p, 16, 1, on / (on + off));
    runs w = {0};
    r.seen = watch_runs;
    r.user = &w;
    for (uint32_t task = 0; task < 16; task++) {
        w.length = 0;
        rig_run(&r, task, 200000, NULL);
    }
    /* A geometric length of mean m has variance m (m - 1). */
    double mean_on = (double)w.total / w.runs, mean_off = (double)w.gap_total / w.gaps;
    cr_assert(fabs(mean_on - on) <= 5 * sqrt(on * (on - 1) / w.runs), "on periods: mean %g",
              mean_on);
    cr_assert(fabs(mean_off - off) <= 5 * sqrt(off * (off - 1) / w.gaps),
              "off periods: mean %g", mean_off);
    rig_assert_binomial(w.ones, w.runs, 1 / on, "on periods of one cycle");
    rig_free(&r);
}

/* The messages of a task over T cycles: N = sum of X_t Y_t, Y the on/off
   chain (leaving on with a = 1/on, off with b = 1/off, on a share
   pi = b / (a + b) of the time), X Bernoulli(q) while on. The chain's
   on-time has asymptotic variance T pi (1 - pi) (2 - a - b) / (a + b) (its
   autocorrelation is (1 - a - b)^k), so
   Var N = T [pi q (1 - q) + q^2 pi (1 - pi) (2 - a - b) / (a + b)]. */
Test(source, bursty_long_run_rate_is_the_load)
{
    const double on = 50, off = 150, load = 0.1, L = 4, T = 200000;
    const uint32_t tasks = 64;
    rig_params p;
    bursty(&p, on, off);
    traffic_rig r;
    make(&r, &p, tasks, (uint32_t)L, load);
    double a = 1 / on, b = 1 / off, pi = b / (a + b), rate = load / L, q = rate / pi;
    double var = T * (pi * q * (1 - q) + q * q * pi * (1 - pi) * (2 - a - b) / (a + b));
    uint64_t sent = rig_run_all(&r, (uint64_t)T);
    double mean = tasks * T * rate, sd = sqrt(tasks * var);
    cr_assert(fabs((double)sent - mean) <= 5 * sd, "%lu messages, expected %.0f +- %.0f (5 sd)",
              (unsigned long)sent, mean, 5 * sd);
    cr_assert_float_eq(r.vt->offered_load(r.self), load, 1e-12);
    rig_free(&r);
}

Test(source, bursty_refuses_more_than_a_link_while_on)
{
    rig_params p;
    bursty(&p, 100, 100);
    traffic_rig r;
    rig_tasks(&r, 16, 16);
    rig_set(&p, "load", value_double(0.6));
    insee_error err = {0};
    cr_assert_null(rig_try(&r, "uniform", p.v, &err));
    cr_assert_eq(err.code, INSEE_ERR_PARAM);
    cr_assert_not_null(strstr(err.message, "1.2 phits/cycle while on"), "%s", err.message);
    cr_assert_not_null(strstr(err.message, "at most burst_on / (burst_on + burst_off) = 0.5"),
                       "%s", err.message);
    rig_free(&r);
    /* Exactly one phit per cycle while on is possible. */
    rig_tasks(&r, 16, 16);
    rig_set(&p, "load", value_double(0.5));
    cr_assert_not_null(rig_try(&r, "uniform", p.v, &err), "%s", err.message);
    rig_free(&r);
}

/* Due cycles of task 3 over its first n messages; at message `stall_at`
   the task is asked `stall` cycles late, as the kernel asks a throttled
   one. */
static void due_cycles(rig_params *p, uint64_t *due, int n, int stall_at, uint64_t stall)
{
    traffic_rig r;
    make(&r, p, 8, 1, 0.4);
    insee_rng rng;
    r.host.rng_seed(r.host.kernel, 3, &rng);
    uint64_t t = r.vt->start(r.self, 3, &rng);
    for (int i = 0; i < n; i++) {
        if (i == stall_at)
            t += stall;
        due[i] = t;
        insee_message m;
        cr_assert(r.vt->emit(r.self, 3, t, &rng, &m, &t));
    }
    rig_free(&r);
}

/* A throttled task resumes its schedule where it paused: every later due
   cycle moves by the stall, on/off periods included. */
Test(source, a_stall_delays_the_whole_schedule)
{
    for (int process = 0; process < 2; process++) {
        rig_params p;
        bursty(&p, 10, 5);
        if (process == 0)
            rig_set_choice(&p, "process", "bernoulli");
        uint64_t plain[400], stalled[400];
        due_cycles(&p, plain, 400, -1, 0);
        due_cycles(&p, stalled, 400, 100, 777);
        for (int i = 0; i < 400; i++)
            cr_assert_eq(stalled[i], plain[i] + (i >= 100 ? 777 : 0), "%s: message %d",
                         p.v[2].s, i);
    }
}

/* Every (cycle, destination, packets) of a task's first n messages. */
typedef struct sent {
    uint64_t cycle;
    uint32_t dst, packets;
} sent;

static void stream(rig_params *p, uint32_t task, sent *out, int n)
{
    traffic_rig r;
    make(&r, p, 32, 4, 0.5);
    insee_rng rng;
    r.host.rng_seed(r.host.kernel, task, &rng);
    uint64_t t = r.vt->start(r.self, task, &rng);
    for (int i = 0; i < n; i++) {
        insee_message m;
        out[i].cycle = t;
        cr_assert(r.vt->emit(r.self, task, t, &rng, &m, &t));
        out[i].dst = m.dst;
        out[i].packets = m.packets;
    }
    rig_free(&r);
}

Test(source, the_same_seed_gives_the_same_stream)
{
    rig_params p;
    bursty(&p, 30, 30);
    rig_set_choice(&p, "length_dist", "exponential");
    rig_set(&p, "message_bytes", value_int(300));
    sent a[500], b[500], c[500];
    stream(&p, 7, a, 500);
    stream(&p, 7, b, 500);
    stream(&p, 8, c, 500);
    cr_assert_eq(memcmp(a, b, sizeof a), 0);
    cr_assert_neq(memcmp(a, c, sizeof a), 0, "two tasks drew the same stream");
}

/* The packets of every message of fixed length `bytes` (phits of
   phit_bytes bytes, packets of L phits), each of which gives `bytes` as
   its length in bytes, or one packet's, L x phit_bytes, for 0. */
static uint32_t fixed_packets(uint64_t bytes, uint32_t L, uint32_t phit_bytes)
{
    rig_params p;
    rig_defaults(&p, "uniform");
    rig_set(&p, "message_bytes", value_int((int64_t)bytes));
    traffic_rig r;
    rig_tasks(&r, 4, L);
    r.k.phit_bytes = phit_bytes;
    r.long_ok = true;
    rig_set(&p, "load", value_double(1.0));
    rig_create(&r, "uniform", p.v);
    uint32_t first = 0;
    insee_rng rng;
    r.host.rng_seed(r.host.kernel, 0, &rng);
    uint64_t t = r.vt->start(r.self, 0, &rng);
    for (int i = 0; i < 50; i++) {
        insee_message m;
        cr_assert(r.vt->emit(r.self, 0, t, &rng, &m, &t));
        if (i == 0)
            first = m.packets;
        cr_assert_eq(m.packets, first, "a fixed length varied");
        cr_assert_eq(m.bytes, bytes ? bytes : (uint64_t)L * phit_bytes);
    }
    rig_free(&r);
    return first;
}

Test(source, fixed_bytes_are_cut_into_whole_packets)
{
    /* 16 phits of 4 bytes: 64 bytes a packet. */
    cr_assert_eq(fixed_packets(0, 16, 4), 1u); /* the default: one packet */
    cr_assert_eq(fixed_packets(1, 16, 4), 1u);
    cr_assert_eq(fixed_packets(64, 16, 4), 1u);
    cr_assert_eq(fixed_packets(65, 16, 4), 2u);
    cr_assert_eq(fixed_packets(1000, 16, 4), 16u);
    cr_assert_eq(fixed_packets(1024, 16, 4), 16u);
    cr_assert_eq(fixed_packets(1025, 16, 4), 17u);
    /* 8 phits of 8 bytes, 4 phits of 1 byte. */
    cr_assert_eq(fixed_packets(1000, 8, 8), 16u);
    cr_assert_eq(fixed_packets(1000, 4, 1), 250u);
    cr_assert_eq(fixed_packets(1001, 4, 1), 251u);
}

/* Lengths of one task sending in every cycle it can (load 1, so one
   message per mean-packets x L cycles): histogram of packets (up to 80),
   and the sum of the bytes, of which each message's packets must be the
   ceiling (phits of 4 bytes). */
static uint64_t lengths(rig_params *p, uint32_t L, uint64_t cycles, uint64_t *hist,
                        uint64_t *packets, uint64_t *bytes)
{
    traffic_rig r;
    make(&r, p, 8, L, 1.0);
    insee_rng rng;
    r.host.rng_seed(r.host.kernel, 2, &rng);
    uint64_t n = 0;
    for (uint64_t t = r.vt->start(r.self, 2, &rng); t < cycles; n++) {
        insee_message m;
        cr_assert(r.vt->emit(r.self, 2, t, &rng, &m, &t));
        cr_assert_geq(m.packets, 1u);
        cr_assert_eq((m.bytes + 4 * L - 1) / (4 * L), m.packets, "%lu bytes in %u packets",
                     (unsigned long)m.bytes, m.packets);
        hist[m.packets < 80 ? m.packets : 80]++;
        *packets += m.packets;
        *bytes += m.bytes;
    }
    rig_free(&r);
    return n;
}

/* The total packets sent at load 1 over T cycles is T / L on average,
   whatever the lengths: N messages ~ Binomial(T, 1 / (L P)), each of mean
   P and variance V packets, so Var S = E N V + Var N P^2. */
static void assert_load_kept(uint64_t packets, double T, double L, double P, double V)
{
    double lambda = 1 / (L * P);
    double var = T * lambda * V + T * lambda * (1 - lambda) * P * P;
    cr_assert(fabs((double)packets - T / L) <= 5 * sqrt(var),
              "%lu packets over %.0f cycles at L = %.0f, expected %.0f +- %.1f",
              (unsigned long)packets, T, L, T / L, 5 * sqrt(var));
}

Test(source, uniform_lengths_mean_and_load)
{
    rig_params p;
    rig_defaults(&p, "uniform");
    rig_set_choice(&p, "length_dist", "uniform");
    rig_set(&p, "message_bytes_min", value_int(10));
    rig_set(&p, "message_bytes_max", value_int(1000));
    /* Packets of 16 x 4 = 64 bytes: the mean and variance of ceil(x / 64)
       over x = 10 .. 1000, summed here. */
    double sum = 0, sum2 = 0;
    for (int x = 10; x <= 1000; x++) {
        double k = ceil(x / 64.0);
        sum += k;
        sum2 += k * k;
    }
    double P = sum / 991, V = sum2 / 991 - P * P;
    uint64_t hist[81] = {0}, packets = 0, bytes = 0;
    uint64_t n = lengths(&p, 16, 3000000, hist, &packets, &bytes);
    double mean = (double)packets / n;
    cr_assert(fabs(mean - P) <= 5 * sqrt(V / n), "mean %g packets, expected %g", mean, P);
    /* Bytes uniform over 10 .. 1000: mean 505, variance (991^2 - 1) / 12. */
    double mean_bytes = (double)bytes / n;
    cr_assert(fabs(mean_bytes - 505) <= 5 * sqrt((991.0 * 991 - 1) / 12 / n),
              "mean %g bytes, expected 505", mean_bytes);
    cr_assert_gt(hist[1], 0u);
    cr_assert_gt(hist[16], 0u);
    for (int k = 17; k <= 80; k++)
        cr_assert_eq(hist[k], 0u, "%d packets from at most 1000 bytes", k);
    /* 55 of the 991 lengths (10 .. 64) are one packet. */
    rig_assert_binomial(hist[1], n, 55.0 / 991, "one-packet messages");
    assert_load_kept(packets, 3000000, 16, P, V);
}

Test(source, exponential_lengths_are_geometric_in_packets)
{
    rig_params p;
    rig_defaults(&p, "uniform");
    rig_set_choice(&p, "length_dist", "exponential");
    rig_set(&p, "message_bytes", value_int(256));
    /* ceil(X / 64) for X exponential of mean 256: P(k packets) =
       (1 - s) s^(k-1) with s = e^(-1/4); mean 1 / (1 - s), variance
       s / (1 - s)^2. */
    double s = exp(-0.25), P = 1 / (1 - s), V = s / ((1 - s) * (1 - s));
    uint64_t hist[81] = {0}, packets = 0, bytes = 0;
    uint64_t n = lengths(&p, 16, 3000000, hist, &packets, &bytes);
    double mean = (double)packets / n;
    cr_assert(fabs(mean - P) <= 5 * sqrt(V / n), "mean %g packets, expected %g", mean, P);
    /* ceil(X) is geometric on 1, 2, ... with ratio r = e^(-1/256): mean
       1 / (1 - r), variance r / (1 - r)^2. */
    double r = exp(-1.0 / 256), mean_bytes = (double)bytes / n;
    cr_assert(fabs(mean_bytes - 1 / (1 - r)) <= 5 * sqrt(r / ((1 - r) * (1 - r)) / n),
              "mean %g bytes, expected %g", mean_bytes, 1 / (1 - r));
    for (int k = 1; k <= 4; k++)
        rig_assert_binomial(hist[k], n, (1 - s) * pow(s, k - 1), "k packets");
    assert_load_kept(packets, 3000000, 16, P, V);
}

Test(source, bimodal_lengths_share_and_load)
{
    rig_params p;
    rig_defaults(&p, "uniform");
    rig_set_choice(&p, "length_dist", "bimodal");
    rig_set(&p, "message_bytes", value_int(100)); /* 2 packets */
    rig_set(&p, "long_bytes", value_int(4096));   /* 64 packets */
    rig_set(&p, "long_share", value_double(0.2));
    uint64_t hist[81] = {0}, packets = 0, bytes = 0;
    uint64_t n = lengths(&p, 16, 3000000, hist, &packets, &bytes);
    cr_assert_eq(hist[2] + hist[64], n, "lengths other than 2 and 64 packets");
    rig_assert_binomial(hist[64], n, 0.2, "long messages");
    cr_assert_eq(bytes, 100 * hist[2] + 4096 * hist[64], "short 100 bytes, long 4096");
    double P = 0.8 * 2 + 0.2 * 64, V = 0.2 * 0.8 * 62 * 62;
    assert_load_kept(packets, 3000000, 16, P, V);
}

static void assert_refused(rig_params *p, const char *words)
{
    traffic_rig r;
    rig_tasks(&r, 8, 16);
    insee_error err = {0};
    cr_assert_null(rig_try(&r, "uniform", p->v, &err));
    cr_assert_eq(err.code, INSEE_ERR_PARAM);
    cr_assert_not_null(strstr(err.message, words), "%s", err.message);
    rig_free(&r);
}

Test(source, impossible_lengths_are_refused)
{
    rig_params p;
    rig_defaults(&p, "uniform");
    rig_set_choice(&p, "length_dist", "uniform");
    rig_set(&p, "message_bytes_min", value_int(500));
    rig_set(&p, "message_bytes_max", value_int(100));
    assert_refused(&p, "set message_bytes_min <= message_bytes_max");
    rig_defaults(&p, "uniform");
    rig_set_choice(&p, "length_dist", "exponential");
    rig_set(&p, "message_bytes", value_int(33554433));
    assert_refused(&p, "set it to at most 33554432 bytes");
}

/* Every choice of length_dist works at the defaults: uniform over 1 .. 256
   bytes, exponential of mean one packet (64 bytes here), bimodal of one
   packet and 256 bytes (4 packets), a share 0.2 long. */
Test(source, every_length_works_at_its_defaults)
{
    static const char *const dists[] = {"uniform", "exponential", "bimodal"};
    double sum = 0, sum2 = 0, s = exp(-1.0);
    for (int x = 1; x <= 256; x++) {
        sum += ceil(x / 64.0);
        sum2 += ceil(x / 64.0) * ceil(x / 64.0);
    }
    const double mean[] = {sum / 256, 1 / (1 - s), 0.8 * 1 + 0.2 * 4};
    const double var[] = {sum2 / 256 - mean[0] * mean[0], s / ((1 - s) * (1 - s)),
                          0.2 * 0.8 * 3 * 3};
    for (int i = 0; i < 3; i++) {
        rig_params p;
        rig_defaults(&p, "uniform");
        rig_set_choice(&p, "length_dist", dists[i]);
        uint64_t hist[81] = {0}, packets = 0, bytes = 0;
        uint64_t n = lengths(&p, 16, 3000000, hist, &packets, &bytes);
        double got = (double)packets / n;
        cr_assert(fabs(got - mean[i]) <= 5 * sqrt(var[i] / n), "%s: mean %g packets, expected %g",
                  dists[i], got, mean[i]);
    }
}
