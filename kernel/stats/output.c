/* kernel/stats/output.c — writing the user's output files safely (output.h). */
/* flock() is BSD, not POSIX. */
#define _DEFAULT_SOURCE
#include "stats/output.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define TMP_INFIX ".insee-tmp-"
#define LOCK_SUFFIX ".insee-lock"

static gboolean fail_errno(GError **err, int e, const char *what, const char *path,
                           const char *doing)
{
    g_set_error(err, G_FILE_ERROR, g_file_error_from_errno(e), "%s: %s: %s: %s", what, path,
                doing, g_strerror(e));
    return FALSE;
}

static gboolean refuse_kind(const char *path, const char *what, mode_t mode, GError **err)
{
    if (S_ISLNK(mode)) {
        char *target = g_file_read_link(path, NULL);
        g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                    "%s: %s is a symbolic link%s%s; insee replaces the file it writes and "
                    "does not follow links: give the path of the file itself", what, path,
                    target ? " to " : "", target ? target : "");
        g_free(target);
        return FALSE;
    }
    const char *kind = S_ISDIR(mode)                    ? "a directory"
                       : S_ISFIFO(mode)                 ? "a FIFO"
                       : S_ISCHR(mode) || S_ISBLK(mode) ? "a device"
                       : S_ISSOCK(mode)                 ? "a socket"
                                                        : "a special file";
    g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                "%s: %s is %s, not a regular file; insee writes a new file and renames it over "
                "the old one, so give the path of a regular file (or of one to create)",
                what, path, kind);
    return FALSE;
}

gboolean insee_output_check(const char *path, const char *what, GError **err)
{
    struct stat st;
    if (lstat(path, &st) == 0) {
        if (!S_ISREG(st.st_mode))
            return refuse_kind(path, what, st.st_mode, err);
        /* A file the user made read-only is not replaced: refusing now
           spares a wasted run. */
        if (access(path, W_OK) != 0)
            return fail_errno(err, errno, what, path, "the file cannot be written");
    } else if (errno != ENOENT) {
        return fail_errno(err, errno, what, path, "cannot examine it");
    }
    /* The new file is created in the directory and renamed there. */
    char *dir = g_path_get_dirname(path);
    gboolean ok = TRUE;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_NOENT,
                    "%s: %s: the directory %s does not exist; create it or choose another path",
                    what, path, dir);
        ok = FALSE;
    } else if (access(dir, W_OK | X_OK) != 0) {
        char *doing = g_strdup_printf("insee cannot create files in its directory %s", dir);
        ok = fail_errno(err, errno, what, path, doing);
        g_free(doing);
    }
    g_free(dir);
    return ok;
}

/* The lock file beside `path` (g_free): writers of one file queue on it.
   The file itself is never created to be locked, so a writer killed before
   its rename leaves no empty file at the user's path, only this hidden one,
   which the next writer takes over. */
static char *lock_path(const char *path)
{
    char *dir = g_path_get_dirname(path), *base = g_path_get_basename(path);
    char *name = g_strconcat(".", base, LOCK_SUFFIX, NULL);
    char *lock = g_build_filename(dir, name, NULL);
    g_free(name);
    g_free(base);
    g_free(dir);
    return lock;
}

/* Takes the lock of `path`: returns its descriptor. A writer leaving
   removes the lock file while it holds it, so one that waited on it holds a
   lock nobody else will see: it takes the one now at the lock's path. */
static int lock_output(const char *path, const char *what, const char *lock, GError **err)
{
    for (;;) {
        if (!insee_output_check(path, what, err))
            return -1;
        int fd = open(lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0666);
        struct stat held, now;
        if (fd < 0 || fstat(fd, &held) != 0) {
            fail_errno(err, errno, what, path, "cannot create its lock file beside it");
            if (fd >= 0)
                close(fd);
            return -1;
        }
        if (!S_ISREG(held.st_mode)) {
            refuse_kind(lock, what, held.st_mode, err);
            close(fd);
            return -1;
        }
        int r;
        while ((r = flock(fd, LOCK_EX)) != 0 && errno == EINTR)
            ;
        if (r != 0) {
            fail_errno(err, errno, what, path, "cannot lock it");
            close(fd);
            return -1;
        }
        if (lstat(lock, &now) == 0 && now.st_dev == held.st_dev && now.st_ino == held.st_ino)
            return fd;
        close(fd);
    }
}

/* Opens the file now at `path` for reading, under its lock: -1 with errno
   ENOENT when there is none, *old its status otherwise. */
static int open_old(const char *path, const char *what, struct stat *old, GError **err)
{
    /* O_NOFOLLOW and O_NONBLOCK: a symlink or a FIFO swapped in since the
       check fails or opens at once, and is refused below. */
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        if (errno != ENOENT)
            fail_errno(err, errno, what, path, "cannot open it");
        return -1;
    }
    gboolean examined = fstat(fd, old) == 0;
    if (!examined || !S_ISREG(old->st_mode)) {
        if (!examined)
            fail_errno(err, errno, what, path, "cannot examine it");
        else
            refuse_kind(path, what, old->st_mode, err);
        close(fd);
        errno = EINVAL;
        return -1;
    }
    return fd;
}

/* Removes the temporaries a killed writer of this file left. The caller
   holds the lock, so no live writer of the file has one; the pid is checked
   too in case the file was removed and created again under a writer at work.
   A temporary with the caller's own pid is a dead predecessor's. */
static void remove_stale(const char *dir, const char *prefix)
{
    GDir *d = g_dir_open(dir, 0, NULL);
    if (!d)
        return;
    const char *name;
    while ((name = g_dir_read_name(d))) {
        guint64 pid;
        if (!g_str_has_prefix(name, prefix) ||
            !g_ascii_string_to_unsigned(name + strlen(prefix), 10, 1, G_MAXINT, &pid, NULL))
            continue;
        if ((pid_t)pid == getpid() || (kill((pid_t)pid, 0) != 0 && errno == ESRCH)) {
            char *p = g_build_filename(dir, name, NULL);
            g_unlink(p);
            g_free(p);
        }
    }
    g_dir_close(d);
}

static gboolean write_all(int fd, const char *buf, size_t len)
{
    while (len) {
        ssize_t n = write(fd, buf, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return FALSE;
        buf += n;
        len -= (size_t)n;
    }
    return TRUE;
}

/* Copies the first `size` bytes (the size when locked: a bound whatever else
   grows the file) in pieces, so a large file costs no memory. */
static gboolean copy_bytes(int from, off_t size, int to)
{
    char buf[1 << 16];
    for (off_t off = 0; off < size;) {
        ssize_t n = pread(from, buf, (size_t)MIN((off_t)sizeof buf, size - off), off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0)
                errno = EIO; /* truncated under us */
            return FALSE;
        }
        if (!write_all(to, buf, (size_t)n))
            return FALSE;
        off += n;
    }
    return TRUE;
}

static gboolean begins_with(int fd, off_t size, const char *header)
{
    size_t len = strlen(header);
    if ((off_t)len > size)
        return FALSE;
    char *buf = g_malloc(len);
    gboolean same = pread(fd, buf, len, 0) == (ssize_t)len && memcmp(buf, header, len) == 0;
    g_free(buf);
    return same;
}

static gboolean foreign_header(const char *what, const char *path, GError **err)
{
    g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                "%s: %s: the file exists but does not begin with this insee's header line "
                "(another program's, or an older insee's columns); choose another file",
                what, path);
    return FALSE;
}

gboolean insee_output_check_append(const char *path, const char *what, const char *header,
                                   GError **err)
{
    if (!insee_output_check(path, what, err))
        return FALSE;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return TRUE; /* absent: created with the header; other failures show when writing */
    struct stat st;
    gboolean ok = fstat(fd, &st) != 0 || st.st_size == 0 || begins_with(fd, st.st_size, header) ||
                  foreign_header(what, path, err);
    close(fd);
    return ok;
}

int insee_output_temp(const char *path, const char *what, char **tmp, GError **err)
{
    char *dir = g_path_get_dirname(path), *base = g_path_get_basename(path);
    char *prefix = g_strconcat(".", base, TMP_INFIX, NULL);
    char *name = g_strdup_printf("%s%d", prefix, (int)getpid());
    *tmp = g_build_filename(dir, name, NULL);
    remove_stale(dir, prefix);
    int fd = open(*tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0)
        fail_errno(err, errno, what, path, "cannot create a new file beside it");
    g_free(name);
    g_free(prefix);
    g_free(base);
    g_free(dir);
    return fd;
}

struct insee_output_stream {
    char *path, *tmp, *lock;
    const char *what;
    int lock_fd, fd, out; /* the lock, the old file (-1: none) and the temporary */
    int failed;           /* the errno of the first write that failed, or 0 */
    off_t size;           /* the old file's size when locked */
};

/* Undoes what insee_output_open() made. The lock file goes while still
   held (see lock_output()), after the rename when there was one. */
static void stream_free(insee_output_stream *s, gboolean keep)
{
    if (s->out >= 0)
        close(s->out);
    if (!keep && s->tmp)
        g_unlink(s->tmp);
    if (s->fd >= 0)
        close(s->fd);
    g_unlink(s->lock);
    close(s->lock_fd);
    g_free(s->tmp);
    g_free(s->lock);
    g_free(s->path);
    g_free(s);
}

insee_output_stream *insee_output_open(const char *path, const char *what, GError **err)
{
    char *lock = lock_path(path);
    int lock_fd = lock_output(path, what, lock, err);
    if (lock_fd < 0) {
        g_free(lock);
        return NULL;
    }
    insee_output_stream *s = g_new0(insee_output_stream, 1);
    *s = (insee_output_stream){.path = g_strdup(path), .lock = lock, .what = what,
                               .lock_fd = lock_fd, .fd = -1, .out = -1};
    struct stat old;
    s->fd = open_old(path, what, &old, err);
    if (s->fd < 0 && errno != ENOENT) {
        stream_free(s, FALSE);
        return NULL;
    }
    s->size = s->fd >= 0 ? old.st_size : 0;
    s->out = insee_output_temp(path, what, &s->tmp, err);
    if (s->out < 0) {
        stream_free(s, FALSE);
        return NULL;
    }
    /* The replacement keeps the old file's permissions; only its owner may
       set them, and another writer's file gets the default ones. */
    if (s->fd >= 0 && fchmod(s->out, old.st_mode & 07777) != 0 && errno != EPERM) {
        fail_errno(err, errno, what, path, "cannot give the new file the old one's permissions");
        stream_free(s, FALSE);
        return NULL;
    }
    return s;
}

void insee_output_put(insee_output_stream *s, const char *buf, size_t len)
{
    if (!s->failed && !write_all(s->out, buf, len))
        s->failed = errno;
}

gboolean insee_output_close(insee_output_stream *s, GError **err)
{
    if (!s->failed && fsync(s->out) != 0)
        s->failed = errno;
    int closed = close(s->out);
    s->out = -1;
    if (!s->failed && closed != 0)
        s->failed = errno;
    if (s->failed) {
        fail_errno(err, s->failed, s->what, s->path, "cannot write the new contents");
    } else if (rename(s->tmp, s->path) != 0) {
        fail_errno(err, errno, s->what, s->path, "cannot replace it");
        s->failed = errno ? errno : EIO;
    }
    gboolean ok = !s->failed;
    stream_free(s, ok);
    return ok;
}

void insee_output_abandon(insee_output_stream *s)
{
    stream_free(s, FALSE);
}

/* The new contents: the old ones when appending (`header` set), then
   `text`. */
static gboolean update(const char *path, const char *what, const char *header, const char *text,
                       gsize len, GError **err)
{
    insee_output_stream *s = insee_output_open(path, what, err);
    if (!s)
        return FALSE;
    off_t keep = header ? s->size : 0;
    if (keep > 0 && !begins_with(s->fd, keep, header)) {
        foreign_header(what, path, err);
        insee_output_abandon(s);
        return FALSE;
    }
    if (!s->failed && !copy_bytes(s->fd, keep, s->out))
        s->failed = errno;
    if (header && keep == 0)
        insee_output_put(s, header, strlen(header));
    insee_output_put(s, text, len);
    return insee_output_close(s, err);
}

gboolean insee_output_replace(const char *path, const char *what, const char *text, GError **err)
{
    return update(path, what, NULL, text, strlen(text), err);
}

gboolean insee_output_replace_bytes(const char *path, const char *what, GBytes *bytes,
                                    GError **err)
{
    gsize len;
    const char *data = g_bytes_get_data(bytes, &len);
    return update(path, what, NULL, data ? data : "", len, err);
}

gboolean insee_output_append(const char *path, const char *what, const char *header,
                             const char *text, GError **err)
{
    return update(path, what, header, text, strlen(text), err);
}
