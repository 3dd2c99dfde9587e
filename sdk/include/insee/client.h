/* insee/client.h — libinsee-client: what an outside simulator of compute
 * nodes (a full-system simulator's network device, an execution-driven
 * program, a QEMU glue) links to exchange messages through insee's simulated
 * network. The protocol under it is docs/bridge-protocol.md; the server is
 * the sync-server bridge plugin.
 *
 * Life of a client
 *  1. insee_client_connect(): one connection speaking for some nodes.
 *  2. insee_client_end_slice() the first time: wait for slice 0.
 *  3. Run the slice (client time units [start_unit, end_unit)), calling
 *     insee_client_inject() for every message sent, with its timestamp in
 *     that range.
 *  4. insee_client_end_slice(): hand the injections over and block until the
 *     server releases the next slice; it returns the messages delivered to
 *     this client's nodes since the previous one. Go to 3.
 *  5. insee_client_close(): say goodbye (no more slices) and free. The
 *     running slice's injections are not sent: end the slice first to
 *     have them simulated.
 *
 * Errors are values: functions that can fail return false or NULL and fill
 * the caller's insee_client_error. A client holds no global state: several
 * may live in one process (one per thread, or driven in turn). Not
 * thread-safe per client.
 */
#ifndef INSEE_CLIENT_H
#define INSEE_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define INSEE_CLIENT_PROTOCOL 2u /* the wire protocol version this library speaks */

#ifndef INSEE_CLIENT_API
#define INSEE_CLIENT_API
#endif

typedef enum insee_client_status {
    INSEE_CLIENT_OK = 0,
    INSEE_CLIENT_ERR_ARGUMENT = 1, /* a bad argument (address, node, timestamp) */
    INSEE_CLIENT_ERR_CONNECT = 2,  /* could not reach the server */
    INSEE_CLIENT_ERR_REFUSED = 3,  /* the server refused the handshake (message says why) */
    INSEE_CLIENT_ERR_PROTOCOL = 4, /* the server sent something the protocol forbids */
    INSEE_CLIENT_ERR_CLOSED = 5,   /* the server ended the run or the connection broke */
    INSEE_CLIENT_ERR_NOMEM = 6,
} insee_client_status;

typedef struct insee_client_error {
    insee_client_status code;
    char message[512]; /* what went wrong, a complete sentence */
} insee_client_error;

typedef struct insee_client insee_client; /* opaque */

/* What the server said in its welcome. */
typedef struct insee_client_info {
    uint32_t client_units;   /* S of the slice ratio S:F */
    uint32_t network_cycles; /* F */
    uint32_t parallel;       /* 0: lock-step model, 1: parallel model */
    uint32_t nodes;          /* nodes the bridge serves: node ids are 0 .. nodes-1 */
} insee_client_info;

/* The slice the client may now run: client time [start_unit, end_unit),
   simulated as network cycles [start_cycle, end_cycle). */
typedef struct insee_client_slice {
    uint64_t index;
    uint64_t start_unit, end_unit;
    uint64_t start_cycle, end_cycle;
} insee_client_slice;

/* A message delivered to one of this client's nodes. */
typedef struct insee_client_delivery {
    uint32_t src, dst;       /* nodes */
    uint64_t bytes;
    uint64_t handle;         /* as the sender gave it */
    uint64_t timestamp;      /* the sender's timestamp (client units) */
    uint64_t injected_cycle; /* the network cycle it was queued for at its source (its
                                first packet enters the network then, or later when the
                                node has earlier messages still to send) */
    uint64_t arrival_cycle;  /* the cycle its last packet was consumed */
    const uint8_t *payload;  /* the sender's payload (NULL when none) */
    uint32_t payload_len;
} insee_client_delivery;

/* The bandwidth, in Mb/s, of a link that moves one phit of `phit_bits` bits
   per network cycle when S client units (each `unit_ns` nanoseconds) are
   simulated as F network cycles: a cycle lasts S/F units. With 5 ns client
   cycles and 32-bit phits, 10000:200 and 1000:20 give 128 Mb/s and
   10000:2000 gives 1280 Mb/s (Ridruejo et al. §6). */
static inline double insee_client_link_mbps(uint32_t client_units, uint32_t network_cycles,
                                            double unit_ns, uint32_t phit_bits)
{
    return (double)phit_bits * network_cycles / ((double)client_units * unit_ns) * 1000.0;
}

/* Connect to the server at `address`: "HOST:PORT" (TCP; HOST a name or an
   address, "[v6]:PORT" for IPv6) or "unix:PATH" (a Unix socket). `name`
   names this client in the server's messages; `nodes` (n of them, distinct)
   are the nodes it speaks for. Blocks until the server welcomes or refuses
   it. */
INSEE_CLIENT_API insee_client *insee_client_connect(const char *address, const char *name, const uint32_t *nodes,
                                   size_t n, insee_client_error *err);
/* As insee_client_connect(), announcing another protocol version (tests of
   the server's refusal). */
INSEE_CLIENT_API insee_client *insee_client_connect_version(const char *address, const char *name,
                                           const uint32_t *nodes, size_t n, uint16_t version,
                                           insee_client_error *err);

INSEE_CLIENT_API const insee_client_info *insee_client_get_info(const insee_client *c);

/* The longest payload a message carries (what the protocol's DELIVER frame
   holds besides its fields). */
#define INSEE_CLIENT_MAX_PAYLOAD 16777164u

/* The longest message, in simulated bytes (4 GiB - 1): its packet count
   fits the network's 32-bit count whatever the packet size. */
#define INSEE_CLIENT_MAX_BYTES 4294967295ull

/* Queue a message from `src` (one of this client's nodes) to node `dst`,
   `bytes` long (at most INSEE_CLIENT_MAX_BYTES), sent at client time
   `timestamp` (inside the current slice). `handle` and the optional payload (copied) come back with the delivery.
   A payload holds at most INSEE_CLIENT_MAX_PAYLOAD bytes, and one
   slice's injections together at most 16 MiB (40 bytes each besides its
   payload): beyond, the call fails and the slice should end sooner. */
INSEE_CLIENT_API bool insee_client_inject(insee_client *c, uint32_t src, uint32_t dst, uint64_t bytes,
                         uint64_t timestamp, uint64_t handle, const void *payload,
                         uint32_t payload_len, insee_client_error *err);

/* A message's copy mode (insee_client_inject_nic()), as the kernel's
   insee_message.copy: the run's [network] copy, zero-copy (the interface
   reads the sender's memory), or two-copy (through a buffer: a copy at
   [network] memory_bandwidth at each end, which the run must set). */
enum {
    INSEE_CLIENT_COPY_DEFAULT = 0,
    INSEE_CLIENT_COPY_ZERO = 1,
    INSEE_CLIENT_COPY_TWO = 2,
};

/* As insee_client_inject(), choosing how the sending node sends it, as
   NSIM lets an MPI program choose per message: `nic` 0 takes the node's
   interfaces in turn, k >= 1 its interface k - 1 (at most [network] nics:
   the server refuses a higher one and ends the run); `copy` one of
   INSEE_CLIENT_COPY_*. Needs protocol version 2: on a connection that
   announced version 1 (insee_client_connect_version()) only nic 0 and the
   default copy are accepted. insee_client_inject() is this with 0 and
   INSEE_CLIENT_COPY_DEFAULT. Each injection takes 40 bytes of its slice's
   16 MiB besides its payload (36 in version 1). */
INSEE_CLIENT_API bool insee_client_inject_nic(insee_client *c, uint32_t src, uint32_t dst,
                                              uint64_t bytes, uint64_t timestamp,
                                              uint64_t handle, const void *payload,
                                              uint32_t payload_len, uint16_t nic, uint8_t copy,
                                              insee_client_error *err);

/* End the current slice (none before the first call) and wait for the next:
   *slice filled, *deliveries pointing to *n deliveries that stay valid
   until the next call or close. */
INSEE_CLIENT_API bool insee_client_end_slice(insee_client *c, insee_client_slice *slice,
                            const insee_client_delivery **deliveries, size_t *n,
                            insee_client_error *err);

/* Say goodbye (the client will run no more slices), close and free. NULL is
   accepted. */
INSEE_CLIENT_API void insee_client_close(insee_client *c);

#ifdef __cplusplus
}
#endif
#endif
