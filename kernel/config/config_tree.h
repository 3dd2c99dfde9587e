/* kernel/config/config_tree.h — the C tree a TOML document becomes, shared
 * by the toml++ adapter (config_toml.cc) and the rest of the room (config.c).
 * Internal to libinsee: nothing here is exported.
 *
 * Contract
 * --------
 * insee_cfg_parse_toml() is the only place that sees C++: it parses TOML text
 * and returns the root table as insee_cfg_node objects built with the
 * constructors below, or NULL with the parser's description and position.
 * Every node and every table entry carries the position it came from, so any
 * later error can point at the file, line and column. The adapter never
 * throws into C and never keeps anything from toml++.
 *
 * Memory: a node owns its children, entries and strings; insee_cfg_node_free()
 * releases a whole subtree. Positions point at an `origin` string that the
 * caller keeps alive for as long as the tree (the config's origin list).
 */
#ifndef INSEE_KERNEL_CONFIG_TREE_H
#define INSEE_KERNEL_CONFIG_TREE_H

#include <glib.h>
#include <stdint.h>

G_BEGIN_DECLS

typedef enum {
    INSEE_CFG_TABLE,
    INSEE_CFG_ARRAY,
    INSEE_CFG_STRING,
    INSEE_CFG_INT,
    INSEE_CFG_FLOAT,
    INSEE_CFG_BOOL,
    INSEE_CFG_DATETIME, /* no parameter takes one; kept so errors can name it */
} insee_cfg_kind;

/* Where something was written. line == 0 means the origin has no lines (a
   `--set` override, a default), and messages print the origin alone. */
typedef struct insee_cfg_pos {
    const char *origin;
    unsigned line, col; /* 1-based */
} insee_cfg_pos;

typedef struct insee_cfg_node insee_cfg_node;

typedef struct insee_cfg_entry {
    char *key;
    insee_cfg_pos pos; /* of the key itself */
    insee_cfg_node *value;
} insee_cfg_entry;

struct insee_cfg_node {
    insee_cfg_kind kind;
    insee_cfg_pos pos; /* of the value (a table: its header) */
    gboolean b;
    int64_t i;
    double d;
    char *s;          /* STRING */
    GPtrArray *items; /* TABLE: insee_cfg_entry * in document order; ARRAY: insee_cfg_node * */
};

G_GNUC_INTERNAL insee_cfg_node *insee_cfg_node_new(insee_cfg_kind kind, insee_cfg_pos pos);
G_GNUC_INTERNAL void insee_cfg_node_free(insee_cfg_node *node);
/* Appends (never replaces); takes ownership of `value`. */
G_GNUC_INTERNAL void insee_cfg_table_append(insee_cfg_node *table, const char *key, size_t key_len,
                                            insee_cfg_pos key_pos, insee_cfg_node *value);

typedef struct insee_cfg_parse_error {
    char *description; /* toml++'s words; g_free() */
    unsigned line, col;
} insee_cfg_parse_error;

/* Parse `len` bytes of TOML. With `positions` FALSE every node gets
   {origin, 0, 0} (overrides and defaults have no lines of their own). */
G_GNUC_INTERNAL insee_cfg_node *insee_cfg_parse_toml(const char *text, size_t len, const char *origin,
                                                     gboolean positions, insee_cfg_parse_error *err);

G_END_DECLS
#endif
