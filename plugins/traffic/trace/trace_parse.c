/* trace_parse.c — the FSIN trace format (trace_parse.h, README.md).
 *
 * Two passes over the text: the first checks every line and finds the
 * largest task id, so the script is created with its task count; the
 * second, which cannot fail, appends the events. The text is never copied
 * and no line is held: memory is the script alone. */
#include "trace_parse.h"

#include <string.h>

typedef struct trace_form {
    char op;
    unsigned fields;
    unsigned task_fields; /* the first task_fields fields are task ids */
    const char *names[4];
    const char *text;
} trace_form;

static const trace_form forms[] = {
    {'s', 4, 2, {"src", "dst", "tag", "bytes"}, "s src dst tag bytes"},
    {'r', 4, 2, {"src", "dst", "tag", "bytes"}, "r src dst tag bytes"},
    {'c', 2, 1, {"task", "time"}, "c task time"},
};

/* A send's optional interface, nic=K, as a number field for its messages. */
static const trace_form nic_form = {'s', 1, 0, {"nic"}, "s src dst tag bytes nic=K"};

/* Interfaces a send may name: insee_message.nic is 16 bits. */
#define TRACE_MAX_NIC 65535u

/* One parsed line: form NULL for a blank or comment line. */
typedef struct trace_line {
    const trace_form *form;
    uint64_t v[4];
    uint16_t nic; /* a send's nic=K (0: not given, the node's turn) */
    uint8_t copy; /* a send's copy= (INSEE_COPY_DEFAULT: not given) */
} trace_line;

static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* tok[0..n) for a message: at most 24 characters, unprintable bytes as '?'. */
static void show(const char *tok, size_t n, char out[32])
{
    size_t k = n > 24 ? 24 : n;
    for (size_t i = 0; i < k; i++)
        out[i] = tok[i] >= 0x20 && tok[i] < 0x7f ? tok[i] : '?';
    strcpy(out + k, n > k ? "..." : "");
}

static const trace_form *form_of(const char *tok, size_t n)
{
    for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++)
        if (n == 1 && tok[0] == forms[f].op)
            return &forms[f];
    return NULL;
}

/* Field `field` of form f from tok[0..n); false with err set. */
static bool parse_number(const trace_form *f, unsigned field, const char *tok, size_t n,
                         uint64_t *out, const char *name, uint32_t line, insee_error *err)
{
    char shown[32];
    const char *what = f->names[field];
    if (tok[0] == '-') {
        show(tok, n, shown);
        insee_error_set(err, INSEE_ERR_IO,
                        "%s:%u: %s is negative ('%s'); ids, tags, lengths and times are "
                        "non-negative integers",
                        name, line, what, shown);
        return false;
    }
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (tok[i] < '0' || tok[i] > '9') {
            show(tok, n, shown);
            insee_error_set(err, INSEE_ERR_IO,
                            "%s:%u: %s is not a number ('%s'); write a non-negative decimal "
                            "integer ('%s')",
                            name, line, what, shown, f->text);
            return false;
        }
        uint64_t d = (uint64_t)(tok[i] - '0');
        if (v > (UINT64_MAX - d) / 10) {
            show(tok, n, shown);
            insee_error_set(err, INSEE_ERR_IO, "%s:%u: %s is too large ('%s'; at most %llu)",
                            name, line, what, shown, (unsigned long long)UINT64_MAX);
            return false;
        }
        v = v * 10 + d;
    }
    if (field < f->task_fields && v >= UINT32_MAX) {
        insee_error_set(err, INSEE_ERR_IO,
                        "%s:%u: %s %llu is too large (tasks are numbered from 0 to %u)", name,
                        line, what, (unsigned long long)v, UINT32_MAX - 1);
        return false;
    }
    *out = v;
    return true;
}

/* tok[0..n) starts with `key` and '='. */
static bool is_option(const char *tok, size_t n, const char *key)
{
    size_t k = strlen(key);
    return n > k && memcmp(tok, key, k) == 0 && tok[k] == '=';
}

/* A token after a send's bytes: nic=K or copy=zero|two, each once; false
   with err set. */
static bool parse_option(const char *tok, size_t n, const char *name, uint32_t line,
                         trace_line *out, insee_error *err)
{
    char shown[32];
    show(tok, n, shown);
    if (is_option(tok, n, "nic")) {
        uint64_t k = 0;
        if (out->nic) {
            insee_error_set(err, INSEE_ERR_IO, "%s:%u: nic given twice ('%s'); a send leaves "
                            "by one interface", name, line, shown);
            return false;
        }
        if (n > 4 && !parse_number(&nic_form, 0, tok + 4, n - 4, &k, name, line, err))
            return false;
        if (k == 0 || k > TRACE_MAX_NIC) {
            insee_error_set(err, INSEE_ERR_IO,
                            "%s:%u: '%s' names no interface; write nic=K with K from 1 to %u, "
                            "the sending node's interface K (without nic=, the node's turn)",
                            name, line, shown, TRACE_MAX_NIC);
            return false;
        }
        out->nic = (uint16_t)k;
        return true;
    }
    if (is_option(tok, n, "copy")) {
        static const struct {
            const char *text;
            uint8_t mode;
        } modes[] = {{"copy=zero", INSEE_COPY_ZERO}, {"copy=two", INSEE_COPY_TWO}};
        if (out->copy != INSEE_COPY_DEFAULT) {
            insee_error_set(err, INSEE_ERR_IO, "%s:%u: copy given twice ('%s'); a send has one "
                            "copy mode", name, line, shown);
            return false;
        }
        for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++)
            if (n == strlen(modes[m].text) && memcmp(tok, modes[m].text, n) == 0) {
                out->copy = modes[m].mode;
                return true;
            }
        insee_error_set(err, INSEE_ERR_IO, "%s:%u: '%s' is not a copy mode; write copy=zero or "
                        "copy=two", name, line, shown);
        return false;
    }
    insee_error_set(err, INSEE_ERR_IO,
                    "%s:%u: extra field '%s' after 's src dst tag bytes'; a send may end with "
                    "nic=K (its node's interface K, from 1) and copy=zero or copy=two, one "
                    "event per line",
                    name, line, shown);
    return false;
}

/* Line `line`, p[0..n) without its newline; false with err set. */
static bool parse_line(const char *p, size_t n, const char *name, uint32_t line,
                       trace_line *out, insee_error *err)
{
    const trace_form *f = NULL;
    unsigned field = 0;
    char shown[32];
    size_t i = 0;
    out->nic = 0;
    out->copy = INSEE_COPY_DEFAULT;
    for (;;) {
        while (i < n && is_blank(p[i]))
            i++;
        if (i == n || p[i] == '#')
            break;
        size_t start = i;
        while (i < n && !is_blank(p[i]) && p[i] != '#')
            i++;
        const char *tok = p + start;
        size_t len = i - start;
        if (!f) {
            f = form_of(tok, len);
            if (!f) {
                show(tok, len, shown);
                insee_error_set(err, INSEE_ERR_IO,
                                "%s:%u: unknown event '%s'; a line is 's src dst tag bytes', "
                                "'r src dst tag bytes', 'c task time', blank, or a '#' comment",
                                name, line, shown);
                return false;
            }
            continue;
        }
        if (field == f->fields && f->op == 's') {
            if (!parse_option(tok, len, name, line, out, err))
                return false;
            continue;
        }
        if (field == f->fields) {
            show(tok, len, shown);
            insee_error_set(err, INSEE_ERR_IO,
                            "%s:%u: extra field '%s' after '%s'; one event per line", name, line,
                            shown, f->text);
            return false;
        }
        if (!parse_number(f, field, tok, len, &out->v[field], name, line, err))
            return false;
        field++;
    }
    if (f && field < f->fields) {
        insee_error_set(err, INSEE_ERR_IO, "%s:%u: '%c' needs %u numbers ('%s'), found %u",
                        name, line, f->op, f->fields, f->text, field);
        return false;
    }
    out->form = f;
    return true;
}

static void add_event(script *s, const trace_line *tl, uint32_t line)
{
    const uint64_t *v = tl->v;
    char op = tl->form->op;
    if (op == 'c') {
        script_add(s, (uint32_t)v[0],
                   &(script_event){.op = SCRIPT_COMPUTE, .line = line, .cycles = v[1]});
        return;
    }
    bool send = op == 's';
    script_add(s, (uint32_t)(send ? v[0] : v[1]),
               &(script_event){.op = send ? SCRIPT_SEND : SCRIPT_RECV, .copy = tl->copy,
                               .nic = tl->nic, .peer = (uint32_t)(send ? v[1] : v[0]),
                               .line = line, .tag = v[2], .bytes = v[3]});
}

/* What the checking pass learns. */
typedef struct trace_extent {
    uint32_t tasks;      /* 1 + the largest task id */
    uint32_t tasks_line; /* the first line naming that id */
    uint32_t lines;
} trace_extent;

/* One pass: check every line (s NULL) and measure the trace, or append the
   events to s. */
static bool scan(const char *text, size_t len, const char *name, script *s, trace_extent *x,
                 insee_error *err)
{
    uint32_t line = 0;
    *x = (trace_extent){0};
    for (size_t at = 0; at < len; line++) {
        const char *nl = memchr(text + at, '\n', len - at);
        size_t n = nl ? (size_t)(nl - (text + at)) : len - at;
        if (n > TRACE_MAX_LINE) {
            insee_error_set(err, INSEE_ERR_IO,
                            "%s:%u: line longer than %u characters; is this an FSIN trace?",
                            name, line + 1, TRACE_MAX_LINE);
            return false;
        }
        trace_line tl;
        if (!parse_line(text + at, n, name, line + 1, &tl, err))
            return false;
        if (tl.form && s)
            add_event(s, &tl, line + 1);
        for (unsigned f = 0; tl.form && f < tl.form->task_fields; f++)
            if (tl.v[f] + 1 > x->tasks) {
                x->tasks = (uint32_t)tl.v[f] + 1;
                x->tasks_line = line + 1;
            }
        at += n + 1;
    }
    x->lines = line;
    return true;
}

script *trace_parse(const char *text, size_t len, const char *name, uint32_t max_tasks,
                    insee_error *err)
{
    trace_extent x;
    if (!scan(text, len, name, NULL, &x, err))
        return NULL;
    if (x.tasks == 0) {
        insee_error_set(err, INSEE_ERR_IO,
                        "%s: no events in %u line(s); a trace needs at least one 's', 'r' or "
                        "'c' line",
                        name, x.lines);
        return NULL;
    }
    if (!script_check_tasks(name, x.tasks, x.tasks_line, max_tasks, err))
        return NULL;
    script *s = script_new(x.tasks);
    scan(text, len, name, s, &x, NULL);
    return s;
}
