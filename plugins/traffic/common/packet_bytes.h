/* packet_bytes.h — the bytes a packet carries, B = packet_phits x
 * [simulation] phit_bytes, for the traffic plugins that give a message's
 * length in bytes (insee_message.bytes, ABI 1.8) while defining it in
 * packets: such a message of P packets is P x B bytes. Header only.
 *
 * The host tells no plugin phit_bytes; it cuts bytes into packets
 * (host->message_packets(), ABI 1.2), and B is the longest message that is
 * still one packet, found by doubling then bisecting: about 2 log2(B)
 * calls, made once at create().
 */
#ifndef INSEE_TRAFFIC_PACKET_BYTES_H
#define INSEE_TRAFFIC_PACKET_BYTES_H

#include <insee/insee.h>

/* B, or 0 (the kernel then counts the packets itself) from a host without
   message_packets(). */
static inline uint64_t traffic_packet_bytes(const insee_host *host)
{
    if (!INSEE_HOST_HAS(host, message_packets))
        return 0;
    uint64_t one = 1, two = 2; /* message_packets(one) == 1 < message_packets(two) at the end */
    while (host->message_packets(host->kernel, two) == 1) {
        one = two;
        two *= 2;
    }
    while (two - one > 1) {
        uint64_t mid = one + (two - one) / 2;
        if (host->message_packets(host->kernel, mid) == 1)
            one = mid;
        else
            two = mid;
    }
    return one;
}

/* The bytes of a message given as `bytes` bytes: one of 0 bytes is one
   packet, so it carries a packet's, packet_bytes. */
static inline uint64_t traffic_message_bytes(uint64_t bytes, uint64_t packet_bytes)
{
    return bytes ? bytes : packet_bytes;
}

#endif
