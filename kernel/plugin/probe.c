/* kernel/plugin/probe.c — records, and running the scanner helper with a
 * time limit; contract in probe.h. */
#define _GNU_SOURCE /* dladdr */
#include "probe.h"

#include "sanitizer.h"

#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- facts and keys ------------------------------------------------------ */

void insee_plugin_facts_clear(insee_plugin_facts *f)
{
    g_free(f->name);
    g_free(f->version);
    g_free(f->summary);
    g_free(f->refusal);
    *f = (insee_plugin_facts){0};
}

void insee_plugin_facts_copy(insee_plugin_facts *dst, const insee_plugin_facts *src)
{
    *dst = *src;
    dst->name = g_strdup(src->name);
    dst->version = g_strdup(src->version);
    dst->summary = g_strdup(src->summary);
    dst->refusal = g_strdup(src->refusal);
}

gboolean insee_file_key_read(const char *path, insee_file_key *key)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return FALSE;
    *key = (insee_file_key){
        .size = (guint64)st.st_size,
        .mtime_ns = (gint64)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec,
        .inode = (guint64)st.st_ino,
    };
    return TRUE;
}

gboolean insee_file_key_equal(const insee_file_key *a, const insee_file_key *b)
{
    return a->size == b->size && a->mtime_ns == b->mtime_ns && a->inode == b->inode;
}

/* ---- records ------------------------------------------------------------- */

static void append_text(GString *out, const char *field, const char *value)
{
    if (!value)
        return;
    char *escaped = g_strescape(value, NULL);
    g_string_append_printf(out, "%s %s\n", field, escaped);
    g_free(escaped);
}

void insee_record_append(GString *out, const char *path, const insee_file_key *key,
                         const insee_plugin_facts *f)
{
    append_text(out, "file", path);
    if (key)
        g_string_append_printf(out, "key %" G_GUINT64_FORMAT " %" G_GINT64_FORMAT " %" G_GUINT64_FORMAT "\n",
                               key->size, key->mtime_ns, key->inode);
    g_string_append_printf(out, "kind %u\nabi %u %u\n", (unsigned)f->kind, f->abi_major,
                           f->abi_minor);
    append_text(out, "name", f->name);
    append_text(out, "version", f->version);
    append_text(out, "summary", f->summary);
    append_text(out, "refused", f->refusal);
    g_string_append(out, "end\n");
}

void insee_record_clear(insee_record *rec)
{
    g_free(rec->path);
    insee_plugin_facts_clear(&rec->facts);
    *rec = (insee_record){0};
}

/* Unsigned decimal numbers separated by single spaces, exactly `n` of them. */
static gboolean parse_numbers(const char *text, guint64 *out, guint n)
{
    char **parts = g_strsplit(text, " ", -1);
    gboolean ok = g_strv_length(parts) == n;
    for (guint i = 0; ok && i < n; i++)
        ok = g_ascii_string_to_unsigned(parts[i], 10, 0, G_MAXUINT64, &out[i], NULL);
    g_strfreev(parts);
    return ok;
}

/* One field line into rec; FALSE when it is not one the writer writes. */
static gboolean parse_field(insee_record *rec, const char *field, const char *value)
{
    guint64 v[3];
    char **text = strcmp(field, "name") == 0      ? &rec->facts.name
                  : strcmp(field, "version") == 0 ? &rec->facts.version
                  : strcmp(field, "summary") == 0 ? &rec->facts.summary
                  : strcmp(field, "refused") == 0 ? &rec->facts.refusal
                                                  : NULL;
    if (text) {
        if (*text)
            return FALSE; /* twice */
        *text = g_strcompress(value);
        return TRUE;
    }
    if (strcmp(field, "kind") == 0 && parse_numbers(value, v, 1) && v[0] <= G_MAXINT) {
        rec->facts.kind = (insee_kind)v[0];
        return TRUE;
    }
    if (strcmp(field, "abi") == 0 && parse_numbers(value, v, 2) && v[0] <= G_MAXUINT32 &&
        v[1] <= G_MAXUINT32) {
        rec->facts.abi_major = (uint32_t)v[0];
        rec->facts.abi_minor = (uint32_t)v[1];
        return TRUE;
    }
    if (strcmp(field, "key") == 0 && parse_numbers(value, v, 3) && v[1] <= G_MAXINT64) {
        rec->has_key = TRUE;
        rec->key = (insee_file_key){.size = v[0], .mtime_ns = (gint64)v[1], .inode = v[2]};
        return TRUE;
    }
    return FALSE;
}

insee_record_result insee_record_parse(const char **pos, const char *end, insee_record *rec)
{
    *rec = (insee_record){0};
    const char *p = *pos;
    insee_record_result result = INSEE_RECORD_NONE;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl)
            break; /* a partial line: more is coming, or the writer died */
        char *line = g_strndup(p, (gsize)(nl - p));
        p = nl + 1;
        char *space = strchr(line, ' ');
        if (space)
            *space = '\0';
        gboolean first = rec->path == NULL;
        gboolean ok;
        if (first) {
            ok = space && strcmp(line, "file") == 0;
            if (ok)
                rec->path = g_strcompress(space + 1);
        } else if (!space && strcmp(line, "end") == 0) {
            g_free(line);
            *pos = p;
            return INSEE_RECORD_OK;
        } else {
            ok = space && parse_field(rec, line, space + 1);
        }
        g_free(line);
        if (!ok) {
            result = INSEE_RECORD_CORRUPT;
            break;
        }
    }
    insee_record_clear(rec);
    return result;
}

/* ---- where things are ---------------------------------------------------- */

char *insee_kernel_file(void)
{
    Dl_info info;
    if (!dladdr((const void *)insee_kernel_file, &info) || !info.dli_fname || !*info.dli_fname)
        return NULL;
    /* The main program's own entry has an empty or relative name. */
    return g_canonicalize_filename(info.dli_fname, NULL);
}

char *insee_scanner_path(void)
{
    const char *env = g_getenv("INSEE_SCANNER");
    if (env && *env)
        return g_strdup(env);
    char *lib = insee_kernel_file();
    if (lib) {
        char *dir = g_path_get_dirname(lib);
        char *beside = g_build_filename(dir, "insee", "insee-scan", NULL);
        g_free(dir);
        g_free(lib);
        if (g_file_test(beside, G_FILE_TEST_IS_EXECUTABLE))
            return beside;
        g_free(beside);
    }
    return g_strdup(INSEE_SCANNER_INSTALLED);
}

double insee_scan_timeout(void)
{
    const char *env = g_getenv("INSEE_SCAN_TIMEOUT");
    if (!env)
        return INSEE_SCAN_TIMEOUT_DEFAULT;
    char *end = NULL;
    double t = g_ascii_strtod(env, &end);
    return end != env && *end == '\0' && t > 0 && t <= 3600 ? t : INSEE_SCAN_TIMEOUT_DEFAULT;
}

/* ---- running the scanner ------------------------------------------------- */

/* The scanner's environment. Under AddressSanitizer the scanner is built
   with it too, and would turn a plugin's crash into a sanitizer report and
   exit status 1: let the signal through, so that the verdict names it. */
static char **scanner_environment(void)
{
    char **env = g_get_environ();
#ifdef INSEE_ASAN
    const char *old = g_environ_getenv(env, "ASAN_OPTIONS");
    char *opts = g_strconcat(old ? old : "", old && *old ? ":" : "",
                             "handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_sigill=0:"
                             "handle_abort=0",
                             NULL);
    env = g_environ_setenv(env, "ASAN_OPTIONS", opts, TRUE);
    g_free(opts);
#endif
    return env;
}

typedef enum scan_end {
    SCAN_EOF,       /* the scanner closed its output (finished, or died) */
    SCAN_TIMEOUT,   /* the file in progress did not finish in time */
    SCAN_GARBLED,   /* the output is not what the scanner writes */
} scan_end;

/* Why the scanner stopped at the file in progress, as its refusal. */
static char *stop_reason(scan_end how, gboolean exited, int status, double timeout)
{
    if (how == SCAN_TIMEOUT)
        return g_strdup_printf("did not finish loading within %g s (a constructor or the entry "
                               "function that never returns?); it is tried again when the file "
                               "changes",
                               timeout);
    if (how == SCAN_GARBLED)
        return g_strdup("garbled the scanner's output while being loaded (does a constructor "
                        "write to an inherited file descriptor?)");
    if (exited)
        return g_strdup("called exit() while being loaded (in a constructor or the entry "
                        "function); a plugin must never end the process");
    if (WIFSIGNALED(status))
        return g_strdup_printf("crashed while being loaded (signal %d, %s), in a constructor or "
                               "the entry function; a truncated or damaged file does this too",
                               WTERMSIG(status), g_strsignal(WTERMSIG(status)));
    return g_strdup_printf("ended the process with status %d while being loaded (in a "
                           "constructor or the entry function)",
                           WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

static void refuse_all(guint n, insee_plugin_facts *facts, gboolean *own, const char *why)
{
    for (guint i = 0; i < n; i++) {
        facts[i].refusal = g_strdup(why);
        own[i] = FALSE;
    }
}

/* Take every complete record out of buf from *parsed on, into facts[*done...].
   FALSE when the text is not the scanner's. */
static gboolean take_records(GString *buf, gsize *parsed, const char *const *paths, guint n,
                             guint *done, gboolean *hello, gboolean *exited,
                             insee_plugin_facts *facts, gboolean *own)
{
    const char *pos = buf->str + *parsed, *end = buf->str + buf->len;
    gboolean ok = TRUE;
    for (;;) {
        gsize left = (gsize)(end - pos);
        if (!*hello) {
            gsize len = strlen(INSEE_SCANNER_HELLO);
            if (left < len)
                break;
            ok = memcmp(pos, INSEE_SCANNER_HELLO, len) == 0;
            if (!ok)
                break;
            *hello = TRUE;
            pos += len;
            continue;
        }
        gsize exit_len = strlen(INSEE_SCANNER_EXITED);
        if (left >= exit_len && memcmp(pos, INSEE_SCANNER_EXITED, exit_len) == 0) {
            *exited = TRUE;
            pos += exit_len;
            continue;
        }
        insee_record rec;
        insee_record_result r = insee_record_parse(&pos, end, &rec);
        if (r == INSEE_RECORD_NONE)
            break;
        ok = r == INSEE_RECORD_OK && *done < n && strcmp(rec.path, paths[*done]) == 0;
        if (ok) {
            facts[*done] = rec.facts;
            rec.facts = (insee_plugin_facts){0};
            own[(*done)++] = TRUE;
        }
        insee_record_clear(&rec);
        if (!ok)
            break;
    }
    *parsed = (gsize)(pos - buf->str);
    return ok;
}

/* One scanner on paths[0, n): how many files got facts (at least one). */
static guint scan_once(const char *scanner, double timeout, const char *const *paths, guint n,
                       insee_plugin_facts *facts, gboolean *own)
{
    GPtrArray *argv = g_ptr_array_new();
    g_ptr_array_add(argv, (char *)scanner);
    g_ptr_array_add(argv, (char *)"--");
    for (guint i = 0; i < n; i++)
        g_ptr_array_add(argv, (char *)paths[i]);
    g_ptr_array_add(argv, NULL);
    char **env = scanner_environment();
    GPid pid;
    gint out_fd = -1;
    GError *err = NULL;
    gboolean spawned = g_spawn_async_with_pipes(
        NULL, (char **)argv->pdata, env,
        G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDIN_FROM_DEV_NULL | G_SPAWN_CLOEXEC_PIPES, NULL,
        NULL, &pid, NULL, &out_fd, NULL, &err);
    g_ptr_array_free(argv, TRUE);
    g_strfreev(env);
    if (!spawned) {
        char *why = g_strdup_printf("not probed: cannot run the plugin scanner %s (%s); set "
                                    "INSEE_SCANNER to its path",
                                    scanner, err->message);
        refuse_all(n, facts, own, why);
        g_free(why);
        g_error_free(err);
        return n;
    }

    GString *buf = g_string_new(NULL);
    gsize parsed = 0;
    guint done = 0;
    gboolean hello = FALSE, exited = FALSE;
    scan_end how = SCAN_EOF;
    gint64 step = (gint64)(timeout * G_USEC_PER_SEC);
    gint64 deadline = g_get_monotonic_time() + step;
    for (;;) {
        gint64 left = deadline - g_get_monotonic_time();
        if (left <= 0) {
            how = SCAN_TIMEOUT;
            break;
        }
        struct pollfd p = {.fd = out_fd, .events = POLLIN};
        int r = poll(&p, 1, (int)MIN((left + 999) / 1000, G_MAXINT));
        if (r <= 0)
            continue; /* time is checked above; EINTR just retries */
        char chunk[4096];
        ssize_t got = read(out_fd, chunk, sizeof chunk);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        g_string_append_len(buf, chunk, got);
        guint before = done;
        if (!take_records(buf, &parsed, paths, n, &done, &hello, &exited, facts, own)) {
            how = SCAN_GARBLED;
            break;
        }
        if (done > before)
            deadline = g_get_monotonic_time() + step;
    }
    if (how != SCAN_EOF)
        kill(pid, SIGKILL);
    close(out_fd);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    g_spawn_close_pid(pid);
    g_string_free(buf, TRUE);

    if (done == n)
        return n;
    if (!hello) {
        /* It died or stalled before loading anything: the scanner is broken,
           not the plugin. */
        char *why =
            how == SCAN_TIMEOUT
                ? g_strdup_printf("not probed: the plugin scanner %s did not start within %g s",
                                  scanner, timeout)
                : g_strdup_printf("not probed: the plugin scanner %s failed before loading "
                                  "anything (%s %d)",
                                  scanner, WIFSIGNALED(status) ? "signal" : "exit status",
                                  WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
        refuse_all(n, facts, own, why);
        g_free(why);
        return n;
    }
    facts[done].refusal = stop_reason(how, exited, status, timeout);
    own[done] = TRUE;
    return done + 1;
}

void insee_probe_files(const char *scanner, double timeout, const char *const *paths, guint n,
                       insee_plugin_facts *facts, gboolean *own)
{
    for (guint next = 0; next < n;)
        next += scan_once(scanner, timeout, paths + next, n - next, facts + next, own + next);
}
