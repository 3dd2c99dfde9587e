/* The statistics of INSEE §2.4 and the run phases of §3.2.1: histograms and
 * maps checked against the summary they must add up to, against closed
 * forms (a torus's average distance), and the batch confidence interval
 * against a ten times longer run. */
#include <criterion/criterion.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stddef.h>

#include "engine/engine.h"
#include "run_helpers.h"

/* An 8x8 torus under uniform traffic with every statistic on. */
static const char every_statistic[] = "[simulation]\nseed = 3\nwarmup = 2000\ncycles = 6000\n"
                                      "[topology]\nplugin = \"torus\"\ndims = [8, 8]\n"
                                      "[traffic]\nplugin = \"uniform\"\nload = %s\n"
                                      "[stats]\ninterval = 500\ndistance_histograms = true\n"
                                      "queue_histograms = true\nport_map = true\n"
                                      "node_map = true\npair_map = true\n";

typedef struct run {
    insee_config *cfg;
    insee_registry *reg;
    insee_experiment *exp;
    const insee_report *rep;
    const insee_stats *st;
    const insee_net *net;
} run;

static run run_stats(const char *toml)
{
    run r = {0};
    r.exp = build_toml(toml, &r.cfg, &r.reg);
    GError *err = NULL;
    cr_assert(insee_experiment_run(r.exp, &err), "%s", err ? err->message : "");
    insee_engine *eng = insee_experiment_engine(r.exp);
    r.rep = &eng->report;
    r.st = &eng->stats;
    r.net = &eng->net;
    return r;
}

static void run_free(run *r)
{
    insee_experiment_free(r->exp);
    insee_registry_free(r->reg);
    insee_config_free(r->cfg);
}

static uint64_t sum(const uint64_t *v, size_t n)
{
    uint64_t s = 0;
    for (size_t i = 0; i < n; i++)
        s += v[i];
    return s;
}

/* sum of i * v[i] over sum of v[i] */
static double mean_index(const insee_counts *c)
{
    double weighted = 0;
    for (uint32_t i = 0; i < c->len; i++)
        weighted += (double)i * (double)c->v[i];
    return weighted / (double)insee_counts_total(c);
}

Test(stats, maps_and_histograms_add_up_to_the_summary)
{
    char *toml = g_strdup_printf(every_statistic, "0.3");
    run r = run_stats(toml);
    const insee_report *rep = r.rep;
    const insee_stats *st = r.st;
    uint32_t L = rep->packet_phits, N = r.net->nodes;
    assert_all_delivered(rep);
    cr_assert_gt(rep->delivered, 5000);
    /* Every phit that crossed a link is in the port map. */
    cr_assert_eq(sum(st->port_phits, r.net->ovcs), rep->packet_hops * L);
    /* Consumption: one count per delivered packet, its hops. */
    cr_assert_eq(insee_counts_total(&st->dist_cons), rep->delivered);
    cr_assert_float_eq(mean_index(&st->dist_cons), (double)rep->hops / (double)rep->delivered,
                       1e-9);
    cr_assert_eq(insee_counts_total(&st->latency.bins), rep->delivered);
    cr_assert_eq(insee_counts_total(&st->latency_inj.bins), rep->delivered);
    /* Injection: minimal distances; uniform traffic over the whole torus
       has the torus's average distance between distinct nodes. */
    cr_assert_eq(insee_counts_total(&st->dist_inj), rep->injected);
    double avg = torus_avg_distance((const int[]){8, 8}, 2);
    cr_assert(fabs(mean_index(&st->dist_inj) - avg) < 0.03 * avg, "%f vs %f",
              mean_index(&st->dist_inj), avg);
    /* A minimal router: the hops taken are the minimal distance. */
    cr_assert_float_eq(mean_index(&st->dist_inj), mean_index(&st->dist_cons), 0.02);
    cr_assert_eq(sum(st->node_inj, N), rep->injected * L);
    cr_assert_eq(sum(st->node_acc, N), rep->delivered * L);
    cr_assert_eq(sum(st->pair_inj, (size_t)N * N), rep->injected);
    cr_assert_eq(sum(st->pair_cons, (size_t)N * N), rep->delivered);
    for (uint32_t n = 0; n < N; n++)
        cr_assert_eq(st->pair_cons[(size_t)n * N + n], 0, "uniform never sends to itself");
    /* Queue histograms: every queue is somewhere at every measured cycle. */
    cr_assert_eq(insee_counts_total(&st->occ_transit),
                 (uint64_t)r.net->transit_queues * rep->measure_cycles);
    cr_assert_eq(insee_counts_total(&st->occ_inject),
                 (uint64_t)(r.net->queues - r.net->transit_queues) * rep->measure_cycles);
    /* The series covers the whole run. */
    uint64_t generated = 0, delivered = 0;
    const insee_series_point *pt = (const insee_series_point *)st->series->data;
    for (guint i = 0; i < st->series->len; i++) {
        generated += pt[i].w.generated;
        delivered += pt[i].w.delivered;
        cr_assert(i == 0 || pt[i].cycle > pt[i - 1].cycle);
    }
    cr_assert_eq(generated, rep->total_generated);
    cr_assert_eq(delivered, rep->total_delivered);
    cr_assert_eq(pt[st->series->len - 1].cycle, rep->cycles);
    /* Percentiles in order, within the extremes. */
    const uint64_t *q = rep->latency_gen_q;
    cr_assert(q[0] >= L && q[0] <= q[1] && q[1] <= q[2] && q[2] <= q[3] &&
              q[3] <= rep->latency_gen.max);
    cr_assert(rep->occupancy > 0 && rep->occupancy <= (double)rep->occupancy_max);
    run_free(&r);
    g_free(toml);
}

/* Little's law: packets inside = throughput x time inside. A packet counts
   from its injection queue to its consumption, its latency from generation,
   so at 0.3 the mean occupancy is accepted packets per cycle times that
   latency, within a few percent (the window's edges). */
Test(stats, occupancy_follows_littles_law)
{
    char *toml = g_strdup_printf(every_statistic, "0.3");
    run r = run_stats(toml);
    const insee_report *rep = r.rep;
    double per_cycle = (double)rep->delivered / (double)rep->measure_cycles;
    double expected = per_cycle * insee_stat_mean(&rep->latency_gen);
    cr_assert(fabs(rep->occupancy - expected) < 0.05 * expected, "occupancy %f, Little %f",
              rep->occupancy, expected);
    run_free(&r);
    g_free(toml);
}

Test(stats, latency_histogram_bins_hold_their_values)
{
    insee_lat_hist h = {0};
    for (uint64_t v = 1; v <= 1000; v++)
        insee_lat_hist_add(&h, v);
    cr_assert_eq(insee_lat_hist_quantile(&h, 0.5), 500);
    cr_assert_eq(insee_lat_hist_quantile(&h, 0.9), 900);
    cr_assert_eq(insee_lat_hist_quantile(&h, 0.99), 990);
    cr_assert_eq(insee_lat_hist_quantile(&h, 1.0), 1000);
    g_free(h.bins.v);
    /* Above the exact range each value falls in a bin that holds it and is
       at most 1/128 of its value wide. */
    for (uint64_t v = INSEE_LAT_EXACT; v < (1ull << 40); v = v * 3 / 2 + 7) {
        insee_lat_hist one = {0};
        insee_lat_hist_add(&one, v);
        uint32_t b = 0;
        while (!one.bins.v[b])
            b++;
        uint64_t lo, hi;
        insee_lat_hist_bin(b, &lo, &hi);
        cr_assert(lo <= v && v <= hi, "%lu in [%lu, %lu]", (unsigned long)v, (unsigned long)lo,
                  (unsigned long)hi);
        cr_assert_leq((double)(hi - lo + 1), (double)lo / 128.0);
        g_free(one.bins.v);
    }
}

Test(stats, batch_estimate_is_students_interval)
{
    insee_batch b[5];
    for (int i = 0; i < 5; i++)
        b[i] = (insee_batch){.accepted_load = i + 1, .latency_mean = i == 2 ? NAN : 10};
    insee_report r = {.batches = b, .n_batches = 5};
    insee_estimate e = insee_batch_estimate(&r, offsetof(insee_batch, accepted_load));
    cr_assert_eq(e.n, 5);
    cr_assert_float_eq(e.mean, 3.0, 1e-12);
    cr_assert_float_eq(e.std, sqrt(2.5), 1e-12);
    /* t(0.975, 4) = 2.776 */
    cr_assert_float_eq(e.ci_hi - e.mean, 2.776 * sqrt(2.5) / sqrt(5.0), 1e-9);
    e = insee_batch_estimate(&r, offsetof(insee_batch, latency_mean));
    cr_assert_eq(e.n, 4, "a batch that delivered nothing is left out");
    cr_assert_float_eq(e.std, 0.0, 1e-12);
}

static const char converging[] = "[simulation]\nseed = %d\n%s"
                                 "[topology]\nplugin = \"torus\"\ndims = [8, 8]\n"
                                 "[traffic]\nplugin = \"uniform\"\nload = 0.3\n";

/* INSEE §3.2.1 with its defaults: the run converges, and its 95 % interval
   holds the mean of a run ten times longer. */
Test(stats, batches_interval_holds_the_long_run_mean)
{
    char *toml = g_strdup_printf(converging, 1, "");
    insee_report shortr = run_toml(toml);
    g_free(toml);
    cr_assert_str_eq(shortr.phases, "converge");
    cr_assert(shortr.converged);
    cr_assert_eq(shortr.n_batches, 10);
    cr_assert_eq(shortr.measure_cycles, 10000);
    cr_assert_eq((shortr.warmup_cycles + shortr.convergence_cycles) % 1000, 0,
                 "batches start on a multiple of their length");
    toml = g_strdup_printf(converging, 2, "phases = \"fixed\"\nwarmup = 5000\ncycles = 100000\n");
    insee_report longr = run_toml(toml);
    g_free(toml);
    const size_t field[2] = {offsetof(insee_batch, accepted_load),
                             offsetof(insee_batch, latency_mean)};
    const double long_run[2] = {longr.accepted_load, insee_stat_mean(&longr.latency_gen)};
    for (int f = 0; f < 2; f++) {
        insee_estimate e = insee_batch_estimate(&shortr, field[f]);
        cr_assert(e.ci_lo <= long_run[f] && long_run[f] <= e.ci_hi, "[%f, %f] vs %f", e.ci_lo,
                  e.ci_hi, long_run[f]);
        cr_assert_lt(e.ci_hi - e.ci_lo, 0.1 * e.mean, "an interval that says something");
    }
    insee_report_clear(&shortr);
    insee_report_clear(&longr);
}

Test(stats, convergence_cap_ends_an_unsteady_run)
{
    /* A tolerance no two windows meet: measurement starts at the cap. */
    char *toml = g_strdup_printf(converging, 1,
                                 "convergence_tolerance = 0\nconvergence_max = 4000\n"
                                 "convergence_packets = 0\nbatches = 3\n");
    insee_report r = run_toml(toml);
    g_free(toml);
    cr_assert_not(r.converged);
    cr_assert_eq(r.convergence_cycles, 4000);
    cr_assert_eq(r.n_batches, 3);
    cr_assert_eq(r.measure_cycles, 3000);
    insee_report_clear(&r);
}

/* 16 nodes at load 0.05 deliver 50 packets in 1000 cycles, whose counting
   noise (1/sqrt(50), 14 %) no 5 % tolerance can meet: with windows of
   cycles, as INSEE's, the ring never converges. With windows of 2000
   packets (0.05 packets a cycle: 40000 cycles each) it does, as a
   16384-node hypercube does with windows of the minimum length, whose
   20000 packets need no stretching. */
static const char ring16[] = "[simulation]\nseed = %d\n%s"
                             "[topology]\nplugin = \"torus\"\ndims = [16]\n"
                             "[traffic]\nplugin = \"uniform\"\nload = 0.05\n";

Test(stats, convergence_windows_are_sized_by_packets_on_16_and_16k_nodes)
{
    for (int seed = 1; seed <= 3; seed++) {
        char *toml = g_strdup_printf(ring16, seed, "");
        insee_report r = run_toml(toml);
        g_free(toml);
        cr_assert(r.converged, "seed %d", seed);
        double per_window = (double)r.convergence_cycles / (double)r.convergence_windows;
        cr_assert(per_window >= 36000 && per_window <= 44000, "seed %d: %g cycles a window",
                  seed, per_window);
        insee_report_clear(&r);
    }
    char *toml = g_strdup_printf(ring16, 1, "convergence_packets = 0\n");
    insee_report fixed = run_toml(toml);
    g_free(toml);
    cr_assert_not(fixed.converged, "windows of 1000 cycles are too noisy on 16 nodes");
    cr_assert_eq(fixed.convergence_windows, 25);
    insee_report_clear(&fixed);
    /* The cap counts windows: three of them, however long. */
    toml = g_strdup_printf(ring16, 1, "convergence_tolerance = 0\nconvergence_max = 3000\n");
    insee_report capped = run_toml(toml);
    g_free(toml);
    cr_assert_not(capped.converged);
    cr_assert_eq(capped.convergence_windows, 3);
    cr_assert_gt(capped.convergence_cycles, 3 * 36000);
    insee_report_clear(&capped);

    insee_report big = run_toml("[simulation]\nwarmup = 200\nconvergence_window = 200\n"
                                "batches = 1\nbatch_cycles = 200\n"
                                "[topology]\nplugin = \"hypercube\"\nn = 14\n"
                                "[router]\nplugin = \"dally\"\n"
                                "[traffic]\nplugin = \"uniform\"\nload = 0.1\n");
    cr_assert_eq(big.nodes, 16384);
    cr_assert(big.converged);
    cr_assert_eq(big.convergence_cycles, big.convergence_windows * 200,
                 "no window longer than convergence_window");
    insee_report_clear(&big);
}

Test(stats, drops_are_split_by_reason)
{
    insee_report r = run_toml("[simulation]\nwarmup = 1000\ncycles = 3000\n"
                              "[traffic]\nplugin = \"uniform\"\nload = 0.9\non_full = \"drop\"\n");
    cr_assert_gt(r.dropped, 0, "the sources overflow at 0.9");
    cr_assert_eq(r.dropped_source, r.dropped);
    cr_assert_eq(r.dropped_router + r.dropped_unroutable, 0);
    insee_report_clear(&r);
}

/* The direction series counts every hop once, in its port's class: on a
   torus every hop, on a tree every hop up or down a level. Under uniform
   traffic the four directions of a 2-D torus carry the same load. */
Test(stats, direction_series_counts_every_hop_once)
{
    static const char *const topologies[] = {"plugin = \"torus\"\ndims = [8, 8]",
                                             "plugin = \"kary-ntree\"\nk = 4\nn = 3"};
    for (size_t t = 0; t < G_N_ELEMENTS(topologies); t++) {
        char *toml = g_strdup_printf("[simulation]\nseed = 3\nwarmup = 2000\ncycles = 6000\n"
                                     "[topology]\n%s\n[router]\nplugin = \"%s\"\n"
                                     "[traffic]\nplugin = \"uniform\"\nload = 0.3\n"
                                     "[stats]\ninterval = 700\ndirection_series = true\n",
                                     topologies[t], t ? "updown" : "dally");
        run r = run_stats(toml);
        const insee_directions *d = &r.st->dir;
        const uint64_t *pts = (const uint64_t *)(void *)d->series->data;
        cr_assert_eq(d->series->len, (guint)(r.st->series->len * d->classes));
        uint64_t all = 0, links = 0;
        for (uint32_t c = 0; c < d->classes; c++) {
            uint64_t class_sum = 0;
            for (guint i = 0; i < r.st->series->len; i++)
                class_sum += pts[(size_t)i * d->classes + c];
            cr_assert_eq(class_sum, d->phits[c], "class %u", c);
            all += class_sum;
            links += d->links[c];
        }
        /* A tree's nodes are routers of their own, whose links to the leaf
           switches have no level: every packet crosses two of them. Its
           top switches' up ports are unplugged: 4 classes of 64 links. */
        uint64_t node_hops = t ? 2 * r.rep->total_delivered : 0;
        cr_assert_eq(all, (r.rep->total_packet_hops - node_hops) * r.rep->packet_phits,
                     "%s: %" G_GUINT64_FORMAT " phits in the classes, %" G_GUINT64_FORMAT " hops",
                     topologies[t], all, r.rep->total_packet_hops);
        cr_assert_eq(links, t ? 4 * 64 : r.net->ports_total, "every link in one class");
        if (t == 0) {
            for (uint32_t c = 1; c < d->classes; c++)
                cr_assert(fabs((double)d->phits[c] / (double)d->phits[0] - 1) < 0.05,
                          "direction %u carries %" G_GUINT64_FORMAT " phits, + of dimension 0 %"
                          G_GUINT64_FORMAT, c, d->phits[c], d->phits[0]);
        }
        run_free(&r);
        g_free(toml);
    }
}

Test(stats, a_direction_series_needs_a_series_and_directions)
{
    char *msg = run_toml_error("[topology]\nplugin = \"torus\"\ndims = [4, 4]\n"
                               "[stats]\ninterval = 0\ndirection_series = true\n");
    cr_assert(strstr(msg, "direction_series") && strstr(msg, "interval > 0"), "%s", msg);
    g_free(msg);
    msg = run_toml_error("[topology]\nplugin = \"graph\"\nfile = \"" INSEE_TEST_SOURCE_DIR
                         "/examples/graphs/petersen.net\"\n[router]\nplugin = \"updown\"\n"
                         "[stats]\ndirection_series = true\n");
    cr_assert(strstr(msg, "direction_series") && strstr(msg, "dimension"), "%s", msg);
    g_free(msg);
}

Test(stats, a_pair_map_that_would_not_fit_is_refused)
{
    char *msg = run_toml_error("[topology]\nplugin = \"torus\"\ndims = [256, 256]\n"
                               "[traffic]\nplugin = \"uniform\"\nload = 0.1\n"
                               "[stats]\npair_map = true\n");
    cr_assert(strstr(msg, "pair_map") && strstr(msg, "65536 nodes"), "%s", msg);
    g_free(msg);
}

Test(stats, an_interrupted_run_writes_nothing)
{
    char *dir = g_dir_make_tmp("insee-stats-XXXXXX", NULL);
    char *toml = g_strdup_printf("[traffic]\nplugin = \"uniform\"\nload = 0.3\n"
                                 "[stats]\ncsv = \"%s/runs.csv\"\njson = \"%s/run.json\"\n",
                                 dir, dir);
    insee_config *cfg;
    insee_registry *reg;
    insee_experiment *exp = build_toml(toml, &cfg, &reg);
    static volatile int stop = 1;
    insee_experiment_set_stop(exp, &stop);
    GError *err = NULL;
    cr_assert(insee_experiment_run(exp, &err));
    cr_assert(insee_experiment_report(exp)->interrupted);
    cr_assert_not(insee_experiment_write_outputs(exp, &err));
    cr_assert(strstr(err->message, "interrupted"), "%s", err->message);
    g_error_free(err);
    GDir *d = g_dir_open(dir, 0, NULL);
    cr_assert_null(g_dir_read_name(d), "no file, not even a temporary");
    g_dir_close(d);
    insee_experiment_free(exp);
    insee_registry_free(reg);
    insee_config_free(cfg);
    g_rmdir(dir);
    g_free(dir);
    g_free(toml);
}

/* Two routers' modes used to give rows that only their numbers told apart;
   the params column names what is not at its default. */
Test(stats, csv_rows_name_the_parameters_that_differ)
{
    char *dir = g_dir_make_tmp("insee-stats-XXXXXX", NULL);
    char *csv = g_build_filename(dir, "runs.csv", NULL);
    const char *modes[] = {"smart", "random"};
    for (int m = 0; m < 2; m++) {
        char *toml = g_strdup_printf("[simulation]\nwarmup = 100\ncycles = 500\n"
                                     "[router]\nplugin = \"bubble\"\nmode = \"%s\"\n"
                                     "[traffic]\nplugin = \"uniform\"\nload = 0.2\n"
                                     "[stats]\ncsv = \"%s\"\n", modes[m], csv);
        insee_config *cfg;
        insee_registry *reg;
        insee_experiment *exp = build_toml(toml, &cfg, &reg);
        GError *err = NULL;
        cr_assert(insee_experiment_run(exp, &err) && insee_experiment_write_outputs(exp, &err),
                  "%s", err ? err->message : "");
        insee_experiment_free(exp);
        insee_registry_free(reg);
        insee_config_free(cfg);
        g_free(toml);
    }
    char *text = NULL;
    cr_assert(g_file_get_contents(csv, &text, NULL, NULL));
    char **lines = g_strsplit(text, "\n", -1);
    cr_assert(g_str_has_prefix(lines[0], "plugins,params,"));
    /* smart is bubble's default: only the load and the window differ. */
    cr_assert(strstr(lines[1], ",\"simulation.cycles=500;simulation.phases=\"\"fixed\"\";"
                               "simulation.warmup=100;traffic.load=0.2\","),
              "%s", lines[1]);
    cr_assert(strstr(lines[2], "router.mode=\"\"random\"\""), "%s", lines[2]);
    g_strfreev(lines);
    g_free(text);
    g_remove(csv);
    g_rmdir(dir);
    g_free(csv);
    g_free(dir);
}
