/*
 * onn_aggregate.h - the aggregation table: the function the OptINC unit
 * computes, tabulated over the output space of its preprocessing P, which
 * the optinc all-reduce (allreduce.h) looks every element up in.
 *
 * For b-bit codes there are D = b/2 PAM4 digits, and P forms the D
 * digit-position sums S_k = sum_i d_ik, each in 0..3N.  Entry
 * index = sum_k S_k (3N+1)^k holds the output code (0..2^b-1) of the average.
 * The table is filled either with the exact target (optinc_agg_lut_exact) or
 * by simulating a compiled ONN on every point of P's output space
 * (optinc_agg_lut_onn).  It belongs to the ONN module, below the all-reduce:
 * the all-reduce consumes a table and never needs to know how it was made.
 */
#ifndef OPTINC_ONN_AGGREGATE_H
#define OPTINC_ONN_AGGREGATE_H

#include <stddef.h>
#include <stdint.h>
#include "optinc/error.h"
#include "optinc/text.h"

/* Servers a table can aggregate; the all-reduce's limit too. */
#define OPTINC_AGG_MAX_SERVERS 256

typedef struct optinc_agg_lut {
    int servers;          /* N */
    int bits;             /* b, even */
    int digits;           /* D = b/2 */
    int radix;            /* 3N + 1 */
    size_t size;          /* radix^D */
    uint16_t *code;       /* size entries */
    uint32_t *weight;     /* 2^b entries: code u -> sum_k d_k(u) radix^k */
    char source[1100];    /* "exact" or the netlist it was simulated from */
} optinc_agg_lut;

/* An empty table (entries 0) for N servers and b bits: b even, 2 <= b <= 12,
 * radix^D entries at most 2^26.  The caller fills lut->code. */
optinc_status optinc_agg_lut_new(int servers, int bits, optinc_agg_lut **out, optinc_error *err);
/* Whether the table of N servers and b bits has at most 2^26 entries (N <= 16
 * at 8 bits; a cascade of smaller units serves more, allreduce.h). */
int optinc_agg_lut_fits(int servers, int bits);
/* The table of the exact target, optinc_agg_exact_code() of every entry. */
optinc_status optinc_agg_lut_exact(int servers, int bits, optinc_agg_lut **out, optinc_error *err);

struct optinc_onn_devices;
struct optinc_onn_report;
/* The table of the compiled ONN at path (a netlist, or a spec compiled when
 * loaded; onn.h), simulated on the chip of dev on every point of P's output
 * space, its outputs clamped to the code range; source is path.  The ONN
 * must be one unit with digit-sum preprocessing that averages `servers`
 * servers' `bits`-bit codes, or F of them with F^L = servers: the table is
 * then the F-server unit's, which the all-reduce cascades over L levels.  rep receives the chip's accuracy against the
 * exact target.  opts as for every reader (text.h). */
optinc_status optinc_agg_lut_onn(const char *path, const optinc_read_opts *opts, int servers,
                                 int bits,
                                 const struct optinc_onn_devices *dev, optinc_agg_lut **out,
                                 struct optinc_onn_report *rep, optinc_error *err);
void optinc_agg_lut_free(optinc_agg_lut *lut);
/* Index of P's output for the N codes given (one per server). */
size_t optinc_agg_lut_index(const optinc_agg_lut *lut, const uint16_t *codes);
/* The digit-position sums S_0..S_D-1 of a table index. */
void optinc_agg_lut_digit_sums(const optinc_agg_lut *lut, size_t index, int *sums);

/* The exact target: with q_i = u_i - zero the signed value of code u_i
 * (zero = optinc_code_zero(b), onn.h) and
 * sum_codes = sum_i u_i, the code of round_half_even(sum_i q_i / N), clamped
 * to 0..2^b-1.  Half to even is unbiased; half up would add +1/(2N) LSB on
 * average to every aggregated value. */
uint16_t optinc_agg_exact_code(int servers, int bits, int64_t sum_codes);

#endif
