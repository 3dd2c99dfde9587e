/* insee/arbiter.h — the arbitration contract (plugins/sched/).
 *
 * Who calls what: in every cycle, for every output that one or more inputs
 * of its router request, the kernel calls pick() with the requests
 * sorted by input index, and grants the one whose index pick() returns. The
 * kernel calls pick() only when n >= 1; it must return a value in [0, n).
 * The same contract serves the `single` consumption port.
 *
 * Arbitration is per output VC (INSEE's model): "output" below is one VC of
 * one output port, or a node's `single` consumption port.
 *
 * State: state_size() bytes per output, zeroed at start, allocated by the
 * kernel, aligned to 16 bytes, and passed as `state` (round robin keeps its
 * last grant there).
 *
 * insee_request grows by appending fields. The kernel hands each plugin its
 * requests as an array of the size the plugin was built with: a plugin of
 * ABI minor 0 gets INSEE_REQUEST_SIZE_1_0-byte records, without the fields
 * of later minors.
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
    uint32_t occupancy; /* packets in that input queue (longest); phits when
                           [network] vc_buffer_bytes sizes queues in bytes */
    uint64_t since;     /* cycle this head first requested (fifo) */
    uint64_t born;      /* cycle the packet entered its injection queue (age) */
    bool transit;       /* false for an injection queue (IPR) */
    /* minor 1 */
    uint64_t injected;  /* cycle the packet's head left its injection queue
                           (age: "since it was injected into the network");
                           the current cycle for a head still in it */
} insee_request;

/* sizeof(insee_request) in ABI 1.0: the stride of a minor-0 plugin's array. */
#define INSEE_REQUEST_SIZE_1_0 32u

typedef struct insee_arbiter_vtable {
    uint32_t size; /* sizeof(insee_arbiter_vtable) as built */

    /* minor 0 — required */
    void *(*create)(const insee_host *host, const insee_value *params, insee_error *err);
    void (*destroy)(void *self);
    uint32_t (*pick)(void *self, void *state, const insee_request *req, uint32_t n,
                     uint64_t now, insee_rng *rng);

    /* minor 0 — optional */
    size_t (*state_size)(void *self); /* bytes per output; default 0 */
} insee_arbiter_vtable;

#ifdef __cplusplus
}
#endif
#endif
