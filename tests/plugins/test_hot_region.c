/* test_hot_region.c — hot-region traffic: the first floor(region x N)
 * tasks get `fraction` of the packets plus their uniform share of the rest,
 * evenly among them, within binomial bounds; a hot source draws among the
 * other hot tasks; a region of one task that sends to itself sends
 * uniformly instead; the Bernoulli rate. */
#include "traffic_rig.h"

#include <criterion/criterion.h>

static void make(traffic_rig *r, uint32_t tasks, double load, double fraction, double region)
{
    rig_tasks(r, tasks, 1);
    rig_params rp;
    insee_value params[3] = {value_double(load), value_double(fraction), value_double(region)};
    rig_create(r, "hot-region", rig_with(&rp, "hot-region", params, 3));
}

/* A packet every cycle from `src`: each hot task's count and each cold
   one's within binomial bounds. */
static void assert_shares(uint32_t tasks, double fraction, double region, uint32_t hot,
                          uint32_t src)
{
    traffic_rig r;
    make(&r, tasks, 1.0, fraction, region);
    uint64_t per_dst[64] = {0};
    uint64_t sent = rig_run(&r, src, 200000, per_dst);
    double rest = (1 - fraction) / (tasks - 1);         /* uniform share of each other task */
    uint32_t hot_others = src < hot ? hot - 1 : hot;    /* hot tasks but the source */
    double in_region = fraction / hot_others + rest;
    uint64_t region_total = 0;
    for (uint32_t d = 0; d < tasks; d++) {
        if (d == src)
            continue;
        rig_assert_binomial(per_dst[d], sent, d < hot ? in_region : rest,
                            d < hot ? "to a hot task" : "to a cold task");
        region_total += d < hot ? per_dst[d] : 0;
    }
    rig_assert_binomial(region_total, sent, fraction + rest * hot_others, "into the region");
    rig_free(&r);
}

Test(hot_region, default_quarter_to_the_first_eighth)
{
    assert_shares(64, 0.25, 0.125, 8, 40);
}

Test(hot_region, a_hot_source_draws_among_the_other_hot_tasks)
{
    assert_shares(64, 0.25, 0.125, 8, 3);
}

Test(hot_region, region_rounds_down)
{
    assert_shares(20, 0.6, 0.29, 5, 19); /* floor(0.29 x 20) = 5 */
}

/* region 0.01 of 16 tasks is one task (at least one): task 0 has no other
   hot task and sends uniformly; the others send it fraction + their share. */
Test(hot_region, a_region_of_one)
{
    traffic_rig r;
    make(&r, 16, 1.0, 0.5, 0.01);
    uint64_t per_dst[16] = {0};
    uint64_t sent = rig_run(&r, 0, 150000, per_dst);
    for (uint32_t d = 1; d < 16; d++)
        rig_assert_binomial(per_dst[d], sent, 1.0 / 15, "from the only hot task");
    rig_free(&r);
    assert_shares(16, 0.5, 0.01, 1, 9);
}

Test(hot_region, rate_is_load_over_packet_length)
{
    traffic_rig r;
    rig_tasks(&r, 64, 8);
    rig_params rp;
    insee_value params[3] = {value_double(0.6), value_double(0.25), value_double(0.125)};
    rig_create(&r, "hot-region", rig_with(&rp, "hot-region", params, 3)); /* p = 0.075 */
    uint64_t sent = rig_run_all(&r, 30000);
    rig_assert_binomial(sent, 64 * 30000, 0.075, "packets");
    cr_assert_float_eq(r.vt->offered_load(r.self), 0.6, 1e-12);
    rig_free(&r);
}

Test(hot_region, parameter_table)
{
    const insee_plugin_desc *d = load_plugin("traffic", "hot-region");
    cr_assert_str_eq(d->params[0].name, "load");
    cr_assert_str_eq(d->params[1].name, "fraction");
    cr_assert_str_eq(d->params[1].default_value, "0.25");
    cr_assert_str_eq(d->params[2].name, "region");
    cr_assert_str_eq(d->params[2].default_value, "0.125");
    rig_assert_source_params(d, 3);
}
