/* insee/bridge.h — the contract for coupling with an outside full-system
 * simulator (Simics-style lock-step slices; Ridruejo et al. §4).
 *
 * Minimal in ABI 1.0: the kernel calls sync() at cycle 0 and then at every
 * cycle sync() returned; the bridge exchanges messages with its clients in
 * between (a later minor appends host entries to inject and deliver
 * messages). sync() returns the next slice boundary, or INSEE_NEVER when the
 * clients have finished; on failure (a client disconnected) it fills err and
 * returns INSEE_NEVER, and the run ends with a simulation error.
 */
#ifndef INSEE_BRIDGE_H
#define INSEE_BRIDGE_H

#include <insee/host.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct insee_bridge_vtable {
    uint32_t size; /* sizeof(insee_bridge_vtable) as built */

    /* minor 0 — required */
    void *(*create)(const insee_host *host, const insee_value *params, insee_error *err);
    void (*destroy)(void *self);
    uint64_t (*sync)(void *self, uint64_t now, insee_error *err);
} insee_bridge_vtable;

#ifdef __cplusplus
}
#endif
#endif
