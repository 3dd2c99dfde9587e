/* Golden results: the original INSEE's own figures (tests/golden/, measured
 * by running INSEE beside insee) against ours, for every router mode both
 * simulators have, on an 8x8 torus and mesh under uniform traffic, and for
 * the families of insee-families.csv: k-ary n-trees and thin-trees with
 * network interfaces under both multistage modes, the twisted torus and
 * the midimew under Dally basic and bubble smart, reactive traffic. The numbers cannot have come from our code:
 * they are INSEE's.
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
#define FAMILIES INSEE_TEST_SOURCE_DIR "/tests/golden/insee-families.csv"
#define FAMILY_ROWS 44
#define REF_CYCLES 100000.0
/* Under the sanitizers (about 20 times slower) one shorter run per row,
   after INSEE's whole warm-up; the tolerance widens with the noise of
   shorter runs, as it should. */
#define FULL_SEEDS 2
#define FULL_WARMUP 20000
#define FULL_CYCLES 50000
#ifdef INSEE_TEST_SANITIZED
#define SEEDS 1
#define WARMUP 30000
#define CYCLES 20000
#else
#define SEEDS FULL_SEEDS
#define WARMUP FULL_WARMUP
#define CYCLES FULL_CYCLES
#endif

/* How long our runs of a point are: SEEDS runs of CYCLES after WARMUP, or
   the full length even under the sanitizers. */
typedef struct run_length {
    int seeds, warmup, cycles;
} run_length;

static const run_length usual = {SEEDS, WARMUP, CYCLES};
static const run_length full = {FULL_SEEDS, FULL_WARMUP, FULL_CYCLES};

typedef struct golden_row {
    char topology[16], router[16], mode[16];
    double offered, accepted, accepted_sd, latency, latency_sd;
} golden_row;

/* Data line `index` of a golden file (comments and the header, the line
   starting with `header`, skipped) into line (len bytes). */
static void read_line(const char *path, const char *header, int index, char *line, size_t len)
{
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "cannot open %s", path);
    int seen = -1;
    while (seen < index && fgets(line, (int)len, f))
        if (line[0] != '#' && strncmp(line, header, strlen(header)) != 0)
            seen++;
    fclose(f);
    cr_assert_eq(seen, index, "%s has fewer than %d rows", path, index + 1);
}

/* Row `index` of the 8x8 file. */
static golden_row read_row(int index)
{
    char line[512];
    read_line(GOLDEN, "topology,", index, line, sizeof line);
    golden_row r = {0};
    int fields = sscanf(line, "%15[^,],%15[^,],%15[^,],%lf,%lf,%lf,%lf,%lf", r.topology,
                        r.router, r.mode, &r.offered, &r.accepted, &r.accepted_sd, &r.latency,
                        &r.latency_sd);
    cr_assert_eq(fields, 8, "%s: malformed row %d: %s", GOLDEN, index, line);
    return r;
}

/* Tolerance on a mean: `rel` of the reference, or three standard errors of
   the difference (INSEE over ref_seeds runs of REF_CYCLES, ours over SEEDS
   runs of CYCLES, whose spread scales as 1/sqrt(cycles)). */
static double tolerance(double ref, double sd, double rel, int ref_seeds, run_length n)
{
    double ours = sd * sqrt(REF_CYCLES / n.cycles);
    double se = sqrt(sd * sd / ref_seeds + ours * ours / n.seeds);
    return fmax(rel * ref, 3 * se);
}

/* Our means over SEEDS runs of the experiment `body` (its [topology],
   [router] and [traffic] tables) against INSEE's figures. */
static void check_point(const char *label, const char *body, const golden_row *g, int ref_seeds,
                        run_length n)
{
    double accepted = 0, latency = 0;
    for (int seed = 1; seed <= n.seeds; seed++) {
        char *toml = g_strdup_printf("[simulation]\nseed = %d\nwarmup = %d\ncycles = %d\n%s",
                                     seed, n.warmup, n.cycles, body);
        insee_report r = run_toml(toml);
        accepted += r.accepted_load / n.seeds;
        latency += insee_stat_mean(&r.latency_gen) / n.seeds;
        insee_report_clear(&r);
        g_free(toml);
    }
    double ta = tolerance(g->accepted, g->accepted_sd, 0.01, ref_seeds, n);
    double tl = tolerance(g->latency, g->latency_sd, 0.05, ref_seeds, n);
    cr_expect(fabs(accepted - g->accepted) <= ta,
              "%s at %.1f: accepted %.4f, INSEE %.4f (tolerance %.4f)", label, g->offered,
              accepted, g->accepted, ta);
    cr_expect(fabs(latency - g->latency) <= tl,
              "%s at %.1f: latency %.2f, INSEE %.2f (tolerance %.2f)", label, g->offered,
              latency, g->latency, tl);
}

/* 0, 1, ..., enough for either file's rows. */
static int *row_indices(void)
{
    static int idx[ROWS > FAMILY_ROWS ? ROWS : FAMILY_ROWS];
    for (int i = 0; i < (int)G_N_ELEMENTS(idx); i++)
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
    char *body = g_strdup_printf(
        "[topology]\nplugin = \"%s\"\ndims = [8, 8]\n"
        "[router]\nplugin = \"%s\"\nmode = \"%s\"\nvcs = 2\nqueue_packets = 4\n"
        "inject_packets = 4\n[traffic]\nplugin = \"uniform\"\nload = %.2f\n",
        g.topology, g.router, g.mode, g.offered);
    char *label = g_strdup_printf("%s %s %s", g.topology, g.router, g.mode);
    check_point(label, body, &g, REF_SEEDS, usual);
    g_free(label);
    g_free(body);
}

/* What each case of insee-families.csv runs: INSEE's model in each family,
   with the options that make it INSEE's (multistage rule = "insee", and
   up_by = "destination" on the thin-tree, as INSEE's thin-tree code routes;
   midimew first = "b", INSEE's order of the jumps; twisted-torus order =
   "draw" and kary-ntree nic = true are defaults;
   reactive as INSEE sends it; GCC counted as INSEE's code counts it). %.2f
   is the offered load. */
static const struct family_case {
    const char *name;
    const char *body;
    /* Run at full length even under the sanitizers: GCC's throttling
       swings over thousands of cycles, so one short run strays further
       than the scaling of INSEE's deviation by run length allows (seed 1
       over 20 000 cycles at 0.9: 0.5230 against 0.5319-0.5378 for seeds
       2 to 4). */
    gboolean full;
} family_cases[] = {
    {"kary-ntree-static",
     "[topology]\nplugin = \"kary-ntree\"\nk = 4\nn = 3\n"
     "[router]\nplugin = \"multistage\"\nmode = \"static\"\nrule = \"insee\"\nvcs = 2\n"
     "[traffic]\nplugin = \"uniform\"\nload = %.2f\n", FALSE},
    {"kary-ntree-adaptive",
     "[topology]\nplugin = \"kary-ntree\"\nk = 4\nn = 3\n"
     "[router]\nplugin = \"multistage\"\nmode = \"adaptive\"\nrule = \"insee\"\nvcs = 2\n"
     "[traffic]\nplugin = \"uniform\"\nload = %.2f\n", FALSE},
    {"midimew-basic",
     "[topology]\nplugin = \"midimew\"\nnodes = 64\nfirst = \"b\"\n"
     "[router]\nplugin = \"dally\"\nmode = \"basic\"\nvcs = 2\n"
     "[traffic]\nplugin = \"uniform\"\nload = %.2f\n", FALSE},
    {"midimew-bubble",
     "[topology]\nplugin = \"midimew\"\nnodes = 64\nfirst = \"b\"\n"
     "[router]\nplugin = \"bubble\"\nmode = \"smart\"\nvcs = 2\n"
     "[traffic]\nplugin = \"uniform\"\nload = %.2f\n", FALSE},
    {"thin-tree-static",
     "[topology]\nplugin = \"thin-tree\"\nk = 4\nk_up = 2\nn = 3\n"
     "[router]\nplugin = \"multistage\"\nmode = \"static\"\nrule = \"insee\"\n"
     "up_by = \"destination\"\nvcs = 2\n"
     "[traffic]\nplugin = \"uniform\"\nload = %.2f\n", FALSE},
    {"thin-tree-adaptive",
     "[topology]\nplugin = \"thin-tree\"\nk = 4\nk_up = 2\nn = 3\n"
     "[router]\nplugin = \"multistage\"\nmode = \"adaptive\"\nrule = \"insee\"\nvcs = 2\n"
     "[traffic]\nplugin = \"uniform\"\nload = %.2f\n", FALSE},
    {"twisted-torus-basic",
     "[topology]\nplugin = \"twisted-torus\"\ndims = [8, 4]\n"
     "[router]\nplugin = \"dally\"\nmode = \"basic\"\nvcs = 2\n"
     "[traffic]\nplugin = \"uniform\"\nload = %.2f\n", FALSE},
    {"twisted-torus-bubble",
     "[topology]\nplugin = \"twisted-torus\"\ndims = [8, 4]\n"
     "[router]\nplugin = \"bubble\"\nmode = \"smart\"\nvcs = 2\n"
     "[traffic]\nplugin = \"uniform\"\nload = %.2f\n", FALSE},
    {"torus-reactive",
     "[topology]\nplugin = \"torus\"\ndims = [8, 8]\n"
     "[router]\nplugin = \"bubble\"\nmode = \"smart\"\nvcs = 2\n"
     "[traffic]\nplugin = \"reactive\"\nload = %.2f\nprobability = 0.5\ncascade = true\n"
     "replies = \"instead\"\nreply_to = \"pattern\"\n", FALSE},
    {"torus-gcc",
     "[topology]\nplugin = \"torus\"\ndims = [8, 8]\n"
     "[router]\nplugin = \"dally\"\nmode = \"basic\"\nvcs = 2\ngcc = 0.05\ngcc_period = 80\n"
     "gcc_count = \"insee\"\n"
     "[traffic]\nplugin = \"uniform\"\nload = %.2f\n",
     TRUE},
};

/* Row `index` of the families file: its case, INSEE's seeds and figures. */
static golden_row read_family_row(int index, char *name, size_t name_len, int *seeds)
{
    char line[512], field[32];
    read_line(FAMILIES, "case,", index, line, sizeof line);
    golden_row r = {0};
    int fields = sscanf(line, "%31[^,],%d,%lf,%lf,%lf,%lf,%lf", field, seeds, &r.offered,
                        &r.accepted, &r.accepted_sd, &r.latency, &r.latency_sd);
    cr_assert_eq(fields, 7, "%s: malformed row %d: %s", FAMILIES, index, line);
    g_strlcpy(name, field, name_len);
    return r;
}

ParameterizedTestParameters(golden, insee_families)
{
    return cr_make_param_array(int, row_indices(), FAMILY_ROWS);
}

ParameterizedTest(int *i, golden, insee_families)
{
    char name[32];
    int seeds = 0;
    golden_row g = read_family_row(*i, name, sizeof name, &seeds);
    const struct family_case *c = NULL;
    for (size_t k = 0; k < G_N_ELEMENTS(family_cases); k++)
        if (strcmp(family_cases[k].name, name) == 0)
            c = &family_cases[k];
    cr_assert_not_null(c, "%s: unknown case %s", FAMILIES, name);
    char *body = g_strdup_printf(c->body, g.offered);
    check_point(name, body, &g, seeds, c->full ? full : usual);
    g_free(body);
}
