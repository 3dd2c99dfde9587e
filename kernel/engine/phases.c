/* kernel/engine/phases.c — the run phases of INSEE §3.2.1.
 *
 * Fixed: warm-up, then the measurement window [warmup, warmup + cycles).
 * Converge (INSEE's batch mode): after the warm-up, every `window` cycles
 * the accepted load and the mean latency of that window are compared with
 * the previous window's; `needed` windows in a row within `tolerance` (both
 * figures) mean the network has reached its steady state. After `max`
 * cycles without it the run goes on anyway, reported as not converged.
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

void insee_phases_window(insee_engine *eng, uint64_t start, uint64_t end)
{
    eng->window_start = start;
    eng->window_end = end;
    eng->drain_limit = end == INSEE_NEVER ? INSEE_NEVER : end + eng->drain;
    insee_stats_set_window(&eng->stats, start, end);
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

static void convergence_check(insee_engine *eng)
{
    insee_phases *ph = &eng->phases;
    insee_window w = insee_stats_phase_window(&eng->stats);
    double load = insee_load(w.delivered, eng->packet_phits, eng->net.nodes, ph->window);
    double latency = insee_window_latency(&w);
    gboolean same = ph->have_prev && agree(load, ph->prev_load, ph->tolerance) &&
                    agree(latency, ph->prev_latency, ph->tolerance);
    ph->agree = same ? ph->agree + 1 : 0;
    ph->prev_load = load;
    ph->prev_latency = latency;
    ph->have_prev = TRUE;
    gboolean timeout = eng->now - ph->warmup >= ph->max;
    if (ph->agree < ph->needed && !timeout) {
        ph->next = eng->now + ph->window;
        return;
    }
    eng->report.converged = ph->agree >= ph->needed;
    uint64_t start = (eng->now + ph->batch_cycles - 1) / ph->batch_cycles * ph->batch_cycles;
    eng->report.convergence_cycles = start - ph->warmup;
    insee_phases_window(eng, start, start + (uint64_t)ph->batches * ph->batch_cycles);
    ph->next = start;
}

static void record_batch(insee_engine *eng)
{
    insee_window w = insee_stats_phase_window(&eng->stats);
    uint64_t cycles = eng->phases.batch_cycles;
    insee_report *rep = &eng->report;
    insee_batch b = {
        .accepted_load = insee_load(w.delivered, eng->packet_phits, eng->net.nodes, cycles),
        .generated_load = insee_load(w.generated, eng->packet_phits, eng->net.nodes, cycles),
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
                convergence_check(eng);
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
    }
}
