/* length.c — message lengths in bytes, cut into packets by the host; see
 * length.h. */
#include "length.h"

#include "packet_bytes.h"

#include <math.h>

enum { L_DIST, L_BYTES, L_MIN, L_MAX, L_LONG, L_SHARE };

static const char *const dist_names[] = {"fixed", "uniform", "exponential", "bimodal"};

static uint32_t packets_of(const insee_host *host, uint64_t bytes)
{
    return host->message_packets(host->kernel, bytes);
}

/* sum_{x=1}^{n} ceil(x / b): q full packets of b bytes each count 1..q
   b times over, the r bytes after them count q + 1. */
static double ceil_sum(uint64_t n, uint64_t b)
{
    double q = (double)(n / b), r = (double)(n % b);
    return (double)b * q * (q + 1) / 2 + r * (q + 1);
}

bool traffic_length_init(traffic_length *l, const char *who, const insee_host *host,
                         const insee_value *params, insee_error *err)
{
    *l = (traffic_length){.dist = (traffic_length_dist)params[L_DIST].i, .host = host,
                          .packet_bytes = traffic_packet_bytes(host)};
    uint64_t bytes = (uint64_t)params[L_BYTES].i;
    uint64_t low = (uint64_t)params[L_MIN].i, high = (uint64_t)params[L_MAX].i;
    const char *name = dist_names[l->dist];
    switch (l->dist) {
    case TRAFFIC_LENGTH_FIXED:
        l->packets = bytes == 0 ? 1 : packets_of(host, bytes);
        l->bytes = traffic_message_bytes(bytes, l->packet_bytes);
        l->mean_packets = l->packets;
        return true;
    case TRAFFIC_LENGTH_UNIFORM: {
        if (low > high) {
            insee_error_set(err, INSEE_ERR_PARAM,
                            "%s: length_dist = \"%s\" draws between message_bytes_min (%llu) "
                            "and message_bytes_max (%llu); set message_bytes_min <= "
                            "message_bytes_max",
                            who, name, (unsigned long long)low, (unsigned long long)high);
            return false;
        }
        l->low = low;
        l->span = high - low + 1;
        /* Byte 0 is one packet, like byte 1. */
        uint64_t b = l->packet_bytes, from = low ? low : 1;
        double sum = ceil_sum(high, b) - ceil_sum(from - 1, b) + (low == 0);
        l->mean_packets = sum / (double)l->span;
        return true;
    }
    case TRAFFIC_LENGTH_EXPONENTIAL: {
        if ((double)bytes > TRAFFIC_LENGTH_MAX_MEAN) {
            insee_error_set(err, INSEE_ERR_PARAM,
                            "%s: length_dist = \"%s\" takes its mean from message_bytes, which "
                            "is %llu; set it to at most %.0f bytes",
                            who, name, (unsigned long long)bytes, TRAFFIC_LENGTH_MAX_MEAN);
            return false;
        }
        uint64_t b = l->packet_bytes;
        l->mean_bytes = (double)(bytes ? bytes : b);
        /* ceil(ceil(X) / B) = ceil(X / B) is geometric: P(more than k
           packets) = P(X > kB) = e^(-kB/mean), summing to 1 / (1 - e^(-B/mean)). */
        l->mean_packets = -1.0 / expm1(-(double)b / l->mean_bytes);
        return true;
    }
    case TRAFFIC_LENGTH_BIMODAL:
        l->packets = packets_of(host, bytes); /* 0 bytes: one packet */
        l->long_packets = packets_of(host, (uint64_t)params[L_LONG].i);
        l->bytes = traffic_message_bytes(bytes, l->packet_bytes);
        l->long_bytes = traffic_message_bytes((uint64_t)params[L_LONG].i, l->packet_bytes);
        l->long_share = params[L_SHARE].d;
        l->mean_packets = (1 - l->long_share) * l->packets + l->long_share * l->long_packets;
        return true;
    }
    return false; /* the kernel checked the choice */
}

/* A drawn length of `bytes` bytes into msg. */
static void set_length(const traffic_length *l, uint64_t bytes, insee_message *msg)
{
    msg->packets = packets_of(l->host, bytes);
    msg->bytes = traffic_message_bytes(bytes, l->packet_bytes);
}

void traffic_length_draw(const traffic_length *l, insee_rng *rng, insee_message *msg)
{
    switch (l->dist) {
    case TRAFFIC_LENGTH_UNIFORM:
        set_length(l, l->low + insee_rng_below(rng, (uint32_t)l->span), msg);
        return;
    case TRAFFIC_LENGTH_EXPONENTIAL: {
        double x = -l->mean_bytes * log(1.0 - insee_rng_double(rng)); /* 1 - u in (0, 1] */
        double bytes = ceil(x);
        set_length(l,
                   bytes < TRAFFIC_LENGTH_MAX_BYTES ? (uint64_t)bytes
                                                    : (uint64_t)TRAFFIC_LENGTH_MAX_BYTES,
                   msg);
        return;
    }
    case TRAFFIC_LENGTH_BIMODAL: {
        bool is_long = insee_rng_double(rng) < l->long_share;
        msg->packets = is_long ? l->long_packets : l->packets;
        msg->bytes = is_long ? l->long_bytes : l->bytes;
        return;
    }
    default:
        msg->packets = l->packets;
        msg->bytes = l->bytes;
    }
}
