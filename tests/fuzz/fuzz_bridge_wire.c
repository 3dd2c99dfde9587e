/* Fuzz target for the bridge wire protocol's frame parser (sdk/client/wire.c,
 * what the sync-server reads from its clients and libinsee-client from the
 * server): the bytes arrive on a socket as a client would send them, are read
 * frame by frame with wire_read_frame(), and every frame is parsed by its
 * type, node ids and injections included (in the layout of the version
 * the frame's header names: 1, or 2 with nic and copy). Whatever the bytes, each frame is
 * accepted or refused with a reason, never a crash, an out-of-bounds read or a
 * leak; an accepted frame's fields lie inside it. Built as a libFuzzer
 * target with -DINSEE_FUZZ=ON (clang); always built as a replay driver that
 * runs the seed corpus (corpus-bridge_wire/) under ctest. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* More than one frame header's worth, less than a socket buffer holds. */
#define FUZZ_MAX_INPUT 16384u

static void parse(const wire_header *h, const uint8_t *p)
{
    char why[256];
    switch (h->type) {
    case WIRE_HELLO: {
        wire_hello hello;
        if (!wire_parse_hello(p, h->length, &hello, why, sizeof why))
            return;
        for (uint32_t i = 0; i < hello.n_nodes; i++)
            wire_u32(&hello.nodes);
        if (hello.nodes.bad || strlen(hello.name) > WIRE_MAX_NAME)
            abort();
        return;
    }
    case WIRE_SLICE_DONE: {
        uint64_t index;
        uint32_t count;
        wire_reader r;
        wire_injection in;
        if (!wire_parse_slice_done(p, h->length, h->version, &index, &count, &r, why,
                                   sizeof why))
            return;
        for (uint32_t i = 0; i < count; i++) {
            if (!wire_next_injection(&r, h->version, &in, why, sizeof why))
                return;
            if (r.off > r.len || (in.payload_len && in.payload + in.payload_len > p + h->length))
                abort();
        }
        return;
    }
    case WIRE_DELIVER: {
        wire_delivery d;
        if (wire_parse_delivery(p, h->length, &d, why, sizeof why) && d.payload_len &&
            d.payload + d.payload_len > p + h->length)
            abort();
        return;
    }
    case WIRE_SLICE_GO:
        wire_parse_slice_go(p, h->length, &(wire_slice){0}, why, sizeof why);
        return;
    case WIRE_WELCOME:
        wire_parse_welcome(p, h->length, &(wire_welcome){0}, why, sizeof why);
        return;
    default: /* REFUSE and BYE carry free text */
        return;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FUZZ_MAX_INPUT)
        return 0;
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
        abort();
    char why[256];
    if (size && wire_write_all(sv[1], data, size, 1000, NULL, why, sizeof why) != 0)
        abort();
    close(sv[1]);
    for (;;) {
        wire_header h;
        uint8_t *payload;
        if (wire_read_frame(sv[0], 1000, NULL, &h, &payload, why, sizeof why) != 0)
            break;
        parse(&h, payload);
        free(payload);
    }
    close(sv[0]);
    return 0;
}
