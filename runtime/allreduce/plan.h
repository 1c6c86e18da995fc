/*
 * plan.h - inside an all-reduce plan: what the algorithm files (ring.c,
 * exact.c, quantized.c, optinc.c), the shared kernels and the backends of
 * runtime/allreduce/ see of it.  Private to this folder.
 *
 * A plan holds what every call reuses.  The quantizing algorithms go through
 * one two-step shape, index = sum_i weight[u_i] then out = table[index], and
 * differ only in the table their prepare() builds: for optinc the weights
 * spread a code's PAM4 digits into radix-(3N+1) positions, so the index is
 * the tuple of digit-position sums (preprocessing P) and the table is the
 * ONN; for quantized the weight is the code itself, so the index is
 * sum_i u_i and the table the exact rounding.
 */
#ifndef OPTINC_ALLREDUCE_PLAN_H
#define OPTINC_ALLREDUCE_PLAN_H

#include <stddef.h>
#include <stdint.h>
#include "optinc/allreduce.h"

/* Loops over TILE elements have a constant trip count, which GCC's -O2
 * vectorizer (its "very cheap" cost model) accepts; the rest runs scalar. */
#define TILE 256

/* The hot loops are also compiled for AVX-512F and AVX2 and picked at load
 * time (an ifunc): four and two times the vector width of the x86-64
 * baseline (AVX-512F: 15 % less CPU for the in-process optinc all-reduce of
 * 4 x 1M floats on an AVX-512 EPYC, 2.05-2.09 ms against 2.42-2.64 ms).
 * Every operation in them is an exact IEEE or integer operation element by
 * element (neither target enables FMA), so all versions give the same bits.
 * GCC only, like mesh.c and sim.c: clang before 16 names the clones in a way
 * other files cannot link. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__)
#define HOT __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define HOT
#endif

/* How N codes become a table index (quantize.c says how each works). */
typedef enum ar_index_mode {
    AR_INDEX_SUM, AR_INDEX_NIBBLE, AR_INDEX_SPREAD, AR_INDEX_GATHER
} ar_index_mode;

struct optinc_allreduce {
    optinc_ar_config cfg;
    char what[48];                /* "ring all-reduce": what messages call its exchanges */
    /* the lookup of the quantizing algorithms, set by their prepare() */
    ar_index_mode index_mode;
    uint32_t radix_pow[4];        /* AR_INDEX_SPREAD: (3N+1)^k */
    const uint32_t *weight;       /* AR_INDEX_GATHER: code -> index contribution */
    const uint16_t *table;        /* index -> output code */
    int levels;                   /* optinc: 0, one table for the N servers; else a cascade
                                     of that many levels of the table's F-server unit,
                                     N = F^levels (cascade.c) */
    /* the quantizing algorithms' codes, set when the plan is made */
    uint32_t zero;                /* the code of zero (optinc_code_zero, onn.h: mid PAM4
                                     digits, so small values stay clear of the carries) */
    float top;                    /* the largest magnitude in steps the codes 0..2^b-1
                                     hold on both sides of zero */
    uint16_t *own_table;          /* the table, when prepare() built it */
    optinc_agg_lut *own_lut;      /* the exact aggregation table, when prepare() made it */
    float *residual[OPTINC_AR_MAX_SERVERS]; /* error feedback: beside each gradient of a call */
    int residuals;                /* how many were set */
    struct optinc_workers *workers;   /* cfg.threads - 1 threads besides the caller's; NULL: none */
    /* scratch of the in-process quantizing path, sized on first use */
    float *absmax;                /* nblocks: each block's scale (quantize.c) */
    unsigned char *block_flags;   /* nblocks: what its scale found (quantize.c) */
    uint16_t *codes;              /* n */
    uint16_t *own_codes;          /* N x n: every server's own codes (error feedback or
                                     stochastic rounding) */
    size_t cap_blocks, cap_n, cap_own;
    /* scratch of the MPI path (quantize.c), sized on first use: the block
     * scales and flags as one reduction, this rank's codes, those received */
    void *mpi_scratch;
    size_t cap_mpi;               /* bytes */
};

/* Chunk c of n elements split over N: [*lo, *hi), sizes differ by at most 1. */
void optinc_ar_chunk(size_t n, int servers, int c, size_t *lo, size_t *hi);
/* The chunk server r sends to server r+1 in step s of a ring's
 * reduce-scatter, (r - s) mod N; in step s of the all-gather it sends chunk
 * optinc_ar_ring_chunk(r + 1, s, N). */
int optinc_ar_ring_chunk(int r, int s, int N);
/* Number of scale blocks of n elements. */
size_t optinc_ar_blocks(const optinc_allreduce *ar, size_t n);
/* g[j] = g[j] / N over [0, len). */
void optinc_ar_mean(float *g, size_t len, int servers);
/* Adds the traffic of server s in one all-reduce of n elements, on the
 * network of the plan's algorithm, to stats: the one byte model both
 * backends count with. */
void optinc_ar_traffic(const optinc_allreduce *ar, size_t n, int s, optinc_ar_stats *stats);

/* names[0..n) joined into buf, sep between them and last before the last
 * (the name lists of algorithms.c and comm.c). */
const char *optinc_ar_join(const char *const *names, size_t n, const char *sep,
                           const char *last, char *buf, size_t size);

/* Output codes of len <= TILE elements from the N servers' codes through
 * the plan's cascade (ar->levels > 0). */
void optinc_ar_cascade(const optinc_allreduce *ar, const void *const *codes, int wide,
                       size_t len, void *out);

/* The quantizing algorithms' run (quantize.c): block scales, codes,
 * aggregation through the plan's table, injected errors, decoding. */
optinc_status optinc_ar_codes_inproc(optinc_allreduce *ar, uint64_t step, float *const *grads,
                                     size_t n, uint64_t *errors, optinc_error *err);
#ifdef OPTINC_HAVE_MPI
optinc_status optinc_ar_codes_mpi(struct optinc_comm *comm, optinc_allreduce *ar, uint64_t step,
                                  float *grad, size_t n, uint64_t *errors, optinc_error *err);
#endif

/* ".mpi = fn," in an algorithm's table entry when MPI is built, nothing
 * otherwise (fn is then not compiled). */
#ifdef OPTINC_HAVE_MPI
#define OPTINC_AR_MPI(fn) .mpi = (fn),
#else
#define OPTINC_AR_MPI(fn)
#endif

#endif
