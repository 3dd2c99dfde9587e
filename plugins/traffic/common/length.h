/* length.h — how long the messages of an independent source are (INSEE
 * Table 1, "message length"), shared by the traffic plugins through
 * source.h (compiled into each .so, hidden like everything but the entry).
 *
 * A length is given in bytes and cut into packets by the kernel's
 * host->message_packets(): ceil(bytes / (L x phit_bytes)), at least 1
 * ([simulation] phit_bytes). The default, a fixed length of 0 bytes, is one
 * packet per message, INSEE's sources. Every message also carries its bytes
 * (insee_message.bytes, ABI 1.8): the length drawn, or a packet's bytes
 * (packet_bytes.h) for a length of 0, which is one packet.
 *
 *   fixed        every message is message_bytes long
 *   uniform      bytes drawn uniformly in [message_bytes_min, message_bytes_max]
 *   exponential  bytes = ceil(X), X exponential with mean message_bytes (0:
 *                the bytes of one packet, L x phit_bytes)
 *   bimodal      long_bytes with probability long_share, else message_bytes
 * Every choice works at the defaults (a uniform 1 .. 256 bytes, a bimodal
 * of one-packet and 256-byte messages: a few packets each, at the usual
 * 64 bytes a packet).
 *
 * traffic_length_mean() is the exact mean number of packets per message,
 * which the sources divide the load by to keep it in phits/node/cycle.
 */
#ifndef INSEE_TRAFFIC_LENGTH_H
#define INSEE_TRAFFIC_LENGTH_H

#include <insee/insee.h>

/* The longest message, in bytes: 2 GiB (a uniform range then fits one
   32-bit draw, and no message exceeds 2^32 packets). */
#define TRAFFIC_LENGTH_MAX_BYTES 2147483648.0
/* The largest exponential mean: 32 MiB, so a draw passes the longest
   message with probability e^-64 and cutting it there changes no mean. */
#define TRAFFIC_LENGTH_MAX_MEAN 33554432.0

/* The entries of a parameter table, in this order (source.h appends them). */
#define TRAFFIC_LENGTH_PARAMS                                                         \
    {"length_dist", INSEE_PARAM_ENUM, "\"fixed\"", 1, 0,                              \
     "fixed|uniform|exponential|bimodal", NULL,                                        \
     "how message lengths are drawn (fixed with message_bytes = 0: one packet)"},     \
    {"message_bytes", INSEE_PARAM_INT, "0", 0, TRAFFIC_LENGTH_MAX_BYTES, NULL, "bytes", \
     "fixed: the length; exponential: the mean; bimodal: the short length (0: one "   \
     "packet)"},                                                                      \
    {"message_bytes_min", INSEE_PARAM_INT, "1", 0, TRAFFIC_LENGTH_MAX_BYTES, NULL,     \
     "bytes", "uniform: the shortest length"},                                        \
    {"message_bytes_max", INSEE_PARAM_INT, "256", 0, TRAFFIC_LENGTH_MAX_BYTES, NULL,   \
     "bytes", "uniform: the longest length"},                                         \
    {"long_bytes", INSEE_PARAM_INT, "256", 0, TRAFFIC_LENGTH_MAX_BYTES, NULL, "bytes",  \
     "bimodal: the length of a long message"},                                        \
    {"long_share", INSEE_PARAM_DOUBLE, "0.2", 0.0, 1.0, NULL, NULL,                   \
     "bimodal: the share of the messages that are long"}
#define TRAFFIC_LENGTH_NPARAMS 6

typedef enum traffic_length_dist {
    TRAFFIC_LENGTH_FIXED,
    TRAFFIC_LENGTH_UNIFORM,
    TRAFFIC_LENGTH_EXPONENTIAL,
    TRAFFIC_LENGTH_BIMODAL,
} traffic_length_dist;

typedef struct traffic_length {
    traffic_length_dist dist;
    const insee_host *host;
    uint64_t low, span;  /* uniform: bytes = low + a draw below span */
    double mean_bytes;   /* exponential */
    double long_share;   /* bimodal */
    uint64_t packet_bytes; /* B = L x phit_bytes (0: the host cannot tell) */
    uint32_t packets;    /* fixed: the packets of a message; bimodal: of a short one */
    uint32_t long_packets;
    uint64_t bytes, long_bytes; /* the same lengths in bytes */
    double mean_packets; /* packets per message, on average */
} traffic_length;

/* Read the TRAFFIC_LENGTH_PARAMS values `params` (in their order) into *l;
   false with err filled (the message starts with `who`) when they do not
   make a length. */
bool traffic_length_init(traffic_length *l, const char *who, const insee_host *host,
                         const insee_value *params, insee_error *err);

/* The length of the next message into msg->packets and msg->bytes; fixed
   lengths draw nothing. */
void traffic_length_draw(const traffic_length *l, insee_rng *rng, insee_message *msg);

#endif
