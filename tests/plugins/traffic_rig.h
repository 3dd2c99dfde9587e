/* traffic_rig.h — what the tests of the independent-source traffic plugins
 * share: an instance on the mock host (tasks alone, or one per node of a
 * torus), parameter values from a plugin's own table set by name, a task
 * driven the way the kernel drives it, and binomial bounds for counts of
 * random events. */
#ifndef INSEE_TEST_PLUGINS_TRAFFIC_RIG_H
#define INSEE_TEST_PLUGINS_TRAFFIC_RIG_H

#include "harness.h"

typedef struct traffic_rig {
    insee_kernel k;
    insee_host host;
    bool topology; /* a torus answers the topology queries */
    bool self_ok;  /* rig_run() accepts a message to the sending task */
    bool long_ok;  /* rig_run() accepts messages of more than one packet */
    uint64_t packets; /* packets of every message rig_run() has seen */
    /* Called by rig_run() for every message (NULL: none). */
    void (*seen)(void *user, uint32_t task, uint64_t cycle, const insee_message *m);
    void *user;
    const insee_traffic_vtable *vt;
    void *self;
} traffic_rig;

/* The parameter values of a plugin, in its table's order: every default,
   then those a test sets by name. Strings point into the struct. */
#define RIG_MAX_PARAMS 32
typedef struct rig_params {
    const insee_plugin_desc *desc;
    insee_value v[RIG_MAX_PARAMS];
    char text[RIG_MAX_PARAMS][64];
    int64_t list[RIG_MAX_PARAMS][8];
} rig_params;

/* The defaults of traffic plugin `name` (a required parameter is left
   zero for the test to set). */
void rig_defaults(rig_params *p, const char *name);
/* Set parameter `key` (which must exist) to v. */
void rig_set(rig_params *p, const char *key, insee_value v);
/* Set ENUM parameter `key` to its choice `choice`, STRING `key` to `text`. */
void rig_set_choice(rig_params *p, const char *key, const char *choice);
void rig_set_string(rig_params *p, const char *key, const char *text);
/* The defaults of traffic plugin `name` with its first n values replaced by
   lead[0..n): p->v, for a table whose leading entries a test gives in order. */
const insee_value *rig_with(rig_params *p, const char *name, const insee_value *lead, size_t n);
/* Assert that d's table holds, from entry `first` on, the entries every
   plugin sending at a load shares (process and message length), then ends. */
void rig_assert_source_params(const insee_plugin_desc *d, size_t first);

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
   (one packet unless long_ok, to another task unless self_ok, next > now);
   counts messages per destination into per_dst (NULL: not counted) and
   their packets into r->packets. Returns the messages. */
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
