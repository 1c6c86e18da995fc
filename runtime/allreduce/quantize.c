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
 * aggregates a chunk, nor on history.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "optinc/allreduce.h"
#include "optinc/rng.h"
#include "runtime/allreduce/plan.h"
#ifdef OPTINC_HAVE_MPI
#include "runtime/allreduce/backend.h"
#endif

/* Largest magnitude bits of g[0..len): the magnitude bits of a float >= 0
 * order like the float, so this is an exact integer maximum. */
HOT static uint32_t absmax_bits(const float *restrict g, size_t len)
{
    int32_t m[TILE] = {0}, best = 0;         /* top bit cleared: signed order is fine */
    size_t j = 0;
    for (; j + TILE <= len; j += TILE) {
        int32_t u[TILE];
        memcpy(u, g + j, sizeof u);
        for (int t = 0; t < TILE; t++) {
            int32_t a = u[t] & 0x7fffffff;
            m[t] = a > m[t] ? a : m[t];
        }
    }
    for (; j < len; j++) {
        int32_t a;
        memcpy(&a, g + j, sizeof a);
        a &= 0x7fffffff;
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
        uint32_t m = absmax_bits(g + lo, lo + bs < n ? bs : n - lo);
        memcpy(&absmax[k], &m, sizeof m);
    }
}

/* Step and inverse step of a block: x = g * inv is the value in LSBs. */
static void block_steps(const optinc_allreduce *ar, float absmax, float *inv, float *step)
{
    float top = (float)((1 << (ar->cfg.bits - 1)) - 1);
    *inv = absmax > 0.0f ? top / absmax : 0.0f;
    *step = absmax / top;
}

/* rint(g * inv) + offset, clamped to 1..2^b-1.  Adding 1.5 * 2^23 to a
 * float of magnitude below 2^22 rounds it to an integer, half to even, in one
 * correctly rounded addition, and leaves that integer in the low bits:
 * bits(x + 1.5 * 2^23) = 0x4b400000 + rint(x).  (C11 evaluates float in
 * float here: FLT_EVAL_METHOD is 0 on every target we build for.)  Integer
 * arithmetic on the bits instead of a float-to-int conversion lets the
 * compiler vectorize the loops below. */
static inline uint32_t quantize1(float g, float inv, float top, uint32_t off)
{
    float x = g * inv;
    x = x > -top ? x : -top;          /* also maps NaN to the lowest code */
    x = x < top ? x : top;
    float y = x + 0x1.8p23f;
    uint32_t b;
    memcpy(&b, &y, sizeof b);
    return b - 0x4b400000u + off;
}

/* codes[0..len) of g[0..len) under one block's inverse step; constant-trip
 * tiles, which the -O2 vectorizer takes, then the rest. */
HOT static void quantize_span(const float *restrict g, uint16_t *restrict codes, size_t len,
                          float inv, float top, uint32_t off)
{
    size_t j = 0;
    for (; j + TILE <= len; j += TILE)
        for (int t = 0; t < TILE; t++)
            codes[j + t] = (uint16_t)quantize1(g[j + t], inv, top, off);
    for (; j < len; j++)
        codes[j] = (uint16_t)quantize1(g[j], inv, top, off);
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
    uint32_t off = 1u << (ar->cfg.bits - 1);
    for (size_t j = lo, end; j < hi; j = end) {
        size_t k = j / bs;
        float inv, step;
        end = (k + 1) * bs < hi ? (k + 1) * bs : hi;
        block_steps(ar, absmax[k], &inv, &step);
        quantize_span(g + j, codes + (j - lo), end - j, inv, (float)(off - 1), off);
    }
}

void optinc_ar_decode(const optinc_allreduce *ar, const uint16_t *codes, size_t lo, size_t hi,
                      const float *absmax, float *g)
{
    size_t bs = (size_t)ar->cfg.block_size;
    int off = 1 << (ar->cfg.bits - 1);
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

/* Adds one server's code u = CODE (an expression of t) of each element to
 * the index accumulators a (and b).  The ways to the digit-position sums:
 *   SUM     quantized: the sum of the codes is the index;
 *   NIBBLE  3N <= 15, 4 digits at most: a sums u & 0x33 (digits 0 and 2 in
 *           two 4-bit fields), b sums u >> 2 & 0x33 (digits 1 and 3), so the
 *           fields hold S_0, S_2, S_1, S_3 without overflow;
 *   SPREAD  3N <= 255: a sums the digits spread into the bytes of a word;
 *   GATHER  otherwise: a sums per-code weights from the table.
 * Only GATHER loads inside the loop; the others vectorize. */
#define ADD_SERVER(CODE)                                                               \
    do {                                                                               \
        switch (ar->index_mode) {                                                      \
        case AR_INDEX_SUM:                                                             \
            TILE_LOOP(a[t] += (CODE));                                                 \
            break;                                                                     \
        case AR_INDEX_NIBBLE:                                                          \
            TILE_LOOP(uint32_t u = (CODE); a[t] += u & 0x33u; b[t] += u >> 2 & 0x33u); \
            break;                                                                     \
        case AR_INDEX_SPREAD:                                                          \
            TILE_LOOP(uint32_t u = (CODE);                                             \
                      a[t] += (u & 3u) | (u & 0xcu) << 6 | (u & 0x30u) << 12 |         \
                              (u & 0xc0u) << 18);                                      \
            break;                                                                     \
        default:                                                                       \
            TILE_LOOP(a[t] += ar->weight[(CODE)]);                                     \
        }                                                                              \
    } while (0)

/* The accumulators -> table index -> output codes out[t], t < len. */
static inline void mix_lookup(const optinc_allreduce *ar, uint32_t *restrict a,
                       const uint32_t *restrict b, size_t len, uint16_t *restrict out)
{
    if (ar->index_mode == AR_INDEX_NIBBLE)
        for (int t = 0; t < TILE; t++)
            a[t] = (a[t] & 15u) | (b[t] & 15u) << 4 | (a[t] & 0xf0u) << 4 | (b[t] & 0xf0u) << 8;
    if (ar->index_mode == AR_INDEX_SPREAD) {
        uint32_t r1 = ar->radix_pow[1], r2 = ar->radix_pow[2], r3 = ar->radix_pow[3];
        for (int t = 0; t < TILE; t++) {
            uint32_t v = a[t];
            a[t] = (v & 255u) + r1 * (v >> 8 & 255u) + r2 * (v >> 16 & 255u) + r3 * (v >> 24);
        }
    }
    for (size_t t = 0; t < len; t++)
        out[t] = ar->table[a[t]];
}

/* Output codes of len <= TILE elements from the servers' codes. */
HOT static void lookup_codes(const optinc_allreduce *ar, const uint16_t *const *codes, size_t len,
                         uint16_t *restrict out)
{
    uint32_t a[TILE] = {0}, b[TILE] = {0};
    for (int i = 0; i < ar->cfg.servers; i++) {
        const uint16_t *restrict c = codes[i];
        ADD_SERVER(c[t]);
    }
    mix_lookup(ar, a, b, len, out);
}

/* The same from the servers' floats of one block, quantized on the fly (the
 * in-process path: no codes are stored). */
HOT static void lookup_floats(const optinc_allreduce *ar, const float *const *g, size_t len,
                          float inv, uint16_t *restrict out)
{
    uint32_t a[TILE] = {0}, b[TILE] = {0}, off = 1u << (ar->cfg.bits - 1);
    float top = (float)(off - 1);
    for (int i = 0; i < ar->cfg.servers; i++) {
        const float *restrict x = g[i];
        ADD_SERVER(quantize1(x[t], inv, top, off));
    }
    mix_lookup(ar, a, b, len, out);
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

/* In process, block by block: the block's shared scale (the largest
 * magnitude over the servers, which leaves the block's values in cache), then
 * its tiles quantized and looked up on the fly; then per chunk the injected
 * errors and the decoder.  Without injected errors each tile is decoded and
 * broadcast as soon as it is looked up, while it is in cache (its inputs are
 * consumed by then), which saves three passes over the gradients; the
 * numbers are the same. */
optinc_status optinc_ar_codes_inproc(optinc_allreduce *ar, uint64_t step, float *const *g,
                                     size_t n, uint64_t *errors, optinc_error *err)
{
    int N = ar->cfg.servers;
    size_t bs = (size_t)ar->cfg.block_size;
    optinc_status st = scratch(ar, n, err);
    *errors = 0;
    if (st)
        return st;
    const float *tile[OPTINC_AR_MAX_SERVERS];
    int fused = !injecting(ar), off = 1 << (ar->cfg.bits - 1);
    for (size_t k = 0, lo = 0; lo < n; k++, lo += bs) {
        size_t hi = lo + bs < n ? lo + bs : n;
        uint32_t m = 0;
        for (int i = 0; i < N; i++) {
            uint32_t mi = absmax_bits(g[i] + lo, hi - lo);
            m = mi > m ? mi : m;
        }
        memcpy(&ar->absmax[k], &m, sizeof m);
        float inv, stp;
        block_steps(ar, ar->absmax[k], &inv, &stp);
        for (size_t j = lo; j < hi; j += TILE) {
            size_t len = hi - j < TILE ? hi - j : TILE;
            for (int i = 0; i < N; i++)
                tile[i] = g[i] + j;
            lookup_floats(ar, tile, len, inv, ar->codes + j);
            if (fused) {
                decode_span(ar->codes + j, g[0] + j, len, stp, off);
                for (int i = 1; i < N; i++)
                    memcpy(g[i] + j, g[0] + j, len * sizeof(float));
            }
        }
    }
    if (fused)
        return OPTINC_OK;
    for (int c = 0; c < N; c++) {
        size_t lo, hi;
        optinc_ar_chunk(n, N, c, &lo, &hi);
        *errors += inject(ar, step, c, ar->codes + lo, hi - lo);
        optinc_ar_decode(ar, ar->codes + lo, lo, hi, ar->absmax, g[0]);
    }
    for (int i = 1; i < N; i++)
        memcpy(g[i], g[0], n * sizeof(float));
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
    optinc_status st = OPTINC_OK;
    *errors = 0;
    if (!absmax || !codes || !recv)
        st = optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory for the all-reduce");
    if (!st) {
        optinc_ar_block_absmax(ar, g, n, absmax);
        st = optinc_mpi_max_u32(comm, absmax, nb, ar->what, err);
    }
    if (!st) {
        optinc_ar_quantize(ar, g, 0, n, absmax, codes);
        st = optinc_mpi_scatter_chunks(comm, codes, n, recv, OPTINC_MPI_U16, ar->what, err);
    }
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
    free(absmax);
    free(codes);
    free(recv);
    return st;
}
#endif
