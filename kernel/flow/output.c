/* kernel/flow/output.c — the static engine's report; see output.h. */
#include "flow/output.h"


#include "stats/json.h"
#include "stats/output.h"

static const char csv_header[] =
    "engine,plugins,seed,nodes,routers,rounds,flows,self_flows,unroutable,links,ports,"
    "load_min,load_mean,load_median,load_max,load_std,hops_mean,hops_max,links_mean,"
    "links_max,restricted,non_restricted,restricted_per_port,non_restricted_per_port,"
    "failed_cables,connected_pairs\n";

/* Counts of flows are doubles (split flows add shares): printed with every
   digit a whole count up to 2^53 has, never rounded to an exponent. */
#define COUNT "%.15g"

/* A double as text, '.' whatever the locale; `fmt` as printf's. */
static const char *num(char buf[G_ASCII_DTOSTR_BUF_SIZE], const char *fmt, double x)
{
    return g_ascii_formatd(buf, G_ASCII_DTOSTR_BUF_SIZE, fmt, x);
}

static double per_port(const insee_flow_report *r, double x)
{
    return r->ports ? x / (double)r->ports : 0;
}

void insee_flow_print_faults(const insee_flow_run *run, uint32_t failed_cables,
                             uint64_t connected_pairs, FILE *out)
{
    if (failed_cables)
        fprintf(out, "%-28s %u failed cables; %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
                " ordered node pairs connected\n", "link failures", failed_cables,
                connected_pairs, (uint64_t)run->nodes * (run->nodes - 1));
}

void insee_flow_print(const insee_flow_run *run, FILE *out)
{
    const insee_flow_report *r = run->rep;
    char a[G_ASCII_DTOSTR_BUF_SIZE], b[G_ASCII_DTOSTR_BUF_SIZE], c[G_ASCII_DTOSTR_BUF_SIZE],
        d[G_ASCII_DTOSTR_BUF_SIZE], e[G_ASCII_DTOSTR_BUF_SIZE];
    fprintf(out, "# insee report\n# parameters (this block is a config file that repeats the run)\n");
    fputs(run->echo ? run->echo : "", out);
    fprintf(out, "\n# results (static flow engine: every flow routed at once, link capacity "
                 "shared equally)\n");
    fprintf(out, "%-28s %u nodes, %u routers, %" G_GUINT64_FORMAT " directed links (node links "
            "included), %" G_GUINT64_FORMAT " router ports\n", "network", run->nodes,
            run->routers, r->links, r->ports);
    fprintf(out, "%-28s %" G_GUINT64_FORMAT " routed in %u round(s); %" G_GUINT64_FORMAT
            " self-flows (no link, not counted); %" G_GUINT64_FORMAT " unroutable\n", "flows",
            r->flows, run->rounds, r->self_flows, r->unroutable);
    insee_flow_print_faults(run, r->failed_cables, r->connected_pairs, out);
    fprintf(out, "%-28s min %s  mean %s  median %s  max %s  std %s\n", "flows per link",
            num(a, COUNT, r->load_min), num(b, "%.4f", r->load_mean),
            num(c, COUNT, r->load_median), num(d, COUNT, r->load_max),
            num(e, "%.4f", r->load_std));
    fprintf(out, "%-28s mean %s  max %u (links: mean %s  max %u)\n", "path length, router hops",
            num(a, "%.4f", r->hops_mean), r->hops_max,
            num(b, "%.4f", r->flows ? r->hops_mean + 2 : 0), r->flows ? r->hops_max + 2 : 0);
    fprintf(out, "%-28s %s flows (F/B), %s per port\n", "restricted throughput",
            num(a, "%.4f", r->restricted), num(b, "%.6f", per_port(r, r->restricted)));
    fprintf(out, "%-28s %s flows (sum of 1/bottleneck), %s per port\n",
            "non-restricted throughput", num(c, "%.4f", r->non_restricted),
            num(d, "%.6f", per_port(r, r->non_restricted)));
    fprintf(out, "%-28s", "links by flows crossing");
    for (uint32_t k = 0; k <= (uint32_t)r->load_max; k++)
        if (r->load_hist[k])
            fprintf(out, " %u:%" G_GUINT64_FORMAT, k, r->load_hist[k]);
    fprintf(out, "\n%-28s", "flows by router hops");
    for (uint32_t h = 0; r->flows && h <= r->hops_max; h++)
        if (r->hops_hist[h] > 0)
            fprintf(out, " %u:%s", h, num(a, COUNT, r->hops_hist[h]));
    fprintf(out, "\n");
}

/* A histogram of `top` + 1 counts, whole (ints) or shares (doubles). */
static void add_hist(insee_jw *b, const char *name, const uint64_t *ints, const double *shares,
                     uint32_t top)
{
    insee_jw_key(b, name);
    insee_jw_begin_array(b);
    for (uint32_t k = 0; (ints || shares) && k <= top; k++) {
        if (ints)
            insee_jw_int(b, (gint64)ints[k]);
        else
            insee_jw_double(b, shares[k]);
    }
    insee_jw_end_array(b);
}

void insee_flow_json_int(insee_jw *b, const char *name, gint64 v)
{
    insee_jw_key(b, name);
    insee_jw_int(b, v);
}

void insee_flow_json_double(insee_jw *b, const char *name, double v)
{
    insee_jw_key(b, name);
    insee_jw_double(b, v);
}

insee_jw *insee_flow_json_begin(const insee_flow_run *run, const char *engine, const char *path,
                                GError **err)
{
    insee_jw *b = insee_jw_open(path, "[stats] json", err);
    if (!b)
        return NULL;
    insee_jw_begin_object(b);
    insee_jw_key(b, "engine");
    insee_jw_string(b, engine);
    insee_jw_key(b, "plugins");
    insee_jw_string(b, run->plugins);
    insee_flow_json_int(b, "seed", (gint64)run->seed);
    insee_flow_json_int(b, "nodes", run->nodes);
    insee_flow_json_int(b, "routers", run->routers);
    return b;
}


gboolean insee_flow_write_json(const insee_flow_run *run, const char *path, GError **err)
{
    const insee_flow_report *r = run->rep;
    insee_jw *b = insee_flow_json_begin(run, "static", path, err);
    if (!b)
        return FALSE;
    insee_flow_json_int(b, "rounds", run->rounds);
    insee_flow_json_int(b, "flows", (gint64)r->flows);
    insee_flow_json_int(b, "self_flows", (gint64)r->self_flows);
    insee_flow_json_int(b, "unroutable", (gint64)r->unroutable);
    insee_flow_json_int(b, "links", (gint64)r->links);
    insee_flow_json_int(b, "ports", (gint64)r->ports);
    insee_flow_json_double(b, "load_min", r->load_min);
    insee_flow_json_double(b, "load_mean", r->load_mean);
    insee_flow_json_double(b, "load_median", r->load_median);
    insee_flow_json_double(b, "load_max", r->load_max);
    insee_flow_json_double(b, "load_std", r->load_std);
    add_hist(b, "load_histogram", r->load_hist, NULL, (uint32_t)r->load_max);
    insee_flow_json_double(b, "hops_mean", r->hops_mean);
    insee_flow_json_int(b, "hops_max", r->hops_max);
    add_hist(b, "hops_histogram", NULL, r->flows ? r->hops_hist : NULL, r->hops_max);
    insee_flow_json_double(b, "restricted", r->restricted);
    insee_flow_json_double(b, "non_restricted", r->non_restricted);
    insee_flow_json_double(b, "restricted_per_port", per_port(r, r->restricted));
    insee_flow_json_double(b, "non_restricted_per_port", per_port(r, r->non_restricted));
    insee_flow_json_int(b, "failed_cables", r->failed_cables);
    insee_flow_json_int(b, "connected_pairs", (gint64)r->connected_pairs);
    insee_jw_end_object(b);
    return insee_jw_close(b, err);
}

gboolean insee_flow_check_csv(const char *path, GError **err)
{
    return insee_output_check_append(path, "[stats] csv", csv_header, err);
}

gboolean insee_flow_append_csv(const insee_flow_run *run, const char *path, GError **err)
{
    const insee_flow_report *r = run->rep;
    char v[11][G_ASCII_DTOSTR_BUF_SIZE];
    /* The plugins field holds '/', never ',' or '"': plugin names are [a-z0-9-]. */
    char *row = g_strdup_printf(
        "static,%s,%" G_GUINT64_FORMAT ",%u,%u,%u,%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT
        ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%s,%s,%s,%s,%s,%s,"
        "%u,%s,%u,%s,%s,%s,%s,%u,%" G_GUINT64_FORMAT "\n",
        run->plugins, run->seed, run->nodes, run->routers, run->rounds, r->flows, r->self_flows,
        r->unroutable, r->links, r->ports, num(v[0], COUNT, r->load_min),
        num(v[1], "%.6g", r->load_mean), num(v[2], COUNT, r->load_median),
        num(v[3], COUNT, r->load_max), num(v[4], "%.6g", r->load_std),
        num(v[5], "%.6g", r->hops_mean), r->hops_max,
        num(v[6], "%.6g", r->flows ? r->hops_mean + 2 : 0), r->flows ? r->hops_max + 2 : 0,
        num(v[7], "%.6g", r->restricted), num(v[8], "%.6g", r->non_restricted),
        num(v[9], "%.6g", per_port(r, r->restricted)),
        num(v[10], "%.6g", per_port(r, r->non_restricted)), r->failed_cables,
        r->connected_pairs);
    gboolean ok = insee_output_append(path, "[stats] csv", csv_header, row, err);
    g_free(row);
    return ok;
}
