/* file.c — placement read from a file (INSEE §3.4, "File": "INSEE can read
 * the mapping information from a file"). Two layouts share one parser: "task
 * node" pairs mapping one application (format "task-node"), and INSEE's own
 * "node task application" lines mapping every application of the run
 * (format "insee"), of which an instance uses those of its `application`:
 * the kernel calls place() once per application, so the same file is given
 * to each. create() reads and parses the file, so a missing or garbled file
 * fails before the run; place() checks the lines against the tasks and the
 * available nodes it is given. Every message names path:line and what to do.
 */
#define _POSIX_C_SOURCE 200809L /* fdopen (insee/input.h) */
#include <insee/insee.h>

#include <insee/input.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { P_PATH, P_FORMAT, P_APPLICATION };

static const insee_param_def file_params[] = {
    [P_PATH] = {"path", INSEE_PARAM_PATH, NULL, 1, 0, NULL, NULL,
                "mapping file, one line per task ('#' starts a comment); a relative path in an "
                "experiment file is read from that file's directory"},
    [P_FORMAT] = {"format", INSEE_PARAM_ENUM, "\"task-node\"", 1, 0, "task-node|insee", NULL,
                  "'task-node': 'task node' lines of this application; 'insee': INSEE's 'node "
                  "task application' lines of every application"},
    [P_APPLICATION] = {"application", INSEE_PARAM_INT, "0", 0, 4294967294.0, NULL, NULL,
                       "format 'insee': the application column whose lines place these tasks"},
    {0},
};

/* Where each number of a line goes, per format. */
enum { COL_TASK, COL_NODE, COL_APP };

typedef struct file_layout {
    const char *text; /* the line as the messages spell it */
    uint32_t columns;
    uint8_t role[3]; /* COL_* of column i */
} file_layout;

static const file_layout file_layouts[] = {
    {"task node", 2, {COL_TASK, COL_NODE, 0}},
    {"node task application", 3, {COL_NODE, COL_TASK, COL_APP}},
};

/* The file is read whole: a larger one (or a device that never ends) is
   refused, after reading at most this much; a line per task of a network
   the kernel can hold takes far less. */
#define FILE_MAX_BYTES (256u << 20)

/* Largest task or node number a line may hold: UINT32_MAX marks "none". */
#define FILE_MAX_ID (UINT32_MAX - 1u)

typedef struct file_pair {
    uint32_t task, node, app, line; /* app is 0 in format "task-node" */
} file_pair;

typedef struct file_map {
    char *path;
    const file_layout *layout;
    uint32_t app;    /* the application whose lines place() uses */
    file_pair *pairs; /* every line of the file, of every application */
    uint32_t n, cap;
    uint32_t mine;   /* pairs of application `app` */
    uint32_t lines;  /* lines in the file, for "the file ends" messages */
} file_map;

static void file_destroy(void *self_)
{
    file_map *self = self_;
    if (!self)
        return;
    free(self->path);
    free(self->pairs);
    free(self);
}

/* The whole file in memory; NULL with err filled. */
static char *file_slurp(const char *path, size_t *len, insee_error *err)
{
    const char *why = NULL;
    FILE *f = insee_input_open(path, &why);
    if (!f) {
        insee_error_set(err, INSEE_ERR_IO,
                        "file: cannot open '%s': %s; check placement.path (a relative path in "
                        "an experiment file is read from that file's directory)",
                        path, why);
        return NULL;
    }
    size_t cap = 4096, used = 0;
    char *buf = malloc(cap);
    while (buf && used <= FILE_MAX_BYTES) {
        used += fread(buf + used, 1, cap - used, f);
        if (used < cap)
            break;
        cap = cap * 2 < FILE_MAX_BYTES + 1 ? cap * 2 : FILE_MAX_BYTES + 1;
        char *bigger = realloc(buf, cap);
        if (!bigger)
            free(buf);
        buf = bigger;
    }
    if (!buf) {
        insee_error_set(err, INSEE_ERR_NOMEM, "file: out of memory reading '%s'", path);
    } else if (used > FILE_MAX_BYTES) {
        insee_error_set(err, INSEE_ERR_IO, "file: '%s' goes on past %u MiB, more than a mapping "
                        "may hold; check placement.path", path, FILE_MAX_BYTES >> 20);
        free(buf);
        buf = NULL;
    } else if (ferror(f)) {
        insee_error_set(err, INSEE_ERR_IO, "file: cannot read '%s': %s; check that it is a "
                        "readable regular file", path, strerror(errno));
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *len = used;
    return buf;
}

static bool file_push(file_map *m, file_pair pair, insee_error *err)
{
    if (m->n == m->cap) {
        uint32_t cap = m->cap ? m->cap * 2 : 64;
        file_pair *bigger = cap > m->cap ? realloc(m->pairs, sizeof *bigger * cap) : NULL;
        if (!bigger) {
            insee_error_set(err, INSEE_ERR_NOMEM, "file: out of memory at %s:%u", m->path,
                            pair.line);
            return false;
        }
        m->pairs = bigger;
        m->cap = cap;
    }
    m->pairs[m->n++] = pair;
    m->mine += pair.app == m->app;
    return true;
}

static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Parse line `line` (text[0..len), no newline) into m; false with err filled. */
static bool file_parse_line(file_map *m, const char *text, size_t len, uint32_t line,
                            insee_error *err)
{
    const file_layout *lay = m->layout;
    uint32_t value[3] = {0, 0, 0}; /* by COL_*; the application stays 0 in two columns */
    uint32_t fields = 0;
    size_t i = 0;
    for (;;) {
        while (i < len && is_blank(text[i]))
            i++;
        if (i == len || text[i] == '#')
            break;
        unsigned char c = (unsigned char)text[i];
        if (c < '0' || c > '9') {
            insee_error_set(err, INSEE_ERR_IO,
                            "%s:%u: unexpected character 0x%02x ('%c'); each line is '%s', %u "
                            "non-negative integers, or a '#' comment",
                            m->path, line, c, c >= 0x20 && c < 0x7f ? c : '?', lay->text,
                            lay->columns);
            return false;
        }
        uint64_t v = 0;
        while (i < len && text[i] >= '0' && text[i] <= '9') {
            v = v * 10 + (uint64_t)(text[i++] - '0');
            if (v > FILE_MAX_ID) {
                insee_error_set(err, INSEE_ERR_IO,
                                "%s:%u: number too large (at most %u); tasks and nodes are "
                                "numbered from 0",
                                m->path, line, FILE_MAX_ID);
                return false;
            }
        }
        if (i < len && !is_blank(text[i]) && text[i] != '#') {
            insee_error_set(err, INSEE_ERR_IO,
                            "%s:%u: a number runs into '%c'; separate '%s' with blanks",
                            m->path, line, text[i] >= 0x20 && text[i] < 0x7f ? text[i] : '?',
                            lay->text);
            return false;
        }
        if (fields == lay->columns) {
            insee_error_set(err, INSEE_ERR_IO,
                            "%s:%u: more than %u numbers; write one '%s' per line", m->path, line,
                            lay->columns, lay->text);
            return false;
        }
        value[lay->role[fields++]] = (uint32_t)v;
    }
    if (fields != 0 && fields < lay->columns) {
        insee_error_set(err, INSEE_ERR_IO, "%s:%u: only %u of the %u numbers of '%s'", m->path,
                        line, fields, lay->columns, lay->text);
        return false;
    }
    return fields == 0 ||
           file_push(m, (file_pair){value[COL_TASK], value[COL_NODE], value[COL_APP], line}, err);
}

static bool file_parse(file_map *m, const char *text, size_t len, insee_error *err)
{
    size_t start = 0;
    uint32_t line = 0;
    while (start < len) {
        const char *nl = memchr(text + start, '\n', len - start);
        size_t end = nl ? (size_t)(nl - text) : len;
        if (line == UINT32_MAX) {
            insee_error_set(err, INSEE_ERR_IO, "%s:%u: too many lines", m->path, line);
            return false;
        }
        if (!file_parse_line(m, text + start, end - start, ++line, err))
            return false;
        start = end + 1;
    }
    m->lines = line;
    if (m->mine == 0) {
        if (m->layout->columns == 2)
            insee_error_set(err, INSEE_ERR_IO,
                            "%s:%u: the file ends without a 'task node' line; give one line per "
                            "task",
                            m->path, line ? line : 1); /* an empty file still has a line 1 */
        else
            insee_error_set(err, INSEE_ERR_IO,
                            "%s:%u: the file ends without a line of application %u; give one "
                            "'node task %u' line per task, or check placement.application",
                            m->path, line ? line : 1, m->app, m->app);
        return false;
    }
    return true;
}

static void *file_create(const insee_host *host, const insee_value *params, insee_error *err)
{
    (void)host; /* the pairs are checked against what place() receives */
    const char *path = params[P_PATH].s;
    file_map *m = calloc(1, sizeof *m);
    size_t path_len = strlen(path);
    if (m)
        m->path = malloc(path_len + 1);
    if (!m || !m->path) {
        insee_error_set(err, INSEE_ERR_NOMEM, "file: out of memory");
        file_destroy(m);
        return NULL;
    }
    memcpy(m->path, path, path_len + 1);
    m->layout = &file_layouts[params[P_FORMAT].i];
    m->app = (uint32_t)params[P_APPLICATION].i;
    size_t len = 0;
    char *text = file_slurp(path, &len, err);
    bool ok = text && file_parse(m, text, len, err);
    free(text);
    if (!ok) {
        file_destroy(m);
        return NULL;
    }
    return m;
}

/* Lines p and other give one node to two applications: the file is no
   machine mapping. */
static void file_shared_node(const file_map *m, const file_pair *p, const file_pair *other,
                             insee_error *err)
{
    insee_error_set(err, INSEE_ERR_PARAM,
                    "%s:%u: node %u of application %u is also given to application %u (line %u); "
                    "give each node to one application",
                    m->path, p->line, p->node, p->app, other->app, other->line);
}

/* Check line p against the application and the machine; record it. A line
   of another application is that application's instance's to check, except
   that its node may not serve two applications; node_pair[n] is the first
   line holding node n. */
static bool file_take(const file_map *m, const file_pair *p, uint32_t tasks, const bool *available,
                      uint32_t nodes, uint32_t *task_line, uint32_t *node_pair, insee_error *err)
{
    const file_pair *other = p->node < nodes && node_pair[p->node] != UINT32_MAX
                                 ? &m->pairs[node_pair[p->node]]
                                 : NULL;
    if (p->app != m->app) {
        if (other && other->app != p->app) {
            file_shared_node(m, p, other, err);
            return false;
        }
        if (p->node < nodes && !other)
            node_pair[p->node] = (uint32_t)(p - m->pairs);
        return true;
    }
    if (p->task >= tasks) {
        insee_error_set(err, INSEE_ERR_PARAM,
                        "%s:%u: task %u, but the application has %u tasks, numbered from 0; "
                        "remove the line or run more tasks",
                        m->path, p->line, p->task, tasks);
    } else if (p->node >= nodes) {
        insee_error_set(err, INSEE_ERR_PARAM,
                        "%s:%u: node %u, but the network has %u nodes, numbered from 0; map the "
                        "task onto an existing node",
                        m->path, p->line, p->node, nodes);
    } else if (task_line[p->task]) {
        insee_error_set(err, INSEE_ERR_PARAM,
                        "%s:%u: task %u already has a node (line %u); give each task one line",
                        m->path, p->line, p->task, task_line[p->task]);
    } else if (other && other->app != p->app) {
        file_shared_node(m, p, other, err);
    } else if (other) {
        insee_error_set(err, INSEE_ERR_PARAM,
                        "%s:%u: node %u already runs task %u (line %u); give each node to one "
                        "task",
                        m->path, p->line, p->node, other->task, other->line);
    } else if (!available[p->node]) {
        insee_error_set(err, INSEE_ERR_PARAM,
                        "%s:%u: node %u is not available (another application holds it); map "
                        "this application onto free nodes",
                        m->path, p->line, p->node);
    } else {
        task_line[p->task] = p->line;
        node_pair[p->node] = (uint32_t)(p - m->pairs);
        return true;
    }
    return false;
}

static bool file_place(void *self, uint32_t tasks, const bool *available, uint32_t nodes,
                       uint32_t *task_node, insee_rng *rng, insee_error *err)
{
    const file_map *m = self;
    (void)rng; /* deterministic */
    uint32_t *task_line = calloc(tasks ? tasks : 1, sizeof *task_line); /* 0: no line yet */
    uint32_t *node_pair = malloc(sizeof *node_pair * (nodes ? nodes : 1));
    bool ok = task_line && node_pair;
    if (!ok)
        insee_error_set(err, INSEE_ERR_NOMEM, "file: out of memory for %u tasks on %u nodes", tasks,
                        nodes);
    for (uint32_t n = 0; ok && n < nodes; n++)
        node_pair[n] = UINT32_MAX;
    for (uint32_t i = 0; ok && i < m->n; i++) {
        const file_pair *p = &m->pairs[i];
        ok = file_take(m, p, tasks, available, nodes, task_line, node_pair, err);
        if (ok && p->app == m->app)
            task_node[p->task] = p->node;
    }
    for (uint32_t t = 0; ok && t < tasks; t++) {
        if (!task_line[t]) {
            char wanted[48]; /* the line to add */
            if (m->layout->columns == 2)
                snprintf(wanted, sizeof wanted, "%u <node>", t);
            else
                snprintf(wanted, sizeof wanted, "<node> %u %u", t, m->app);
            insee_error_set(err, INSEE_ERR_PARAM,
                            "%s:%u: the file ends without a node for task %u (it maps %u of the "
                            "%u tasks); add a line '%s'",
                            m->path, m->lines, t, m->mine, tasks, wanted);
            ok = false;
        }
    }
    free(task_line);
    free(node_pair);
    return ok;
}

static const insee_placement_vtable file_vtable = {
    .size = sizeof(insee_placement_vtable),
    .create = file_create,
    .destroy = file_destroy,
    .place = file_place,
};

static const insee_plugin_desc file_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_PLACEMENT,
    .name = "file",
    .version = "1.1.0",
    .summary = "the task-to-node mapping read from a file of 'task node' lines, or of INSEE's "
               "'node task application' lines",
    .reference = "INSEE §3.4",
    .params = file_params,
    .vtable = &file_vtable,
};

INSEE_PLUGIN_DEFINE(file_desc)
