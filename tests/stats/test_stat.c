/* insee_stat (stats/report.h): mean and standard deviation against closed
 * forms, and the same bits whatever the order the samples come in or the
 * parts they are split into. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "stats/report.h"

/* The parts' words added field by field, as stats/merge.c folds them. */
static insee_stat merged(const insee_stat *a, const insee_stat *b)
{
    insee_stat m = {
        .count = a->count + b->count,
        .sum = a->sum + b->sum,
        .sq_hi = a->sq_hi + b->sq_hi,
        .sq_lo = a->sq_lo + b->sq_lo,
        .max = MAX(a->max, b->max),
    };
    insee_stat_normalise(&m);
    return m;
}

static void assert_same_bits(const insee_stat *a, const insee_stat *b)
{
    cr_assert(memcmp(a, b, sizeof *a) == 0, "count %lu/%lu sum %lu/%lu sq %lu:%lu/%lu:%lu",
              (unsigned long)a->count, (unsigned long)b->count, (unsigned long)a->sum,
              (unsigned long)b->sum, (unsigned long)a->sq_hi, (unsigned long)a->sq_lo,
              (unsigned long)b->sq_hi, (unsigned long)b->sq_lo);
    double ma = insee_stat_mean(a), mb = insee_stat_mean(b);
    double sa = insee_stat_std(a), sb = insee_stat_std(b);
    cr_assert(memcmp(&ma, &mb, sizeof ma) == 0 && memcmp(&sa, &sb, sizeof sa) == 0,
              "mean %.17g/%.17g std %.17g/%.17g", ma, mb, sa, sb);
}

/* Latency-like samples: a base and a spread drawn from a fixed LCG. */
static uint64_t sample(uint64_t i, uint64_t base)
{
    uint64_t x = i * 6364136223846793005ull + 1442695040888963407ull;
    return base + (x >> 40) % 5000;
}

Test(stat, empty_and_single)
{
    insee_stat s = {0};
    cr_assert_eq(insee_stat_mean(&s), 0.0);
    cr_assert_eq(insee_stat_std(&s), 0.0);
    insee_stat_add(&s, 7);
    cr_assert_eq(insee_stat_mean(&s), 7.0);
    cr_assert_eq(insee_stat_std(&s), 0.0);
    cr_assert_eq(s.max, 7);
}

Test(stat, one_to_n_has_its_closed_forms)
{
    static const uint64_t sizes[] = {2, 3, 10, 1000, 99999};
    for (size_t k = 0; k < G_N_ELEMENTS(sizes); k++) {
        uint64_t n = sizes[k];
        insee_stat s = {0};
        for (uint64_t x = 1; x <= n; x++)
            insee_stat_add(&s, x);
        double var = (double)n * (double)(n + 1) / 12.0;
        cr_assert_eq(insee_stat_mean(&s), (double)(n + 1) / 2.0, "n %lu", (unsigned long)n);
        cr_assert_float_eq(insee_stat_std(&s), sqrt(var), 1e-15 * sqrt(var), "n %lu: %.17g",
                           (unsigned long)n, insee_stat_std(&s));
        cr_assert_eq(s.max, n);
    }
}

Test(stat, order_does_not_change_a_bit)
{
    enum { N = 20000 };
    insee_stat fwd = {0}, back = {0}, strided = {0};
    for (uint64_t i = 0; i < N; i++)
        insee_stat_add(&fwd, sample(i, 100));
    for (uint64_t i = N; i-- > 0;)
        insee_stat_add(&back, sample(i, 100));
    for (uint64_t i = 0; i < N; i++) /* 7919 is prime to N: every sample once */
        insee_stat_add(&strided, sample(i * 7919 % N, 100));
    assert_same_bits(&fwd, &back);
    assert_same_bits(&fwd, &strided);
}

Test(stat, parts_merged_equal_the_whole)
{
    enum { N = 30000 };
    insee_stat whole = {0}, a = {0}, b = {0};
    for (uint64_t i = 0; i < N; i++) {
        uint64_t x = sample(i, 1u << 20);
        insee_stat_add(&whole, x);
        insee_stat_add(i % 3 ? &a : &b, x);
    }
    insee_stat m = merged(&a, &b);
    assert_same_bits(&m, &whole);
    insee_stat empty = {0};
    m = merged(&whole, &empty);
    assert_same_bits(&m, &whole);
}

/* Latencies near 2^31 over 10^5 samples: their squares sum to about 2^79,
   where a double's sum of squares keeps 53 bits and the spread, 2^46 of
   it, is lost to rounding. Samples base + i have the spread of 1..n. */
Test(stat, large_values_keep_their_spread)
{
    enum { N = 100000 };
    const uint64_t base = UINT64_C(1) << 31;
    insee_stat s = {0}, a = {0}, b = {0};
    double sum = 0, sq = 0;
    for (uint64_t i = 0; i < N; i++) {
        insee_stat_add(&s, base + i);
        insee_stat_add(i < N / 2 ? &b : &a, base + i);
        sum += (double)(base + i);
        sq += (double)(base + i) * (double)(base + i);
    }
    double std = sqrt((double)N * (N + 1) / 12.0);
    cr_assert_eq(insee_stat_mean(&s), (double)base + (N - 1) / 2.0);
    cr_assert_float_eq(insee_stat_std(&s), std, 1e-15 * std, "%.17g vs %.17g",
                       insee_stat_std(&s), std);
    double naive = sqrt(fmax(sq - sum * sum / N, 0) / (N - 1));
    cr_assert_gt(fabs(naive - std), 1e-6 * std, "the double sums were exact here: %.17g", naive);
    insee_stat m = merged(&a, &b);
    assert_same_bits(&m, &s);
}
