/* test_sequential.c — INSEE's distribution patterns (§3.2.1, Table 1): SD
 * sends to t+1, t+2, ..., t-1 and again, exactly; RD goes on in the same
 * order from a first destination uniform among the other tasks (over many
 * seeds, within binomial bounds); the Bernoulli rate; one task refused. */
#include "traffic_rig.h"

#include <criterion/criterion.h>
#include <string.h>

/* The first n destinations of `task`. */
static void destinations(traffic_rig *r, uint32_t task, uint32_t *dst, int n)
{
    insee_rng rng;
    r->host.rng_seed(r->host.kernel, task, &rng);
    uint64_t t = r->vt->start(r->self, task, &rng);
    for (int i = 0; i < n; i++) {
        insee_message m;
        cr_assert(r->vt->emit(r->self, task, t, &rng, &m, &t));
        dst[i] = m.dst;
    }
}

static void make(traffic_rig *r, const char *start, uint32_t tasks, uint64_t seed)
{
    rig_params rp;
    rig_defaults(&rp, "sequential");
    rig_set_choice(&rp, "start", start);
    rig_set(&rp, "load", value_double(0.5));
    rig_tasks(r, tasks, 2);
    r->k.seed = seed;
    rig_create(r, "sequential", rp.v);
}

Test(sequential, sd_from_the_next_task_in_turn)
{
    traffic_rig r;
    make(&r, "next", 7, 42);
    for (uint32_t s = 0; s < 7; s++) {
        uint32_t dst[20];
        destinations(&r, s, dst, 20);
        /* t+1 .. t+6 mod 7, skipping t, three times over. */
        for (int i = 0; i < 20; i++)
            cr_assert_eq(dst[i], (s + 1 + i % 6) % 7, "task %u message %d", s, i);
    }
    rig_free(&r);
}

Test(sequential, rd_from_a_random_task_in_turn)
{
    const uint64_t seeds = 6000;
    uint64_t first[8] = {0};
    for (uint64_t seed = 1; seed <= seeds; seed++) {
        traffic_rig r;
        make(&r, "random", 8, seed);
        uint32_t dst[15];
        destinations(&r, 3, dst, 15);
        first[dst[0]]++;
        for (int i = 1; i < 15; i++) {
            uint32_t want = (dst[i - 1] + 1) % 8;
            if (want == 3)
                want = 4; /* the source is skipped */
            cr_assert_eq(dst[i], want, "seed %lu message %d", (unsigned long)seed, i);
        }
        rig_free(&r);
    }
    cr_assert_eq(first[3], 0u);
    for (uint32_t d = 0; d < 8; d++)
        if (d != 3)
            rig_assert_binomial(first[d], seeds, 1.0 / 7, "first destination");
}

Test(sequential, rate_is_load_over_packet_length)
{
    traffic_rig r;
    make(&r, "random", 16, 42); /* load 0.5, L = 2: p = 0.25 */
    uint64_t sent = rig_run_all(&r, 40000);
    rig_assert_binomial(sent, 16 * 40000, 0.25, "messages");
    cr_assert_float_eq(r.vt->offered_load(r.self), 0.5, 1e-12);
    rig_free(&r);
}

Test(sequential, one_task_has_no_destination)
{
    rig_params rp;
    rig_defaults(&rp, "sequential");
    traffic_rig r;
    rig_tasks(&r, 1, 16);
    insee_error err = {0};
    cr_assert_null(rig_try(&r, "sequential", rp.v, &err));
    cr_assert_eq(err.code, INSEE_ERR_UNSUPPORTED);
    cr_assert_not_null(strstr(err.message, "use at least 2 tasks"), "%s", err.message);
    rig_free(&r);
}

Test(sequential, parameter_table)
{
    const insee_plugin_desc *d = load_plugin("traffic", "sequential");
    cr_assert_str_eq(d->params[0].name, "load");
    cr_assert_str_eq(d->params[1].name, "start");
    cr_assert_str_eq(d->params[1].choices, "next|random");
    rig_assert_source_params(d, 2);
}
