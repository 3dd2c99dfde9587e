/* test_file.c — placement read from a file of "task node" lines: the exact
 * mapping of a valid file (comments, blanks, any line order), every error
 * naming path:line (unreadable file, malformed lines, out-of-range or
 * duplicate tasks and nodes, taken nodes, too few lines), and a fuzz run in
 * which every outcome is either a bijection or such a message. */
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

/* Create on `text`; false with err filled. */
static bool open_text(placer *p, const char *text, insee_error *err)
{
    write_bytes(text, strlen(text));
    placer_init(p);
    insee_value params[1] = {{.type = INSEE_PARAM_STRING, .s = path}};
    return placer_create(p, "file", params, err);
}

/* Assert that err names path:line. */
static void assert_at(const insee_error *err, unsigned line)
{
    char where[160];
    snprintf(where, sizeof where, "%s:%u: ", path, line);
    cr_assert_neq(err->code, INSEE_ERR_NONE);
    cr_assert_not_null(strstr(err->message, where), "expected '%s' in: %s", where, err->message);
}

/* create() on `text` fails at `line`. */
static void assert_parse_error(const char *text, unsigned line)
{
    placer p;
    insee_error err;
    cr_assert_not(open_text(&p, text, &err), "accepted: %s", text);
    assert_at(&err, line);
}

/* create() on `text` works, and place() of `tasks` on `nodes` (`taken`
   not available, or none when >= nodes) fails at `line`. */
static void assert_place_error(const char *text, uint32_t tasks, uint32_t nodes, uint32_t taken,
                               unsigned line)
{
    placer p;
    insee_error err;
    cr_assert(open_text(&p, text, &err), "%s", err.message);
    bool avail[16];
    uint32_t map[16];
    all_available(avail, nodes);
    if (taken < nodes)
        avail[taken] = false;
    cr_assert_not(placer_run(&p, tasks, avail, nodes, map, 1, &err), "placed: %s", text);
    assert_at(&err, line);
    placer_close(&p);
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
    placer_init(&p);
    insee_value params[1] = {{.type = INSEE_PARAM_STRING, .s = "/nonexistent/insee-map.txt"}};
    insee_error err;
    cr_assert_not(placer_create(&p, "file", params, &err));
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
    placer_init(&p);
    insee_value params[1] = {{.type = INSEE_PARAM_STRING, .s = path}};
    insee_error err;
    cr_assert_not(placer_create(&p, "file", params, &err));
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
        placer_init(&p);
        insee_value params[1] = {{.type = INSEE_PARAM_STRING, .s = path}};
        insee_error err;
        if (!placer_create(&p, "file", params, &err)) {
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
