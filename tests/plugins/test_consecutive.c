/* test_consecutive.c — consecutive placement: the identity when every node
 * is available, the t-th available node otherwise, an error when the tasks
 * do not fit. */
#include "harness.h"

#include <criterion/criterion.h>
#include <string.h>

typedef struct placer {
    insee_kernel k;
    insee_host host;
    const insee_placement_vtable *vt;
    void *self;
} placer;

static void placer_make(placer *p)
{
    memset(p, 0, sizeof *p);
    p->host = mock_host(&p->k);
    const insee_plugin_desc *d = load_plugin("placement", "consecutive");
    cr_assert_eq(d->kind, INSEE_KIND_PLACEMENT);
    cr_assert_null(d->params);
    p->vt = d->vtable;
    insee_error err = {0};
    p->self = p->vt->create(&p->host, NULL, &err);
    cr_assert_not_null(p->self, "%s", err.message);
}

Test(consecutive, identity_when_all_available)
{
    placer p;
    placer_make(&p);
    bool avail[64];
    uint32_t map[64];
    for (uint32_t n = 0; n < 64; n++)
        avail[n] = true;
    insee_error err = {0};
    cr_assert(p.vt->place(p.self, 64, avail, 64, map, NULL, &err), "%s", err.message);
    for (uint32_t t = 0; t < 64; t++)
        cr_assert_eq(map[t], t);
    cr_assert(p.vt->place(p.self, 10, avail, 64, map, NULL, &err));
    for (uint32_t t = 0; t < 10; t++)
        cr_assert_eq(map[t], t);
    p.vt->destroy(p.self);
}

Test(consecutive, skips_unavailable_nodes)
{
    placer p;
    placer_make(&p);
    bool avail[30];
    uint32_t map[30];
    uint32_t available = 0;
    for (uint32_t n = 0; n < 30; n++) {
        avail[n] = n % 3 != 1;
        available += avail[n];
    }
    insee_error err = {0};
    cr_assert(p.vt->place(p.self, available, avail, 30, map, NULL, &err), "%s", err.message);
    bool used[30] = {0};
    for (uint32_t t = 0; t < available; t++) {
        cr_assert_eq(map[t], t / 2 * 3 + (t % 2 ? 2 : 0)); /* 0 2 3 5 6 8 ... */
        cr_assert(avail[map[t]]);
        cr_assert(!used[map[t]]);
        used[map[t]] = true;
    }
    p.vt->destroy(p.self);
}

Test(consecutive, refuses_too_many_tasks)
{
    placer p;
    placer_make(&p);
    bool avail[8] = {true, false, true, true, false, true, true, true};
    uint32_t map[8];
    insee_error err = {0};
    cr_assert_not(p.vt->place(p.self, 7, avail, 8, map, NULL, &err));
    cr_assert_neq(err.code, INSEE_ERR_NONE);
    cr_assert_not_null(strstr(err.message, "6 available"), "%s", err.message);
    p.vt->destroy(p.self);
}
