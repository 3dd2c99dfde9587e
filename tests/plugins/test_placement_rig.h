/* test_placement_rig.h — what the placement tests share: a placement
 * instance on the mock host, place() with a seeded stream, and the
 * contract's check that a mapping is a bijection onto available nodes. */
#ifndef INSEE_TEST_PLACEMENT_RIG_H
#define INSEE_TEST_PLACEMENT_RIG_H

#include "harness.h"

typedef struct placer {
    insee_kernel k; /* set a topology or shape on it before placer_create() */
    insee_host host;
    const insee_placement_vtable *vt;
    void *self;
} placer;

/* Zero p and point its host at p->k. */
void placer_init(placer *p);
/* Load placement `name` and create an instance; false with err filled. */
bool placer_create(placer *p, const char *name, const insee_value *params, insee_error *err);
/* placer_init + placer_create, asserting that it works. */
void placer_open(placer *p, const char *name, const insee_value *params);
void placer_close(placer *p);
/* An instance on a mock torus or mesh of `dims` (for the plugins that read
   coordinates); asserts that create() works. Close with placer_close_grid(). */
void placer_open_grid(placer *p, const char *name, const insee_value *params, const char *topo,
                      const int64_t *dims, size_t n);
void placer_close_grid(placer *p);

/* place() with a stream seeded by `seed`; err is cleared first. */
bool placer_run(placer *p, uint32_t tasks, const bool *available, uint32_t nodes,
                uint32_t *task_node, uint64_t seed, insee_error *err);

/* available[n] = true for every n < nodes. */
void all_available(bool *available, uint32_t nodes);

/* Assert that task_node[0..tasks) are distinct available nodes below nodes. */
void assert_bijection(const uint32_t *task_node, uint32_t tasks, const bool *available,
                      uint32_t nodes);

/* Assert that task_node[0..n) equals expected[0..n). */
void assert_mapping(const uint32_t *task_node, const uint32_t *expected, uint32_t n);

/* `apps` applications of `tasks` each placed in turn on `nodes` free nodes,
   each taking the nodes the previous ones left: application a gets
   expected[a * tasks ...] exactly. */
void assert_applications_in_turn(placer *p, uint32_t apps, uint32_t tasks, uint32_t nodes,
                                 const uint32_t *expected);

/* Place 1, 2, ... up to every available task on `nodes` nodes, all free and
   with every third node taken, asserting a bijection each time, and that
   one task more than fits fails with err filled. */
void assert_bijection_sizes(placer *p, uint32_t nodes);

#endif
