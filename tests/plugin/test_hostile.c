/* tests/plugin/test_hostile.c — broken and hostile plugin files never take a
 * command down; a plugin an experiment uses that crashes, calls exit() or
 * hangs never passes for a success; the registry cache spares the usual
 * start-up the scanner and sees a changed file.
 *
 * Everything runs the real programs (commands.h), in scratch plugin
 * directories holding good.so next to a truncated copy of it, a copy marked
 * for another machine, and arbiters whose constructor crashes, calls exit()
 * or never returns, or whose entry function crashes. */
#include <criterion/criterion.h>
#include <glib/gstdio.h>
#include <string.h>
#include <utime.h>

#include "commands.h"

static gboolean contains(const char *haystack, const char *needle)
{
    return haystack && strstr(haystack, needle) != NULL;
}

/* How many times `needle` occurs in `haystack`. */
static guint count(const char *haystack, const char *needle)
{
    guint n = 0;
    for (const char *s = haystack; (s = strstr(s, needle)); s += strlen(needle))
        n++;
    return n;
}

/* The lines of `plugins list` for the refused file `file`: its path line
   and the reason under it. */
static char *refusal_of(const char *list, const scratch *s, const char *file)
{
    char *path = g_build_filename(s->plugins, file, NULL);
    char *line = g_strconcat("  ", path, "\n", NULL);
    const char *at = strstr(list, line);
    char *reason = NULL;
    if (at) {
        const char *start = at + strlen(line);
        const char *end = strchr(start, '\n');
        reason = g_strndup(start, end ? (gsize)(end - start) : strlen(start));
    }
    g_free(line);
    g_free(path);
    return reason;
}

static const struct {
    const char *file;
    const char *expect[2];
} hostile_reasons[] = {
    {"truncated.so", {"truncated: the file has", "copy or build it again"}},
    {"constructor-crash.so", {"crashed while being loaded (signal 11", "constructor"}},
    {"constructor-exit.so", {"called exit() while being loaded", "never end the process"}},
    {"constructor-hang.so", {"did not finish loading within " SCAN_TIMEOUT " s", NULL}},
    {"entry-crash.so", {"crashed while being loaded (signal 11", "entry function"}},
    {"foreign.so", {"an ELF shared object for ", "but this insee runs on"}},
};

Test(hostile, plugins_list_survives_every_broken_file_and_names_each)
{
    scratch s = scratch_new();
    scratch_hostile(&s);
    command c = command_run(&s, (const char *[]){INSEE_BIN, "--plugin-dir", s.plugins, "plugins",
                                                 "list", NULL},
                            NULL);
    cr_assert_eq(c.status, 0, "status %d, stderr: %s", c.status, c.err);
    cr_assert(contains(c.out, "fixture-good"), "%s", c.out);
    cr_assert(contains(c.out, "torus"), "the default directory is still there: %s", c.out);
    cr_assert(contains(c.out, "refused (6):"), "%s", c.out);
    for (size_t i = 0; i < G_N_ELEMENTS(hostile_reasons); i++) {
        char *reason = refusal_of(c.out, &s, hostile_reasons[i].file);
        cr_assert_not_null(reason, "%s is not listed as refused:\n%s", hostile_reasons[i].file,
                           c.out);
        cr_assert(g_str_has_prefix(g_strchug(reason), hostile_reasons[i].file), "%s", reason);
        for (size_t j = 0; j < 2 && hostile_reasons[i].expect[j]; j++)
            cr_assert(contains(reason, hostile_reasons[i].expect[j]), "%s: expected \"%s\" in: %s",
                      hostile_reasons[i].file, hostile_reasons[i].expect[j], reason);
        g_free(reason);
    }
    command_free(&c);
    /* The good plugin beside them is loaded and described. */
    c = command_run(&s, (const char *[]){INSEE_BIN, "--plugin-dir", s.plugins, "plugins", "info",
                                         "fixture-good", NULL},
                    NULL);
    cr_assert_eq(c.status, 0, "status %d, stderr: %s", c.status, c.err);
    cr_assert(contains(c.out, "  weight (int, default 1, range [0, 10]"), "%s", c.out);
    command_free(&c);
    scratch_free(&s);
}

Test(hostile, the_other_machine_is_named)
{
    scratch s = scratch_new();
    const char *machine = scratch_foreign(&s, "mixed", "good.so", "foreign.so");
    command c = command_run(&s, (const char *[]){INSEE_BIN, "--plugin-dir", s.plugins, "plugins",
                                                 "list", NULL},
                            NULL);
    cr_assert_eq(c.status, 0);
    char *reason = refusal_of(c.out, &s, "foreign.so");
    char *expect = g_strdup_printf("an ELF shared object for %s (64-bit, little-endian)", machine);
    cr_assert(contains(reason, expect), "%s", reason);
    cr_assert_not(contains(reason, "No such file"), "%s", reason);
    g_free(expect);
    g_free(reason);
    command_free(&c);
    scratch_free(&s);
}

Test(hostile, a_run_goes_on_and_each_refusal_is_noticed)
{
    scratch s = scratch_new();
    scratch_hostile(&s);
    command c = command_run(&s, (const char *[]){INSEE_BIN, "--plugin-dir", s.plugins, "run",
                                                 "--set", "simulation.warmup=0", "--set",
                                                 "simulation.cycles=200", NULL},
                            NULL);
    cr_assert_eq(c.status, 0, "status %d, stderr: %s", c.status, c.err);
    cr_assert(contains(c.out, "# results"), "%s", c.out);
    for (size_t i = 0; i < G_N_ELEMENTS(hostile_reasons); i++) {
        char *notice = g_strdup_printf("insee: notice: plugin %s/%s refused: ", s.plugins,
                                       hostile_reasons[i].file);
        cr_assert(contains(c.err, notice), "no \"%s\" in:\n%s", notice, c.err);
        g_free(notice);
    }
    command_free(&c);
    scratch_free(&s);
}

Test(hostile, a_run_that_names_a_refused_plugin_is_a_plugin_error)
{
    scratch s = scratch_new();
    scratch_hostile(&s);
    command c = command_run(&s, (const char *[]){INSEE_BIN, "--plugin-dir", s.plugins, "run",
                                                 "--set", "arbiter.plugin=fixture-constructor-crash",
                                                 NULL},
                            NULL);
    cr_assert_eq(c.status, 3, "status %d, stderr: %s", c.status, c.err);
    cr_assert(contains(c.err, "constructor-crash.so refused: crashed while being loaded"), "%s",
              c.err);
    cr_assert_str_empty(c.out);
    command_free(&c);
    scratch_free(&s);
}

Test(hostile, conform_survives_a_hostile_support_directory_and_refuses_each_file)
{
    scratch s = scratch_new();
    scratch_hostile(&s);
    command c = command_run(&s, (const char *[]){INSEE_CONFORM_BIN, "--plugin-dir", s.plugins,
                                                 PLUGIN_DIR "/arbiter-round-robin.so", NULL},
                            NULL);
    cr_assert_eq(c.status, 0, "status %d\n%s\n%s", c.status, c.out, c.err);
    cr_assert(contains(c.out, " 0 failed"), "%s", c.out);
    command_free(&c);
    for (size_t i = 0; i < G_N_ELEMENTS(hostile_reasons); i++) {
        char *path = g_build_filename(s.plugins, hostile_reasons[i].file, NULL);
        c = command_run(&s, (const char *[]){INSEE_CONFORM_BIN, path, NULL}, NULL);
        cr_assert_eq(c.status, 3, "%s: status %d\n%s", path, c.status, c.err);
        cr_assert(contains(c.err, "insee-conform: cannot load"), "%s", c.err);
        cr_assert(contains(c.err, hostile_reasons[i].expect[0]), "%s", c.err);
        command_free(&c);
        g_free(path);
    }
    scratch_free(&s);
}

/* ---- plugins an experiment uses ------------------------------------------ */

/* `insee run` with the hostile arbiter `name` (a fixture-create-* one). */
static command run_with_arbiter(const scratch *s, const char *file)
{
    scratch_copy(s, "hostile", file, NULL);
    char *name = g_strconcat("arbiter.plugin=fixture-", file, NULL);
    *strrchr(name, '.') = '\0';
    command c = command_run(s, (const char *[]){INSEE_BIN, "--plugin-dir", s->plugins, "run",
                                                "--set", name, NULL},
                            NULL);
    g_free(name);
    return c;
}

Test(hostile, exit_zero_in_create_is_a_plugin_error_naming_the_plugin)
{
    scratch s = scratch_new();
    command c = run_with_arbiter(&s, "create-exit.so");
    cr_assert_eq(c.status, 3, "status %d, stderr: %s", c.status, c.err);
    cr_assert(contains(c.err, "insee: error: arbiter plugin 'fixture-create-exit' ("), "%s", c.err);
    cr_assert(contains(c.err, "create-exit.so) called exit()"), "%s", c.err);
    cr_assert_not(contains(c.out, "# results"), "no report: %s", c.out);
    command_free(&c);
    scratch_free(&s);
}

Test(hostile, a_crash_in_create_names_the_plugin)
{
    scratch s = scratch_new();
    command c = run_with_arbiter(&s, "create-crash.so");
    /* Killed by the signal (or, under AddressSanitizer, its report's
       status 1): never 0. */
    cr_assert_neq(c.status, 0);
    cr_assert(contains(c.err, "insee: error: arbiter plugin 'fixture-create-crash' ("), "%s",
              c.err);
    cr_assert(contains(c.err, "crashed (signal 11)"), "%s", c.err);
    cr_assert_not(contains(c.out, "# results"), "no report: %s", c.out);
    command_free(&c);
    scratch_free(&s);
}

/* insee-conform on a fixture-create-* arbiter: it must exit 1 with the
   setup check arb.create failed for `why`. */
static command conform_fails_create(const scratch *s, const char *file, const char *timeout,
                                    const char *why)
{
    scratch_copy(s, "hostile", file, NULL);
    char *path = g_build_filename(s->plugins, file, NULL);
    command c = command_run(s, (const char *[]){INSEE_CONFORM_BIN, "--timeout", timeout, path, NULL},
                            NULL);
    g_free(path);
    cr_assert_eq(c.status, 1, "status %d\n%s\n%s", c.status, c.out, c.err);
    cr_assert(contains(c.out, "FAIL  arb.create"), "%s", c.out);
    cr_assert(contains(c.out, why), "no \"%s\" in:\n%s", why, c.out);
    return c;
}

Test(hostile, conform_fails_a_hanging_create_within_the_limit)
{
    scratch s = scratch_new();
    command c = conform_fails_create(
        &s, "create-hang.so", "1",
        "arbiter plugin 'fixture-create-hang' did not finish this check within 1 s");
    /* The rest of the suite needs the instances the setup never made. */
    cr_assert(contains(c.out, "SKIP  arb.pick-range"), "%s", c.out);
    cr_assert(contains(c.out, "not run: the suite's setup (arb.create) did not finish"), "%s",
              c.out);
    /* The descriptor checks before it ran and passed. */
    cr_assert(contains(c.out, "PASS  desc.name"), "%s", c.out);
    command_free(&c);
    scratch_free(&s);
}

Test(hostile, conform_fails_exit_in_create_instead_of_passing)
{
    scratch s = scratch_new();
    command c = conform_fails_create(&s, "create-exit.so", "60",
                                     "arbiter plugin 'fixture-create-exit' called exit() during "
                                     "this check");
    cr_assert(contains(c.out, " 1 failed"), "%s", c.out);
    command_free(&c);
    scratch_free(&s);
}

Test(hostile, conform_json_stays_one_document_after_a_crash)
{
    scratch s = scratch_new();
    scratch_copy(&s, "hostile", "create-crash.so", NULL);
    char *path = g_build_filename(s.plugins, "create-crash.so", NULL);
    command c = command_run(&s, (const char *[]){INSEE_CONFORM_BIN, "--json", path, NULL}, NULL);
    cr_assert_eq(c.status, 1, "status %d\n%s\n%s", c.status, c.out, c.err);
    cr_assert(g_str_has_prefix(c.out, "{\n  \"file\": "), "%s", c.out);
    cr_assert(g_str_has_suffix(c.out, "\"crashed\": true\n}\n"), "%s", c.out);
    cr_assert(contains(c.out, "crashed during this check (signal 11"), "%s", c.out);
    g_free(path);
    command_free(&c);
    scratch_free(&s);
}

/* ---- the registry cache -------------------------------------------------- */

static const char *const debug_env[] = {"INSEE_DEBUG_PLUGINS=1", NULL};

static command list_traced(const scratch *s)
{
    return command_run(s, (const char *[]){INSEE_BIN, "--plugin-dir", s->plugins, "plugins",
                                           "list", NULL},
                       debug_env);
}

Test(hostile, the_second_start_up_probes_nothing_and_rewrites_nothing)
{
    scratch s = scratch_new();
    scratch_hostile(&s);
    command first = list_traced(&s);
    cr_assert_eq(first.status, 0, "%s", first.err);
    cr_assert(contains(first.err, "insee: plugin: probing "), "%s", first.err);
    char *cached = slurp(s.registry);
    cr_assert(g_str_has_prefix(cached, "insee-registry 1\n"), "%s", cached);
    GStatBuf before, after;
    cr_assert_eq(g_stat(s.registry, &before), 0);

    command second = list_traced(&s);
    cr_assert_eq(second.status, 0, "%s", second.err);
    cr_assert_not(contains(second.err, "probing"), "%s", second.err);
    /* Every file, the hanging one too, answered from the cache. */
    cr_assert(contains(second.err, "constructor-hang.so ... refused [cached]: did not finish"),
              "%s", second.err);
    cr_assert_eq(count(second.err, "[probed]"), 0, "%s", second.err);
    cr_assert_eq(count(second.err, "[cached]"), count(first.err, "[probed]"), "%s", second.err);
    cr_assert_str_eq(second.out, first.out);
    char *again = slurp(s.registry);
    cr_assert_str_eq(again, cached);
    cr_assert_eq(g_stat(s.registry, &after), 0);
    cr_assert_eq(after.st_mtime, before.st_mtime);
    cr_assert_eq(after.st_ino, before.st_ino, "the cache was not replaced");
    g_free(again);
    g_free(cached);
    command_free(&first);
    command_free(&second);
    scratch_free(&s);
}

Test(hostile, a_changed_file_is_probed_again)
{
    scratch s = scratch_new();
    scratch_copy(&s, "mixed", "good.so", NULL);
    scratch_copy(&s, "mixed", "no-pick.so", NULL);
    command c = list_traced(&s);
    cr_assert(contains(c.err, "good.so ... ok (arbiter 'fixture-good') [probed]"), "%s", c.err);
    command_free(&c);

    /* Replaced by a broken file of the same name: the cached "usable" must
       not be believed. */
    scratch_truncated(&s, "mixed", "good.so", "good.so", 100);
    c = list_traced(&s);
    cr_assert(contains(c.err, "probing 1 file "), "%s", c.err);
    cr_assert(contains(c.err, "good.so ... refused [probed]: truncated"), "%s", c.err);
    cr_assert(contains(c.err, "no-pick.so ... refused [cached]: "), "%s", c.err);
    command_free(&c);

    /* Only touched: the same bytes, still checked again. */
    scratch_copy(&s, "mixed", "good.so", NULL);
    c = list_traced(&s);
    command_free(&c);
    char *path = g_build_filename(s.plugins, "no-pick.so", NULL);
    struct utimbuf later = {.actime = 2000000000, .modtime = 2000000000};
    cr_assert_eq(g_utime(path, &later), 0);
    c = list_traced(&s);
    cr_assert(contains(c.err, "probing 1 file "), "%s", c.err);
    cr_assert(contains(c.err, "no-pick.so ... refused [probed]: "), "%s", c.err);
    cr_assert(contains(c.err, "good.so ... ok (arbiter 'fixture-good') [cached]"), "%s", c.err);
    command_free(&c);
    g_free(path);
    scratch_free(&s);
}

Test(hostile, a_damaged_cache_is_ignored_and_rebuilt)
{
    scratch s = scratch_new();
    scratch_copy(&s, "mixed", "good.so", NULL);
    command clean = list_traced(&s);
    char *good = slurp(s.registry);
    /* Not ours, empty, and a record cut short (as a writer killed mid-way
       would leave it, were it not for the rename). */
    char *cut = g_strndup(good, strlen(good) - 5);
    const char *damage[] = {"garbage\n", "", cut};
    for (size_t i = 0; i < G_N_ELEMENTS(damage); i++) {
        cr_assert(g_file_set_contents(s.registry, damage[i], -1, NULL));
        command c = list_traced(&s);
        cr_assert_eq(c.status, 0, "%s", c.err);
        cr_assert_str_eq(c.out, clean.out);
        cr_assert(contains(c.err, "good.so ... ok (arbiter 'fixture-good') [probed]"), "%s",
                  c.err);
        char *rebuilt = slurp(s.registry);
        cr_assert_str_eq(rebuilt, good);
        g_free(rebuilt);
        command_free(&c);
    }
    g_free(cut);
    g_free(good);
    command_free(&clean);
    scratch_free(&s);
}

Test(hostile, without_the_scanner_nothing_is_loaded_and_nothing_remembered)
{
    scratch s = scratch_new();
    scratch_copy(&s, "mixed", "good.so", NULL);
    command c = command_run(&s, (const char *[]){INSEE_BIN, "--plugin-dir", s.plugins, "plugins",
                                                 "list", NULL},
                            (const char *const[]){"INSEE_SCANNER=/nonexistent/insee-scan", NULL});
    cr_assert_eq(c.status, 0, "%s", c.err);
    char *reason = refusal_of(c.out, &s, "good.so");
    cr_assert(contains(reason, "not probed: cannot run the plugin scanner /nonexistent/insee-scan"),
              "%s", reason);
    cr_assert(contains(reason, "INSEE_SCANNER"), "%s", reason);
    g_free(reason);
    command_free(&c);
    /* Not the plugin's fault: it is probed as soon as the scanner is back. */
    c = list_traced(&s);
    cr_assert(contains(c.err, "good.so ... ok (arbiter 'fixture-good') [probed]"), "%s", c.err);
    command_free(&c);
    scratch_free(&s);
}
