/* kernel/plugin/registry.c — the plugin loader (docs/architecture.md §5, §6);
 * contract in registry.h.
 *
 * A file is known by its facts (probe.h): from the cache, or found by the
 * scanner helper, which runs insee_plugin_inspect() in its own process.
 * Both the scanner and a load into this process go through one linear
 * series of checks (check_desc); the first that fails becomes the entry's
 * reason, so a broken plugin is described precisely and never stops the
 * scan. The order matters: nothing past the first three descriptor fields
 * is read before the ABI major and the descriptor size say the layout is
 * ours.
 */
#include "registry.h"

#include "cache.h"
#include "config/config.h"
#include "elf_check.h"
#include "guard.h"
#include "sanitizer.h"

#include <errno.h>
#include <gmodule.h>
#include <grp.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Under AddressSanitizer, modules stay mapped until the process exits: LSan
   reports leaks at exit, and a leak allocated by a plugin that was dlclose'd
   by then has "<unknown module>" frames nobody can act on. Closing the
   handle still drops our reference and frees the entry; only the mapping
   (and GLib's record of it, which stays reachable) remains. Normal builds
   unload for real so that a long-lived process does not pin refused .so
   files. */
#ifdef INSEE_ASAN
#define INSEE_KEEP_MODULES_RESIDENT 1
#endif

/* ---- what the kernel knows about each kind ------------------------------ */

/* A required vtable entry: its name for messages and where it sits. */
typedef struct required_entry {
    const char *name;
    size_t offset;
} required_entry;

#define REQUIRED(T, f) { #f, offsetof(T, f) }

/* The "minor 0 — required" entries of each header, in declaration order:
   the last one decides how long a vtable must be. */
static const required_entry topology_required[] = {
    REQUIRED(insee_topology_vtable, create),      REQUIRED(insee_topology_vtable, destroy),
    REQUIRED(insee_topology_vtable, info),        REQUIRED(insee_topology_vtable, ports),
    REQUIRED(insee_topology_vtable, link),        REQUIRED(insee_topology_vtable, node_router),
    REQUIRED(insee_topology_vtable, minimal_hops),
};
static const required_entry router_required[] = {
    REQUIRED(insee_router_vtable, create),
    REQUIRED(insee_router_vtable, destroy),
    REQUIRED(insee_router_vtable, route),
};
static const required_entry arbiter_required[] = {
    REQUIRED(insee_arbiter_vtable, create),
    REQUIRED(insee_arbiter_vtable, destroy),
    REQUIRED(insee_arbiter_vtable, pick),
};
static const required_entry traffic_required[] = {
    REQUIRED(insee_traffic_vtable, create),
    REQUIRED(insee_traffic_vtable, destroy),
    REQUIRED(insee_traffic_vtable, start),
    REQUIRED(insee_traffic_vtable, emit),
};
static const required_entry placement_required[] = {
    REQUIRED(insee_placement_vtable, create),
    REQUIRED(insee_placement_vtable, destroy),
    REQUIRED(insee_placement_vtable, place),
};
static const required_entry routing_required[] = {
    REQUIRED(insee_routing_vtable, create),
    REQUIRED(insee_routing_vtable, destroy),
    REQUIRED(insee_routing_vtable, paths),
};
static const required_entry selection_required[] = {
    REQUIRED(insee_selection_vtable, create),
    REQUIRED(insee_selection_vtable, destroy),
    REQUIRED(insee_selection_vtable, select),
};
static const required_entry allocation_required[] = {
    REQUIRED(insee_allocation_vtable, create),
    REQUIRED(insee_allocation_vtable, destroy),
    REQUIRED(insee_allocation_vtable, allocate),
};
static const required_entry bridge_required[] = {
    REQUIRED(insee_bridge_vtable, create),
    REQUIRED(insee_bridge_vtable, destroy),
    REQUIRED(insee_bridge_vtable, sync),
};

typedef struct kind_info {
    const char *name;
    size_t vtable_size; /* the kernel's sizeof */
    const required_entry *required;
    size_t n_required;
} kind_info;

#define KIND(kname, T, req) { kname, sizeof(T), req, G_N_ELEMENTS(req) }

/* Indexed by insee_kind; slot 0 is "no kind". */
static const kind_info kinds[] = {
    [INSEE_KIND_TOPOLOGY] = KIND("topology", insee_topology_vtable, topology_required),
    [INSEE_KIND_ROUTER] = KIND("router", insee_router_vtable, router_required),
    [INSEE_KIND_ARBITER] = KIND("arbiter", insee_arbiter_vtable, arbiter_required),
    [INSEE_KIND_TRAFFIC] = KIND("traffic", insee_traffic_vtable, traffic_required),
    [INSEE_KIND_PLACEMENT] = KIND("placement", insee_placement_vtable, placement_required),
    [INSEE_KIND_BRIDGE] = KIND("bridge", insee_bridge_vtable, bridge_required),
    [INSEE_KIND_ROUTING] = KIND("routing", insee_routing_vtable, routing_required),
    [INSEE_KIND_SELECTION] = KIND("selection", insee_selection_vtable, selection_required),
    [INSEE_KIND_ALLOCATION] = KIND("allocation", insee_allocation_vtable, allocation_required),
};

/* Every function pointer has the same size on the platforms insee targets
   (POSIX dlsym relies on it too). */
typedef void (*any_fn)(void);

/* The descriptor fields this kernel reads: everything up to `vtable`. A
   later minor that appends fields must check desc->size before reading them. */
#define DESC_NEEDED (offsetof(insee_plugin_desc, vtable) + sizeof(const void *))

static const kind_info *kind_lookup(insee_kind kind)
{
    /* The value may come straight from a plugin: anything is possible. */
    if ((unsigned)kind >= G_N_ELEMENTS(kinds) || !kinds[kind].name)
        return NULL;
    return &kinds[kind];
}

const char *insee_kind_name(insee_kind kind)
{
    const kind_info *ki = kind_lookup(kind);
    return ki ? ki->name : "unknown";
}

insee_kind insee_kind_from_name(const char *name)
{
    if (!name)
        return 0;
    for (size_t k = 0; k < G_N_ELEMENTS(kinds); k++)
        if (kinds[k].name && strcmp(kinds[k].name, name) == 0)
            return (insee_kind)k;
    return 0;
}

size_t insee_kind_vtable_size(insee_kind kind)
{
    const kind_info *ki = kind_lookup(kind);
    return ki ? ki->vtable_size : 0;
}

/* ---- checking a plugin --------------------------------------------------- */

static char *kind_list(void)
{
    GString *s = g_string_new(NULL);
    for (size_t k = 0; k < G_N_ELEMENTS(kinds); k++)
        if (kinds[k].name)
            g_string_append_printf(s, "%s%s (%zu)", s->len ? ", " : "", kinds[k].name, k);
    return g_string_free(s, FALSE);
}

/* Every check of the descriptor, filling f as far as it gets. Returns NULL
   when the plugin is usable (*copy then holds the kernel's vtable copy),
   else why not. */
static char *check_desc(const insee_plugin_desc *desc, insee_plugin_facts *f, void **copy)
{
    if (!desc)
        return g_strdup(INSEE_ENTRY_SYMBOL "() returned NULL; it must return the plugin's "
                                           "static descriptor");
    f->abi_major = desc->abi_major;
    f->abi_minor = desc->abi_minor;
    if (desc->abi_major != INSEE_ABI_MAJOR)
        return g_strdup_printf("built for insee plugin ABI %u.%u, this kernel has ABI %u.%u; "
                               "rebuild the plugin against this SDK",
                               desc->abi_major, desc->abi_minor, INSEE_ABI_MAJOR, INSEE_ABI_MINOR);
    if (desc->size < DESC_NEEDED)
        return g_strdup_printf("descriptor is %u bytes, smaller than the %zu bytes this kernel "
                               "reads; rebuild the plugin against this SDK",
                               desc->size, (size_t)DESC_NEEDED);

    /* The layout is ours from here: record what identifies the plugin, so a
       refused entry can still be listed by kind and name. */
    const kind_info *ki = kind_lookup(desc->kind);
    if (ki)
        f->kind = desc->kind;
    f->name = g_strdup(desc->name);
    f->version = g_strdup(desc->version);
    f->summary = g_strdup(desc->summary);

    if (desc->abi_minor > INSEE_ABI_MINOR)
        return g_strdup_printf("built for insee plugin ABI %u.%u, this kernel has ABI %u.%u; "
                               "upgrade insee or rebuild the plugin against this SDK",
                               desc->abi_major, desc->abi_minor, INSEE_ABI_MAJOR, INSEE_ABI_MINOR);
    if (!ki) {
        char *known = kind_list();
        char *reason = g_strdup_printf("unknown plugin kind %d (this kernel knows %s)",
                                       (int)desc->kind, known);
        g_free(known);
        return reason;
    }
    if (!desc->name || !*desc->name)
        return g_strdup_printf("the %s plugin's descriptor has no name", ki->name);
    if (!insee_plugin_name_valid(desc->name)) {
        /* The name goes no further, escaped once here: it may hold a
           newline or markup that listings and reports would pass on. */
        char *head = g_strndup(desc->name, 64);
        char *shown = g_strescape(head, NULL);
        g_free(head);
        g_clear_pointer(&f->name, g_free);
        char *reason = g_strdup_printf("the %s plugin's name \"%s\" is not a plugin name: use 1 "
                                       "to 63 characters of a-z, 0-9 and '-', not starting or "
                                       "ending with '-'; rename it",
                                       ki->name, shown);
        g_free(shown);
        return reason;
    }
    if (!desc->vtable)
        return g_strdup_printf("%s plugin '%s' has no vtable", ki->name, desc->name);

    const required_entry *last = &ki->required[ki->n_required - 1];
    size_t needed = last->offset + sizeof(any_fn);
    uint32_t plugin_size = *(const uint32_t *)desc->vtable;
    if (plugin_size < needed)
        return g_strdup_printf("short vtable: %u bytes, but the required entries of the %s vtable "
                               "(up to '%s') take %zu; rebuild the plugin against this SDK",
                               plugin_size, ki->name, last->name, needed);

    /* The kernel's copy: entries the plugin does not know read as NULL. */
    void *table = g_malloc0(ki->vtable_size);
    memcpy(table, desc->vtable, MIN((size_t)plugin_size, ki->vtable_size));
    for (size_t i = 0; i < ki->n_required; i++) {
        any_fn fn;
        memcpy(&fn, (const char *)table + ki->required[i].offset, sizeof fn);
        if (!fn) {
            g_free(table);
            return g_strdup_printf("required entry '%s' of the %s vtable is NULL",
                                   ki->required[i].name, ki->name);
        }
    }

    char *owner = g_strdup_printf("%s plugin '%s'", ki->name, desc->name);
    GError *err = NULL;
    gboolean params_ok = insee_params_check_table(desc->params, owner, &err);
    g_free(owner);
    if (!params_ok) {
        g_free(table);
        char *reason = g_strdup_printf("bad parameter table: %s", err->message);
        g_error_free(err);
        return reason;
    }
    *copy = table;
    return NULL;
}

static GModule *open_module(const char *path, char **why)
{
    /* Every symbol bound now: a plugin that needs one nobody provides is
       refused here, not ended by the dynamic linker in the middle of a run. */
    GModule *module = g_module_open(path, G_MODULE_BIND_LOCAL);
    if (!module)
        *why = g_strdup_printf("cannot open: %s", g_module_error());
    return module;
}

static void close_handle(GModule *module)
{
#ifdef INSEE_KEEP_MODULES_RESIDENT
    g_module_make_resident(module);
#endif
    g_module_close(module);
}

/* Call the entry of an open module and check what it returns. NULL when
   usable (*desc and *copy set), else why not. */
static char *check_module(GModule *module, insee_plugin_facts *f, const insee_plugin_desc **desc,
                          void **copy)
{
    gpointer sym = NULL;
    if (!g_module_symbol(module, INSEE_ENTRY_SYMBOL, &sym) || !sym)
        return g_strdup("not an insee plugin: no symbol " INSEE_ENTRY_SYMBOL
                        "; build it with INSEE_PLUGIN_DEFINE");
    *desc = ((insee_entry_fn)sym)();
    return check_desc(*desc, f, copy);
}

void insee_plugin_inspect(const char *path, insee_plugin_facts *f)
{
    *f = (insee_plugin_facts){0};
    f->refusal = insee_elf_check(path);
    if (f->refusal)
        return;
    GModule *module = open_module(path, &f->refusal);
    if (!module)
        return;
    const insee_plugin_desc *desc = NULL;
    void *copy = NULL;
    f->refusal = check_module(module, f, &desc, &copy);
    g_free(copy);
    close_handle(module);
}

/* ---- the registry -------------------------------------------------------- */

/* The public entry comes first so that an entry * is also an insee_plugin *. */
typedef struct entry {
    insee_plugin pub;
    insee_file_key key; /* the file as checked: a load makes sure it is still that one */
    GModule *module;    /* set while loaded into this process */
} entry;

struct insee_registry {
    GPtrArray *dirs;     /* char *, discovery order */
    guint scanned;       /* dirs[0, scanned) have been visited */
    GPtrArray *plugins;  /* entry *, discovery order */
    GPtrArray *notices;  /* char * */
    gboolean debug;      /* INSEE_DEBUG_PLUGINS */
    insee_cache *cache;  /* opened when the first file is checked */
    char *default_dir;   /* insee_registry_default_dir(): the one trusted directory */
};

static void trace(const insee_registry *reg, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
static void trace(const insee_registry *reg, const char *fmt, ...)
{
    if (!reg->debug)
        return;
    va_list ap;
    va_start(ap, fmt);
    char *line = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    /* Formatted first so the line reaches stderr in one call and traces
       from concurrent registries do not interleave mid-line. */
    fprintf(stderr, "insee: plugin: %s\n", line);
    g_free(line);
}

static void unload(entry *e)
{
    if (!e->module)
        return;
    insee_guard_remove(e->pub.path);
    close_handle(e->module);
    e->module = NULL;
}

static void entry_free(gpointer data)
{
    entry *e = data;
    unload(e);
    g_free(e->pub.path);
    g_free(e->pub.name);
    g_free(e->pub.version);
    g_free(e->pub.summary);
    g_free(e->pub.reason);
    g_free((gpointer)e->pub.vtable);
    g_free(e);
}

insee_registry *insee_registry_new(void)
{
    insee_registry *reg = g_new0(insee_registry, 1);
    reg->dirs = g_ptr_array_new_with_free_func(g_free);
    reg->plugins = g_ptr_array_new_with_free_func(entry_free);
    reg->notices = g_ptr_array_new_with_free_func(g_free);
    const char *debug = g_getenv("INSEE_DEBUG_PLUGINS");
    reg->debug = debug && *debug && strcmp(debug, "0") != 0;
    reg->default_dir = insee_registry_default_dir();
    return reg;
}

void insee_registry_free(insee_registry *reg)
{
    if (!reg)
        return;
    g_ptr_array_free(reg->dirs, TRUE);
    g_ptr_array_free(reg->plugins, TRUE);
    g_ptr_array_free(reg->notices, TRUE);
    insee_cache_free(reg->cache);
    g_free(reg->default_dir);
    g_free(reg);
}

/* The usable entry of that kind and name, loaded or not. */
static entry *usable(const insee_registry *reg, insee_kind kind, const char *name)
{
    for (guint i = 0; name && i < reg->plugins->len; i++) {
        entry *e = g_ptr_array_index(reg->plugins, i);
        if (!e->pub.refused && e->pub.kind == kind && g_strcmp0(e->pub.name, name) == 0)
            return e;
    }
    return NULL;
}

/* Refuse e for `why` (taken), which the reason prefixes with the file name. */
static void refuse(insee_registry *reg, entry *e, char *why, const char *source)
{
    char *file = g_path_get_basename(e->pub.path);
    e->pub.refused = TRUE;
    e->pub.reason = g_strdup_printf("%s: %s", file, why);
    g_free(file);
    e->pub.desc = NULL;
    g_clear_pointer((gpointer *)&e->pub.vtable, g_free);
    unload(e);
    trace(reg, "trying %s ... refused%s: %s", e->pub.path, source, why);
    g_ptr_array_add(reg->notices, g_strdup_printf("plugin %s refused: %s", e->pub.path, why));
    g_free(why);
}

/* "router plugin 'dally' (/path/router-dally.so)": a plugin in messages. */
static char *label_of(const insee_plugin *p)
{
    return g_strdup_printf("%s plugin '%s' (%s)", insee_kind_name(p->kind), p->name, p->path);
}

/* Map a usable entry's code into this process, checking again that it is
   the file that was checked and that it says the same. */
static gboolean load(insee_registry *reg, entry *e)
{
    if (e->pub.refused)
        return FALSE;
    if (e->module)
        return TRUE;
    insee_file_key now;
    if (!insee_file_key_read(e->pub.path, &now) || !insee_file_key_equal(&now, &e->key)) {
        refuse(reg, e,
               g_strdup("changed on disk since it was checked (rebuilt or copied meanwhile?); "
                        "run the command again"),
               "");
        return FALSE;
    }
    char *label = label_of(&e->pub);
    char *why = NULL;
    insee_plugin_facts f = {0};
    const insee_plugin_desc *desc = NULL;
    void *copy = NULL;
    insee_guard_loading(label);
    e->module = open_module(e->pub.path, &why);
    if (e->module)
        why = check_module(e->module, &f, &desc, &copy);
    insee_guard_loading(NULL);
    if (!why && (f.kind != e->pub.kind || g_strcmp0(f.name, e->pub.name) != 0))
        why = g_strdup_printf("identifies itself as %s '%s' when loaded, not as when it was "
                              "checked",
                              insee_kind_name(f.kind), f.name);
    insee_plugin_facts_clear(&f);
    if (why) {
        g_free(copy);
        refuse(reg, e, why, "");
    } else {
        e->pub.desc = desc;
        e->pub.vtable = copy;
        insee_guard_add(e->pub.path, label);
        trace(reg, "loaded %s", e->pub.path);
    }
    g_free(label);
    return !why;
}

/* Lookups load on first use (registry.h says why the registry is const). */
const insee_plugin *insee_registry_find(const insee_registry *reg, insee_kind kind,
                                        const char *name)
{
    entry *e = usable(reg, kind, name);
    return e && load((insee_registry *)reg, e) ? &e->pub : NULL;
}

const insee_plugin *insee_registry_find_any(const insee_registry *reg, const char *name)
{
    for (size_t k = 1; k < G_N_ELEMENTS(kinds); k++) {
        const insee_plugin *p = insee_registry_find(reg, (insee_kind)k, name);
        if (p)
            return p;
    }
    return NULL;
}

const GPtrArray *insee_registry_plugins(const insee_registry *reg)
{
    return reg->plugins;
}

const GPtrArray *insee_registry_notices(const insee_registry *reg)
{
    return reg->notices;
}

/* ---- checking files ------------------------------------------------------ */

static insee_cache *cache_of(insee_registry *reg)
{
    if (!reg->cache) {
        char *note = NULL;
        reg->cache = insee_cache_open(&note);
        if (note)
            trace(reg, "registry cache: %s", note);
        g_free(note);
    }
    return reg->cache;
}

/* A file refused before its descriptor said what it is (built for another
   ABI major, say) is known by its file name when that follows the SDK's
   <kind>-<name>.so, so that a config naming it hears why it was refused
   rather than that there is no such plugin. */
static void name_from_file(const char *path, insee_plugin_facts *f)
{
    char *file = g_path_get_basename(path);
    char *dash = strchr(file, '-');
    if (dash && g_str_has_suffix(dash, ".so")) {
        *dash = '\0';
        dash[strlen(dash + 1) + 1 - strlen(".so")] = '\0';
        insee_kind kind = insee_kind_from_name(file);
        if (kind && (!f->kind || f->kind == kind) && insee_plugin_name_valid(dash + 1)) {
            f->kind = kind;
            f->name = g_strdup(dash + 1);
        }
    }
    g_free(file);
}

/* Register entry e with its facts (taken), after the entries before it:
   usable unless refused or shadowed. */
static void settle(insee_registry *reg, entry *e, insee_plugin_facts *f, const char *source)
{
    if (f->refusal && !f->name)
        name_from_file(e->pub.path, f);
    e->pub.kind = f->kind;
    e->pub.name = g_steal_pointer(&f->name);
    e->pub.version = g_steal_pointer(&f->version);
    e->pub.summary = g_steal_pointer(&f->summary);
    e->pub.abi_major = f->abi_major;
    e->pub.abi_minor = f->abi_minor;
    char *why = g_steal_pointer(&f->refusal);
    /* Last, so that only a usable plugin can shadow or be shadowed. */
    const entry *first = why ? NULL : usable(reg, e->pub.kind, e->pub.name);
    if (first)
        why = g_strdup_printf("shadowed by %s (the first %s plugin '%s' found wins)",
                              first->pub.path, insee_kind_name(e->pub.kind), e->pub.name);
    g_ptr_array_add(reg->plugins, e);
    if (why)
        refuse(reg, e, why, source);
    else
        trace(reg, "trying %s ... ok (%s '%s')%s", e->pub.path, insee_kind_name(e->pub.kind),
              e->pub.name, source);
}

/* Check the files (canonical paths, none registered yet, taken) and
   register them in order: known files from the cache, the others through
   the scanner, all of them at once. */
static void check_files(insee_registry *reg, GPtrArray *paths)
{
    guint n = paths->len;
    entry **es = g_new0(entry *, n);
    insee_plugin_facts *facts = g_new0(insee_plugin_facts, n);
    const char **source = g_new0(const char *, n);
    GPtrArray *todo = g_ptr_array_new(); /* paths to probe */
    GArray *todo_at = g_array_new(FALSE, FALSE, sizeof(guint));
    for (guint i = 0; i < n; i++) {
        es[i] = g_new0(entry, 1);
        es[i]->pub.path = g_steal_pointer(&g_ptr_array_index(paths, i));
        source[i] = "";
        if (!insee_file_key_read(es[i]->pub.path, &es[i]->key)) {
            facts[i].refusal = g_strdup_printf("cannot open: %s", g_strerror(errno));
            continue;
        }
        const insee_plugin_facts *known =
            insee_cache_lookup(cache_of(reg), es[i]->pub.path, &es[i]->key);
        if (known) {
            insee_plugin_facts_copy(&facts[i], known);
            source[i] = " [cached]";
        } else {
            g_ptr_array_add(todo, es[i]->pub.path);
            g_array_append_val(todo_at, i);
        }
    }
    if (todo->len) {
        char *scanner = insee_scanner_path();
        double timeout = insee_scan_timeout();
        trace(reg, "probing %u file%s with %s, %g s each", todo->len, todo->len == 1 ? "" : "s",
              scanner, timeout);
        insee_plugin_facts *probed = g_new0(insee_plugin_facts, todo->len);
        gboolean *own = g_new0(gboolean, todo->len);
        insee_probe_files(scanner, timeout, (const char *const *)todo->pdata, todo->len, probed,
                          own);
        for (guint j = 0; j < todo->len; j++) {
            guint i = g_array_index(todo_at, guint, j);
            if (own[j])
                insee_cache_remember(reg->cache, es[i]->pub.path, &es[i]->key, &probed[j]);
            facts[i] = probed[j];
            source[i] = " [probed]";
        }
        g_free(probed);
        g_free(own);
        g_free(scanner);
    }
    for (guint i = 0; i < n; i++)
        settle(reg, es[i], &facts[i], source[i]);
    GError *err = NULL;
    if (reg->cache && !insee_cache_save(reg->cache, &err)) {
        trace(reg, "registry cache: not saved: %s", err->message);
        g_error_free(err);
    }
    g_ptr_array_free(todo, TRUE);
    g_array_free(todo_at, TRUE);
    g_free(source);
    g_free(facts);
    g_free(es);
}

static entry *registered(const insee_registry *reg, const char *path)
{
    for (guint i = 0; i < reg->plugins->len; i++) {
        entry *e = g_ptr_array_index(reg->plugins, i);
        if (strcmp(e->pub.path, path) == 0)
            return e;
    }
    return NULL;
}

/* Add `path` to the files to check unless it is there or registered: the
   same file reached twice (a directory listed twice, add_file of a scanned
   file) is one plugin, not a shadowing. */
static void want(const insee_registry *reg, GPtrArray *paths, const char *path)
{
    char *canonical = g_canonicalize_filename(path, NULL);
    gboolean seen = registered(reg, canonical) != NULL;
    for (guint i = 0; i < paths->len && !seen; i++)
        seen = strcmp(g_ptr_array_index(paths, i), canonical) == 0;
    if (seen) {
        trace(reg, "trying %s ... already seen", canonical);
        g_free(canonical);
        return;
    }
    g_ptr_array_add(paths, canonical);
}

const insee_plugin *insee_registry_add_file(insee_registry *reg, const char *path)
{
    GPtrArray *paths = g_ptr_array_new_with_free_func(g_free);
    want(reg, paths, path);
    check_files(reg, paths);
    g_ptr_array_free(paths, TRUE);
    char *canonical = g_canonicalize_filename(path, NULL);
    const entry *e = registered(reg, canonical);
    g_free(canonical);
    return &e->pub;
}

void insee_registry_add_dir(insee_registry *reg, const char *dir)
{
    g_ptr_array_add(reg->dirs, g_strdup(dir));
}

static int compare_names(gconstpointer a, gconstpointer b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Whether group `gid` is the user-private group of `uid` (same name, no
   other member): a umask of 002 makes such directories group-writable
   without giving anyone else a say. */
static gboolean private_group(uid_t uid, gid_t gid)
{
    const struct passwd *pw = getpwuid(uid);
    if (!pw || pw->pw_gid != gid)
        return FALSE;
    char *user = g_strdup(pw->pw_name);
    const struct group *gr = getgrgid(gid);
    gboolean alone = gr && strcmp(gr->gr_name, user) == 0;
    for (char *const *m = gr ? gr->gr_mem : NULL; alone && m && *m; m++)
        alone = strcmp(*m, user) == 0;
    g_free(user);
    return alone;
}

/* Why nobody should load code from directory `dir` (stat in `st`), or
   NULL: whoever can write a plugin directory runs code in every run that
   scans it, so it must be writable only by its owner, who must be root or
   the user running insee. */
static char *unsafe_dir(const char *dir, const struct stat *st)
{
    unsigned mode = (unsigned)st->st_mode & 07777;
    if (st->st_mode & S_IWOTH)
        return g_strdup_printf("it is writable by every user (mode %04o; a sticky bit does not "
                               "stop them adding files); run chmod o-w %s, or keep your plugins "
                               "in a directory only you can write",
                               mode, dir);
    if (st->st_uid != 0 && st->st_uid != geteuid())
        return g_strdup_printf("it belongs to another user (uid %u), who could put code there; "
                               "copy the plugins into a directory of your own",
                               (unsigned)st->st_uid);
    if ((st->st_mode & S_IWGRP) && !private_group(st->st_uid, st->st_gid))
        return g_strdup_printf("it is writable by group %u (mode %04o); run chmod g-w %s",
                               (unsigned)st->st_gid, mode, dir);
    return NULL;
}

/* Whether to list `dir`: it exists, and is safe unless it is the default
   directory (installed with insee itself, trusted like the program). */
static gboolean dir_usable(insee_registry *reg, const char *dir)
{
    gboolean is_default = strcmp(dir, reg->default_dir) == 0;
    struct stat st;
    if (stat(dir, &st) != 0) {
        if (errno != ENOENT)
            return TRUE; /* listing it says why it cannot be read */
        trace(reg, "directory %s does not exist, skipped", dir);
        if (!is_default)
            g_ptr_array_add(reg->notices,
                            g_strdup_printf("plugin directory %s does not exist, skipped; check "
                                            "the path given to --plugin-dir, INSEE_PLUGIN_PATH "
                                            "or [plugins] dirs",
                                            dir));
        return FALSE;
    }
    char *why = is_default ? NULL : unsafe_dir(dir, &st);
    if (why) {
        trace(reg, "directory %s refused: %s", dir, why);
        g_ptr_array_add(reg->notices,
                        g_strdup_printf("plugin directory %s refused, none of its plugins is "
                                        "loaded: %s",
                                        dir, why));
        g_free(why);
        return FALSE;
    }
    return TRUE;
}

/* Add the .so files of `dir`, in sorted order, to the files to check. */
static void list_dir(insee_registry *reg, const char *dir, GPtrArray *paths)
{
    if (!dir_usable(reg, dir))
        return;
    GError *err = NULL;
    GDir *d = g_dir_open(dir, 0, &err);
    if (!d) {
        /* It exists but cannot be listed: worth telling, not fatal. */
        trace(reg, "cannot read directory %s: %s", dir, err->message);
        g_ptr_array_add(reg->notices,
                        g_strdup_printf("cannot read plugin directory %s: %s", dir, err->message));
        g_error_free(err);
        return;
    }
    trace(reg, "scanning directory %s", dir);

    GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
    const char *name;
    while ((name = g_dir_read_name(d)))
        if (g_str_has_suffix(name, ".so"))
            g_ptr_array_add(names, g_strdup(name));
    g_dir_close(d);
    g_ptr_array_sort(names, compare_names);

    for (guint i = 0; i < names->len; i++) {
        char *path = g_build_filename(dir, g_ptr_array_index(names, i), NULL);
        if (g_file_test(path, G_FILE_TEST_IS_REGULAR))
            want(reg, paths, path);
        else
            trace(reg, "%s is not a regular file, skipped", path);
        g_free(path);
    }
    g_ptr_array_free(names, TRUE);
}

void insee_registry_scan(insee_registry *reg)
{
    GPtrArray *paths = g_ptr_array_new_with_free_func(g_free);
    for (; reg->scanned < reg->dirs->len; reg->scanned++)
        list_dir(reg, g_ptr_array_index(reg->dirs, reg->scanned), paths);
    check_files(reg, paths);
    g_ptr_array_free(paths, TRUE);
}

/* Relative to the running program first, so a build tree and an install
   moved to another prefix both find their own plugins:
   <bindir>/plugins (build tree), then <bindir>/../<libdir>/insee/plugins
   (installed), then the configured prefix. */
char *insee_registry_default_dir(void)
{
    char *exe = g_file_read_link("/proc/self/exe", NULL);
    if (exe) {
        char *bindir = g_path_get_dirname(exe);
        char *candidates[] = {
            g_build_filename(bindir, "plugins", NULL),
            g_build_filename(bindir, "..", INSEE_PLUGIN_RELATIVE_DIR, NULL),
        };
        char *found = NULL;
        for (guint i = 0; i < G_N_ELEMENTS(candidates); i++) {
            if (!found && g_file_test(candidates[i], G_FILE_TEST_IS_DIR))
                found = g_canonicalize_filename(candidates[i], NULL);
            g_free(candidates[i]);
        }
        g_free(bindir);
        g_free(exe);
        if (found)
            return found;
    }
    return g_strdup(INSEE_DEFAULT_PLUGIN_DIR);
}
