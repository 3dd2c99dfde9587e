/* kernel/workload/export.c — a causal application as an FSIN trace
 * (contract in export.h). A program's lines are streamed to the temporary
 * file as the traffic hands them over: a trace may be far larger than
 * memory. A recording keeps each task's sends until the run ends. */
#include "workload/export.h"

#include "engine/experiment.h"
#include "stats/output.h"
#include "workload/message.h"
#include "workload/workload.h"

#include <errno.h>
#include <stdio.h>
#include <unistd.h>

typedef struct writer {
    FILE *out;
    uint32_t task;
    uint64_t events;
    uint32_t abi_minor; /* the events' plugin's: whether they hold nic and copy */
} writer;

static void count_event(void *ctx, const insee_program_event *ev)
{
    (void)ev;
    ((writer *)ctx)->events++;
}

/* A send's interface and copy mode, as the trace plugin reads them back
   (nic=K, copy=zero|two), when its plugin's minor has them and they are
   not the defaults; then the line's end. */
static void write_choices(const writer *w, const insee_program_event *ev)
{
    static const char *const copies[] = {[INSEE_COPY_ZERO] = "zero", [INSEE_COPY_TWO] = "two"};
    if (w->abi_minor >= INSEE_MESSAGE_NIC_MINOR && ev->nic)
        fprintf(w->out, " nic=%u", ev->nic);
    if (w->abi_minor >= INSEE_MESSAGE_NIC_MINOR && ev->copy != INSEE_COPY_DEFAULT &&
        ev->copy <= INSEE_COPY_TWO)
        fprintf(w->out, " copy=%s", copies[ev->copy]);
    fputc('\n', w->out);
}

static void write_event(void *ctx, const insee_program_event *ev)
{
    writer *w = ctx;
    w->events++;
    switch (ev->op) {
    case INSEE_PROGRAM_SEND:
        fprintf(w->out, "s %u %u %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT, w->task, ev->peer,
                ev->tag, ev->bytes);
        write_choices(w, ev);
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

/* ---- a recording ---------------------------------------------------------- */

typedef struct sent {
    uint64_t at;     /* emitted */
    uint64_t queued; /* queued whole (later than `at` when the source was held) */
    uint64_t tag, bytes;
    uint32_t dst;
    uint16_t nic;  /* as the message asked (0: the node's turn) */
    uint8_t copy;
} sent;

typedef struct recording {
    uint64_t packet_bytes; /* of a message whose plugin gives no bytes */
    const insee_app *app;
    GArray **sends; /* per task of the application: its sent */
} recording;

static void record_send(void *ctx, uint32_t task, const insee_message *msg, uint64_t now)
{
    recording *r = ctx;
    if (task < r->app->first_task || task - r->app->first_task >= r->app->tasks)
        return;
    GArray *a = r->sends[task - r->app->first_task];
    if (!msg) {
        g_array_index(a, sent, a->len - 1).queued = now;
        return;
    }
    sent s = {.at = now, .queued = now, .tag = msg->tag, .dst = msg->dst,
              .bytes = msg->bytes ? msg->bytes : msg->packets * r->packet_bytes,
              .nic = msg->nic, .copy = msg->copy};
    g_array_append_val(a, s);
}

/* Each task's sends, the time before each one a compute: a task goes on
   the cycle after its message is queued whole, as the trace plugin plays
   it (and as the run held the source). */
static void write_recording(const recording *r, writer *w)
{
    for (w->task = 0; w->task < r->app->tasks; w->task++) {
        uint64_t free_at = 0;
        const GArray *a = r->sends[w->task];
        for (guint i = 0; i < a->len; i++) {
            const sent *s = &g_array_index(a, sent, i);
            if (s->at > free_at)
                write_event(w, &(insee_program_event){.op = INSEE_PROGRAM_COMPUTE,
                                                      .cycles = s->at - free_at});
            write_event(w, &(insee_program_event){.op = INSEE_PROGRAM_SEND, .peer = s->dst,
                                                  .tag = s->tag, .bytes = s->bytes,
                                                  .nic = s->nic, .copy = s->copy});
            free_at = s->queued + 1;
        }
    }
}

/* Run the experiment recording `app`'s sends. */
static gboolean record_run(insee_experiment *exp, const insee_app *app, recording *r,
                           GError **err)
{
    if (!insee_experiment_packet_engine(exp)) {
        g_set_error(err, INSEE_EXPERIMENT_ERROR, INSEE_EXPERIMENT_ERROR_SETUP,
                    "trace export: application '%s' (%s) plays no fixed program, so it is "
                    "recorded from a run of the packet engine; remove [simulation] engine or set "
                    "it to \"packet\"", app->rep->name, app->rep->plugins);
        return FALSE;
    }
    insee_workload *wl = insee_experiment_workload(exp);
    *r = (recording){.packet_bytes = wl->env.payload_bytes,
                     .app = app, .sends = g_new(GArray *, app->tasks)};
    for (uint32_t t = 0; t < app->tasks; t++)
        r->sends[t] = g_array_new(FALSE, FALSE, sizeof(sent));
    wl->record = record_send;
    wl->record_ctx = r;
    gboolean ok = insee_experiment_run(exp, err);
    wl->record = NULL;
    return ok;
}

static void recording_clear(recording *r)
{
    for (uint32_t t = 0; r->sends && t < r->app->tasks; t++)
        g_array_free(r->sends[t], TRUE);
    g_free(r->sends);
}

static GString *app_names(const insee_workload *wl, gboolean causal_only)
{
    GString *s = g_string_new(NULL);
    for (uint32_t a = 0; a < wl->n_apps; a++)
        if (!causal_only || wl->apps[a].causal)
            g_string_append_printf(s, "%s'%s'", s->len ? ", " : "", wl->apps[a].rep->name);
    return s;
}

/* The application to export, or NULL with the error. */
static const insee_app *pick(const insee_workload *wl, const char *name, GError **err)
{
    const insee_app *found = NULL;
    uint32_t causal = 0;
    for (uint32_t a = 0; a < wl->n_apps; a++) {
        const insee_app *app = &wl->apps[a];
        causal += app->causal ? 1 : 0;
        if (name ? g_strcmp0(app->rep->name, name) == 0 : app->causal && !found)
            found = app;
    }
    GString *names = app_names(wl, name == NULL);
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

/* Whether `app` plays a fixed program (asked of its first task). */
static gboolean has_program(const insee_app *app)
{
    return app->traffic->program && app->traffic->program(app->self, 0, count_event, &(writer){0});
}

static gboolean write_trace(const insee_app *app, const recording *rec, const char *config,
                            writer *w, GError **err)
{
    fprintf(w->out, "# FSIN trace of application '%s' (%s) of %s: %u tasks, written by insee "
            "trace export; computes are in cycles (replay with cpu_scale = 1)\n",
            app->rep->name, app->rep->plugins, config, app->tasks);
    if (rec) {
        fprintf(w->out, "# recorded from a run: each task's sends at the cycles it made them, the "
                "time between them as computes (a timed trace: no receives)\n");
        write_recording(rec, w);
    }
    for (w->task = 0; !rec && w->task < app->tasks; w->task++)
        app->traffic->program(app->self, w->task, write_event, w);
    if (w->events == 0) {
        g_set_error(err, INSEE_EXPERIMENT_ERROR, INSEE_EXPERIMENT_ERROR_SETUP,
                    "trace export: application '%s' (%s) has no event to write (an FSIN trace "
                    "needs one)", app->rep->name, app->rep->plugins);
        return FALSE;
    }
    return TRUE;
}

/* The trace to a temporary beside `path`, renamed over it once whole. */
static gboolean write_file(const insee_app *app, const recording *rec, const char *config,
                           const char *path, GError **err)
{
    char *tmp = NULL;
    int fd = insee_output_temp(path, "trace export", &tmp, err);
    if (fd < 0)
        return FALSE;
    /* A recording's events are the kernel's, its messages read as their
       plugin's minor allows. */
    writer w = {.out = fdopen(fd, "w"), .abi_minor = rec ? INSEE_ABI_MINOR : app->abi_minor};
    if (!w.out) {
        int e = errno;
        close(fd);
        unlink(tmp);
        g_free(tmp);
        g_set_error(err, G_FILE_ERROR, g_file_error_from_errno(e), "trace export: %s: %s", path,
                    g_strerror(e));
        return FALSE;
    }
    gboolean ok = write_trace(app, rec, config, &w, err);
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

gboolean insee_workload_export(insee_experiment *exp, const char *name, const char *config,
                               const char *path, GError **err)
{
    const insee_app *app = pick(insee_experiment_workload(exp), name, err);
    /* Before a recording's run, which may be long. */
    if (!app || !insee_output_check(path, "trace export", err))
        return FALSE;
    recording rec = {0};
    gboolean recorded = !has_program(app);
    if (recorded && !record_run(exp, app, &rec, err)) {
        recording_clear(&rec);
        return FALSE;
    }
    gboolean ok = write_file(app, recorded ? &rec : NULL, config, path, err);
    recording_clear(&rec);
    return ok;
}
