/*
 * sim_kernel.h - private: the propagation kernel, written once and included
 * by sim.c twice, with REAL = double (SFX _d) and REAL = float (SFX _f).
 *
 * The batch is processed in chunks of SIM_BC vectors with the planar chunk
 * operations of compiler/core/chunk_kernel.h (shared with the compiler's
 * reconstruction); the whole layer (every MZI of every stage) runs over one
 * chunk while it sits in L1/L2 cache.
 */

#define CHUNK SIM_BC
#include "compiler/core/chunk_kernel.h"
#undef CHUNK

#define SIM_CAT_(a, b) a##b
#define SIM_CAT(a, b) SIM_CAT_(a, b)
#define FN(name) SIM_CAT(name, SFX)

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
static void FN(run)(const chip_layer *cl, const chip_prog *const *progs, const optinc_cmat *in,
                    optinc_cmat *out, REAL *restrict re, REAL *restrict im)
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
