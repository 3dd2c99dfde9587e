/* kernel/workload/export.c — a causal application as an FSIN trace
 * (contract in export.h). Lines are streamed to the temporary file as the
 * traffic hands them over: a trace may be far larger than memory. */
#include "workload/export.h"

#include "engine/experiment.h"
#include "stats/output.h"

#include <errno.h>
#include <stdio.h>
#include <unistd.h>

typedef struct writer {
    FILE *out;
    uint32_t task;
    uint64_t events;
} writer;

static void write_event(void *ctx, const insee_program_event *ev)
{
    writer *w = ctx;
    w->events++;
    switch (ev->op) {
    case INSEE_PROGRAM_SEND:
        fprintf(w->out, "s %u %u %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT "\n", w->task,
                ev->peer, ev->tag, ev->bytes);
        break;
    case INSEE_PROGRAM_RECV:
        fprintf(w->out, "r %u %u %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT "\n", ev->peer,
                w->task, ev->tag, ev->bytes);
        break;
    default:
        fprintf(w->out, "c %u %" G_GUINT64_FORMAT "\n", w->task, ev->cycles);
        break;
    }
}

static GString *app_names(const insee_engine *eng, gboolean causal_only)
{
    GString *s = g_string_new(NULL);
    for (uint32_t a = 0; a < eng->n_apps; a++)
        if (!causal_only || eng->apps[a].causal)
            g_string_append_printf(s, "%s'%s'", s->len ? ", " : "", eng->apps[a].rep->name);
    return s;
}

/* The application to export, or NULL with the error. */
static const insee_app *pick(const insee_engine *eng, const char *name, GError **err)
{
    const insee_app *found = NULL;
    uint32_t causal = 0;
    for (uint32_t a = 0; a < eng->n_apps; a++) {
        const insee_app *app = &eng->apps[a];
        causal += app->causal ? 1 : 0;
        if (name ? g_strcmp0(app->rep->name, name) == 0 : app->causal && !found)
            found = app;
    }
    GString *names = app_names(eng, name == NULL);
    if (!found && name)
        g_set_error(err, INSEE_EXPERIMENT_ERROR, INSEE_EXPERIMENT_ERROR_SETUP,
                    "trace export: no application is named '%s'; the experiment has %s", name,
                    names->str);
    else if (!found)
        g_set_error(err, INSEE_EXPERIMENT_ERROR, INSEE_EXPERIMENT_ERROR_SETUP,
                    "trace export: the experiment has no causal application (a trace, an "
                    "application kernel) to export; its applications are %s", names->str);
    else if (!name && causal > 1)
        g_set_error(err, INSEE_EXPERIMENT_ERROR, INSEE_EXPERIMENT_ERROR_SETUP,
                    "trace export: the experiment has %u causal applications (%s); name the one "
                    "to export: insee trace export CONFIG APPLICATION -o FILE",
                    causal, names->str);
    else if (!found->causal)
        g_set_error(err, INSEE_EXPERIMENT_ERROR, INSEE_EXPERIMENT_ERROR_SETUP,
                    "trace export: application '%s' (%s) is open-ended, not a causal workload: "
                    "it has no program to export", found->rep->name, found->rep->plugins);
    g_string_free(names, TRUE);
    return *err ? NULL : found;
}

static gboolean write_program(const insee_app *app, const char *config, writer *w, GError **err)
{
    fprintf(w->out, "# FSIN trace of application '%s' (%s) of %s: %u tasks, written by insee "
            "trace export; computes are in cycles (replay with cpu_scale = 1)\n",
            app->rep->name, app->rep->plugins, config, app->tasks);
    for (w->task = 0; w->task < app->tasks; w->task++) {
        if (!app->traffic->program || !app->traffic->program(app->self, w->task, write_event, w)) {
            g_set_error(err, INSEE_EXPERIMENT_ERROR, INSEE_EXPERIMENT_ERROR_SETUP,
                        "trace export: application '%s' (%s) plays no fixed program (its events "
                        "depend on the run); only traces and application kernels can be "
                        "exported", app->rep->name, app->rep->plugins);
            return FALSE;
        }
    }
    if (w->events == 0) {
        g_set_error(err, INSEE_EXPERIMENT_ERROR, INSEE_EXPERIMENT_ERROR_SETUP,
                    "trace export: application '%s' (%s) has no event to write (an FSIN trace "
                    "needs one)", app->rep->name, app->rep->plugins);
        return FALSE;
    }
    return TRUE;
}

gboolean insee_workload_export(const insee_engine *eng, const char *name, const char *config,
                               const char *path, GError **err)
{
    const insee_app *app = pick(eng, name, err);
    if (!app)
        return FALSE;
    char *tmp = NULL;
    int fd = insee_output_temp(path, "trace export", &tmp, err);
    if (fd < 0)
        return FALSE;
    writer w = {.out = fdopen(fd, "w")};
    if (!w.out) {
        int e = errno;
        close(fd);
        unlink(tmp);
        g_free(tmp);
        g_set_error(err, G_FILE_ERROR, g_file_error_from_errno(e), "trace export: %s: %s", path,
                    g_strerror(e));
        return FALSE;
    }
    gboolean ok = write_program(app, config, &w, err);
    if (ok && (fflush(w.out) != 0 || ferror(w.out) || fsync(fd) != 0)) {
        int e = errno;
        g_set_error(err, G_FILE_ERROR, g_file_error_from_errno(e), "trace export: %s: %s", path,
                    g_strerror(e));
        ok = FALSE;
    }
    fclose(w.out);
    if (ok && rename(tmp, path) != 0) {
        int e = errno;
        g_set_error(err, G_FILE_ERROR, g_file_error_from_errno(e), "trace export: %s: %s", path,
                    g_strerror(e));
        ok = FALSE;
    }
    if (!ok)
        unlink(tmp);
    g_free(tmp);
    return ok;
}
