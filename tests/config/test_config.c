/* tests/config/test_config.c — the configuration room (kernel/config).
 *
 * Each test feeds a small TOML text (line and column numbers in the
 * assertions are counted from the text right above them) and checks either
 * the bound values or the error: its code, its position and the words that
 * tell the user what to do.
 */
#include "config/config.h"

#include <criterion/criterion.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- parameter tables standing in for plugins ---------------------------- */

enum { TORUS_DIMS, TORUS_WRAP };
static const insee_param_def torus_params[] = {
    {.name = "dims", .type = INSEE_PARAM_INT_LIST, .default_value = "[8, 8]", .min = 1, .max = 1024,
     .doc = "routers per dimension"},
    {.name = "wrap", .type = INSEE_PARAM_BOOL, .default_value = "true", .min = 1, .max = 0,
     .doc = "wrap-around links"},
    {.name = NULL},
};

enum { ROUTER_VCS, ROUTER_REQUEST, ROUTER_QUEUE, ROUTER_LABEL };
static const insee_param_def router_params[] = {
    {.name = "vcs", .type = INSEE_PARAM_INT, .default_value = "2", .min = 1, .max = 16, .doc = "virtual channels"},
    {.name = "request", .type = INSEE_PARAM_ENUM, .default_value = "\"trc\"", .min = 1, .max = 0,
     .choices = "trc|basic|improved|adaptive", .doc = "routing request"},
    {.name = "queue_packets", .type = INSEE_PARAM_INT, .default_value = NULL, .min = 1, .max = 1024,
     .doc = "queue capacity"},
    {.name = "label", .type = INSEE_PARAM_STRING, .default_value = "\"r\"", .min = 1, .max = 0, .doc = "a name"},
    {.name = NULL},
};

enum { TRAFFIC_LOAD };
static const insee_param_def traffic_params[] = {
    {.name = "load", .type = INSEE_PARAM_DOUBLE, .default_value = "0.5", .min = 0, .max = 1,
     .doc = "phits/node/cycle"},
    {.name = NULL},
};

static insee_config *load(const char *text)
{
    GError *err = NULL;
    insee_config *cfg = insee_config_load_string(text, "exp.toml", &err);
    cr_assert_not_null(cfg, "load failed: %s", err ? err->message : "?");
    return cfg;
}

static gboolean bind1(insee_config *cfg, const char *section, const insee_param_def *defs, const char *owner,
                      insee_binding *b, GError **err)
{
    *b = (insee_binding){.defs = defs, .owner = owner};
    return insee_config_bind(cfg, section, b, 1, err);
}

/* The error exists, has `code`, and its message holds every fragment. */
static void expect_error(GError *err, int code, const char *const *fragments)
{
    cr_assert_not_null(err, "expected an error");
    cr_expect_eq(err->domain, INSEE_CONFIG_ERROR, "wrong domain: %s", err->message);
    cr_expect_eq(err->code, code, "wrong code %d: %s", err->code, err->message);
    for (const char *const *f = fragments; *f; f++)
        cr_expect(strstr(err->message, *f), "'%s' missing from: %s", *f, err->message);
    g_error_free(err);
}
#define EXPECT_ERROR(err, code, ...) expect_error((err), (code), (const char *const[]){__VA_ARGS__, NULL})

/* Bind `text`'s [section] against `defs` and expect an INVALID error. */
static void expect_bind_error(const char *text, const char *section, const insee_param_def *defs,
                              const char *owner, const char *const *fragments)
{
    insee_config *cfg = load(text);
    insee_binding b;
    GError *err = NULL;
    cr_assert_not(bind1(cfg, section, defs, owner, &b, &err));
    cr_expect_null(b.values, "values must be NULL after a failed bind");
    expect_error(err, INSEE_CONFIG_ERROR_INVALID, fragments);
    insee_config_free(cfg);
}
#define EXPECT_BIND_ERROR(text, section, defs, owner, ...)                                                    \
    expect_bind_error((text), (section), (defs), (owner), (const char *const[]){__VA_ARGS__, NULL})

/* ---- bind: errors ---------------------------------------------------------- */

Test(bind, unknown_key_suggests_nearest)
{
    EXPECT_BIND_ERROR("[topology]\nplugin = \"torus\"\ndimz = [8, 8]\n", "topology", torus_params,
                      "topology plugin 'torus'", "exp.toml:3:1", "topology.dimz", "topology plugin 'torus'",
                      "did you mean 'dims'?");
}

Test(bind, unknown_key_far_from_everything_lists_valid_keys)
{
    insee_config *cfg = load("[topology]\nzzzzzzzz = 1\n");
    insee_binding b;
    GError *err = NULL;
    cr_assert_not(bind1(cfg, "topology", torus_params, "topology plugin 'torus'", &b, &err));
    cr_expect_null(strstr(err->message, "did you mean"), "no suggestion expected: %s", err->message);
    EXPECT_ERROR(err, INSEE_CONFIG_ERROR_INVALID, "exp.toml:2:1", "valid keys: plugin, dims, wrap");
    insee_config_free(cfg);
}

Test(bind, unknown_key_candidates_span_all_bindings)
{
    static const insee_param_def kernel_params[] = {
        {.name = "queue_capacity", .type = INSEE_PARAM_INT, .default_value = "4", .min = 1, .max = 0},
        {.name = NULL},
    };
    insee_config *cfg = load("[router]\nqueue_packets = 4\nqueue_capacty = 8\n");
    insee_binding b[2] = {{.defs = kernel_params, .owner = "the kernel"},
                          {.defs = router_params, .owner = "router plugin 'dally'"}};
    GError *err = NULL;
    cr_assert_not(insee_config_bind(cfg, "router", b, 2, &err));
    EXPECT_ERROR(err, INSEE_CONFIG_ERROR_INVALID, "exp.toml:3:1", "router.queue_capacty",
                 "the kernel and router plugin 'dally'", "did you mean 'queue_capacity'?");
    insee_config_free(cfg);
}

Test(bind, wrong_type_names_position_and_expected_type)
{
    /* "dims = " is 7 characters: the value starts at column 8. */
    EXPECT_BIND_ERROR("[topology]\ndims = \"8x8\"\n", "topology", torus_params, "topology plugin 'torus'",
                      "exp.toml:2:8", "topology.dims", "topology plugin 'torus'", "must be an array of integers",
                      "the string \"8x8\"", "dims = [8, 8]");
}

Test(bind, bool_needs_a_toml_bool)
{
    EXPECT_BIND_ERROR("[topology]\nwrap = 1\n", "topology", torus_params, "topology plugin 'torus'",
                      "exp.toml:2:8", "topology.wrap", "must be a boolean", "not an integer");
}

Test(bind, int_rejects_float)
{
    EXPECT_BIND_ERROR("[router]\nqueue_packets = 4\nvcs = 2.5\n", "router", router_params,
                      "router plugin 'dally'", "exp.toml:3:7", "router.vcs", "must be an integer",
                      "not a floating-point number");
}

Test(bind, string_rejects_number)
{
    EXPECT_BIND_ERROR("[router]\nqueue_packets = 4\nlabel = 3\n", "router", router_params,
                      "router plugin 'dally'", "exp.toml:3:9", "router.label", "must be a string");
}

Test(bind, int_out_of_range)
{
    EXPECT_BIND_ERROR("[router]\nqueue_packets = 4\nvcs = 17\n", "router", router_params,
                      "router plugin 'dally'", "exp.toml:3:7", "router.vcs", "is 17, outside [1, 16]",
                      "use a value from 1 to 16");
}

Test(bind, double_out_of_range)
{
    EXPECT_BIND_ERROR("[traffic]\nload = 1.5\n", "traffic", traffic_params, "traffic plugin 'uniform'",
                      "exp.toml:2:8", "traffic.load", "is 1.5, outside [0, 1]");
}

Test(bind, double_nan_is_out_of_range)
{
    EXPECT_BIND_ERROR("[traffic]\nload = nan\n", "traffic", traffic_params, "traffic plugin 'uniform'",
                      "exp.toml:2:8", "is nan, outside [0, 1]");
}

Test(bind, list_item_out_of_range_points_at_the_item)
{
    /* "dims = [8, 0]": the 0 is column 12. */
    EXPECT_BIND_ERROR("[topology]\ndims = [8, 0]\n", "topology", torus_params, "topology plugin 'torus'",
                      "exp.toml:2:12", "topology.dims", "item 2 is 0, outside [1, 1024]");
}

Test(bind, list_item_of_wrong_type)
{
    EXPECT_BIND_ERROR("[topology]\ndims = [8, \"8\"]\n", "topology", torus_params, "topology plugin 'torus'",
                      "exp.toml:2:12", "item 2 must be an integer");
}

Test(bind, enum_not_among_choices_lists_them_and_suggests)
{
    EXPECT_BIND_ERROR("[router]\nqueue_packets = 4\nrequest = \"adaptiv\"\n", "router", router_params,
                      "router plugin 'dally'", "exp.toml:3:11", "router.request", "router plugin 'dally'",
                      "not one of \"trc\", \"basic\", \"improved\", \"adaptive\"", "did you mean \"adaptive\"?");
}

Test(bind, missing_required_key_names_key_and_owner)
{
    EXPECT_BIND_ERROR("[simulation]\nseed = 1\n\n[router]\nvcs = 4\n", "router", router_params,
                      "router plugin 'dally'", "exp.toml:4:1", "missing required key 'router.queue_packets'",
                      "router plugin 'dally'", "queue_packets = 1");
}

Test(bind, missing_required_key_without_section_names_the_file)
{
    EXPECT_BIND_ERROR("[simulation]\nseed = 1\n", "router", router_params, "router plugin 'dally'",
                      "exp.toml: missing required key 'router.queue_packets'", "add it under [router]");
}

Test(bind, section_that_is_not_a_table)
{
    EXPECT_BIND_ERROR("topology = \"torus\"\n", "topology", torus_params, "topology plugin 'torus'",
                      "exp.toml:1:1", "'topology' must be a table", "not the string \"torus\"");
}

Test(bind, plugin_key_must_be_a_string)
{
    EXPECT_BIND_ERROR("[topology]\nplugin = 3\n", "topology", torus_params, "topology plugin 'torus'",
                      "exp.toml:2:10", "topology.plugin must be a string");
}

Test(bind, date_is_no_parameter_value)
{
    EXPECT_BIND_ERROR("[router]\nqueue_packets = 1979-05-27\n", "router", router_params,
                      "router plugin 'dally'", "exp.toml:2:17", "must be an integer, not a date/time");
}

/* ---- bind: values ---------------------------------------------------------- */

Test(bind, values_in_table_order)
{
    insee_config *cfg = load("[router]\nplugin = \"dally\"\nlabel = \"east\"\nrequest = \"improved\"\n"
                             "queue_packets = 6\nvcs = 3\n");
    insee_binding b;
    GError *err = NULL;
    cr_assert(bind1(cfg, "router", router_params, "router plugin 'dally'", &b, &err), "%s",
              err ? err->message : "");
    cr_expect_eq(b.values[ROUTER_VCS].type, INSEE_PARAM_INT);
    cr_expect_eq(b.values[ROUTER_VCS].i, 3);
    cr_expect_float_eq(b.values[ROUTER_VCS].d, 3.0, 1e-12, "INT is mirrored in d");
    cr_expect_eq(b.values[ROUTER_REQUEST].type, INSEE_PARAM_ENUM);
    cr_expect_eq(b.values[ROUTER_REQUEST].i, 2, "index of \"improved\"");
    cr_expect_str_eq(b.values[ROUTER_REQUEST].s, "improved");
    cr_expect_eq(b.values[ROUTER_QUEUE].i, 6);
    cr_expect_str_eq(b.values[ROUTER_LABEL].s, "east");
    insee_config_free(cfg);
}

Test(bind, defaults_applied_when_keys_or_section_absent)
{
    insee_config *cfg = load("[router]\nqueue_packets = 4\n");
    insee_binding r, t, tr;
    GError *err = NULL;
    cr_assert(bind1(cfg, "router", router_params, "router plugin 'dally'", &r, &err));
    cr_expect_eq(r.values[ROUTER_VCS].i, 2);
    cr_expect_eq(r.values[ROUTER_REQUEST].i, 0);
    cr_expect_str_eq(r.values[ROUTER_REQUEST].s, "trc");
    cr_expect_str_eq(r.values[ROUTER_LABEL].s, "r");
    cr_assert(bind1(cfg, "topology", torus_params, "topology plugin 'torus'", &t, &err));
    cr_assert_eq(t.values[TORUS_DIMS].list_len, 2);
    cr_expect_eq(t.values[TORUS_DIMS].list[0], 8);
    cr_expect_eq(t.values[TORUS_DIMS].list[1], 8);
    cr_expect(t.values[TORUS_WRAP].b);
    cr_assert(bind1(cfg, "traffic", traffic_params, "traffic plugin 'uniform'", &tr, &err));
    cr_expect_float_eq(tr.values[TRAFFIC_LOAD].d, 0.5, 1e-12);
    insee_config_free(cfg);
}

Test(bind, double_accepts_integer)
{
    insee_config *cfg = load("[traffic]\nload = 1\n");
    insee_binding b;
    cr_assert(bind1(cfg, "traffic", traffic_params, "traffic plugin 'uniform'", &b, NULL));
    cr_expect_eq(b.values[TRAFFIC_LOAD].type, INSEE_PARAM_DOUBLE);
    cr_expect_float_eq(b.values[TRAFFIC_LOAD].d, 1.0, 1e-12);
    insee_config_free(cfg);
}

Test(bind, empty_list_is_a_list)
{
    insee_config *cfg = load("[topology]\ndims = []\n");
    insee_binding b;
    cr_assert(bind1(cfg, "topology", torus_params, "topology plugin 'torus'", &b, NULL));
    cr_expect_eq(b.values[TORUS_DIMS].list_len, 0);
    insee_config_free(cfg);
}

Test(bind, no_bindings_accepts_only_plugin)
{
    insee_config *cfg = load("[arbiter]\nplugin = \"round-robin\"\n");
    GError *err = NULL;
    cr_expect(insee_config_bind(cfg, "arbiter", NULL, 0, &err));
    insee_config_free(cfg);
    EXPECT_BIND_ERROR("[arbiter]\nplugin = \"round-robin\"\nweight = 2\n", "arbiter", NULL, "arbiter plugin",
                      "exp.toml:3:1", "arbiter.weight", "valid keys: plugin");
}

Test(bind, unchecked_bad_default_is_reported_not_crashed)
{
    static const insee_param_def bad[] = {
        {.name = "vcs", .type = INSEE_PARAM_INT, .default_value = "0", .min = 1, .max = 16},
        {.name = NULL},
    };
    EXPECT_BIND_ERROR("[router]\n", "router", bad, "router plugin 'x'", "router plugin 'x'",
                      "default `0` of parameter 'vcs' is invalid", "outside [1, 16]");
}

/* ---- overrides ------------------------------------------------------------- */

Test(set, replaces_a_file_value)
{
    insee_config *cfg = load("[traffic]\nload = 0.3\n");
    GError *err = NULL;
    cr_assert(insee_config_set(cfg, "traffic.load=0.7", &err), "%s", err ? err->message : "");
    insee_binding b;
    cr_assert(bind1(cfg, "traffic", traffic_params, "traffic plugin 'uniform'", &b, &err));
    cr_expect_float_eq(b.values[TRAFFIC_LOAD].d, 0.7, 1e-12);
    insee_config_free(cfg);
}

Test(set, adds_keys_and_sections_and_takes_bare_words_as_strings)
{
    insee_config *cfg = load("");
    GError *err = NULL;
    cr_assert(insee_config_set(cfg, "router.plugin=dally", &err));
    cr_assert(insee_config_set(cfg, " router.queue_packets = 5 ", &err));
    cr_assert(insee_config_set(cfg, "router.request=\"basic\"", &err));
    cr_assert(insee_config_set(cfg, "topology.dims=[4, 4, 4]", &err));
    cr_expect(insee_config_has_section(cfg, "router"));
    const char *name = NULL;
    cr_assert(insee_config_plugin_name(cfg, "router", "bubble", &name, &err));
    cr_expect_str_eq(name, "dally");
    insee_binding r, t;
    cr_assert(bind1(cfg, "router", router_params, "router plugin 'dally'", &r, &err), "%s",
              err ? err->message : "");
    cr_expect_eq(r.values[ROUTER_QUEUE].i, 5);
    cr_expect_str_eq(r.values[ROUTER_REQUEST].s, "basic");
    cr_assert(bind1(cfg, "topology", torus_params, "topology plugin 'torus'", &t, &err));
    cr_expect_eq(t.values[TORUS_DIMS].list_len, 3);
    insee_config_free(cfg);
}

Test(set, bad_value_is_reported_with_the_override)
{
    insee_config *cfg = load("[traffic]\nload = 0.3\n");
    GError *err = NULL;
    cr_assert(insee_config_set(cfg, "traffic.load=abc", &err));
    insee_binding b;
    cr_assert_not(bind1(cfg, "traffic", traffic_params, "traffic plugin 'uniform'", &b, &err));
    EXPECT_ERROR(err, INSEE_CONFIG_ERROR_INVALID, "--set traffic.load=abc: traffic.load", "must be a number",
                 "the string \"abc\"");
    insee_config_free(cfg);
}

/* Digits no 64-bit integer holds: TOML cannot read them, yet they are no
   string to the user; the message says too large (or small) and the range. */
Test(set, integer_too_large_is_called_so_with_the_range)
{
    static const struct { const char *set, *says; } cases[] = {
        {"router.vcs=99999999999999999999999", "is 99999999999999999999999, too large for a 64-bit integer"},
        {"router.vcs=-9223372036854775809", "is -9223372036854775809, too small for a 64-bit integer"},
        {"router.vcs=+1_000_000_000_000_000_000_000", "too large for a 64-bit integer"},
    };
    for (size_t k = 0; k < G_N_ELEMENTS(cases); k++) {
        insee_config *cfg = load("[router]\nqueue_packets = 4\n");
        GError *err = NULL;
        cr_assert(insee_config_set(cfg, cases[k].set, &err));
        insee_binding b;
        cr_assert_not(bind1(cfg, "router", router_params, "router plugin 'dally'", &b, &err));
        EXPECT_ERROR(err, INSEE_CONFIG_ERROR_INVALID, cases[k].says, "outside [1, 16]; use a value from 1 to 16");
        insee_config_free(cfg);
    }
    /* Still a string when it is not all digits. */
    insee_config *cfg = load("[router]\nqueue_packets = 4\n");
    GError *err = NULL;
    cr_assert(insee_config_set(cfg, "router.vcs=99999999999999999999999x", &err));
    insee_binding b;
    cr_assert_not(bind1(cfg, "router", router_params, "router plugin 'dally'", &b, &err));
    EXPECT_ERROR(err, INSEE_CONFIG_ERROR_INVALID, "must be an integer, not the string");
    insee_config_free(cfg);
}

/* The same digits written in the file (toml++ refuses the document
   outright): the key, its position, too large and the range, as for an
   override; in a list too. A quoted "5" stays a string of the wrong type. */
Test(bind, integer_too_large_in_the_file_is_called_so_with_the_range)
{
    EXPECT_BIND_ERROR("[router]\nqueue_packets = 4\nvcs = 99999999999999999999999\n", "router",
                      router_params, "router plugin 'dally'", "exp.toml:3:7: router.vcs",
                      "is 99999999999999999999999, too large for a 64-bit integer",
                      "outside [1, 16]; use a value from 1 to 16");
    EXPECT_BIND_ERROR("[router]\nvcs = -9223372036854775809\nqueue_packets = 4\n", "router",
                      router_params, "router plugin 'dally'", "too small for a 64-bit integer");
    EXPECT_BIND_ERROR("[topology]\ndims = [8, 99999999999999999999]\n", "topology", torus_params,
                      "topology plugin 'torus'", "item 2 is 99999999999999999999, too large");
    EXPECT_BIND_ERROR("[router]\nvcs = \"5\"\n", "router", router_params, "router plugin 'dally'",
                      "must be an integer, not the string \"5\"");
}

Test(set, unknown_key_from_override_is_reported_with_the_override)
{
    insee_config *cfg = load("");
    GError *err = NULL;
    cr_assert(insee_config_set(cfg, "traffic.lod=0.3", &err));
    insee_binding b;
    cr_assert_not(bind1(cfg, "traffic", traffic_params, "traffic plugin 'uniform'", &b, &err));
    EXPECT_ERROR(err, INSEE_CONFIG_ERROR_INVALID, "--set traffic.lod=0.3", "did you mean 'load'?");
    insee_config_free(cfg);
}

Test(set, malformed_assignments_are_rejected)
{
    static const char *const bad[] = {"trafficload=0.3", "traffic.load", "traffic.load=", "a.b.c=1",
                                      ".load=1", "traffic.=1", "traf fic.load=1"};
    insee_config *cfg = load("");
    for (size_t k = 0; k < G_N_ELEMENTS(bad); k++) {
        GError *err = NULL;
        cr_expect_not(insee_config_set(cfg, bad[k], &err), "accepted '%s'", bad[k]);
        char *where = g_strdup_printf("--set %s", bad[k]);
        EXPECT_ERROR(err, INSEE_CONFIG_ERROR_PARSE, where);
        g_free(where);
    }
    insee_config_free(cfg);
}

Test(set, text_with_more_than_one_value_is_a_string)
{
    insee_config *cfg = load("");
    GError *err = NULL;
    cr_assert(insee_config_set(cfg, "router.label=1\ny = 2", &err));
    insee_binding b;
    cr_assert(insee_config_set(cfg, "router.queue_packets=1", &err));
    cr_assert(bind1(cfg, "router", router_params, "router plugin 'dally'", &b, &err), "%s",
              err ? err->message : "");
    cr_expect_str_eq(b.values[ROUTER_LABEL].s, "1\ny = 2");
    insee_config_free(cfg);
}

/* ---- documents --------------------------------------------------------------- */

Test(load, malformed_toml_gives_position_and_description)
{
    GError *err = NULL;
    /* line 2: "load = " then nothing — the value is missing at column 8. */
    insee_config *cfg = insee_config_load_string("[traffic]\nload = \n", "exp.toml", &err);
    cr_assert_null(cfg);
    EXPECT_ERROR(err, INSEE_CONFIG_ERROR_PARSE, "exp.toml:2:8", "invalid TOML", "value");
}

Test(load, duplicate_key_is_malformed)
{
    GError *err = NULL;
    insee_config *cfg = insee_config_load_string("[traffic]\nload = 1\nload = 2\n", "exp.toml", &err);
    cr_assert_null(cfg);
    EXPECT_ERROR(err, INSEE_CONFIG_ERROR_PARSE, "exp.toml:3:", "invalid TOML");
}

Test(load, file_positions_name_the_path)
{
    char *path = NULL;
    GError *err = NULL;
    int fd = g_file_open_tmp("insee-config-XXXXXX.toml", &path, &err);
    cr_assert_geq(fd, 0);
    close(fd);
    cr_assert(g_file_set_contents(path, "# experiment\n[topology]\ndimz = [8, 8]\n", -1, &err));
    insee_config *cfg = insee_config_load_file(path, &err);
    cr_assert_not_null(cfg, "%s", err ? err->message : "");
    insee_binding b;
    cr_assert_not(bind1(cfg, "topology", torus_params, "topology plugin 'torus'", &b, &err));
    char *where = g_strdup_printf("%s:3:1", path);
    EXPECT_ERROR(err, INSEE_CONFIG_ERROR_INVALID, where, "did you mean 'dims'?");
    g_free(where);
    insee_config_free(cfg);
    g_unlink(path);
    g_free(path);
}

Test(load, missing_file_is_an_io_error)
{
    GError *err = NULL;
    cr_assert_null(insee_config_load_file("/nonexistent/insee/exp.toml", &err));
    EXPECT_ERROR(err, INSEE_CONFIG_ERROR_IO, "/nonexistent/insee/exp.toml", "No such file", "check the path");
    err = NULL;
    cr_assert_null(insee_config_load_file("/", &err));
    EXPECT_ERROR(err, INSEE_CONFIG_ERROR_IO, "the configuration /: it is a directory");
}

/* A device that never ends is refused before anything is read. */
Test(load, devices_are_refused)
{
    GError *err = NULL;
    cr_assert_null(insee_config_load_file("/dev/zero", &err));
    EXPECT_ERROR(err, INSEE_CONFIG_ERROR_IO, "/dev/zero: it is a device or a socket, not a regular file");
}

Test(sections, unknown_section_suggests_known_one)
{
    static const char *const known[] = {"simulation", "topology", "router", NULL};
    insee_config *cfg = load("[simulation]\nseed = 1\n\n[topolgy]\nplugin = \"torus\"\n");
    GError *err = NULL;
    cr_assert_not(insee_config_check_sections(cfg, known, &err));
    /* The key of a header sits inside the brackets: column 2. */
    EXPECT_ERROR(err, INSEE_CONFIG_ERROR_INVALID, "exp.toml:4:2", "unknown section [topolgy]",
                 "did you mean [topology]?");
    insee_config_free(cfg);
}

Test(sections, known_sections_pass_and_has_section_answers)
{
    static const char *const known[] = {"simulation", "topology", NULL};
    insee_config *cfg = load("[simulation]\nseed = 1\n");
    GError *err = NULL;
    cr_expect(insee_config_check_sections(cfg, known, &err));
    cr_expect(insee_config_has_section(cfg, "simulation"));
    cr_expect_not(insee_config_has_section(cfg, "topology"));
    insee_config_free(cfg);
}

Test(sections, plugin_name_fallback_and_type)
{
    insee_config *cfg = load("[router]\nplugin = \"bubble\"\n[topology]\nplugin = [1]\n");
    const char *name = NULL;
    GError *err = NULL;
    cr_assert(insee_config_plugin_name(cfg, "router", "dally", &name, &err));
    cr_expect_str_eq(name, "bubble");
    cr_assert(insee_config_plugin_name(cfg, "traffic", "uniform", &name, &err));
    cr_expect_str_eq(name, "uniform");
    cr_assert(insee_config_plugin_name(cfg, "arbiter", NULL, &name, &err));
    cr_expect_null(name);
    cr_assert_not(insee_config_plugin_name(cfg, "topology", "torus", &name, &err));
    EXPECT_ERROR(err, INSEE_CONFIG_ERROR_INVALID, "exp.toml:4:10", "topology.plugin must be a string");
    insee_config_free(cfg);
}

/* ---- echo ------------------------------------------------------------------ */

/* Bind the three test sections of `cfg` and return their values in b[3]. */
static void bind_all(insee_config *cfg, insee_binding b[3])
{
    GError *err = NULL;
    const char *name;
    cr_assert(insee_config_plugin_name(cfg, "router", "dally", &name, &err));
    cr_assert(bind1(cfg, "router", router_params, "router plugin 'dally'", &b[0], &err), "%s",
              err ? err->message : "");
    cr_assert(bind1(cfg, "topology", torus_params, "topology plugin 'torus'", &b[1], &err), "%s",
              err ? err->message : "");
    cr_assert(bind1(cfg, "traffic", traffic_params, "traffic plugin 'uniform'", &b[2], &err), "%s",
              err ? err->message : "");
}

Test(echo, exact_text_for_a_small_config)
{
    insee_config *cfg = load("[traffic]\nplugin = \"uniform\"\nload = 1\n");
    insee_binding b;
    cr_assert(bind1(cfg, "traffic", traffic_params, "traffic plugin 'uniform'", &b, NULL));
    char *text = insee_config_echo(cfg);
    cr_expect_str_eq(text, "[traffic]\nplugin = \"uniform\"\nload = 1.0\n");
    g_free(text);
    insee_config_free(cfg);
}

Test(echo, round_trips_values_and_text)
{
    insee_config *cfg = load("[topology]\ndims = [4, 1024, 3]\nwrap = false\n"
                             "[router]\nqueue_packets = 7\nlabel = \"a \\\"q\\\" \\\\ \\t b\"\n"
                             "[traffic]\nload = 0.1\n");
    GError *err = NULL;
    cr_assert(insee_config_set(cfg, "traffic.load=3e-7", &err));
    insee_binding first[3], again[3];
    bind_all(cfg, first);
    char *text = insee_config_echo(cfg);
    /* Sections in bind order; the plugin resolved by fallback is written too. */
    cr_expect(g_str_has_prefix(text, "[router]\nplugin = \"dally\"\nvcs = 2\nrequest = \"trc\"\n"), "%s", text);
    cr_expect(strstr(text, "load = 3e-07\n"), "%s", text);

    insee_config *back = insee_config_load_string(text, "<echo>", &err);
    cr_assert_not_null(back, "echo is not TOML: %s\n%s", err ? err->message : "", text);
    bind_all(back, again);
    cr_expect_eq(again[0].values[ROUTER_VCS].i, first[0].values[ROUTER_VCS].i);
    cr_expect_eq(again[0].values[ROUTER_REQUEST].i, first[0].values[ROUTER_REQUEST].i);
    cr_expect_eq(again[0].values[ROUTER_QUEUE].i, 7);
    cr_expect_str_eq(again[0].values[ROUTER_LABEL].s, "a \"q\" \\ \t b");
    cr_assert_eq(again[1].values[TORUS_DIMS].list_len, 3);
    cr_expect_eq(again[1].values[TORUS_DIMS].list[1], 1024);
    cr_expect_not(again[1].values[TORUS_WRAP].b);
    cr_expect(again[2].values[TRAFFIC_LOAD].d == first[2].values[TRAFFIC_LOAD].d, "double must round-trip");
    char *text_again = insee_config_echo(back);
    cr_expect_str_eq(text_again, text, "echo of the echo must be byte-identical");
    g_free(text_again);
    insee_config_free(back);
    g_free(text);
    insee_config_free(cfg);
}

Test(echo, rebinding_a_section_replaces_its_echo)
{
    insee_config *cfg = load("[traffic]\nload = 0.25\n");
    insee_binding b;
    cr_assert(bind1(cfg, "traffic", traffic_params, "traffic plugin 'uniform'", &b, NULL));
    cr_assert(insee_config_set(cfg, "traffic.load=0.75", NULL));
    cr_assert(bind1(cfg, "traffic", traffic_params, "traffic plugin 'uniform'", &b, NULL));
    char *text = insee_config_echo(cfg);
    cr_expect_str_eq(text, "[traffic]\nload = 0.75\n");
    g_free(text);
    insee_config_free(cfg);
}

/* ---- parameter tables ------------------------------------------------------- */

static void expect_table_error(const insee_param_def *defs, const char *const *fragments)
{
    GError *err = NULL;
    cr_assert_not(insee_params_check_table(defs, "router plugin 'x'", &err));
    expect_error(err, INSEE_CONFIG_ERROR_INVALID, fragments);
}
#define EXPECT_TABLE_ERROR(defs, ...) expect_table_error((defs), (const char *const[]){__VA_ARGS__, NULL})

Test(params, good_tables_pass)
{
    GError *err = NULL;
    cr_expect(insee_params_check_table(router_params, "router plugin 'dally'", &err), "%s",
              err ? err->message : "");
    cr_expect(insee_params_check_table(torus_params, "topology plugin 'torus'", &err));
    cr_expect(insee_params_check_table(traffic_params, "traffic plugin 'uniform'", &err));
    cr_expect(insee_params_check_table(NULL, "arbiter plugin 'rr'", &err));
}

Test(params, duplicate_name)
{
    static const insee_param_def defs[] = {
        {.name = "vcs", .type = INSEE_PARAM_INT, .default_value = "2", .min = 1, .max = 0},
        {.name = "depth", .type = INSEE_PARAM_INT, .default_value = "2", .min = 1, .max = 0},
        {.name = "vcs", .type = INSEE_PARAM_INT, .default_value = "3", .min = 1, .max = 0},
        {.name = NULL},
    };
    EXPECT_TABLE_ERROR(defs, "router plugin 'x'", "'vcs' is declared twice", "entries 1 and 3");
}

Test(params, default_out_of_range)
{
    static const insee_param_def defs[] = {
        {.name = "vcs", .type = INSEE_PARAM_INT, .default_value = "0", .min = 1, .max = 16},
        {.name = NULL},
    };
    EXPECT_TABLE_ERROR(defs, "router plugin 'x'", "'vcs'", "is 0, outside [1, 16]");
}

Test(params, default_not_toml)
{
    static const insee_param_def defs[] = {
        {.name = "label", .type = INSEE_PARAM_STRING, .default_value = "trc", .min = 1, .max = 0},
        {.name = NULL},
    };
    EXPECT_TABLE_ERROR(defs, "router plugin 'x'", "default `trc` of parameter 'label' is invalid");
}

Test(params, default_of_wrong_type)
{
    static const insee_param_def defs[] = {
        {.name = "load", .type = INSEE_PARAM_INT, .default_value = "0.5", .min = 1, .max = 0},
        {.name = NULL},
    };
    EXPECT_TABLE_ERROR(defs, "'load'", "must be an integer");
}

Test(params, default_not_among_choices)
{
    static const insee_param_def defs[] = {
        {.name = "request", .type = INSEE_PARAM_ENUM, .default_value = "\"tcr\"", .min = 1, .max = 0,
         .choices = "trc|basic"},
        {.name = NULL},
    };
    EXPECT_TABLE_ERROR(defs, "'request'", "not one of \"trc\", \"basic\"");
}

Test(params, bad_names_reserved_name_bad_type_and_empty_choices)
{
    static const insee_param_def upper[] = {{.name = "Vcs", .type = INSEE_PARAM_INT, .min = 1, .max = 0},
                                            {.name = NULL}};
    static const insee_param_def empty[] = {{.name = "", .type = INSEE_PARAM_INT, .min = 1, .max = 0},
                                            {.name = NULL}};
    static const insee_param_def plugin[] = {{.name = "plugin", .type = INSEE_PARAM_STRING, .min = 1, .max = 0},
                                             {.name = NULL}};
    static const insee_param_def type[] = {{.name = "x", .type = (insee_param_type)42, .min = 1, .max = 0},
                                           {.name = NULL}};
    static const insee_param_def nochoice[] = {{.name = "x", .type = INSEE_PARAM_ENUM, .min = 1, .max = 0},
                                               {.name = NULL}};
    static const insee_param_def hole[] = {
        {.name = "x", .type = INSEE_PARAM_ENUM, .min = 1, .max = 0, .choices = "a||b"}, {.name = NULL}};
    EXPECT_TABLE_ERROR(upper, "'Vcs'", "a-z, 0-9 and '_'");
    EXPECT_TABLE_ERROR(empty, "parameter 1 has an empty name");
    EXPECT_TABLE_ERROR(plugin, "'plugin' is reserved");
    EXPECT_TABLE_ERROR(type, "unknown type 42");
    EXPECT_TABLE_ERROR(nochoice, "ENUM parameter 'x'");
    EXPECT_TABLE_ERROR(hole, "\"a||b\"");
}

/* ---- suggestions ------------------------------------------------------------ */

Test(suggest, nearest_within_the_threshold)
{
    static const char *const keys[] = {"plugin", "dims", "wrap", "queue_packets"};
    cr_expect_str_eq(insee_suggest("dimz", keys, 4), "dims");
    cr_expect_str_eq(insee_suggest("wrpa", keys, 4), "wrap", "a transposition costs 2");
    cr_expect_str_eq(insee_suggest("queue_pakcets", keys, 4), "queue_packets");
    cr_expect_null(insee_suggest("bandwidth", keys, 4));
    /* The threshold is max(2, 3/3) = 2 and no key is within 2 edits of "xyz". */
    cr_expect_null(insee_suggest("xyz", keys, 4));
    cr_expect_null(insee_suggest("dims", keys, 0));
}

/* ---- relative paths --------------------------------------------------------- */

static const insee_param_def path_defs[] = {
    {.name = "file", .type = INSEE_PARAM_PATH, .default_value = "\"d.txt\"", .min = 1, .max = 0},
    {.name = NULL},
};

/* dir/sub/exp.toml holding `text`; the path of the file, newly allocated. */
static char *write_config(const char *dir, const char *text)
{
    char *sub = g_build_filename(dir, "sub", NULL);
    cr_assert_eq(g_mkdir_with_parents(sub, 0700), 0);
    char *path = g_build_filename(sub, "exp.toml", NULL);
    cr_assert(g_file_set_contents(path, text, -1, NULL));
    g_free(sub);
    return path;
}

/* A relative path written in a file is relative to that file's directory,
   whatever the working directory; one from --set or a default is not. */
Test(paths, relative_to_the_file_that_wrote_them)
{
    char *dir = g_dir_make_tmp("insee-config-XXXXXX", NULL);
    char *path = write_config(dir, "[t]\nfile = \"data/net.txt\"\n[u]\nfile = \"/abs/x\"\n"
                                   "[plugins]\ndirs = \"p\"\n");
    GError *err = NULL;
    insee_config *cfg = insee_config_load_file(path, &err);
    cr_assert_not_null(cfg, "%s", err ? err->message : "?");
    insee_binding b;
    cr_assert(bind1(cfg, "t", path_defs, "test", &b, NULL));
    char *want = g_build_filename(dir, "sub", "data", "net.txt", NULL);
    cr_assert_str_eq(b.values[0].s, want);
    cr_assert(bind1(cfg, "u", path_defs, "test", &b, NULL));
    cr_assert_str_eq(b.values[0].s, "/abs/x");
    cr_assert(bind1(cfg, "v", path_defs, "test", &b, NULL));
    cr_assert_str_eq(b.values[0].s, "d.txt", "a default stays as it is");
    char *dirs = g_build_filename(dir, "sub", "p", NULL);
    cr_assert_str_eq(insee_config_path(cfg, "plugins", "dirs", "p"), dirs);
    cr_assert(insee_config_set(cfg, "t.file=\"o.txt\"", NULL));
    cr_assert(bind1(cfg, "t", path_defs, "test", &b, NULL));
    cr_assert_str_eq(b.values[0].s, "o.txt", "an override stays relative to the working directory");
    insee_config_free(cfg);

    cfg = load("[t]\nfile = \"data/net.txt\"\n");
    cr_assert(bind1(cfg, "t", path_defs, "test", &b, NULL));
    cr_assert_str_eq(b.values[0].s, "data/net.txt", "a string has no directory");
    insee_config_free(cfg);
    g_free(dirs);
    g_free(want);
    g_remove(path);
    char *sub = g_path_get_dirname(path);
    g_rmdir(sub);
    g_rmdir(dir);
    g_free(sub);
    g_free(path);
    g_free(dir);
}

/* ---- the embedded default and overrides ------------------------------------- */

/* Changing a table's plugin drops the keys the default wrote for the old
   one, never those an override or a file wrote. */
Test(defaults, another_plugin_drops_the_default_keys_of_the_old_one)
{
    const char *text = "[traffic]\nplugin = \"uniform\"\nload = 0.3\n[router]\nplugin = \"bubble\"\n";
    GError *err = NULL;
    insee_config *cfg = insee_config_load_default(text, "<default>", &err);
    cr_assert_not_null(cfg);
    cr_assert(insee_config_set(cfg, "traffic.plugin=uniform", NULL));
    cr_assert(insee_config_has_key(cfg, "traffic", "load"), "the same plugin keeps them");
    cr_assert(insee_config_set(cfg, "traffic.plugin=trace", NULL));
    cr_assert(insee_config_set(cfg, "traffic.file=t.fsin", NULL));
    cr_assert(!insee_config_has_key(cfg, "traffic", "load"));
    cr_assert(insee_config_has_key(cfg, "traffic", "file"));
    cr_assert(insee_config_has_key(cfg, "router", "plugin"), "other tables keep theirs");
    insee_config_free(cfg);

    cfg = insee_config_load_default(text, "<default>", &err);
    cr_assert(insee_config_set(cfg, "traffic.load=0.5", NULL));
    cr_assert(insee_config_set(cfg, "traffic.plugin=hotspot", NULL));
    cr_assert(insee_config_has_key(cfg, "traffic", "load"), "an override's key stays");
    insee_config_free(cfg);

    cfg = load(text);
    cr_assert(insee_config_set(cfg, "traffic.plugin=trace", NULL));
    cr_assert(insee_config_has_key(cfg, "traffic", "load"), "a file's key stays");
    insee_config_free(cfg);
}

/* ---- what is no text --------------------------------------------------------- */

Test(load, nul_in_a_string_or_key_is_refused_at_its_position)
{
    GError *err = NULL;
    cr_assert_null(insee_config_load_string("[[application]]\nname = \"a\\u0000b\"\n", "exp.toml", &err));
    EXPECT_ERROR(err, INSEE_CONFIG_ERROR_PARSE, "exp.toml:2:8:", "a string holds a NUL character");
    err = NULL;
    cr_assert_null(insee_config_load_string("[t]\n\"k\\u0000\" = 1\n", "exp.toml", &err));
    EXPECT_ERROR(err, INSEE_CONFIG_ERROR_PARSE, "exp.toml:2:1:", "a key holds a NUL character");
}

/* `insee args...` under timeout(1): a read that blocks ends as status 124. */
static int run_bounded(const char *const *args, char **err)
{
    GPtrArray *argv = g_ptr_array_new();
    g_ptr_array_add(argv, (gpointer) "timeout");
    g_ptr_array_add(argv, (gpointer) "20");
    g_ptr_array_add(argv, (gpointer)INSEE_BIN);
    for (; *args; args++)
        g_ptr_array_add(argv, (gpointer)*args);
    g_ptr_array_add(argv, NULL);
    int wait = 0;
    cr_assert(g_spawn_sync(NULL, (char **)argv->pdata, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL,
                           NULL, NULL, NULL, err, &wait, NULL));
    g_ptr_array_free(argv, TRUE);
    return WIFEXITED(wait) ? WEXITSTATUS(wait) : 128 + WTERMSIG(wait);
}

/* A named FIFO nobody writes to, as the configuration or as a file a
   plugin reads, is refused at once instead of waiting for a writer. */
Test(load, a_fifo_is_refused_without_waiting)
{
    char *dir = g_dir_make_tmp("insee-config-XXXXXX", NULL);
    char *fifo = g_build_filename(dir, "fifo", NULL);
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    char *err = NULL;
    int status = run_bounded((const char *[]){"run", fifo, NULL}, &err);
    cr_assert_eq(status, 2, "status %d: %s", status, err);
    cr_assert(strstr(err, "it is a FIFO (named pipe)"), "%s", err);
    g_free(err);
    char *file = g_strdup_printf("topology.file=\"%s\"", fifo);
    status = run_bounded((const char *[]){"run", "--set", "topology.plugin=graph", "--set", file, NULL}, &err);
    cr_assert_neq(status, 124, "blocked on the FIFO: %s", err);
    cr_assert(strstr(err, "it is a FIFO (named pipe)"), "status %d: %s", status, err);
    g_free(err);
    g_free(file);
    g_remove(fifo);
    g_rmdir(dir);
    g_free(fifo);
    g_free(dir);
}
