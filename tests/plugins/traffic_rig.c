/* traffic_rig.c — mock host and driver for the traffic plugin tests. */
#include "traffic_rig.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
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
        cr_assert(m.packets == 1 || (r->long_ok && m.packets > 1), "a message of %u packets",
                  m.packets);
        cr_assert_lt(m.dst, r->k.shape.tasks);
        cr_assert(r->self_ok || m.dst != task, "task %u sent to itself", task);
        if (per_dst)
            per_dst[m.dst]++;
        if (r->seen)
            r->seen(r->user, task, t, &m);
        r->packets += m.packets;
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

/* Index of `key` in p's table. */
static size_t param_index(const rig_params *p, const char *key)
{
    for (size_t i = 0; p->desc->params[i].name; i++)
        if (strcmp(p->desc->params[i].name, key) == 0)
            return i;
    cr_assert_fail("%s has no parameter '%s'", p->desc->name, key);
    return 0;
}

/* `text` without its TOML quotes into p->text[i]; v.s points at it. */
static void set_text(rig_params *p, size_t i, const char *text)
{
    size_t n = strlen(text);
    if (n >= 2 && text[0] == '"') {
        text++;
        n -= 2;
    }
    cr_assert_lt(n, sizeof p->text[i]);
    memmove(p->text[i], text, n); /* text may be p->text[i] itself */
    p->text[i][n] = '\0';
    p->v[i].s = p->text[i];
}

void rig_defaults(rig_params *p, const char *name)
{
    memset(p, 0, sizeof *p);
    p->desc = load_plugin("traffic", name);
    for (size_t i = 0; p->desc->params[i].name; i++) {
        cr_assert_lt(i, RIG_MAX_PARAMS - 1);
        const insee_param_def *d = &p->desc->params[i];
        p->v[i].type = d->type;
        if (!d->default_value)
            continue;
        switch (d->type) {
        case INSEE_PARAM_BOOL:
            p->v[i].b = strcmp(d->default_value, "true") == 0;
            break;
        case INSEE_PARAM_INT:
            p->v[i].i = strtoll(d->default_value, NULL, 10);
            p->v[i].d = (double)p->v[i].i;
            break;
        case INSEE_PARAM_DOUBLE:
            p->v[i].d = strtod(d->default_value, NULL);
            break;
        case INSEE_PARAM_STRING:
        case INSEE_PARAM_PATH:
            set_text(p, i, d->default_value);
            break;
        case INSEE_PARAM_ENUM:
            set_text(p, i, d->default_value);
            rig_set_choice(p, d->name, p->text[i]);
            break;
        case INSEE_PARAM_INT_LIST: {
            const char *c = d->default_value + 1; /* after '[' */
            while (*c && *c != ']') {
                cr_assert_lt(p->v[i].list_len, 8u);
                char *end;
                p->list[i][p->v[i].list_len++] = strtoll(c, &end, 10);
                c = end + strspn(end, ", ");
            }
            p->v[i].list = p->list[i];
            break;
        }
        }
    }
}

void rig_set(rig_params *p, const char *key, insee_value v)
{
    p->v[param_index(p, key)] = v;
}

void rig_set_choice(rig_params *p, const char *key, const char *choice)
{
    size_t i = param_index(p, key);
    const char *choices = p->desc->params[i].choices;
    size_t n = strlen(choice);
    int64_t index = 0;
    for (const char *c = choices; *c; index++) {
        size_t len = strcspn(c, "|");
        if (len == n && strncmp(c, choice, n) == 0) {
            set_text(p, i, choice);
            p->v[i].i = index;
            return;
        }
        c += len + (c[len] == '|');
    }
    cr_assert_fail("%s.%s has no choice '%s' (%s)", p->desc->name, key, choice, choices);
}

void rig_set_string(rig_params *p, const char *key, const char *text)
{
    set_text(p, param_index(p, key), text);
}

const insee_value *rig_with(rig_params *p, const char *name, const insee_value *lead, size_t n)
{
    rig_defaults(p, name);
    for (size_t i = 0; i < n; i++) {
        cr_assert_not_null(p->desc->params[i].name);
        p->v[i] = lead[i];
    }
    return p->v;
}

void rig_assert_source_params(const insee_plugin_desc *d, size_t first)
{
    static const char *const names[] = {
        "process",           "burst_on",   "burst_off",  "length_dist", "message_bytes",
        "message_bytes_min", "message_bytes_max", "long_bytes", "long_share",
    };
    size_t n = sizeof names / sizeof names[0];
    for (size_t i = 0; i < n; i++) {
        cr_assert_not_null(d->params[first + i].name, "%s: entry %zu missing", d->name, first + i);
        cr_assert_str_eq(d->params[first + i].name, names[i]);
    }
    cr_assert_null(d->params[first + n].name, "%s: more entries after long_share", d->name);
}
