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
        /* It is opened for writing to be locked (NFS grants its emulation
           of flock only to writers): refusing now spares a wasted run. */
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

/* Opens and locks the file now named `path`, creating it empty when absent
   (*created). The lock belongs to an inode: a writer that waited on a file
   another writer has meanwhile renamed a new one over holds a stale lock, so
   it opens the path again. */
static int open_locked(const char *path, const char *what, struct stat *held, gboolean *created,
                       GError **err)
{
    for (;;) {
        if (!insee_output_check(path, what, err))
            return -1;
        /* O_NOFOLLOW and O_NONBLOCK: a symlink or a FIFO swapped in since
           the check fails or opens at once, and is refused below. */
        *created = TRUE;
        int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd < 0 && errno == EEXIST) {
            *created = FALSE;
            fd = open(path, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
            if (fd < 0 && errno == ENOENT)
                continue;
        }
        if (fd < 0)
            return fail_errno(err, errno, what, path, "cannot open it"), -1;
        if (fstat(fd, held) != 0 || !S_ISREG(held->st_mode)) {
            if (S_ISREG(held->st_mode))
                fail_errno(err, errno, what, path, "cannot examine it");
            else
                refuse_kind(path, what, held->st_mode, err);
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
        struct stat now;
        if (lstat(path, &now) == 0 && now.st_dev == held->st_dev && now.st_ino == held->st_ino)
            return fd;
        close(fd);
    }
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

/* The new contents: the old ones when appending (`header` set), then
   `text`; written beside the file and renamed over it under the lock. */
static gboolean update(const char *path, const char *what, const char *header, const char *text,
                       gsize len, GError **err)
{
    struct stat held;
    gboolean created;
    int fd = open_locked(path, what, &held, &created, err);
    if (fd < 0)
        return FALSE;
    char *tmp = NULL;
    gboolean ok = FALSE;
    int out = -1;
    off_t keep = header ? held.st_size : 0;
    if (keep > 0 && !begins_with(fd, keep, header)) {
        foreign_header(what, path, err);
        goto done;
    }
    out = insee_output_temp(path, what, &tmp, err);
    if (out < 0)
        goto done;
    /* The replacement keeps the old file's permissions; only its owner may
       set them, and another writer's file gets the default ones. */
    if (!created && fchmod(out, held.st_mode & 07777) != 0 && errno != EPERM) {
        fail_errno(err, errno, what, path, "cannot give the new file the old one's permissions");
        goto done;
    }
    if (!copy_bytes(fd, keep, out) ||
        (header && keep == 0 && !write_all(out, header, strlen(header))) ||
        !write_all(out, text, len) || fsync(out) != 0) {
        fail_errno(err, errno, what, path, "cannot write the new contents");
        goto done;
    }
    int closed = close(out);
    out = -1;
    if (closed != 0) {
        fail_errno(err, errno, what, path, "cannot write the new contents");
        goto done;
    }
    if (rename(tmp, path) != 0) {
        fail_errno(err, errno, what, path, "cannot replace it");
        goto done;
    }
    ok = TRUE;
done:
    if (out >= 0)
        close(out);
    if (!ok) {
        if (tmp)
            g_unlink(tmp);
        if (created)
            g_unlink(path);
    }
    close(fd); /* releases the lock, after the rename */
    g_free(tmp);
    return ok;
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
