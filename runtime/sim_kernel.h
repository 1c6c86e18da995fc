/*
 * sim_kernel.h - private: the propagation kernel, written once and included
 * by sim.c twice, with REAL = double (SFX _d) and REAL = float (SFX _f).
 *
 * The batch is processed in chunks of SIM_BC vectors.  A chunk is held as two
 * planes (real parts, imaginary parts) of modes x SIM_BC, so every 2x2 update
 * is four independent streams of SIM_BC contiguous numbers with no complex
 * shuffles, and the whole layer (every MZI of every stage) runs over one chunk
 * while it sits in L1/L2 cache.  The trip count is a compile-time constant,
 * so the compiler vectorizes the loops at -O2 without a scalar tail.
 */

#define SIM_CAT_(a, b) a##b
#define SIM_CAT(a, b) SIM_CAT_(a, b)
#define FN(name) SIM_CAT(name, SFX)

/* (x, y) := t . (x, y) on one chunk; t = re, im of t00 t01 t10 t11. */
static inline void FN(rotate)(REAL *restrict xr, REAL *restrict xi, REAL *restrict yr,
                              REAL *restrict yi, const REAL *restrict t)
{
    const REAL ar = t[0], ai = t[1], br = t[2], bi = t[3];
    const REAL cr = t[4], ci = t[5], dr = t[6], di = t[7];
    for (int j = 0; j < SIM_BC; j++) {
        REAL ur = xr[j], ui = xi[j], vr = yr[j], vi = yi[j];
        xr[j] = ar * ur - ai * ui + br * vr - bi * vi;
        xi[j] = ar * ui + ai * ur + br * vi + bi * vr;
        yr[j] = cr * ur - ci * ui + dr * vr - di * vi;
        yi[j] = cr * ui + ci * ur + dr * vi + di * vr;
    }
}

/* x := (sr + i si) . x on one chunk. */
static inline void FN(phase)(REAL *restrict xr, REAL *restrict xi, REAL sr, REAL si)
{
    for (int j = 0; j < SIM_BC; j++) {
        REAL ur = xr[j], ui = xi[j];
        xr[j] = sr * ur - si * ui;
        xi[j] = sr * ui + si * ur;
    }
}

static inline void FN(scale)(REAL *restrict xr, REAL *restrict xi, REAL a)
{
    for (int j = 0; j < SIM_BC; j++) {
        xr[j] *= a;
        xi[j] *= a;
    }
}

/* Every stage of a layer on one chunk (planes of max-modes x SIM_BC). */
SIM_CLONES static void FN(run_chunk)(const chip_layer *cl, const chip_prog *const *progs,
                                     REAL *restrict re, REAL *restrict im)
{
    for (int s = 0; s < cl->n_stages; s++) {
        const chip_stage *cs = &cl->stage[s];
        if (cs->kind == OPTINC_STAGE_MESH) {
            const REAL *mat = PROG_MAT(progs[s]);
            const REAL *scr = PROG_SCREEN(progs[s]);
            for (int i = 0; i < cs->n_mzi; i++) {
                size_t off = (size_t)cs->mzi[i].mode * SIM_BC;
                FN(rotate)(re + off, im + off, re + off + SIM_BC, im + off + SIM_BC,
                           mat + 8 * (size_t)i);
            }
            for (int r = 0; r < cs->modes_in; r++)
                FN(phase)(re + (size_t)r * SIM_BC, im + (size_t)r * SIM_BC, scr[2 * r],
                          scr[2 * r + 1]);
        } else {
            for (int k = 0; k < cs->n_att; k++)
                FN(scale)(re + (size_t)k * SIM_BC, im + (size_t)k * SIM_BC, (REAL)cs->att[k]);
            size_t z = (size_t)cs->n_att * SIM_BC;
            size_t n = (size_t)(cs->modes_out - cs->n_att) * SIM_BC;
            if (cs->modes_out > cs->n_att) {
                memset(re + z, 0, n * sizeof *re);
                memset(im + z, 0, n * sizeof *im);
            }
        }
    }
}

/* out = layer . in, chunk by chunk; re, im have room for max-modes x SIM_BC. */
static void FN(run)(const chip_layer *cl, const chip_prog *const *progs, const optinc_cmat *in,
                    optinc_cmat *out, REAL *restrict re, REAL *restrict im)
{
    int B = in->cols;
    for (int b0 = 0; b0 < B; b0 += SIM_BC) {
        int nb = B - b0 < SIM_BC ? B - b0 : SIM_BC;
        for (int r = 0; r < in->rows; r++) {
            const double complex *src = in->a + (size_t)r * B + b0;
            REAL *xr = re + (size_t)r * SIM_BC, *xi = im + (size_t)r * SIM_BC;
            for (int j = 0; j < nb; j++) {
                xr[j] = (REAL)creal(src[j]);
                xi[j] = (REAL)cimag(src[j]);
            }
            for (int j = nb; j < SIM_BC; j++)
                xr[j] = xi[j] = 0;
        }
        FN(run_chunk)(cl, progs, re, im);
        for (int r = 0; r < out->rows; r++) {
            double complex *dst = out->a + (size_t)r * B + b0;
            const REAL *xr = re + (size_t)r * SIM_BC, *xi = im + (size_t)r * SIM_BC;
            for (int j = 0; j < nb; j++)
                dst[j] = CMPLX((double)xr[j], (double)xi[j]);
        }
    }
}

#undef FN
