/*
 * onn_aggregate.c - the aggregation table of the OptINC all-reduce: the
 * function the optical unit computes, tabulated over the output space of the
 * preprocessing P (onn_aggregate.h), either as the exact target or as what a
 * compiled ONN outputs on one chip.
 *
 * The all-reduce (runtime/allreduce/) looks every aggregated element up in
 * this table, so the ONN's accuracy, devices and chip errors reach training
 * through it alone.  The ONN's own table (optinc_onn_lut_build, onn_verify.c)
 * holds decoded codes of any size; this one holds codes of the code range
 * and the per-code weights that turn N codes into an index by N additions.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "compiler/core/freeall.h"
#include "optinc/onn.h"
#include "optinc/onn_aggregate.h"

uint16_t optinc_agg_exact_code(int servers, int bits, int64_t sum_codes)
{
    int64_t off = optinc_code_zero(bits);
    int64_t t = sum_codes - off * servers;         /* sum of signed values */
    int64_t fl = t / servers, r = t % servers;
    if (r < 0) {                                   /* floor division */
        fl -= 1;
        r += servers;
    }
    if (2 * r > servers || (2 * r == servers && (fl & 1)))
        fl += 1;
    int64_t u = fl + off, top = ((int64_t)1 << bits) - 1;
    return (uint16_t)(u < 0 ? 0 : u > top ? top : u);
}

int optinc_agg_lut_fits(int servers, int bits)
{
    return pow(3 * servers + 1, bits / 2) <= (double)(1u << 26);
}

optinc_status optinc_agg_lut_new(int servers, int bits, optinc_agg_lut **out, optinc_error *err)
{
    *out = NULL;
    if (servers < 1 || servers > OPTINC_AGG_MAX_SERVERS)
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                           "aggregation table for %d servers: use 1..%d servers", servers,
                           OPTINC_AGG_MAX_SERVERS);
    if (bits < 2 || bits > 12 || bits % 2)
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                           "aggregation table for %d-bit codes: PAM4 digit sums need an even "
                           "width of 2..12 bits (use --allreduce quantized for wider codes)",
                           bits);
    int digits = bits / 2, radix = 3 * servers + 1;
    double size = pow(radix, digits);
    if (!optinc_agg_lut_fits(servers, bits))
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                           "aggregation table for %d servers and %d bits has %.0f entries, more "
                           "than 2^26: use fewer servers or bits", servers, bits, size);
    optinc_agg_lut *lut = calloc(1, sizeof *lut);
    if (!lut)
        return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory");
    lut->servers = servers;
    lut->bits = bits;
    lut->digits = digits;
    lut->radix = radix;
    lut->size = (size_t)size;
    lut->code = calloc(lut->size, sizeof *lut->code);
    lut->weight = malloc(((size_t)1 << bits) * sizeof *lut->weight);
    if (!lut->code || !lut->weight) {
        optinc_agg_lut_free(lut);
        return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory for the aggregation table");
    }
    for (uint32_t u = 0; u < (1u << bits); u++) {
        uint32_t w = 0, p = 1;
        for (int k = 0; k < digits; k++, p *= (uint32_t)radix)
            w += ((u >> (2 * k)) & 3u) * p;
        lut->weight[u] = w;
    }
    snprintf(lut->source, sizeof lut->source, "empty");
    *out = lut;
    return OPTINC_OK;
}

void optinc_agg_lut_digit_sums(const optinc_agg_lut *lut, size_t index, int *sums)
{
    for (int k = 0; k < lut->digits; k++, index /= (size_t)lut->radix)
        sums[k] = (int)(index % (size_t)lut->radix);
}

optinc_status optinc_agg_lut_exact(int servers, int bits, optinc_agg_lut **out, optinc_error *err)
{
    optinc_status st = optinc_agg_lut_new(servers, bits, out, err);
    if (st)
        return st;
    optinc_agg_lut *lut = *out;
    int sums[8];
    for (size_t i = 0; i < lut->size; i++) {
        optinc_agg_lut_digit_sums(lut, i, sums);
        int64_t total = 0;
        for (int k = lut->digits - 1; k >= 0; k--)
            total = total * 4 + sums[k];
        lut->code[i] = optinc_agg_exact_code(servers, bits, total);
    }
    snprintf(lut->source, sizeof lut->source, "exact");
    return OPTINC_OK;
}

void optinc_agg_lut_free(optinc_agg_lut *lut)
{
    if (!lut)
        return;
    OPTINC_FREE_ALL(lut->code, lut->weight, lut);
}

size_t optinc_agg_lut_index(const optinc_agg_lut *lut, const uint16_t *codes)
{
    size_t idx = 0;
    for (int i = 0; i < lut->servers; i++)
        idx += lut->weight[codes[i]];
    return idx;
}

optinc_status optinc_agg_lut_onn(const char *path, const optinc_read_opts *opts, int servers,
                                 int bits,
                                 const optinc_onn_devices *dev, optinc_agg_lut **out,
                                 optinc_onn_report *rep, optinc_error *err)
{
    optinc_circuit *c = NULL;
    optinc_onn_meta meta;
    *out = NULL;
    optinc_status st = optinc_onn_load(path, opts, &c, &meta, err);
    if (st)
        return st;
    const optinc_onn_task *t = &meta.task;
    if (meta.level != 0 || t->pre != OPTINC_P_DIGIT_SUMS
        || (t->servers != servers && optinc_onn_cascade_depth(t->servers, servers) < 1)
        || meta.bits != bits || t->divisor != t->servers) {
        optinc_circuit_free(c);
        return optinc_fail(err, OPTINC_EINPUT, path, 0, 0,
                           "this ONN averages %d servers' %d-bit codes (%s, level %d); the run "
                           "needs one unit with digit sums for %d servers (or F servers, F^L = "
                           "N, in a cascade) and %d bits: give --servers and --bits to match, "
                           "or another --onn",
                           t->servers, meta.bits,
                           t->pre == OPTINC_P_DIGIT_SUMS ? "digit sums" : "weighted sum",
                           meta.level, servers, bits);
    }
    optinc_onn_lut *olut = NULL;
    st = optinc_onn_lut_build(c, &meta, dev, &olut, err);
    optinc_circuit_free(c);
    if (!st)
        st = optinc_agg_lut_new(t->servers, bits, out, err);
    if (!st && olut->size != (*out)->size)
        st = optinc_fail(err, OPTINC_EINPUT, path, 0, 0,
                         "the ONN's table has %llu entries, expected %zu",
                         (unsigned long long)olut->size, (*out)->size);
    if (!st) {
        uint32_t top = (1u << bits) - 1;
        for (size_t i = 0; i < (*out)->size; i++)
            (*out)->code[i] = (uint16_t)(olut->code[i] < top ? olut->code[i] : top);
        snprintf((*out)->source, sizeof (*out)->source, "%s", path);
        *rep = olut->report;
    } else {
        optinc_agg_lut_free(*out);
        *out = NULL;
    }
    optinc_onn_lut_free(olut);
    return st;
}
