/* graph_file.c — reading a network file into a graph_spec: the "insee"
 * format (routers, nodes, node, link and arc lines) and the converter-friendly
 * "edges" format (one "u v" pair per line). Every error names the file and
 * the line, says what is wrong and what to do; no input, however broken, may
 * crash it (tests/topo-graph has its fuzz target). The README of this folder
 * documents both formats.
 */
#define _POSIX_C_SOURCE 200809L /* fstat, fileno, insee/input.h */
#include "graph.h"

#include <insee/input.h>

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_FIELDS 3 /* the longest line: a keyword and two ids */
#define SHOW 40      /* characters of a field quoted in a message */

static const char *const keywords[] = {"routers", "nodes", "node", "link", "arc"};
#define N_KEYWORDS (sizeof keywords / sizeof keywords[0])

typedef struct field {
    const char *s;
    size_t len;
} field;

typedef struct line_fields {
    field f[MAX_FIELDS];
    size_t n; /* fields on the line, counting those past MAX_FIELDS */
} line_fields;

typedef struct parser {
    graph_spec *spec;
    insee_error *err;
    uint32_t line;
    size_t links_cap;
    uint32_t *node_line;      /* insee format: the line that attached each node (0: none) */
    uint32_t first_node_line; /* the first `node` line; 0 while there is none */
    uint32_t max_id;          /* edges format: the largest router id so far */
} parser;

static void vfail(insee_error *err, int code, const char *path, uint32_t line, const char *fmt,
                  va_list ap)
{
    char what[sizeof err->message];
    vsnprintf(what, sizeof what, fmt, ap);
    if (line)
        insee_error_set(err, code, "graph: %s:%u: %s", path, line, what);
    else
        insee_error_set(err, code, "graph: %s: %s", path, what);
}

bool graph_fail(insee_error *err, int code, const char *path, uint32_t line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(err, code, path, line, fmt, ap);
    va_end(ap);
    return false;
}

/* The file's whole text (the parser goes by length: NUL bytes are just
   bytes that are not text). NULL with err filled when unreadable. */
static char *read_all(const char *path, size_t *len, insee_error *err)
{
    if (!path[0]) {
        insee_error_set(err, INSEE_ERR_PARAM,
                        "graph: topology.file is empty; give the path of a network file, "
                        "e.g. file = \"examples/graphs/petersen.net\"");
        return NULL;
    }
    const char *why = NULL;
    FILE *f = insee_input_open(path, &why);
    if (!f) {
        graph_fail(err, INSEE_ERR_IO, path, 0,
                   "cannot open: %s; check topology.file (a relative path in an experiment "
                   "file is read from that file's directory)",
                   why);
        return NULL;
    }
    /* A device or a pipe (/dev/zero), or a huge file, would be read until
       memory runs out. */
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        fclose(f);
        graph_fail(err, INSEE_ERR_IO, path, 0,
                   "is not a regular file; topology.file must name a network file");
        return NULL;
    }
    if (st.st_size > GRAPH_MAX_FILE) {
        fclose(f);
        graph_fail(err, INSEE_ERR_IO, path, 0,
                   "is %lld MiB, larger than the %u MiB a network file may hold; check "
                   "topology.file",
                   (long long)(st.st_size >> 20), GRAPH_MAX_FILE >> 20);
        return NULL;
    }
    size_t cap = 1u << 16, n = 0;
    char *buf = malloc(cap);
    int read_errno = 0;
    while (buf && n <= GRAPH_MAX_FILE) { /* a file growing while read stops there */
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap) {
            if (ferror(f))
                read_errno = errno ? errno : EIO;
            break;
        }
        char *bigger = cap < SIZE_MAX / 4 ? realloc(buf, 2 * cap) : NULL;
        if (!bigger)
            free(buf);
        buf = bigger;
        cap *= 2;
    }
    fclose(f);
    if (!buf) {
        graph_fail(err, INSEE_ERR_NOMEM, path, 0, "out of memory reading the file");
        return NULL;
    }
    if (read_errno) {
        graph_fail(err, INSEE_ERR_IO, path, 0, "cannot read: %s; topology.file must be a "
                   "readable text file", strerror(read_errno));
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}

static bool is(const field *f, const char *word)
{
    return f->len == strlen(word) && memcmp(f->s, word, f->len) == 0;
}

static bool is_keyword(const field *f)
{
    for (size_t i = 0; i < N_KEYWORDS; i++)
        if (is(f, keywords[i]))
            return true;
    return false;
}

/* A field as messages quote it: at most SHOW characters, then "...". */
static const char *quote(const field *f, char out[SHOW + 4])
{
    size_t n = f->len < SHOW ? f->len : SHOW;
    memcpy(out, f->s, n);
    strcpy(out + n, f->len > SHOW ? "..." : "");
    return out;
}

/* A field made of decimal digits only, saturated at UINT32_MAX (range
   checks follow); false when it is anything else (sign, point, letters). */
static bool field_uint(const field *f, uint32_t *out)
{
    uint64_t v = 0;
    for (size_t i = 0; i < f->len; i++) {
        if (f->s[i] < '0' || f->s[i] > '9')
            return false;
        v = v * 10 + (uint64_t)(f->s[i] - '0');
        if (v > UINT32_MAX)
            v = UINT32_MAX;
    }
    *out = (uint32_t)v;
    return f->len > 0;
}

static bool fail(parser *p, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* An error at the current line: the file is corrupt (INSEE_ERR_IO). */
static bool fail(parser *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(p->err, INSEE_ERR_IO, p->spec->path, p->line, fmt, ap);
    va_end(ap);
    return false;
}

/* Field i as a number; `what` names it in the message when it is not one. */
static bool number(parser *p, const line_fields *lf, size_t i, const char *what, uint32_t *out)
{
    char q[SHOW + 4];
    if (field_uint(&lf->f[i], out))
        return true;
    return fail(p, "'%s' is not a %s: write a whole number (0, 1, 2, ...)", quote(&lf->f[i], q),
                what);
}

/* A statement with the wrong number of values; `usage` shows the right form
   and starts with the keyword. */
static bool field_count(parser *p, const line_fields *lf, size_t want, const char *usage)
{
    if (lf->n == want)
        return true;
    return fail(p, "'%.*s' takes %zu value%s, found %zu: write '%s', one statement per line",
                (int)strcspn(usage, " "), usage, want - 1, want == 2 ? "" : "s", lf->n - 1,
                usage);
}

/* `kw` is the statement's keyword and a space ("link "), or "" in an edge list. */
static bool self_loop(parser *p, const char *kw, uint32_t a, uint32_t b)
{
    if (a != b)
        return true;
    return fail(p, "'%s%u %u' joins router %u to itself (a self-loop): a link must join two "
                "different routers; remove the line",
                kw, a, b, a);
}

static bool add_link(parser *p, uint32_t a, uint32_t b, bool arc)
{
    graph_spec *s = p->spec;
    if (s->n_links == p->links_cap) {
        size_t cap = p->links_cap ? 2 * p->links_cap : 256;
        graph_link *more = cap < SIZE_MAX / sizeof *more ? realloc(s->links, cap * sizeof *more)
                                                         : NULL;
        if (!more)
            return graph_fail(p->err, INSEE_ERR_NOMEM, s->path, p->line,
                              "out of memory for %zu links", cap);
        s->links = more;
        p->links_cap = cap;
    }
    s->links[s->n_links++] = (graph_link){.a = a, .b = b, .line = p->line, .arc = arc};
    return true;
}

/* Edit distance between a field and a keyword, for "did you mean"; fields
   longer than 16 characters are never close to a keyword. */
static size_t distance_to(const field *f, const char *word)
{
    size_t lw = strlen(word);
    if (f->len > 16)
        return SIZE_MAX;
    size_t row[17];
    for (size_t j = 0; j <= lw; j++)
        row[j] = j;
    for (size_t i = 1; i <= f->len; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lw; j++) {
            size_t up = row[j];
            size_t best = diag + (f->s[i - 1] != word[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lw];
}

static bool unknown_keyword(parser *p, const field *k)
{
    char q[SHOW + 4];
    uint32_t ignored;
    if (field_uint(k, &ignored))
        return fail(p, "a line starts with the number '%s', not a keyword: this looks like an "
                    "edge list, so set format = \"edges\"; in the insee format write "
                    "'link %s <router>'",
                    quote(k, q), q);
    const char *best = NULL;
    size_t best_d = 3; /* suggest only within two edits */
    for (size_t i = 0; i < N_KEYWORDS; i++) {
        size_t d = distance_to(k, keywords[i]);
        if (d < best_d) {
            best_d = d;
            best = keywords[i];
        }
    }
    char hint[64] = "";
    if (best)
        snprintf(hint, sizeof hint, "did you mean '%s'? ", best);
    return fail(p, "unknown keyword '%s'; %s(keywords: routers, nodes, node, link, arc; "
                "'#' starts a comment)",
                quote(k, q), hint);
}

/* `routers N` or `nodes M` (kw): a count declared once, 1..max. */
static bool count_line(parser *p, const line_fields *lf, const char *kw, uint32_t *count,
                       uint32_t *line, uint32_t max)
{
    char usage[32];
    snprintf(usage, sizeof usage, "%s <count>", kw);
    if (!field_count(p, lf, 2, usage))
        return false;
    if (*line)
        return fail(p, "'%s' again (first at line %u): declare the count once", kw, *line);
    uint32_t v;
    if (!number(p, lf, 1, kw[0] == 'r' ? "router count" : "node count", &v))
        return false;
    if (v == 0 || v > max) {
        char q[SHOW + 4];
        return fail(p, "%s %s is out of range: give 1 to %u", kw, quote(&lf->f[1], q), max);
    }
    *count = v;
    *line = p->line;
    return true;
}

/* Where the node count comes from, for messages. */
static void nodes_origin(const parser *p, char *out, size_t size)
{
    const graph_spec *s = p->spec;
    if (s->nodes_line)
        snprintf(out, size, "'nodes %u' at line %u declares nodes 0..%u", s->nodes, s->nodes_line,
                 s->nodes - 1);
    else
        snprintf(out, size, "without a 'nodes' line there is one node per router, 0..%u",
                 s->nodes - 1);
}

static bool node_line(parser *p, const line_fields *lf)
{
    graph_spec *s = p->spec;
    if (!p->first_node_line) {
        if (!s->nodes_line)
            s->nodes = s->routers;
        s->node_router = malloc(sizeof *s->node_router * s->nodes);
        p->node_line = calloc(s->nodes, sizeof *p->node_line);
        if (!s->node_router || !p->node_line)
            return graph_fail(p->err, INSEE_ERR_NOMEM, s->path, p->line,
                              "out of memory for %u nodes", s->nodes);
        p->first_node_line = p->line;
    }
    uint32_t n, r;
    char q[SHOW + 4];
    if (!number(p, lf, 1, "node id", &n) || !number(p, lf, 2, "router id", &r))
        return false;
    if (n >= s->nodes) {
        char origin[128];
        nodes_origin(p, origin, sizeof origin);
        return fail(p, "node %s does not exist: %s; fix the id or declare more nodes",
                    quote(&lf->f[1], q), origin);
    }
    if (r >= s->routers)
        return fail(p, "router %s is out of range: 'routers %u' at line %u declares routers "
                    "0..%u; attach node %u to one of them or raise the count",
                    quote(&lf->f[2], q), s->routers, s->routers_line, s->routers - 1, n);
    if (p->node_line[n])
        return fail(p, "node %u is attached twice, to router %u at line %u and to router %u "
                    "here: a node attaches to exactly one router; remove one of the lines",
                    n, s->node_router[n], p->node_line[n], r);
    s->node_router[n] = r;
    p->node_line[n] = p->line;
    return true;
}

static bool link_line(parser *p, const line_fields *lf, bool arc)
{
    const graph_spec *s = p->spec;
    uint32_t end[2];
    char q[SHOW + 4];
    for (size_t i = 0; i < 2; i++) {
        if (!number(p, lf, i + 1, "router id", &end[i]))
            return false;
        if (end[i] >= s->routers)
            return fail(p, "dangling %s: router %s does not exist ('routers %u' at line %u "
                        "declares routers 0..%u); join two declared routers or raise the count",
                        arc ? "arc" : "link", quote(&lf->f[i + 1], q), s->routers,
                        s->routers_line, s->routers - 1);
    }
    return self_loop(p, arc ? "arc " : "link ", end[0], end[1]) &&
           add_link(p, end[0], end[1], arc);
}

static bool insee_line(parser *p, const line_fields *lf)
{
    graph_spec *s = p->spec;
    const field *k = &lf->f[0];
    if (is(k, "routers"))
        return count_line(p, lf, "routers", &s->routers, &s->routers_line, GRAPH_MAX_ROUTERS);
    if (is(k, "nodes")) {
        if (p->first_node_line)
            return fail(p, "'nodes' must come before the first 'node' line (line %u)",
                        p->first_node_line);
        return count_line(p, lf, "nodes", &s->nodes, &s->nodes_line, GRAPH_MAX_NODES);
    }
    bool node = is(k, "node"), arc = is(k, "arc");
    if (!node && !arc && !is(k, "link"))
        return unknown_keyword(p, k);
    const char *kw = node ? "node" : arc ? "arc" : "link";
    char usage[32];
    snprintf(usage, sizeof usage, node ? "%s <node> <router>" : "%s <router> <router>", kw);
    if (!field_count(p, lf, 3, usage))
        return false;
    if (!s->routers_line)
        return fail(p, "'%s' before 'routers': declare 'routers <count>' first", kw);
    return node ? node_line(p, lf) : link_line(p, lf, arc);
}

static bool edges_line(parser *p, const line_fields *lf)
{
    char q[SHOW + 4];
    if (is_keyword(&lf->f[0]))
        return fail(p, "'%s' is a keyword of the insee format, not a router id: set format = "
                    "\"insee\" (the default) for this file",
                    quote(&lf->f[0], q));
    if (lf->n != 2)
        return fail(p, "an edge-list line is 'u v' (two router ids), found %zu field%s; "
                    "write one link per line",
                    lf->n, lf->n == 1 ? "" : "s");
    uint32_t end[2];
    for (size_t i = 0; i < 2; i++) {
        if (!number(p, lf, i, "router id", &end[i]))
            return false;
        if (end[i] >= GRAPH_MAX_ROUTERS)
            return fail(p, "router id %s is too large: at most %u routers (ids 0..%u)",
                        quote(&lf->f[i], q), GRAPH_MAX_ROUTERS, GRAPH_MAX_ROUTERS - 1);
        /* The largest id sets the router count; messages cite its line. */
        if (!p->spec->routers_line || end[i] > p->max_id) {
            p->max_id = end[i];
            p->spec->routers_line = p->line;
        }
    }
    return self_loop(p, "", end[0], end[1]) && add_link(p, end[0], end[1], false);
}

/* Split one line (without its newline) into fields, dropping the comment;
   false when it holds bytes that are not text. */
static bool split(parser *p, const char *s, const char *end, line_fields *lf)
{
    lf->n = 0;
    for (const char *c = s; c < end && *c != '#'; c++) {
        unsigned char b = (unsigned char)*c;
        if (b == ' ' || b == '\t' || b == '\r' || b == '\v' || b == '\f')
            continue;
        if (b == 0xEF && end - c >= 3 && (unsigned char)c[1] == 0xBB &&
            (unsigned char)c[2] == 0xBF)
            return fail(p, "the file starts with a UTF-8 byte-order mark; save it as plain "
                        "ASCII (without BOM)");
        if (b < 0x21 || b > 0x7e)
            return fail(p, "byte 0x%02X at column %zu is not text: a network file is plain "
                        "ASCII (anything goes after '#' in a comment)",
                        b, (size_t)(c - s) + 1);
        const char *start = c;
        while (c + 1 < end && (unsigned char)c[1] > 0x20 && (unsigned char)c[1] < 0x7f &&
               c[1] != '#')
            c++;
        if (lf->n < MAX_FIELDS)
            lf->f[lf->n] = (field){start, (size_t)(c - start) + 1};
        lf->n++;
    }
    return true;
}

/* What the insee format leaves implicit, checked once the file is read. */
static bool insee_finish(parser *p)
{
    graph_spec *s = p->spec;
    if (!s->routers_line)
        return graph_fail(p->err, INSEE_ERR_IO, s->path, 0,
                          "no 'routers <count>' line: an insee-format file declares its routers "
                          "first (see the graph plugin's README); for a plain list of 'u v' "
                          "edges set format = \"edges\"");
    if (p->first_node_line) {
        for (uint32_t n = 0; n < s->nodes; n++)
            if (!p->node_line[n])
                return graph_fail(p->err, INSEE_ERR_IO, s->path,
                                  s->nodes_line ? s->nodes_line : p->first_node_line,
                                  "node %u is attached to no router: once there are 'node' "
                                  "lines, every node 0..%u needs one; add 'node %u <router>'",
                                  n, s->nodes - 1, n);
        return true;
    }
    if (!s->nodes_line)
        s->nodes = s->routers;
    if (s->nodes % s->routers)
        return graph_fail(p->err, INSEE_ERR_IO, s->path, s->nodes_line,
                          "nodes %u is not a multiple of routers %u: without 'node' lines "
                          "every router gets nodes/routers consecutive nodes; give a multiple "
                          "or attach each node with 'node <node> <router>'",
                          s->nodes, s->routers);
    return true;
}

static bool edges_finish(parser *p)
{
    graph_spec *s = p->spec;
    if (!s->n_links)
        return graph_fail(p->err, INSEE_ERR_IO, s->path, 0,
                          "no edges: an edge list has one 'u v' line per link (and '#' "
                          "comments)");
    s->routers = p->max_id + 1;
    s->nodes = s->routers;
    return true;
}

bool graph_spec_read(graph_spec *spec, const char *path, int format, insee_error *err)
{
    *spec = (graph_spec){.path = path, .format = format};
    size_t len;
    char *text = read_all(path, &len, err);
    if (!text)
        return false;
    parser p = {.spec = spec, .err = err};
    bool ok = true;
    for (const char *s = text, *end = text + len; ok && s < end;) {
        const char *eol = memchr(s, '\n', (size_t)(end - s));
        if (!eol)
            eol = end;
        line_fields lf;
        p.line++;
        ok = split(&p, s, eol, &lf);
        s = eol + 1;
        if (ok && lf.n > 0)
            ok = format == GRAPH_FORMAT_EDGES ? edges_line(&p, &lf) : insee_line(&p, &lf);
    }
    if (ok)
        ok = format == GRAPH_FORMAT_EDGES ? edges_finish(&p) : insee_finish(&p);
    free(p.node_line);
    free(text);
    if (!ok)
        graph_spec_free(spec);
    return ok;
}

void graph_spec_free(graph_spec *spec)
{
    free(spec->links);
    free(spec->node_router);
    spec->links = NULL;
    spec->node_router = NULL;
}
