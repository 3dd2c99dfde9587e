/* kernel/engine/wormhole.h — wormhole flow control, flit by flit
 * (docs/model.md, "Wormhole").
 *
 * Contract
 * --------
 * With [network] flow_control = "wormhole" the experiment fills the
 * engine's wh_params (its stages: net/timing.h) and insee_engine_prepare()
 * calls insee_wormhole_new(); the time loop (engine.c) then calls, each
 * cycle, insee_wormhole_events() where it would
 * process its wheel, insee_wormhole_wake() for each injection queue the
 * workload just filled, and insee_wormhole_move() where it would request
 * and arbitrate; insee_wormhole_busy() tells it whether the next cycle has
 * work. Nothing else of the packet engine runs: the wheel carries this
 * file's own events. In a run split into parts (partition.h) each part
 * moves its own routers' flits; a flit, its credit or a head that crosses
 * a cut goes to the other part (insee_partition_flit() and the like), which
 * hands it back here with insee_wormhole_take().
 *
 * The model is an input-queued router with virtual channels, as BookSim2's:
 * a head flit is routed, allocates an output VC, then every flit competes
 * for the switch one cycle at a time, and crosses only with a credit for a
 * free flit of buffer downstream. A packet may so be spread over several
 * routers, and flits of different packets share a link cycle by cycle. A
 * VC's buffer (net->queue_packets, in flits: net->phit_queues is set)
 * counts the flits sent towards it whose credit has not come back.
 * Injection queues are the sources' queues of whole packets.
 *
 * Memory: the state is the engine's (insee_wormhole_free()); the engine's
 * network, workload and collector are borrowed.
 */
#ifndef INSEE_KERNEL_WORMHOLE_H
#define INSEE_KERNEL_WORMHOLE_H

#include <glib.h>

#include "net/timing.h"

G_BEGIN_DECLS

struct insee_engine;

typedef struct insee_wormhole insee_wormhole;

insee_wormhole *insee_wormhole_new(struct insee_engine *eng, const insee_wormhole_stages *params);
void insee_wormhole_free(insee_wormhole *wh);

/* The farthest an event lies ahead of the cycle it is scheduled in. */
uint32_t insee_wormhole_horizon(const insee_wormhole_stages *params, uint32_t longest_cable,
                                uint32_t node_cable);

void insee_wormhole_events(struct insee_engine *eng);
void insee_wormhole_wake(struct insee_engine *eng, uint32_t q);
void insee_wormhole_move(struct insee_engine *eng);
gboolean insee_wormhole_busy(const struct insee_engine *eng);
/* In a split run (partition.c): another part's flit is due in queue q at
   `at`, or, with `credit`, another part sent a flit out of q, whose credit
   is due back here at `at`. */
void insee_wormhole_take(struct insee_engine *eng, uint32_t q, uint64_t at, gboolean credit);

G_END_DECLS
#endif
