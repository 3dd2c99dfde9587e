/* kernel/plugin/probe.h — what a plugin file is, found out in another
 * process.
 *
 * Contract
 * --------
 * Loading a plugin runs its code (constructors, the entry function), and
 * that code may crash, call exit() or never return. The registry therefore
 * never loads a file it does not know: it asks the scanner helper
 * (`insee-scan`, kernel/scanner/), a throwaway process, to load it and report
 * the plugin's facts, and remembers the answer (cache.h).
 *
 * insee_probe_files() runs the scanner on a list of files, at most `timeout`
 * seconds per file. Every file gets facts: those the scanner printed, or a
 * refusal saying what the plugin did to it (crashed with signal N, called
 * exit(), did not finish within the limit, garbled the scanner's output).
 * After such a file the scanner is started again for the rest. A verdict
 * about the file itself is marked `own` (worth remembering); when the
 * scanner cannot be run at all every file is refused as "not probed" and not
 * `own`.
 *
 * Records are text, one field a line, values escaped as C strings
 * (g_strescape), so a summary with a newline or invalid UTF-8 survives:
 *
 *     file /path/to/router-x.so
 *     key 16384 1718000000123456789 4242      (cache only: size mtime_ns inode)
 *     kind 2
 *     abi 1 2
 *     name x
 *     version 1.0
 *     summary one line
 *     refused why not                          (absent when usable)
 *     end
 *
 * Unknown fields are an error: the parser accepts exactly what the writer
 * writes, so a damaged file is noticed rather than half-trusted.
 *
 * The scanner's output starts with INSEE_SCANNER_HELLO, written before it
 * loads anything: a scanner that dies before it is broken itself, and no
 * file is blamed. INSEE_SCANNER_EXITED is what it writes when a plugin calls
 * exit() while being loaded.
 */
#ifndef INSEE_KERNEL_PROBE_H
#define INSEE_KERNEL_PROBE_H

#include <glib.h>
#include <insee/insee.h>

G_BEGIN_DECLS

#define INSEE_SCANNER_HELLO "insee-scan 1\n"
#define INSEE_SCANNER_EXITED "exited\n"

/* What the registry knows of a plugin file without loading it. */
typedef struct insee_plugin_facts {
    insee_kind kind;                /* 0 when the descriptor was not read */
    char *name, *version, *summary; /* NULL when not known */
    uint32_t abi_major, abi_minor;  /* 0 when not known */
    char *refusal;                  /* NULL when usable, else why not (no file name) */
} insee_plugin_facts;

void insee_plugin_facts_clear(insee_plugin_facts *f);
void insee_plugin_facts_copy(insee_plugin_facts *dst, const insee_plugin_facts *src);

/* Which version of a file the facts are about: it changes when the file is
   rebuilt, copied over or touched. */
typedef struct insee_file_key {
    guint64 size;
    gint64 mtime_ns;
    guint64 inode;
} insee_file_key;

/* FALSE (errno set) when the file cannot be stat()ed. */
gboolean insee_file_key_read(const char *path, insee_file_key *key);
gboolean insee_file_key_equal(const insee_file_key *a, const insee_file_key *b);

/* Append one record (`key` NULL: no key line). */
void insee_record_append(GString *out, const char *path, const insee_file_key *key,
                         const insee_plugin_facts *f);

/* One parsed record; the caller clears it with insee_record_clear(). */
typedef struct insee_record {
    char *path;
    gboolean has_key;
    insee_file_key key;
    insee_plugin_facts facts;
} insee_record;

typedef enum insee_record_result {
    INSEE_RECORD_OK,       /* *rec filled, *pos moved past it */
    INSEE_RECORD_NONE,     /* no complete record at *pos (end of text, or a partial one) */
    INSEE_RECORD_CORRUPT,  /* the text at *pos is not a record */
} insee_record_result;

insee_record_result insee_record_parse(const char **pos, const char *end, insee_record *rec);
void insee_record_clear(insee_record *rec);

/* The scanner executable: $INSEE_SCANNER when set, else insee/insee-scan
   beside the libinsee this process runs (the build tree mirrors the
   installed layout), else the installed path. Newly allocated. */
char *insee_scanner_path(void);

/* The time limit per file: $INSEE_SCAN_TIMEOUT seconds when it is a
   positive number, else INSEE_SCAN_TIMEOUT_DEFAULT. */
#define INSEE_SCAN_TIMEOUT_DEFAULT 5.0
double insee_scan_timeout(void);

/* The file of the libinsee this process runs (or of the program, when the
   kernel is linked in statically); NULL when unknown. Newly allocated. */
char *insee_kernel_file(void);

void insee_probe_files(const char *scanner, double timeout, const char *const *paths, guint n,
                       insee_plugin_facts *facts, gboolean *own);

G_END_DECLS
#endif
