/* kernel/report/commands.c — `insee report` and `insee plot` (commands.h). */
#include "report/commands.h"

#include "report/curves.h"
#include "report/gnuplot.h"
#include "report/page.h"
#include "report/results.h"
#include "report/sweep_page.h"
#include "stats/output.h"

static int fail(GError *e, int code)
{
    g_printerr("insee: error: %s\n", e->message);
    g_error_free(e);
    return code;
}

static int status_for(const GError *e)
{
    return e->domain == INSEE_REPORT_ERROR && e->code == INSEE_REPORT_ERROR_RUNTIME ? 1 : 2;
}

/* Arguments and output path checked, and gnuplot found, before any work. */
static gboolean start(const char *cmd, int argc, int min, int max, const char *output,
                      const char *usage, GError **err)
{
    if (argc < min || (max && argc > max) || !output) {
        g_set_error(err, INSEE_REPORT_ERROR, INSEE_REPORT_ERROR_INPUT,
                    "%s %s; usage: %s", cmd,
                    !output ? "needs -o FILE" : argc < min ? "needs an input file"
                                                           : "takes one input file",
                    usage);
        return FALSE;
    }
    return insee_output_check(output, "-o", err) && insee_gnuplot_check(err);
}

/* Writing can fail late (a full disk): no partial file is left behind. */
static int finish(char *text, const char *output, GError *e)
{
    if (!text)
        return fail(e, status_for(e));
    gboolean ok = insee_output_replace(output, "-o", text, &e);
    g_free(text);
    return ok ? 0 : fail(e, 1);
}

int insee_report_command(int argc, char **argv, const char *output)
{
    GError *e = NULL;
    if (!start("report", argc, 1, 1, output,
               "insee report RUN.json|SWEEP.csv -o report.html", &e))
        return fail(e, 2);
    char *text = NULL;
    gsize len = 0;
    if (!insee_report_read(argv[0], &text, &len, &e))
        return fail(e, 2);
    char *page = NULL;
    if (insee_report_is_sweep(text)) {
        page = insee_report_sweep_page(argv[0], text, len, &e);
    } else {
        insee_results *r = insee_results_parse(argv[0], text, len, &e);
        page = r ? insee_report_page(r, &e) : NULL;
        insee_results_free(r);
    }
    g_free(text);
    return finish(page, output, e);
}

static char *opt_latency;
static gboolean opt_log;

const GOptionEntry insee_plot_entries[] = {
    {"latency", 0, 0, G_OPTION_ARG_STRING, &opt_latency,
     "plot: the latency statistic drawn: mean (default), p50, p90, p99, p999 or max", "STAT"},
    {"log", 0, 0, G_OPTION_ARG_NONE, &opt_log, "plot: the latency axis in log scale", NULL},
    {0},
};

gboolean insee_plot_options_given(void)
{
    return opt_latency || opt_log;
}

/* The format from the name: a PNG under a .png name, an SVG under .svg;
   anything else is refused rather than guessed. */
static gboolean output_format(const char *output, insee_plot_options *o, GError **err)
{
    if (g_str_has_suffix(output, ".png") || g_str_has_suffix(output, ".PNG"))
        o->png = "pngcairo";
    else if (!g_str_has_suffix(output, ".svg") && !g_str_has_suffix(output, ".SVG")) {
        g_set_error(err, INSEE_REPORT_ERROR, INSEE_REPORT_ERROR_INPUT,
                    "-o %s: insee plot writes SVG (-o FILE.svg) or PNG (-o FILE.png); name "
                    "the file after one of them",
                    output);
        return FALSE;
    }
    return TRUE;
}

int insee_plot_command(int argc, char **argv, const char *output)
{
    GError *e = NULL;
    insee_plot_options o = {.latency = opt_latency ? opt_latency : "mean", .log = opt_log};
    if (!start("plot", argc, 1, 0, output, "insee plot FILE.csv|RUN.json... -o curves.svg", &e) ||
        !output_format(output, &o, &e) || !insee_plot_statistic_check(o.latency, &e))
        return fail(e, 2);
    GBytes *figure = insee_plot_curves((const char *const *)argv, (guint)argc, &o, &e);
    if (!figure)
        return fail(e, status_for(e));
    gboolean ok = insee_output_replace_bytes(output, "-o", figure, &e);
    g_bytes_unref(figure);
    return ok ? 0 : fail(e, 1);
}
