/* sdk/conformance/main.c — insee-conform: load one plugin and run the
 * conformance checks of its kind (docs/architecture.md §11).
 *
 *   insee-conform [--json] [--timeout S] [--set KEY=VALUE]... [--plugin-dir DIR]... PLUGIN.so
 *   insee-conform --list
 *
 * Prints one line per check — PASS, FAIL (an error-severity check failed),
 * WARN (a warning-severity check failed) or SKIP, the check id and what it
 * checks — then the detail and, on a failure, the hint. --json writes the
 * same as one JSON document. Exit status: 0 when no error-severity check
 * failed, 1 when one did (or the plugin crashed, hung or called exit()), 2 on
 * bad usage (a --set that does not bind: the kernel's message is printed), 3
 * when the file cannot be loaded at all (the loader's reason is printed).
 *
 * This process runs no plugin code. The registry checks the file in its
 * scanner (kernel/plugin/probe.h), and the checks run in a worker process
 * that this one forks and watches: the worker reports each check's result
 * through a pipe, and a check that has not reported within the time limit
 * (--timeout, per check) is a hang. A worker that dies (a signal, exit(), a
 * hang killed) fails the check it was running, naming the plugin and what
 * it did, and a new worker carries on with the next check, after repeating
 * the setup of the suite it resumes in; when the setup itself was the
 * check, the rest of its suite is skipped. A plugin's own output goes to
 * stderr, so it cannot break the report or the JSON document.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "conform.h"
#include "plugin/describe.h"
#include "plugin/guard.h"

static const conform_suite *const suites[] = {
    &conform_desc_suite,    &conform_topology_suite, &conform_router_suite,
    &conform_arbiter_suite, &conform_traffic_suite,  &conform_placement_suite,
    &conform_bridge_suite,  &conform_routing_suite,  &conform_selection_suite,
    &conform_allocation_suite,
};

/* The default time limit of one check. The slowest in-tree check
   (router.deterministic of updown under AddressSanitizer) takes 43 s on an
   idle 2-core machine, a few times that on a loaded one: a hang is worth
   waiting longer than any of that, not forever. */
#define TIMEOUT_DEFAULT 600.0

/* The worker's exit status when the plugin called exit() (the guard's). */
#define WORKER_PLUGIN_EXITED 97

typedef struct tally {
    guint passed, failed, warned, skipped;
} tally;

static gboolean json;

void conform_note(conform_findings *f, const char *where, const char *fmt, ...)
{
    if (f->count++ > 0)
        return;
    if (where)
        g_string_append_printf(f->detail, "[%s] ", where);
    va_list ap;
    va_start(ap, fmt);
    g_string_append_vprintf(f->detail, fmt, ap);
    va_end(ap);
}

conform_status conform_verdict(conform_findings *f)
{
    if (f->count > 1)
        g_string_append_printf(f->detail, " (%u cases in all)", f->count);
    return f->count ? CONFORM_FAIL : CONFORM_PASS;
}

conform_status conform_skip_if_none(conform_status s, guint applied, GString *detail, const char *why)
{
    if (s == CONFORM_SKIP || applied > 0)
        return s;
    g_string_assign(detail, why);
    return CONFORM_SKIP;
}

static const char *status_word(conform_status s, conform_severity sev)
{
    switch (s) {
    case CONFORM_PASS:
        return "PASS";
    case CONFORM_SKIP:
        return "SKIP";
    case CONFORM_FAIL:
        break;
    }
    return sev == CONFORM_ERROR ? "FAIL" : "WARN";
}

/* One check's result, as a text block or a JSON object (with its leading
   comma unless first). */
static void format_result(GString *out, const conform_check *c, conform_status s, const char *detail,
                          gboolean first)
{
    if (json) {
        g_string_append(out, first ? "\n    {\"id\": " : ",\n    {\"id\": ");
        insee_json_string(out, c->id);
        g_string_append(out, ", \"severity\": ");
        insee_json_string(out, c->severity == CONFORM_ERROR ? "error" : "warning");
        g_string_append(out, ", \"status\": ");
        insee_json_string(out, s == CONFORM_PASS ? "PASS" : s == CONFORM_SKIP ? "SKIP" : "FAIL");
        g_string_append(out, ", \"message\": ");
        insee_json_string(out, c->message);
        g_string_append(out, ", \"detail\": ");
        insee_json_string(out, detail ? detail : "");
        g_string_append(out, ", \"hint\": ");
        insee_json_string(out, c->hint);
        g_string_append(out, "}");
        return;
    }
    g_string_append_printf(out, "%s  %-22s %s\n", status_word(s, c->severity), c->id, c->message);
    if (detail && *detail)
        g_string_append_printf(out, "      %s\n", detail);
    if (s == CONFORM_FAIL)
        g_string_append_printf(out, "      hint: %s\n", c->hint);
}

static void format_summary(GString *out, const tally *t, gboolean crashed, gboolean stopped)
{
    if (json) {
        g_string_append_printf(out,
                               "\n  ],\n  \"passed\": %u, \"failed\": %u, \"warnings\": %u, "
                               "\"skipped\": %u, \"crashed\": %s\n}\n",
                               t->passed, t->failed, t->warned, t->skipped, crashed ? "true" : "false");
        return;
    }
    if (stopped)
        g_string_append(out, "the remaining checks did not run\n");
    if (t->warned)
        g_string_append_printf(out, "%u warning%s\n", t->warned, t->warned == 1 ? "" : "s");
    /* The closing line CI tools read: failures of error severity only. */
    g_string_append_printf(out, "%u passed, %u failed, %u skipped\n", t->passed, t->failed, t->skipped);
}

static void print_list(void)
{
    printf("| id | kind | severity | what it checks | hint on failure |\n|---|---|---|---|---|\n");
    for (size_t s = 0; s < G_N_ELEMENTS(suites); s++)
        for (size_t i = 0; i < suites[s]->n_checks; i++) {
            const conform_check *c = &suites[s]->checks[i];
            printf("| `%s` | %s | %s | %s | %s |\n", c->id,
                   suites[s]->kind ? insee_kind_name(suites[s]->kind) : "all",
                   c->severity == CONFORM_ERROR ? "error" : "warning", c->message, c->hint);
        }
}

static void print_header(const conform_ctx *ctx)
{
    const insee_plugin *p = ctx->plugin;
    GString *out = g_string_new(NULL);
    if (json) {
        g_string_append(out, "{\n  \"file\": ");
        insee_json_string(out, ctx->path);
        g_string_append(out, ",\n  \"kind\": ");
        insee_json_string(out, insee_kind_name(p->kind));
        g_string_append(out, ", \"name\": ");
        insee_json_string(out, p->name);
        g_string_append(out, ", \"version\": ");
        insee_json_string(out, p->version);
        g_string_append(out, ",\n  \"checks\": [");
    } else {
        g_string_append_printf(out, "insee-conform: %s: %s plugin '%s' %s (ABI %u.%u)\n", ctx->path,
                               insee_kind_name(p->kind), p->name, p->version ? p->version : "",
                               p->abi_major, p->abi_minor);
    }
    fputs(out->str, stdout);
    fflush(stdout);
    g_string_free(out, TRUE);
}

/* The supporting plugins (the mock host's topologies, the router
   experiments' other kinds), found after the plugin under test: every
   --plugin-dir, then the default plugin directory. */
static void scan_support_dirs(conform_ctx *ctx)
{
    for (const char *const *d = ctx->plugin_dirs; d && *d; d++)
        insee_registry_add_dir(ctx->reg, *d);
    char *def = insee_registry_default_dir();
    insee_registry_add_dir(ctx->reg, def);
    g_free(def);
    insee_registry_scan(ctx->reg);
}

/* Whether the --set overrides bind where the suites of the plugin's kind
   will use them; FALSE with the kernel's message otherwise. */
static gboolean overrides_bind(const conform_ctx *ctx, GError **err)
{
    if (!ctx->overrides || !*ctx->overrides)
        return TRUE; /* nothing to check; a required parameter is a SKIP, not misuse */
    for (size_t s = 0; s < G_N_ELEMENTS(suites); s++)
        if (suites[s]->kind == ctx->plugin->kind && suites[s]->validate &&
            !suites[s]->validate(ctx, err))
            return FALSE;
    return TRUE;
}

static int refuse(const char *path, const char *reason)
{
    fprintf(stderr, "insee-conform: cannot load %s: %s\n", path, reason);
    if (json) {
        GString *out = g_string_new("{\"file\": ");
        insee_json_string(out, path);
        g_string_append(out, ", \"loaded\": false, \"reason\": ");
        insee_json_string(out, reason);
        g_string_append(out, "}\n");
        fputs(out->str, stdout);
        g_string_free(out, TRUE);
    }
    return 3;
}

/* ---- the worker ----------------------------------------------------------
 * Frames on the pipe: a header, then `len` bytes of text. */
enum { MSG_READY, MSG_RESULT, MSG_USAGE, MSG_UNLOADABLE };

typedef struct frame {
    guint32 type, check, status, len;
} frame;

/* One check of the run, in order. */
typedef struct planned {
    const conform_suite *suite;
    guint index; /* in suite->checks; 0 is a kind suite's setup */
} planned;

static gboolean send_frame(int fd, guint32 type, guint32 check, guint32 status, const char *text)
{
    frame f = {type, check, status, text ? (guint32)strlen(text) : 0};
    GString *buf = g_string_new_len((const char *)&f, sizeof f);
    g_string_append_len(buf, text, f.len);
    const char *p = buf->str;
    gsize left = buf->len;
    while (left > 0) {
        ssize_t n = write(fd, p, left);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        p += n;
        left -= (gsize)n;
    }
    g_string_free(buf, TRUE);
    return left == 0;
}

static gboolean last_of_suite(const GArray *plan, guint i)
{
    return i + 1 == plan->len ||
           g_array_index(plan, planned, i + 1).suite != g_array_index(plan, planned, i).suite;
}

/* Load the plugin, check the overrides, repeat the setup of the suite that
   plan[from] belongs to when it starts past it, then run plan[from...] and
   report each result on `fd`. Returns the worker's exit status. */
static int work(conform_ctx *ctx, const GArray *plan, guint from, int fd)
{
    /* Crashes are the supervisor's to report: no sanitizer report here. */
    const int fatal[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
    for (size_t i = 0; i < G_N_ELEMENTS(fatal); i++)
        signal(fatal[i], SIG_DFL);
    insee_guard_install("insee-conform", WORKER_PLUGIN_EXITED);
    /* A plugin's output must not mix into the report. */
    if (dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
        return 1;

    const insee_plugin *p = insee_registry_find(ctx->reg, ctx->plugin->kind, ctx->plugin->name);
    if (p != ctx->plugin) {
        send_frame(fd, MSG_UNLOADABLE, 0, 0, ctx->plugin->reason);
        return 0;
    }
    GError *err = NULL;
    if (!overrides_bind(ctx, &err)) {
        send_frame(fd, MSG_USAGE, 0, 0, err->message);
        g_error_free(err);
        return 0;
    }
    const planned *start = &g_array_index(plan, planned, from);
    if (start->index > 0 && start->suite->kind != 0) {
        ctx->suite = start->suite;
        GString *ignored = g_string_new(NULL);
        start->suite->checks[0].run(ctx, ignored);
        g_string_free(ignored, TRUE);
    }
    if (!send_frame(fd, MSG_READY, from, 0, NULL))
        return 1;
    for (guint i = from; i < plan->len; i++) {
        const planned *pl = &g_array_index(plan, planned, i);
        ctx->suite = pl->suite;
        GString *detail = g_string_new(NULL);
        conform_status s = pl->suite->checks[pl->index].run(ctx, detail);
        gboolean sent = send_frame(fd, MSG_RESULT, i, s, detail->str);
        g_string_free(detail, TRUE);
        if (!sent)
            return 1;
        if (last_of_suite(plan, i) && pl->suite->cleanup)
            pl->suite->cleanup(ctx);
    }
    return 0;
}

/* ---- the supervisor ------------------------------------------------------ */

typedef struct run {
    conform_ctx *ctx;
    const GArray *plan;
    double timeout;
    char *label;        /* "router plugin 'x'": who is blamed */
    tally t;
    gboolean first;     /* no result printed yet */
    gboolean header;    /* the header is printed */
    gboolean crashed;   /* a worker died or hung */
    guint next;         /* the check whose result is due */
    int exit_code;      /* set when the run must end: usage or load failure */
} run;

static const conform_check *check_at(const run *r, guint i)
{
    const planned *pl = &g_array_index(r->plan, planned, i);
    return &pl->suite->checks[pl->index];
}

static void emit(run *r, guint i, conform_status s, const char *detail, gboolean crash)
{
    const conform_check *c = check_at(r, i);
    if (s == CONFORM_PASS)
        r->t.passed++;
    else if (s == CONFORM_SKIP)
        r->t.skipped++;
    else if (c->severity == CONFORM_ERROR || crash)
        r->t.failed++;
    else
        r->t.warned++;
    GString *out = g_string_new(NULL);
    /* A crash is a failure whatever the check's severity. */
    conform_check shown = *c;
    if (crash)
        shown.severity = CONFORM_ERROR;
    format_result(out, &shown, s, detail, r->first);
    r->first = FALSE;
    fputs(out->str, stdout);
    fflush(stdout);
    g_string_free(out, TRUE);
}

static void ensure_header(run *r)
{
    if (!r->header)
        print_header(r->ctx);
    r->header = TRUE;
}

/* Handle every complete frame in buf; FALSE once the run must end. */
static gboolean take_frames(run *r, GString *buf, gboolean *ready, gint64 *deadline)
{
    while (buf->len >= sizeof(frame)) {
        frame f;
        memcpy(&f, buf->str, sizeof f);
        if (buf->len < sizeof f + f.len)
            break;
        char *text = g_strndup(buf->str + sizeof f, f.len);
        g_string_erase(buf, 0, (gssize)(sizeof f + f.len));
        gboolean go_on = TRUE;
        if (f.type == MSG_USAGE) {
            fprintf(stderr, "insee-conform: %s\n", text);
            r->exit_code = 2;
            go_on = FALSE;
        } else if (f.type == MSG_UNLOADABLE) {
            r->exit_code = refuse(r->ctx->path, text);
            go_on = FALSE;
        } else if (f.type == MSG_READY) {
            *ready = TRUE;
            ensure_header(r);
        } else if (f.type == MSG_RESULT && f.check == r->next && f.status <= CONFORM_SKIP) {
            emit(r, r->next++, (conform_status)f.status, text, FALSE);
        } else {
            go_on = FALSE; /* not the worker's: treated as its death */
        }
        g_free(text);
        if (!go_on)
            return FALSE;
        *deadline = g_get_monotonic_time() + (gint64)(r->timeout * G_USEC_PER_SEC);
    }
    return TRUE;
}

/* What happened to a worker that stopped reporting, as a check's detail. */
static char *death_detail(const run *r, gboolean timed_out, int status, gboolean ready,
                          gboolean resumed)
{
    /* Before it was ready, a worker was loading the plugin, or repeating
       the setup of the suite it resumed in. */
    const char *when = ready     ? "during this check"
                       : resumed ? "while the suite's setup was repeated"
                                 : "while being loaded";
    if (timed_out)
        return g_strdup_printf("%s did not finish %s within %g s (an endless loop, or a wait "
                               "that never ends?); if it is only slow, raise the limit with "
                               "--timeout",
                               r->label, ready ? "this check" : resumed ? "the setup" : "loading",
                               r->timeout);
    if (WIFSIGNALED(status))
        return g_strdup_printf("%s crashed %s (signal %d, %s); run the same command under gdb "
                               "or valgrind to see where",
                               r->label, when, WTERMSIG(status), g_strsignal(WTERMSIG(status)));
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (code == WORKER_PLUGIN_EXITED)
        return g_strdup_printf("%s called exit() %s; a plugin must report errors through "
                               "insee_error and return, never end the process",
                               r->label, when);
    return g_strdup_printf("the process ended %s with exit status %d before reporting (did %s "
                           "call _exit()?)",
                           when, code, r->label);
}

/* Fork a worker from r->next on and follow it until it ends; FALSE when the
   run must stop here (r->exit_code set, or a failure nothing can resume). */
static gboolean follow_worker(run *r)
{
    int fds[2];
    if (pipe(fds) != 0) {
        fprintf(stderr, "insee-conform: cannot create a pipe: %s\n", g_strerror(errno));
        r->exit_code = 1;
        return FALSE;
    }
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "insee-conform: cannot fork: %s\n", g_strerror(errno));
        close(fds[0]);
        close(fds[1]);
        r->exit_code = 1;
        return FALSE;
    }
    if (pid == 0) {
        close(fds[0]);
        int code = work(r->ctx, r->plan, r->next, fds[1]);
        close(fds[1]);
        exit(code);
    }
    close(fds[1]);

    GString *buf = g_string_new(NULL);
    gboolean ready = FALSE, timed_out = FALSE, ok = TRUE;
    guint from = r->next;
    gint64 deadline = g_get_monotonic_time() + (gint64)(r->timeout * G_USEC_PER_SEC);
    for (;;) {
        gint64 left = deadline - g_get_monotonic_time();
        if (left <= 0) {
            timed_out = TRUE;
            break;
        }
        struct pollfd pfd = {.fd = fds[0], .events = POLLIN};
        if (poll(&pfd, 1, (int)MIN((left + 999) / 1000, G_MAXINT)) <= 0)
            continue;
        char chunk[4096];
        ssize_t n = read(fds[0], chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        g_string_append_len(buf, chunk, n);
        if (!(ok = take_frames(r, buf, &ready, &deadline)))
            break;
    }
    if (timed_out || !ok)
        kill(pid, SIGKILL);
    close(fds[0]);
    g_string_free(buf, TRUE);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (r->exit_code)
        return FALSE;
    if (r->next == r->plan->len) {
        if (status != 0) {
            /* Every check reported, then something went wrong at exit: a
               sanitizer's report (above), say. Not a pass. */
            fprintf(stderr, "insee-conform: the checks ended, then their process %s %d\n",
                    WIFSIGNALED(status) ? "died of signal" : "exited with status",
                    WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
            r->exit_code = 1;
        }
        return TRUE;
    }

    r->crashed = TRUE;
    ensure_header(r);
    char *detail = death_detail(r, timed_out, status, ready, from > 0);
    emit(r, r->next, CONFORM_FAIL, detail, TRUE);
    g_free(detail);
    const planned *pl = &g_array_index(r->plan, planned, r->next);
    guint failed = r->next++;
    /* Loading, or repeating a setup that passed before, failed: a new
       worker would meet the same. */
    if (!ready)
        return FALSE;
    if (pl->index == 0 && pl->suite->kind != 0) {
        char *why = g_strdup_printf("not run: the suite's setup (%s) did not finish",
                                    check_at(r, failed)->id);
        for (; r->next < r->plan->len && !last_of_suite(r->plan, r->next - 1); r->next++)
            emit(r, r->next, CONFORM_SKIP, why, FALSE);
        g_free(why);
    }
    return TRUE;
}

/* Run every planned check through workers; the exit status. */
static int supervise(conform_ctx *ctx, const GArray *plan, double timeout)
{
    run r = {
        .ctx = ctx,
        .plan = plan,
        .timeout = timeout,
        .label = g_strdup_printf("%s plugin '%s'", insee_kind_name(ctx->plugin->kind),
                                 ctx->plugin->name),
        .first = TRUE,
    };
    gboolean finished = TRUE;
    while (r.next < plan->len && finished)
        finished = follow_worker(&r);
    if (r.exit_code == 2 || r.exit_code == 3) {
        g_free(r.label);
        return r.exit_code;
    }
    ensure_header(&r);
    GString *out = g_string_new(NULL);
    format_summary(out, &r.t, r.crashed, r.next < plan->len);
    fputs(out->str, stdout);
    g_string_free(out, TRUE);
    g_free(r.label);
    return r.exit_code ? r.exit_code : r.t.failed ? 1 : 0;
}

int main(int argc, char **argv)
{
    gboolean list = FALSE;
    char **sets = NULL, **dirs = NULL;
    double timeout = TIMEOUT_DEFAULT;
    GOptionEntry entries[] = {
        {"json", 0, 0, G_OPTION_ARG_NONE, &json, "Write the results as one JSON document", NULL},
        {"set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &sets,
         "Set a parameter of the plugin (KEY=VALUE) or of any section (SECTION.KEY=VALUE)",
         "KEY=VALUE"},
        {"plugin-dir", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &dirs,
         "Find supporting plugins (router experiments) here before the default directory", "DIR"},
        {"timeout", 0, 0, G_OPTION_ARG_DOUBLE, &timeout,
         "Fail a check that has not finished after SECONDS (default 600)", "SECONDS"},
        {"list", 0, 0, G_OPTION_ARG_NONE, &list, "Print the table of checks and exit", NULL},
        {NULL, 0, 0, 0, NULL, NULL, NULL},
    };
    GOptionContext *opts = g_option_context_new("PLUGIN.so — check a plugin against the insee ABI");
    g_option_context_add_main_entries(opts, entries, NULL);
    GError *err = NULL;
    gboolean parsed = g_option_context_parse(opts, &argc, &argv, &err);
    g_option_context_free(opts);
    if (parsed && !(timeout > 0)) {
        g_set_error(&err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "--timeout must be a positive number of seconds");
        parsed = FALSE;
    }
    if (!parsed || (!list && argc != 2)) {
        fprintf(stderr, "insee-conform: %s\nusage: insee-conform [--json] [--timeout SECONDS] "
                        "[--set KEY=VALUE]... [--plugin-dir DIR]... PLUGIN.so | --list\n",
                err ? err->message : "expected one plugin file");
        g_clear_error(&err);
        g_strfreev(sets);
        g_strfreev(dirs);
        return 2;
    }
    if (list) {
        print_list();
        return 0;
    }

    conform_ctx ctx = {
        .path = argv[1],
        .reg = insee_registry_new(),
        .overrides = (const char *const *)sets,
        .plugin_dirs = (const char *const *)dirs,
    };
    ctx.plugin = insee_registry_add_file(ctx.reg, ctx.path);
    int rc;
    if (ctx.plugin->refused) {
        rc = refuse(ctx.path, ctx.plugin->reason);
    } else {
        scan_support_dirs(&ctx);
        GArray *plan = g_array_new(FALSE, FALSE, sizeof(planned));
        for (size_t s = 0; s < G_N_ELEMENTS(suites); s++)
            if (suites[s]->kind == 0 || suites[s]->kind == ctx.plugin->kind)
                for (guint i = 0; i < suites[s]->n_checks; i++)
                    g_array_append_val(plan, ((planned){suites[s], i}));
        rc = supervise(&ctx, plan, timeout);
        g_array_free(plan, TRUE);
    }
    insee_registry_free(ctx.reg);
    g_strfreev(sets);
    g_strfreev(dirs);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "insee-conform: could not write the results to stdout\n");
        return 1;
    }
    return rc;
}
