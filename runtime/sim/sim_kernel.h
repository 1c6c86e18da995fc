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
