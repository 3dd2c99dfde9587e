/* kernel/flow/dynamic_output.c — the dynamic engine's report; see output.h. */
#include "flow/output.h"
#include "flow/paths.h"
#include "stats/json.h"
#include "stats/output.h"

static const char csv_header[] =
    "engine,plugins,seed,nodes,routers,messages,self_messages,unroutable,"
    "subflows,bytes_sent,"
    "bytes_delivered,makespan_s,fct_mean_s,fct_p50_s,fct_p99_s,fct_max_s,"
    "slowdown_mean,"
    "slowdown_p50,slowdown_p99,slowdown_max,utilisation,plugin_figures\n";

/* A time in the unit that suits it, '.' whatever the locale. */
static const char *time_text(char buf[G_ASCII_DTOSTR_BUF_SIZE + 4], double s)
{
    static const struct {
        double scale;
        const char *unit;
    } units[] = {{1, "s"}, {1e-3, "ms"}, {1e-6, "us"}, {1e-9, "ns"}};
    guint u = 0;
    while (u + 1 < G_N_ELEMENTS(units) && s < units[u].scale)
        u++;
    g_ascii_formatd(buf, G_ASCII_DTOSTR_BUF_SIZE, "%.6g", s / units[u].scale);
    g_strlcat(buf, " ", G_ASCII_DTOSTR_BUF_SIZE + 4);
    g_strlcat(buf, units[u].unit, G_ASCII_DTOSTR_BUF_SIZE + 4);
    return buf;
}

/* "router R port P", "node N to router R", "router R to node N", or a
   [storage] device: "node N storage device", "node N PCIe" (storage.h). */
static char *link_name(const insee_net *net, uint32_t l)
{
    if (l < net->ports_total) {
        uint32_t r = net->port_router[l];
        return g_strdup_printf("router %u port %u", r, l - net->port_base[r]);
    }
    if (l >= insee_flow_links(net)) {
        uint32_t device = l - insee_flow_links(net);
        return g_strdup_printf(device < net->nodes ? "node %u storage device" : "node %u PCIe",
                               device % net->nodes);
    }
    uint32_t node = (l - net->ports_total) % net->nodes;
    if (l < insee_flow_link_out(net, 0))
        return g_strdup_printf("node %u to router %u", node, net->node_router[node]);
    return g_strdup_printf("router %u to node %u", net->node_router[node], node);
}

void insee_flow_dyn_print(const insee_flow_run *run, FILE *out)
{
    const insee_flow_dyn_report *r = run->dyn;
    char a[G_ASCII_DTOSTR_BUF_SIZE + 4], b[G_ASCII_DTOSTR_BUF_SIZE + 4],
        c[G_ASCII_DTOSTR_BUF_SIZE + 4], d[G_ASCII_DTOSTR_BUF_SIZE + 4];
    fprintf(out, "# insee report\n# parameters (this block is a config file that "
                 "repeats the run)\n");
    fputs(run->echo ? run->echo : "", out);
    fprintf(out,
            "\n# results (dynamic flow engine: messages as flows sharing link "
            "bandwidth)%s\n",
            r->interrupted ? " — INTERRUPTED: partial figures" : "");
    fprintf(out, "%-28s %u nodes, %u routers\n", "network", run->nodes, run->routers);
    insee_flow_print_faults(run, r->failed_cables, r->connected_pairs, out);
    fprintf(out,
            "%-28s %" G_GUINT64_FORMAT " through the network (%" G_GUINT64_FORMAT
            " paths), %" G_GUINT64_FORMAT " between tasks of one node, %" G_GUINT64_FORMAT
            " unroutable\n",
            "messages", r->messages, r->subflows, r->self_messages, r->unroutable);
    fprintf(out, "%-28s sent %" G_GUINT64_FORMAT ", delivered %" G_GUINT64_FORMAT "\n", "bytes",
            r->bytes_sent, r->bytes_delivered);
    fprintf(out, "%-28s %s\n", "completion time", time_text(a, r->makespan));
    for (uint32_t i = 0; i < r->n_apps; i++) {
        fprintf(out, "  %-26s %s, %" G_GUINT64_FORMAT " messages delivered\n", run->app_names[i],
                time_text(a, r->app_completion[i]), r->app_messages[i]);
        if (run->jobs && run->jobs->apps[i].job)
            insee_report_print_job(run->jobs, &run->jobs->apps[i], 2, out);
    }
    fprintf(out, "%-28s mean %s  p50 %s  p99 %s  max %s\n", "flow completion time",
            time_text(a, r->fct_mean), time_text(b, r->fct_p50), time_text(c, r->fct_p99),
            time_text(d, r->fct_max));
    fprintf(out, "%-28s mean %s  p50 %s  p99 %s  max %s\n", "slowdown against alone",
            g_ascii_formatd(a, sizeof a, "%.6g", r->slowdown_mean),
            g_ascii_formatd(b, sizeof b, "%.6g", r->slowdown_p50),
            g_ascii_formatd(c, sizeof c, "%.6g", r->slowdown_p99),
            g_ascii_formatd(d, sizeof d, "%.6g", r->slowdown_max));
    fprintf(out, "%-28s %s mean over links and the completion time\n", "link utilisation",
            g_ascii_formatd(a, sizeof a, "%.6g", r->utilisation));
    for (uint32_t i = 0; i < r->n_busiest; i++) {
        char *name = link_name(run->net, r->busiest_link[i]);
        fprintf(out, "  %-26s %s\n", name,
                g_ascii_formatd(a, sizeof a, "%.6g", r->busiest_util[i]));
        g_free(name);
    }
    if (r->n_series) {
        fprintf(out, "%-28s spans of %s:", "utilisation over time",
                time_text(a, r->makespan / r->n_series));
        for (uint32_t i = 0; i < r->n_series; i++)
            fprintf(out, " %s", g_ascii_formatd(b, sizeof b, "%.3f", r->series[i]));
        fprintf(out, "\n");
    }
    fprintf(out, "%-28s %" G_GUINT64_FORMAT " instants, %" G_GUINT64_FORMAT " rate changes\n",
            "events", r->instants, r->rate_changes);
    if (run->jobs)
        insee_report_print_sched(run->jobs, out);
}

gboolean insee_flow_dyn_write_json(const insee_flow_run *run, const char *path, GError **err)
{
    const insee_flow_dyn_report *r = run->dyn;
    insee_jw *b = insee_flow_json_begin(run, "dynamic", path, err);
    if (!b)
        return FALSE;
    insee_flow_json_int(b, "messages", (gint64)r->messages);
    insee_flow_json_int(b, "self_messages", (gint64)r->self_messages);
    insee_flow_json_int(b, "unroutable", (gint64)r->unroutable);
    insee_flow_json_int(b, "subflows", (gint64)r->subflows);
    insee_flow_json_int(b, "bytes_sent", (gint64)r->bytes_sent);
    insee_flow_json_int(b, "bytes_delivered", (gint64)r->bytes_delivered);
    insee_flow_json_double(b, "makespan_s", r->makespan);
    insee_jw_key(b, "applications");
    insee_jw_begin_array(b);
    for (uint32_t i = 0; i < r->n_apps; i++) {
        insee_jw_begin_object(b);
        insee_jw_key(b, "name");
        insee_jw_string(b, run->app_names[i]);
        insee_flow_json_double(b, "completion_s", r->app_completion[i]);
        insee_flow_json_int(b, "messages", (gint64)r->app_messages[i]);
        if (run->jobs && run->jobs->apps[i].job)
            insee_json_job(b, run->jobs, &run->jobs->apps[i]);
        insee_jw_end_object(b);
    }
    insee_jw_end_array(b);
    insee_flow_json_double(b, "fct_mean_s", r->fct_mean);
    insee_flow_json_double(b, "fct_p50_s", r->fct_p50);
    insee_flow_json_double(b, "fct_p99_s", r->fct_p99);
    insee_flow_json_double(b, "fct_max_s", r->fct_max);
    insee_flow_json_double(b, "slowdown_mean", r->slowdown_mean);
    insee_flow_json_double(b, "slowdown_p50", r->slowdown_p50);
    insee_flow_json_double(b, "slowdown_p99", r->slowdown_p99);
    insee_flow_json_double(b, "slowdown_max", r->slowdown_max);
    insee_flow_json_double(b, "utilisation", r->utilisation);
    insee_jw_key(b, "busiest_links");
    insee_jw_begin_array(b);
    for (uint32_t i = 0; i < r->n_busiest; i++) {
        char *name = link_name(run->net, r->busiest_link[i]);
        insee_jw_begin_object(b);
        insee_jw_key(b, "link");
        insee_jw_string(b, name);
        insee_flow_json_double(b, "utilisation", r->busiest_util[i]);
        if (r->n_link_series) {
            insee_jw_key(b, "series");
            insee_jw_begin_array(b);
            for (uint32_t k = 0; k < r->n_link_series; k++)
                insee_jw_double(
                    b, r->link_series[(gsize)i * r->n_link_series + k]);
            insee_jw_end_array(b);
        }
        insee_jw_end_object(b);
        g_free(name);
    }
    insee_jw_end_array(b);
    insee_flow_json_double(b, "series_span_s", r->n_series ? r->makespan / r->n_series : 0);
    insee_flow_json_double(b, "link_series_span_s", r->link_series_span);
    insee_jw_key(b, "utilisation_series");
    insee_jw_begin_array(b);
    for (uint32_t i = 0; i < r->n_series; i++)
        insee_jw_double(b, r->series[i]);
    insee_jw_end_array(b);
    insee_flow_json_int(b, "failed_cables", r->failed_cables);
    insee_flow_json_int(b, "connected_pairs", (gint64)r->connected_pairs);
    insee_flow_json_int(b, "instants", (gint64)r->instants);
    insee_flow_json_int(b, "rate_changes", (gint64)r->rate_changes);
    if (run->jobs)
        insee_json_scheduler(b, run->jobs);
    insee_jw_end_object(b);
    return insee_jw_close(b, err);
}

gboolean insee_flow_dyn_check_csv(const char *path, GError **err)
{
    return insee_output_check_append(path, "[stats] csv", csv_header, err);
}

gboolean insee_flow_dyn_append_csv(const insee_flow_run *run, const char *path, GError **err)
{
    const insee_flow_dyn_report *r = run->dyn;
    char v[10][G_ASCII_DTOSTR_BUF_SIZE];
    GString *figures = g_string_new(NULL);
    if (run->jobs)
        insee_report_sched_figures(run->jobs, figures);
    /* The plugins field holds '/', never ',' or '"': plugin names are [a-z0-9-].
   */
    char *row = g_strdup_printf(
        "dynamic,%s,%" G_GUINT64_FORMAT ",%u,%u,%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT
        ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT
        ",%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n",
        run->plugins, run->seed, run->nodes, run->routers, r->messages, r->self_messages,
        r->unroutable, r->subflows, r->bytes_sent, r->bytes_delivered,
        g_ascii_formatd(v[0], sizeof v[0], "%.9g", r->makespan),
        g_ascii_formatd(v[1], sizeof v[1], "%.9g", r->fct_mean),
        g_ascii_formatd(v[2], sizeof v[2], "%.9g", r->fct_p50),
        g_ascii_formatd(v[3], sizeof v[3], "%.9g", r->fct_p99),
        g_ascii_formatd(v[4], sizeof v[4], "%.9g", r->fct_max),
        g_ascii_formatd(v[5], sizeof v[5], "%.9g", r->slowdown_mean),
        g_ascii_formatd(v[6], sizeof v[6], "%.9g", r->slowdown_p50),
        g_ascii_formatd(v[7], sizeof v[7], "%.9g", r->slowdown_p99),
        g_ascii_formatd(v[8], sizeof v[8], "%.9g", r->slowdown_max),
        g_ascii_formatd(v[9], sizeof v[9], "%.9g", r->utilisation), figures->str);
    g_string_free(figures, TRUE);
    gboolean ok = insee_output_append(path, "[stats] csv", csv_header, row, err);
    g_free(row);
    return ok;
}
