/* sdk/conformance/check_arbiter.c — the arbiter suite: pick() driven the way
 * the kernel drives it for one output port, with requests that behave like
 * input queues (a head keeps asking until granted; the queue behind it
 * grows while it waits, and the next head asks from the next cycle).
 *
 * Bounds are chosen so that a fair randomized arbiter passes too: with n
 * constant requesters every input must win within 16 n picks (a uniform
 * random pick misses one input that long with probability below 1e-6), and
 * under random load no head may wait more than WAIT_BOUND picks.
 */
#include "conform.h"

#define INPUTS 16u      /* requesters of one output port */
#define TRANSIT 12u     /* inputs below this are transit queues, the rest injection */
#define MAX_QUEUE 8u    /* packets an input queue holds */
#define RANDOM_CALLS 10000u
#define WAIT_BOUND 256u /* picks a continuously requesting head may lose in a row */

typedef struct input {
    gboolean requesting;
    uint32_t occupancy;
    uint64_t since, born;
    uint32_t lost; /* picks lost in a row by the current head */
} input;

static conform_status check_create(conform_ctx *ctx, GString *detail)
{
    const insee_arbiter_vtable *vt = ctx->plugin->vtable;
    return conform_instances_setup(ctx, TRUE, FALSE, vt->create, vt->destroy, detail);
}

/* The per-output-port state the kernel would allocate: zeroed. */
static void *port_state(const insee_arbiter_vtable *vt, const conform_instance *inst)
{
    size_t size = vt->state_size ? vt->state_size(inst->self) : 0;
    return g_malloc0(MAX(size, 1u));
}

static insee_request request_of(uint32_t index, const input *in)
{
    return (insee_request){
        .input = index,
        .occupancy = in->occupancy,
        .since = in->since,
        .born = in->born,
        .transit = index < TRANSIT,
    };
}

/* The granted head leaves; the next one (if any) asks from the next cycle. */
static void next_head(input *in, uint64_t now, uint64_t born)
{
    in->lost = 0;
    in->occupancy--;
    in->since = now + 1;
    in->born = born;
}

static void pick_range_at(const conform_ctx *ctx, const conform_instance *inst, conform_findings *f,
                          void *data)
{
    (void)data;
    const insee_arbiter_vtable *vt = ctx->plugin->vtable;
    void *ps = port_state(vt, inst);
    insee_rng rng, scenario;
    insee_rng_init(&rng, CONFORM_SEED, 1);
    insee_rng_init(&scenario, CONFORM_SEED, 2);
    uint64_t now = 100;
    for (uint32_t n = 1; n <= INPUTS; n++)
        for (int trial = 0; trial < 64; trial++, now++) {
            /* n distinct inputs among 2 * INPUTS, in increasing order. */
            insee_request req[INPUTS];
            uint32_t k = 0;
            for (uint32_t idx = 0; idx < 2 * INPUTS && k < n; idx++)
                if (insee_rng_below(&scenario, 2 * INPUTS - idx) < n - k) {
                    uint64_t since = now - insee_rng_below(&scenario, 50);
                    input in = {TRUE, 1 + insee_rng_below(&scenario, MAX_QUEUE), since,
                                since - insee_rng_below(&scenario, 50), 0};
                    req[k++] = request_of(idx, &in);
                }
            uint32_t got = vt->pick(inst->self, ps, req, n, now, &rng);
            if (got >= n)
                conform_note(f, inst->setting->label, "pick() returned %u for %u requests", got, n);
        }
    g_free(ps);
}

static conform_status check_pick_range(conform_ctx *ctx, GString *detail)
{
    return conform_each_instance(ctx, detail, pick_range_at, NULL);
}

static void fair_saturated_at(const conform_ctx *ctx, const conform_instance *inst,
                              conform_findings *f, void *data)
{
    (void)data;
    const insee_arbiter_vtable *vt = ctx->plugin->vtable;
    for (uint32_t n = 1; n <= INPUTS; n++) {
        void *ps = port_state(vt, inst);
        insee_rng rng;
        insee_rng_init(&rng, CONFORM_SEED, n);
        input in[INPUTS];
        uint32_t wins[INPUTS] = {0};
        for (uint32_t k = 0; k < n; k++)
            in[k] = (input){TRUE, MAX_QUEUE, 0, 0, 0};
        gboolean broken = FALSE;
        for (uint64_t now = 0; now < 16u * n && !broken; now++) {
            insee_request req[INPUTS];
            for (uint32_t k = 0; k < n; k++)
                req[k] = request_of(k, &in[k]);
            uint32_t got = vt->pick(inst->self, ps, req, n, now, &rng);
            if (got >= n) {
                broken = TRUE; /* arb.pick-range reports it */
                continue;
            }
            wins[got]++;
            next_head(&in[got], now, now);
            if (in[got].occupancy == 0) /* saturation: the queue refills */
                in[got].occupancy = MAX_QUEUE;
        }
        for (uint32_t k = 0; k < n && !broken; k++)
            if (wins[k] == 0)
                conform_note(f, inst->setting->label,
                             "with %u inputs requesting every cycle, input %u won none of %u picks", n,
                             k, 16u * n);
        g_free(ps);
    }
}

static conform_status check_fair_saturated(conform_ctx *ctx, GString *detail)
{
    return conform_each_instance(ctx, detail, fair_saturated_at, NULL);
}

/* Random load on one output port for `calls` picks; returns the longest run
   of lost picks of a continuously requesting head (in *worst_input), and
   the picks made when `picks` is given. */
static uint32_t run_random(const insee_arbiter_vtable *vt, const conform_instance *inst,
                           GArray *picks, uint32_t *worst_input)
{
    void *ps = port_state(vt, inst);
    insee_rng rng, scenario;
    insee_rng_init(&rng, CONFORM_SEED, 1);
    insee_rng_init(&scenario, CONFORM_SEED, 2);
    input in[INPUTS] = {{0}};
    uint32_t worst = 0;
    uint32_t calls = 0;
    for (uint64_t now = 0; calls < RANDOM_CALLS; now++) {
        insee_request req[INPUTS];
        uint32_t map[INPUTS], n = 0;
        for (uint32_t k = 0; k < INPUTS; k++) {
            input *q = &in[k];
            if (!q->requesting && insee_rng_below(&scenario, 4) == 0) {
                uint64_t age = insee_rng_below(&scenario, 64);
                age = MIN(age, now); /* never born before cycle 0 */
                *q = (input){TRUE, 1 + insee_rng_below(&scenario, MAX_QUEUE / 2), now, now - age, 0};
            } else if (q->requesting && q->occupancy < MAX_QUEUE && insee_rng_below(&scenario, 20) == 0) {
                q->occupancy++; /* the queue behind a waiting head grows */
            }
            if (q->requesting) {
                map[n] = k;
                req[n++] = request_of(k, q);
            }
        }
        if (n == 0)
            continue;
        calls++;
        uint32_t got = vt->pick(inst->self, ps, req, n, now, &rng);
        if (picks)
            g_array_append_val(picks, got);
        for (uint32_t j = 0; j < n; j++) {
            input *q = &in[map[j]];
            if (j != got) {
                if (++q->lost > worst) {
                    worst = q->lost;
                    *worst_input = map[j];
                }
                continue;
            }
            uint64_t age = insee_rng_below(&scenario, 64);
            age = MIN(age, now);
            next_head(q, now, now - age);
            q->requesting = q->occupancy > 0 && insee_rng_below(&scenario, 2) == 0;
        }
    }
    g_free(ps);
    return worst;
}

/* Notes a starving input; data: the longest wait seen so far (uint32_t). */
static void bounded_wait_at(const conform_ctx *ctx, const conform_instance *inst, conform_findings *f,
                            void *data)
{
    uint32_t *longest = data;
    uint32_t who = 0;
    uint32_t worst = run_random(ctx->plugin->vtable, inst, NULL, &who);
    *longest = MAX(*longest, worst);
    if (worst > WAIT_BOUND)
        conform_note(f, inst->setting->label,
                     "under random load input %u lost %u picks in a row while requesting", who, worst);
}

static conform_status check_bounded_wait(conform_ctx *ctx, GString *detail)
{
    uint32_t longest = 0;
    conform_status s = conform_each_instance(ctx, detail, bounded_wait_at, &longest);
    if (s == CONFORM_PASS)
        g_string_printf(detail, "longest wait: %u picks lost in a row", longest);
    return s;
}

static void deterministic_at(const conform_ctx *ctx, const conform_instance *inst, conform_findings *f,
                             void *data)
{
    (void)data;
    GArray *a = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    GArray *b = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    uint32_t who = 0;
    run_random(ctx->plugin->vtable, inst, a, &who);
    run_random(ctx->plugin->vtable, inst, b, &who);
    for (guint k = 0; k < a->len; k++)
        if (g_array_index(a, uint32_t, k) != g_array_index(b, uint32_t, k)) {
            conform_note(f, inst->setting->label,
                         "same requests, same rng stream and a fresh state, but pick %u differs", k);
            break;
        }
    g_array_free(a, TRUE);
    g_array_free(b, TRUE);
}

static conform_status check_deterministic(conform_ctx *ctx, GString *detail)
{
    return conform_each_instance(ctx, detail, deterministic_at, NULL);
}

static const conform_check arbiter_checks[] = {
    {"arb.create", CONFORM_ERROR, "create() succeeds at the defaults (and at every choice of its enums)",
     "fill err with what is wrong; defaults must work", check_create},
    {"arb.pick-range", CONFORM_ERROR,
     "pick() returns an index in [0, n) for n = 1..16: a request is always granted (work-conserving)",
     "return a position in the request array, not an input number", check_pick_range},
    {"arb.fair-saturated", CONFORM_ERROR,
     "with n inputs requesting every cycle, each wins at least once in 16 n picks",
     "break ties by rotating from the last grant (keep it in the per-port state), not by lowest "
     "index",
     check_fair_saturated},
    {"arb.bounded-wait", CONFORM_WARNING,
     "under random load no requesting head loses more than 256 picks in a row (no starvation)",
     "let waiting heads age: priorities that only look at queue length can starve a short queue",
     check_bounded_wait},
    {"arb.deterministic", CONFORM_ERROR,
     "the same requests, rng stream and fresh state give the same picks",
     "draw randomness only from the rng argument and keep history only in the per-port state",
     check_deterministic},
};

const conform_suite conform_arbiter_suite =
    CONFORM_SUITE(INSEE_KIND_ARBITER, arbiter_checks, conform_validate_own, conform_instances_cleanup);
