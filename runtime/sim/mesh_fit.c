/*
 * mesh_fit.c - the global fit of a mesh's phases: L-BFGS (compiler/core/
 * lbfgs.c) on the distance of D.M'(x).A to a target T over the best output
 * screen D, with its gradient by one backward sweep (chip.h,
 * optinc_mesh_fit).  Its users are the calibration's re-fit of a mesh with
 * couplers out of reach (calibrate.c) and the data-aware recompilation of
 * a chip (chip_recompile.c), which runs it on every mesh of every layer for
 * hundreds of iterations: it is where a recompilation spends its time.
 *
 * So its matrices are held planar (real parts and imaginary parts apart,
 * rows padded to whole groups of FIT_LANES columns with zeros, which every
 * element keeps zero): each 2x2 update is plain multiplies and adds on
 * contiguous numbers that vectorize (the rotate of chunk_kernel.h, run on
 * groups of FIT_LANES columns), and the backward sweep updates both of its
 * matrices and sums the gradient's overlaps in one pass over their rows,
 * with one partial sum per lane added up in a fixed order: the same bits
 * whichever instruction set the clone that runs it uses.
 */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "compiler/core/freeall.h"
#include "compiler/core/lbfgs.h"
#include "runtime/sim/chip.h"

#define FIT_LANES 4

#define REAL double
#define SFX _fit
#define CHUNK FIT_LANES
#include "compiler/core/chunk_kernel.h"
#undef CHUNK
#undef SFX
#undef REAL

/* The AVX-512 clone for its 32 vector registers: the backward step's eight
 * lane sums, eight coefficients and four rows do not fit in 16. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define FIT_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#define FIT_INLINE __attribute__((always_inline)) inline
#else
#define FIT_CLONES
#define FIT_INLINE inline
#endif

/* The fit of a mesh's used block: its first nr outputs on its first nc
 * inputs (the modes an attenuator column on either side reads or feeds;
 * the rest carries no light that matters, so its MZIs are free).  Every
 * matrix is n x ld planar (re, then im at offset n ld). */
typedef struct fit {
    const optinc_mesh *mesh;
    const double *A;            /* the inputs; NULL: the first nc unit vectors */
    const double *T;            /* the target */
    const double *w;            /* weight of each output row; NULL: 1 */
    double *Q, *L;              /* scratch: partial products, adjoint */
    double complex *E;          /* the elements of the last evaluation, 4 per MZI */
    double complex *X;          /* its e^{i theta}, e^{i phi}, 2 per MZI */
    double *cs;                 /* the couplers' amplitudes, 4 per MZI (devices.c) */
    int n, nr, nc, ld;
    const unsigned char *frozen;   /* phases the fit keeps (2 per MZI); NULL: none */
} fit;

/* Rows m, m + 1 of planar M (n x ld) := t . those rows (t: re, im of t00
 * t01 t10 t11). */
static FIT_INLINE void rows_apply(double *M, int n, int ld, int m, const double *t)
{
    double *xr = M + (size_t)m * ld, *xi = xr + (size_t)n * ld;
    for (int j = 0; j < ld; j += FIT_LANES)
        rotate_fit(xr + j, xi + j, xr + ld + j, xi + ld + j, t);
}

/* Q := E^H . Q and L := E^H . L on rows (x, y) = (m, m + 1), in one pass
 * over their columns, summing on the way W[b][a] = (Q' L^H)[m+b][m+a] (Q'
 * the updated Q, L before its update) into w (re, im of W00 W01 W10 W11);
 * h is E^H as re, im of its four entries. */
/* Inlined into each clone of its caller: a call would run the default
 * build's loop. */
static FIT_INLINE void back_step(double *restrict qxr, double *restrict qxi, double *restrict qyr,
                             double *restrict qyi, double *restrict lxr, double *restrict lxi,
                             double *restrict lyr, double *restrict lyi, int ld,
                             const double *restrict h, double w[8])
{
    const double ar = h[0], ai = h[1], br = h[2], bi = h[3];
    const double cr = h[4], ci = h[5], dr = h[6], di = h[7];
    double acc[8][FIT_LANES] = {{0}};
    for (int j0 = 0; j0 < ld; j0 += FIT_LANES)
        for (int j = j0; j < j0 + FIT_LANES; j++) {
            double ur = qxr[j], ui = qxi[j], vr = qyr[j], vi = qyi[j];
            double pr = ar * ur - ai * ui + br * vr - bi * vi;
            double pi = ar * ui + ai * ur + br * vi + bi * vr;
            double qr = cr * ur - ci * ui + dr * vr - di * vi;
            double qi = cr * ui + ci * ur + dr * vi + di * vr;
            qxr[j] = pr;
            qxi[j] = pi;
            qyr[j] = qr;
            qyi[j] = qi;
            double sr = lxr[j], si = lxi[j], tr = lyr[j], ti = lyi[j];
            int k = j - j0;
            acc[0][k] += pr * sr + pi * si;
            acc[1][k] += pi * sr - pr * si;
            acc[2][k] += pr * tr + pi * ti;
            acc[3][k] += pi * tr - pr * ti;
            acc[4][k] += qr * sr + qi * si;
            acc[5][k] += qi * sr - qr * si;
            acc[6][k] += qr * tr + qi * ti;
            acc[7][k] += qi * tr - qr * ti;
            lxr[j] = ar * sr - ai * si + br * tr - bi * ti;
            lxi[j] = ar * si + ai * sr + br * ti + bi * tr;
            lyr[j] = cr * sr - ci * si + dr * tr - di * ti;
            lyi[j] = cr * si + ci * sr + dr * ti + di * tr;
        }
    for (int v = 0; v < 8; v++) {
        double s = 0;
        for (int k = 0; k < FIT_LANES; k++)
            s += acc[v][k];
        w[v] = s;
    }
}

/* e^{i a}, the bits of cexp(I a) (glibc's takes cos and sin of the
 * imaginary part and multiplies them by exp(0) = 1 exactly; the wrapper
 * was 3% of a recompilation's time; GCC fuses the two calls into one
 * sincos). */
static inline double complex unit_phasor(double a)
{
    return CMPLX(cos(a), sin(a));
}

/* Q := the mesh M'(x) on the inputs, keeping each element in F->E. */
FIT_CLONES static void fit_forward(fit *F, const double *x)
{
    int n = F->n, ld = F->ld, K = F->mesh->n_mzi;
    size_t nn = (size_t)n * ld;
    if (F->A) {
        memcpy(F->Q, F->A, sizeof *F->Q * 2 * nn);
    } else {
        memset(F->Q, 0, sizeof *F->Q * 2 * nn);
        for (int r = 0; r < F->nc; r++)
            F->Q[(size_t)r * ld + r] = 1;
    }
    for (int i = 0; i < K; i++) {
        double complex *E = F->E + 4 * (size_t)i, *X = F->X + 2 * (size_t)i;
        X[0] = unit_phasor(x[2 * i]);
        X[1] = unit_phasor(x[2 * i + 1]);
        optinc_mzi_element(X[0], X[1], F->cs + 4 * (size_t)i, 1, E);
        rows_apply(F->Q, n, ld, F->mesh->mzi[i].mode, (const double *)E);
    }
}

/* Row r's overlap sum_c conj(T_rc) Q_rc. */
static double complex row_overlap(const fit *F, int r)
{
    size_t nn = (size_t)F->n * F->ld;
    const double *qr = F->Q + (size_t)r * F->ld, *qi = qr + nn;
    const double *tr = F->T + (size_t)r * F->ld, *ti = tr + nn;
    double zr = 0, zi = 0;
    for (int c = 0; c < F->nc; c++) {
        zr += tr[c] * qr[c] + ti[c] * qi[c];
        zi += tr[c] * qi[c] - ti[c] * qr[c];
    }
    return CMPLX(zr, zi);
}

/* The gradient into g, Q holding the mesh and L the adjoint at its
 * outputs: one backward sweep (reverse mode: Q walks back through the
 * partial products, L carries the adjoint). */
FIT_CLONES static void fit_backward(fit *F, double *g)
{
    int n = F->n, ld = F->ld, K = F->mesh->n_mzi;
    size_t nn = (size_t)n * ld;
    for (int i = K - 1; i >= 0; i--) {
        int m = F->mesh->mzi[i].mode;
        const double *cs = F->cs + 4 * (size_t)i;
        double c1 = cs[0], s1 = cs[1], c2 = cs[2], s2 = cs[3];
        const double complex *E = F->E + 4 * (size_t)i;
        double complex H[4] = {conj(E[0]), conj(E[2]), conj(E[1]), conj(E[3])};
        double *qx = F->Q + (size_t)m * ld, *lx = F->L + (size_t)m * ld, w[8];
        back_step(qx, qx + nn, qx + ld, qx + nn + ld, lx, lx + nn, lx + ld, lx + nn + ld, ld,
                  (const double *)H, w);
        double complex W[2][2] = {{CMPLX(w[0], w[1]), CMPLX(w[2], w[3])},
                                  {CMPLX(w[4], w[5]), CMPLX(w[6], w[7])}};
        double complex et = F->X[2 * (size_t)i], ep = F->X[2 * (size_t)i + 1];
        double complex dth[4] = {I * ep * c1 * c2 * et, -s1 * c2 * et, -ep * c1 * s2 * et,
                                 -I * s1 * s2 * et};
        double complex dph[4] = {I * E[0], 0, I * E[2], 0};
        double gt = 0, gp = 0;
        for (int a = 0; a < 2; a++)
            for (int b = 0; b < 2; b++) {
                gt += 2 * creal(W[b][a] * dth[2 * a + b]);
                gp += 2 * creal(W[b][a] * dph[2 * a + b]);
            }
        g[2 * i] = F->frozen && F->frozen[2 * i] ? 0 : gt;
        g[2 * i + 1] = F->frozen && F->frozen[2 * i + 1] ? 0 : gp;
    }
}

/* f(x) = min over output screens D of sum_r w_r |(D.M'(x).A - T)_r|^2 over
 * the used outputs r < nr (M' the mesh with the measured couplers, A its
 * inputs: the used unit vectors, or a data set's compressed fields, x =
 * theta_0, phi_0, theta_1, ...) and, when g is not NULL, its gradient.
 * f is summed from the residuals themselves, not as |Q|^2 + |T|^2 - 2|z|:
 * that difference loses to cancellation everything below about eps times
 * sum_r w_r |T_r|^2, and L-BFGS, which sees no decrease under that floor,
 * stopped at a misfit near sqrt(eps) whose last digits depended on the BLAS
 * that compiled the start (1.1e-7 to 1.3e-7 on the test's mesh). */
static double fit_eval(const double *x, double *g, void *ctx)
{
    fit *F = ctx;
    int ld = F->ld;
    size_t nn = (size_t)F->n * ld;
    fit_forward(F, x);
    double f = 0;
    memset(F->L, 0, sizeof *F->L * 2 * nn);
    for (int r = 0; r < F->nr; r++) {
        double w = F->w ? F->w[r] : 1;
        double complex z = row_overlap(F, r);
        double complex d = cabs(z) > 0 ? z / cabs(z) : 1;   /* the best screen is conj(d) */
        const double *qr = F->Q + (size_t)r * ld, *qi = qr + nn;
        const double *tr = F->T + (size_t)r * ld, *ti = tr + nn;
        double *lr = F->L + (size_t)r * ld, *li = lr + nn, fr = 0;
        for (int c = 0; c < F->nc; c++) {
            double er = qr[c] - (creal(d) * tr[c] - cimag(d) * ti[c]);
            double ei = qi[c] - (creal(d) * ti[c] + cimag(d) * tr[c]);
            fr += er * er + ei * ei;
            lr[c] = w * er;
            li[c] = w * ei;
        }
        f += w * fr;
    }
    if (g)
        fit_backward(F, g);
    return f;
}

/* n x nc complex row-major src into planar dst (n x ld, zero-padded). */
static void to_planar(const double complex *src, int n, int nc, int ld, double *dst)
{
    size_t nn = (size_t)n * ld;
    memset(dst, 0, sizeof *dst * 2 * nn);
    for (int r = 0; r < n; r++)
        for (int c = 0; c < nc; c++) {
            dst[(size_t)r * ld + c] = creal(src[(size_t)r * nc + c]);
            dst[nn + (size_t)r * ld + c] = cimag(src[(size_t)r * nc + c]);
        }
}

int optinc_mesh_fit(const optinc_mesh *mesh, const double *kappa, const optinc_quantizer *q,
                    int iters, int nr, int nc, const double complex *A,
                    const double complex *T, const double *w, const unsigned char *frozen,
                    optinc_phase *th, optinc_phase *ph, optinc_phase *screen)
{
    int n = mesh->modes, K = mesh->n_mzi, ld = (nc + FIT_LANES - 1) / FIT_LANES * FIT_LANES;
    size_t nn = (size_t)n * ld;
    double *buf = malloc(sizeof *buf * (8 * nn + 8 * (size_t)K + 1));
    double complex *E = malloc(sizeof *E * (6 * (size_t)K + 1));
    optinc_phase *nt = malloc(sizeof *nt * (2 * (size_t)K + 1));
    if (!buf || !E || !nt) {
        OPTINC_FREE_ALL(buf, E, nt);
        return -1;
    }
    double *x = buf + 8 * nn, *xq = x + 2 * K, *cs = xq + 2 * K;
    double *Ap = A ? buf + 6 * nn : NULL, *Tp = buf + 4 * nn;
    fit F = {mesh, Ap, Tp, w, buf, buf + 2 * nn, E, E + 4 * K, cs, n, nr, nc, ld, frozen};
    for (int i = 0; i < K; i++)
        optinc_coupler_amplitudes(kappa[2 * i], kappa[2 * i + 1], cs + 4 * i);
    if (Ap)
        to_planar(A, n, nc, ld, Ap);
    to_planar(T, n, nc, ld, Tp);
    for (int i = 0; i < K; i++) {
        x[2 * i] = th[i].target_rad;
        x[2 * i + 1] = ph[i].target_rad;
        xq[2 * i] = th[i].rad;
        xq[2 * i + 1] = ph[i].rad;
    }
    double f_start = fit_eval(xq, NULL, &F);
    int st = optinc_lbfgs(fit_eval, &F, x, 2 * K, iters, NULL);
    if (!st) {
        for (int i = 0; i < K; i++) {
            optinc_quantize_phase(q, x[2 * i], &nt[i]);
            optinc_quantize_phase(q, x[2 * i + 1], &nt[K + i]);
            xq[2 * i] = nt[i].rad;
            xq[2 * i + 1] = nt[K + i].rad;
        }
        if (fit_eval(xq, NULL, &F) < f_start) {
            memcpy(th, nt, sizeof *th * (size_t)K);
            memcpy(ph, nt + K, sizeof *ph * (size_t)K);
            /* F.Q holds the refit mesh: each screen phase aligns its row with T. */
            for (int r = 0; r < nr; r++)
                optinc_quantize_phase(q, -carg(row_overlap(&F, r)), &screen[r]);
        }
    }
    OPTINC_FREE_ALL(buf, E, nt);
    return st;
}
