/* kernel/stats/trace.c — the packet evolution trace and its phit view;
 * contract in trace.h, format in docs/packet-trace.md. */
#include "stats/trace.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "stats/output.h"

#define WHAT "[stats] trace"

/* Every CHECK_BYTES of text (a quarter of the cap, when smaller) zlib is
   made to write out what it holds, and the file's size is read; tracing
   stops while the file still has room for one more stretch, compressed or
   not, and the closing line and the gzip trailer (CLOSING_BYTES). */
#define CHECK_BYTES (16u << 10)
#define CLOSING_BYTES 128u

typedef enum { EV_GEN, EV_INJ, EV_HOP, EV_ARR, EV_CON, EV_DROP, EV_COUNT } event;

static const char *const event_names[EV_COUNT] = {"gen", "inj", "hop", "arr", "con", "drop"};
static const char *const drop_names[INSEE_DROP_REASONS] = {"source_full", "router",
                                                           "unroutable"};
/* The port column of an injection queue. */
#define INJECTION_PORT "inj"

struct insee_trace {
    gzFile gz;
    int sync_fd;             /* the stream's file, to fsync before the rename */
    char *path, *tmp;
    const insee_net *net;
    uint64_t *ids;           /* sorted */
    size_t n_ids;
    uint64_t from, until;    /* until: INSEE_NEVER for no end */
    uint64_t max_bytes, margin;
    uint64_t events;
    size_t check;            /* text bytes between two reads of the size */
    size_t since_check;      /* text bytes written since the size was read */
    gboolean stopped;        /* truncated, or a write failed: nothing more is written */
    gboolean truncated;
    uint64_t truncated_at;
    char *failure;           /* what went wrong while writing, or NULL */
    gboolean committed;
};

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* ---- writing ---------------------------------------------------------------- */

static void fail(insee_trace *t, const char *doing)
{
    int zerr = Z_OK;
    const char *msg = gzerror(t->gz, &zerr);
    t->failure = g_strdup_printf("%s: %s", doing, zerr == Z_ERRNO ? g_strerror(errno) : msg);
    t->stopped = TRUE;
}

static void put(insee_trace *t, const char *text, size_t len)
{
    if (gzwrite(t->gz, text, (unsigned)len) != (int)len)
        fail(t, "cannot write the trace");
}

static void write_header(insee_trace *t, uint32_t packet_phits)
{
    GString *h = g_string_new(NULL);
    g_string_append_printf(h, "# insee packet trace %d; packet_phits %u; columns: cycle event "
                           "packet src dst [router port vc] [reason]\n# events:",
                           INSEE_TRACE_FORMAT, packet_phits);
    for (int e = 0; e < EV_COUNT; e++)
        g_string_append_printf(h, " %s", event_names[e]);
    g_string_append_printf(h, "; packets generated in [%" G_GUINT64_FORMAT ", ", t->from);
    if (t->until == INSEE_NEVER)
        g_string_append(h, "end)");
    else
        g_string_append_printf(h, "%" G_GUINT64_FORMAT ")", t->until);
    g_string_append_printf(h, ", %s\n", t->n_ids ? "ids listed in [stats] trace_packets"
                                                  : "every id");
    put(t, h->str, h->len);
    g_string_free(h, TRUE);
}

insee_trace *insee_trace_open(const insee_trace_options *opt, const insee_net *net,
                              uint32_t packet_phits, GError **err)
{
    char *tmp = NULL;
    int fd = insee_output_temp(opt->path, WHAT, &tmp, err);
    if (fd < 0) {
        g_free(tmp);
        return NULL;
    }
    int sync_fd = dup(fd);
    /* zlib's fastest level: 6 times faster than its default on a trace, for
       a file 28 % larger. */
    gzFile gz = sync_fd < 0 ? NULL : gzdopen(fd, "wb1");
    if (!gz) {
        g_set_error(err, G_FILE_ERROR, g_file_error_from_errno(errno),
                    WHAT ": %s: cannot start a compressed stream: %s", opt->path,
                    g_strerror(errno));
        close(fd);
        if (sync_fd >= 0)
            close(sync_fd);
        g_unlink(tmp);
        g_free(tmp);
        return NULL;
    }
    insee_trace *t = g_new0(insee_trace, 1);
    t->gz = gz;
    t->sync_fd = sync_fd;
    t->path = g_strdup(opt->path);
    t->tmp = tmp;
    t->net = net;
    t->n_ids = opt->n_ids;
    t->ids = g_new(uint64_t, MAX(opt->n_ids, 1));
    for (size_t i = 0; i < opt->n_ids; i++)
        t->ids[i] = (uint64_t)opt->ids[i];
    qsort(t->ids, t->n_ids, sizeof *t->ids, cmp_u64);
    t->from = opt->from;
    t->until = opt->until ? opt->until : INSEE_NEVER;
    t->max_bytes = opt->max_bytes;
    t->check = (size_t)MAX(MIN(CHECK_BYTES, opt->max_bytes / 4), 1);
    t->margin = t->check + CLOSING_BYTES;
    write_header(t, packet_phits);
    return t;
}

static gboolean selected(const insee_trace *t, const insee_packet *pk)
{
    /* id 0: a copy a multicast router made; its original is traced. */
    if (t->stopped || pk->born < t->from || pk->born >= t->until || pk->id == 0)
        return FALSE;
    return !t->n_ids || bsearch(&pk->id, t->ids, t->n_ids, sizeof *t->ids, cmp_u64);
}

static char *put_u64(char *p, uint64_t v)
{
    char digits[20];
    int n = 0;
    do
        digits[n++] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    while (n)
        *p++ = digits[--n];
    return p;
}

static char *put_word(char *p, const char *w)
{
    size_t len = strlen(w);
    memcpy(p, w, len);
    return p + len;
}

/* After an event's lines: now and then, the compressed size; past the cap,
   the end of the trace. */
static void check_size(insee_trace *t, uint64_t now)
{
    if (t->since_check < t->check)
        return;
    t->since_check = 0;
    z_off_t size = gzflush(t->gz, Z_SYNC_FLUSH) == Z_OK ? gzoffset(t->gz) : -1;
    if (size < 0) {
        fail(t, "cannot tell the trace's size");
        return;
    }
    if ((uint64_t)size + t->margin < t->max_bytes)
        return;
    char line[96];
    int n = g_snprintf(line, sizeof line,
                       "# truncated at cycle %" G_GUINT64_FORMAT ": trace_max_mb reached\n", now);
    put(t, line, (size_t)n);
    t->truncated = TRUE;
    t->truncated_at = now;
    t->stopped = TRUE;
}

/* One line: cycle event packet src dst, the `n` numbers of `more` (a
   router, port and VC), and `last` when not NULL. A port of
   INSEE_PORT_INJECTION is written as "inj". */
static void emit(insee_trace *t, uint64_t cycle, event ev, const insee_packet *pk,
                 const uint32_t *more, int n, const char *last)
{
    char line[160], *p = line;
    p = put_u64(p, cycle);
    *p++ = ' ';
    p = put_word(p, event_names[ev]);
    const uint64_t cols[] = {pk->id, pk->src, pk->dst};
    for (int i = 0; i < 3; i++) {
        *p++ = ' ';
        p = put_u64(p, cols[i]);
    }
    for (int i = 0; i < n; i++) {
        *p++ = ' ';
        p = i == 1 && more[i] == INSEE_PORT_INJECTION ? put_word(p, INJECTION_PORT)
                                                       : put_u64(p, more[i]);
    }
    if (last) {
        *p++ = ' ';
        p = put_word(p, last);
    }
    *p++ = '\n';
    put(t, line, (size_t)(p - line));
    t->events++;
    t->since_check += (size_t)(p - line);
}

/* An event of one line and no place. */
static void plain_event(insee_trace *t, event ev, const insee_packet *pk, uint64_t now)
{
    if (!selected(t, pk))
        return;
    emit(t, now, ev, pk, NULL, 0, NULL);
    check_size(t, now);
}

void insee_trace_generated(insee_trace *t, const insee_packet *pk, uint64_t now)
{
    plain_event(t, EV_GEN, pk, now);
}

void insee_trace_injected(insee_trace *t, const insee_packet *pk, uint64_t now)
{
    plain_event(t, EV_INJ, pk, now);
}

/* The head leaves by output VC ovc now; it is in the next router's input
   queue, routable, the cycle after. */
void insee_trace_hop(insee_trace *t, const insee_packet *pk, uint32_t ovc, uint64_t now)
{
    if (!selected(t, pk))
        return;
    const insee_net *net = t->net;
    uint32_t gp = ovc / net->vcs, r = net->port_router[gp];
    uint32_t out[] = {r, gp - net->port_base[r], ovc - gp * net->vcs};
    emit(t, now, EV_HOP, pk, out, 3, NULL);
    uint32_t q = net->peer_queue[gp] + out[2];
    uint32_t in[] = {net->q_at[q].router, net->q_at[q].port, net->q_at[q].vc};
    emit(t, now + 1, EV_ARR, pk, in, 3, NULL);
    check_size(t, now);
}

void insee_trace_consumed(insee_trace *t, const insee_packet *pk, uint64_t now)
{
    plain_event(t, EV_CON, pk, now);
}

void insee_trace_dropped(insee_trace *t, const insee_packet *pk, insee_drop_reason why,
                         uint32_t q, uint64_t now)
{
    if (!selected(t, pk))
        return;
    const insee_net *net = t->net;
    uint32_t at[] = {0, 0, 0};
    if (q != INSEE_NONE) {
        at[0] = net->q_at[q].router;
        at[1] = net->q_at[q].port;
        at[2] = net->q_at[q].vc;
    }
    emit(t, now, EV_DROP, pk, at, q == INSEE_NONE ? 0 : 3, drop_names[why]);
    check_size(t, now);
}

uint64_t insee_trace_events(const insee_trace *t)
{
    return t->events;
}

gboolean insee_trace_truncated(const insee_trace *t, uint64_t *cycle)
{
    *cycle = t->truncated_at;
    return t->truncated;
}

gboolean insee_trace_commit(insee_trace *t, GError **err)
{
    int closed = gzclose(t->gz);
    t->gz = NULL;
    if (!t->failure && closed != Z_OK)
        t->failure = g_strdup_printf("cannot finish the compressed stream: %s",
                                     closed == Z_ERRNO ? g_strerror(errno) : "zlib error");
    if (!t->failure && fsync(t->sync_fd) != 0)
        t->failure = g_strdup_printf("cannot write the trace: %s", g_strerror(errno));
    if (!t->failure && rename(t->tmp, t->path) != 0)
        t->failure = g_strdup_printf("cannot replace it: %s", g_strerror(errno));
    if (t->failure) {
        g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_FAILED, WHAT ": %s: %s", t->path,
                    t->failure);
        return FALSE;
    }
    t->committed = TRUE;
    return TRUE;
}

void insee_trace_free(insee_trace *t)
{
    if (!t)
        return;
    if (t->gz)
        gzclose(t->gz);
    close(t->sync_fd);
    if (!t->committed)
        g_unlink(t->tmp);
    g_free(t->failure);
    g_free(t->ids);
    g_free(t->tmp);
    g_free(t->path);
    g_free(t);
}

/* ---- the phit view ------------------------------------------------------------ */

/* A hop of a packet whose story is being read. */
typedef struct hop_rec {
    uint64_t cycle;
    uint32_t router, port, vc;
} hop_rec;

typedef struct story {
    uint64_t id, last;       /* its last event's cycle */
    uint32_t dst;
    GArray *hops;            /* hop_rec */
} story;

static void story_free(gpointer p)
{
    story *s = p;
    g_array_unref(s->hops);
    g_free(s);
}

/* One line of the view: phit k at `cycle`, crossing hop `h` (hops: consumed). */
typedef struct phit_line {
    uint64_t cycle;
    uint32_t k, hop;
} phit_line;

static int by_cycle(const void *a, const void *b)
{
    const phit_line *x = a, *y = b;
    if (x->cycle != y->cycle)
        return (x->cycle > y->cycle) - (x->cycle < y->cycle);
    if (x->k != y->k)
        return (x->k > y->k) - (x->k < y->k);
    return (x->hop > y->hop) - (x->hop < y->hop);
}

/* The phits of one packet, in cycle order: phit k crosses each hop k
   cycles after its head; when `consumed`, the tail's "con" at cycle `con`
   puts phit k's consumption at con - (L - 1) + k. */
static void print_phits(const story *s, uint32_t L, gboolean consumed, uint64_t con, FILE *out)
{
    uint32_t h = s->hops->len;
    size_t n = ((size_t)h + (consumed ? 1 : 0)) * L;
    phit_line *lines = g_new(phit_line, MAX(n, 1));
    size_t i = 0;
    for (uint32_t j = 0; j < h; j++)
        for (uint32_t k = 0; k < L; k++)
            lines[i++] = (phit_line){g_array_index(s->hops, hop_rec, j).cycle + k, k, j};
    if (consumed)
        for (uint32_t k = 0; k < L; k++)
            lines[i++] = (phit_line){con - (L - 1) + k, k, h};
    qsort(lines, n, sizeof *lines, by_cycle);
    for (i = 0; i < n; i++) {
        if (lines[i].hop == h) {
            fprintf(out, "%" G_GUINT64_FORMAT " consumed %" G_GUINT64_FORMAT " %u %u\n",
                    lines[i].cycle, s->id, lines[i].k, s->dst);
            continue;
        }
        const hop_rec *hr = &g_array_index(s->hops, hop_rec, lines[i].hop);
        fprintf(out, "%" G_GUINT64_FORMAT " phit %" G_GUINT64_FORMAT " %u %u %u %u\n",
                lines[i].cycle, s->id, lines[i].k, hr->router, hr->port, hr->vc);
    }
    g_free(lines);
}

typedef struct reader {
    const char *path;
    uint64_t line;
    uint32_t L;
    GError **err;
} reader;

static gboolean bad(reader *rd, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
static gboolean bad(reader *rd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *what = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    g_set_error(rd->err, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s:%" G_GUINT64_FORMAT ": %s",
                rd->path, rd->line, what);
    g_free(what);
    return FALSE;
}

static gboolean number(const char *s, uint64_t max, uint64_t *v)
{
    return s && g_ascii_string_to_unsigned(s, 10, 0, max, v, NULL);
}

/* A parsed line of the trace. */
typedef struct record {
    uint64_t cycle, id, src, dst;
    event ev;
    uint64_t at[3];          /* router port vc, when `has_at` */
    gboolean has_at;
} record;

static gboolean parse_record(reader *rd, char *text, record *r)
{
    char *tok[10];
    int n = 0;
    for (char *save = NULL, *s = strtok_r(text, " ", &save); s; s = strtok_r(NULL, " ", &save)) {
        if (n == (int)G_N_ELEMENTS(tok))
            return bad(rd, "too many columns");
        tok[n++] = s;
    }
    if (n < 5)
        return bad(rd, "expected cycle event packet src dst, found %d column%s", n,
                   n == 1 ? "" : "s");
    r->ev = EV_COUNT;
    for (int e = 0; e < EV_COUNT; e++)
        if (strcmp(tok[1], event_names[e]) == 0)
            r->ev = (event)e;
    if (r->ev == EV_COUNT)
        return bad(rd, "unknown event '%s' (gen, inj, hop, arr, con or drop)", tok[1]);
    if (!number(tok[0], G_MAXUINT64, &r->cycle) || !number(tok[2], G_MAXUINT64, &r->id) ||
        r->id == 0 || !number(tok[3], G_MAXUINT32, &r->src) || !number(tok[4], G_MAXUINT32, &r->dst))
        return bad(rd, "cycle, packet (from 1), src and dst must be numbers");
    int want = r->ev == EV_HOP || r->ev == EV_ARR ? 8 : 5;
    if (r->ev == EV_DROP) {
        gboolean known = FALSE;
        for (int w = 0; w < INSEE_DROP_REASONS; w++)
            known |= strcmp(tok[n - 1], drop_names[w]) == 0;
        if (!known || (n != 6 && n != 9))
            return bad(rd, "drop needs its reason (source_full, router or unroutable) last, "
                           "after router port vc or alone");
        want = n;
    }
    if (n != want)
        return bad(rd, "%s has %d columns, not %d", event_names[r->ev], want, n);
    r->has_at = n >= 8;
    for (int i = 0; r->has_at && i < 3; i++) {
        gboolean inj = i == 1 && r->ev == EV_DROP && strcmp(tok[5 + i], INJECTION_PORT) == 0;
        if (!inj && !number(tok[5 + i], G_MAXUINT32, &r->at[i]))
            return bad(rd, "router, port and vc must be numbers");
    }
    return TRUE;
}

/* The first line: which format, and L. */
static gboolean parse_header(reader *rd, const char *text)
{
    unsigned version = 0, L = 0;
    if (sscanf(text, "# insee packet trace %u; packet_phits %u;", &version, &L) != 2)
        return bad(rd, "not an insee packet trace (its first line names the format and "
                       "packet_phits)");
    if (version != INSEE_TRACE_FORMAT)
        return bad(rd, "trace format %u; this insee reads format %d", version,
                   INSEE_TRACE_FORMAT);
    if (L == 0 || L > 65535)
        return bad(rd, "packet_phits %u is out of range (1 to 65535)", L);
    rd->L = L;
    return TRUE;
}

static gboolean apply(reader *rd, GHashTable *live, const record *r, uint64_t only,
                      gboolean *found, FILE *out)
{
    if (only && r->id != only)
        return TRUE;
    *found = TRUE;
    story *s = g_hash_table_lookup(live, &r->id);
    if (!s) {
        s = g_new0(story, 1);
        s->id = r->id;
        s->last = r->cycle;
        s->hops = g_array_new(FALSE, FALSE, sizeof(hop_rec));
        g_hash_table_insert(live, &s->id, s);
    }
    if (r->cycle < s->last)
        return bad(rd, "packet %" G_GUINT64_FORMAT " goes back in time, to cycle %"
                   G_GUINT64_FORMAT " after %" G_GUINT64_FORMAT, r->id, r->cycle, s->last);
    s->last = r->cycle;
    s->dst = (uint32_t)r->dst;
    if (r->ev == EV_HOP) {
        hop_rec h = {r->cycle, (uint32_t)r->at[0], (uint32_t)r->at[1], (uint32_t)r->at[2]};
        g_array_append_val(s->hops, h);
    } else if (r->ev == EV_CON || r->ev == EV_DROP) {
        if (r->ev == EV_CON && r->cycle < rd->L - 1)
            return bad(rd, "packet %" G_GUINT64_FORMAT " consumed at cycle %" G_GUINT64_FORMAT
                       ", before its %u phits could arrive", r->id, r->cycle, rd->L);
        print_phits(s, rd->L, r->ev == EV_CON, r->cycle, out);
        g_hash_table_remove(live, &r->id);
    }
    return TRUE;
}

static gint by_id(gconstpointer a, gconstpointer b)
{
    return cmp_u64(&((const story *)a)->id, &((const story *)b)->id);
}

/* Stories the trace does not end (past its cap, or still in flight when the
   run ended): their hops, in id order. */
static void print_unfinished(GHashTable *live, uint32_t L, FILE *out)
{
    GList *left = g_list_sort(g_hash_table_get_values(live), by_id);
    for (GList *l = left; l; l = l->next)
        print_phits(l->data, L, FALSE, 0, out);
    g_list_free(left);
}

gboolean insee_trace_phits(const char *path, uint64_t only, FILE *out, GError **err)
{
    gzFile gz = gzopen(path, "rb");
    if (!gz) {
        int e = errno ? errno : ENOMEM;
        g_set_error(err, G_FILE_ERROR, g_file_error_from_errno(e), "%s: cannot open it: %s",
                    path, g_strerror(e));
        return FALSE;
    }
    reader rd = {.path = path, .err = err};
    GHashTable *live = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL, story_free);
    char buf[512];
    gboolean ok = TRUE;
    int zerr = Z_OK;
    gboolean broken = FALSE; /* the stream broke within a line */
    gboolean found = FALSE;  /* some line of the packet asked for */
    while (ok && gzgets(gz, buf, sizeof buf)) {
        rd.line++;
        size_t len = strlen(buf);
        if (len && buf[len - 1] == '\n')
            buf[--len] = '\0';
        else if ((broken = (gzerror(gz, &zerr), zerr != Z_OK)))
            break;
        else if (len == sizeof buf - 1) {
            ok = bad(&rd, "line too long for a trace line");
            break;
        }
        if (rd.line == 1) {
            ok = parse_header(&rd, buf);
            if (ok)
                fprintf(out, "# insee phit view of %s: cycle phit packet k router port vc | "
                        "cycle consumed packet k node\n", path);
            continue;
        }
        if (buf[0] == '#')
            continue;
        record r;
        ok = parse_record(&rd, buf, &r) && apply(&rd, live, &r, only, &found, out);
    }
    const char *msg = gzerror(gz, &zerr);
    if (ok && zerr != Z_OK) {
        rd.line += !broken; /* the line it could not start */
        ok = bad(&rd, "the gzip stream is damaged or cut short (zlib: %s)",
                 zerr == Z_ERRNO ? g_strerror(errno) : msg);
    } else if (ok && rd.line == 0) {
        ok = bad(&rd, "empty: not an insee packet trace");
    } else if (ok && only && !found) {
        g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_NOENT,
                    "%s: packet %" G_GUINT64_FORMAT " is not in this trace", path, only);
        ok = FALSE;
    }
    if (ok)
        print_unfinished(live, rd.L, out);
    g_hash_table_destroy(live);
    gzclose(gz);
    return ok;
}
