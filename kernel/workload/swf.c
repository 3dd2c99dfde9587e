/* kernel/workload/swf.c — the Standard Workload Format reader (swf.h). Only
 * the fields a job needs are kept; every field must still be a number, so a
 * file that is not SWF is refused at its first line rather than misread. */
#define _POSIX_C_SOURCE 200809L /* insee/input.h: open, fdopen */
#include "workload/swf.h"

#include <errno.h>
#include <insee/input.h>
#include <stdio.h>
#include <stdlib.h>

#define SWF_FIELDS 18

static const char *const field_names[SWF_FIELDS] = {
    "job number", "submit time", "wait time", "run time", "allocated processors",
    "average CPU time", "used memory", "requested processors", "requested time",
    "requested memory", "status", "user", "group", "executable", "queue", "partition",
    "preceding job", "think time",
};

static gboolean bad(GError **err, const char *path, uint32_t line, const char *why)
{
    g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                "%s:%u: %s (an SWF job line has 18 numbers: job number, submit time, wait "
                "time, run time, allocated processors, ...; -1 when unknown; ';' starts a "
                "comment line)", path, line, why);
    return FALSE;
}

/* One job line into `job`. */
static gboolean parse_line(char *text, const char *path, uint32_t line, insee_swf_job *job,
                           GError **err)
{
    double v[SWF_FIELDS];
    char **tok = g_strsplit_set(g_strstrip(text), " \t", -1);
    uint32_t n = 0;
    gboolean ok = TRUE;
    for (char **t = tok; ok && *t; t++) {
        if (!**t)
            continue;
        if (n == SWF_FIELDS) {
            ok = bad(err, path, line, "more than 18 fields");
            break;
        }
        char *end;
        errno = 0;
        v[n] = g_ascii_strtod(*t, &end);
        if (*end || errno) {
            char *why = g_strdup_printf("field %u (%s) is '%s', not a number", n + 1,
                                        field_names[n], *t);
            ok = bad(err, path, line, why);
            g_free(why);
        }
        n++;
    }
    g_strfreev(tok);
    if (!ok)
        return FALSE;
    if (n < SWF_FIELDS) {
        char *why = g_strdup_printf("%u fields, %u short", n, SWF_FIELDS - n);
        bad(err, path, line, why);
        g_free(why);
        return FALSE;
    }
    if (v[1] < 0)
        return bad(err, path, line, "field 2 (submit time) is unknown or negative: a job "
                                    "needs its arrival");
    double procs = v[7] > 0 ? v[7] : v[4];
    if (procs < 1 || procs > 4294967295.0)
        return bad(err, path, line, "fields 8 (requested processors) and 5 (allocated "
                                    "processors) give no processor count");
    *job = (insee_swf_job){
        .id = (int64_t)v[0], .submit = v[1], .run = v[3], .procs = (uint32_t)procs,
        .requested = v[8] > 0 ? v[8] : -1, .line = line,
    };
    return TRUE;
}

/* The whole file, opened as every input is (insee/input.h: a FIFO or a
   device is refused at once instead of blocking or never ending). */
static char *read_log(const char *path, GError **err)
{
    const char *why = NULL;
    FILE *f = insee_input_open(path, &why);
    GString *text = g_string_new(NULL);
    if (f) {
        char buf[1 << 16];
        size_t n;
        while ((n = fread(buf, 1, sizeof buf, f)) > 0)
            g_string_append_len(text, buf, (gssize)n);
        why = ferror(f) ? g_strerror(errno) : NULL;
        fclose(f);
    }
    if (!why)
        return g_string_free(text, FALSE);
    g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_FAILED,
                "[scheduler] jobs = \"%s\" cannot be read: %s; give the path of an SWF job log "
                "(a relative path is read from the experiment file's directory)", path, why);
    g_string_free(text, TRUE);
    return NULL;
}

GArray *insee_swf_read(const char *path, GError **err)
{
    char *text = read_log(path, err);
    if (!text)
        return NULL;
    GArray *jobs = g_array_new(FALSE, FALSE, sizeof(insee_swf_job));
    char **lines = g_strsplit(text, "\n", -1);
    g_free(text);
    gboolean ok = TRUE;
    for (uint32_t i = 0; ok && lines[i]; i++) {
        char *l = g_strstrip(lines[i]);
        if (!*l || *l == ';')
            continue;
        insee_swf_job job;
        ok = parse_line(l, path, i + 1, &job, err);
        if (ok)
            g_array_append_val(jobs, job);
    }
    g_strfreev(lines);
    if (ok && jobs->len == 0) {
        g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s: no job in the log (only "
                    "comments or empty lines)", path);
        ok = FALSE;
    }
    if (!ok) {
        g_array_free(jobs, TRUE);
        return NULL;
    }
    return jobs;
}
