/* kernel/report/figures.c — one gnuplot script per figure of the report
 * (figures.h). Data goes inline in `$name << EOD` blocks; missing values are
 * written NaN, which gnuplot leaves out of a line (a gap).
 */
#include "report/figures.h"

#include <math.h>
#include <string.h>

#include "report/gnuplot.h"

/* Beyond this many links a layout drawing is an unreadable, multi-megabyte
   SVG: the sorted bar chart says more. */
enum { MAX_LAYOUT_LINKS = 20000, MAX_BARS = 2000 };

static const char palette[] =
    "set palette defined (0 \"#dfe6f0\", 0.35 \"#f2c14e\", 0.7 \"#e0582b\", 1 \"#7a0c0c\")\n";

static void figure_free(gpointer p)
{
    insee_figure *f = p;
    g_free(f->title);
    g_free(f->note);
    g_free(f->svg);
    g_free(f->absent);
    g_free(f);
}

static insee_figure *figure_new(GPtrArray *figs, const char *title)
{
    insee_figure *f = g_new0(insee_figure, 1);
    f->title = g_strdup(title);
    g_ptr_array_add(figs, f);
    return f;
}

static void absent(insee_figure *f, const char *key)
{
    f->absent = g_strdup_printf("Not drawn: the run did not record this (%s is null in the "
                                "results file; the run's [stats] table chooses what is recorded).",
                                key);
}

static GString *script_new(int width, int height)
{
    GString *s = g_string_new(NULL);
    g_string_append_printf(s,
                           "set terminal svg size %d,%d fixed enhanced font \"sans,11\" "
                           "background rgb \"white\"\n"
                           "set encoding utf8\nset datafile missing \"NaN\"\n"
                           "set grid lc rgb \"#dddddd\"\nset key top right\n",
                           width, height);
    return s;
}

static void num(GString *s, double v)
{
    if (isfinite(v))
        g_string_append_printf(s, "%.9g", v);
    else
        g_string_append(s, "NaN");
}

/* The SVG without gnuplot's XML prologue and document title, its ids made
   unique to figure `k` (several SVGs share one HTML document). */
static char *embed(char *svg, guint k)
{
    const char *start = strstr(svg, "<svg");
    GString *out = g_string_new(start ? start : svg);
    g_string_replace(out, "<title>Gnuplot</title>", "", 1);
    char *to = g_strdup_printf("f%u_gnuplot_", k);
    g_string_replace(out, "gnuplot_", to, 0);
    g_free(to);
    to = g_strdup_printf("id='f%u_gp", k);
    g_string_replace(out, "id='gp", to, 0);
    g_free(to);
    to = g_strdup_printf("href='#f%u_gp", k);
    g_string_replace(out, "href='#gp", to, 0);
    g_free(to);
    g_free(svg);
    return g_string_free(out, FALSE);
}

static gboolean draw(GPtrArray *figs, insee_figure *f, GString *script, GError **err)
{
    guint k = 0;
    g_ptr_array_find(figs, f, &k);
    char *svg = insee_gnuplot_svg(script->str, err);
    g_string_free(script, TRUE);
    if (!svg)
        return FALSE;
    f->svg = embed(svg, k);
    return TRUE;
}

/* ---- time series ---- */

static void phase_marks(insee_results *r, GString *s, JsonArray *cycle, guint n)
{
    JsonArray *phase = insee_results_array(r, "series.phase");
    const char *prev = NULL;
    for (guint i = 0; i < n && phase; i++) {
        const char *p = insee_results_member_str(r, phase, i, "series.phase", NULL);
        if (prev && strcmp(p, prev) == 0)
            continue;
        double x = i ? insee_results_elem_num(r, cycle, i - 1, "series.cycle") : 0;
        g_string_append_printf(s, "set arrow from %.9g, graph 0 to %.9g, graph 1 nohead dt 2 "
                                  "lc rgb \"gray50\"\n", x, x);
        g_string_append_printf(s, "set label ");
        insee_gnuplot_text(s, p);
        g_string_append_printf(s, " at %.9g, graph 0.96 left offset 0.4,0 tc rgb \"gray30\"\n", x);
        prev = p;
    }
}

static void series_block(insee_results *r, GString *s, const char *name, JsonArray *cycle,
                         guint n, const char *const *keys)
{
    JsonArray *cols[4] = {0};
    for (guint k = 0; keys[k]; k++)
        cols[k] = insee_results_array(r, keys[k]);
    g_string_append_printf(s, "$%s << EOD\n", name);
    for (guint i = 0; i < n; i++) {
        num(s, insee_results_elem_num(r, cycle, i, "series.cycle"));
        for (guint k = 0; keys[k]; k++) {
            double v = NAN;
            insee_results_elem_num_or_null(r, cols[k], i, keys[k], &v);
            g_string_append_c(s, ' ');
            num(s, v);
        }
        g_string_append_c(s, '\n');
    }
    g_string_append(s, "EOD\n");
}

static gboolean series_figures(insee_results *r, GPtrArray *figs, GError **err)
{
    insee_figure *lat = figure_new(figs, "Latency over time");
    insee_figure *load = figure_new(figs, "Load over time");
    if (insee_results_is_null(r, "series")) {
        absent(lat, "series");
        absent(load, "series");
        return TRUE;
    }
    JsonArray *cycle = insee_results_array(r, "series.cycle");
    guint n = cycle ? json_array_get_length(cycle) : 0;
    double interval = insee_results_num(r, "series.interval");
    lat->note = g_strdup_printf("Mean latency from generation of the packets delivered in each "
                                "interval of %.0f cycles; dashed lines mark where a phase begins.",
                                interval);
    load->note = g_strdup("Generated and accepted load in each interval, phits/node/cycle.");

    /* A run in real units: the latency in ns (NSIM's Fig. 9). */
    double ns = 0;
    if (insee_results_has(r, "timing"))
        insee_results_num_or_null(r, "timing.cycle_ns", &ns);
    GString *s = script_new(800, 380);
    series_block(r, s, "lat", cycle, n, (const char *const[]){"series.latency_mean", NULL});
    phase_marks(r, s, cycle, n);
    g_string_append_printf(s, "set xlabel \"cycle\"\nset xrange [0:*]\nset ylabel \"latency (%s)\"\n"
                              "set yrange [0:*]\nset key bottom right\n"
                              "plot $lat using 1:($2 * %.9g) with linespoints pt 7 ps 0.4 lw 2 "
                              "lc rgb \"#1f77b4\" title \"mean latency\"\n",
                           ns > 0 ? "ns" : "cycles", ns > 0 ? ns : 1.0);
    if (!insee_results_ok(r, err) || !draw(figs, lat, s, err))
        return FALSE;

    s = script_new(800, 380);
    series_block(r, s, "load", cycle, n,
                 (const char *const[]){"series.generated_load", "series.accepted_load", NULL});
    phase_marks(r, s, cycle, n);
    g_string_append(s, "set xlabel \"cycle\"\nset xrange [0:*]\nset ylabel \"load (phits/node/cycle)\"\n"
                       "set yrange [0:*]\nset key bottom right\n"
                       "plot $load using 1:2 with lines lw 2 lc rgb \"#ff7f0e\" title \"generated\", "
                       "$load using 1:3 with linespoints pt 7 ps 0.4 lw 2 lc rgb \"#1f77b4\" "
                       "title \"accepted\"\n");
    return insee_results_ok(r, err) && draw(figs, load, s, err);
}

/* [stats] direction_series (NSIM's Fig. 8): the mean throughput of each
   dimension's or level's links, per direction, over time: in GB/s per link
   when the run had real units, else as utilisation. Drawn only for files
   that have it. */
static gboolean direction_figure(insee_results *r, GPtrArray *figs, GError **err)
{
    if (!insee_results_has(r, "direction_series"))
        return TRUE;
    static const char *const path = "direction_series";
    gboolean gb = insee_results_has(r, "timing") && !insee_results_is_null(r, "timing.cycle_ns");
    const char *key = gb ? "gbytes_s" : "utilisation";
    JsonArray *classes = insee_results_array(r, path);
    JsonArray *cycle = insee_results_array(r, "series.cycle");
    guint nc = classes ? json_array_get_length(classes) : 0;
    guint n = cycle ? json_array_get_length(cycle) : 0;
    insee_figure *f = figure_new(figs, "Link throughput per direction over time");
    f->note = g_strdup_printf("The mean %s of the links of each dimension or level, in each "
                              "direction, in each interval of the series.",
                              gb ? "throughput (GB/s per link)" : "utilisation (phits per link "
                                                                  "per cycle)");
    JsonArray **cols = g_new0(JsonArray *, MAX(nc, 1));
    for (guint c = 0; c < nc; c++)
        cols[c] = insee_results_member_array(r, classes, c, path, key);
    GString *s = script_new(800, 380);
    g_string_append(s, "$dir << EOD\n");
    for (guint i = 0; i < n; i++) {
        num(s, insee_results_elem_num(r, cycle, i, "series.cycle"));
        for (guint c = 0; c < nc; c++) {
            double v = NAN;
            if (cols[c])
                insee_results_elem_num_or_null(r, cols[c], i, key, &v);
            g_string_append_c(s, ' ');
            num(s, v);
        }
        g_string_append_c(s, '\n');
    }
    g_string_append(s, "EOD\n");
    g_free(cols);
    phase_marks(r, s, cycle, n);
    g_string_append_printf(s, "set xlabel \"cycle\"\nset xrange [0:*]\nset ylabel \"%s\"\n"
                              "set yrange [0:*]\nset key outside right\nplot ",
                           gb ? "GB/s per link" : "utilisation");
    for (guint c = 0; c < nc; c++) {
        double dim = insee_results_member_num(r, classes, c, path, "dim");
        double dir = insee_results_member_num(r, classes, c, path, "dir");
        /* X, Y, Z as NSIM names them; dimension 3 on as d3, d4... */
        char *name = dim < 3 ? g_strdup_printf("%s%c", dir > 0 ? "+" : "−", "XYZ"[(int)dim])
                             : g_strdup_printf("%sd%.0f", dir > 0 ? "+" : "−", dim);
        g_string_append_printf(s, "%s$dir using 1:%u with lines lw 2 dt %d title \"%s\"",
                               c ? ", " : "", c + 2, dir > 0 ? 1 : 2, name);
        g_free(name);
    }
    g_string_append_c(s, '\n');
    return insee_results_ok(r, err) && draw(figs, f, s, err);
}

/* ---- histograms ---- */

static gboolean latency_histogram(insee_results *r, GPtrArray *figs, GError **err)
{
    insee_figure *f = figure_new(figs, "Latency histogram");
    JsonArray *bins = insee_results_array(r, "histograms.latency");
    if (!bins) {
        absent(f, "histograms.latency");
        return insee_results_ok(r, err);
    }
    guint n = json_array_get_length(bins);
    GString *s = script_new(800, 380);
    g_string_append(s, "$bins << EOD\n");
    double first = INFINITY, last = 0, total = 0;
    for (guint i = 0; i < n; i++) {
        double lo = insee_results_member_num(r, bins, i, "histograms.latency", "lo");
        double hi = insee_results_member_num(r, bins, i, "histograms.latency", "hi");
        double c = insee_results_member_num(r, bins, i, "histograms.latency", "count");
        g_string_append_printf(s, "%.9g %.9g %.9g\n", (lo + hi) / 2, hi - lo + 1, c);
        first = MIN(first, lo);
        last = MAX(last, hi);
        total += c;
    }
    if (!insee_results_ok(r, err)) {
        g_string_free(s, TRUE);
        return FALSE;
    }
    if (total <= 0) {
        g_string_free(s, TRUE);
        f->absent = g_strdup("Not drawn: no packet was delivered in the measurement window "
                             "(histograms.latency is empty); measure longer ([simulation] "
                             "cycles) or at a higher load.");
        return TRUE;
    }
    /* A few stragglers far out (a packet held for thousands of cycles)
       would stretch a linear axis until every other bar is one pixel wide
       at its left end: past two decades the axis is logarithmic. The range
       is the bins', not gnuplot's, which starts it at 0. */
    gboolean log = last + 0.5 > 100 * MAX(first - 0.5, 0.5);
    f->note = g_strdup_printf("Packets delivered in the measurement window by latency from "
                              "generation; each bar spans the bin's cycles%s.",
                              log ? " (latency in log scale: the latencies span more than "
                                    "two decades)"
                                  : "");
    g_string_append_printf(s, "EOD\n%sset xrange [%.9g:%.9g]\n",
                           log ? "set logscale x\n" : "", MAX(first - 0.5, log ? 0.5 : 0),
                           last + 0.5);
    g_string_append(s, "set xlabel \"latency from generation (cycles)\"\n"
                       "set ylabel \"packets\"\nset yrange [0:*]\nset style fill solid 0.8 border "
                       "rgb \"#1f4e79\"\nplot $bins using 1:3:2 with boxes lc rgb \"#1f77b4\" "
                       "notitle\n");
    return draw(figs, f, s, err);
}

/* An array of counts as "index count" lines; the index shifted by `dx`. */
static void counts_block(insee_results *r, GString *s, const char *name, JsonArray *a,
                         const char *path, double scale)
{
    g_string_append_printf(s, "$%s << EOD\n", name);
    for (guint i = 0; a && i < json_array_get_length(a); i++) {
        g_string_append_printf(s, "%u ", i);
        num(s, insee_results_elem_num(r, a, i, path) * scale);
        g_string_append_c(s, '\n');
    }
    g_string_append(s, "EOD\n");
}

static double array_sum(insee_results *r, JsonArray *a, const char *path)
{
    double sum = 0;
    for (guint i = 0; a && i < json_array_get_length(a); i++)
        sum += insee_results_elem_num(r, a, i, path);
    return sum;
}

static gboolean occupancy_figure(insee_results *r, GPtrArray *figs, const char *which,
                                 const char *title, GError **err)
{
    insee_figure *f = figure_new(figs, title);
    char *path = g_strdup_printf("histograms.queue_occupancy.%s", which);
    JsonArray *a = NULL;
    if (insee_results_is_null(r, "histograms.queue_occupancy")) {
        absent(f, "histograms.queue_occupancy");
    } else if (!(a = insee_results_array(r, path))) {
        absent(f, path);
    }
    if (!a) {
        g_free(path);
        return insee_results_ok(r, err);
    }
    f->note = g_strdup_printf("Share of queue-cycles (every %s queue, every measured cycle) in "
                              "which the queue held 0, 1, 2, ... packets.", which);
    double total = array_sum(r, a, path);
    GString *s = script_new(640, 360);
    counts_block(r, s, "occ", a, path, total > 0 ? 1 / total : 0);
    g_string_append(s, "set xlabel \"packets in the queue\"\nset ylabel \"share of queue-cycles\"\n"
                       "set yrange [0:*]\nset xtics 1\nset style fill solid 0.8\n"
                       "plot $occ using 1:2:(0.8) with boxes lc rgb \"#2ca02c\" notitle\n");
    g_free(path);
    return insee_results_ok(r, err) && draw(figs, f, s, err);
}

static gboolean distance_figure(insee_results *r, GPtrArray *figs, GError **err)
{
    insee_figure *f = figure_new(figs, "Distance histograms");
    JsonArray *inj = insee_results_array(r, "histograms.distance_injection");
    JsonArray *con = insee_results_array(r, "histograms.distance_consumption");
    if (!inj || !con) {
        absent(f, inj ? "histograms.distance_consumption" : "histograms.distance_injection");
        return insee_results_ok(r, err);
    }
    f->note = g_strdup("Packets by distance in hops between source and destination: as "
                       "injected (left bars) and as consumed (right bars), on the same axes.");
    GString *s = script_new(720, 380);
    counts_block(r, s, "inj", inj, "histograms.distance_injection", 1);
    counts_block(r, s, "con", con, "histograms.distance_consumption", 1);
    g_string_append(s, "set xlabel \"distance (hops)\"\nset ylabel \"packets\"\nset yrange [0:*]\n"
                       "set xtics 1\nset style fill solid 0.8\n"
                       "plot $inj using ($1-0.2):2:(0.4) with boxes lc rgb \"#1f77b4\" "
                       "title \"injection\", $con using ($1+0.2):2:(0.4) with boxes "
                       "lc rgb \"#ff7f0e\" title \"consumption\"\n");
    return insee_results_ok(r, err) && draw(figs, f, s, err);
}

/* ---- port loads ---- */

typedef struct {
    double x0, y0, dx, dy, util;
} segment;

/* A router's position on the page: 3D networks put z planes side by side. */
static void place(insee_results *r, JsonArray *coords, guint router, guint dims, double xspan,
                  double *x, double *y)
{
    JsonArray *c = insee_results_elem_array(r, coords, router, "network.router_coords");
    *x = insee_results_elem_num(r, c, 0, "network.router_coords[]");
    *y = insee_results_elem_num(r, c, 1, "network.router_coords[]");
    if (dims == 3)
        *x += insee_results_elem_num(r, c, 2, "network.router_coords[]") * xspan;
}

static double port_util(insee_results *r, JsonArray *phits, guint p, double cycles)
{
    JsonArray *vcs = insee_results_elem_array(r, phits, p, "maps.port_load.phits");
    double sum = 0;
    for (guint v = 0; vcs && v < json_array_get_length(vcs); v++)
        sum += insee_results_elem_num(r, vcs, v, "maps.port_load.phits[]");
    return cycles > 0 ? sum / cycles : 0;
}

static gboolean layout_figure(insee_results *r, GPtrArray *figs, insee_figure *f, guint dims,
                              JsonArray *ports, JsonArray *phits, double cycles, GError **err)
{
    JsonArray *coords = insee_results_array(r, "network.router_coords");
    guint routers = coords ? json_array_get_length(coords) : 0;
    double xmax = 0, ymax = 0, zmax = 0;
    for (guint i = 0; i < routers; i++) {
        JsonArray *c = insee_results_elem_array(r, coords, i, "network.router_coords");
        xmax = MAX(xmax, insee_results_elem_num(r, c, 0, "network.router_coords[]"));
        ymax = MAX(ymax, insee_results_elem_num(r, c, 1, "network.router_coords[]"));
        if (dims == 3)
            zmax = MAX(zmax, insee_results_elem_num(r, c, 2, "network.router_coords[]"));
    }
    double xspan = xmax + 2; /* one plane's width and a gap */
    /* The panels side by side set the width; the height follows the aspect
       of the drawing, plus room for the colour box. */
    int width = MIN(1500, (int)(300 * (zmax + 1)) + 400);
    double aspect = (ymax + 3) / (zmax * xspan + xmax + 2);
    GString *s = script_new(width, (int)CLAMP((width - 200) * aspect + 80, 320, 700));
    g_string_append(s, "$links << EOD\n");
    double top = 0;
    for (guint p = 0; p < json_array_get_length(ports); p++) {
        double to = -1;
        if (!insee_results_member_num_or_null(r, ports, p, "network.ports", "to", &to))
            continue;
        guint from = (guint)insee_results_member_num(r, ports, p, "network.ports", "router");
        if (from >= routers || to < 0 || to >= routers)
            continue;
        double x0, y0, x1, y1;
        place(r, coords, from, dims, xspan, &x0, &y0);
        double dx, dy;
        gboolean wrap = insee_results_member_bool(r, ports, p, "network.ports", "wrap");
        double dim = insee_results_member_num(r, ports, p, "network.ports", "dim");
        if (wrap || (dims == 3 && dim == 2)) {
            /* A wrap link would cross the whole drawing, a link between z
               planes would join two panels: a stub shows its direction and
               load instead. */
            double dir = insee_results_member_num(r, ports, p, "network.ports", "dir");
            dx = dim == 0 ? 0.3 * dir : 0;
            dy = dim == 1 ? 0.3 * dir : 0;
            if (dim == 2) { /* between planes: diagonal */
                dx = 0.2 * dir;
                dy = 0.2 * dir;
            }
        } else {
            place(r, coords, (guint)to, dims, xspan, &x1, &y1);
            /* Each direction draws its half of the link, from its own router. */
            dx = (x1 - x0) * 0.5;
            dy = (y1 - y0) * 0.5;
        }
        double u = port_util(r, phits, p, cycles);
        top = MAX(top, u);
        g_string_append_printf(s, "%.6g %.6g %.6g %.6g %.6g\n", x0, y0, dx, dy, u);
    }
    g_string_append(s, "EOD\n$routers << EOD\n");
    for (guint i = 0; i < routers; i++) {
        double x, y;
        place(r, coords, i, dims, xspan, &x, &y);
        g_string_append_printf(s, "%.6g %.6g\n", x, y);
    }
    g_string_append(s, "EOD\n");
    for (guint z = 0; dims == 3 && z <= zmax; z++)
        g_string_append_printf(s, "set label \"z = %u\" at %.6g, %.6g center font \",12\"\n", z,
                               z * xspan + xmax / 2, ymax + 1.2);
    g_string_append_printf(s, "%sset cbrange [0:%.6g]\nset cblabel \"utilisation "
                              "(phits/cycle)\"\nunset xtics\nunset ytics\nunset border\n"
                              "unset grid\nset size ratio -1\n"
                              "set xrange [-1:%.6g]\nset yrange [-1:%.6g]\n"
                              "plot $links using 1:2:3:4:5 with vectors nohead lw 4 lc palette z "
                              "notitle, $routers using 1:2 with points pt 7 ps 0.5 "
                              "lc rgb \"#333333\" notitle\n",
                           palette, top > 0 ? top : 1, zmax * xspan + xmax + 1, ymax + 2);
    f->note = g_strdup_printf(
        "Each link drawn between its routers at their coordinates%s, coloured by its "
        "utilisation (phits sent / %.0f measured cycles); a link's two directions are its two "
        "halves, each starting at its sending router; wrap-around links%s are short stubs "
        "pointing their way. Busiest link: %.3f.",
        dims == 3 ? ", one panel per z plane" : "", cycles,
        dims == 3 ? " and links between planes (diagonal)" : "", top);
    return insee_results_ok(r, err) && draw(figs, f, s, err);
}

static int cmp_double_desc(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x < y) - (x > y);
}

static gboolean sorted_figure(insee_results *r, GPtrArray *figs, insee_figure *f, JsonArray *ports,
                              JsonArray *phits, double cycles, const char *why, GError **err)
{
    guint n = json_array_get_length(ports);
    GArray *u = g_array_new(FALSE, FALSE, sizeof(double));
    for (guint p = 0; p < n; p++) {
        double to;
        if (insee_results_member_num_or_null(r, ports, p, "network.ports", "to", &to)) {
            double v = port_util(r, phits, p, cycles);
            g_array_append_val(u, v);
        }
    }
    if (u->len > 1)
        qsort(u->data, u->len, sizeof(double), cmp_double_desc);
    GString *s = script_new(800, 380);
    g_string_append(s, "$sorted << EOD\n");
    /* Sorted values change slowly: every step-th port keeps the shape. */
    guint step = u->len > MAX_BARS ? (u->len + MAX_BARS - 1) / MAX_BARS : 1;
    for (guint i = 0; i < u->len; i += step)
        g_string_append_printf(s, "%u %.6g\n", i, g_array_index(u, double, i));
    g_string_append_printf(s, "EOD\nset xlabel \"links, busiest first\"\nset ylabel "
                              "\"utilisation (phits/cycle)\"\nset yrange [0:*]\nset xrange "
                              "[-0.5:%u]\nset style fill solid 0.8\n"
                              "plot $sorted using 1:2:(%u) with boxes lc rgb \"#e0582b\" notitle\n",
                           u->len, step);
    f->note = g_strdup_printf("%s, so the load of each of its %u links (phits sent / %.0f measured "
                              "cycles) is a bar, sorted from the busiest, instead of a map%s.",
                              why, u->len, cycles,
                              step > 1 ? "; one bar in every few shows the shape" : "");
    g_array_free(u, TRUE);
    return insee_results_ok(r, err) && draw(figs, f, s, err);
}

static gboolean port_figure(insee_results *r, GPtrArray *figs, GError **err)
{
    insee_figure *f = figure_new(figs, "Port load");
    if (insee_results_is_null(r, "maps.port_load")) {
        absent(f, "maps.port_load");
        return insee_results_ok(r, err);
    }
    JsonArray *ports = insee_results_array(r, "network.ports");
    JsonArray *phits = insee_results_array(r, "maps.port_load.phits");
    double cycles = insee_results_num(r, "maps.port_load.cycles");
    guint dims = (guint)insee_results_num(r, "network.dims");
    gboolean coords = !insee_results_is_null(r, "network.router_coords");
    if (!insee_results_ok(r, err))
        return FALSE;
    if (!ports || !phits || json_array_get_length(ports) != json_array_get_length(phits)) {
        g_set_error(err, INSEE_REPORT_ERROR, INSEE_REPORT_ERROR_INPUT,
                    "%s: key 'maps.port_load.phits' should have one entry per port of "
                    "'network.ports' (%u), not %u",
                    insee_results_path(r), ports ? json_array_get_length(ports) : 0,
                    phits ? json_array_get_length(phits) : 0);
        return FALSE;
    }
    guint links = 0;
    for (guint p = 0; p < json_array_get_length(ports); p++) {
        double to;
        links += insee_results_member_num_or_null(r, ports, p, "network.ports", "to", &to);
    }
    if ((dims == 2 || dims == 3) && coords && links <= MAX_LAYOUT_LINKS)
        return layout_figure(r, figs, f, dims, ports, phits, cycles, err);
    char *why = (dims == 2 || dims == 3) && coords
                    ? g_strdup_printf("This network has too many links (%u) to draw", links)
                    : g_strdup_printf("This topology has no 2D or 3D layout (network.dims = %u)",
                                      dims);
    gboolean ok = sorted_figure(r, figs, f, ports, phits, cycles, why, err);
    g_free(why);
    return ok;
}

/* ---- per node ---- */

static gboolean node_figure(insee_results *r, GPtrArray *figs, GError **err)
{
    insee_figure *f = figure_new(figs, "Accepted load per node");
    JsonArray *acc = insee_results_array(r, "maps.node_accepted");
    JsonArray *inj = insee_results_array(r, "maps.node_injected");
    if (!acc) {
        absent(f, "maps.node_accepted");
        return insee_results_ok(r, err);
    }
    double cycles = insee_results_num(r, "run.measured_cycles");
    double scale = cycles > 0 ? 1 / cycles : 0;
    f->note = g_strdup_printf("Phits each node consumed (bars) and injected (points) over the "
                              "%.0f measured cycles, per cycle.", cycles);
    GString *s = script_new(800, 380);
    counts_block(r, s, "acc", acc, "maps.node_accepted", scale);
    counts_block(r, s, "inj", inj, "maps.node_injected", scale);
    g_string_append_printf(s, "set xrange [-1:%u]\n", json_array_get_length(acc));
    g_string_append(s, "set xlabel \"node\"\nset ylabel \"load (phits/cycle)\"\nset yrange [0:*]\n"
                       "set key outside top center horizontal\nset style fill solid 0.7\n"
                       "plot $acc using 1:2:(0.8) with boxes lc rgb \"#1f77b4\" "
                       "title \"accepted\"");
    if (inj)
        g_string_append(s, ", $inj using 1:2 with points pt 7 ps 0.4 lc rgb \"#ff7f0e\" "
                           "title \"injected\"");
    g_string_append_c(s, '\n');
    return insee_results_ok(r, err) && draw(figs, f, s, err);
}

GPtrArray *insee_report_figures(insee_results *r, GError **err)
{
    GPtrArray *figs = g_ptr_array_new_with_free_func(figure_free);
    if (series_figures(r, figs, err) && direction_figure(r, figs, err) &&
        latency_histogram(r, figs, err) &&
        occupancy_figure(r, figs, "transit", "Queue occupancy: transit queues", err) &&
        occupancy_figure(r, figs, "injection", "Queue occupancy: injection queues", err) &&
        port_figure(r, figs, err) && distance_figure(r, figs, err) && node_figure(r, figs, err))
        return figs;
    g_ptr_array_free(figs, TRUE);
    return NULL;
}
