/* kernel/plugin/describe.h — what `insee plugins list` and
 * `insee plugins info NAME [--json]` print.
 *
 * Contract
 * --------
 * insee_registry_describe_list() appends a table of the usable plugins
 * (kind, name, version, summary, path), sorted by kind then name, followed by
 * the refused entries in discovery order, each with its reason.
 *
 * insee_plugin_describe() appends one plugin's manual: name, kind, version,
 * ABI, summary, reference, path and its parameter table (name, type, default
 * or "required", range when it applies, choices, unit, doc). A refused entry
 * prints what is known of it and its reason. With json, the output is one
 * JSON object with a stable key order, every key always present (null when
 * unknown), so scripts can rely on the shape:
 *   name, kind, version, abi, summary, reference, path, refused, reason,
 *   parameters: [ { name, type, default, required, min, max, choices, unit, doc } ]
 * default is the TOML text of the default (null when required); min and max
 * are numbers when the range applies (null otherwise, or when unbounded);
 * choices is an array of strings (enum) or null.
 *
 * Both only append to `out`; nothing is kept.
 */
#ifndef INSEE_KERNEL_DESCRIBE_H
#define INSEE_KERNEL_DESCRIBE_H

#include <glib.h>

#include "registry.h"

G_BEGIN_DECLS

void insee_registry_describe_list(const insee_registry *reg, GString *out);
void insee_plugin_describe(const insee_plugin *p, gboolean json, GString *out);

/* Append `s` as a JSON string (escaped, invalid UTF-8 replaced), or null
   when s is NULL. Shared by every --json output. */
void insee_json_string(GString *out, const char *s);

G_END_DECLS
#endif
