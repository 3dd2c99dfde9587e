/* Golden results: the original INSEE's own figures (tests/golden/, measured
 * by running INSEE beside insee) against ours, for every router mode both
 * simulators have, on an 8x8 torus and mesh under uniform traffic. The
 * numbers cannot have come from our code: they are INSEE's.
 *
 * Each row runs here with fewer seeds and cycles than the reference,
 * so the tolerance is the acceptance criterion (accepted load within 1 %,
 * latency within 5 %) or, where the runs are noisier than that near
 * saturation, three standard errors of the difference of the two means. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "run_helpers.h"

#define GOLDEN INSEE_TEST_SOURCE_DIR "/tests/golden/insee-8x8-uniform.csv"
#define ROWS 70
#define REF_SEEDS 5
#define REF_CYCLES 100000.0
/* Under the sanitizers (about 20 times slower) one shorter run per row,
   after INSEE's whole warm-up; the tolerance widens with the noise of
   shorter runs, as it should. */
#ifdef INSEE_TEST_SANITIZED
#define SEEDS 1
#define WARMUP 30000
#define CYCLES 20000
#else
#define SEEDS 2
#define WARMUP 20000
#define CYCLES 50000
#endif

typedef struct golden_row {
    char topology[16], router[16], mode[16];
    double offered, accepted, accepted_sd, latency, latency_sd;
} golden_row;

/* Row `index` of the golden file (comments and the header skipped). */
static golden_row read_row(int index)
{
    FILE *f = fopen(GOLDEN, "r");
    cr_assert_not_null(f, "cannot open %s", GOLDEN);
    char line[512];
    int seen = -1;
    golden_row r = {0};
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || strncmp(line, "topology,", 9) == 0)
            continue;
        if (++seen < index)
            continue;
        int fields = sscanf(line, "%15[^,],%15[^,],%15[^,],%lf,%lf,%lf,%lf,%lf", r.topology,
                            r.router, r.mode, &r.offered, &r.accepted, &r.accepted_sd,
                            &r.latency, &r.latency_sd);
        cr_assert_eq(fields, 8, "%s: malformed row %d: %s", GOLDEN, index, line);
        break;
    }
    fclose(f);
    cr_assert_eq(seen, index, "%s has fewer than %d rows", GOLDEN, index + 1);
    return r;
}

/* Tolerance on a mean: `rel` of the reference, or three standard errors of
   the difference (INSEE over REF_SEEDS runs of REF_CYCLES, ours over SEEDS
   runs of CYCLES, whose spread scales as 1/sqrt(cycles)). */
static double tolerance(double ref, double sd, double rel)
{
    double ours = sd * sqrt(REF_CYCLES / CYCLES);
    double se = sqrt(sd * sd / REF_SEEDS + ours * ours / SEEDS);
    return fmax(rel * ref, 3 * se);
}

static int *row_indices(void)
{
    static int idx[ROWS];
    for (int i = 0; i < ROWS; i++)
        idx[i] = i;
    return idx;
}

ParameterizedTestParameters(golden, insee_8x8_uniform)
{
    return cr_make_param_array(int, row_indices(), ROWS);
}

ParameterizedTest(int *i, golden, insee_8x8_uniform)
{
    golden_row g = read_row(*i);
    double accepted = 0, latency = 0;
    for (int seed = 1; seed <= SEEDS; seed++) {
        char *toml = g_strdup_printf(
            "[simulation]\nseed = %d\nwarmup = %d\ncycles = %d\n"
            "[topology]\nplugin = \"%s\"\ndims = [8, 8]\n"
            "[router]\nplugin = \"%s\"\nmode = \"%s\"\nvcs = 2\nqueue_packets = 4\n"
            "inject_packets = 4\n[traffic]\nplugin = \"uniform\"\nload = %.2f\n",
            seed, WARMUP, CYCLES, g.topology, g.router, g.mode, g.offered);
        insee_report r = run_toml(toml);
        accepted += r.accepted_load / SEEDS;
        latency += r.latency_gen.mean / SEEDS;
        insee_report_clear(&r);
        g_free(toml);
    }
    double ta = tolerance(g.accepted, g.accepted_sd, 0.01);
    double tl = tolerance(g.latency, g.latency_sd, 0.05);
    cr_expect(fabs(accepted - g.accepted) <= ta,
              "%s %s %s at %.1f: accepted %.4f, INSEE %.4f (tolerance %.4f)", g.topology,
              g.router, g.mode, g.offered, accepted, g.accepted, ta);
    cr_expect(fabs(latency - g.latency) <= tl,
              "%s %s %s at %.1f: latency %.2f, INSEE %.2f (tolerance %.2f)", g.topology, g.router,
              g.mode, g.offered, latency, g.latency, tl);
}
