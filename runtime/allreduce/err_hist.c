/*
 * err_hist.c - histograms of ONN output errors, the errors the quantizing
 * all-reduce algorithms inject (allreduce.h): read from a text file, or built
 * from the counts the ONN verifier measures.
 *
 * A reader takes a buffer and a display name (the name errors carry), and the
 * path version only reads the file and hands it over, so the format has one
 * parser whatever the source.  Lines are taken as fgets() would take them into
 * a buffer of LINE_MAX_BYTES: a longer line continues as the next one.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "optinc/allreduce.h"

#define LINE_MAX_BYTES 512

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Builds the histogram from (delta, weight) pairs and an optional error rate. */
static optinc_status hist_build(const int *delta, const double *weight, int n, double p_error,
                                const char *name, optinc_err_hist **out, optinc_error *err)
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
        return optinc_fail(err, OPTINC_EINPUT, name, 0, 0,
                           "error rate %g but no nonzero error bin: add lines \"DELTA COUNT\" "
                           "with DELTA != 0", p_error);
    optinc_err_hist *h = calloc(1, sizeof *h);
    int *order = calloc((size_t)nz + 1, sizeof *order);
    if (!h || !order || !(h->delta = calloc((size_t)nz + 1, sizeof *h->delta)) ||
        !(h->cdf = calloc((size_t)nz + 1, sizeof *h->cdf))) {
        free(order);
        optinc_err_hist_free(h);
        return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory");
    }
    for (int i = 0, k = 0; i < n; i++)
        if (delta[i] && weight[i] > 0.0)
            order[k++] = delta[i];
    qsort(order, (size_t)nz, sizeof *order, cmp_int);
    double acc = 0.0;
    for (int k = 0; k < nz; k++) {
        if (k && order[k] == order[k - 1])
            continue;
        for (int i = 0; i < n; i++)
            if (delta[i] == order[k])
                acc += weight[i];
        h->delta[h->n] = order[k];
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
        st = hist_build(delta, weight, n, -1.0, "verifier", out, err);
    }
    free(delta);
    free(weight);
    return st;
}

/* The next line of buf[*pos..len) into line (NUL-terminated), as fgets()
 * takes it: up to and including '\n', at most size - 1 bytes; 0 at the end. */
static int next_line(const char *buf, size_t len, size_t *pos, char *line, size_t size)
{
    size_t k = 0;
    if (*pos >= len)
        return 0;
    while (k < size - 1 && *pos < len) {
        char ch = buf[(*pos)++];
        line[k++] = ch;
        if (ch == '\n')
            break;
    }
    line[k] = '\0';
    return 1;
}

optinc_status optinc_err_hist_parse(const char *buf, size_t len, const char *name,
                                    optinc_err_hist **out, optinc_error *err)
{
    *out = NULL;
    int cap = 0, n = 0, lineno = 0;
    int *delta = NULL;
    double *weight = NULL, p_error = -1.0;
    char line[LINE_MAX_BYTES];
    size_t pos = 0;
    optinc_status st = OPTINC_OK;
    while (!st && next_line(buf, len, &pos, line, sizeof line)) {
        lineno++;
        char *s = line + strspn(line, " \t");
        if (*s == '#' || *s == '\n' || *s == '\r' || !*s)
            continue;
        char *end;
        if (!strncmp(s, "p_error", 7)) {
            p_error = strtod(s + 7, &end);
            if (end == s + 7 || !(p_error >= 0.0 && p_error <= 1.0))
                st = optinc_fail(err, OPTINC_EINPUT, name, lineno, (int)(s - line) + 1,
                                 "p_error needs a probability in [0, 1]");
            continue;
        }
        long d = strtol(s, &end, 10);
        char *wp = end;
        double wv = strtod(wp, &end);
        char *rest = end + strspn(end, " \t\r\n");
        if (wp == s || end == wp || *rest || !(wv >= 0.0) || !isfinite(wv) || d < -65535 ||
            d > 65535) {
            st = optinc_fail(err, OPTINC_EINPUT, name, lineno, (int)(s - line) + 1,
                             "expected \"DELTA COUNT\": an integer error in LSBs and a count "
                             ">= 0");
            break;
        }
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            int *nd = realloc(delta, (size_t)cap * sizeof *nd);
            if (nd)
                delta = nd;
            double *nw = realloc(weight, (size_t)cap * sizeof *nw);
            if (nw)
                weight = nw;
            if (!nd || !nw) {
                st = optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory");
                break;
            }
        }
        delta[n] = (int)d;
        weight[n++] = wv;
    }
    if (!st && n == 0)
        st = optinc_fail(err, OPTINC_EINPUT, name, lineno, 0,
                         "no \"DELTA COUNT\" lines: the histogram is empty");
    if (!st)
        st = hist_build(delta, weight, n, p_error, name, out, err);
    free(delta);
    free(weight);
    return st;
}

optinc_status optinc_err_hist_load(const char *path, optinc_err_hist **out, optinc_error *err)
{
    *out = NULL;
    FILE *f = fopen(path, "r");
    if (!f)
        return optinc_fail(err, OPTINC_EINPUT, path, 0, 0,
                           "cannot open the error histogram: give a file of \"DELTA COUNT\" lines "
                           "(see optinc-train(1))");
    size_t len = 0, cap = 4096, got;
    char *buf = malloc(cap);
    while (buf && (got = fread(buf + len, 1, cap - len, f)) > 0) {
        len += got;
        if (len == cap) {
            char *nb = realloc(buf, 2 * cap);
            if (!nb)
                free(buf);
            buf = nb;
            cap *= 2;
        }
    }
    fclose(f);
    if (!buf)
        return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory");
    optinc_status st = optinc_err_hist_parse(buf, len, path, out, err);
    free(buf);
    return st;
}

void optinc_err_hist_free(optinc_err_hist *h)
{
    if (!h)
        return;
    free(h->delta);
    free(h->cdf);
    free(h);
}
