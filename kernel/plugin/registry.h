/* kernel/plugin/registry.h — find, check, register and load plugins.
 *
 * Contract
 * --------
 * The CLI creates one registry, adds directories in discovery order
 * (docs/architecture.md §6: every --plugin-dir, then INSEE_PLUGIN_PATH, then
 * the config's [plugins] dirs, then the default directory), and scans once.
 * Scanning visits every "*.so" of each directory in sorted order and learns
 * what each is (kind, name, version, summary, or why it cannot be used)
 * without loading it into this process: from the registry cache (cache.h)
 * when the file has not changed, else from the scanner helper, a separate
 * process with a time limit (probe.h). A truncated file, a plugin whose
 * constructor or entry function crashes, calls exit() or never returns, or a
 * file built for another machine is therefore a refused entry with its
 * reason, never the end of the program. A plugin that cannot be used never
 * stops the others. The first plugin found for a (kind, name) wins; later
 * ones are refused as shadowed and a notice names both files.
 * INSEE_DEBUG_PLUGINS=1 traces every attempt, and whether its verdict came
 * from the cache.
 *
 * Only the plugins asked for are loaded into the process (dlopen), by
 * insee_registry_find() and insee_registry_find_any(), on first use. That
 * is why they take a const registry yet may change it: the answer to "which
 * plugin is X" does not change, only whether its code is mapped — except
 * that a plugin that cannot be loaded after all (the file changed since the
 * scan, or it answers differently in this process) turns into a refused
 * entry with its reason, and the lookup answers NULL.
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

#include "probe.h"

G_BEGIN_DECLS

typedef struct insee_plugin {
    char *path;                     /* the .so file */
    insee_kind kind;                /* 0 when refused before the descriptor was read */
    char *name;                     /* NULL when refused before the descriptor was read */
    char *version, *summary;        /* from the descriptor; NULL when not known */
    uint32_t abi_major, abi_minor;  /* ABI it was built for; 0 when not known */
    gboolean refused;
    char *reason;                   /* why it was refused (NULL when usable) */
    const insee_plugin_desc *desc;  /* NULL until loaded (find), and when refused */
    const void *vtable;             /* kernel-sized zero-padded copy; NULL likewise */
} insee_plugin;

typedef struct insee_registry insee_registry;

insee_registry *insee_registry_new(void);
void insee_registry_free(insee_registry *reg);

/* Append a directory to the discovery order. When scanned, a missing
   directory is skipped with a notice (a typo in --plugin-dir), and so is
   one that others could write code into: writable by every user, or by a
   group that is not its owner's private group, or owned by someone other
   than root and the user running insee. The default directory is exempt
   from both: it comes with insee itself. */
void insee_registry_add_dir(insee_registry *reg, const char *dir);
/* Register one file directly (insee-conform), checked like a scanned one but
   not loaded; returns the entry, usable or refused. */
const insee_plugin *insee_registry_add_file(insee_registry *reg, const char *path);
/* Open every directory added so far, in order. Call once; later add_dir
   calls need another scan, which only visits the new directories. */
void insee_registry_scan(insee_registry *reg);

/* The usable plugin of that kind and name, loaded, or NULL. */
const insee_plugin *insee_registry_find(const insee_registry *reg, insee_kind kind,
                                        const char *name);
/* The usable plugin of any kind with that name (first in kind order),
   loaded, or NULL. */
const insee_plugin *insee_registry_find_any(const insee_registry *reg, const char *name);
/* Every entry, usable and refused, in discovery order (element: insee_plugin *). */
const GPtrArray *insee_registry_plugins(const insee_registry *reg);
/* Human notices gathered while scanning (shadowing, refusals): char *. */
const GPtrArray *insee_registry_notices(const insee_registry *reg);

/* For the scanner helper: load `path` in this process and run every check
   of a plugin (not shadowing, which depends on the others), filling `f`. */
void insee_plugin_inspect(const char *path, insee_plugin_facts *f);

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
