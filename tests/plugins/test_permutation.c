/* test_permutation.c — permutation traffic: Table 2's examples of INSEE
 * §3.2.1 exactly (which also settle the transpose formula: the halves of
 * the bits swapped), every pattern a bijection on power-of-two task counts,
 * fixed points silent, bit permutations refused unless N is a power of
 * two, tornado moving each
 * coordinate by ceil(k/2) - 1 (or, as options, x by k/2 as Table 2 does, or
 * the node number by floor((k_x - 1)/2) as INSEE's code does), shift, nearest neighbours evenly, the
 * Bernoulli rate, and the offered load counting only the tasks that send. */
#include "traffic_rig.h"

#include <criterion/criterion.h>
#include <string.h>

enum { BC, BR, BT, BU, PS, TO, SH, NB, N_PATTERNS };

static const char *const names[N_PATTERNS] = {
    "bit-complement", "bit-reversal", "bit-transpose", "butterfly",
    "perfect-shuffle", "tornado", "shift", "neighbour",
};

/* Create pattern `p` at `load` (shift by `offset`) on r's mock. */
static void make(traffic_rig *r, int p, double load, int64_t offset)
{
    rig_params rp;
    insee_value params[3] = {value_double(load), value_enum(p, names[p]), value_int(offset)};
    rig_create(r, "permutation", rig_with(&rp, "permutation", params, 3));
}

/* Each example of Table 2 on l = 8 bits (256 tasks): s = 11011000. */
Test(permutation, table_2_examples)
{
    static const struct {
        int pattern;
        uint32_t image;
    } examples[] = {
        {BC, 0x27}, /* BC(11011000) = 00100111 */
        {BR, 0x1B}, /* BR(11011000) = 00011011 */
        {BT, 0x8D}, /* BT(11011000) = 10001101: d_i = s_{(i + l/2) mod l} */
        {BU, 0x59}, /* BU(11011000) = 01011001 */
        {PS, 0xB1}, /* PS(11011000) = 10110001 */
    };
    for (size_t i = 0; i < sizeof examples / sizeof examples[0]; i++) {
        traffic_rig r;
        rig_tasks(&r, 256, 1);
        make(&r, examples[i].pattern, 1.0, 1);
        uint32_t d = rig_first_dst(&r, 0xD8);
        cr_assert_eq(d, examples[i].image, "%s(11011000) = %#x, Table 2 says %#x",
                     names[examples[i].pattern], d, examples[i].image);
        rig_free(&r);
    }
}

/* On an odd number of bits the transpose rotates by floor(l/2) as Table 2's
   formula reads: l = 5, d_i = s_{(i+2) mod 5}, so bit 0 goes to bit 3. */
Test(permutation, transpose_on_odd_bits)
{
    traffic_rig r;
    rig_tasks(&r, 32, 1);
    make(&r, BT, 1.0, 1);
    cr_assert_eq(rig_first_dst(&r, 1), 8u);
    cr_assert_eq(rig_first_dst(&r, 8), 2u); /* bit 3 -> bit 1 */
    cr_assert_eq(rig_first_dst(&r, 16), 4u); /* bit 4 -> bit 2 */
    rig_free(&r);
}

/* The map a pattern defines, with a silent task standing for its own image. */
static void images(traffic_rig *r, uint32_t *image)
{
    for (uint32_t t = 0; t < r->k.shape.tasks; t++) {
        uint32_t d = rig_first_dst(r, t);
        image[t] = d == UINT32_MAX ? t : d;
    }
}

static void assert_bijection(const uint32_t *image, uint32_t n, const char *what)
{
    uint32_t hit[1024] = {0};
    for (uint32_t t = 0; t < n; t++) {
        cr_assert_lt(image[t], n);
        hit[image[t]]++;
    }
    for (uint32_t d = 0; d < n; d++)
        cr_assert_eq(hit[d], 1u, "%s on %u tasks: task %u is the image of %u tasks", what, n, d,
                     hit[d]);
}

Test(permutation, bit_patterns_are_bijections_on_powers_of_two)
{
    for (int p = BC; p <= PS; p++) {
        for (uint32_t n = 1; n <= 1024; n *= 2) {
            traffic_rig r;
            rig_tasks(&r, n, 1);
            make(&r, p, 1.0, 1);
            uint32_t image[1024];
            images(&r, image);
            assert_bijection(image, n, names[p]);
            rig_free(&r);
        }
    }
}

/* Fixed points send nothing, and offered_load() averages the load over
   every task, silent ones included. On 4 bits: reversal fixes the 4
   palindromes, transpose the 4 numbers with equal halves, butterfly the 8
   with equal end bits, shuffle 0000 and 1111, complement none. */
Test(permutation, fixed_points_send_nothing)
{
    static const struct {
        int pattern;
        uint32_t fixed[8];
        uint32_t n_fixed;
    } cases[] = {
        {BC, {0}, 0},
        {BR, {0, 6, 9, 15}, 4},
        {BT, {0, 5, 10, 15}, 4},
        {BU, {0, 2, 4, 6, 9, 11, 13, 15}, 8},
        {PS, {0, 15}, 2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        traffic_rig r;
        rig_tasks(&r, 16, 4);
        make(&r, cases[i].pattern, 0.8, 1);
        bool fixed[16] = {false};
        for (uint32_t j = 0; j < cases[i].n_fixed; j++)
            fixed[cases[i].fixed[j]] = true;
        for (uint32_t t = 0; t < 16; t++) {
            uint64_t sent = rig_run(&r, t, 1000, NULL);
            if (fixed[t])
                cr_assert_eq(sent, 0u, "%s: fixed point %u sent", names[cases[i].pattern], t);
            else
                cr_assert_gt(sent, 0u, "%s: task %u sent nothing", names[cases[i].pattern], t);
        }
        cr_assert_float_eq(r.vt->offered_load(r.self), 0.8 * (16 - cases[i].n_fixed) / 16,
                           1e-12);
        rig_free(&r);
    }
}

/* N = 12 is not a power of two: on 4 bits the complement would send tasks
   0..3 to 15..12, which do not exist. Every bit permutation is refused
   there, naming the powers of two around N; shift is not. */
Test(permutation, bit_patterns_need_a_power_of_two)
{
    for (int p = BC; p <= PS; p++) {
        traffic_rig r;
        rig_tasks(&r, 12, 16);
        rig_params rp;
        insee_value params[3] = {value_double(0.1), value_enum(p, names[p]), value_int(1)};
        insee_error err = {0};
        cr_assert_null(
            rig_try(&r, "permutation", rig_with(&rp, "permutation", params, 3), &err));
        cr_assert_eq(err.code, INSEE_ERR_UNSUPPORTED);
        cr_assert_not_null(strstr(err.message, names[p]), "%s", err.message);
        cr_assert_not_null(strstr(err.message, "needs a power-of-two number of tasks, but "
                                               "there are 12; use 8 or 16 tasks"),
                           "%s", err.message);
        rig_free(&r);
    }
    traffic_rig r;
    rig_tasks(&r, 12, 1);
    make(&r, SH, 1.0, 5);
    cr_assert_eq(rig_first_dst(&r, 9), 2u);
    rig_free(&r);
}

/* Tornado on an 8-ary 2-cube: (x, y) -> (x + 3 mod 8, y + 3 mod 8); on
   5 x 3: + 2 mod 5 and + 1 mod 3 (ceil(k/2) - 1 per dimension). Node index
   x + k0 y on the torus plugin. */
Test(permutation, tornado_moves_every_coordinate)
{
    static const struct {
        int64_t dims[2];
        uint32_t step[2];
    } cases[] = {{{8, 8}, {3, 3}}, {{5, 3}, {2, 1}}};
    for (size_t i = 0; i < 2; i++) {
        traffic_rig r;
        rig_torus(&r, cases[i].dims, 2, 1);
        make(&r, TO, 1.0, 1);
        uint32_t kx = (uint32_t)cases[i].dims[0], ky = (uint32_t)cases[i].dims[1];
        uint32_t image[1024];
        for (uint32_t y = 0; y < ky; y++)
            for (uint32_t x = 0; x < kx; x++) {
                uint32_t want = (x + cases[i].step[0]) % kx + kx * ((y + cases[i].step[1]) % ky);
                image[x + kx * y] = rig_first_dst(&r, x + kx * y);
                cr_assert_eq(image[x + kx * y], want, "(%u, %u) -> node %u, want %u", x, y,
                             image[x + kx * y], want);
            }
        assert_bijection(image, kx * ky, "tornado");
        rig_free(&r);
    }
}

/* Create tornado in definition `def` (0 per-dimension, 1 table2, 2 insee). */
static void make_tornado(traffic_rig *r, int def)
{
    static const char *const defs[] = {"per-dimension", "table2", "insee"};
    rig_params rp;
    insee_value params[4] = {value_double(1.0), value_enum(TO, names[TO]), value_int(1),
                             value_enum(def, defs[def])};
    rig_create(r, "permutation", rig_with(&rp, "permutation", params, 4));
}

/* Table 2's definition: d_x = (s_x + k_x/2) mod k_x, d_y = s_y. Its own
   example TO_8x8(<3, 2>) = <7, 2>, node 3 + 8 x 2 = 19 -> 23; on 5 x 3, x
   moves by 2 and y stays. A bijection. */
Test(permutation, tornado_as_table_2_moves_x_by_half_a_ring)
{
    static const int64_t dims[2][2] = {{8, 8}, {5, 3}};
    for (size_t i = 0; i < 2; i++) {
        traffic_rig r;
        rig_torus(&r, dims[i], 2, 1);
        make_tornado(&r, 1);
        uint32_t kx = (uint32_t)dims[i][0], ky = (uint32_t)dims[i][1];
        if (kx == 8)
            cr_assert_eq(rig_first_dst(&r, 19), 23u, "TO(<3, 2>) = <7, 2>, node 23");
        uint32_t image[64];
        for (uint32_t y = 0; y < ky; y++)
            for (uint32_t x = 0; x < kx; x++) {
                uint32_t want = (x + kx / 2) % kx + kx * y;
                image[x + kx * y] = rig_first_dst(&r, x + kx * y);
                cr_assert_eq(image[x + kx * y], want, "(%u, %u) -> %u, want %u", x, y,
                             image[x + kx * y], want);
            }
        assert_bijection(image, kx * ky, "tornado table2");
        rig_free(&r);
    }
}

/* INSEE's code: d = (s + floor((k_x - 1)/2)) mod N on the node number, so
   on 8 x 8 node 7 = <7, 0> goes to 10 = <2, 1> (the move carries into the
   next row) and node 63 to 2; on 5 x 3 every node moves by 2 mod 15. */
Test(permutation, tornado_as_insee_code_moves_the_node_number)
{
    static const int64_t dims[2][2] = {{8, 8}, {5, 3}};
    for (size_t i = 0; i < 2; i++) {
        traffic_rig r;
        rig_torus(&r, dims[i], 2, 1);
        make_tornado(&r, 2);
        uint32_t n = (uint32_t)(dims[i][0] * dims[i][1]);
        uint32_t step = (uint32_t)(dims[i][0] - 1) / 2;
        for (uint32_t t = 0; t < n; t++)
            cr_assert_eq(rig_first_dst(&r, t), (t + step) % n, "node %u", t);
        if (n == 64) {
            cr_assert_eq(rig_first_dst(&r, 7), 10u);
            cr_assert_eq(rig_first_dst(&r, 63), 2u);
        }
        rig_free(&r);
    }
}

/* A ring of 2 moves by ceil(2/2) - 1 = 0: every node of a 2 x 2 torus is
   its own image. */
Test(permutation, tornado_on_rings_of_two_is_silent)
{
    traffic_rig r;
    rig_torus(&r, (const int64_t[]){2, 2}, 2, 1);
    make(&r, TO, 1.0, 1);
    for (uint32_t t = 0; t < 4; t++)
        cr_assert_eq(rig_first_dst(&r, t), UINT32_MAX);
    cr_assert_float_eq(r.vt->offered_load(r.self), 0.0, 1e-12);
    rig_free(&r);
}

Test(permutation, coordinate_patterns_need_coordinates)
{
    for (int p = TO; p <= NB; p += NB - TO) {
        traffic_rig r;
        rig_tasks(&r, 64, 16); /* no topology: no coordinates */
        rig_params rp;
        insee_value params[3] = {value_double(0.1), value_enum(p, names[p]), value_int(1)};
        insee_error err = {0};
        cr_assert_null(
            rig_try(&r, "permutation", rig_with(&rp, "permutation", params, 3), &err));
        cr_assert_eq(err.code, INSEE_ERR_UNSUPPORTED);
        cr_assert_not_null(strstr(err.message, "coordinates"), "%s", err.message);
        cr_assert_not_null(strstr(err.message, names[p]), "%s", err.message);
        rig_free(&r);
    }
}

Test(permutation, shift_by_offset_mod_n)
{
    static const int64_t offsets[] = {1, -3, 21, 10};
    for (size_t i = 0; i < 4; i++) {
        traffic_rig r;
        rig_tasks(&r, 10, 1);
        make(&r, SH, 1.0, offsets[i]);
        for (uint32_t t = 0; t < 10; t++) {
            uint32_t want = (uint32_t)(((int64_t)t + offsets[i] % 10 + 10) % 10);
            cr_assert_eq(rig_first_dst(&r, t), want == t ? UINT32_MAX : want,
                         "offset %ld: task %u", (long)offsets[i], t);
        }
        rig_free(&r);
    }
}

/* Nearest neighbour on an 8-ary 2-cube: every packet to one of the four
   nodes at +-1 in one dimension (wrapping), each a quarter of the time. */
Test(permutation, neighbour_draws_the_four_neighbours_evenly)
{
    traffic_rig r;
    rig_torus(&r, (const int64_t[]){8, 8}, 2, 1);
    make(&r, NB, 1.0, 1);
    const uint32_t corner = 7 + 8 * 0; /* (7, 0): both kinds of wrap */
    const uint32_t around[4] = {0 + 8 * 0, 6 + 8 * 0, 7 + 8 * 1, 7 + 8 * 7};
    uint64_t per_dst[64] = {0};
    uint64_t sent = rig_run(&r, corner, 40000, per_dst);
    cr_assert_eq(sent, 40000u);
    uint64_t near = 0;
    for (int i = 0; i < 4; i++) {
        rig_assert_binomial(per_dst[around[i]], sent, 0.25, "one neighbour");
        near += per_dst[around[i]];
    }
    cr_assert_eq(near, sent, "a packet went to a node that is not a neighbour");
    rig_free(&r);
}

/* load 0.5 phits/node/cycle with packets of 4 phits: a packet per task
   with probability 1/8 per cycle, the sum over tasks binomial. */
Test(permutation, rate_is_load_over_packet_length)
{
    for (int p = BC; p < N_PATTERNS; p++) {
        traffic_rig r;
        rig_torus(&r, (const int64_t[]){8, 8}, 2, 4);
        make(&r, p, 0.5, 1);
        uint64_t cycles = 20000;
        uint64_t sent = rig_run_all(&r, cycles);
        /* the tasks that send: the offered load over the load */
        double senders = 64 * r.vt->offered_load(r.self) / 0.5;
        rig_assert_binomial(sent, (uint64_t)(senders + 0.5) * cycles, 0.125, names[p]);
        rig_free(&r);
    }
}

Test(permutation, zero_load_never_sends)
{
    traffic_rig r;
    rig_tasks(&r, 16, 16);
    make(&r, BC, 0.0, 1);
    cr_assert_eq(rig_run_all(&r, 100000), 0u);
    cr_assert_float_eq(r.vt->offered_load(r.self), 0.0, 1e-12);
    rig_free(&r);
}

Test(permutation, parameter_table)
{
    const insee_plugin_desc *d = load_plugin("traffic", "permutation");
    cr_assert_str_eq(d->params[0].name, "load");
    cr_assert_str_eq(d->params[0].default_value, "0.1");
    cr_assert_str_eq(d->params[1].name, "pattern");
    cr_assert_eq(d->params[1].type, INSEE_PARAM_ENUM);
    cr_assert_str_eq(d->params[1].default_value, "\"bit-complement\"");
    cr_assert_str_eq(d->params[1].choices, "bit-complement|bit-reversal|bit-transpose|butterfly|"
                                           "perfect-shuffle|tornado|shift|neighbour");
    cr_assert_str_eq(d->params[2].name, "offset");
    cr_assert_eq(d->params[2].type, INSEE_PARAM_INT);
    cr_assert_str_eq(d->params[2].default_value, "1");
    cr_assert_str_eq(d->params[3].name, "tornado");
    cr_assert_str_eq(d->params[3].default_value, "\"per-dimension\"");
    cr_assert_str_eq(d->params[3].choices, "per-dimension|table2|insee");
    rig_assert_source_params(d, 4);
}
