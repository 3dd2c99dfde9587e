/* trace.c — replay of an FSIN trace (INSEE §3.3.1; INRFlow §3.3.2): each
 * task's sends, receives and computes read from a text file, played
 * causally (a receive waits for its message, a compute holds the task) or
 * injected at will (sends only, as fast as the sources take them).
 *
 * create() reads the whole file (gunzipped when it is gzip's), parses it
 * (trace_parse.c) and hands the script to the shared runner
 * (../common/script_runner.c), which answers every other traffic entry; a
 * bad file, or one that needs more tasks than the application has, fails
 * here, before the run. */
#define _POSIX_C_SOURCE 200809L /* fstat, fileno, insee/input.h */
#include "trace_parse.h"

#include <insee/input.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

/* Largest trace file read: far beyond any trace a run can replay (its
   script takes about three times the text), and a guard against reading a
   device or a wrong path whole. */
#define TRACE_MAX_FILE (UINT64_C(1) << 30)

enum { P_FILE, P_MODE, P_CPU_SCALE };
enum { MODE_CAUSAL, MODE_AT_WILL };

static const insee_param_def trace_params[] = {
    [P_FILE] = {"file", INSEE_PARAM_PATH, NULL, 1, 0, NULL, NULL,
                "the FSIN trace ('s src dst tag bytes [nic=K] [copy=zero|two]', 'r src dst "
                "tag bytes', 'c task time' lines); a relative path in an experiment file is "
                "read from that file's directory"},
    [P_MODE] = {"mode", INSEE_PARAM_ENUM, "\"causal\"", 1, 0, "causal|at-will", NULL,
                "causal: receives wait for their message and computes hold the task; at-will: "
                "every send as soon as its source takes it, receives and computes ignored"},
    [P_CPU_SCALE] = {"cpu_scale", INSEE_PARAM_DOUBLE, "1", 0, 1e9, NULL, "cycles per time unit",
                     "a compute of time t holds its task round(t x cpu_scale) cycles"},
    {0},
};

typedef struct trace {
    script_runner *runner; /* first: the script_traffic_* entries find it there */
} trace;

/* A gzip file's text (every member, as gunzip gives it), at most
   TRACE_MAX_FILE bytes; NULL with *why set. */
static char *gunzip(const unsigned char *gz, size_t n, size_t *len, const char **why)
{
    z_stream z = {.next_in = (unsigned char *)gz, .avail_in = (uInt)n};
    size_t cap = n * 4 + 64, got = 0;
    char *out = malloc(cap + 1);
    int rc = out && inflateInit2(&z, 15 + 16) == Z_OK ? Z_OK : Z_MEM_ERROR;
    while (rc == Z_OK || (rc == Z_STREAM_END && z.avail_in > 0)) {
        if (rc == Z_STREAM_END) /* another member follows */
            rc = inflateReset(&z);
        if (got == cap) {
            if (cap >= TRACE_MAX_FILE) {
                *why = "it holds more than 1 GiB, the most a trace may";
                break;
            }
            cap = cap * 2 < TRACE_MAX_FILE ? cap * 2 : TRACE_MAX_FILE;
            char *more = realloc(out, cap + 1);
            if (!more) {
                *why = "out of memory";
                break;
            }
            out = more;
        }
        z.next_out = (unsigned char *)out + got;
        z.avail_out = (uInt)(cap - got);
        rc = inflate(&z, Z_NO_FLUSH);
        got = cap - z.avail_out;
        if (rc == Z_BUF_ERROR && z.avail_in == 0)
            *why = "its gzip data ends early (a file cut short?)";
        else if (rc != Z_OK && rc != Z_STREAM_END)
            *why = z.msg ? z.msg : "its gzip data is corrupt";
    }
    if (!out)
        *why = "out of memory";
    inflateEnd(&z);
    if (*why) {
        free(out);
        return NULL;
    }
    *len = got;
    return out;
}

/* The whole file, a regular one of at most TRACE_MAX_FILE bytes (a device
   or a pipe could be read until memory runs out), gunzipped when it starts
   with gzip's magic bytes; NULL with err set. */
static char *read_trace(const char *path, size_t *len, insee_error *err)
{
    const char *why = NULL;
    FILE *f = insee_input_open(path, &why);
    struct stat st;
    char *buf = NULL;
    size_t got = 0;
    if (!f || fstat(fileno(f), &st) != 0)
        why = f ? strerror(errno) : why;
    else if (!S_ISREG(st.st_mode))
        why = "it is not a regular file";
    else if ((uint64_t)st.st_size > TRACE_MAX_FILE)
        why = "it is larger than 1 GiB, the most a trace may hold";
    else if (!(buf = malloc((size_t)st.st_size + 1)))
        why = "out of memory";
    else if ((got = fread(buf, 1, (size_t)st.st_size + 1, f)) > (size_t)st.st_size || ferror(f))
        why = ferror(f) ? strerror(errno) : "it grew while being read";
    if (f)
        fclose(f);
    if (!why && got >= 2 && (unsigned char)buf[0] == 0x1f && (unsigned char)buf[1] == 0x8b) {
        char *text = gunzip((const unsigned char *)buf, got, &got, &why);
        free(buf);
        buf = text;
    }
    if (why) {
        insee_error_set(err, INSEE_ERR_IO,
                        "trace: cannot read '%s': %s; check the traffic's file parameter (a "
                        "relative path in an experiment file is read from that file's "
                        "directory)",
                        path, why);
        free(buf);
        return NULL;
    }
    *len = got;
    return buf;
}

static void *trace_create(const insee_host *host, const insee_value *params, insee_error *err)
{
    const char *path = params[P_FILE].s;
    size_t len;
    char *text = read_trace(path, &len, err);
    if (!text)
        return NULL;
    insee_shape shape;
    host->shape(host->kernel, &shape);
    script *s = trace_parse(text, len, path, shape.tasks, err);
    free(text);
    if (!s)
        return NULL;
    trace *t = malloc(sizeof *t);
    if (!t) {
        script_free(s);
        insee_error_set(err, INSEE_ERR_NOMEM, "trace: out of memory");
        return NULL;
    }
    t->runner = script_runner_new(s, host, params[P_MODE].i == MODE_CAUSAL, path,
                                  params[P_CPU_SCALE].d, err);
    if (!t->runner) {
        free(t);
        return NULL;
    }
    return t;
}

static const insee_traffic_vtable trace_vtable = SCRIPT_TRAFFIC_VTABLE(trace_create);

static const insee_plugin_desc trace_desc = {
    .abi_major = INSEE_ABI_MAJOR,
    .abi_minor = INSEE_ABI_MINOR,
    .size = sizeof(insee_plugin_desc),
    .kind = INSEE_KIND_TRAFFIC,
    .name = "trace",
    .version = "1.0.0",
    .summary = "replay of an FSIN trace (send, receive, compute per task), causal or at will",
    .reference = "INSEE §3.3.1",
    .params = trace_params,
    .vtable = &trace_vtable,
};

INSEE_PLUGIN_DEFINE(trace_desc)
