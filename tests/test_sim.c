/*
 * test_sim.c - the simulator: ideal chips against the compiler's
 * reconstruction, batch propagation against zgemm (double and float), the
 * pivot program of a mesh against its matrix multiplied out by hand (ideal,
 * every device error, cross and bar states, rescaled, dark, noisy),
 * whole-circuit evaluation with activations, fidelity metrics, Monte-Carlo
 * determinism, error-aware calibration, the calibration file (round trip
 * and bad inputs) and the `optinc simulate` command.
 *
 * Bounds: "measured" is the largest value over four BLAS builds on an AVX-512
 * machine (OpenBLAS's Cooperlake, Haswell and Sandybridge kernels, and the
 * reference BLAS/LAPACK); float results are in units of float's epsilon
 * (2^-23 = 1.2e-7).
 */
#include <criterion/criterion.h>
#include <math.h>
#include "optinc/calibration.h"
#include "optinc/fileio.h"
#include "optinc/sim.h"
#include "simutil.h"

static const char two_layer_spec[] =
    "schema_version: 1\nname: two\nsettings: {seed: 5}\n"
    "components:\n"
    "  mzi: {insertion_loss_dB: 0.05, phase_error_sigma_rad: 0.01, splitter_error_sigma: 0.02}\n"
    "  phase_shifter: {bits: 12, thermal_crosstalk: 0.01}\n"
    "  attenuator: {insertion_loss_dB: 0.02, bits: 10}\n"
    "matrices:\n"
    "  A: {shape: [6, 4], dtype: real, generate: {kind: gaussian, seed: 1}}\n"
    "  B: {shape: [3, 6], dtype: complex, generate: {kind: gaussian, seed: 2}}\n"
    "layers:\n"
    "  - {name: L1, matrix: A}\n"
    "  - {name: L2, matrix: B, mesh: reck}\n";

static void assert_ideal_matches(const optinc_circuit *c)
{
    optinc_chip *chip = su_chip(c, OPTINC_DEV_NONE, 1);
    for (int l = 0; l < c->n_layers; l++) {
        optinc_cmat *T = optinc_chip_layer_transfer(chip, l);
        optinc_cmat *R = optinc_layer_transfer(&c->layers[l]);
        /* measured 5.3e-15: 1e-12 leaves a factor 190 */
        cr_assert_leq(optinc_cmat_max_abs_diff(T, R), 1e-12, "layer %d: %g", l,
                      optinc_cmat_max_abs_diff(T, R));
        optinc_cmat_free(T);
        optinc_cmat_free(R);
    }
    optinc_chip_free(chip);
}

Test(sim, ideal_chip_reproduces_the_compilers_reconstruction)
{
    for (int kind = 0; kind < 2; kind++) {
        optinc_circuit *c = su_mesh_circuit(24, kind, 31, NULL);
        assert_ideal_matches(c);
        optinc_circuit_free(c);
    }
    optinc_circuit *c = su_spec_circuit(two_layer_spec);
    assert_ideal_matches(c);
    optinc_circuit_free(c);
    c = su_spec_circuit(
        "schema_version: 1\nname: forms\n"
        "matrices:\n  A: {shape: [5, 5], dtype: real, generate: {kind: gaussian, seed: 3}}\n"
        "layers:\n  - {name: O, matrix: A, attenuators: output}\n"
        "  - {name: I, matrix: A, attenuators: input}\n");
    assert_ideal_matches(c);
    optinc_circuit_free(c);
}

Test(sim, batch_propagation_matches_the_transfer_matrix)
{
    optinc_circuit *c = su_spec_circuit(two_layer_spec);
    optinc_chip *chip = su_chip(c, OPTINC_DEV_ALL, 3);
    optinc_rng rng;
    optinc_rng_seed(&rng, 8);
    for (int l = 0; l < 2; l++) {
        const optinc_layer *L = &c->layers[l];
        int B = 131;    /* two full chunks and a partial one */
        optinc_cmat *X = optinc_cmat_gaussian(L->cols, B, 1, &rng);
        optinc_cmat *Y = optinc_cmat_new(L->rows, B), *Yf = optinc_cmat_new(L->rows, B);
        optinc_cmat *T = optinc_chip_layer_transfer(chip, l), *R = optinc_cmat_new(L->rows, B);
        optinc_cmat_mul(T, X, R);
        cr_assert_eq(optinc_chip_layer_apply(chip, l, X, Y, OPTINC_DOUBLE, NULL), OPTINC_OK);
        cr_assert_eq(optinc_chip_layer_apply(chip, l, X, Yf, OPTINC_FLOAT, NULL), OPTINC_OK);
        double scale = optinc_cmat_max_abs(R);
        /* measured 4.8e-16 and 1.7e-7 (1.4 float epsilons) of the scale: the
         * bounds leave factors 210 and 12 */
        cr_assert_leq(optinc_cmat_max_abs_diff(Y, R), 1e-13 * scale);
        cr_assert_leq(optinc_cmat_max_abs_diff(Yf, R), 2e-6 * scale);
        cr_assert_gt(optinc_cmat_max_abs_diff(Yf, R), 0);     /* it did run in float */
        /* Wrong shapes are refused. */
        cr_assert_eq(optinc_chip_layer_apply(chip, l, Y, X, OPTINC_DOUBLE, NULL), OPTINC_EINPUT);
        optinc_cmat *arr[] = {X, Y, Yf, T, R};
        for (int i = 0; i < 5; i++)
            optinc_cmat_free(arr[i]);
    }
    optinc_chip_free(chip);
    optinc_circuit_free(c);
}

/* ---- the pivot program of a mesh (runtime/sim/chip.h) against the mesh's
 * matrix multiplied out from its MZIs' 2x2 matrices in double. */

static optinc_cmat *mesh_by_hand(const optinc_chip *chip, int n)
{
    optinc_cmat *T = optinc_cmat_identity(n);
    optinc_chip_mzi z;
    for (int i = 0; optinc_chip_mzi_get(chip, 0, 0, i, &z, NULL) == OPTINC_OK; i++) {
        double complex e[4];
        optinc_mzi_device_matrix(z.theta_rad, z.phi_rad, z.kappa_in, z.kappa_out, z.amplitude,
                                 e);
        for (int c = 0; c < n; c++) {
            double complex *x = &T->a[(size_t)z.mode * n + c], *y = x + n, u = *x, v = *y;
            *x = e[0] * u + e[1] * v;
            *y = e[2] * u + e[3] * v;
        }
    }
    for (int r = 0; r < n; r++)
        for (int c = 0; c < n; c++)
            T->a[(size_t)r * n + c] *= cexp(I * optinc_chip_screen_rad(chip, 0, 0, r));
    return T;
}

/* Largest error of the double and of the float batch path on B random
 * vectors, relative to the largest output. */
static void mesh_errors(optinc_chip *chip, int n, double err[2])
{
    optinc_rng rng;
    optinc_rng_seed(&rng, 12);
    int B = 131;    /* full and partial chunks of both precisions */
    optinc_cmat *X = optinc_cmat_gaussian(n, B, 1, &rng), *R = optinc_cmat_new(n, B);
    optinc_cmat *Y = optinc_cmat_new(n, B), *T = mesh_by_hand(chip, n);
    optinc_cmat_mul(T, X, R);
    double scale = optinc_cmat_max_abs(R);
    cr_assert_gt(scale, 0);
    for (int k = 0; k < 2; k++) {
        cr_assert_eq(optinc_chip_layer_apply(chip, 0, X, Y, k ? OPTINC_FLOAT : OPTINC_DOUBLE,
                                             NULL), OPTINC_OK);
        err[k] = optinc_cmat_max_abs_diff(Y, R) / scale;
    }
    optinc_cmat *m[] = {X, R, Y, T};
    for (int i = 0; i < 4; i++)
        optinc_cmat_free(m[i]);
}

static void assert_mesh_propagates(const optinc_circuit *c, unsigned models)
{
    optinc_chip *chip = su_chip(c, models, 7);
    double err[2];
    mesh_errors(chip, c->layers[0].rows, err);
    /* measured 2.1e-15 and 6.2e-7 (5 float epsilons): factors 470 and 16 */
    cr_assert_leq(err[0], 1e-12, "double: %g", err[0]);
    cr_assert_leq(err[1], 1e-5, "float: %g", err[1]);
    optinc_chip_free(chip);
}

static optinc_components device_errors(double loss_dB)
{
    optinc_components cp;
    optinc_components_defaults(&cp);
    cp.mzi.insertion_loss_dB = loss_dB;
    cp.mzi.phase_error_sigma_rad = 0.03;
    cp.mzi.splitter_error_sigma = 0.04;
    cp.phase_shifter.bits = 10;
    cp.phase_shifter.thermal_crosstalk = 0.02;
    return cp;
}

Test(sim, pivot_program_of_an_ideal_mesh_is_its_matrix)
{
    for (int kind = 0; kind < 2; kind++) {
        optinc_circuit *c = su_mesh_circuit(40, kind, 3, NULL);
        assert_mesh_propagates(c, OPTINC_DEV_NONE);
        optinc_circuit_free(c);
    }
}

Test(sim, pivot_program_with_every_device_error_is_the_meshs_matrix)
{
    optinc_components cp = device_errors(0.3);
    for (int kind = 0; kind < 2; kind++) {
        optinc_circuit *c = su_mesh_circuit(33, kind, 4, &cp);
        assert_mesh_propagates(c, OPTINC_DEV_ALL);
        optinc_circuit_free(c);
    }
}

/* theta = 0 is the exact cross state (both diagonal entries exactly 0, so
 * the step must take the anti-diagonal pivots), theta = pi the bar state. */
Test(sim, pivot_program_switches_form_at_cross_and_bar_states)
{
    optinc_circuit *c = su_mesh_circuit(16, OPTINC_MESH_CLEMENTS, 5, NULL);
    optinc_mesh *mesh = c->layers[0].stage[0].mesh;
    for (int i = 0; i < mesh->n_mzi; i++)
        if (i % 3 < 2)
            mesh->mzi[i].theta.rad = i % 3 ? M_PI : 0;
    assert_mesh_propagates(c, OPTINC_DEV_NONE);
    optinc_circuit_free(c);
}

/* Every element a 50:50 splitter with loss: each mode's pending factor
 * shrinks by 0.94 / sqrt 2 per MZI, past 2^-150 across 300 of them, which
 * only the power-of-two rescale keeps the float path from overflowing. */
Test(sim, pivot_program_rescales_a_long_lossy_mesh)
{
    optinc_components cp = device_errors(0.5);
    optinc_circuit *c = su_mesh_circuit(300, OPTINC_MESH_CLEMENTS, 6, &cp);
    optinc_mesh *mesh = c->layers[0].stage[0].mesh;
    for (int i = 0; i < mesh->n_mzi; i++)
        mesh->mzi[i].theta.rad = M_PI / 2;
    assert_mesh_propagates(c, OPTINC_DEV_LOSS);
    optinc_circuit_free(c);
}

/* Elements too dark for a pivot take the general 2x2 form (double only: the
 * float path underflows at 400 dB per MZI); a black mesh gives zeros, not
 * the NaN of a zero pivot. */
Test(sim, pivot_program_runs_dark_elements_as_general_matrices)
{
    optinc_components cp = device_errors(400);
    optinc_circuit *c = su_mesh_circuit(6, OPTINC_MESH_CLEMENTS, 8, &cp);
    optinc_chip *chip = su_chip(c, OPTINC_DEV_ALL, 7);
    double err[2];
    mesh_errors(chip, 6, err);
    cr_assert_leq(err[0], 1e-12, "double: %g", err[0]);     /* measured 2.2e-16 */
    optinc_chip_free(chip);
    c->layers[0].components.mzi.insertion_loss_dB = INFINITY;
    chip = su_chip(c, OPTINC_DEV_ALL, 7);
    optinc_cmat *X = optinc_cmat_identity(6), *Y = optinc_cmat_new(6, 6);
    for (int k = 0; k < 2; k++) {
        cr_assert_eq(optinc_chip_layer_apply(chip, 0, X, Y, k ? OPTINC_FLOAT : OPTINC_DOUBLE,
                                             NULL), OPTINC_OK);
        for (int i = 0; i < 36; i++)
            cr_assert(Y->a[i] == 0, "entry %d: %g%+gi", i, creal(Y->a[i]), cimag(Y->a[i]));
    }
    optinc_cmat_free(X);
    optinc_cmat_free(Y);
    optinc_chip_free(chip);
    optinc_circuit_free(c);
}

/* A noisy chip builds a fresh program per evaluation: one evaluation of
 * [I | X] must give T'' and T'' X for the same noise draw T''. */
Test(sim, pivot_program_of_a_noisy_chip_is_one_matrix_per_evaluation)
{
    optinc_components cp = device_errors(0.3);
    cp.phase_shifter.noise_sigma_rad = 0.05;
    int n = 20, B = 70;
    optinc_circuit *c = su_mesh_circuit(n, OPTINC_MESH_CLEMENTS, 9, &cp);
    optinc_chip *chip = su_chip(c, OPTINC_DEV_ALL, 7);
    optinc_rng rng;
    optinc_rng_seed(&rng, 13);
    optinc_cmat *X = optinc_cmat_gaussian(n, B, 1, &rng), *IX = optinc_cmat_new(n, n + B);
    optinc_cmat *Y = optinc_cmat_new(n, n + B), *T = optinc_cmat_new(n, n);
    optinc_cmat *TX = optinc_cmat_new(n, B), *R = optinc_cmat_new(n, B);
    for (int r = 0; r < n; r++) {
        IX->a[(size_t)r * (n + B) + r] = 1;
        for (int b = 0; b < B; b++)
            IX->a[(size_t)r * (n + B) + n + b] = X->a[(size_t)r * B + b];
    }
    cr_assert_eq(optinc_chip_layer_apply(chip, 0, IX, Y, OPTINC_DOUBLE, NULL), OPTINC_OK);
    for (int r = 0; r < n; r++) {
        for (int k = 0; k < n; k++)
            T->a[(size_t)r * n + k] = Y->a[(size_t)r * (n + B) + k];
        for (int b = 0; b < B; b++)
            TX->a[(size_t)r * B + b] = Y->a[(size_t)r * (n + B) + n + b];
    }
    optinc_cmat_mul(T, X, R);
    /* measured 4.8e-16 of the scale: a factor 2000, for the noise draw's
     * sake (a second draw would be 0.05 rad off) */
    cr_assert_leq(optinc_cmat_max_abs_diff(TX, R), 1e-12 * optinc_cmat_max_abs(R));
    optinc_cmat *m[] = {X, IX, Y, T, TX, R};
    for (int i = 0; i < 6; i++)
        optinc_cmat_free(m[i]);
    optinc_chip_free(chip);
    optinc_circuit_free(c);
}

typedef struct act_log { int calls[4]; } act_log;

static optinc_status double_it(void *ctx, const optinc_layer *L, int layer, optinc_cmat *y,
                               optinc_error *err)
{
    ((act_log *)ctx)->calls[layer]++;
    optinc_activation_apply(L->activation, y);
    for (int i = 0; i < y->rows * y->cols; i++)
        y->a[i] *= 2;
    return OPTINC_OK;
}

Test(sim, eval_applies_gain_activation_and_detection)
{
    optinc_circuit *c = su_spec_circuit(
        "schema_version: 1\nname: act\n"
        "matrices:\n  A: {shape: [4, 3], dtype: complex, generate: {kind: gaussian, seed: 1}}\n"
        "  B: {shape: [2, 4], dtype: real, generate: {kind: gaussian, seed: 2}}\n"
        "layers:\n  - {name: L1, matrix: A, activation: abs2}\n"
        "  - {name: L2, matrix: B, activation: relu_eo}\n");
    optinc_chip *chip = su_chip(c, OPTINC_DEV_NONE, 1);
    optinc_rng rng;
    optinc_rng_seed(&rng, 4);
    optinc_cmat *X = optinc_cmat_gaussian(3, 10, 1, &rng), *Y, *Yc, *Yi;
    cr_assert_eq(optinc_chip_eval(chip, X, &Y, NULL, NULL), OPTINC_OK);
    /* By hand: relu(Re(W2 . |W1 x|^2)), with W ~= gain . T. */
    const optinc_layer *L1 = &c->layers[0], *L2 = &c->layers[1];
    optinc_cmat *h = optinc_cmat_new(4, 10), *o = optinc_cmat_new(2, 10);
    optinc_cmat_mul(L1->target, X, h);
    for (int i = 0; i < 40; i++)
        h->a[i] = pow(cabs(h->a[i]), 2);
    optinc_cmat_mul(L2->target, h, o);
    for (int i = 0; i < 20; i++) {
        double want = creal(o->a[i]) > 0 ? creal(o->a[i]) : 0;
        /* the chip against the targets: measured 9.7e-15 (1 + |want|), so
         * 1e-12 leaves a factor 100; relu sets the imaginary part to 0 */
        cr_assert_float_eq(creal(Y->a[i]), want, 1e-12 * (1 + fabs(want)));
        cr_assert_eq(cimag(Y->a[i]), 0);
    }
    /* A callback replaces the built-in activation, once per layer. */
    act_log log = {{0}};
    optinc_eval_options eo;
    optinc_eval_options_default(&eo);
    eo.activation = double_it;
    eo.activation_ctx = &log;
    cr_assert_eq(optinc_chip_eval(chip, X, &Yc, &eo, NULL), OPTINC_OK);
    cr_assert_eq(log.calls[0], 1);
    cr_assert_eq(log.calls[1], 1);
    /* 2 . relu(2 . L2 h) = 4 . relu(L2 h), exactly: a factor 2 on every
     * input scales every product and sum by 2 without a rounding */
    for (int i = 0; i < 20; i++)
        cr_assert_eq(creal(Yc->a[i]), 4 * creal(Y->a[i]), "%d: %.17g", i, creal(Yc->a[i]));
    eo.activation = NULL;
    eo.detect = OPTINC_DETECT_INTENSITY;
    cr_assert_eq(optinc_chip_eval(chip, X, &Yi, &eo, NULL), OPTINC_OK);
    /* exact: the same outputs, detected as re^2 + 0^2 */
    for (int i = 0; i < 20; i++)
        cr_assert_eq(creal(Yi->a[i]), creal(Y->a[i]) * creal(Y->a[i]), "%d: %.17g", i,
                     creal(Yi->a[i]));
    /* Nonlinear circuits have no matrix; a wrong input is refused. */
    optinc_cmat *M;
    cr_assert_eq(optinc_chip_circuit_matrix(chip, &M, NULL), OPTINC_EINPUT);
    cr_assert_eq(optinc_chip_eval(chip, h, &M, NULL, NULL), OPTINC_EINPUT);
    optinc_cmat *arr[] = {X, Y, Yc, Yi, h, o};
    for (int i = 0; i < 6; i++)
        optinc_cmat_free(arr[i]);
    optinc_chip_free(chip);
    optinc_circuit_free(c);
}

Test(sim, circuit_matrix_is_the_product_chain)
{
    optinc_circuit *c = su_spec_circuit(two_layer_spec);
    optinc_chip *chip = su_chip(c, OPTINC_DEV_NONE, 1);
    optinc_cmat *M, *W = optinc_cmat_new(3, 4);
    cr_assert_eq(optinc_chip_circuit_matrix(chip, &M, NULL), OPTINC_OK);
    optinc_cmat_mul(c->layers[1].target, c->layers[0].target, W);
    cr_assert_eq(M->rows, 3);
    cr_assert_eq(M->cols, 4);
    /* Quantized phases (12 bits): agreement to the compiler's reconstruction
     * error, each layer's times the other's gain (measured 1.9% of tol). */
    double tol = 4 * (c->layers[0].reconstruction_error * c->layers[0].gain
                      * c->layers[1].gain * 6 + c->layers[1].reconstruction_error
                      * c->layers[1].gain * c->layers[0].gain * 6);
    cr_assert_leq(optinc_cmat_max_abs_diff(M, W), tol, "%g > %g", optinc_cmat_max_abs_diff(M, W),
                  tol);
    optinc_cmat_free(M);
    optinc_cmat_free(W);
    optinc_chip_free(chip);
    optinc_circuit_free(c);
}

Test(sim, fidelity_metrics)
{
    optinc_rng rng;
    optinc_rng_seed(&rng, 1);
    optinc_cmat *M = optinc_cmat_gaussian(5, 7, 1, &rng), *P = optinc_cmat_copy(M);
    double complex e = cexp(0.3 * I);
    for (int i = 0; i < 35; i++)
        P->a[i] *= e;
    optinc_fidelity f;
    /* sums of 35 products of unit-size numbers: measured 4.4e-16, 1e-14 is 45
     * ulps; the orthogonal and half overlaps below are sums with exact zeros
     * (fidelity 0 and max_abs 2 exactly, the others measured 1.1e-16) */
    cr_assert_eq(optinc_fidelity_compute(M, P, &f, NULL), OPTINC_OK);
    cr_assert_float_eq(f.fidelity, 1, 1e-14);
    cr_assert_float_eq(f.rel_frobenius, cabs(e - 1), 1e-14);
    cr_assert_float_eq(f.max_abs, cabs(e - 1) * optinc_cmat_max_abs(M), 1e-14);
    /* Orthogonal matrices: fidelity 0. */
    optinc_cmat *A = optinc_cmat_new(1, 2), *B = optinc_cmat_new(1, 2);
    A->a[0] = 1;
    B->a[1] = 2;
    cr_assert_eq(optinc_fidelity_compute(A, B, &f, NULL), OPTINC_OK);
    cr_assert_eq(f.fidelity, 0);
    cr_assert_float_eq(f.rel_frobenius, sqrt(5), 1e-15);
    cr_assert_eq(f.max_abs, 2);
    /* Known partial overlap: |<a,b>|^2/(|a|^2|b|^2) = 1/2. */
    B->a[0] = 1;
    B->a[1] = I;
    cr_assert_eq(optinc_fidelity_compute(A, B, &f, NULL), OPTINC_OK);
    cr_assert_float_eq(f.fidelity, 0.5, 1e-15);
    cr_assert_eq(optinc_fidelity_compute(M, A, &f, NULL), OPTINC_EINPUT);
    optinc_cmat *arr[] = {M, P, A, B};
    for (int i = 0; i < 4; i++)
        optinc_cmat_free(arr[i]);
}

static optinc_mc_result *mc(const optinc_circuit *c, int K, uint64_t seed, unsigned models,
                            int calibrate)
{
    optinc_mc_options o = {.chips = K, .seed = seed, .calibrate = calibrate > 0,
                           .method = calibrate > 1 ? OPTINC_CAL_REFIT : OPTINC_CAL_LOCAL};
    optinc_chip_options_default(&o.chip);
    o.chip.models = models;
    optinc_mc_result *r;
    optinc_error err;
    cr_assert_eq(optinc_monte_carlo(c, &o, &r, &err), OPTINC_OK, "%s", err.message);
    return r;
}

Test(sim, monte_carlo_is_deterministic)
{
    optinc_circuit *c = su_spec_circuit(two_layer_spec);
    optinc_mc_result *a = mc(c, 5, 11, OPTINC_DEV_ALL, 0), *b = mc(c, 5, 11, OPTINC_DEV_ALL, 0);
    optinc_mc_result *d = mc(c, 5, 12, OPTINC_DEV_ALL, 0), *one = mc(c, 1, 11, OPTINC_DEV_ALL, 0);
    optinc_mc_result *ideal = mc(c, 3, 11, OPTINC_DEV_NONE, 0);
    /* the same seed twice in one process: the same bits */
    cr_assert_eq(memcmp(a->samples, b->samples, sizeof *a->samples * 10), 0);
    cr_assert_eq(memcmp(a->before, b->before, sizeof *a->before * 2), 0);
    cr_assert_neq(a->before[0].mean.fidelity, d->before[0].mean.fidelity);
    cr_assert_neq(memcmp(a->samples, d->samples, sizeof *a->samples * 10), 0);
    /* Chip 0 is the chip of the seed itself. */
    cr_assert_eq(memcmp(one->samples, a->samples, sizeof *a->samples * 2), 0);
    cr_assert_eq(one->before[0].std.fidelity, 0);      /* one chip: no spread at all */
    cr_assert_gt(a->before[0].std.fidelity, 0);
    cr_assert_lt(a->before[0].mean.fidelity, 1);
    /* measured 4.4e-16 and 8.9e-16: factors 22 and 11 */
    for (int l = 0; l < 2; l++) {
        cr_assert_float_eq(ideal->before[l].mean.fidelity, 1, 1e-14);
        cr_assert_leq(ideal->before[l].mean.max_abs, 1e-14);
    }
    optinc_mc_result *arr[] = {a, b, d, one, ideal};
    for (int i = 0; i < 5; i++)
        optinc_mc_result_free(arr[i]);
    optinc_circuit_free(c);
}

/* The acceptance figures: coupler sigma 0.02, Clements N = 16 and N = 64. */
Test(sim, calibration_raises_mean_fidelity)
{
    const int sizes[] = {16, 64}, chips[] = {20, 4};
    for (int k = 0; k < 2; k++) {
        optinc_components cp;
        optinc_components_defaults(&cp);
        cp.mzi.splitter_error_sigma = 0.02;
        optinc_circuit *c = su_mesh_circuit(sizes[k], OPTINC_MESH_CLEMENTS, 40 + k, &cp);
        optinc_mc_result *r = mc(c, chips[k], 1, OPTINC_DEV_COUPLER, 1);
        fprintf(stderr, "N=%d, %d chips, coupler sigma 0.02: fidelity %.6f +- %.1e -> %.9f +- "
                "%.1e (rel.Frobenius %.4f -> %.6f)\n", sizes[k], chips[k],
                r->before[0].mean.fidelity, r->before[0].std.fidelity, r->after[0].mean.fidelity,
                r->after[0].std.fidelity, r->before[0].mean.rel_frobenius,
                r->after[0].mean.rel_frobenius);
        cr_assert_gt(r->after[0].mean.fidelity, r->before[0].mean.fidelity);
        cr_assert_lt(1 - r->after[0].mean.fidelity, 0.1 * (1 - r->before[0].mean.fidelity));
        optinc_mc_result_free(r);
        optinc_circuit_free(c);
    }
}

/* Where MZIs are out of reach (strong coupler errors), the global re-fit
 * beats the local correction. */
Test(sim, refit_beats_local_correction)
{
    optinc_components cp;
    optinc_components_defaults(&cp);
    cp.mzi.splitter_error_sigma = 0.06;
    optinc_circuit *c = su_mesh_circuit(20, OPTINC_MESH_CLEMENTS, 5, &cp);
    optinc_mc_result *local = mc(c, 2, 3, OPTINC_DEV_COUPLER, 1);
    optinc_mc_result *refit = mc(c, 2, 3, OPTINC_DEV_COUPLER, 2);
    fprintf(stderr, "N=20, 2 chips, coupler sigma 0.06: fidelity %.6f -> local %.9f, refit %.9f\n",
            local->before[0].mean.fidelity, local->after[0].mean.fidelity,
            refit->after[0].mean.fidelity);
    /* the same chips before either correction: the same bits */
    cr_assert_eq(local->before[0].mean.fidelity, refit->before[0].mean.fidelity);
    cr_assert_gt(refit->after[0].mean.fidelity, local->after[0].mean.fidelity);
    optinc_mc_result_free(local);
    optinc_mc_result_free(refit);
    optinc_circuit_free(c);
}

Test(sim, calibration_with_ideal_couplers_changes_nothing)
{
    optinc_circuit *c = su_mesh_circuit(12, OPTINC_MESH_RECK, 3, NULL);
    optinc_cmat *before = optinc_layer_transfer(&c->layers[0]);
    optinc_chip *ideal = su_chip(c, OPTINC_DEV_NONE, 1);
    optinc_calibration *cal;
    optinc_calibration_report rep;
    cr_assert_eq(optinc_calibration_from_chip(ideal, &cal, NULL), OPTINC_OK);
    cr_assert_eq(optinc_calibrate_circuit(c, cal, OPTINC_CAL_REFIT, &rep, NULL), OPTINC_OK);
    optinc_cmat *after = optinc_layer_transfer(&c->layers[0]);
    /* measured 1.1e-15 and 1.3e-15 (reference BLAS): factors 900 and 7.5 */
    cr_assert_leq(optinc_cmat_max_abs_diff(before, after), 1e-12);
    cr_assert_float_eq(rep.layer[0].fidelity_before, 1, 1e-14);
    cr_assert_float_eq(rep.layer[0].fidelity_after, 1, 1e-14);
    cr_assert_eq(rep.layer[0].n_unreachable, 0);
    cr_assert_eq(rep.layer[0].n_mzi, 66);
    optinc_calibration_report_free(&rep);
    optinc_calibration_free(cal);
    optinc_cmat_free(before);
    optinc_cmat_free(after);
    optinc_chip_free(ideal);
    optinc_circuit_free(c);
}

/* Measure a chip, write the file, read it back, compile against it; a chip
 * with the same couplers then realizes the corrected circuit as reported. */
Test(sim, calibration_file_round_trip_and_compile)
{
    optinc_circuit *c = su_spec_circuit(two_layer_spec);
    optinc_chip *chip = su_chip(c, OPTINC_DEV_COUPLER, 99);
    optinc_calibration *cal, *back;
    optinc_error err;
    char *dir = tu_tempdir(), path[4200];
    snprintf(path, sizeof path, "%s/chip.cal", dir);
    cr_assert_eq(optinc_calibration_from_chip(chip, &cal, NULL), OPTINC_OK);
    cr_assert_eq(optinc_calibration_write(cal, c, path, &err), OPTINC_OK, "%s", err.message);
    cr_assert_eq(optinc_calibration_read(path, c, NULL, &back, &err), OPTINC_OK, "%s", err.message);
    /* the file holds each coupler in shortest round-trip text: the same bits */
    for (int l = 0; l < 2; l++)
        for (int s = 0; s < 3; s++) {
            cr_assert_eq(back->layer[l].n_mzi[s], cal->layer[l].n_mzi[s]);
            for (int i = 0; i < 2 * cal->layer[l].n_mzi[s]; i++)
                cr_assert_eq(back->layer[l].kappa[s][i], cal->layer[l].kappa[s][i]);
        }
    optinc_cmat *ref[2] = {optinc_layer_transfer(&c->layers[0]),
                           optinc_layer_transfer(&c->layers[1])};
    optinc_calibration_report rep;
    cr_assert_eq(optinc_calibrate_circuit(c, back, OPTINC_CAL_LOCAL, &rep, &err), OPTINC_OK, "%s",
                 err.message);
    optinc_chip *again = su_chip(c, OPTINC_DEV_COUPLER, 99);
    for (int l = 0; l < 2; l++) {
        optinc_cmat *T = optinc_chip_layer_transfer(again, l);
        optinc_fidelity f;
        optinc_fidelity_compute(ref[l], T, &f, NULL);
        /* the report's figure is this one, computed alike: measured 0 */
        cr_assert_float_eq(f.fidelity, rep.layer[l].fidelity_after, 1e-12);
        cr_assert_gt(rep.layer[l].fidelity_after, rep.layer[l].fidelity_before);
        optinc_cmat_free(T);
        optinc_cmat_free(ref[l]);
    }
    optinc_calibration_report_free(&rep);
    optinc_calibration_free(cal);
    optinc_calibration_free(back);
    optinc_chip_free(chip);
    optinc_chip_free(again);
    optinc_circuit_free(c);
    tu_rmtree(dir);
    free(dir);
}

/* Bad calibration files: text, line, column, message fragment.  The circuit
 * is tests/bad/calibration/circuit.yaml (layer L1: V mesh of 3 modes,
 * attenuators, U mesh of 4 modes). */
static const struct {
    const char *name, *text;
    int line, col;
    const char *fragment;
} bad_cal[] = {
    {"empty", "# nothing\n", 2, 1, "no 'optinc-calibration 1' line"},
    {"bad_header", "optinc-calibration 3\nL1 V 0 0 0 0\n", 1, 1, "first line must be"},
    {"few_fields", "optinc-calibration 1\nL1 V 0 0 0.01\n", 2, 1, "expected 6 fields"},
    {"many_fields", "optinc-calibration 1\nL1 V 0 0 0.01 0.02 0.03\n", 2, 20, "found 7"},
    {"no_layer", "optinc-calibration 1\n  L9 V 0 0 0 0\n", 2, 3, "no layer 'L9'"},
    {"no_mesh", "optinc-calibration 1\nL1 S 0 0 0 0\n", 2, 4, "its meshes are V, U"},
    {"bad_column", "optinc-calibration 1\nL1 V 7 0 0 0\n", 2, 6, "column must be an integer"},
    {"no_mzi", "optinc-calibration 1\nL1 U 0 1 0 0\n", 2, 8, "no MZI of mesh U"},
    {"bad_delta", "optinc-calibration 1\nL1 U 0 0 0.01 abc\n", 2, 15, "'abc' is not a number"},
    {"hex_delta", "optinc-calibration 1\nL1 U 0 0 0x1p-7 0\n", 2, 10, "'0x1p-7' is not a number"},
    {"delta_range", "optinc-calibration 1\nL1 U 0 0 0.6 0\n", 2, 10, "in [-0.5, 0.5]"},
    {"duplicate", "optinc-calibration 1\nL1 U 0 0 0 0\n# again\nL1 U 0 0 0.1 0\n", 4, 1,
     "already listed on line 2"},
};

Test(sim, calibration_file_errors)
{
    optinc_spec *spec;
    optinc_circuit *c;
    optinc_error err;
    cr_assert_eq(optinc_spec_load("tests/bad/calibration/circuit.yaml", NULL, &spec, &err), OPTINC_OK,
                 "%s", err.message);
    cr_assert_eq(optinc_compile(spec, &c, &err), OPTINC_OK);
    char *dir = tu_tempdir(), path[4200];
    for (size_t i = 0; i < sizeof bad_cal / sizeof bad_cal[0]; i++) {
        snprintf(path, sizeof path, "%s/%s.cal", dir, bad_cal[i].name);
        tu_write_file(path, bad_cal[i].text);
        optinc_calibration *cal = NULL;
        cr_assert_eq(optinc_calibration_read(path, c, NULL, &cal, &err), OPTINC_EINPUT, "%s",
                     bad_cal[i].name);
        cr_assert_null(cal);
        cr_assert_str_eq(err.file, path);
        cr_assert_eq(err.line, bad_cal[i].line, "%s: line %d: %s", bad_cal[i].name, err.line,
                     err.message);
        cr_assert_eq(err.column, bad_cal[i].col, "%s: column %d: %s", bad_cal[i].name,
                     err.column, err.message);
        cr_assert(strstr(err.message, bad_cal[i].fragment), "%s: %s", bad_cal[i].name,
                  err.message);
    }
    optinc_calibration *cal = NULL;
    snprintf(path, sizeof path, "%s/missing.cal", dir);
    cr_assert_eq(optinc_calibration_read(path, c, NULL, &cal, &err), OPTINC_EINPUT);
    tu_rmtree(dir);
    free(dir);
    optinc_circuit_free(c);
    optinc_spec_free(spec);
}

/* ------------------------------------------------------------------ command line */

static tu_run run(const char *const *args)
{
    return tu_optinc(args);
}

Test(cli, simulate_help_and_usage_errors)
{
    tu_run r = run((const char *[]){"simulate", "--help", NULL});
    cr_assert_eq(r.status, 0);
    cr_assert(strstr(r.out, "usage: optinc simulate"));
    tu_run_free(&r);
    const char *bad[][4] = {{"simulate", NULL},
                            {"simulate", "x.yaml", "--monte-carlo", "0"},
                            {"simulate", "x.yaml", "--detect", "phase"},
                            {"simulate", "x.yaml", "--bogus", NULL},
                            {"simulate", "x.yaml", "--output", "o.npy"}};
    for (int i = 0; i < 5; i++) {
        const char *args[6] = {0};
        for (int k = 0; k < 4 && bad[i][k]; k++)
            args[k] = bad[i][k];
        r = run(args);
        cr_assert_eq(r.status, 2, "case %d: %s", i, r.err);
        cr_assert(strstr(r.err, "optinc simulate: error:"), "case %d: %s", i, r.err);
        tu_run_free(&r);
    }
    r = run((const char *[]){"simulate", "tests/bad/calibration/nonexistent.yaml", NULL});
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "nonexistent.yaml"));
    tu_run_free(&r);
}

Test(cli, simulate_matrix_json_input_output_and_calibration)
{
    char *dir = tu_tempdir(), spec[4200], mat[4200], in[4200], out[4200], cal[4200];
    snprintf(spec, sizeof spec, "%s/s.yaml", dir);
    snprintf(mat, sizeof mat, "%s/m.npy", dir);
    snprintf(in, sizeof in, "%s/in.csv", dir);
    snprintf(out, sizeof out, "%s/out.npy", dir);
    snprintf(cal, sizeof cal, "%s/chip.cal", dir);
    tu_write_file(spec, two_layer_spec);
    tu_write_file(in, "1,0,0.5\n0,1,0.5\n0,0,0.5\n0,0,0.5\n");

    tu_run r = run((const char *[]){"simulate", spec, "--matrix", mat, "--json",
                                    "--monte-carlo", "3", "--seed", "4", NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(strstr(r.out, "\"circuit\": \"two\""));
    cr_assert(strstr(r.out, "\"chips\": 3"));
    cr_assert(strstr(r.out, "\"seed\": 4"));
    cr_assert(strstr(r.out, "\"compiled\": {\"max_abs\""));
    cr_assert(strstr(r.out, "\"chip\": {\"mean\""));
    /* Same seed, same report. */
    tu_run r2 = run((const char *[]){"simulate", spec, "--json", "--monte-carlo", "3", "--seed",
                                     "4", NULL});
    cr_assert_str_eq(r.out, r2.out);
    tu_run_free(&r);
    tu_run_free(&r2);

    optinc_cmat *M;
    int cplx;
    optinc_circuit *c = su_spec_circuit(two_layer_spec);
    optinc_chip *ideal = su_chip(c, OPTINC_DEV_NONE, 1);
    optinc_cmat *want;
    cr_assert_eq(optinc_npy_read(mat, NULL, &M, &cplx, NULL), OPTINC_OK);
    cr_assert_eq(optinc_chip_circuit_matrix(ideal, &want, NULL), OPTINC_OK);
    cr_assert(cplx);
    /* exact: the program's computation and this one, same build and machine */
    cr_assert_eq(optinc_cmat_max_abs_diff(M, want), 0);

    /* Outputs of an input batch (ideal chip: the matrix times the inputs). */
    r = run((const char *[]){"simulate", spec, "--ideal", "--input", in, "--output", out, NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    tu_run_free(&r);
    optinc_cmat *Y, *X = optinc_cmat_new(4, 3), *R = optinc_cmat_new(3, 3);
    double xin[4][3] = {{1, 0, 0.5}, {0, 1, 0.5}, {0, 0, 0.5}, {0, 0, 0.5}};
    for (int i = 0; i < 12; i++)
        X->a[i] = xin[i / 3][i % 3];
    optinc_cmat_mul(want, X, R);
    cr_assert_eq(optinc_npy_read(out, NULL, &Y, &cplx, NULL), OPTINC_OK);
    cr_assert_leq(optinc_cmat_max_abs_diff(Y, R), 1e-12);     /* measured 1.1e-15 */

    /* A chip's couplers saved, then used: calibration must help. */
    r = run((const char *[]){"simulate", spec, "--seed", "8", "--save-calibration", cal, NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    tu_run_free(&r);
    r = run((const char *[]){"simulate", spec, "--calibration", cal, "--calibrate", "--json",
                             NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(strstr(r.out, "\"calibrated_chip\""));
    tu_run_free(&r);

    optinc_cmat *arr[] = {M, want, Y, X, R};
    for (int i = 0; i < 5; i++)
        optinc_cmat_free(arr[i]);
    optinc_chip_free(ideal);
    optinc_circuit_free(c);
    tu_rmtree(dir);
    free(dir);
}

/* The matrix a netlist alone rebuilds matches its spec's target.  The
 * netlist's phases were computed where the golden netlists were made; they
 * rebuild W to 8.4e-16 here on every build (measured), under 1e-13. */
Test(cli, simulate_netlist_matrix_matches_the_target)
{
    char *dir = tu_tempdir(), mat[4200];
    snprintf(mat, sizeof mat, "%s/m.npy", dir);
    tu_run r = run((const char *[]){"simulate", "netlists/real4.pnl.sp", "--matrix", mat, NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    tu_run_free(&r);
    optinc_spec *spec;
    optinc_cmat *M;
    int cplx;
    cr_assert_eq(optinc_spec_load("specs/real4.yaml", NULL, &spec, NULL), OPTINC_OK);
    cr_assert_eq(optinc_npy_read(mat, NULL, &M, &cplx, NULL), OPTINC_OK);
    const optinc_spec_matrix *W = &spec->matrices[spec->layers[0].matrix];
    cr_assert_eq(M->rows, W->rows);
    cr_assert_eq(M->cols, W->cols);
    for (int i = 0; i < W->rows * W->cols; i++)
        cr_assert_leq(cabs(M->a[i] - W->data[i]), 1e-13, "entry %d", i);
    optinc_cmat_free(M);
    optinc_spec_free(spec);
    tu_rmtree(dir);
    free(dir);
}

/* Inputs near the largest double overflow in the mesh: the outputs would be
 * NaN, which optinc does not read back, so the run refuses to write them
 * (exit 2, the output named) and leaves no file. */
Test(cli, simulate_outputs_that_overflow_are_not_written)
{
    char *dir = tu_tempdir(), in[4200], out[4200];
    snprintf(in, sizeof in, "%s/huge.csv", dir);
    snprintf(out, sizeof out, "%s/out.npy", dir);
    cr_assert_eq(tu_write_file(in, "1.7e308,1.7e308\n1.7e308,-1.7e308\n1.7e308,1\n"), 0);
    tu_run r = run((const char *[]){"simulate", "tests/bad/calibration/circuit.yaml", "--ideal",
                                    "--input", in, "--output", out, NULL});
    cr_expect_eq(r.status, 2, "exit %d: %s", r.status, r.err);
    char want[4400];
    snprintf(want, sizeof want, "%s: error: entry (", out);
    cr_expect(strstr(r.err, want) && strstr(r.err, "is NaN or infinite, which optinc does not "
                                                   "read back, so nothing was written"),
              "%s", r.err);
    cr_expect_eq(tu_dir_count(dir), 1, "only the input is there");
    tu_run_free(&r);
    tu_rmtree(dir);
    free(dir);
}
