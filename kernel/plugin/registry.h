/* kernel/plugin/registry.h — find, load, check and register plugins.
 *
 * Contract
 * --------
 * The CLI creates one registry, adds directories in discovery order (DESIGN
 * §4 rule 9: every --plugin-dir, then INSEE_PLUGIN_PATH, then the config's
 * [plugins] dirs, then the default directory), and scans once. Scanning opens
 * every "*.so" of each directory in sorted order; a plugin that cannot be used
 * is kept as a refused entry with its reason, and never stops the others. The
 * first plugin found for a (kind, name) wins; later ones are refused as
 * shadowed and a notice names both files. INSEE_DEBUG_PLUGINS=1 traces every
 * attempt on stderr.
 *
 * Memory: the registry owns every insee_plugin, its strings, its kernel copy
 * of the vtable and the dlopen handle; all stay valid until
 * insee_registry_free(). The vtable copy is min(plugin size, kernel size)
 * bytes over a zeroed kernel-sized table, so optional entries the plugin does
 * not know read as NULL.
 */
#ifndef INSEE_KERNEL_REGISTRY_H
#define INSEE_KERNEL_REGISTRY_H

#include <glib.h>
#include <insee/insee.h>

G_BEGIN_DECLS

typedef struct insee_plugin {
    char *path;                     /* the .so file */
    insee_kind kind;                /* 0 when refused before the descriptor was read */
    char *name;                     /* NULL when refused before the descriptor was read */
    const insee_plugin_desc *desc;  /* NULL when refused */
    const void *vtable;             /* kernel-sized zero-padded copy; NULL when refused */
    gboolean refused;
    char *reason;                   /* why it was refused (NULL when usable) */
} insee_plugin;

typedef struct insee_registry insee_registry;

insee_registry *insee_registry_new(void);
void insee_registry_free(insee_registry *reg);

/* Append a directory to the discovery order (missing directories are noted
   under INSEE_DEBUG_PLUGINS and otherwise ignored). */
void insee_registry_add_dir(insee_registry *reg, const char *dir);
/* Load one file directly (insee-conform); returns the entry, usable or refused. */
const insee_plugin *insee_registry_add_file(insee_registry *reg, const char *path);
/* Open every directory added so far, in order. Call once; later add_dir
   calls need another scan, which only visits the new directories. */
void insee_registry_scan(insee_registry *reg);

/* The usable plugin of that kind and name, or NULL. */
const insee_plugin *insee_registry_find(const insee_registry *reg, insee_kind kind,
                                        const char *name);
/* The usable plugin of any kind with that name (first in kind order), or NULL. */
const insee_plugin *insee_registry_find_any(const insee_registry *reg, const char *name);
/* Every entry, usable and refused, in discovery order (element: insee_plugin *). */
const GPtrArray *insee_registry_plugins(const insee_registry *reg);
/* Human notices gathered while scanning (shadowing, refusals): char *. */
const GPtrArray *insee_registry_notices(const insee_registry *reg);

/* "topology", "router", ... ; "unknown" for anything else. */
const char *insee_kind_name(insee_kind kind);
/* Parse a kind name; 0 when it is not one. */
insee_kind insee_kind_from_name(const char *name);
/* sizeof the kernel's vtable for that kind; 0 for an unknown kind. */
size_t insee_kind_vtable_size(insee_kind kind);

/* The default plugin directory: <dir of the running program>/plugins when it
   exists (build tree), else the installed one. Newly allocated. */
char *insee_registry_default_dir(void);

G_END_DECLS
#endif
