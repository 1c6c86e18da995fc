/*
 * err_hist.c - histograms of ONN output errors, the errors the quantizing
 * all-reduce algorithms inject (allreduce.h): read from a text file, or built
 * from the counts the ONN verifier measures.
 *
 * A reader takes a buffer and a display name (the name errors carry), and the
 * path version only reads the file and hands it over, so the format has one
 * parser whatever the source.  Lines and fields come from the shared line and
 * token reader of text.h ('#' comments, blank-separated fields), so every
 * error carries NAME:LINE:COL and a NUL byte is refused where it is.  The
 * file is read whole, without blocking on a FIFO or a device, and at most
 * HIST_BYTES_MAX bytes of it.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "compiler/core/freeall.h"
#include "optinc/allreduce.h"
#include "optinc/text.h"

/* The errors a histogram can hold, in LSBs either way. */
#define DELTA_MAX 65535L
/* The largest histogram file read: every error bin (2 * DELTA_MAX + 1 of
 * them) on a line as `optinc onn export` writes it ("%ld %.17g", at most 32
 * bytes) is 4 MiB; four times that leaves room for comments and for bins
 * listed more than once. */
#define HIST_BYTES_MAX ((size_t)16 << 20)

/* One (delta, weight) line, and where it stands in the input. */
typedef struct bin { int delta, at; double weight; } bin;

/* By delta, and in input order within one delta. */
static int cmp_bin(const void *a, const void *b)
{
    const bin *x = a, *y = b;
    if (x->delta != y->delta)
        return (x->delta > y->delta) - (x->delta < y->delta);
    return (x->at > y->at) - (x->at < y->at);
}

/* Builds the histogram from (delta, weight) pairs and an optional error
 * rate, given at line:col of name (0:0 when it comes from no file).  The
 * nonzero bins are sorted once, so that the cumulative weights are summed
 * in delta order and, within a delta, in input order, in time n log n
 * whatever the number of lines. */
static optinc_status hist_build(const int *delta, const double *weight, int n, double p_error,
                                const char *name, int line, int col, optinc_err_hist **out,
                                optinc_error *err)
{
    double zero = 0.0, wrong = 0.0;
    int nz = 0;
    for (int i = 0; i < n; i++) {
        if (delta[i] && weight[i] > 0.0)
            wrong += weight[i], nz++;
        else if (!delta[i])
            zero += weight[i];
    }
    if (p_error < 0.0)
        p_error = wrong + zero > 0.0 ? wrong / (wrong + zero) : 0.0;
    if (p_error > 0.0 && wrong <= 0.0)
        return optinc_fail(err, OPTINC_EINPUT, name, line, col,
                           "error rate %g but no nonzero error bin: add lines \"DELTA COUNT\" "
                           "with DELTA != 0", p_error);
    optinc_err_hist *h = calloc(1, sizeof *h);
    bin *order = calloc((size_t)nz + 1, sizeof *order);
    if (!h || !order || !(h->delta = calloc((size_t)nz + 1, sizeof *h->delta)) ||
        !(h->cdf = calloc((size_t)nz + 1, sizeof *h->cdf))) {
        free(order);
        optinc_err_hist_free(h);
        return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory");
    }
    for (int i = 0, k = 0; i < n; i++)
        if (delta[i] && weight[i] > 0.0)
            order[k++] = (bin){delta[i], i, weight[i]};
    qsort(order, (size_t)nz, sizeof *order, cmp_bin);
    double acc = 0.0;
    for (int k = 0; k < nz; k++) {
        acc += order[k].weight;
        if (k + 1 < nz && order[k + 1].delta == order[k].delta)
            continue;
        h->delta[h->n] = order[k].delta;
        h->cdf[h->n++] = acc / wrong;
    }
    if (h->n)
        h->cdf[h->n - 1] = 1.0;
    h->p_error = p_error;
    snprintf(h->path, sizeof h->path, "%s", name ? name : "");
    free(order);
    *out = h;
    return OPTINC_OK;
}

optinc_status optinc_err_hist_from_counts(const uint64_t *counts, int n, int offset,
                                          optinc_err_hist **out, optinc_error *err)
{
    int *delta = malloc((size_t)(n > 0 ? n : 1) * sizeof *delta);
    double *weight = malloc((size_t)(n > 0 ? n : 1) * sizeof *weight);
    optinc_status st;
    if (!delta || !weight)
        st = optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory");
    else {
        for (int k = 0; k < n; k++) {
            delta[k] = k - offset;
            weight[k] = (double)counts[k];
        }
        st = hist_build(delta, weight, n, -1.0, "verifier", 0, 0, out, err);
    }
    free(delta);
    free(weight);
    return st;
}

/* One more (delta, weight) pair; the arrays grow by doubling. */
static optinc_status push_bin(int **delta, double **weight, int *n, int *cap, int d, double w)
{
    if (*n == *cap) {
        int ncap = *cap ? 2 * *cap : 16;
        int *nd = realloc(*delta, (size_t)ncap * sizeof *nd);
        if (nd)
            *delta = nd;
        double *nw = realloc(*weight, (size_t)ncap * sizeof *nw);
        if (nw)
            *weight = nw;
        if (!nd || !nw)
            return OPTINC_ERUN;
        *cap = ncap;
    }
    (*delta)[*n] = d;
    (*weight)[(*n)++] = w;
    return OPTINC_OK;
}

optinc_status optinc_err_hist_parse(const char *buf, size_t len, const char *name,
                                    optinc_err_hist **out, optinc_error *err)
{
    *out = NULL;
    int cap = 0, n = 0, p_line = 0, p_col = 0;
    int *delta = NULL;
    double *weight = NULL, p_error = -1.0, total = 0.0;
    optinc_input in = {name, buf, len};
    optinc_lines lines;
    optinc_line l;
    optinc_token t[3];
    optinc_status st = optinc_lines_init(&lines, &in, "histogram file", err);
    while (!st && optinc_lines_next(&lines, &l)) {
        int nt = optinc_tokens(&l, '#', t, 3);
        long d;
        double w;
        if (nt == 0)
            continue;
        /* The field at fault: a third one, the missing second (at the
         * first), or the one that is not what it must be. */
        int bad = nt > 2 ? 2 : 0;
        if (optinc_token_is(&t[0], "p_error")) {
            if (nt == 2 && (optinc_token_double(&t[1], &p_error) || !(p_error >= 0.0) ||
                            p_error > 1.0))
                bad = 1;
            if (nt != 2 || bad)
                st = optinc_fail(err, OPTINC_EINPUT, name, l.number, t[bad].col,
                                 "p_error needs a probability in [0, 1]");
            p_line = l.number;
            p_col = t[0].col;
        } else if (nt == 2 && (optinc_token_long(&t[0], &d) || d < -DELTA_MAX || d > DELTA_MAX)) {
            st = optinc_fail(err, OPTINC_EINPUT, name, l.number, t[0].col,
                             "DELTA must be an integer error in LSBs in -%ld..%ld", DELTA_MAX,
                             DELTA_MAX);
        } else if (nt != 2 || optinc_token_double(&t[1], &w) || !(w >= 0.0)) {
            st = optinc_fail(err, OPTINC_EINPUT, name, l.number, t[nt == 2 ? 1 : bad].col,
                             "expected \"DELTA COUNT\": an integer error in LSBs and a count "
                             ">= 0");
        } else if (!((total += w) <= DBL_MAX)) {
            /* a sum of infinity would make every weight 0 or NaN */
            st = optinc_fail(err, OPTINC_EINPUT, name, l.number, t[1].col,
                             "the counts add up past %g, the largest double; scale them all "
                             "down", DBL_MAX);
        } else if (push_bin(&delta, &weight, &n, &cap, (int)d, w)) {
            st = optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory");
        }
    }
    if (!st && n == 0) {
        int line, col;
        optinc_text_position(&in, len, &line, &col);
        st = optinc_fail(err, OPTINC_EINPUT, name, line, col,
                         "no \"DELTA COUNT\" lines: the histogram is empty");
    }
    if (!st)
        st = hist_build(delta, weight, n, p_error, name, p_line, p_col, out, err);
    free(delta);
    free(weight);
    return st;
}

optinc_status optinc_err_hist_load(const char *path, const optinc_read_opts *opts,
                                   optinc_err_hist **out, optinc_error *err)
{
    optinc_blob b;
    optinc_error why;
    *out = NULL;
    optinc_status st = optinc_blob_read_limited(path, HIST_BYTES_MAX, optinc_read_limits(opts),
                                                "histogram file", &b, &why);
    if (st)
        return optinc_fail(err, st, why.file, why.line, why.column, "%.800s (an error histogram "
                           "is a text file of \"DELTA COUNT\" lines, see optinc-train(1))",
                           why.message);
    st = optinc_err_hist_parse(b.data, b.len, path, out, err);
    optinc_blob_free(&b);
    return st;
}

void optinc_err_hist_free(optinc_err_hist *h)
{
    if (!h)
        return;
    OPTINC_FREE_ALL(h->delta, h->cdf, h);
}
