/*
 * quantized.c - the quantized reference: the servers' block-quantized codes
 * (the same quantization as optinc) aggregated by the exact target, the code
 * of round_half_even(sum_i q_i / N), which is what a perfect ONN computes.
 *
 * The index of N codes is simply their sum, and the table maps each sum to
 * the code of the average; the run is the one of every quantizing algorithm
 * (quantize.c), counted on a star.
 */
#include <stdlib.h>
#include "optinc/allreduce.h"
#include "runtime/allreduce/plan.h"

/* The table of every sum of N b-bit codes. */
static optinc_status quantized_prepare(optinc_allreduce *ar, optinc_error *err)
{
    const optinc_ar_config *cfg = &ar->cfg;
    size_t codes = (size_t)1 << cfg->bits, sums = (size_t)cfg->servers * (codes - 1) + 1;
    ar->own_table = malloc(sums * sizeof *ar->own_table);
    if (!ar->own_table)
        return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory");
    for (size_t s = 0; s < sums; s++)
        ar->own_table[s] = optinc_agg_exact_code(cfg->servers, cfg->bits, (int64_t)s);
    ar->table = ar->own_table;
    ar->index_mode = AR_INDEX_SUM;
    return OPTINC_OK;
}

const optinc_ar_algorithm optinc_ar_quantized = {
    .name = "quantized", .summary = "quantized mean, rounded half to even",
    .flags = OPTINC_AR_QUANTIZES, .network = OPTINC_AR_NET_STAR, .prepare = quantized_prepare,
    .inproc = optinc_ar_codes_inproc, OPTINC_AR_MPI(optinc_ar_codes_mpi)
};
