/*
 * test_allreduce.c - the all-reduce algorithms against independent
 * computations: the ring's defined summation order, byte counts against the
 * formulas for N = 2..16, the aggregation table against direct evaluation,
 * rounding half to even, injected errors, histograms (and the files their
 * reader refuses), the tables of algorithms and backends, the cost model.
 *
 * No BLAS runs here but in the ONN's table: the algorithms are integer code
 * arithmetic and float sums in a defined order, so == compares results
 * computed with the same operations in the same order; bounds are ulps of
 * the scalar formulas (measured on four BLAS builds alike).
 */
#include <complex.h>
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "optinc/allreduce.h"
#include "optinc/comm.h"
#include "optinc/costmodel.h"
#include "optinc/onn.h"
#include "optinc/rng.h"
#include "optinc/sim.h"
#include "trainutil.h"

/* 8-bit codes: the code of zero (PAM4 digits 1, 2, 2, 2) and the largest
 * magnitude in LSBs on both sides of it. */
#define ZERO8 106
#define TOP8 106

/* N random gradients of n floats (normal, scaled per server). */
static float **grads_new(int N, size_t n, uint64_t seed)
{
    float **g = calloc((size_t)N, sizeof *g);
    optinc_rng rng;
    optinc_rng_seed(&rng, seed);
    for (int i = 0; i < N; i++) {
        g[i] = malloc((n ? n : 1) * sizeof **g);
        for (size_t j = 0; j < n; j++)
            g[i][j] = (float)(optinc_rng_normal(&rng) * 1e-2 * (i + 1));
    }
    return g;
}

static float **grads_copy(float *const *src, int N, size_t n)
{
    float **g = calloc((size_t)N, sizeof *g);
    for (int i = 0; i < N; i++) {
        g[i] = malloc((n ? n : 1) * sizeof **g);
        memcpy(g[i], src[i], n * sizeof **g);
    }
    return g;
}

static void grads_free(float **g, int N)
{
    for (int i = 0; i < N; i++)
        free(g[i]);
    free(g);
}

static optinc_allreduce *plan(const char *name, int N, const optinc_agg_lut *lut,
                              const optinc_err_hist *h)
{
    optinc_ar_config c = {optinc_ar_find(name), N, 8, 64, lut, h, 7, 1, 0, 0};
    optinc_allreduce *ar = NULL;
    optinc_error err;
    cr_assert_eq(optinc_allreduce_new(&c, &ar, &err), OPTINC_OK, "%s", err.message);
    return ar;
}

/* Injected output errors from the counts 0, 2, 1 of the deltas -1, 0, +1, at
 * rate p_error. */
static optinc_err_hist *errors_at_rate(double p_error)
{
    uint64_t counts[3] = {0, 2, 1};
    optinc_err_hist *h;
    optinc_error err;
    cr_assert_eq(optinc_err_hist_from_counts(counts, 3, 1, &h, &err), OPTINC_OK, "%s",
                 err.message);
    h->p_error = p_error;
    return h;
}

/* The largest magnitude over N servers' elements [lo, hi): a block's scale. */
static float block_max(float *const *g, int N, size_t lo, size_t hi)
{
    float m = 0.0f;
    for (int i = 0; i < N; i++)
        for (size_t j = lo; j < hi; j++)
            m = fmaxf(m, fabsf(g[i][j]));
    return m;
}

static void run(optinc_allreduce *ar, uint64_t step, float **g, size_t n, optinc_ar_stats *st)
{
    optinc_error err;
    cr_assert_eq(optinc_allreduce_inproc(ar, step, g, n, st, &err), OPTINC_OK, "%s",
                 err.message);
}

/* The zero code's mid digits: small values change only the lowest digits
 * (no carry into the top ones), and the zero is even, so an average rounds
 * half to even alike on codes and on signed values. */
Test(allreduce, zero_code_mid_digits)
{
    cr_assert_eq(optinc_code_zero(8), ZERO8);
    cr_assert_eq(optinc_code_zero(2), 2);
    cr_assert_eq(optinc_code_zero(4), 6);            /* digits (1, 2) */
    cr_assert_eq(optinc_code_zero(16), 27306);
    for (int b = 2; b <= 16; b += 2)
        cr_assert_eq(optinc_code_zero(b) % 2, 0, "b %d", b);
    uint8_t dz[4], d[4];
    optinc_pam4_encode(ZERO8, 4, dz);
    cr_assert(dz[3] == 1 && dz[2] == 2 && dz[1] == 2 && dz[0] == 2);
    for (int q = -10; q <= 5; q++) {          /* 96..111: the top two digits stay */
        optinc_pam4_encode((uint32_t)(ZERO8 + q), 4, d);
        cr_assert(d[3] == 1 && d[2] == 2, "q %d", q);
    }
}

Test(allreduce, exact_rounding_half_to_even)
{
    /* N = 4, 8 bits: code sum = 4 * ZERO8 + sum of signed values. */
    const struct { int64_t t; int want; } cases[] = {
        {0, 0}, {2, 0}, {6, 2}, {-2, 0}, {-6, -2}, {5, 1}, {7, 2}, {-5, -1}, {-7, -2},
        {10, 2}, {14, 4}, {-10, -2}, {4 * TOP8, TOP8}, {-4 * TOP8, -TOP8}, {1, 0}, {3, 1}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        cr_assert_eq(optinc_agg_exact_code(4, 8, 4 * ZERO8 + cases[i].t), ZERO8 + cases[i].want,
                     "sum %lld", (long long)cases[i].t);
    /* Unbiased: over every sum the rounding errors cancel exactly. */
    for (int N = 2; N <= 8; N++) {
        double bias = 0.0;
        for (int64_t t = -TOP8 * N; t <= TOP8 * N; t++)
            bias += (optinc_agg_exact_code(N, 8, ZERO8 * N + t) - ZERO8) - (double)t / N;
        /* measured 0; 1e-9 is room for the rounding of t / N in a sum of
         * 2 . 106 N + 1 terms under 1 */
        cr_assert_float_eq(bias, 0.0, 1e-9, "N %d bias %g", N, bias);
    }
    cr_assert_eq(optinc_agg_exact_code(2, 8, 0), 0);        /* clamped */
    cr_assert_eq(optinc_agg_exact_code(2, 8, 2 * 255), 255);
}

Test(allreduce, table_equals_direct_evaluation)
{
    optinc_rng rng;
    optinc_rng_seed(&rng, 3);
    for (int N = 2; N <= 8; N++)
        for (int bits = 2; bits <= 8; bits += 2) {
            optinc_agg_lut *lut;
            optinc_error err;
            cr_assert_eq(optinc_agg_lut_exact(N, bits, &lut, &err), OPTINC_OK, "%s",
                         err.message);
            cr_assert_eq(lut->size, (size_t)pow(3 * N + 1, bits / 2));
            for (int s = 0; s < 20000; s++) {
                uint16_t codes[8];
                int64_t sum = 0, dsum[4] = {0}, sums[4];
                for (int i = 0; i < N; i++) {
                    codes[i] = (uint16_t)optinc_rng_below(&rng, 1u << bits);
                    sum += codes[i];
                    for (int k = 0; k < bits / 2; k++)
                        dsum[k] += (codes[i] >> (2 * k)) & 3;
                }
                size_t idx = optinc_agg_lut_index(lut, codes);
                cr_assert_lt(idx, lut->size);
                int isums[4];
                optinc_agg_lut_digit_sums(lut, idx, isums);
                for (int k = 0; k < bits / 2; k++) {
                    sums[k] = isums[k];
                    cr_assert_eq(sums[k], dsum[k], "digit sum %d", k);
                }
                cr_assert_eq(lut->code[idx], optinc_agg_exact_code(N, bits, sum));
            }
            optinc_agg_lut_free(lut);
        }
}

Test(allreduce, table_limits)
{
    optinc_agg_lut *lut;
    optinc_error err;
    cr_assert_eq(optinc_agg_lut_new(4, 7, &lut, &err), OPTINC_EINPUT);
    cr_assert_eq(optinc_agg_lut_new(4, 16, &lut, &err), OPTINC_EINPUT);
    cr_assert(strstr(err.message, "2..12"));
    cr_assert_eq(optinc_agg_lut_new(64, 12, &lut, &err), OPTINC_EINPUT);
    cr_assert(strstr(err.message, "2^26"));
    /* 6 servers: not 2^L, so no cascade of 2-server units either */
    optinc_ar_config c = {optinc_ar_find("optinc"), 6, 8, 64, NULL, NULL, 1, 1, 0, 0};
    cr_assert_eq(optinc_agg_lut_exact(2, 8, &lut, &err), OPTINC_OK);
    c.lut = lut;
    optinc_allreduce *ar;
    cr_assert_eq(optinc_allreduce_new(&c, &ar, &err), OPTINC_EINPUT);
    cr_assert(strstr(err.message, "2 servers"));
    optinc_agg_lut_free(lut);
}

/* The ring's result, computed independently: chunk c is summed around the
 * ring starting at server c, ((g_c + g_c+1) + g_c+2) + ..., then / N: the
 * same float operations in the same order (volatile keeps them in float), so
 * the same bits. */
Test(allreduce, ring_sums_in_ring_order)
{
    const size_t sizes[] = {0, 1, 3, 17, 1000, 4099};
    for (int N = 1; N <= 9; N++)
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
            size_t n = sizes[si];
            float **g = grads_new(N, n, 100 + (uint64_t)N), **ref = grads_copy(g, N, n);
            optinc_allreduce *ar = plan("ring", N, NULL, NULL);
            run(ar, 0, g, n, NULL);
            for (int c = 0; c < N; c++) {
                size_t lo = n * (size_t)c / (size_t)N, hi = n * (size_t)(c + 1) / (size_t)N;
                for (size_t j = lo; j < hi; j++) {
                    volatile float s = ref[c][j];
                    for (int k = 1; k < N; k++)
                        s = s + ref[(c + k) % N][j];
                    s = s / (float)N;
                    for (int i = 0; i < N; i++)
                        cr_assert_eq(g[i][j], s, "N %d n %zu server %d element %zu", N, n, i, j);
                }
            }
            optinc_allreduce_free(ar);
            grads_free(g, N);
            grads_free(ref, N);
        }
}

/* As the ring: the same float operations in the same order, the same bits. */
Test(allreduce, exact_sums_in_server_order)
{
    int N = 5;
    size_t n = 777;
    float **g = grads_new(N, n, 9), **ref = grads_copy(g, N, n);
    optinc_allreduce *ar = plan("exact", N, NULL, NULL);
    run(ar, 0, g, n, NULL);
    for (size_t j = 0; j < n; j++) {
        volatile float s = ref[0][j];
        for (int i = 1; i < N; i++)
            s = s + ref[i][j];
        s = s / (float)N;
        for (int i = 0; i < N; i++)
            cr_assert_eq(g[i][j], s);
    }
    optinc_allreduce_free(ar);
    grads_free(g, N);
    grads_free(ref, N);
}

/* Bytes per server: ring 2(N-1)/N of the float gradient in 2(N-1) messages,
 * the star S once; the ratio is exactly 2(N-1)/N for N = 2..16. */
Test(allreduce, bytes_counted_equal_formula)
{
    const size_t n = 720720;           /* divisible by 2..16 */
    float **g = grads_new(16, n, 5);
    for (int N = 2; N <= 16; N++) {
        optinc_ar_stats ring, exact, opt;
        memset(&ring, 0, sizeof ring);
        memset(&exact, 0, sizeof exact);
        memset(&opt, 0, sizeof opt);
        optinc_allreduce *a = plan("ring", N, NULL, NULL);
        run(a, 0, g, n, &ring);
        optinc_allreduce_free(a);
        a = plan("exact", N, NULL, NULL);
        run(a, 0, g, n, &exact);
        optinc_allreduce_free(a);
        a = plan("optinc", N, NULL, NULL);
        run(a, 0, g, n, &opt);
        optinc_allreduce_free(a);
        for (int i = 0; i < N; i++) {
            cr_assert_eq(ring.bytes_sent[i], (uint64_t)2 * (N - 1) * (n / N) * 4, "N %d", N);
            cr_assert_eq(ring.bytes_received[i], ring.bytes_sent[i]);
            cr_assert_eq(ring.messages[i], (uint64_t)2 * (N - 1));
            cr_assert_eq(exact.bytes_sent[i], (uint64_t)n * 4);
            cr_assert_eq(exact.messages[i], 1);
            /* 8-bit codes plus one float scale per 64-element block */
            cr_assert_eq(opt.bytes_sent[i], (uint64_t)n + (n + 63) / 64 * 4);
            cr_assert_eq(opt.bytes_received[i], opt.bytes_sent[i]);
            cr_assert_eq(opt.messages[i], 2);
        }
        cr_assert_eq(ring.bytes_sent[0] * (uint64_t)N,
                     exact.bytes_sent[0] * (uint64_t)(2 * (N - 1)));
    }
    grads_free(g, 16);
}

/* optinc through the digit-sum table and quantized through the code sum are
 * two routes to the same function; both match an independent quantizer: the
 * same integer codes, decoded by the same float operations, the same bits. */
Test(allreduce, optinc_equals_quantized_and_direct)
{
    for (int N = 2; N <= 6; N++) {
        size_t n = 5000;
        float **a = grads_new(N, n, 11), **b = grads_copy(a, N, n), **ref = grads_copy(a, N, n);
        optinc_allreduce *pa = plan("optinc", N, NULL, NULL);
        optinc_allreduce *pb = plan("quantized", N, NULL, NULL);
        run(pa, 0, a, n, NULL);
        run(pb, 0, b, n, NULL);
        for (size_t lo = 0; lo < n; lo += 64) {
            size_t hi = lo + 64 < n ? lo + 64 : n;
            float m = block_max(ref, N, lo, hi);
            for (size_t j = lo; j < hi; j++) {
                int64_t sum = 0;
                for (int i = 0; i < N; i++)
                    sum += (int64_t)nearbyintf(ref[i][j] * ((float)TOP8 / m)) + ZERO8;
                int code = optinc_agg_exact_code(N, 8, sum);
                float want = (float)(code - ZERO8) * (m / (float)TOP8);
                for (int i = 0; i < N; i++) {
                    cr_assert_eq(a[i][j], want, "N %d element %zu", N, j);
                    cr_assert_eq(b[i][j], want);
                }
                /* within half a step of the mean of the quantized values, and
                 * one step of the true mean */
                double mean = 0.0;
                for (int i = 0; i < N; i++)
                    mean += ref[i][j];
                mean /= N;
                /* 1.0001: room for float's rounding of the decoded value and
                 * of the step (a few 2^-24) */
                cr_assert_leq(fabs(want - mean), m / TOP8 * 1.0001);
            }
        }
        optinc_allreduce_free(pa);
        optinc_allreduce_free(pb);
        grads_free(a, N);
        grads_free(b, N);
        grads_free(ref, N);
    }
}

/* N = 4^L servers through a cascade of the exact 4-server unit (given as
 * the table, or chosen by the plan when N's own table is too large): every
 * element is the hierarchical average, each group of 4 codes rounded half to
 * even by optinc_agg_exact_code, level by level, computed here from the
 * codes; the same through the codes path (error feedback with zero
 * residuals quantizes alike) and on 2 threads.  The bytes per level are N/4^l
 * streams of n codes. */
Test(allreduce, cascade_is_the_hierarchical_average)
{
    optinc_agg_lut *unit;
    optinc_error err;
    cr_assert_eq(optinc_agg_lut_exact(4, 8, &unit, &err), OPTINC_OK, "%s", err.message);
    const int sizes[] = {16, 64, 256};
    for (int k = 0; k < 3; k++) {
        int N = sizes[k], L = k + 2;
        size_t n = 300;
        float **a = grads_new(N, n, 5), **b = grads_copy(a, N, n), **ref = grads_copy(a, N, n);
        float **res = grads_new(N, n, 6);
        optinc_allreduce *pa = plan("optinc", N, N == 64 ? NULL : unit, NULL);
        optinc_ar_config cb = {optinc_ar_find("optinc"), N, 8, 64, unit, NULL, 7, 2, 1, 0};
        optinc_allreduce *pb;
        cr_assert_eq(optinc_allreduce_new(&cb, &pb, &err), OPTINC_OK, "%s", err.message);
        for (int i = 0; i < N; i++)
            memset(res[i], 0, n * sizeof **res);
        optinc_allreduce_set_residuals(pb, res, N);
        cr_assert_eq(optinc_allreduce_levels(pa), L);
        cr_assert_eq(optinc_allreduce_level_bytes(pa, n, 0), (uint64_t)N * n);
        cr_assert_eq(optinc_allreduce_level_bytes(pa, n, L - 1), 4 * n);
        cr_assert_eq(optinc_allreduce_level_bytes(pa, n, L), 0);
        run(pa, 0, a, n, NULL);
        run(pb, 0, b, n, NULL);
        for (size_t j = 0; j < n; j++) {      /* blocks of 64 (plan's block size) */
            size_t lo = j / 64 * 64;
            float m = block_max(ref, N, lo, lo + 64 < n ? lo + 64 : n);
            int codes[256];
            for (int i = 0; i < N; i++)
                codes[i] = (int)nearbyintf(ref[i][j] * ((float)TOP8 / m)) + ZERO8;
            for (int live = N; live > 1; live /= 4)
                for (int u = 0; u < live / 4; u++)
                    codes[u] = optinc_agg_exact_code(4, 8, (int64_t)codes[4 * u] +
                                                     codes[4 * u + 1] + codes[4 * u + 2] +
                                                     codes[4 * u + 3]);
            float want = (float)(codes[0] - ZERO8) * (m / (float)TOP8);
            for (int i = 0; i < N; i++) {
                cr_assert_eq(a[i][j], want, "N %d element %zu", N, j);
                cr_assert_eq(b[i][j], want, "N %d element %zu (codes path)", N, j);
            }
        }
        optinc_allreduce_free(pa);
        optinc_allreduce_free(pb);
        grads_free(a, N);
        grads_free(b, N);
        grads_free(ref, N);
        grads_free(res, N);
    }
    /* a table of 4 servers serves 4^L servers only */
    optinc_ar_config c = {optinc_ar_find("optinc"), 8, 8, 64, unit, NULL, 7, 1, 0, 0};
    optinc_allreduce *ar;
    cr_assert_eq(optinc_allreduce_new(&c, &ar, &err), OPTINC_EINPUT);
    cr_assert(strstr(err.message, "F^L servers"), "%s", err.message);
    optinc_agg_lut_free(unit);
}

/* The one quantizer of the gradients (the ONN's inputs): ZERO8 + q for
 * q = rint(g TOP8 / max) under the block's shared maximum, half to even,
 * clamped to |q| <= TOP8. */
Test(allreduce, quantize_offset_binary_half_even)
{
    optinc_allreduce *ar = plan("quantized", 2, NULL, NULL);   /* 8 bits */
    const float g0[4] = {0.75f, -1.0f, 0.25f, 0.0f}, g1[4] = {-0.5f, 0.125f, 1e-3f, 0.0f};
    float m0, m1;
    uint32_t nf[2];
    optinc_ar_block_scales(ar, g0, 4, &m0, nf);
    optinc_ar_block_scales(ar, g1, 4, &m1, nf + 1);
    float absmax = m0 > m1 ? m0 : m1;
    cr_assert_eq(absmax, 1.0f);     /* a maximum of the inputs: one of them */
    uint16_t q[4];
    optinc_ar_quantize(ar, g0, 0, 4, &absmax, q);
    cr_assert_eq(q[0], ZERO8 + 80);              /* 79.5 LSB rounds half to even: 80 */
    cr_assert_eq(q[1], 0);                       /* -max -> the lowest code */
    cr_assert_eq(q[2], ZERO8 + 26);              /* 26.5 LSB -> 26 */
    cr_assert_eq(q[3], ZERO8);                   /* zero -> the zero code */
    float back[4];
    optinc_ar_decode(ar, q, 0, 4, &absmax, back);
    /* half a step, plus 1e-7: about a float ulp of these values under 1 */
    for (int k = 0; k < 4; k++)
        cr_assert(fabsf(back[k] - g0[k]) <= 0.5f / TOP8 + 1e-7f, "%d: %g", k, back[k]);
    /* values beyond the shared maximum clamp to 0..2 TOP8; an all-zero block
     * quantizes to the zero code and decodes to zero */
    const float big[2] = {1.0f, -1.0f};
    float half = 0.5f, zero = 0.0f;
    optinc_ar_quantize(ar, big, 0, 2, &half, q);
    cr_assert(q[0] == ZERO8 + TOP8 && q[1] == 0, "%u %u", q[0], q[1]);
    optinc_ar_quantize(ar, big, 0, 2, &zero, q);
    cr_assert(q[0] == ZERO8 && q[1] == ZERO8);
    optinc_ar_decode(ar, q, 0, 2, &zero, back);
    cr_assert(back[0] == 0.0f && back[1] == 0.0f);
    optinc_allreduce_free(ar);
}

Test(allreduce, zero_and_extreme_blocks)
{
    int N = 3;
    size_t n = 130;
    float **g = grads_new(N, n, 2);
    for (int i = 0; i < N; i++)
        for (size_t j = 0; j < 64; j++)
            g[i][j] = 0.0f;                       /* block 0 all zero */
    g[0][70] = 1e30f;                             /* block 1: one outlier */
    float rest = 0.0f;                            /* the largest of the others */
    for (int i = 0; i < N; i++)
        for (size_t j = 64; j < 128; j++)
            rest = j != 70 && fabsf(g[i][j]) > rest ? fabsf(g[i][j]) : rest;
    optinc_allreduce *ar = plan("optinc", N, NULL, NULL);
    run(ar, 0, g, n, NULL);
    for (size_t j = 0; j < 64; j++)
        cr_assert_eq(g[1][j], 0.0f);
    /* the outlier saturates at the others' scale (its average at most that
     * scale), and does not zero them: the values of normal draws round to
     * zero in a few of 64 elements at most */
    cr_assert(g[2][70] > 0.0f && g[2][70] <= rest, "%g against %g", g[2][70], rest);
    size_t zeros = 0;
    for (size_t j = 64; j < 128; j++)
        zeros += g[2][j] == 0.0f;
    cr_assert_leq(zeros, 8);
    for (size_t j = 0; j < n; j++)
        cr_assert(isfinite(g[0][j]));
    optinc_allreduce_free(ar);
    grads_free(g, N);
}

/* The in-process run on 1, 2 and 3 threads gives the same bytes, for every
 * algorithm and every way to the table index (nibble fields: N = 4; bytes:
 * N = 6; a gather: 10 bits), with injected errors, and over blocks that
 * take the clamp (zero, subnormal, infinite, NaN) and a last short block. */
Test(allreduce, same_bytes_for_any_thread_count)
{
    optinc_err_hist *h = errors_at_rate(0.01);
    optinc_error err;
    const struct { const char *name; int N, bits, inject; } cases[] = {
        {"ring", 5, 8, 0}, {"exact", 5, 8, 0}, {"optinc", 4, 8, 0}, {"optinc", 6, 8, 0},
        {"optinc", 4, 10, 0}, {"quantized", 3, 8, 0}, {"optinc", 4, 8, 1},
        {"quantized", 7, 6, 1}};
    size_t n = 9 * 1000 + 37;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        int N = cases[k].N;
        float **src = grads_new(N, n, 40 + k), **out[3];
        for (size_t j = 1000; j < 1100; j++)
            src[0][j] = src[N - 1][j] = 0.0f;
        for (int i = 0; i < N; i++)
            for (size_t j = 2000; j < 2100; j++)
                src[i][j] = 1e-44f * (float)(j % 7);          /* subnormal maxima */
        src[1][3000] = INFINITY;
        src[0][4000] = NAN;
        for (int t = 1; t <= 3; t++) {
            optinc_ar_config c = {optinc_ar_find(cases[k].name), N, cases[k].bits, 100, NULL,
                                  cases[k].inject ? h : NULL, 7, t, 0, 0};
            optinc_allreduce *ar;
            cr_assert_eq(optinc_allreduce_new(&c, &ar, &err), OPTINC_OK, "%s", err.message);
            out[t - 1] = grads_copy(src, N, n);
            optinc_ar_stats st = {0};
            run(ar, 3, out[t - 1], n, &st);
            run(ar, 4, out[t - 1], n, &st);                /* the threads are reused */
            cr_assert(!cases[k].inject || st.injected_errors > 0);
            optinc_allreduce_free(ar);
        }
        for (int t = 1; t < 3; t++)
            for (int i = 0; i < N; i++)
                cr_assert(!memcmp(out[t][i], out[0][i], n * sizeof(float)),
                          "%s N %d, %d bits: %d threads differ from 1 at server %d",
                          cases[k].name, N, cases[k].bits, t + 1, i);
        for (int t = 0; t < 3; t++)
            grads_free(out[t], N);
        grads_free(src, N);
    }
    optinc_err_hist_free(h);
    optinc_ar_config c = {optinc_ar_find("optinc"), 4, 8, 64, NULL, NULL, 1,
                          OPTINC_AR_MAX_THREADS + 1, 0, 0};
    optinc_allreduce *ar;
    cr_assert_eq(optinc_allreduce_new(&c, &ar, &err), OPTINC_EINPUT);
    cr_assert(strstr(err.message, "1..256"), "%s", err.message);
}

/* Many calls in a row on a small gradient, where the caller often finishes
 * a job alone before a woken worker gets the lock: such a worker must not
 * take a part of the next job (a call with injected errors runs two) with
 * the function of the finished one.  Every call's bytes equal those of one
 * thread. */
Test(allreduce, late_workers_stay_out_of_the_next_job)
{
    optinc_err_hist *h = errors_at_rate(0.05);
    optinc_error err;
    int N = 4;
    size_t n = 400;
    optinc_allreduce *ar[2];
    for (int k = 0; k < 2; k++) {
        optinc_ar_config c = {optinc_ar_find("quantized"), N, 8, 50, NULL, h, 7, 1 + 2 * k, 0, 0};
        cr_assert_eq(optinc_allreduce_new(&c, &ar[k], &err), OPTINC_OK, "%s", err.message);
    }
    float **src = grads_new(N, n, 11);
    for (uint64_t step = 0; step < 3000; step++) {
        float **one = grads_copy(src, N, n), **three = grads_copy(src, N, n);
        run(ar[0], step, one, n, NULL);
        run(ar[1], step, three, n, NULL);
        for (int i = 0; i < N; i++)
            cr_assert(!memcmp(one[i], three[i], n * sizeof(float)),
                      "call %llu: 3 threads differ from 1 at server %d",
                      (unsigned long long)step, i);
        grads_free(one, N);
        grads_free(three, N);
    }
    grads_free(src, N);
    optinc_allreduce_free(ar[0]);
    optinc_allreduce_free(ar[1]);
    optinc_err_hist_free(h);
}

/* Training takes its threads from --threads or OPTINC_THREADS, and the
 * weights do not depend on them. */
Test(allreduce, training_weights_same_for_any_thread_count)
{
    char *dir = tr_dataset();
    cr_assert(dir);
    const char *args[] = {"train", "--data", dir, "--hidden", "16", "--batch", "8", "--epochs",
                          "1", "--json", "--quiet", "--allreduce", "optinc", "--onn", "exact",
                          "--threads", "1", NULL};
    tu_run run[4];
    tu_thread_runs(args, 17, run);
    const char *sa = tr_json(run[0].out, "weights_sha256");
    cr_assert(sa);
    cr_assert(!strncmp(sa, tr_json(run[1].out, "weights_sha256"), 66));
    cr_assert(!strncmp(sa, tr_json(run[2].out, "weights_sha256"), 66));
    for (int i = 0; i < 4; i++)
        tu_run_free(&run[i]);
    tu_rmtree(dir);
    free(dir);
}

Test(allreduce, injected_errors)
{
    uint64_t counts[5] = {0, 1, 0, 3, 0};          /* -2..+2: -1 once, +1 three times */
    optinc_err_hist *h;
    optinc_error err;
    cr_assert_eq(optinc_err_hist_from_counts(counts, 5, 2, &h, &err), OPTINC_OK);
    cr_assert_eq(h->n, 2);
    h->p_error = 0.01;
    int N = 4;
    size_t n = 200000;
    float **orig = grads_new(N, n, 4);
    float **g = grads_copy(orig, N, n), **g2 = grads_copy(orig, N, n);
    float **g3 = grads_copy(orig, N, n), **clean = grads_copy(orig, N, n);
    optinc_allreduce *ar = plan("optinc", N, NULL, h);
    optinc_allreduce *ideal = plan("optinc", N, NULL, NULL);
    optinc_ar_stats st;
    memset(&st, 0, sizeof st);
    run(ar, 5, g, n, &st);
    run(ar, 5, g2, n, NULL);
    run(ar, 6, g3, n, NULL);
    run(ideal, 5, clean, n, NULL);
    /* about p n errors (5 sigma), 3:1 up vs down, the same ones for the same
     * step, others for another step */
    double mu = 0.01 * n, sd = sqrt(mu);
    cr_assert(fabs((double)st.injected_errors - mu) < 5 * sd, "%llu",
              (unsigned long long)st.injected_errors);
    uint64_t up = 0, down = 0, same = 0;
    for (size_t j = 0; j < n; j++) {
        cr_assert_eq(g[0][j], g2[0][j]);
        if (g[0][j] != clean[0][j]) {
            if (g[0][j] > clean[0][j])
                up++;
            else
                down++;
            same += g3[0][j] == g[0][j];
        }
    }
    cr_assert_eq(up + down, st.injected_errors);   /* no clamping at these magnitudes */
    cr_assert(up > 2 * down, "up %llu down %llu", (unsigned long long)up,
              (unsigned long long)down);
    cr_assert_lt(same, st.injected_errors / 10);
    optinc_allreduce_free(ar);
    optinc_allreduce_free(ideal);
    optinc_err_hist_free(h);
    grads_free(orig, N);
    grads_free(g, N);
    grads_free(g2, N);
    grads_free(g3, N);
    grads_free(clean, N);
}

Test(allreduce, histogram_files)
{
    char *dir = tu_tempdir(), path[4200];
    snprintf(path, sizeof path, "%s/h.txt", dir);
    cr_assert_eq(tu_write_file(path, "# ONN errors\n0 990\n1 6\n-1 3\n\n4 1\n"), 0);
    optinc_err_hist *h;
    optinc_error err;
    cr_assert_eq(optinc_err_hist_load(path, NULL, &h, &err), OPTINC_OK, "%s", err.message);
    /* quotients of counts (10 / 1000, 3 / 10, 9 / 10), each a correctly
     * rounded division or two: measured 0 here and below; the last cdf is
     * the total over itself, 1 exactly */
    cr_assert_float_eq(h->p_error, 0.01, 1e-12);
    cr_assert_eq(h->n, 3);
    cr_assert_eq(h->delta[0], -1);
    cr_assert_eq(h->delta[2], 4);
    cr_assert_float_eq(h->cdf[0], 0.3, 1e-12);
    cr_assert_float_eq(h->cdf[1], 0.9, 1e-12);
    cr_assert_eq(h->cdf[2], 1.0);
    optinc_err_hist_free(h);
    cr_assert_eq(tu_write_file(path, "p_error 0.001\n1 1\n-1 1\n"), 0);
    cr_assert_eq(optinc_err_hist_load(path, NULL, &h, &err), OPTINC_OK, "%s", err.message);
    cr_assert_float_eq(h->p_error, 0.001, 1e-15);
    optinc_err_hist_free(h);
    /* bad inputs: line:col of the field at fault, and the message */
    const struct { const char *text; int line, col; const char *msg; } bad[] = {
        {"0 10\n1 x\n", 2, 3, "DELTA COUNT"},
        {"0 10\n  1.5 3\n", 2, 3, "integer"},
        {"0 10\n1 -2\n", 2, 3, "count"},
        {"0 10\n  7\n", 2, 3, "DELTA COUNT"},
        {"0 10\n1 2 3\n", 2, 5, "DELTA COUNT"},
        {"0 10\n70000 1\n", 2, 1, "-65535..65535"},
        {"p_error 2\n", 1, 9, "[0, 1]"},
        {"p_error\n", 1, 1, "[0, 1]"},
        {"p_error 0.1 0.2\n", 1, 13, "[0, 1]"},
        {"# nothing\n", 2, 1, "empty"},
        {"# nothing", 1, 10, "empty"},
        {"p_error 0.1\n0 5\n", 1, 1, "no nonzero"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cr_assert_eq(tu_write_file(path, bad[i].text), 0);
        cr_assert_eq(optinc_err_hist_load(path, NULL, &h, &err), OPTINC_EINPUT, "case %zu", i);
        cr_assert_eq(err.line, bad[i].line, "case %zu: line %d", i, err.line);
        cr_assert_eq(err.column, bad[i].col, "case %zu: col %d", i, err.column);
        cr_assert(strstr(err.message, bad[i].msg), "case %zu: %s", i, err.message);
    }
    cr_assert_eq(optinc_err_hist_load("/nonexistent/h.txt", NULL, &h, &err), OPTINC_EINPUT);
    /* the buffer reader the file reader wraps: errors carry the name given,
     * and the buffer need not end in a newline */
    const char text[] = "0 990\n1 6\n-1 3\n4 1";
    cr_assert_eq(optinc_err_hist_parse(text, strlen(text), "mem", &h, &err), OPTINC_OK, "%s",
                 err.message);
    cr_assert_eq(h->n, 3);
    cr_assert_float_eq(h->cdf[1], 0.9, 1e-12);
    cr_assert_str_eq(h->path, "mem");
    optinc_err_hist_free(h);
    /* a bin may be listed more than once (its counts add up), and '#'
     * starts a comment anywhere on a line */
    const char twice[] = "0 990\n1 3\t# first half\n-1 3\n4 1\n1 3\n";
    cr_assert_eq(optinc_err_hist_parse(twice, strlen(twice), "mem", &h, &err), OPTINC_OK, "%s",
                 err.message);
    cr_assert_eq(h->n, 3);
    cr_assert_float_eq(h->p_error, 0.01, 1e-12);
    cr_assert_float_eq(h->cdf[1], 0.9, 1e-12);
    optinc_err_hist_free(h);
    cr_assert_eq(optinc_err_hist_parse("0 10\n1 x\n", 9, "mem", &h, &err), OPTINC_EINPUT);
    cr_assert(!strcmp(err.file, "mem") && err.line == 2 && err.column == 3, "%s:%d:%d", err.file,
              err.line, err.column);
    /* counts whose sum overflows (found by fuzz_hist) */
    const char *huge = "1 1e308\n2 1e308\n";
    cr_assert_eq(optinc_err_hist_parse(huge, strlen(huge), "mem", &h, &err), OPTINC_EINPUT);
    cr_assert(err.line == 2 && err.column == 3, "%d:%d: %s", err.line, err.column, err.message);
    tu_rmtree(dir);
    free(dir);
}

/* A UTF-8 byte-order mark before the first line is skipped, and the
 * columns of line 1 count from after it. */
Test(allreduce, histogram_byte_order_mark_is_accepted)
{
    static const char text[] = "\xef\xbb\xbf" "0 90\n1 10\n";
    optinc_err_hist *h = NULL;
    optinc_error err = {0};
    cr_assert_eq(optinc_err_hist_parse(text, strlen(text), "bom.hist", &h, &err), OPTINC_OK,
                 "%s", err.message);
    cr_expect_float_eq(h->p_error, 0.1, 1e-12);     /* 10 / 100: one rounding (measured 0) */
    optinc_err_hist_free(h);
    static const char bad[] = "\xef\xbb\xbf" "x 1\n";
    cr_expect_eq(optinc_err_hist_parse(bad, strlen(bad), "bom.hist", &h, &err), OPTINC_EINPUT);
    cr_expect(err.line == 1 && err.column == 1, "%d:%d", err.line, err.column);
}

/* The file reader reads a regular file only, and at once: a FIFO (which
 * would block an open() for reading until a writer came) is refused without
 * waiting.  A histogram is text: a NUL byte is refused where it is. */
Test(allreduce, histogram_file_refusals, .timeout = 10)
{
    char *dir = tu_tempdir(), path[4200];
    optinc_err_hist *h = (optinc_err_hist *)1;
    optinc_error err = {0};
    snprintf(path, sizeof path, "%s/fifo.hist", dir);
    cr_assert_eq(mkfifo(path, 0600), 0);
    cr_expect_eq(optinc_err_hist_load(path, NULL, &h, &err), OPTINC_EINPUT);
    cr_expect_null(h);
    cr_expect_str_eq(err.file, path);
    cr_expect(strstr(err.message, "is not a regular file") != NULL, "%s", err.message);
    static const char nul[] = "0 10\n1 \0 3\n";
    snprintf(path, sizeof path, "%s/nul.hist", dir);
    FILE *f = fopen(path, "wb");
    cr_assert(f);
    cr_assert_eq(fwrite(nul, 1, sizeof nul - 1, f), sizeof nul - 1);
    cr_assert_eq(fclose(f), 0);
    h = (optinc_err_hist *)1;
    cr_expect_eq(optinc_err_hist_load(path, NULL, &h, &err), OPTINC_EINPUT);
    cr_expect_null(h);
    cr_expect_str_eq(err.file, path);
    cr_expect(err.line == 2 && err.column == 3, "%d:%d", err.line, err.column);
    cr_expect(strstr(err.message, "NUL byte") != NULL, "%s", err.message);
    tu_rmtree(dir);
    free(dir);
}

Test(allreduce, algorithm_names)
{
    const char *names[] = {"ring", "optinc", "exact", "quantized"};
    for (int i = 0; i < 4; i++) {
        const optinc_ar_algorithm *a = optinc_ar_find(names[i]);
        cr_assert(a);
        cr_assert_eq(a, optinc_ar_algorithms[i]);
        cr_assert_str_eq(a->name, names[i]);
    }
    cr_assert_null(optinc_ar_algorithms[4]);
    cr_assert_null(optinc_ar_find("tree"));
    /* every entry runs in process, and on MPI exactly when the build has it */
    for (int i = 0; optinc_ar_algorithms[i]; i++) {
        const optinc_ar_algorithm *a = optinc_ar_algorithms[i];
        cr_assert(a->inproc && a->summary, "%s", a->name);
#ifdef OPTINC_HAVE_MPI
        cr_assert(a->mpi, "%s", a->name);
#else
        cr_assert_null(a->mpi, "%s", a->name);
#endif
    }
    char buf[128];
    cr_assert_str_eq(optinc_ar_names(", ", " or ", buf, sizeof buf),
                     "ring, optinc, exact or quantized");
    cr_assert_str_eq(optinc_ar_names("|", "|", buf, sizeof buf), "ring|optinc|exact|quantized");
}

/* The backends by name; the in-process one needs no one else. */
Test(allreduce, backends)
{
    optinc_error err;
    char buf[64];
    cr_assert(optinc_comm_backend_known("inproc") && optinc_comm_backend_known("mpi"));
    cr_assert(!optinc_comm_backend_known("tcp"));
    cr_assert_str_eq(optinc_comm_backend_names(", ", " or ", buf, sizeof buf), "inproc or mpi");
    cr_assert_eq(optinc_comm_backend_check("inproc", &err), OPTINC_OK);
    cr_assert_eq(optinc_comm_backend_check("tcp", &err), OPTINC_EINPUT);
    cr_assert(strstr(err.message, "use inproc or mpi"), "%s", err.message);
#ifdef OPTINC_HAVE_MPI
    cr_assert_eq(optinc_comm_backend_check("mpi", &err), OPTINC_OK);
#else
    cr_assert_eq(optinc_comm_backend_check("mpi", &err), OPTINC_EINPUT);
    cr_assert_str_eq(err.message, "this optinc was built without MPI; install libopenmpi-dev "
                                  "and rebuild");
    optinc_comm none;
    cr_assert_eq(optinc_comm_open(&none, "mpi", 4, NULL, NULL, &err), OPTINC_EINPUT);
    cr_assert_eq(none.servers, 1, "a failed open leaves one server in process");
#endif
    optinc_comm comm;
    cr_assert_eq(optinc_comm_open(&comm, "inproc", 3, NULL, NULL, &err), OPTINC_OK);
    cr_assert(comm.servers == 3 && comm.rank == 0 && comm.first == 0 && comm.count == 3);
    double local[3] = {1, 2, 3}, all[3];
    int64_t sum;
    cr_assert_eq(optinc_comm_allgather(&comm, local, all, 1, &err), OPTINC_OK);
    cr_assert(all[0] == 1 && all[1] == 2 && all[2] == 3);
    cr_assert_eq(optinc_comm_sum(&comm, 7, &sum, &err), OPTINC_OK);
    cr_assert_eq(sum, 7);
    cr_assert_eq(optinc_comm_agree(&comm, OPTINC_EINPUT, &err), OPTINC_EINPUT);
    cr_assert_eq(optinc_comm_native_sum(&comm, NULL, 0, &err), OPTINC_EINPUT);
    cr_assert(!optinc_comm_failed(&comm));
    optinc_comm_close(&comm);
}

/* The cost model: comm time from counted traffic, and the saving
 * (N-2)/(2(N-1)) x communication share when only communication differs. */
Test(allreduce, cost_model)
{
    optinc_costmodel cm;
    optinc_costmodel_defaults(&cm);
    cr_assert_eq(cm.link_bps, 800e9);     /* the defaults are these literals */
    cr_assert_eq(cm.peak_flops, 60e12);
    cr_assert_eq(cm.efficiency, 0.6);
    optinc_ar_stats st;
    memset(&st, 0, sizeof st);
    st.bytes_sent[1] = 1000000;
    st.messages[1] = 6;
    /* the same formula with 6 . 1e-6 for 6e-6: an ulp or two of 1.6e-5
     * (ulp 3.4e-21; measured 0), so 1e-19 is 30 ulps; it was 1e-15, a
     * millionth of a latency */
    cr_assert_float_eq(optinc_cost_comm_time(&cm, &st, 1), 6e-6 + 8e6 / 800e9, 1e-19);
    cm.latency_s = 0.0;
    cm.t_onn_s = 0.0;
    optinc_workload w = {"w", 1e9, 0.0, "sample"};
    for (int N = 2; N <= 16; N++) {
        optinc_iteration it;
        optinc_cost_iteration(&cm, &w, 1, N, 8, &it);
        cr_assert_float_eq(it.compute_s, 0.0, 1e-18);     /* 0 flops: 0 exactly (measured) */
        /* ring / optinc data = 2(N-1)/N, up to the 0.39 % of scales */
        double scales = ceil(1e9 / OPTINC_AR_DEFAULT_BLOCK) * 32.0 / 800e9;
        /* a few ulps of a quotient under 2 (the scales are 0.4% of optinc_s,
         * no cancellation): measured 4.4e-16, 2 ulps; it was 1e-12, now
         * 1e-14 leaves a factor 22 */
        cr_assert_float_eq(it.ring_s / (it.optinc_s - scales), 2.0 * (N - 1) / N, 1e-14);
    }
    w.flops_per_sample = 8e9 / 36e12 * 36e12;     /* compute = comm of ring at N = 4 */
    optinc_iteration it;
    optinc_cost_iteration(&cm, &w, 1, 4, 8, &it);
    double share = it.ring_s / (it.compute_s + it.ring_s);
    double scales = ceil(1e9 / OPTINC_AR_DEFAULT_BLOCK) * 32.0 / 800e9;
    /* measured 0: the same quotients as the model's */
    cr_assert_float_eq(it.saving + scales / (it.compute_s + it.ring_s), share * 2.0 / 6.0,
                       1e-12);
}

/* ---- the compiled ONN as the aggregator ---------------------------------- */

/* The small ONN of trainutil.h, loaded (compiled from its spec). */
static optinc_circuit *tiny_onn(const char *dir, optinc_onn_meta *meta)
{
    char spec[4200];
    optinc_error err;
    optinc_circuit *c;
    cr_assert_eq(tr_tiny_onn(dir, spec, sizeof spec), 0);
    cr_assert_eq(optinc_onn_load(spec, NULL, &c, meta, &err), OPTINC_OK, "%s", err.message);
    return c;
}

/* The output code of the circuit simulated element by element (the
 * simulator's own propagation, not the verifier's layer matrices) for P
 * outputs p (cols x n, one column per element), decoded for task t. */
static void simulate(const optinc_circuit *c, const optinc_onn_task *t,
                     const optinc_onn_devices *dev, int **p, int n, uint16_t *out)
{
    optinc_layer *layers = malloc(sizeof *layers * (size_t)c->n_layers);
    optinc_circuit dc = *c;
    memcpy(layers, c->layers, sizeof *layers * (size_t)c->n_layers);
    for (int l = 0; l < c->n_layers; l++)
        layers[l].components.mzi.phase_error_sigma_rad = dev->ideal ? 0 : dev->phase_sigma_rad;
    dc.layers = layers;
    optinc_chip_options o;
    optinc_chip_options_default(&o);
    o.models = dev->ideal ? OPTINC_DEV_NONE : OPTINC_DEV_PHASE_ERROR;
    o.drive_targets = dev->ideal;
    optinc_chip *chip;
    optinc_error err;
    cr_assert_eq(optinc_chip_new(&dc, &o, dev->chip_seed, &chip, &err), OPTINC_OK, "%s",
                 err.message);
    optinc_cmat *in = optinc_cmat_new(c->layers[0].cols, n), *y = NULL;
    for (int j = 0; j < n; j++)
        for (int k = 0; k < in->rows; k++)
            OPTINC_AT(in, k, j) = k < 2 ? p[k][j] : 1.0;       /* 2 digit sums, carriers */
    cr_assert_eq(optinc_chip_eval(chip, in, &y, NULL, &err), OPTINC_OK, "%s", err.message);
    for (int j = 0; j < n; j++) {
        double amp[8];
        for (int d = 0; d < y->rows; d++)
            amp[d] = cabs(OPTINC_AT(y, d, j));
        out[j] = (uint16_t)optinc_onn_decode(t, 1.0, amp);
    }
    optinc_cmat_free(in);
    optinc_cmat_free(y);
    optinc_chip_free(chip);
    free(layers);
}

/* The table filled from the compiled ONN aggregates exactly as the circuit
 * simulated directly, on random gradient codes, for ideal devices and for a
 * chip with phase errors; and it is imperfect in the way its report says.
 * The two routes differ by roundings (the verifier's layer matrices against
 * the element-by-element propagation); == compares the decoded codes, which
 * a rounding moves only if an output lies within ulps of a decision
 * threshold (none does on any of four BLAS builds). */
Test(allreduce, onn_table_equals_direct_simulation, .timeout = 60)
{
    char *dir = tu_tempdir();
    optinc_onn_meta meta;
    optinc_circuit *c = tiny_onn(dir, &meta);
    const optinc_onn_devices devs[2] = {{.ideal = 1, .chip_seed = 1},
                                        {.phase_sigma_rad = 0.05, .chip_seed = 7}};
    for (int d = 0; d < 2; d++) {
        optinc_onn_lut *olut;
        optinc_error err;
        cr_assert_eq(optinc_onn_lut_build(c, &meta, &devs[d], &olut, &err), OPTINC_OK, "%s",
                     err.message);
        optinc_agg_lut *lut;
        cr_assert_eq(optinc_agg_lut_new(4, 4, &lut, &err), OPTINC_OK);
        cr_assert_eq(olut->size, lut->size);
        for (size_t i = 0; i < lut->size; i++)
            lut->code[i] = (uint16_t)olut->code[i];
        optinc_ar_config cfg = {optinc_ar_find("optinc"), 4, 4, 64, lut, NULL, 1, 1, 0, 0};
        optinc_allreduce *ar;
        cr_assert_eq(optinc_allreduce_new(&cfg, &ar, &err), OPTINC_OK, "%s", err.message);
        enum { n = 400 };
        uint16_t codes[4][n], out[n], want[n];
        const uint16_t *src[4] = {codes[0], codes[1], codes[2], codes[3]};
        int p0[n], p1[n], *p[2] = {p0, p1};
        optinc_rng rng;
        optinc_rng_seed(&rng, 21 + (uint64_t)d);
        for (int j = 0; j < n; j++) {
            p0[j] = p1[j] = 0;
            for (int i = 0; i < 4; i++) {
                codes[i][j] = (uint16_t)optinc_rng_below(&rng, 16);
                p0[j] += codes[i][j] & 3;
                p1[j] += codes[i][j] >> 2;
            }
        }
        optinc_ar_aggregate(ar, 0, 0, src, 0, n, out);
        simulate(c, &meta.task, &devs[d], p, n, want);
        int exact = 0;
        for (int j = 0; j < n; j++) {
            cr_assert_eq(out[j], want[j], "devices %d element %d: table %u, circuit %u", d, j,
                         out[j], want[j]);
            int64_t sum = codes[0][j] + codes[1][j] + codes[2][j] + codes[3][j];
            exact += out[j] == optinc_agg_exact_code(4, 4, sum);
        }
        /* a briefly trained ONN is imperfect: some outputs differ from the
         * exact average, as often as its verification says (within noise) */
        cr_assert_lt(exact, n, "devices %d: the tiny ONN was expected to err", d);
        optinc_allreduce_free(ar);
        optinc_agg_lut_free(lut);
        optinc_onn_lut_free(olut);
    }
    optinc_circuit_free(c);
    tu_rmtree(dir);
    free(dir);
}

/* A plan of `name` with error feedback and stochastic rounding as given. */
static optinc_allreduce *own_plan(const char *name, int N, int bits, int block, int threads,
                                  const optinc_err_hist *h, int feedback, int stochastic)
{
    optinc_ar_config c = {optinc_ar_find(name), N, bits, block, NULL, h, 7, threads,
                          feedback, stochastic};
    optinc_allreduce *ar = NULL;
    optinc_error err;
    cr_assert_eq(optinc_allreduce_new(&c, &ar, &err), OPTINC_OK, "%s", err.message);
    return ar;
}

/* Non-finite values and outliers (quantize.c, block scales), over 4
 * servers in blocks of 1024: NaN in server 1's gradient at one element gives
 * NaN there on every server, +inf gives +inf, +inf and -inf on two servers
 * give NaN, and every other element keeps its bits; an outlier of 1e38
 * there decodes as if it were the block's scale (its code saturates), every
 * other element keeping its bits (server 3's scale is the block's: its
 * values are 4 times server 1's).  On one thread and two, with injected
 * errors and with stochastic rounding (their draws do not depend on the
 * values). */
Test(allreduce, nonfinite_values_and_outliers_stay_where_they_are)
{
    optinc_err_hist *h = errors_at_rate(0.01);
    const struct { const char *name; int threads, inject, stochastic; } cases[] = {
        {"optinc", 1, 0, 0}, {"optinc", 2, 0, 0}, {"quantized", 2, 1, 0}, {"quantized", 1, 0, 1}};
    const float bad[][2] = {{NAN, 0.0f}, {INFINITY, 0.0f}, {INFINITY, -INFINITY}, {1e38f, 0.0f}};
    int N = 4;
    size_t n = 3000, j0 = 1500;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        optinc_allreduce *ar = own_plan(cases[k].name, N, 8, 1024, cases[k].threads,
                                        cases[k].inject ? h : NULL, 0, cases[k].stochastic);
        float **src = grads_new(N, n, 90 + k), **want = grads_copy(src, N, n);
        run(ar, 5, want, n, NULL);
        float scale = 0.0f;                  /* the old scale of j0's block */
        for (int i = 0; i < N; i++)
            for (size_t j = 1024; j < 2048; j++)
                scale = fabsf(src[i][j]) > scale ? fabsf(src[i][j]) : scale;
        for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
            float **g = grads_copy(src, N, n), **at_scale = grads_copy(src, N, n);
            g[1][j0] = bad[b][0];
            if (bad[b][1] != 0.0f)
                g[2][j0] = bad[b][1];
            run(ar, 5, g, n, NULL);
            at_scale[1][j0] = scale;
            run(ar, 5, at_scale, n, NULL);
            for (int i = 0; i < N; i++) {
                if (b == 1)
                    cr_assert(isinf(g[i][j0]) && g[i][j0] > 0, "%s: %g", cases[k].name,
                              g[i][j0]);
                else if (b == 3)
                    cr_assert(!memcmp(&g[i][j0], &at_scale[i][j0], sizeof(float)),
                              "%s: the outlier gives %g, its scale %g", cases[k].name,
                              g[i][j0], at_scale[i][j0]);
                else
                    cr_assert(isnan(g[i][j0]), "%s: %g", cases[k].name, g[i][j0]);
                for (size_t j = 0; j < n; j++)
                    cr_assert(j == j0 || !memcmp(&g[i][j], &want[i][j], sizeof(float)),
                              "%s case %zu: server %d element %zu: %g, was %g",
                              cases[k].name, b, i, j, g[i][j], want[i][j]);
            }
            grads_free(g, N);
            grads_free(at_scale, N);
        }
        grads_free(src, N);
        grads_free(want, N);
        optinc_allreduce_free(ar);
    }
    optinc_err_hist_free(h);
}

/* Error feedback and stochastic rounding give the same bytes, and leave
 * the same residuals, on any number of threads, with and without injected
 * errors, over steps that reuse the residuals; and they change the result. */
Test(allreduce, feedback_and_rounding_same_bytes_for_any_thread_count)
{
    optinc_err_hist *h = errors_at_rate(0.01);
    const struct { const char *name; int N, feedback, stochastic, inject; } cases[] = {
        {"optinc", 4, 1, 0, 0}, {"optinc", 4, 0, 1, 0}, {"optinc", 4, 1, 1, 1},
        {"quantized", 5, 1, 1, 0}, {"quantized", 3, 1, 0, 1}};
    size_t n = 9 * 1000 + 37;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        int N = cases[k].N;
        float **src = grads_new(N, n, 70 + k), **out[3], **res[3];
        src[1][3000] = INFINITY;
        src[0][4000] = NAN;
        for (int t = 1; t <= 3; t++) {
            optinc_allreduce *ar = own_plan(cases[k].name, N, 8, 100, t,
                                            cases[k].inject ? h : NULL, cases[k].feedback,
                                            cases[k].stochastic);
            res[t - 1] = grads_copy(src, N, n);
            for (int i = 0; i < N; i++)
                memset(res[t - 1][i], 0, n * sizeof(float));
            optinc_allreduce_set_residuals(ar, res[t - 1], N);
            out[t - 1] = grads_copy(src, N, n);
            optinc_ar_stats st = {0};
            for (uint64_t s = 3; s < 6; s++) {
                float **g = grads_copy(src, N, n);
                run(ar, s, g, n, &st);
                for (int i = 0; i < N; i++)
                    memcpy(out[t - 1][i], g[i], n * sizeof(float));
                grads_free(g, N);
            }
            cr_assert(!cases[k].inject || st.injected_errors > 0);
            optinc_allreduce_free(ar);
        }
        for (int t = 1; t < 3; t++)
            for (int i = 0; i < N; i++) {
                cr_assert(!memcmp(out[t][i], out[0][i], n * sizeof(float)),
                          "%s case %zu: %d threads differ from 1 at server %d", cases[k].name,
                          k, t + 1, i);
                cr_assert(!memcmp(res[t][i], res[0][i], n * sizeof(float)),
                          "%s case %zu: %d threads leave other residuals at server %d",
                          cases[k].name, k, t + 1, i);
            }
        /* against the plain plan: the options act */
        optinc_allreduce *plain = own_plan(cases[k].name, N, 8, 100, 1,
                                           cases[k].inject ? h : NULL, 0, 0);
        float **g = grads_copy(src, N, n);
        run(plain, 5, g, n, NULL);
        cr_assert(memcmp(g[0], out[0][0], n * sizeof(float)), "case %zu changes nothing", k);
        optinc_allreduce_free(plain);
        grads_free(g, N);
        for (int t = 0; t < 3; t++) {
            grads_free(out[t], N);
            grads_free(res[t], N);
        }
        grads_free(src, N);
    }
    optinc_err_hist_free(h);
}

/* The residual is carried: N servers with the same constant gradient send
 * the same codes, so the output is the servers' own quantization; with
 * error feedback its time average over T steps is the gradient within one
 * step size / T (the sum of the outputs is T g minus the last residual),
 * without it the rounding error stays (up to half a step). */
Test(allreduce, error_feedback_time_average_is_the_gradient)
{
    int N = 4, T = 256;
    size_t n = 3000;
    float **src = grads_new(1, n, 5), **g = calloc((size_t)N, sizeof *g);
    float **res = calloc((size_t)N, sizeof *res);
    double *sum = calloc(n, sizeof *sum);
    for (int i = 0; i < N; i++) {
        g[i] = malloc(n * sizeof(float));
        res[i] = calloc(n, sizeof(float));
    }
    for (int feedback = 0; feedback <= 1; feedback++) {
        optinc_allreduce *ar = own_plan("optinc", N, 8, 1024, 1, NULL, feedback, 0);
        optinc_allreduce_set_residuals(ar, res, N);
        for (int i = 0; i < N; i++)
            memset(res[i], 0, n * sizeof(float));
        memset(sum, 0, n * sizeof *sum);
        for (int s = 0; s < T; s++) {
            for (int i = 0; i < N; i++)
                memcpy(g[i], src[0], n * sizeof(float));
            run(ar, (uint64_t)s, g, n, NULL);
            for (int i = 1; i < N; i++)
                cr_assert(!memcmp(g[i], g[0], n * sizeof(float)));
            for (size_t j = 0; j < n; j++)
                sum[j] += g[0][j];
        }
        double worst = 0.0, lsb = 0.0;
        for (size_t lo = 0; lo < n; lo += 1024) {
            double m = 0.0;
            for (size_t j = lo; j < n && j < lo + 1024; j++)
                m = fmax(m, fabs(src[0][j]));
            lsb = fmax(lsb, m * 1.01 / TOP8);   /* the largest step, with the residual's room */
        }
        for (size_t j = 0; j < n; j++)
            worst = fmax(worst, fabs(sum[j] / T - src[0][j]));
        /* 1e-7 lsb: room for the outputs' float rounding over T steps */
        if (feedback)
            cr_assert(worst <= lsb / T + 1e-7 * lsb, "average off by %g, step %g", worst, lsb);
        else
            cr_assert(worst > 0.3 * lsb, "without feedback, off by %g only", worst);
        optinc_allreduce_free(ar);
    }
    /* error feedback without residual buffers, and on a float algorithm */
    optinc_allreduce *ar = own_plan("quantized", N, 8, 64, 1, NULL, 1, 0);
    optinc_error err;
    cr_assert_eq(optinc_allreduce_inproc(ar, 0, g, n, NULL, &err), OPTINC_EINPUT);
    cr_assert(strstr(err.message, "optinc_allreduce_set_residuals"), "%s", err.message);
    optinc_allreduce_free(ar);
    optinc_ar_config c = {optinc_ar_find("ring"), N, 8, 64, NULL, NULL, 7, 1, 1, 0};
    cr_assert_eq(optinc_allreduce_new(&c, &ar, &err), OPTINC_EINPUT);
    cr_assert(strstr(err.message, "not quantized"), "%s", err.message);
    grads_free(g, N);
    grads_free(res, N);
    grads_free(src, 1);
    free(sum);
}

/* Stochastic rounding is unbiased: one server's decoded codes are the
 * floor or the ceiling of the value in steps, and their mean over T steps
 * (independent draws per step) is the value within 5 standard deviations
 * (at most step / (2 sqrt T) each); the mean over all elements of the
 * signed errors is near 0, as the mean of n T independent draws. */
Test(allreduce, stochastic_rounding_is_unbiased)
{
    int T = 2000;
    size_t n = 512;
    float **src = grads_new(1, n, 9), *g = malloc(n * sizeof *g);
    double *sum = calloc(n, sizeof *sum);
    optinc_allreduce *ar = own_plan("quantized", 1, 8, 1024, 1, NULL, 0, 1);
    src[0][7] = 0.0f;
    double m = 0.0;
    for (size_t j = 0; j < n; j++)
        m = fmax(m, fabs(src[0][j]));
    double step = m / TOP8;
    for (int s = 0; s < T; s++) {
        memcpy(g, src[0], n * sizeof *g);
        run(ar, (uint64_t)s, &g, n, NULL);
        for (size_t j = 0; j < n; j++) {
            double x = src[0][j] / step, q = g[j] / step;
            cr_assert(q >= floor(x) - 1e-4 && q <= ceil(x) + 1e-4, "%g rounded to %g", x, q);
            sum[j] += g[j];
        }
    }
    double total = 0.0;
    for (size_t j = 0; j < n; j++) {
        double bias = sum[j] / T - src[0][j];
        cr_assert(fabs(bias) <= 5.0 * step / (2.0 * sqrt(T)), "element %zu off by %g steps", j,
                  bias / step);
        total += bias;
    }
    cr_assert(fabs(total / (double)n) <= 5.0 * step / (2.0 * sqrt((double)T * (double)n)),
              "mean error %g steps", total / (double)n / step);
    cr_assert_eq(sum[7], 0.0);                   /* a zero stays zero */
    optinc_allreduce_free(ar);
    grads_free(src, 1);
    free(g);
    free(sum);
}
