/* tests/plugin/plugin_test.h — helpers shared by the loader tests. */
#ifndef INSEE_TEST_PLUGIN_H
#define INSEE_TEST_PLUGIN_H

#include "plugin/registry.h"

#define MIXED_DIR FIXTURE_DIR "/mixed"
#define SECOND_DIR FIXTURE_DIR "/second"
#define KINDS_DIR FIXTURE_DIR "/kinds"

/* A registry that has scanned `first`, then `second` (may be NULL). */
static inline insee_registry *scan_dirs(const char *first, const char *second)
{
    insee_registry *reg = insee_registry_new();
    insee_registry_add_dir(reg, first);
    if (second)
        insee_registry_add_dir(reg, second);
    insee_registry_scan(reg);
    return reg;
}

/* The entry, usable or refused, loaded from the file `dir`/`file`. */
static inline const insee_plugin *entry_for(const insee_registry *reg, const char *dir,
                                            const char *file)
{
    char *path = g_build_filename(dir, file, NULL);
    const insee_plugin *found = NULL;
    const GPtrArray *all = insee_registry_plugins(reg);
    for (guint i = 0; i < all->len && !found; i++) {
        const insee_plugin *p = g_ptr_array_index(all, i);
        if (strcmp(p->path, path) == 0)
            found = p;
    }
    g_free(path);
    return found;
}

#endif
