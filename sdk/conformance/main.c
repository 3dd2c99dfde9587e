/* sdk/conformance/main.c — insee-conform: load one plugin and run the
 * conformance checks of its kind (DESIGN §9).
 *
 *   insee-conform [--json] [--set KEY=VALUE]... [--plugin-dir DIR]... PLUGIN.so
 *   insee-conform --list
 *
 * Prints one line per check — PASS, FAIL (an error-severity check failed),
 * WARN (a warning-severity check failed) or SKIP, the check id and what it
 * checks — then the detail and, on a failure, the hint. --json writes the
 * same as one JSON document. Exit status: 0 when no error-severity check
 * failed, 1 when one did (or the plugin crashed), 2 on bad usage (a --set
 * that does not bind: the kernel's message is printed), 3 when the file
 * cannot be loaded at all (the loader's reason is printed).
 *
 * The output is streamed check by check and flushed, so that when the plugin
 * crashes the fatal-signal handler can finish it with a failure line for the
 * check that was running (and close the JSON document).
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "conform.h"
#include "plugin/describe.h"

static const conform_suite *const suites[] = {
    &conform_desc_suite,    &conform_topology_suite, &conform_router_suite,
    &conform_arbiter_suite, &conform_traffic_suite,  &conform_placement_suite,
};

typedef struct tally {
    guint passed, failed, warned, skipped;
} tally;

static gboolean json;

/* What the fatal-signal handler writes around the signal number: prepared
   before each check, because a handler may not format. */
static char crash_before[4096], crash_after[2048];

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

static void format_summary(GString *out, const tally *t, gboolean crashed)
{
    if (json) {
        g_string_append_printf(out,
                               "\n  ],\n  \"passed\": %u, \"failed\": %u, \"warnings\": %u, "
                               "\"skipped\": %u, \"crashed\": %s\n}\n",
                               t->passed, t->failed, t->warned, t->skipped, crashed ? "true" : "false");
        return;
    }
    if (crashed)
        g_string_append(out, "the plugin crashed: the remaining checks did not run\n");
    if (t->warned)
        g_string_append_printf(out, "%u warning%s\n", t->warned, t->warned == 1 ? "" : "s");
    /* The closing line CI tools read: failures of error severity only. */
    g_string_append_printf(out, "%u passed, %u failed, %u skipped\n", t->passed, t->failed, t->skipped);
}

static void write_all(const char *s)
{
    size_t len = strlen(s);
    while (len > 0) {
        ssize_t n = write(STDOUT_FILENO, s, len);
        if (n <= 0)
            return;
        s += n;
        len -= (size_t)n;
    }
}

static void on_fatal_signal(int sig)
{
    char num[12];
    size_t i = sizeof num - 1;
    num[i] = '\0';
    do {
        num[--i] = (char)('0' + sig % 10);
        sig /= 10;
    } while (sig > 0 && i > 0);
    write_all(crash_before);
    write_all(num + i);
    write_all(crash_after);
    _exit(1);
}

/* Prepare what to print should `c` crash, given the tally so far: the
   failure block with the signal number left out at SIGNAL_SLOT, then the
   summary. */
#define SIGNAL_SLOT "@SIGNAL@"
static void prepare_crash(const conform_check *c, const tally *t, gboolean first)
{
    tally after = *t;
    after.failed++;
    GString *text = g_string_new(NULL);
    format_result(text, c, CONFORM_FAIL,
                  "the plugin crashed during this check (signal " SIGNAL_SLOT
                  "); run the same command under gdb or valgrind to see where",
                  first);
    format_summary(text, &after, TRUE);
    const char *slot = strstr(text->str, SIGNAL_SLOT);
    g_strlcpy(crash_before, text->str, MIN(sizeof crash_before, (size_t)(slot - text->str) + 1));
    g_strlcpy(crash_after, slot + strlen(SIGNAL_SLOT), sizeof crash_after);
    g_string_free(text, TRUE);
}

static void run_suite(conform_ctx *ctx, const conform_suite *suite, tally *t, gboolean *first)
{
    ctx->suite = suite;
    for (size_t i = 0; i < suite->n_checks; i++) {
        const conform_check *c = &suite->checks[i];
        prepare_crash(c, t, *first);
        GString *detail = g_string_new(NULL);
        conform_status s = c->run(ctx, detail);
        if (s == CONFORM_PASS)
            t->passed++;
        else if (s == CONFORM_SKIP)
            t->skipped++;
        else if (c->severity == CONFORM_ERROR)
            t->failed++;
        else
            t->warned++;
        GString *out = g_string_new(NULL);
        format_result(out, c, s, detail->str, *first);
        *first = FALSE;
        fputs(out->str, stdout);
        fflush(stdout);
        g_string_free(out, TRUE);
        g_string_free(detail, TRUE);
    }
    if (suite->cleanup)
        suite->cleanup(ctx);
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
    const insee_plugin_desc *d = ctx->plugin->desc;
    GString *out = g_string_new(NULL);
    if (json) {
        g_string_append(out, "{\n  \"file\": ");
        insee_json_string(out, ctx->path);
        g_string_append(out, ",\n  \"kind\": ");
        insee_json_string(out, insee_kind_name(d->kind));
        g_string_append(out, ", \"name\": ");
        insee_json_string(out, d->name);
        g_string_append(out, ", \"version\": ");
        insee_json_string(out, d->version);
        g_string_append(out, ",\n  \"checks\": [");
    } else {
        g_string_append_printf(out, "insee-conform: %s: %s plugin '%s' %s (ABI %u.%u)\n", ctx->path,
                               insee_kind_name(d->kind), d->name, d->version ? d->version : "",
                               d->abi_major, d->abi_minor);
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
        if (suites[s]->kind == ctx->plugin->desc->kind && suites[s]->validate &&
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

int main(int argc, char **argv)
{
    gboolean list = FALSE;
    char **sets = NULL, **dirs = NULL;
    GOptionEntry entries[] = {
        {"json", 0, 0, G_OPTION_ARG_NONE, &json, "Write the results as one JSON document", NULL},
        {"set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &sets,
         "Set a parameter of the plugin (KEY=VALUE) or of any section (SECTION.KEY=VALUE)",
         "KEY=VALUE"},
        {"plugin-dir", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &dirs,
         "Find supporting plugins (router experiments) here before the default directory", "DIR"},
        {"list", 0, 0, G_OPTION_ARG_NONE, &list, "Print the table of checks and exit", NULL},
        {NULL, 0, 0, 0, NULL, NULL, NULL},
    };
    GOptionContext *opts = g_option_context_new("PLUGIN.so — check a plugin against the insee ABI");
    g_option_context_add_main_entries(opts, entries, NULL);
    GError *err = NULL;
    gboolean parsed = g_option_context_parse(opts, &argc, &argv, &err);
    g_option_context_free(opts);
    if (!parsed || (!list && argc != 2)) {
        fprintf(stderr, "insee-conform: %s\nusage: insee-conform [--json] [--set KEY=VALUE]... "
                        "[--plugin-dir DIR]... PLUGIN.so | --list\n",
                err ? err->message : "expected one plugin file");
        g_clear_error(&err);
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
    if (!ctx.plugin || ctx.plugin->refused) {
        int rc = refuse(ctx.path, ctx.plugin ? ctx.plugin->reason : "the loader returned nothing");
        insee_registry_free(ctx.reg);
        return rc;
    }

    scan_support_dirs(&ctx);
    if (!overrides_bind(&ctx, &err)) {
        fprintf(stderr, "insee-conform: %s\n", err->message);
        g_error_free(err);
        insee_registry_free(ctx.reg);
        g_strfreev(sets);
        g_strfreev(dirs);
        return 2;
    }

    struct sigaction sa = {0};
    sa.sa_handler = on_fatal_signal;
    sigemptyset(&sa.sa_mask);
    const int fatal[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
    for (size_t i = 0; i < G_N_ELEMENTS(fatal); i++)
        sigaction(fatal[i], &sa, NULL);

    print_header(&ctx);
    tally t = {0};
    gboolean first = TRUE;
    for (size_t s = 0; s < G_N_ELEMENTS(suites); s++)
        if (suites[s]->kind == 0 || suites[s]->kind == ctx.plugin->desc->kind)
            run_suite(&ctx, suites[s], &t, &first);
    GString *out = g_string_new(NULL);
    format_summary(out, &t, FALSE);
    fputs(out->str, stdout);
    g_string_free(out, TRUE);

    insee_registry_free(ctx.reg);
    g_strfreev(sets);
    g_strfreev(dirs);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "insee-conform: could not write the results to stdout\n");
        return 1;
    }
    return t.failed ? 1 : 0;
}
