/*
 * quantize.c - what the quantizing all-reduce algorithms (optinc.c,
 * quantized.c) share: the block quantizer and decoder, the aggregation of N
 * codes through the plan's table, the injected ONN output errors, and their
 * one run, in process and on MPI.
 *
 * Every server block-quantizes its gradient under the block's shared scale
 * (the largest finite magnitude over the servers, unless an outlier would
 * take it; non-finite values reach every server where they were: see
 * "block scales" below), the codes are aggregated element
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

/* ---- block scales ---------------------------------------------------------
 * A block's scale is the largest finite magnitude of its values over the
 * servers, with two exceptions, so that one bad value cannot decide the
 * codes of its whole block:
 *  - non-finite values (inf, NaN) take no part in it.  The average of an
 *    element where a server's value is not finite is what IEEE arithmetic
 *    makes of the sum (NaN with a NaN or with both infinities, else that
 *    infinity), on every server; the other elements decode as they would
 *    with a zero there (nonfinite_tile, put_nonfinite).
 *  - outliers: a server's value is one when it is more than top times the
 *    OUTLIERS+1-th largest magnitude m of the server's block (so at most
 *    OUTLIERS of them, and m > 0).  The server's scale is then the largest
 *    of its magnitudes not above top * m, and its outliers saturate at the
 *    top code (error feedback keeps the rest in its residual).
 * The block's scale is the largest of the servers' scales.  A server with
 * finite values and no outlier has its largest magnitude as its scale, so
 * such blocks quantize exactly as plain maximum scaling does.  The maxima
 * of the block's LANES interleaved lanes (one vectorized pass) show at
 * once, in the usual case, that there is no outlier: when the largest is
 * within top times the smallest nonzero one, or the OUTLIERS+1-th largest
 * (either is at most m, with OUTLIERS+1 nonzero lanes).  Otherwise a scalar
 * pass finds the largest magnitudes.  Maxima are compared as the integers
 * of their bits, exactly; the outlier test is one float product and
 * comparison, the same on every server. */
#define LANES 16
#define OUTLIERS 3
#define INF_BITS 0x7f800000u

/* What a block's scale found (flags, ORed over the servers). */
enum { BLOCK_NONFINITE = 1, BLOCK_SATURATES = 2 };

/* The magnitude bits of *p: those of a float >= 0 order like the float. */
static inline int32_t magnitude(const float *p)
{
    int32_t a;
    memcpy(&a, p, sizeof a);
    return a & 0x7fffffff;         /* top bit cleared: signed order is fine */
}

/* lane[i][t]: the largest magnitude bits of g[i][lo..lo+len) over the
 * elements of lane t < LANES (lo + t mod LANES), for every server i < N,
 * non-finite ones included (they are the largest).  A tile of each server
 * in turn, so the servers' streams are read side by side; within one, a
 * constant trip count, which vectorizes. */
HOT static void lane_maxima(const float *const *g, int N, size_t lo, size_t len,
                            uint32_t (*lane)[LANES])
{
    for (int i = 0; i < N; i++)
        for (int t = 0; t < LANES; t++)
            lane[i][t] = 0;
    for (size_t at = 0; at < len; at += TILE) {
        size_t end = len - at < TILE ? len : at + TILE;
        for (int i = 0; i < N; i++) {
            const float *p = g[i] + lo;
            int32_t m[LANES];
            memcpy(m, lane[i], sizeof m);
            size_t j = at;
            for (; j + LANES <= end; j += LANES)
                for (int t = 0; t < LANES; t++) {
                    int32_t x = magnitude(p + j + t);
                    m[t] = x > m[t] ? x : m[t];
                }
            for (int t = 0; j + (size_t)t < end; t++) {
                int32_t x = magnitude(p + j + t);
                m[t] = x > m[t] ? x : m[t];
            }
            memcpy(lane[i], m, sizeof m);
        }
    }
}

static float bits_float(uint32_t b)
{
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

/* Whether maximum `big` is an outlier against magnitude `ref`. */
static int beyond(const optinc_allreduce *ar, uint32_t big, uint32_t ref)
{
    return bits_float(big) > ar->top * bits_float(ref);
}

/* m[0..OUTLIERS] += a, kept in descending order (m[OUTLIERS] the least). */
static void keep_largest(uint32_t *m, uint32_t a)
{
    int k = OUTLIERS;
    if (a <= m[k])
        return;
    for (; k > 0 && m[k - 1] < a; k--)
        m[k] = m[k - 1];
    m[k] = a;
}

/* One server's scale of its block g[0..len) of these lane maxima (bits);
 * ORs BLOCK_* into *flags. */
static uint32_t server_scale(const optinc_allreduce *ar, const float *g, size_t len,
                             const uint32_t *lane, unsigned *flags)
{
    uint32_t most = 0, least = UINT32_MAX, top[OUTLIERS + 1] = {0};
    int nonzero = 0;
    for (int t = 0; t < LANES; t++) {
        most = lane[t] > most ? lane[t] : most;
        least = lane[t] && lane[t] < least ? lane[t] : least;
        nonzero += lane[t] != 0;
    }
    if (most >= INF_BITS)
        *flags |= BLOCK_NONFINITE;
    else if (nonzero > OUTLIERS && !beyond(ar, most, least))
        return most;                                 /* the usual case */
    else {
        for (int t = 0; t < LANES; t++)
            keep_largest(top, lane[t]);
        if (top[OUTLIERS] && !beyond(ar, most, top[OUTLIERS]))
            return most;
    }
    uint32_t m[OUTLIERS + 1] = {0};                  /* the largest finite magnitudes */
    for (size_t j = 0; j < len; j++) {
        uint32_t a = (uint32_t)magnitude(g + j);
        if (a < INF_BITS)
            keep_largest(m, a);
    }
    int k = 0;
    while (m[OUTLIERS] && beyond(ar, m[k], m[OUTLIERS]))
        k++;
    if (k)
        *flags |= BLOCK_SATURATES;
    return m[k];
}

/* The block scale of g[i][lo..lo+len) over the servers i < N (bits). */
static uint32_t block_scale(const optinc_allreduce *ar, const float *const *g, int N,
                            size_t lo, size_t len, unsigned *flags)
{
    uint32_t lane[OPTINC_AR_MAX_SERVERS][LANES], best = 0;
    lane_maxima(g, N, lo, len, lane);
    for (int i = 0; i < N; i++) {
        uint32_t s = server_scale(ar, g[i] + lo, len, lane[i], flags);
        best = s > best ? s : best;
    }
    return best;
}

void optinc_ar_block_scales(const optinc_allreduce *ar, const float *g, size_t n, float *scale,
                            uint32_t *nonfinite)
{
    size_t bs = (size_t)ar->cfg.block_size;
    for (size_t lo = 0, k = 0; lo < n; lo += bs, k++) {
        unsigned flags = 0;
        uint32_t m = block_scale(ar, &g, 1, lo, lo + bs < n ? bs : n - lo, &flags);
        memcpy(&scale[k], &m, sizeof m);
        nonfinite[k] = flags & BLOCK_NONFINITE;
    }
}

/* What a server's non-finite value x adds to its element's kinds. */
static unsigned nonfinite_kind(float x)
{
    return isnan(x) ? 4u : isinf(x) ? (x > 0 ? 1u : 2u) : 0u;
}

/* The average of an element of these kinds (1: +inf, 2: -inf, 4: NaN
 * among the servers' values); 0 when all were finite. */
static float nonfinite_value(unsigned kinds)
{
    return kinds & 4 || kinds == 3 ? NAN : kinds == 1 ? INFINITY : kinds == 2 ? -INFINITY : 0.0f;
}

/* v[t], t < len: the average's non-finite value of element j + t from the
 * servers' values g[i][j + t] (0 where they are finite); whether any. */
static int nonfinite_tile(const float *const *g, int N, size_t j, size_t len, float *v)
{
    int any = 0;
    for (size_t t = 0; t < len; t++) {
        unsigned kinds = 0;
        for (int i = 0; i < N; i++)
            kinds |= nonfinite_kind(g[i][j + t]);
        v[t] = nonfinite_value(kinds);
        any |= kinds != 0;
    }
    return any;
}

/* g[t] = v[t] where v[t] is not finite, t < len. */
static void put_nonfinite(const float *v, size_t len, float *g)
{
    for (size_t t = 0; t < len; t++)
        if (!isfinite(v[t]))
            g[t] = v[t];
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

/* Code arrays.  The in-process path keeps codes in 16-bit words; on MPI
 * they travel in the narrowest unit that holds b bits (bytes for b <= 8, a
 * quarter of a float's bytes), and the kernels that make, aggregate and
 * decode them work in that unit directly, so no pass narrows or widens
 * them.  A code array is a pointer and `wide` (nonzero: 16-bit words);
 * OVER_UNIT runs BODY with C the array as T *, the one loop written once. */
#define OVER_UNIT(wide, codes, BODY)                                                   \
    do {                                                                               \
        if (wide) {                                                                    \
            typedef uint16_t T;                                                        \
            T *restrict C = (T *)(codes);                                              \
            BODY;                                                                      \
        } else {                                                                       \
            typedef uint8_t T;                                                         \
            T *restrict C = (T *)(codes);                                              \
            BODY;                                                                      \
        }                                                                              \
    } while (0)

/* Whether the plan's codes need 16-bit units. */
static int wide_codes(const optinc_allreduce *ar)
{
    return ar->cfg.bits > 8;
}

/* Element j of a code array in units of `wide`. */
static void *code_at(const void *codes, int wide, size_t j)
{
    return (char *)codes + j * (wide ? 2 : 1);
}

/* codes[0..len) of g[0..len) under one block's inverse step; constant-trip
 * tiles, which the -O2 vectorizer takes, then the rest. */
HOT static void quantize_span(const float *restrict g, void *codes, int wide, size_t len,
                              float inv, float top, uint32_t off)
{
    float magic = 0x1.8p23f + (float)off;
    OVER_UNIT(wide, codes, {
        size_t j = 0;
        for (; j + TILE <= len; j += TILE)
            for (int t = 0; t < TILE; t++)
                C[j + t] = (T)(code_bits_clamped(g[j + t], inv, top, magic) - CODE_BIAS);
        for (; j < len; j++)
            C[j] = (T)(code_bits_clamped(g[j], inv, top, magic) - CODE_BIAS);
    });
}

HOT static void decode_span(const void *codes, int wide, float *restrict g, size_t len,
                            float step, int off)
{
    OVER_UNIT(wide, codes, {
        size_t j = 0;
        for (; j + TILE <= len; j += TILE)
            for (int t = 0; t < TILE; t++)
                g[j + t] = (float)((int)C[j + t] - off) * step;
        for (; j < len; j++)
            g[j] = (float)((int)C[j] - off) * step;
    });
}

/* codes (in units of `wide`) of g[lo..hi) under the blocks' scales. */
static void quantize_unit(const optinc_allreduce *ar, const float *g, size_t lo, size_t hi,
                          const float *absmax, void *codes, int wide)
{
    size_t bs = (size_t)ar->cfg.block_size;
    uint32_t off = ar->zero;
    for (size_t j = lo, end; j < hi; j = end) {
        size_t k = j / bs;
        float inv, step;
        end = (k + 1) * bs < hi ? (k + 1) * bs : hi;
        block_steps(ar, absmax[k], &inv, &step);
        quantize_span(g + j, code_at(codes, wide, j - lo), wide, end - j, inv, ar->top, off);
    }
}

void optinc_ar_quantize(const optinc_allreduce *ar, const float *g, size_t lo, size_t hi,
                        const float *absmax, uint16_t *codes)
{
    quantize_unit(ar, g, lo, hi, absmax, codes, 1);
}

/* g[lo..hi) decoded from codes (in units of `wide`) under the blocks' scales. */
static void decode_unit(const optinc_allreduce *ar, const void *codes, int wide, size_t lo,
                        size_t hi, const float *absmax, float *g)
{
    size_t bs = (size_t)ar->cfg.block_size;
    int off = (int)ar->zero;
    for (size_t j = lo, end; j < hi; j = end) {
        size_t k = j / bs;
        float inv, step;
        end = (k + 1) * bs < hi ? (k + 1) * bs : hi;
        block_steps(ar, absmax[k], &inv, &step);
        decode_span(code_at(codes, wide, j - lo), wide, g + j, end - j, step, off);
    }
}

void optinc_ar_decode(const optinc_allreduce *ar, const uint16_t *codes, size_t lo, size_t hi,
                      const float *absmax, float *g)
{
    decode_unit(ar, codes, 1, lo, hi, absmax, g);
}

static int injecting(const optinc_allreduce *ar)
{
    const optinc_err_hist *h = ar->cfg.inject;
    return h && h->p_error > 0.0 && h->n > 0;
}

/* Injects output errors into out[0..len) of chunk c: error positions are
 * geometric gaps of rate p_error, so the cost is per error, not per element. */
static uint64_t inject(const optinc_allreduce *ar, uint64_t step, int c, void *out, int wide,
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
        OVER_UNIT(wide, out, {
            int v = (int)C[pos] + h->delta[b];
            C[pos] = (T)(v < 0 ? 0 : v > top ? top : v);
        });
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
                      size_t hi, float absmax, void *codes, int wide, float *e)
{
    uint32_t off = ar->zero;
    float top = ar->top, inv, stp;
    block_steps(ar, absmax, &inv, &stp);
    if (!ar->cfg.stochastic_rounding)
        quantize_span(g + lo, codes, wide, hi - lo, inv, top, off);
    else
        OVER_UNIT(wide, codes, {
            for (size_t j = lo; j < hi; j++)
                C[j - lo] = (T)((int)floor((double)scaled_clamped(g[j], inv, top) +
                                           draw(key, j)) + (int)off);
        });
    if (e)
        OVER_UNIT(wide, codes, {
            for (size_t j = lo; j < hi; j++) {
                float miss = g[j] - (float)((int)C[j - lo] - (int)off) * stp;
                e[j] = isfinite(miss) ? miss : 0.0f;
            }
        });
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
                              uint32_t bias, void *out, int wide)
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
    OVER_UNIT(wide, out, {
        for (size_t t = 0; t < len; t++)
            C[t] = (T)table[a[t]];
    });
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
        quantize_span(g[i], q[i], 1, len, inv, ar->top, ar->zero);
        src[i] = q[i];
    }
    optinc_ar_cascade(ar, (const void *const *)src, 1, len, out);
}

/* Output codes of len <= TILE elements from the servers' codes (all in
 * units of `wide`). */
HOT static void lookup_codes(const optinc_allreduce *ar, const void *const *codes, int wide,
                             size_t len, void *out)
{
    if (ar->levels) {
        optinc_ar_cascade(ar, codes, wide, len, out);
        return;
    }
    uint32_t a[TILE] = {0}, bias = 0;
    if (wide)
        INDEX_SUMS(uint16_t, ((const uint16_t *const *)codes), CODE_AT);
    else
        INDEX_SUMS(uint8_t, ((const uint8_t *const *)codes), CODE_AT);
    mix_lookup(ar, a, len, bias, out, wide);
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
    mix_lookup(ar, a, len, bias, out, 1);
}

/* optinc_ar_aggregate with codes and out in units of `wide`. */
static uint64_t aggregate_unit(const optinc_allreduce *ar, uint64_t step, int c,
                               const void *const *codes, int wide, size_t lo, size_t hi,
                               void *out)
{
    const void *tile[OPTINC_AR_MAX_SERVERS];
    for (size_t j = 0; j < hi - lo; j += TILE) {
        for (int i = 0; i < ar->cfg.servers; i++)
            tile[i] = code_at(codes[i], wide, j);
        lookup_codes(ar, tile, wide, hi - lo - j < TILE ? hi - lo - j : TILE,
                     code_at(out, wide, j));
    }
    return inject(ar, step, c, out, wide, hi - lo);
}

uint64_t optinc_ar_aggregate(const optinc_allreduce *ar, uint64_t step, int c,
                             const uint16_t *const *codes, size_t lo, size_t hi, uint16_t *out)
{
    return aggregate_unit(ar, step, c, (const void *const *)codes, 1, lo, hi, out);
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
        OPTINC_FREE_ALL(ar->absmax, ar->block_flags);
        ar->absmax = malloc(nb * sizeof *ar->absmax);
        ar->block_flags = malloc(nb);
        ar->cap_blocks = ar->absmax && ar->block_flags ? nb : 0;
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

/* Every server's g[i][j..j+len) (len <= TILE, in one block of these flags
 * and this step) decoded from the output codes, with the average's
 * non-finite values where a server's value was not finite (found before
 * the decode overwrites them; nf is room for TILE of them). */
static void decode_tile(const optinc_allreduce *ar, float *const *g, size_t j, size_t len,
                        float stp, unsigned flags, float *nf)
{
    int N = ar->cfg.servers, any = flags & BLOCK_NONFINITE &&
                                   nonfinite_tile((const float *const *)g, N, j, len, nf);
    for (int i = 0; i < N; i++) {
        decode_span(ar->codes + j, 1, g[i] + j, len, stp, (int)ar->zero);
        if (any)
            put_nonfinite(nf, len, g[i] + j);
    }
}

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
    int N = ar->cfg.servers;
    size_t bs = (size_t)ar->cfg.block_size, nb = optinc_ar_blocks(ar, call->n);
    const float *tile[OPTINC_AR_MAX_SERVERS];
    for (size_t k = nb * (size_t)part / (size_t)parts; k < nb * (size_t)(part + 1) / (size_t)parts;
         k++) {
        size_t lo = k * bs, hi = lo + bs < call->n ? lo + bs : call->n;
        unsigned flags = 0;
        uint32_t m = block_scale(ar, (const float *const *)g, N, lo, hi - lo, &flags);
        memcpy(&ar->absmax[k], &m, sizeof m);
        ar->block_flags[k] = (unsigned char)flags;
        float inv, stp, nf[TILE];
        block_steps(ar, ar->absmax[k], &inv, &stp);
        int clamp = flags || !clamp_free(ar->absmax[k], inv);
        for (size_t j = lo; j < hi; j += TILE) {
            size_t len = hi - j < TILE ? hi - j : TILE;
            for (int i = 0; i < N; i++)
                tile[i] = g[i] + j;
            lookup_floats(ar, tile, len, inv, clamp, ar->codes + j);
            if (call->fused)     /* a decode per server: vector stores, no copy loop */
                decode_tile(ar, g, j, len, stp, flags, nf);
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
    int N = ar->cfg.servers, ef = ar->cfg.error_feedback;
    size_t bs = (size_t)ar->cfg.block_size, n = call->n, nb = optinc_ar_blocks(ar, n);
    const void *src[OPTINC_AR_MAX_SERVERS];
    for (size_t k = nb * (size_t)part / (size_t)parts; k < nb * (size_t)(part + 1) / (size_t)parts;
         k++) {
        size_t lo = k * bs, hi = lo + bs < n ? lo + bs : n;
        for (int i = 0; ef && i < N; i++)
            optinc_ar_add(g[i] + lo, ar->residual[i] + lo, hi - lo);
        unsigned flags = 0;
        uint32_t m = block_scale(ar, (const float *const *)g, N, lo, hi - lo, &flags);
        memcpy(&ar->absmax[k], &m, sizeof m);
        ar->block_flags[k] = (unsigned char)flags;
        for (int i = 0; i < N; i++)
            own_block(ar, call->keys[i], g[i], lo, hi, ar->absmax[k],
                      ar->own_codes + (size_t)i * n + lo, 1, ef ? ar->residual[i] : NULL);
        float inv, stp, nf[TILE];
        block_steps(ar, ar->absmax[k], &inv, &stp);
        for (size_t j = lo; j < hi; j += TILE) {
            size_t len = hi - j < TILE ? hi - j : TILE;
            for (int i = 0; i < N; i++)
                src[i] = ar->own_codes + (size_t)i * n + j;
            lookup_codes(ar, src, 1, len, ar->codes + j);
            if (call->fused)
                decode_tile(ar, g, j, len, stp, flags, nf);
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
        call->errors[c] = inject(ar, call->step, c, ar->codes + lo, 1, hi - lo);
        /* by tiles within a block, so each tile has one step and one flag */
        size_t bs = (size_t)ar->cfg.block_size;
        for (size_t j = lo, end; j < hi; j = end) {
            size_t k = j / bs;
            end = (k + 1) * bs < hi ? (k + 1) * bs : hi;
            end = end - j > TILE ? j + TILE : end;
            float inv, stp, nf[TILE];
            block_steps(ar, ar->absmax[k], &inv, &stp);
            decode_tile(ar, call->g, j, end - j, stp, ar->block_flags[k], nf);
        }
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
    optinc_workers_run(ar->workers, own ? own_part : codes_part, &call);
    if (call.fused)
        return OPTINC_OK;
    optinc_workers_run(ar->workers, inject_part, &call);
    for (int c = 0; c < ar->cfg.servers; c++)
        *errors += call.errors[c];
    return OPTINC_OK;
}

#ifdef OPTINC_HAVE_MPI
/* On MPI, the average's non-finite values of the blocks that hold any
 * (nonfinite[k]), in val[0..): each rank's kinds of each of their elements
 * reduced with a maximum, one word per kind, which is their union. */
static optinc_status nonfinite_mpi(optinc_comm *comm, const optinc_allreduce *ar,
                                   const float *g, size_t n, const uint32_t *nonfinite,
                                   float **val, optinc_error *err)
{
    size_t bs = (size_t)ar->cfg.block_size, nb = optinc_ar_blocks(ar, n), m = 0;
    for (size_t k = 0; k < nb; k++)
        m += nonfinite[k] ? ((k + 1) * bs < n ? bs : n - k * bs) : 0;
    uint32_t *kinds = calloc(3 * m + 1, sizeof *kinds);
    *val = malloc((m + 1) * sizeof **val);
    if (!kinds || !*val) {
        free(kinds);
        return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory for the all-reduce");
    }
    for (size_t k = 0, at = 0; k < nb; k++)
        for (size_t j = k * bs; nonfinite[k] && j < n && j < (k + 1) * bs; j++, at++)
            for (unsigned b = 0; b < 3; b++)
                kinds[3 * at + b] = nonfinite_kind(g[j]) >> b & 1u;
    optinc_status st = optinc_mpi_max_u32(comm, kinds, 3 * m, ar->what, err);
    for (size_t e = 0; !st && e < m; e++)
        (*val)[e] = nonfinite_value(kinds[3 * e] | kinds[3 * e + 1] << 1 | kinds[3 * e + 2] << 2);
    free(kinds);
    return st;
}

/* On MPI: the block scales and their non-finite flags reduced with an
 * unsigned maximum on their bits, each rank quantizes its gradient (in
 * bytes when b <= 8: half the bytes of 16-bit words on the wire), an
 * all-to-all of code slices, rank c aggregates chunk c (the table and the
 * injected errors of chunk c), an all-gather of the output codes, every
 * rank decodes, and the blocks with non-finite values take them (their
 * elements' kinds reduced first, before the decode overwrites them). */
optinc_status optinc_ar_codes_mpi(optinc_comm *comm, optinc_allreduce *ar, uint64_t step,
                                  float *g, size_t n, uint64_t *errors, optinc_error *err)
{
    int N = comm->servers, wide = wide_codes(ar);
    size_t nb = optinc_ar_blocks(ar, n), lo, hi;
    optinc_mpi_type type = wide ? OPTINC_MPI_U16 : OPTINC_MPI_U8;
    optinc_ar_chunk(n, N, comm->rank, &lo, &hi);
    size_t len = hi - lo, words = 2 * nb * sizeof(uint32_t);
    size_t need = words + (n + (size_t)(N + 1) * len) * (size_t)(1 + wide) + 1;
    optinc_status st = check_residuals(ar, 1, err);
    float *e = ar->cfg.error_feedback ? ar->residual[0] : NULL, *special = NULL;
    int any = 0;
    *errors = 0;
    if (st)
        return st;
    if (need > ar->cap_mpi) {
        free(ar->mpi_scratch);
        ar->cap_mpi = (ar->mpi_scratch = malloc(need)) ? need : 0;
        if (!ar->cap_mpi)
            return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory for the all-reduce");
    }
    /* the scales' bits then their flags, reduced in place as 2 nb words */
    float *absmax = ar->mpi_scratch;
    uint32_t *nonfinite = (uint32_t *)ar->mpi_scratch + nb;
    void *codes = (char *)ar->mpi_scratch + words, *recv = code_at(codes, wide, n);
    if (e)
        optinc_ar_add(g, e, n);
    optinc_ar_block_scales(ar, g, n, absmax, nonfinite);
    st = optinc_mpi_max_u32(comm, absmax, 2 * nb, ar->what, err);
    for (size_t k = 0; k < nb; k++)
        any |= nonfinite[k] != 0;
    if (!st && any)
        st = nonfinite_mpi(comm, ar, g, n, nonfinite, &special, err);
    if (!st && (e || ar->cfg.stochastic_rounding)) {
        uint64_t key = ar->cfg.stochastic_rounding ? rounding_key(ar, step, comm->rank) : 0;
        size_t bs = (size_t)ar->cfg.block_size;
        for (size_t k = 0; k < nb; k++)
            own_block(ar, key, g, k * bs, (k + 1) * bs < n ? (k + 1) * bs : n, absmax[k],
                      code_at(codes, wide, k * bs), wide, e);
    } else if (!st)
        quantize_unit(ar, g, 0, n, absmax, codes, wide);
    if (!st)
        st = optinc_mpi_scatter_chunks(comm, codes, n, recv, type, ar->what, err);
    if (!st) {
        const void *src[OPTINC_AR_MAX_SERVERS];
        for (int i = 0; i < N; i++)
            src[i] = code_at(recv, wide, (size_t)i * len);
        void *out = code_at(recv, wide, (size_t)N * len);
        *errors = aggregate_unit(ar, step, comm->rank, src, wide, lo, hi, out);
        st = optinc_mpi_gather_chunks(comm, out, n, codes, type, ar->what, err);
    }
    if (!st)
        decode_unit(ar, codes, wide, 0, n, absmax, g);
    size_t bs = (size_t)ar->cfg.block_size;
    for (size_t k = 0, at = 0; !st && any && k < nb; k++)
        if (nonfinite[k]) {
            size_t l = (k + 1) * bs < n ? bs : n - k * bs;
            put_nonfinite(special + at, l, g + k * bs);
            at += l;
        }
    free(special);
    return st;
}
#endif
