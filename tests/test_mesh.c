/*
 * test_mesh.c - Clements and Reck decompositions: reconstruction from the
 * physical MZI settings, exact element and column counts, degenerate inputs,
 * the MZI convention, and phase quantization.
 *
 * Bounds: "measured" is the largest value over four BLAS builds on an AVX-512
 * machine (OpenBLAS's Cooperlake, Haswell and Sandybridge kernels, and the
 * reference BLAS/LAPACK); the Haar matrices come from LAPACK's QR, the
 * decomposition and its rebuild are our own loops.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "compiler/mesh/mesh_path.h"
#include "optinc/mesh.h"

static const int sizes[] = {2, 3, 4, 5, 8, 16, 33, 64, 128};

static void check_haar(optinc_mesh_kind kind)
{
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        int n = sizes[i];
        optinc_rng rng;
        optinc_rng_seed(&rng, 1000 + n);
        optinc_cmat *U = optinc_cmat_haar(n, &rng);
        /* measured 1.6e-15 (N <= 128): 1e-13 leaves a factor 60 */
        cr_assert_lt(optinc_cmat_unitarity_error(U), 1e-13);
        optinc_mesh *m;
        optinc_error err;
        cr_assert_eq(optinc_mesh_decompose(U, kind, NULL, &m, &err), OPTINC_OK);
        optinc_cmat *R = optinc_mesh_matrix(m);
        double e = optinc_cmat_max_abs_diff(U, R);
        /* measured 1.7e-14 at N = 128 (reference BLAS; 1.6e-14 on OpenBLAS):
         * 1e-13 leaves a factor 5.8 */
        cr_expect_leq(e, 1e-13, "%s N=%d: max|U - U_rec| = %g",
                      kind == OPTINC_MESH_RECK ? "reck" : "clements", n, e);
        cr_expect_eq(m->n_mzi, n * (n - 1) / 2, "N=%d: %d MZIs", n, m->n_mzi);
        /* A 2-mode mesh is one MZI in one column. */
        int cols = kind == OPTINC_MESH_RECK ? 2 * n - 3 : (n == 2 ? 1 : n);
        cr_expect_eq(m->n_columns, cols, "N=%d: %d columns, expected %d", n, m->n_columns, cols);
        int maxcol = -1;
        for (int k = 0; k < m->n_mzi; k++) {
            const optinc_mzi *z = &m->mzi[k];
            cr_assert(z->mode >= 0 && z->mode + 1 < n);
            if (kind == OPTINC_MESH_CLEMENTS)
                cr_expect_eq(z->mode % 2, z->column % 2, "Clements column %d holds mode %d",
                             z->column, z->mode);
            cr_assert_geq(z->column, maxcol, "MZIs are listed column by column");
            maxcol = z->column;
            cr_assert(z->theta.rad >= 0 && z->theta.rad < 2 * M_PI);
            cr_assert(z->phi.rad >= 0 && z->phi.rad < 2 * M_PI);
            cr_assert_eq(z->theta.code, -1);
        }
        optinc_cmat_free(R);
        optinc_cmat_free(U);
        optinc_mesh_free(m);
    }
}

Test(mesh, clements_haar) { check_haar(OPTINC_MESH_CLEMENTS); }
Test(mesh, reck_haar) { check_haar(OPTINC_MESH_RECK); }

/* Every input -> output path of a Clements mesh crosses the same number of
 * MZIs (its loss balance); count the MZIs touching each mode. */
Test(mesh, clements_balanced_paths)
{
    for (int n = 3; n <= 12; n++) {
        optinc_rng rng;
        optinc_rng_seed(&rng, n);
        optinc_cmat *U = optinc_cmat_haar(n, &rng);
        optinc_mesh *m;
        cr_assert_eq(optinc_mesh_decompose(U, OPTINC_MESH_CLEMENTS, NULL, &m, NULL), 0);
        int *touch = calloc((size_t)n, sizeof *touch);
        for (int k = 0; k < m->n_mzi; k++) {
            touch[m->mzi[k].mode]++;
            touch[m->mzi[k].mode + 1]++;
        }
        int total = 0;
        for (int i = 0; i < n; i++)
            total += touch[i];
        cr_expect_eq(total, n * (n - 1), "each MZI touches two modes");
        free(touch);
        optinc_mesh_free(m);
        optinc_cmat_free(U);
    }
}

static void check_exact(const optinc_cmat *U, const char *what)
{
    for (int kind = 0; kind < 2; kind++) {
        optinc_mesh *m;
        cr_assert_eq(optinc_mesh_decompose(U, kind, NULL, &m, NULL), OPTINC_OK);
        for (int k = 0; k < m->n_mzi; k++)
            cr_assert(isfinite(m->mzi[k].theta.rad) && isfinite(m->mzi[k].phi.rad),
                      "%s: NaN phase", what);
        optinc_cmat *R = optinc_mesh_matrix(m);
        double e = optinc_cmat_max_abs_diff(U, R);
        /* measured 2.6e-15 on every build (no BLAS in these): a factor 38 */
        cr_expect_leq(e, 1e-13, "%s kind %d: error %g", what, kind, e);
        optinc_cmat_free(R);
        optinc_mesh_free(m);
    }
}

Test(mesh, degenerate_unitaries)
{
    for (int n = 1; n <= 9; n++) {
        optinc_cmat *I_ = optinc_cmat_identity(n);
        check_exact(I_, "identity");
        optinc_cmat_free(I_);

        /* A random permutation and the reversal (anti-identity). */
        optinc_rng rng;
        optinc_rng_seed(&rng, 77 + n);
        int *p = malloc(sizeof *p * (size_t)n);
        for (int i = 0; i < n; i++)
            p[i] = i;
        for (int i = n - 1; i > 0; i--) {
            int j = (int)optinc_rng_below(&rng, (uint64_t)i + 1), t = p[i];
            p[i] = p[j];
            p[j] = t;
        }
        optinc_cmat *P = optinc_cmat_new(n, n), *A = optinc_cmat_new(n, n);
        optinc_cmat *D = optinc_cmat_new(n, n);
        for (int i = 0; i < n; i++) {
            OPTINC_AT(P, i, p[i]) = 1;
            OPTINC_AT(A, i, n - 1 - i) = 1;
            OPTINC_AT(D, i, i) = cexp(I * 2 * M_PI * optinc_rng_uniform(&rng));
        }
        check_exact(P, "permutation");
        check_exact(A, "anti-identity");
        check_exact(D, "diagonal phases");
        optinc_cmat_free(P);
        optinc_cmat_free(A);
        optinc_cmat_free(D);
        free(p);
    }
}

/* Entries too small for their squares (rotations by 1e-200 and 1e-140
 * between neighbouring modes): the nulling takes its angle path for them,
 * and the mesh still rebuilds the matrix. */
Test(mesh, tiny_entries)
{
    for (int n = 2; n <= 7; n++) {
        optinc_cmat *U = optinc_cmat_identity(n);
        for (int i = 0; i + 1 < n; i += 2) {
            double t = i % 4 ? 1e-200 : 1e-140;
            double complex e = cexp(I * (0.3 + i));
            OPTINC_AT(U, i, i) = cos(t) * e;
            OPTINC_AT(U, i, i + 1) = -sin(t);
            OPTINC_AT(U, i + 1, i) = sin(t) * e;
            OPTINC_AT(U, i + 1, i + 1) = cos(t);
        }
        check_exact(U, "tiny entries");
        optinc_cmat_free(U);
    }
}

/* T(theta, phi) = e^{i theta} . MZ(pi - 2 theta, phi + pi) (mesh.c, step 3),
 * and MZ is unitary.  No BLAS: the entries are unit-size products of two or
 * three rounded factors, a few ulps (2^-52 = 2.2e-16) each; measured 3.7e-16,
 * so 1e-15 is 4.5 ulps. */
Test(mesh, mzi_convention)
{
    for (int k = 0; k < 50; k++) {
        double theta = 0.03 * k, phi = 0.41 * k - 3;
        double complex t[4] = {cexp(I * phi) * cos(theta), -sin(theta),
                               cexp(I * phi) * sin(theta), cos(theta)};
        double complex mz[4];
        optinc_mzi_matrix(M_PI - 2 * theta, phi + M_PI, mz);
        for (int i = 0; i < 4; i++)
            cr_assert_leq(cabs(t[i] - cexp(I * theta) * mz[i]), 1e-15);
        double complex g00 = conj(mz[0]) * mz[0] + conj(mz[2]) * mz[2];
        double complex g01 = conj(mz[0]) * mz[1] + conj(mz[2]) * mz[3];
        cr_assert_leq(cabs(g00 - 1) + cabs(g01), 1e-15);
    }
}

static double circ_dist(double a, double b)
{
    return fabs(remainder(a - b, 2 * M_PI));
}

/* The 1e-12 added to half a step is rounding slack for the phases' sums and
 * remainders on [0, 2 pi) (ulp(2 pi) = 8.9e-16, no BLAS); a code's phase is
 * code . step exactly (measured difference 0). */
Test(mesh, quantized_phases_within_half_step)
{
    for (int bits = 1; bits <= 12; bits += 3) {
        optinc_quantizer q = {bits, 0, 2 * M_PI};
        double step = 2 * M_PI / ldexp(1, bits);
        optinc_rng rng;
        optinc_rng_seed(&rng, bits);
        optinc_cmat *U = optinc_cmat_haar(12, &rng);
        optinc_mesh *m;
        cr_assert_eq(optinc_mesh_decompose(U, OPTINC_MESH_CLEMENTS, &q, &m, NULL), 0);
        for (int k = 0; k < m->n_mzi; k++) {
            const optinc_phase *ph[2] = {&m->mzi[k].theta, &m->mzi[k].phi};
            for (int j = 0; j < 2; j++) {
                cr_assert(ph[j]->code >= 0 && ph[j]->code < (1 << bits));
                cr_assert_leq(circ_dist(ph[j]->rad, ph[j]->target_rad), step / 2 + 1e-12);
                cr_assert_leq(fabs(ph[j]->rad - ph[j]->code * step), 1e-12);
            }
        }
        for (int k = 0; k < 12; k++)
            cr_assert_leq(circ_dist(m->screen[k].rad, m->screen[k].target_rad), step / 2 + 1e-12);
        optinc_mesh_free(m);
        optinc_cmat_free(U);
    }
    /* A range wider than 2 pi keeps the half-step bound and the offset. */
    optinc_quantizer q = {6, -1.0, -1.0 + 2.5 * M_PI};
    double step = 2.5 * M_PI / 64;
    for (int k = 0; k < 1000; k++) {
        optinc_phase p;
        double x = -20 + 0.04 * k;
        optinc_quantize_phase(&q, x, &p);
        cr_assert(p.code >= 0 && p.code < 64);
        cr_assert_leq(circ_dist(p.rad, x), step / 2 + 1e-12, "x=%g rad=%g", x, p.rad);
    }
}

/* An unquantized phase is its target wrapped onto [0, 2 pi) as fmod does it;
 * the decomposition skips the library call within two turns of zero, and
 * must give the same bits there, at the turns themselves and the doubles
 * beside them, and everywhere else. */
static double wrap_by_fmod(double x)
{
    double y = fmod(x, 2 * M_PI);
    if (y < 0)
        y += 2 * M_PI;
    return 0.0 + (y >= 2 * M_PI ? 0 : y);      /* the range starts at 0, which turns -0 into +0 */
}

Test(mesh, unquantized_phase_wraps_as_fmod)
{
    double xs[4 * 9 * 3 + 400];
    int n = 0;
    for (int k = -4; k <= 4; k++)
        for (int half = 0; half < 4; half++) {
            double x = (k + 0.25 * half) * 2 * M_PI;
            xs[n++] = nextafter(x, -INFINITY);
            xs[n++] = x;
            xs[n++] = nextafter(x, INFINITY);
        }
    for (int k = 0; k < 400; k++)
        xs[n++] = -31.4 + 0.157 * k;
    for (int i = 0; i < n; i++) {
        optinc_phase p;
        optinc_quantize_phase(NULL, xs[i], &p);
        double want = wrap_by_fmod(xs[i]);
        cr_assert(memcmp(&p.rad, &want, sizeof want) == 0, "x=%a: %a, fmod gives %a", xs[i],
                  p.rad, want);
    }
}

Test(mesh, rejects_non_square)
{
    optinc_cmat *A = optinc_cmat_new(3, 4);
    optinc_mesh *m = NULL;
    optinc_error err;
    cr_assert_eq(optinc_mesh_decompose(A, OPTINC_MESH_CLEMENTS, NULL, &m, &err), OPTINC_EINPUT);
    cr_assert_null(m);
    optinc_cmat_free(A);
}

/* The blocked path (compiler/mesh/mesh_path.h) against the sequential one on
 * Haar unitaries: sizes around the panel and lane widths (odd N, N not a
 * multiple of 4, a last panel with and without columns right of it).  Every
 * element gets the same operations in the same order on both paths, so the
 * meshes are compared exactly, bit for bit. */
static void check_paths(optinc_mesh_kind kind)
{
    static const int n_of[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 17, 31, 33, 64, 67, 130, 257};
    for (size_t i = 0; i < sizeof n_of / sizeof n_of[0]; i++) {
        int n = n_of[i];
        optinc_rng rng;
        optinc_rng_seed(&rng, 4300 + n);
        optinc_cmat *U = optinc_cmat_haar(n, &rng);
        optinc_mesh *a, *b;
        cr_assert_eq(optinc_mesh_decompose_path(U, kind, NULL, OPTINC_MESH_PATH_SEQUENTIAL, &a, NULL),
                     OPTINC_OK);
        cr_assert_eq(optinc_mesh_decompose_path(U, kind, NULL, OPTINC_MESH_PATH_BLOCKED, &b, NULL),
                     OPTINC_OK);
        cr_assert_eq(a->n_mzi, b->n_mzi);
        cr_assert_eq(a->n_columns, b->n_columns);
        for (int k = 0; k < a->n_mzi; k++) {
            const optinc_mzi *x = &a->mzi[k], *y = &b->mzi[k];
            cr_assert(x->mode == y->mode && x->column == y->column, "N=%d MZI %d placed apart", n, k);
            cr_assert(memcmp(&x->theta.rad, &y->theta.rad, sizeof(double)) == 0 &&
                          memcmp(&x->phi.rad, &y->phi.rad, sizeof(double)) == 0,
                      "N=%d MZI %d: theta %.17g vs %.17g, phi %.17g vs %.17g", n, k,
                      x->theta.rad, y->theta.rad, x->phi.rad, y->phi.rad);
        }
        for (int m = 0; m < n; m++)
            cr_assert(memcmp(&a->screen[m].rad, &b->screen[m].rad, sizeof(double)) == 0,
                      "N=%d screen %d: %.17g vs %.17g", n, m, a->screen[m].rad, b->screen[m].rad);
        optinc_mesh_free(a);
        optinc_mesh_free(b);
        optinc_cmat_free(U);
    }
}

Test(mesh, reck_blocked_same_bits) { check_paths(OPTINC_MESH_RECK); }
Test(mesh, clements_blocked_same_bits) { check_paths(OPTINC_MESH_CLEMENTS); }

/* ---------------------------------------------- Strawberry Fields' lists -- */

static optinc_sf_lists sf_lists_new(int n)
{
    size_t k = (size_t)n * (n - 1) / 2 + 1;
    optinc_sf_lists l = {malloc(k * sizeof(int)), malloc(k * sizeof(double)),
                         malloc(k * sizeof(double)), malloc(n * sizeof(double complex)), -1};
    return l;
}

static void sf_lists_free(optinc_sf_lists *l)
{
    free(l->mode);
    free(l->theta);
    free(l->phi);
    free(l->diagonal);
}

/* diag(D) . T(e_K) ... T(e_1) of Clements et al., Eq. 1: the form
 * rectangular_phase_end's list has. */
static optinc_cmat *rebuild_phase_end(const optinc_sf_lists *l, int n)
{
    optinc_cmat *M = optinc_cmat_identity(n);
    for (int e = 0; e < n * (n - 1) / 2; e++) {
        int m = l->mode[e];
        double complex ep = cexp(I * l->phi[e]);
        double c = cos(l->theta[e]), s = sin(l->theta[e]);
        for (int j = 0; j < n; j++) {
            double complex x = OPTINC_AT(M, m, j), y = OPTINC_AT(M, m + 1, j);
            OPTINC_AT(M, m, j) = ep * c * x - s * y;
            OPTINC_AT(M, m + 1, j) = ep * s * x + c * y;
        }
    }
    for (int r = 0; r < n; r++)
        for (int j = 0; j < n; j++)
            OPTINC_AT(M, r, j) *= l->diagonal[r];
    return M;
}

Test(mesh_sf, threads_give_the_same_bits)
{
    const int n = 33, k = n * (n - 1) / 2;
    optinc_rng rng;
    optinc_rng_seed(&rng, 33);
    optinc_cmat *U = optinc_cmat_haar(n, &rng);
    /* rectangular's tilist: Ti on the even anti-diagonals, 1 + 3 + ... + 31 */
    const int first[] = {16 * 16, k, k};
    for (int form = OPTINC_SF_RECTANGULAR; form <= OPTINC_SF_TRIANGULAR; form++) {
        optinc_sf_lists a = sf_lists_new(n), b = sf_lists_new(n);
        cr_assert_eq(optinc_mesh_sf(U, form, 1e-11, 1, &a, NULL), OPTINC_OK);
        cr_assert_eq(optinc_mesh_sf(U, form, 1e-11, 2, &b, NULL), OPTINC_OK);
        cr_expect_eq(a.n_first, first[form], "form %d: n_first %d", form, a.n_first);
        cr_expect_eq(b.n_first, a.n_first);
        cr_expect(memcmp(a.mode, b.mode, k * sizeof(int)) == 0);
        cr_expect(memcmp(a.theta, b.theta, k * sizeof(double)) == 0);
        cr_expect(memcmp(a.phi, b.phi, k * sizeof(double)) == 0);
        cr_expect(memcmp(a.diagonal, b.diagonal, n * sizeof(double complex)) == 0);
        sf_lists_free(&a);
        sf_lists_free(&b);
    }
    optinc_cmat_free(U);
}

Test(mesh_sf, phase_end_rebuilds_the_unitary)
{
    for (int n = 1; n <= 40; n += 13) {
        optinc_rng rng;
        optinc_rng_seed(&rng, 7 + n);
        optinc_cmat *U = optinc_cmat_haar(n, &rng);
        optinc_sf_lists l = sf_lists_new(n);
        cr_assert_eq(optinc_mesh_sf(U, OPTINC_SF_RECTANGULAR_PHASE_END, 1e-11, 1, &l, NULL),
                     OPTINC_OK);
        for (int e = 0; e < n * (n - 1) / 2; e++)
            cr_expect(l.mode[e] >= 0 && l.mode[e] < n - 1);
        optinc_cmat *M = rebuild_phase_end(&l, n);
        /* n(n-1)/2 rotations of rounding ~1e-16 on unit rows: 780 * 4 ulps is
         * 7e-13 at n = 40 at most; measured 5.6e-15 (OpenBLAS's Cooperlake and
         * Haswell kernels): 1e-13 leaves a factor 18 */
        double e = optinc_cmat_max_abs_diff(U, M);
        cr_expect_leq(e, 1e-13, "n=%d: max|U - rebuilt| = %g", n, e);
        optinc_cmat_free(M);
        optinc_cmat_free(U);
        sf_lists_free(&l);
    }
}

Test(mesh_sf, refuses_what_sf_refuses)
{
    optinc_error err;
    optinc_sf_lists l = sf_lists_new(4);
    optinc_cmat *A = optinc_cmat_new(3, 4);
    for (int threads = 1; threads <= 2; threads++) {
        cr_expect_eq(optinc_mesh_sf(A, OPTINC_SF_RECTANGULAR, 1e-11, threads, &l, &err),
                     OPTINC_EINPUT);
        cr_expect(strstr(err.message, "square unitary, got 3x4"), "%s", err.message);
        optinc_cmat *U = optinc_cmat_identity(4);
        for (int i = 0; i < 4; i++)
            OPTINC_AT(U, i, i) = 1.0001;        /* |U U^H - I| = 2.0001e-4 on the diagonal */
        for (int form = OPTINC_SF_RECTANGULAR; form <= OPTINC_SF_TRIANGULAR; form++) {
            cr_expect_eq(optinc_mesh_sf(U, form, 1e-5, threads, &l, &err), OPTINC_EINPUT);
            cr_expect(strstr(err.message, "not unitary"), "%s", err.message);
            cr_expect_eq(optinc_mesh_sf(U, form, 1e-3, threads, &l, &err), OPTINC_OK);
        }
        OPTINC_AT(U, 2, 1) = NAN;
        cr_expect_eq(optinc_mesh_sf(U, OPTINC_SF_TRIANGULAR, 1e30, threads, &l, &err),
                     OPTINC_EINPUT);
        optinc_cmat_free(U);
    }
    optinc_cmat_free(A);
    sf_lists_free(&l);
}

/* optinc_cmat_unitary_within decides by |z| as hypot gives it, whichever
 * side of the squares' shortcut |z| falls: M = diag(sqrt(1 + x)) has
 * M M^H - I = x on the diagonal to 1e-16, far inside the margins below. */
Test(mesh_sf, unitarity_check_is_numpys)
{
    const double tols[] = {1e-6, 1e-11, 1e-200};
    const struct { double x; int ok; } cases[] = {
        {0, 1}, {0.3, 1}, {0.9, 1}, {1.1, 0}, {3, 0}, {-0.9, 1}, {-1.1, 0}, {-3, 0}};
    optinc_cmat *M = optinc_cmat_identity(3);
    for (size_t t = 0; t < 2; t++)
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            OPTINC_AT(M, 1, 1) = sqrt(1 + cases[i].x * tols[t]);
            cr_expect_eq(optinc_cmat_unitary_within(M, tols[t]), cases[i].ok,
                         "tol %g, |x| = %g tol", tols[t], cases[i].x);
        }
    OPTINC_AT(M, 1, 1) = 1;             /* exact: even a tol too small to square */
    cr_expect_eq(optinc_cmat_unitary_within(M, tols[2]), 1);
    OPTINC_AT(M, 0, 2) = 2 * tols[2];
    cr_expect_eq(optinc_cmat_unitary_within(M, tols[2]), 0);
    optinc_cmat_free(M);
}
