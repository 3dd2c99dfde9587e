/* test_local.c — local traffic: from a source, each destination with the
 * probability the definition gives (per dimension an offset in [-1, 1]
 * with 1/2, +-2..3 with 1/4, +-4..7 with 1/8, any coordinate with 1/8, mod
 * k; a draw on the source drawn again), within binomial bounds, on tori
 * large and small; refused without coordinates; the Bernoulli rate. */
#include "traffic_rig.h"

#include <criterion/criterion.h>
#include <string.h>

static void make(traffic_rig *r, double load)
{
    rig_params rp;
    insee_value params[1] = {value_double(load)};
    rig_create(r, "local", rig_with(&rp, "local", params, 1));
}

static uint32_t mod(int64_t x, uint32_t k)
{
    return (uint32_t)((x % k + k) % k);
}

/* q[c]: the probability that one dimension of k nodes moves by c mod k,
   written out band by band from the definition. */
static void offset_law(uint32_t k, double *q)
{
    for (uint32_t c = 0; c < k; c++)
        q[c] = 0.125 / k; /* anywhere */
    for (int64_t o = -1; o <= 1; o++)
        q[mod(o, k)] += 0.5 / 3;
    for (int64_t o = 2; o <= 3; o++) {
        q[mod(o, k)] += 0.25 / 4;
        q[mod(-o, k)] += 0.25 / 4;
    }
    for (int64_t o = 4; o <= 7; o++) {
        q[mod(o, k)] += 0.125 / 8;
        q[mod(-o, k)] += 0.125 / 8;
    }
}

typedef struct local_case {
    int64_t dims[3];
    size_t n;
    uint32_t src;
} local_case;

static const local_case cases[] = {
    {{16, 16}, 2, 17},
    {{5, 3}, 2, 7},
    {{9}, 1, 0},
    {{4, 2, 3}, 3, 13},
};

Test(local, destinations_follow_the_definition)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const local_case *c = &cases[i];
        traffic_rig r;
        rig_torus(&r, c->dims, c->n, 1);
        make(&r, 1.0);
        uint32_t nodes = r.k.shape.nodes;
        uint64_t per_dst[256] = {0};
        uint64_t sent = rig_run(&r, c->src, 400000, per_dst);
        double q[3][16];
        double self = 1;
        for (size_t d = 0; d < c->n; d++) {
            offset_law((uint32_t)c->dims[d], q[d]);
            self *= q[d][0];
        }
        /* node = x0 + k0 (x1 + k1 x2) on the torus plugin */
        int32_t s[3] = {0}, t[3] = {0};
        r.host.coords(r.host.kernel, c->src, s, 3);
        for (uint32_t dst = 0; dst < nodes; dst++) {
            if (dst == c->src)
                continue;
            r.host.coords(r.host.kernel, dst, t, 3);
            double p = 1;
            for (size_t d = 0; d < c->n; d++)
                p *= q[d][mod((int64_t)t[d] - s[d], (uint32_t)c->dims[d])];
            char what[64];
            snprintf(what, sizeof what, "case %zu: node %u from %u", i, dst, c->src);
            rig_assert_binomial(per_dst[dst], sent, p / (1 - self), what);
        }
        rig_free(&r);
    }
}

Test(local, needs_coordinates)
{
    traffic_rig r;
    rig_tasks(&r, 64, 16);
    rig_params rp;
    insee_value params[1] = {value_double(0.1)};
    insee_error err = {0};
    cr_assert_null(rig_try(&r, "local", rig_with(&rp, "local", params, 1), &err));
    cr_assert_eq(err.code, INSEE_ERR_UNSUPPORTED);
    cr_assert_not_null(strstr(err.message, "coordinates"), "%s", err.message);
    rig_free(&r);
}

Test(local, rate_is_load_over_packet_length)
{
    traffic_rig r;
    rig_torus(&r, (const int64_t[]){8, 8}, 2, 16);
    make(&r, 0.8); /* p = 0.05 */
    uint64_t sent = rig_run_all(&r, 30000);
    rig_assert_binomial(sent, 64 * 30000, 0.05, "packets");
    cr_assert_float_eq(r.vt->offered_load(r.self), 0.8, 1e-12);
    rig_free(&r);
}

Test(local, parameter_table)
{
    const insee_plugin_desc *d = load_plugin("traffic", "local");
    cr_assert_str_eq(d->params[0].name, "load");
    cr_assert_str_eq(d->params[0].default_value, "0.1");
    rig_assert_source_params(d, 1);
}
