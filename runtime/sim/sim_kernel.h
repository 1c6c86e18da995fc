/*
 * sim_kernel.h - private: the propagation kernel, written once and included
 * by sim.c twice, with REAL = double (SFX _d) and REAL = float (SFX _f).
 *
 * The batch is processed in chunks of SIM_BC vectors with the planar chunk
 * operations of compiler/core/chunk_kernel.h (shared with the compiler's
 * reconstruction); the whole layer (every MZI of every stage) runs over one
 * chunk while it sits in L1/L2 cache.  A mesh runs the program of chip.h:
 * most MZIs are a pivot step below, two complex multiply-adds per vector
 * (8 real multiplies, 8 adds) where a general 2x2 (rotate) needs 16
 * multiplies and 12 adds, so a mesh of N(N-1)/2 MZIs does the multiplies of
 * a dense N x N product; the rest of each element lives in per-mode factors
 * folded into the output screen.
 */

#define SIM_BC (SIM_ROW / (int)sizeof(REAL))
#define CHUNK SIM_BC
#include "compiler/core/chunk_kernel.h"
#undef CHUNK

#define SIM_CAT_(a, b) a##b
#define SIM_CAT(a, b) SIM_CAT_(a, b)
#define FN(name) SIM_CAT(name, SFX)

/* One pivot step (chip.h) on the values of one vector: (x, y) :=
 * (x + a y, b x + y), or with anti (a x + y, x + b y); both are
 * (p + a q, q + b p) with (p, q) = (x, y) or (y, x).  t = re, im of a, b. */
#define SIM_PIVOT(anti, t, xr, xi, yr, yi)                                       \
    do {                                                                         \
        const REAL pr_ = (anti) ? yr : xr, pi_ = (anti) ? yi : xi;               \
        const REAL qr_ = (anti) ? xr : yr, qi_ = (anti) ? xi : yi;               \
        xr = pr_ + ((t)[0] * qr_ - (t)[1] * qi_);                                \
        xi = pi_ + ((t)[0] * qi_ + (t)[1] * qr_);                                \
        yr = qr_ + ((t)[2] * pr_ - (t)[3] * pi_);                                \
        yi = qi_ + ((t)[2] * pi_ + (t)[3] * pr_);                                \
    } while (0)

/* A pivot step on rows (x, y) of one chunk; anti is a constant at every
 * call, so each form is its own branch-free loop. */
static inline void FN(pivot)(REAL *restrict xr, REAL *restrict xi, REAL *restrict yr,
                             REAL *restrict yi, const REAL *restrict t, const int anti)
{
    const REAL c[4] = {t[0], t[1], t[2], t[3]};
    for (int j = 0; j < SIM_BC; j++) {
        REAL ur = xr[j], ui = xi[j], vr = yr[j], vi = yi[j];
        SIM_PIVOT(anti, c, ur, ui, vr, vi);
        xr[j] = ur;
        xi[j] = ui;
        yr[j] = vr;
        yi[j] = vi;
    }
}

/* Two pivot steps that share a row, (x, y) by t and then (w, x) by u, in
 * one pass: the shared row stays in registers, which saves a quarter of the
 * stores, and stores bound this loop. */
static inline void FN(pivot_pair)(REAL *restrict wr, REAL *restrict wi, REAL *restrict xr,
                                  REAL *restrict xi, REAL *restrict yr, REAL *restrict yi,
                                  const REAL *restrict t, const REAL *restrict u,
                                  const int anti_t, const int anti_u)
{
    const REAL c[4] = {t[0], t[1], t[2], t[3]}, d[4] = {u[0], u[1], u[2], u[3]};
    for (int j = 0; j < SIM_BC; j++) {
        REAL sr = wr[j], si = wi[j], ur = xr[j], ui = xi[j], vr = yr[j], vi = yi[j];
        SIM_PIVOT(anti_t, c, ur, ui, vr, vi);
        SIM_PIVOT(anti_u, d, sr, si, ur, ui);
        wr[j] = sr;
        wi[j] = si;
        xr[j] = ur;
        xi[j] = ui;
        yr[j] = vr;
        yi[j] = vi;
    }
}

#undef SIM_PIVOT

/* Step k's power-of-two rescales of rows x, y (chip.h). */
static inline void FN(rescale)(int step, const REAL *t, REAL *xr, REAL *xi, REAL *yr,
                               REAL *yi)
{
    if (step & CHIP_STEP_SCALE_X)
        FN(scale)(xr, xi, t[4]);
    if (step & CHIP_STEP_SCALE_Y)
        FN(scale)(yr, yi, t[6]);
}

/* The program of one mesh stage (chip.h) on one chunk.  Along a diagonal of
 * the sweep (devices.c) step k + 1 acts on modes (m - 1, m) after step k on
 * (m, m + 1); two such pivot steps run as a pair unless step k rescales. */
SIM_CLONES static void FN(mesh_chunk)(const chip_stage *cs, const chip_prog *prog,
                                      REAL *restrict re, REAL *restrict im)
{
    const REAL *mat = PROG_MAT(prog);
    const REAL *scr = PROG_SCREEN(prog);
    for (int k = 0; k < cs->n_mzi; k++) {
        int mode = cs->sweep_mode[k], step = prog->step[k];
        REAL *xr = re + (size_t)mode * SIM_BC, *xi = im + (size_t)mode * SIM_BC;
        REAL *yr = xr + SIM_BC, *yi = xi + SIM_BC;
        const REAL *t = mat + 8 * (size_t)k;
        int next = k + 1 < cs->n_mzi ? prog->step[k + 1] : CHIP_STEP_FULL;
        if ((step & ~CHIP_STEP_ANTI) == 0 && (next & CHIP_STEP_FORM) != CHIP_STEP_FULL
            && cs->sweep_mode[k + 1] == mode - 1) {
            REAL *wr = xr - SIM_BC, *wi = xi - SIM_BC;
            const REAL *u = t + 8;
            switch (step * 2 + (next & CHIP_STEP_ANTI)) {
            case 0: FN(pivot_pair)(wr, wi, xr, xi, yr, yi, t, u, 0, 0); break;
            case 1: FN(pivot_pair)(wr, wi, xr, xi, yr, yi, t, u, 0, 1); break;
            case 2: FN(pivot_pair)(wr, wi, xr, xi, yr, yi, t, u, 1, 0); break;
            default: FN(pivot_pair)(wr, wi, xr, xi, yr, yi, t, u, 1, 1); break;
            }
            FN(rescale)(next, u, wr, wi, xr, xi);
            k++;
            continue;
        }
        if ((step & CHIP_STEP_FORM) == CHIP_STEP_DIAG)
            FN(pivot)(xr, xi, yr, yi, t, 0);
        else if ((step & CHIP_STEP_FORM) == CHIP_STEP_ANTI)
            FN(pivot)(xr, xi, yr, yi, t, 1);
        else
            FN(rotate)(xr, xi, yr, yi, t);
        FN(rescale)(step, t, xr, xi, yr, yi);
    }
    for (int r = 0; r < cs->modes_in; r++)
        FN(phase)(re + (size_t)r * SIM_BC, im + (size_t)r * SIM_BC, scr[2 * r], scr[2 * r + 1]);
}

/* Every stage of a layer on one chunk (planes of max-modes x SIM_BC). */
SIM_CLONES static void FN(run_chunk)(const chip_layer *cl, const chip_prog *const *progs,
                                     REAL *restrict re, REAL *restrict im)
{
    for (int s = 0; s < cl->n_stages; s++) {
        const chip_stage *cs = &cl->stage[s];
        if (cs->kind == OPTINC_STAGE_MESH) {
            FN(mesh_chunk)(cs, progs[s], re, im);
        } else if (cs->kind == OPTINC_STAGE_SPLIT) {
            /* Block row i of input x is mode i*modes_in + x (optinc_split_target);
             * row 0 last, in place. */
            for (int i = cs->fan - 1; i >= 0; i--)
                for (int x = 0; x < cs->modes_in; x++) {
                    size_t to = ((size_t)i * cs->modes_in + x) * SIM_BC, at = (size_t)x * SIM_BC;
                    REAL a = (REAL)cs->branch[(size_t)x * cs->fan + i];
                    for (int b = 0; b < SIM_BC; b++) {
                        re[to + b] = a * re[at + b];
                        im[to + b] = a * im[at + b];
                    }
                }
        } else if (cs->kind == OPTINC_STAGE_COMBINE) {
            /* Output y sums modes ((y/block)*fan + j)*block + y%block, all >= y. */
            for (int y = 0; y < cs->modes_out; y++) {
                size_t to = (size_t)y * SIM_BC;
                for (int j = 0; j < cs->fan; j++) {
                    size_t at = ((size_t)(y / cs->block) * cs->fan + j) * cs->block
                                + y % cs->block;
                    REAL a = (REAL)cs->branch[(size_t)y * cs->fan + j];
                    at *= SIM_BC;
                    for (int b = 0; b < SIM_BC; b++) {
                        re[to + b] = (j ? re[to + b] : 0) + a * re[at + b];
                        im[to + b] = (j ? im[to + b] : 0) + a * im[at + b];
                    }
                }
            }
        } else if (cs->block_in != cs->modes_in) {
            /* Blocks: channel k joins mode b*block_in + k' to b*block_out + k'
             * (optinc_att_channel), at or below it, so in place ascending. */
            int per = cs->block_in < cs->block_out ? cs->block_in : cs->block_out;
            for (int k = 0; k < cs->n_att; k++) {
                size_t at = ((size_t)(k / per) * cs->block_in + k % per) * SIM_BC;
                size_t to = ((size_t)(k / per) * cs->block_out + k % per) * SIM_BC;
                REAL a = (REAL)cs->att[k];
                for (int b = 0; b < SIM_BC; b++) {
                    re[to + b] = a * re[at + b];
                    im[to + b] = a * im[at + b];
                }
            }
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

/* Moves n mode rows of a chunk from row `from` to row `to` (no overlap). */
static void FN(move_rows)(REAL *restrict re, REAL *restrict im, int from, int to, int n)
{
    size_t bytes = (size_t)n * SIM_BC * sizeof *re;
    memcpy(re + (size_t)to * SIM_BC, re + (size_t)from * SIM_BC, bytes);
    memcpy(im + (size_t)to * SIM_BC, im + (size_t)from * SIM_BC, bytes);
}

/* out = layer . in, chunk by chunk; re, im have room for park + K modes x
 * SIM_BC.  The inputs of the stages take their input scale (the modulators'
 * drive); the K pass-through modes wait above the stages' modes (at park)
 * while the stages run, then take the last K outputs: a waveguide. */
SIM_CLONES static void FN(run)(const chip_layer *cl, const chip_prog *const *progs,
                               const optinc_cmat *in, optinc_cmat *out, REAL *restrict re,
                               REAL *restrict im)
{
    int K = cl->pass_through;
    for (int b0 = 0; b0 < in->cols; b0 += SIM_BC) {
        FN(chunk_load)(in, b0, re, im);
        for (int r = 0; cl->input_scale && r < cl->cols - K; r++)
            FN(scale)(re + (size_t)r * SIM_BC, im + (size_t)r * SIM_BC, (REAL)cl->input_scale[r]);
        if (K)
            FN(move_rows)(re, im, cl->cols - K, cl->park, K);
        FN(run_chunk)(cl, progs, re, im);
        if (K)
            FN(move_rows)(re, im, cl->park, cl->rows - K, K);
        FN(chunk_store)(out, b0, re, im);
    }
}

#undef FN
#undef SIM_BC
