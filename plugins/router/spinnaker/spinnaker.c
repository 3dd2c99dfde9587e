/* spinnaker.c — the SpiNNaker router (INSEE §2.2.4, Fig. 8): one routing
 * engine per router, used by a single packet at a time, so a packet that
 * cannot leave holds up every input of its router (head-of-line blocking);
 * routing tables that choose the output port(s) from the packet's source, so
 * a table entry naming several ports multicasts the packet; and a packet
 * that waits longer than `wait` cycles for its outputs is dropped, which is
 * also what keeps the machine free of deadlock.
 *
 * Tables: "minimal" computes a unicast route (the first minimal hop, a copy
 * for the node at the destination router); "file" reads entries
 * `router source port|local ...` and routes minimally where the file has no
 * entry for the (router, source) a packet meets.
 */
#define _POSIX_C_SOURCE 200809L /* fdopen (insee/input.h) */
#include <insee/insee.h>

#include <insee/input.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { P_TABLE, P_FILE, P_WAIT };
enum table_kind { TABLE_MINIMAL, TABLE_FILE }; /* order of the choices */

static const insee_param_def spinnaker_params[] = {
    [P_TABLE] = {"table", INSEE_PARAM_ENUM, "\"minimal\"", 1, 0, "minimal|file", NULL,
                 "routing tables: computed for minimal unicast routes, or read from `file`"},
    [P_FILE] = {"file", INSEE_PARAM_PATH, "\"\"", 1, 0, NULL, NULL,
                "table file (table = \"file\"): lines `router source port|local ...`"},
    [P_WAIT] = {"wait", INSEE_PARAM_INT, "100", 0, 1e9, NULL, "cycles",
                "a packet holding the routing engine longer than this is dropped (0: never)"},
    {0},
};

#define MAX_FANOUT 64u /* ports of one entry: INSEE_MAX_CANDIDATES */
#define LINE_MAX_LEN 4096
/* The table is read whole into memory: a stream of entries (a pipe, a huge
   file) stops here, far beyond any real machine's tables. */
#define TABLE_MAX_BYTES (256u << 20)

/* One table entry: packets from `source` at `router` leave by ports
   port[first .. first + n). */
typedef struct entry {
    uint64_t key; /* router << 32 | source */
    uint32_t first, n;
} entry;

typedef struct spinnaker {
    const insee_host *host;
    uint64_t wait;
    entry *entries;   /* sorted by key */
    size_t nentries;
    uint16_t *ports;  /* INSEE_PORT_LOCAL or a port */
    size_t nports;
} spinnaker;

/* Who holds the routing engine of a router, and since when. */
typedef struct engine_state {
    uint64_t since;
    uint32_t in_port, in_vc;
    uint8_t held;
} engine_state;

static void spinnaker_destroy(void *vself)
{
    spinnaker *self = vself;
    if (!self)
        return;
    free(self->entries);
    free(self->ports);
    free(self);
}

static int by_key(const void *a, const void *b)
{
    uint64_t x = ((const entry *)a)->key, y = ((const entry *)b)->key;
    return (x > y) - (x < y);
}

static bool table_error(insee_error *err, const char *path, unsigned line, const char *what)
{
    insee_error_set(err, INSEE_ERR_IO, "spinnaker: %s:%u: %s", path, line, what);
    return false;
}

/* A whole number below `limit` from the next word of the line. */
static bool read_id(char **cursor, uint32_t limit, uint32_t *out)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(*cursor, &end, 10);
    if (end == *cursor || errno || v >= limit || (*end && *end != ' ' && *end != '\t' && *end != '\n' &&
                                                  *end != '\r'))
        return false;
    *out = (uint32_t)v;
    *cursor = end;
    return true;
}

static bool append_entry(spinnaker *self, size_t *cap_e, size_t *cap_p, uint64_t key,
                         const uint16_t *ports, uint32_t n)
{
    if (self->nentries == *cap_e) {
        *cap_e = *cap_e ? *cap_e * 2 : 64;
        entry *e = realloc(self->entries, *cap_e * sizeof *e);
        if (!e)
            return false;
        self->entries = e;
    }
    while (self->nports + n > *cap_p) {
        *cap_p = *cap_p ? *cap_p * 2 : 256;
        uint16_t *p = realloc(self->ports, *cap_p * sizeof *p);
        if (!p)
            return false;
        self->ports = p;
    }
    self->entries[self->nentries++] = (entry){key, (uint32_t)self->nports, n};
    memcpy(self->ports + self->nports, ports, n * sizeof *ports);
    self->nports += n;
    return true;
}

/* One line: `router source port|local ...`; '#' starts a comment. */
static bool parse_line(spinnaker *self, char *text, const char *path, unsigned line,
                       const insee_shape *shape, size_t *cap_e, size_t *cap_p, insee_error *err)
{
    char *hash = strchr(text, '#');
    if (hash)
        *hash = '\0';
    char *cur = text + strspn(text, " \t\r\n");
    if (!*cur)
        return true;
    uint32_t router, source;
    if (!read_id(&cur, shape->routers, &router))
        return table_error(err, path, line, "expected a router number below the router count "
                                            "first");
    cur += strspn(cur, " \t");
    if (!read_id(&cur, shape->nodes, &source))
        return table_error(err, path, line, "expected a source node number below the node "
                                            "count after the router");
    const insee_host *h = self->host;
    uint32_t nports = h->ports(h->kernel, router);
    uint16_t ports[MAX_FANOUT];
    uint32_t n = 0;
    for (cur += strspn(cur, " \t\r\n"); *cur; cur += strspn(cur, " \t\r\n")) {
        if (n == MAX_FANOUT)
            return table_error(err, path, line, "more than 64 outputs in one entry");
        uint32_t port;
        if (strncmp(cur, "local", 5) == 0 && strchr(" \t\r\n", cur[5])) {
            ports[n] = INSEE_PORT_LOCAL;
            cur += 5;
        } else if (read_id(&cur, nports, &port)) {
            ports[n] = (uint16_t)port;
        } else {
            return table_error(err, path, line, "an output is `local` or a port number of "
                                                "that router");
        }
        for (uint32_t e = 0; e < n; e++)
            if (ports[e] == ports[n])
                return table_error(err, path, line, "an output appears twice in the entry");
        n++;
    }
    if (n == 0)
        return table_error(err, path, line, "an entry names at least one output (a port or "
                                            "`local`)");
    /* One entry per pair at most: past that some pair is listed twice, and
       a stream of entries stops here rather than when memory runs out. */
    if (self->nentries == (uint64_t)shape->routers * shape->nodes)
        return table_error(err, path, line, "more entries than (router, source) pairs: some "
                                            "pair is listed twice; merge their outputs into one "
                                            "line");
    if (!append_entry(self, cap_e, cap_p, (uint64_t)router << 32 | source, ports, n)) {
        insee_error_set(err, INSEE_ERR_NOMEM, "spinnaker: out of memory reading %s", path);
        return false;
    }
    return true;
}

/* The entries of the open table `f` (named `path` in messages) into self,
   sorted; false with err filled. Apart from read_table so that the fuzz
   target (tests/fuzz/fuzz_spinnaker.c) can feed it a stream from memory. */
static bool read_entries(spinnaker *self, FILE *f, const char *path, const insee_shape *shape,
                         insee_error *err)
{
    char text[LINE_MAX_LEN];
    size_t cap_e = 0, cap_p = 0, bytes = 0;
    bool ok = true;
    for (unsigned line = 1; ok && fgets(text, sizeof text, f); line++) {
        if (!strchr(text, '\n') && !feof(f))
            ok = table_error(err, path, line, "line longer than 4095 characters");
        else if ((bytes += strlen(text)) > TABLE_MAX_BYTES)
            ok = table_error(err, path, line, "the file goes on past 256 MiB, more than a table "
                                              "may hold; check the file parameter");
        else
            ok = parse_line(self, text, path, line, shape, &cap_e, &cap_p, err);
    }
    if (ok && ferror(f)) { /* a directory, a vanished device */
        insee_error_set(err, INSEE_ERR_IO, "spinnaker: cannot read the table file '%s': %s",
                        path, strerror(errno));
        ok = false;
    }
    if (!ok)
        return false;
    if (self->nentries) /* a table of comments only has no array to sort */
        qsort(self->entries, self->nentries, sizeof *self->entries, by_key);
    for (size_t i = 1; i < self->nentries; i++)
        if (self->entries[i].key == self->entries[i - 1].key) {
            insee_error_set(err, INSEE_ERR_IO,
                            "spinnaker: %s: two entries for router %u and source %u; merge "
                            "their outputs into one line",
                            path, (unsigned)(self->entries[i].key >> 32),
                            (unsigned)self->entries[i].key);
            return false;
        }
    return true;
}

static bool read_table(spinnaker *self, const char *path, const insee_shape *shape,
                       insee_error *err)
{
    const char *why = NULL;
    FILE *f = insee_input_open(path, &why);
    if (!f) {
        insee_error_set(err, INSEE_ERR_IO,
                        "spinnaker: cannot open the table file '%s': %s; check router.file",
                        path, why);
        return false;
    }
    bool ok = read_entries(self, f, path, shape, err);
    fclose(f);
    return ok;
}

static void *spinnaker_create(const insee_host *host, const insee_value *params,
                              insee_error *err)
{
    if (host->abi_minor < 1) { /* INSEE_ROUTE_MULTICAST came with minor 1 */
        insee_error_set(err, INSEE_ERR_UNSUPPORTED,
                        "spinnaker: multicast needs a kernel of plugin ABI 1.1 or newer");
        return NULL;
    }
    insee_shape shape;
    host->shape(host->kernel, &shape);
    spinnaker *self = calloc(1, sizeof *self);
    if (!self) {
        insee_error_set(err, INSEE_ERR_NOMEM, "spinnaker: out of memory");
        return NULL;
    }
    self->host = host;
    self->wait = (uint64_t)params[P_WAIT].i;
    if (params[P_TABLE].i == TABLE_FILE) {
        if (!params[P_FILE].s[0]) {
            insee_error_set(err, INSEE_ERR_PARAM,
                            "spinnaker: table = \"file\" needs file = \"PATH\" in [router]");
            spinnaker_destroy(self);
            return NULL;
        }
        if (!read_table(self, params[P_FILE].s, &shape, err)) {
            spinnaker_destroy(self);
            return NULL;
        }
    }
    return self;
}

static const entry *lookup(const spinnaker *self, uint32_t router, uint32_t source)
{
    entry key = {.key = (uint64_t)router << 32 | source};
    return self->nentries
               ? bsearch(&key, self->entries, self->nentries, sizeof key, by_key)
               : NULL;
}

/* The outputs of the packet: its table entry, or a minimal unicast route. */
static uint32_t outputs(const spinnaker *self, const insee_route_ctx *ctx, insee_candidate *out)
{
    const entry *e = lookup(self, ctx->router, ctx->src_node);
    if (e) {
        for (uint32_t i = 0; i < e->n; i++)
            out[i] = (insee_candidate){.port = self->ports[e->first + i], .vc = 0, .room = 1};
        return e->n;
    }
    const insee_host *h = self->host;
    if (h->node_router(h->kernel, ctx->dst_node) == ctx->router) {
        out[0] = (insee_candidate){.port = INSEE_PORT_LOCAL, .room = 1};
        return 1;
    }
    insee_hop hop;
    if (h->minimal_hops(h->kernel, ctx->router, ctx->dst_node, ctx->salt, &hop, 1) != 1)
        return 0;
    out[0] = (insee_candidate){.port = hop.port, .vc = 0, .room = 1};
    return 1;
}

/* The head that holds the engine gets its outputs, or is dropped once it
   has waited too long; every other head of the router waits for it. */
static uint32_t spinnaker_route(void *vself, const insee_route_ctx *ctx, insee_candidate *out,
                                uint32_t max)
{
    (void)max; /* at most 64 outputs */
    const spinnaker *self = vself;
    engine_state *st = ctx->router_state;
    if (st->held && (st->in_port != ctx->in_port || st->in_vc != ctx->in_vc))
        return 0;
    if (!st->held)
        *st = (engine_state){.since = ctx->now, .in_port = ctx->in_port, .in_vc = ctx->in_vc,
                             .held = 1};
    if (self->wait && ctx->now - st->since >= self->wait) {
        st->held = 0;
        out[0] = (insee_candidate){.port = INSEE_PORT_DROP};
        return 1;
    }
    return outputs(self, ctx, out);
}

static size_t spinnaker_router_state_size(void *vself)
{
    (void)vself;
    return sizeof(engine_state);
}

/* The packet left: the engine is free for the next head. */
static void spinnaker_forwarded(void *vself, const insee_route_ctx *ctx,
                                const insee_candidate *granted)
{
    (void)vself;
    (void)granted;
    engine_state *st = ctx->router_state;
    st->held = 0;
}

static uint32_t spinnaker_properties(void *vself)
{
    (void)vself;
    return INSEE_ROUTE_MULTICAST;
}

static const insee_router_vtable spinnaker_vtable = {
    .size = sizeof(insee_router_vtable),
    .create = spinnaker_create,
    .destroy = spinnaker_destroy,
    .route = spinnaker_route,
    .router_state_size = spinnaker_router_state_size,
    .forwarded = spinnaker_forwarded,
    .properties = spinnaker_properties,
};

static const insee_plugin_desc spinnaker_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_ROUTER,
    .name = "spinnaker",
    .version = "1.0.0",
    .summary = "SpiNNaker router: one routing engine per router, source-based multicast "
               "tables, wait-then-drop",
    .reference = "INSEE §2.2.4",
    .params = spinnaker_params,
    .vtable = &spinnaker_vtable,
};

INSEE_PLUGIN_DEFINE(spinnaker_desc)
