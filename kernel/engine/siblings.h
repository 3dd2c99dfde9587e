/* kernel/engine/siblings.h — the meeting point of a run split over threads
 * of one process: the collectives of partition.h's insee_transport in
 * shared memory, so that [simulation] threads splits a run as mpirun's
 * ranks do (experiment.c), without Open MPI.
 *
 * Who calls what
 * --------------
 * The caller makes one insee_siblings for P parts, hands part p the
 * transport insee_siblings_transport() gives, runs every part on a thread
 * of its own, and frees the siblings once every part has returned. Every
 * part calls the collectives together, in the same order, as with MPI; a
 * collective returns when every part has called it, and its buffers may
 * be reused then. The cycle's exchange is partition.h's exchange(): one
 * meeting, not the four of an alltoall then an alltoallv.
 *
 * Waiting parts spin: a cycle's exchange comes every few microseconds,
 * sooner than a sleeping thread would wake. A part that has spun for
 * tens of microseconds, or at once with more parts than cores, yields its
 * core at every turn: the part it waits for may have been set aside and
 * need it. A split over more threads than the cores free is still slow,
 * and experiment.c asks for no more than the process may use by default.
 */
#ifndef INSEE_KERNEL_SIBLINGS_H
#define INSEE_KERNEL_SIBLINGS_H

#include <glib.h>
#include <stdint.h>

#include "engine/partition.h"

G_BEGIN_DECLS

typedef struct insee_siblings insee_siblings;

/* parts >= 1. */
insee_siblings *insee_siblings_new(uint32_t parts);
/* Part `part`'s transport; its ctx is the siblings', valid until freed. */
insee_transport insee_siblings_transport(insee_siblings *s, uint32_t part);
/* NULL is fine. */
void insee_siblings_free(insee_siblings *s);

G_END_DECLS
#endif
