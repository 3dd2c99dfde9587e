/* kernel/stats/report.c — running statistics, the human report and the CSV
 * rows (report.h). Everything printed except the wall-clock and speed lines
 * is a function of the configuration and the seed, so two runs can be
 * compared byte for byte. */
#include "stats/report.h"

#include <math.h>
#include <string.h>

void insee_stat_add(insee_stat *s, uint64_t x)
{
    /* Welford: stable for long runs where sum of squares would cancel. */
    s->count++;
    double d = (double)x - s->mean;
    s->mean += d / (double)s->count;
    s->m2 += d * ((double)x - s->mean);
    if (x > s->max)
        s->max = x;
}

double insee_stat_std(const insee_stat *s)
{
    return s->count > 1 ? sqrt(s->m2 / (double)(s->count - 1)) : 0.0;
}

void insee_report_clear(insee_report *r)
{
    g_free(r->echo);
    g_free(r->plugins);
    memset(r, 0, sizeof *r);
}

static double per_packet(uint64_t total, uint64_t count)
{
    return count ? (double)total / (double)count : 0.0;
}

static void print_latency(FILE *out, const char *what, const insee_stat *s)
{
    fprintf(out, "%-28s mean %.3f  std %.3f  max %" G_GUINT64_FORMAT " cycles\n", what, s->mean,
            insee_stat_std(s), s->max);
}

void insee_report_print(const insee_report *r, FILE *out)
{
    fprintf(out, "# insee report\n# parameters (this block is a config file that repeats the run)\n");
    fputs(r->echo ? r->echo : "", out);
    fprintf(out, "\n# results\n");
    fprintf(out, "%-28s %u nodes, %u routers, packets of %u phits\n", "network", r->nodes,
            r->routers, r->packet_phits);
    fprintf(out, "%-28s %" G_GUINT64_FORMAT " (warm-up %" G_GUINT64_FORMAT ", measured %"
            G_GUINT64_FORMAT ", drain %" G_GUINT64_FORMAT ")\n", "simulated cycles", r->cycles,
            r->warmup_cycles, r->measure_cycles, r->drain_cycles);
    if (r->causal)
        fprintf(out, "%-28s %s%" G_GUINT64_FORMAT "\n", "workload",
                r->completed ? "completed at cycle " : "NOT completed; stopped at cycle ",
                r->cycles);
    if (r->offered_load >= 0)
        fprintf(out, "%-28s %.4f phits/node/cycle\n", "offered load", r->offered_load);
    fprintf(out, "%-28s %.4f phits/node/cycle\n", "generated load", r->generated_load);
    fprintf(out, "%-28s %.4f phits/node/cycle\n", "accepted load", r->accepted_load);
    fprintf(out, "%-28s generated %" G_GUINT64_FORMAT ", injected %" G_GUINT64_FORMAT
            ", delivered %" G_GUINT64_FORMAT ", dropped %" G_GUINT64_FORMAT "\n",
            "packets (measured)", r->generated, r->injected, r->delivered, r->dropped);
    fprintf(out, "%-28s %.4f\n", "average hops", per_packet(r->hops, r->delivered));
    print_latency(out, "latency from generation", &r->latency_gen);
    print_latency(out, "latency from injection", &r->latency_inj);
    fprintf(out, "%-28s generated %" G_GUINT64_FORMAT ", delivered %" G_GUINT64_FORMAT
            ", dropped %" G_GUINT64_FORMAT ", in flight %" G_GUINT64_FORMAT " (%s)\n",
            "packets (whole run)", r->total_generated, r->total_delivered, r->total_dropped,
            r->total_in_flight, r->drained ? "drained" : "NOT drained: raise [simulation] drain");
    if (r->total_dropped_network)
        fprintf(out, "%-28s %" G_GUINT64_FORMAT " packets\n", "dropped by routers",
                r->total_dropped_network);
    if (r->total_copies)
        fprintf(out, "%-28s %" G_GUINT64_FORMAT " (delivered and dropped count them too)\n",
                "multicast copies", r->total_copies);
    fprintf(out, "%-28s %" G_GUINT64_FORMAT " cycles\n", "source stalls", r->source_stalls);
    fprintf(out, "# speed (varies from run to run)\n");
    fprintf(out, "%-28s %.3f s\n", "set-up time", r->setup_seconds);
    fprintf(out, "%-28s %.3f s\n", "wall time", r->wall_seconds);
    fprintf(out, "%-28s %.0f simulated cycles/s, %.0f packet-hops/s\n", "simulator speed",
            r->cycles_per_second, r->packet_hops_per_second);
    fprintf(out, "%-28s %.1f MiB\n", "peak memory", (double)r->peak_rss_kib / 1024.0);
}

static const char csv_header[] =
    "plugins,seed,nodes,packet_phits,warmup,measured,offered_load,generated_load,"
    "accepted_load,generated,injected,delivered,dropped,avg_hops,lat_gen_mean,lat_gen_std,"
    "lat_gen_max,lat_inj_mean,lat_inj_std,lat_inj_max,cycles,drained\n";

static void csv_row(const insee_report *r, GString *s)
{
    g_string_append_printf(
        s,
        "%s,%" G_GUINT64_FORMAT ",%u,%u,%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT
        ",%.6f,%.6f,%.6f,%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT
        ",%" G_GUINT64_FORMAT ",%.6f,%.6f,%.6f,%" G_GUINT64_FORMAT ",%.6f,%.6f,%" G_GUINT64_FORMAT
        ",%" G_GUINT64_FORMAT ",%d\n",
        r->plugins ? r->plugins : "", r->seed, r->nodes, r->packet_phits, r->warmup_cycles,
        r->measure_cycles, r->offered_load, r->generated_load, r->accepted_load, r->generated,
        r->injected, r->delivered, r->dropped, per_packet(r->hops, r->delivered),
        r->latency_gen.mean, insee_stat_std(&r->latency_gen), r->latency_gen.max,
        r->latency_inj.mean, insee_stat_std(&r->latency_inj), r->latency_inj.max, r->cycles,
        r->drained ? 1 : 0);
}

gboolean insee_report_append_csv(const insee_report *r, const char *path, GError **err)
{
    char *old = NULL;
    gsize len = 0;
    GError *read_err = NULL;
    GString *s = g_string_new(NULL);
    if (g_file_get_contents(path, &old, &len, &read_err)) {
        if (len > 0 && !g_str_has_prefix(old, csv_header)) {
            g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                        "%s: the file exists but its first line is not insee's CSV header; "
                        "choose another [stats] csv file", path);
            g_free(old);
            g_string_free(s, TRUE);
            return FALSE;
        }
        g_string_append_len(s, old, (gssize)len);
        g_free(old);
    } else if (!g_error_matches(read_err, G_FILE_ERROR, G_FILE_ERROR_NOENT)) {
        g_propagate_prefixed_error(err, read_err, "[stats] csv: ");
        g_string_free(s, TRUE);
        return FALSE;
    }
    g_clear_error(&read_err);
    if (s->len == 0)
        g_string_append(s, csv_header);
    csv_row(r, s);
    /* g_file_set_contents writes a temporary file and renames it over the
       target: readers see the old file or the new one, never half of one. */
    gboolean ok = g_file_set_contents(path, s->str, (gssize)s->len, err);
    if (!ok)
        g_prefix_error(err, "[stats] csv: ");
    g_string_free(s, TRUE);
    return ok;
}
