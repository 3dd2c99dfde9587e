/* kernel/report/page.c — the HTML page of `insee report` (page.h). */
#include "report/page.h"

#include <string.h>

#include "report/figures.h"
#include "report/jobs.h"

const char insee_report_style[] =
    "body{font-family:sans-serif;max-width:1100px;margin:1em auto;padding:0 1em;color:#222}"
    "h1{font-size:1.5em}h2{border-bottom:1px solid #ccc;margin-top:1.6em}"
    "table{border-collapse:collapse;margin:.5em 0}"
    "td,th{border:1px solid #ccc;padding:.2em .6em;text-align:left}"
    "td.n{text-align:right;font-variant-numeric:tabular-nums}"
    "pre{background:#f6f6f6;padding:.6em;overflow:auto}"
    ".ids{color:#555}.absent{color:#8a4b00}"
    "figure{margin:1.2em 0}figcaption{margin-top:.3em}"
    "figcaption b{display:block}svg{max-width:100%;height:auto}.wide{overflow-x:auto}";

static void esc(GString *out, const char *s)
{
    char *e = g_markup_escape_text(s, -1);
    g_string_append(out, e);
    g_free(e);
}

/* A results file may come from anyone: every string read from it reaches
   the page through text() or member_text() (or, split up, through esc() in
   parameters()), never through a format. */
static void text(GString *out, insee_results *r, const char *path)
{
    esc(out, insee_results_str(r, path));
}

static void member_text(GString *out, insee_results *r, JsonArray *a, guint i, const char *path,
                        const char *key)
{
    esc(out, insee_results_member_str(r, a, i, path, key));
}

/* A table row: a heading cell and a value cell, value already HTML (built
   from numbers and text(), never from a string of the file as it is). */
static void row(GString *out, const char *name, const char *html_value)
{
    g_string_append(out, "<tr><th>");
    esc(out, name);
    g_string_append_printf(out, "</th><td class=\"n\">%s</td></tr>\n", html_value);
}

static void row_printf(GString *out, const char *name, const char *fmt, ...) G_GNUC_PRINTF(3, 4);
static void row_printf(GString *out, const char *name, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *v = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    row(out, name, v);
    g_free(v);
}

static const char *yes_no_null(insee_results *r, const char *path)
{
    if (insee_results_is_null(r, path))
        return "—";
    return insee_results_bool(r, path) ? "yes" : "no";
}

static void title(insee_results *r, GString *out)
{
    g_string_append(out, "<title>insee report: ");
    text(out, r, "plugins");
    g_string_append(out, "</title>\n<style>");
    g_string_append(out, insee_report_style);
    g_string_append(out, "</style>\n</head>\n<body>\n<h1>insee run: ");
    text(out, r, "plugins");
    g_string_append(out, "</h1>\n<p class=\"ids\">");
    char *base = g_path_get_basename(insee_results_path(r));
    g_string_append_printf(out, "seed %.0f · status ", insee_results_num(r, "run.seed"));
    text(out, r, "status");
    g_string_append(out, " · insee ");
    text(out, r, "insee.version");
    g_string_append(out, " (plugin ABI ");
    text(out, r, "insee.abi");
    g_string_append(out, ") · results file ");
    esc(out, base);
    g_string_append(out, "</p>\n");
    g_free(base);
}

static void parameters(insee_results *r, GString *out)
{
    g_string_append(out, "<h2>Parameters</h2>\n<p>Parameters that differ from their "
                         "defaults:</p>\n<table>\n<tr><th>parameter</th><th>value</th></tr>\n");
    const char *params = insee_results_str(r, "params");
    char **items = g_strsplit(params, ";", -1);
    guint shown = 0;
    for (char **p = items; *p; p++) {
        if (!**p)
            continue;
        char *eq = strchr(*p, '=');
        g_string_append(out, "<tr><td>");
        if (eq)
            *eq = '\0';
        esc(out, *p);
        g_string_append(out, "</td><td>");
        esc(out, eq ? eq + 1 : "");
        g_string_append(out, "</td></tr>\n");
        shown++;
    }
    g_strfreev(items);
    if (!shown)
        g_string_append(out, "<tr><td colspan=\"2\">none: every parameter has its default</td></tr>\n");
    g_string_append(out, "</table>\n<p>The configuration used, defaults included (save it as a "
                         "file to repeat the run):</p>\n<pre>");
    text(out, r, "config");
    g_string_append(out, "</pre>\n");
}

static void latency_row(insee_results *r, GString *out, const char *name, const char *path)
{
    static const char *const keys[] = {"mean", "std", "max", "p50", "p90", "p99", "p999"};
    g_string_append_printf(out, "<tr><th>%s</th>", name);
    for (guint i = 0; i < G_N_ELEMENTS(keys); i++) {
        char *key = g_strdup_printf("%s.%s", path, keys[i]);
        g_string_append_printf(out, "<td class=\"n\">%.2f</td>", insee_results_num(r, key));
        g_free(key);
    }
    g_string_append(out, "</tr>\n");
}

static void summary(insee_results *r, GString *out)
{
    g_string_append(out, "<h2>Summary</h2>\n<table>\n");
    row_printf(out, "network", "%.0f nodes, %.0f routers, %.0f VCs, packets of %.0f phits of %.0f bytes",
               insee_results_num(r, "network.nodes"), insee_results_num(r, "network.routers"),
               insee_results_num(r, "network.vcs"), insee_results_num(r, "network.packet_phits"),
               insee_results_num(r, "network.phit_bytes"));
    row_printf(out, "cycles", "%.0f in all: warm-up %.0f, convergence %.0f, measured %.0f, drain %.0f (%s)",
               insee_results_num(r, "run.cycles"), insee_results_num(r, "run.warmup"),
               insee_results_num(r, "run.convergence_cycles"),
               insee_results_num(r, "run.measured_cycles"), insee_results_num(r, "run.drain_cycles"),
               insee_results_bool(r, "run.drained") ? "drained" : "not drained");
    GString *phases = g_string_new(NULL);
    text(phases, r, "run.phases");
    g_string_append_printf(phases, "; converged: %s", yes_no_null(r, "run.converged"));
    row(out, "phases", phases->str);
    g_string_free(phases, TRUE);
    double completion;
    if (insee_results_num_or_null(r, "run.completion", &completion))
        row_printf(out, "completion", "%s after %.0f cycles",
                   insee_results_bool(r, "run.completed") ? "completed" : "not completed",
                   completion);
    double offered;
    char *off = insee_results_num_or_null(r, "summary.offered_load", &offered)
                    ? g_strdup_printf("%.4f", offered)
                    : g_strdup("— (causal)");
    row_printf(out, "load (phits/node/cycle)", "offered %s, generated %.4f, accepted %.4f", off,
               insee_results_num(r, "summary.generated_load"),
               insee_results_num(r, "summary.accepted_load"));
    g_free(off);
    row_printf(out, "packets (measured)", "generated %.0f, injected %.0f, delivered %.0f",
               insee_results_num(r, "summary.generated"), insee_results_num(r, "summary.injected"),
               insee_results_num(r, "summary.delivered"));
    row_printf(out, "dropped", "%.0f: source full %.0f, by a router %.0f, unroutable %.0f",
               insee_results_num(r, "summary.dropped.total"),
               insee_results_num(r, "summary.dropped.source_full"),
               insee_results_num(r, "summary.dropped.router"),
               insee_results_num(r, "summary.dropped.unroutable"));
    row_printf(out, "average hops", "%.4f", insee_results_num(r, "summary.avg_hops"));
    row_printf(out, "queue occupancy", "%.3f packets on average",
               insee_results_num(r, "summary.occupancy"));
    g_string_append(out, "</table>\n<table>\n<tr><th>latency (cycles)</th><th>mean</th><th>std</th>"
                         "<th>max</th><th>p50</th><th>p90</th><th>p99</th><th>p99.9</th></tr>\n");
    latency_row(r, out, "from generation", "summary.latency");
    latency_row(r, out, "from injection", "summary.latency_injection");
    g_string_append(out, "</table>\n");
}

static void batches(insee_results *r, GString *out)
{
    g_string_append(out, "<h2>Batches</h2>\n");
    if (insee_results_is_null(r, "batches")) {
        g_string_append(out, "<p>None: this run measured one window without batches "
                             "(batches is null in the results file).</p>\n");
        return;
    }
    static const char *const names[] = {"accepted_load", "generated_load", "latency_mean",
                                        "avg_hops"};
    g_string_append_printf(out, "<p>%.0f batches of %.0f cycles; mean ± half-width of the 95 %% "
                                "confidence interval.</p>\n<table>\n<tr><th>figure</th><th>mean "
                                "± CI</th><th>95 %% interval</th><th>std</th></tr>\n",
                           insee_results_num(r, "batches.count"),
                           insee_results_num(r, "batches.cycles"));
    for (guint i = 0; i < G_N_ELEMENTS(names); i++) {
        char *base = g_strdup_printf("batches.figures.%s", names[i]);
        char *mean = g_strconcat(base, ".mean", NULL);
        char *std = g_strconcat(base, ".std", NULL);
        char *ci = g_strconcat(base, ".ci95", NULL);
        JsonArray *a = insee_results_array(r, ci);
        double lo = insee_results_elem_num(r, a, 0, ci);
        double hi = insee_results_elem_num(r, a, 1, ci);
        g_string_append_printf(out, "<tr><th>%s</th><td class=\"n\">%.4f ± %.4f</td><td "
                                    "class=\"n\">[%.4f, %.4f]</td><td class=\"n\">%.4f</td></tr>\n",
                               names[i], insee_results_num(r, mean), (hi - lo) / 2, lo, hi,
                               insee_results_num(r, std));
        g_free(base);
        g_free(mean);
        g_free(std);
        g_free(ci);
    }
    g_string_append(out, "</table>\n");
}

static void app_cell_num(insee_results *r, GString *out, JsonArray *apps, guint i,
                         const char *key, const char *fmt)
{
    double v;
    g_string_append(out, "<td class=\"n\">");
    if (insee_results_member_num_or_null(r, apps, i, "applications", key, &v))
        g_string_append_printf(out, fmt, v);
    else
        g_string_append(out, "—");
    g_string_append(out, "</td>");
}

static void applications(insee_results *r, GString *out)
{
    JsonArray *apps = insee_results_array(r, "applications");
    guint n = apps ? json_array_get_length(apps) : 0;
    if (!n)
        return;
    static const struct {
        const char *key, *fmt, *head;
    } cols[] = {
        {"tasks", "%.0f", "tasks"},
        {"nodes", "%.0f", "nodes"},
        {"completion", "%.0f", "completion (cycles)"},
        {"messages", "%.0f", "messages"},
        {"local_messages", "%.0f", "of them local"},
        {"generated", "%.0f", "packets generated"},
        {"delivered", "%.0f", "delivered"},
        {"avg_hops", "%.4f", "average hops"},
        {"latency_mean", "%.2f", "mean latency"},
        {"offered_load", "%.4f", "offered load"},
        {"accepted_load", "%.4f", "accepted load"},
    };
    g_string_append(out, "<h2>Applications</h2>\n<div class=\"wide\"><table>\n<tr><th>name</th><th>plugins</th>"
                         "<th>causal</th>");
    for (guint c = 0; c < G_N_ELEMENTS(cols); c++)
        g_string_append_printf(out, "<th>%s</th>", cols[c].head);
    g_string_append(out, "</tr>\n");
    for (guint i = 0; i < n; i++) {
        g_string_append(out, "<tr><td>");
        member_text(out, r, apps, i, "applications", "name");
        g_string_append(out, "</td><td>");
        member_text(out, r, apps, i, "applications", "plugins");
        gboolean causal = insee_results_member_bool(r, apps, i, "applications", "causal");
        /* Only a causal application completes; the others have null. */
        gboolean done = causal && insee_results_member_bool(r, apps, i, "applications", "completed");
        g_string_append_printf(out, "</td><td>%s</td>",
                               causal ? (done ? "yes, completed" : "yes, not completed") : "no");
        for (guint c = 0; c < G_N_ELEMENTS(cols); c++)
            app_cell_num(r, out, apps, i, cols[c].key, cols[c].fmt);
        g_string_append(out, "</tr>\n");
    }
    g_string_append(out, "</table></div>\n");
}

/* What plugins reported of their own (ABI 1.4 report_figure). */
static void plugin_figures(insee_results *r, GString *out)
{
    JsonArray *figs = insee_results_has(r, "plugin_figures")
                          ? insee_results_array(r, "plugin_figures")
                          : NULL;
    guint n = figs ? json_array_get_length(figs) : 0;
    if (!n)
        return;
    g_string_append(out, "<h2>Plugins' figures</h2>\n<table>\n<tr><th>section</th><th>figure</th>"
                         "<th>value</th><th>unit</th></tr>\n");
    for (guint i = 0; i < n; i++) {
        g_string_append(out, "<tr><td>");
        member_text(out, r, figs, i, "plugin_figures", "section");
        g_string_append(out, "</td><td>");
        member_text(out, r, figs, i, "plugin_figures", "name");
        g_string_append_printf(out, "</td><td class=\"n\">%.10g</td><td>",
                               insee_results_member_num(r, figs, i, "plugin_figures", "value"));
        member_text(out, r, figs, i, "plugin_figures", "unit");
        g_string_append(out, "</td></tr>\n");
    }
    g_string_append(out, "</table>\n");
}

static void figures(GPtrArray *figs, GString *out)
{
    g_string_append(out, "<h2>Figures</h2>\n");
    for (guint i = 0; i < figs->len; i++) {
        const insee_figure *f = g_ptr_array_index(figs, i);
        if (!f->svg) {
            g_string_append(out, "<p class=\"absent\"><b>");
            esc(out, f->title);
            g_string_append(out, "</b>: ");
            esc(out, f->absent);
            g_string_append(out, "</p>\n");
            continue;
        }
        g_string_append(out, "<figure>\n");
        g_string_append(out, f->svg);
        g_string_append(out, "<figcaption><b>");
        esc(out, f->title);
        g_string_append(out, "</b>");
        if (f->note)
            esc(out, f->note);
        g_string_append(out, "</figcaption>\n</figure>\n");
    }
}

static void performance(insee_results *r, GString *out)
{
    g_string_append(out, "<h2>Performance</h2>\n<p>Wall-clock figures of this run on its machine; "
                         "they vary from run to run.</p>\n<table>\n");
    row_printf(out, "set-up time", "%.3f s", insee_results_num(r, "performance.setup_seconds"));
    row_printf(out, "wall time", "%.3f s", insee_results_num(r, "performance.wall_seconds"));
    row_printf(out, "simulator speed", "%.0f cycles/s, %.0f packet-hops/s",
               insee_results_num(r, "performance.cycles_per_second"),
               insee_results_num(r, "performance.packet_hops_per_second"));
    row_printf(out, "peak memory", "%.1f MiB", insee_results_num(r, "performance.peak_rss_kib") / 1024);
    g_string_append(out, "</table>\n");
}

char *insee_report_page(insee_results *r, GError **err)
{
    GString *out = g_string_new("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
                                "<meta charset=\"utf-8\">\n");
    title(r, out);
    parameters(r, out);
    summary(r, out);
    batches(r, out);
    applications(r, out);
    insee_report_jobs(r, out);
    plugin_figures(r, out);
    /* Bad input is found before gnuplot runs seven times for nothing. */
    GPtrArray *figs = insee_results_ok(r, err) ? insee_report_figures(r, err) : NULL;
    if (!figs) {
        g_string_free(out, TRUE);
        return NULL;
    }
    figures(figs, out);
    g_ptr_array_free(figs, TRUE);
    performance(r, out);
    g_string_append(out, "</body>\n</html>\n");
    if (!insee_results_ok(r, err)) {
        g_string_free(out, TRUE);
        return NULL;
    }
    return g_string_free(out, FALSE);
}
