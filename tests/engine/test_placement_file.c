/* test_placement_file.c — placement `file` in INSEE's "node task
 * application" format, end to end: two [[application]] tables given the same
 * file, each instance selecting its own lines, put every task of each
 * application on the node the file names for it, and the run delivers each
 * application's traffic. A node the file gives to both applications stops
 * the run before it starts, naming both lines. */
#include "run_helpers.h"

#include "engine/engine.h"

#include <criterion/criterion.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>

static char *dir, *path; /* a fresh directory per test, and the map in it */

static void make_dir(void)
{
    dir = g_dir_make_tmp("insee-test-placement-file-XXXXXX", NULL);
    cr_assert_not_null(dir);
    path = g_build_filename(dir, "two-apps.map", NULL);
}

static void remove_dir(void)
{
    g_unlink(path);
    g_rmdir(dir);
    g_free(path);
    g_free(dir);
}

TestSuite(placement_file, .init = make_dir, .fini = remove_dir);

static void write_map(const char *text)
{
    cr_assert(g_file_set_contents(path, text, -1, NULL));
}

/* Two applications on a 4x4 torus, both placed from `path`. */
static char *two_apps_toml(void)
{
    return g_strdup_printf("[simulation]\nseed = 3\nwarmup = 200\ncycles = 2000\n"
                           "[topology]\nplugin = \"torus\"\ndims = [4, 4]\n"
                           "[[application]]\nname = \"first\"\ntasks = 3\n"
                           "[application.traffic]\nplugin = \"uniform\"\nload = 0.2\n"
                           "[application.placement]\nplugin = \"file\"\npath = \"%s\"\n"
                           "format = \"insee\"\napplication = 0\n"
                           "[[application]]\nname = \"second\"\ntasks = 4\n"
                           "[application.traffic]\nplugin = \"uniform\"\nload = 0.2\n"
                           "[application.placement]\nplugin = \"file\"\npath = \"%s\"\n"
                           "format = \"insee\"\napplication = 1\n",
                           path, path);
}

Test(placement_file, two_applications_from_one_insee_file)
{
    /* Lines in no particular order, the applications interleaved. */
    write_map("# node task application\n"
              "15 3 1\n"
              "5 0 0\n"
              "0 0 1\n"
              "10 2 0\n"
              "6 1 1\n"
              "9 1 0\n"
              "3 2 1\n");
    static const uint32_t want[2][4] = {{5, 9, 10}, {0, 6, 3, 15}};
    static const uint32_t tasks[2] = {3, 4};
    char *toml = two_apps_toml();
    insee_config *cfg;
    insee_registry *reg;
    insee_experiment *exp = build_toml(toml, &cfg, &reg);
    const insee_engine *eng = insee_experiment_engine(exp);
    cr_assert_eq(eng->wl.n_apps, 2u);
    for (uint32_t a = 0; a < 2; a++) {
        cr_assert_eq(eng->wl.apps[a].tasks, tasks[a]);
        for (uint32_t t = 0; t < tasks[a]; t++)
            cr_assert_eq(eng->wl.task_node[eng->wl.apps[a].first_task + t], want[a][t],
                         "application %u task %u on node %u, the file says %u", a, t,
                         eng->wl.task_node[eng->wl.apps[a].first_task + t], want[a][t]);
    }
    GError *err = NULL;
    cr_assert(insee_experiment_run(exp, &err), "run: %s", err ? err->message : "?");
    const insee_report *r = insee_experiment_report(exp);
    assert_all_delivered(r);
    insee_experiment_free(exp);
    insee_registry_free(reg);
    insee_config_free(cfg);
    g_free(toml);
}

Test(placement_file, a_node_of_both_applications_is_refused_with_both_lines)
{
    write_map("5 0 0\n"
              "9 1 0\n"
              "10 2 0\n"
              "0 0 1\n"
              "9 1 1\n"
              "3 2 1\n"
              "15 3 1\n");
    char *toml = two_apps_toml();
    char *msg = run_toml_error(toml);
    char *where = g_strdup_printf("%s:5: node 9 of application 1 is also given to application 0 "
                                  "(line 2)",
                                  path);
    cr_assert_not_null(strstr(msg, where), "expected '%s' in: %s", where, msg);
    g_free(where);
    g_free(msg);
    g_free(toml);
}
