/* kernel/engine/crew.h — a crew of threads that run one function over
 * contiguous chunks of [0, n), for the cycle engine's parallel phases.
 *
 * The engine (engine.c) creates a crew of W workers once per run; the
 * calling thread is worker 0 and W - 1 threads wait for work. Each
 * insee_crew_run() splits [0, n) into W contiguous chunks in order (worker
 * w takes the w-th) and returns when every chunk is done, so what the
 * chunks write to per-worker or per-item places can be read afterwards in
 * item order, the same for any W. A job of fewer than `min_items` items
 * runs on the caller alone: waking the crew would cost more than it saves.
 *
 * Waiting workers spin for a while, then sleep on a condition until the
 * next job: the cycle engine's serial work between jobs is usually short
 * (INSEE_CREW_SPINS), the dynamic flow engine's long. The crew owns its
 * threads; insee_crew_free() joins them. Jobs must not call
 * insee_crew_run() themselves.
 */
#ifndef INSEE_KERNEL_CREW_H
#define INSEE_KERNEL_CREW_H

#include <glib.h>
#include <stdint.h>

G_BEGIN_DECLS

typedef struct insee_crew insee_crew;

/* Items [from, to) of the job, run by worker `worker` (0 .. W-1). */
typedef void (*insee_crew_fn)(void *ctx, uint32_t worker, uint32_t from, uint32_t to);

/* Spins of a waiting worker before it sleeps for jobs a cycle apart
   (yielding its core after the first thousand, a good fraction of a second
   in all): waking a sleeping worker costs more than a cycle's share of
   work on a large network (with 20 000 spins and no yield two threads
   were slower than one on a 32x32 torus). */
#define INSEE_CREW_SPINS 100000u

/* W >= 2 workers (the caller and W - 1 threads), each spinning `spins`
   times for the next job before it sleeps; NULL with `err` set when a
   thread cannot be started. */
insee_crew *insee_crew_new(uint32_t workers, uint32_t min_items, uint32_t spins, GError **err);
/* Jobs so far that were shared by the whole crew (not run on the caller
   alone for being short). */
uint64_t insee_crew_shared(const insee_crew *crew);
void insee_crew_run(insee_crew *crew, insee_crew_fn fn, void *ctx, uint32_t n);
/* NULL is fine. */
void insee_crew_free(insee_crew *crew);

G_END_DECLS
#endif
