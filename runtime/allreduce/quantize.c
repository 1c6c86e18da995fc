/*
 * quantize.c - what the quantizing all-reduce algorithms (optinc.c,
 * quantized.c) share: the block quantizer and decoder, the aggregation of N
 * codes through the plan's table, the injected ONN output errors, and their
 * one run, in process and on MPI.
 *
 * Every server block-quantizes its gradient under the block's shared scale
 * (the largest magnitude over the servers), the codes are aggregated element
 * by element through the table an algorithm's prepare() built (plan.h), the
 * output codes may be changed by injected errors, and every server decodes
 * the same codes.  Determinism: the quantizer and the decoder are the only
 * float operations, shared by both backends; the index is integer
 * arithmetic, so the in-process path may fuse quantization and indexing per
 * element without changing a value.  Injected errors come from one random
 * stream per (seed, step, chunk), so they do not depend on which process
 * aggregates a chunk, nor on history.  Error feedback and stochastic
 * rounding (options of the plan) act on each server's own codes before the
 * aggregation, in one function both backends call; the residuals are the
 * caller's, the random fractions a counter-based draw of (seed, step,
 * server, element).
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "compiler/core/freeall.h"
#include "optinc/allreduce.h"
#include "optinc/rng.h"
#include "runtime/allreduce/plan.h"
#include "runtime/allreduce/workers.h"
#ifdef OPTINC_HAVE_MPI
#include "runtime/allreduce/backend.h"
#endif

/* The magnitude bits of *p: those of a float >= 0 order like the float. */
static inline int32_t magnitude(const float *p)
{
    int32_t a;
    memcpy(&a, p, sizeof a);
    return a & 0x7fffffff;         /* top bit cleared: signed order is fine */
}

/* Largest magnitude bits of g[i][lo..lo+len) over the servers i < N, an
 * exact integer maximum; four servers a pass, so the running maxima are
 * loaded and stored once per four. */
HOT static uint32_t absmax_bits(const float *const *g, int N, size_t lo, size_t len)
{
    int32_t m[TILE] = {0}, best = 0;
    size_t j = lo, end = lo + len;
    for (; j + TILE <= end; j += TILE) {
        int i = 0;
        for (; i + 4 <= N; i += 4) {
            const float *restrict p0 = g[i] + j, *restrict p1 = g[i + 1] + j;
            const float *restrict p2 = g[i + 2] + j, *restrict p3 = g[i + 3] + j;
            for (int t = 0; t < TILE; t++) {
                int32_t a0 = magnitude(p0 + t), a1 = magnitude(p1 + t);
                int32_t a2 = magnitude(p2 + t), a3 = magnitude(p3 + t);
                int32_t a = a0 > a1 ? a0 : a1, b = a2 > a3 ? a2 : a3;
                a = a > b ? a : b;
                m[t] = a > m[t] ? a : m[t];
            }
        }
        for (; i < N; i++) {
            const float *restrict p0 = g[i] + j;
            for (int t = 0; t < TILE; t++) {
                int32_t a = magnitude(p0 + t);
                m[t] = a > m[t] ? a : m[t];
            }
        }
    }
    for (; j < end; j++)
        for (int i = 0; i < N; i++) {
            int32_t a = magnitude(g[i] + j);
            best = a > best ? a : best;
        }
    for (int t = 0; t < TILE; t++)
        best = m[t] > best ? m[t] : best;
    return (uint32_t)best;
}

void optinc_ar_block_absmax(const optinc_allreduce *ar, const float *g, size_t n, float *absmax)
{
    size_t bs = (size_t)ar->cfg.block_size;
    for (size_t lo = 0, k = 0; lo < n; lo += bs, k++) {
        uint32_t m = absmax_bits(&g, 1, lo, lo + bs < n ? bs : n - lo);
        memcpy(&absmax[k], &m, sizeof m);
    }
}

/* Step and inverse step of a block: x = g * inv is the value in LSBs. */
static void block_steps(const optinc_allreduce *ar, float absmax, float *inv, float *step)
{
    float top = ar->top;
    *inv = absmax > 0.0f ? top / absmax : 0.0f;
    *step = absmax / top;
}

/* Codes are made in the bits of a float.  Adding 1.5 * 2^23 + off (off the
 * zero code, even) to a float x of magnitude below 2^22 rounds it to an
 * integer, half to even, in one correctly rounded addition (the constant is
 * even, so the tie goes where rint(x) goes), and leaves that integer in the
 * low bits: bits(x + 1.5 * 2^23 + off) = CODE_BIAS + rint(x) + off.  (C11
 * evaluates float in float here: FLT_EVAL_METHOD is 0 on every target we
 * build for.)  Integer arithmetic on the bits instead of a float-to-int
 * conversion lets the compiler vectorize the loops below; the index kernels
 * read a code from the low 8 bits of the word, or subtract the bias. */
#define CODE_BIAS 0x4b400000u

/* g * inv, the value in LSBs, clamped to [-top, top] (which also maps NaN
 * to -top, the lowest code). */
static inline float scaled_clamped(float g, float inv, float top)
{
    float x = g * inv;
    x = x > -top ? x : -top;
    return x < top ? x : top;
}

/* CODE_BIAS + rint(x) + off for x = scaled_clamped(g, inv, top). */
static inline uint32_t code_bits_clamped(float g, float inv, float top, float magic)
{
    float y = scaled_clamped(g, inv, top) + magic;
    uint32_t b;
    memcpy(&b, &y, sizeof b);
    return b;
}

/* The same without the clamp, for a block whose maximum and inverse step are
 * finite: then |g| <= max gives |g * inv| <= top (1 + 2^-23)^2, which rounds
 * into [-top, top] anyway, so the clamp would change nothing. */
static inline uint32_t code_bits(float g, float inv, float magic)
{
    float y = g * inv + magic;
    uint32_t b;
    memcpy(&b, &y, sizeof b);
    return b;
}

/* Whether a block's codes may skip the clamp (code_bits). */
static int clamp_free(float absmax, float inv)
{
    return absmax <= FLT_MAX && inv <= FLT_MAX;
}

/* codes[0..len) of g[0..len) under one block's inverse step; constant-trip
 * tiles, which the -O2 vectorizer takes, then the rest. */
HOT static void quantize_span(const float *restrict g, uint16_t *restrict codes, size_t len,
                          float inv, float top, uint32_t off)
{
    size_t j = 0;
    float magic = 0x1.8p23f + (float)off;
    for (; j + TILE <= len; j += TILE)
        for (int t = 0; t < TILE; t++)
            codes[j + t] = (uint16_t)(code_bits_clamped(g[j + t], inv, top, magic) - CODE_BIAS);
    for (; j < len; j++)
        codes[j] = (uint16_t)(code_bits_clamped(g[j], inv, top, magic) - CODE_BIAS);
}

HOT static void decode_span(const uint16_t *restrict codes, float *restrict g, size_t len,
                        float step, int off)
{
    size_t j = 0;
    for (; j + TILE <= len; j += TILE)
        for (int t = 0; t < TILE; t++)
            g[j + t] = (float)((int)codes[j + t] - off) * step;
    for (; j < len; j++)
        g[j] = (float)((int)codes[j] - off) * step;
}

void optinc_ar_quantize(const optinc_allreduce *ar, const float *g, size_t lo, size_t hi,
                        const float *absmax, uint16_t *codes)
{
    size_t bs = (size_t)ar->cfg.block_size;
    uint32_t off = ar->zero;
    for (size_t j = lo, end; j < hi; j = end) {
        size_t k = j / bs;
        float inv, step;
        end = (k + 1) * bs < hi ? (k + 1) * bs : hi;
        block_steps(ar, absmax[k], &inv, &step);
        quantize_span(g + j, codes + (j - lo), end - j, inv, ar->top, off);
    }
}

void optinc_ar_decode(const optinc_allreduce *ar, const uint16_t *codes, size_t lo, size_t hi,
                      const float *absmax, float *g)
{
    size_t bs = (size_t)ar->cfg.block_size;
    int off = (int)ar->zero;
    for (size_t j = lo, end; j < hi; j = end) {
        size_t k = j / bs;
        float inv, step;
        end = (k + 1) * bs < hi ? (k + 1) * bs : hi;
        block_steps(ar, absmax[k], &inv, &step);
        decode_span(codes + (j - lo), g + j, end - j, step, off);
    }
}

static int injecting(const optinc_allreduce *ar)
{
    const optinc_err_hist *h = ar->cfg.inject;
    return h && h->p_error > 0.0 && h->n > 0;
}

/* Injects output errors into out[0..len) of chunk c: error positions are
 * geometric gaps of rate p_error, so the cost is per error, not per element. */
static uint64_t inject(const optinc_allreduce *ar, uint64_t step, int c, uint16_t *out,
                       size_t len)
{
    const optinc_err_hist *h = ar->cfg.inject;
    if (!injecting(ar))
        return 0;
    optinc_rng rng;
    optinc_rng_stream(&rng, ar->cfg.seed ^ 0x696e6a6563746564ULL,
                      step * OPTINC_AR_MAX_SERVERS + (uint64_t)c);
    double lq = h->p_error >= 1.0 ? -INFINITY : log1p(-h->p_error);
    int top = (1 << ar->cfg.bits) - 1;
    uint64_t count = 0;
    for (size_t pos = 0;; pos++) {
        double gap = floor(log1p(-optinc_rng_uniform(&rng)) / lq);   /* -0/-inf = +0 */
        if (!(gap < (double)(len - pos)))
            break;
        pos += (size_t)gap;
        double u = optinc_rng_uniform(&rng);
        int b = 0;
        while (b < h->n - 1 && u >= h->cdf[b])
            b++;
        int v = (int)out[pos] + h->delta[b];
        out[pos] = (uint16_t)(v < 0 ? 0 : v > top ? top : v);
        count++;
    }
    return count;
}

/* ---- a server's own codes: error feedback and stochastic rounding ---------
 * Both act on one server's gradient before the aggregation, so both
 * backends do them in the same function (own_block) on the same values.
 * Stochastic rounding needs a random fraction per element that depends on
 * nothing but (seed, step, server, element): a counter-based draw, so the
 * bits are the same for any thread count and on MPI. */

/* The key of server `server`'s draws in step `step`. */
static uint64_t rounding_key(const optinc_allreduce *ar, uint64_t step, int server)
{
    optinc_rng rng;
    optinc_rng_stream(&rng, ar->cfg.seed ^ 0x726f756e64696e67ULL,   /* "rounding" */
                      step * OPTINC_AR_MAX_SERVERS + (uint64_t)server);
    return optinc_rng_u64(&rng);
}

/* The fraction of element j under key, in [0, 1) in steps of 2^-24:
 * splitmix64's finalizer over key + (j + 1) * golden ratio. */
static inline double draw(uint64_t key, uint64_t j)
{
    uint64_t z = key + (j + 1) * 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return (double)(z >> 40) * 0x1p-24;
}

/* One server's codes of g[lo..hi), a block under one scale (codes[0] is
 * element lo): rounded half to even like optinc_ar_quantize, or
 * stochastically, floor(x + u) with u the element's draw, which is x's
 * floor or ceiling with the probabilities that make its mean x (the sum
 * is exact in double: x has 24 significant bits below 2^7, u 24 bits below
 * 1).  With a residual e, leaves e = g - decode(codes) over the block (0
 * where that is not finite, so one bad gradient does not stay forever). */
static void own_block(const optinc_allreduce *ar, uint64_t key, const float *g, size_t lo,
                      size_t hi, float absmax, uint16_t *codes, float *e)
{
    uint32_t off = ar->zero;
    float top = ar->top, inv, stp;
    block_steps(ar, absmax, &inv, &stp);
    if (!ar->cfg.stochastic_rounding)
        quantize_span(g + lo, codes, hi - lo, inv, top, off);
    else
        for (size_t j = lo; j < hi; j++)
            codes[j - lo] = (uint16_t)((int)floor((double)scaled_clamped(g[j], inv, top) +
                                                 draw(key, j)) + (int)off);
    if (e)
        for (size_t j = lo; j < hi; j++) {
            float miss = g[j] - (float)((int)codes[j - lo] - (int)off) * stp;
            e[j] = isfinite(miss) ? miss : 0.0f;
        }
}

/* BODY for t < len: over a whole tile with a constant trip count (which
 * vectorizes), else element by element. */
#define TILE_LOOP(BODY)                                                                \
    do {                                                                               \
        if (len == TILE)                                                               \
            for (int t = 0; t < TILE; t++) {                                           \
                BODY;                                                                  \
            }                                                                          \
        else                                                                           \
            for (size_t t = 0; t < len; t++) {                                         \
                BODY;                                                                  \
            }                                                                          \
    } while (0)

/* One server's code u (in the low bits, over `bias`: 0 for codes, CODE_BIAS
 * for code bits) as its part of the table index; the index is the sum of the
 * N parts.  The ways to the digit-position sums:
 *   SUM     quantized: the word itself (the index is the sum of the codes,
 *           once N biases are taken off);
 *   NIBBLE  3N <= 15, 4 digits at most: (u | u << 14) & 0x330033 puts digits
 *           0 and 2 in the 4-bit fields at bits 0 and 4, digits 1 and 3 in
 *           those at bits 16 and 20, so the sum holds S_0, S_2, S_1, S_3
 *           without overflow;
 *   SPREAD  3N <= 255: the digits spread into the bytes of a word;
 *   GATHER  otherwise: the code's weight from the table.
 * Only GATHER loads; the others vectorize. */
static inline uint32_t part_sum(uint32_t u) { return u; }
static inline uint32_t part_nibble(uint32_t u) { return (u | u << 14) & 0x330033u; }
static inline uint32_t part_spread(uint32_t u)
{
    return (u & 3u) | (u & 0xcu) << 6 | (u & 0x30u) << 12 | (u & 0xc0u) << 18;
}
#define PART_GATHER(u) (weight[(u) - bias])

/* a[t] += the parts of every server's code VAL(p, t), p of type T the
 * server's source in SRC[i]: four servers a pass, so the accumulators are
 * loaded and stored once per four (integer sums: the grouping changes no
 * value). */
#define SUM_SERVERS(PART, T, SRC, VAL)                                                 \
    do {                                                                               \
        int i = 0;                                                                     \
        for (; i + 4 <= N; i += 4) {                                                   \
            const T *restrict p0 = SRC[i], *restrict p1 = SRC[i + 1];                  \
            const T *restrict p2 = SRC[i + 2], *restrict p3 = SRC[i + 3];              \
            TILE_LOOP(a[t] += (PART(VAL(p0, t)) + PART(VAL(p1, t))) +                  \
                              (PART(VAL(p2, t)) + PART(VAL(p3, t))));                  \
        }                                                                              \
        for (; i < N; i++) {                                                           \
            const T *restrict p0 = SRC[i];                                             \
            TILE_LOOP(a[t] += PART(VAL(p0, t)));                                       \
        }                                                                              \
    } while (0)

/* The index accumulators a[t] of the servers' codes, in the plan's mode. */
#define INDEX_SUMS(T, SRC, VAL)                                                        \
    do {                                                                               \
        const uint32_t *weight = ar->weight;                                           \
        int N = ar->cfg.servers;                                                       \
        switch (ar->index_mode) {                                                      \
        case AR_INDEX_SUM:                                                             \
            SUM_SERVERS(part_sum, T, SRC, VAL);                                        \
            break;                                                                     \
        case AR_INDEX_NIBBLE:                                                          \
            SUM_SERVERS(part_nibble, T, SRC, VAL);                                     \
            break;                                                                     \
        case AR_INDEX_SPREAD:                                                          \
            SUM_SERVERS(part_spread, T, SRC, VAL);                                     \
            break;                                                                     \
        default:                                                                       \
            SUM_SERVERS(PART_GATHER, T, SRC, VAL);                                     \
        }                                                                              \
    } while (0)

/* The accumulators -> table index -> output codes out[t], t < len.  The
 * lookup is a load per element from a table in cache (an AVX2 gather is no
 * faster on the machines we measured); what comes before and after it
 * vectorizes. */
static inline void mix_lookup(const optinc_allreduce *ar, uint32_t *restrict a, size_t len,
                              uint32_t bias, uint16_t *restrict out)
{
    if (ar->index_mode == AR_INDEX_SUM && bias) {
        uint32_t total = bias * (uint32_t)ar->cfg.servers;   /* modulo 2^32, like the sums */
        for (int t = 0; t < TILE; t++)
            a[t] -= total;
    }
    if (ar->index_mode == AR_INDEX_NIBBLE)
        for (int t = 0; t < TILE; t++)
            a[t] = (a[t] & 15u) | (a[t] >> 12 & 0xf0u) | (a[t] & 0xf0u) << 4 |
                   (a[t] >> 8 & 0xf000u);
    if (ar->index_mode == AR_INDEX_SPREAD) {
        uint32_t r1 = ar->radix_pow[1], r2 = ar->radix_pow[2], r3 = ar->radix_pow[3];
        for (int t = 0; t < TILE; t++) {
            uint32_t v = a[t];
            a[t] = (v & 255u) + r1 * (v >> 8 & 255u) + r2 * (v >> 16 & 255u) + r3 * (v >> 24);
        }
    }
    const uint16_t *table = ar->table;
    for (size_t t = 0; t < len; t++)
        out[t] = table[a[t]];
}

#define CODE_AT(p, t) (p[t])
#define BITS_CLAMPED_AT(p, t) code_bits_clamped(p[t], inv, top, magic)
#define BITS_AT(p, t) code_bits(p[t], inv, magic)

/* The same through a cascade (cascade.c): the servers' codes of the tile
 * first.  Not inlined, so that only this path has the codes' 128 KiB frame
 * (which stack-clash protection probes page by page). */
__attribute__((noinline)) static void cascade_floats(const optinc_allreduce *ar,
                                                     const float *const *g, size_t len,
                                                     float inv, uint16_t *restrict out)
{
    uint16_t q[OPTINC_AR_MAX_SERVERS][TILE];
    const uint16_t *src[OPTINC_AR_MAX_SERVERS];
    for (int i = 0; i < ar->cfg.servers; i++) {
        quantize_span(g[i], q[i], len, inv, ar->top, ar->zero);
        src[i] = q[i];
    }
    optinc_ar_cascade(ar, src, len, out);
}

/* Output codes of len <= TILE elements from the servers' codes. */
HOT static void lookup_codes(const optinc_allreduce *ar, const uint16_t *const *codes,
                             size_t len, uint16_t *restrict out)
{
    if (ar->levels) {
        optinc_ar_cascade(ar, codes, len, out);
        return;
    }
    uint32_t a[TILE] = {0}, bias = 0;
    INDEX_SUMS(uint16_t, codes, CODE_AT);
    mix_lookup(ar, a, len, bias, out);
}

/* The same from the servers' floats of one block, quantized on the fly (the
 * in-process path: no server's codes are stored), with the clamp only where
 * the block needs it. */
HOT static void lookup_floats(const optinc_allreduce *ar, const float *const *g, size_t len,
                              float inv, int clamp, uint16_t *restrict out)
{
    uint32_t a[TILE] = {0}, off = ar->zero, bias = CODE_BIAS;
    float top = ar->top, magic = 0x1.8p23f + (float)off;
    if (ar->levels) {
        cascade_floats(ar, g, len, inv, out);
        return;
    }
    if (clamp)
        INDEX_SUMS(float, g, BITS_CLAMPED_AT);
    else
        INDEX_SUMS(float, g, BITS_AT);
    mix_lookup(ar, a, len, bias, out);
}

uint64_t optinc_ar_aggregate(const optinc_allreduce *ar, uint64_t step, int c,
                             const uint16_t *const *codes, size_t lo, size_t hi, uint16_t *out)
{
    const uint16_t *tile[OPTINC_AR_MAX_SERVERS];
    for (size_t j = 0; j < hi - lo; j += TILE) {
        for (int i = 0; i < ar->cfg.servers; i++)
            tile[i] = codes[i] + j;
        lookup_codes(ar, tile, hi - lo - j < TILE ? hi - lo - j : TILE, out + j);
    }
    return inject(ar, step, c, out, hi - lo);
}

/* ---- the run ------------------------------------------------------------- */

/* The scratch buffers for n elements, kept between calls. */
static optinc_status scratch(optinc_allreduce *ar, size_t n, optinc_error *err)
{
    size_t nb = optinc_ar_blocks(ar, n);
    if (ar->cfg.error_feedback || ar->cfg.stochastic_rounding) {   /* every server's codes */
        size_t all = n * (size_t)ar->cfg.servers;
        if (n && all / n != (size_t)ar->cfg.servers)
            return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory");
        if (all > ar->cap_own) {
            free(ar->own_codes);
            ar->cap_own = (ar->own_codes = malloc(all * sizeof *ar->own_codes)) ? all : 0;
        }
        if (ar->cap_own < all)
            return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory");
    }
    if (nb > ar->cap_blocks) {
        free(ar->absmax);
        ar->cap_blocks = (ar->absmax = malloc(nb * sizeof *ar->absmax)) ? nb : 0;
    }
    if (n > ar->cap_n) {
        free(ar->codes);
        ar->cap_n = (ar->codes = malloc(n * sizeof *ar->codes)) ? n : 0;
    }
    if (ar->cap_blocks < nb || ar->cap_n < n)
        return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory");
    return OPTINC_OK;
}

/* One in-process call, cut into parts for the plan's threads. */
typedef struct codes_call {
    optinc_allreduce *ar;
    uint64_t step;
    float *const *g;
    size_t n;
    int fused;                                /* no injected errors: decode at once */
    uint64_t keys[OPTINC_AR_MAX_SERVERS];     /* stochastic rounding: each server's */
    uint64_t errors[OPTINC_AR_MAX_SERVERS];   /* injected, per chunk */
} codes_call;

/* Part `part` of `parts`: its share of the blocks, one after the other: the
 * block's shared scale (the largest magnitude over the servers, which leaves
 * the block's values in cache), then its tiles quantized and looked up on
 * the fly.  Fused, each tile is decoded and broadcast as soon as it is
 * looked up, while it is in cache (its inputs are consumed by then), so each
 * server's gradient is read once and written once. */
static void codes_part(void *ctx, int part, int parts)
{
    codes_call *call = ctx;
    optinc_allreduce *ar = call->ar;
    float *const *g = call->g;
    int N = ar->cfg.servers, off = (int)ar->zero;
    size_t bs = (size_t)ar->cfg.block_size, nb = optinc_ar_blocks(ar, call->n);
    const float *tile[OPTINC_AR_MAX_SERVERS];
    for (size_t k = nb * (size_t)part / (size_t)parts; k < nb * (size_t)(part + 1) / (size_t)parts;
         k++) {
        size_t lo = k * bs, hi = lo + bs < call->n ? lo + bs : call->n;
        uint32_t m = absmax_bits((const float *const *)g, N, lo, hi - lo);
        memcpy(&ar->absmax[k], &m, sizeof m);
        float inv, stp;
        block_steps(ar, ar->absmax[k], &inv, &stp);
        int clamp = !clamp_free(ar->absmax[k], inv);
        for (size_t j = lo; j < hi; j += TILE) {
            size_t len = hi - j < TILE ? hi - j : TILE;
            for (int i = 0; i < N; i++)
                tile[i] = g[i] + j;
            lookup_floats(ar, tile, len, inv, clamp, ar->codes + j);
            if (call->fused)     /* a decode per server: vector stores, no copy loop */
                for (int i = 0; i < N; i++)
                    decode_span(ar->codes + j, g[i] + j, len, stp, off);
        }
    }
}

/* The same when the servers keep residuals or round stochastically: per
 * block, each server's residual is added, the shared scale taken, and each
 * server's codes made by own_block (which keeps its new residual) before
 * the lookup. */
static void own_part(void *ctx, int part, int parts)
{
    codes_call *call = ctx;
    optinc_allreduce *ar = call->ar;
    float *const *g = call->g;
    int N = ar->cfg.servers, off = (int)ar->zero, ef = ar->cfg.error_feedback;
    size_t bs = (size_t)ar->cfg.block_size, n = call->n, nb = optinc_ar_blocks(ar, n);
    const uint16_t *src[OPTINC_AR_MAX_SERVERS];
    for (size_t k = nb * (size_t)part / (size_t)parts; k < nb * (size_t)(part + 1) / (size_t)parts;
         k++) {
        size_t lo = k * bs, hi = lo + bs < n ? lo + bs : n;
        for (int i = 0; ef && i < N; i++)
            optinc_ar_add(g[i] + lo, ar->residual[i] + lo, hi - lo);
        uint32_t m = absmax_bits((const float *const *)g, N, lo, hi - lo);
        memcpy(&ar->absmax[k], &m, sizeof m);
        for (int i = 0; i < N; i++)
            own_block(ar, call->keys[i], g[i], lo, hi, ar->absmax[k],
                      ar->own_codes + (size_t)i * n + lo, ef ? ar->residual[i] : NULL);
        float inv, stp;
        block_steps(ar, ar->absmax[k], &inv, &stp);
        for (size_t j = lo; j < hi; j += TILE) {
            size_t len = hi - j < TILE ? hi - j : TILE;
            for (int i = 0; i < N; i++)
                src[i] = ar->own_codes + (size_t)i * n + j;
            lookup_codes(ar, src, len, ar->codes + j);
            if (call->fused)
                for (int i = 0; i < N; i++)
                    decode_span(ar->codes + j, g[i] + j, len, stp, off);
        }
    }
}

/* Error feedback needs a residual beside each gradient of the call. */
static optinc_status check_residuals(const optinc_allreduce *ar, int count, optinc_error *err)
{
    if (!ar->cfg.error_feedback || ar->residuals >= count)
        return OPTINC_OK;
    return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                       "error feedback keeps a residual per server: %d of %d residual buffers "
                       "given; set them with optinc_allreduce_set_residuals",
                       ar->residuals, count);
}

/* With injected errors, after every block is looked up: part `part` takes
 * its share of the chunks, injects the errors of each (from the chunk's own
 * stream) and decodes and broadcasts it. */
static void inject_part(void *ctx, int part, int parts)
{
    codes_call *call = ctx;
    optinc_allreduce *ar = call->ar;
    int N = ar->cfg.servers;
    for (int c = N * part / parts; c < N * (part + 1) / parts; c++) {
        size_t lo, hi;
        optinc_ar_chunk(call->n, N, c, &lo, &hi);
        call->errors[c] = inject(ar, call->step, c, ar->codes + lo, hi - lo);
        optinc_ar_decode(ar, ar->codes + lo, lo, hi, ar->absmax, call->g[0]);
        for (int i = 1; i < N; i++)
            memcpy(call->g[i] + lo, call->g[0] + lo, (hi - lo) * sizeof(float));
    }
}

/* In process, on the plan's threads: the blocks shared out among them, then
 * (with injected errors) the chunks.  Every element's value depends only on
 * its block and its chunk, never on the part that computes it, so any
 * number of threads gives the same bytes. */
optinc_status optinc_ar_codes_inproc(optinc_allreduce *ar, uint64_t step, float *const *g,
                                     size_t n, uint64_t *errors, optinc_error *err)
{
    optinc_status st = check_residuals(ar, ar->cfg.servers, err);
    *errors = 0;
    if (st || (st = scratch(ar, n, err)))
        return st;
    codes_call call = {.ar = ar, .step = step, .g = g, .n = n, .fused = !injecting(ar)};
    int own = ar->cfg.error_feedback || ar->cfg.stochastic_rounding;
    for (int i = 0; own && ar->cfg.stochastic_rounding && i < ar->cfg.servers; i++)
        call.keys[i] = rounding_key(ar, step, i);
    ar_workers_run(ar->workers, own ? own_part : codes_part, &call);
    if (call.fused)
        return OPTINC_OK;
    ar_workers_run(ar->workers, inject_part, &call);
    for (int c = 0; c < ar->cfg.servers; c++)
        *errors += call.errors[c];
    return OPTINC_OK;
}

#ifdef OPTINC_HAVE_MPI
/* On MPI: the block maxima reduced with an unsigned maximum on their bits,
 * each rank quantizes its gradient, an all-to-all of code slices, rank c
 * aggregates chunk c (the table and the injected errors of chunk c), an
 * all-gather of the output codes, and every rank decodes. */
optinc_status optinc_ar_codes_mpi(optinc_comm *comm, optinc_allreduce *ar, uint64_t step,
                                  float *g, size_t n, uint64_t *errors, optinc_error *err)
{
    int N = comm->servers;
    size_t nb = optinc_ar_blocks(ar, n), lo, hi;
    optinc_ar_chunk(n, N, comm->rank, &lo, &hi);
    size_t len = hi - lo;
    float *absmax = malloc((nb + 1) * sizeof *absmax);
    uint16_t *codes = malloc((n + 1) * sizeof *codes);
    uint16_t *recv = malloc(((size_t)(N + 1) * len + 1) * sizeof *recv);
    optinc_status st = check_residuals(ar, 1, err);
    float *e = ar->cfg.error_feedback ? ar->residual[0] : NULL;
    *errors = 0;
    if (!st && (!absmax || !codes || !recv))
        st = optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory for the all-reduce");
    if (!st) {
        if (e)
            optinc_ar_add(g, e, n);
        optinc_ar_block_absmax(ar, g, n, absmax);
        st = optinc_mpi_max_u32(comm, absmax, nb, ar->what, err);
    }
    if (!st && (e || ar->cfg.stochastic_rounding)) {
        uint64_t key = ar->cfg.stochastic_rounding ? rounding_key(ar, step, comm->rank) : 0;
        size_t bs = (size_t)ar->cfg.block_size;
        for (size_t k = 0; k < nb; k++)
            own_block(ar, key, g, k * bs, (k + 1) * bs < n ? (k + 1) * bs : n, absmax[k],
                      codes + k * bs, e);
    } else if (!st)
        optinc_ar_quantize(ar, g, 0, n, absmax, codes);
    if (!st)
        st = optinc_mpi_scatter_chunks(comm, codes, n, recv, OPTINC_MPI_U16, ar->what, err);
    if (!st) {
        const uint16_t *src[OPTINC_AR_MAX_SERVERS];
        for (int i = 0; i < N; i++)
            src[i] = recv + (size_t)i * len;
        uint16_t *out = recv + (size_t)N * len;
        *errors = optinc_ar_aggregate(ar, step, comm->rank, src, lo, hi, out);
        st = optinc_mpi_gather_chunks(comm, out, n, codes, OPTINC_MPI_U16, ar->what, err);
    }
    if (!st)
        optinc_ar_decode(ar, codes, 0, n, absmax, g);
    OPTINC_FREE_ALL(absmax, codes, recv);
    return st;
}
#endif
