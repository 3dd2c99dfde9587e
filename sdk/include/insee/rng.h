/* insee/rng.h — the deterministic random streams every plugin draws from.
 *
 * Contract: a plugin never calls rand() or reads the clock for randomness.
 * The kernel hands out insee_rng streams (in route contexts, to traffic
 * sources, through insee_host.rng_seed), each derived from the experiment seed
 * and a stream id, so the same config and seed give byte-identical results on
 * any machine and in any plugin combination. The generator is xoshiro256**,
 * defined inline here so plugins need no kernel symbol to draw a number.
 * A stream is plain data owned by whoever holds it; copying one forks it.
 */
#ifndef INSEE_RNG_H
#define INSEE_RNG_H

#include <math.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct insee_rng {
    uint64_t s[4];
} insee_rng;

static inline uint64_t insee_rng_rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

/* splitmix64 step: used to expand a seed into a full state. */
static inline uint64_t insee_rng_splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Seed a stream from an experiment seed and a stream id. */
static inline void insee_rng_init(insee_rng *r, uint64_t seed, uint64_t stream)
{
    uint64_t x = seed ^ (stream * 0xd1342543de82ef95ull + 0x2545f4914f6cdd1dull);
    for (int i = 0; i < 4; i++)
        r->s[i] = insee_rng_splitmix(&x);
}

static inline uint64_t insee_rng_u64(insee_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = insee_rng_rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = insee_rng_rotl(s[3], 45);
    return result;
}

/* Uniform double in [0, 1). */
static inline double insee_rng_double(insee_rng *r)
{
    return (double)(insee_rng_u64(r) >> 11) * 0x1.0p-53;
}

/* Uniform integer in [0, n), n > 0, without modulo bias (Lemire). */
static inline uint32_t insee_rng_below(insee_rng *r, uint32_t n)
{
    uint64_t m = (uint64_t)(uint32_t)(insee_rng_u64(r) >> 32) * n;
    uint32_t low = (uint32_t)m;
    if (low < n) {
        uint32_t threshold = (uint32_t)(-n) % n;
        while (low < threshold) {
            m = (uint64_t)(uint32_t)(insee_rng_u64(r) >> 32) * n;
            low = (uint32_t)m;
        }
    }
    return (uint32_t)(m >> 32);
}

/* Number of Bernoulli(p) failures before the first success, p in (0, 1]:
 * the gap a Bernoulli source waits, drawn once instead of a die per cycle. */
static inline uint64_t insee_rng_geometric(insee_rng *r, double p)
{
    if (p >= 1.0)
        return 0;
    double u = 1.0 - insee_rng_double(r); /* (0, 1] */
    double g = floor(log(u) / log1p(-p));
    return g >= 1e18 ? (uint64_t)1e18 : (uint64_t)g;
}

#ifdef __cplusplus
}
#endif
#endif
