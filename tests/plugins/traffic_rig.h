/* traffic_rig.h — what the tests of the independent-source traffic plugins
 * share: an instance on the mock host (tasks alone, or one per node of a
 * torus), a task driven the way the kernel drives it, and binomial bounds
 * for counts of random events. */
#ifndef INSEE_TEST_PLUGINS_TRAFFIC_RIG_H
#define INSEE_TEST_PLUGINS_TRAFFIC_RIG_H

#include "harness.h"

typedef struct traffic_rig {
    insee_kernel k;
    insee_host host;
    bool topology; /* a torus answers the topology queries */
    bool self_ok;  /* rig_run() accepts a message to the sending task */
    const insee_traffic_vtable *vt;
    void *self;
} traffic_rig;

/* A mock of `tasks` tasks (one per node) with packets of L phits and no
   topology: shape.dims is 0. */
void rig_tasks(traffic_rig *r, uint32_t tasks, uint32_t L);
/* A mock over a torus of `dims`, one task per node, packets of L phits. */
void rig_torus(traffic_rig *r, const int64_t *dims, size_t n, uint32_t L);

/* Create traffic plugin `name` with `params` (in its table's order) on the
   mock: NULL with err filled when create() refuses. */
void *rig_try(traffic_rig *r, const char *name, const insee_value *params, insee_error *err);
/* The same, asserting that create() succeeds. */
void rig_create(traffic_rig *r, const char *name, const insee_value *params);
void rig_free(traffic_rig *r);

/* Drive `task` from start() for `cycles` cycles, checking every message
   (one packet, to another task unless self_ok, next > now); counts messages per
   destination into per_dst (NULL: not counted). Returns the messages. */
uint64_t rig_run(traffic_rig *r, uint32_t task, uint64_t cycles, uint64_t *per_dst);
/* Every task for `cycles` cycles: the messages of all. */
uint64_t rig_run_all(traffic_rig *r, uint64_t cycles);
/* The destination of the first message of `task`, or UINT32_MAX when
   start() says it never sends. */
uint32_t rig_first_dst(traffic_rig *r, uint32_t task);

/* Assert that `hits` successes in `n` trials of probability p lie within 5
   standard deviations of n p (a deterministic seed: a bound this wide only
   fails on a wrong p). */
void rig_assert_binomial(uint64_t hits, uint64_t n, double p, const char *what);

#endif
