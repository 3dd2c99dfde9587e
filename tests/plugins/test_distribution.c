/* test_distribution.c — destinations from a user-defined distribution
 * (INSEE §3.2.1, histogram or population file):
 *  - each destination's share is its weight over the weights of every task
 *    but the source: binomial bounds per destination, and a chi-square over
 *    fifteen destinations below df + 5 sqrt(2 df) (five standard deviations
 *    of the statistic, df = categories - 1);
 *  - a population's lines count as samples; a task with weight only on
 *    itself sends nothing and the offered load counts the senders;
 *  - a wrong file fails at create() with file:line and what to change.
 */
#define _POSIX_C_SOURCE 200809L /* mkstemp */

#include "traffic_rig.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A distribution file holding `text`; path[] receives its name. */
static void write_file(char *path, size_t size, const char *text)
{
    snprintf(path, size, "/tmp/insee-test-distribution-XXXXXX");
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    size_t n = strlen(text);
    cr_assert_eq(write(fd, text, n), (ssize_t)n);
    close(fd);
}

/* The plugin on 16 tasks (packets of 1 phit, load 1: a message a cycle)
   reading `text` as `format`; NULL with err filled when refused. The
   parameters live in *rp, which must outlive the instance. */
static void *try_make(traffic_rig *r, rig_params *rp, char *path, const char *format,
                      const char *text, insee_error *err)
{
    write_file(path, 64, text);
    rig_defaults(rp, "distribution");
    rig_set(rp, "load", value_double(1.0));
    rig_set_string(rp, "file", path);
    rig_set_choice(rp, "format", format);
    rig_tasks(r, 16, 1);
    void *self = rig_try(r, "distribution", rp->v, err);
    unlink(path);
    return self;
}

static void make(traffic_rig *r, rig_params *rp, char *path, const char *format,
                 const char *text)
{
    insee_error err = {0};
    cr_assert_not_null(try_make(r, rp, path, format, text, &err), "%s", err.message);
}

Test(distribution, shares_leave_the_source_out)
{
    traffic_rig r;
    rig_params rp;
    char path[64];
    make(&r, &rp, path, "histogram", "# a histogram\n0 1\n5 3.5\n\n9 0.5   # tail\n");
    uint64_t per_dst[16] = {0};
    uint64_t sent = rig_run(&r, 2, 200000, per_dst);
    rig_assert_binomial(per_dst[0], sent, 1 / 5.0, "to task 0");
    rig_assert_binomial(per_dst[5], sent, 3.5 / 5, "to task 5");
    rig_assert_binomial(per_dst[9], sent, 0.5 / 5, "to task 9");
    cr_assert_eq(per_dst[0] + per_dst[5] + per_dst[9], sent, "to a task of weight 0");
    memset(per_dst, 0, sizeof per_dst);
    sent = rig_run(&r, 5, 200000, per_dst); /* task 5's own weight left out */
    rig_assert_binomial(per_dst[0], sent, 1 / 1.5, "from 5 to task 0");
    rig_assert_binomial(per_dst[9], sent, 0.5 / 1.5, "from 5 to task 9");
    cr_assert_eq(per_dst[0] + per_dst[9], sent);
    cr_assert_float_eq(r.vt->offered_load(r.self), 1.0, 1e-12);
    rig_free(&r);
}

Test(distribution, chi_square_over_fifteen_destinations)
{
    /* Task t has weight t (t = 1 .. 15), task 0 weight 4 but it is the
       source: p_t = t / 120. */
    char text[400] = "0 4\n";
    for (int t = 1; t < 16; t++)
        snprintf(text + strlen(text), sizeof text - strlen(text), "%d %d\n", t, t);
    traffic_rig r;
    rig_params rp;
    char path[64];
    make(&r, &rp, path, "histogram", text);
    uint64_t per_dst[16] = {0};
    uint64_t n = rig_run(&r, 0, 300000, per_dst);
    cr_assert_eq(per_dst[0], 0u);
    double chi2 = 0;
    for (int t = 1; t < 16; t++) {
        double expected = n * t / 120.0;
        chi2 += (per_dst[t] - expected) * (per_dst[t] - expected) / expected;
    }
    double df = 14, bound = df + 5 * sqrt(2 * df);
    cr_assert_lt(chi2, bound, "chi-square %g over %g degrees of freedom", chi2, df);
    rig_free(&r);
}

Test(distribution, population_lines_are_samples)
{
    traffic_rig r;
    rig_params rp;
    char path[64];
    make(&r, &rp, path, "population", "3\n3\n7\n3 # three times\n");
    uint64_t per_dst[16] = {0};
    uint64_t sent = rig_run(&r, 0, 100000, per_dst);
    rig_assert_binomial(per_dst[3], sent, 0.75, "to task 3");
    cr_assert_eq(per_dst[3] + per_dst[7], sent);
    memset(per_dst, 0, sizeof per_dst);
    sent = rig_run(&r, 3, 1000, per_dst);
    cr_assert_eq(per_dst[7], sent, "task 3 sends only to 7");
    rig_free(&r);
}

Test(distribution, weight_only_on_itself_sends_nothing)
{
    traffic_rig r;
    rig_params rp;
    char path[64];
    make(&r, &rp, path, "histogram", "4 2.5\n");
    cr_assert_eq(rig_first_dst(&r, 4), UINT32_MAX, "task 4 sent");
    for (uint32_t t = 0; t < 16; t++)
        if (t != 4)
            cr_assert_eq(rig_first_dst(&r, t), 4u);
    cr_assert_float_eq(r.vt->offered_load(r.self), 15.0 / 16, 1e-12);
    rig_free(&r);
}

/* `text` as `format` is refused with a message holding `path:line: ` and
   `words`. */
static void assert_refused(const char *format, const char *text, int line, const char *words)
{
    traffic_rig r;
    rig_params rp;
    char path[64], where[80];
    insee_error err = {0};
    cr_assert_null(try_make(&r, &rp, path, format, text, &err), "accepted: %s", text);
    cr_assert_eq(err.code, INSEE_ERR_IO);
    snprintf(where, sizeof where, "%s:%d: ", path, line);
    cr_assert_not_null(strstr(err.message, where), "%s (want %s)", err.message, where);
    cr_assert_not_null(strstr(err.message, words), "%s", err.message);
    rig_free(&r);
}

Test(distribution, wrong_files_name_the_line)
{
    assert_refused("histogram", "0 1\n70 2\n", 2,
                   "task 70 is out of range: the experiment has 16 tasks, 0 to 15");
    assert_refused("histogram", "1 1\n2 1\n1 3\n", 3,
                   "task 1 has a weight already, from line 1; give each task one line");
    assert_refused("histogram", "1 abc\n", 1, "weight 'abc' is not a non-negative decimal");
    assert_refused("histogram", "# x\n1 -1\n", 2, "weight '-1' is not");
    assert_refused("histogram", "1 nan\n", 1, "weight 'nan' is not");
    assert_refused("histogram", "1 inf\n", 1, "weight 'inf' is not");
    assert_refused("histogram", "1 0x10\n", 1, "weight '0x10' is not");
    assert_refused("histogram", "1 2x\n", 1, "weight '2x' is not");
    assert_refused("histogram", "2\n", 1, "task 2 has no weight; write '<task> <weight>'");
    assert_refused("histogram", "2 1 3\n", 1, "more than a task and its weight on the line");
    assert_refused("histogram", "-2 1\n", 1, "'-' in a task number");
    assert_refused("histogram", "1 0\n2 0\n", 2, "no task has a positive weight");
    assert_refused("histogram", "", 1, "no task has a positive weight");
    assert_refused("histogram", "0 1e300\n1 1e-300\n", 2, "the weight of task 1 is too small");
    assert_refused("population", "3 4\n", 1, "more than a task on the line; write '<task>'");
    assert_refused("population", "# nothing\n", 1, "give at least one '<task>' line");
    char line[5000];
    memset(line, ' ', sizeof line);
    memcpy(line, "\n\n1 1", 5);
    line[sizeof line - 1] = '\0';
    assert_refused("histogram", line, 3, "the line is longer than 4096 characters");
}

Test(distribution, unreadable_files)
{
    rig_params rp;
    rig_defaults(&rp, "distribution");
    traffic_rig r;
    insee_error err = {0};
    const char *paths[] = {"/nonexistent/insee-weights.txt", "/tmp"};
    const char *why[] = {"No such file or directory", "it is a directory"};
    for (int i = 0; i < 2; i++) {
        rig_set_string(&rp, "file", paths[i]);
        rig_tasks(&r, 8, 16);
        cr_assert_null(rig_try(&r, "distribution", rp.v, &err));
        cr_assert_eq(err.code, INSEE_ERR_IO);
        cr_assert_not_null(strstr(err.message, paths[i]), "%s", err.message);
        cr_assert_not_null(strstr(err.message, why[i]), "%s", err.message);
        rig_free(&r);
    }
}

/* The plugin with entries = "distances" on an 8 x 8 torus (packets of 1
   phit, load 1), reading `text` as a histogram; NULL with err filled when
   refused. */
static void *try_make_distances(traffic_rig *r, rig_params *rp, char *path, const char *text,
                                insee_error *err)
{
    write_file(path, 64, text);
    rig_defaults(rp, "distribution");
    rig_set(rp, "load", value_double(1.0));
    rig_set_string(rp, "file", path);
    rig_set_choice(rp, "entries", "distances");
    rig_torus(r, (const int64_t[]){8, 8}, 2, 1);
    void *self = rig_try(r, "distribution", rp->v, err);
    unlink(path);
    return self;
}

/* Distances 1 and 2 weighed alike on 8 x 8, drawn as INSEE's code does: r
   = 1 goes to each of the 4 neighbours with 1/2 x 1/4; r = 2 puts 0, 1 or
   2 hops on y (a third each) and the rest on x, each sign a fair coin:
   (+-2, 0) and (0, +-2) 1/12 each, (+-1, +-1) 1/24 each. The same offsets
   from every source, so the destinations differ by source: a chi-square
   over the 12 cells for three sources, nothing sent elsewhere. */
Test(distribution, distances_are_taken_from_each_source)
{
    traffic_rig r;
    rig_params rp;
    char path[64];
    insee_error err = {0};
    cr_assert_not_null(try_make_distances(&r, &rp, path, "1 1\n2 1\n", &err), "%s",
                       err.message);
    static const struct {
        int dx, dy;
        double p;
    } cells[] = {
        {1, 0, 1 / 8.0},   {-1, 0, 1 / 8.0},  {0, 1, 1 / 8.0},   {0, -1, 1 / 8.0},
        {2, 0, 1 / 12.0},  {-2, 0, 1 / 12.0}, {0, 2, 1 / 12.0},  {0, -2, 1 / 12.0},
        {1, 1, 1 / 24.0},  {1, -1, 1 / 24.0}, {-1, 1, 1 / 24.0}, {-1, -1, 1 / 24.0},
    };
    const uint32_t sources[] = {0, 27, 63};
    for (size_t i = 0; i < 3; i++) {
        uint32_t s = sources[i], sx = s % 8, sy = s / 8;
        uint64_t per_dst[64] = {0};
        uint64_t n = rig_run(&r, s, 240000, per_dst);
        uint64_t in_cells = 0;
        double chi2 = 0;
        for (size_t c = 0; c < 12; c++) {
            uint32_t d = (sx + 8 + cells[c].dx) % 8 + 8 * ((sy + 8 + cells[c].dy) % 8);
            double expected = n * cells[c].p;
            in_cells += per_dst[d];
            chi2 += (per_dst[d] - expected) * (per_dst[d] - expected) / expected;
        }
        cr_assert_eq(in_cells, n, "source %u sent outside distances 1 and 2", s);
        double df = 11, bound = df + 5 * sqrt(2 * df);
        cr_assert_lt(chi2, bound, "source %u: chi-square %g over %g degrees of freedom", s, chi2,
                     df);
    }
    cr_assert_float_eq(r.vt->offered_load(r.self), 1.0, 1e-12);
    rig_free(&r);
}

/* A distance past the diameter (4 + 4 on 8 x 8) names the line; a
   distance of 0 is the source itself and, alone, leaves every task
   silent; a topology without a grid is refused. */
Test(distribution, distances_beyond_the_grid_are_refused)
{
    traffic_rig r;
    rig_params rp;
    char path[64];
    insee_error err = {0};
    cr_assert_null(try_make_distances(&r, &rp, path, "1 1\n9 1\n", &err));
    cr_assert_not_null(strstr(err.message, ":2: distance 9 is out of range: the farthest nodes "
                                           "of the grid are 8 hops apart"),
                       "%s", err.message);
    rig_free(&r);
    cr_assert_not_null(try_make_distances(&r, &rp, path, "0 1\n", &err), "%s", err.message);
    for (uint32_t t = 0; t < 64; t += 9)
        cr_assert_eq(rig_first_dst(&r, t), UINT32_MAX, "task %u sent", t);
    cr_assert_float_eq(r.vt->offered_load(r.self), 0.0, 1e-12);
    rig_free(&r);
    err = (insee_error){0};
    write_file(path, 64, "1 1\n");
    rig_defaults(&rp, "distribution");
    rig_set_string(&rp, "file", path);
    rig_set_choice(&rp, "entries", "distances");
    rig_tasks(&r, 16, 1);
    cr_assert_null(rig_try(&r, "distribution", rp.v, &err));
    unlink(path);
    cr_assert_not_null(strstr(err.message, "entries = \"distances\""), "%s", err.message);
    rig_free(&r);
}

Test(distribution, parameter_table)
{
    const insee_plugin_desc *d = load_plugin("traffic", "distribution");
    cr_assert_str_eq(d->params[0].name, "load");
    cr_assert_str_eq(d->params[1].name, "file");
    cr_assert_null(d->params[1].default_value, "the file is required");
    cr_assert_str_eq(d->params[2].name, "format");
    cr_assert_str_eq(d->params[2].choices, "histogram|population");
    cr_assert_str_eq(d->params[3].name, "entries");
    cr_assert_str_eq(d->params[3].default_value, "\"tasks\"");
    cr_assert_str_eq(d->params[3].choices, "tasks|distances");
    rig_assert_source_params(d, 4);
}
