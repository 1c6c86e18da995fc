/*
 * allreduce.h - the gradient all-reduce of data-parallel training, emulated:
 * ring all-reduce against the OptINC optical aggregator.
 *
 * The algorithms form one table, optinc_ar_algorithms[]: each entry names an
 * algorithm, says what it needs (flags), on which network its traffic is
 * counted, and gives its in-process and MPI implementations.  Callers find
 * an algorithm by name and consult its entry; nothing outside the table
 * lists them.  The plan is made once and run every training step (FFTW's
 * habit):
 *
 *   ring       reduce-scatter then all-gather, N-1 + N-1 steps, each server
 *              sending one chunk of n/N floats per step (the electrical
 *              baseline);
 *   optinc     every server block-quantizes its gradient to b-bit offset-binary
 *              codes and sends them once to the OptINC unit, which forms the
 *              digit-position sums of their PAM4 digits (preprocessing P) and
 *              maps them through the aggregation table (the compiled ONN,
 *              tabulated over P's output space; onn_aggregate.h) to the code
 *              of the average;
 *   exact      float mean, servers added in the order 0..N-1 (reference);
 *   quantized  the exact average of the quantized codes, rounded half to even
 *              (what a perfect ONN computes; reference).
 *
 * Every floating-point reduction has one defined order, so the in-process
 * emulation and the MPI backend (comm.h) give bit-identical results: the ring
 * adds chunk c as ((g_c + g_c+1) + g_c+2) + ... around the ring, the owner
 * divides by N, and every server receives the same bytes in the all-gather;
 * exact adds servers 0..N-1 in that order; the quantized algorithms are
 * integer arithmetic between a shared quantizer and a shared decoder.
 *
 * Byte counts model the network the algorithm runs on, not what the emulation
 * moves, and both backends count them from the same model (the entry's
 * network): a ring of point-to-point links, or a star through an in-network
 * aggregator (each server sends its words once and receives the result
 * once).  Quantizing algorithms also count the exchange of the shared
 * per-block scales (4 bytes per block, sent once, before the codes).
 */
#ifndef OPTINC_ALLREDUCE_H
#define OPTINC_ALLREDUCE_H

#include <stddef.h>
#include <stdint.h>
#include "optinc/error.h"
#include "optinc/onn_aggregate.h"
#include "optinc/spec.h"

#define OPTINC_AR_MAX_SERVERS OPTINC_AGG_MAX_SERVERS   /* 256 */
#define OPTINC_AR_MAX_THREADS 256
/* The spec's defaults (its allreduce: section starts from them). */
#define OPTINC_AR_DEFAULT_BITS OPTINC_SPEC_AR_DEFAULT_BITS    /* b = 8, the paper's case */
#define OPTINC_AR_DEFAULT_BLOCK OPTINC_SPEC_AR_DEFAULT_BLOCK  /* 1024: scale overhead 0.39 % */

/* ---- injected ONN output errors -------------------------------------------
 * A histogram of output errors in LSBs (as the ONN verifier measures them).
 * Each aggregated code is wrong with probability p_error = 1 - P(0); a wrong
 * code moves by a delta drawn from the histogram without its 0 bin, and is
 * clamped to the code range. */
typedef struct optinc_err_hist {
    int n;                /* nonzero bins */
    int *delta;           /* n error values in LSBs, ascending, none 0 */
    double *cdf;          /* n cumulative probabilities among the errors, last 1 */
    double p_error;       /* probability that an output is wrong */
    char path[1024];
} optinc_err_hist;

/* Reads a histogram from buf[0..len): '#' comments and blank lines, then
 * lines "DELTA COUNT" with an integer DELTA (LSBs, 0 for correct outputs) and
 * a count or weight >= 0.  An error rate can be given instead of a 0 bin with
 * a line "p_error P".  Errors carry name:line:col. */
optinc_status optinc_err_hist_parse(const char *buf, size_t len, const char *name,
                                    optinc_err_hist **out, optinc_error *err);
/* The same from the regular file at path (the name errors carry), read
 * whole without blocking and at most 16 MiB and the input limit of opts'
 * limits (NULL: the default). */
optinc_status optinc_err_hist_load(const char *path, const optinc_read_opts *opts,
                                   optinc_err_hist **out, optinc_error *err);
/* A histogram from counts[k] of error delta (k - offset), k = 0..n-1. */
optinc_status optinc_err_hist_from_counts(const uint64_t *counts, int n, int offset,
                                          optinc_err_hist **out, optinc_error *err);
void optinc_err_hist_free(optinc_err_hist *h);

/* ---- the plan ------------------------------------------------------------ */
typedef struct optinc_ar_algorithm optinc_ar_algorithm;

typedef struct optinc_ar_config {
    const optinc_ar_algorithm *algorithm;
    int servers;                   /* N, 1..OPTINC_AR_MAX_SERVERS */
    int bits;                      /* quantizing: b, even, 2..16 (optinc: <= 12) */
    int block_size;                /* quantizing: elements per scale block */
    const optinc_agg_lut *lut;     /* OPTINC_AR_ONN: the ONN's table (borrowed); NULL: exact */
    const optinc_err_hist *inject; /* quantizing: output errors; NULL: none */
    uint64_t seed;                 /* seed of the injected errors */
    int threads;                   /* threads of the in-process run, the caller's included:
                                      0 or 1 runs it on the calling thread; the same
                                      results for any count */
    int error_feedback;            /* quantizing: each server adds the residual of its last
                                      quantization to its gradient first (residuals below) */
    int stochastic_rounding;       /* quantizing: servers round x up with probability
                                      x - floor(x), from the stream of (seed, step, server,
                                      element), instead of half to even */
} optinc_ar_config;

/* Per-server counts of the modelled network, accumulated over runs. */
typedef struct optinc_ar_stats {
    int servers;
    uint64_t bytes_sent[OPTINC_AR_MAX_SERVERS];
    uint64_t bytes_received[OPTINC_AR_MAX_SERVERS];
    uint64_t messages[OPTINC_AR_MAX_SERVERS];   /* sequential sends: ring 2(N-1) per run */
    uint64_t injected_errors;                   /* outputs changed by injection */
} optinc_ar_stats;

typedef struct optinc_allreduce optinc_allreduce;

optinc_status optinc_allreduce_new(const optinc_ar_config *cfg, optinc_allreduce **out,
                                   optinc_error *err);
void optinc_allreduce_free(optinc_allreduce *ar);
const optinc_ar_config *optinc_allreduce_config(const optinc_allreduce *ar);
/* optinc through a cascade (cfg.lut of F < N servers, N = F^L; or no table
 * and N's exact table too large, then the exact 4-server unit): L, else 0.
 * Each element is looked up once per level on its way to the result. */
int optinc_allreduce_levels(const optinc_allreduce *ar);
/* The bytes the units of level `level` (0-based) receive in one run of n
 * elements, all its units together: N/F^level streams of n b-bit codes
 * (level 0 takes the servers' codes); 0 past the last level. */
uint64_t optinc_allreduce_level_bytes(const optinc_allreduce *ar, size_t n, int level);

/* In-process emulation: grads[i] is server i's gradient of n floats.  On
 * return every grads[i] holds the same averaged gradient.  The work is cut
 * into a fixed partition of the elements (whole scale blocks when
 * quantizing), a few parts per thread of cfg.threads, which the threads the
 * plan started once take in turn; every element is computed the same way
 * whatever part it falls in, so the bytes do not depend on the thread
 * count.  `step` numbers the
 * call (it seeds the injected errors, so a resumed run draws the same ones).
 * stats (may be NULL) is accumulated. */
optinc_status optinc_allreduce_inproc(optinc_allreduce *ar, uint64_t step, float *const *grads,
                                      size_t n, optinc_ar_stats *stats, optinc_error *err);

/* Error feedback (cfg.error_feedback): the residual buffers of the next
 * runs, residuals[q] (q < count) of n floats beside the gradient grads[q] of
 * a call (count = N servers in process; under MPI count = 1, the rank's
 * own server), zero when
 * training starts.  A run adds residuals[q] to grads[q] before the block
 * scales are taken, and leaves there what the server's own codes miss of
 * that sum, g + e - decode(codes), for the next run: over many steps the
 * rounding errors of each server cancel instead of adding up.  Borrowed (the
 * caller keeps them, and checkpoints them with its run). */
void optinc_allreduce_set_residuals(optinc_allreduce *ar, float *const *residuals, int count);

/* ---- the algorithms ------------------------------------------------------ */

/* What an algorithm needs and is. */
enum {
    OPTINC_AR_QUANTIZES = 1,       /* sends b-bit codes under shared block scales: takes bits,
                                      block_size and injected errors */
    OPTINC_AR_ONN = 2              /* aggregates through the ONN's table (cfg.lut), in the
                                      optical unit (the cost model adds its delay) */
};

/* The network an algorithm's traffic is counted on. */
typedef enum optinc_ar_network {
    OPTINC_AR_NET_RING = 0,        /* links to the next server: 2(N-1) messages of n/N words */
    OPTINC_AR_NET_STAR             /* through an aggregator: the words once each way (and the
                                      block scales once, before them, when quantizing) */
} optinc_ar_network;

struct optinc_comm;

/* One entry of the table.  The functions are the backends' to call (through
 * optinc_allreduce_inproc and optinc_comm_allreduce); *errors receives the
 * number of injected output errors of the call. */
struct optinc_ar_algorithm {
    const char *name;              /* what --allreduce and specs call it */
    const char *summary;           /* the aggregation in a few words, for reports */
    unsigned flags;                /* OPTINC_AR_QUANTIZES | OPTINC_AR_ONN */
    optinc_ar_network network;
    /* Builds what the plan reuses every call (tables); NULL: nothing. */
    optinc_status (*prepare)(optinc_allreduce *ar, optinc_error *err);
    /* All N servers here: grads[i] of server i. */
    optinc_status (*inproc)(optinc_allreduce *ar, uint64_t step, float *const *grads, size_t n,
                            uint64_t *errors, optinc_error *err);
    /* One server per MPI rank, grad its own; NULL in a build without MPI. */
    optinc_status (*mpi)(struct optinc_comm *comm, optinc_allreduce *ar, uint64_t step,
                         float *grad, size_t n, uint64_t *errors, optinc_error *err);
};

/* Every algorithm, in the order lists show them (ring first), then NULL. */
extern const optinc_ar_algorithm *const optinc_ar_algorithms[];
/* The algorithm called name; NULL when there is none. */
const optinc_ar_algorithm *optinc_ar_find(const char *name);
/* The names joined into buf, sep between them and last before the last:
 * ("|", "|") gives "ring|optinc|exact|quantized", (", ", " or ") gives
 * "ring, optinc, exact or quantized".  Returns buf. */
const char *optinc_ar_names(const char *sep, const char *last, char *buf, size_t size);

/* ---- kernels the algorithms share ------------------------------------------ */
/* Per block scale of one gradient (nblocks floats): its largest finite
 * |g|, or below it when an outlier would take over the block (quantize.c
 * says when), and nonfinite[k] = 1 when block k holds an inf or a NaN.  The
 * block's shared scale is the largest of the servers' (an unsigned maximum
 * of the bits, exact, as the MPI backend reduces them), and it holds a
 * non-finite value when any server's does. */
void optinc_ar_block_scales(const optinc_allreduce *ar, const float *g, size_t n, float *scale,
                            uint32_t *nonfinite);
/* Codes of g[lo..hi) (g indexed from element 0, codes[0] is element lo)
 * under the shared block maxima: rint(g * t/max) (round half to even),
 * clamped to -t..t, plus z = optinc_code_zero(b) (onn.h); t = z but for
 * b = 2 (z = 2, t = 1).  (With
 * stochastic rounding or error feedback the servers quantize through the
 * plan's run instead, which knows the step and the server.) */
void optinc_ar_quantize(const optinc_allreduce *ar, const float *g, size_t lo, size_t hi,
                        const float *absmax, uint16_t *codes);
/* Aggregates chunk c = [lo, hi): codes[i] points at server i's codes for
 * [lo, hi); writes the output codes of [lo, hi) to out, injecting errors from
 * the stream of (seed, step, c); returns the number of injected errors. */
uint64_t optinc_ar_aggregate(const optinc_allreduce *ar, uint64_t step, int c,
                             const uint16_t *const *codes, size_t lo, size_t hi, uint16_t *out);
/* Float gradient g[lo..hi) of output codes (codes[0] is element lo):
 * (u - z) * max/t. */
void optinc_ar_decode(const optinc_allreduce *ar, const uint16_t *codes, size_t lo, size_t hi,
                      const float *absmax, float *g);
/* acc[j] = acc[j] + in[j] over [0, len): the one float addition of ring and
 * exact (and of the trainer's bias gradients). */
void optinc_ar_add(float *restrict acc, const float *restrict in, size_t len);

#endif
