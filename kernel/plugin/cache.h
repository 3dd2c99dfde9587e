/* kernel/plugin/cache.h — the registry cache: what the scanner found out
 * about each plugin file, remembered across runs.
 *
 * Contract
 * --------
 * One record (probe.h) per file, keyed by its path, size, modification time
 * and inode: a file that changes in any of these is probed again. Usable
 * and refused verdicts alike are kept, so a plugin that crashed or hung the
 * scanner costs its time limit once, not at every start-up.
 *
 * Where: $INSEE_REGISTRY when set (empty: no cache at all), else
 * <user cache dir>/insee/registry-<hash of the kernel library's path>, so
 * that two builds or installs never share (or fight over) one file. The
 * first line names the kernel (version, ABI, the library's path, size and
 * modification time); a file written by another kernel, or that does not
 * parse, is ignored as a whole and rewritten by the next save.
 *
 * insee_cache_save() writes only when something was remembered, to a
 * temporary file renamed over the old one (g_file_set_contents), so a reader
 * never sees half a file and two processes saving at once lose at most each
 * other's new records, which are probed again. Records of files that no
 * longer exist, or changed, are dropped on save.
 */
#ifndef INSEE_KERNEL_CACHE_H
#define INSEE_KERNEL_CACHE_H

#include "probe.h"

G_BEGIN_DECLS

typedef struct insee_cache insee_cache;

/* Never fails: a missing, unreadable, foreign or corrupt file is an empty
   cache. *note (newly allocated, may be NULL) says which, for traces. */
insee_cache *insee_cache_open(char **note);
void insee_cache_free(insee_cache *c);

/* The file the cache lives in; NULL when caching is off. */
const char *insee_cache_file(const insee_cache *c);

/* The facts remembered for `path` at exactly `key`, or NULL. */
const insee_plugin_facts *insee_cache_lookup(const insee_cache *c, const char *path,
                                             const insee_file_key *key);
void insee_cache_remember(insee_cache *c, const char *path, const insee_file_key *key,
                          const insee_plugin_facts *f);

/* TRUE when nothing needed writing or it was written; FALSE with err. */
gboolean insee_cache_save(insee_cache *c, GError **err);

G_END_DECLS
#endif
