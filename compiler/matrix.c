/*
 * matrix.c - complex dense matrices: allocation, products and the SVD, all of
 * the heavy lifting done by CBLAS and LAPACKE (OpenBLAS).
 *
 * The SVD uses zgesdd (divide and conquer, about 6x faster than zgesvd with
 * full vectors on this class of machine) and falls back to zgesvd when zgesdd
 * reports that it did not converge, as LAPACK's own drivers advise.
 */
#define _GNU_SOURCE             /* RTLD_DEFAULT */
#include <cblas.h>
#include <dlfcn.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "optinc/matrix.h"

void optinc_linalg_deterministic(void)
{
    /* OpenBLAS splits the sums of its level-3 kernels, and so of LAPACK,
     * across threads, so the last bits of an SVD depend on the thread count.
     * One thread makes netlists byte-identical on every machine.  Looked up
     * at run time so the reference BLAS still links. */
    void (*set_threads)(int);
    *(void **)&set_threads = dlsym(RTLD_DEFAULT, "openblas_set_num_threads");
    if (set_threads)
        set_threads(1);
}

optinc_cmat *optinc_cmat_new(int rows, int cols)
{
    if (rows < 0 || cols < 0)
        return NULL;
    optinc_cmat *m = malloc(sizeof *m);
    if (!m)
        return NULL;
    m->rows = rows;
    m->cols = cols;
    m->a = calloc((size_t)rows * (size_t)cols + 1, sizeof *m->a);
    if (!m->a) {
        free(m);
        return NULL;
    }
    return m;
}

optinc_cmat *optinc_cmat_identity(int n)
{
    optinc_cmat *m = optinc_cmat_new(n, n);
    if (m)
        for (int i = 0; i < n; i++)
            OPTINC_AT(m, i, i) = 1.0;
    return m;
}

optinc_cmat *optinc_cmat_copy(const optinc_cmat *src)
{
    optinc_cmat *m = optinc_cmat_new(src->rows, src->cols);
    if (m)
        memcpy(m->a, src->a, (size_t)src->rows * (size_t)src->cols * sizeof *m->a);
    return m;
}

void optinc_cmat_free(optinc_cmat *m)
{
    if (m) {
        free(m->a);
        free(m);
    }
}

void optinc_cmat_mul(const optinc_cmat *A, const optinc_cmat *B, optinc_cmat *C)
{
    const double complex one = 1.0, zero = 0.0;
    if (A->rows == 0 || B->cols == 0)
        return;
    if (A->cols == 0) {
        memset(C->a, 0, (size_t)C->rows * (size_t)C->cols * sizeof *C->a);
        return;
    }
    cblas_zgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, A->rows, B->cols, A->cols, &one,
                A->a, A->cols, B->a, B->cols, &zero, C->a, C->cols);
}

optinc_cmat *optinc_cmat_adjoint(const optinc_cmat *m)
{
    optinc_cmat *t = optinc_cmat_new(m->cols, m->rows);
    if (t)
        for (int r = 0; r < m->rows; r++)
            for (int c = 0; c < m->cols; c++)
                OPTINC_AT(t, c, r) = conj(OPTINC_AT(m, r, c));
    return t;
}

double optinc_cmat_max_abs(const optinc_cmat *m)
{
    double best = 0;
    size_t n = (size_t)m->rows * (size_t)m->cols;
    for (size_t i = 0; i < n; i++)
        if (cabs(m->a[i]) > best || isnan(cabs(m->a[i])))
            best = isnan(cabs(m->a[i])) ? NAN : cabs(m->a[i]);
    return best;
}

double optinc_cmat_max_abs_diff(const optinc_cmat *a, const optinc_cmat *b)
{
    if (a->rows != b->rows || a->cols != b->cols)
        return INFINITY;
    double best = 0;
    size_t n = (size_t)a->rows * (size_t)a->cols;
    for (size_t i = 0; i < n; i++) {
        double d = cabs(a->a[i] - b->a[i]);
        if (!(d <= best))       /* NaN propagates */
            best = d;
    }
    return best;
}

double optinc_cmat_frobenius(const optinc_cmat *m)
{
    size_t n = (size_t)m->rows * (size_t)m->cols;
    return n ? cblas_dznrm2((int)n, m->a, 1) : 0.0;
}

double optinc_cmat_unitarity_error(const optinc_cmat *m)
{
    optinc_cmat *g = optinc_cmat_new(m->cols, m->cols);
    const double complex one = 1.0, zero = 0.0;
    cblas_zgemm(CblasRowMajor, CblasConjTrans, CblasNoTrans, m->cols, m->cols, m->rows, &one,
                m->a, m->cols, m->a, m->cols, &zero, g->a, g->cols);
    for (int i = 0; i < m->cols; i++)
        OPTINC_AT(g, i, i) -= 1.0;
    double e = optinc_cmat_max_abs(g);
    optinc_cmat_free(g);
    return e;
}

optinc_status optinc_svd(const optinc_cmat *W, optinc_cmat **U, double **sigma,
                         optinc_cmat **Vh, optinc_error *err)
{
    int m = W->rows, n = W->cols, k = m < n ? m : n;
    optinc_cmat *a = optinc_cmat_copy(W);
    optinc_cmat *u = optinc_cmat_new(m, m);
    optinc_cmat *vh = optinc_cmat_new(n, n);
    double *s = calloc((size_t)k + 1, sizeof *s);
    double *superb = calloc((size_t)k + 1, sizeof *superb);
    optinc_status st = OPTINC_OK;
    if (!a || !u || !vh || !s || !superb) {
        st = optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory in SVD of a %dx%d matrix", m, n);
        goto out;
    }
    if (k > 0) {
        lapack_int info = LAPACKE_zgesdd(LAPACK_ROW_MAJOR, 'A', m, n, a->a, n, s, u->a, m,
                                         vh->a, n);
        if (info > 0) {         /* did not converge: the slower QR-iteration driver */
            memcpy(a->a, W->a, (size_t)m * (size_t)n * sizeof *a->a);
            info = LAPACKE_zgesvd(LAPACK_ROW_MAJOR, 'A', 'A', m, n, a->a, n, s, u->a, m,
                                  vh->a, n, superb);
        }
        if (info != 0) {
            st = optinc_fail(err, OPTINC_ERUN, NULL, 0, 0,
                             "SVD of a %dx%d matrix failed (LAPACK info %d); check the matrix "
                             "for NaN or huge entries", m, n, (int)info);
            goto out;
        }
    } else {
        for (int i = 0; i < m; i++)
            OPTINC_AT(u, i, i) = 1.0;
        for (int i = 0; i < n; i++)
            OPTINC_AT(vh, i, i) = 1.0;
    }
    *U = u; *Vh = vh; *sigma = s;
    u = vh = NULL; s = NULL;
out:
    optinc_cmat_free(a);
    optinc_cmat_free(u);
    optinc_cmat_free(vh);
    free(s);
    free(superb);
    return st;
}

optinc_cmat *optinc_cmat_gaussian(int rows, int cols, int complex_entries, optinc_rng *rng)
{
    optinc_cmat *m = optinc_cmat_new(rows, cols);
    if (!m)
        return NULL;
    size_t n = (size_t)rows * (size_t)cols;
    for (size_t i = 0; i < n; i++) {
        if (complex_entries) {
            double re = optinc_rng_normal(rng), im = optinc_rng_normal(rng);
            m->a[i] = (re + I * im) * M_SQRT1_2;
        } else {
            m->a[i] = optinc_rng_normal(rng);
        }
    }
    return m;
}

optinc_cmat *optinc_cmat_haar(int n, optinc_rng *rng)
{
    optinc_cmat *q = optinc_cmat_gaussian(n, n, 1, rng);
    double complex *tau = calloc((size_t)n + 1, sizeof *tau);
    double complex *phase = calloc((size_t)n + 1, sizeof *phase);
    if (!q || !tau || !phase)
        goto fail;
    if (n > 0) {
        if (LAPACKE_zgeqrf(LAPACK_ROW_MAJOR, n, n, q->a, n, tau) != 0)
            goto fail;
        /* Q alone is not Haar-distributed: divide out the phases of R's diagonal. */
        for (int i = 0; i < n; i++) {
            double complex r = OPTINC_AT(q, i, i);
            phase[i] = cabs(r) > 0 ? r / cabs(r) : 1.0;
        }
        if (LAPACKE_zungqr(LAPACK_ROW_MAJOR, n, n, n, q->a, n, tau) != 0)
            goto fail;
        for (int r = 0; r < n; r++)
            for (int c = 0; c < n; c++)
                OPTINC_AT(q, r, c) *= phase[c];
    }
    free(tau);
    free(phase);
    return q;
fail:
    optinc_cmat_free(q);
    free(tau);
    free(phase);
    return NULL;
}
