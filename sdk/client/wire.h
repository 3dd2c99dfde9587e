/* sdk/client/wire.h — the bridge wire protocol's frames (docs/bridge-protocol.md),
 * shared by libinsee-client and the sync-server bridge plugin; not installed.
 *
 * A frame is a 12-byte header (magic, version, type, payload length, all
 * little-endian) and its payload. Everything here is plain C and allocation
 * free except wire_buf: parsers read from the caller's buffer and never
 * trust a length they have not checked against what is left, so any byte
 * string gives either a frame or a reason, never a crash (fuzzed by
 * tests/fuzz/fuzz_bridge_wire.c).
 */
#ifndef INSEE_SDK_CLIENT_WIRE_H
#define INSEE_SDK_CLIENT_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <poll.h>
#include <stdint.h>

#define WIRE_MAGIC 0x42455349u /* "ISEB" on the wire */
#define WIRE_VERSION 2u     /* what libinsee-client speaks */
#define WIRE_VERSION_MIN 1u /* the oldest the server still serves */
#define WIRE_HEADER_BYTES 12u
#define WIRE_MAX_PAYLOAD (16u << 20)
#define WIRE_SLICE_DONE_FIXED 12u /* index, count */
#define WIRE_INJECTION_FIXED 36u  /* before an injection's payload, version 1 */
#define WIRE_INJECTION_FIXED_V2 40u /* version 2: nic, copy and a reserved byte more */
#define WIRE_DELIVERY_FIXED 52u   /* a DELIVER frame before its payload */
/* The largest message payload: one that still fits its DELIVER frame. */
#define WIRE_MAX_MESSAGE_PAYLOAD (WIRE_MAX_PAYLOAD - WIRE_DELIVERY_FIXED)
#define WIRE_MAX_NAME 255u
/* The longest message (an injection's `bytes`): what keeps its packet count
   within the u32 the network counts packets in, whatever the packet size
   (bytes / (packet_phits x phit_bytes) <= bytes). */
#define WIRE_MAX_MESSAGE_BYTES 0xFFFFFFFFull
/* A string from the peer as wire_escape() prints it: at most 4 bytes each. */
#define WIRE_ESCAPED_NAME (WIRE_MAX_NAME * 4u + 1u)

typedef enum wire_type {
    WIRE_HELLO = 1,
    WIRE_WELCOME = 2,
    WIRE_REFUSE = 3,
    WIRE_SLICE_GO = 4,
    WIRE_SLICE_DONE = 5,
    WIRE_DELIVER = 6,
    WIRE_BYE = 7,
} wire_type;

typedef enum wire_model { WIRE_LOCKSTEP = 0, WIRE_PARALLEL = 1 } wire_model;

typedef struct wire_header {
    uint32_t magic;
    uint16_t version, type;
    uint32_t length;
} wire_header;

/* A growing output buffer; `failed` once an allocation failed. */
typedef struct wire_buf {
    uint8_t *data;
    size_t len, cap;
    bool failed;
} wire_buf;

/* A payload being read; `bad` once a read ran past its end. */
typedef struct wire_reader {
    const uint8_t *p;
    size_t len, off;
    bool bad;
} wire_reader;

typedef struct wire_hello {
    char name[WIRE_MAX_NAME + 1];
    uint32_t n_nodes;
    wire_reader nodes; /* n_nodes u32 node ids, read with wire_u32() */
} wire_hello;

typedef struct wire_welcome {
    uint32_t client_units, network_cycles, model, nodes;
} wire_welcome;

typedef struct wire_slice {
    uint64_t index, start_cycle, end_cycle, start_unit, end_unit;
    uint32_t deliveries; /* WIRE_DELIVER frames that follow a SLICE_GO */
} wire_slice;

/* One injection of a SLICE_DONE. */
typedef struct wire_injection {
    uint32_t src, dst;
    uint64_t bytes, timestamp, handle;
    uint16_t nic; /* version 2: as insee_message.nic (version 1 reads 0) */
    uint8_t copy; /* version 2: as insee_message.copy (version 1 reads 0) */
    uint32_t payload_len;
    const uint8_t *payload; /* into the frame */
} wire_injection;

typedef struct wire_delivery {
    uint32_t src, dst;
    uint64_t bytes, handle, timestamp, injected_cycle, arrival_cycle;
    uint32_t payload_len;
    const uint8_t *payload; /* into the frame */
} wire_delivery;

void wire_buf_reset(wire_buf *b);
void wire_buf_free(wire_buf *b);
void wire_put_u16(wire_buf *b, uint16_t v);
void wire_put_u32(wire_buf *b, uint32_t v);
void wire_put_u64(wire_buf *b, uint64_t v);
void wire_put_bytes(wire_buf *b, const void *p, size_t n);
/* Start a frame of `type` in b (header with length 0); wire_end() sets the
   length once the payload is written. */
void wire_begin(wire_buf *b, wire_type type, uint16_t version);
void wire_end(wire_buf *b, size_t frame_start);

uint32_t wire_u32(wire_reader *r);
uint64_t wire_u64(wire_reader *r);

/* Frames' payloads. */
void wire_put_hello(wire_buf *b, uint16_t version, const char *name, const uint32_t *nodes,
                    uint32_t n);
/* Each frame goes out headed by `version`, the one the connection speaks:
   a server answers a version-1 client in version 1. */
void wire_put_welcome(wire_buf *b, uint16_t version, const wire_welcome *w);
void wire_put_text(wire_buf *b, uint16_t version, wire_type type,
                   const char *text); /* REFUSE, BYE */
void wire_put_slice_go(wire_buf *b, uint16_t version, const wire_slice *s);
/* SLICE_DONE: the header and index; each injection appended with
   wire_put_injection() in the same version (version 1 drops nic and
   copy: its caller refuses a message that sets them), then
   wire_end_slice_done() writes the count. */
size_t wire_begin_slice_done(wire_buf *b, uint16_t version, uint64_t index);
void wire_put_injection(wire_buf *b, uint16_t version, const wire_injection *in);
void wire_end_slice_done(wire_buf *b, size_t frame_start, uint32_t count);
void wire_put_delivery(wire_buf *b, uint16_t version, const wire_delivery *d);
/* The fixed bytes of one injection in `version`. */
size_t wire_injection_fixed(uint16_t version);

/* Parsing: true, or false with `why` (a sentence) filled. */
bool wire_parse_header(const uint8_t *h, wire_header *out, char *why, size_t len);
bool wire_parse_hello(const uint8_t *p, size_t n, wire_hello *out, char *why, size_t len);
bool wire_parse_welcome(const uint8_t *p, size_t n, wire_welcome *out, char *why, size_t len);
bool wire_parse_slice_go(const uint8_t *p, size_t n, wire_slice *out, char *why, size_t len);
bool wire_parse_delivery(const uint8_t *p, size_t n, wire_delivery *out, char *why, size_t len);
/* SLICE_DONE of a `version` frame: its index and count, then the
   injections one by one in that version's layout; *r is left at the
   first. A version-2 injection whose reserved byte is not 0 is refused. */
bool wire_parse_slice_done(const uint8_t *p, size_t n, uint16_t version, uint64_t *index,
                           uint32_t *count, wire_reader *r, char *why, size_t len);
bool wire_next_injection(wire_reader *r, uint16_t version, wire_injection *out, char *why,
                         size_t len);

/* What stops a wait early: stop(data) is asked before each poll() and
   whenever one returns, and poll() waits at most WIRE_CANCEL_POLL_MS at a
   time, so a stop asked by a signal handler (which interrupts poll() with
   EINTR, or comes just before it) ends the wait within that. */
typedef struct wire_cancel {
    bool (*stop)(void *data);
    void *data;
} wire_cancel;
#define WIRE_CANCEL_POLL_MS 100

/* Deadlines on the monotonic clock, in ms: `timeout_ms` from now (< 0:
   none, -1), and the ms left before one (-1: none; 0: passed). A whole
   transfer shares one deadline, so a peer that trickles a byte at a time
   cannot hold it open. */
int64_t wire_deadline(int timeout_ms);
int wire_left_ms(int64_t deadline);

/* poll() until one of p is ready (> 0, as poll()), the deadline passes (0),
   poll() fails (-1, errno set) or cancel says stop (-2); a NULL cancel, or
   one whose stop is NULL, never does. */
int wire_poll(struct pollfd *p, nfds_t n, int64_t deadline, const wire_cancel *cancel);

/* Blocking I/O on a socket within timeout_ms for the whole transfer (< 0: no
   limit), cut short by cancel (as wire_poll()).
   wire_read_frame() fills the header and a malloc'ed payload (*payload,
   free() it; NULL when empty). Both return 0 on success, 2 on timeout, 4
   when cancelled, or -1 with why filled; wire_read_frame() also returns 1
   when the peer closed before a frame began and 3 when the bytes are not a
   frame (why says how): a peer that breaks the protocol, not one that went
   away. */
int wire_write_all(int fd, const void *p, size_t n, int timeout_ms, const wire_cancel *cancel,
                   char *why, size_t len);
int wire_read_frame(int fd, int timeout_ms, const wire_cancel *cancel, wire_header *h,
                    uint8_t **payload, char *why, size_t len);

/* A frame read a piece at a time from a peer served beside others (the
   server's handshakes): zero it to start; wire_partial_clear() frees what
   it holds. */
typedef struct wire_partial {
    uint8_t head[WIRE_HEADER_BYTES];
    size_t got; /* bytes of the frame read so far, its header included */
    wire_header h;
    uint8_t *payload;
} wire_partial;
#define WIRE_AGAIN 5

/* Read what fd has of the frame without waiting: 0 when it is whole (h and
   payload handed over as by wire_read_frame(), f ready for the next
   frame), WIRE_AGAIN when more is to come, else 1, 3 or -1 as
   wire_read_frame() (f cleared). */
int wire_partial_read(wire_partial *f, int fd, wire_header *h, uint8_t **payload, char *why,
                      size_t len);
void wire_partial_clear(wire_partial *f);

/* `text` as it may be printed: printable ASCII kept, every other byte
   written \xNN, so that a peer's string cannot move a terminal's cursor or
   rewrite what it shows (and escaping twice changes nothing); cut to fit
   out (len bytes, at least 1). Returns out. */
const char *wire_escape(const char *text, char *out, size_t len);

const char *wire_type_name(uint16_t type);

#endif
