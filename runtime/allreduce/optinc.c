/*
 * optinc.c - the OptINC all-reduce: every server sends its block-quantized
 * codes once, as b/2 PAM4 digits, to the optical unit, whose preprocessing P
 * forms the digit-position sums and whose ONN maps them to the code of the
 * average: a lookup in the aggregation table (onn_aggregate.h), the compiled
 * ONN's or, without one, the exact target's.
 *
 * prepare() picks how N codes become the table's index (quantize.c says how
 * each way works) by the table's shape: nibble fields when every digit sum
 * fits 4 bits and there are at most 4 digits (then the table is repacked,
 * indexed by S_0 | S_1 << 4 | ...), bytes when each fits 8 bits, else a
 * gather of per-code weights.  All three give the same index, so the same
 * output codes.  A table of F < N servers is a unit of a cascade of L levels
 * (N = F^L), whose lookups cascade.c does.
 */
#include <stdlib.h>
#include "optinc/allreduce.h"
#include "optinc/onn.h"
#include "runtime/allreduce/plan.h"

static optinc_status optinc_prepare(optinc_allreduce *ar, optinc_error *err)
{
    const optinc_ar_config *cfg = &ar->cfg;
    const optinc_agg_lut *lut = cfg->lut;
    if (!lut) {      /* the exact table, of a 4-server unit when N's is too large */
        int unit = optinc_agg_lut_fits(cfg->servers, cfg->bits) ? cfg->servers : 4;
        if (unit != cfg->servers && optinc_onn_cascade_depth(unit, cfg->servers) < 1)
            return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                               "the exact table of %d servers' %d-bit codes has more than 2^26 "
                               "entries, and a cascade of 4-server units serves 4^L servers: "
                               "use 4, 16, 64 or 256 servers, or --allreduce quantized",
                               cfg->servers, cfg->bits);
        optinc_status st = optinc_agg_lut_exact(unit, cfg->bits, &ar->own_lut, err);
        if (st)
            return st;
        lut = ar->own_lut;
    }
    if (lut->servers != cfg->servers) {
        ar->levels = optinc_onn_cascade_depth(lut->servers, cfg->servers);
        return OPTINC_OK;
    }
    ar->weight = lut->weight;
    ar->table = lut->code;
    int digits = cfg->bits / 2;
    ar->index_mode = digits > 4 || 3 * cfg->servers > 255 ? AR_INDEX_GATHER
                     : 3 * cfg->servers <= 15             ? AR_INDEX_NIBBLE
                                                          : AR_INDEX_SPREAD;
    if (ar->index_mode == AR_INDEX_NIBBLE) {
        if (!(ar->own_table = calloc((size_t)1 << 16, sizeof *ar->own_table)))
            return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory");
        int sums[8];
        for (size_t i = 0; i < lut->size; i++) {
            size_t at = 0;
            optinc_agg_lut_digit_sums(lut, i, sums);
            for (int k = 0; k < digits; k++)
                at |= (size_t)sums[k] << (4 * k);
            ar->own_table[at] = lut->code[i];
        }
        ar->table = ar->own_table;
    }
    for (uint32_t k = 0, p = 1; k < 4; k++, p *= (uint32_t)lut->radix)
        ar->radix_pow[k] = p;
    return OPTINC_OK;
}

const optinc_ar_algorithm optinc_ar_optinc = {
    .name = "optinc", .summary = "the compiled ONN's table",
    .flags = OPTINC_AR_QUANTIZES | OPTINC_AR_ONN, .network = OPTINC_AR_NET_STAR,
    .prepare = optinc_prepare, .inproc = optinc_ar_codes_inproc, OPTINC_AR_MPI(optinc_ar_codes_mpi)
};
