/* test_file.c — placement read from a file of "task node" lines: the exact
 * mapping of a valid file (comments, blanks, any line order), every error
 * naming path:line (unreadable file, malformed lines, out-of-range or
 * duplicate tasks and nodes, taken nodes, too few lines), and a fuzz run in
 * which every outcome is either a bijection or such a message. In INSEE's
 * "node task application" format: one file placing two applications, each
 * instance taking its own lines, and the same errors on those lines plus a
 * node given to two applications. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include "test_placement_rig.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[64];
static char path[128];

static void make_dir(void)
{
    snprintf(dir, sizeof dir, "%s", "/tmp/insee-test-file-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/map.txt", dir);
}

static void remove_dir(void)
{
    unlink(path);
    rmdir(dir);
}

TestSuite(file, .init = make_dir, .fini = remove_dir);

static void write_bytes(const char *bytes, size_t len)
{
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f);
    cr_assert_eq(fwrite(bytes, 1, len, f), len);
    fclose(f);
}

enum { TASK_NODE, INSEE }; /* the choices of `format`, in order */

/* Create on the file at `path` in `format`, for application `app`; false
   with err filled. */
static bool open_path(placer *p, const char *file, int format, int app, insee_error *err)
{
    static const char *const formats[] = {"task-node", "insee"};
    insee_value params[3] = {
        {.type = INSEE_PARAM_STRING, .s = file},
        {.type = INSEE_PARAM_ENUM, .i = format, .s = formats[format]},
        {.type = INSEE_PARAM_INT, .i = app, .d = app},
    };
    placer_init(p);
    return placer_create(p, "file", params, err);
}

/* Create on `text` in `format` for application `app`. */
static bool open_as(placer *p, const char *text, int format, int app, insee_error *err)
{
    write_bytes(text, strlen(text));
    return open_path(p, path, format, app, err);
}

/* Create on `text` with the defaults (format "task-node"). */
static bool open_text(placer *p, const char *text, insee_error *err)
{
    return open_as(p, text, TASK_NODE, 0, err);
}

/* Assert that err names path:line. */
static void assert_at(const insee_error *err, unsigned line)
{
    char where[160];
    snprintf(where, sizeof where, "%s:%u: ", path, line);
    cr_assert_neq(err->code, INSEE_ERR_NONE);
    cr_assert_not_null(strstr(err->message, where), "expected '%s' in: %s", where, err->message);
}

/* create() on `text` in `format` for application 0 fails at `line`. */
static void assert_parse_error_as(int format, const char *text, unsigned line)
{
    placer p;
    insee_error err;
    cr_assert_not(open_as(&p, text, format, 0, &err), "accepted: %s", text);
    assert_at(&err, line);
}

static void assert_parse_error(const char *text, unsigned line)
{
    assert_parse_error_as(TASK_NODE, text, line);
}

/* create() on `text` in `format` for application `app` works, and place()
   of `tasks` on `nodes` (`taken` not available, or none when >= nodes)
   fails at `line`; the message, for tests that look further. */
static insee_error assert_place_error_as(int format, int app, const char *text, uint32_t tasks,
                                         uint32_t nodes, uint32_t taken, unsigned line)
{
    placer p;
    insee_error err;
    cr_assert(open_as(&p, text, format, app, &err), "%s", err.message);
    bool avail[16];
    uint32_t map[16];
    all_available(avail, nodes);
    if (taken < nodes)
        avail[taken] = false;
    cr_assert_not(placer_run(&p, tasks, avail, nodes, map, 1, &err), "placed: %s", text);
    assert_at(&err, line);
    placer_close(&p);
    return err;
}

static void assert_place_error(const char *text, uint32_t tasks, uint32_t nodes, uint32_t taken,
                               unsigned line)
{
    assert_place_error_as(TASK_NODE, 0, text, tasks, nodes, taken, line);
}

Test(file, exact_mapping_with_comments_and_any_order)
{
    placer p;
    insee_error err;
    cr_assert(open_text(&p,
                        "# task node\n"
                        "2 7\n"
                        "\n"
                        "  0\t5   # the first task\r\n"
                        "1 0\n"
                        "3 2",
                        &err),
              "%s", err.message);
    bool avail[8];
    uint32_t map[4];
    all_available(avail, 8);
    avail[1] = false;
    cr_assert(placer_run(&p, 4, avail, 8, map, 1, &err), "%s", err.message);
    assert_mapping(map, (const uint32_t[]){5, 0, 7, 2}, 4);
    placer_close(&p);
}

Test(file, missing_file_names_it)
{
    placer p;
    insee_error err;
    cr_assert_not(open_path(&p, "/nonexistent/insee-map.txt", TASK_NODE, 0, &err));
    cr_assert_eq(err.code, INSEE_ERR_IO);
    cr_assert_not_null(strstr(err.message, "/nonexistent/insee-map.txt"), "%s", err.message);
}

Test(file, malformed_lines_give_path_and_line)
{
    assert_parse_error("", 1);
    assert_parse_error("# only a comment\n\n", 2);
    assert_parse_error("0 1\n1\n", 2);
    assert_parse_error("0 1\n1 2 3\n", 2);
    assert_parse_error("0 1\n\n-1 2\n", 3);
    assert_parse_error("0 x\n", 1);
    assert_parse_error("0 1\n12abc 3\n", 2);
    assert_parse_error("0 1,\n", 1);
    assert_parse_error("0 99999999999\n", 1);
    assert_parse_error("0 4294967295\n", 1);
    assert_parse_error("0 1\n1 +2\n", 2);
    assert_parse_error("0 0x1\n", 1);
    write_bytes("0 1\n1\0 2\n", 9); /* a NUL byte inside line 2 */
    placer p;
    insee_error err;
    cr_assert_not(open_path(&p, path, TASK_NODE, 0, &err));
    assert_at(&err, 2);
}

Test(file, place_errors_give_path_and_line)
{
    assert_place_error("0 1\n1 2\n2 3\n", 2, 8, 8, 3);      /* task 2 of 2 tasks */
    assert_place_error("0 1\n1 9\n", 2, 8, 8, 2);           /* node 9 of 8 nodes */
    assert_place_error("0 1\n1 2\n0 3\n", 2, 8, 8, 3);      /* task 0 twice */
    assert_place_error("0 1\n1 2\n\n2 1\n", 3, 8, 8, 4);    /* node 1 twice */
    assert_place_error("0 1\n1 2\n", 2, 8, 2, 2);           /* node 2 taken */
    assert_place_error("0 1\n# end\n", 2, 8, 8, 2);         /* too few lines: task 1 missing */
    assert_place_error("1 1\n2 2\n", 3, 8, 8, 2);           /* too few lines: task 0 missing */
}

Test(file, duplicate_node_names_the_first_line)
{
    placer p;
    insee_error err;
    cr_assert(open_text(&p, "0 4\n1 4\n", &err), "%s", err.message);
    bool avail[8];
    uint32_t map[2];
    all_available(avail, 8);
    cr_assert_not(placer_run(&p, 2, avail, 8, map, 1, &err));
    cr_assert_not_null(strstr(err.message, "node 4 already runs task 0 (line 1)"), "%s",
                       err.message);
    placer_close(&p);
}

Test(file, fuzzed_files_map_or_name_a_line)
{
    /* Lines of digits, blanks, signs, letters, '#' and control bytes: each
       file either places 4 tasks on 8 nodes as a bijection or is refused
       with path:line. */
    static const char alphabet[] = "0123456789   \t#-+x\r\n\n\n\0\377";
    insee_rng rng;
    insee_rng_init(&rng, 2026, 7);
    char text[96];
    for (int round = 0; round < 2000; round++) {
        size_t len = insee_rng_below(&rng, sizeof text);
        for (size_t i = 0; i < len; i++)
            text[i] = alphabet[insee_rng_below(&rng, sizeof alphabet - 1)];
        write_bytes(text, len);
        placer p;
        insee_error err;
        if (!open_path(&p, path, TASK_NODE, 0, &err)) {
            cr_assert_not_null(strstr(err.message, path), "%s", err.message);
            continue;
        }
        bool avail[8];
        uint32_t map[4];
        all_available(avail, 8);
        if (placer_run(&p, 4, avail, 8, map, 1, &err))
            assert_bijection(map, 4, avail, 8);
        else
            cr_assert_not_null(strstr(err.message, path), "%s", err.message);
        placer_close(&p);
    }
}

/* INSEE §3.4's example layout: applications 0 and 1 interleaved in one
   file, each instance placing its own tasks in its own place() call. */
static const char two_apps[] = "# node task application\n"
                               "5 0 0\n"
                               "2 0 1\n"
                               "0 1 0   # task 1 of application 0\n"
                               "\n"
                               "7 2 1\n"
                               "6 1 1\n"
                               "3 2 0\n";

Test(file, insee_format_places_each_application_from_one_file)
{
    bool avail[8];
    all_available(avail, 8);
    placer p;
    insee_error err;
    uint32_t map[3];
    cr_assert(open_as(&p, two_apps, INSEE, 0, &err), "%s", err.message);
    cr_assert(placer_run(&p, 3, avail, 8, map, 1, &err), "%s", err.message);
    assert_mapping(map, (const uint32_t[]){5, 0, 3}, 3);
    placer_close(&p);
    /* The kernel places application 1 on the nodes application 0 left. */
    avail[5] = avail[0] = avail[3] = false;
    cr_assert(open_as(&p, two_apps, INSEE, 1, &err), "%s", err.message);
    cr_assert(placer_run(&p, 3, avail, 8, map, 1, &err), "%s", err.message);
    assert_mapping(map, (const uint32_t[]){2, 6, 7}, 3);
    placer_close(&p);
}

Test(file, insee_format_errors_give_path_and_line)
{
    /* Syntax is checked on every line, whatever its application. */
    assert_parse_error_as(INSEE, "0 0 0\n1 1\n", 2);        /* two numbers */
    assert_parse_error_as(INSEE, "0 0 0\n1 1 1 1\n", 2);    /* four */
    assert_parse_error_as(INSEE, "0 0 0\n1 1 x\n", 2);      /* application not a number */
    assert_parse_error_as(INSEE, "0 0 0\n1 1 -1\n", 2);
    assert_parse_error_as(INSEE, "0 0 1\n1 1 1\n", 2);      /* no line of application 0 */
    assert_parse_error_as(INSEE, "0 1\n", 1);                /* a task-node file read as INSEE's */
    /* The selected lines get every check of the two-column format. */
    assert_place_error_as(INSEE, 1, "0 0 0\n1 0 1\n2 5 1\n", 2, 8, 8, 3); /* task 5 of 2 */
    assert_place_error_as(INSEE, 1, "0 0 0\n9 0 1\n", 1, 8, 8, 2);         /* node 9 of 8 */
    assert_place_error_as(INSEE, 1, "1 0 1\n0 0 0\n2 0 1\n", 2, 8, 8, 3); /* task 0 twice */
    assert_place_error_as(INSEE, 0, "1 0 0\n0 0 1\n2 1 0\n", 3, 8, 8, 3); /* task 2 missing */
    assert_place_error_as(INSEE, 0, "4 0 0\n4 1 0\n", 2, 8, 8, 2);         /* node 4 twice */
    assert_place_error_as(INSEE, 0, "4 0 0\n", 1, 8, 4, 1);                 /* node 4 taken */
    /* Another application's lines are its own instance's to check. */
    bool avail[8];
    uint32_t map[1];
    all_available(avail, 8);
    placer p;
    insee_error err;
    cr_assert(open_as(&p, "3 0 0\n9 7 1\n1 0 1\n1 1 1\n", INSEE, 0, &err), "%s", err.message);
    cr_assert(placer_run(&p, 1, avail, 8, map, 1, &err), "%s", err.message);
    cr_assert_eq(map[0], 3u);
    placer_close(&p);
}

Test(file, insee_format_refuses_a_node_of_two_applications)
{
    /* Whichever instance asks, and whichever line comes first: both lines
       and both applications are named. */
    static const char shared[] = "0 0 0\n"
                                 "1 1 0\n"
                                 "# application 2\n"
                                 "1 0 2\n";
    for (int app = 0; app <= 2; app += 2) {
        insee_error err = assert_place_error_as(INSEE, app, shared, 2 - app / 2, 8, 8, 4);
        cr_assert_not_null(strstr(err.message, "node 1 of application 2 is also given to "
                                               "application 0 (line 2)"),
                           "%s", err.message);
    }
    /* Even when neither line is of the instance's application. */
    insee_error err = assert_place_error_as(INSEE, 0, "5 0 0\n1 0 1\n1 0 2\n", 1, 8, 8, 3);
    cr_assert_not_null(strstr(err.message, "(line 2)"), "%s", err.message);
}
