/* The packet evolution trace of INSEE §2.4.2 ([stats] trace) and the phit
 * view `insee trace phits` derives from it: event cycles against the
 * zero-load closed form, every traced packet's story whole and counted
 * once, the size cap, no file from a run that did not complete, one seed
 * one file, and the phit view of a trace written by hand. */
#include <criterion/criterion.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <zlib.h>

#include "run_helpers.h"

/* ---- reading a trace, independently of the code under test ------------------ */

typedef struct event {
    uint64_t cycle, id, src, dst;
    char name[8];
    int n_at;                /* router port vc given */
    uint64_t at[3];
    char reason[16];
} event;

typedef struct trace {
    GArray *ev;              /* event, in file order */
    char *first, *last;      /* first and last lines */
    uint32_t L;
} trace;

static char *gunzip(const char *path)
{
    gzFile gz = gzopen(path, "rb");
    cr_assert(gz, "cannot open %s", path);
    GString *text = g_string_new(NULL);
    char buf[4096];
    int n;
    while ((n = gzread(gz, buf, sizeof buf)) > 0)
        g_string_append_len(text, buf, n);
    int zerr;
    gzerror(gz, &zerr);
    cr_assert_eq(zerr, Z_OK, "%s is not a whole gzip stream", path);
    gzclose(gz);
    return g_string_free(text, FALSE);
}

static trace read_trace(const char *path)
{
    trace t = {.ev = g_array_new(FALSE, TRUE, sizeof(event))};
    char *text = gunzip(path);
    char **lines = g_strsplit(text, "\n", -1);
    guint n = g_strv_length(lines);
    cr_assert(n >= 2 && lines[n - 1][0] == '\0', "the trace ends with a newline");
    t.first = g_strdup(lines[0]);
    t.last = g_strdup(lines[n - 2]);
    cr_assert_eq(sscanf(lines[0], "# insee packet trace 1; packet_phits %u;", &t.L), 1, "%s",
                 lines[0]);
    for (guint i = 1; i + 1 < n; i++) {
        if (lines[i][0] == '#')
            continue;
        event e = {0};
        char rest[4][24] = {{0}};
        int k = sscanf(lines[i], "%" SCNu64 " %7s %" SCNu64 " %" SCNu64 " %" SCNu64
                       " %23s %23s %23s %23s", &e.cycle, e.name, &e.id, &e.src, &e.dst,
                       rest[0], rest[1], rest[2], rest[3]);
        cr_assert(k == 5 || k == 6 || k == 8 || k == 9, "line %u: %s", i + 1, lines[i]);
        e.n_at = k >= 8 ? 3 : 0;
        for (int j = 0; j < e.n_at; j++)
            e.at[j] = strtoull(rest[j], NULL, 10);
        if (strcmp(e.name, "drop") == 0)
            g_strlcpy(e.reason, rest[k - 6], sizeof e.reason);
        g_array_append_val(t.ev, e);
    }
    g_strfreev(lines);
    g_free(text);
    return t;
}

static void trace_free(trace *t)
{
    g_array_unref(t->ev);
    g_free(t->first);
    g_free(t->last);
}

static gboolean is(const event *e, const char *name)
{
    return strcmp(e->name, name) == 0;
}

/* The events of one packet, in file order. */
static GArray *story(const trace *t, uint64_t id)
{
    GArray *s = g_array_new(FALSE, FALSE, sizeof(event));
    for (guint i = 0; i < t->ev->len; i++)
        if (g_array_index(t->ev, event, i).id == id)
            g_array_append_val(s, g_array_index(t->ev, event, i));
    return s;
}

/* Hops between nodes a and b of a 4x4 mesh or torus (node n at x = n mod 4,
   y = n div 4; a torus ring of 4 is at most 2 away). */
static uint64_t distance_4x4(gboolean torus, uint64_t a, uint64_t b)
{
    uint64_t d = 0;
    int64_t delta[2] = {(int64_t)(a % 4) - (int64_t)(b % 4), (int64_t)(a / 4) - (int64_t)(b / 4)};
    for (int i = 0; i < 2; i++) {
        uint64_t x = (uint64_t)llabs(delta[i]);
        d += torus && x > 2 ? 4 - x : x;
    }
    return d;
}

static char *tmp_dir(void)
{
    char *dir = g_dir_make_tmp("insee-trace-XXXXXX", NULL);
    cr_assert(dir);
    return dir;
}

static gboolean dir_empty(const char *dir)
{
    GDir *d = g_dir_open(dir, 0, NULL);
    gboolean empty = g_dir_read_name(d) == NULL;
    g_dir_close(d);
    return empty;
}

static void remove_dir(char *dir)
{
    GDir *d = g_dir_open(dir, 0, NULL);
    const char *name;
    while ((name = g_dir_read_name(d))) {
        char *p = g_build_filename(dir, name, NULL);
        g_unlink(p);
        g_free(p);
    }
    g_dir_close(d);
    g_rmdir(dir);
    g_free(dir);
}

/* A run with its trace in a directory of its own. */
typedef struct traced {
    char *dir, *path;
    insee_report rep;
    trace t;
} traced;

static traced traced_new(void)
{
    traced r = {.dir = tmp_dir()};
    r.path = g_build_filename(r.dir, "run.trace.gz", NULL);
    return r;
}

/* Run `toml` (freed here) through the kernel and read its trace. */
static void traced_run(traced *r, char *toml)
{
    r->rep = run_toml(toml);
    g_free(toml);
    r->t = read_trace(r->path);
}

static void traced_clear(traced *r)
{
    trace_free(&r->t);
    insee_report_clear(&r->rep);
}

static void traced_free(traced *r)
{
    traced_clear(r);
    g_free(r->path);
    remove_dir(r->dir);
}

/* ---- the zero-load closed form ------------------------------------------------ */

/* At zero load a packet leaves its source the cycle it is generated, its head
   crosses hop i at inj + i and reaches the next router the cycle after, and
   its tail is consumed at inj + h + L - 1, h the minimal distance. */
static void zero_load(const char *topology)
{
    traced r = traced_new();
    const uint64_t ids[] = {2, 5, 9};
    traced_run(&r, g_strdup_printf(
        "[simulation]\nseed = 7\nwarmup = 0\ncycles = 40000\nphases = \"fixed\"\n"
        "[topology]\nplugin = \"%s\"\ndims = [4, 4]\n"
        "[traffic]\nplugin = \"uniform\"\nload = 0.002\n"
        "[stats]\ntrace = \"%s\"\ntrace_packets = [9, 2, 5]\n", topology, r.path));
    assert_all_delivered(&r.rep);
    cr_assert_gt(r.rep.total_generated, 9);
    uint32_t L = r.t.L;
    cr_assert_eq(L, 16);
    gboolean torus = strcmp(topology, "torus") == 0;
    size_t lines = 0;
    for (size_t k = 0; k < G_N_ELEMENTS(ids); k++) {
        GArray *s = story(&r.t, ids[k]);
        lines += s->len;
        cr_assert_geq(s->len, 3);
        const event *ev = (const event *)s->data;
        uint64_t h = distance_4x4(torus, ev[0].src, ev[0].dst);
        cr_assert_eq(s->len, 3 + 2 * h, "packet %" G_GUINT64_FORMAT ": gen, inj, %" G_GUINT64_FORMAT
                     " hops and arrivals, con", ids[k], h);
        cr_assert(is(&ev[0], "gen") && is(&ev[1], "inj"));
        uint64_t inj = ev[1].cycle;
        cr_assert_eq(inj, ev[0].cycle, "injected the cycle it was generated");
        uint64_t router = ev[0].src; /* router r hosts node r */
        for (uint64_t i = 0; i < h; i++) {
            const event *hop = &ev[2 + 2 * i], *arr = &ev[3 + 2 * i];
            cr_assert(is(hop, "hop") && is(arr, "arr"));
            cr_assert_eq(hop->cycle, inj + i);
            cr_assert_eq(hop->at[0], router, "leaves the router it arrived at");
            cr_assert_eq(arr->cycle, inj + i + 1);
            cr_assert_eq(distance_4x4(torus, arr->at[0], hop->at[0]), 1);
            cr_assert_eq(distance_4x4(torus, arr->at[0], ev[0].dst), h - i - 1,
                         "each hop one closer");
            router = arr->at[0];
        }
        cr_assert_eq(router, ev[0].dst);
        cr_assert(is(&ev[s->len - 1], "con"));
        cr_assert_eq(ev[s->len - 1].cycle, inj + h + L - 1);
        g_array_unref(s);
    }
    cr_assert_eq(lines, r.t.ev->len, "only the listed packets are traced");
    traced_free(&r);
}

Test(trace_output, zero_load_mesh_matches_the_closed_form)
{
    zero_load("mesh");
}

Test(trace_output, zero_load_torus_matches_the_closed_form)
{
    zero_load("torus");
}

/* ---- every packet of a window ---------------------------------------------------- */

typedef struct tally {
    uint64_t gen, con, drop, hop, arr, distance_sum;
    uint64_t first_id, last_id;
} tally;

/* Every traced packet: generated once, in [from, until), as the first of
   its events; ended once (con or drop); its events in cycle order. The
   delivered ones cross as many hops, and arrive as often, as their minimal
   distance on a 4x4 torus (the router is minimal); a source drops before
   the first hop. Ids are consecutive: the window's packets, none missing. */
static tally check_stories(const trace *t, uint64_t from, uint64_t until)
{
    GHashTable *seen = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
    tally c = {.first_id = G_MAXUINT64};
    for (guint i = 0; i < t->ev->len; i++) {
        const event *e = &g_array_index(t->ev, event, i);
        uint64_t *last = g_hash_table_lookup(seen, &e->id);
        if (!last) {
            cr_assert(is(e, "gen"), "packet %" G_GUINT64_FORMAT " starts with %s", e->id,
                      e->name);
            cr_assert(e->cycle >= from && e->cycle < until);
            last = g_new(uint64_t, 3); /* last cycle, 1 once ended, distance */
            last[0] = e->cycle;
            last[1] = 0;
            last[2] = distance_4x4(TRUE, e->src, e->dst);
            g_hash_table_insert(seen, g_memdup2(&e->id, sizeof e->id), last);
            c.gen++;
            c.first_id = MIN(c.first_id, e->id);
            c.last_id = MAX(c.last_id, e->id);
            continue;
        }
        cr_assert_not(is(e, "gen"), "packet %" G_GUINT64_FORMAT " generated twice", e->id);
        cr_assert_eq(last[1], 0, "packet %" G_GUINT64_FORMAT " has events after its end", e->id);
        cr_assert_geq(e->cycle, last[0], "packet %" G_GUINT64_FORMAT " goes back in time", e->id);
        last[0] = e->cycle;
        if (is(e, "con") || is(e, "drop")) {
            last[1] = 1;
            c.con += is(e, "con");
            c.drop += is(e, "drop");
            c.distance_sum += is(e, "con") ? last[2] : 0;
        }
        c.hop += is(e, "hop");
        c.arr += is(e, "arr");
    }
    cr_assert_eq(c.con + c.drop, c.gen, "every traced packet ends exactly once");
    cr_assert_eq(c.last_id - c.first_id + 1, c.gen, "no packet of the window is missing");
    cr_assert_eq(c.hop, c.distance_sum);
    cr_assert_eq(c.arr, c.hop);
    g_hash_table_destroy(seen);
    return c;
}

static const char loaded_torus[] =
    "[simulation]\nseed = %d\nwarmup = 0\ncycles = 3000\nphases = \"fixed\"\n"
    "[topology]\nplugin = \"torus\"\ndims = [4, 4]\n"
    "[traffic]\nplugin = \"uniform\"\nload = 0.4\n"
    "[stats]\ntrace = \"%s\"\n%s";

Test(trace_output, every_packet_of_a_window_ends_once)
{
    traced r = traced_new();
    traced_run(&r, g_strdup_printf(loaded_torus, 3, r.path,
                                   "trace_from = 500\ntrace_until = 1500\n"));
    assert_all_delivered(&r.rep);
    tally c = check_stories(&r.t, 500, 1500);
    /* 16 nodes x 0.4 phits/node/cycle / 16 phits = 0.4 packets a cycle. */
    cr_assert(c.gen > 300 && c.gen < 500, "%" G_GUINT64_FORMAT " packets", c.gen);
    cr_assert_eq(c.drop, 0);
    cr_assert_eq(r.rep.trace_events, r.t.ev->len);
    traced_clear(&r);

    /* The whole run: the trace counts what the report counts. */
    traced_run(&r, g_strdup_printf(loaded_torus, 3, r.path, ""));
    c = check_stories(&r.t, 0, G_MAXUINT64);
    cr_assert_eq(c.gen, r.rep.total_generated);
    cr_assert_eq(c.con, r.rep.total_delivered);
    cr_assert_eq(c.hop, r.rep.total_packet_hops);
    traced_free(&r);
}

/* Sources that drop what does not fit: a dropped packet's story is gen and
   drop in the same cycle, and the drops are the report's. */
Test(trace_output, drops_at_the_source_end_their_packets)
{
    traced r = traced_new();
    traced_run(&r, g_strdup_printf(
        "[simulation]\nseed = 2\nwarmup = 0\ncycles = 2000\nphases = \"fixed\"\n"
        "[topology]\nplugin = \"torus\"\ndims = [4, 4]\n"
        "[router]\ninject_packets = 1\nqueue_packets = 2\n"
        "[traffic]\nplugin = \"uniform\"\nload = 1.0\non_full = \"drop\"\n"
        "[stats]\ntrace = \"%s\"\n", r.path));
    assert_all_delivered(&r.rep);
    cr_assert_gt(r.rep.total_dropped, 100);
    tally c = check_stories(&r.t, 0, G_MAXUINT64);
    cr_assert_eq(c.drop, r.rep.total_dropped);
    cr_assert_eq(c.con, r.rep.total_delivered);
    for (guint i = 0; i < r.t.ev->len; i++) {
        const event *e = &g_array_index(r.t.ev, event, i);
        if (!is(e, "drop"))
            continue;
        cr_assert_str_eq(e->reason, "source_full");
        const event *gen = &g_array_index(r.t.ev, event, i - 1);
        cr_assert(is(gen, "gen") && gen->id == e->id && gen->cycle == e->cycle);
    }
    traced_free(&r);
}

/* ---- the cap -------------------------------------------------------------------- */

Test(trace_output, the_cap_stops_the_trace_not_the_run)
{
    traced r = traced_new();
    traced_run(&r, g_strdup_printf(
        "[simulation]\nseed = 4\nwarmup = 0\ncycles = 30000\nphases = \"fixed\"\n"
        "[topology]\nplugin = \"torus\"\ndims = [4, 4]\n"
        "[traffic]\nplugin = \"uniform\"\nload = 0.5\n"
        "[stats]\ntrace = \"%s\"\ntrace_max_mb = 0.1\n", r.path));
    const insee_report *rep = &r.rep;
    assert_all_delivered(rep);
    cr_assert_eq(rep->cycles, rep->drain_cycles + 30000, "the run went on to its end");
    cr_assert(rep->trace_truncated);
    struct stat st;
    cr_assert_eq(g_stat(r.path, &st), 0);
    uint64_t cap = (uint64_t)(0.1 * 1048576);
    cr_assert_leq((uint64_t)st.st_size, cap, "%lld bytes", (long long)st.st_size);
    cr_assert_geq((uint64_t)st.st_size, cap / 2, "the cap was nearly used");
    char *want = g_strdup_printf("# truncated at cycle %" G_GUINT64_FORMAT
                                 ": trace_max_mb reached", rep->trace_truncated_at);
    cr_assert_str_eq(r.t.last, want);
    cr_assert_lt(rep->trace_truncated_at, 30000);
    const event *last = &g_array_index(r.t.ev, event, r.t.ev->len - 1);
    cr_assert_leq(last->cycle, rep->trace_truncated_at + 1);
    cr_assert_eq(rep->trace_events, r.t.ev->len);
    g_free(want);
    traced_free(&r);
}

/* ---- runs that do not complete; reproducibility ------------------------------------ */

/* An experiment run up to insee_experiment_run(); returns whether it ran. */
static gboolean run_only(const char *toml, volatile int *stop, gboolean *written)
{
    insee_config *cfg;
    insee_registry *reg;
    insee_experiment *exp = build_toml(toml, &cfg, &reg);
    if (stop)
        insee_experiment_set_stop(exp, stop);
    GError *err = NULL;
    gboolean ran = insee_experiment_run(exp, &err);
    *written = ran && insee_experiment_write_outputs(exp, NULL);
    g_clear_error(&err);
    insee_experiment_free(exp);
    insee_registry_free(reg);
    insee_config_free(cfg);
    return ran;
}

Test(trace_output, an_interrupted_or_failed_run_leaves_no_trace)
{
    char *dir = tmp_dir();
    char *path = g_build_filename(dir, "t.gz", NULL);
    static volatile int stop = 1;
    char *toml = g_strdup_printf(loaded_torus, 3, path, "");
    gboolean written;
    cr_assert(run_only(toml, &stop, &written));
    cr_assert_not(written);
    cr_assert(dir_empty(dir), "no trace, not even a temporary");
    /* A trace already there stays as it was. */
    cr_assert(g_file_set_contents(path, "an older trace", -1, NULL));
    run_only(toml, &stop, &written);
    char *kept = NULL;
    cr_assert(g_file_get_contents(path, &kept, NULL, NULL));
    cr_assert_str_eq(kept, "an older trace");
    g_free(kept);
    g_unlink(path);
    g_free(toml);

    /* A deadlock ends the run with an error. */
    toml = g_strdup_printf("[simulation]\ndeadlock_cycles = 500\n"
                           "[router]\nplugin = \"dally\"\nvcs = 1\nallow_deadlock = true\n"
                           "[traffic]\nplugin = \"uniform\"\nload = 0.9\n"
                           "[stats]\ntrace = \"%s\"\n", path);
    cr_assert_not(run_only(toml, NULL, &written), "the run deadlocks");
    cr_assert(dir_empty(dir), "no trace, not even a temporary");
    g_free(toml);
    g_free(path);
    remove_dir(dir);
}

static char *read_bytes(const char *path, gsize *len)
{
    char *bytes = NULL;
    cr_assert(g_file_get_contents(path, &bytes, len, NULL));
    return bytes;
}

Test(trace_output, one_seed_gives_one_trace)
{
    char *dir = tmp_dir();
    char *path[2], *bytes[2], *text[2];
    gsize len[2];
    for (int i = 0; i < 2; i++) {
        path[i] = g_strdup_printf("%s/run%d.gz", dir, i);
        char *toml = g_strdup_printf(loaded_torus, 11, path[i], "");
        insee_report rep = run_toml(toml);
        insee_report_clear(&rep);
        g_free(toml);
        bytes[i] = read_bytes(path[i], &len[i]);
        text[i] = gunzip(path[i]);
    }
    cr_assert_gt(strlen(text[0]), 10000);
    cr_assert_str_eq(text[0], text[1]);
    cr_assert_eq(len[0], len[1]);
    cr_assert_eq(memcmp(bytes[0], bytes[1], len[0]), 0, "byte-identical compressed files");
    for (int i = 0; i < 2; i++) {
        g_free(path[i]);
        g_free(bytes[i]);
        g_free(text[i]);
    }
    remove_dir(dir);
}

/* ---- the program: insee trace phits, [stats] keys ------------------------------------ */

typedef struct result {
    int status;
    char *out, *err;
} result;

static result insee(const char *const *args)
{
    GPtrArray *argv = g_ptr_array_new();
    g_ptr_array_add(argv, (char *)INSEE_TEST_BIN);
    for (; *args; args++)
        g_ptr_array_add(argv, (char *)*args);
    g_ptr_array_add(argv, NULL);
    result r = {0};
    int wait = 0;
    cr_assert(g_spawn_sync(NULL, (char **)argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, &r.out,
                           &r.err, &wait, NULL));
    r.status = WIFEXITED(wait) ? WEXITSTATUS(wait) : -1;
    g_ptr_array_free(argv, TRUE);
    return r;
}

static void result_free(result *r)
{
    g_free(r->out);
    g_free(r->err);
}

/* Packet 7 of 4 phits, node 0 to node 2 over routers 0, 1, 2, injected at
   cycle 10 at zero load: hops at 10 and 11, con at 10 + 2 + 4 - 1 = 15.
   Packet 8 is dropped after one hop. */
static const char known_trace[] =
    "# insee packet trace 1; packet_phits 4; columns: cycle event packet src dst "
    "[router port vc] [reason]\n"
    "10 gen 7 0 2\n"
    "10 inj 7 0 2\n"
    "10 hop 7 0 2 0 1 0\n"
    "11 arr 7 0 2 1 0 0\n"
    "11 hop 7 0 2 1 1 1\n"
    "12 gen 8 3 2\n"
    "12 arr 7 0 2 2 0 1\n"
    "12 inj 8 3 2\n"
    "12 hop 8 3 2 3 0 0\n"
    "13 arr 8 3 2 2 1 0\n"
    "15 con 7 0 2\n"
    "20 drop 8 3 2 2 1 0 router\n";

static void write_gz(const char *path, const char *text, size_t len)
{
    gzFile gz = gzopen(path, "wb");
    cr_assert(gz);
    cr_assert_eq(gzwrite(gz, text, (unsigned)len), (int)len);
    cr_assert_eq(gzclose(gz), Z_OK);
}

/* Phit k of packet 7: hop 0 at 10 + k by router 0 port 1 VC 0, hop 1 at
   11 + k by router 1 port 1 VC 1, consumed at 15 - 3 + k. */
static void check_phits_of_7(const char *out)
{
    char **lines = g_strsplit(out, "\n", -1);
    int phits[2] = {0}, consumed = 0;
    for (char **l = lines; *l; l++) {
        uint64_t cycle;
        unsigned id, k, router, port, vc, node;
        if (sscanf(*l, "%" SCNu64 " phit %u %u %u %u %u", &cycle, &id, &k, &router, &port,
                   &vc) == 6 && id == 7) {
            cr_assert(k < 4);
            cr_assert(router <= 1, "%s", *l);
            cr_assert_eq(cycle, 10 + router + k, "%s", *l);
            cr_assert(port == 1 && vc == router, "%s", *l);
            phits[router]++;
        } else if (sscanf(*l, "%" SCNu64 " consumed %u %u %u", &cycle, &id, &k, &node) == 4 &&
                   id == 7) {
            cr_assert_eq(cycle, 12 + k, "%s", *l);
            cr_assert_eq(node, 2);
            consumed++;
        }
    }
    cr_assert(phits[0] == 4 && phits[1] == 4 && consumed == 4, "L phit lines per hop: %s", out);
    g_strfreev(lines);
}

Test(trace_output, phits_of_a_known_trace)
{
    char *dir = tmp_dir();
    char *plain = g_build_filename(dir, "known.txt", NULL);
    char *gz = g_build_filename(dir, "known.gz", NULL);
    cr_assert(g_file_set_contents(plain, known_trace, -1, NULL));
    write_gz(gz, known_trace, strlen(known_trace));
    const char *files[] = {plain, gz};
    for (int f = 0; f < 2; f++) {
        result r = insee((const char *[]){"trace", "phits", files[f], NULL});
        cr_assert_eq(r.status, 0, "%s", r.err);
        check_phits_of_7(r.out);
        /* Packet 8: its one hop's 4 phits, nothing consumed. */
        int of_8 = 0;
        for (const char *p = r.out; (p = strstr(p, " phit 8 ")); p++)
            of_8++;
        cr_assert_eq(of_8, 4);
        cr_assert_null(strstr(r.out, "consumed 8 "));
        result_free(&r);
    }
    result r = insee((const char *[]){"trace", "phits", gz, "--packet", "8", NULL});
    cr_assert_eq(r.status, 0);
    cr_assert_null(strstr(r.out, " 7 "), "--packet 8 shows packet 8 only: %s", r.out);
    cr_assert(strstr(r.out, "13 phit 8 1 3 0 0\n"), "%s", r.out);
    result_free(&r);
    r = insee((const char *[]){"trace", "phits", gz, "--packet", "9", NULL});
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "packet 9 is not in this trace"), "%s", r.err);
    result_free(&r);
    g_free(plain);
    g_free(gz);
    remove_dir(dir);
}

/* A trace written by a run, read back: every hop gives L phit lines. */
Test(trace_output, phits_of_a_run)
{
    traced tr = traced_new();
    traced_run(&tr, g_strdup_printf(loaded_torus, 5, tr.path, "trace_until = 300\n"));
    uint64_t hops = 0, cons = 0;
    for (guint i = 0; i < tr.t.ev->len; i++) {
        hops += is(&g_array_index(tr.t.ev, event, i), "hop");
        cons += is(&g_array_index(tr.t.ev, event, i), "con");
    }
    result r = insee((const char *[]){"trace", "phits", tr.path, NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    uint64_t phit_lines = 0, consumed_lines = 0;
    char **lines = g_strsplit(r.out, "\n", -1);
    for (char **l = lines; *l; l++) {
        char word[16];
        if (sscanf(*l, "%*u %15s", word) == 1) {
            phit_lines += strcmp(word, "phit") == 0;
            consumed_lines += strcmp(word, "consumed") == 0;
        }
    }
    g_strfreev(lines);
    cr_assert_gt(hops, 100);
    cr_assert_eq(phit_lines, hops * tr.t.L);
    cr_assert_eq(consumed_lines, cons * tr.t.L);
    result_free(&r);
    traced_free(&tr);
}

Test(trace_output, a_corrupt_trace_is_named_with_its_line)
{
    char *dir = tmp_dir();
    /* Line 6 has a router that is not a number. */
    char *bad_line = g_build_filename(dir, "bad-line.txt", NULL);
    char *text = g_strdup(known_trace);
    char *at = strstr(text, "11 hop 7 0 2 1 1 1");
    at[13] = 'x';
    cr_assert(g_file_set_contents(bad_line, text, -1, NULL));
    /* A gzip stream cut in the middle. */
    char *cut = g_build_filename(dir, "cut.gz", NULL);
    GString *big = g_string_new(known_trace);
    for (int i = 0; i < 20000; i++)
        g_string_append_printf(big, "%d gen %d %d %d\n", 100 + i, 100 + i, i % 61, i % 67);
    write_gz(cut, big->str, big->len);
    gsize len;
    char *bytes = read_bytes(cut, &len);
    cr_assert(g_file_set_contents(cut, bytes, (gssize)(len / 2), NULL));
    /* Not a trace at all. */
    char *other = g_build_filename(dir, "other.txt", NULL);
    cr_assert(g_file_set_contents(other, "cycle,event\n1,gen\n", -1, NULL));
    const struct {
        const char *path, *where;
    } cases[] = {{bad_line, ":6: "}, {cut, ":"}, {other, ":1: "}};
    for (size_t c = 0; c < G_N_ELEMENTS(cases); c++) {
        result r = insee((const char *[]){"trace", "phits", cases[c].path, NULL});
        cr_assert_eq(r.status, 2, "%s", cases[c].path);
        char *want = g_strconcat(cases[c].path, cases[c].where, NULL);
        cr_assert(strstr(r.err, want), "%s", r.err);
        g_free(want);
        result_free(&r);
    }
    /* The cut stream's message names a line past the lines it read whole. */
    result r = insee((const char *[]){"trace", "phits", cut, NULL});
    cr_assert(strstr(r.err, "damaged or cut short"), "%s", r.err);
    result_free(&r);
    g_string_free(big, TRUE);
    g_free(bytes);
    g_free(text);
    g_free(bad_line);
    g_free(cut);
    g_free(other);
    remove_dir(dir);
}

Test(trace_output, bad_keys_are_named)
{
    const struct {
        const char *set, *key;
    } cases[] = {
        {"stats.trace_until=5", "trace_until"},
        {"stats.trace_max_mb=0", "trace_max_mb"},
        {"stats.trace_packets=[3, 0]", "trace_packets"},
        {"stats.trace_from=-1", "trace_from"},
        {"stats.trace=/nonexistent-dir/t.gz", "[stats] trace"},
    };
    for (size_t c = 0; c < G_N_ELEMENTS(cases); c++) {
        result r = insee((const char *[]){"run", "--set", "stats.trace=t.gz", "--set",
                                          "stats.trace_from=10", "--set", cases[c].set, NULL});
        cr_assert_eq(r.status, 2, "%s: %s", cases[c].set, r.err);
        cr_assert(strstr(r.err, cases[c].key), "%s", r.err);
        result_free(&r);
    }
    result r = insee((const char *[]){"trace", "phits", "x.gz", "--packet", "0", NULL});
    cr_assert_eq(r.status, 2);
    result_free(&r);
}

/* The report says when the cap stopped the trace; a cap of a few KiB
   holds too. */
Test(trace_output, the_report_names_the_truncation)
{
    char *dir = tmp_dir();
    char *path = g_build_filename(dir, "t.gz", NULL);
    char *set = g_strdup_printf("stats.trace=%s", path);
    result r = insee((const char *[]){"run", "--set", set, "--set", "stats.trace_max_mb=0.002",
                                      "--set", "traffic.load=0.5", NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(strstr(r.out, "TRUNCATED at cycle"), "%s", r.out);
    cr_assert(strstr(r.out, "trace_max_mb reached"));
    struct stat st;
    cr_assert_eq(g_stat(path, &st), 0);
    cr_assert_leq(st.st_size, (off_t)(0.002 * 1048576));
    trace t = read_trace(path);
    cr_assert(g_str_has_prefix(t.last, "# truncated at cycle "), "%s", t.last);
    trace_free(&t);
    result_free(&r);
    g_free(set);
    g_free(path);
    remove_dir(dir);
}
