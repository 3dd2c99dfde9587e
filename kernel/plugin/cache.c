/* kernel/plugin/cache.c — the registry cache file; contract in cache.h. */
#define _POSIX_C_SOURCE 200809L /* O_CLOEXEC */
#include "cache.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CACHE_FORMAT "insee-registry 1"

typedef struct cached {
    insee_file_key key;
    insee_plugin_facts facts;
} cached;

struct insee_cache {
    char *file;         /* NULL: caching is off */
    char *kernel;       /* the identity line's value */
    GHashTable *by_path; /* char * -> cached * */
    gboolean dirty;
};

static void cached_free(gpointer data)
{
    cached *c = data;
    insee_plugin_facts_clear(&c->facts);
    g_free(c);
}

/* Who wrote a cache: a kernel that checks plugins differently (another
   version, or just rebuilt) must not trust its verdicts. */
static char *kernel_identity(void)
{
    char *lib = insee_kernel_file();
    insee_file_key key = {0};
    if (lib && !insee_file_key_read(lib, &key))
        key = (insee_file_key){0};
    char *id = g_strdup_printf("insee %s ABI %u.%u %s %" G_GUINT64_FORMAT " %" G_GINT64_FORMAT,
                               INSEE_VERSION, INSEE_ABI_MAJOR, INSEE_ABI_MINOR, lib ? lib : "?",
                               key.size, key.mtime_ns);
    char *line = g_strescape(id, NULL); /* one line, whatever the path holds */
    g_free(id);
    g_free(lib);
    return line;
}

static char *default_file(void)
{
    char *lib = insee_kernel_file();
    char *hash = g_compute_checksum_for_string(G_CHECKSUM_SHA256, lib ? lib : "", -1);
    hash[16] = '\0';
    char *name = g_strconcat("registry-", hash, NULL);
    char *file = g_build_filename(g_get_user_cache_dir(), "insee", name, NULL);
    g_free(name);
    g_free(hash);
    g_free(lib);
    return file;
}

/* The header's kernel line and every record; FALSE on anything else. */
static gboolean parse(insee_cache *c, const char *text, gsize len, char **note)
{
    const char *pos = text, *end = text + len;
    char *header = g_strdup_printf(CACHE_FORMAT "\nkernel %s\n", c->kernel);
    gboolean ours = len >= strlen(header) && memcmp(text, header, strlen(header)) == 0;
    if (ours)
        pos += strlen(header);
    g_free(header);
    if (!ours) {
        *note = g_strdup_printf("%s was written by another insee build or is damaged: rebuilt",
                                c->file);
        return FALSE;
    }
    while (pos < end) {
        insee_record rec;
        if (insee_record_parse(&pos, end, &rec) != INSEE_RECORD_OK || !rec.has_key) {
            insee_record_clear(&rec);
            *note = g_strdup_printf("%s is damaged: rebuilt", c->file);
            return FALSE;
        }
        cached *entry = g_new(cached, 1);
        entry->key = rec.key;
        entry->facts = rec.facts;
        rec.facts = (insee_plugin_facts){0};
        g_hash_table_replace(c->by_path, g_steal_pointer(&rec.path), entry);
        insee_record_clear(&rec);
    }
    return TRUE;
}

insee_cache *insee_cache_open(char **note)
{
    *note = NULL;
    insee_cache *c = g_new0(insee_cache, 1);
    c->by_path = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, cached_free);
    const char *env = g_getenv("INSEE_REGISTRY");
    if (env && !*env) {
        *note = g_strdup("INSEE_REGISTRY is empty: no registry cache");
        return c;
    }
    c->file = env ? g_strdup(env) : default_file();
    c->kernel = kernel_identity();
    char *text = NULL;
    gsize len = 0;
    GError *err = NULL;
    if (!g_file_get_contents(c->file, &text, &len, &err)) {
        *note = g_strdup_printf("no registry cache yet (%s)", err->message);
        g_error_free(err);
        return c;
    }
    if (!parse(c, text, len, note)) {
        g_hash_table_remove_all(c->by_path);
        c->dirty = TRUE; /* rewritten even if nothing new is probed */
    }
    g_free(text);
    return c;
}

void insee_cache_free(insee_cache *c)
{
    if (!c)
        return;
    g_hash_table_destroy(c->by_path);
    g_free(c->file);
    g_free(c->kernel);
    g_free(c);
}

const char *insee_cache_file(const insee_cache *c)
{
    return c->file;
}

const insee_plugin_facts *insee_cache_lookup(const insee_cache *c, const char *path,
                                             const insee_file_key *key)
{
    const cached *entry = g_hash_table_lookup(c->by_path, path);
    return entry && insee_file_key_equal(&entry->key, key) ? &entry->facts : NULL;
}

void insee_cache_remember(insee_cache *c, const char *path, const insee_file_key *key,
                          const insee_plugin_facts *f)
{
    cached *entry = g_new(cached, 1);
    entry->key = *key;
    insee_plugin_facts_copy(&entry->facts, f);
    g_hash_table_replace(c->by_path, g_strdup(path), entry);
    c->dirty = TRUE;
}

static int compare_paths(gconstpointer a, gconstpointer b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Write `text` to a temporary file beside `file` and rename it over: a
   reader sees the old file or the new one, never a mixture. No fsync: after
   a power cut a damaged cache is only rebuilt, and start-ups that learn
   something should not wait for the disk. */
static gboolean replace(const char *file, const GString *text, GError **err)
{
    char *tmp = g_strconcat(file, ".XXXXXX", NULL);
    int fd = g_mkstemp_full(tmp, O_WRONLY | O_CLOEXEC, 0644);
    gboolean ok = fd >= 0;
    for (gsize done = 0; ok && done < text->len;) {
        ssize_t n = write(fd, text->str + done, text->len - done);
        if (n < 0 && errno == EINTR)
            continue;
        ok = n > 0;
        done += ok ? (gsize)n : 0;
    }
    int e = errno;
    if (fd >= 0 && close(fd) != 0 && ok) {
        e = errno;
        ok = FALSE;
    }
    if (ok && g_rename(tmp, file) != 0) {
        e = errno;
        ok = FALSE;
    }
    if (!ok) {
        g_set_error(err, G_FILE_ERROR, g_file_error_from_errno(e), "cannot write %s: %s", file,
                    g_strerror(e));
        if (fd >= 0)
            g_unlink(tmp);
    }
    g_free(tmp);
    return ok;
}

gboolean insee_cache_save(insee_cache *c, GError **err)
{
    if (!c->file || !c->dirty)
        return TRUE;
    /* Sorted, so the same registry always writes the same bytes. */
    guint n = 0;
    const char **paths = (const char **)g_hash_table_get_keys_as_array(c->by_path, &n);
    qsort(paths, n, sizeof *paths, compare_paths);
    GString *out = g_string_new(NULL);
    g_string_append_printf(out, CACHE_FORMAT "\nkernel %s\n", c->kernel);
    for (guint i = 0; i < n; i++) {
        const char *path = paths[i];
        const cached *entry = g_hash_table_lookup(c->by_path, path);
        insee_file_key now;
        if (insee_file_key_read(path, &now) && insee_file_key_equal(&now, &entry->key))
            insee_record_append(out, path, &entry->key, &entry->facts);
    }
    g_free(paths);
    char *dir = g_path_get_dirname(c->file);
    gboolean ok = TRUE;
    if (g_mkdir_with_parents(dir, 0700) != 0) {
        int e = errno;
        g_set_error(err, G_FILE_ERROR, g_file_error_from_errno(e), "cannot create %s: %s", dir,
                    g_strerror(e));
        ok = FALSE;
    }
    ok = ok && replace(c->file, out, err);
    g_free(dir);
    g_string_free(out, TRUE);
    if (ok)
        c->dirty = FALSE;
    return ok;
}
