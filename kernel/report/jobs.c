/* kernel/report/jobs.c — the schedule figures of a run with jobs. Each job
 * is one <rect class="job"> per run of consecutive node numbers it holds,
 * from its start to its end, with data-job, data-start, data-end,
 * data-first and data-last (its nodes) and a <title> saying the same; the
 * utilisation is one <polyline class="utilisation">, a step per change of
 * the busy node count. */
#include <math.h>
#include <stdlib.h>

#include "report/jobs.h"

enum { W = 760, H = 300, LEFT = 60, TOP = 10, PLOT_W = 680, PLOT_H = 250 };

static const char *const colours[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                      "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};

static void esc(GString *out, const char *s)
{
    char *e = g_markup_escape_text(s, -1);
    g_string_append(out, e);
    g_free(e);
}

static int by_number(const void *a, const void *b)
{
    guint x = *(const guint *)a, y = *(const guint *)b;
    return x < y ? -1 : x > y;
}

/* The frame: axes, the time span's ends and the y axis's label. */
static void frame(GString *out, double t0, double t1, const char *unit, const char *ylabel,
                  double ymax)
{
    g_string_append_printf(out,
                           "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" "
                           "width=\"%d\" height=\"%d\">\n"
                           "<path d=\"M%d %d V%d H%d\" stroke=\"#333\" fill=\"none\"/>\n"
                           "<text x=\"%d\" y=\"%d\" font-size=\"12\">%.10g</text>\n"
                           "<text x=\"%d\" y=\"%d\" font-size=\"12\" text-anchor=\"end\">%.10g %s</text>\n"
                           "<text x=\"%d\" y=\"%d\" font-size=\"12\" text-anchor=\"end\">%.10g</text>\n"
                           "<text x=\"%d\" y=\"%d\" font-size=\"12\" text-anchor=\"end\">0</text>\n"
                           "<text x=\"12\" y=\"%d\" font-size=\"12\" transform=\"rotate(-90 12 %d)\" "
                           "text-anchor=\"middle\">%s</text>\n",
                           W, H + 30, W, H + 30, LEFT, TOP, TOP + PLOT_H, LEFT + PLOT_W, LEFT,
                           TOP + PLOT_H + 18, t0, LEFT + PLOT_W, TOP + PLOT_H + 18, t1, unit,
                           LEFT - 4, TOP + 10, ymax, LEFT - 4, TOP + PLOT_H, TOP + PLOT_H / 2,
                           TOP + PLOT_H / 2, ylabel);
}

static double x_of(double t, double t0, double t1)
{
    return LEFT + (t1 > t0 ? (t - t0) / (t1 - t0) : 0) * PLOT_W;
}

static void figure_end(GString *out, const char *title, const char *note)
{
    g_string_append(out, "</svg>\n<figcaption><b>");
    esc(out, title);
    g_string_append(out, "</b>");
    esc(out, note);
    g_string_append(out, "</figcaption>\n</figure>\n");
}

/* The bars of job `i` (name `name`): one per run of consecutive nodes. */
static void job_bars(insee_results *r, GString *out, JsonArray *apps, guint i, double t0,
                     double t1, double nodes, guint colour)
{
    double start, end;
    if (!insee_results_member_num_or_null(r, apps, i, "applications", "job.start", &start))
        return; /* never started: no bar */
    if (!insee_results_member_num_or_null(r, apps, i, "applications", "job.end", &end))
        end = t1;
    const char *name = insee_results_member_str(r, apps, i, "applications", "name");
    JsonArray *list = insee_results_member_array(r, apps, i, "applications", "job.nodes");
    guint n = list ? json_array_get_length(list) : 0;
    guint *node = g_new(guint, n + 1);
    for (guint k = 0; k < n; k++)
        node[k] = (guint)insee_results_elem_num(r, list, k, "applications[].job.nodes");
    qsort(node, n, sizeof *node, by_number);
    double row = PLOT_H / nodes, x0 = x_of(start, t0, t1), x1 = x_of(end, t0, t1);
    for (guint k = 0; k < n && name;) {
        guint last = k;
        while (last + 1 < n && node[last + 1] == node[last] + 1)
            last++;
        g_string_append(out, "<rect class=\"job\" data-job=\"");
        esc(out, name); /* quotes escaped too */
        g_string_append_printf(out,
                               "\" data-start=\"%.17g\" "
                               "data-end=\"%.17g\" data-first=\"%u\" data-last=\"%u\" x=\"%.2f\" "
                               "y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\" "
                               "stroke=\"#fff\" stroke-width=\"0.5\"><title>",
                               start, end, node[k], node[last], x0, TOP + node[k] * row,
                               MAX(x1 - x0, 0.5), (node[last] - node[k] + 1) * row,
                               colours[colour % G_N_ELEMENTS(colours)]);
        esc(out, name);
        g_string_append_printf(out, ": nodes %u to %u, from %.10g to %.10g</title></rect>\n",
                               node[k], node[last], start, end);
        k = last + 1;
    }
    g_free(node);
}

void insee_report_jobs(insee_results *r, GString *out)
{
    if (!insee_results_has(r, "scheduler") || insee_results_is_null(r, "scheduler"))
        return;
    JsonArray *apps = insee_results_array(r, "applications");
    JsonArray *busy = insee_results_array(r, "scheduler.busy_nodes");
    const char *unit = insee_results_str(r, "scheduler.unit");
    double nodes = insee_results_num(r, "scheduler.nodes");
    double t0 = insee_results_num(r, "scheduler.first_arrival");
    double t1 = t0 + insee_results_num(r, "scheduler.makespan");
    guint n_busy = busy ? json_array_get_length(busy) : 0;
    if (!apps || !unit || nodes <= 0)
        return;
    if (n_busy)
        t1 = MAX(t1, insee_results_member_num(r, busy, n_busy - 1, "scheduler.busy_nodes", "from"));
    g_string_append(out, "<h2>Schedule</h2>\n<figure>\n");
    frame(out, t0, t1, unit, "node", nodes - 1);
    for (guint i = 0, colour = 0; i < json_array_get_length(apps); i++)
        if (insee_results_member_has(r, apps, i, "job"))
            job_bars(r, out, apps, i, t0, t1, nodes, colour++);
    figure_end(out, "Jobs over the nodes",
               ": each job a bar per run of consecutive nodes it held, from its start to its end "
               "(hover for its name, nodes and times).");
    g_string_append(out, "<figure>\n");
    frame(out, t0, t1, unit, "busy nodes", nodes);
    g_string_append_printf(out, "<polyline class=\"utilisation\" data-steps=\"%u\" fill=\"none\" "
                                "stroke=\"#4e79a7\" stroke-width=\"1.5\" points=\"",
                           n_busy);
    double prev = 0;
    for (guint i = 0; i < n_busy; i++) {
        double at = insee_results_member_num(r, busy, i, "scheduler.busy_nodes", "from");
        double b = insee_results_member_num(r, busy, i, "scheduler.busy_nodes", "nodes");
        double x = x_of(at, t0, t1);
        g_string_append_printf(out, "%s%.2f,%.2f %.2f,%.2f", i ? " " : "", x,
                               TOP + PLOT_H * (1 - prev / nodes), x, TOP + PLOT_H * (1 - b / nodes));
        prev = b;
    }
    g_string_append_printf(out, " %.2f,%.2f\"/>\n", x_of(t1, t0, t1), TOP + PLOT_H * (1 - prev / nodes));
    figure_end(out, "Utilisation over time",
               ": the nodes held by running jobs, a step at every start and end.");
}
