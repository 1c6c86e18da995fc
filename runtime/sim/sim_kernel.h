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

/* (x, y) := (x + a y, b x + y) on one chunk; t = re, im of a, b. */
static inline void FN(pivot_diag)(REAL *restrict xr, REAL *restrict xi, REAL *restrict yr,
                                  REAL *restrict yi, const REAL *restrict t)
{
    const REAL ar = t[0], ai = t[1], br = t[2], bi = t[3];
    for (int j = 0; j < SIM_BC; j++) {
        REAL ur = xr[j], ui = xi[j], vr = yr[j], vi = yi[j];
        xr[j] = ur + (ar * vr - ai * vi);
        xi[j] = ui + (ar * vi + ai * vr);
        yr[j] = vr + (br * ur - bi * ui);
        yi[j] = vi + (br * ui + bi * ur);
    }
}

/* (x, y) := (a x + y, x + b y) on one chunk; t = re, im of a, b. */
static inline void FN(pivot_anti)(REAL *restrict xr, REAL *restrict xi, REAL *restrict yr,
                                  REAL *restrict yi, const REAL *restrict t)
{
    const REAL ar = t[0], ai = t[1], br = t[2], bi = t[3];
    for (int j = 0; j < SIM_BC; j++) {
        REAL ur = xr[j], ui = xi[j], vr = yr[j], vi = yi[j];
        xr[j] = vr + (ar * ur - ai * ui);
        xi[j] = vi + (ar * ui + ai * ur);
        yr[j] = ur + (br * vr - bi * vi);
        yi[j] = ui + (br * vi + bi * vr);
    }
}

/* The program of one mesh stage (chip.h) on one chunk. */
SIM_CLONES static void FN(mesh_chunk)(const chip_stage *cs, const chip_prog *prog,
                                  REAL *restrict re, REAL *restrict im)
{
    const REAL *mat = PROG_MAT(prog);
    const REAL *scr = PROG_SCREEN(prog);
    for (int k = 0; k < cs->n_mzi; k++) {
        size_t off = (size_t)cs->mzi[cs->sweep[k]].mode * SIM_BC;
        REAL *xr = re + off, *xi = im + off, *yr = xr + SIM_BC, *yi = xi + SIM_BC;
        const REAL *t = mat + 8 * (size_t)k;
        int step = prog->step[k];
        if ((step & CHIP_STEP_FORM) == CHIP_STEP_DIAG)
            FN(pivot_diag)(xr, xi, yr, yi, t);
        else if ((step & CHIP_STEP_FORM) == CHIP_STEP_ANTI)
            FN(pivot_anti)(xr, xi, yr, yi, t);
        else
            FN(rotate)(xr, xi, yr, yi, t);
        if (step & CHIP_STEP_SCALE_X)
            FN(scale)(xr, xi, t[4]);
        if (step & CHIP_STEP_SCALE_Y)
            FN(scale)(yr, yi, t[6]);
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

/* out = layer . in, chunk by chunk; re, im have room for max-modes x SIM_BC. */
static void FN(run)(const chip_layer *cl, const chip_prog *const *progs, const optinc_cmat *in,
                    optinc_cmat *out, REAL *restrict re, REAL *restrict im)
{
    for (int b0 = 0; b0 < in->cols; b0 += SIM_BC) {
        FN(chunk_load)(in, b0, re, im);
        FN(run_chunk)(cl, progs, re, im);
        FN(chunk_store)(out, b0, re, im);
    }
}

#undef FN
#undef SIM_BC
