/* instance.h — the create()/destroy() that the arbiters, selections and
 * allocations share: an instance that needs nothing but its own memory.
 * Compiled into each plugin that includes it (plugins may not call each other); static inline, so every
 * .so keeps its own hidden copy. */
#ifndef INSEE_SCHED_INSTANCE_H
#define INSEE_SCHED_INSTANCE_H

#include <insee/insee.h>

#include <stdlib.h>

/* malloc(size) for an instance of plugin `name`; NULL with err filled
   ("<name>: out of memory") when there is no memory. */
static inline void *sched_alloc(size_t size, const char *name, insee_error *err)
{
    void *self = malloc(size);
    if (!self)
        insee_error_set(err, INSEE_ERR_NOMEM, "%s: out of memory", name);
    return self;
}

/* The instance of a plugin without parameters (an arbiter's rule reads only
   the requests and the per-output state, a selection's only the queue): it
   holds just its host. */
typedef struct sched_plain {
    const insee_host *host;
} sched_plain;

static inline void *sched_plain_create(const insee_host *host, const char *name, insee_error *err)
{
    sched_plain *self = sched_alloc(sizeof *self, name, err);
    if (self)
        self->host = host;
    return self;
}

/* destroy() of any instance made by sched_alloc(). */
static inline void sched_destroy(void *self)
{
    free(self);
}

#endif
