/* Link sharing of the dynamic flow engine (kernel/flow/share.c): max-min
 * fairness checked by its definition on random networks and flow sets, the
 * incremental update against a share built afresh, INRFlow's equal rule
 * where it differs from max-min, and the two traffic-class policies. */
#include <criterion/criterion.h>
#include <math.h>

#include "flow/share.h"
#include "insee/rng.h"

static void ignore(void *ctx, uint32_t flow, double rate)
{
    (void)ctx, (void)flow, (void)rate;
}

/* The rates update() reported, by flow id. */
static void record(void *ctx, uint32_t flow, double rate)
{
    ((double *)ctx)[flow] = rate;
}

#define LINKS 12
#define MAX_FLOWS 40

typedef struct flow_set {
    uint32_t links[MAX_FLOWS][4], n[MAX_FLOWS], id[MAX_FLOWS];
    gboolean live[MAX_FLOWS];
} flow_set;

static void draw_flow(insee_rng *rng, flow_set *fs, uint32_t f)
{
    fs->n[f] = 1 + (uint32_t)insee_rng_below(rng, 4);
    for (uint32_t i = 0; i < fs->n[f]; i++) {
        uint32_t l;
        gboolean again;
        do {
            l = (uint32_t)insee_rng_below(rng, LINKS);
            again = FALSE;
            for (uint32_t j = 0; j < i; j++)
                again |= fs->links[f][j] == l;
        } while (again);
        fs->links[f][i] = l;
    }
}

/* Max-min by definition: no link over its capacity, and every flow crosses
   a full link on which no flow runs faster than it. */
static void assert_max_min(const insee_share *s, const double *cap, const flow_set *fs)
{
    double used[LINKS] = {0}, fastest[LINKS] = {0};
    for (uint32_t f = 0; f < MAX_FLOWS; f++) {
        if (!fs->live[f])
            continue;
        double r = insee_share_rate(s, fs->id[f]);
        cr_assert(r > 0, "flow %u has no rate", f);
        for (uint32_t i = 0; i < fs->n[f]; i++) {
            used[fs->links[f][i]] += r;
            fastest[fs->links[f][i]] = fmax(fastest[fs->links[f][i]], r);
        }
    }
    for (uint32_t l = 0; l < LINKS; l++)
        cr_assert(used[l] <= cap[l] * (1 + 1e-9), "link %u carries %g > %g", l, used[l], cap[l]);
    for (uint32_t f = 0; f < MAX_FLOWS; f++) {
        if (!fs->live[f])
            continue;
        double r = insee_share_rate(s, fs->id[f]);
        gboolean bottleneck = FALSE;
        for (uint32_t i = 0; i < fs->n[f]; i++) {
            uint32_t l = fs->links[f][i];
            bottleneck |= used[l] >= cap[l] * (1 - 1e-9) && r >= fastest[l] * (1 - 1e-9);
        }
        cr_assert(bottleneck, "flow %u (rate %g) has no bottleneck link", f, r);
    }
}

Test(share, max_min_holds_on_random_networks_as_flows_come_and_go)
{
    for (uint64_t seed = 1; seed <= 50; seed++) {
        insee_rng rng;
        insee_rng_init(&rng, seed, 0);
        double cap[LINKS];
        for (uint32_t l = 0; l < LINKS; l++)
            cap[l] = 1 + (double)insee_rng_below(&rng, 10);
        insee_share *s = insee_share_new(LINKS, cap, INSEE_SHARE_MAXMIN, INSEE_SHARE_NP, 0.5);
        flow_set fs = {0};
        /* Ended ids wait until they are as many as the live flows. */
        double told[3 * MAX_FLOWS] = {0};
        for (int step = 0; step < 30; step++) {
            /* Several flows start or end between two updates; every third
               step flows only end (the update may then keep the rates). */
            for (int k = 0; k < 3; k++) {
                uint32_t f = (uint32_t)insee_rng_below(&rng, MAX_FLOWS);
                if (step % 3 == 2 && !fs.live[f])
                    continue;
                if (fs.live[f]) {
                    insee_share_remove(s, fs.id[f]);
                    fs.live[f] = FALSE;
                } else {
                    draw_flow(&rng, &fs, f);
                    fs.id[f] = insee_share_add(s, fs.links[f], fs.n[f], INSEE_SHARE_APP);
                    cr_assert_lt(fs.id[f], 3 * MAX_FLOWS);
                    told[fs.id[f]] = 0; /* a new flow starts at rate 0 */
                    fs.live[f] = TRUE;
                }
            }
            insee_share_update(s, record, told);
            assert_max_min(s, cap, &fs);
            /* Every change was told: the caller's rates are the share's. */
            for (uint32_t f = 0; f < MAX_FLOWS; f++)
                if (fs.live[f])
                    cr_assert_eq(told[fs.id[f]], insee_share_rate(s, fs.id[f]),
                                 "flow %u's new rate was not reported", f);
            /* The same flows shared afresh get the same rates. */
            insee_share *fresh =
                insee_share_new(LINKS, cap, INSEE_SHARE_MAXMIN, INSEE_SHARE_NP, 0.5);
            uint32_t id[MAX_FLOWS];
            for (uint32_t f = 0; f < MAX_FLOWS; f++)
                if (fs.live[f])
                    id[f] = insee_share_add(fresh, fs.links[f], fs.n[f], INSEE_SHARE_APP);
            insee_share_update(fresh, ignore, NULL);
            for (uint32_t f = 0; f < MAX_FLOWS; f++)
                if (fs.live[f])
                    cr_assert_float_eq(insee_share_rate(s, fs.id[f]),
                                       insee_share_rate(fresh, id[f]), 1e-9,
                                       "seed %lu step %d flow %u", (unsigned long)seed, step, f);
            insee_share_free(fresh);
        }
        insee_share_free(s);
    }
}

/* Flows that end are dropped from their links' arrays lazily, their ids
   reused once the ended ones are as many as the live: with 40 flows live
   and 5 replaced at each of 2000 updates, ids stay below 2 * 40 + 5 + 5,
   and the rates stay those of a share built afresh. */
Test(share, ended_flows_leave_no_trace_and_their_ids_come_back)
{
    enum { LIVE = MAX_FLOWS, TURN = 5, STEPS = 2000 };
    double cap[LINKS];
    for (uint32_t l = 0; l < LINKS; l++)
        cap[l] = 1 + l;
    insee_rng rng;
    insee_rng_init(&rng, 7, 0);
    insee_share *s = insee_share_new(LINKS, cap, INSEE_SHARE_MAXMIN, INSEE_SHARE_NP, 0.5);
    flow_set fs = {0};
    uint32_t max_id = 0;
    for (uint32_t f = 0; f < LIVE; f++) {
        draw_flow(&rng, &fs, f);
        fs.id[f] = insee_share_add(s, fs.links[f], fs.n[f], INSEE_SHARE_APP);
        fs.live[f] = TRUE;
    }
    insee_share_update(s, ignore, NULL);
    for (int step = 0; step < STEPS; step++) {
        for (int k = 0; k < TURN; k++) {
            uint32_t f = (uint32_t)insee_rng_below(&rng, LIVE);
            insee_share_remove(s, fs.id[f]);
            draw_flow(&rng, &fs, f);
            fs.id[f] = insee_share_add(s, fs.links[f], fs.n[f], INSEE_SHARE_APP);
            max_id = MAX(max_id, fs.id[f]);
        }
        insee_share_update(s, ignore, NULL);
    }
    cr_assert_lt(max_id, 2 * LIVE + 2 * TURN, "ids grew to %u", max_id);
    assert_max_min(s, cap, &fs);
    insee_share_free(s);
}

/* Link 0 (capacity 1) carries flows a, b, c; b also crosses link 1
   (capacity 0.2). Max-min gives b 0.2 and a, c the 0.8 left; INRFlow's rule
   gives a and c a third of link 0 each and leaves 0.267 of it unused. */
Test(share, equal_sharing_leaves_what_max_min_gives_away)
{
    const double cap[2] = {1, 0.2};
    const uint32_t a[] = {0}, b[] = {0, 1}, c[] = {0};
    for (int rule = 0; rule < 2; rule++) {
        insee_share *s = insee_share_new(2, cap, rule ? INSEE_SHARE_EQUAL : INSEE_SHARE_MAXMIN,
                                         INSEE_SHARE_NP, 0.5);
        uint32_t fa = insee_share_add(s, a, 1, 0), fb = insee_share_add(s, b, 2, 0),
                 fc = insee_share_add(s, c, 1, 0);
        insee_share_update(s, ignore, NULL);
        cr_assert_float_eq(insee_share_rate(s, fb), 0.2, 1e-12);
        double other = rule ? 1.0 / 3 : 0.4;
        cr_assert_float_eq(insee_share_rate(s, fa), other, 1e-12, "rule %d", rule);
        cr_assert_float_eq(insee_share_rate(s, fc), other, 1e-12, "rule %d", rule);
        insee_share_free(s);
    }
}

/* BA: on a link both classes cross each gets its share; alone, the whole
   link. FP: I/O gets what application flows leave. */
Test(share, bandwidth_apportionment_and_application_first)
{
    const double cap[2] = {1, 0.2};
    const uint32_t link0[] = {0}, both[] = {0, 1};
    for (int rule = 0; rule < 2; rule++) {
        insee_share_rule r = rule ? INSEE_SHARE_EQUAL : INSEE_SHARE_MAXMIN;
        insee_share *ba = insee_share_new(2, cap, r, INSEE_SHARE_BA, 0.7);
        uint32_t app = insee_share_add(ba, link0, 1, INSEE_SHARE_APP);
        insee_share_update(ba, ignore, NULL);
        cr_assert_float_eq(insee_share_rate(ba, app), 1.0, 1e-12, "alone");
        uint32_t io = insee_share_add(ba, link0, 1, INSEE_SHARE_IO);
        insee_share_update(ba, ignore, NULL);
        cr_assert_float_eq(insee_share_rate(ba, app), 0.7, 1e-12);
        cr_assert_float_eq(insee_share_rate(ba, io), 0.3, 1e-12);
        insee_share_remove(ba, app);
        insee_share_update(ba, ignore, NULL);
        cr_assert_float_eq(insee_share_rate(ba, io), 1.0, 1e-12, "I/O alone");
        insee_share_free(ba);

        insee_share *fp = insee_share_new(2, cap, r, INSEE_SHARE_FP, 0.5);
        uint32_t slow = insee_share_add(fp, both, 2, INSEE_SHARE_APP);
        uint32_t io1 = insee_share_add(fp, link0, 1, INSEE_SHARE_IO);
        uint32_t io2 = insee_share_add(fp, link0, 1, INSEE_SHARE_IO);
        insee_share_update(fp, ignore, NULL);
        cr_assert_float_eq(insee_share_rate(fp, slow), 0.2, 1e-12, "rule %d", rule);
        cr_assert_float_eq(insee_share_rate(fp, io1), 0.4, 1e-12, "rule %d", rule);
        cr_assert_float_eq(insee_share_rate(fp, io2), 0.4, 1e-12, "rule %d", rule);
        insee_share_free(fp);
    }
}
