/* tests/plugin/test_probe.c — the pieces under the scanner: what the ELF
 * check says of each kind of file, records that survive any text, and the
 * cache file's keys, identity and damage handling. */
#include <criterion/criterion.h>
#include <elf.h>
#include <glib/gstdio.h>
#include <stddef.h>
#include <string.h>

#include "commands.h"
#include "plugin/cache.h"
#include "plugin/elf_check.h"

static gboolean contains(const char *haystack, const char *needle)
{
    return haystack && strstr(haystack, needle) != NULL;
}

/* ---- the ELF check ------------------------------------------------------- */

static char *check_copy(const scratch *s, const char *as)
{
    char *path = g_build_filename(s->plugins, as, NULL);
    char *why = insee_elf_check(path);
    g_free(path);
    return why;
}

Test(elf_check, a_real_plugin_passes)
{
    cr_assert_null(insee_elf_check(FIXTURE_DIR "/mixed/good.so"));
    cr_assert_null(insee_elf_check(PLUGIN_DIR "/topology-torus.so"));
}

Test(elf_check, each_kind_of_wrong_file_is_named)
{
    scratch s = scratch_new();
    GStatBuf st;
    cr_assert_eq(g_stat(FIXTURE_DIR "/mixed/good.so", &st), 0);
    scratch_truncated(&s, "mixed", "good.so", "half.so", (gsize)st.st_size / 2);
    scratch_truncated(&s, "mixed", "good.so", "ten.so", 10);
    scratch_truncated(&s, "mixed", "good.so", "most.so", (gsize)st.st_size - 1);
    const char *machine = scratch_foreign(&s, "mixed", "good.so", "foreign.so");

    char *why = check_copy(&s, "half.so");
    char *size = g_strdup_printf("the file has %" G_GUINT64_FORMAT " bytes, but its ELF headers "
                                 "describe %" G_GUINT64_FORMAT,
                                 (guint64)st.st_size / 2, (guint64)st.st_size);
    cr_assert(g_str_has_prefix(why, "truncated: "), "%s", why);
    cr_assert(contains(why, size), "%s", why);
    g_free(size);
    g_free(why);
    /* One byte short is short: the section headers end the file. */
    why = check_copy(&s, "most.so");
    cr_assert(g_str_has_prefix(why, "truncated: "), "%s", why);
    g_free(why);
    why = check_copy(&s, "ten.so");
    cr_assert(contains(why, "truncated: the file has 10 bytes, less than an ELF header"), "%s",
              why);
    g_free(why);
    why = check_copy(&s, "foreign.so");
    cr_assert(g_str_has_prefix(why, "an ELF shared object for "), "%s", why);
    cr_assert(contains(why, machine), "%s", why);
    cr_assert(contains(why, "but this insee runs on "), "%s", why);
    g_free(why);
    scratch_copy(&s, "mixed", "good.so", "object.o");
    scratch_patch16(&s, "object.o", offsetof(Elf64_Ehdr, e_type), ET_REL);
    why = check_copy(&s, "object.o");
    cr_assert(contains(why, "an ELF relocatable object (a .o file), not a shared object"), "%s",
              why);
    g_free(why);
    scratch_free(&s);
    why = insee_elf_check(FIXTURE_DIR "/mixed/garbage.so");
    cr_assert(contains(why, "not an ELF shared object (a file of 33 bytes"), "%s", why);
    g_free(why);
    why = insee_elf_check(FIXTURE_DIR "/mixed/absent.so");
    cr_assert(contains(why, "cannot open: "), "%s", why);
    g_free(why);
}

/* ---- records ------------------------------------------------------------- */

Test(records, any_text_survives_the_round_trip)
{
    insee_plugin_facts f = {
        .kind = INSEE_KIND_ROUTER,
        .name = g_strdup("odd name"),
        .version = g_strdup("1.0\nsecond line \"quoted\" \\ back"),
        .summary = g_strdup("caf\xc3\xa9 and an invalid byte \xff, a tab\t"),
        .abi_major = 1,
        .abi_minor = 7,
        .refusal = g_strdup("refused\nfor reasons"),
    };
    insee_file_key key = {.size = 12345, .mtime_ns = G_GINT64_CONSTANT(1700000000123456789),
                          .inode = G_MAXUINT64};
    GString *text = g_string_new(NULL);
    insee_record_append(text, "/a path/with\nnewline.so", &key, &f);
    insee_record_append(text, "/second.so", NULL, &(insee_plugin_facts){0});

    const char *pos = text->str, *end = text->str + text->len;
    insee_record rec;
    cr_assert_eq(insee_record_parse(&pos, end, &rec), INSEE_RECORD_OK);
    cr_assert_str_eq(rec.path, "/a path/with\nnewline.so");
    cr_assert(rec.has_key);
    cr_assert(insee_file_key_equal(&rec.key, &key));
    cr_assert_eq(rec.facts.kind, INSEE_KIND_ROUTER);
    cr_assert_str_eq(rec.facts.name, f.name);
    cr_assert_str_eq(rec.facts.version, f.version);
    cr_assert_str_eq(rec.facts.summary, f.summary);
    cr_assert_str_eq(rec.facts.refusal, f.refusal);
    cr_assert_eq(rec.facts.abi_minor, 7);
    insee_record_clear(&rec);
    cr_assert_eq(insee_record_parse(&pos, end, &rec), INSEE_RECORD_OK);
    cr_assert_str_eq(rec.path, "/second.so");
    cr_assert_not(rec.has_key);
    cr_assert_null(rec.facts.name);
    cr_assert_null(rec.facts.refusal);
    insee_record_clear(&rec);
    cr_assert_eq(pos, end);
    cr_assert_eq(insee_record_parse(&pos, end, &rec), INSEE_RECORD_NONE);
    g_string_free(text, TRUE);
    insee_plugin_facts_clear(&f);
}

Test(records, anything_else_is_corrupt_or_incomplete)
{
    static const struct {
        const char *text;
        insee_record_result expect;
    } cases[] = {
        {"file /x.so\nkind 3\n", INSEE_RECORD_NONE},            /* cut short */
        {"file /x.so\nkind 3\nend", INSEE_RECORD_NONE},         /* no final newline yet */
        {"kind 3\nfile /x.so\nend\n", INSEE_RECORD_CORRUPT},    /* does not start with file */
        {"file /x.so\ncolour blue\nend\n", INSEE_RECORD_CORRUPT},
        {"file /x.so\nkind three\nend\n", INSEE_RECORD_CORRUPT},
        {"file /x.so\nabi 1\nend\n", INSEE_RECORD_CORRUPT},
        {"file /x.so\nkey 1 2\nend\n", INSEE_RECORD_CORRUPT},
        {"file /x.so\nname a\nname b\nend\n", INSEE_RECORD_CORRUPT},
        {"file /x.so\nend \nend\n", INSEE_RECORD_CORRUPT},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        const char *pos = cases[i].text;
        insee_record rec;
        cr_assert_eq(insee_record_parse(&pos, pos + strlen(pos), &rec), cases[i].expect, "%s",
                     cases[i].text);
        cr_assert_eq(pos, cases[i].text, "nothing taken from: %s", cases[i].text);
        cr_assert_null(rec.path);
    }
}

/* ---- the cache ----------------------------------------------------------- */

static insee_cache *open_at(const char *file, char **note)
{
    g_setenv("INSEE_REGISTRY", file, TRUE);
    return insee_cache_open(note);
}

Test(cache, remembers_by_path_and_exact_key)
{
    scratch s = scratch_new();
    char *note = NULL;
    insee_cache *c = open_at(s.registry, &note);
    cr_assert(contains(note, "no registry cache yet"), "%s", note);
    g_free(note);
    cr_assert_str_eq(insee_cache_file(c), s.registry);
    scratch_copy(&s, "mixed", "good.so", NULL);
    char *path = g_build_filename(s.plugins, "good.so", NULL);
    insee_file_key key;
    cr_assert(insee_file_key_read(path, &key));
    insee_plugin_facts f = {.kind = INSEE_KIND_ARBITER, .name = g_strdup("fixture-good")};
    insee_cache_remember(c, path, &key, &f);
    GError *err = NULL;
    cr_assert(insee_cache_save(c, &err), "%s", err ? err->message : "");
    insee_cache_free(c);

    c = open_at(s.registry, &note);
    cr_assert_null(note, "%s", note);
    const insee_plugin_facts *known = insee_cache_lookup(c, path, &key);
    cr_assert_not_null(known);
    cr_assert_str_eq(known->name, "fixture-good");
    insee_file_key other = key;
    other.mtime_ns++;
    cr_assert_null(insee_cache_lookup(c, path, &other));
    other = key;
    other.size++;
    cr_assert_null(insee_cache_lookup(c, path, &other));
    cr_assert_null(insee_cache_lookup(c, "/elsewhere/good.so", &key));
    insee_cache_free(c);

    /* Gone from disk: dropped at the next save. */
    insee_cache *d = open_at(s.registry, &note);
    g_free(note);
    cr_assert_eq(g_remove(path), 0);
    insee_cache_remember(d, "/nonexistent.so", &key, &f);
    cr_assert(insee_cache_save(d, NULL));
    insee_cache_free(d);
    char *text = slurp(s.registry);
    cr_assert_not(contains(text, "good.so"), "%s", text);
    cr_assert_not(contains(text, "nonexistent"), "%s", text);
    cr_assert(g_str_has_prefix(text, "insee-registry 1\nkernel insee "), "%s", text);
    g_free(text);
    insee_plugin_facts_clear(&f);
    g_free(path);
    scratch_free(&s);
}

Test(cache, another_kernel_s_cache_is_not_trusted)
{
    scratch s = scratch_new();
    scratch_copy(&s, "mixed", "good.so", NULL);
    char *path = g_build_filename(s.plugins, "good.so", NULL);
    insee_file_key key;
    cr_assert(insee_file_key_read(path, &key));
    GString *text = g_string_new("insee-registry 1\nkernel insee 0.0.0 ABI 1.0 /elsewhere 1 2\n");
    insee_record_append(text, path, &key, &(insee_plugin_facts){.kind = 3, .name = (char *)"x"});
    cr_assert(g_file_set_contents(s.registry, text->str, -1, NULL));
    char *note = NULL;
    insee_cache *c = open_at(s.registry, &note);
    cr_assert(contains(note, "written by another insee build or is damaged"), "%s", note);
    cr_assert_null(insee_cache_lookup(c, path, &key));
    /* Rewritten at the next save even with nothing new. */
    cr_assert(insee_cache_save(c, NULL));
    char *now = slurp(s.registry);
    cr_assert_str_neq(now, text->str);
    cr_assert(g_str_has_prefix(now, "insee-registry 1\nkernel insee "), "%s", now);
    g_free(now);
    g_free(note);
    insee_cache_free(c);
    g_string_free(text, TRUE);
    g_free(path);
    scratch_free(&s);
}

Test(cache, an_empty_insee_registry_turns_it_off)
{
    char *note = NULL;
    insee_cache *c = open_at("", &note);
    cr_assert(contains(note, "no registry cache"), "%s", note);
    cr_assert_null(insee_cache_file(c));
    insee_file_key key = {1, 2, 3};
    insee_cache_remember(c, "/x.so", &key, &(insee_plugin_facts){.name = (char *)"x"});
    cr_assert(insee_cache_save(c, NULL));
    cr_assert_not_null(insee_cache_lookup(c, "/x.so", &key), "kept for this process");
    insee_cache_free(c);
    g_free(note);
}

Test(cache, by_default_it_lives_in_the_user_cache_dir_per_kernel)
{
    g_unsetenv("INSEE_REGISTRY");
    char *note = NULL;
    insee_cache *c = insee_cache_open(&note);
    char *dir = g_build_filename(g_get_user_cache_dir(), "insee", "registry-", NULL);
    cr_assert(g_str_has_prefix(insee_cache_file(c), dir), "%s", insee_cache_file(c));
    cr_assert_eq(strlen(insee_cache_file(c)), strlen(dir) + 16);
    g_free(dir);
    g_free(note);
    insee_cache_free(c);
}
