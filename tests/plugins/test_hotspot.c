/* test_hotspot.c — hot-spot traffic: the hot task gets `fraction` of every
 * other task's packets plus its uniform share of the rest, within binomial
 * bounds; the rest spreads evenly; the hot task itself sends uniformly and
 * never to itself; an out-of-range hot task is refused; the Bernoulli rate. */
#include "traffic_rig.h"

#include <criterion/criterion.h>
#include <string.h>

static void make(traffic_rig *r, double load, double fraction, int64_t node)
{
    rig_params rp;
    insee_value params[3] = {value_double(load), value_double(fraction), value_int(node)};
    rig_create(r, "hotspot", rig_with(&rp, "hotspot", params, 3));
}

/* 64 tasks, a packet every cycle from task `src`: the count to the hot
   task and to each other task within binomial bounds. */
static void assert_shares(double fraction, uint32_t hot, uint32_t src)
{
    traffic_rig r;
    rig_tasks(&r, 64, 1);
    make(&r, 1.0, fraction, hot);
    uint64_t per_dst[64] = {0};
    uint64_t sent = rig_run(&r, src, 200000, per_dst);
    cr_assert_eq(sent, 200000u);
    double other = (1 - fraction) / 63; /* each task's share of the uniform rest */
    rig_assert_binomial(per_dst[hot], sent, fraction + other, "to the hot task");
    for (uint32_t d = 0; d < 64; d++)
        if (d != hot && d != src)
            rig_assert_binomial(per_dst[d], sent, other, "to another task");
    rig_free(&r);
}

Test(hotspot, default_two_percent_to_node_0)
{
    assert_shares(0.02, 0, 5);
}

Test(hotspot, half_to_node_7)
{
    assert_shares(0.5, 7, 63);
}

Test(hotspot, everything_to_the_hot_task)
{
    assert_shares(1.0, 12, 0);
}

Test(hotspot, the_hot_task_sends_uniformly_to_the_others)
{
    traffic_rig r;
    rig_tasks(&r, 16, 1);
    make(&r, 1.0, 0.5, 3);
    uint64_t per_dst[16] = {0};
    uint64_t sent = rig_run(&r, 3, 150000, per_dst); /* rig_run asserts dst != 3 */
    for (uint32_t d = 0; d < 16; d++)
        if (d != 3)
            rig_assert_binomial(per_dst[d], sent, 1.0 / 15, "from the hot task");
    rig_free(&r);
}

Test(hotspot, hot_task_out_of_range)
{
    traffic_rig r;
    rig_tasks(&r, 64, 16);
    rig_params rp;
    insee_value params[3] = {value_double(0.1), value_double(0.02), value_int(64)};
    insee_error err = {0};
    cr_assert_null(rig_try(&r, "hotspot", rig_with(&rp, "hotspot", params, 3), &err));
    cr_assert_eq(err.code, INSEE_ERR_PARAM);
    cr_assert_not_null(strstr(err.message, "node = 64"), "%s", err.message);
    rig_free(&r);
}

Test(hotspot, rate_is_load_over_packet_length)
{
    traffic_rig r;
    rig_tasks(&r, 64, 16);
    make(&r, 0.4, 0.02, 0); /* p = 0.025 */
    uint64_t sent = rig_run_all(&r, 50000);
    rig_assert_binomial(sent, 64 * 50000, 0.025, "packets");
    cr_assert_float_eq(r.vt->offered_load(r.self), 0.4, 1e-12);
    rig_free(&r);
}

Test(hotspot, parameter_table)
{
    const insee_plugin_desc *d = load_plugin("traffic", "hotspot");
    cr_assert_str_eq(d->params[0].name, "load");
    cr_assert_str_eq(d->params[1].name, "fraction");
    cr_assert_str_eq(d->params[1].default_value, "0.02");
    cr_assert_str_eq(d->params[2].name, "node");
    cr_assert_str_eq(d->params[2].default_value, "0");
    rig_assert_source_params(d, 3);
}
