/* kernel/report/commands.c — `insee report` and `insee plot` (commands.h). */
#include "report/commands.h"

#include "report/curves.h"
#include "report/gnuplot.h"
#include "report/page.h"
#include "report/results.h"
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
    if (!start("report", argc, 1, 1, output, "insee report RUN.json -o report.html", &e))
        return fail(e, 2);
    insee_results *r = insee_results_load(argv[0], &e);
    char *page = r ? insee_report_page(r, &e) : NULL;
    insee_results_free(r);
    return finish(page, output, e);
}

int insee_plot_command(int argc, char **argv, const char *output)
{
    GError *e = NULL;
    if (!start("plot", argc, 1, 0, output, "insee plot FILE.csv|RUN.json... -o curves.svg", &e))
        return fail(e, 2);
    char *svg = insee_plot_curves((const char *const *)argv, (guint)argc, &e);
    return finish(svg, output, e);
}
