/* tests/plugin/test_safety.c — what the loader refuses to trust, and says
 * so: a plugin whose name no config could write, a plugin directory others
 * can write code into, a plugin directory that does not exist (a typo), a
 * plugin built for another ABI major that a config names.
 *
 * Everything runs the real programs (commands.h) in scratch directories. */
#include <criterion/criterion.h>
#include <string.h>
#include <sys/stat.h>

#include "commands.h"

static gboolean contains(const char *haystack, const char *needle)
{
    return haystack && strstr(haystack, needle) != NULL;
}

static command plugins_list(const scratch *s, const char *dir)
{
    return command_run(s, (const char *[]){INSEE_BIN, "--plugin-dir", dir, "plugins", "list", NULL},
                       NULL);
}

Test(safety, a_plugin_name_no_config_could_write_is_refused_and_shown_escaped)
{
    scratch s = scratch_new();
    scratch_copy(&s, "badname", "bad-name.so", NULL);
    command c = plugins_list(&s, s.plugins);
    cr_assert_eq(c.status, 0, "status %d, stderr: %s", c.status, c.err);
    cr_assert(contains(c.out, "bad-name.so: the arbiter plugin's name \"bad\\nname/`id`<script>\" "
                              "is not a plugin name"),
              "%s", c.out);
    cr_assert(!contains(c.out, "bad\nname") && !contains(c.err, "bad\nname"), "%s%s", c.out,
              c.err);
    command_free(&c);
    scratch_free(&s);
}

Test(safety, a_plugin_directory_others_can_write_is_refused)
{
    scratch s = scratch_new();
    scratch_copy(&s, "second", "good.so", NULL);
    /* The sticky bit of /tmp keeps others from removing files, not from
       adding a plugin of their own. */
    const mode_t unsafe[] = {0777, 01777, 0757};
    for (size_t i = 0; i < G_N_ELEMENTS(unsafe); i++) {
        cr_assert_eq(chmod(s.plugins, unsafe[i]), 0);
        command c = plugins_list(&s, s.plugins);
        char *notice = g_strdup_printf("insee: notice: plugin directory %s refused, none of its "
                                       "plugins is loaded: it is writable by every user",
                                       s.plugins);
        cr_assert(contains(c.err, notice), "mode %04o: %s", (unsigned)unsafe[i], c.err);
        cr_assert(contains(c.err, "chmod o-w"), "%s", c.err);
        cr_assert(!contains(c.out, "fixture-good"), "mode %04o: %s", (unsigned)unsafe[i], c.out);
        g_free(notice);
        command_free(&c);
    }
    /* What a umask of 022 or 077 creates is the owner's alone. */
    const mode_t safe[] = {0755, 0700};
    for (size_t i = 0; i < G_N_ELEMENTS(safe); i++) {
        cr_assert_eq(chmod(s.plugins, safe[i]), 0);
        command c = plugins_list(&s, s.plugins);
        cr_assert(contains(c.out, "fixture-good"), "mode %04o: %s%s", (unsigned)safe[i], c.out,
                  c.err);
        cr_assert(!contains(c.err, "refused"), "%s", c.err);
        command_free(&c);
    }
    scratch_free(&s);
}

Test(safety, a_plugin_directory_that_does_not_exist_is_warned_about)
{
    scratch s = scratch_new();
    char *typo = g_build_filename(s.dir, "buld", NULL);
    command c = plugins_list(&s, typo);
    cr_assert_eq(c.status, 0, "status %d, stderr: %s", c.status, c.err);
    char *notice = g_strdup_printf("insee: notice: plugin directory %s does not exist", typo);
    cr_assert(contains(c.err, notice), "%s", c.err);
    g_free(notice);
    g_free(typo);
    command_free(&c);
    scratch_free(&s);
}

Test(safety, a_config_naming_a_plugin_of_another_abi_major_hears_why)
{
    scratch s = scratch_new();
    scratch_copy(&s, "oldabi", "arbiter-fixture-old.so", NULL);
    command c = command_run(&s, (const char *[]){INSEE_BIN, "--plugin-dir", s.plugins, "run",
                                                 "--set", "arbiter.plugin=fixture-old", NULL},
                            NULL);
    cr_assert_eq(c.status, 3, "status %d, stderr: %s", c.status, c.err);
    cr_assert(contains(c.err, "[arbiter] plugin = \"fixture-old\": "), "%s", c.err);
    cr_assert(contains(c.err, "arbiter-fixture-old.so was refused"), "%s", c.err);
    cr_assert(contains(c.err, "built for insee plugin ABI 0.4, this kernel has ABI 1."), "%s",
              c.err);
    cr_assert(contains(c.err, "rebuild the plugin against this SDK"), "%s", c.err);
    cr_assert(!contains(c.err, "no arbiter plugin of that name"), "%s", c.err);
    command_free(&c);
    scratch_free(&s);
}
