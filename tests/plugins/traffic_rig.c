/* traffic_rig.c — mock host and driver for the traffic plugin tests. */
#include "traffic_rig.h"

#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

void rig_tasks(traffic_rig *r, uint32_t tasks, uint32_t L)
{
    memset(r, 0, sizeof *r);
    r->k.seed = 42;
    r->k.shape.tasks = tasks;
    r->k.shape.nodes = tasks;
    r->k.shape.packet_phits = L;
    r->host = mock_host(&r->k);
}

void rig_torus(traffic_rig *r, const int64_t *dims, size_t n, uint32_t L)
{
    rig_tasks(r, 0, L);
    mock_topology(&r->k, "torus", dims, n, true);
    r->k.shape.tasks = r->k.shape.nodes;
    r->topology = true;
}

void *rig_try(traffic_rig *r, const char *name, const insee_value *params, insee_error *err)
{
    const insee_plugin_desc *d = load_plugin("traffic", name);
    cr_assert_eq(d->kind, INSEE_KIND_TRAFFIC);
    r->vt = d->vtable;
    return r->self = r->vt->create(&r->host, params, err);
}

void rig_create(traffic_rig *r, const char *name, const insee_value *params)
{
    insee_error err = {0};
    cr_assert_not_null(rig_try(r, name, params, &err), "%s: %s", name, err.message);
}

void rig_free(traffic_rig *r)
{
    if (r->self)
        r->vt->destroy(r->self);
    if (r->topology)
        mock_topology_free(&r->k);
}

uint64_t rig_run(traffic_rig *r, uint32_t task, uint64_t cycles, uint64_t *per_dst)
{
    insee_rng rng;
    r->host.rng_seed(r->host.kernel, task, &rng); /* a stream per task, as the kernel */
    uint64_t sent = 0;
    for (uint64_t t = r->vt->start(r->self, task, &rng); t < cycles;) {
        insee_message m;
        uint64_t next;
        cr_assert(r->vt->emit(r->self, task, t, &rng, &m, &next));
        cr_assert_gt(next, t);
        cr_assert_eq(m.packets, 1u);
        cr_assert_lt(m.dst, r->k.shape.tasks);
        cr_assert(r->self_ok || m.dst != task, "task %u sent to itself", task);
        if (per_dst)
            per_dst[m.dst]++;
        sent++;
        t = next;
    }
    return sent;
}

uint64_t rig_run_all(traffic_rig *r, uint64_t cycles)
{
    uint64_t sent = 0;
    for (uint32_t task = 0; task < r->k.shape.tasks; task++)
        sent += rig_run(r, task, cycles, NULL);
    return sent;
}

uint32_t rig_first_dst(traffic_rig *r, uint32_t task)
{
    insee_rng rng;
    r->host.rng_seed(r->host.kernel, task, &rng);
    uint64_t t = r->vt->start(r->self, task, &rng);
    if (t == INSEE_NEVER)
        return UINT32_MAX;
    insee_message m;
    uint64_t next;
    cr_assert(r->vt->emit(r->self, task, t, &rng, &m, &next));
    return m.dst;
}

void rig_assert_binomial(uint64_t hits, uint64_t n, double p, const char *what)
{
    double mean = (double)n * p, sd = sqrt((double)n * p * (1 - p));
    cr_assert(fabs((double)hits - mean) <= 5 * sd + 1,
              "%s: %lu of %lu, expected %.1f +- %.1f (5 sd)", what, (unsigned long)hits,
              (unsigned long)n, mean, 5 * sd);
}
