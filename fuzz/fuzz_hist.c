/*
 * fuzz_hist.c - libFuzzer target: the reader of error histograms, the
 * ONN output errors the quantizing all-reduce injects
 * (optinc_err_hist_parse), on libFuzzer's bytes as they are (no file, no
 * terminating NUL).  An accepted histogram must be one the sampler can use:
 * its bins nonzero and ascending, its cumulative weights rising and the
 * last one 1 (set so: the sum before it may round a hair past 1).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include "optinc/allreduce.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    optinc_err_hist *h = NULL;
    optinc_error err;
    if (optinc_err_hist_parse((const char *)data, size, "h.hist", &h, &err) != OPTINC_OK)
        return 0;
    if (!(h->p_error >= 0.0 && h->p_error <= 1.0) || (h->n && h->cdf[h->n - 1] != 1.0))
        abort();
    for (int k = 0; k < h->n; k++)
        if (!h->delta[k] || (k && h->delta[k] <= h->delta[k - 1]) ||
            (k && k < h->n - 1 && h->cdf[k] < h->cdf[k - 1]))
            abort();
    optinc_err_hist_free(h);
    return 0;
}
