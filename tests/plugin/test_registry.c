/* tests/plugin/test_registry.c — the loader against the fixture plugins
 * (docs/architecture.md §5): what loads, what is refused and why, in which order. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <stdio.h>
#include <string.h>

#include "plugin_test.h"

static gboolean contains(const char *haystack, const char *needle)
{
    return haystack && strstr(haystack, needle) != NULL;
}

Test(registry, good_plugin_loads_and_is_found)
{
    insee_registry *reg = scan_dirs(MIXED_DIR, NULL);
    const insee_plugin *p = insee_registry_find(reg, INSEE_KIND_ARBITER, "fixture-good");
    cr_assert_not_null(p);
    cr_assert_not(p->refused);
    cr_assert_null(p->reason);
    cr_assert_eq(p->kind, INSEE_KIND_ARBITER);
    cr_assert_str_eq(p->name, "fixture-good");
    cr_assert_str_eq(p->path, MIXED_DIR "/good.so");
    cr_assert_str_eq(p->desc->version, "1.2.3");

    const insee_arbiter_vtable *vt = p->vtable;
    cr_assert_neq((const void *)vt, p->desc->vtable, "the kernel works on its own copy");
    cr_assert_eq(vt->size, sizeof *vt);
    void *self = vt->create(NULL, NULL, NULL);
    cr_assert_not_null(self);
    insee_request req[2] = {{.input = 3}, {.input = 5}};
    cr_assert_eq(vt->pick(self, NULL, req, 2, 0, NULL), 0);
    cr_assert_eq(vt->state_size(self), 8);
    vt->destroy(self);

    cr_assert_eq(insee_registry_find_any(reg, "fixture-good"), p);
    cr_assert_null(insee_registry_find(reg, INSEE_KIND_ROUTER, "fixture-good"));
    cr_assert_null(insee_registry_find_any(reg, "no-such-plugin"));
    insee_registry_free(reg);
}

/* Whether the file is mapped into this process. */
static gboolean mapped(const char *path)
{
    char *maps = NULL;
    cr_assert(g_file_get_contents("/proc/self/maps", &maps, NULL, NULL));
    gboolean found = contains(maps, path);
    g_free(maps);
    return found;
}

Test(registry, only_the_plugins_asked_for_are_loaded)
{
    insee_registry *reg = scan_dirs(KINDS_DIR, MIXED_DIR);
    const GPtrArray *all = insee_registry_plugins(reg);
    for (guint i = 0; i < all->len; i++) {
        const insee_plugin *p = g_ptr_array_index(all, i);
        cr_assert_null(p->desc, "%s", p->path);
        cr_assert_not(mapped(p->path), "%s was loaded by the scan", p->path);
    }
    /* What a listing needs is known without loading. */
    const insee_plugin *good = entry_for(reg, MIXED_DIR, "good.so");
    cr_assert_str_eq(good->version, "1.2.3");
    cr_assert_str_eq(good->summary, "always grants the first request (café)");
    cr_assert_eq(good->abi_minor, INSEE_ABI_MINOR);

    cr_assert_eq(insee_registry_find(reg, INSEE_KIND_ROUTER, "kind-router"),
                 entry_for(reg, KINDS_DIR, "kind-router.so"));
    cr_assert(mapped(KINDS_DIR "/kind-router.so"));
    cr_assert_not_null(entry_for(reg, KINDS_DIR, "kind-router.so")->desc);
    cr_assert_not(mapped(KINDS_DIR "/kind-topology.so"));
    cr_assert_not(mapped(MIXED_DIR "/good.so"));
    insee_registry_free(reg);
}

Test(registry, wrong_abi_major_is_refused_naming_file_and_both_versions)
{
    insee_registry *reg = scan_dirs(MIXED_DIR, NULL);
    const insee_plugin *p = entry_for(reg, MIXED_DIR, "abi-major.so");
    cr_assert_not_null(p);
    cr_assert(p->refused);
    char *plugin_abi = g_strdup_printf("ABI %u.%u", INSEE_ABI_MAJOR + 1, INSEE_ABI_MINOR);
    char *kernel_abi = g_strdup_printf("ABI %u.%u", INSEE_ABI_MAJOR, INSEE_ABI_MINOR);
    cr_assert(contains(p->reason, "abi-major.so"), "%s", p->reason);
    cr_assert(contains(p->reason, plugin_abi), "%s", p->reason);
    cr_assert(contains(p->reason, kernel_abi), "%s", p->reason);
    cr_assert(contains(p->reason, "rebuild"), "%s", p->reason);
    /* Nothing past the ABI fields is trusted under another major. */
    cr_assert_eq(p->kind, 0);
    cr_assert_null(p->name);
    cr_assert_null(p->desc);
    cr_assert_null(p->vtable);
    cr_assert_null(insee_registry_find_any(reg, "fixture-abi-major"));
    g_free(plugin_abi);
    g_free(kernel_abi);
    insee_registry_free(reg);
}

Test(registry, newer_abi_minor_is_refused_naming_file_and_both_versions)
{
    insee_registry *reg = scan_dirs(MIXED_DIR, NULL);
    const insee_plugin *p = entry_for(reg, MIXED_DIR, "abi-minor.so");
    cr_assert(p && p->refused);
    char *plugin_abi = g_strdup_printf("ABI %u.%u", INSEE_ABI_MAJOR, INSEE_ABI_MINOR + 1);
    char *kernel_abi = g_strdup_printf("ABI %u.%u", INSEE_ABI_MAJOR, INSEE_ABI_MINOR);
    cr_assert(contains(p->reason, "abi-minor.so"), "%s", p->reason);
    cr_assert(contains(p->reason, plugin_abi), "%s", p->reason);
    cr_assert(contains(p->reason, kernel_abi), "%s", p->reason);
    cr_assert(contains(p->reason, "upgrade insee"), "%s", p->reason);
    /* Same major: the plugin is still identified in listings. */
    cr_assert_eq(p->kind, INSEE_KIND_ARBITER);
    cr_assert_str_eq(p->name, "fixture-abi-minor");
    g_free(plugin_abi);
    g_free(kernel_abi);
    insee_registry_free(reg);
}

/* The other broken fixtures: each refused, for its own reason, which starts
   with the file name. */
static const struct {
    const char *file;
    const char *expect[2];
} refusals[] = {
    {"short-vtable.so", {"short vtable", "'pick'"}},
    {"no-pick.so", {"required entry 'pick'", "NULL"}},
    {"no-symbol.so", {"no symbol insee_plugin_entry", "INSEE_PLUGIN_DEFINE"}},
    {"null-entry.so", {"returned NULL", NULL}},
    {"unknown-kind.so", {"unknown plugin kind 42", "topology"}},
    {"no-name.so", {"no name", NULL}},
    {"small-desc.so", {"descriptor is", "rebuild"}},
    {"params-dup.so", {"bad parameter table", "depth"}},
    {"params-range.so", {"bad parameter table", "depth"}},
    {"garbage.so", {"not an ELF shared object", NULL}},
    {"topo-no-hops.so", {"required entry 'minimal_hops'", "topology"}},
};

Test(registry, broken_plugins_are_refused_with_their_reason)
{
    insee_registry *reg = scan_dirs(MIXED_DIR, NULL);
    for (size_t i = 0; i < G_N_ELEMENTS(refusals); i++) {
        const insee_plugin *p = entry_for(reg, MIXED_DIR, refusals[i].file);
        cr_assert_not_null(p, "no entry for %s", refusals[i].file);
        cr_assert(p->refused, "%s was not refused", refusals[i].file);
        cr_assert_null(p->desc);
        cr_assert_null(p->vtable);
        char *prefix = g_strconcat(refusals[i].file, ": ", NULL);
        cr_assert(g_str_has_prefix(p->reason, prefix), "%s", p->reason);
        g_free(prefix);
        for (size_t j = 0; j < G_N_ELEMENTS(refusals[i].expect) && refusals[i].expect[j]; j++)
            cr_assert(contains(p->reason, refusals[i].expect[j]), "%s: expected \"%s\" in: %s",
                      refusals[i].file, refusals[i].expect[j], p->reason);
    }
    /* A refusal after the descriptor was read keeps kind and name for listings. */
    const insee_plugin *no_pick = entry_for(reg, MIXED_DIR, "no-pick.so");
    cr_assert_eq(no_pick->kind, INSEE_KIND_ARBITER);
    cr_assert_str_eq(no_pick->name, "fixture-no-pick");
    insee_registry_free(reg);
}

Test(registry, refused_plugins_never_stop_the_others)
{
    insee_registry *reg = scan_dirs(MIXED_DIR, NULL);
    const char *usable[] = {"fixture-good", "fixture-short-ok", "fixture-dup"};
    for (size_t i = 0; i < G_N_ELEMENTS(usable); i++)
        cr_assert_not_null(insee_registry_find(reg, INSEE_KIND_ARBITER, usable[i]), "%s",
                           usable[i]);
    const GPtrArray *all = insee_registry_plugins(reg);
    guint n_usable = 0;
    for (guint i = 0; i < all->len; i++)
        n_usable += !((const insee_plugin *)g_ptr_array_index(all, i))->refused;
    cr_assert_eq(n_usable, G_N_ELEMENTS(usable));
    insee_registry_free(reg);
}

Test(registry, directory_entries_are_visited_in_sorted_order)
{
    insee_registry *reg = scan_dirs(MIXED_DIR, NULL);
    const GPtrArray *all = insee_registry_plugins(reg);
    /* 15 built fixtures + topo-no-hops + garbage.so; readme.txt and the
       subdir.so directory are skipped. */
    cr_assert_eq(all->len, 17);
    for (guint i = 0; i < all->len; i++) {
        const insee_plugin *p = g_ptr_array_index(all, i);
        cr_assert(g_str_has_suffix(p->path, ".so"), "%s", p->path);
        cr_assert_not(g_str_has_suffix(p->path, "/subdir.so"));
        if (i > 0) {
            const insee_plugin *prev = g_ptr_array_index(all, i - 1);
            cr_assert_lt(strcmp(prev->path, p->path), 0, "%s before %s", prev->path, p->path);
        }
    }
    insee_registry_free(reg);
}

Test(registry, duplicate_name_first_found_wins_and_notice_names_both)
{
    insee_registry *reg = scan_dirs(MIXED_DIR, NULL);
    const insee_plugin *winner = insee_registry_find(reg, INSEE_KIND_ARBITER, "fixture-dup");
    cr_assert_not_null(winner);
    cr_assert_str_eq(winner->path, MIXED_DIR "/dup-a.so");
    cr_assert_str_eq(winner->desc->version, "a");

    const insee_plugin *loser = entry_for(reg, MIXED_DIR, "dup-b.so");
    cr_assert(loser->refused);
    cr_assert(contains(loser->reason, "shadowed by " MIXED_DIR "/dup-a.so"), "%s", loser->reason);

    const GPtrArray *notices = insee_registry_notices(reg);
    gboolean named_both = FALSE;
    for (guint i = 0; i < notices->len; i++) {
        const char *n = g_ptr_array_index(notices, i);
        named_both |= contains(n, MIXED_DIR "/dup-a.so") && contains(n, MIXED_DIR "/dup-b.so");
    }
    cr_assert(named_both, "no notice names both dup-a.so and dup-b.so");
    insee_registry_free(reg);
}

Test(registry, directories_are_searched_in_the_order_added)
{
    insee_registry *reg = scan_dirs(MIXED_DIR, SECOND_DIR);
    const insee_plugin *p = insee_registry_find(reg, INSEE_KIND_ARBITER, "fixture-good");
    cr_assert_str_eq(p->path, MIXED_DIR "/good.so");
    const insee_plugin *shadowed = entry_for(reg, SECOND_DIR, "good.so");
    cr_assert(shadowed->refused);
    cr_assert(contains(shadowed->reason, "shadowed by " MIXED_DIR "/good.so"), "%s",
              shadowed->reason);
    insee_registry_free(reg);

    reg = scan_dirs(SECOND_DIR, MIXED_DIR);
    p = insee_registry_find(reg, INSEE_KIND_ARBITER, "fixture-good");
    cr_assert_str_eq(p->path, SECOND_DIR "/good.so");
    cr_assert(entry_for(reg, MIXED_DIR, "good.so")->refused);
    insee_registry_free(reg);
}

/* A typo in --plugin-dir is skipped, but said: the error that follows
   suggests --plugin-dir. */
Test(registry, missing_directory_is_skipped_with_a_notice)
{
    insee_registry *reg = scan_dirs(FIXTURE_DIR "/no-such-directory", KINDS_DIR);
    cr_assert_eq(insee_registry_plugins(reg)->len, 6);
    const GPtrArray *notices = insee_registry_notices(reg);
    cr_assert_eq(notices->len, 1);
    cr_assert(contains(g_ptr_array_index(notices, 0),
                       "plugin directory " FIXTURE_DIR "/no-such-directory does not exist"),
              "%s", (const char *)g_ptr_array_index(notices, 0));
    insee_registry_free(reg);
}

Test(registry, a_later_scan_visits_only_new_directories)
{
    insee_registry *reg = scan_dirs(KINDS_DIR, NULL);
    insee_registry_add_dir(reg, SECOND_DIR);
    insee_registry_scan(reg);
    cr_assert_eq(insee_registry_plugins(reg)->len, 7);
    /* A directory listed twice holds the same files, not shadowing copies. */
    insee_registry_add_dir(reg, KINDS_DIR);
    insee_registry_scan(reg);
    cr_assert_eq(insee_registry_plugins(reg)->len, 7);
    cr_assert_eq(insee_registry_notices(reg)->len, 0);
    insee_registry_free(reg);
}

Test(registry, add_file_loads_one_plugin)
{
    insee_registry *reg = insee_registry_new();
    const insee_plugin *p = insee_registry_add_file(reg, MIXED_DIR "/good.so");
    cr_assert_not_null(p);
    cr_assert_not(p->refused);
    cr_assert_eq(insee_registry_find(reg, INSEE_KIND_ARBITER, "fixture-good"), p);
    /* The same file again, even spelled differently, is the same entry. */
    cr_assert_eq(insee_registry_add_file(reg, MIXED_DIR "/../mixed/good.so"), p);

    const insee_plugin *missing = insee_registry_add_file(reg, MIXED_DIR "/absent.so");
    cr_assert(missing->refused);
    cr_assert(contains(missing->reason, "absent.so: cannot open"), "%s", missing->reason);
    cr_assert_eq(insee_registry_plugins(reg)->len, 2);
    insee_registry_free(reg);
}

Test(registry, short_but_sufficient_vtable_reads_optional_entries_as_null)
{
    insee_registry *reg = scan_dirs(MIXED_DIR, NULL);
    const insee_plugin *p = insee_registry_find(reg, INSEE_KIND_ARBITER, "fixture-short-ok");
    cr_assert_not_null(p);
    const insee_arbiter_vtable *vt = p->vtable;
    cr_assert_eq(vt->size, offsetof(insee_arbiter_vtable, state_size));
    cr_assert_not_null(vt->pick);
    /* The plugin's static table has state_size set past its declared size;
       the kernel must not have copied it. */
    const insee_arbiter_vtable *theirs = p->desc->vtable;
    cr_assert_not_null(theirs->state_size);
    cr_assert_null(vt->state_size);
    insee_registry_free(reg);
}

Test(registry, one_plugin_of_every_kind_loads)
{
    insee_registry *reg = scan_dirs(KINDS_DIR, NULL);
    for (insee_kind k = INSEE_KIND_TOPOLOGY; k <= INSEE_KIND_BRIDGE; k++) {
        char *name = g_strconcat("kind-", insee_kind_name(k), NULL);
        const insee_plugin *p = insee_registry_find(reg, k, name);
        cr_assert_not_null(p, "%s", name);
        cr_assert_eq(insee_registry_find_any(reg, name), p);
        cr_assert_not_null(p->vtable);
        cr_assert_eq(*(const uint32_t *)p->vtable, insee_kind_vtable_size(k));
        g_free(name);
    }
    insee_registry_free(reg);
}

Test(registry, kind_names_round_trip)
{
    for (insee_kind k = INSEE_KIND_TOPOLOGY; k <= INSEE_KIND_BRIDGE; k++)
        cr_assert_eq(insee_kind_from_name(insee_kind_name(k)), k);
    cr_assert_str_eq(insee_kind_name(INSEE_KIND_ROUTER), "router");
    cr_assert_str_eq(insee_kind_name(INSEE_KIND_PLACEMENT), "placement");
    cr_assert_str_eq(insee_kind_name(0), "unknown");
    cr_assert_str_eq(insee_kind_name((insee_kind)42), "unknown");
    cr_assert_eq(insee_kind_from_name("unknown"), 0);
    cr_assert_eq(insee_kind_from_name("Router"), 0);
    cr_assert_eq(insee_kind_from_name(NULL), 0);
}

Test(registry, kind_vtable_sizes_are_the_kernel_sizeofs)
{
    cr_assert_eq(insee_kind_vtable_size(INSEE_KIND_TOPOLOGY), sizeof(insee_topology_vtable));
    cr_assert_eq(insee_kind_vtable_size(INSEE_KIND_ROUTER), sizeof(insee_router_vtable));
    cr_assert_eq(insee_kind_vtable_size(INSEE_KIND_ARBITER), sizeof(insee_arbiter_vtable));
    cr_assert_eq(insee_kind_vtable_size(INSEE_KIND_TRAFFIC), sizeof(insee_traffic_vtable));
    cr_assert_eq(insee_kind_vtable_size(INSEE_KIND_PLACEMENT), sizeof(insee_placement_vtable));
    cr_assert_eq(insee_kind_vtable_size(INSEE_KIND_BRIDGE), sizeof(insee_bridge_vtable));
    cr_assert_eq(insee_kind_vtable_size(INSEE_KIND_ROUTING), sizeof(insee_routing_vtable));
    cr_assert_eq(insee_kind_vtable_size(INSEE_KIND_SELECTION), sizeof(insee_selection_vtable));
    cr_assert_eq(insee_kind_vtable_size(INSEE_KIND_ALLOCATION), sizeof(insee_allocation_vtable));
    cr_assert_eq(insee_kind_vtable_size(0), 0);
    cr_assert_eq(insee_kind_vtable_size((insee_kind)10), 0);
}

Test(registry, debug_trace_reports_every_attempt, .init = cr_redirect_stderr)
{
    g_setenv("INSEE_DEBUG_PLUGINS", "1", TRUE);
    insee_registry *reg = scan_dirs(FIXTURE_DIR "/no-such-directory", MIXED_DIR);
    insee_registry_free(reg);
    fflush(stderr);
    fclose(stderr); /* the redirected stream is read until end of file */

    GString *trace = g_string_new(NULL);
    char buf[4096];
    size_t n;
    FILE *f = cr_get_redirected_stderr();
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        g_string_append_len(trace, buf, (gssize)n);
    cr_assert(contains(trace->str, "insee: plugin: directory " FIXTURE_DIR
                                   "/no-such-directory does not exist"),
              "%s", trace->str);
    cr_assert(contains(trace->str, "insee: plugin: trying " MIXED_DIR "/good.so ... ok"), "%s",
              trace->str);
    cr_assert(contains(trace->str, "insee: plugin: trying " MIXED_DIR "/no-pick.so ... refused ["),
              "%s", trace->str);
    /* One line per .so file. */
    guint attempts = 0;
    for (const char *s = trace->str; (s = strstr(s, "trying ")); s++)
        attempts++;
    cr_assert_eq(attempts, 17);
    g_string_free(trace, TRUE);
}

Test(registry, no_trace_without_debug, .init = cr_redirect_stderr)
{
    g_unsetenv("INSEE_DEBUG_PLUGINS");
    insee_registry_free(scan_dirs(MIXED_DIR, NULL));
    fflush(stderr);
    cr_assert_stderr_eq_str("");
}

Test(registry, default_dir_prefers_plugins_next_to_the_program)
{
    /* The test program's directory has a plugins/ (made by CMake). */
    char *dir = insee_registry_default_dir();
    cr_assert(g_str_has_suffix(dir, "/tests/plugin/plugins"), "%s", dir);
    cr_assert(g_file_test(dir, G_FILE_TEST_IS_DIR));
    g_free(dir);
}
