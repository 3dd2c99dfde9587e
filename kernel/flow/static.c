/* kernel/flow/static.c — INRFlow's static engine (its §3.1, figures of §4):
 * every flow of the workload routed at once, each directed link's capacity
 * shared equally by the flows that cross it.
 *
 * Two passes over the same flows (the same streams give the same rounds and
 * salts): the first counts the flows on each link, the second gives each
 * flow the rate of its most loaded link for the non-restricted throughput.
 * Walking twice costs time but keeps memory at one counter per link, never
 * a stored path per flow (docs/flow.md §6). A flow split over several
 * paths (a multipath routing) counts its share on each path's links, and
 * each share runs at share / (its path's most loaded link). */
#include "flow/flow.h"

#include <math.h>
#include <stdlib.h>

#include "flow/paths.h"

G_DEFINE_QUARK(insee-flow-error-quark, insee_flow_error)

/* What a pass needs while round() hands it messages. */
typedef struct pass {
    const insee_flow_setup *s;
    insee_flow_paths *paths;
    gboolean second;
    double *load;             /* per link (paths.h numbers them) */
    const insee_flow_app *app;
    uint32_t src_task;        /* the application's own task number */
    uint32_t src, dst;        /* the flow's nodes */
    insee_rng salt_rng;       /* the source task's salts */
    insee_flow_report *rep;
    GArray *hops_hist;        /* double, first pass */
    double hops_sum;
    double non_restricted;    /* second pass */
    GError *error;            /* the first failure; later messages are ignored */
} pass;

/* One path of the flow, router ports `ports`, carrying `share` of it. */
static void take_path(void *ctx, const uint32_t *ports, uint32_t hops, double share)
{
    pass *p = ctx;
    const insee_net *net = p->s->net;
    if (p->second) {
        double worst = MAX(p->load[insee_flow_link_in(net, p->src)],
                           p->load[insee_flow_link_out(net, p->dst)]);
        for (uint32_t i = 0; i < hops; i++)
            worst = MAX(worst, p->load[ports[i]]);
        p->non_restricted += share / worst;
        return;
    }
    for (uint32_t i = 0; i < hops; i++)
        p->load[ports[i]] += share;
    if (p->hops_hist->len <= hops)
        g_array_set_size(p->hops_hist, hops + 1);
    g_array_index(p->hops_hist, double, hops) += share;
    p->hops_sum += hops * share;
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
    p->src = p->s->task_node[app->first_task + p->src_task];
    p->dst = p->s->task_node[app->first_task + msg->dst];
    uint32_t salt = (uint32_t)insee_rng_u64(&p->salt_rng);
    if (p->src == p->dst) {
        p->rep->self_flows += !p->second;
        return;
    }
    uint32_t paths;
    if (!insee_flow_paths_route(p->paths, p->src, p->dst, salt, take_path, p, &paths, &p->error) ||
        p->second)
        return;
    if (paths == 0) {
        p->rep->unroutable++;
        return;
    }
    const insee_net *net = p->s->net;
    p->load[insee_flow_link_in(net, p->src)]++;
    p->load[insee_flow_link_out(net, p->dst)]++;
    p->rep->flows++;
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

static int compare_loads(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Flows per link: min, max, median from the sorted loads; mean, std; the
   histogram by whole flows. */
static void link_figures(const insee_net *net, const double *load, insee_flow_report *rep)
{
    uint32_t n = insee_flow_links(net);
    double *sorted = g_new(double, n);
    double sum = 0, sq = 0;
    for (uint32_t l = 0; l < n; l++) {
        if (!link_counted(net, l))
            continue;
        sorted[rep->links++] = load[l];
        sum += load[l];
        sq += load[l] * load[l];
    }
    qsort(sorted, rep->links, sizeof *sorted, compare_loads);
    rep->load_min = sorted[0];
    rep->load_max = sorted[rep->links - 1];
    rep->load_median = (sorted[(rep->links - 1) / 2] + sorted[rep->links / 2]) / 2;
    rep->load_mean = sum / (double)rep->links;
    double var = sq / (double)rep->links - rep->load_mean * rep->load_mean;
    rep->load_std = var > 0 ? sqrt(var) : 0;
    rep->load_hist = g_new0(uint64_t, (gsize)rep->load_max + 1);
    for (uint64_t i = 0; i < rep->links; i++)
        rep->load_hist[(gsize)sorted[i]]++;
    g_free(sorted);
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
    pass p = {.s = setup, .rep = rep, .hops_hist = g_array_new(FALSE, TRUE, sizeof(double)),
              .load = g_new0(double, insee_flow_links(net)),
              .paths = insee_flow_paths_new(setup, err)};
    gboolean ok = p.paths && run_pass(&p, err);
    if (ok) {
        link_figures(net, p.load, rep);
        rep->hops_mean = rep->flows ? p.hops_sum / (double)rep->flows : 0;
        rep->hops_max = p.hops_hist->len ? p.hops_hist->len - 1 : 0;
        rep->hops_hist = (double *)g_array_steal(p.hops_hist, NULL);
        rep->restricted = rep->load_max > 0 ? (double)rep->flows / rep->load_max : 0;
        p.second = TRUE;
        ok = run_pass(&p, err);
        rep->non_restricted = p.non_restricted;
    }
    insee_flow_paths_free(p.paths);
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
