/* tests/plugin/test_describe.c — `insee plugins list` / `plugins info`
 * output: content, order, and JSON that a strict parser accepts. */
#include <criterion/criterion.h>
#include <string.h>

#include "plugin/describe.h"
#include "plugin_test.h"

/* ---- a strict JSON checker (RFC 8259 grammar, no extensions) ------------- */

static const char *json_value(const char *s);

static const char *json_ws(const char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
        s++;
    return s;
}

static const char *json_string(const char *s)
{
    if (*s++ != '"')
        return NULL;
    for (; *s != '"'; s++) {
        if ((unsigned char)*s < 0x20)
            return NULL; /* includes the terminator: unterminated string */
        if (*s == '\\') {
            s++;
            if (*s == 'u') {
                for (int i = 1; i <= 4; i++)
                    if (!g_ascii_isxdigit(s[i]))
                        return NULL;
                s += 4;
            } else if (!strchr("\"\\/bfnrt", *s) || !*s) {
                return NULL;
            }
        }
    }
    return s + 1;
}

static const char *json_number(const char *s)
{
    if (*s == '-')
        s++;
    if (*s == '0')
        s++;
    else if (g_ascii_isdigit(*s))
        while (g_ascii_isdigit(*s))
            s++;
    else
        return NULL;
    if (*s == '.') {
        if (!g_ascii_isdigit(*++s))
            return NULL;
        while (g_ascii_isdigit(*s))
            s++;
    }
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '+' || *s == '-')
            s++;
        if (!g_ascii_isdigit(*s))
            return NULL;
        while (g_ascii_isdigit(*s))
            s++;
    }
    return s;
}

/* Elements of an object (pairs) or array (values) up to `close`. */
static const char *json_members(const char *s, char close, gboolean pairs)
{
    s = json_ws(s + 1);
    if (*s == close)
        return s + 1;
    for (;;) {
        if (pairs) {
            s = json_string(s);
            if (!s || *(s = json_ws(s)) != ':')
                return NULL;
            s++;
        }
        s = json_value(s);
        if (!s)
            return NULL;
        s = json_ws(s);
        if (*s == close)
            return s + 1;
        if (*s != ',')
            return NULL;
        s = json_ws(s + 1);
    }
}

static const char *json_value(const char *s)
{
    s = json_ws(s);
    switch (*s) {
    case '{': return json_members(s, '}', TRUE);
    case '[': return json_members(s, ']', FALSE);
    case '"': return json_string(s);
    case 't': return strncmp(s, "true", 4) == 0 ? s + 4 : NULL;
    case 'f': return strncmp(s, "false", 5) == 0 ? s + 5 : NULL;
    case 'n': return strncmp(s, "null", 4) == 0 ? s + 4 : NULL;
    default: return json_number(s);
    }
}

static gboolean json_valid(const char *s)
{
    const char *end = json_value(s);
    return end && *json_ws(end) == '\0';
}

Test(json_checker, accepts_and_rejects)
{
    cr_assert(json_valid("{\"a\": [1, -2.5e3, true, null, \"x\\u00e9\\n\"], \"b\": {}}"));
    cr_assert_not(json_valid("{\"a\": 1,}"));
    cr_assert_not(json_valid("{\"a\": \"tab\there\"}"));
    cr_assert_not(json_valid("[01]"));
    cr_assert_not(json_valid("{\"a\": inf}"));
}

/* ---- describe ------------------------------------------------------------ */

static char *describe(const insee_plugin *p, gboolean json)
{
    GString *out = g_string_new(NULL);
    insee_plugin_describe(p, json, out);
    return g_string_free(out, FALSE);
}

#define assert_has(text, needle)                                                             \
    cr_assert(strstr(text, needle), "expected \"%s\" in:\n%s", needle, text)

Test(describe, json_lists_every_parameter)
{
    insee_registry *reg = scan_dirs(MIXED_DIR, NULL);
    char *json = describe(insee_registry_find_any(reg, "fixture-good"), TRUE);
    cr_assert(json_valid(json), "invalid JSON:\n%s", json);
    assert_has(json, "\"name\": \"fixture-good\"");
    assert_has(json, "\"kind\": \"arbiter\"");
    assert_has(json, "\"version\": \"1.2.3\"");
    char *abi = g_strdup_printf("\"abi\": \"%u.%u\"", INSEE_ABI_MAJOR, INSEE_ABI_MINOR);
    assert_has(json, abi);
    g_free(abi);
    assert_has(json, "\"reference\": \"test fixture §0\"");
    assert_has(json, "\"path\": \"" MIXED_DIR "/good.so\"");
    assert_has(json, "\"refused\": false");
    assert_has(json, "\"reason\": null");
    assert_has(json, "{\"name\": \"weight\", \"type\": \"int\", \"default\": \"1\", "
                     "\"required\": false, \"min\": 0, \"max\": 10, \"choices\": null, "
                     "\"unit\": \"packets\", "
                     "\"doc\": \"how often \\\"this\\\" input\\\\wins\\tfirst\"}");
    assert_has(json, "{\"name\": \"mode\", \"type\": \"enum\", \"default\": \"\\\"fast\\\"\", "
                     "\"required\": false, \"min\": null, \"max\": null, "
                     "\"choices\": [\"fast\", \"slow\"]");
    assert_has(json, "{\"name\": \"cap\", \"type\": \"double\", \"default\": null, "
                     "\"required\": true, \"min\": 0, \"max\": 0.5");
    assert_has(json, "{\"name\": \"sizes\", \"type\": \"int_list\"");
    assert_has(json, "{\"name\": \"verbose\", \"type\": \"bool\", \"default\": \"false\", "
                     "\"required\": false, \"min\": null, \"max\": null, \"choices\": null, "
                     "\"unit\": null, \"doc\": null}");
    /* Stable key order. */
    const char *keys[] = {"\"name\"", "\"kind\"", "\"version\"", "\"abi\"", "\"summary\"",
                          "\"reference\"", "\"path\"", "\"refused\"", "\"reason\"",
                          "\"parameters\""};
    for (size_t i = 1; i < G_N_ELEMENTS(keys); i++)
        cr_assert_lt(strstr(json, keys[i - 1]), strstr(json, keys[i]), "%s after %s", keys[i - 1],
                     keys[i]);
    g_free(json);
    insee_registry_free(reg);
}

Test(describe, json_of_refused_and_parameterless_plugins)
{
    insee_registry *reg = scan_dirs(MIXED_DIR, NULL);
    char *json = describe(entry_for(reg, MIXED_DIR, "abi-major.so"), TRUE);
    cr_assert(json_valid(json), "invalid JSON:\n%s", json);
    assert_has(json, "\"name\": null");
    assert_has(json, "\"kind\": null");
    assert_has(json, "\"abi\": null");
    assert_has(json, "\"refused\": true");
    assert_has(json, "\"reason\": \"abi-major.so: built for");
    assert_has(json, "\"parameters\": []");
    g_free(json);

    json = describe(insee_registry_find_any(reg, "fixture-dup"), TRUE);
    cr_assert(json_valid(json), "invalid JSON:\n%s", json);
    assert_has(json, "\"parameters\": []");
    g_free(json);
    insee_registry_free(reg);
}

Test(describe, text_is_the_plugin_manual)
{
    insee_registry *reg = scan_dirs(MIXED_DIR, NULL);
    char *text = describe(insee_registry_find_any(reg, "fixture-good"), FALSE);
    assert_has(text, "name:      fixture-good\n");
    assert_has(text, "kind:      arbiter\n");
    assert_has(text, "version:   1.2.3\n");
    char *abi = g_strdup_printf("ABI:       %u.%u\n", INSEE_ABI_MAJOR, INSEE_ABI_MINOR);
    assert_has(text, abi);
    g_free(abi);
    assert_has(text, "summary:   always grants the first request (café)\n");
    assert_has(text, "reference: test fixture §0\n");
    assert_has(text, "path:      " MIXED_DIR "/good.so\n");
    assert_has(text, "  weight (int, default 1, range [0, 10], unit packets)\n"
                     "      how often \"this\" input\\wins\tfirst\n");
    assert_has(text, "  mode (enum, default \"fast\", choices fast|slow)\n");
    assert_has(text, "  cap (double, required, range [0, 0.5], unit phits/node/cycle)\n");
    assert_has(text, "  verbose (bool, default false)\n");
    g_free(text);

    text = describe(entry_for(reg, MIXED_DIR, "no-pick.so"), FALSE);
    assert_has(text, "name:      fixture-no-pick\n");
    assert_has(text, "refused:   no-pick.so: required entry 'pick'");
    g_free(text);

    text = describe(insee_registry_find_any(reg, "fixture-dup"), FALSE);
    assert_has(text, "parameters: none\n");
    g_free(text);
    insee_registry_free(reg);
}

Test(describe, list_sorts_usable_by_kind_then_shows_refused)
{
    insee_registry *reg = scan_dirs(KINDS_DIR, MIXED_DIR);
    GString *out = g_string_new(NULL);
    insee_registry_describe_list(reg, out);
    const char *s = out->str;
    cr_assert(g_str_has_prefix(s, "KIND "), "%s", s);
    /* Kind order first, then names within a kind. */
    const char *order[] = {"kind-topology", "kind-router", "fixture-dup", "fixture-good",
                           "fixture-short-ok", "kind-arbiter", "kind-traffic", "kind-placement",
                           "kind-bridge", "\nrefused ("};
    for (size_t i = 1; i < G_N_ELEMENTS(order); i++) {
        assert_has(s, order[i]);
        cr_assert_lt(strstr(s, order[i - 1]), strstr(s, order[i]), "%s after %s", order[i - 1],
                     order[i]);
    }
    assert_has(s, "1.2.3");
    assert_has(s, "always grants the first request (café)");
    assert_has(s, "  " MIXED_DIR "/abi-major.so\n      abi-major.so: built for insee plugin ABI");
    assert_has(s, "dup-b.so: shadowed by " MIXED_DIR "/dup-a.so");
    /* Columns line up even after a multi-byte character: every row's path
       starts in the same column as the PATH title. */
    const char *title = strstr(s, "PATH");
    glong column = g_utf8_strlen(s, title - s);
    for (const char *line = strchr(s, '\n') + 1; *line != '\n'; line = strchr(line, '\n') + 1) {
        const char *path = strchr(line, '/');
        cr_assert_eq(g_utf8_strlen(line, path - line), column, "misaligned: %.60s", line);
    }
    g_string_free(out, TRUE);
    insee_registry_free(reg);
}

Test(describe, list_without_plugins)
{
    insee_registry *reg = insee_registry_new();
    GString *out = g_string_new(NULL);
    insee_registry_describe_list(reg, out);
    cr_assert_str_eq(out->str, "no usable plugins\n");
    g_string_free(out, TRUE);
    insee_registry_free(reg);
}
