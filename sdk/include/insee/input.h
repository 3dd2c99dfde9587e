/* insee/input.h — opening a file named in an experiment, for reading.
 *
 * Contract
 * --------
 * insee_input_open() opens `path` for reading in binary mode when it is a
 * regular file, or a pipe the process already holds (/dev/stdin,
 * /dev/fd/N: `insee run <(generate)`), and refuses anything else without
 * waiting: opening a named FIFO nobody writes to blocks forever, a
 * directory reads as an error, a device (/dev/zero, a terminal) never
 * ends. On refusal it returns NULL and sets *why to a static phrase ("it
 * is a FIFO (named pipe)...") or strerror(errno). The kernel opens its
 * configuration with it; plugins open the files their PATH parameters
 * name with it, so the rule is the same for every input.
 *
 * POSIX.1-2008 (open, fdopen): in strict ISO C modes, define
 * _POSIX_C_SOURCE 200809L before the first #include. Inline so plugins need
 * no kernel symbol. Not part of insee/insee.h: include it where a file is
 * read.
 */
#ifndef INSEE_INPUT_H
#define INSEE_INPUT_H

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#if !defined(_POSIX_C_SOURCE) || _POSIX_C_SOURCE < 200809L
#error "insee/input.h needs POSIX.1-2008: #define _POSIX_C_SOURCE 200809L before any #include"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* A pipe reached through a descriptor this process already has open has a
   writer (or had one): reading it ends. */
static inline bool insee_input_is_held_stream(const char *path)
{
    return strcmp(path, "/dev/stdin") == 0 || strncmp(path, "/dev/fd/", 8) == 0 ||
           strncmp(path, "/proc/self/fd/", 14) == 0;
}

static inline FILE *insee_input_open(const char *path, const char **why)
{
    /* Non-blocking, so that a FIFO is opened (and refused) at once; the
       flag is cleared before anything is read. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        *why = strerror(errno);
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    *why = S_ISREG(st.st_mode) ? NULL
           : S_ISFIFO(st.st_mode)
               ? (insee_input_is_held_stream(path)
                      ? NULL
                      : "it is a FIFO (named pipe), not a regular file: reading it would "
                        "wait for a writer")
           : S_ISDIR(st.st_mode) ? "it is a directory"
                                 : "it is a device or a socket, not a regular file";
    FILE *f = NULL;
    if (!*why && fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) == 0)
        f = fdopen(fd, "rb");
    if (!f) {
        if (!*why)
            *why = strerror(errno);
        close(fd);
    }
    return f;
}

#ifdef __cplusplus
}
#endif
#endif
