/* test_placement_rig.c — see test_placement_rig.h. */
#include "test_placement_rig.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

void placer_init(placer *p)
{
    memset(p, 0, sizeof *p);
    p->host = mock_host(&p->k);
}

bool placer_create(placer *p, const char *name, const insee_value *params, insee_error *err)
{
    const insee_plugin_desc *d = load_plugin("placement", name);
    cr_assert_eq(d->kind, INSEE_KIND_PLACEMENT);
    p->vt = d->vtable;
    *err = (insee_error){0};
    p->self = p->vt->create(&p->host, params, err);
    return p->self != NULL;
}

void placer_open(placer *p, const char *name, const insee_value *params)
{
    placer_init(p);
    insee_error err;
    cr_assert(placer_create(p, name, params, &err), "%s create: %s", name, err.message);
}

void placer_close(placer *p)
{
    p->vt->destroy(p->self);
}

void placer_open_grid(placer *p, const char *name, const insee_value *params, const char *topo,
                      const int64_t *dims, size_t n)
{
    placer_init(p);
    mock_topology(&p->k, topo, dims, n, true);
    insee_error err;
    cr_assert(placer_create(p, name, params, &err), "%s", err.message);
}

void placer_close_grid(placer *p)
{
    placer_close(p);
    mock_topology_free(&p->k);
}

void assert_applications_in_turn(placer *p, uint32_t apps, uint32_t tasks, uint32_t nodes,
                                 const uint32_t *expected)
{
    bool *avail = calloc(nodes, sizeof *avail);
    uint32_t *map = calloc(tasks, sizeof *map);
    cr_assert(avail && map);
    all_available(avail, nodes);
    insee_error err;
    for (uint32_t a = 0; a < apps; a++) {
        cr_assert(placer_run(p, tasks, avail, nodes, map, 1, &err), "%s", err.message);
        assert_mapping(map, expected + (size_t)a * tasks, tasks);
        for (uint32_t t = 0; t < tasks; t++)
            avail[map[t]] = false;
    }
    free(avail);
    free(map);
}

bool placer_run(placer *p, uint32_t tasks, const bool *available, uint32_t nodes,
                uint32_t *task_node, uint64_t seed, insee_error *err)
{
    insee_rng rng;
    insee_rng_init(&rng, seed, 1);
    *err = (insee_error){0};
    return p->vt->place(p->self, tasks, available, nodes, task_node, &rng, err);
}

void all_available(bool *available, uint32_t nodes)
{
    for (uint32_t n = 0; n < nodes; n++)
        available[n] = true;
}

void assert_bijection(const uint32_t *task_node, uint32_t tasks, const bool *available,
                      uint32_t nodes)
{
    bool *used = calloc(nodes, sizeof *used);
    cr_assert_not_null(used);
    for (uint32_t t = 0; t < tasks; t++) {
        uint32_t n = task_node[t];
        cr_assert_lt(n, nodes, "task %u on node %u of %u", t, n, nodes);
        cr_assert(available[n], "task %u on node %u, not available", t, n);
        cr_assert_not(used[n], "task %u on node %u, already used", t, n);
        used[n] = true;
    }
    free(used);
}

void assert_mapping(const uint32_t *task_node, const uint32_t *expected, uint32_t n)
{
    for (uint32_t t = 0; t < n; t++)
        cr_assert_eq(task_node[t], expected[t], "task %u on node %u, expected %u", t,
                     task_node[t], expected[t]);
}

void assert_bijection_sizes(placer *p, uint32_t nodes)
{
    bool *available = malloc(sizeof *available * nodes);
    uint32_t *map = malloc(sizeof *map * (nodes + 1));
    cr_assert(available && map);
    for (int pattern = 0; pattern < 2; pattern++) {
        uint32_t free_nodes = 0;
        for (uint32_t n = 0; n < nodes; n++) {
            available[n] = pattern == 0 || n % 3 != 1;
            free_nodes += available[n];
        }
        insee_error err;
        for (uint32_t tasks = 1; tasks <= free_nodes; tasks++) {
            cr_assert(placer_run(p, tasks, available, nodes, map, tasks, &err),
                      "%u tasks on %u free of %u nodes: %s", tasks, free_nodes, nodes, err.message);
            assert_bijection(map, tasks, available, nodes);
        }
        cr_assert_not(placer_run(p, free_nodes + 1, available, nodes, map, 1, &err));
        cr_assert_neq(err.code, INSEE_ERR_NONE);
        cr_assert_neq(err.message[0], '\0');
    }
    free(available);
    free(map);
}
