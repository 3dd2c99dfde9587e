/* insee/arbiter.h — the arbitration contract (plugins/sched/).
 *
 * Who calls what: in every cycle, for every output port that one or more
 * inputs of its router request, the kernel calls pick() with the requests
 * sorted by input index, and grants the one whose index pick() returns. The
 * kernel calls pick() only when n >= 1; it must return a value in [0, n).
 * The same contract serves the `single` consumption port.
 *
 * State: state_size() bytes per output port, zeroed at start, allocated by
 * the kernel, aligned to 16 bytes, and passed as `state` (round robin keeps
 * its last grant there).
 */
#ifndef INSEE_ARBITER_H
#define INSEE_ARBITER_H

#include <insee/host.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct insee_request {
    uint32_t input;     /* input index at the router: port * vcs + vc for transit
                           queues, ports * vcs + injector for injection queues */
    uint32_t occupancy; /* packets in that input queue (longest) */
    uint64_t since;     /* cycle this head first requested (fifo) */
    uint64_t born;      /* cycle the packet entered its injection queue (age) */
    bool transit;       /* false for an injection queue (IPR) */
} insee_request;

typedef struct insee_arbiter_vtable {
    uint32_t size; /* sizeof(insee_arbiter_vtable) as built */

    /* minor 0 — required */
    void *(*create)(const insee_host *host, const insee_value *params, insee_error *err);
    void (*destroy)(void *self);
    uint32_t (*pick)(void *self, void *state, const insee_request *req, uint32_t n,
                     uint64_t now, insee_rng *rng);

    /* minor 0 — optional */
    size_t (*state_size)(void *self); /* bytes per output port; default 0 */
} insee_arbiter_vtable;

#ifdef __cplusplus
}
#endif
#endif
