/* The streaming JSON writer (stats/json_writer.h) against json-glib: the
 * same calls give the same text json-glib's builder and generator give (the
 * documents insee wrote before the writer, byte for byte), text json-glib's
 * parser reads back, save where json-glib's is not JSON (a double written
 * with an exponent and no point gets ".0" from json-glib 1.6: "1e+21.0"); a writer on a file gives the file the text a writer
 * into memory gives, past the pieces it hands over; a file that cannot be
 * written, at its start or midway (the disk full), is an error and leaves
 * nothing behind; nor does a writer killed midway, or the old file whole. */
#include <criterion/criterion.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "stats/json_writer.h"

/* One document built twice, by the writer and by json-glib's builder. */
typedef struct both {
    insee_jw *w;
    JsonBuilder *b;
} both;

static void begin_object(both *x)
{
    insee_jw_begin_object(x->w);
    json_builder_begin_object(x->b);
}

static void end_object(both *x)
{
    insee_jw_end_object(x->w);
    json_builder_end_object(x->b);
}

static void begin_array(both *x)
{
    insee_jw_begin_array(x->w);
    json_builder_begin_array(x->b);
}

static void end_array(both *x)
{
    insee_jw_end_array(x->w);
    json_builder_end_array(x->b);
}

static void key(both *x, const char *k)
{
    insee_jw_key(x->w, k);
    json_builder_set_member_name(x->b, k);
}

static void integer(both *x, int64_t v)
{
    insee_jw_int(x->w, v);
    json_builder_add_int_value(x->b, v);
}

static void real(both *x, double v)
{
    insee_jw_double(x->w, v);
    json_builder_add_double_value(x->b, v);
}

static void string(both *x, const char *v)
{
    insee_jw_string(x->w, v);
    json_builder_add_string_value(x->b, v);
}

static void boolean(both *x, gboolean v)
{
    insee_jw_bool(x->w, v);
    json_builder_add_boolean_value(x->b, v);
}

static void null(both *x)
{
    insee_jw_null(x->w);
    json_builder_add_null_value(x->b);
}

/* json-glib's text of the builder's document. */
static char *generated(JsonBuilder *b)
{
    JsonGenerator *gen = json_generator_new();
    JsonNode *root = json_builder_get_root(b);
    json_generator_set_root(gen, root);
    char *text = json_generator_to_data(gen, NULL);
    json_node_unref(root);
    g_object_unref(gen);
    g_object_unref(b);
    return text;
}

static void same_text(both *x)
{
    char *ours = insee_jw_take(x->w), *theirs = generated(x->b);
    cr_assert_str_eq(ours, theirs);
    JsonParser *p = json_parser_new();
    cr_assert(json_parser_load_from_data(p, ours, -1, NULL), "json-glib cannot read: %s", ours);
    g_object_unref(p);
    g_free(ours);
    g_free(theirs);
}

Test(json_writer, writes_what_json_glib_writes)
{
    both x = {insee_jw_new(), json_builder_new()};
    static const double reals[] = {0.0, -0.0, 1.0, -5.0, 0.1, 1.0 / 3, 2.5e-310, 1e16,
                                   123456789012345678.0, -1.7976931348623157e308, 0.3};
    static const int64_t ints[] = {0, 1, -1, 9, 10, 99, 100, 4294967296, INT64_MAX, INT64_MIN};
    begin_object(&x);
    key(&x, "reals");
    begin_array(&x);
    for (size_t i = 0; i < G_N_ELEMENTS(reals); i++)
        real(&x, reals[i]);
    end_array(&x);
    key(&x, "ints");
    begin_array(&x);
    for (size_t i = 0; i < G_N_ELEMENTS(ints); i++)
        integer(&x, ints[i]);
    end_array(&x);
    key(&x, "text \"quoted\"\n");
    string(&x, "a \\ b \" c\nd\re\tf\bg\fh \x01 \x1e \x7f caf\xc3\xa9 [plugins]\ndirs = \"\"");
    key(&x, "empty");
    begin_object(&x);
    end_object(&x);
    key(&x, "none");
    begin_array(&x);
    end_array(&x);
    key(&x, "nested");
    begin_array(&x);
    begin_array(&x);
    null(&x);
    boolean(&x, TRUE);
    end_array(&x);
    begin_object(&x);
    key(&x, "f");
    boolean(&x, FALSE);
    key(&x, "s");
    string(&x, "");
    end_object(&x);
    integer(&x, 7);
    end_array(&x);
    end_object(&x);
    same_text(&x);
}

/* Random documents: objects and arrays nested up to 6 deep. */
static void random_value(both *x, GRand *rng, int depth)
{
    switch (g_rand_int_range(rng, 0, depth < 6 ? 7 : 5)) {
    case 0:
        integer(x, (int64_t)g_rand_int(rng) * (g_rand_boolean(rng) ? -977 : 1));
        break;
    case 1: /* a point in every figure, as json-glib's is JSON then */
        real(x, (g_rand_double(rng) - 0.5) * pow(10, g_rand_int_range(rng, -30, 30)) + 0.03125);
        break;
    case 2: {
        char s[12];
        for (int i = 0; i < 11; i++)
            s[i] = (char)g_rand_int_range(rng, 1, 128);
        s[11] = '\0';
        for (int i = 0; i < 11; i++)
            if (s[i] == 0x1f) /* json-glib leaves it bare, which JSON forbids */
                s[i] = ' ';
        string(x, s);
        break;
    }
    case 3:
        boolean(x, g_rand_boolean(rng));
        break;
    case 4:
        null(x);
        break;
    case 5: {
        begin_array(x);
        for (int n = g_rand_int_range(rng, 0, 5); n > 0; n--)
            random_value(x, rng, depth + 1);
        end_array(x);
        break;
    }
    default: {
        begin_object(x);
        for (int n = g_rand_int_range(rng, 0, 5); n > 0; n--) {
            char k[8];
            g_snprintf(k, sizeof k, "k%d", n); /* json-glib keeps one member per name */
            key(x, k);
            random_value(x, rng, depth + 1);
        }
        end_object(x);
    }
    }
}

Test(json_writer, random_documents_read_as_json_glib_writes_them)
{
    GRand *rng = g_rand_new_with_seed(19);
    for (int doc = 0; doc < 300; doc++) {
        both x = {insee_jw_new(), json_builder_new()};
        begin_array(&x);
        random_value(&x, rng, 0);
        end_array(&x);
        same_text(&x);
    }
    g_rand_free(rng);
}

Test(json_writer, a_number_that_is_not_finite_is_null)
{
    insee_jw *w = insee_jw_new();
    insee_jw_begin_array(w);
    insee_jw_double(w, NAN);
    insee_jw_double(w, INFINITY);
    insee_jw_double(w, -INFINITY);
    insee_jw_string(w, NULL);
    insee_jw_end_array(w);
    char *text = insee_jw_take(w);
    cr_assert_str_eq(text, "[null,null,null,null]");
    g_free(text);
}

/* Where json-glib 1.6 writes "1e+21.0", which no JSON parser reads. */
Test(json_writer, a_double_with_an_exponent_and_no_point_stays_a_number)
{
    insee_jw *w = insee_jw_new();
    insee_jw_begin_array(w);
    insee_jw_double(w, 1e21);
    insee_jw_double(w, -1e22);
    insee_jw_double(w, 5.0);
    insee_jw_end_array(w);
    char *text = insee_jw_take(w);
    cr_assert_str_eq(text, "[1e+21,-1e+22,5.0]");
    JsonParser *p = json_parser_new();
    cr_assert(json_parser_load_from_data(p, text, -1, NULL));
    JsonArray *a = json_node_get_array(json_parser_get_root(p));
    cr_assert_eq(json_array_get_double_element(a, 0), 1e21);
    cr_assert_eq(json_array_get_double_element(a, 1), -1e22);
    g_object_unref(p);
    g_free(text);
}

/* A document of several MiB: the file's writer hands it over in pieces. */
static void large(insee_jw *w)
{
    insee_jw_begin_object(w);
    insee_jw_key(w, "ports");
    insee_jw_begin_array(w);
    for (int64_t i = 0; i < 300000; i++) {
        insee_jw_begin_object(w);
        insee_jw_key(w, "router");
        insee_jw_int(w, i);
        insee_jw_key(w, "load");
        insee_jw_double(w, (double)i / 7);
        insee_jw_end_object(w);
    }
    insee_jw_end_array(w);
    insee_jw_end_object(w);
}

/* Only `name` is left in `dir`: no temporary, no lock file. */
static void assert_only(const char *dir, const char *name)
{
    GDir *d = g_dir_open(dir, 0, NULL);
    for (const char *left; (left = g_dir_read_name(d));)
        cr_assert_str_eq(left, name, "left behind: %s", left);
    g_dir_close(d);
}

Test(json_writer, a_file_gets_the_text_memory_gets)
{
    char *dir = g_dir_make_tmp("insee-jw-XXXXXX", NULL);
    char *path = g_build_filename(dir, "out.json", NULL);
    GError *err = NULL;
    insee_jw *w = insee_jw_open(path, "[stats] json", &err);
    cr_assert_not_null(w, "%s", err ? err->message : "");
    large(w);
    cr_assert(insee_jw_close(w, &err), "%s", err ? err->message : "");
    insee_jw *m = insee_jw_new();
    large(m);
    char *want = insee_jw_take(m), *got = NULL;
    gsize len = 0;
    cr_assert(g_file_get_contents(path, &got, &len, NULL));
    cr_assert_gt(len, 8u << 20, "the document is several pieces long");
    cr_assert_eq(len, strlen(want));
    cr_assert(memcmp(got, want, len) == 0);
    assert_only(dir, "out.json");
    g_unlink(path);
    g_rmdir(dir);
    g_free(want);
    g_free(got);
    g_free(path);
    g_free(dir);
}

Test(json_writer, a_file_that_cannot_be_written_is_an_error)
{
    GError *err = NULL;
    insee_jw *w = insee_jw_open("/nonexistent-insee-dir/out.json", "[stats] json", &err);
    cr_assert_null(w);
    cr_assert_not_null(err);
    cr_assert(strstr(err->message, "[stats] json: /nonexistent-insee-dir/out.json") != NULL,
              "%s", err->message);
    g_error_free(err);
}

/* The disk fills midway (a file-size limit of 2 MiB, its signal ignored,
   so that a write fails as on a full disk): closing fails naming the file,
   and neither the file nor its temporary is left, in a child process so
   that the limit binds nothing else. */
Test(json_writer, a_file_the_disk_cannot_hold_is_an_error_and_leaves_nothing)
{
    char *dir = g_dir_make_tmp("insee-jw-XXXXXX", NULL);
    char *path = g_build_filename(dir, "out.json", NULL);
    pid_t child = fork();
    cr_assert_geq(child, 0);
    if (child == 0) {
        struct rlimit lim = {2u << 20, 2u << 20};
        signal(SIGXFSZ, SIG_IGN);
        setrlimit(RLIMIT_FSIZE, &lim);
        GError *err = NULL;
        insee_jw *w = insee_jw_open(path, "[stats] json", &err);
        if (!w)
            _exit(2);
        large(w);
        gboolean ok = insee_jw_close(w, &err);
        _exit(!ok && err && strstr(err->message, "[stats] json: ") &&
                      strstr(err->message, "cannot write the new contents")
                  ? 0
                  : 1);
    }
    int status = 0;
    cr_assert_eq(waitpid(child, &status, 0), child);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d", status);
    GDir *d = g_dir_open(dir, 0, NULL);
    const char *left = g_dir_read_name(d);
    cr_assert_null(left, "left behind: %s", left);
    g_dir_close(d);
    g_rmdir(dir);
    g_free(path);
    g_free(dir);
}

/* A writer killed (SIGKILL: no handler runs) after handing over pieces of
   its document leaves the old file as it was, or, where there was none, no
   file at all; the next writer of the file takes over what the dead one
   left (its lock file, its temporary) and leaves only the file. */
Test(json_writer, a_writer_killed_midway_leaves_the_old_file_or_none)
{
    for (int had_old = 0; had_old < 2; had_old++) {
        char *dir = g_dir_make_tmp("insee-jw-XXXXXX", NULL);
        char *path = g_build_filename(dir, "out.json", NULL);
        if (had_old)
            cr_assert(g_file_set_contents(path, "{\"old\":1}", -1, NULL));
        pid_t child = fork();
        cr_assert_geq(child, 0);
        if (child == 0) {
            insee_jw *w = insee_jw_open(path, "[stats] json", NULL);
            if (!w)
                _exit(2);
            large(w);
            kill(getpid(), SIGKILL);
            _exit(3);
        }
        int status = 0;
        cr_assert_eq(waitpid(child, &status, 0), child);
        cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "status %d", status);
        char *text = NULL;
        if (had_old) {
            cr_assert(g_file_get_contents(path, &text, NULL, NULL));
            cr_assert_str_eq(text, "{\"old\":1}", "the old file is whole");
            g_free(text);
        } else {
            cr_assert_not(g_file_test(path, G_FILE_TEST_EXISTS), "no file at %s", path);
        }
        GError *err = NULL;
        insee_jw *w = insee_jw_open(path, "[stats] json", &err);
        cr_assert_not_null(w, "%s", err ? err->message : "");
        insee_jw_begin_object(w);
        insee_jw_end_object(w);
        cr_assert(insee_jw_close(w, &err), "%s", err ? err->message : "");
        cr_assert(g_file_get_contents(path, &text, NULL, NULL));
        cr_assert_str_eq(text, "{}");
        g_free(text);
        assert_only(dir, "out.json");
        g_unlink(path);
        g_rmdir(dir);
        g_free(path);
        g_free(dir);
    }
}
