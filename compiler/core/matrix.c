/*
 * matrix.c - complex dense matrices: allocation, products and the SVD, all of
 * the heavy lifting done by CBLAS and LAPACKE (OpenBLAS).
 *
 * The SVD uses zgesdd (divide and conquer, about 6x faster than zgesvd with
 * full vectors on this class of machine) and falls back to zgesvd when zgesdd
 * reports that it did not converge, as LAPACK's own drivers advise.
 *
 * Every array LAPACK works on here is ours and has slack on both sides.
 * OpenBLAS 0.3.21 (Debian 12's) has a zgemv kernel for Haswell and Zen that
 * reads up to 32 bytes before and after the matrix it is given (fixed in
 * OpenBLAS 0.3.22), and LAPACK's Householder steps call it on
 * the SVD's and QR's arrays: harmless inside a larger block, a crash when the
 * array ends at an unmapped page.  Fuzzing the spec loader hit that crash.
 * LAPACKE's row-major entry points would copy into transposed arrays of
 * their own, so the calls below do the same transposes into padded arrays
 * and use the column-major _work entry points with padded workspace; the
 * arithmetic, and so every bit of the result, is what LAPACKE's row-major
 * path gives.
 */
#define _GNU_SOURCE             /* RTLD_DEFAULT */
#include <cblas.h>
#include <dlfcn.h>
#include <lapacke.h>
#include <lapacke_utils.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include "optinc/matrix.h"

void optinc_linalg_deterministic(void)
{
    /* OpenBLAS splits the sums of its level-3 kernels, and so of LAPACK,
     * across threads, so the last bits of an SVD depend on the thread count.
     * One thread makes them the same run after run on one machine; across
     * machines the kernel OpenBLAS picks for the CPU still decides them
     * (optinc_linalg_name).  Looked up at run time so the reference BLAS
     * still links. */
    void (*set_threads)(int);
    *(void **)&set_threads = dlsym(RTLD_DEFAULT, "openblas_set_num_threads");
    if (set_threads)
        set_threads(1);
}

int optinc_linalg_reserve(void)
{
    /* OpenBLAS takes its working buffer (128 MiB in Debian's build) from
     * malloc at its first level-2 or level-3 call and keeps it for the
     * process; when the address space (ulimit -v) is short of it then, it
     * retries the allocation forever.  So the buffer is taken first, while
     * nothing else is held: a limit too low for it is found here, in a
     * probe of its size and some slack, instead of a hang in an SVD. */
    enum { BUFFER = 136 << 20 };
    struct rlimit lim;
    if (getrlimit(RLIMIT_AS, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY) {
        void *probe = malloc(BUFFER);
        if (!probe)
            return -1;
        free(probe);
    }
    /* A product and a matrix-vector product too big for OpenBLAS's stack
     * buffers, as LAPACK's SVD makes: both take the buffer, and give it
     * back for every later call to reuse. */
    enum { N = 512 };
    double complex *a = calloc((size_t)N * N + 2 * N, sizeof *a), *x = a + (size_t)N * N;
    if (!a)
        return -1;
    const double complex one = 1, zero = 0;
    cblas_zgemv(CblasRowMajor, CblasNoTrans, N, N, &one, a, N, x, 1, &zero, x + N, 1);
    cblas_zgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 128, 128, 128, &one, a, N, a + 128,
                N, &zero, a + 256, N);
    free(a);
    return 0;
}

const char *optinc_linalg_name(void)
{
    /* OpenBLAS's configuration names the kernel it picked for this CPU
     * (Haswell, SkylakeX, Cooperlake, ...): what decides the last bits of
     * every SVD here. */
    const char *(*config)(void);
    *(void **)&config = dlsym(RTLD_DEFAULT, "openblas_get_config");
    return config ? config() : "a BLAS other than OpenBLAS (the reference BLAS?)";
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

/* |z| <= tol as cabs (hypot) decides it, which is NaN-safe; the square
 * |z|^2 decides the clear cases, beyond a factor 2 either side of tol
 * (hypot was a sixth of the check at N = 256).  lo2 = tol^2 / 4 and
 * hi2 = 4 tol^2, which may underflow or overflow: then nothing is clear. */
static int abs_within(double complex z, double tol, double lo2, double hi2)
{
    double s = creal(z) * creal(z) + cimag(z) * cimag(z);
    if (s < lo2)
        return 1;
    if (s > hi2)
        return 0;
    return cabs(z) <= tol;      /* false on NaN */
}

int optinc_cmat_unitary_within(const optinc_cmat *m, double tol)
{
    int n = m->rows;
    optinc_cmat *g = optinc_cmat_new(n, n);
    if (!g)
        return -1;
    cblas_zherk(CblasRowMajor, CblasUpper, CblasNoTrans, n, m->cols, 1.0, m->a, m->cols, 0.0,
                g->a, n);
    int clear = tol > 0x1p-500 && tol < 0x1p500, ok = 1;
    double lo2 = clear ? tol * tol / 4 : -1, hi2 = clear ? 4 * tol * tol : INFINITY;
    for (int i = 0; i < n && ok; i++)
        for (int j = i; j < n && ok; j++)
            ok = abs_within(OPTINC_AT(g, i, j) - (i == j), tol, lo2, hi2);
    optinc_cmat_free(g);
    return ok;
}

/* ---- padded arrays for LAPACK ------------------------------------------- */

/* Slack on each side of an array for an m x n problem: four columns of the
 * largest matrix.  The over-reads measured (valgrind, every shape up to
 * 40 x 40) reach a few hundred bytes and grow with the column length. */
static size_t slack_for(int m, int n)
{
    return 64 + 4 * sizeof(double complex) * (size_t)(m > n ? m : n);
}

static void *slack_alloc(size_t bytes, size_t slack)
{
    char *p = calloc(1, bytes + 2 * slack);
    return p ? p + slack : NULL;
}

static void slack_free(void *p, size_t slack)
{
    if (p)
        free((char *)p - slack);
}

/* A padded column-major copy of the row-major m x n matrix a. */
static double complex *colmajor_copy(const double complex *a, int m, int n, size_t slack)
{
    double complex *t = slack_alloc(sizeof *t * (size_t)m * (size_t)n, slack);
    if (t)
        LAPACKE_zge_trans(LAPACK_ROW_MAJOR, m, n, a, n, t, m);
    return t;
}

/* The workspace a LAPACK query (lwork = -1) asked for, padded; its length
 * in *lwork. */
static double complex *padded_work(double complex query, size_t pad, lapack_int *lwork)
{
    *lwork = (lapack_int)creal(query) > 1 ? (lapack_int)creal(query) : 1;
    return slack_alloc(sizeof(double complex) * (size_t)*lwork, pad);
}

/* W = U . diag(s) . Vh with zgesdd, or zgesvd when `qr_iteration`; returns
 * LAPACK's info (-1000 when out of memory).  u is m x m, vh n x n. */
static lapack_int svd_padded(const optinc_cmat *W, int qr_iteration, double *s, optinc_cmat *u,
                             optinc_cmat *vh)
{
    int m = W->rows, n = W->cols, k = m < n ? m : n, mx = m < n ? n : m;
    size_t lrwork = (size_t)k * (size_t)(5 * k + 7 > 2 * mx + 2 * k + 1 ? 5 * k + 7
                                                                        : 2 * mx + 2 * k + 1);
    size_t pad = slack_for(m, n);
    double complex *a = colmajor_copy(W->a, m, n, pad), *work = NULL, query;
    double complex *ut = slack_alloc(sizeof *ut * (size_t)m * (size_t)m, pad);
    double complex *vt = slack_alloc(sizeof *vt * (size_t)n * (size_t)n, pad);
    double *rwork = slack_alloc(sizeof *rwork * lrwork, pad);
    lapack_int *iwork = slack_alloc(sizeof *iwork * 8 * (size_t)k, pad), info = -1000;
    if (a && ut && vt && rwork && iwork) {
        info = qr_iteration
            ? LAPACKE_zgesvd_work(LAPACK_COL_MAJOR, 'A', 'A', m, n, a, m, s, ut, m, vt, n,
                                  &query, -1, rwork)
            : LAPACKE_zgesdd_work(LAPACK_COL_MAJOR, 'A', m, n, a, m, s, ut, m, vt, n, &query,
                                  -1, rwork, iwork);
        lapack_int lwork;
        if (info == 0 && !(work = padded_work(query, pad, &lwork)))
            info = -1000;
        if (info == 0)
            info = qr_iteration
                ? LAPACKE_zgesvd_work(LAPACK_COL_MAJOR, 'A', 'A', m, n, a, m, s, ut, m, vt, n,
                                      work, lwork, rwork)
                : LAPACKE_zgesdd_work(LAPACK_COL_MAJOR, 'A', m, n, a, m, s, ut, m, vt, n, work,
                                      lwork, rwork, iwork);
        if (info == 0) {
            LAPACKE_zge_trans(LAPACK_COL_MAJOR, m, m, ut, m, u->a, m);
            LAPACKE_zge_trans(LAPACK_COL_MAJOR, n, n, vt, n, vh->a, n);
        }
    }
    slack_free(a, pad);
    slack_free(ut, pad);
    slack_free(vt, pad);
    slack_free(rwork, pad);
    slack_free(iwork, pad);
    slack_free(work, pad);
    return info;
}

optinc_status optinc_svd(const optinc_cmat *W, optinc_cmat **U, double **sigma,
                         optinc_cmat **Vh, optinc_error *err)
{
    int m = W->rows, n = W->cols, k = m < n ? m : n;
    optinc_cmat *u = optinc_cmat_new(m, m);
    optinc_cmat *vh = optinc_cmat_new(n, n);
    double *s = calloc((size_t)k + 1, sizeof *s);
    optinc_status st = OPTINC_OK;
    if (!u || !vh || !s) {
        st = optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory in SVD of a %dx%d matrix", m, n);
        goto out;
    }
    if (k > 0) {
        lapack_int info = svd_padded(W, 0, s, u, vh);
        if (info > 0)           /* did not converge: the slower QR-iteration driver */
            info = svd_padded(W, 1, s, u, vh);
        if (info == -1000) {
            st = optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory in SVD of a %dx%d matrix",
                             m, n);
            goto out;
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
    optinc_cmat_free(u);
    optinc_cmat_free(vh);
    free(s);
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

/* Q of the QR factorization of the row-major n x n matrix q, in place, with
 * the phases of R's diagonal in phase[]; 0 on success. */
static int qr_padded(optinc_cmat *q, double complex *phase)
{
    int n = q->rows, rc = -1;
    size_t pad = slack_for(n, n);
    double complex *a = colmajor_copy(q->a, n, n, pad), *tau = slack_alloc(sizeof *tau * (size_t)n, pad);
    double complex *work = NULL, qr_query, q_query;
    lapack_int lwork = 0;
    /* One workspace for both steps, the larger of the two asked for (a
     * longer one than asked leaves LAPACK's blocking, and so the bits, as
     * they are). */
    if (a && tau && LAPACKE_zgeqrf_work(LAPACK_COL_MAJOR, n, n, a, n, tau, &qr_query, -1) == 0 &&
        LAPACKE_zungqr_work(LAPACK_COL_MAJOR, n, n, n, a, n, tau, &q_query, -1) == 0)
        work = padded_work(creal(qr_query) > creal(q_query) ? qr_query : q_query, pad, &lwork);
    if (work && LAPACKE_zgeqrf_work(LAPACK_COL_MAJOR, n, n, a, n, tau, work, lwork) == 0) {
        for (int i = 0; i < n; i++) {
            double complex r = a[(size_t)i * n + i];
            phase[i] = cabs(r) > 0 ? r / cabs(r) : 1.0;
        }
        if (LAPACKE_zungqr_work(LAPACK_COL_MAJOR, n, n, n, a, n, tau, work, lwork) == 0) {
            LAPACKE_zge_trans(LAPACK_COL_MAJOR, n, n, a, n, q->a, n);
            rc = 0;
        }
    }
    slack_free(a, pad);
    slack_free(tau, pad);
    slack_free(work, pad);
    return rc;
}

optinc_cmat *optinc_cmat_haar(int n, optinc_rng *rng)
{
    optinc_cmat *q = optinc_cmat_gaussian(n, n, 1, rng);
    double complex *phase = calloc((size_t)n + 1, sizeof *phase);
    if (!q || !phase || (n > 0 && qr_padded(q, phase) != 0)) {
        optinc_cmat_free(q);
        free(phase);
        return NULL;
    }
    /* Q alone is not Haar-distributed: divide out the phases of R's diagonal. */
    for (int r = 0; r < n; r++)
        for (int c = 0; c < n; c++)
            OPTINC_AT(q, r, c) *= phase[c];
    free(phase);
    return q;
}
