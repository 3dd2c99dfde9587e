/* kernel/stats/json_writer.c — JSON text written as it is built
 * (json_writer.h). */
#include "stats/json_writer.h"

#include <math.h>
#include <string.h>

#include "stats/output.h"

enum {
    MAX_DEPTH = 64,
    FLUSH_BYTES = 1 << 20, /* a file's writer hands its text over in pieces this large */
};

struct insee_jw {
    GString *text;
    insee_output_stream *file; /* NULL: into memory */
    uint32_t depth;
    uint64_t has_member;       /* bit d: the container at depth d has a value already */
    gboolean after_key;        /* the next value is a member's, its comma written */
};

static insee_jw *writer_new(insee_output_stream *file)
{
    insee_jw *w = g_new0(insee_jw, 1);
    w->text = g_string_sized_new(file ? FLUSH_BYTES + 4096 : 4096);
    w->file = file;
    return w;
}

insee_jw *insee_jw_new(void)
{
    return writer_new(NULL);
}

insee_jw *insee_jw_open(const char *path, const char *what, GError **err)
{
    insee_output_stream *file = insee_output_open(path, what, err);
    return file ? writer_new(file) : NULL;
}

static void flush(insee_jw *w)
{
    insee_output_put(w->file, w->text->str, w->text->len);
    g_string_truncate(w->text, 0);
}

/* Before a value: the comma after the container's previous value. */
static void separate(insee_jw *w)
{
    if (w->after_key) {
        w->after_key = FALSE;
        return;
    }
    if (w->depth == 0)
        return;
    uint64_t bit = 1ull << (w->depth - 1);
    if (w->has_member & bit)
        g_string_append_c(w->text, ',');
    w->has_member |= bit;
    if (w->file && w->text->len >= FLUSH_BYTES)
        flush(w);
}

static void open_container(insee_jw *w, char c)
{
    separate(w);
    g_return_if_fail(w->depth < MAX_DEPTH);
    g_string_append_c(w->text, c);
    w->depth++;
    w->has_member &= ~(1ull << (w->depth - 1));
}

static void close_container(insee_jw *w, char c)
{
    g_return_if_fail(w->depth > 0);
    w->depth--;
    g_string_append_c(w->text, c);
}

void insee_jw_begin_object(insee_jw *w)
{
    open_container(w, '{');
}

void insee_jw_end_object(insee_jw *w)
{
    close_container(w, '}');
}

void insee_jw_begin_array(insee_jw *w)
{
    open_container(w, '[');
}

void insee_jw_end_array(insee_jw *w)
{
    close_container(w, ']');
}

/* A JSON string's contents: quotes, backslashes and control characters
   escaped, the rest (UTF-8) as it is. */
static void escaped(GString *t, const char *s)
{
    g_string_append_c(t, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"':
        case '\\':
            g_string_append_c(t, '\\');
            g_string_append_c(t, (char)*p);
            break;
        case '\b':
            g_string_append(t, "\\b");
            break;
        case '\f':
            g_string_append(t, "\\f");
            break;
        case '\n':
            g_string_append(t, "\\n");
            break;
        case '\r':
            g_string_append(t, "\\r");
            break;
        case '\t':
            g_string_append(t, "\\t");
            break;
        default:
            if (*p < 0x20 || *p == 0x7f)
                g_string_append_printf(t, "\\u00%02x", *p);
            else
                g_string_append_c(t, (char)*p);
        }
    }
    g_string_append_c(t, '"');
}

void insee_jw_key(insee_jw *w, const char *name)
{
    separate(w);
    escaped(w->text, name);
    g_string_append_c(w->text, ':');
    w->after_key = TRUE;
}

void insee_jw_int(insee_jw *w, int64_t v)
{
    separate(w);
    /* Digits backwards into a buffer: printf costs several times more, and
       a large network's document is mostly integers. */
    char buf[24], *end = buf + sizeof buf, *p = end;
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    do {
        *--p = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        *--p = '-';
    g_string_append_len(w->text, p, end - p);
}

void insee_jw_double(insee_jw *w, double v)
{
    separate(w);
    if (!isfinite(v)) {
        g_string_append(w->text, "null");
        return;
    }
    char buf[G_ASCII_DTOSTR_BUF_SIZE];
    g_ascii_dtostr(buf, sizeof buf, v);
    g_string_append(w->text, buf);
    if (!strpbrk(buf, ".eE")) /* it would read as an integer */
        g_string_append(w->text, ".0");
}

void insee_jw_bool(insee_jw *w, gboolean v)
{
    separate(w);
    g_string_append(w->text, v ? "true" : "false");
}

void insee_jw_string(insee_jw *w, const char *v)
{
    separate(w);
    if (v)
        escaped(w->text, v);
    else
        g_string_append(w->text, "null");
}

void insee_jw_null(insee_jw *w)
{
    separate(w);
    g_string_append(w->text, "null");
}

char *insee_jw_take(insee_jw *w)
{
    g_return_val_if_fail(w->file == NULL, NULL);
    char *text = g_string_free(w->text, FALSE);
    g_free(w);
    return text;
}

gboolean insee_jw_close(insee_jw *w, GError **err)
{
    g_return_val_if_fail(w->file != NULL, FALSE);
    flush(w);
    g_string_free(w->text, TRUE);
    gboolean ok = insee_output_close(w->file, err);
    g_free(w);
    return ok;
}
