/* insee/bridge.h — the contract for coupling with outside simulators of the
 * compute nodes (full-system or execution-driven; Ridruejo et al. §4).
 *
 * A configuration with a [bridge] section makes the run an application
 * driven by the bridge: it serves nodes 0 .. nodes-1 ([bridge] nodes; the
 * host's shape() reports that count as `tasks`).
 *  - sync(now) is called before cycle 0 with now = 0, then at every
 *    boundary it returned: the network has simulated every cycle before
 *    `now` and deliver() has been called for every message consumed before
 *    it (with 1-phit packets, a message consumed in the last cycle before a
 *    boundary reaches deliver() just after that boundary's sync()). The
 *    time loop never jumps past a boundary. sync() returns the next
 *    boundary (> now), or INSEE_NEVER when its clients have finished; on
 *    failure (a client disconnected, went silent, broke the protocol) it
 *    fills err, naming the client, and returns INSEE_NEVER: the run ends
 *    with a simulation error carrying that message.
 *  - Inside sync() (minor 3) the bridge queues messages with
 *    host->bridge_inject() at cycles >= now.
 *  - deliver() (minor 3) is called when a message's last packet has been
 *    consumed at its destination, with that cycle.
 * The run ends once sync() has returned INSEE_NEVER and every injected
 * message has been delivered; it is reported as a causal application
 * measured from cycle 0 to that cycle.
 */
#ifndef INSEE_BRIDGE_H
#define INSEE_BRIDGE_H

#include <insee/host.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A message the bridge injected, as handed back to deliver(). */
typedef struct insee_bridge_msg {
    uint32_t src_node, dst_node;
    uint64_t bytes;
    uint64_t handle;   /* as given to bridge_inject() */
    uint64_t at_cycle; /* the cycle it was queued for */
} insee_bridge_msg;

typedef struct insee_bridge_vtable {
    uint32_t size; /* sizeof(insee_bridge_vtable) as built */

    /* minor 0 — required */
    void *(*create)(const insee_host *host, const insee_value *params, insee_error *err);
    void (*destroy)(void *self);
    uint64_t (*sync)(void *self, uint64_t now, insee_error *err);

    /* minor 3 — optional */
    /* Message m is whole at its destination node: its last packet was
       consumed in `cycle`. */
    void (*deliver)(void *self, const insee_bridge_msg *m, uint64_t cycle);
} insee_bridge_vtable;

#ifdef __cplusplus
}
#endif
#endif
