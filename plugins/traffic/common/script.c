/* script.c — building causal task programs (script.h). */
#include "script.h"

#include <stdlib.h>
#include <string.h>

typedef struct program {
    script_event *ev;
    size_t len, cap;
} program;

struct script {
    uint32_t tasks;
    uint64_t sends;
    program *prog;
};

script *script_new(uint32_t tasks)
{
    script *s = calloc(1, sizeof *s);
    if (!s)
        abort();
    s->tasks = tasks;
    s->prog = calloc(tasks ? tasks : 1, sizeof *s->prog);
    if (!s->prog)
        abort();
    return s;
}

void script_free(script *s)
{
    if (!s)
        return;
    for (uint32_t t = 0; t < s->tasks; t++)
        free(s->prog[t].ev);
    free(s->prog);
    free(s);
}

uint32_t script_tasks(const script *s) { return s->tasks; }

void script_add(script *s, uint32_t task, const script_event *ev)
{
    program *p = &s->prog[task];
    if (p->len == p->cap) {
        p->cap = p->cap ? p->cap * 2 : 8;
        p->ev = realloc(p->ev, p->cap * sizeof *p->ev);
        if (!p->ev)
            abort();
    }
    p->ev[p->len++] = *ev;
    s->sends += ev->op == SCRIPT_SEND;
}

void script_send(script *s, uint32_t task, uint32_t dst, uint64_t tag, uint64_t bytes)
{
    script_add(s, task, &(script_event){.op = SCRIPT_SEND, .peer = dst, .tag = tag, .bytes = bytes});
}

void script_recv(script *s, uint32_t task, uint32_t src, uint64_t tag, uint64_t bytes)
{
    script_add(s, task, &(script_event){.op = SCRIPT_RECV, .peer = src, .tag = tag, .bytes = bytes});
}

void script_compute(script *s, uint32_t task, uint64_t cycles)
{
    script_add(s, task, &(script_event){.op = SCRIPT_COMPUTE, .cycles = cycles});
}

size_t script_length(const script *s, uint32_t task) { return s->prog[task].len; }

const script_event *script_events(const script *s, uint32_t task) { return s->prog[task].ev; }

uint64_t script_messages(const script *s) { return s->sends; }
