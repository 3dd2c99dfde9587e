/* kernel/net/faults.c — failing cables and counting what stays connected;
 * see faults.h. */
#include "net/faults.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "config/config.h"

/* The faults' stream, above every kernel and plugin range (experiment.c,
   host.c), so that failures move no other draw. */
#define FAULTS_STREAM (32ull << 40)

/* Every refusal is a bad [faults] value: a configuration error. */
#define INVALID INSEE_CONFIG_ERROR, INSEE_CONFIG_ERROR_INVALID

/* Whether plugged output gp names its cable: the lower port of a pair, or
   an output without a reverse (a one-way cable). */
static gboolean names_cable(const insee_net *net, uint32_t gp)
{
    if (net->peer_queue[gp] == INSEE_NONE)
        return FALSE;
    uint32_t rev = insee_net_reverse(net, gp);
    return rev == INSEE_NONE || gp <= rev;
}

uint64_t insee_net_cables(const insee_net *net)
{
    uint64_t n = net->failed_cables;
    for (uint32_t gp = 0; gp < net->ports_total; gp++)
        n += names_cable(net, gp);
    return n;
}

/* Fail the cable named by output gp: both directions. */
static void fail_cable(insee_net *net, uint32_t gp)
{
    uint32_t rev = insee_net_reverse(net, gp);
    net->failed[gp] = 1;
    net->peer_queue[gp] = INSEE_NONE;
    if (rev != INSEE_NONE) {
        net->failed[rev] = 1;
        net->peer_queue[rev] = INSEE_NONE;
    }
    net->failed_cables++;
}

/* Why `text` names no cable that can fail, or NULL (g_free() it). */
static char *bad_cable(const insee_net *net, const char *text, const guint64 *v, gboolean ok)
{
    if (!ok)
        return g_strdup_printf("'%s' is not a cable; write ROUTER PORT (two whole numbers, "
                               "either end of the cable) per line", text);
    uint32_t r = (uint32_t)v[0], p = (uint32_t)v[1];
    if (r >= net->routers)
        return g_strdup_printf("router %u does not exist (the network has routers 0 to %u)", r,
                               net->routers - 1);
    uint32_t ports = net->port_base[r + 1] - net->port_base[r];
    if (p >= ports)
        return g_strdup_printf("router %u has no port %u (it has %u ports)", r, p, ports);
    uint32_t gp = net->port_base[r] + p;
    if (net->failed[gp])
        return g_strdup_printf("the cable at router %u port %u is listed twice", r, p);
    if (net->peer_queue[gp] == INSEE_NONE)
        return g_strdup_printf("router %u port %u is not plugged, so no cable there can fail",
                               r, p);
    return NULL;
}

/* One line of the file, "ROUTER PORT": the output that names its cable
   into *gp. */
static gboolean parse_line(const insee_net *net, const char *file, guint line, char *text,
                           uint32_t *gp, GError **err)
{
    char **f = g_strsplit_set(text, " \t", -1);
    guint64 v[2] = {0};
    guint n = 0;
    gboolean ok = TRUE;
    for (char **w = f; *w && ok; w++)
        if (**w)
            ok = n < 2 && g_ascii_string_to_unsigned(*w, 10, 0, UINT32_MAX, &v[n++], NULL);
    g_strfreev(f);
    char *why = bad_cable(net, text, v, ok && n == 2);
    if (why) {
        g_set_error(err, INVALID, "[faults] file '%s' line %u: %s", file, line, why);
        g_free(why);
        return FALSE;
    }
    uint32_t g = net->port_base[v[0]] + (uint32_t)v[1];
    uint32_t rev = insee_net_reverse(net, g);
    *gp = rev != INSEE_NONE && rev < g ? rev : g;
    return TRUE;
}

static gboolean fail_listed(insee_net *net, const char *file, GError **err)
{
    char *text = NULL;
    GError *e = NULL;
    if (!g_file_get_contents(file, &text, NULL, &e)) {
        g_set_error(err, INVALID, "[faults] file '%s' cannot be read (%s); give a path "
                    "relative to the configuration file, or an absolute one", file, e->message);
        g_error_free(e);
        return FALSE;
    }
    char **lines = g_strsplit(text, "\n", -1);
    g_free(text);
    gboolean ok = TRUE;
    for (guint i = 0; lines[i] && ok; i++) {
        char *hash = strchr(lines[i], '#');
        if (hash)
            *hash = '\0';
        char *line = g_strstrip(lines[i]);
        uint32_t gp;
        if (*line && (ok = parse_line(net, file, i + 1, line, &gp, err)))
            fail_cable(net, gp);
    }
    g_strfreev(lines);
    return ok;
}

/* How many cables `links` asks for, of `cables` in the network. */
static gboolean drawn_count(double links, uint64_t cables, uint64_t *count, GError **err)
{
    if (links > 0 && links < 1) {
        *count = (uint64_t)llround(links * (double)cables);
        return TRUE;
    }
    if (links != floor(links)) {
        g_set_error(err, INVALID, "[faults] links = %g is neither a fraction in (0, 1) of the "
                    "cables nor a whole number of them", links);
        return FALSE;
    }
    *count = (uint64_t)links;
    return TRUE;
}

/* `count` cables drawn uniformly among the plugged ones, without
   replacement (a partial Fisher-Yates shuffle of the list in port order). */
static void fail_drawn(insee_net *net, uint64_t count, uint64_t seed)
{
    GArray *left = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    for (uint32_t gp = 0; gp < net->ports_total; gp++)
        if (names_cable(net, gp))
            g_array_append_val(left, gp);
    insee_rng rng;
    insee_rng_init(&rng, seed, FAULTS_STREAM);
    uint32_t *c = (uint32_t *)(void *)left->data;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t j = i + insee_rng_below(&rng, left->len - i);
        uint32_t t = c[i];
        c[i] = c[j];
        c[j] = t;
    }
    for (uint32_t i = 0; i < count; i++)
        fail_cable(net, c[i]);
    g_array_unref(left);
}

gboolean insee_net_fail_cables(insee_net *net, const insee_faults_spec *spec, GError **err)
{
    uint64_t cables = insee_net_cables(net), count = 0;
    if (!drawn_count(spec->links, cables, &count, err))
        return FALSE;
    net->failed = g_new0(uint8_t, net->ports_total + 1);
    if (spec->file && *spec->file && !fail_listed(net, spec->file, err))
        return FALSE;
    uint64_t left = cables - net->failed_cables;
    if (count > left) {
        g_set_error(err, INVALID, "[faults] links = %g asks for %" G_GUINT64_FORMAT " cables, "
                    "but the network has %" G_GUINT64_FORMAT "%s%s; lower it", spec->links, count,
                    left, net->failed_cables ? " besides those of [faults] file " : "",
                    net->failed_cables ? spec->file : "");
        return FALSE;
    }
    fail_drawn(net, count, spec->seed);
    return TRUE;
}

void insee_net_bfs(const insee_net *net, uint32_t src, uint32_t *dist, uint32_t *queue)
{
    for (uint32_t r = 0; r < net->routers; r++)
        dist[r] = INSEE_NONE;
    uint32_t head = 0, tail = 0;
    dist[src] = 0;
    queue[tail++] = src;
    while (head < tail) {
        uint32_t r = queue[head++];
        for (uint32_t gp = net->port_base[r]; gp < net->port_base[r + 1]; gp++) {
            uint32_t n = insee_net_next_router(net, gp);
            if (n != INSEE_NONE && dist[n] == INSEE_NONE) {
                dist[n] = dist[r] + 1;
                queue[tail++] = n;
            }
        }
    }
}

static uint32_t find(uint32_t *parent, uint32_t r)
{
    while (parent[r] != r) {
        parent[r] = parent[parent[r]];
        r = parent[r];
    }
    return r;
}

/* Every link has its reverse: a pair is connected when both ends lie in one
   component, so the pairs are sum over components of h (h - 1), h the
   nodes the component hosts. */
static uint64_t pairs_by_components(const insee_net *net, const uint32_t *hosted)
{
    uint32_t *parent = g_new(uint32_t, net->routers);
    uint64_t *inside = g_new0(uint64_t, net->routers);
    for (uint32_t r = 0; r < net->routers; r++)
        parent[r] = r;
    for (uint32_t gp = 0; gp < net->ports_total; gp++) {
        uint32_t n = insee_net_next_router(net, gp);
        if (n != INSEE_NONE)
            parent[find(parent, net->port_router[gp])] = find(parent, n);
    }
    for (uint32_t r = 0; r < net->routers; r++)
        inside[find(parent, r)] += hosted[r];
    uint64_t pairs = 0;
    for (uint32_t r = 0; r < net->routers; r++)
        pairs += inside[r] ? inside[r] * (inside[r] - 1) : 0;
    g_free(parent);
    g_free(inside);
    return pairs;
}

/* Some link is one-way: what a source reaches, by search. */
static uint64_t pairs_by_search(const insee_net *net, const uint32_t *hosted)
{
    uint32_t *dist = g_new(uint32_t, net->routers), *queue = g_new(uint32_t, net->routers);
    uint64_t pairs = 0;
    for (uint32_t s = 0; s < net->routers; s++) {
        if (!hosted[s])
            continue;
        insee_net_bfs(net, s, dist, queue);
        uint64_t reached = 0;
        for (uint32_t t = 0; t < net->routers; t++)
            reached += dist[t] != INSEE_NONE ? hosted[t] : 0;
        pairs += hosted[s] * (reached - 1);
    }
    g_free(dist);
    g_free(queue);
    return pairs;
}

uint64_t insee_net_connected_pairs(const insee_net *net)
{
    uint32_t *hosted = g_new0(uint32_t, net->routers);
    for (uint32_t n = 0; n < net->nodes; n++)
        hosted[net->node_router[n]]++;
    gboolean symmetric = TRUE;
    for (uint32_t gp = 0; gp < net->ports_total && symmetric; gp++)
        symmetric = net->peer_queue[gp] == INSEE_NONE || insee_net_reverse(net, gp) != INSEE_NONE;
    uint64_t pairs = symmetric ? pairs_by_components(net, hosted) : pairs_by_search(net, hosted);
    g_free(hosted);
    return pairs;
}
