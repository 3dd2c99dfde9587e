/* tests/plugin/commands.c — scratch directories and commands; contract in
 * commands.h. */
#include "commands.h"

#include <criterion/criterion.h>
#include <elf.h>
#include <glib/gstdio.h>
#include <stddef.h>
#include <string.h>
#include <sys/wait.h>

scratch scratch_new(void)
{
    GError *err = NULL;
    char *dir = g_dir_make_tmp("insee-plugin-XXXXXX", &err);
    cr_assert_not_null(dir, "%s", err ? err->message : "?");
    scratch s = {
        .dir = dir,
        .plugins = g_build_filename(dir, "plugins", NULL),
        .registry = g_build_filename(dir, "registry", NULL),
    };
    cr_assert_eq(g_mkdir(s.plugins, 0755), 0);
    return s;
}

static void remove_tree(const char *path)
{
    GDir *d = g_dir_open(path, 0, NULL);
    if (d) {
        const char *name;
        while ((name = g_dir_read_name(d))) {
            char *child = g_build_filename(path, name, NULL);
            remove_tree(child);
            g_free(child);
        }
        g_dir_close(d);
    }
    g_remove(path);
}

void scratch_free(scratch *s)
{
    remove_tree(s->dir);
    g_free(s->dir);
    g_free(s->plugins);
    g_free(s->registry);
}

char *slurp(const char *path)
{
    char *text = NULL;
    return g_file_get_contents(path, &text, NULL, NULL) ? text : g_strdup("");
}

static GBytes *fixture_bytes(const char *set, const char *file)
{
    char *path = g_build_filename(FIXTURE_DIR, set, file, NULL);
    char *data = NULL;
    gsize len = 0;
    cr_assert(g_file_get_contents(path, &data, &len, NULL), "cannot read %s", path);
    g_free(path);
    return g_bytes_new_take(data, len);
}

static void put(const scratch *s, const char *as, const void *data, gsize len)
{
    char *path = g_build_filename(s->plugins, as, NULL);
    cr_assert(g_file_set_contents(path, data, (gssize)len, NULL), "cannot write %s", path);
    g_free(path);
}

void scratch_truncated(const scratch *s, const char *set, const char *file, const char *as,
                       gsize keep)
{
    GBytes *b = fixture_bytes(set, file);
    gsize len = 0;
    const char *data = g_bytes_get_data(b, &len);
    cr_assert_lt(keep, len);
    put(s, as ? as : file, data, keep);
    g_bytes_unref(b);
}

void scratch_copy(const scratch *s, const char *set, const char *file, const char *as)
{
    GBytes *b = fixture_bytes(set, file);
    put(s, as ? as : file, g_bytes_get_data(b, NULL), g_bytes_get_size(b));
    g_bytes_unref(b);
}

void scratch_patch16(const scratch *s, const char *file, gsize offset, guint16 value)
{
    char *path = g_build_filename(s->plugins, file, NULL);
    char *data = NULL;
    gsize len = 0;
    cr_assert(g_file_get_contents(path, &data, &len, NULL), "cannot read %s", path);
    cr_assert_gt(len, offset + 1);
    gboolean big = data[EI_DATA] == ELFDATA2MSB;
    data[offset + (big ? 0 : 1)] = (char)(value >> 8);
    data[offset + (big ? 1 : 0)] = (char)(value & 0xff);
    cr_assert(g_file_set_contents(path, data, (gssize)len, NULL));
    g_free(data);
    g_free(path);
}

const char *scratch_foreign(const scratch *s, const char *set, const char *file, const char *as)
{
    scratch_copy(s, set, file, as);
    /* Whichever of the two this machine is not. */
#if defined(__aarch64__)
    scratch_patch16(s, as, offsetof(Elf64_Ehdr, e_machine), EM_X86_64);
    return "x86-64";
#else
    scratch_patch16(s, as, offsetof(Elf64_Ehdr, e_machine), EM_AARCH64);
    return "AArch64";
#endif
}

void scratch_hostile(const scratch *s)
{
    scratch_copy(s, "mixed", "good.so", NULL);
    /* Half a file: the program headers are there, the segments are not. */
    char *good = g_build_filename(FIXTURE_DIR, "mixed", "good.so", NULL);
    GStatBuf st;
    cr_assert_eq(g_stat(good, &st), 0);
    g_free(good);
    scratch_truncated(s, "mixed", "good.so", "truncated.so", (gsize)st.st_size / 2);
    scratch_foreign(s, "mixed", "good.so", "foreign.so");
    const char *hostile[] = {"constructor-crash.so", "constructor-exit.so", "constructor-hang.so",
                             "entry-crash.so"};
    for (size_t i = 0; i < G_N_ELEMENTS(hostile); i++)
        scratch_copy(s, "hostile", hostile[i], NULL);
}

command command_run(const scratch *s, const char *const *argv, const char *const *env)
{
    char **envp = g_get_environ();
    envp = g_environ_setenv(envp, "INSEE_REGISTRY", s->registry, TRUE);
    envp = g_environ_setenv(envp, "INSEE_SCAN_TIMEOUT", SCAN_TIMEOUT, TRUE);
    envp = g_environ_unsetenv(envp, "INSEE_DEBUG_PLUGINS");
    envp = g_environ_unsetenv(envp, "INSEE_PLUGIN_PATH");
    for (; env && *env; env++) {
        char **kv = g_strsplit(*env, "=", 2);
        envp = g_environ_setenv(envp, kv[0], kv[1] ? kv[1] : "", TRUE);
        g_strfreev(kv);
    }
    command c = {0};
    int wait = 0;
    GError *err = NULL;
    cr_assert(g_spawn_sync(NULL, (char **)argv, envp, G_SPAWN_DEFAULT, NULL, NULL, &c.out, &c.err,
                           &wait, &err),
              "cannot run %s: %s", argv[0], err ? err->message : "?");
    g_strfreev(envp);
    c.status = WIFEXITED(wait) ? WEXITSTATUS(wait) : 128 + WTERMSIG(wait);
    return c;
}

void command_free(command *c)
{
    g_free(c->out);
    g_free(c->err);
}
