/* How `insee plot` reads CSV files and groups runs into configurations
 * (kernel/report/csv.h, curves.h), on exact examples. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/csv.h"
#include "report/curves.h"
#include "report/gnuplot.h"

Test(configuration, loads_and_seed_are_not_part_of_it)
{
    char *c = insee_plot_configuration(
        "application.0.traffic.load=0.2;router.mode=random;simulation.seed=7;"
        "simulation.seeds=3;traffic.load=0.3;traffic.loads=x");
    /* Only keys ending in ".load" and simulation.seed itself go. */
    cr_assert_str_eq(c, "router.mode=random;simulation.seeds=3;traffic.loads=x");
    g_free(c);
    c = insee_plot_configuration("traffic.load=0.1");
    cr_assert_str_eq(c, "");
    g_free(c);
}

Test(legends, name_only_what_differs)
{
    const char *plugins[] = {"torus/bubble/rr/consecutive/uniform",
                             "torus/dally/rr/consecutive/uniform",
                             "torus/bubble/rr/consecutive/uniform"};
    const char *configs[] = {"router.mode=random;topology.dims=[8,8]", "topology.dims=[8,8]",
                             "topology.dims=[8,8]"};
    char *common = NULL;
    char **l = insee_plot_legends(plugins, configs, 3, &common);
    cr_assert_str_eq(l[0], "bubble, router.mode=random");
    cr_assert_str_eq(l[1], "dally, router.mode default");
    cr_assert_str_eq(l[2], "bubble, router.mode default");
    cr_assert_null(l[3]);
    /* The caption: what every curve shares. */
    cr_assert_str_eq(common, "torus/rr/consecutive/uniform, topology.dims=[8,8]");
    g_strfreev(l);
    g_free(common);
}

Test(legends, one_configuration_is_named_by_its_plugins)
{
    const char *plugins[] = {"mesh/dally/rr/consecutive/uniform"};
    const char *configs[] = {"topology.dims=[4,4]"};
    char *common = NULL;
    char **l = insee_plot_legends(plugins, configs, 1, &common);
    cr_assert_str_eq(l[0], "mesh/dally/rr/consecutive/uniform");
    cr_assert_str_eq(common, "mesh/dally/rr/consecutive/uniform, topology.dims=[4,4]");
    g_strfreev(l);
    g_free(common);
}

Test(legends, plugin_lists_of_other_lengths_are_compared_whole)
{
    /* Several applications make the plugin list longer. */
    const char *plugins[] = {"torus/bubble/rr/consecutive/uniform", "torus/bubble/rr/a/b/c/d"};
    const char *configs[] = {"", ""};
    char *common = NULL;
    char **l = insee_plot_legends(plugins, configs, 2, &common);
    cr_assert_str_eq(l[0], plugins[0]);
    cr_assert_str_eq(l[1], plugins[1]);
    cr_assert_str_eq(common, "");
    g_strfreev(l);
    g_free(common);
}

Test(csv, quoted_fields_and_record_lines)
{
    GArray *lines = NULL;
    GError *err = NULL;
    GPtrArray *rows = insee_csv_read("a,b\r\n\"x,1\",\"say \"\"hi\"\"\"\n\"two\nlines\",\nlast,1",
                                     "t.csv", &lines, &err);
    cr_assert_not_null(rows);
    cr_assert_eq(rows->len, 4);
    char **r1 = g_ptr_array_index(rows, 1), **r2 = g_ptr_array_index(rows, 2),
         **r3 = g_ptr_array_index(rows, 3);
    cr_assert_str_eq(r1[0], "x,1");
    cr_assert_str_eq(r1[1], "say \"hi\"");
    cr_assert_str_eq(r2[0], "two\nlines");
    cr_assert_str_eq(r2[1], "");
    cr_assert_null(r2[2]);
    cr_assert_str_eq(r3[0], "last");
    /* Each record's first line: a field across a line break moves the next. */
    cr_assert_eq(g_array_index(lines, guint, 1), 2);
    cr_assert_eq(g_array_index(lines, guint, 2), 3);
    cr_assert_eq(g_array_index(lines, guint, 3), 5);
    g_ptr_array_free(rows, TRUE);
    g_array_free(lines, TRUE);
}

Test(csv, an_open_quote_names_its_line)
{
    GArray *lines = NULL;
    GError *err = NULL;
    cr_assert_null(insee_csv_read("a\nb\n\"c,\n", "t.csv", &lines, &err));
    cr_assert_str_eq(err->message, "t.csv:3: a quoted field is never closed");
    cr_assert_null(lines);
    g_error_free(err);
}

/* Text from an input file: single-quoted (gnuplot substitutes nothing
   there), a quote doubled, control characters shown as escapes, invalid
   UTF-8 replaced, markup off. */
Test(gnuplot_text, nothing_gnuplot_can_evaluate)
{
    GString *s = g_string_new(NULL);
    insee_gnuplot_text(s, "a`id` $(id) @m 'q' \"d\"\nEOD\t\x1b\xff^{x}");
    cr_assert_str_eq(s->str, "'a`id` $(id) @m ''q'' \"d\"\\nEOD\\t\\x1b\xef\xbf\xbd^{x}' noenhanced");
    g_string_free(s, TRUE);
}

/* The first point of the first curve of a plot of `csv`: offered load,
   then mean, low and high end of the latency and of the accepted load. */
static void first_point(const char *csv, double v[7])
{
    const char *name = "runs.csv";
    gsize len = strlen(csv);
    insee_plot_options o = {.latency = "mean"};
    GError *err = NULL;
    char *script = insee_plot_script(&name, &csv, &len, 1, &o, &err);
    cr_assert_not_null(script, "%s", err ? err->message : "");
    const char *data = strstr(script, "$c0 << EOD\n");
    cr_assert_not_null(data);
    cr_assert_eq(sscanf(data + strlen("$c0 << EOD\n"), "%lf %lf %lf %lf %lf %lf %lf", &v[0], &v[1],
                        &v[2], &v[3], &v[4], &v[5], &v[6]),
                 7);
    g_free(script);
}

Test(curves, a_sweep_has_ci_bars_and_runs_have_their_range)
{
    /* Latencies 10, 12, 17: mean 13, s = sqrt(13); accepted 0.20, 0.19,
       0.21: mean 0.2, s = 0.01; t(0.975, 2) = 4.303. */
    const char *rows = "x,a,torus/bubble/rr/consecutive/uniform,,0.2,0.20,10\n"
                       "x,a,torus/bubble/rr/consecutive/uniform,,0.2,0.19,12\n"
                       "x,a,torus/bubble/rr/consecutive/uniform,,0.2,0.21,17\n";
    char *swept = g_strconcat("sweep,vary,plugins,params,offered_load,accepted_load,lat_gen_mean\n",
                              rows, NULL);
    char *plain = g_strconcat("other,vary,plugins,params,offered_load,accepted_load,lat_gen_mean\n",
                              rows, NULL);
    double v[7];
    first_point(swept, v);
    double lat = 4.303 * sqrt(13.0) / sqrt(3.0), acc = 4.303 * 0.01 / sqrt(3.0);
    cr_assert_float_eq(v[1], 13, 1e-6);
    cr_assert_float_eq(v[2], 13 - lat, 1e-6);
    cr_assert_float_eq(v[3], 13 + lat, 1e-6);
    cr_assert_float_eq(v[4], 0.2, 1e-9);
    cr_assert_float_eq(v[5], 0.2 - acc, 1e-6);
    cr_assert_float_eq(v[6], 0.2 + acc, 1e-6);
    first_point(plain, v);
    cr_assert_float_eq(v[2], 10, 1e-9);
    cr_assert_float_eq(v[3], 17, 1e-9);
    cr_assert_float_eq(v[5], 0.19, 1e-9);
    cr_assert_float_eq(v[6], 0.21, 1e-9);
    g_free(swept);
    g_free(plain);
}
