/* test_flows.c — INRFlow's synthetic patterns (§3.3.1) bisection,
 * all-to-one, all-to-all and many-all-to-all, on destination sets
 * (plugins/traffic/common/flows.c):
 *  - finite mode on the mock kernel loop: exactly `messages` messages from
 *    every task to every destination its pattern gives, none elsewhere, in
 *    rounds from the next task; finished() only once every message is
 *    delivered; a lost message keeps it unfinished and describe_wait()
 *    names the task;
 *  - random partitions are partitions (halves of floor and ceil N/2, groups
 *    of at most s, symmetric), and uniformly random: two tasks share a half
 *    with probability (h - 1) / (N - 1) over many seeds; a random root is
 *    uniform;
 *  - open-ended mode: destinations uniform over the pattern's set within
 *    binomial bounds, silent tasks (the root, a group of one) never send,
 *    offered load counts the senders.
 */
#include "causal_rig.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TASKS 16

/* Messages per (source, destination) over a run, and each task's order. */
typedef struct tally {
    uint64_t count[MAX_TASKS][MAX_TASKS];
    uint32_t first[MAX_TASKS][MAX_TASKS]; /* the destinations of a task's first messages */
    uint32_t sent[MAX_TASKS];
    uint64_t delivered;
} tally;

/* Every message is counted when delivered: the loop delivers all of them,
   each task's in the order it sent them (one delay for all). */
static void on_delivery(void *user, uint32_t src, const insee_message *m, uint64_t now)
{
    (void)now;
    tally *t = user;
    cr_assert_neq(m->dst, src, "task %u sent to itself", src);
    t->count[src][m->dst]++;
    if (t->sent[src] < MAX_TASKS)
        t->first[src][t->sent[src]] = m->dst;
    t->sent[src]++;
    t->delivered++;
}

/* Create `name` with `rp` on `tasks` tasks (seed `seed`). */
static void make(traffic_rig *r, const char *name, rig_params *rp, uint32_t tasks,
                 uint64_t seed)
{
    rig_tasks(r, tasks, 4);
    r->k.seed = seed;
    rig_create(r, name, rp->v);
    cr_assert_str_eq(rp->desc->name, name);
}

/* Run the finite traffic of r to its end; checks finished() at the end
   only. */
static void run_finite(traffic_rig *r, tally *t)
{
    memset(t, 0, sizeof *t);
    causal_hooks hooks = {.delivered = on_delivery, .user = t};
    causal_rig *c = causal_new(r, 7, 1, &hooks);
    cr_assert_not(r->vt->finished(r->self), "finished before it started");
    causal_run(c, 1000000);
    cr_assert_eq(causal_in_flight(c), 0u);
    cr_assert(r->vt->finished(r->self), "not finished after every delivery");
    causal_free(c);
    cr_assert_lt(r->vt->offered_load(r->self), 0, "a finite mode offers no load");
}

static void finite(rig_params *rp, const char *name, int64_t messages)
{
    rig_defaults(rp, name);
    rig_set(rp, "messages", value_int(messages));
}

/* Exactly m messages from s to d when sends(s, d), none otherwise. */
static void assert_counts(const tally *t, uint32_t n, uint64_t m,
                          bool (*sends)(uint32_t s, uint32_t d, void *ctx), void *ctx)
{
    uint64_t all = 0;
    for (uint32_t s = 0; s < n; s++)
        for (uint32_t d = 0; d < n; d++) {
            uint64_t want = s != d && sends(s, d, ctx) ? m : 0;
            cr_assert_eq(t->count[s][d], want, "%u -> %u: %lu messages, want %lu", s, d,
                         (unsigned long)t->count[s][d], (unsigned long)want);
            all += want;
        }
    cr_assert_eq(t->delivered, all);
}

static bool everyone(uint32_t s, uint32_t d, void *ctx)
{
    (void)s;
    (void)d;
    (void)ctx;
    return true;
}

Test(flows, all_to_all_finite_counts_and_order)
{
    rig_params rp;
    finite(&rp, "all-to-all", 3);
    traffic_rig r;
    make(&r, "all-to-all", &rp, 12, 42);
    tally t;
    run_finite(&r, &t);
    assert_counts(&t, 12, 3, everyone, NULL);
    /* Rounds from the next task: t+1, t+2, ..., t-1. */
    for (uint32_t s = 0; s < 12; s++)
        for (uint32_t k = 0; k < 11; k++)
            cr_assert_eq(t.first[s][k], (s + 1 + k) % 12, "task %u message %u", s, k);
    rig_free(&r);
}

static bool other_half(uint32_t s, uint32_t d, void *ctx)
{
    uint32_t half = *(uint32_t *)ctx;
    return (s < half) != (d < half);
}

Test(flows, bisection_consecutive_halves)
{
    for (uint32_t n = 9; n <= 10; n++) {
        rig_params rp;
        finite(&rp, "bisection", 2);
        rig_set_choice(&rp, "partition", "consecutive");
        traffic_rig r;
        make(&r, "bisection", &rp, n, 42);
        tally t;
        run_finite(&r, &t);
        uint32_t half = n / 2;
        assert_counts(&t, n, 2, other_half, &half);
        /* The tasks of the first half start at the other half's member
           with their own position: a staggered first round. */
        for (uint32_t s = 0; s < half; s++)
            cr_assert_eq(t.first[s][0], half + s % (n - half));
        rig_free(&r);
    }
}

/* The "sends to" relation of t over n tasks is a complete multipartite
   split into classes of the sizes allowed: sends(s, d) exactly when s and d
   are in different classes (bisection) or in the same one (groups).
   Returns how many classes; class[] gets each task's. */
static uint32_t classes(const tally *t, uint32_t n, bool within, uint32_t *class)
{
    uint32_t k = 0;
    for (uint32_t s = 0; s < n; s++)
        class[s] = UINT32_MAX;
    for (uint32_t s = 0; s < n; s++) {
        if (class[s] != UINT32_MAX)
            continue;
        for (uint32_t d = s; d < n; d++)
            if (d == s || (t->count[s][d] > 0) == within)
                class[d] = k;
        k++;
    }
    for (uint32_t s = 0; s < n; s++)
        for (uint32_t d = 0; d < n; d++) {
            bool same = class[s] == class[d];
            cr_assert_eq(t->count[s][d] > 0, s != d && same == within, "%u -> %u", s, d);
        }
    return k;
}

Test(flows, bisection_random_halves_are_a_uniform_split)
{
    const uint32_t n = 10, seeds = 3000;
    uint64_t together = 0;
    for (uint64_t seed = 1; seed <= seeds; seed++) {
        rig_params rp;
        finite(&rp, "bisection", 1);
        traffic_rig r;
        make(&r, "bisection", &rp, n, seed);
        tally t;
        run_finite(&r, &t);
        uint32_t class[MAX_TASKS], size[2] = {0};
        cr_assert_eq(classes(&t, n, false, class), 2u);
        for (uint32_t s = 0; s < n; s++)
            size[class[s]]++;
        cr_assert_eq(size[0], 5u);
        together += class[0] == class[1];
        rig_free(&r);
    }
    /* Tasks 0 and 1 share a half with probability 4/9. */
    rig_assert_binomial(together, seeds, 4.0 / 9, "tasks 0 and 1 in one half");
}

static bool same_group(uint32_t s, uint32_t d, void *ctx)
{
    uint32_t g = *(uint32_t *)ctx;
    return s / g == d / g;
}

Test(flows, many_all_to_all_groups)
{
    /* Groups of 4 over 10 tasks: {0..3}, {4..7}, {8, 9}. */
    rig_params rp;
    finite(&rp, "many-all-to-all", 2);
    rig_set(&rp, "group", value_int(4));
    rig_set_choice(&rp, "partition", "consecutive");
    traffic_rig r;
    make(&r, "many-all-to-all", &rp, 10, 42);
    tally t;
    run_finite(&r, &t);
    uint32_t g = 4;
    assert_counts(&t, 10, 2, same_group, &g);
    rig_free(&r);
    /* At random: three groups of 4, 4 and 2 tasks, all-to-all within. */
    for (uint64_t seed = 1; seed <= 50; seed++) {
        rig_set_choice(&rp, "partition", "random");
        make(&r, "many-all-to-all", &rp, 10, seed);
        run_finite(&r, &t);
        uint32_t class[MAX_TASKS], size[3] = {0};
        cr_assert_eq(classes(&t, 10, true, class), 3u);
        for (uint32_t s = 0; s < 10; s++)
            size[class[s]]++;
        uint32_t fours = (size[0] == 4) + (size[1] == 4) + (size[2] == 4);
        cr_assert_eq(fours, 2u, "groups of %u, %u, %u", size[0], size[1], size[2]);
        rig_free(&r);
    }
}

Test(flows, a_group_of_one_sends_nothing)
{
    rig_params rp;
    finite(&rp, "many-all-to-all", 1);
    rig_set(&rp, "group", value_int(3));
    rig_set_choice(&rp, "partition", "consecutive");
    traffic_rig r;
    make(&r, "many-all-to-all", &rp, 7, 42); /* {0,1,2} {3,4,5} {6} */
    insee_rng rng;
    r.host.rng_seed(r.host.kernel, 6, &rng);
    cr_assert_eq(r.vt->start(r.self, 6, &rng), INSEE_NEVER);
    tally t;
    run_finite(&r, &t);
    cr_assert_eq(t.delivered, 12u);
    rig_free(&r);
}

static bool to_root(uint32_t s, uint32_t d, void *ctx)
{
    (void)s;
    return d == *(uint32_t *)ctx;
}

Test(flows, all_to_one_given_and_random_root)
{
    rig_params rp;
    finite(&rp, "all-to-one", 4);
    rig_set(&rp, "root", value_int(5));
    traffic_rig r;
    make(&r, "all-to-one", &rp, 8, 42);
    tally t;
    run_finite(&r, &t);
    uint32_t root = 5;
    assert_counts(&t, 8, 4, to_root, &root);
    cr_assert_eq(t.sent[5], 0u, "the root sent");
    rig_free(&r);
    /* root = -1: drawn uniformly. */
    const uint64_t seeds = 4000;
    uint64_t hits[8] = {0};
    rig_set(&rp, "root", value_int(-1));
    for (uint64_t seed = 1; seed <= seeds; seed++) {
        make(&r, "all-to-one", &rp, 8, seed);
        for (uint32_t s = 0; s < 8; s++)
            if (rig_first_dst(&r, s) == UINT32_MAX)
                hits[s]++; /* the silent task is the root */
        rig_free(&r);
    }
    for (uint32_t s = 0; s < 8; s++)
        rig_assert_binomial(hits[s], seeds, 1.0 / 8, "root");
}

Test(flows, all_to_one_root_out_of_range)
{
    rig_params rp;
    rig_defaults(&rp, "all-to-one");
    rig_set(&rp, "root", value_int(8));
    traffic_rig r;
    rig_tasks(&r, 8, 16);
    insee_error err = {0};
    cr_assert_null(rig_try(&r, "all-to-one", rp.v, &err));
    cr_assert_eq(err.code, INSEE_ERR_PARAM);
    cr_assert_not_null(strstr(err.message, "root = 8, but the tasks are 0 .. 7"), "%s",
                       err.message);
    rig_free(&r);
}

Test(flows, a_lost_message_keeps_it_unfinished)
{
    rig_params rp;
    finite(&rp, "all-to-all", 1);
    traffic_rig r;
    make(&r, "all-to-all", &rp, 4, 42);
    causal_rig *c = causal_new(&r, 5, 1, NULL);
    causal_lose_next(c); /* task 0's first message, to task 1 */
    causal_run(c, 100000);
    cr_assert_not(r.vt->finished(r.self));
    char why[300];
    cr_assert(r.vt->describe_wait(r.self, why, sizeof why));
    cr_assert_not_null(strstr(why, "task 0 has handed 3 of its 3 messages to the network and 1 "
                                   "of those are not delivered"),
                       "%s", why);
    causal_free(c);
    rig_free(&r);
}

/* Open-ended: `name` at load 1 with packets of 1 phit, a message every
   cycle; the destinations of task `src` over `cycles`. */
static uint64_t open_ended(rig_params *rp, const char *name, uint32_t tasks, uint32_t src,
                           uint64_t *per_dst)
{
    rig_set_choice(rp, "mode", "load");
    rig_set(rp, "load", value_double(1.0));
    traffic_rig r;
    rig_tasks(&r, tasks, 1);
    rig_create(&r, name, rp->v);
    double senders = tasks - (strcmp(name, "all-to-one") == 0); /* the root is silent */
    cr_assert_float_eq(r.vt->offered_load(r.self), senders / tasks, 1e-12);
    cr_assert_not(r.vt->finished(r.self), "an open-ended mode finished");
    uint64_t sent = rig_run(&r, src, 120000, per_dst);
    rig_free(&r);
    return sent;
}

Test(flows, open_ended_destinations_are_uniform_over_the_set)
{
    rig_params rp;
    uint64_t per_dst[MAX_TASKS] = {0};
    rig_defaults(&rp, "bisection");
    rig_set_choice(&rp, "partition", "consecutive");
    uint64_t sent = open_ended(&rp, "bisection", 10, 2, per_dst);
    cr_assert_eq(sent, 120000u);
    for (uint32_t d = 0; d < 10; d++)
        if (d < 5)
            cr_assert_eq(per_dst[d], 0u, "to its own half");
        else
            rig_assert_binomial(per_dst[d], sent, 1.0 / 5, "to the other half");
    memset(per_dst, 0, sizeof per_dst);
    rig_defaults(&rp, "many-all-to-all");
    rig_set(&rp, "group", value_int(4));
    rig_set_choice(&rp, "partition", "consecutive");
    sent = open_ended(&rp, "many-all-to-all", 10, 5, per_dst);
    for (uint32_t d = 0; d < 10; d++)
        if (d < 4 || d > 7 || d == 5)
            cr_assert_eq(per_dst[d], 0u, "outside the group");
        else
            rig_assert_binomial(per_dst[d], sent, 1.0 / 3, "within the group");
    memset(per_dst, 0, sizeof per_dst);
    rig_defaults(&rp, "all-to-all");
    sent = open_ended(&rp, "all-to-all", 10, 0, per_dst);
    for (uint32_t d = 1; d < 10; d++)
        rig_assert_binomial(per_dst[d], sent, 1.0 / 9, "to every other");
    memset(per_dst, 0, sizeof per_dst);
    rig_defaults(&rp, "all-to-one");
    rig_set(&rp, "root", value_int(3));
    sent = open_ended(&rp, "all-to-one", 10, 7, per_dst);
    cr_assert_eq(per_dst[3], sent);
}

Test(flows, open_ended_rate_is_the_load)
{
    rig_params rp;
    rig_defaults(&rp, "bisection");
    rig_set_choice(&rp, "mode", "load");
    rig_set(&rp, "load", value_double(0.4));
    traffic_rig r;
    rig_tasks(&r, 16, 16);
    rig_create(&r, "bisection", rp.v); /* p = 0.025 */
    uint64_t sent = rig_run_all(&r, 50000);
    rig_assert_binomial(sent, 16 * 50000, 0.025, "messages");
    rig_free(&r);
}
