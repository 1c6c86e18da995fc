/*
 * test_mesh_fit.c - the global fit of a mesh's phases (runtime/sim/
 * mesh_fit.c) against a mesh multiplied out by hand: from a perturbed start
 * it finds phases that realize the target on the data, with a column count
 * that is not a whole number of its lanes (padding that must stay dark),
 * measured couplers away from 1/2, weighted rows, and frozen phases that it
 * keeps bit for bit.  A wrong term of the gradient stalls L-BFGS far above
 * the tolerances used here.
 */
#include <criterion/criterion.h>
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include "optinc/sim.h"
#include "runtime/sim/chip.h"
#include "simutil.h"

#define MODES 8
#define COLS 5          /* not a multiple of the fit's lanes */

/* What the fit promises on a target in reach: its objective is summed from
 * the residuals, so L-BFGS goes on until they are rounding, a few ulps of
 * the unit-scale fields per MZI on a path (8 columns here).  Measured:
 * 2.9e-15 to 6.7e-15 on OpenBLAS's Haswell, SkylakeX and Sandybridge
 * kernels and on the reference BLAS, whose SVDs give the mesh different last
 * bits to start from.  1e-12 leaves two decades; a wrong term of the
 * gradient (a sign in one derivative, tried) stalls above 0.02. */
#define FIT_BOUND 1e-12

/* out (MODES x COLS) = diag(e^{i screen}) . M'(th, ph) . A, multiplied out
 * with the device matrices of the couplers kappa. */
static void by_hand(const optinc_mesh *mesh, const double *kappa, const optinc_phase *th,
                    const optinc_phase *ph, const optinc_phase *screen,
                    const double complex *A, double complex *out)
{
    for (int i = 0; i < MODES * COLS; i++)
        out[i] = A[i];
    for (int i = 0; i < mesh->n_mzi; i++) {
        double complex e[4];
        optinc_mzi_device_matrix(th[i].rad, ph[i].rad, kappa[2 * i], kappa[2 * i + 1], 1, e);
        double complex *x = out + (size_t)mesh->mzi[i].mode * COLS, *y = x + COLS;
        for (int c = 0; c < COLS; c++) {
            double complex u = x[c], v = y[c];
            x[c] = e[0] * u + e[1] * v;
            y[c] = e[2] * u + e[3] * v;
        }
    }
    for (int r = 0; r < MODES; r++)
        for (int c = 0; c < COLS; c++)
            out[r * COLS + c] *= cexp(I * screen[r].rad);
}

typedef struct case_ {
    optinc_circuit *c;
    const optinc_mesh *mesh;
    double kappa[2 * MODES * MODES];
    double complex A[MODES * COLS], T[MODES * COLS];
    optinc_phase th[MODES * MODES], ph[MODES * MODES], screen[MODES];
    optinc_quantizer q;
} case_;

/* A Clements mesh on MODES modes, couplers 1/2 +- 0.02 (every split in
 * reach), Gaussian inputs, the target its own outputs; the fit starts from
 * the mesh's phases moved by up to +-0.05 rad (frozen phases not moved). */
static void setup(case_ *k, const unsigned char *frozen)
{
    k->c = su_mesh_circuit(MODES, OPTINC_MESH_CLEMENTS, 4, NULL);
    k->mesh = k->c->layers[0].stage[0].mesh;
    optinc_quantizer_from_components(&k->q, &k->c->layers[0].components);
    k->q.bits = 0;
    optinc_rng rng;
    optinc_rng_seed(&rng, 17);
    int K = k->mesh->n_mzi;
    for (int i = 0; i < 2 * K; i++)
        k->kappa[i] = 0.5 + 0.04 * (optinc_rng_uniform(&rng) - 0.5);
    optinc_cmat *A = optinc_cmat_gaussian(MODES, COLS, 1, &rng);
    for (int i = 0; i < MODES * COLS; i++)
        k->A[i] = A->a[i];
    optinc_cmat_free(A);
    for (int i = 0; i < K; i++) {
        k->th[i] = k->mesh->mzi[i].theta;
        k->ph[i] = k->mesh->mzi[i].phi;
    }
    for (int r = 0; r < MODES; r++)
        k->screen[r] = k->mesh->screen[r];
    by_hand(k->mesh, k->kappa, k->th, k->ph, k->screen, k->A, k->T);
    for (int i = 0; i < K; i++) {
        optinc_phase *p[2] = {&k->th[i], &k->ph[i]};
        for (int j = 0; j < 2; j++) {
            double move = 0.1 * (optinc_rng_uniform(&rng) - 0.5);
            p[j]->rad += frozen && frozen[2 * i + j] ? 0 : move;
            p[j]->target_rad = p[j]->rad;
        }
    }
    for (int r = 0; r < MODES; r++)
        k->screen[r].rad += 0.3;
}

/* max |out - T| of the fitted phases. */
static double misfit(const case_ *k)
{
    double complex out[MODES * COLS];
    by_hand(k->mesh, k->kappa, k->th, k->ph, k->screen, k->A, out);
    double worst = 0;
    for (int i = 0; i < MODES * COLS; i++)
        worst = fmax(worst, cabs(out[i] - k->T[i]));
    return worst;
}

Test(mesh_fit, finds_the_mesh_from_a_perturbed_start)
{
    case_ k;
    setup(&k, NULL);
    double before = misfit(&k);
    double w[MODES] = {1, 2, 0.5, 1, 3, 1, 1, 0.25};
    cr_assert_eq(optinc_mesh_fit(k.mesh, k.kappa, &k.q, 2000, MODES, COLS, k.A, k.T, w, NULL,
                                 k.th, k.ph, k.screen), 0);
    double after = misfit(&k);
    cr_assert_gt(before, 0.05, "before %g", before);
    cr_assert_lt(after, FIT_BOUND, "before %g after %g", before, after);
    optinc_circuit_free(k.c);
}

Test(mesh_fit, keeps_frozen_phases)
{
    case_ k;
    unsigned char frozen[2 * MODES * MODES] = {0};
    for (int i = 0; i < 2 * MODES * MODES; i += 3)
        frozen[i] = 1;
    setup(&k, frozen);
    optinc_phase keep[2 * MODES * MODES];
    int K = k.mesh->n_mzi;
    for (int i = 0; i < K; i++) {
        keep[2 * i] = k.th[i];
        keep[2 * i + 1] = k.ph[i];
    }
    cr_assert_eq(optinc_mesh_fit(k.mesh, k.kappa, &k.q, 2000, MODES, COLS, k.A, k.T, NULL,
                                 frozen, k.th, k.ph, k.screen), 0);
    for (int i = 0; i < K; i++) {
        if (frozen[2 * i])
            cr_assert_eq(k.th[i].rad, keep[2 * i].rad, "theta %d moved", i);
        if (frozen[2 * i + 1])
            cr_assert_eq(k.ph[i].rad, keep[2 * i + 1].rad, "phi %d moved", i);
    }
    cr_assert_lt(misfit(&k), FIT_BOUND, "misfit %g", misfit(&k));
    optinc_circuit_free(k.c);
}
