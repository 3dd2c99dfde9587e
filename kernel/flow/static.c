/* kernel/flow/static.c — INRFlow's static engine (its §3.1, figures of §4):
 * every flow of the workload routed at once, each directed link's capacity
 * shared equally by the flows that cross it.
 *
 * Two passes over the same flows (the same streams give the same rounds and
 * salts): the first counts the flows on each link, the second gives each
 * flow the rate of its most loaded link for the non-restricted throughput.
 * Walking twice costs time but keeps memory at one counter per link, never
 * a stored path per flow (docs/flow.md, "scale"). */
#include "flow/flow.h"

#include <math.h>

#include "flow/walk.h"

G_DEFINE_QUARK(insee-flow-error-quark, insee_flow_error)

/* What a pass needs while round() hands it messages. */
typedef struct pass {
    const insee_flow_setup *s;
    insee_flow_walker *walker;
    gboolean second;
    uint32_t *load;           /* per link: plugged network ports, then node in, node out */
    GArray *path;             /* the flow being routed: its global ports */
    const insee_flow_app *app;
    uint32_t src_task;        /* the application's own task number */
    insee_rng salt_rng;       /* the source task's salts */
    insee_flow_report *rep;
    GArray *hops_hist;        /* uint64_t, first pass */
    double hops_sum;
    double non_restricted;    /* second pass */
    GError *error;            /* the first failure; later messages are ignored */
} pass;

static uint32_t node_in(const insee_net *net, uint32_t node)
{
    return net->ports_total + node;
}

static uint32_t node_out(const insee_net *net, uint32_t node)
{
    return net->ports_total + net->nodes + node;
}

static void count_path(pass *p, uint32_t src, uint32_t dst)
{
    const insee_net *net = p->s->net;
    p->load[node_in(net, src)]++;
    p->load[node_out(net, dst)]++;
    for (guint i = 0; i < p->path->len; i++)
        p->load[g_array_index(p->path, uint32_t, i)]++;
    guint hops = p->path->len;
    if (p->hops_hist->len <= hops)
        g_array_set_size(p->hops_hist, hops + 1);
    g_array_index(p->hops_hist, uint64_t, hops)++;
    p->hops_sum += hops;
    p->rep->flows++;
}

static void rate_path(pass *p, uint32_t src, uint32_t dst)
{
    const insee_net *net = p->s->net;
    uint32_t worst = MAX(p->load[node_in(net, src)], p->load[node_out(net, dst)]);
    for (guint i = 0; i < p->path->len; i++)
        worst = MAX(worst, p->load[g_array_index(p->path, uint32_t, i)]);
    p->non_restricted += 1.0 / worst;
}

static void add_flow(void *ctx, const insee_message *msg)
{
    pass *p = ctx;
    if (p->error)
        return;
    const insee_flow_app *app = p->app;
    if (msg->dst >= app->tasks) {
        g_set_error(&p->error, INSEE_FLOW_ERROR, INSEE_FLOW_ERROR_PLUGIN,
                    "traffic plugin '%s' gave task %u a flow to task %u, but the application "
                    "has %u tasks", app->plugin, p->src_task, msg->dst, app->tasks);
        return;
    }
    uint32_t src = p->s->task_node[app->first_task + p->src_task];
    uint32_t dst = p->s->task_node[app->first_task + msg->dst];
    uint32_t salt = (uint32_t)insee_rng_u64(&p->salt_rng);
    if (src == dst) {
        p->rep->self_flows += !p->second;
        return;
    }
    gboolean routable;
    if (!insee_flow_walk(p->walker, src, dst, salt, p->path, &routable, &p->error))
        return;
    if (!routable)
        p->rep->unroutable += !p->second;
    else if (!p->second && p->rep->flows >= UINT32_MAX)
        g_set_error(&p->error, INSEE_FLOW_ERROR, INSEE_FLOW_ERROR_LIMIT,
                    "the workload has more than %u flows, more than a link's counter holds; "
                    "lower [flow] rounds or use fewer tasks", UINT32_MAX);
    else if (p->second)
        rate_path(p, src, dst);
    else
        count_path(p, src, dst);
}

/* Every task of every application, `rounds` rounds each, from its own
   streams: the same messages in both passes. */
static gboolean run_pass(pass *p, GError **err)
{
    const insee_flow_setup *s = p->s;
    for (uint32_t a = 0; a < s->n_apps && !p->error; a++) {
        p->app = &s->apps[a];
        for (uint32_t t = 0; t < p->app->tasks && !p->error; t++) {
            uint32_t task = p->app->first_task + t;
            insee_rng rng;
            insee_rng_init(&rng, s->seed, (4ull << 40) + task);
            insee_rng_init(&p->salt_rng, s->seed, (7ull << 40) + 1 + task);
            p->src_task = t;
            for (uint32_t r = 0; r < s->rounds && !p->error; r++)
                p->app->traffic->round(p->app->self, t, &rng, add_flow, p);
        }
    }
    if (p->error) {
        g_propagate_error(err, p->error);
        p->error = NULL;
        return FALSE;
    }
    return TRUE;
}

static gboolean link_counted(const insee_net *net, uint32_t l)
{
    return l >= net->ports_total || net->peer_queue[l] != INSEE_NONE;
}

/* Flows per link: min, mean, std, the histogram and its median. */
static void link_figures(const insee_net *net, const uint32_t *load, insee_flow_report *rep)
{
    uint32_t n = net->ports_total + 2 * net->nodes;
    double sum = 0, sq = 0;
    rep->load_min = UINT32_MAX;
    for (uint32_t l = 0; l < n; l++) {
        if (!link_counted(net, l))
            continue;
        rep->links++;
        rep->load_min = MIN(rep->load_min, load[l]);
        rep->load_max = MAX(rep->load_max, load[l]);
        sum += load[l];
        sq += (double)load[l] * load[l];
    }
    rep->load_hist = g_new0(uint64_t, (gsize)rep->load_max + 1);
    for (uint32_t l = 0; l < n; l++)
        if (link_counted(net, l))
            rep->load_hist[load[l]]++;
    rep->load_mean = sum / (double)rep->links;
    double var = sq / (double)rep->links - rep->load_mean * rep->load_mean;
    rep->load_std = var > 0 ? sqrt(var) : 0;
    /* The median of the sorted loads: the middle one, or the mean of the
       two middle ones. */
    uint64_t lo = (rep->links - 1) / 2, hi = rep->links / 2, seen = 0;
    double m_lo = 0, m_hi = 0;
    for (uint32_t k = 0; k <= rep->load_max; k++) {
        if (seen <= lo && lo < seen + rep->load_hist[k])
            m_lo = k;
        if (seen <= hi && hi < seen + rep->load_hist[k])
            m_hi = k;
        seen += rep->load_hist[k];
    }
    rep->load_median = (m_lo + m_hi) / 2;
    rep->ports = rep->links - net->nodes; /* each node's two links meet one router port */
}

gboolean insee_flow_static_run(const insee_flow_setup *setup, insee_flow_report *rep,
                               GError **err)
{
    for (uint32_t a = 0; a < setup->n_apps; a++) {
        if (!setup->apps[a].traffic->round) {
            g_set_error(err, INSEE_FLOW_ERROR, INSEE_FLOW_ERROR_UNSUPPORTED,
                        "traffic plugin '%s' cannot give its messages as flows (it has no "
                        "round() entry, ABI 1.7), so engine = \"static\" cannot run it; use "
                        "a pattern that has one (docs/flow.md lists them) or the packet engine",
                        setup->apps[a].plugin);
            return FALSE;
        }
    }
    const insee_net *net = setup->net;
    *rep = (insee_flow_report){0};
    pass p = {.s = setup, .rep = rep, .path = g_array_new(FALSE, FALSE, sizeof(uint32_t)),
              .hops_hist = g_array_new(FALSE, TRUE, sizeof(uint64_t)),
              .load = g_new0(uint32_t, (gsize)net->ports_total + 2 * net->nodes)};
    p.walker = insee_flow_walker_new(setup, err);
    gboolean ok = p.walker && run_pass(&p, err);
    if (ok) {
        link_figures(net, p.load, rep);
        rep->hops_mean = rep->flows ? p.hops_sum / (double)rep->flows : 0;
        rep->hops_max = p.hops_hist->len ? p.hops_hist->len - 1 : 0;
        rep->hops_hist = (uint64_t *)g_array_steal(p.hops_hist, NULL);
        rep->restricted = rep->load_max ? (double)rep->flows / rep->load_max : 0;
        p.second = TRUE;
        ok = run_pass(&p, err);
        rep->non_restricted = p.non_restricted;
    }
    insee_flow_walker_free(p.walker);
    g_array_unref(p.path);
    g_array_unref(p.hops_hist);
    g_free(p.load);
    return ok;
}

void insee_flow_report_clear(insee_flow_report *rep)
{
    g_free(rep->load_hist);
    g_free(rep->hops_hist);
    *rep = (insee_flow_report){0};
}
