/* test_uniform.c — uniform traffic: Bernoulli rate load/L per cycle within
 * 3 % over 10^5 cycles, destinations never the source and covering every
 * other task evenly, load 0 never sends, offered_load reports the load. */
#include "traffic_rig.h"

#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

static void *uniform_try(traffic_rig *r, double load, bool self_ok, uint32_t tasks, uint32_t L,
                         insee_error *err)
{
    rig_tasks(r, tasks, L);
    r->self_ok = self_ok;
    rig_params rp;
    insee_value params[2] = {value_double(load), value_bool(self_ok)};
    return rig_try(r, "uniform", rig_with(&rp, "uniform", params, 2), err);
}

static void uniform_make(traffic_rig *r, double load, bool self_ok, uint32_t tasks, uint32_t L)
{
    insee_error err = {0};
    cr_assert_not_null(uniform_try(r, load, self_ok, tasks, L, &err), "%s", err.message);
}

Test(uniform, rate_of_one_node)
{
    traffic_rig s;
    uniform_make(&s, 0.8, false, 16, 4); /* p = 0.2 packets/cycle */
    double rate = (double)rig_run(&s, 3, 100000, NULL) / 100000;
    cr_assert(fabs(rate - 0.2) < 0.03 * 0.2, "rate %g, want 0.2", rate);
    cr_assert_float_eq(s.vt->offered_load(s.self), 0.8, 1e-12);
    rig_free(&s);
}

Test(uniform, rate_over_all_nodes_with_long_packets)
{
    traffic_rig s;
    uniform_make(&s, 0.1, false, 64, 16); /* the INSEE default: p = 1/160 */
    uint64_t sent = 0;
    for (uint32_t task = 0; task < 64; task++)
        sent += rig_run(&s, task, 100000, NULL);
    double rate = (double)sent / (64.0 * 100000);
    cr_assert(fabs(rate - 0.1 / 16) < 0.03 * 0.1 / 16, "rate %g, want %g", rate, 0.1 / 16);
    rig_free(&s);
}

Test(uniform, destinations_are_the_others_evenly)
{
    traffic_rig s;
    uniform_make(&s, 1.0, false, 16, 1); /* a packet every cycle */
    uint64_t per_dst[16] = {0};
    uint64_t sent = rig_run(&s, 5, 150000, per_dst);
    cr_assert_eq(sent, 150000u);
    cr_assert_eq(per_dst[5], 0u, "the source drew itself");
    for (uint32_t d = 0; d < 16; d++)
        if (d != 5)
            cr_assert(per_dst[d] > 9000 && per_dst[d] < 11000, "dst %u: %lu of 150000", d,
                      (unsigned long)per_dst[d]);
    /* the end tasks reach each other (the step over the source) */
    uint64_t from0[16] = {0}, from15[16] = {0};
    rig_run(&s, 0, 1000, from0);
    rig_run(&s, 15, 1000, from15);
    cr_assert_eq(from0[0], 0u);
    cr_assert_gt(from0[15], 0u);
    cr_assert_eq(from15[15], 0u);
    cr_assert_gt(from15[0], 0u);
    rig_free(&s);
}

Test(uniform, self_allowed_when_asked)
{
    traffic_rig s;
    uniform_make(&s, 1.0, true, 4, 1);
    uint64_t per_dst[4] = {0};
    rig_run(&s, 2, 4000, per_dst);
    for (uint32_t d = 0; d < 4; d++)
        cr_assert_gt(per_dst[d], 800u);
    rig_free(&s);
}

Test(uniform, zero_load_never_sends)
{
    traffic_rig s;
    uniform_make(&s, 0.0, false, 8, 16);
    insee_rng rng;
    insee_rng_init(&rng, 1, 1);
    cr_assert_eq(s.vt->start(s.self, 0, &rng), INSEE_NEVER);
    cr_assert_float_eq(s.vt->offered_load(s.self), 0.0, 1e-12);
    rig_free(&s);
}

Test(uniform, one_task_has_no_destination)
{
    traffic_rig s;
    insee_error err = {0};
    cr_assert_null(uniform_try(&s, 0.5, false, 1, 16, &err));
    cr_assert_eq(err.code, INSEE_ERR_UNSUPPORTED);
    cr_assert_not_null(strstr(err.message, "self"), "%s", err.message);
}

Test(uniform, parameter_table)
{
    const insee_plugin_desc *d = load_plugin("traffic", "uniform");
    cr_assert_str_eq(d->params[0].name, "load");
    cr_assert_eq(d->params[0].type, INSEE_PARAM_DOUBLE);
    cr_assert_str_eq(d->params[0].default_value, "0.1");
    cr_assert_eq(d->params[0].min, 0.0);
    cr_assert_eq(d->params[0].max, 1.0);
    cr_assert_str_eq(d->params[1].name, "self");
    cr_assert_eq(d->params[1].type, INSEE_PARAM_BOOL);
    cr_assert_str_eq(d->params[1].default_value, "false");
    rig_assert_source_params(d, 2);
}
