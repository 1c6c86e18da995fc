/*
 * chunk_kernel.h - private: batch propagation through 2x2 elements on
 * planar chunks, written once for the compiler's reconstruction (mesh.c)
 * and the simulator (runtime/sim_kernel.h).
 *
 * Include with REAL (double or float), SFX (a suffix naming this copy) and
 * CHUNK (vectors per chunk) defined.  A chunk of a batch is held as two
 * planes, real parts and imaginary parts, of rows x CHUNK: every 2x2 update
 * is then four independent streams of CHUNK contiguous numbers with no
 * complex shuffles, all the elements of a mesh run over one chunk while it
 * sits in cache, and the trip count is a compile-time constant, so the
 * compiler vectorizes the loops at -O2 without a scalar tail.  Plain
 * multiplies and adds in ISO C mode (no FMA contraction) give the same bits
 * whichever instruction set the caller's clone uses.
 */
#include <complex.h>
#include "optinc/matrix.h"

#define CK_CAT_(a, b) a##b
#define CK_CAT(a, b) CK_CAT_(a, b)
#define CK(name) CK_CAT(name, SFX)

/* (x, y) := t . (x, y) on one chunk; t = re, im of t00 t01 t10 t11. */
static inline void CK(rotate)(REAL *restrict xr, REAL *restrict xi, REAL *restrict yr,
                              REAL *restrict yi, const REAL *restrict t)
{
    const REAL ar = t[0], ai = t[1], br = t[2], bi = t[3];
    const REAL cr = t[4], ci = t[5], dr = t[6], di = t[7];
    for (int j = 0; j < CHUNK; j++) {
        REAL ur = xr[j], ui = xi[j], vr = yr[j], vi = yi[j];
        xr[j] = ar * ur - ai * ui + br * vr - bi * vi;
        xi[j] = ar * ui + ai * ur + br * vi + bi * vr;
        yr[j] = cr * ur - ci * ui + dr * vr - di * vi;
        yi[j] = cr * ui + ci * ur + dr * vi + di * vr;
    }
}

/* (x, y) := [[s, c], [c, -s]] . (p x, y) on one chunk, p = t[0] + i t[1],
 * s = t[2], c = t[3]: a lossless MZI with its common output phase taken
 * out (mesh.c), 12 multiplies a column where a general 2x2 takes 16. */
static inline void CK(rotate_real)(REAL *restrict xr, REAL *restrict xi, REAL *restrict yr,
                                   REAL *restrict yi, const REAL *restrict t)
{
    const REAL pr = t[0], pi = t[1], s = t[2], c = t[3];
    for (int j = 0; j < CHUNK; j++) {
        REAL ur = pr * xr[j] - pi * xi[j], ui = pr * xi[j] + pi * xr[j];
        REAL vr = yr[j], vi = yi[j];
        xr[j] = s * ur + c * vr;
        xi[j] = s * ui + c * vi;
        yr[j] = c * ur - s * vr;
        yi[j] = c * ui - s * vi;
    }
}

/* x := (sr + i si) . x on one chunk. */
static inline void CK(phase)(REAL *restrict xr, REAL *restrict xi, REAL sr, REAL si)
{
    for (int j = 0; j < CHUNK; j++) {
        REAL ur = xr[j], ui = xi[j];
        xr[j] = sr * ur - si * ui;
        xi[j] = sr * ui + si * ur;
    }
}

static inline void CK(scale)(REAL *restrict xr, REAL *restrict xi, REAL a)
{
    for (int j = 0; j < CHUNK; j++) {
        xr[j] *= a;
        xi[j] *= a;
    }
}

/* Planes := columns b0.. of `in` (at most CHUNK of them; the rest zero). */
static inline void CK(chunk_load)(const optinc_cmat *in, int b0, REAL *restrict re,
                                  REAL *restrict im)
{
    int B = in->cols, nb = B - b0 < CHUNK ? B - b0 : CHUNK;
    for (int r = 0; r < in->rows; r++) {
        const double complex *src = in->a + (size_t)r * B + b0;
        REAL *xr = re + (size_t)r * CHUNK, *xi = im + (size_t)r * CHUNK;
        if (nb == CHUNK) {          /* a full chunk: a constant count, vectorized */
            for (int j = 0; j < CHUNK; j++) {
                xr[j] = (REAL)creal(src[j]);
                xi[j] = (REAL)cimag(src[j]);
            }
            continue;
        }
        for (int j = 0; j < nb; j++) {
            xr[j] = (REAL)creal(src[j]);
            xi[j] = (REAL)cimag(src[j]);
        }
        for (int j = nb; j < CHUNK; j++)
            xr[j] = xi[j] = 0;
    }
}

/* Columns b0.. of `out` := the planes (its first out->rows rows). */
static inline void CK(chunk_store)(optinc_cmat *out, int b0, const REAL *restrict re,
                                   const REAL *restrict im)
{
    int B = out->cols, nb = B - b0 < CHUNK ? B - b0 : CHUNK;
    for (int r = 0; r < out->rows; r++) {
        double complex *dst = out->a + (size_t)r * B + b0;
        const REAL *xr = re + (size_t)r * CHUNK, *xi = im + (size_t)r * CHUNK;
        if (nb == CHUNK)
            for (int j = 0; j < CHUNK; j++)
                dst[j] = CMPLX((double)xr[j], (double)xi[j]);
        else
            for (int j = 0; j < nb; j++)
                dst[j] = CMPLX((double)xr[j], (double)xi[j]);
    }
}

#undef CK
#undef CK_CAT
#undef CK_CAT_
