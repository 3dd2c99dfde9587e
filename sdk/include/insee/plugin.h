/* insee/plugin.h — the plugin descriptor, the one entry symbol, parameter
 * tables and the error struct shared by every plugin kind.
 *
 * Contract
 * --------
 * A plugin is a shared object that exports exactly one symbol,
 * INSEE_ENTRY_SYMBOL ("insee_plugin_entry"), a function returning a pointer
 * to a static, const insee_plugin_desc. Build with -fvisibility=hidden and mark
 * only the entry with INSEE_PLUGIN_EXPORT (INSEE_PLUGIN_DEFINE does both).
 *
 * The kernel (the host) calls the entry once after dlopen, checks abi_major
 * (must equal its own) and abi_minor (must not be newer than its own), then
 * copies min(vtable->size, sizeof(kernel's vtable)) bytes of the kind's vtable
 * into a zeroed table it owns. Entries a plugin does not know therefore read
 * as NULL, and NULL means "optional, use the kernel default". A NULL required
 * entry gets the plugin refused at load time.
 *
 * Memory: the descriptor, its strings, the parameter table and the vtable are
 * owned by the plugin and must stay valid while the .so is loaded (static
 * storage). Instances returned by a vtable's create() are owned by the plugin
 * and released by its destroy(). Nothing that crosses this boundary is a GLib
 * or C++ type: only plain C types and opaque handles.
 *
 * Compatibility: fields and vtable entries are only ever appended, each
 * commented with the ABI minor that added it. Removing or reordering
 * anything is a major bump.
 */
#ifndef INSEE_PLUGIN_H
#define INSEE_PLUGIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define INSEE_ABI_MAJOR 1u
#define INSEE_ABI_MINOR 19u

#define INSEE_ENTRY_SYMBOL "insee_plugin_entry"

#if defined(__GNUC__)
#define INSEE_PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define INSEE_PLUGIN_EXPORT
#endif

/* "Never" for cycle counts: a source that will not send again, an event that
 * is not scheduled. */
#define INSEE_NEVER UINT64_MAX

typedef enum insee_kind {
    INSEE_KIND_TOPOLOGY = 1,
    INSEE_KIND_ROUTER = 2,
    INSEE_KIND_ARBITER = 3,
    INSEE_KIND_TRAFFIC = 4,
    INSEE_KIND_PLACEMENT = 5,
    INSEE_KIND_BRIDGE = 6,
    INSEE_KIND_ROUTING = 7, /* minor 7: path routings for the flow engines */
    INSEE_KIND_SELECTION = 8,  /* minor 9: which queued jobs start (insee/selection.h) */
    INSEE_KIND_ALLOCATION = 9, /* minor 9: which free nodes a job gets (insee/allocation.h) */
} insee_kind;

/* ---- errors crossing the boundary ----------------------------------------
 * create() and other fallible entries fill an insee_error and return NULL or
 * false. The message is complete on its own: what is wrong and what to do. */
typedef struct insee_error {
    int code;           /* non-zero when set; INSEE_ERR_* */
    char message[512];
} insee_error;

enum {
    INSEE_ERR_NONE = 0,
    INSEE_ERR_PARAM = 1,   /* a parameter value is impossible (e.g. k' > k) */
    INSEE_ERR_NOMEM = 2,
    INSEE_ERR_UNSUPPORTED = 3, /* this plugin cannot work with the others configured */
    INSEE_ERR_IO = 4,      /* a file the plugin reads is missing or corrupt */
};

/* ---- parameters ----------------------------------------------------------
 * A plugin declares its parameters in a static table terminated by an entry
 * whose name is NULL. The kernel validates the TOML table of the plugin's kind
 * against it (unknown key, wrong type, out of range, not one of the choices)
 * and hands create() one insee_value per entry, in table order, so a plugin
 * reads params[MY_PARAM_INDEX] with no string work. */
typedef enum insee_param_type {
    INSEE_PARAM_BOOL = 1,
    INSEE_PARAM_INT = 2,      /* 64-bit signed */
    INSEE_PARAM_DOUBLE = 3,   /* an integer in TOML is accepted too */
    INSEE_PARAM_STRING = 4,
    INSEE_PARAM_ENUM = 5,     /* a string among `choices` */
    INSEE_PARAM_INT_LIST = 6, /* array of integers, each within [min, max] */
    INSEE_PARAM_PATH = 7,     /* minor 6: a string naming a file the plugin reads; a
                                 relative path written in an experiment file reaches
                                 create() resolved against that file's directory */
} insee_param_type;

typedef struct insee_param_def {
    const char *name;          /* lower-case, [a-z0-9_] */
    insee_param_type type;
    const char *default_value; /* TOML text ("2", "0.5", "\"trc\"", "[8, 8]", "true");
                                  NULL: the parameter is required */
    double min, max;           /* inclusive range for INT, DOUBLE, INT_LIST items;
                                  ignored when min > max */
    const char *choices;       /* ENUM only: "trc|basic" */
    const char *unit;          /* "phits/node/cycle", "packets", or NULL */
    const char *doc;           /* one line: what it means */
} insee_param_def;

/* The validated value of one parameter. Strings and lists are owned by the
 * kernel and live as long as the plugin instance. */
typedef struct insee_value {
    insee_param_type type;
    bool b;
    int64_t i;          /* INT; for ENUM the index of the choice */
    double d;           /* DOUBLE (INT also mirrored here) */
    const char *s;      /* STRING, ENUM and PATH */
    const int64_t *list;/* INT_LIST */
    size_t list_len;
} insee_value;

/* ---- descriptor ---------------------------------------------------------- */
typedef struct insee_plugin_desc {
    uint32_t abi_major;       /* INSEE_ABI_MAJOR the plugin was built with */
    uint32_t abi_minor;       /* INSEE_ABI_MINOR the plugin was built with */
    uint32_t size;            /* sizeof(insee_plugin_desc) as built */
    insee_kind kind;
    const char *name;         /* unique per kind: "torus", "dally" */
    const char *version;      /* the plugin's own version, "1.0.0" */
    const char *summary;      /* one line */
    const char *reference;    /* paper section implemented, e.g. "INSEE §2.2.1" */
    const insee_param_def *params; /* NULL-name terminated; may be NULL (none) */
    const void *vtable;       /* points to the kind's vtable (insee_topology_vtable, ...) */
} insee_plugin_desc;

typedef const insee_plugin_desc *(*insee_entry_fn)(void);

/* Whether `name` may name a plugin: 1 to 63 characters of [a-z0-9-], not
   starting or ending with '-'. It is what configs write after `plugin =`,
   and it reaches messages, reports and file names as it is, so the loader
   refuses a plugin whose name breaks the rule and insee-conform fails it. */
static inline bool insee_plugin_name_valid(const char *name)
{
    if (!name || !name[0] || name[0] == '-')
        return false;
    size_t n = 0;
    for (const char *c = name; *c; c++, n++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '-') || n >= 63)
            return false;
    return name[n - 1] != '-';
}

/* Define the entry symbol returning DESC (an insee_plugin_desc object). */
#define INSEE_PLUGIN_DEFINE(DESC)                                            \
    INSEE_PLUGIN_EXPORT const insee_plugin_desc *insee_plugin_entry(void);   \
    INSEE_PLUGIN_EXPORT const insee_plugin_desc *insee_plugin_entry(void)    \
    {                                                                        \
        return &(DESC);                                                      \
    }

/* Fill an insee_error (printf-style). Inline so plugins need no kernel symbol. */
#include <stdarg.h>
#include <stdio.h>
static inline void insee_error_set(insee_error *err, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static inline void insee_error_set(insee_error *err, int code, const char *fmt, ...)
{
    if (!err)
        return;
    va_list ap;
    va_start(ap, fmt);
    err->code = code;
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
}

#ifdef __cplusplus
}
#endif
#endif
