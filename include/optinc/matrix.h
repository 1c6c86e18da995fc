/*
 * matrix.h - complex dense matrices over LAPACKE/CBLAS (OpenBLAS).
 *
 * Storage is row-major `double complex`, matching how the spec, the .npy files
 * and the meshes index a matrix (out = M * in, M[row][col]).  Everything that is
 * a matrix operation goes to BLAS/LAPACK; only the 2x2 rotations of the
 * decompositions are hand-written (in mesh.c), because BLAS has no kernel for
 * them on complex row pairs.
 */
#ifndef OPTINC_MATRIX_H
#define OPTINC_MATRIX_H

#include <complex.h>
#include "optinc/error.h"
#include "optinc/rng.h"

typedef struct optinc_cmat {
    int rows, cols;
    double complex *a;     /* rows*cols entries, row-major; a[r*cols + c] */
} optinc_cmat;

#define OPTINC_AT(m, r, c) ((m)->a[(size_t)(r) * (size_t)(m)->cols + (size_t)(c)])

/* Pins the BLAS to one thread when it is OpenBLAS: its threaded kernels split
 * sums differently with the thread count, which would change the last bits of
 * decompositions (and so netlists) from one run to another.  Programs call it
 * once at start; the optinc command does.  Across machines the BLAS's kernel
 * for the CPU still changes those last bits: netlists keep their cards and
 * codes, and their phases agree to about 1e-12 rad (optinc-netlist(5)). */
void optinc_linalg_deterministic(void);

/* Has the BLAS take its working memory now (OpenBLAS keeps one buffer for
 * the process, and retries forever when it cannot get it later): returns
 * 0, or -1 when the address-space limit leaves no room for it.  Programs
 * call it once at start; the optinc command does. */
int optinc_linalg_reserve(void);

/* The BLAS in use, for reports: OpenBLAS's configuration, which names the
 * kernel it chose for this CPU, or a note that it is another BLAS. */
const char *optinc_linalg_name(void);

optinc_cmat *optinc_cmat_new(int rows, int cols);           /* zero-filled; NULL on OOM */
optinc_cmat *optinc_cmat_identity(int n);
optinc_cmat *optinc_cmat_copy(const optinc_cmat *m);
void optinc_cmat_free(optinc_cmat *m);

/* C = A * B (zgemm).  C must be A->rows x B->cols and distinct from A and B. */
void optinc_cmat_mul(const optinc_cmat *A, const optinc_cmat *B, optinc_cmat *C);
/* Conjugate transpose into a new matrix. */
optinc_cmat *optinc_cmat_adjoint(const optinc_cmat *m);

double optinc_cmat_max_abs(const optinc_cmat *m);
double optinc_cmat_max_abs_diff(const optinc_cmat *a, const optinc_cmat *b);
double optinc_cmat_frobenius(const optinc_cmat *m);
/* max |M^H M - I|: how far from unitary (columns orthonormal). */
double optinc_cmat_unitarity_error(const optinc_cmat *m);
/* max |M M^H - I| <= tol for a square M (rows orthonormal, NaN fails): 1
 * or 0, from one triangle of the Hermitian product (zherk, half of the
 * product's work); -1 when out of memory. */
int optinc_cmat_unitary_within(const optinc_cmat *m, double tol);

/* Thin wrapper over LAPACKE_zgesdd (jobz 'A'), falling back to zgesvd when
 * zgesdd does not converge.  W (m x n) = U (m x m) * diag(sigma) * Vh (n x n);
 * sigma has min(m,n) entries, descending.  Outputs are newly allocated. */
optinc_status optinc_svd(const optinc_cmat *W, optinc_cmat **U, double **sigma,
                         optinc_cmat **Vh, optinc_error *err);

/* Haar-random unitary (QR of a complex Gaussian matrix with the phases of R's
 * diagonal divided out, Mezzadri 2007). */
optinc_cmat *optinc_cmat_haar(int n, optinc_rng *rng);
/* Gaussian entries N(0,1) (real) or N(0,1/2)+iN(0,1/2) (complex). */
optinc_cmat *optinc_cmat_gaussian(int rows, int cols, int complex_entries, optinc_rng *rng);

#endif
