/* kernel/config/config.h — experiment configuration: TOML in, validated
 * parameter values out, with file:line:col in every error.
 *
 * Contract
 * --------
 * insee_config_load_file()/load_string() parse a TOML document (toml++ behind
 * a small C++ adapter, config_toml.cc) into a tree the kernel owns, keeping
 * the source position of every key. insee_config_set() applies a
 * `--set section.key=value` override; the value is TOML text ("0.3", "[8,8]",
 * "\"trc\"", or a bare word taken as a string), validated later like the file.
 *
 * insee_config_bind() validates one section (e.g. "router") against one or
 * more parameter tables (the kernel's own keys, then the plugin's) and fills
 * each binding's values[] in table order, applying defaults. It fails on an
 * unknown key (suggesting the nearest valid key), a wrong type, a value out of
 * range or not among the choices, a missing required key — naming the file
 * position, the key, the plugin and what to do. `plugin` is always accepted.
 * insee_config_check_sections() rejects unknown top-level tables.
 *
 * Memory: the config owns the tree, every bound value and the strings and
 * lists they point to; all stay valid until insee_config_free().
 * Errors are GErrors in INSEE_CONFIG_ERROR.
 */
#ifndef INSEE_KERNEL_CONFIG_H
#define INSEE_KERNEL_CONFIG_H

#include <glib.h>
#include <insee/plugin.h>

G_BEGIN_DECLS

#define INSEE_CONFIG_ERROR (insee_config_error_quark())
GQuark insee_config_error_quark(void);
typedef enum {
    INSEE_CONFIG_ERROR_PARSE,   /* malformed TOML or override */
    INSEE_CONFIG_ERROR_INVALID, /* unknown key, wrong type, out of range, missing */
    INSEE_CONFIG_ERROR_IO,      /* file cannot be read */
} InseeConfigError;

typedef struct insee_config insee_config;

/* A configuration file holds at most this many bytes: a bigger one is
   refused (INSEE_CONFIG_ERROR_IO) after reading at most this much. It is a
   regular file or a pipe the process already holds (/dev/stdin); a named
   FIFO, a directory or a device is refused without waiting
   (insee/input.h). */
#define INSEE_CONFIG_MAX_BYTES (16u << 20)

insee_config *insee_config_load_file(const char *path, GError **err);
/* `origin` names the text in errors ("<embedded default>"). */
insee_config *insee_config_load_string(const char *text, const char *origin, GError **err);
/* An embedded default document: when an override (insee_config_set) then
   changes a table's `plugin`, the keys this document wrote in that table
   go with the old plugin; those other overrides wrote stay. */
insee_config *insee_config_load_default(const char *text, const char *origin, GError **err);
void insee_config_free(insee_config *cfg);
/* A new configuration holding the same document and overrides as `cfg`,
   as if loaded anew: nothing bound yet, so another experiment may bind it
   (a run split over threads builds one per part). */
insee_config *insee_config_copy(const insee_config *cfg);

/* Relative paths. A PATH parameter's value written in the file of
   insee_config_load_file() is bound resolved against that file's
   directory; one from an override or a default stays relative to the
   working directory. insee_config_path() applies the same rule to `path`,
   one path read from section.key by other means (an element of the
   ':'-separated [plugins] dirs): the config's copy, or `path` itself. */
const char *insee_config_path(insee_config *cfg, const char *section, const char *key,
                              const char *path);

/* Apply "section.key=value". */
gboolean insee_config_set(insee_config *cfg, const char *assignment, GError **err);
/* Set section.key to the string `value` as it is (a command-line option's
   file name, say: no TOML quoting). `origin` names the option in messages. */
gboolean insee_config_set_string(insee_config *cfg, const char *section, const char *key,
                                 const char *value, const char *origin, GError **err);

/* The string value of section.plugin, or `fallback` when absent. Fails when
   present but not a string. */
gboolean insee_config_plugin_name(insee_config *cfg, const char *section, const char *fallback,
                                  const char **out, GError **err);

/* The same for another key naming a plugin (section.key, e.g.
   [scheduler] selection), which the binding then validates like any key. */
gboolean insee_config_plugin_key(insee_config *cfg, const char *section, const char *key,
                                 const char *fallback, const char **out, GError **err);

/* Whether the document has that top-level table. */
gboolean insee_config_has_section(insee_config *cfg, const char *section);

/* Sections may also name an element of an array of tables, "application[1]"
   (the second [[application]]), or a table inside one,
   "application[1].traffic"; the echo writes them back as [[application]]
   and [application.traffic] in bind order. An element's sub-tables are not
   keys: insee_config_check_subtables() checks their names.

   The number of [[name]] tables (0 when absent); fails when `name` is not an
   array of tables. */
gboolean insee_config_array_len(insee_config *cfg, const char *name, guint *len, GError **err);
/* Reject a table inside `section` whose name is not in `known`. */
gboolean insee_config_check_subtables(insee_config *cfg, const char *section, const char *const *known,
                                      GError **err);

/* Reject any top-level table not in the NULL-terminated `known` list. */
gboolean insee_config_check_sections(insee_config *cfg, const char *const *known, GError **err);

typedef struct insee_binding {
    const insee_param_def *defs; /* NULL-name terminated; may be NULL */
    const char *owner;           /* for messages: "router plugin 'dally'", "the kernel" */
    insee_value *values;         /* out: set by bind, one per def, owned by the config */
} insee_binding;

gboolean insee_config_bind(insee_config *cfg, const char *section, insee_binding *bindings,
                           size_t n_bindings, GError **err);

/* Validate a parameter table itself (names unique and well formed, defaults
   parse and satisfy their own type/range/choices). The loader refuses a plugin
   whose table fails; `owner` names it in the message. */
gboolean insee_params_check_table(const insee_param_def *defs, const char *owner, GError **err);

/* The nearest candidate to `word` by edit distance, or NULL when none is close
   (distance > max(2, strlen(word)/3)). */
const char *insee_suggest(const char *word, const char *const *candidates, size_t n);

/* Every key=value actually used, in bind order, as TOML text lines grouped by
   section ("[router]\nplugin = \"dally\"\nvcs = 2\n..."): the report echo.
   A new string: the caller releases it with g_free(). */
char *insee_config_echo(insee_config *cfg);

/* The bound keys whose value is not their default, as sorted
   "section.key=value" items joined by ';' (values as the echo writes them,
   e.g. router.mode="random";traffic.load=0.5): what tells two rows of one
   CSV apart. Sections named in the NULL-terminated `skip` (may be NULL) are
   left out. A new string, empty when everything is a default. */
char *insee_config_differs(insee_config *cfg, const char *const *skip);

/* Whether the document (or an override) sets `key` in `section`. */
gboolean insee_config_has_key(insee_config *cfg, const char *section, const char *key);

G_END_DECLS
#endif
