/* kernel/engine/phases.c — the run phases of INSEE §3.2.1.
 *
 * Fixed: warm-up, then the measurement window [warmup, warmup + cycles).
 * Converge (INSEE's batch mode): after the warm-up, every `window` cycles
 * the accepted load and the mean latency of that window are compared with
 * the previous window's; `needed` windows in a row within `tolerance` (both
 * figures) mean the network has reached its steady state. After max/window
 * windows without it the run goes on anyway, reported as not converged.
 * Unlike INSEE, a window lasts on, a `window` at a time, until the network
 * has delivered `window_packets` in it: the relative noise of a window's
 * figures is about 1/sqrt(packets), so with windows of cycles a 16-node
 * network at low load (50 packets a window) would never converge within 5 %
 * while 16 k nodes always do; with windows of packets the criterion means
 * the same on both.
 * As in INSEE, measurement then starts on the next multiple of
 * `batch_cycles`, and `batches` batches of that length are measured; each
 * batch's figures feed the mean, deviation and confidence interval of the
 * report. Until the window is known it sits at INSEE_NEVER, so nothing
 * before it is measured and generation goes on.
 * A causal run (traces, kernels) measures from cycle 0 to completion and
 * has no phases of its own.
 */
#include <math.h>

#include "engine/engine.h"
#include "engine/partition.h"

void insee_phases_window(insee_engine *eng, uint64_t start, uint64_t end)
{
    eng->window_start = start;
    eng->window_end = end;
    eng->drain_limit = end == INSEE_NEVER ? INSEE_NEVER : end + eng->drain;
    insee_stats_set_window(&eng->stats, start, end);
    insee_workload_window(&eng->wl, start, end);
}

void insee_phases_start(insee_engine *eng)
{
    insee_phases *ph = &eng->phases;
    ph->next = INSEE_NEVER;
    if (eng->causal) { /* from cycle 0 until every causal application is done */
        insee_phases_window(eng, 0, eng->max_cycles);
        eng->drain_limit = eng->max_cycles;
        return;
    }
    if (ph->mode == INSEE_RUN_FIXED) {
        insee_phases_window(eng, ph->warmup, ph->warmup + ph->cycles);
        return;
    }
    insee_phases_window(eng, INSEE_NEVER, INSEE_NEVER);
    ph->phase = INSEE_PHASE_WARMUP;
    ph->next = ph->warmup;
    eng->report.batch_cycles = ph->batch_cycles;
}

/* Two successive windows agree: relative difference below the tolerance,
   measured against the newer one (as INSEE does); two empty windows agree. */
static gboolean agree(double cur, double prev, double tolerance)
{
    if (isnan(cur) || isnan(prev))
        return isnan(cur) && isnan(prev);
    if (cur == 0)
        return prev == 0;
    return fabs((cur - prev) / cur) < tolerance;
}

/* The current window's figures: in a partitioned run, every part's (the
   parts reach each boundary at the same cycle, and so decide alike). */
static insee_window phase_window(insee_engine *eng)
{
    insee_window w = insee_stats_phase_window(&eng->stats);
    if (eng->part)
        insee_partition_sum_window(eng->part, &w);
    return w;
}

/* A window that has delivered (almost) nothing still ends after this many
   `window`s, so that an idle network reaches its measurement. */
#define WINDOW_STRETCH 100

/* At a window's boundary: compares it with the previous one when it holds
   enough packets, and returns FALSE when it goes on instead. */
static gboolean convergence_check(insee_engine *eng)
{
    insee_phases *ph = &eng->phases;
    insee_window w = phase_window(eng);
    uint64_t cycles = eng->now - ph->window_from;
    if (w.delivered < ph->window_packets && cycles < WINDOW_STRETCH * ph->window) {
        ph->next = eng->now + ph->window;
        return FALSE;
    }
    double load = insee_load(w.delivered_phits, eng->net.nodes, cycles);
    double latency = insee_window_latency(&w);
    gboolean same = ph->have_prev && agree(load, ph->prev_load, ph->tolerance) &&
                    agree(latency, ph->prev_latency, ph->tolerance);
    ph->agree = same ? ph->agree + 1 : 0;
    ph->prev_load = load;
    ph->prev_latency = latency;
    ph->have_prev = TRUE;
    ph->windows++;
    gboolean timeout = ph->windows * ph->window >= ph->max;
    if (ph->agree < ph->needed && !timeout) {
        ph->next = eng->now + ph->window;
        return TRUE;
    }
    eng->report.converged = ph->agree >= ph->needed;
    eng->report.convergence_windows = ph->windows;
    uint64_t start = (eng->now + ph->batch_cycles - 1) / ph->batch_cycles * ph->batch_cycles;
    eng->report.convergence_cycles = start - ph->warmup;
    insee_phases_window(eng, start, start + (uint64_t)ph->batches * ph->batch_cycles);
    ph->next = start;
    return TRUE;
}

uint64_t insee_phases_longest(const insee_engine *eng)
{
    const insee_phases *ph = &eng->phases;
    if (eng->causal)
        return eng->max_cycles;
    double cycles = (double)ph->warmup + (double)eng->drain;
    if (ph->mode == INSEE_RUN_FIXED) {
        cycles += (double)ph->cycles;
    } else {
        double windows = ceil((double)ph->max / (double)ph->window);
        double stretch = ph->window_packets ? WINDOW_STRETCH : 1;
        cycles += windows * stretch * (double)ph->window +
                  (1.0 + ph->batches) * (double)ph->batch_cycles;
    }
    return cycles >= 1.8e19 ? UINT64_MAX : (uint64_t)cycles;
}

static void record_batch(insee_engine *eng)
{
    insee_window w = phase_window(eng);
    uint64_t cycles = eng->phases.batch_cycles;
    insee_report *rep = &eng->report;
    insee_batch b = {
        .accepted_load = insee_load(w.delivered_phits, eng->net.nodes, cycles),
        .generated_load = insee_load(w.generated_phits, eng->net.nodes, cycles),
        .latency_mean = insee_window_latency(&w),
        .avg_hops = w.delivered ? (double)w.hops / (double)w.delivered : NAN,
    };
    rep->batches = g_renew(insee_batch, rep->batches, rep->n_batches + 1);
    rep->batches[rep->n_batches++] = b;
}

void insee_phases_at(insee_engine *eng)
{
    insee_phases *ph = &eng->phases;
    while (eng->now >= ph->next) {
        switch (ph->phase) {
        case INSEE_PHASE_WARMUP:
            ph->phase = INSEE_PHASE_CONVERGE;
            ph->next = eng->now + ph->window;
            break;
        case INSEE_PHASE_CONVERGE:
            if (eng->window_start == INSEE_NEVER) {
                if (!convergence_check(eng))
                    continue; /* the window goes on, its counts with it */
            } else { /* the window decided has begun */
                ph->phase = INSEE_PHASE_MEASURE;
                ph->next = eng->now + ph->batch_cycles;
            }
            break;
        case INSEE_PHASE_MEASURE:
            record_batch(eng);
            ph->next = eng->now < eng->window_end ? eng->now + ph->batch_cycles : INSEE_NEVER;
            if (ph->next == INSEE_NEVER)
                ph->phase = INSEE_PHASE_DRAIN;
            break;
        case INSEE_PHASE_DRAIN:
            ph->next = INSEE_NEVER;
            break;
        }
        insee_stats_restart_phase_window(&eng->stats);
        ph->window_from = eng->now;
    }
}
