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
#include <stdint.h>

#define WIRE_MAGIC 0x42455349u /* "ISEB" on the wire */
#define WIRE_VERSION 1u
#define WIRE_HEADER_BYTES 12u
#define WIRE_MAX_PAYLOAD (16u << 20)
#define WIRE_SLICE_DONE_FIXED 12u /* index, count */
#define WIRE_INJECTION_FIXED 36u  /* before an injection's payload */
#define WIRE_DELIVERY_FIXED 52u   /* a DELIVER frame before its payload */
/* The largest message payload: one that still fits its DELIVER frame. */
#define WIRE_MAX_MESSAGE_PAYLOAD (WIRE_MAX_PAYLOAD - WIRE_DELIVERY_FIXED)
#define WIRE_MAX_NAME 255u

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
void wire_put_welcome(wire_buf *b, const wire_welcome *w);
void wire_put_text(wire_buf *b, wire_type type, const char *text); /* REFUSE, BYE */
void wire_put_slice_go(wire_buf *b, const wire_slice *s);
/* SLICE_DONE: the header and index; each injection appended with
   wire_put_injection(), then wire_end_slice_done() writes the count. */
size_t wire_begin_slice_done(wire_buf *b, uint64_t index);
void wire_put_injection(wire_buf *b, const wire_injection *in);
void wire_end_slice_done(wire_buf *b, size_t frame_start, uint32_t count);
void wire_put_delivery(wire_buf *b, const wire_delivery *d);

/* Parsing: true, or false with `why` (a sentence) filled. */
bool wire_parse_header(const uint8_t *h, wire_header *out, char *why, size_t len);
bool wire_parse_hello(const uint8_t *p, size_t n, wire_hello *out, char *why, size_t len);
bool wire_parse_welcome(const uint8_t *p, size_t n, wire_welcome *out, char *why, size_t len);
bool wire_parse_slice_go(const uint8_t *p, size_t n, wire_slice *out, char *why, size_t len);
bool wire_parse_delivery(const uint8_t *p, size_t n, wire_delivery *out, char *why, size_t len);
/* SLICE_DONE: its index and count, then the injections one by one; *r is
   left at the first. */
bool wire_parse_slice_done(const uint8_t *p, size_t n, uint64_t *index, uint32_t *count,
                           wire_reader *r, char *why, size_t len);
bool wire_next_injection(wire_reader *r, wire_injection *out, char *why, size_t len);

/* Blocking I/O on a socket within timeout_ms for the whole transfer (< 0: no
   limit).
   wire_read_frame() fills the header and a malloc'ed payload (*payload,
   free() it; NULL when empty). Both return 0 on success, 2 on timeout, or
   -1 with why filled; wire_read_frame() also returns 1 when the peer closed
   before a frame began and 3 when the bytes are not a frame (why says how):
   a peer that breaks the protocol, not one that went away. */
int wire_write_all(int fd, const void *p, size_t n, int timeout_ms, char *why, size_t len);
int wire_read_frame(int fd, int timeout_ms, wire_header *h, uint8_t **payload, char *why,
                    size_t len);

const char *wire_type_name(uint16_t type);

#endif
