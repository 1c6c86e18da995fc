/*
 * rng.c - xoshiro256** with splitmix64 seeding (see rng.h for why).
 */
#include <math.h>
#include "optinc/rng.h"

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void optinc_rng_seed(optinc_rng *rng, uint64_t seed)
{
    uint64_t x = seed;
    for (int i = 0; i < 4; i++)
        rng->s[i] = splitmix64(&x);
}

void optinc_rng_stream(optinc_rng *rng, uint64_t seed, uint64_t stream)
{
    uint64_t x = seed ^ (stream * 0xd1b54a32d192ed03ULL);
    optinc_rng_seed(rng, splitmix64(&x) ^ stream);
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t optinc_rng_u64(optinc_rng *rng)
{
    uint64_t *s = rng->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double optinc_rng_uniform(optinc_rng *rng)
{
    return (double)(optinc_rng_u64(rng) >> 11) * 0x1.0p-53;
}

uint64_t optinc_rng_below(optinc_rng *rng, uint64_t n)
{
    /* Rejection keeps the distribution exactly uniform. */
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t x;
    do
        x = optinc_rng_u64(rng);
    while (x >= limit);
    return x % n;
}

double optinc_rng_normal(optinc_rng *rng)
{
    double u, v, s;
    do {
        u = 2.0 * optinc_rng_uniform(rng) - 1.0;
        v = 2.0 * optinc_rng_uniform(rng) - 1.0;
        s = u * u + v * v;
    } while (s >= 1.0 || s == 0.0);
    return u * sqrt(-2.0 * log(s) / s);
}
