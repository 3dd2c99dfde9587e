/* kernel/plugin/guard.c — exit() and fatal signals traced to the plugin
 * that caused them; contract in guard.h.
 *
 * Everything a handler reads lives in fixed static arrays filled outside
 * handlers, and a slot is marked live only once its fields are written.
 */
#define _GNU_SOURCE /* dl_iterate_phdr */
#include "guard.h"

#include <execinfo.h>
#include <link.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SLOTS 128       /* plugins loaded at once: an experiment uses a handful */
#define LABEL_SIZE 1024 /* longer labels are cut, still naming kind and plugin */
#define FRAMES 128

typedef struct slot {
    uintptr_t lo, hi; /* [lo, hi): its loaded segments */
    char *path;       /* to find the slot again */
    char label[LABEL_SIZE];
    volatile sig_atomic_t live;
} slot;

static slot slots[SLOTS];
static char loading[LABEL_SIZE];
static volatile sig_atomic_t loading_live;

static char program[64];
static int exit_status;
static gboolean installed;
static void *alt_stack; /* kept for the life of the process */
static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
static struct sigaction previous[G_N_ELEMENTS(fatal_signals)];

typedef struct range {
    const char *path;
    uintptr_t lo, hi;
} range;

static int find_range(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    range *r = data;
    if (!info->dlpi_name || strcmp(info->dlpi_name, r->path) != 0)
        return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD)
            continue;
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        r->lo = MIN(r->lo, lo);
        r->hi = MAX(r->hi, lo + ph->p_memsz);
    }
    return 1;
}

void insee_guard_add(const char *path, const char *label)
{
    range r = {.path = path, .lo = UINTPTR_MAX, .hi = 0};
    dl_iterate_phdr(find_range, &r);
    if (r.hi <= r.lo)
        return;
    for (int i = 0; i < SLOTS; i++) {
        slot *s = &slots[i];
        if (s->live)
            continue;
        s->lo = r.lo;
        s->hi = r.hi;
        s->path = g_strdup(path);
        g_strlcpy(s->label, label, sizeof s->label);
        s->live = 1;
        return;
    }
}

void insee_guard_remove(const char *path)
{
    for (int i = 0; i < SLOTS; i++) {
        slot *s = &slots[i];
        if (s->live && strcmp(s->path, path) == 0) {
            s->live = 0;
            g_clear_pointer(&s->path, g_free);
            return;
        }
    }
}

/* backtrace() loads the unwinder (libgcc_s) on first use: done before a
   plugin is loaded, never in a handler, and not at all by a command that
   loads none (plugins list pays nothing for it). */
static void warm_unwinder(void)
{
    static gboolean warm;
    if (installed && !warm) {
        void *frame[1];
        backtrace(frame, 1);
        warm = TRUE;
    }
}

void insee_guard_loading(const char *label)
{
    loading_live = 0;
    if (label) {
        warm_unwinder();
        g_strlcpy(loading, label, sizeof loading);
        loading_live = 1;
    }
}

/* The plugin whose code is on the stack (innermost first), else the one
   being loaded, else NULL. */
static const char *culprit(void)
{
    void *frames[FRAMES];
    int n = backtrace(frames, FRAMES);
    for (int f = 0; f < n; f++) {
        uintptr_t pc = (uintptr_t)frames[f];
        for (int i = 0; i < SLOTS; i++)
            if (slots[i].live && pc >= slots[i].lo && pc < slots[i].hi)
                return slots[i].label;
    }
    return loading_live ? loading : NULL;
}

static void say(const char *s)
{
    for (size_t len = strlen(s); len > 0;) {
        ssize_t n = write(STDERR_FILENO, s, len);
        if (n <= 0)
            return;
        s += n;
        len -= (size_t)n;
    }
}

static void on_exit_call(void)
{
    const char *who = culprit();
    if (!who)
        return;
    say(program);
    say(": error: ");
    say(who);
    say(" called exit(); a plugin must report errors through insee_error and return, never "
        "end the process\n");
    _exit(exit_status);
}

static void on_fatal_signal(int sig, siginfo_t *info, void *context)
{
    (void)context;
    const char *who = culprit();
    if (who) {
        char num[12];
        size_t i = sizeof num - 1;
        num[i] = '\0';
        int v = sig;
        do {
            num[--i] = (char)('0' + v % 10);
            v /= 10;
        } while (v > 0 && i > 0);
        say(program);
        say(": error: ");
        say(who);
        say(" crashed (signal ");
        say(num + i);
        say(")\n");
    }
    for (size_t k = 0; k < G_N_ELEMENTS(fatal_signals); k++)
        if (fatal_signals[k] == sig)
            sigaction(sig, &previous[k], NULL);
    /* A fault re-runs the faulting instruction on return and meets the
       previous handler with its true context; a sent signal must be sent
       again (it stays blocked, so it arrives once this handler returns). */
    if (info->si_code <= 0)
        raise(sig);
}

void insee_guard_install(const char *prog, int status)
{
    if (installed)
        return;
    installed = TRUE;
    g_strlcpy(program, prog, sizeof program);
    exit_status = status;
    for (int i = 0; i < SLOTS; i++)
        if (slots[i].live)
            warm_unwinder(); /* plugins were loaded before the install */
    atexit(on_exit_call);

    /* A plugin that overflows its stack still gets named. */
    stack_t ss;
    if (sigaltstack(NULL, &ss) == 0 && (ss.ss_flags & SS_DISABLE)) {
        size_t size = MAX((size_t)SIGSTKSZ, (size_t)65536);
        alt_stack = g_malloc(size);
        ss = (stack_t){.ss_sp = alt_stack, .ss_size = size};
        sigaltstack(&ss, NULL);
    }
    struct sigaction sa = {0};
    sa.sa_sigaction = on_fatal_signal;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    for (size_t k = 0; k < G_N_ELEMENTS(fatal_signals); k++)
        sigaction(fatal_signals[k], &sa, &previous[k]);
}
