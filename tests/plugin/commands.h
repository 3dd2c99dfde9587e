/* tests/plugin/commands.h — the programs as a user meets them, in scratch
 * plugin directories: run insee or insee-conform, copy fixtures, and make
 * the broken files no build produces (a truncated copy, a copy marked for
 * another machine).
 *
 * Every command runs with INSEE_REGISTRY pointing into its scratch
 * directory, so a test sees its own registry cache and nobody else's, and
 * with a short scanner time limit (SCAN_TIMEOUT seconds) for the fixture
 * that never finishes loading.
 */
#ifndef INSEE_TEST_COMMANDS_H
#define INSEE_TEST_COMMANDS_H

#include <glib.h>

#define SCAN_TIMEOUT "2"

typedef struct command {
    int status; /* the exit status, or 128 + the signal that ended it */
    char *out, *err;
} command;

/* A fresh scratch directory with an empty plugins/ inside. */
typedef struct scratch {
    char *dir;
    char *plugins;  /* dir/plugins */
    char *registry; /* dir/registry: the registry cache of its commands */
} scratch;

scratch scratch_new(void);
void scratch_free(scratch *s);

/* Copy fixtures/`set`/`file` into s->plugins as `as` (NULL: same name). */
void scratch_copy(const scratch *s, const char *set, const char *file, const char *as);
/* The first `keep` bytes of fixtures/`set`/`file`, as s->plugins/`as`. */
void scratch_truncated(const scratch *s, const char *set, const char *file, const char *as,
                       gsize keep);
/* Set the 16-bit ELF header field at `offset` of s->plugins/`file` (in
   the file's byte order). */
void scratch_patch16(const scratch *s, const char *file, gsize offset, guint16 value);
/* A copy whose ELF header names another machine than this one; the name
   of that machine as insee says it (static). */
const char *scratch_foreign(const scratch *s, const char *set, const char *file, const char *as);
/* Every kind of broken file next to good.so in s->plugins. */
void scratch_hostile(const scratch *s);

/* Run argv (NULL-terminated; argv[0] a path) in s's environment, plus
   `env` ("NAME=value"..., NULL-terminated, may be NULL). */
command command_run(const scratch *s, const char *const *argv, const char *const *env);
void command_free(command *c);

/* The file as bytes, "" when it cannot be read. Newly allocated. */
char *slurp(const char *path);

#endif
