/* kernel/stats/output.h — the files insee writes for the user ([stats] csv,
 * topology --dot).
 *
 * Only a regular file, or a name that does not exist yet in a writable
 * directory, is accepted: a device, a FIFO, a directory or a symbolic link is
 * refused with an error naming the user's path (a symlink is refused rather
 * than followed or replaced, so the file written is always the one named).
 * A file is written whole into a temporary ".NAME.insee-tmp-PID" beside it and
 * renamed over it, under an exclusive flock() on a lock file ".NAME.insee-lock"
 * beside it, so concurrent writers (a sweep of parallel runs appending to one
 * CSV) queue up and none loses another's row; readers see the old file or the
 * new one. The lock file goes when its writer is done, and the file named is
 * never created before its contents are whole: a killed writer leaves no
 * empty or partial file under that name. Its temporary is removed by the next
 * writer of the same file, which also takes over its lock file.
 * Every error is in G_FILE_ERROR and begins "WHAT: PATH: ".
 */
#ifndef INSEE_KERNEL_OUTPUT_H
#define INSEE_KERNEL_OUTPUT_H

#include <glib.h>

G_BEGIN_DECLS

/* Whether `path` could be written (see above), without touching it: to
   refuse a bad path before a long run rather than after it. */
gboolean insee_output_check(const char *path, const char *what, GError **err);
/* The same for a file insee_output_append() will extend: also refused when
   it exists, is not empty and does not begin with `header`. */
gboolean insee_output_check_append(const char *path, const char *what, const char *header,
                                   GError **err);

/* Replace the file's contents by `text`. */
gboolean insee_output_replace(const char *path, const char *what, const char *text,
                              GError **err);
/* The same with binary contents (a PNG). */
gboolean insee_output_replace_bytes(const char *path, const char *what, GBytes *bytes,
                                    GError **err);

/* Append `text` to the file, which must be empty, absent or begin with
   `header`; an empty or absent file gets `header` first. The old contents are
   streamed, never read whole into memory. */
gboolean insee_output_append(const char *path, const char *what, const char *header,
                             const char *text, GError **err);

/* A replacement written piece by piece, so that a large file needs no
   copy in memory: insee_output_open() locks the file and opens the
   temporary; insee_output_put() appends to the
   temporary (a failure is remembered and reported by close);
   insee_output_close() renames the temporary over the file when every piece
   was written, else removes it, and frees
   the stream either way; insee_output_abandon() gives up without renaming.
   Open returns NULL with the error. */
typedef struct insee_output_stream insee_output_stream;
insee_output_stream *insee_output_open(const char *path, const char *what, GError **err);
void insee_output_put(insee_output_stream *s, const char *buf, size_t len);
gboolean insee_output_close(insee_output_stream *s, GError **err);
void insee_output_abandon(insee_output_stream *s);

/* A new, empty temporary beside `path`, named as above (the temporaries of
   writers that died removed first), for a file written over time and
   renamed over `path` when complete: its descriptor and *tmp (g_free), or -1
   with the error. */
int insee_output_temp(const char *path, const char *what, char **tmp, GError **err);

G_END_DECLS
#endif
