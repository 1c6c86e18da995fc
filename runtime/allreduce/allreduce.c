/*
 * allreduce.c - ring and OptINC all-reduce, emulated in one process (see
 * allreduce.h for the algorithms and their byte accounting).
 *
 * Layout.  A plan holds what every call reuses: the aggregation table and the
 * per-code weights that turn N codes into a table index with N loads and
 * adds, and scratch buffers sized on first use.  The quantized algorithms go
 * through the same two-step shape, index = sum_i weight[u_i] then
 * out = table[index]: for optinc the weights spread a code's PAM4 digits into
 * radix-(3N+1) positions, so the index is the tuple of digit-position sums
 * (preprocessing P) and the table is the ONN; for quantized the weight is the
 * code itself, so the index is sum_i u_i and the table the exact rounding.
 *
 * Determinism.  Every float operation is one of four shared kernels
 * (optinc_ar_add, optinc_ar_mean, the quantizer, the decoder), applied in the
 * same order by this file and by backend_mpi.c, so both backends give the
 * same bits.  The in-process optinc path fuses quantization and indexing per
 * element, which changes no value: the index is integer arithmetic.
 * Injected errors come from one random stream per (seed, step, chunk), so
 * they do not depend on which process aggregates a chunk, nor on history.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "optinc/allreduce.h"
#include "optinc/rng.h"

/* Loops over TILE elements have a constant trip count, which GCC's -O2
 * vectorizer (its "very cheap" cost model) accepts; the rest runs scalar. */
#define TILE 256

/* The hot loops are also compiled for AVX2 and picked at load time (an
 * ifunc): twice the vector width of the x86-64 baseline.  Every operation in
 * them is an exact IEEE or integer operation element by element (no FMA is
 * enabled), so both versions give the same bits.  GCC only, like mesh.c and
 * sim.c: clang before 16 names the clones in a way other files cannot link. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__)
#define HOT __attribute__((target_clones("avx2", "default")))
#else
#define HOT
#endif

typedef enum index_mode { INDEX_SUM, INDEX_NIBBLE, INDEX_SPREAD, INDEX_GATHER } index_mode;

struct optinc_allreduce {
    optinc_ar_config cfg;
    index_mode index_mode;        /* how N codes become a table index */
    uint32_t radix_pow[4];        /* INDEX_SPREAD: (3N+1)^k */
    uint16_t *packed;             /* INDEX_NIBBLE: the table indexed by S_0|S_1<<4|... */
    optinc_agg_lut *own_lut;      /* the exact table when cfg.lut was NULL (optinc) */
    const uint32_t *weight;       /* INDEX_GATHER: code -> index contribution */
    const uint16_t *table;        /* index -> output code */
    uint16_t *sum_table;          /* quantized: sum of codes -> code of the average */
    float *absmax;                /* scratch, nblocks */
    uint16_t *codes;              /* scratch, n */
    size_t cap_blocks, cap_n;
};

static const char *const kind_names[] = {"ring", "optinc", "exact", "quantized"};

const char *optinc_ar_kind_name(optinc_ar_kind kind)
{
    return (unsigned)kind < 4 ? kind_names[kind] : "?";
}

int optinc_ar_kind_parse(const char *s, optinc_ar_kind *kind)
{
    for (int k = 0; k < 4; k++)
        if (!strcmp(s, kind_names[k])) {
            *kind = (optinc_ar_kind)k;
            return 0;
        }
    return -1;
}

/* ---- the plan ------------------------------------------------------------ */

optinc_status optinc_allreduce_new(const optinc_ar_config *cfg, optinc_allreduce **out,
                                   optinc_error *err)
{
    *out = NULL;
    if (cfg->servers < 1 || cfg->servers > OPTINC_AR_MAX_SERVERS)
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0, "%d servers: use 1..%d",
                           cfg->servers, OPTINC_AR_MAX_SERVERS);
    int quantizing = cfg->kind == OPTINC_AR_OPTINC || cfg->kind == OPTINC_AR_QUANTIZED;
    if (quantizing && (cfg->bits < 2 || cfg->bits > 16 || cfg->bits % 2))
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                           "%d-bit gradient codes: use an even width of 2..16 bits (PAM4 "
                           "carries 2 bits per symbol)", cfg->bits);
    if (quantizing && cfg->block_size < 1)
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                           "block size %d: give at least 1 element per scale block",
                           cfg->block_size);
    if (cfg->lut && (cfg->lut->servers != cfg->servers || cfg->lut->bits != cfg->bits))
        return optinc_fail(err, OPTINC_EINPUT, cfg->lut->source, 0, 0,
                           "the aggregation table is for %d servers and %d bits, the run has %d "
                           "servers and %d bits: use an ONN compiled for this run",
                           cfg->lut->servers, cfg->lut->bits, cfg->servers, cfg->bits);
    optinc_allreduce *ar = calloc(1, sizeof *ar);
    if (!ar)
        return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory");
    ar->cfg = *cfg;
    if (cfg->kind == OPTINC_AR_OPTINC) {
        const optinc_agg_lut *lut = cfg->lut;
        if (!lut) {
            optinc_status st = optinc_agg_lut_exact(cfg->servers, cfg->bits, &ar->own_lut, err);
            if (st) {
                free(ar);
                return st;
            }
            lut = ar->own_lut;
        }
        ar->weight = lut->weight;
        ar->table = lut->code;
        int digits = cfg->bits / 2;
        ar->index_mode = digits > 4 || 3 * cfg->servers > 255 ? INDEX_GATHER
                         : 3 * cfg->servers <= 15             ? INDEX_NIBBLE
                                                              : INDEX_SPREAD;
        if (ar->index_mode == INDEX_NIBBLE) {
            if (!(ar->packed = calloc((size_t)1 << 16, sizeof *ar->packed))) {
                optinc_allreduce_free(ar);
                return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory");
            }
            int sums[8];
            for (size_t i = 0; i < lut->size; i++) {
                size_t at = 0;
                optinc_agg_lut_digit_sums(lut, i, sums);
                for (int k = 0; k < digits; k++)
                    at |= (size_t)sums[k] << (4 * k);
                ar->packed[at] = lut->code[i];
            }
            ar->table = ar->packed;
        }
        for (uint32_t k = 0, p = 1; k < 4; k++, p *= (uint32_t)lut->radix)
            ar->radix_pow[k] = p;
    } else if (cfg->kind == OPTINC_AR_QUANTIZED) {
        size_t codes = (size_t)1 << cfg->bits, sums = (size_t)cfg->servers * (codes - 1) + 1;
        ar->sum_table = malloc(sums * sizeof *ar->sum_table);
        if (!ar->sum_table) {
            optinc_allreduce_free(ar);
            return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory");
        }
        for (size_t s = 0; s < sums; s++)
            ar->sum_table[s] = optinc_agg_exact_code(cfg->servers, cfg->bits, (int64_t)s);
        ar->table = ar->sum_table;
        ar->index_mode = INDEX_SUM;
    }
    *out = ar;
    return OPTINC_OK;
}

void optinc_allreduce_free(optinc_allreduce *ar)
{
    if (!ar)
        return;
    optinc_agg_lut_free(ar->own_lut);
    free(ar->sum_table);
    free(ar->packed);
    free(ar->absmax);
    free(ar->codes);
    free(ar);
}

const optinc_ar_config *optinc_allreduce_config(const optinc_allreduce *ar)
{
    return &ar->cfg;
}

/* ---- slice kernels ------------------------------------------------------- */

void optinc_ar_chunk(size_t n, int servers, int c, size_t *lo, size_t *hi)
{
    *lo = n * (size_t)c / (size_t)servers;
    *hi = n * (size_t)(c + 1) / (size_t)servers;
}

size_t optinc_ar_blocks(const optinc_allreduce *ar, size_t n)
{
    size_t b = (size_t)ar->cfg.block_size;
    return (n + b - 1) / b;
}

uint64_t optinc_ar_code_bytes(const optinc_allreduce *ar, size_t n)
{
    return ((uint64_t)n * (uint64_t)ar->cfg.bits + 7) / 8;
}

void optinc_ar_count(optinc_ar_stats *stats, int from, int to, uint64_t bytes)
{
    if (!stats)
        return;
    if (from >= 0) {
        stats->bytes_sent[from] += bytes;
        stats->messages[from] += 1;
    }
    if (to >= 0)
        stats->bytes_received[to] += bytes;
}

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
        case INDEX_SUM:                                                                \
            TILE_LOOP(a[t] += (CODE));                                                 \
            break;                                                                     \
        case INDEX_NIBBLE:                                                             \
            TILE_LOOP(uint32_t u = (CODE); a[t] += u & 0x33u; b[t] += u >> 2 & 0x33u); \
            break;                                                                     \
        case INDEX_SPREAD:                                                             \
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
    if (ar->index_mode == INDEX_NIBBLE)
        for (int t = 0; t < TILE; t++)
            a[t] = (a[t] & 15u) | (b[t] & 15u) << 4 | (a[t] & 0xf0u) << 4 | (b[t] & 0xf0u) << 8;
    if (ar->index_mode == INDEX_SPREAD) {
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

HOT void optinc_ar_add(float *restrict acc, const float *restrict in, size_t len)
{
    size_t j = 0;
    for (; j + TILE <= len; j += TILE)
        for (int t = 0; t < TILE; t++)
            acc[j + t] = acc[j + t] + in[j + t];
    for (; j < len; j++)
        acc[j] = acc[j] + in[j];
}

HOT void optinc_ar_mean(float *g, size_t len, int servers)
{
    float d = (float)servers;
    size_t j = 0;
    for (; j + TILE <= len; j += TILE)
        for (int t = 0; t < TILE; t++)
            g[j + t] = g[j + t] / d;
    for (; j < len; j++)
        g[j] = g[j] / d;
}

/* ---- in-process emulation ------------------------------------------------ */

static optinc_status scratch(optinc_allreduce *ar, size_t n, optinc_error *err)
{
    size_t nb = ar->cfg.block_size > 0 ? optinc_ar_blocks(ar, n) : 0;
    if (nb > ar->cap_blocks) {
        free(ar->absmax);
        ar->absmax = malloc(nb * sizeof *ar->absmax);
        ar->cap_blocks = ar->absmax ? nb : 0;
        if (!ar->cap_blocks)
            return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory");
    }
    if (n > ar->cap_n) {
        free(ar->codes);
        ar->codes = malloc(n * sizeof *ar->codes);
        ar->cap_n = ar->codes ? n : 0;
        if (!ar->codes)
            return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory");
    }
    return OPTINC_OK;
}

/* Ring: in step s of the reduce-scatter server i sends chunk (i - s) mod N to
 * server i+1, which adds it into its own copy; the chunks sent in one step
 * are distinct from the ones received, so the emulation can run in place.
 * Server i then owns chunk i+1, divides it by N, and the all-gather passes
 * the finished chunks on around the ring. */
static void ring(const optinc_allreduce *ar, float *const *g, size_t n, optinc_ar_stats *stats)
{
    int N = ar->cfg.servers;
    size_t lo, hi;
    for (int s = 0; s < N - 1; s++)
        for (int i = 0; i < N; i++) {
            int to = (i + 1) % N, c = ((i - s) % N + N) % N;
            optinc_ar_chunk(n, N, c, &lo, &hi);
            optinc_ar_add(g[to] + lo, g[i] + lo, hi - lo);
            optinc_ar_count(stats, i, to, (hi - lo) * sizeof(float));
        }
    for (int i = 0; i < N; i++) {
        optinc_ar_chunk(n, N, (i + 1) % N, &lo, &hi);
        optinc_ar_mean(g[i] + lo, hi - lo, N);
    }
    for (int s = 0; s < N - 1; s++)
        for (int i = 0; i < N; i++) {
            int to = (i + 1) % N, c = ((i + 1 - s) % N + N) % N;
            optinc_ar_chunk(n, N, c, &lo, &hi);
            memcpy(g[to] + lo, g[i] + lo, (hi - lo) * sizeof(float));
            optinc_ar_count(stats, i, to, (hi - lo) * sizeof(float));
        }
}

/* Exact: servers added in the order 0..N-1, then divided by N (the MPI
 * backend's aggregators do the same per chunk); the result is broadcast. */
static void exact(const optinc_allreduce *ar, float *const *g, size_t n, optinc_ar_stats *stats)
{
    int N = ar->cfg.servers;
    for (int i = 1; i < N; i++)
        optinc_ar_add(g[0], g[i], n);
    optinc_ar_mean(g[0], n, N);
    for (int i = 0; i < N; i++) {
        if (i)
            memcpy(g[i], g[0], n * sizeof(float));
        optinc_ar_count(stats, i, -1, n * sizeof(float));
        optinc_ar_count(stats, -1, i, n * sizeof(float));
    }
}

/* optinc / quantized, block by block: the block's shared scale (the largest
 * magnitude over the servers, which leaves the block's values in cache), then
 * its tiles quantized and looked up on the fly; then per chunk the injected
 * errors and the decoder.  Without injected errors each tile is decoded and
 * broadcast as soon as it is looked up, while it is in cache (its inputs are
 * consumed by then), which saves three passes over the gradients; the
 * numbers are the same. */
static uint64_t quantized(optinc_allreduce *ar, uint64_t step, float *const *g, size_t n,
                          optinc_ar_stats *stats)
{
    int N = ar->cfg.servers;
    size_t nb = optinc_ar_blocks(ar, n), bs = (size_t)ar->cfg.block_size;
    uint64_t scale_bytes = nb * sizeof(float), code_bytes = optinc_ar_code_bytes(ar, n);
    for (int i = 0; i < N; i++) {
        optinc_ar_count(stats, i, -1, scale_bytes);
        optinc_ar_count(stats, -1, i, scale_bytes);
        optinc_ar_count(stats, i, -1, code_bytes);
        optinc_ar_count(stats, -1, i, code_bytes);
    }
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
        return 0;
    uint64_t errors = 0;
    for (int c = 0; c < N; c++) {
        size_t lo, hi;
        optinc_ar_chunk(n, N, c, &lo, &hi);
        errors += inject(ar, step, c, ar->codes + lo, hi - lo);
        optinc_ar_decode(ar, ar->codes + lo, lo, hi, ar->absmax, g[0]);
    }
    for (int i = 1; i < N; i++)
        memcpy(g[i], g[0], n * sizeof(float));
    return errors;
}

optinc_status optinc_allreduce_inproc(optinc_allreduce *ar, uint64_t step, float *const *grads,
                                      size_t n, optinc_ar_stats *stats, optinc_error *err)
{
    optinc_status st = scratch(ar, n, err);
    if (st)
        return st;
    if (stats)
        stats->servers = ar->cfg.servers;
    switch (ar->cfg.kind) {
    case OPTINC_AR_RING:
        ring(ar, grads, n, stats);
        break;
    case OPTINC_AR_EXACT:
        exact(ar, grads, n, stats);
        break;
    default: {
        uint64_t e = quantized(ar, step, grads, n, stats);
        if (stats)
            stats->injected_errors += e;
    }
    }
    return OPTINC_OK;
}
