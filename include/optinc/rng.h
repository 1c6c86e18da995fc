/*
 * rng.h - the seeded random number generator every random choice goes through.
 *
 * xoshiro256** seeded through splitmix64: fast, small state, and bit-identical on
 * every platform, which the determinism rule (same seed, same result on every
 * backend) needs; normal deviates go through libm's log, which glibc's FMA
 * and non-FMA paths may round apart in a rare last bit.  Normal deviates use the polar Box-Muller method without a
 * cached second value, so a stream's values never depend on call history outside
 * the generator state.
 */
#ifndef OPTINC_RNG_H
#define OPTINC_RNG_H

#include <stdint.h>

typedef struct optinc_rng {
    uint64_t s[4];
} optinc_rng;

void optinc_rng_seed(optinc_rng *rng, uint64_t seed);
uint64_t optinc_rng_u64(optinc_rng *rng);
double optinc_rng_uniform(optinc_rng *rng);          /* in [0, 1) */
double optinc_rng_normal(optinc_rng *rng);           /* N(0, 1) */
uint64_t optinc_rng_below(optinc_rng *rng, uint64_t n);  /* uniform in [0, n) */

/* A new independent stream derived from a seed and a stream index, so that
 * servers, chips and layers each draw from their own sequence. */
void optinc_rng_stream(optinc_rng *rng, uint64_t seed, uint64_t stream);

#endif
