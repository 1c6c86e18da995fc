/*
 * allreduce.c - the all-reduce plan (allreduce.h): made once from a
 * configuration and the algorithm's table entry, run every step; the byte
 * model both backends count with; the float kernels of ring and exact.
 *
 * The plan knows nothing of any one algorithm.  It checks what the entry's
 * flags say the algorithm needs, lets the entry's prepare() build its
 * tables, and runs the entry's implementation; the traffic of a call follows
 * from the entry's network alone.
 *
 * Determinism.  Every float operation is one of four shared kernels
 * (optinc_ar_add, optinc_ar_mean here, the quantizer and the decoder of
 * quantize.c), applied in the same order by the in-process and the MPI
 * implementation of each algorithm, so both backends give the same bits.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "compiler/core/freeall.h"
#include "optinc/allreduce.h"
#include "optinc/onn.h"
#include "runtime/allreduce/plan.h"
#include "runtime/allreduce/workers.h"

optinc_status optinc_allreduce_new(const optinc_ar_config *cfg, optinc_allreduce **out,
                                   optinc_error *err)
{
    *out = NULL;
    char names[128];
    if (!cfg->algorithm)
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0, "no all-reduce algorithm: use %s",
                           optinc_ar_names(", ", " or ", names, sizeof names));
    if (cfg->servers < 1 || cfg->servers > OPTINC_AR_MAX_SERVERS)
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0, "%d servers: use 1..%d",
                           cfg->servers, OPTINC_AR_MAX_SERVERS);
    int quantizing = cfg->algorithm->flags & OPTINC_AR_QUANTIZES;
    if (quantizing && (cfg->bits < 2 || cfg->bits > 16 || cfg->bits % 2))
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                           "%d-bit gradient codes: use an even width of 2..16 bits (PAM4 "
                           "carries 2 bits per symbol)", cfg->bits);
    if (quantizing && cfg->block_size < 1)
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                           "block size %d: give at least 1 element per scale block",
                           cfg->block_size);
    if (cfg->lut && ((cfg->lut->servers != cfg->servers
                      && optinc_onn_cascade_depth(cfg->lut->servers, cfg->servers) < 1)
                     || cfg->lut->bits != cfg->bits))
        return optinc_fail(err, OPTINC_EINPUT, cfg->lut->source, 0, 0,
                           "the aggregation table is for %d servers and %d bits, the run has %d "
                           "servers and %d bits: use an ONN compiled for this run (a unit of F "
                           "servers serves F^L servers in a cascade of L levels)",
                           cfg->lut->servers, cfg->lut->bits, cfg->servers, cfg->bits);
    if (cfg->threads < 0 || cfg->threads > OPTINC_AR_MAX_THREADS)
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0, "%d threads: use 1..%d",
                           cfg->threads, OPTINC_AR_MAX_THREADS);
    if (!quantizing && (cfg->error_feedback || cfg->stochastic_rounding))
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                           "%s is not quantized: error feedback and stochastic rounding act on "
                           "the codes of a quantizing algorithm (optinc or quantized)",
                           cfg->algorithm->name);
    optinc_allreduce *ar = calloc(1, sizeof *ar);
    if (!ar)
        return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory");
    ar->cfg = *cfg;
    if (quantizing) {      /* once here, not per tile of the quantizer */
        ar->zero = optinc_code_zero(cfg->bits);
        uint32_t above = (1u << cfg->bits) - 1 - ar->zero;
        ar->top = (float)(ar->zero < above ? ar->zero : above);
    }
    snprintf(ar->what, sizeof ar->what, "%s all-reduce", cfg->algorithm->name);
    optinc_status st = cfg->algorithm->prepare ? cfg->algorithm->prepare(ar, err) : OPTINC_OK;
    if (!st)
        st = optinc_workers_new(cfg->threads, &ar->workers, err);
    if (st) {
        optinc_allreduce_free(ar);
        return st;
    }
    *out = ar;
    return OPTINC_OK;
}

void optinc_allreduce_free(optinc_allreduce *ar)
{
    if (!ar)
        return;
    optinc_workers_free(ar->workers);
    optinc_agg_lut_free(ar->own_lut);
    OPTINC_FREE_ALL(ar->own_table, ar->absmax, ar->block_flags, ar->codes, ar->own_codes,
                    ar->mpi_scratch, ar);
}

void optinc_allreduce_set_residuals(optinc_allreduce *ar, float *const *residuals, int count)
{
    count = residuals && count > 0 ? count < ar->cfg.servers ? count : ar->cfg.servers : 0;
    for (int i = 0; i < OPTINC_AR_MAX_SERVERS; i++)
        ar->residual[i] = i < count ? residuals[i] : NULL;
    ar->residuals = count;
}

const optinc_ar_config *optinc_allreduce_config(const optinc_allreduce *ar)
{
    return &ar->cfg;
}

optinc_status optinc_allreduce_inproc(optinc_allreduce *ar, uint64_t step, float *const *grads,
                                      size_t n, optinc_ar_stats *stats, optinc_error *err)
{
    uint64_t errors = 0;
    optinc_status st = ar->cfg.algorithm->inproc(ar, step, grads, n, &errors, err);
    if (st || !stats)
        return st;
    stats->servers = ar->cfg.servers;
    for (int s = 0; s < ar->cfg.servers; s++)
        optinc_ar_traffic(ar, n, s, stats);
    stats->injected_errors += errors;
    return OPTINC_OK;
}

/* ---- the byte model ------------------------------------------------------ */

/* Bytes of len words as the algorithm sends them: b-bit codes or floats. */
static uint64_t payload(const optinc_allreduce *ar, size_t len)
{
    if (ar->cfg.algorithm->flags & OPTINC_AR_QUANTIZES)
        return ((uint64_t)len * (uint64_t)ar->cfg.bits + 7) / 8;
    return (uint64_t)len * sizeof(float);
}

/* Server s sends one message of `sent` bytes and receives `received`. */
static void count(optinc_ar_stats *stats, int s, uint64_t sent, uint64_t received)
{
    stats->bytes_sent[s] += sent;
    stats->messages[s] += 1;
    stats->bytes_received[s] += received;
}

/* Bytes of chunk c of n elements. */
static uint64_t chunk_payload(const optinc_allreduce *ar, size_t n, int c)
{
    size_t lo, hi;
    optinc_ar_chunk(n, ar->cfg.servers, c, &lo, &hi);
    return payload(ar, hi - lo);
}

void optinc_ar_traffic(const optinc_allreduce *ar, size_t n, int s, optinc_ar_stats *stats)
{
    int N = ar->cfg.servers;
    if (ar->cfg.algorithm->network == OPTINC_AR_NET_RING) {
        /* each step: this server's chunk to the next, the previous one's in */
        for (int k = 0; k < N - 1; k++)
            count(stats, s, chunk_payload(ar, n, optinc_ar_ring_chunk(s, k, N)),
                  chunk_payload(ar, n, optinc_ar_ring_chunk(s - 1, k, N)));
        for (int k = 0; k < N - 1; k++)
            count(stats, s, chunk_payload(ar, n, optinc_ar_ring_chunk(s + 1, k, N)),
                  chunk_payload(ar, n, optinc_ar_ring_chunk(s, k, N)));
        return;
    }
    if (ar->cfg.algorithm->flags & OPTINC_AR_QUANTIZES) {
        uint64_t scales = optinc_ar_blocks(ar, n) * sizeof(float);
        count(stats, s, scales, scales);
    }
    count(stats, s, payload(ar, n), payload(ar, n));
}

/* ---- slice kernels ------------------------------------------------------- */

void optinc_ar_chunk(size_t n, int servers, int c, size_t *lo, size_t *hi)
{
    *lo = n * (size_t)c / (size_t)servers;
    *hi = n * (size_t)(c + 1) / (size_t)servers;
}

int optinc_ar_ring_chunk(int r, int s, int N)
{
    return ((r - s) % N + N) % N;
}

size_t optinc_ar_blocks(const optinc_allreduce *ar, size_t n)
{
    size_t b = (size_t)ar->cfg.block_size;
    return (n + b - 1) / b;
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
