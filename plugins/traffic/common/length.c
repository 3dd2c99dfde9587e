/* length.c — message lengths in bytes, cut into packets by the host; see
 * length.h. */
#include "length.h"

#include <math.h>

enum { L_DIST, L_BYTES, L_MIN, L_MAX, L_LONG, L_SHARE };

static const char *const dist_names[] = {"fixed", "uniform", "exponential", "bimodal"};

static uint32_t packets_of(const insee_host *host, uint64_t bytes)
{
    return host->message_packets(host->kernel, bytes);
}

/* B = L x phit_bytes, the bytes a packet carries: the longest message that
   is still one packet, found through message_packets() (the host alone
   knows phit_bytes). */
static uint64_t packet_bytes(const insee_host *host)
{
    uint64_t one = 1, two = 2; /* packets_of(one) == 1 < packets_of(two) at the end */
    while (packets_of(host, two) == 1) {
        one = two;
        two *= 2;
    }
    while (two - one > 1) {
        uint64_t mid = one + (two - one) / 2;
        if (packets_of(host, mid) == 1)
            one = mid;
        else
            two = mid;
    }
    return one;
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
    *l = (traffic_length){.dist = (traffic_length_dist)params[L_DIST].i, .host = host};
    uint64_t bytes = (uint64_t)params[L_BYTES].i;
    uint64_t low = (uint64_t)params[L_MIN].i, high = (uint64_t)params[L_MAX].i;
    const char *name = dist_names[l->dist];
    switch (l->dist) {
    case TRAFFIC_LENGTH_FIXED:
        l->packets = bytes == 0 ? 1 : packets_of(host, bytes);
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
        uint64_t b = packet_bytes(host), from = low ? low : 1;
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
        uint64_t b = packet_bytes(host);
        l->mean_bytes = (double)(bytes ? bytes : b);
        /* ceil(ceil(X) / B) = ceil(X / B) is geometric: P(more than k
           packets) = P(X > kB) = e^(-kB/mean), summing to 1 / (1 - e^(-B/mean)). */
        l->mean_packets = -1.0 / expm1(-(double)b / l->mean_bytes);
        return true;
    }
    case TRAFFIC_LENGTH_BIMODAL:
        l->packets = packets_of(host, bytes); /* 0 bytes: one packet */
        l->long_packets = packets_of(host, (uint64_t)params[L_LONG].i);
        l->long_share = params[L_SHARE].d;
        l->mean_packets = (1 - l->long_share) * l->packets + l->long_share * l->long_packets;
        return true;
    }
    return false; /* the kernel checked the choice */
}

uint32_t traffic_length_draw(const traffic_length *l, insee_rng *rng)
{
    switch (l->dist) {
    case TRAFFIC_LENGTH_UNIFORM:
        return packets_of(l->host, l->low + insee_rng_below(rng, (uint32_t)l->span));
    case TRAFFIC_LENGTH_EXPONENTIAL: {
        double x = -l->mean_bytes * log(1.0 - insee_rng_double(rng)); /* 1 - u in (0, 1] */
        double bytes = ceil(x);
        return packets_of(l->host,
                          bytes < TRAFFIC_LENGTH_MAX_BYTES ? (uint64_t)bytes
                                                           : (uint64_t)TRAFFIC_LENGTH_MAX_BYTES);
    }
    case TRAFFIC_LENGTH_BIMODAL:
        return insee_rng_double(rng) < l->long_share ? l->long_packets : l->packets;
    default:
        return l->packets;
    }
}
